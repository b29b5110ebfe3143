//! A poll thread (投票机): its options and counts, from the mobile API (`special_poll` in a
//! viewthread answer) or the desktop thread page (`div.pcht`); and who voted for an option, from
//! the voter list (`forum.php?mod=misc&action=viewvote&tid=T&polloptionid=O`, a page or its
//! `inajax` XML; 100 voters per page). Discuz shows no time for a poll vote.

use crate::charset::decode;
use crate::error::{PageError, PageErrorKind};
use crate::model::ParseOptions;
use crate::time;
use chrono::{DateTime, FixedOffset};
use regex::Regex;
use scraper::{ElementRef, Html, Selector};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::LazyLock;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Poll {
    pub tid: Option<u64>,
    pub options: Vec<PollOption>,
    /// "共有 N 人参与投票" / `voterscount`.
    pub voters_total: Option<u32>,
    pub multiple: bool,
    /// How many options one voter may choose (1 for a single-choice poll).
    pub max_choices: Option<u32>,
    /// The desktop page says the poll is public (公开投票); `None` where the page does not say.
    pub overt: Option<bool>,
    pub expires_at: Option<DateTime<FixedOffset>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PollOption {
    /// `polloptionid`; `None` on a desktop page that offers no vote form (the voter list maps
    /// texts to ids).
    pub id: Option<u64>,
    /// The option's place in the list, from 1.
    pub index: u32,
    pub text: String,
    pub votes: u32,
    /// Who chose it, where a voter list was read.
    pub voters: Option<Vec<PollVoter>>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PollVoter {
    pub uid: Option<u64>,
    pub name: String,
}

/// One page of a poll's voter list: the option it shows and the poll's options (from its
/// selector), the voters, and the paging.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VoterList {
    pub option_id: Option<u64>,
    pub options: Vec<(u64, String)>,
    pub voters: Vec<PollVoter>,
    pub page: u32,
    pub last_page: u32,
    /// The decoding's: bytes not in the charset the page declares garble the voters' names.
    pub warnings: Vec<crate::Warning>,
}

static PCHT: LazyLock<Selector> = LazyLock::new(|| Selector::parse("div.pcht tr").unwrap());
static PVT_LABEL: LazyLock<Selector> = LazyLock::new(|| Selector::parse("td.pvt label").unwrap());
static INPUT: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"input[name="pollanswers[]"]"#).unwrap());
static EM: LazyLock<Selector> = LazyLock::new(|| Selector::parse("td em").unwrap());
static PINF: LazyLock<Selector> = LazyLock::new(|| Selector::parse("div.pinf").unwrap());
static SELECT_OPTION: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("div.voterlist select option").unwrap());
static VOTER: LazyLock<Selector> = LazyLock::new(|| Selector::parse("ul.voterl li a").unwrap());
static PAGER_CURRENT: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse("div.pg strong").unwrap());
static PAGER_LINK: LazyLock<Selector> = LazyLock::new(|| Selector::parse("div.pg a").unwrap());
static CANONICAL: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"link[rel="canonical"]"#).unwrap());
static LINK: LazyLock<Selector> = LazyLock::new(|| Selector::parse("a[href]").unwrap());
static UID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"uid=(\d+)").unwrap());
static TID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"tid=(\d+)").unwrap());
static PAGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"page=(\d+)").unwrap());
static COUNT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\((\d+)\)").unwrap());
static TOTAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"共有\s*(\d+)\s*人").unwrap());
static MAX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"最多可选\s*(\d+)\s*项").unwrap());
static INDEX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*(\d+)\.\s*").unwrap());

fn text_of(e: ElementRef<'_>) -> String {
    e.text()
        .collect::<String>()
        .replace('\u{a0}', " ")
        .trim()
        .to_string()
}

/// The markup inside an `inajax` XML answer, or the page itself.
fn markup(text: &str) -> &str {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with("<?xml") {
        if let (Some(a), Some(b)) = (trimmed.find("<![CDATA["), trimmed.rfind("]]>")) {
            if b > a {
                return &trimmed[a + 9..b];
            }
        }
    }
    text
}

/// A poll from a desktop thread page, or from a mobile API viewthread answer (JSON).
pub fn parse_poll(
    bytes: &[u8],
    content_type: Option<&str>,
    opts: &ParseOptions,
) -> Result<Poll, PageError> {
    let d = decode(bytes, content_type);
    let text = d.text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('{') {
        return poll_from_api(text, opts);
    }
    let m = markup(text);
    let doc = Html::parse_document(&crate::guard::limit_nesting(m));
    let mut options: Vec<PollOption> = Vec::new();
    for row in doc.select(&PCHT) {
        if let Some(label) = row.select(&PVT_LABEL).next() {
            let shown = text_of(label);
            let index = INDEX
                .captures(&shown)
                .and_then(|c| c[1].parse().ok())
                .unwrap_or(options.len() as u32 + 1);
            let text = INDEX.replace(&shown, "").trim().to_string();
            let id = row
                .select(&INPUT)
                .next()
                .and_then(|i| i.value().attr("value"))
                .and_then(|v| v.trim().parse().ok());
            options.push(PollOption {
                id,
                index,
                text,
                votes: 0,
                voters: None,
            });
        } else if let Some(em) = row.select(&EM).next() {
            if let (Some(last), Some(c)) = (options.last_mut(), COUNT.captures(&text_of(em))) {
                last.votes = c[1].parse().unwrap_or(0);
            }
        }
    }
    if options.is_empty() {
        if doc.select(&PINF).next().is_none() && !m.contains("pcht") {
            let e = crate::desktop::error_page(&doc, m, false);
            return Err(match e.kind {
                PageErrorKind::Empty | PageErrorKind::NotAThreadPage => PageError::new(
                    PageErrorKind::NotAThreadPage,
                    "no poll (div.pcht) on the page",
                ),
                _ => e,
            });
        }
        return Err(PageError::new(
            PageErrorKind::NotAThreadPage,
            "the poll panel has no options",
        ));
    }
    let info = doc.select(&PINF).next().map(text_of).unwrap_or_default();
    let multiple = info.contains("多选");
    let tid = doc
        .select(&CANONICAL)
        .next()
        .and_then(|l| l.value().attr("href"))
        .and_then(|h| TID.captures(h))
        .and_then(|c| c[1].parse().ok())
        .or_else(|| {
            doc.select(&PINF)
                .next()
                .and_then(|p| p.select(&LINK).next())
                .and_then(|a| a.value().attr("href"))
                .and_then(|h| TID.captures(h))
                .and_then(|c| c[1].parse().ok())
        });
    Ok(Poll {
        tid,
        options,
        voters_total: TOTAL.captures(&info).and_then(|c| c[1].parse().ok()),
        multiple,
        max_choices: MAX
            .captures(&info)
            .and_then(|c| c[1].parse().ok())
            .or((!multiple).then_some(1)),
        overt: m.contains("此为公开投票").then_some(true),
        expires_at: None,
    })
}

fn poll_from_api(text: &str, opts: &ParseOptions) -> Result<Poll, PageError> {
    use crate::api::{num, string};
    let (_, vars) = crate::api::variables(text)?;
    let Some(sp) = vars.get("special_poll").and_then(Value::as_object) else {
        return Err(PageError::new(
            PageErrorKind::NotAThreadPage,
            "no \"special_poll\": not a poll thread",
        ));
    };
    let raw: Vec<&Value> = match sp.get("polloptions") {
        Some(Value::Object(o)) => o.values().collect(),
        Some(Value::Array(a)) => a.iter().collect(),
        _ => Vec::new(),
    };
    let mut options = Vec::new();
    for (i, o) in raw.into_iter().enumerate() {
        let shown = string(o.get("polloption")).unwrap_or_default();
        let voters = match o.get("voterids") {
            // Some versions list the voters' uids (tab-separated, as stored).
            Some(Value::String(s)) if !s.trim().is_empty() => Some(
                s.split('\t')
                    .filter_map(|u| u.trim().parse().ok())
                    .map(|uid| PollVoter {
                        uid: Some(uid),
                        name: String::new(),
                    })
                    .collect(),
            ),
            _ => None,
        };
        options.push(PollOption {
            id: num(o.get("polloptionid")),
            index: i as u32 + 1,
            text: html_escape::decode_html_entities(&shown).trim().to_string(),
            votes: num(o.get("votes")).unwrap_or(0) as u32,
            voters,
        });
    }
    // The options come keyed by id; the forum lists them in id order.
    options.sort_by_key(|o| o.id.unwrap_or(u64::MAX));
    for (i, o) in options.iter_mut().enumerate() {
        o.index = i as u32 + 1;
    }
    if options.is_empty() {
        return Err(PageError::new(
            PageErrorKind::NotAThreadPage,
            "the poll has no options",
        ));
    }
    let multiple = num(sp.get("multiple")) == Some(1);
    let tid = vars
        .get("thread")
        .and_then(|t| num(t.get("tid")))
        .or_else(|| num(vars.get("tid")));
    Ok(Poll {
        tid,
        options,
        voters_total: num(sp.get("voterscount")).map(|n| n as u32),
        multiple,
        max_choices: num(sp.get("maxchoices")).map(|n| n as u32),
        overt: None,
        expires_at: num(sp.get("expirations"))
            .filter(|e| *e > 0)
            .and_then(|e| time::from_unix(e as i64, opts.utc_offset)),
    })
}

/// One page of a poll's voter list (`misc&action=viewvote`), as a page or `inajax` XML.
pub fn parse_voters(bytes: &[u8], content_type: Option<&str>) -> Result<VoterList, PageError> {
    let d = decode(bytes, content_type);
    let m = markup(&d.text);
    let doc = Html::parse_document(&crate::guard::limit_nesting(m));
    let mut options = Vec::new();
    let mut selected = None;
    for o in doc.select(&SELECT_OPTION) {
        let Some(id) = o.value().attr("value").and_then(|v| v.trim().parse().ok()) else {
            continue;
        };
        if o.value().attr("selected").is_some() {
            selected = Some(id);
        }
        options.push((id, text_of(o)));
    }
    if options.is_empty() && !m.contains("voterlist") {
        let e = crate::desktop::error_page(&doc, m, false);
        return Err(match e.kind {
            PageErrorKind::Empty | PageErrorKind::NotAThreadPage => PageError::new(
                PageErrorKind::NotAThreadPage,
                "no voter list (div.voterlist) on the page",
            ),
            _ => e,
        });
    }
    let voters = doc
        .select(&VOTER)
        .map(|a| PollVoter {
            uid: a
                .value()
                .attr("href")
                .and_then(|h| UID.captures(h))
                .and_then(|c| c[1].parse().ok()),
            name: text_of(a),
        })
        .collect();
    let page = doc
        .select(&PAGER_CURRENT)
        .next()
        .and_then(|s| text_of(s).parse().ok())
        .unwrap_or(1);
    let last_page = doc
        .select(&PAGER_LINK)
        .filter_map(|a| a.value().attr("href"))
        .filter_map(|h| PAGE.captures(h).and_then(|c| c[1].parse::<u32>().ok()))
        .max()
        .unwrap_or(1)
        .max(page);
    Ok(VoterList {
        option_id: selected.or_else(|| options.first().map(|o| o.0)),
        options,
        voters,
        page,
        last_page,
        warnings: d.warnings,
    })
}

/// Put the voters of each voter-list page on its option (matched by id, or by text where the
/// poll page gave no ids). Returns the lists that matched no option.
pub fn attach_voters<'a>(poll: &mut Poll, lists: &'a [VoterList]) -> Vec<&'a VoterList> {
    let mut unmatched = Vec::new();
    for list in lists {
        let Some(id) = list.option_id else {
            unmatched.push(list);
            continue;
        };
        let text = list
            .options
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, t)| t.as_str());
        let found = poll
            .options
            .iter_mut()
            .find(|o| o.id == Some(id) || (o.id.is_none() && Some(o.text.as_str()) == text));
        match found {
            Some(o) => {
                o.id = Some(id);
                let voters = o.voters.get_or_insert_with(Vec::new);
                for v in &list.voters {
                    if !voters.contains(v) {
                        voters.push(v.clone());
                    }
                }
            }
            None => unmatched.push(list),
        }
    }
    unmatched
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let opts = ParseOptions::default();
        assert!(parse_poll(b"", None, &opts).is_err());
        assert!(parse_poll(b"{\"Variables\":{}}", None, &opts).is_err());
        assert!(parse_voters(b"<html></html>", None).is_err());
        assert!(parse_voters(b"<?xml version=\"1.0\"?><root><![CDATA[", None).is_err());
    }
}
