//! Ballots that do not come as vote-thread posts: private messages to the judge (qipan) become
//! posts for the same ballot rules; readings of the forum's poll (bansha42) become a log of when
//! each voter was first seen, which is all the forum lets anyone know of a poll vote's time.

use crate::config::{DayConfig, GameConfig};
use crate::rules::tally::Cast;
use crate::rules::window::{pm_window_start, PM_LOOKBACK_DAYS};
use bansha_parsers::pm::PrivateMessage;
use bansha_parsers::poll::Poll;
use bansha_parsers::Post;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// The messages players sent to the judge for day `d`, as posts (pid = pmid, floor "短信 N"),
/// so the ballot formats and verdicts of the vote thread apply to them unchanged. The judge's
/// own messages and messages before the day's window are left out, but those of the week before
/// it (`PM_LOOKBACK_DAYS`), shown as too early. Not shown again: a message sent by an earlier
/// day's last close (that day's, counted or shown there), nor one of the night before the day
/// that reads as a night action, not a vote, where the rule post has night actions sent by
/// private message (qipan 003 L106, L112: "向东", "杀人：冷雪"; the night takes it).
pub fn pm_posts<'a>(
    config: &GameConfig,
    d: &DayConfig,
    messages: impl IntoIterator<Item = &'a PrivateMessage>,
) -> Vec<Post> {
    let window = pm_window_start(config, d);
    let earlier = config
        .days
        .iter()
        .filter(|p| p.day < d.day)
        .map(DayConfig::last_close)
        .max();
    let lookback = window - chrono::Duration::days(PM_LOOKBACK_DAYS);
    let start = earlier.map_or(lookback, |e| e.max(lookback)).min(window);
    // A vote says 投 or 票 ("投李逵", "票：李逵", "弃票", "投票对象："): such a message stays a
    // (too early) ballot even where it would also read as an action.
    let night_action = |m: &PrivateMessage| {
        config.rules.night.actions_by_pm
            && m.sent_at.is_some_and(|t| t <= window)
            && !m.text.contains(['投', '票'])
            && !crate::night::read::actions_in(config, &m.from, &m.text, m.sent_at, "").is_empty()
    };
    messages
        .into_iter()
        .filter(|m| !config.roster.judges.iter().any(|j| j == &m.from))
        .filter(|m| m.sent_at.is_none_or(|t| t > start))
        .filter(|m| !night_action(m))
        .map(|m| Post {
            author_uid: m.from_uid,
            posted_at_precision: m.precision,
            ..Post::text_only(
                m.pmid,
                0,
                format!("短信 {}", m.pmid),
                m.from.clone(),
                m.sent_at,
                m.text.clone(),
            )
        })
        .collect()
}

/// What bansha has seen of a poll: each reading's time, and each voter's options as first seen.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PollLog {
    pub readings: Vec<Time>,
    pub casts: Vec<Cast>,
    /// Where the last reading's counts and voter lists disagree (`poll_gaps`).
    #[serde(default)]
    pub gaps: Vec<PollGap>,
}

pub use crate::rules::tally::PollGap;

/// Every disagreement between a poll's counts and its voter lists: an option with votes and no
/// list, a list naming fewer or more voters than its count (read short, a vote between the count
/// and the list, a voter known by uid only), and, where every option agrees, the poll's count of
/// voters against the distinct names.
pub fn poll_gaps(poll: &Poll) -> Vec<PollGap> {
    let named = |o: &bansha_parsers::poll::PollOption| {
        o.voters
            .as_ref()
            .map(|v| v.iter().filter(|v| !v.name.trim().is_empty()).count() as u32)
    };
    let mut gaps: Vec<PollGap> = poll
        .options
        .iter()
        .filter(|o| named(o) != Some(o.votes) && !(o.votes == 0 && o.voters.is_none()))
        .map(|o| PollGap {
            option: Some(o.text.clone()),
            option_id: o.id,
            votes: o.votes,
            named: named(o),
        })
        .collect();
    if gaps.is_empty() {
        let names: std::collections::BTreeSet<&str> = poll
            .options
            .iter()
            .flat_map(|o| o.voters.iter().flatten())
            .map(|v| v.name.trim())
            .filter(|n| !n.is_empty())
            .collect();
        if let Some(total) = poll.voters_total.filter(|t| *t != names.len() as u32) {
            gaps.push(PollGap {
                option: None,
                option_id: None,
                votes: total,
                named: Some(names.len() as u32),
            });
        }
    }
    gaps
}

impl PollLog {
    /// Record a reading of the poll at `at` (voters must be attached to the options). A voter
    /// seen for the first time, or with other options than before (the judge reset the poll),
    /// is a new cast between the previous reading and this one; where the reading's counts and
    /// lists disagree is kept as `gaps`. Returns the new casts.
    pub fn observe(&mut self, poll: &Poll, at: Time) -> Vec<Cast> {
        let since = self.readings.last().copied();
        let mut now: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for o in &poll.options {
            // A voter known by uid only has no name to judge: `poll_gaps` counts the vote.
            for v in o
                .voters
                .iter()
                .flatten()
                .filter(|v| !v.name.trim().is_empty())
            {
                now.entry(v.name.clone()).or_default().push(o.text.clone());
            }
        }
        let mut new = Vec::new();
        for (voter, mut targets) in now {
            targets.sort();
            let last = self.casts.iter().rev().find(|c| c.voter == voter);
            if last.is_some_and(|c| {
                let mut t = c.targets.clone();
                t.sort();
                t == targets
            }) {
                continue;
            }
            new.push(Cast {
                voter,
                targets,
                at,
                since,
            });
        }
        self.readings.push(at);
        self.casts.extend(new.iter().cloned());
        self.gaps = poll_gaps(poll);
        new
    }
}
