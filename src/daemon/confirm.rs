//! Confirming a day from what the daemon already holds (issue 30): the final of each round is
//! kept in the record at its close, and the judge confirms it on the dashboard ("确认第 N 天结果")
//! or with `bansha confirm --day N` without page files. The elimination is written into the
//! game's state file stamped at the close of the round it comes from, never at the click, so a
//! confirmation a day late changes no earlier day and one made early cannot cut a player out
//! of his own run-off: round 1 of a day whose run-off is still to close is not confirmable.

use crate::daemon::decide::round_one_id;
use crate::daemon::Daemon;
use crate::domain::config::GameConfig;
use crate::domain::report::{DayStage, DayStatus, ToConfirm};
use crate::domain::rules::confirm::{check_pardons, new_conditions, record_confirmed, PardonIssue};
use crate::domain::rules::state::{conditions, GameState};
use crate::domain::rules::{Outcome, OutcomeKind};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

type Time = DateTime<FixedOffset>;

/// A round's final as sent, kept for the confirmation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Final {
    pub outcome: Outcome,
    /// The round's close: what the confirmation is stamped at.
    pub close: Time,
}

/// Where round `round` of `day` keeps its final (round 2's game id names round 1's record).
pub(crate) fn final_key(g: &GameConfig, day: u32, round: u32) -> String {
    format!("final/{}/{day}/{round}", round_one_id(&g.id))
}

/// Why a day cannot be confirmed now, in Chinese.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// No such game or day.
    Unknown(String),
    /// Not now: no final yet, a run-off to come, already confirmed.
    NotNow(String),
    /// The judge must answer first (a pardon to ask about, an unusable one named).
    Ask(Vec<String>),
}

/// Whether the state already holds day `day`'s vote result (recorded by the dashboard, by
/// `confirm --day`, or offline from pages).
pub(crate) fn recorded(state: &GameState, day: u32) -> bool {
    crate::domain::rules::confirm::day_recorded(state, day)
}

impl Daemon {
    /// The final a day is confirmed from: round 2's when it has run, else round 1's, unless
    /// round 1 went to a round 2 that has not closed.
    pub(crate) fn final_of(&self, g: &GameConfig, day: u32) -> Result<(u32, Final), Refusal> {
        let read = |round| -> Result<Option<Final>, Refusal> {
            self.store
                .get_meta(&final_key(g, day, round))
                .map_err(|e| Refusal::NotNow(e.to_string()))
        };
        if let Some(f) = read(2)? {
            return Ok((2, f));
        }
        match read(1)? {
            None => Err(Refusal::NotNow(format!(
                "第{day}天还没有最终结果（截止后发出最终统计才能确认）"
            ))),
            Some(f) if matches!(f.outcome.kind, OutcomeKind::Runoff | OutcomeKind::Overtime) => {
                Err(Refusal::NotNow(format!(
                    "第{day}天第一轮平票，要进行第二轮（{}）：第一轮不是最终结果，第二轮截止后再确认",
                    f.outcome.players.join("、")
                )))
            }
            Some(f) => Ok((1, f)),
        }
    }

    /// Whether day `day`'s final (round `round`'s) can be confirmed now: counted on the roster
    /// as it stands, and nothing before it in the game's order still open — an earlier day's
    /// result unrecorded or its round 2 running, an earlier night unsettled — that could change
    /// who voted on it or what its final says. Else why not, for the judge.
    fn settled_before(
        &self,
        g: &GameConfig,
        day: u32,
        round: u32,
        state: &GameState,
    ) -> Result<(), Refusal> {
        // Who could vote has changed since the final was made (an earlier day recorded since,
        // a night's death stamped before the close): the next cycle makes it again.
        let at_final: Option<crate::daemon::decide::Alive> = self
            .store
            .get_meta(&format!(
                "played_for/{}{}/{day}",
                g.id,
                if round == 2 {
                    crate::daemon::decide::ROUND_TWO
                } else {
                    ""
                }
            ))
            .map_err(|e| Refusal::NotNow(e.to_string()))?;
        let now_alive = self
            .as_played(g)
            .ok()
            .and_then(|p| p.day(day).map(crate::daemon::decide::Alive::of));
        if let (Some(then), Some(now)) = (&at_final, &now_alive) {
            if let Some(why) = then.changed_to(now) {
                return Err(Refusal::NotNow(format!(
                    "第{day}天：{why}，要重新计票；更正后的最终计票发出后再确认"
                )));
            }
        }
        // An earlier day's result not yet recorded can change who could vote on this one (its
        // final is then made again without the ballots of whom it put out): that day first.
        if let Some((earlier, f)) =
            g.days
                .iter()
                .filter(|e| e.day < day)
                .find_map(|e| match self.final_of(g, e.day) {
                    Ok((_, f))
                        if f.outcome.kind == OutcomeKind::Eliminated && !recorded(state, e.day) =>
                    {
                        Some((e.day, f))
                    }
                    _ => None,
                })
        {
            return Err(Refusal::NotNow(format!(
                "第{earlier}天的结果（{}）还没有确认：请先确认第{earlier}天，它可能改变第{day}天谁能投票",
                f.outcome.note
            )));
        }
        // An earlier day's round 2 still running: its result can change who votes on this one.
        if let Some(e) = g
            .days
            .iter()
            .map(|e| e.day)
            .find(|e| *e < day && self.runoff_pending(g, *e))
        {
            return Err(Refusal::NotNow(format!(
                "第{e}天的第二轮还没有结束：它的结果可能改变第{day}天谁能投票，第{e}天有结果后再确认第{day}天"
            )));
        }
        // Likewise an earlier night not confirmed, open (overdue) or not begun (its day's
        // run-off still running): its deaths and powers, and that day's vote, can change this
        // day's count, and its confirmation would make this final again.
        if let Some((m, begun)) = self.unsettled_night_before(g, day) {
            return Err(Refusal::NotNow(match begun {
                true => format!(
                    "第{m}夜还没有确认：请先确认第{m}夜，它的死亡和能力可能改变第{day}天的结果"
                ),
                false => format!(
                    "第{m}天还没有最终结果（加赛未结束或还没有读到），第{m}夜还没有开始：第{day}天要等第{m}天的结果和第{m}夜"
                ),
            }));
        }
        Ok(())
    }

    /// Whether day `day`'s round 1 went to a round 2 whose final is not made yet.
    fn runoff_pending(&self, g: &GameConfig, day: u32) -> bool {
        let read = |round| -> Option<Final> {
            self.store
                .get_meta(&final_key(g, day, round))
                .ok()
                .flatten()
        };
        read(2).is_none()
            && read(1).is_some_and(|f| {
                matches!(f.outcome.kind, OutcomeKind::Runoff | OutcomeKind::Overtime)
            })
    }

    /// Confirm day `day` of game `game` (the first game when none is named) from the record;
    /// the lines telling the judge what was recorded.
    pub async fn confirm_day(
        &self,
        game: Option<&str>,
        day: u32,
        pardon: &[String],
        no_pardon: bool,
    ) -> Result<Vec<String>, Refusal> {
        // Not while a cycle reads the state file.
        let _guard = self.lock.lock().await;
        let settings = self.settings();
        let g = match game {
            Some(n) => settings.games.iter().find(|g| g.name == n || g.id == n),
            None => settings.games.first(),
        }
        .ok_or_else(|| Refusal::Unknown(format!("没有游戏“{}”", game.unwrap_or(""))))?;
        if g.day(day).is_none() {
            return Err(Refusal::Unknown(format!("配置中没有第 {day} 天")));
        }
        let (round, fin) = self.final_of(g, day)?;
        let mut lines = vec![format!(
            "第{day}天{}结果：{}",
            if round == 2 { "第二轮" } else { "" },
            fin.outcome.note
        )];
        let path = crate::io::state_file::state_path(&g.path, None);
        let mut state = crate::io::state_file::load_state(&path)
            .map_err(|e| Refusal::NotNow(format!("局面文件 {} 读不了：{e:#}", path.display())))?;
        let eliminated = fin.outcome.kind == OutcomeKind::Eliminated;
        if eliminated && recorded(&state, day) {
            return Err(Refusal::NotNow(format!(
                "第{day}天的结果已经确认过（局面里已有第{day}天的确认记录）；要改请先 bansha change undo"
            )));
        }
        self.settled_before(g, day, round, &state)?;
        // A final that puts nobody out is confirmed only as firmly as one that does: what comes
        // before it (the checks above) can still make it put someone out.
        if !eliminated {
            lines.push("没有人因投票出局，局面不变".into());
            return Ok(lines);
        }
        let before = state.snapshot(g);
        let (win_before, warn_before) = conditions(g, &before);
        if let Err(issue) = check_pardons(g, &before, &fin.outcome.players, pardon, no_pardon) {
            return Err(Refusal::Ask(issue.lines()));
        }
        let confirmed =
            crate::domain::rules::state::confirm(g, &before, &fin.outcome.players, pardon);
        lines.extend(record_confirmed(
            g, &before, &mut state, confirmed, day, fin.close,
        ));
        crate::io::state_file::save_state(&path, &state)
            .map_err(|e| Refusal::NotNow(format!("局面文件 {} 写不了：{e:#}", path.display())))?;
        lines.extend(new_conditions(g, &state, (&win_before, &warn_before)));
        crate::io::log::line(&format!("已按记录确认 {} 第 {day} 天", g.name));
        Ok(lines)
    }

    /// The days whose final waits for the judge: a final that puts someone out, not recorded
    /// in the state yet, with the questions to ask first.
    pub fn to_confirm(&self) -> Vec<ToConfirm> {
        let settings = self.settings();
        let mut out = Vec::new();
        for g in &settings.games {
            let path = crate::io::state_file::state_path(&g.path, None);
            let Ok(state) = crate::io::state_file::load_state_shared(&path) else {
                continue;
            };
            let before = state.snapshot(g);
            for d in &g.days {
                let Ok((round, fin)) = self.final_of(g, d.day) else {
                    continue;
                };
                if fin.outcome.kind != OutcomeKind::Eliminated || recorded(&state, d.day) {
                    continue;
                }
                let questions = match check_pardons(g, &before, &fin.outcome.players, &[], false) {
                    Err(PardonIssue::Ask { questions, .. }) => questions,
                    _ => Vec::new(),
                };
                out.push(ToConfirm {
                    game: g.name.clone(),
                    day: d.day,
                    round,
                    note: fin.outcome.note.clone(),
                    questions,
                });
            }
        }
        out
    }

    /// Where each configured day of each game stands at `now` (the dashboard's 赛程).
    pub fn day_statuses(&self, now: Time) -> Vec<DayStatus> {
        let settings = self.settings();
        let mut out = Vec::new();
        for g in &settings.games {
            let state = crate::io::state_file::load_state(&crate::io::state_file::state_path(
                &g.path, None,
            ))
            .ok();
            for d in &g.days {
                let round1: Option<Final> =
                    self.store.get_meta(&final_key(g, d.day, 1)).ok().flatten();
                let (stage, result, confirmed) = match self.final_of(g, d.day) {
                    Ok((_, f)) => {
                        let confirmed = (f.outcome.kind == OutcomeKind::Eliminated)
                            .then(|| state.as_ref().is_some_and(|s| recorded(s, d.day)));
                        (DayStage::Closed, Some(f.outcome.note), confirmed)
                    }
                    Err(_) if round1.is_some() => {
                        (DayStage::Runoff, round1.map(|f| f.outcome.note), None)
                    }
                    Err(_) if d.opens_later(now) => (DayStage::Upcoming, None, None),
                    Err(_) if now < d.closes_at => (DayStage::Running, None, None),
                    Err(_) => (DayStage::Closing, None, None),
                };
                out.push(DayStatus {
                    game: g.name.clone(),
                    day: d.day,
                    vote_thread: d.vote_thread,
                    closes_at: d.closes_at,
                    stage,
                    result,
                    confirmed,
                });
            }
        }
        out
    }
}
