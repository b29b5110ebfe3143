//! What a poll cycle left: its report (logged, and kept for `bansha status`) and each watched
//! day as it computed it (the dashboard draws exactly what the mails say).

use crate::domain::config::{DayConfig, GameConfig};
use crate::domain::rules::Tally;
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
    pub lurk: Option<crate::domain::rules::lurk::LurkReport>,
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
