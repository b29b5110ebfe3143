//! Mail to the judge (the only module that talks SMTP). Mails are queued in the store first and
//! sent from there; each carries a Message-ID derived from its idempotent key, so a mail the
//! server accepted just before a crash and that is sent again after it is recognisably the same.
//! With `smtp.folder` set, mails are written there as .eml files instead (lettre's file
//! transport).
//!
//! A mail is a plain-text part with an HTML alternative (the HTML shows inline images by
//! `cid:`), plus attachments.

use crate::settings::{Security, SmtpSettings};
use crate::store::Mail;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncFileTransport, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Folder(AsyncFileTransport<Tokio1Executor>),
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
                transport: Transport::Folder(AsyncFileTransport::new(folder)),
                from,
                to,
            });
        }
        let builder = match smtp.security {
            Security::Starttls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host)
                .map_err(|e| format!("SMTP {}: {e}", smtp.host))?,
            Security::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(&smtp.host)
                .map_err(|e| format!("SMTP {}: {e}", smtp.host))?,
            Security::Plain => {
                AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(smtp.host.clone())
            }
        };
        let mut builder = builder
            .port(smtp.port)
            .timeout(Some(Duration::from_secs(30)));
        if let (Some(user), Some(pass)) = (&smtp.username, &smtp.password) {
            builder =
                builder.credentials(Credentials::new(user.clone(), pass.expose().to_string()));
        }
        Ok(Mailer {
            transport: Transport::Smtp(builder.build()),
            from,
            to,
        })
    }

    /// Send one queued mail; Ok once the server accepted it (or the file is written).
    pub async fn send(&self, key: &str, mail: &Mail) -> Result<(), String> {
        let message = self.message(key, mail)?;
        match &self.transport {
            Transport::Smtp(t) => t.send(message).await.map(|_| ()).map_err(|e| e.to_string()),
            Transport::Folder(t) => t.send(message).await.map(|_| ()).map_err(|e| e.to_string()),
        }
    }

    /// The MIME message for a queued mail.
    pub fn message(&self, key: &str, mail: &Mail) -> Result<Message, String> {
        let mut b = Message::builder()
            .from(self.from.clone())
            .subject(mail.subject.clone())
            .message_id(Some(message_id(key)))
            .date(mail.created_at.into());
        for to in &self.to {
            b = b.to(to.clone());
        }
        b.multipart(mime(mail)).map_err(|e| e.to_string())
    }
}

fn content_type(s: &str) -> ContentType {
    ContentType::parse(s).unwrap_or(ContentType::TEXT_PLAIN)
}

/// mixed[ alternative[ text, related[ html, inline images ] ], attachments ].
fn mime(mail: &Mail) -> MultiPart {
    let html = mail
        .html
        .clone()
        .unwrap_or_else(|| crate::render::text_as_html(&mail.subject, &mail.body));
    let plain = SinglePart::plain(mail.body.clone());
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
pub fn message_id(key: &str) -> String {
    // FNV-1a: stable across runs and versions (std's hasher is not).
    let mut h: u64 = 0xcbf29ce484222325;
    for b in key.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    format!("<{h:016x}.bansha@localhost>")
}
