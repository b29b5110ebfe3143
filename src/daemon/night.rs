//! The night in the daemon (issues 31 and 34). A game whose ruleset names a night resolver
//! has a night after each day's last close: night N follows day N, its deadline is
//! `night.deadline_after_close_minutes` after the close. While it is open the daemon gathers
//! the night's actions — private messages to the judge read in the players' own words
//! (`domain::night::read`), and the judge's own entries on the dashboard — and mails the judge
//! one digest of what arrived since the last one (a message that reads as nothing is listed,
//! never dropped), a reminder of the living roles that have sent nothing half an hour before the
//! deadline, and at the deadline the resolution drafted by the rule post's resolver. Nothing
//! is written to the game state until the judge confirms the draft: then the resolution's
//! changes are recorded at the night's deadline (`Resolution::changes`), as `bansha change`
//! records them, so `undo`, the win checks and the next day's tally (curse, blessing, half
//! votes, missed duties, through `night::apply_to_days`) work unchanged.

use crate::daemon::Daemon;
use crate::domain::config::GameConfig;
use crate::domain::night::{Action, NightRecord, Resolution};
use crate::domain::report::CycleReport;
use crate::domain::rules::state::{Change, GameState};
use chrono::{DateTime, Duration, FixedOffset};

type Time = DateTime<FixedOffset>;

/// A night not yet confirmed, as the dashboard shows it.
#[derive(Debug, Clone)]
pub struct OpenNight {
    pub game: GameConfig,
    pub night: u32,
    pub opens: Time,
    pub deadline: Option<Time>,
    pub record: NightRecord,
    /// The next day's last close, when it has passed with the night unconfirmed: that day's
    /// final was counted without the night, and confirming it makes that final again.
    pub overdue: Option<Time>,
}

/// Who owed an action as last worked out per (game id, night), with everything it was worked
/// out from (`Daemon::owing`): asked half a dozen times a cycle (the reminders, the inbox's and
/// the kill thread's read, the settling time) and at every click of the judge's.
pub(crate) type Owed = Recent<OwedFrom, Vec<(String, Option<Time>)>>;

/// The inputs of `owing_now`: the game as configured and as played, the state file's bytes,
/// the night's opening, deadline and actions.
pub(crate) struct OwedFrom {
    game: GameConfig,
    played: std::sync::Arc<GameConfig>,
    bytes: Option<crate::io::state_file::Bytes>,
    opens: Time,
    deadline: Option<Time>,
    actions: Vec<crate::domain::night::Action>,
}

/// What a night was last resolved from, and the result, by (game id, night).
pub(crate) type Resolved = Recent<ResolvedFrom, Result<Resolution, String>>;

/// Answers worked out per (game id, night), each with what it was worked out from: the last
/// few a night, since a night is asked of in more than one form (the record as stored and as
/// the inbox read since adds to it: a confirmation asks of both, and the cycle of the second).
pub(crate) struct Recent<F, V> {
    by_night: std::collections::BTreeMap<(String, u32), Vec<(F, V)>>,
}

impl<F, V> Default for Recent<F, V> {
    fn default() -> Self {
        Recent {
            by_night: Default::default(),
        }
    }
}

impl<F, V: Clone> Recent<F, V> {
    /// Forms kept a night.
    const FORMS: usize = 4;
    /// Nights kept (at most 16 a game); a daemon that ran many games starts over.
    const NIGHTS: usize = 64;

    fn get(&self, slot: &(String, u32), same: impl Fn(&F) -> bool) -> Option<V> {
        let forms = self.by_night.get(slot)?;
        forms.iter().find(|(f, _)| same(f)).map(|(_, v)| v.clone())
    }

    fn put(&mut self, slot: (String, u32), from: F, value: V) {
        if self.by_night.len() >= Self::NIGHTS && !self.by_night.contains_key(&slot) {
            self.by_night.clear();
        }
        let forms = self.by_night.entry(slot).or_default();
        if forms.len() >= Self::FORMS {
            forms.remove(0);
        }
        forms.push((from, value));
    }
}

/// The inputs of `resolve_night`: the state file's bytes, the night's deadline and actions,
/// and the game as played.
pub(crate) struct ResolvedFrom {
    bytes: Option<crate::io::state_file::Bytes>,
    deadline: Option<Time>,
    actions: Vec<crate::domain::night::Action>,
    played: std::sync::Arc<GameConfig>,
}

fn key(g: &GameConfig, night: u32) -> String {
    format!("night/{}/{night}", g.id)
}

/// The fact a confirmation writes into the state with the night's changes, in the same save:
/// the state file, not the store, is what says a night was confirmed, so a crash that loses the
/// store's last writes cannot let the night be confirmed (and its deaths written) twice.
fn confirmed_key(night: u32) -> String {
    format!("night_confirmed:{night}")
}

fn marked(state: &GameState, night: u32) -> bool {
    let k = confirmed_key(night);
    state
        .events
        .iter()
        .any(|e| !e.undone && matches!(&e.change, Change::Fact { key, .. } if *key == k))
}

impl Daemon {
    /// The nights open at `now`: after a day's final, not confirmed. One still open at the next
    /// day's last close is `overdue`: it stays until the judge confirms it (that day's final,
    /// counted without it, is then made again).
    pub fn open_nights(&self, now: Time) -> Vec<OpenNight> {
        self.nights_open(now, |_| true, None)
    }

    /// The open nights of the games `game` picks, only night `only` where given (a click on
    /// one night opens that night alone).
    fn nights_open(
        &self,
        now: Time,
        game: impl Fn(&GameConfig) -> bool,
        only: Option<u32>,
    ) -> Vec<OpenNight> {
        let settings = self.settings();
        let mut out = Vec::new();
        let wanted = |night: u32| only.is_none_or(|o| o == night);
        for g in settings
            .games
            .iter()
            // A night is resolved from the roles: a game without `[roster.roles]` has its
            // nights resolved by the judge alone.
            .filter(|g| g.rules.night.resolver.is_some() && !g.roster.roles.is_empty())
            .filter(|g| game(g))
        {
            let state = crate::io::state_file::load_state_shared(
                &crate::io::state_file::state_path(&g.path, None),
            )
            .unwrap_or_default();
            if wanted(0) {
                if let Some(n) = self.first_night(g, now).filter(|_| !marked(&state, 0)) {
                    out.push(n);
                }
            }
            for d in g.days.iter().filter(|d| wanted(d.day)) {
                // The day's final (round 2's when it ran); none while a run-off is to come.
                let Some((_, fin)) = self.final_of(g, d.day).ok().filter(|(_, f)| f.close <= now)
                else {
                    continue;
                };
                // Past the next day's close it stays open until the judge confirms it: its
                // deaths and powers were never written, and nothing else would write them.
                let overdue = g
                    .day(d.day + 1)
                    .map(|next| next.last_close())
                    .filter(|t| *t <= now);
                if marked(&state, d.day) {
                    continue;
                }
                let record: NightRecord = self
                    .store
                    .get_meta(&key(g, d.day))
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                if record.confirmed.is_some() {
                    continue;
                }
                let deadline = g
                    .rules
                    .night
                    .deadline_after_close_minutes
                    .map(|m| fin.close + Duration::minutes(i64::from(m)));
                out.push(OpenNight {
                    game: g.clone(),
                    night: d.day,
                    opens: fin.close,
                    deadline,
                    record,
                    overdue,
                });
            }
        }
        out
    }

    /// Night 0, where the rule post starts the game with a night (`night.first_night`, m103
    /// 002 L223 "直接入夜"): open until confirmed (overdue after day 1's close); due when day 1 opens
    /// (its settlement comes before "开始第一天讨论日", L230), no deadline when the config gives
    /// day 1 no opening. Actions are taken from a day before day 1 opens (or two before its
    /// close).
    fn first_night(&self, g: &GameConfig, now: Time) -> Option<OpenNight> {
        if !g.rules.night.first_night {
            return None;
        }
        let day1 = g.day(1)?;
        let overdue = Some(day1.last_close()).filter(|t| *t <= now);
        let record: NightRecord = self
            .store
            .get_meta(&key(g, 0))
            .ok()
            .flatten()
            .unwrap_or_default();
        if record.confirmed.is_some() {
            return None;
        }
        let opens = match day1.opens_at {
            Some(o) => o - Duration::days(1),
            None => day1.closes_at - Duration::days(2),
        };
        Some(OpenNight {
            game: g.clone(),
            night: 0,
            opens,
            deadline: day1.opens_at,
            record,
            overdue,
        })
    }

    /// Gather, digest, remind and draft each open night (see the module).
    pub(crate) async fn watch_nights(&self, now: Time, report: &mut CycleReport) {
        for n in self.open_nights(now) {
            if let Err(e) = self.watch_night(n, now, report).await {
                report.errors.push(format!("night: {e:#}"));
            }
        }
    }

    async fn watch_night(
        &self,
        mut n: OpenNight,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let g = n.game.clone();
        // An overdue night reads nothing more once its inbox was read past its deadline (what
        // came after is late; the judge enters what he still wants counted).
        let reading = n.overdue.is_none() || self.inbox_unread(&n, now).is_some();
        if reading && g.rules.night.actions_by_pm && self.settings().login.is_some() {
            if let Some(d) = g.day(n.night) {
                self.read_pms(&g, d, now, report).await?;
            }
            self.night_messages(&g, &mut n, now)?;
        }
        // Actions sent by QQ (`[roster.qq]`), kept in the record as they came.
        let until = n.deadline.unwrap_or(now).max(now);
        for a in crate::daemon::qq::night_actions(self, &g.id, n.opens, until + Duration::hours(1))
        {
            if !n
                .record
                .actions
                .iter()
                .any(|x| x.source == a.source && x.power == a.power)
            {
                n.record.actions.push(a);
            }
        }
        // bansha42's kill posts handed in to the forum (004 L60), each read once.
        self.read_kill_threads(&g, &mut n, now, report).await?;
        self.night_kill_posts(&g, &mut n, now)?;
        if n.record.actions.len() > n.record.digested || !n.record.unread.is_empty() {
            let k = format!(
                "night_digest/{}/{}/{}/{}",
                g.id,
                n.night,
                n.record.actions.len(),
                n.record.unread.len()
            );
            let mail = crate::present::mails::night_digest(&g.name, n.night, &n.record, now);
            self.queue(&k, report, || mail)?;
            n.record.digested = n.record.actions.len();
        }
        if let Some(deadline) = n.deadline {
            self.remind_night(&n, deadline, now, report)?;
            self.early_feedback(&n, deadline, now, report)?;
            if self.settles_at(&n).is_some_and(|t| now >= t) {
                let k = format!("night_draft/{}/{}", g.id, n.night);
                // Not before it can be vouched for; a later cycle drafts it. The judge is told
                // once what it waits for when that is his to do (the inbox's faults have their
                // own mails).
                if !self.store.mail_known(&k)? {
                    let day = self
                        .day_unrecorded(&n)
                        .or_else(|| self.earlier_night_open(&n));
                    if let Some(why) = &day {
                        let w = format!("night_wait/{}/{}", g.id, n.night);
                        let mail = crate::present::mails::night_waiting(&g.name, n.night, why, now);
                        self.queue(&w, report, || mail)?;
                    } else if self.inbox_unread(&n, now).is_none() && self.kill_unread(&n).is_none()
                    {
                        match self.resolve_night(&g, n.night, &n.record, n.deadline) {
                            Ok(res) => {
                                let mail = crate::present::mails::night_draft(&g.name, &res, now);
                                self.queue(&k, report, || mail)?;
                            }
                            Err(e) => report.errors.push(format!("{}：{e}", g.name)),
                        }
                    }
                }
            }
        }
        self.store.set_meta(&key(&g, n.night), &n.record)?;
        Ok(())
    }

    /// Half an hour before each limit of the night (its deadline; qipan's good players' moves
    /// earlier, 003 L114; m103's 太医 later, 002 L238: `night::due`), the living players who owe
    /// an action by it and have sent none ([`Daemon::owing`]), once per limit.
    fn remind_night(
        &self,
        n: &OpenNight,
        deadline: Time,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let g = &n.game;
        let earliest = g
            .rules
            .night
            .good_moves_after_close_minutes
            .map_or(deadline, |m| {
                deadline.min(n.opens + Duration::minutes(i64::from(m)))
            });
        if now < earliest - Duration::minutes(30) {
            return Ok(());
        }
        let mut by_limit: std::collections::BTreeMap<Time, Vec<String>> = Default::default();
        for (player, due) in self.owing(n)? {
            if let Some(due) = due.filter(|d| now >= *d - Duration::minutes(30) && now < *d) {
                by_limit.entry(due).or_default().push(player);
            }
        }
        for (due, silent) in by_limit {
            let k = if due == deadline {
                format!("night_remind/{}/{}", g.id, n.night)
            } else {
                format!("night_remind/{}/{}/{}", g.id, n.night, due.timestamp())
            };
            let mail = crate::present::mails::night_reminder(&g.name, n.night, &silent, due, now);
            self.queue(&k, report, || mail)?;
        }
        Ok(())
    }

    /// At qipan's good players' limit (003 L114 "截止时间为22:00"), once: the judge is mailed
    /// the replies the moves in so far are owed (L26–L29, L112 "法官将及时反馈位置信息") and the
    /// positions the killers are told before they move (L48, their night running to the
    /// deadline, L116), from the resolver run on the actions in so far.
    fn early_feedback(
        &self,
        n: &OpenNight,
        deadline: Time,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let g = &n.game;
        let Some(m) = g.rules.night.good_moves_after_close_minutes else {
            return Ok(());
        };
        let limit = n.opens + Duration::minutes(i64::from(m));
        let k = format!("night_feedback/{}/{}", g.id, n.night);
        if limit >= deadline || now < limit || now >= deadline || self.store.mail_known(&k)? {
            return Ok(());
        }
        match self.resolve_night(g, n.night, &n.record, n.deadline) {
            Ok(res) => {
                let mail = crate::present::mails::night_feedback(
                    &g.name,
                    n.night,
                    &res.feedback,
                    limit,
                    now,
                );
                self.queue(&k, report, || mail)?;
            }
            Err(e) => report.errors.push(format!("{}：{e}", g.name)),
        }
        Ok(())
    }

    /// Who owes an action now, in seat order, each with his limit (`night::due`). Where a night
    /// action not sent is a missed duty (`lurk.night_move_duty`: m103 002 L316, qipan 003 L136)
    /// they are whom the resolver counts missed now (not m103's 宠妃, who have no power at
    /// night); elsewhere every living role that has sent nothing.
    fn owing(&self, n: &OpenNight) -> anyhow::Result<Vec<(String, Option<Time>)>> {
        let path = crate::io::state_file::state_path(&n.game.path, None);
        let bytes = crate::io::state_file::state_bytes(&path)?;
        let played = self.played(&n.game);
        let slot = (n.game.id.clone(), n.night);
        let same = |f: &OwedFrom| {
            f.bytes == bytes
                && f.opens == n.opens
                && f.deadline == n.deadline
                && f.actions == n.record.actions
                && f.game == n.game
                && f.played == played
        };
        if let Some(out) = self.night_owed.lock().ok().and_then(|k| k.get(&slot, same)) {
            return Ok(out);
        }
        // The state parsed from the bytes the result is kept under.
        let state = crate::io::state_file::state_of(&path, bytes.clone())?;
        let out = self.owing_now(n, &state, &played, &bytes);
        if let Ok(mut kept) = self.night_owed.lock() {
            let from = OwedFrom {
                game: n.game.clone(),
                played,
                bytes,
                opens: n.opens,
                deadline: n.deadline,
                actions: n.record.actions.clone(),
            };
            kept.put(slot, from, out.clone());
        }
        Ok(out)
    }

    /// Who owes, from the state, the game as played and the state file's bytes `owing` read
    /// (its answer is kept under them: nothing here reads them again).
    fn owing_now(
        &self,
        n: &OpenNight,
        state: &GameState,
        played: &std::sync::Arc<GameConfig>,
        bytes: &Option<crate::io::state_file::Bytes>,
    ) -> Vec<(String, Option<Time>)> {
        let g = &n.game;
        let seats = state.snapshot(g).seats;
        let owing = match g.rules.lurk.night_move_duty {
            true => self
                .resolve_from(
                    g,
                    n.night,
                    &n.record,
                    n.deadline,
                    played.clone(),
                    bytes.clone(),
                )
                .map(|res| res.next_day.missed)
                .unwrap_or_else(|_| silent_roles(&seats, &n.record)),
            false => silent_roles(&seats, &n.record),
        };
        seats
            .iter()
            .filter(|s| owing.contains(&s.player))
            .map(|s| {
                let due = crate::domain::night::due(
                    &g.rules.night,
                    s,
                    n.opens,
                    n.deadline,
                    &n.record.actions,
                );
                (s.player.clone(), due)
            })
            .collect()
    }

    /// When the night is drafted and may be confirmed: its deadline, or later while someone
    /// who still owes an action has a later limit (m103's 太医, 30 minutes after her 通灵
    /// feedback, 002 L238); none when the night has no deadline.
    pub(crate) fn settles_at(&self, n: &OpenNight) -> Option<Time> {
        let deadline = n.deadline?;
        let latest = self
            .owing(n)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(_, due)| due)
            .max();
        Some(latest.map_or(deadline, |t| t.max(deadline)))
    }

    /// The private messages of the night not read yet: each player's as actions, the rest as
    /// unread for the judge.
    fn night_messages(&self, g: &GameConfig, n: &mut OpenNight, now: Time) -> anyhow::Result<()> {
        let messages = self.store.private_messages()?;
        for m in messages.values() {
            let at = m.sent_at.unwrap_or(now);
            if at < n.opens || n.record.seen.contains(&m.pmid) {
                continue;
            }
            n.record.seen.insert(m.pmid);
            if g.roster.judges.contains(&m.from) {
                continue;
            }
            let source = format!("短消息 pmid {}", m.pmid);
            let acts = if g.roster.players.contains(&m.from) {
                crate::domain::night::read::actions_in(g, &m.from, &m.text, m.sent_at, &source)
            } else {
                Vec::new()
            };
            if acts.is_empty() {
                n.record
                    .unread
                    .push(format!("{source} {}：{}", m.from, m.text.trim()));
            }
            n.record.actions.extend(acts);
        }
        Ok(())
    }

    /// Why the night cannot be resolved yet from what bansha has read, in Chinese: its
    /// actions come by private message and the inbox has not been read since the night
    /// settled (a message of its last minutes may be unread), or a day up to the night's own
    /// has a final that puts someone out not recorded in the state yet (the resolver would
    /// take him for alive at dusk).
    fn not_vouched(&self, n: &OpenNight, now: Time) -> Option<String> {
        self.inbox_unread(n, now)
            .or_else(|| self.kill_unread(n))
            .or_else(|| self.day_unrecorded(n))
            .or_else(|| self.earlier_night_open(n))
    }

    /// An earlier night of the game not confirmed: open (overdue), or not begun because its
    /// day has no final yet (a run-off the rules lengthened past this night's opening, chuhan's
    /// weekend pause 000 L155). This night's dusk depends on its deaths and on that day's vote,
    /// so it is settled first, in the game's order, as days are confirmed in order.
    fn earlier_night_open(&self, n: &OpenNight) -> Option<String> {
        let (m, begun) = self.unsettled_night_before(&n.game, n.night)?;
        Some(match begun {
            true => format!(
                "第{m}夜还没有确认：请先确认第{m}夜，第{}夜按它之后的局面结算",
                n.night
            ),
            false => format!(
                "第{m}天还没有最终结果（加赛未结束或还没有读到），第{m}夜还没有开始：第{}夜在第{m}夜之后结算，请等第{m}天的结果和第{m}夜",
                n.night
            ),
        })
    }

    /// The first night before `upto` of a game whose nights bansha resolves that is not
    /// confirmed, and whether it has begun (its day has a final): the game's order is day m,
    /// night m, day m + 1, whatever the clock says when a run-off runs long.
    pub(crate) fn unsettled_night_before(&self, g: &GameConfig, upto: u32) -> Option<(u32, bool)> {
        if g.rules.night.resolver.is_none() || g.roster.roles.is_empty() {
            return None;
        }
        let state = crate::io::state_file::load_state_shared(&crate::io::state_file::state_path(
            &g.path, None,
        ))
        .unwrap_or_default();
        let first = if g.rules.night.first_night { 0 } else { 1 };
        (first..upto)
            // Night 0 comes before day 1 (`first_night`): a game configured from a later day on
            // has none, as it has no night for a day it does not list.
            .filter(|m| g.day((*m).max(1)).is_some())
            .find(|m| {
                !marked(&state, *m)
                    && self
                        .store
                        .get_meta::<NightRecord>(&key(g, *m))
                        .ok()
                        .flatten()
                        .is_none_or(|r| r.confirmed.is_none())
            })
            .map(|m| (m, m == 0 || self.final_of(g, m).is_ok()))
    }

    fn inbox_unread(&self, n: &OpenNight, now: Time) -> Option<String> {
        let g = &n.game;
        if g.rules.night.actions_by_pm && self.settings().login.is_some() {
            let settles = self.settles_at(n).unwrap_or(now);
            let read_at: Option<Time> = self.store.get_meta("pm/read_at").ok().flatten();
            if read_at.is_none_or(|t| t < settles) {
                return Some(format!(
                    "第 {} 夜 {} 截止后还没有读到法官的站内信（论坛读不了或还没轮到）：截止前寄来的行动可能还没读到，读到后才能结算",
                    n.night,
                    settles.format("%m-%d %H:%M")
                ));
            }
        }
        None
    }

    fn day_unrecorded(&self, n: &OpenNight) -> Option<String> {
        let g = &n.game;
        let state = crate::io::state_file::load_state_shared(&crate::io::state_file::state_path(
            &g.path, None,
        ))
        .ok()?;
        g.days
            .iter()
            .filter(|d| d.day <= n.night)
            .find_map(|d| match self.final_of(g, d.day) {
                Ok((_, f))
                    if f.outcome.kind == crate::domain::rules::OutcomeKind::Eliminated
                        && !crate::daemon::confirm::recorded(&state, d.day) =>
                {
                    Some(format!(
                        "第{}天的结果（{}）还没有确认：请先确认第{}天，第 {} 夜按确认后的局面结算",
                        d.day, f.outcome.note, d.day, n.night
                    ))
                }
                _ => None,
            })
    }

    /// The game as played now (the state applied), or as configured when the state reads not.
    fn played(&self, g: &GameConfig) -> std::sync::Arc<GameConfig> {
        self.as_played(g)
            .unwrap_or_else(|_| std::sync::Arc::new(g.clone()))
    }

    /// The night resolved from the game as played, its state and its actions: the same inputs
    /// give the last result again (`Daemon::night_resolved`).
    fn resolve_night(
        &self,
        g: &GameConfig,
        night: u32,
        record: &NightRecord,
        deadline: Option<Time>,
    ) -> Result<Resolution, String> {
        let played = self.played(g);
        let path = crate::io::state_file::state_path(&g.path, None);
        let bytes = crate::io::state_file::state_bytes(&path).map_err(|e| format!("{e:#}"))?;
        self.resolve_from(g, night, record, deadline, played, bytes)
    }

    /// `resolve_night` from the game as played and the state file's bytes as the caller read
    /// them (`owing` keeps its answer under the same two).
    fn resolve_from(
        &self,
        g: &GameConfig,
        night: u32,
        record: &NightRecord,
        deadline: Option<Time>,
        played: std::sync::Arc<GameConfig>,
        bytes: Option<crate::io::state_file::Bytes>,
    ) -> Result<Resolution, String> {
        let path = crate::io::state_file::state_path(&g.path, None);
        let slot = (g.id.clone(), night);
        let same = |r: &ResolvedFrom| {
            r.bytes == bytes
                && r.deadline == deadline
                && r.actions == record.actions
                && r.played == played
        };
        if let Some(res) = self
            .night_resolved
            .lock()
            .ok()
            .and_then(|k| k.get(&slot, same))
        {
            return res;
        }
        // The state parsed from the bytes the result is kept under (not read a third time).
        let state =
            crate::io::state_file::state_of(&path, bytes.clone()).map_err(|e| format!("{e:#}"))?;
        let res =
            crate::domain::night::resolve_game(&played, &state, night, &record.actions, deadline);
        if let Ok(mut kept) = self.night_resolved.lock() {
            let from = ResolvedFrom {
                bytes,
                deadline,
                actions: record.actions.clone(),
                played,
            };
            kept.put(slot, from, res.clone());
        }
        res
    }

    /// The open night `night` of `game`, or why not.
    fn open_night(&self, game: &str, night: u32, now: Time) -> Result<OpenNight, String> {
        // The first game by that name or id, as the list of all nights would give it.
        self.nights_open(now, |g| g.name == game || g.id == game, Some(night))
            .into_iter()
            .next()
            .ok_or_else(|| format!("第 {night} 夜没有在进行（还没到、已确认，或这局没有夜晚结算）"))
    }

    /// The judge's own entry of an action (sent by QQ or in person).
    pub async fn add_night_action(
        &self,
        game: &str,
        night: u32,
        action: Action,
        now: Time,
    ) -> Result<String, String> {
        let _guard = self.lock.lock().await;
        let mut n = self.open_night(game, night, now)?;
        let line = crate::present::night::action(&action);
        n.record.actions.push(action);
        n.record.digested = n.record.actions.len();
        self.store
            .set_meta(&key(&n.game, night), &n.record)
            .map_err(|e| e.to_string())?;
        Ok(format!("已记下第 {night} 夜的行动：{line}"))
    }

    /// An open night's resolution as it would be confirmed now (the dashboard's draft, of the
    /// night its list opened), or why it cannot be vouched for yet.
    pub fn draft_of(&self, n: &OpenNight, now: Time) -> Result<Resolution, String> {
        if let Some(why) = self.not_vouched(n, now) {
            return Err(why);
        }
        self.resolve_night(&n.game, n.night, &n.record, n.deadline)
    }

    /// The judge confirms night `night`: its changes written to the state at the deadline (or
    /// now when the night has none), once.
    pub async fn confirm_night(&self, game: &str, night: u32, now: Time) -> Result<String, String> {
        let _guard = self.lock.lock().await;
        let mut n = self.open_night(game, night, now)?;
        if let Some(t) = self.settles_at(&n).filter(|t| now < *t) {
            return Err(format!(
                "第 {night} 夜的行动 {} 才截止，之后才能确认",
                t.format("%m-%d %H:%M")
            ));
        }
        // The messages read since the last cycle merged them (a crash between the two).
        let g = n.game.clone();
        if g.rules.night.actions_by_pm {
            self.night_messages(&g, &mut n, now)
                .map_err(|e| format!("{e:#}"))?;
        }
        if let Some(why) = self.not_vouched(&n, now) {
            return Err(why);
        }
        let res = self.resolve_night(&n.game, night, &n.record, n.deadline)?;
        let path = crate::io::state_file::state_path(&n.game.path, None);
        let mut state = crate::io::state_file::load_state(&path).map_err(|e| format!("{e:#}"))?;
        let at = n.deadline.unwrap_or(now).min(now).to_rfc3339();
        let first = state.events.iter().map(|e| e.id).max().unwrap_or(0) + 1;
        for c in res.changes() {
            state.push(c, at.clone());
        }
        // Undone with the night's first change (`undo` takes the last change and what follows
        // from it), or alone where the night changed nothing.
        let marker = Change::Fact {
            key: confirmed_key(night),
            value: 1.0,
        };
        match state.events.iter().find(|e| e.id >= first) {
            Some(e) => {
                let of = e.id;
                state.push_following(marker, at.clone(), of);
            }
            None => {
                state.push(marker, at.clone());
            }
        }
        crate::io::state_file::save_state(&path, &state).map_err(|e| format!("{e:#}"))?;
        n.record.confirmed = Some(now);
        self.store
            .set_meta(&key(&n.game, night), &n.record)
            .map_err(|e| e.to_string())?;
        crate::io::log::line(&format!("{} 第 {night} 夜已确认", n.game.name));
        Ok(crate::present::night::text(&res))
    }
}

/// The players alive in the state now (the day's own vote and earlier nights applied, a
/// substitute in his seat) with a role, who have sent nothing this night.
fn silent_roles(seats: &[crate::domain::rules::state::Seat], record: &NightRecord) -> Vec<String> {
    seats
        .iter()
        .filter(|s| s.alive && !s.role.is_empty())
        .filter(|s| !record.actions.iter().any(|a| a.by.contains(&s.player)))
        .map(|s| s.player.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Recent;

    /// A night asked of in two forms by turns (the record as stored, and with the inbox read
    /// since) is answered for each from what it was kept under, never the other's; a fifth
    /// form of one night lets the oldest go, and other nights are kept apart.
    #[test]
    fn a_night_kept_in_several_forms_answers_each_from_its_own() {
        let mut kept: Recent<u32, &str> = Recent::default();
        let night = ("g".to_string(), 3);
        assert_eq!(kept.get(&night, |f| *f == 18), None);
        kept.put(night.clone(), 18, "stored");
        kept.put(night.clone(), 36, "with the inbox");
        for _ in 0..3 {
            assert_eq!(kept.get(&night, |f| *f == 18), Some("stored"));
            assert_eq!(kept.get(&night, |f| *f == 36), Some("with the inbox"));
        }
        assert_eq!(kept.get(&("g".to_string(), 4), |f| *f == 18), None);
        assert_eq!(kept.get(&("h".to_string(), 3), |f| *f == 18), None);
        for f in [40, 41, 42] {
            kept.put(night.clone(), f, "later");
        }
        assert_eq!(
            kept.get(&night, |f| *f == 18),
            None,
            "the oldest form let go"
        );
        assert_eq!(kept.get(&night, |f| *f == 36), Some("with the inbox"));
        assert_eq!(kept.get(&night, |f| *f == 42), Some("later"));
    }
}
