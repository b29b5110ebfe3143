//! m103's acceleration (进程加速, seed 002 L245): the game speeds up when more than half of the
//! living players have asked for it in the progress thread (进程帖). bansha counts the distinct
//! living players whose own text asks (the rules' `acceleration.request` pattern); the judge
//! confirms, and from `accelerated_at` on changes are void and the post quota stops.

use crate::domain::config::{DayConfig, GameConfig};
use bansha_parsers::Post;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

type Time = DateTime<FixedOffset>;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Request {
    pub player: String,
    pub pid: u64,
    pub floor: String,
    pub at: Option<Time>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acceleration {
    /// Each asking player's first request this day, in time order.
    pub requests: Vec<Request>,
    pub living: usize,
    /// Requests needed: more than half of the living.
    pub needed: usize,
    /// The request that made it more than half.
    pub reached_at: Option<Time>,
}

impl Acceleration {
    pub fn reached(&self) -> bool {
        self.requests.len() >= self.needed
    }
}

/// The day's acceleration requests up to `now`; `None` when the rules have no acceleration.
pub fn count(
    config: &GameConfig,
    d: &DayConfig,
    posts: &[Post],
    now: Time,
) -> Option<Acceleration> {
    let pattern = &config.rules.acceleration.request;
    if pattern.is_empty() {
        return None;
    }
    let re = regex::Regex::new(pattern).ok()?;
    let start = crate::domain::rules::channels::window_start(config, d);
    let roster = crate::domain::rules::roster::Roster::new(config, &d.dead);
    let living = config
        .roster
        .players
        .iter()
        .filter(|p| roster.is_alive(p))
        .count();
    let needed = living / 2 + 1;
    let mut sorted: Vec<&Post> = posts
        .iter()
        .filter(|p| {
            p.posted_at
                .is_some_and(|t| t <= now && start.is_none_or(|s| t > s))
        })
        .collect();
    sorted.sort_by_key(|p| (p.posted_at, p.pid));
    let mut requests: Vec<Request> = Vec::new();
    let mut reached_at = None;
    for p in sorted {
        let Some(player) = roster.player_named(&p.author) else {
            continue;
        };
        if !roster.is_alive(player)
            || p.blocked
            || !re.is_match(&p.text)
            || requests.iter().any(|r| &r.player == player)
        {
            continue;
        }
        requests.push(Request {
            player: player.clone(),
            pid: p.pid,
            floor: p.floor.clone(),
            at: p.posted_at,
        });
        if requests.len() == needed {
            reached_at = p.posted_at;
        }
    }
    Some(Acceleration {
        requests,
        living,
        needed,
        reached_at,
    })
}
