//! Confirming a day's vote: what the judge is asked first (the powers that could save those
//! voted out), what is written into the game state (stamped at the close of the round the
//! result comes from, never at the time of the click), and the conditions that hold after.
//! Pure: the offline `bansha confirm` and the daemon's confirmation (dashboard, `confirm --day`
//! without pages) both call these, and print or show the lines they return.

use crate::config::{GameConfig, Pardon};
use crate::rules::state::{conditions, Change, Condition, Confirmed, GameState, Snapshot};

/// Why a confirmation cannot go ahead yet, in Chinese.
#[derive(Debug, Clone, PartialEq)]
pub enum PardonIssue {
    /// A power named that cannot be used on this result.
    Unusable(String),
    /// Powers that could save those voted out, not asked about yet: one question each.
    Ask {
        questions: Vec<String>,
        first: String,
    },
}

impl PardonIssue {
    /// The lines the judge reads.
    pub fn lines(&self) -> Vec<String> {
        match self {
            PardonIssue::Unusable(m) => vec![format!("错误：{m}")],
            PardonIssue::Ask { questions, .. } => {
                let mut out = vec!["宣布结果之前，先征求意见：".to_string()];
                out.extend(questions.iter().map(|q| format!("  {q}")));
                out
            }
        }
    }
}

/// The powers that could save `players`, each with whom it would save.
pub fn pardons_open<'a>(
    game: &'a GameConfig,
    before: &Snapshot,
    players: &[String],
) -> Vec<(String, &'a Pardon)> {
    players
        .iter()
        .flat_map(|p| {
            crate::rules::state::pardons_open(game, before, p)
                .into_iter()
                .map(move |x| (p.clone(), x))
        })
        .collect()
}

/// Before recording a vote's eliminations: the powers that could save those voted out, which
/// the judge must have been asked about (jiaohui 001 L114 "计算高票 -> 征求黑暗领主和吟游诗人意见…->
/// 宣布被投杀人是否死亡"): until the judge says which were used (`pardon`) or that none was
/// (`no_pardon`), nothing is recorded.
pub fn check_pardons(
    game: &GameConfig,
    before: &Snapshot,
    players: &[String],
    pardon: &[String],
    no_pardon: bool,
) -> Result<(), PardonIssue> {
    let open = pardons_open(game, before, players);
    if let Some(bad) = pardon
        .iter()
        .find(|u| !open.iter().any(|(_, x)| &&x.name == u))
    {
        return Err(PardonIssue::Unusable(format!(
            "这次的结果不能用“{bad}”（已用过、持有者已出局，或不能救这名玩家）{}",
            if open.is_empty() {
                String::new()
            } else {
                format!(
                    "；可用的：{}",
                    open.iter()
                        .map(|(_, x)| x.name.clone())
                        .collect::<Vec<_>>()
                        .join("、")
                )
            }
        )));
    }
    if !open.is_empty() && pardon.is_empty() && !no_pardon {
        return Err(PardonIssue::Ask {
            questions: open
                .iter()
                .map(|(p, x)| format!("{} 是否对 {p} 使用“{}”？", x.by, x.name))
                .collect(),
            first: open[0].1.name.clone(),
        });
    }
    Ok(())
}

/// Write what confirming a vote does into `state` at `close` (the close of the round it comes
/// from: `apply_to_days` then counts the player out for every day closing after it, and in
/// none before); the lines telling the judge what was recorded.
pub fn record_confirmed(
    game: &GameConfig,
    before: &Snapshot,
    state: &mut GameState,
    confirmed: Vec<Confirmed>,
    day: u32,
    close: chrono::DateTime<chrono::FixedOffset>,
) -> Vec<String> {
    let at = close.to_rfc3339();
    let mut out = Vec::new();
    let first = state.events.iter().map(|e| e.id).max().unwrap_or(0) + 1;
    for c in confirmed {
        match c {
            Confirmed::Eliminated(p) => {
                state.push(
                    Change::Eliminate {
                        player: p.clone(),
                        cause: "投票出局".into(),
                        day: Some(day),
                    },
                    at.clone(),
                );
                out.push(format!("{p} 投票出局，已记录"));
                let of = state.events.last().map_or(0, |e| e.id);
                for (f, cause) in crate::rules::state::followers(game, before, &p) {
                    out.push(format!("{f} 随之出局（{cause}）"));
                    state.push_following(
                        Change::Eliminate {
                            player: f,
                            cause,
                            day: Some(day),
                        },
                        at.clone(),
                        of,
                    );
                }
            }
            Confirmed::Pardoned {
                player,
                pardon,
                used,
                kept,
            } => {
                out.push(format!("【{pardon}】{player} 被救回，不出局"));
                if let Some(k) = kept {
                    out.push(format!(
                        "同一轮使用时“{pardon}”优先生效，{player} 的保护继续保留（不记录“{k}”）"
                    ));
                }
                state.push(
                    Change::Fact {
                        key: used,
                        value: 1.0,
                    },
                    at.clone(),
                );
            }
            Confirmed::Protected {
                player,
                message,
                used,
            } => {
                out.push(format!("【保护】{player}：{message}"));
                if let Some(f) = used {
                    state.push(Change::Fact { key: f, value: 1.0 }, at.clone());
                }
            }
        }
    }
    // The day is confirmed whatever it recorded (a pardon or a protection puts no one out):
    // a fact says so, undone with the confirmation's first change.
    let marker = Change::Fact {
        key: day_confirmed_key(day),
        value: 1.0,
    };
    match state
        .events
        .iter()
        .find(|e| e.id >= first && e.follows.is_none())
    {
        Some(e) => {
            let of = e.id;
            state.push_following(marker, at, of);
        }
        None => {
            state.push(marker, at);
        }
    }
    out
}

/// The fact confirming day `day` writes.
pub fn day_confirmed_key(day: u32) -> String {
    format!("day_confirmed:{day}")
}

/// Whether day `day`'s result is recorded in `state`: its vote-out, or the fact a confirmation
/// writes (a day whose vote was answered by a pardon puts no one out).
pub fn day_recorded(state: &GameState, day: u32) -> bool {
    let key = day_confirmed_key(day);
    state
        .events
        .iter()
        .filter(|e| !e.undone)
        .any(|e| match &e.change {
            Change::Eliminate {
                day: Some(d),
                cause,
                ..
            } => *d == day && cause == "投票出局",
            Change::Fact { key: k, .. } => *k == key,
            _ => false,
        })
}

/// The win conditions and reminders that hold in `state` and did not before the change.
pub fn new_conditions(
    game: &GameConfig,
    state: &GameState,
    (win_before, warn_before): (&[Condition], &[Condition]),
) -> Vec<String> {
    let after = state.snapshot(game);
    let (win, warn) = conditions(game, &after);
    let new = |now: &[Condition], before: &[Condition]| -> Vec<String> {
        now.iter()
            .filter(|c| c.holds && !before.iter().any(|b| b.name == c.name && b.holds))
            .map(|c| c.name.clone())
            .collect()
    };
    let mut out: Vec<String> = new(&win, win_before)
        .into_iter()
        .map(|n| format!("【胜负条件成立】{n}"))
        .collect();
    out.extend(
        new(&warn, warn_before)
            .into_iter()
            .map(|n| format!("【提醒】{n}")),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A confirmation is one change for `undo`: the day's fact goes with the vote-out it came
    /// with; a pardon's confirmation (no one out) is recorded all the same.
    #[test]
    fn a_days_confirmation_is_recorded_and_undone_as_one() {
        let game = crate::config::parse_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\", \"丙\"]\n\
             [[days]]\nday = 2\nvote_thread = 2\ncloses_at = \"2026-12-02 21:00:00\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let close = chrono::DateTime::parse_from_rfc3339("2026-12-02T21:00:00+08:00").unwrap();
        let mut state = GameState::default();
        let before = state.snapshot(&game);
        record_confirmed(
            &game,
            &before,
            &mut state,
            vec![Confirmed::Eliminated("甲".into())],
            2,
            close,
        );
        assert!(day_recorded(&state, 2));
        assert!(!day_recorded(&state, 3));
        state.undo();
        assert!(!day_recorded(&state, 2), "{:?}", state.events);
        record_confirmed(&game, &before, &mut state, Vec::new(), 3, close);
        assert!(
            day_recorded(&state, 3),
            "nothing recorded but the confirmation"
        );
    }
}
