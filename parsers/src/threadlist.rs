//! A board's thread list (`forum.php?mod=forumdisplay&fid=F`): which threads exist, who opened
//! them and when. chuhan lets players open their own analysis threads (one per player per day);
//! the thread list is how bansha finds them.

use crate::charset::decode;
use crate::error::{PageError, PageErrorKind};
use crate::model::{ParseOptions, TimePrecision};
use crate::time;
use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use regex::Regex;
use scraper::{ElementRef, Html, Selector};
use serde::Serialize;
use std::sync::LazyLock;

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct ThreadEntry {
    pub tid: u64,
    pub subject: String,
    pub author: String,
    pub author_uid: Option<u64>,
    /// When the thread was opened, as precisely as the list shows it.
    pub created_at: Option<DateTime<FixedOffset>>,
    pub created_precision: TimePrecision,
    pub replies: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadList {
    pub threads: Vec<ThreadEntry>,
    pub server_time: Option<DateTime<FixedOffset>>,
}

static ROW: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"tbody[id^="normalthread_"]"#).unwrap());
static SUBJECT: LazyLock<Selector> = LazyLock::new(|| Selector::parse("a.xst").unwrap());
static BY: LazyLock<Selector> = LazyLock::new(|| Selector::parse("td.by").unwrap());
static CITE_A: LazyLock<Selector> = LazyLock::new(|| Selector::parse("cite a").unwrap());
static EM_SPAN: LazyLock<Selector> = LazyLock::new(|| Selector::parse("em span").unwrap());
static NUM_A: LazyLock<Selector> = LazyLock::new(|| Selector::parse("td.num a").unwrap());
static UID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"uid=(\d+)").unwrap());
static HM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(\d{1,2}):(\d{2})").unwrap());
static FOOTER_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"GMT[+-]?[\d.:]*,\s*(\d{4}-\d{1,2}-\d{1,2}\s+\d{1,2}:\d{2})").unwrap()
});

fn text_of(e: ElementRef<'_>) -> String {
    e.text()
        .collect::<String>()
        .replace('\u{a0}', " ")
        .trim()
        .to_string()
}

/// When a thread was opened: `<span title="2026-11-28">昨天 19:00</span>` (date in the title, time
/// in the text), or an absolute text for older threads, or a relative text alone.
fn created(
    span: ElementRef<'_>,
    server: Option<DateTime<FixedOffset>>,
    offset: FixedOffset,
) -> (Option<DateTime<FixedOffset>>, TimePrecision) {
    let shown = text_of(span);
    if let Some((t, p)) = time::parse_absolute(&shown, offset) {
        return (Some(t), p);
    }
    let title = span.value().attr("title").unwrap_or(shown.as_str());
    if let Ok(date) = NaiveDate::parse_from_str(title.trim(), "%Y-%m-%d") {
        if let Some(c) = HM.captures(&shown) {
            if let Some(t) =
                NaiveTime::from_hms_opt(c[1].parse().unwrap_or(99), c[2].parse().unwrap_or(99), 0)
            {
                if let Some(dt) = offset
                    .from_local_datetime(&NaiveDateTime::new(date, t))
                    .single()
                {
                    return (Some(dt), TimePrecision::Minute);
                }
            }
        }
        let midnight = NaiveDateTime::new(date, NaiveTime::MIN);
        return (
            offset.from_local_datetime(&midnight).single(),
            TimePrecision::Day,
        );
    }
    if let Some(now) = server {
        if let Some((t, p)) = time::parse_relative(&shown, now) {
            return (Some(t), p);
        }
    }
    (None, TimePrecision::Day)
}

/// Parse a desktop thread list page.
pub fn parse_thread_list(
    bytes: &[u8],
    content_type: Option<&str>,
    opts: &ParseOptions,
) -> Result<ThreadList, PageError> {
    let d = decode(bytes, content_type);
    let text = d.text;
    let doc = Html::parse_document(&crate::guard::limit_nesting(&text));
    let server_time = FOOTER_TIME
        .captures(&text)
        .and_then(|c| time::parse_absolute(&c[1], opts.utc_offset).map(|(t, _)| t));
    let mut threads = Vec::new();
    for row in doc.select(&ROW) {
        let Some(tid) = row
            .value()
            .id()
            .and_then(|id| id.strip_prefix("normalthread_"))
            .and_then(|n| n.parse().ok())
        else {
            continue;
        };
        let subject = row.select(&SUBJECT).next().map(text_of).unwrap_or_default();
        let by = row.select(&BY).next();
        let author_link = by.and_then(|b| b.select(&CITE_A).next());
        let author = author_link.map(text_of).unwrap_or_default();
        let author_uid = author_link
            .and_then(|a| a.value().attr("href"))
            .and_then(|h| UID.captures(h))
            .and_then(|c| c[1].parse().ok());
        let (created_at, created_precision) = by
            .and_then(|b| {
                b.select(&EM_SPAN)
                    .filter(|s| s.value().attr("title").is_some() || !text_of(*s).is_empty())
                    .last()
            })
            .map(|s| created(s, server_time, opts.utc_offset))
            .unwrap_or((None, TimePrecision::Day));
        let replies = row
            .select(&NUM_A)
            .next()
            .and_then(|a| text_of(a).parse().ok());
        threads.push(ThreadEntry {
            tid,
            subject,
            author,
            author_uid,
            created_at,
            created_precision,
            replies,
        });
    }
    if threads.is_empty() && !text.contains("normalthread_") {
        return Err(PageError {
            kind: PageErrorKind::NotAThreadPage,
            detail: "no thread list (tbody#normalthread_*) on the page".into(),
        });
    }
    Ok(ThreadList {
        threads,
        server_time,
    })
}
