//! The vote timeline of a day: votes per target over time, rebuilt from a tally's ballots in
//! the order they were cast, with every change marked (valid or not). Pure: the drawing is in
//! `present::chart`.

use super::tally::{BallotKind, Tally, ABSTAIN};
use chrono::{DateTime, FixedOffset};
use serde::Serialize;
use std::collections::BTreeMap;

type Time = DateTime<FixedOffset>;

#[derive(Debug, Clone, Serialize)]
pub struct Timeline {
    pub start: Time,
    pub end: Time,
    /// One per target that ever held a vote, the final leader first.
    pub series: Vec<Series>,
    /// Changes of a standing ballot, including void ones (late, over the limit).
    pub changes: Vec<Mark>,
    /// One per voter who cast a ballot, in the order of their first ballot: what their
    /// standing ballot named from when, and each of their ballots that did not count.
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub voter: String,
    /// (from when, the targets the standing ballot named from then on); a step function.
    pub spans: Vec<(Time, Vec<String>)>,
    /// The voter's ballots that did not count (a change in the lock, over the limit, a
    /// format the rules do not read), in order.
    pub void: Vec<Mark>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub target: String,
    /// (moment, votes from then on), starting with 0 at `start`; a step function.
    pub points: Vec<(Time, f64)>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mark {
    pub at: Time,
    pub voter: String,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub valid: bool,
    pub reason: String,
}

/// The timeline of `tally`, from its opening (or its first ballot) to the moment it describes.
pub fn of(tally: &Tally) -> Timeline {
    let weight: BTreeMap<&str, f64> = tally
        .counts
        .iter()
        .flat_map(|c| c.voters.iter())
        .map(|v| (v.voter.as_str(), v.weight))
        .collect();
    let mut ballots: Vec<_> = tally
        .ballots
        .iter()
        .filter(|b| b.posted_at.is_some())
        .collect();
    ballots.sort_by_key(|b| (b.posted_at, b.pid));
    let first = ballots.first().and_then(|b| b.posted_at);
    let start = tally
        .opens_at
        .into_iter()
        .chain(first)
        .min()
        .unwrap_or(tally.at);
    let end = tally.at.min(tally.closes_at).max(start);

    let mut standing: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut votes: BTreeMap<String, f64> = BTreeMap::new();
    let mut points: BTreeMap<String, Vec<(Time, f64)>> = BTreeMap::new();
    let mut changes = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    for b in ballots {
        let at = b.posted_at.expect("filtered");
        row_of(&mut rows, &b.voter).record(b, at);
        if b.kind == BallotKind::Change {
            changes.push(Mark {
                at,
                voter: b.voter.clone(),
                from: b.replaces.clone(),
                to: b.targets.clone(),
                valid: b.valid,
                reason: b.reason.clone(),
            });
        }
        if !b.valid || b.kind == BallotKind::Repeat || b.targets.is_empty() {
            continue;
        }
        let w = weight.get(b.voter.as_str()).copied().unwrap_or(1.0);
        let old = standing
            .insert(&b.voter, b.targets.clone())
            .unwrap_or_default();
        let mut touched: Vec<String> = Vec::new();
        for t in &old {
            *votes.entry(t.clone()).or_default() -= w;
            touched.push(t.clone());
        }
        for t in &b.targets {
            *votes.entry(t.clone()).or_default() += w;
            touched.push(t.clone());
        }
        touched.sort();
        touched.dedup();
        for t in touched.into_iter().filter(|t| t != ABSTAIN) {
            let v = votes[&t].max(0.0);
            points
                .entry(t)
                .or_insert_with(|| vec![(start, 0.0)])
                .push((at, v));
        }
    }
    let mut series: Vec<Series> = points
        .into_iter()
        .map(|(target, points)| Series { target, points })
        .collect();
    // The final order of the tally first, then anyone who held votes only for a while.
    let rank = |t: &str| {
        tally
            .counts
            .iter()
            .position(|c| c.target == t)
            .unwrap_or(usize::MAX)
    };
    series.sort_by(|a, b| {
        rank(&a.target)
            .cmp(&rank(&b.target))
            .then(a.target.cmp(&b.target))
    });
    rows.retain(|r| !r.spans.is_empty() || !r.void.is_empty());
    Timeline {
        start,
        end,
        series,
        changes,
        rows,
    }
}

/// The row of `voter`, added at the end when new.
fn row_of<'a>(rows: &'a mut Vec<Row>, voter: &str) -> &'a mut Row {
    let i = match rows.iter().position(|r| r.voter == voter) {
        Some(i) => i,
        None => {
            rows.push(Row {
                voter: voter.to_string(),
                spans: Vec::new(),
                void: Vec::new(),
            });
            rows.len() - 1
        }
    };
    &mut rows[i]
}

impl Row {
    /// One ballot of the row's voter, in posting order.
    fn record(&mut self, b: &super::tally::Ballot, at: Time) {
        if !b.valid {
            self.void.push(Mark {
                at,
                voter: b.voter.clone(),
                from: b.replaces.clone(),
                to: b.targets.clone(),
                valid: false,
                reason: b.reason.clone(),
            });
        } else if b.kind != BallotKind::Repeat && !b.targets.is_empty() {
            self.spans.push((at, b.targets.clone()));
        }
    }
}
