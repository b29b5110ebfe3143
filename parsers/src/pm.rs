//! Private messages (站内短信) in the judge's inbox: the conversation list and each conversation,
//! from the mobile API (`module=mypm`, `subop=view&touid=U`; version 1 gives exact times, version
//! 4 only relative ones) or the desktop pages (`home.php?mod=space&do=pm`, to the minute).
//! Opening a conversation marks its messages read on the forum.

use crate::charset::decode;
use crate::error::{PageError, PageErrorKind};
use crate::model::{ParseOptions, TimePrecision, Warning, WarningKind};
use crate::time;
use chrono::{DateTime, FixedOffset};
use regex::Regex;
use scraper::{ElementRef, Html, Node, Selector};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrivateMessage {
    pub pmid: u64,
    /// The conversation (`plid`), where the source gives it.
    pub plid: Option<u64>,
    pub from_uid: Option<u64>,
    pub from: String,
    pub to_uid: Option<u64>,
    pub sent_at: Option<DateTime<FixedOffset>>,
    pub precision: TimePrecision,
    pub text: String,
}

/// A conversation in the inbox list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub plid: u64,
    /// The other member, whose uid opens the conversation (`subop=view&touid=U`).
    pub with_uid: Option<u64>,
    pub with_name: Option<String>,
    /// How many messages it holds.
    pub messages: Option<u32>,
    pub last_at: Option<DateTime<FixedOffset>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PmPage {
    pub viewer_uid: Option<u64>,
    pub viewer: Option<String>,
    /// On an inbox list.
    pub conversations: Vec<Conversation>,
    /// In a conversation.
    pub messages: Vec<PrivateMessage>,
    pub page: u32,
    pub last_page: u32,
    pub warnings: Vec<Warning>,
}

static DL: LazyLock<Selector> = LazyLock::new(|| Selector::parse(r#"dl[id^="pmlist_"]"#).unwrap());
static AVATAR_A: LazyLock<Selector> = LazyLock::new(|| Selector::parse("dd.avt a").unwrap());
static PTM: LazyLock<Selector> = LazyLock::new(|| Selector::parse("dd.ptm").unwrap());
static NAME_A: LazyLock<Selector> = LazyLock::new(|| Selector::parse("a.xw1").unwrap());
static TIME_SPAN: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("span.xg1 span[title]").unwrap());
static VIEWER: LazyLock<Selector> = LazyLock::new(|| Selector::parse("strong.vwmy a").unwrap());
static A: LazyLock<Selector> = LazyLock::new(|| Selector::parse("a[href]").unwrap());
static PAGER_CURRENT: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("div.pg strong").unwrap());
static PAGER_LINK: LazyLock<Selector> = LazyLock::new(|| Selector::parse("div.pg a").unwrap());
static UID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[?&;]uid=(\d+)").unwrap());
static TOUID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"touid=(\d+)").unwrap());
static PAGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"page=(\d+)").unwrap());
static TOTAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"共\s*(\d+)\s*条").unwrap());

fn text_of(e: ElementRef<'_>) -> String {
    e.text()
        .collect::<String>()
        .replace('\u{a0}', " ")
        .trim()
        .to_string()
}

fn uid_in(href: &str) -> Option<u64> {
    UID.captures(href).and_then(|c| c[1].parse().ok())
}

/// A page of the inbox or of a conversation: desktop HTML or mobile API JSON.
pub fn parse_pm(
    bytes: &[u8],
    content_type: Option<&str>,
    opts: &ParseOptions,
) -> Result<PmPage, PageError> {
    let d = decode(bytes, content_type);
    let text = d.text.trim_start_matches('\u{feff}');
    let mut page = if text.trim_start().starts_with('{') {
        from_api(text, opts)?
    } else {
        from_desktop(text, opts)?
    };
    // What the decoding met (bytes not in the declared charset) is the caller's to weigh.
    page.warnings.extend(d.warnings.iter().cloned());
    Ok(page)
}

fn from_api(text: &str, opts: &ParseOptions) -> Result<PmPage, PageError> {
    use crate::api::{num, string};
    let (_, vars) = crate::api::variables(text)?;
    let viewer_uid = num(vars.get("member_uid")).filter(|u| *u != 0);
    if viewer_uid.is_none() {
        return Err(PageError::new(
            PageErrorKind::LoginRequired,
            "the answer is for a guest: private messages need the judge's login",
        ));
    }
    let Some(list) = vars.get("list") else {
        return Err(PageError::new(
            PageErrorKind::BadJson,
            "no \"list\": not a private-message answer",
        ));
    };
    let entries: Vec<&Value> = match list {
        Value::Array(a) => a.iter().collect(),
        Value::Object(o) => o.values().collect(),
        _ => Vec::new(),
    };
    let mut page = PmPage {
        viewer_uid,
        viewer: string(vars.get("member_username")).filter(|s| !s.is_empty()),
        conversations: Vec::new(),
        messages: Vec::new(),
        page: num(vars.get("page")).unwrap_or(1).max(1) as u32,
        last_page: 1,
        warnings: Vec::new(),
    };
    if let (Some(count), Some(per)) = (num(vars.get("count")), num(vars.get("perpage"))) {
        if per > 0 {
            page.last_page = (count.div_ceil(per)).max(1) as u32;
        }
        // Nothing listed where the answer's own count puts entries on this page: the list was
        // lost on the way, and reading it as "nothing new" would lose the messages.
        let before = u64::from(page.page - 1).saturating_mul(per);
        if entries.is_empty() && count > before {
            return Err(PageError::new(
                PageErrorKind::BadJson,
                format!(
                    "the answer counts {count} entries and lists none on page {}",
                    page.page
                ),
            ));
        }
    }
    let is_view = vars.contains_key("pmid");
    for e in entries {
        let decode_text = |s: String| {
            let s = s.replace("<br />", "\n").replace("<br>", "\n");
            html_escape::decode_html_entities(&s).trim().to_string()
        };
        if !is_view {
            let Some(plid) = num(e.get("plid")) else {
                page.warnings
                    .push(Warning::new(None, WarningKind::ApiField, e.to_string()));
                continue;
            };
            page.conversations.push(Conversation {
                plid,
                with_uid: num(e.get("touid")),
                with_name: string(e.get("tousername")),
                messages: num(e.get("pmnum")).map(|n| n as u32),
                last_at: num(e.get("lastdateline"))
                    .and_then(|t| time::from_unix(t as i64, opts.utc_offset)),
            });
            continue;
        }
        let Some(pmid) = num(e.get("pmid")) else {
            page.warnings
                .push(Warning::new(None, WarningKind::PostId, e.to_string()));
            continue;
        };
        let (sent_at, precision) =
            match num(e.get("dateline")).and_then(|t| time::from_unix(t as i64, opts.utc_offset)) {
                Some(t) => (Some(t), TimePrecision::Second),
                None => {
                    let shown = string(e.get("vdateline"))
                        .map(|s| s.replace("&nbsp;", " "))
                        .unwrap_or_default();
                    match time::parse_absolute(&shown, opts.utc_offset) {
                        Some((t, p)) => (Some(t), p),
                        None => {
                            page.warnings
                                .push(Warning::new(Some(pmid), WarningKind::Time, shown));
                            (None, TimePrecision::Minute)
                        }
                    }
                }
            };
        page.messages.push(PrivateMessage {
            pmid,
            plid: num(e.get("plid")),
            from_uid: num(e.get("msgfromid")).or_else(|| num(e.get("authorid"))),
            from: string(e.get("msgfrom"))
                .or_else(|| string(e.get("author")))
                .unwrap_or_default(),
            to_uid: num(e.get("msgtoid")).or_else(|| num(e.get("touid"))),
            sent_at,
            precision,
            text: decode_text(string(e.get("message")).unwrap_or_default()),
        });
    }
    page.messages.sort_by_key(|m| m.pmid);
    Ok(page)
}

/// The message text of a desktop `dd.ptm`: what follows the first line break, up to the time.
fn desktop_text(dd: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut started = false;
    for child in dd.children() {
        match child.value() {
            Node::Element(e) if e.name() == "br" => {
                if started {
                    out.push('\n');
                }
                started = true;
            }
            Node::Element(e) if e.name() == "span" && e.classes().any(|c| c == "xg1") => break,
            Node::Element(e) if e.name() == "div" => {}
            // Line breaks are `<br />`; the newlines of the markup are only whitespace.
            Node::Text(t) if started => out.push_str(&t.replace(['\r', '\n'], "")),
            Node::Element(_) if started => {
                if let Some(el) = ElementRef::wrap(child) {
                    out.push_str(&el.text().collect::<String>());
                }
            }
            _ => {}
        }
    }
    out.replace('\u{a0}', " ")
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

fn from_desktop(text: &str, opts: &ParseOptions) -> Result<PmPage, PageError> {
    let doc = Html::parse_document(&crate::guard::limit_nesting(text));
    let viewer_link = doc.select(&VIEWER).next();
    let viewer_uid = viewer_link
        .and_then(|a| a.value().attr("href"))
        .and_then(uid_in);
    let viewer = viewer_link.map(text_of);
    let rows: Vec<ElementRef<'_>> = doc.select(&DL).collect();
    if rows.is_empty() && !text.contains("pm_ul") && !text.contains("deletepmform") {
        let e = crate::desktop::error_page(&doc, text, false);
        return Err(match e.kind {
            PageErrorKind::Empty | PageErrorKind::NotAThreadPage => PageError::new(
                PageErrorKind::NotAThreadPage,
                "no private messages (dl#pmlist_*) on the page",
            ),
            _ => e,
        });
    }
    // In a conversation, the other member is named in "与 X 的交谈记录" (and the export link).
    let partner = doc
        .select(&A)
        .filter_map(|a| a.value().attr("href"))
        .find(|h| h.contains("op=export"))
        .and_then(|h| TOUID.captures(h))
        .and_then(|c| c[1].parse::<u64>().ok());
    let mut page = PmPage {
        viewer_uid,
        viewer: viewer.clone(),
        conversations: Vec::new(),
        messages: Vec::new(),
        page: doc
            .select(&PAGER_CURRENT)
            .next()
            .and_then(|s| text_of(s).parse().ok())
            .unwrap_or(1),
        last_page: 1,
        warnings: Vec::new(),
    };
    page.last_page = doc
        .select(&PAGER_LINK)
        .filter_map(|a| a.value().attr("href"))
        .filter_map(|h| PAGE.captures(h).and_then(|c| c[1].parse::<u32>().ok()))
        .max()
        .unwrap_or(1)
        .max(page.page);
    for dl in rows {
        let Some(id) = dl
            .value()
            .id()
            .and_then(|i| i.strip_prefix("pmlist_"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let Some(dd) = dl.select(&PTM).next() else {
            continue;
        };
        let time_span = dd.select(&TIME_SPAN).next();
        let (at, precision) = match time_span
            .and_then(|s| s.value().attr("title"))
            .and_then(|t| time::parse_absolute(t, opts.utc_offset))
        {
            Some((t, p)) => (Some(t), p),
            None => {
                page.warnings.push(Warning::new(
                    Some(id),
                    WarningKind::Time,
                    time_span.map(text_of).unwrap_or_default(),
                ));
                (None, TimePrecision::Minute)
            }
        };
        if partner.is_none() {
            // The inbox list: one row per conversation (`pmlist_PLID`).
            let with_uid = dd
                .select(&A)
                .filter_map(|a| a.value().attr("href"))
                .find(|h| h.contains("subop=view"))
                .and_then(|h| TOUID.captures(h))
                .and_then(|c| c[1].parse().ok());
            page.conversations.push(Conversation {
                plid: id,
                with_uid,
                with_name: None,
                messages: TOTAL.captures(&text_of(dd)).and_then(|c| c[1].parse().ok()),
                last_at: at,
            });
            continue;
        }
        let from_uid = dl
            .select(&AVATAR_A)
            .next()
            .and_then(|a| a.value().attr("href"))
            .and_then(uid_in);
        let from = match dd.select(&NAME_A).next() {
            Some(a) => text_of(a),
            None => viewer.clone().unwrap_or_default(),
        };
        let to_uid = if from_uid.is_some() && from_uid == partner {
            viewer_uid
        } else {
            partner
        };
        page.messages.push(PrivateMessage {
            pmid: id,
            plid: None,
            from_uid,
            from,
            to_uid,
            sent_at: at,
            precision,
            text: desktop_text(dd),
        });
    }
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let opts = ParseOptions::default();
        assert!(parse_pm(b"", None, &opts).is_err());
        assert!(parse_pm(b"{\"Variables\":{\"member_uid\":\"2\"}}", None, &opts).is_err());
        assert!(parse_pm(b"<html><body>hi</body></html>", None, &opts).is_err());
    }

    /// An answer whose list is empty where its own count says the page has entries lost them
    /// on the way (the simulator's `Empty` fault on the inbox): an error, not "nothing new".
    #[test]
    fn an_empty_list_against_its_count_is_an_error() {
        let opts = ParseOptions::default();
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/discuz/pm");
        for f in [
            "mobile_v1_mypm_list_judge.json",
            "mobile_v1_mypm_subop_view_touid10_judge.json",
        ] {
            let text = std::fs::read_to_string(dir.join(f)).unwrap();
            assert!(parse_pm(text.as_bytes(), None, &opts).is_ok(), "{f}");
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            v["Variables"]["list"] = serde_json::Value::Array(Vec::new());
            let emptied = serde_json::to_vec(&v).unwrap();
            let e = parse_pm(&emptied, None, &opts).expect_err(f);
            assert_eq!(e.kind, PageErrorKind::BadJson, "{f}: {e:?}");
            // A page past the last is empty and says so.
            v["Variables"]["page"] = serde_json::Value::String("9".into());
            let past = serde_json::to_vec(&v).unwrap();
            assert!(parse_pm(&past, None, &opts).is_ok(), "{f}");
        }
    }
}
