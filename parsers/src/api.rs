//! Mobile API (`api/mobile/index.php?module=viewthread`) JSON.
//!
//! Versions differ: v4 gives `position`, strips edit notices and `[code]` blocks and escapes
//! text once more than it renders it; v1 and v2 keep edit notices and give no `position`.

use scraper::Html;
use serde_json::Value;

use crate::body;
use crate::desktop::{apply_body, classify_message, FLOOR_NAMES};
use crate::error::{PageError, PageErrorKind};
use crate::model::{
    PageSource, ParseOptions, Post, ThreadPage, TimePrecision, Warning, WarningKind,
};
use crate::time;

/// A JSON field that Discuz may send as a string or as a number.
pub(crate) fn num(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::String(s) => s.trim().parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

pub(crate) fn string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn api_message_kind(messageval: &str, messagestr: &str) -> PageErrorKind {
    let v = messageval.to_ascii_lowercase();
    if v.contains("nonexistence") || v.contains("not_exist") || v.contains("nonexist") {
        PageErrorKind::NotFound
    } else if v.contains("login") || v.contains("nologin") {
        PageErrorKind::LoginRequired
    } else if v.contains("nopermission") || v.contains("viewperm") || v.contains("forbidden") {
        PageErrorKind::NoPermission
    } else if v.contains("flood") || v.contains("too_fast") || v.contains("frequent") {
        PageErrorKind::Flood
    } else {
        classify_message(messagestr)
    }
}

/// The `Variables` object of a mobile API answer and its version, or the error the answer
/// carries (an `error` field, a `Message` that is not a success).
pub(crate) fn variables(
    text: &str,
) -> Result<(Option<u32>, serde_json::Map<String, Value>), PageError> {
    let mut root: Value = serde_json::from_str(text)
        .map_err(|e| PageError::new(PageErrorKind::BadJson, format!("invalid JSON: {e}")))?;
    let Some(obj) = root.as_object() else {
        return Err(PageError::new(
            PageErrorKind::BadJson,
            "top level is not an object",
        ));
    };
    if let Some(err) = obj.get("error") {
        return Err(PageError::new(
            PageErrorKind::ApiError,
            string(Some(err)).unwrap_or_else(|| err.to_string()),
        ));
    }
    if let Some(msg) = obj.get("Message") {
        let val = string(msg.get("messageval")).unwrap_or_default();
        let s = string(msg.get("messagestr")).unwrap_or_default();
        if !val.ends_with("succeed") {
            return Err(PageError::new(
                api_message_kind(&val, &s),
                format!("{val} ({s})"),
            ));
        }
    }
    let version = num(obj.get("Version")).map(|v| v as u32);
    match root.get_mut("Variables").map(Value::take) {
        Some(Value::Object(vars)) => Ok((version, vars)),
        _ => Err(PageError::new(
            PageErrorKind::BadJson,
            "no \"Variables\" object: not a Discuz mobile API answer",
        )),
    }
}

/// A post's fields as either reader found them.
struct Fields<'a> {
    pid: u64,
    tid: Option<u64>,
    number: Option<u64>,
    anonymous: Option<u64>,
    author: Option<String>,
    authorid: Option<u64>,
    dbdateline: Option<u64>,
    dateline: Option<String>,
    status: Option<u64>,
    position: Option<u64>,
    first: Option<u64>,
    message: Message<'a>,
}

enum Message<'a> {
    Html(std::borrow::Cow<'a, str>),
    Absent,
    /// Not a string: said in a warning.
    Other(String),
}

/// A page's fields as either reader found them.
struct Page<'a> {
    version: Option<u32>,
    tid: Option<u64>,
    subject: Option<String>,
    replies: Option<u64>,
    ppp: Option<u32>,
    ordertype: u64,
    postno: Vec<String>,
    posts: Vec<Fields<'a>>,
    /// Posts without a pid, as JSON (for the warning).
    no_pid: Vec<String>,
}

pub(crate) fn parse(text: &str, opts: &ParseOptions) -> Result<ThreadPage, PageError> {
    match typed(text) {
        Some(page) => Ok(build(page, opts)),
        None => parse_value(text, opts),
    }
}

/// The page through a `serde_json::Value` tree: any answer, errors included.
fn parse_value(text: &str, opts: &ParseOptions) -> Result<ThreadPage, PageError> {
    let (version, vars) = variables(text)?;
    let Some(postlist) = vars.get("postlist") else {
        return Err(PageError::new(
            PageErrorKind::BadJson,
            "no \"postlist\": not a viewthread answer",
        ));
    };
    let postlist: Vec<&Value> = match postlist {
        Value::Array(a) => a.iter().collect(),
        // Some versions send the list as an object keyed by pid.
        Value::Object(o) => o.values().collect(),
        _ => Vec::new(),
    };
    let thread = vars.get("thread");
    let mut page = Page {
        version,
        tid: num(thread.and_then(|t| t.get("tid"))),
        subject: string(thread.and_then(|t| t.get("subject"))),
        replies: num(thread.and_then(|t| t.get("replies"))),
        ppp: num(vars.get("ppp")).map(|p| p as u32),
        ordertype: num(thread.and_then(|t| t.get("ordertype"))).unwrap_or(0),
        postno: match vars.get("cache_custominfo_postno") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| string(Some(v)).unwrap_or_default())
                .collect(),
            _ => Vec::new(),
        },
        posts: Vec::with_capacity(postlist.len()),
        no_pid: Vec::new(),
    };
    for p in postlist {
        let Some(pid) = num(p.get("pid")) else {
            page.no_pid.push(p.to_string());
            continue;
        };
        page.posts.push(Fields {
            pid,
            tid: num(p.get("tid")),
            number: num(p.get("number")),
            anonymous: num(p.get("anonymous")),
            author: string(p.get("author")),
            authorid: num(p.get("authorid")),
            dbdateline: num(p.get("dbdateline")),
            dateline: string(p.get("dateline")),
            status: num(p.get("status")),
            position: num(p.get("position")),
            first: num(p.get("first")),
            message: match p.get("message") {
                Some(Value::String(html)) => Message::Html(std::borrow::Cow::Borrowed(html)),
                Some(Value::Null) | None => Message::Absent,
                Some(other) => Message::Other(other.to_string()),
            },
        });
    }
    Ok(build(page, opts))
}

/// The page through the typed reader (`api_typed`), when it reads it.
fn typed(text: &str) -> Option<Page<'_>> {
    use crate::api_typed::{PostList, Scalar};
    let a = crate::api_typed::answer(text)?;
    let vars = a.variables?;
    let PostList::List(list) = vars.postlist? else {
        return None;
    };
    let thread = vars.thread.unwrap_or_default();
    let mut page = Page {
        version: a.version.num().map(|v| v as u32),
        tid: thread.tid.num(),
        subject: thread.subject.string().ok()?,
        replies: thread.replies.num(),
        ppp: vars.ppp.num().map(|p| p as u32),
        ordertype: thread.ordertype.num().unwrap_or(0),
        postno: match vars.cache_custominfo_postno {
            Some(list) => list
                .iter()
                .map(|v| v.string().map(Option::unwrap_or_default))
                .collect::<Result<_, _>>()
                .ok()?,
            None => Vec::new(),
        },
        posts: Vec::with_capacity(list.len()),
        no_pid: Vec::new(),
    };
    for p in list {
        let pid = p.pid.num()?;
        page.posts.push(Fields {
            pid,
            tid: p.tid.num(),
            number: p.number.num(),
            anonymous: p.anonymous.num(),
            author: p.author.string().ok()?,
            authorid: p.authorid.num(),
            dbdateline: p.dbdateline.num(),
            dateline: p.dateline.string().ok()?,
            status: p.status.num(),
            position: p.position.num(),
            first: p.first.num(),
            message: match p.message {
                Scalar::Str(html) => Message::Html(html),
                Scalar::Absent | Scalar::Null => Message::Absent,
                // The warning quotes the value as JSON: the `Value` path says it.
                _ => return None,
            },
        });
    }
    Some(page)
}

/// The thread page from its fields.
fn build(page: Page<'_>, opts: &ParseOptions) -> ThreadPage {
    let double_escaped = page.version.is_some_and(|v| v >= 4);
    let tid = page.tid;
    let subject = page
        .subject
        .map(|s| html_escape::decode_html_entities(&s).into_owned());
    let replies = page.replies;
    let ppp = page.ppp.filter(|p| *p > 0);
    let ordertype = page.ordertype;
    // The forum's floor names, their markup stripped once for the page.
    let postno: Vec<String> = page.postno.iter().map(|s| strip_markup(s)).collect();

    let mut warnings: Vec<Warning> = page
        .no_pid
        .into_iter()
        .map(|p| Warning::new(None, WarningKind::PostId, p))
        .collect();
    let mut posts = Vec::with_capacity(page.posts.len());
    for p in page.posts {
        let pid = p.pid;
        let number = p.number.map(|n| n as u32);
        let floor = match number {
            Some(n) => floor_label(n, &postno),
            None => String::new(),
        };
        let anonymous = p.anonymous == Some(1);
        let author = p.author.unwrap_or_default();
        let author_uid = p.authorid.filter(|u| *u != 0 && !anonymous);
        let (posted_at, precision) = match p
            .dbdateline
            .and_then(|s| time::from_unix(s as i64, opts.utc_offset))
        {
            Some(t) => (Some(t), TimePrecision::Second),
            None => {
                let shown = p.dateline.unwrap_or_default();
                match time::parse_absolute(&shown, opts.utc_offset) {
                    Some((t, pr)) => (Some(t), pr),
                    None => {
                        warnings.push(Warning::new(Some(pid), WarningKind::Time, shown));
                        (None, TimePrecision::Minute)
                    }
                }
            }
        };
        let status = p.status.unwrap_or(0);
        let mut post = Post {
            pid,
            tid: p.tid.or(tid).unwrap_or(0),
            floor,
            number,
            position: p.position.map(|n| n as u32),
            first: p.first == Some(1),
            author: if anonymous && author.is_empty() {
                "匿名".to_string()
            } else {
                author
            },
            author_uid,
            posted_at,
            posted_at_precision: precision,
            edited_at: None,
            edited_by: None,
            text: String::new(),
            quotes: Vec::new(),
            red_font: false,
            large_font: false,
            blocked: status & 1 == 1,
            hidden_content: false,
            smilies: 0,
            images: 0,
        };
        if !post.blocked {
            match p.message {
                Message::Html(html) => {
                    let b = match crate::markup::render(&html, double_escaped) {
                        Some(b) => b,
                        None => {
                            let frag = Html::parse_fragment(&crate::guard::limit_nesting(&html));
                            body::render(frag.root_element(), double_escaped)
                        }
                    };
                    apply_body(&mut post, b, opts, &mut warnings);
                }
                Message::Absent => {}
                Message::Other(other) => warnings.push(Warning::new(
                    Some(pid),
                    WarningKind::ApiField,
                    format!("message is {other}"),
                )),
            }
        }
        posts.push(post);
    }

    let last_page = match (replies, ppp) {
        (Some(r), Some(ppp)) => Some(((r + 1).div_ceil(ppp as u64)).max(1) as u32),
        _ => None,
    };
    let page_no = match (ordertype, ppp, posts.iter().filter_map(|p| p.number).min()) {
        (0, Some(ppp), Some(n)) => Some((n - 1) / ppp + 1),
        _ => None,
    };
    ThreadPage {
        source: PageSource::Api,
        api_version: page.version,
        charset: String::new(),
        tid,
        subject,
        page: page_no,
        last_page,
        replies,
        posts_per_page: ppp,
        server_time: None,
        truncated: false,
        posts,
        warnings,
    }
}

/// The floor label the desktop page would show for running number `n`, using the forum's
/// custom names when the API sends them (`cache_custominfo_postno`: suffix, then names).
fn floor_label(n: u32, postno: &[String]) -> String {
    if (1..=4).contains(&n) {
        if let Some(name) = postno.get(n as usize).filter(|s| !s.is_empty()) {
            return name.clone();
        }
        if postno.is_empty() {
            return FLOOR_NAMES[n as usize - 1].to_string();
        }
    }
    let suffix = postno.first().map(String::as_str).unwrap_or("#");
    format!("{n}{suffix}")
}

/// The text of a bit of markup (a floor name may carry a `<font>`).
fn strip_markup(s: &str) -> String {
    if !s.contains(['<', '&']) {
        return s.to_string();
    }
    Html::parse_fragment(s)
        .root_element()
        .text()
        .collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every captured API answer (both forums, v1–v4, errors): the typed reader gives what the
    /// `Value` path gives, and reads the thread pages itself.
    #[test]
    fn the_typed_reader_agrees_with_the_value_path() {
        let (mut pages, mut typed_read) = (0, 0);
        for p in crate::fixture_files(&["json"]) {
            let bytes = std::fs::read(&p).unwrap();
            let text = crate::charset::decode(&bytes, None).text;
            let opts = ParseOptions::default();
            let show = |r: Result<ThreadPage, PageError>| match r {
                Ok(page) => serde_json::to_string(&page).unwrap(),
                Err(e) => format!("{e:?}"),
            };
            assert_eq!(
                show(parse(&text, &opts)),
                show(parse_value(&text, &opts)),
                "{}",
                p.display()
            );
            pages += 1;
            if typed(&text).is_some() {
                typed_read += 1;
            }
        }
        assert!(pages > 40, "{pages}");
        assert!(
            typed_read > 30,
            "the typed reader read {typed_read} of {pages}"
        );
        // Odd shapes go to the `Value` path, which warns as before.
        for odd in [
            r#"{"Variables":{"postlist":[{"author":"x"}]}}"#,
            r#"{"Variables":{"postlist":[{"pid":"1","message":3.5}]}}"#,
            r#"{"Variables":{"postlist":{"2":{"pid":"2"},"1":{"pid":"1"}}}}"#,
            r#"{"Variables":{"postlist":[{"pid":"1","pid":"2"}]}}"#,
        ] {
            let opts = ParseOptions::default();
            assert!(typed(odd).is_none(), "{odd}");
            assert_eq!(
                format!(
                    "{:?}",
                    parse(odd, &opts).map(|p| (p.posts.len(), p.warnings.len()))
                ),
                format!(
                    "{:?}",
                    parse_value(odd, &opts).map(|p| (p.posts.len(), p.warnings.len()))
                )
            );
        }
    }
}
