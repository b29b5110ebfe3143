//! m103's acceleration (进程加速, seed 002 L245): the game speeds up when more than half of the
//! living players have asked for it in the progress thread (进程帖). bansha counts the distinct
//! living players whose own text asks (the rules' `acceleration.request` pattern); the judge
//! confirms, and from `accelerated_at` on changes are void and the post quota stops.

use crate::config::{DayConfig, GameConfig};
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
/// Words that, just before a match, turn it round: "不同意加速", "不支持加速", "没申请加速".
const NEGATIONS: [char; 6] = ['不', '没', '别', '未', '勿', '莫'];

/// Whether a post's text asks to accelerate (L245 counts "申请加速"): a match of the request
/// pattern not negated by the three characters before it.
fn asks(re: &regex::Regex, text: &str) -> bool {
    re.find_iter(text).any(|m| {
        let before: Vec<char> = text[..m.start()].chars().rev().take(3).collect();
        !before.iter().any(|c| NEGATIONS.contains(c))
    })
}

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
    let start = crate::rules::window::window_start(config, d);
    let roster = crate::rules::roster::Roster::new(config, &d.dead);
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
            || !asks(&re, &p.text)
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

#[cfg(test)]
mod tests {
    use super::asks;

    #[test]
    fn a_request_is_not_one_when_negated() {
        let re = regex::Regex::new("(申请|同意|支持|要求|提议|赞成)\\s*(进程)?加速").unwrap();
        for yes in [
            "申请加速",
            "同意加速，拖着没意思",
            "赞成进程加速",
            "不想拖了，申请加速",
        ] {
            assert!(asks(&re, yes), "{yes}");
        }
        for no in [
            "不同意加速",
            "我不支持加速",
            "没申请加速",
            "别同意加速",
            "反对加速",
        ] {
            assert!(!asks(&re, no), "{no}");
        }
    }
}
