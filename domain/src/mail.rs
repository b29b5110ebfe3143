//! A mail for the judge as it is queued: subject, text, the HTML alternative and files. Built by
//! `present`, kept by `io::store` until `io::smtp` has it accepted.

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// A mail waiting for the SMTP server to accept it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Mail {
    pub subject: String,
    /// The plain-text part.
    pub body: String,
    pub created_at: Time,
    /// The HTML alternative (mails queued by older versions have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// Files: an inline one (with `cid`) is shown by the HTML part, the rest are attachments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<MailFile>,
}

impl Mail {
    /// A mail with a text body only (the HTML part is made from it when sent).
    pub fn text(subject: String, body: String, created_at: Time) -> Mail {
        Mail {
            subject,
            body,
            created_at,
            html: None,
            files: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MailFile {
    pub name: String,
    pub content_type: String,
    /// Referenced by the HTML part as `cid:…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cid: Option<String>,
    pub data: Vec<u8>,
}
