//! Mail to the judge (the only module that talks SMTP). Mails are queued in the store first and
//! sent from there over one kept connection; each carries a Message-ID derived from its
//! idempotent key, so a mail the server accepted in the instant before a crash and that is sent
//! again after it is recognisably the same.
//! With `smtp.folder` set, mails are written there as .eml files instead (lettre's file
//! transport).
//!
//! A mail is a plain-text part with an HTML alternative (the HTML shows inline images by
//! `cid:`), plus attachments.

use crate::domain::mail::Mail;
use crate::domain::settings::{Security, SmtpSettings};
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{AsyncSmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use lettre::Message;
use std::time::Duration;

enum Transport {
    Smtp(Box<Smtp>),
    /// Each mail a file named by its time and subject (`file_name`).
    Folder(std::path::PathBuf),
    /// Another relay (the simulator's, in the same process).
    Relay(std::sync::Arc<dyn Relay>),
}

/// A mail relay other than SMTP or a folder: the seam the simulator's relay (`tests/simd`)
/// takes, in the same process, with the same answers a server gives (`SendError`).
pub trait Relay: Send + Sync {
    /// Take one whole message (its envelope says to whom).
    fn send(
        &self,
        message: &Message,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), SendError>> + Send + '_>>;
}

/// An SMTP server and the one connection kept open to it between mails.
///
/// bansha opens the TCP connection itself, with Nagle's algorithm off (`TCP_NODELAY`), and
/// hands it to lettre's connection type: lettre 0.11.23 writes a mail's closing `.` as its own
/// five-byte write, which Nagle holds until the server acknowledges the body — 40 ms on Linux
/// (the delayed ACK) for every mail, and a window in which a killed daemon's kernel still
/// delivers the mail while bansha never hears it was accepted (lettre/lettre#1159 fixes this
/// upstream, unreleased). Implicit TLS (port 465) still uses lettre's own socket.
struct Smtp {
    host: String,
    port: u16,
    security: Security,
    credentials: Option<Credentials>,
    connection: tokio::sync::Mutex<Option<AsyncSmtpConnection>>,
}

const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

impl Smtp {
    async fn connect(&self) -> Result<AsyncSmtpConnection, String> {
        let hello = ClientId::default();
        let tls = || {
            TlsParameters::new(self.host.clone()).map_err(|e| format!("SMTP {}: {e}", self.host))
        };
        let mut conn = if self.security == Security::Tls {
            AsyncSmtpConnection::connect_tokio1(
                (self.host.as_str(), self.port),
                Some(SMTP_TIMEOUT),
                &hello,
                Some(tls()?),
                None,
            )
            .await
            .map_err(|e| e.to_string())?
        } else {
            let tcp = tokio::net::TcpStream::connect((self.host.as_str(), self.port))
                .await
                .map_err(|e| format!("SMTP {}:{}: {e}", self.host, self.port))?;
            tcp.set_nodelay(true).map_err(|e| e.to_string())?;
            let mut conn = AsyncSmtpConnection::connect_with_transport(Box::new(tcp), &hello)
                .await
                .map_err(|e| e.to_string())?;
            if self.security == Security::Starttls {
                if !conn.can_starttls() {
                    return Err(format!("SMTP {} does not offer STARTTLS", self.host));
                }
                conn.starttls(tls()?, &hello)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            conn
        };
        if let Some(c) = &self.credentials {
            conn.auth(DEFAULT_MECHANISMS, c)
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(conn)
    }

    /// Send over the kept connection (opened, or opened again when the server dropped it).
    async fn send(&self, message: &Message) -> Result<(), SendError> {
        let mut slot = self.connection.lock().await;
        let reusable = match slot.as_mut() {
            Some(c) => !c.has_broken() && c.test_connected().await,
            None => false,
        };
        if !reusable {
            let conn = tokio::time::timeout(SMTP_TIMEOUT, self.connect())
                .await
                .map_err(|_| {
                    SendError::Temporary(format!(
                        "SMTP {}: no answer in {SMTP_TIMEOUT:?}",
                        self.host
                    ))
                })?;
            *slot = Some(conn.map_err(SendError::Temporary)?);
        }
        let conn = slot.as_mut().expect("connected above");
        match transaction(conn, message).await {
            Ok(()) => Ok(()),
            Err(Step::Late(e)) => {
                *slot = None;
                Err(SendError::Temporary(e))
            }
            Err(Step::Smtp(e)) => {
                // End the session cleanly where the server still listens (a refused recipient
                // leaves it mid-transaction), and start the next mail on a new one.
                if e.is_permanent() {
                    let _ = tokio::time::timeout(Duration::from_secs(5), conn.quit()).await;
                }
                *slot = None;
                // A 5xx answer to this mail or recipient (a content filter's 554, a dead
                // address's 550) will be the same next time; anything else may pass later.
                Err(if e.is_permanent() {
                    SendError::Refused(e.to_string())
                } else {
                    SendError::Temporary(e.to_string())
                })
            }
        }
    }
}

/// How one step of a mail transaction failed.
enum Step {
    Smtp(lettre::transport::smtp::Error),
    /// No answer in the step's time.
    Late(String),
}

/// How long the server has to answer the final dot of a mail (RFC 5321 §4.5.3.2.6: the client
/// waits 10 minutes, since the server may be delivering it before it answers). Giving up
/// sooner sends the mail again though the server took it: the copies a slow relay got.
pub const DATA_END_TIMEOUT: Duration = Duration::from_secs(600);

/// One mail transaction (MAIL, RCPT, DATA, the message), as lettre's `send` runs it, with the
/// RFC's waits: each command's answer within `SMTP_TIMEOUT` (before the final dot the server
/// has nothing, and the mail can go again without a copy), the final dot's within
/// `DATA_END_TIMEOUT`.
async fn transaction(conn: &mut AsyncSmtpConnection, message: &Message) -> Result<(), Step> {
    use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
    use lettre::transport::smtp::extension::{Extension, MailBodyParameter, MailParameter};
    let envelope = message.envelope();
    let body = message.formatted();
    let mut options = Vec::new();
    let ascii = |a: &lettre::Address| AsRef::<str>::as_ref(a).is_ascii();
    let non_ascii = envelope.from().is_some_and(|a| !ascii(a)) || !envelope.to().iter().all(ascii);
    if non_ascii {
        options.push(MailParameter::SmtpUtfEight);
    }
    if !body.is_ascii() && conn.server_info().supports_feature(Extension::EightBitMime) {
        options.push(MailParameter::Body(MailBodyParameter::EightBitMime));
    }
    let from = envelope.from().cloned();
    step_cmd(conn, SMTP_TIMEOUT, "MAIL FROM", Mail::new(from, options)).await?;
    for to in envelope.to() {
        step_cmd(conn, SMTP_TIMEOUT, "RCPT TO", Rcpt::new(to.clone(), vec![])).await?;
    }
    step_cmd(conn, SMTP_TIMEOUT, "DATA", Data).await?;
    match tokio::time::timeout(DATA_END_TIMEOUT, conn.message(&body)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => {
            conn.abort().await;
            Err(Step::Smtp(e))
        }
        Err(_) => Err(Step::Late(format!(
            "no answer to the end of the mail in {DATA_END_TIMEOUT:?}"
        ))),
    }
}

/// One command and its answer within `limit`.
async fn step_cmd(
    conn: &mut AsyncSmtpConnection,
    limit: Duration,
    what: &str,
    command: impl std::fmt::Display,
) -> Result<(), Step> {
    match tokio::time::timeout(limit, conn.command(command)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => {
            conn.abort().await;
            Err(Step::Smtp(e))
        }
        Err(_) => Err(Step::Late(format!("no answer to {what} in {limit:?}"))),
    }
}

/// Why a mail was not accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum SendError {
    /// The server (or the connection to it) failed in a way that may pass: try again later.
    Temporary(String),
    /// The server refused this mail or this recipient for good (5xx): asking again gets the same.
    Refused(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Temporary(e) => write!(f, "{e}"),
            SendError::Refused(e) => write!(f, "refused: {e}"),
        }
    }
}

pub struct Mailer {
    transport: Transport,
    from: Mailbox,
    to: Vec<Mailbox>,
}

impl Mailer {
    pub fn new(smtp: &SmtpSettings, to: &[String]) -> Result<Mailer, String> {
        let from: Mailbox = format!("bansha <{}>", smtp.from)
            .parse()
            .map_err(|e| format!("smtp.from {}: {e}", smtp.from))?;
        let to = to
            .iter()
            .map(|a| {
                a.parse::<Mailbox>()
                    .map_err(|e| format!("judge.to {a}: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(folder) = &smtp.folder {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("smtp.folder {}: {e}", folder.display()))?;
            return Ok(Mailer {
                transport: Transport::Folder(folder.clone()),
                from,
                to,
            });
        }
        Ok(Mailer {
            transport: Transport::Smtp(Box::new(Smtp {
                host: smtp.host.clone(),
                port: smtp.port,
                security: smtp.security,
                credentials: match (&smtp.username, &smtp.password) {
                    (Some(user), Some(pass)) => {
                        Some(Credentials::new(user.clone(), pass.expose().to_string()))
                    }
                    _ => None,
                },
                connection: tokio::sync::Mutex::new(None),
            })),
            from,
            to,
        })
    }

    /// The mailer over another relay (the simulator's).
    pub fn with_relay(
        smtp: &SmtpSettings,
        to: &[String],
        relay: std::sync::Arc<dyn Relay>,
    ) -> Result<Mailer, String> {
        let mut m = Mailer::new(
            &SmtpSettings {
                folder: None,
                ..smtp.clone()
            },
            to,
        )?;
        m.transport = Transport::Relay(relay);
        Ok(m)
    }

    /// Whether the relay takes a session: connect, greet, log in (when configured) and quit,
    /// sending nothing. A folder is checked for being writable.
    pub async fn check(&self) -> Result<String, String> {
        match &self.transport {
            Transport::Smtp(t) => {
                let mut conn = tokio::time::timeout(SMTP_TIMEOUT, t.connect())
                    .await
                    .map_err(|_| {
                        format!("SMTP {}:{}: no answer in {SMTP_TIMEOUT:?}", t.host, t.port)
                    })??;
                let _ = tokio::time::timeout(Duration::from_secs(5), conn.quit()).await;
                Ok(format!(
                    "{}:{}{}",
                    t.host,
                    t.port,
                    if t.credentials.is_some() {
                        "，已登录"
                    } else {
                        ""
                    }
                ))
            }
            Transport::Folder(_) => Ok("写入文件夹".into()),
            Transport::Relay(_) => Ok("模拟中继".into()),
        }
    }

    /// The judge's addresses, as configured.
    pub fn recipients(&self) -> Vec<String> {
        self.to.iter().map(|m| m.email.to_string()).collect()
    }

    /// Send one queued mail, to every recipient or to the one named (`only`, an address of
    /// `recipients()`); Ok once the server accepted it (or the file is written). The
    /// Message-ID comes from `key` either way.
    pub async fn send(&self, key: &str, mail: &Mail, only: Option<&str>) -> Result<(), SendError> {
        let message = self.message(key, mail, only).map_err(SendError::Refused)?;
        match &self.transport {
            // Each step has its own wait (`transaction`); connecting has `SMTP_TIMEOUT`.
            Transport::Smtp(t) => t.send(&message).await,
            Transport::Relay(r) => r.send(&message).await,
            Transport::Folder(dir) => {
                // Written whole under a temporary name, then renamed: a reader never sees half
                // a mail, and the same mail sent again replaces its file.
                let path = dir.join(file_name(key, mail));
                let tmp = path.with_extension("eml.part");
                std::fs::write(&tmp, message.formatted())
                    .and_then(|_| std::fs::rename(&tmp, &path))
                    .map_err(|e| SendError::Temporary(format!("{}: {e}", path.display())))
            }
        }
    }

    /// The MIME message for a queued mail.
    pub fn message(&self, key: &str, mail: &Mail, only: Option<&str>) -> Result<Message, String> {
        let mut b = Message::builder()
            .from(self.from.clone())
            .subject(mail.subject.clone())
            .message_id(Some(message_id(key)))
            .date(mail.created_at.into());
        for to in self
            .to
            .iter()
            .filter(|t| only.is_none_or(|o| t.email.to_string() == o))
        {
            b = b.to(to.clone());
        }
        b.multipart(mime(mail)).map_err(|e| e.to_string())
    }
}

fn content_type(s: &str) -> ContentType {
    ContentType::parse(s).unwrap_or(ContentType::TEXT_PLAIN)
}

/// mixed[ alternative[ text, related[ html, inline images ] ], attachments ]. The daemon gives
/// every mail its HTML part before sending (`present::html::text_as_html` for text mails); one
/// without goes as text alone.
fn mime(mail: &Mail) -> MultiPart {
    let plain = SinglePart::plain(mail.body.clone());
    let Some(html) = mail.html.clone() else {
        return MultiPart::alternative().singlepart(plain);
    };
    let inline: Vec<_> = mail.files.iter().filter(|f| f.cid.is_some()).collect();
    let alternative = if inline.is_empty() {
        MultiPart::alternative()
            .singlepart(plain)
            .singlepart(SinglePart::html(html))
    } else {
        let mut related = MultiPart::related().singlepart(SinglePart::html(html));
        for f in inline {
            let cid = f.cid.clone().unwrap_or_default();
            related = related.singlepart(
                Attachment::new_inline(cid).body(f.data.clone(), content_type(&f.content_type)),
            );
        }
        MultiPart::alternative()
            .singlepart(plain)
            .multipart(related)
    };
    let attached: Vec<_> = mail.files.iter().filter(|f| f.cid.is_none()).collect();
    if attached.is_empty() {
        return alternative;
    }
    let mut mixed = MultiPart::mixed().multipart(alternative);
    for f in attached {
        mixed = mixed.singlepart(
            Attachment::new(f.name.clone()).body(f.data.clone(), content_type(&f.content_type)),
        );
    }
    mixed
}

/// A stable Message-ID for an idempotent key.
/// A mail's file name in folder mode: when it was made and its subject, so the judge finds a
/// mail by looking ("20261129-210005 最终计票：李逵 以 4 票最高，出局 5f3a91c2.eml"); the end is
/// its key's hash, so two mails of the same second and subject keep apart.
pub fn file_name(key: &str, mail: &Mail) -> String {
    let subject: String = mail
        .subject
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .take(60)
        .collect();
    let id = message_id(key);
    format!(
        "{} {} {}.eml",
        mail.created_at.format("%Y%m%d-%H%M%S"),
        subject.trim(),
        &id[1..9]
    )
}

pub fn message_id(key: &str) -> String {
    // FNV-1a: stable across runs and versions (std's hasher is not).
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("<{h:016x}.bansha@localhost>")
}

#[cfg(test)]
mod file_name_tests {
    use super::*;

    /// Issue 21: a folder of mails reads like an inbox — time, then subject; the key's hash
    /// keeps two mails of the same second and subject apart; no character a file system refuses.
    #[test]
    fn folder_mails_are_named_by_time_and_subject() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-29T21:00:05+08:00").unwrap();
        let mail = Mail::text(
            "[版杀一室] 第2天 最终计票：李逵 出局/一票 ?".into(),
            String::new(),
            at,
        );
        let name = file_name("close/g/2", &mail);
        assert!(
            name.starts_with("20261129-210005 [版杀一室] 第2天 最终计票：李逵 出局_一票 _ "),
            "{name}"
        );
        assert!(name.ends_with(".eml"));
        assert_ne!(name, file_name("close/g/2/r1", &mail));
        assert_eq!(
            name,
            file_name("close/g/2", &mail),
            "the same mail, the same file"
        );
    }
}
