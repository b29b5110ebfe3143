//! The vote deadline a judge writes in a day thread's first post: `截止：2026年12月2日 21:00`,
//! `投票截止时间：12月2日21:00`, `21:00截止`, `截止时间 12-02 21:00`, `12月2日晚9点截止`, in
//! either width of digits and colons.
//!
//! This module reads; it does not decide. Each candidate says what the text gave (a full date, a
//! date without its year, a day relative to the post, or no date at all) and where it stands;
//! which instant it means is `bansha::domain::deadline`'s question (it knows the post's own time,
//! the forum's offset and the game's timetable). Nothing here panics; a number that cannot be a
//! date or time is a warning, never a guess.

use crate::numerals::{fold_digit, parse_number};
use chrono::NaiveDate;
use regex::{Captures, Regex};
use serde::Serialize;
use std::ops::Range;
use std::sync::LazyLock;

/// What the date part of a deadline says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DatePart {
    /// Year, month and day written out.
    Explicit(NaiveDate),
    /// Month and day only (`12月2日`, `12-02`).
    YearLess { month: u32, day: u32 },
    /// A day counted from the post's own day: 0 for `今天`/`今晚`/`当天`, 1 for `明天`/`次日`.
    Relative(u32),
    /// No date: a time alone (`21:00截止`).
    Missing,
}

/// A time of day as written: hour 0–24 (24:00 is the end of the day) and minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockTime {
    pub hour: u32,
    pub minute: u32,
}

/// One deadline found in the text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadlineCandidate {
    /// Byte range in the text of the whole phrase (the 截止 word and the date and time).
    pub span: Range<usize>,
    /// The phrase itself, as written.
    pub text: String,
    pub date: DatePart,
    /// `None` when the phrase names a day but no time (`截止：12月2日`).
    pub time: Option<ClockTime>,
    /// The UTC offset in seconds of the zone the text names (`北京时间`: +08:00, 28800);
    /// `None`: the forum's own.
    pub zone_secs: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DeadlineWarningKind {
    /// A 截止 phrase whose date cannot be a date (`13月2日`, `2月30日`).
    InvalidDate,
    /// A 截止 phrase whose time cannot be a time (`25:00`, `21:75`).
    InvalidTime,
    /// The deadline of something else than the vote: 改票, 托票, 报名, 遗言, 杀帖 …
    OtherDeadline,
}

impl DeadlineWarningKind {
    /// The judge-facing text.
    pub fn zh(self) -> &'static str {
        match self {
            Self::InvalidDate => "截止日期不是有效日期",
            Self::InvalidTime => "截止时刻不是有效时间",
            Self::OtherDeadline => "这是其他事项（改票、托票、报名等）的截止时间，不是投票截止",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeadlineWarning {
    pub span: Range<usize>,
    pub text: String,
    pub kind: DeadlineWarningKind,
}

/// Everything the text says about deadlines.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct DeadlineReading {
    pub candidates: Vec<DeadlineCandidate>,
    pub warnings: Vec<DeadlineWarning>,
}

const DIGIT: &str = "[0-9０-９]";
const SEP: &str = "[-/.－／．]";

fn date_pattern() -> String {
    let d = DIGIT;
    format!(
        r"(?:(?P<y1>{d}{{4}})\s*年\s*(?P<m1>{d}{{1,2}})\s*月\s*(?P<d1>{d}{{1,2}})\s*[日号]?|(?P<y2>{d}{{4}})\s*{SEP}\s*(?P<m2>{d}{{1,2}})\s*{SEP}\s*(?P<d2>{d}{{1,2}})|(?P<m3>{d}{{1,2}})\s*月\s*(?P<d3>{d}{{1,2}})\s*[日号]|(?P<m4>{d}{{1,2}})[-/－／](?P<d4>{d}{{1,2}})|(?P<rel>今天|今日|今晚|当天|当日|当晚|本日|明天|明日|明晚|次日|翌日))"
    )
}

const WEEKDAY: &str = r"(?:\s*[（(]?\s*(?:周|星期|礼拜)[一二三四五六日天]\s*[)）]?)?";
const PERIOD: &str =
    r"(?P<period>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|晚间|夜间|夜里|晚|夜|早)?";

fn time_pattern() -> String {
    let d = DIGIT;
    format!(
        r"(?:(?P<h1>{d}{{1,2}})\s*[:：]\s*(?P<mi1>{d}{{2}})(?:\s*[:：]\s*{d}{{2}})?|(?P<h2>{d}{{1,2}}|[零〇一二两三四五六七八九十]{{1,3}})\s*[点點时時](?:\s*(?P<mi2>{d}{{1,2}})\s*分?|(?P<half>半)|整)?)"
    )
}

/// A date (optional, with its weekday) and a time.
static DATETIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?:{}{WEEKDAY}\s*)?{PERIOD}\s*{}",
        date_pattern(),
        time_pattern()
    ))
    .expect("the date-time pattern compiles")
});
/// A date alone, right after a 截止 word.
static DATE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"^\s*(?:为|是|在)?\s*[:：]?\s*{}", date_pattern()))
        .expect("the date pattern compiles")
});
static KEYWORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"截[止至](?:时间|日期|时刻)?").expect("the keyword compiles"));
/// After a date-time: `21:00截止`, `21:00前截止`.
static KEYWORD_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:之前|以前|前)?\s*截[止至]").expect("the keyword compiles")
});
/// After a date-time: the zone it is in.
static ZONE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*[（(]?\s*(?:北京时间|UTC\s*\+\s*0?8|GMT\s*\+\s*0?8)")
        .expect("the zone compiles")
});
/// Deadlines of other things than the vote, written just before the 截止 word or the time.
static OTHER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:改票|托票|代投|报名|报道|遗言|杀帖|杀贴|出帖|出贴|移动|夜晚|夜间|技能|投诉|重写|白条)",
    )
    .expect("the pattern compiles")
});

/// The most characters between a 截止 word and its date (`截止时间同投票帖：2026-11-29 21:00`).
const GAP_CHARS: usize = 10;

/// Read the vote deadlines written in `text` (a post's plain text). Never panics.
pub fn read_deadlines(text: &str) -> DeadlineReading {
    let mut out = DeadlineReading::default();
    let keywords: Vec<Range<usize>> = KEYWORD.find_iter(text).map(|m| m.range()).collect();
    let mut used_keywords = vec![false; keywords.len()];
    for caps in DATETIME.captures_iter(text) {
        let Some(m) = caps.get(0) else { continue };
        let dt = m.range();
        // Only the nearest 截止 word before can be this time's: an earlier one's gap holds the
        // nearer one's (binary search keeps hostile text with many of both linear).
        let nearest = keywords.partition_point(|k| k.end <= dt.start);
        let before = nearest
            .checked_sub(1)
            .filter(|i| gap_ok(&text[keywords[*i].end..dt.start]));
        let after = KEYWORD_AFTER.find(&text[dt.end..]);
        let span = match (before, after) {
            (Some(i), _) => keywords[i].start..dt.end,
            (None, Some(a)) => dt.start..dt.end + a.end(),
            (None, None) => continue,
        };
        // Every 截止 word inside the phrase is taken by it.
        let first = keywords.partition_point(|k| k.start < span.start);
        let last = keywords.partition_point(|k| k.start < span.end);
        used_keywords[first..last]
            .iter_mut()
            .for_each(|u| *u = true);
        let span = widen_to_zone(text, span, dt.end);
        let context_start = floor_char(text, span.start.saturating_sub(4 * 3));
        if OTHER.is_match(&text[context_start..span.start.max(context_start)])
            || OTHER.is_match(&text[span.clone()])
        {
            out.warnings
                .push(warning(text, span, DeadlineWarningKind::OtherDeadline));
            continue;
        }
        let zone_secs = ZONE_AFTER.is_match(&text[dt.end..]).then_some(8 * 3600);
        match (date_of(&caps), time_of(&caps)) {
            (Err(()), _) => {
                out.warnings
                    .push(warning(text, span, DeadlineWarningKind::InvalidDate))
            }
            (_, Err(())) => {
                out.warnings
                    .push(warning(text, span, DeadlineWarningKind::InvalidTime))
            }
            (Ok(date), Ok(time)) => out.candidates.push(DeadlineCandidate {
                text: text[span.clone()].to_string(),
                span,
                date,
                time: Some(time),
                zone_secs,
            }),
        }
    }
    // A 截止 word followed by a date and no time: a candidate the judge is asked about.
    for (k, _) in keywords.iter().zip(&used_keywords).filter(|(_, u)| !**u) {
        let rest = &text[k.end..];
        let Some(caps) = DATE_ONLY.captures(rest) else {
            continue;
        };
        let Some(m) = caps.get(0) else { continue };
        let span = k.start..k.end + m.end();
        match date_of(&caps) {
            Ok(date) => out.candidates.push(DeadlineCandidate {
                text: text[span.clone()].to_string(),
                span,
                date,
                time: None,
                zone_secs: None,
            }),
            Err(()) => out
                .warnings
                .push(warning(text, span, DeadlineWarningKind::InvalidDate)),
        }
    }
    out.candidates.sort_by_key(|c| c.span.start);
    out
}

/// The text between a 截止 word and a date-time may be a few words (`时间同投票帖：`), never a
/// sentence's end or a number of its own (`截止前20分钟，即20：40`).
fn gap_ok(gap: &str) -> bool {
    gap.chars().count() <= GAP_CHARS
        && !gap.chars().any(|c| {
            fold_digit(c).is_some()
                || "。；;，,！!？?\n、".contains(c)
                || parse_number(&c.to_string()).is_some()
        })
}

/// Extend a phrase over a zone note right after its time (`（北京时间）`).
fn widen_to_zone(text: &str, span: Range<usize>, dt_end: usize) -> Range<usize> {
    match ZONE_AFTER.find(&text[dt_end..]) {
        Some(z) if span.end <= dt_end + z.end() => span.start..dt_end + z.end(),
        _ => span,
    }
}

fn floor_char(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn warning(text: &str, span: Range<usize>, kind: DeadlineWarningKind) -> DeadlineWarning {
    DeadlineWarning {
        text: text[span.clone()].to_string(),
        span,
        kind,
    }
}

fn num(caps: &Captures<'_>, name: &str) -> Option<u32> {
    caps.name(name).and_then(|m| parse_number(m.as_str()))
}

fn date_of(caps: &Captures<'_>) -> Result<DatePart, ()> {
    for (y, m, d) in [("y1", "m1", "d1"), ("y2", "m2", "d2")] {
        if let (Some(y), Some(m), Some(d)) = (num(caps, y), num(caps, m), num(caps, d)) {
            return NaiveDate::from_ymd_opt(y as i32, m, d)
                .map(DatePart::Explicit)
                .ok_or(());
        }
    }
    for (m, d) in [("m3", "d3"), ("m4", "d4")] {
        if let (Some(month), Some(day)) = (num(caps, m), num(caps, d)) {
            // A leap year, so that 2月29日 is a date; the year is settled later.
            return NaiveDate::from_ymd_opt(2024, month, day)
                .map(|_| DatePart::YearLess { month, day })
                .ok_or(());
        }
    }
    Ok(match caps.name("rel").map(|m| m.as_str()) {
        Some("明天" | "明日" | "明晚" | "次日" | "翌日") => DatePart::Relative(1),
        Some(_) => DatePart::Relative(0),
        None => DatePart::Missing,
    })
}

fn time_of(caps: &Captures<'_>) -> Result<ClockTime, ()> {
    let (hour, minute) = if let Some(h) = num(caps, "h1") {
        (h, num(caps, "mi1").ok_or(())?)
    } else {
        let h = num(caps, "h2").ok_or(())?;
        let m = if caps.name("half").is_some() {
            30
        } else {
            num(caps, "mi2").unwrap_or(0)
        };
        (h, m)
    };
    let evening = matches!(
        caps.name("period").map(|m| m.as_str()),
        Some("下午" | "傍晚" | "晚上" | "晚间" | "夜间" | "夜里" | "晚" | "夜")
    ) || caps.name("rel").is_some_and(|m| m.as_str().ends_with('晚'));
    let noon = caps.name("period").is_some_and(|m| m.as_str() == "中午");
    let hour = match hour {
        h @ 1..=11 if evening || (noon && h < 6) => h + 12,
        12 if evening => 24,
        h => h,
    };
    if hour > 24 || minute > 59 || (hour == 24 && minute > 0) {
        return Err(());
    }
    Ok(ClockTime { hour, minute })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> DeadlineCandidate {
        let r = read_deadlines(text);
        assert_eq!(r.candidates.len(), 1, "{text}: {r:?}");
        r.candidates[0].clone()
    }

    fn t(hour: u32, minute: u32) -> Option<ClockTime> {
        Some(ClockTime { hour, minute })
    }

    fn ymd(y: i32, m: u32, d: u32) -> DatePart {
        DatePart::Explicit(NaiveDate::from_ymd_opt(y, m, d).unwrap())
    }

    #[test]
    fn the_wordings_of_the_issue() {
        let c = one("截止：2026年12月2日 21:00");
        assert_eq!((c.date, c.time), (ymd(2026, 12, 2), t(21, 0)));
        assert_eq!(c.text, "截止：2026年12月2日 21:00");
        let c = one("投票截止时间：12月2日21:00");
        assert_eq!(
            (c.date, c.time),
            (DatePart::YearLess { month: 12, day: 2 }, t(21, 0))
        );
        assert_eq!(c.text, "截止时间：12月2日21:00");
        let c = one("今天投票21:00截止，请大家抓紧");
        assert_eq!((c.date, c.time), (DatePart::Missing, t(21, 0)));
        assert_eq!(c.text, "21:00截止");
        let c = one("截止时间 12-02 21:00");
        assert_eq!(
            (c.date, c.time),
            (DatePart::YearLess { month: 12, day: 2 }, t(21, 0))
        );
        let c = one("12月2日晚9点截止");
        assert_eq!(
            (c.date, c.time),
            (DatePart::YearLess { month: 12, day: 2 }, t(21, 0))
        );
    }

    #[test]
    fn full_width_digits_and_colons() {
        let c = one("投票截止：２０２６年１２月２日　２１：００");
        assert_eq!((c.date, c.time), (ymd(2026, 12, 2), t(21, 0)));
        let c = one("２１：３０截止");
        assert_eq!(c.time, t(21, 30));
    }

    #[test]
    fn the_captured_first_posts() {
        // discuz tid 3 (forum_post.json pid 19), tid 4 (pid 20), tid 5 (pid 24); discuz-gbk tid 2.
        let c = one("截止时间：2026年11月29日 21:00（以论坛显示时间为准）");
        assert_eq!((c.date, c.time), (ymd(2026, 11, 29), t(21, 0)));
        let c = one("投票机截止时间同投票帖：2026-11-29 21:00。");
        assert_eq!((c.date, c.time), (ymd(2026, 11, 29), t(21, 0)));
        let c = one("第二天投票帖，投票截止时间：2026-11-28 23:00（北京时间）。");
        assert_eq!((c.date, c.time), (ymd(2026, 11, 28), t(23, 0)));
        assert_eq!(c.zone_secs, Some(8 * 3600));
        assert!(c.text.ends_with("北京时间"), "{}", c.text);
    }

    #[test]
    fn clock_words_and_periods() {
        assert_eq!(one("明晚九点截止").date, DatePart::Relative(1));
        assert_eq!(one("明晚九点截止").time, t(21, 0));
        assert_eq!(one("今晚9点半截止").time, t(21, 30));
        assert_eq!(one("今晚9点半截止").date, DatePart::Relative(0));
        assert_eq!(one("截止：下午3点").time, t(15, 0));
        assert_eq!(one("截止：中午12点").time, t(12, 0));
        assert_eq!(one("截止时间：晚上12点").time, t(24, 0));
        assert_eq!(one("截止时间：24:00").time, t(24, 0));
        assert_eq!(one("截止时间：21时").time, t(21, 0));
        assert_eq!(one("截止时间：2026/12/2 21:00:00").date, ymd(2026, 12, 2));
        let c = one("截止时间：12月2日（周三）21:00");
        assert_eq!(c.date, DatePart::YearLess { month: 12, day: 2 });
        assert_eq!(one("截至12月2号 21:00").time, t(21, 0));
    }

    #[test]
    fn a_date_without_a_time_is_a_candidate_without_one() {
        let c = one("截止日期：12月2日。");
        assert_eq!(c.date, DatePart::YearLess { month: 12, day: 2 });
        assert_eq!(c.time, None);
    }

    #[test]
    fn times_that_are_not_the_vote_deadline() {
        // bansha42 L76: "投票截止前20分钟，即20：40起不再接受托票".
        let r = read_deadlines("投票截止前20分钟，即20：40起不再接受托票。");
        assert!(r.candidates.is_empty(), "{r:?}");
        let r = read_deadlines("改票截止：20:00；投票截止：21:00");
        assert_eq!(r.candidates.len(), 1, "{r:?}");
        assert_eq!(r.candidates[0].time, t(21, 0));
        assert_eq!(r.warnings.len(), 1);
        assert_eq!(r.warnings[0].kind, DeadlineWarningKind::OtherDeadline);
        // A time with no 截止 word near it is no deadline.
        assert!(read_deadlines("昨晚 23:00 平安夜，今天 9:00 开始讨论")
            .candidates
            .is_empty());
    }

    /// How the rule posts (tests/fixtures/seeds/) word deadlines.
    #[test]
    fn the_seeds_wordings() {
        // 003 L98 "截止时间为每天的21：00": a time alone (qipan's timetable places it).
        let c = one("同时给法官发第一次的投票（截止时间为每天的21：00）");
        assert_eq!((c.date, c.time), (DatePart::Missing, t(21, 0)));
        // 004 L62, L64: the deadlines of complaints and rewrites, not of the vote.
        for text in [
            "对于所有杀帖的投诉截止到杀帖发出后次日的18:00,过时则不接受投诉并不判罚。",
            "重写截止时间最迟不得迟于次日12:00,未按时重写完毕则出帖者出局",
        ] {
            let r = read_deadlines(text);
            assert!(r.candidates.is_empty(), "{text}: {r:?}");
            assert_eq!(
                r.warnings[0].kind,
                DeadlineWarningKind::OtherDeadline,
                "{text}"
            );
        }
        // 002 L369 "导演至少在投票截至的30分钟前": a length of time, no deadline.
        assert_eq!(
            read_deadlines("导演至少在投票截至的30分钟前").candidates,
            vec![]
        );
        // 001 L197 "第二天21：00-第三天21：00": a game day is no date; nothing is guessed.
        assert_eq!(read_deadlines("截止：第三天21：00").candidates, vec![]);
    }

    #[test]
    fn impossible_dates_and_times_are_warnings() {
        let r = read_deadlines("截止：2026年13月2日 21:00");
        assert!(r.candidates.is_empty());
        assert_eq!(r.warnings[0].kind, DeadlineWarningKind::InvalidDate);
        let r = read_deadlines("截止：2月30日 21:00");
        assert_eq!(r.warnings[0].kind, DeadlineWarningKind::InvalidDate);
        let r = read_deadlines("截止：12月2日 25:00");
        assert_eq!(r.warnings[0].kind, DeadlineWarningKind::InvalidTime);
    }

    #[test]
    fn two_deadlines_are_both_reported() {
        let r = read_deadlines("截止：12月2日 21:00\n（更正）截止：12月3日 21:00");
        assert_eq!(r.candidates.len(), 2);
        assert!(r.candidates[0].span.end <= r.candidates[1].span.start);
    }

    #[test]
    fn spans_point_into_the_text() {
        let text = "【第三天】\n各位好，截止：２０２６年１２月２日　２１：００，请投票。";
        for c in read_deadlines(text).candidates {
            assert_eq!(&text[c.span.clone()], c.text);
        }
    }

    #[test]
    fn many_deadline_words_and_times_are_each_read() {
        // Hostile text of 40,000 deadline phrases: every one is read (its speed belongs in a
        // benchmark, not in a timed test).
        let text = "截止 21:00 截止：12月2日 ".repeat(20_000);
        let r = read_deadlines(&text);
        assert_eq!(r.candidates.len(), 40_000);
    }

    #[test]
    fn never_panics_on_odd_text() {
        for s in [
            "",
            "截止",
            "截止：",
            "截至",
            "21:",
            "：：截止：：",
            "12月截止",
            "截止9",
            "截止：九",
            "截止：十点",
            "\u{0}截止\u{ffff}21:00",
            "截止时间：2026年",
            "晚截止",
        ] {
            let _ = read_deadlines(s);
        }
        assert_eq!(one("截止：十点").time, t(10, 0));
    }
}

#[cfg(test)]
mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any mix of the characters deadlines are made of: no panic, and every span is a
        /// slice of the text equal to the phrase reported.
        #[test]
        fn never_panics_and_spans_hold(s in "[截止至时间日期年月号点时半晚上下午今明天0-9０-９:：/\\-（）北京 一二三十两周]{0,40}") {
            let r = read_deadlines(&s);
            for c in &r.candidates {
                prop_assert_eq!(&s[c.span.clone()], c.text.as_str());
            }
            for w in &r.warnings {
                prop_assert_eq!(&s[w.span.clone()], w.text.as_str());
            }
        }
    }
}
