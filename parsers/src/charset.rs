//! Charset detection and decoding: the `Content-Type` charset, else the charset the document
//! declares (`<meta>`, the XML declaration, the API's `"Charset"` field), else UTF-8.

use encoding_rs::{Encoding, UTF_8};
use regex::bytes::Regex;
use std::sync::LazyLock;

use crate::model::{Warning, WarningKind};

/// Text decoded from bytes, with the encoding that was used.
#[derive(Debug, Clone)]
pub struct Decoded<'a> {
    /// Borrowed from the input when it was valid UTF-8 already (the common case), else owned.
    pub text: std::borrow::Cow<'a, str>,
    pub encoding: &'static str,
    pub warnings: Vec<Warning>,
}

static CT_CHARSET: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r#"(?i)charset\s*=\s*["']?([A-Za-z0-9_.:-]+)"#).unwrap());
static META_CHARSET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i-u)<meta\b[^>]*?charset\s*=\s*["']?([A-Za-z0-9_.:-]+)"#).unwrap()
});
static XML_ENCODING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i-u)^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:-]+)"#).unwrap()
});
static JSON_CHARSET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?-u)"Charset"\s*:\s*"([A-Za-z0-9_.:-]+)""#).unwrap());

/// How far into the document a declared charset is looked for. Browsers look at 1024 bytes;
/// Discuz puts `<meta>` in the first few lines, but other templates put it later.
const SNIFF_LIMIT: usize = 4096;

/// Decode `bytes` by the `Content-Type` charset, else the declared charset, else UTF-8.
/// Invalid bytes become U+FFFD and a warning; this never fails.
pub fn decode<'a>(bytes: &'a [u8], content_type: Option<&str>) -> Decoded<'a> {
    let mut warnings = Vec::new();
    let mut label: Option<String> = content_type
        .and_then(|ct| CT_CHARSET.captures(ct))
        .map(|c| c[1].to_string());
    if label.is_none() {
        let head = &bytes[..bytes.len().min(SNIFF_LIMIT)];
        label = [&*XML_ENCODING, &*META_CHARSET, &*JSON_CHARSET]
            .iter()
            .find_map(|re| re.captures(head))
            .map(|c| String::from_utf8_lossy(&c[1]).into_owned());
    }
    let encoding = match label {
        Some(l) => match Encoding::for_label(l.trim().as_bytes()) {
            Some(e) => e,
            None => {
                warnings.push(Warning::new(
                    None,
                    WarningKind::Charset,
                    format!("unknown charset label {l:?}, decoded as UTF-8"),
                ));
                UTF_8
            }
        },
        None => UTF_8,
    };
    // The BOM, when present, wins (as in browsers).
    let (text, used, had_errors) = encoding.decode(bytes);
    if had_errors {
        warnings.push(Warning::new(
            None,
            WarningKind::Charset,
            format!("bytes invalid in {} were replaced by U+FFFD", used.name()),
        ));
    }
    Decoded {
        text,
        encoding: used.name(),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_type_wins_over_meta() {
        let gbk = b"<meta charset=\"utf-8\">\xc4\xe3\xba\xc3";
        let d = decode(gbk, Some("text/html; charset=GBK"));
        assert_eq!(d.encoding, "GBK");
        assert!(d.text.ends_with("你好"), "{}", d.text);
        assert!(d.warnings.is_empty());
    }

    #[test]
    fn meta_charset_placed_late_is_found() {
        let mut page = b"<html><head><title>x</title>".to_vec();
        page.extend(std::iter::repeat_n(b' ', 2000));
        page.extend_from_slice(
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gbk\" />\xc4\xe3",
        );
        let d = decode(&page, None);
        assert_eq!(d.encoding, "GBK");
        assert!(d.text.ends_with('你'));
    }

    #[test]
    fn xml_declaration_and_json_envelope() {
        let d = decode(
            b"<?xml version=\"1.0\" encoding=\"gbk\"?><root>\xc4\xe3</root>",
            None,
        );
        assert_eq!(d.encoding, "GBK");
        let d = decode(
            b"{\"Version\":\"4\",\"Charset\":\"GBK\",\"x\":\"\xc4\xe3\"}",
            None,
        );
        assert_eq!(d.encoding, "GBK");
        assert!(d.text.contains('你'));
    }

    #[test]
    fn invalid_bytes_warn_and_unknown_label_falls_back() {
        let d = decode(b"ok \xff\xfe\xfd", Some("text/html; charset=utf-8"));
        assert!(d.text.contains('\u{fffd}'));
        assert_eq!(d.warnings.len(), 1);
        let d = decode(b"plain", Some("text/html; charset=klingon"));
        assert_eq!(d.encoding, "UTF-8");
        assert_eq!(d.warnings[0].kind, WarningKind::Charset);
    }
}
