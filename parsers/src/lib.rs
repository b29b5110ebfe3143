//! Pure parsers for bansha: bytes in, facts out.
//!
//! This crate has no network, no database, no async runtime and no clock. Every function takes
//! the bytes it parses (and, where time matters, the forum's UTC offset) and returns what it
//! understood plus [`Warning`]s. Parsing never panics; a page that is not a thread page at all
//! (a Discuz error page, HTML where JSON was expected) is a [`PageError`], never an empty thread.

mod api;
mod body;
mod charset;
mod desktop;
mod error;
mod guard;
mod model;
mod time;

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
    let mut page = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        api::parse(trimmed, opts)?
    } else {
        desktop::parse(&decoded.text, opts)?
    };
    page.charset = decoded.encoding.to_string();
    page.warnings.splice(0..0, decoded.warnings);
    Ok(page)
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
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
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
    let mut page = api::parse(trimmed, opts)?;
    page.charset = decoded.encoding.to_string();
    page.warnings.splice(0..0, decoded.warnings);
    Ok(page)
}
