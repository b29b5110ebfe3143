//! Desktop `forum.php?mod=viewthread` pages (and the `inajax=1` XML that wraps the same
//! markup in CDATA).

use regex::Regex;
use scraper::{ElementRef, Html, Selector};
use std::sync::LazyLock;

use crate::body;
use crate::error::{PageError, PageErrorKind};
use crate::model::{
    PageSource, ParseOptions, Post, Quote, ThreadPage, TimePrecision, Warning, WarningKind,
};
use crate::time;

macro_rules! selector {
    ($name:ident, $css:expr) => {
        static $name: LazyLock<Selector> =
            LazyLock::new(|| Selector::parse($css).expect("valid selector"));
    };
}

selector!(POST_TABLE, r#"table[id^="pid"]"#);
selector!(AUTHOR_LINK, "div.authi a.xw1");
selector!(AUTHI, "div.authi");
selector!(LOCKED, "div.locked");
selector!(SUBJECT, "#thread_subject");
selector!(CANONICAL, r#"link[rel="canonical"]"#);
selector!(PAGER, "div.pg");
selector!(PAGER_CURRENT, "strong");
selector!(PAGER_LAST, "span[title]");
selector!(REPLY_COUNT, "div.hm.ptn span.xi1");
selector!(MESSAGE_TEXT, "#messagetext");
selector!(ALERT, "div.alert_error, div.alert_info");
selector!(H1, "h1");
selector!(SYSTEM_ERROR_INFO, "div.info");
selector!(
    LOGIN_FORM,
    r#"form[name="login"], #loginform, form[id^="loginform"]"#
);
selector!(SPAN_TITLE, "span[title]");
selector!(REPLY_LINK, "a.fastre");
selector!(TITLE, "title");

static PID_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^pid(\d+)$").unwrap());
static UID_IN_HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:[?&;]uid=|space-uid-)(\d+)").unwrap());
static TID_IN_HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:[?&;]p?tid=|thread-)(\d+)").unwrap());
static PAGE_TOTAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"共\s*(\d+)\s*页").unwrap());
static FOOTER_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"GMT([+-]\d{1,2}(?:[:.]\d{1,2})?)?,\s*(\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2})")
        .unwrap()
});
static FLOOD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"刷新过于频繁|访问本站速度过快|刷新间隔时间|访问过于频繁|请求过于频繁|Refreshing too fast|(?i:too many requests)")
        .unwrap()
});
static LOGIN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"需要先登录|请先登录|登录后才能|尚未登录|您需要登录").unwrap());
static NOT_FOUND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"不存在|已被删除|正在被审核|没有找到帖子|没有找到主题").unwrap());
static NO_PERMISSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"没有权限|无权|禁止访问|被禁止").unwrap());

/// The floor labels Discuz X uses by default for the first four posts.
pub(crate) const FLOOR_NAMES: [&str; 4] = ["楼主", "沙发", "板凳", "地板"];

/// Classify the text of a Discuz message page.
pub(crate) fn classify_message(msg: &str) -> PageErrorKind {
    if FLOOD.is_match(msg) {
        PageErrorKind::Flood
    } else if msg.contains("非法字符") {
        PageErrorKind::RequestTainting
    } else if LOGIN.is_match(msg) {
        PageErrorKind::LoginRequired
    } else if NOT_FOUND.is_match(msg) {
        PageErrorKind::NotFound
    } else if NO_PERMISSION.is_match(msg) {
        PageErrorKind::NoPermission
    } else {
        PageErrorKind::ForumMessage
    }
}

fn text_of(el: ElementRef<'_>) -> String {
    el.text().collect::<String>().replace('\u{a0}', " ")
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn parse(text: &str, opts: &ParseOptions) -> Result<ThreadPage, PageError> {
    parse_with(text, opts, true)
}

/// The parts of a thread page the parser reads: the head (title, canonical link), and from the
/// top pager to the fast-reply form (subject, reply count, pagers, the posts), each post's
/// author card cut after its name (the pop-up profile, avatar and statistics: about half of a
/// post's markup, never read). Parsing this instead of the whole page gives the same result
/// (tested on every captured page) in about half the time. `None` when the page does not have
/// the expected landmarks (then the whole page is parsed).
fn slim(markup: &str) -> Option<String> {
    let postlist = markup.find("<div id=\"postlist\"")?;
    let head_end = markup[..postlist].find("</head>")? + "</head>".len();
    let start = markup[..postlist]
        .rfind("<div id=\"pgt\"")
        .unwrap_or(postlist);
    let end = markup[postlist..]
        .find("<div id=\"f_pst\"")
        .or_else(|| markup[postlist..].find("<div id=\"ft\""))
        .map_or(markup.len(), |e| postlist + e);
    let region = &markup[start..end];
    let mut out = String::with_capacity(head_end + region.len() / 2 + 32);
    out.push_str(&markup[..head_end]);
    out.push_str("<body>");
    const CARD: &str = "<div class=\"p_pop blk bui";
    const PLC: &str = "<td class=\"plc\">";
    let mut rest = region;
    while let Some(a) = rest.find(CARD) {
        let after = &rest[a..];
        let next_post = after[1..]
            .find("<div id=\"post_")
            .map_or(after.len(), |n| n + 1);
        match after[..next_post].find(PLC) {
            Some(b) => {
                out.push_str(&rest[..a]);
                // Close the card's container and cell as the cut-out part did.
                out.push_str("</div>\n</td>\n");
                rest = &after[b..];
            }
            None => {
                out.push_str(&rest[..a + CARD.len()]);
                rest = &after[CARD.len()..];
            }
        }
    }
    out.push_str(rest);
    out.push_str("</body></html>");
    Some(out)
}

pub(crate) fn parse_with(
    text: &str,
    opts: &ParseOptions,
    slim_page: bool,
) -> Result<ThreadPage, PageError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    let (markup, is_ajax) = if trimmed.starts_with("<?xml") {
        match (trimmed.find("<![CDATA["), trimmed.rfind("]]>")) {
            (Some(a), Some(b)) if b > a => (&trimmed[a + 9..b], true),
            (Some(a), _) => (&trimmed[a + 9..], true),
            _ => (trimmed, true),
        }
    } else {
        (text, false)
    };
    let slimmed = if slim_page && !is_ajax {
        slim(markup)
    } else {
        None
    };
    let doc = Html::parse_document(&crate::guard::limit_nesting(
        slimmed.as_deref().unwrap_or(markup),
    ));
    let mut warnings = Vec::new();

    let post_tables: Vec<ElementRef<'_>> = doc
        .select(&POST_TABLE)
        .filter(|t| PID_ID.is_match(t.value().id().unwrap_or("")))
        .collect();
    let subject = doc.select(&SUBJECT).next().map(|s| squash(&text_of(s)));

    if post_tables.is_empty() {
        if slimmed.is_some() {
            // Whatever this is, it is judged on the whole page.
            return parse_with(text, opts, false);
        }
        return Err(error_page(&doc, markup, subject.is_some()));
    }

    let server_time = FOOTER_TIME.captures(markup).and_then(|c| {
        time::parse_absolute(c.get(2).map_or("", |m| m.as_str()), opts.utc_offset).map(|(t, _)| t)
    });
    let tid = doc
        .select(&CANONICAL)
        .next()
        .and_then(|l| l.value().attr("href"))
        .and_then(|h| TID_IN_HREF.captures(h))
        .and_then(|c| c[1].parse::<u64>().ok());

    let (page, last_page) = match doc.select(&PAGER).next() {
        Some(pg) => {
            let current = pg
                .select(&PAGER_CURRENT)
                .next()
                .and_then(|s| text_of(s).trim().parse::<u32>().ok());
            let last = pg
                .select(&PAGER_LAST)
                .filter_map(|s| PAGE_TOTAL.captures(s.value().attr("title").unwrap_or("")))
                .find_map(|c| c[1].parse::<u32>().ok());
            (current, last.or(current))
        }
        // No pager: a one-page thread (or a single post in an inajax answer).
        None if !is_ajax => (Some(1), Some(1)),
        None => (None, None),
    };
    let replies = doc
        .select(&REPLY_COUNT)
        .nth(1)
        .and_then(|s| text_of(s).trim().parse::<u64>().ok());

    let mut posts = Vec::with_capacity(post_tables.len());
    for table in post_tables {
        if let Some(p) = parse_post(table, tid, server_time, opts, &mut warnings) {
            posts.push(p);
        }
    }
    let tid = tid.or_else(|| posts.first().map(|p| p.tid).filter(|t| *t != 0));
    for p in posts.iter_mut() {
        if p.tid == 0 {
            p.tid = tid.unwrap_or(0);
        }
    }
    let end_tag = if is_ajax { "</root>" } else { "</html>" };
    let truncated = !trimmed.trim_end().to_ascii_lowercase().ends_with(end_tag);
    if truncated {
        // Every post but the last was followed by another, so it arrived whole; the last one
        // may have been cut anywhere. Dropping it loses nothing: the next fetch brings it.
        let dropped = posts.pop().map(|p| p.pid);
        warnings.push(Warning::new(
            dropped,
            WarningKind::Truncated,
            format!(
                "page does not end with {end_tag}; the last post on it was not read ({} read)",
                posts.len()
            ),
        ));
    }
    Ok(ThreadPage {
        source: PageSource::Desktop,
        api_version: None,
        charset: String::new(),
        tid,
        subject,
        page,
        last_page,
        replies,
        posts_per_page: None,
        server_time,
        truncated,
        posts,
        warnings,
    })
}

pub(crate) fn error_page(doc: &Html, markup: &str, has_subject: bool) -> PageError {
    if let Some(h1) = doc.select(&H1).next() {
        if text_of(h1).contains("System Error") {
            let info = doc
                .select(&SYSTEM_ERROR_INFO)
                .next()
                .map(|i| squash(&text_of(i)))
                .unwrap_or_default();
            let kind = if info.contains("非法字符") {
                PageErrorKind::RequestTainting
            } else {
                PageErrorKind::SystemError
            };
            return PageError::new(kind, info);
        }
    }
    // `#messagetext` first: pages also carry a hidden "succeed" alert.
    if let Some(m) = doc
        .select(&MESSAGE_TEXT)
        .next()
        .or_else(|| doc.select(&ALERT).next())
    {
        let msg = squash(&text_of(m));
        return PageError::new(classify_message(&msg), msg);
    }
    let body_text = squash(&doc.root_element().text().collect::<String>());
    if FLOOD.is_match(&body_text) {
        return PageError::new(PageErrorKind::Flood, body_text);
    }
    if doc.select(&LOGIN_FORM).next().is_some() {
        return PageError::new(
            PageErrorKind::LoginRequired,
            "the forum sent its login form",
        );
    }
    let title = doc
        .select(&TITLE)
        .next()
        .map(|t| text_of(t))
        .unwrap_or_default();
    if title.contains("手机版") || markup.contains("name=\"viewport\"") && markup.contains("touch")
    {
        return PageError::new(
            PageErrorKind::NotAThreadPage,
            "the forum's phone (touch) template: fetch with a desktop User-Agent or use the API",
        );
    }
    if has_subject {
        return PageError::new(
            PageErrorKind::NotAThreadPage,
            "thread page without any post on it (cut off, or a template bansha does not know)",
        );
    }
    let snippet: String = if body_text.is_empty() {
        markup.chars().take(120).collect()
    } else {
        body_text.chars().take(120).collect()
    };
    PageError::new(PageErrorKind::NotAThreadPage, snippet)
}
/// A post's author and uid, from the author link; an anonymous post is 匿名 (no uid); anything
/// else unreadable is warned about.
fn author_of(
    table: ElementRef<'_>,
    pid: u64,
    warnings: &mut Vec<Warning>,
) -> (String, Option<u64>) {
    match table.select(&AUTHOR_LINK).next() {
        Some(a) => (
            text_of(a).trim().to_string(),
            a.value()
                .attr("href")
                .and_then(|h| UID_IN_HREF.captures(h))
                .and_then(|c| c[1].parse::<u64>().ok()),
        ),
        None => {
            let shown = table
                .select(&AUTHI)
                .next()
                .map(|a| squash(&text_of(a)))
                .unwrap_or_default();
            if shown.starts_with("匿名") {
                ("匿名".to_string(), None)
            } else {
                warnings.push(Warning::new(Some(pid), WarningKind::Author, shown));
                (String::new(), None)
            }
        }
    }
}

fn parse_post(
    table: ElementRef<'_>,
    page_tid: Option<u64>,
    server_time: Option<chrono::DateTime<chrono::FixedOffset>>,
    opts: &ParseOptions,
    warnings: &mut Vec<Warning>,
) -> Option<Post> {
    let id = table.value().id().unwrap_or("");
    let Some(pid) = PID_ID.captures(id).and_then(|c| c[1].parse::<u64>().ok()) else {
        warnings.push(Warning::new(None, WarningKind::PostId, id));
        return None;
    };
    // One pass over the post for the three elements named by pid.
    let (mut postnum, mut authorposton, mut postmessage) = (None, None, None);
    let suffix = pid.to_string();
    for node in table.descendants() {
        let Some(el) = ElementRef::wrap(node) else {
            continue;
        };
        let Some(id) = el.value().id() else {
            continue;
        };
        let Some(prefix) = id.strip_suffix(suffix.as_str()) else {
            continue;
        };
        match prefix {
            "postnum" => postnum = postnum.or(Some(el)),
            "authorposton" => authorposton = authorposton.or(Some(el)),
            "postmessage_" => postmessage = postmessage.or(Some(el)),
            _ => {}
        }
    }

    let (author, author_uid) = author_of(table, pid, warnings);

    // Floor.
    let floor = postnum.map(|a| squash(&text_of(a))).unwrap_or_default();
    let floor = floor.replace(' ', "");
    let number = floor
        .strip_suffix('#')
        .and_then(|n| n.parse::<u32>().ok())
        .or_else(|| {
            FLOOR_NAMES
                .iter()
                .position(|n| *n == floor)
                .map(|i| i as u32 + 1)
        });
    // The first post's reply link says `reppost=`, replies say `repquote=`; floor labels
    // restart in `authorid=` views, so they cannot tell.
    let first = match table
        .select(&REPLY_LINK)
        .next()
        .and_then(|a| a.value().attr("href"))
    {
        Some(href) => href.contains("reppost="),
        None => number == Some(1) && floor == FLOOR_NAMES[0],
    };
    // Newest-first pages (`ordertype=1`) show the first post with an empty number ("#").
    let number = number.or((first && floor == "#").then_some(1));
    if postnum.is_some() && number.is_none() {
        warnings.push(Warning::new(Some(pid), WarningKind::Floor, floor.clone()));
    }
    let tid = postnum
        .and_then(|a| a.value().attr("href"))
        .and_then(|h| TID_IN_HREF.captures(h))
        .and_then(|c| c[1].parse::<u64>().ok())
        .or(page_tid)
        .unwrap_or(0);

    // Time: the exact second is in the span's title; old posts print the date as text.
    let mut posted_at = None;
    let mut precision = TimePrecision::Minute;
    if let Some(em) = authorposton {
        let titled = em
            .select(&SPAN_TITLE)
            .find_map(|s| time::parse_absolute(s.value().attr("title")?, opts.utc_offset));
        let shown = text_of(em);
        let shown = shown.trim().trim_start_matches("发表于").trim();
        let parsed = titled
            .or_else(|| time::parse_absolute(shown, opts.utc_offset))
            .or_else(|| server_time.and_then(|now| time::parse_relative(shown, now)));
        match parsed {
            Some((t, p)) => {
                posted_at = Some(t);
                precision = p;
            }
            None => warnings.push(Warning::new(Some(pid), WarningKind::Time, shown)),
        }
    } else {
        warnings.push(Warning::new(
            Some(pid),
            WarningKind::Time,
            "no authorposton element",
        ));
    }

    // Body.
    let mut post = Post {
        pid,
        tid,
        first,
        floor,
        number,
        position: None,
        author,
        author_uid,
        posted_at,
        posted_at_precision: precision,
        edited_at: None,
        edited_by: None,
        text: String::new(),
        quotes: Vec::new(),
        red_font: false,
        large_font: false,
        blocked: false,
        hidden_content: false,
        smilies: 0,
        images: 0,
    };
    let body_td = postmessage;
    // A 屏蔽 notice outside the body: the post is blocked. Moderators still see the body.
    // (A `div.locked` inside the body is `[hide]` content, handled by the body renderer.)
    post.blocked = table.select(&LOCKED).any(|l| {
        !l.ancestors()
            .any(|a| body_td.is_some_and(|td| td.id() == a.id()))
    });
    match body_td {
        Some(td) => apply_body(&mut post, body::render(td, false), opts, warnings),
        None if post.blocked => {}
        None => post.hidden_content = true,
    }
    Some(post)
}

/// Move a rendered body into a post, reading the edit notice and quote headers.
pub(crate) fn apply_body(
    post: &mut Post,
    b: body::Body,
    opts: &ParseOptions,
    warnings: &mut Vec<Warning>,
) {
    post.text = b.text;
    post.red_font = b.red_font;
    post.large_font = b.large_font;
    post.hidden_content |= b.hidden_content;
    post.smilies = b.smilies;
    post.images = b.images;
    if let Some((by, at)) = b.edit {
        match time::parse_absolute(&at, opts.utc_offset) {
            Some((t, _)) => post.edited_at = Some(t),
            None => warnings.push(Warning::new(Some(post.pid), WarningKind::EditNotice, at)),
        }
        post.edited_by = Some(by);
    }
    if let Some(raw) = b.edit_unreadable {
        warnings.push(Warning::new(Some(post.pid), WarningKind::EditNotice, raw));
    }
    post.quotes = b
        .quotes
        .into_iter()
        .map(|q| {
            let (author, at) = q.author_and_time();
            Quote {
                author,
                pid: q.pid,
                posted_at: at.and_then(|a| time::parse_absolute(&a, opts.utc_offset).map(|x| x.0)),
                text: q.text,
            }
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every captured page (both forums, guest, judge, admin, variants, other User-Agents,
    /// error pages): the slimmed document gives exactly what the whole page gives.
    #[test]
    fn the_slimmed_page_parses_as_the_whole_page() {
        let (mut pages, mut slimmed) = (0, 0);
        for p in crate::fixture_files(&["html", "xml"]) {
            let bytes = std::fs::read(&p).unwrap();
            let text = crate::charset::decode(&bytes, None).text;
            let opts = ParseOptions::default();
            let fast = parse_with(&text, &opts, true);
            let full = parse_with(&text, &opts, false);
            let show = |r: &Result<ThreadPage, PageError>| match r {
                Ok(page) => serde_json::to_string(page).unwrap(),
                Err(e) => format!("{e:?}"),
            };
            assert_eq!(show(&fast), show(&full), "{}", p.display());
            pages += 1;
            if full.is_ok() && slim(&text).is_some() {
                slimmed += 1;
            }
        }
        assert!(pages > 50, "{pages} pages");
        assert!(
            slimmed >= 20,
            "the slim path was taken on {slimmed} of {pages} pages"
        );
    }
}
