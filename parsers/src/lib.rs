//! Pure parsers for bansha: bytes in, facts out.
//!
//! This crate has no network, no database, no async runtime and no clock. Every function takes
//! the bytes it parses (and, where time matters, the forum's UTC offset) and returns what it
//! understood plus [`Warning`]s. Parsing never panics; a page that is not a thread page at all
//! (a Discuz error page, HTML where JSON was expected) is a [`PageError`], never an empty thread.

mod api;
mod api_typed;
pub mod ballot;
mod body;
mod charset;
pub mod deadline;
mod desktop;
mod error;
#[doc(hidden)]
pub mod fuzz;
mod guard;
mod landmarks;
pub mod login;
mod markup;
mod model;
pub mod numerals;
pub mod pm;
pub mod poll;
pub mod reply;
pub mod threadlist;
mod time;
pub mod wordcount;

pub use charset::{decode, Decoded};
pub use error::{PageError, PageErrorKind};
pub use model::{
    PageSource, ParseOptions, Post, Quote, ThreadPage, TimePrecision, Warning, WarningKind,
};

/// Parse a saved or fetched Discuz thread page: desktop `forum.php?mod=viewthread` HTML (or its
/// `inajax` XML form) or mobile API `module=viewthread` JSON, detected by content.
///
/// `content_type` is the HTTP `Content-Type` header when known; it decides the charset before
/// the `<meta>` tag does.
///
/// ```
/// use bansha_parsers::{parse_thread_page, ParseOptions, PageErrorKind};
///
/// let api = r#"{"Version":"4","Charset":"UTF-8","Variables":{"thread":{"tid":"3","replies":"0"},
///   "ppp":"10","postlist":[{"pid":"34","tid":"3","first":"0","author":"大灰狼","authorid":"3",
///   "dbdateline":"1795842753","message":"投票对象：小飞<br />\n投票理由：他分票",
///   "position":"2","number":"2","status":"0"}]}}"#;
/// let page = parse_thread_page(api.as_bytes(), None, &ParseOptions::default()).unwrap();
/// let post = &page.posts[0];
/// assert_eq!(post.text, "投票对象：小飞\n投票理由：他分票");
/// assert_eq!(post.floor, "沙发");
/// assert_eq!(post.posted_at.unwrap().to_rfc3339(), "2026-11-28T13:12:33+08:00");
///
/// let missing = r#"<div id="messagetext" class="alert_error"><p>抱歉，指定的主题不存在或已被删除或正在被审核</p></div>"#;
/// let err = parse_thread_page(missing.as_bytes(), None, &ParseOptions::default()).unwrap_err();
/// assert_eq!(err.kind, PageErrorKind::NotFound);
/// ```
pub fn parse_thread_page(
    bytes: &[u8],
    content_type: Option<&str>,
    opts: &ParseOptions,
) -> Result<ThreadPage, PageError> {
    let decoded = charset::decode(bytes, content_type);
    let trimmed = decoded.text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return Err(PageError::new(PageErrorKind::Empty, "empty response body"));
    }
    let page = if looks_like_json(trimmed) {
        api::parse(trimmed, opts)?
    } else {
        desktop::parse(&decoded.text, opts)?
    };
    Ok(with_charset_facts(page, decoded))
}

/// Parse a mobile API JSON answer, failing with [`PageErrorKind::NotJson`] when the forum sent
/// something else (Discuz answers some API calls with an HTML error page).
pub fn parse_api_page(
    bytes: &[u8],
    content_type: Option<&str>,
    opts: &ParseOptions,
) -> Result<ThreadPage, PageError> {
    let decoded = charset::decode(bytes, content_type);
    let trimmed = decoded.text.trim_start_matches('\u{feff}').trim_start();
    if !looks_like_json(trimmed) {
        // Say what it was, if it is a recognisable Discuz page.
        let what = match desktop::parse(&decoded.text, opts) {
            Err(e) => format!("{}: {}", e.kind.code(), e.detail),
            Ok(_) => "an HTML thread page".to_string(),
        };
        return Err(PageError::new(
            PageErrorKind::NotJson,
            format!("expected API JSON, got {what}"),
        ));
    }
    let page = api::parse(trimmed, opts)?;
    Ok(with_charset_facts(page, decoded))
}

fn looks_like_json(text: &str) -> bool {
    text.starts_with('{') || text.starts_with('[')
}

/// Record the encoding used and put the decoder's warnings first.
fn with_charset_facts(mut page: ThreadPage, decoded: Decoded) -> ThreadPage {
    page.charset = decoded.encoding.to_string();
    page.warnings.splice(0..0, decoded.warnings);
    page
}

/// Every captured file under `tests/fixtures/` whose extension is one of `exts` (for tests
/// that hold a fast path to the full one on all real pages).
#[cfg(test)]
pub(crate) fn fixture_files(exts: &[&str]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack =
        vec![std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
