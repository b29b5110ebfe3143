//! When a day's ballots start: its `opens_at`, else the previous day's close (and for private
//! messages, a bounded fallback). Read by the tally, the private-message ballots and the
//! acceleration count alike.

use crate::domain::config::{DayConfig, GameConfig};
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

/// Where day `d`'s private-message ballots start: its window, else `PM_WINDOW_FALLBACK_HOURS`
/// before its close.
pub fn pm_window_start(config: &GameConfig, d: &DayConfig) -> Time {
    window_start(config, d)
        .unwrap_or(d.closes_at - chrono::Duration::hours(PM_WINDOW_FALLBACK_HOURS))
}
