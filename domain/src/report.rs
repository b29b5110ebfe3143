//! What a poll cycle left: its report (logged, and kept for `bansha status`) and each watched
//! day as it computed it (the dashboard draws exactly what the mails say).

use crate::config::{DayConfig, GameConfig};
use crate::rules::Tally;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// One watched day as the last cycle left it: the dashboard shows exactly what the mails say.
#[derive(Debug, Clone)]
pub struct DayView {
    pub game: GameConfig,
    pub day: DayConfig,
    pub tally: Tally,
    /// 潜水 counts so far (when the rules judge 潜水).
    pub lurk: Option<crate::rules::lurk::LurkReport>,
    /// Posts flagged for the judge so far (judge-only).
    pub flags: Vec<crate::rules::flags::Flag>,
}

/// What one cycle did (logged, and kept for `bansha status`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CycleReport {
    pub at: Option<Time>,
    pub requests: u64,
    pub new_posts: usize,
    pub edited_posts: usize,
    pub mails_queued: usize,
    pub mails_sent: usize,
    pub mails_waiting: usize,
    /// Reads of the forum that failed (each is also in `errors`).
    #[serde(default)]
    pub fetch_failures: usize,
    pub errors: Vec<String>,
    /// Seconds added to the machine's clock to go by the forum's (more than a minute apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_offset_secs: Option<i64>,
    /// The store could not write (a full disk): nothing was sent that could not be marked,
    /// and the service stops for systemd to start it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub store_failed: bool,
    /// A changed config was taken at the start of this cycle.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reloaded: bool,
    /// QQ messages the bot took this cycle, and those still queued (`[qq]`, issue 35).
    #[serde(default)]
    pub qq_sent: usize,
    #[serde(default)]
    pub qq_waiting: usize,
}

/// A day whose final waits for the judge's confirmation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToConfirm {
    pub game: String,
    pub day: u32,
    pub round: u32,
    /// The result as the final said it.
    pub note: String,
    /// The questions to ask before confirming (jiaohui's 特赦 / 圣光).
    pub questions: Vec<String>,
}

/// Where one configured day of a game stands (the dashboard's 赛程).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DayStatus {
    pub game: String,
    pub day: u32,
    pub vote_thread: Option<u64>,
    pub closes_at: Time,
    pub stage: DayStage,
    /// The final's result (round 2's when it ran), or round 1's tie while round 2 runs.
    pub result: Option<String>,
    /// For a result that puts someone out: whether the state records it yet.
    pub confirmed: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DayStage {
    /// Not watched yet.
    Upcoming,
    /// Watched, before its close.
    Running,
    /// Round 1 tied: the run-off runs.
    Runoff,
    /// Past its close, the final not sent yet (held, or the next cycle's).
    Closing,
    /// The final is sent.
    Closed,
}

impl DayStage {
    pub fn zh(self) -> &'static str {
        match self {
            DayStage::Upcoming => "未开始",
            DayStage::Running => "进行中",
            DayStage::Runoff => "第二轮进行中",
            DayStage::Closing => "已截止，等最终统计",
            DayStage::Closed => "已结束",
        }
    }
}

/// A mail the SMTP server refused for good (for one recipient, or for all).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Refused {
    /// The mail's key in the store.
    pub key: String,
    pub subject: String,
    /// The address(es) that refused it.
    pub to: String,
    /// The server's answer.
    pub reason: String,
    pub at: Time,
}

/// Something wrong with the running service, as one health value shows it everywhere (status,
/// dashboard). No problem means healthy.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// No poll cycle has completed yet.
    NoCycle,
    /// The last completed cycle is older than the service's cadence allows.
    Stopped { last: Time },
    /// A watched thread has not been readable since then.
    Unreadable { tid: u64, since: Time },
    /// Mails the SMTP server has not taken: how many, the oldest queued when.
    Unsent { count: usize, oldest: Time },
    /// Mails refused for good.
    Refused { count: usize },
    /// The last cycle's errors.
    Errors { errors: Vec<String> },
    /// The machine's clock is this many seconds behind the forum's (negative: ahead); bansha
    /// goes by the forum's.
    ClockOff { secs: i64 },
    /// The QQ channel keeps failing (the mails go on): the line the judge reads.
    QqFailing { line: String },
    /// A changed config was not taken (the running one stays): why, with file, line and key.
    ConfigRefused { error: String },
}

/// What the service's health is judged from.
pub struct HealthInput<'a> {
    /// The last completed cycle: when it ran (the service clock) and its report.
    pub last: Option<(Time, &'a CycleReport)>,
    /// How old the last cycle may be.
    pub stale_after: chrono::Duration,
    /// Watched threads failing, since when.
    pub failing: &'a [(u64, Time)],
    /// When each queued mail was queued.
    pub waiting: &'a [Time],
    pub refused: usize,
    /// Why the last changed config was not taken, while it stands.
    pub config_error: Option<&'a str>,
}

/// The service's problems at `now`, in the order the judge should read them. Mails waiting are
/// a problem once the last cycle failed to send or one has waited ten minutes.
pub fn health(h: &HealthInput, now: Time) -> Vec<Problem> {
    let mut out = Vec::new();
    match h.last {
        None => out.push(Problem::NoCycle),
        Some((t, _)) if now - t > h.stale_after => out.push(Problem::Stopped { last: t }),
        Some(_) => {}
    }
    for (tid, since) in h.failing {
        out.push(Problem::Unreadable {
            tid: *tid,
            since: *since,
        });
    }
    if let Some(oldest) = h.waiting.iter().min().copied() {
        let smtp_failed = h
            .last
            .is_some_and(|(_, r)| r.errors.iter().any(|e| e.starts_with("smtp:")));
        if smtp_failed || now - oldest > chrono::Duration::minutes(10) {
            out.push(Problem::Unsent {
                count: h.waiting.len(),
                oldest,
            });
        }
    }
    if h.refused > 0 {
        out.push(Problem::Refused { count: h.refused });
    }
    if let Some(error) = h.config_error {
        out.push(Problem::ConfigRefused {
            error: error.to_string(),
        });
    }
    if let Some((_, r)) = h.last {
        if let Some(secs) = r.clock_offset_secs {
            out.push(Problem::ClockOff { secs });
        }
        if !r.errors.is_empty() {
            out.push(Problem::Errors {
                errors: r.errors.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Time {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    #[test]
    fn health_is_each_problem_or_none() {
        let report = CycleReport::default();
        let now = at("2026-11-29T20:00:00+08:00");
        let base = HealthInput {
            last: Some((now, &report)),
            stale_after: chrono::Duration::minutes(15),
            failing: &[],
            waiting: &[],
            refused: 0,
            config_error: None,
        };
        assert!(health(&base, now).is_empty());
        let late = at("2026-11-29T20:16:00+08:00");
        assert_eq!(health(&base, late), [Problem::Stopped { last: now }]);
        assert_eq!(
            health(&HealthInput { last: None, ..base }, now),
            [Problem::NoCycle]
        );
        let failing = [(3, at("2026-11-29T19:00:00+08:00"))];
        assert_eq!(
            health(
                &HealthInput {
                    failing: &failing,
                    ..base
                },
                now
            )
            .len(),
            1
        );
        // A mail queued a minute ago is on its way; ten minutes is too long.
        let waiting = [at("2026-11-29T19:59:00+08:00")];
        assert!(health(
            &HealthInput {
                waiting: &waiting,
                ..base
            },
            now
        )
        .is_empty());
        let old = [at("2026-11-29T19:40:00+08:00")];
        assert_eq!(
            health(
                &HealthInput {
                    waiting: &old,
                    ..base
                },
                now
            ),
            [Problem::Unsent {
                count: 1,
                oldest: old[0]
            }]
        );
        let smtp = CycleReport {
            errors: vec!["smtp: 451".into()],
            ..Default::default()
        };
        let problems = health(
            &HealthInput {
                last: Some((now, &smtp)),
                waiting: &waiting,
                ..base
            },
            now,
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
