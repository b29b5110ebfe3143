//! Mail to the judge (the only module that talks SMTP). Mails are queued in the store first and
//! sent from there; each carries a Message-ID derived from its idempotent key, so a mail the
//! server accepted just before a crash and that is sent again after it is recognisably the same.

use crate::settings::{Security, SmtpSettings};
use crate::store::Mail;
use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    to: Vec<Mailbox>,
}

impl Mailer {
    pub fn new(smtp: &SmtpSettings, to: &[String]) -> Result<Mailer, String> {
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
        Ok(Mailer {
            transport: builder.build(),
            from,
            to,
        })
    }

    /// Send one queued mail; Ok once the server accepted it.
    pub async fn send(&self, key: &str, mail: &Mail) -> Result<(), String> {
        let mut b = Message::builder()
            .from(self.from.clone())
            .subject(mail.subject.clone())
            .message_id(Some(message_id(key)))
            .date(mail.created_at.into())
            .header(ContentType::TEXT_PLAIN);
        for to in &self.to {
            b = b.to(to.clone());
        }
        let message = b.body(mail.body.clone()).map_err(|e| e.to_string())?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
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
