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
    out
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
