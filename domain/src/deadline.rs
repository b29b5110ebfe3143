//! Which instant a day thread's written deadline means (`bansha_parsers::deadline` reads the
//! words), and whether it is the one the game config has. Pure: the post's own time and the
//! forum's UTC offset are passed in. A date is inferred only where it is unambiguous; anything
//! else is asked of the judge.

use crate::config::DiscoveryRules;
use bansha_parsers::deadline::{read_deadlines, DatePart, DeadlineCandidate, DeadlineWarning};
use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, TimeZone};
use serde::Serialize;

/// How far after the post a year-less date may fall (`12月2日` written in late November).
const YEARLESS_WITHIN_DAYS: i64 = 31;

/// Why a deadline is asked, not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AskReason {
    /// No deadline in the post.
    NoneFound,
    /// A time with no date, and the game's timetable does not say which day it is.
    TimeOnly,
    /// A date with no time.
    NoTime,
    /// The deadline would fall at or before the post itself.
    NotAfterPost,
    /// A year-less date more than a month after the post.
    TooFar,
    /// Two different deadlines in one post.
    TwoDeadlines,
}

impl AskReason {
    pub fn zh(self) -> &'static str {
        match self {
            Self::NoneFound => "首帖里没有找到截止时间",
            Self::TimeOnly => "首帖只写了时刻没有写日期，本局规则没有规定是哪一天",
            Self::NoTime => "首帖只写了日期没有写时刻",
            Self::NotAfterPost => "读到的截止时间不在发帖之后",
            Self::TooFar => "没有年份的日期离发帖超过一个月，无法确定是哪一年",
            Self::TwoDeadlines => "首帖里写了两个不同的截止时间",
        }
    }
}

/// The deadline of a day thread, as bansha reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Deadline {
    /// One deadline, unambiguous: the instant and the phrase it comes from.
    At {
        at: DateTime<FixedOffset>,
        phrase: String,
    },
    /// The judge is asked: why, and what was read (phrases and the parser's warnings).
    Ask {
        reason: AskReason,
        phrases: Vec<String>,
        warnings: Vec<DeadlineWarning>,
    },
}

impl Deadline {
    pub fn at(&self) -> Option<DateTime<FixedOffset>> {
        match self {
            Deadline::At { at, .. } => Some(*at),
            Deadline::Ask { .. } => None,
        }
    }
}

/// The instant one candidate means, posted at `posted_at` on a forum at `offset`; `Err` when
/// it cannot be told for sure.
pub fn resolve(
    c: &DeadlineCandidate,
    posted_at: DateTime<FixedOffset>,
    offset: FixedOffset,
    time_only_same_day: bool,
) -> Result<DateTime<FixedOffset>, AskReason> {
    let time = c.time.ok_or(AskReason::NoTime)?;
    let zone = c
        .zone_secs
        .and_then(FixedOffset::east_opt)
        .unwrap_or(offset);
    let post_day = posted_at.with_timezone(&offset).date_naive();
    let at = |date: NaiveDate| -> Option<DateTime<FixedOffset>> {
        let midnight = zone
            .from_local_datetime(&date.and_hms_opt(0, 0, 0)?)
            .single()?;
        Some(midnight + Duration::minutes(i64::from(time.hour * 60 + time.minute)))
    };
    let after = |t: Option<DateTime<FixedOffset>>| match t {
        Some(t) if t > posted_at => Ok(t),
        _ => Err(AskReason::NotAfterPost),
    };
    match c.date {
        DatePart::Explicit(d) => after(at(d)),
        DatePart::Relative(n) => after(
            post_day
                .checked_add_days(chrono::Days::new(n.into()))
                .and_then(at),
        ),
        DatePart::Missing if time_only_same_day => after(at(post_day)),
        DatePart::Missing => Err(AskReason::TimeOnly),
        DatePart::YearLess { month, day } => {
            let year = post_day.year();
            let t = [year, year + 1]
                .into_iter()
                .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day).and_then(at))
                .find(|t| *t > posted_at)
                .ok_or(AskReason::NotAfterPost)?;
            if t - posted_at > Duration::days(YEARLESS_WITHIN_DAYS) {
                return Err(AskReason::TooFar);
            }
            Ok(t)
        }
    }
}

/// The deadline written in a day thread's first post `text`, posted at `posted_at` on a forum
/// at `offset`, under the game's `[discovery]` rules.
pub fn read_deadline(
    text: &str,
    posted_at: DateTime<FixedOffset>,
    offset: FixedOffset,
    rules: &DiscoveryRules,
) -> Deadline {
    let reading = read_deadlines(text);
    let phrases: Vec<String> = reading.candidates.iter().map(|c| c.text.clone()).collect();
    let ask = |reason| Deadline::Ask {
        reason,
        phrases: phrases.clone(),
        warnings: reading.warnings.clone(),
    };
    if reading.candidates.is_empty() {
        return ask(AskReason::NoneFound);
    }
    let resolved: Vec<(&DeadlineCandidate, Result<DateTime<FixedOffset>, AskReason>)> = reading
        .candidates
        .iter()
        .map(|c| (c, resolve(c, posted_at, offset, rules.time_only_same_day)))
        .collect();
    let mut instants: Vec<DateTime<FixedOffset>> =
        resolved.iter().filter_map(|(_, r)| r.ok()).collect();
    instants.sort();
    instants.dedup();
    match instants.as_slice() {
        [] => ask(resolved
            .iter()
            .find_map(|(_, r)| r.err())
            .unwrap_or(AskReason::NoneFound)),
        [one] => {
            // A phrase that could not be placed agrees when it names the same clock time
            // (`截止：12月2日 21:00 … 21:00截止`); any other is a second deadline.
            let local = one.with_timezone(&offset);
            let agrees = resolved.iter().all(|(c, r)| match (r, c.time) {
                (Ok(_), _) => true,
                (Err(AskReason::TimeOnly), Some(t)) => {
                    local.format("%H:%M").to_string() == format!("{:02}:{:02}", t.hour, t.minute)
                }
                _ => false,
            });
            if !agrees {
                return ask(AskReason::TwoDeadlines);
            }
            let phrase = resolved
                .iter()
                .find(|(_, r)| r.is_ok())
                .map(|(c, _)| c.text.clone())
                .unwrap_or_default();
            Deadline::At { at: *one, phrase }
        }
        _ => ask(AskReason::TwoDeadlines),
    }
}

/// A read deadline against the config's `closes_at` for a known day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum DeadlineCheck {
    Same,
    Differs {
        read: DateTime<FixedOffset>,
        configured: DateTime<FixedOffset>,
    },
    /// The post says no single deadline bansha can read: why.
    Unreadable(AskReason),
}

/// Whether the first post (as read now, e.g. after an edit) still says the configured close.
/// `Differs` is what the daemon mails the judge about (and, confirmed, writes with
/// `io::config_edit::set_closes_at`).
pub fn check_deadline(read: &Deadline, configured: DateTime<FixedOffset>) -> DeadlineCheck {
    match read {
        Deadline::At { at, .. } if *at == configured => DeadlineCheck::Same,
        Deadline::At { at, .. } => DeadlineCheck::Differs {
            read: *at,
            configured,
        },
        Deadline::Ask { reason, .. } => DeadlineCheck::Unreadable(*reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn cst() -> FixedOffset {
        FixedOffset::east_opt(8 * 3600).unwrap()
    }

    fn read(text: &str, posted: &str) -> Deadline {
        read_deadline(text, t(posted), cst(), &DiscoveryRules::default())
    }

    #[test]
    fn explicit_dates_are_taken_in_the_forums_offset() {
        let d = read("截止：2026年12月2日 21:00", "2026-12-01T21:00:00+08:00");
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
        // Full-width, and the post's time given in UTC.
        let d = read(
            "截止：２０２６年１２月２日　２１：００",
            "2026-12-01T13:00:00Z",
        );
        assert_eq!(d.at(), Some(t("2026-12-02T13:00:00Z")));
    }

    #[test]
    fn a_yearless_date_takes_the_year_after_the_post() {
        let d = read("投票截止时间：12月2日21:00", "2026-12-01T21:00:00+08:00");
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
        // Across the new year.
        let d = read("截止时间 01-02 21:00", "2026-12-31T21:00:00+08:00");
        assert_eq!(d.at(), Some(t("2027-01-02T21:00:00+08:00")));
        // Already past this year and a year away next year: asked.
        let d = read("截止时间 11-30 21:00", "2026-12-01T21:00:00+08:00");
        assert!(
            matches!(
                d,
                Deadline::Ask {
                    reason: AskReason::TooFar,
                    ..
                }
            ),
            "{d:?}"
        );
    }

    #[test]
    fn a_time_alone_is_asked_unless_the_timetable_says_the_day() {
        let d = read("21:00截止", "2026-12-02T09:00:00+08:00");
        assert!(
            matches!(
                d,
                Deadline::Ask {
                    reason: AskReason::TimeOnly,
                    ..
                }
            ),
            "{d:?}"
        );
        let same_day = DiscoveryRules {
            time_only_same_day: true,
            ..DiscoveryRules::default()
        };
        let d = read_deadline(
            "21:00截止",
            t("2026-12-02T09:00:00+08:00"),
            cst(),
            &same_day,
        );
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
        // Posted after that evening's 21:00: not the same day, asked.
        let d = read_deadline(
            "21:00截止",
            t("2026-12-02T21:30:00+08:00"),
            cst(),
            &same_day,
        );
        assert!(matches!(
            d,
            Deadline::Ask {
                reason: AskReason::NotAfterPost,
                ..
            }
        ));
    }

    #[test]
    fn relative_days_count_from_the_post() {
        let d = read("明晚9点截止", "2026-12-01T21:10:00+08:00");
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
        let d = read("今晚9点截止", "2026-12-02T08:00:00+08:00");
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
    }

    #[test]
    fn a_named_zone_wins_over_the_forums() {
        let d = read_deadline(
            "投票截止时间：2026-11-28 23:00（北京时间）",
            t("2026-11-28T10:00:00Z"),
            FixedOffset::east_opt(0).unwrap(),
            &DiscoveryRules::default(),
        );
        assert_eq!(d.at(), Some(t("2026-11-28T23:00:00+08:00")));
    }

    #[test]
    fn two_different_deadlines_are_asked_the_same_one_twice_is_not() {
        let d = read(
            "截止：12月2日 21:00\n（更正）截止：12月3日 21:00",
            "2026-12-01T21:00:00+08:00",
        );
        assert!(
            matches!(d, Deadline::Ask { reason: AskReason::TwoDeadlines, ref phrases, .. } if phrases.len() == 2)
        );
        let d = read(
            "截止：2026年12月2日 21:00。重复一遍：21:00截止",
            "2026-12-01T21:00:00+08:00",
        );
        assert_eq!(d.at(), Some(t("2026-12-02T21:00:00+08:00")));
        let d = read(
            "截止：2026年12月2日 21:00。重复一遍：20:00截止",
            "2026-12-01T21:00:00+08:00",
        );
        assert!(matches!(
            d,
            Deadline::Ask {
                reason: AskReason::TwoDeadlines,
                ..
            }
        ));
    }

    #[test]
    fn nothing_readable_is_asked() {
        let d = read(
            "第二天白天讨论开始，请大家踊跃发言。",
            "2026-12-01T21:00:00+08:00",
        );
        assert!(matches!(
            d,
            Deadline::Ask {
                reason: AskReason::NoneFound,
                ..
            }
        ));
        let d = read("截止：12月2日", "2026-12-01T21:00:00+08:00");
        assert!(matches!(
            d,
            Deadline::Ask {
                reason: AskReason::NoTime,
                ..
            }
        ));
        let d = read("截止：2026年11月30日 21:00", "2026-12-01T21:00:00+08:00");
        assert!(matches!(
            d,
            Deadline::Ask {
                reason: AskReason::NotAfterPost,
                ..
            }
        ));
    }

    #[test]
    fn the_check_against_the_config() {
        let configured = t("2026-12-02T21:00:00+08:00");
        let same = read("截止：2026年12月2日 21:00", "2026-12-01T21:00:00+08:00");
        assert_eq!(check_deadline(&same, configured), DeadlineCheck::Same);
        let moved = read("截止：2026年12月3日 21:00", "2026-12-01T21:00:00+08:00");
        assert_eq!(
            check_deadline(&moved, configured),
            DeadlineCheck::Differs {
                read: t("2026-12-03T21:00:00+08:00"),
                configured
            }
        );
        let gone = read("（截止时间另行通知）", "2026-12-01T21:00:00+08:00");
        assert_eq!(
            check_deadline(&gone, configured),
            DeadlineCheck::Unreadable(AskReason::NoneFound)
        );
    }
}
