//! The desktop reply form (`forum.php?mod=post&action=reply&tid=T`): where a reply is posted,
//! the form's hash and time, and the charset its fields must be sent in. A page without the
//! form is the forum's refusal (login required, no permission, thread closed), classified as
//! thread pages' errors are.

use crate::charset::decode;
use crate::error::{PageError, PageErrorKind};
use regex::Regex;
use std::sync::LazyLock;

/// What posting a reply needs from the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyForm {
    /// Where the form posts, relative to the forum root
    /// (`forum.php?mod=post&action=reply&fid=3&tid=3&extra=&replysubmit=yes`).
    pub action: String,
    pub formhash: String,
    /// The form's `posttime` (Discuz's check that a reply was not written too fast).
    pub posttime: String,
    /// The page's charset: the fields are sent in it (a GBK forum wants GBK).
    pub charset: String,
}

static FORM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)<form\b[^>]*\bid="postform"[^>]*\baction="([^"]+)""#).unwrap()
});
static HASH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"name="formhash"[^>]*value="([0-9a-zA-Z]+)""#).unwrap());
static POSTTIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"name="posttime"[^>]*value="([0-9]+)""#).unwrap());

/// Read the reply form of a desktop reply page.
pub fn parse_reply_form(bytes: &[u8], content_type: Option<&str>) -> Result<ReplyForm, PageError> {
    let d = decode(bytes, content_type);
    let text = d.text;
    let Some(action) = FORM.captures(&text).map(|c| c[1].to_string()) else {
        let doc = scraper::Html::parse_document(&text);
        let e = crate::desktop::error_page(&doc, &text, false);
        // A page that is neither the form nor a message says so.
        return Err(if e.kind == PageErrorKind::NotAThreadPage {
            PageError::new(PageErrorKind::ForumMessage, "论坛没有给出回复表单")
        } else {
            e
        });
    };
    let action = html_escape::decode_html_entities(&action).into_owned();
    // The form's own hash (the page's search box carries one too; it is the same).
    let after = &text[text.find("id=\"postform\"").unwrap_or(0)..];
    let formhash = HASH
        .captures(after)
        .map(|c| c[1].to_string())
        .ok_or_else(|| PageError::new(PageErrorKind::ForumMessage, "回复表单里没有 formhash"))?;
    let posttime = POSTTIME
        .captures(after)
        .map(|c| c[1].to_string())
        .unwrap_or_default();
    Ok(ReplyForm {
        action,
        formhash,
        posttime,
        charset: d.encoding.to_string(),
    })
}

/// The text of the forum's answer to a post (an `inajax` XML message or a message page), tags
/// out and cut to 200 characters, for telling the judge what the forum said.
pub fn answer_text(bytes: &[u8], content_type: Option<&str>) -> String {
    static CDATA: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?s)<!\[CDATA\[(.*)\]\]>").unwrap());
    static SCRIPT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?is)<(script|style)[^>]*>.*?</(script|style)>").unwrap());
    static TAGS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?s)<[^>]*>").unwrap());
    let text = decode(bytes, content_type).text.into_owned();
    let body = CDATA
        .captures(&text)
        .map(|c| c[1].to_string())
        .unwrap_or(text);
    let body = SCRIPT.replace_all(&body, " ");
    let plain = TAGS.replace_all(&body, " ");
    let plain = html_escape::decode_html_entities(&plain);
    plain
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(rel: &str) -> Vec<u8> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures")
                .join(rel),
        )
        .unwrap()
    }

    #[test]
    fn the_captured_reply_forms_of_both_forums() {
        let utf8 = parse_reply_form(
            &fixture("discuz/desktop/variants/reply_form_repquote38_as_judge.html"),
            Some("text/html; charset=utf-8"),
        )
        .unwrap();
        assert_eq!(
            utf8,
            ReplyForm {
                action: "forum.php?mod=post&action=reply&fid=3&tid=3&extra=&replysubmit=yes".into(),
                formhash: "adfca1e3".into(),
                posttime: "1795958309".into(),
                charset: "UTF-8".into(),
            }
        );
        // The GBK forum's, with its charset from the header.
        let gbk = parse_reply_form(
            &fixture("discuz-gbk/desktop/variants/reply_form_repquote8_as_judge.html"),
            Some("text/html; charset=gbk"),
        )
        .unwrap();
        assert_eq!(gbk.formhash, "c09001db");
        assert_eq!(
            gbk.action,
            "forum.php?mod=post&action=reply&fid=36&tid=2&extra=&replysubmit=yes"
        );
        assert_eq!(gbk.charset, "GBK");
    }

    #[test]
    fn a_page_without_the_form_is_the_forums_refusal() {
        // A thread page (no reply form on it) and a login demand.
        let e = parse_reply_form(
            &fixture("discuz/desktop/guest/viewthread_tid3_vote_p1.html"),
            None,
        )
        .unwrap_err();
        assert!(
            matches!(
                e.kind,
                PageErrorKind::ForumMessage | PageErrorKind::LoginRequired
            ),
            "{e:?}"
        );
        let e = parse_reply_form(b"", None).unwrap_err();
        assert_eq!(e.kind, PageErrorKind::ForumMessage, "{e:?}");
        assert_eq!(
            answer_text(b"<root><![CDATA[<p>a &amp; b</p>]]></root>", None),
            "a & b"
        );
    }
}
