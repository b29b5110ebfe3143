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

pub(crate) fn parse(text: &str, opts: &ParseOptions) -> Result<ThreadPage, PageError> {
    let (version, vars) = variables(text)?;
    let double_escaped = version.is_some_and(|v| v >= 4);
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
    let tid = num(thread.and_then(|t| t.get("tid")));
    let subject = string(thread.and_then(|t| t.get("subject")))
        .map(|s| html_escape::decode_html_entities(&s).into_owned());
    let replies = num(thread.and_then(|t| t.get("replies")));
    let ppp = num(vars.get("ppp")).map(|p| p as u32).filter(|p| *p > 0);
    let ordertype = num(thread.and_then(|t| t.get("ordertype"))).unwrap_or(0);
    // The forum's floor names, their markup stripped once for the page.
    let postno: Vec<String> = match vars.get("cache_custominfo_postno") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| strip_markup(&string(Some(v)).unwrap_or_default()))
            .collect(),
        _ => Vec::new(),
    };

    let mut warnings = Vec::new();
    let mut posts = Vec::with_capacity(postlist.len());
    for p in postlist {
        let Some(pid) = num(p.get("pid")) else {
            warnings.push(Warning::new(None, WarningKind::PostId, p.to_string()));
            continue;
        };
        let number = num(p.get("number")).map(|n| n as u32);
        let floor = match number {
            Some(n) => floor_label(n, &postno),
            None => String::new(),
        };
        let anonymous = num(p.get("anonymous")) == Some(1);
        let author = string(p.get("author")).unwrap_or_default();
        let author_uid = num(p.get("authorid")).filter(|u| *u != 0 && !anonymous);
        let (posted_at, precision) = match num(p.get("dbdateline"))
            .and_then(|s| time::from_unix(s as i64, opts.utc_offset))
        {
            Some(t) => (Some(t), TimePrecision::Second),
            None => {
                let shown = string(p.get("dateline")).unwrap_or_default();
                match time::parse_absolute(&shown, opts.utc_offset) {
                    Some((t, pr)) => (Some(t), pr),
                    None => {
                        warnings.push(Warning::new(Some(pid), WarningKind::Time, shown));
                        (None, TimePrecision::Minute)
                    }
                }
            }
        };
        let status = num(p.get("status")).unwrap_or(0);
        let mut post = Post {
            pid,
            tid: num(p.get("tid")).or(tid).unwrap_or(0),
            floor,
            number,
            position: num(p.get("position")).map(|n| n as u32),
            first: num(p.get("first")) == Some(1),
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
            match p.get("message") {
                Some(Value::String(html)) => {
                    let b = match body::render_plain(html, double_escaped) {
                        Some(b) => b,
                        None => {
                            let frag = Html::parse_fragment(&crate::guard::limit_nesting(html));
                            body::render(frag.root_element(), double_escaped)
                        }
                    };
                    apply_body(&mut post, b, opts, &mut warnings);
                }
                Some(Value::Null) | None => {}
                Some(other) => warnings.push(Warning::new(
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
    let page = match (ordertype, ppp, posts.iter().filter_map(|p| p.number).min()) {
        (0, Some(ppp), Some(n)) => Some((n - 1) / ppp + 1),
        _ => None,
    };
    Ok(ThreadPage {
        source: PageSource::Api,
        api_version: version,
        charset: String::new(),
        tid,
        subject,
        page,
        last_page,
        replies,
        posts_per_page: ppp,
        server_time: None,
        truncated: false,
        posts,
        warnings,
    })
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
