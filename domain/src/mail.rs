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
    /// Kept as base64 text (a chart's PNG as a JSON array of numbers was 3–4 bytes a byte, and
    /// reading the mail queue back spent most of its time in them); an array written by an
    /// earlier version is still read.
    #[serde(with = "base64_or_array")]
    pub data: Vec<u8>,
}

mod base64_or_array {
    use base64::Engine;
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(data))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Either;
        impl<'de> de::Visitor<'de> for Either {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("base64 text or an array of bytes")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
                base64::engine::general_purpose::STANDARD
                    .decode(v)
                    .map_err(E::custom)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_any(Either)
    }
}

#[cfg(test)]
mod file_data_tests {
    use super::MailFile;

    /// A mail's file is kept as base64, and one kept by an earlier version as an array of
    /// numbers still reads: a queue written before the change is sent after it.
    #[test]
    fn file_data_is_base64_and_old_arrays_still_read() {
        let f = MailFile {
            name: "a.png".into(),
            content_type: "image/png".into(),
            cid: None,
            data: vec![0, 1, 2, 250, 255],
        };
        let text = serde_json::to_string(&f).unwrap();
        assert!(text.contains("\"data\":\"AAEC+v8=\""), "{text}");
        assert_eq!(serde_json::from_str::<MailFile>(&text).unwrap(), f);
        let old = r#"{"name":"a.png","content_type":"image/png","data":[0,1,2,250,255]}"#;
        assert_eq!(serde_json::from_str::<MailFile>(old).unwrap(), f);
        let bad = r#"{"name":"a.png","content_type":"image/png","data":"***"}"#;
        assert!(serde_json::from_str::<MailFile>(bad).is_err());
    }
}
