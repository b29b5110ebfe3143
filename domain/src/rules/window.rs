//! When a day's ballots start: its `opens_at`, else the previous day's close (and for private
//! messages, a bounded fallback). Read by the tally, the private-message ballots and the
//! acceleration count alike.

use crate::config::{DayConfig, GameConfig};
use chrono::{DateTime, FixedOffset};

type Time = DateTime<FixedOffset>;

/// When a day's private-message ballots (and acceleration requests) start: its `opens_at`, else
/// the previous day's close.
pub fn window_start(config: &GameConfig, d: &DayConfig) -> Option<Time> {
    d.opens_at.or_else(|| {
        config
            .days
            .iter()
            .filter(|p| p.day < d.day)
            .map(|p| p.closes_at)
            .max()
    })
}

/// How far back a day's private-message ballots reach when it has no `opens_at` and no day
/// before it: two days before its close (a first day may run two natural days), never the
/// whole inbox. Players' messages in the week before that are still shown to the judge, as too
/// early (`PM_LOOKBACK_DAYS`).
pub const PM_WINDOW_FALLBACK_HOURS: i64 = 48;

/// How far before a day's window players' messages are still read, to be shown as too early.
pub const PM_LOOKBACK_DAYS: i64 = 7;

/// Where day `d`'s private-message ballots start: its `opens_at`; else, where the rules give
/// the night a deadline, when the night after the day before ends (qipan 003 L96 "9：00—21：00
/// 白天", L116 "22：00—9：00 夜晚": a ballot sent in the night is early, and the judge sees it
/// so); else the day before's close; else `PM_WINDOW_FALLBACK_HOURS` before its close. Private
/// messages have no thread to tell their day by: only time does.
pub fn pm_window_start(config: &GameConfig, d: &DayConfig) -> Time {
    let night = config.rules.night.deadline_after_close_minutes;
    let after_night = night.filter(|_| d.opens_at.is_none()).and_then(|m| {
        config
            .days
            .iter()
            .filter(|p| p.day < d.day)
            .map(DayConfig::last_close)
            .max()
            .map(|c| c + chrono::Duration::minutes(m as i64))
            .filter(|t| *t < d.closes_at)
    });
    after_night
        .or_else(|| window_start(config, d))
        .unwrap_or(d.closes_at - chrono::Duration::hours(PM_WINDOW_FALLBACK_HOURS))
}

/// Days of `g` whose close cannot be one because it is not after the day's opening (the
/// previous day's close where `opens_at` is not set): configuration errors, each in Chinese.
/// The daemon holds such a day and decides nothing at it (`misplaced_close`, which also knows
/// the vote thread's first post).
pub fn close_errors(g: &GameConfig) -> Vec<String> {
    g.days
        .iter()
        .filter_map(|d| misplaced_close(g, d, None))
        .map(|why| format!("{why}（守护进程不会为这一天出任何结果，直到改正）"))
        .collect()
}

/// Why day `d`'s close cannot be the close of its ballots, in Chinese (None: it can): it falls
/// at or before the day opens (its `opens_at`, else the previous day's close), or before the
/// vote thread's first post (`first_post`, when the record has it) — the thread did not exist
/// yet. A configuration error (a typo of the date): nothing is decided at such a close.
pub fn misplaced_close(
    config: &GameConfig,
    d: &DayConfig,
    first_post: Option<Time>,
) -> Option<String> {
    let at = |t: Time| t.format("%Y-%m-%d %H:%M").to_string();
    if let Some(open) = window_start(config, d).filter(|o| *o >= d.closes_at) {
        let from = match d.opens_at {
            Some(_) => "它的 opens_at".to_string(),
            None => match config
                .days
                .iter()
                .filter(|p| p.day < d.day && p.closes_at == open)
                .map(|p| p.day)
                .max()
            {
                Some(p) => format!("第 {p} 天的截止时间"),
                None => "开始时间".to_string(),
            },
        };
        return Some(format!(
            "第 {} 天的截止时间 {} 不晚于这一天的开始 {}（{from}）：是不是写错了日期？",
            d.day,
            at(d.closes_at),
            at(open)
        ));
    }
    let first = first_post.filter(|f| *f > d.closes_at)?;
    Some(format!(
        "第 {} 天的截止时间 {} 早于投票帖（tid {}）的第一帖（{}）：那时投票帖还不存在，是不是写错了日期？",
        d.day,
        at(d.closes_at),
        d.vote_thread.unwrap_or_default(),
        at(first)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(days: &str) -> GameConfig {
        crate::config::parse_str(
            &format!(
                "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\"]\n{days}"
            ),
            std::path::Path::new("t.toml"),
        )
        .unwrap()
    }

    fn t(s: &str) -> Time {
        crate::time::parse_local_time(s, FixedOffset::east_opt(8 * 3600).unwrap()).unwrap()
    }

    /// Issue 29 item 6: a close before the day opens (the previous day's close) or before the
    /// vote thread's first post is misplaced; one after both is not.
    #[test]
    fn a_close_before_the_opening_or_the_first_post_is_misplaced() {
        let g = game(
            "[[days]]\nday = 2\nvote_thread = 3\ncloses_at = \"2026-11-29 21:00\"\n\
             [[days]]\nday = 3\nvote_thread = 5\ncloses_at = \"2026-10-30 21:00\"\n",
        );
        let (d2, d3) = (g.day(2).unwrap(), g.day(3).unwrap());
        let why = misplaced_close(&g, d3, None).unwrap();
        assert!(
            why.contains("第 3 天的截止时间 2026-10-30 21:00 不晚于这一天的开始 2026-11-29 21:00（第 2 天的截止时间）"),
            "{why}"
        );
        assert_eq!(misplaced_close(&g, d2, None), None);
        assert_eq!(misplaced_close(&g, d2, Some(t("2026-11-27 21:03"))), None);
        let why = misplaced_close(&g, d2, Some(t("2026-11-29 21:00:01"))).unwrap();
        assert!(
            why.contains("早于投票帖（tid 3）的第一帖（2026-11-29 21:00）"),
            "{why}"
        );
    }
}
