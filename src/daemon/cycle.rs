//! One poll cycle at an explicit `now`: fetch what can have changed, record it, tally, decide
//! which mails are due, queue them, send the queue. The scheduler calls it with the clock's
//! time; tests and `bansha run --once --now T` call it with any time. Every decision is keyed in
//! the store, so a cycle that is repeated (after a crash, a restart, a catch-up) sends nothing
//! twice.

use crate::daemon::confirm::{final_key, Final};
use crate::daemon::decide::{self, lock_from};
use crate::domain::config::{BallotSource, DayConfig, GameConfig};
use crate::domain::mail::Mail;
use crate::domain::record::{Change, Cursor, StoredPost};
use crate::domain::report::{CycleReport, DayView};
use crate::domain::rules::{self, Tally};
use crate::domain::settings::Settings;
use crate::io::forum::{FetchError, Forum};
use crate::io::smtp::Mailer;
use crate::io::store::Store;
use crate::present::mails;
use chrono::{DateTime, FixedOffset};
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

type Time = DateTime<FixedOffset>;

/// The name of a poll's failure streak: its own, apart from the thread it sits in (tid), so a
/// thread that reads fine does not end the streak of a poll (or a voter list) that does not.
fn poll_streak(tid: u64) -> String {
    format!("{tid}/poll")
}

pub struct Daemon {
    /// The configs running now: swapped whole by a reload (`daemon::reload`), only at the
    /// start of a cycle with the cycle lock held, so one cycle sees one version throughout.
    pub(crate) settings: std::sync::RwLock<std::sync::Arc<Settings>>,
    pub store: Store,
    pub forum: Forum,
    mailer: Mailer,
    /// Cycles never overlap.
    pub(crate) lock: tokio::sync::Mutex<()>,
    /// What the last cycle computed for each watched day, for the dashboard.
    /// By game, day and round (a run-off's view does not replace its day's round 1).
    views: std::sync::Mutex<std::collections::BTreeMap<(String, u32, u32), DayView>>,
    /// Compare the machine's clock with the forum's before each cycle (the system clock; a
    /// time the judge gives with `--now` is taken as given).
    pub check_clock: std::sync::atomic::AtomicBool,
    /// What the last cycle added to the machine's clock to go by the forum's.
    clock_offset: std::sync::Mutex<Option<chrono::Duration>>,
    /// What the judge is told about which record each game is (a renamed game kept).
    pub(crate) notices: std::sync::Mutex<Vec<crate::daemon::identity::Notice>>,
    /// The config files behind the running settings, and what the last reload found.
    pub(crate) reload: std::sync::Mutex<crate::daemon::reload::Reload>,
    /// The judge's QQ (`[qq]`, as at the start): `daemon::qq`.
    pub qq: Option<crate::io::qq::Qq>,
    /// Steps taken out for the simulator's planted-bug test (all off unless given).
    plants: crate::daemon::Plants,
    /// The fonts of the timeline picture, where the caller gave them (`Seams::fonts`).
    fonts: Option<crate::present::chart::Fonts>,
    /// What `watch_state` last judged of each game to the end (the state file's bytes, the
    /// config): judged again only once either changed.
    state_watched: std::sync::Mutex<
        std::collections::BTreeMap<String, (crate::io::state_file::Bytes, GameConfig)>,
    >,
    /// Each night's last resolution with what it was resolved from (`night::resolve_night`): a
    /// cycle asks for it several times (who owes, when it settles, the draft) of the same inputs.
    pub(crate) night_resolved: std::sync::Mutex<crate::daemon::night::Resolved>,
    /// The rounds 2 the scheduler last found watched (`runoffs` without a report), with the
    /// record's write count, the settings and which days had closed then.
    pub(crate) runoffs_kept: std::sync::Mutex<Option<RunoffsKept>>,
    /// Each game as last played (`as_played`), by id, with what it was played from.
    pub(crate) played: std::sync::Mutex<std::collections::HashMap<String, PlayedFrom>>,
    /// Who owes a night action, as last worked out per night (`Daemon::owing`).
    pub(crate) night_owed: std::sync::Mutex<crate::daemon::night::Owed>,
    /// Whether each (game id, day)'s close is done, as last asked, with the record's write
    /// count then (`close_done`): the scheduler asks of every day at every tick.
    closes_kept: std::sync::Mutex<ClosesKept>,
}

/// See `Daemon::closes_kept`: the record's write count, and each (game id, day)'s answer.
type ClosesKept = (u64, std::collections::HashMap<(String, u32), bool>);

/// See `Daemon::runoffs_kept`.
pub(crate) type RunoffsKept = (
    u64,
    std::sync::Arc<Settings>,
    Vec<bool>,
    Vec<(GameConfig, DayConfig)>,
);

/// A game as played (`Daemon::as_played`, before QQ's proxies) and what it was played from:
/// the config, the state file's bytes, the sheriff day 1 elected.
pub(crate) struct PlayedFrom {
    given: GameConfig,
    bytes: Option<crate::io::state_file::Bytes>,
    elected: Option<String>,
    played: std::sync::Arc<GameConfig>,
}

impl Daemon {
    /// The configs running now (a reload swaps them between cycles).
    pub fn settings(&self) -> std::sync::Arc<Settings> {
        match self.settings.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn open(settings: Settings) -> anyhow::Result<Daemon> {
        Daemon::open_with(settings, crate::daemon::Seams::default())
    }

    /// `open` on the forum, relay and disk `seams` gives where it gives them.
    pub fn open_with(
        mut settings: Settings,
        seams: crate::daemon::Seams,
    ) -> anyhow::Result<Daemon> {
        for g in &settings.games {
            for w in g.warnings() {
                crate::io::log::line(&format!("配置 {}：{w}", g.path.display()));
            }
        }
        let path = settings.path.clone();
        let store = Store::open_on(&settings.state_dir, seams.disk_full.unwrap_or_default())?;
        crate::io::log::line(&format!("记录目录：{}", settings.state_dir.display()));
        // Before anything is read or sent: a renamed game keeps its record's key.
        let notices = crate::daemon::identity::settle(&mut settings, &store)?;
        store.flush_blocking()?;
        let offset = settings
            .games
            .first()
            .map(|g| g.utc_offset)
            .unwrap_or_else(|| FixedOffset::east_opt(8 * 3600).expect("valid"));
        let forum = match seams.http {
            Some(http) => Forum::with_http(&settings.forum, settings.login.clone(), offset, http),
            None => Forum::new(&settings.forum, settings.login.clone(), offset)
                .map_err(anyhow::Error::msg)?,
        };
        let mailer = match seams.relay {
            Some(relay) => Mailer::with_relay(&settings.smtp, &settings.judge.to, relay),
            None => Mailer::new(&settings.smtp, &settings.judge.to),
        }
        .map_err(anyhow::Error::msg)?;
        let qq = settings
            .qq
            .as_ref()
            .map(crate::io::qq::Qq::new)
            .transpose()?;
        Ok(Daemon {
            settings: std::sync::RwLock::new(std::sync::Arc::new(settings)),
            store,
            forum,
            mailer,
            lock: tokio::sync::Mutex::new(()),
            views: Default::default(),
            check_clock: Default::default(),
            clock_offset: Default::default(),
            notices: std::sync::Mutex::new(notices),
            reload: std::sync::Mutex::new(crate::daemon::reload::Reload::at_start(&path)),
            qq,
            plants: seams.plants,
            fonts: seams.fonts.clone(),
            state_watched: Default::default(),
            night_resolved: Default::default(),
            night_owed: Default::default(),
            played: Default::default(),
            runoffs_kept: Default::default(),
            closes_kept: Default::default(),
        })
    }

    /// Tell the judge, once each, what the start settled about which record a game is.
    fn tell_identity(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<()> {
        use crate::daemon::identity::{known, Notice};
        let notices = self.notices.lock().map(|n| n.clone()).unwrap_or_default();
        for n in &notices {
            self.queue(&n.key(), report, || match n {
                Notice::Renamed {
                    game,
                    configured,
                    id_given,
                    id,
                    was,
                } => {
                    let k = self
                        .settings()
                        .games
                        .iter()
                        .find(|g| &g.name == game)
                        .map(known)
                        .unwrap_or_default();
                    let configured = id_given.then_some(configured.as_str());
                    mails::renamed(game, configured, id, was, &k, now)
                }
                Notice::Unverified { game, ids } => mails::unverified(game, ids, now),
            })?;
        }
        Ok(())
    }

    /// The days being watched at `now`: a vote thread, not yet closed and tallied, and open (or
    /// within a week of the close when no opening time is set).
    pub fn active_days<'a>(
        &self,
        settings: &'a Settings,
        now: Time,
    ) -> Vec<(&'a GameConfig, &'a DayConfig)> {
        let mut out = Vec::new();
        for g in &settings.games {
            for d in &g.days {
                // The store is asked only of days open by the clock.
                if !decide::watched(d, false, now) {
                    continue;
                }
                if !self.close_done(g, d).unwrap_or(false) {
                    out.push((g, d));
                }
            }
        }
        out
    }

    /// Whether `d`'s close (in its current revision) is done: the store's answer, kept until
    /// the next write to the record (the close's event and the day's revision are both in the
    /// trees `Store::writes` counts).
    pub(crate) fn close_done(&self, g: &GameConfig, d: &DayConfig) -> anyhow::Result<bool> {
        let writes = self.store.writes();
        let slot = (g.id.clone(), d.day);
        if let Ok(kept) = self.closes_kept.lock() {
            if let (true, Some(done)) = (kept.0 == writes, kept.1.get(&slot)) {
                return Ok(*done);
            }
        }
        let done = self.store.event_done(&self.key(g, d, "close"))?;
        if let Ok(mut kept) = self.closes_kept.lock() {
            // Kept only when no write came while it was read.
            if self.store.writes() == writes {
                if kept.0 != writes {
                    *kept = (writes, Default::default());
                }
                kept.1.insert(slot, done);
            }
        }
        Ok(done)
    }

    /// Closed days whose after-close look is due: ten minutes after the close (and within two
    /// days of it), once.
    pub fn rechecks<'a>(
        &self,
        settings: &'a Settings,
        now: Time,
    ) -> Vec<(&'a GameConfig, &'a DayConfig)> {
        let mut out = Vec::new();
        for g in &settings.games {
            for d in &g.days {
                // Only days in the window are looked up in the store.
                if !decide::recheck_due(g, d, true, false, now) {
                    continue;
                }
                let close_done = self.close_done(g, d).unwrap_or(false);
                let recheck_done = self
                    .store
                    .event_done(&self.key(g, d, "recheck"))
                    .unwrap_or(true);
                if decide::recheck_due(g, d, close_done, recheck_done, now) {
                    out.push((g, d));
                }
            }
        }
        out
    }

    /// The after-close look: the vote thread and every thread counted for 潜水 read once more
    /// in full. Edits and deletions since are mailed (the final keeps the text as of the
    /// close), and so is each ballot posted after the close; a 潜水 mail held at the close for an
    /// unreadable thread goes out now. Until every thread reads, it is tried again next cycle
    /// (until two days after the close).
    async fn recheck(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let tid = d.vote_thread.expect("rechecked days have a vote thread");
        let mut complete = true;
        match self.read_thread(tid, true, now).await? {
            Ok(changes) => {
                report.edited_posts += changes
                    .iter()
                    .filter(|c| matches!(c, Change::Edited { .. }))
                    .count();
                self.alert_changes(g, d, &changes, now, report)?;
                self.settle(d, tid)?;
            }
            Err(e) => {
                self.failed(g, tid, &e, now, report)?;
                complete = false;
            }
        }
        let lurk_on = g.rules.lurk.min_posts > 0 || g.rules.lurk.must_vote;
        if lurk_on {
            complete &= self.read_lurk_threads(g, d, true, now, report).await?;
        }
        if !complete {
            return Ok(());
        }
        let failures = report.fetch_failures;
        let tally = self.tally_day(g, d, 1, now, report).await?;
        if report.fetch_failures > failures {
            return Ok(());
        }
        let round = decide::runoff_follows(g, d, &tally).then_some(1);
        let late = tally
            .ballots
            .iter()
            .filter(|b| !b.valid && b.posted_at.is_some_and(|t| t > d.closes_at));
        for b in late {
            if let Some(pid) = b.pid {
                let key = format!("void/{}/{}/{pid}", g.id, d.day);
                self.queue(&key, report, || self.void_mail(g, d, b, pid, round, now))?;
            }
        }
        // The day's 潜水 waits for its run-off (mailed at round 2's close).
        if lurk_on
            && !decide::runoff_follows(g, d, &tally)
            && !self.store.mail_known(&self.key(g, d, "lurk"))?
        {
            self.lurk_mail(g, d, &tally, now, report)?;
        }
        self.store.mark_event(&self.key(g, d, "recheck"), now)?;
        Ok(())
    }

    /// The next moment something is due: a lock-window start or a close.
    pub fn next_deadline(&self, now: Time) -> Option<(Time, String)> {
        let mut best: Option<(Time, String)> = None;
        let runoffs = self.watched_runoffs(now);
        let settings = self.settings();
        let days = self
            .active_days(&settings, now)
            .into_iter()
            .chain(runoffs.iter().map(|(g, d)| (g, d)));
        for (g, d) in days {
            let lock = lock_from(g, d);
            for (t, what) in [
                (lock, mails::Deadline::Lock),
                (Some(d.closes_at), mails::Deadline::Close),
            ] {
                if let Some(t) = t.filter(|t| *t > now) {
                    if best.as_ref().is_none_or(|(b, _)| t < *b) {
                        best = Some((t, crate::present::mails::deadline_label(g, d, what)));
                    }
                }
            }
        }
        best
    }

    /// The game as played, the one source every pass that decides or shows a day reads: the
    /// judge's recorded state applied (who is out on each day, `DayConfig::dead`: every earlier
    /// day's and the recorded eliminations), and the sheriff day 1 elected carried onto the
    /// days that name none while alive (m103 L152–153). An unreadable state file is an error:
    /// nothing is decided without it.
    pub(crate) fn as_played(
        &self,
        given: &GameConfig,
    ) -> anyhow::Result<std::sync::Arc<GameConfig>> {
        let path = crate::io::state_file::state_path(&given.path, None);
        let bytes = crate::io::state_file::state_bytes(&path)?;
        let elected: Option<String> = self.store.get_meta(&format!("sheriff/{}", given.id))?;
        // The state applied and the sheriff carried: kept per game under what they come from
        // (the night's settling and the dashboard ask it many times a cycle).
        let kept = self.played.lock().ok().and_then(|p| {
            p.get(&given.id)
                .filter(|k| k.bytes == bytes && k.elected == elected && k.given == *given)
                .map(|k| k.played.clone())
        });
        let mut g = match kept {
            Some(g) => g,
            None => {
                let mut g = crate::io::state_file::with_state_bytes(given, bytes.clone())?;
                for d in g.days.iter_mut() {
                    d.sheriff = decide::carry_sheriff(d, elected.as_deref()).0.sheriff;
                }
                let g = std::sync::Arc::new(g);
                if let Ok(mut p) = self.played.lock() {
                    if p.len() >= 16 && !p.contains_key(&given.id) {
                        p.clear();
                    }
                    let from = PlayedFrom {
                        given: given.clone(),
                        bytes,
                        elected,
                        played: g.clone(),
                    };
                    p.insert(given.id.clone(), from);
                }
                g
            }
        };
        self.qq_with_proxies(&mut g);
        Ok(g)
    }

    /// The day with the sheriff day 1 elected (m103 L152–153), unless the judge named one; the
    /// judge is told once when that sheriff is out and nobody succeeds yet (L154–156).
    fn with_sheriff(
        &self,
        g: &GameConfig,
        d: DayConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> DayConfig {
        let elected: Option<String> = self
            .store
            .get_meta(&format!("sheriff/{}", g.id))
            .ok()
            .flatten();
        let (d, gone) = decide::carry_sheriff(&d, elected.as_deref());
        if let Some(name) = gone {
            let mail = mails::sheriff_gone(g, &d, &name, now);
            match self
                .store
                .enqueue(&format!("sheriff_gone/{}/{name}", g.id), &mail)
            {
                Ok(true) => report.mails_queued += 1,
                Ok(false) => {}
                Err(e) => report.errors.push(e.to_string()),
            }
        }
        d
    }

    /// The run-off of a day as planned now (`decide::runoff_plan`), if round 2 runs.
    fn runoff_of(
        &self,
        g: &GameConfig,
        d: &DayConfig,
    ) -> anyhow::Result<Option<crate::domain::config::Runoff>> {
        let round1: Option<Vec<String>> = self
            .store
            .get_meta(&format!("runoff_candidates/{}/{}", g.id, d.day))?;
        let places: Option<u32> = self
            .store
            .get_meta(&format!("runoff_places/{}/{}", g.id, d.day))?;
        Ok(match decide::runoff_plan(g, d, round1.as_deref(), places) {
            decide::RunoffPlan::Run(r) => Some(r),
            _ => None,
        })
    }

    /// The days whose round 2 is being watched at `now`: round 1 closed, its run-off not yet
    /// tallied. With a cycle's report, a run-off whose deadline or poll only the judge can give
    /// is mailed to the judge, once (the scheduler's question passes none and queues nothing).
    fn runoffs(&self, now: Time, report: Option<&mut CycleReport>) -> Vec<(GameConfig, DayConfig)> {
        if report.is_some() {
            return self.runoffs_now(&self.settings(), now, report);
        }
        // The scheduler's question, asked at every tick: the same as last time while the
        // settings, the record's meta and events trees and which days have closed are (what
        // it reads is only those; a value there that does not parse reads so until written).
        let settings = self.settings();
        let writes = self.store.writes();
        let closed: Vec<bool> = settings
            .games
            .iter()
            .flat_map(|g| g.days.iter().map(|d| now >= d.closes_at))
            .collect();
        if let Ok(kept) = self.runoffs_kept.lock() {
            if let Some((_, _, _, out)) = kept.as_ref().filter(|(w, s, c, _)| {
                *w == writes && std::sync::Arc::ptr_eq(s, &settings) && *c == closed
            }) {
                return out.clone();
            }
        }
        let out = self.runoffs_now(&settings, now, None);
        if let Ok(mut kept) = self.runoffs_kept.lock() {
            *kept = Some((writes, settings, closed, out.clone()));
        }
        out
    }

    fn runoffs_now(
        &self,
        settings: &Settings,
        now: Time,
        mut report: Option<&mut CycleReport>,
    ) -> Vec<(GameConfig, DayConfig)> {
        let mut out = Vec::new();
        for g in &settings.games {
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                // The scheduler's question (no `report`) is only which rounds 2 are watched,
                // and a round 2 is watched from round 1's close.
                if report.is_none() && now < d.closes_at {
                    continue;
                }
                let meta = |what: &str| format!("{what}/{}/{}", g.id, d.day);
                let told = |what: &str| matches!(self.store.mail_known(&meta(what)), Ok(true));
                // Round 1's candidates and an overtime's places only where `runoff_plan` reads
                // them (a day run-off-free or with the judge's run-off reads neither): this is
                // asked of every day at every tick.
                let round1: Option<Vec<String>> = match d.no_runoff || d.runoff.is_some() {
                    true => None,
                    false => self
                        .store
                        .get_meta(&meta("runoff_candidates"))
                        .ok()
                        .flatten(),
                };
                let places: Option<u32> = match round1 {
                    Some(_) => self.store.get_meta(&meta("runoff_places")).ok().flatten(),
                    None => None,
                };
                let ask = match decide::runoff_plan(g, d, round1.as_deref(), places) {
                    decide::RunoffPlan::Run(_) => {
                        let watched = now >= d.closes_at
                            && matches!(self.close_done(g, d), Ok(true))
                            // Round two's close, under its own id (`decide::round_two`).
                            && matches!(
                                self.store.event_done(&self.key_of(
                                    &decide::round_two_id(g),
                                    d.day,
                                    "close",
                                )),
                                Ok(false)
                            );
                        if watched {
                            out.push((g.clone(), d.clone()));
                        }
                        None
                    }
                    // The judge is asked only by the cycle (`report`), not by the scheduler,
                    // and once (the mail is not made again each cycle to be found queued).
                    _ if report.is_none() => None,
                    decide::RunoffPlan::NeedsTime(_) if told("runoff_time") => None,
                    decide::RunoffPlan::NeedsPoll { .. } if told("overtime") => None,
                    decide::RunoffPlan::NeedsTime(c) => {
                        Some((meta("runoff_time"), mails::runoff_needs_time(g, d, &c, now)))
                    }
                    decide::RunoffPlan::NeedsPoll {
                        closes_at,
                        candidates,
                        places,
                    } => Some((
                        meta("overtime"),
                        mails::overtime(g, d, closes_at, &candidates, places, now),
                    )),
                    decide::RunoffPlan::None => None,
                };
                if let (Some((key, mail)), Some(report)) = (ask, report.as_deref_mut()) {
                    match self.store.enqueue(&key, &mail) {
                        Ok(true) => report.mails_queued += 1,
                        Ok(false) => {}
                        Err(e) => report.errors.push(e.to_string()),
                    }
                }
            }
        }
        out
    }

    /// The rounds 2 being watched at `now`, as they run (`decide::round_two`): the game under
    /// its round-2 id and the day as round 2's phases run. Watched as round 1's days are: by
    /// the scheduler, `status`, the next deadline.
    pub fn watched_runoffs(&self, now: Time) -> Vec<(GameConfig, DayConfig)> {
        self.runoffs(now, None)
            .into_iter()
            .filter_map(|(g, d)| {
                let r = self.runoff_of(&g, &d).ok().flatten()?;
                Some(decide::round_two(&g, &d, &r))
            })
            .collect()
    }

    /// The lock-window starts and closes of the run-offs being watched (for the scheduler).
    pub fn runoff_phases(&self, now: Time) -> Vec<(Option<Time>, Time)> {
        // Round 2's day closes at the run-off's close under the same rules (`round_two`).
        self.runoffs(now, None)
            .into_iter()
            .filter_map(|(g, d)| {
                let r = self.runoff_of(&g, &d).ok().flatten()?;
                Some((decide::lock_before(&g, r.closes_at), r.closes_at))
            })
            .collect()
    }

    /// What the last cycle added to the machine's clock to go by the forum's.
    pub fn clock_offset(&self) -> chrono::Duration {
        self.clock_offset
            .lock()
            .ok()
            .and_then(|o| *o)
            .unwrap_or_else(chrono::Duration::zero)
    }

    /// The time a cycle goes by: the forum's where it is known (the judge is told once per
    /// difference of more than a minute), else the machine's.
    async fn cycle_time(&self, machine: Time, report: &mut CycleReport) -> Time {
        if !self.check_clock.load(Ordering::Relaxed) {
            return machine;
        }
        let tz = *machine.offset();
        let carried = self
            .forum
            .forum_time()
            .map(|(t, age)| (t.with_timezone(&tz), age));
        let forum = if decide::clock_probe_due(machine, carried) {
            let probed = self.forum.probe_time().await;
            probed
                .map(|t| t.with_timezone(&tz))
                .or(carried.map(|c| c.0))
        } else {
            carried.map(|c| c.0)
        };
        let correction = decide::clock_correction(machine, forum);
        if let Ok(mut o) = self.clock_offset.lock() {
            *o = correction;
        }
        let Some(offset) = decide::clock_offset(machine, forum) else {
            // Within the tolerance: not worth the judge's attention, but the close is the
            // forum's (a machine seconds fast takes no final before it).
            return machine + correction.unwrap_or_else(chrono::Duration::zero);
        };
        let now = machine + offset;
        report.clock_offset_secs = Some(offset.num_seconds());
        crate::io::log::line(&format!(
            "时钟：本机是 {}，论坛是 {}：以论坛的时间为准",
            machine.format("%Y-%m-%d %H:%M:%S"),
            now.format("%Y-%m-%d %H:%M:%S")
        ));
        // One mail per difference, to the minute.
        let key = format!(
            "clock/{:+}",
            (offset.num_seconds() as f64 / 60.0).round() as i64
        );
        match self
            .store
            .enqueue(&key, &mails::clock_skew(machine, now, now))
        {
            Ok(true) => report.mails_queued += 1,
            Ok(false) => {}
            Err(e) => report.errors.push(e.to_string()),
        }
        now
    }

    /// One cycle at the machine's time `machine` (the forum's where they disagree), in the
    /// rooms ARCHITECTURE.md names: what the cycle is told before it reads (the configs, new
    /// days, the judge's records), the days as the record plays them, each day read and
    /// decided, the after-close reads, what follows the days, and last the sending, only once
    /// the record holds everything the mails say.
    pub async fn cycle(&self, machine: Time) -> CycleReport {
        let _guard = self.lock.lock().await;
        let before = self.forum.requests.load(Ordering::Relaxed);
        let mut report = CycleReport::default();
        let now = self.cycle_time(machine, &mut report).await;
        report.at = Some(now);
        self.before_days(now, &mut report).await;
        let settings = self.settings();
        let days = self.days_as_played(&settings, now, &mut report);
        for (g, d, state_read) in &days {
            if let Err(e) = self.watch_day(g, d, 1, *state_read, now, &mut report).await {
                report.errors.push(e.to_string());
            }
        }
        self.watch_runoffs(now, &mut report).await;
        self.after_close_reads(&settings, now, &mut report).await;
        self.after_days(now, &mut report).await;
        self.send_recorded(now, &mut report).await;
        report.requests = self.forum.requests.load(Ordering::Relaxed) - before;
        // The report itself is not recorded: the status page has it from memory, and a write
        // every cycle would make every idle cycle a flush (a sixth of a game's CPU).
        if let Err(e) = self.store.flush().await {
            report.store_failed = true;
            report.errors.push(e.to_string());
        }
        if report.store_failed {
            crate::io::log::line("记录库：记录写不进去（磁盘满了？）；能写之前什么也不再发送");
        }
        report
    }

    /// What the cycle takes in before it reads a day: a changed config (taken or refused first,
    /// so the whole cycle runs on one version), new days on the boards, the judge's moved
    /// deadlines and rulings, which record each game is, and what opening the store repaired.
    async fn before_days(&self, now: Time, report: &mut CycleReport) {
        self.reload_if_changed(now, report);
        self.find_days(now, report).await;
        if let Err(e) = self.reopen_moved(now, report) {
            report.errors.push(e.to_string());
        }
        if let Err(e) = self.reopen_ruled() {
            report.errors.push(e.to_string());
        }
        if let Err(e) = self.tell_identity(now, report) {
            report.errors.push(e.to_string());
        }
        // What opening the store had to repair (sled's files set aside, the record rebuilt
        // from its journal): the judge is told once.
        let dir = self.settings().state_dir.display().to_string();
        match self
            .store
            .tell_repairs(|r| mails::store_repaired(r, &dir, now))
        {
            Ok(n) => report.mails_queued += n,
            Err(e) => report.errors.push(e.to_string()),
        }
    }

    /// Each active day as the judge's recorded state leaves its game (eliminations added to
    /// `dead`, the sheriff), with whether the state could be read. A state file that cannot be
    /// read leaves the day's record read but nothing decided: a tally without the judge's
    /// eliminations could count a dead player's ballot.
    fn days_as_played(
        &self,
        settings: &Settings,
        now: Time,
        report: &mut CycleReport,
    ) -> Vec<(GameConfig, DayConfig, bool)> {
        let mut days: Vec<(GameConfig, DayConfig, bool)> = Vec::new();
        let mut state_failed: BTreeSet<String> = BTreeSet::new();
        for (g, d) in self.active_days(settings, now) {
            match self.as_played(g) {
                Ok(g) => {
                    let mut g = GameConfig::clone(&g);
                    let d = g.day(d.day).cloned().unwrap_or_else(|| d.clone());
                    // The tally reads the day from the game: both get the sheriff.
                    let d = self.with_sheriff(&g, d, now, report);
                    if let Some(x) = g.days.iter_mut().find(|x| x.day == d.day) {
                        x.sheriff = d.sheriff.clone();
                    }
                    days.push((g, d, true));
                }
                Err(e) => {
                    if state_failed.insert(g.name.clone()) {
                        report.errors.push(format!("{}: {e:#}", g.name));
                        if let Err(e) = self.state_unreadable(g, &format!("{e:#}"), now, report) {
                            report.errors.push(e.to_string());
                        }
                    }
                    days.push((g.clone(), d.clone(), false));
                }
            }
        }
        for g in &settings.games {
            if !state_failed.contains(&g.name) {
                if let Err(e) = self
                    .store
                    .remove_meta(&format!("state_failing_since/{}", g.id))
                {
                    report.errors.push(e.to_string());
                }
            }
        }
        days
    }

    /// Round 2 of each day whose round 1 closed in a tie for a run-off.
    async fn watch_runoffs(&self, now: Time, report: &mut CycleReport) {
        for (g, d) in self.runoffs(now, Some(report)) {
            let Ok(g) = self.as_played(&g) else {
                continue; // the round-1 pass has told the judge
            };
            let Some(d) = g.day(d.day).cloned() else {
                continue;
            };
            let (g2, d2) = match self.runoff_of(&g, &d) {
                Ok(Some(r)) => decide::round_two(&g, &d, &r),
                Ok(None) => continue,
                Err(e) => {
                    report.errors.push(e.to_string());
                    continue;
                }
            };
            if let Err(e) = self.watch_day(&g2, &d2, 2, true, now, report).await {
                report.errors.push(e.to_string());
            }
        }
    }

    /// The reads after a close: ten minutes after it the vote thread is read once more, in
    /// full (a ballot edited or deleted after the deadline is shown to the judge; the tally
    /// keeps the text as of the close); a 潜水 count held for a run-off; the closed days' views
    /// kept; the edit windows closed.
    async fn after_close_reads(&self, settings: &Settings, now: Time, report: &mut CycleReport) {
        for (g, d) in self.rechecks(settings, now) {
            // The living as the close counted them: nothing is decided without the state.
            let Ok(g) = self.as_played(g) else {
                continue;
            };
            let Some(d) = g.day(d.day).cloned() else {
                continue;
            };
            if let Err(e) = self.recheck(&g, &d, now, report).await {
                report.errors.push(format!("{}: {e:#}", g.name));
            }
        }
        if let Err(e) = self.held_runoff_lurk(now, report).await {
            report.errors.push(e.to_string());
        }
        if let Err(e) = self.keep_closed_views(now) {
            report.errors.push(e.to_string());
        }
        if let Err(e) = self.close_edit_windows(now, report) {
            report.errors.push(e.to_string());
        }
    }

    /// The sending: what the cycle recorded and queued is on disk before any of it is mailed; a
    /// store that cannot write holds the mails (they could not be marked sent) and ends the
    /// service's run, for systemd to start it again on a store opened afresh. QQ after the
    /// mails, never holding them.
    async fn send_recorded(&self, now: Time, report: &mut CycleReport) {
        if let Err(e) = self.store.flush().await {
            report.store_failed = true;
            report.errors.push(format!("{e}: mails held"));
        } else {
            self.send_outbox(now, report).await;
            (report.qq_sent, report.qq_waiting) = self.qq_deliver(now, &mut report.errors).await;
        }
    }

    /// What follows the days each cycle: the rules' reminders, the ledger after the closes,
    /// the judge's state, the nights (this cycle's finals included), and a running day's first
    /// post edited to another deadline (asked, never guessed).
    async fn after_days(&self, now: Time, report: &mut CycleReport) {
        if let Err(e) = self.remind(now, report) {
            report.errors.push(e.to_string());
        }
        for g in &self.settings().games {
            if let Err(e) = self.ledger_after_close(g, now, report) {
                report.errors.push(format!("{}: {e:#}", g.name));
            }
        }
        for g in &self.settings().games {
            if let Err(e) = self.watch_state(g, now, report) {
                report.errors.push(format!("{}: {e:#}", g.name));
            }
        }
        self.watch_nights(now, report).await;
        self.watch_deadlines(now, report);
    }

    /// Read a watched day's threads into the record, tally and decide. `state_read`: the
    /// judge's state file was read (else the threads are recorded and nothing is decided).
    async fn watch_day(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        round: u32,
        state_read: bool,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let tid = d.vote_thread.expect("active days have a vote thread");
        let record = decide::DayRecord {
            lock_done: self.store.event_done(&self.key(g, d, "lock"))?,
            leader: self.store.get_meta(&format!("leader/{}/{}", g.id, d.day))?,
            revision: self.revision(g, d),
            corrected: self.store.get_meta(&self.key(g, d, "corrected"))?,
        };
        let lock_due = decide::lock_due(g, d, &record, now);
        let close_due = now >= d.closes_at;
        // A full scan (catches edits and deletions) at the start, at the lock and at the close.
        // A poll day's thread is read too: its votes are in the poll (read with the tally), but a
        // ballot posted in the thread is void and tells that its author is no suicide (bansha42
        // L72 "如未用投票机，所投票视为废票，不算自杀").
        // A ballot source that could not be read this cycle: its record may miss ballots.
        let mut stale = false;
        let full = lock_due || (close_due && !self.plants.no_close_reread);
        let thread = self.read_thread(tid, full, now).await?;
        if let Some(why) = self.misplaced(g, d)? {
            return self.hold_misplaced(g, d, &why, now, report);
        }
        match thread {
            Ok(changes) => {
                for c in &changes {
                    match c {
                        Change::New { .. } => report.new_posts += 1,
                        Change::Edited { .. } => report.edited_posts += 1,
                        Change::Gone { .. } => {}
                    }
                }
                self.alert_changes(g, d, &changes, now, report)?;
                self.settle(d, tid)?;
            }
            Err(e) => {
                self.failed(g, tid, &e, now, report)?;
                if !close_due {
                    return Ok(());
                }
                // At the close the day stays open: no final tally from a record that may miss
                // the last ballots. The next cycle tries again (the scheduler backs off), and
                // the tally is made at the real cutoff once the thread is read.
                stale = true;
            }
        }

        let lurk_on = lurk_on(g);
        let lurk_read = self
            .read_day_threads(g, d, round, close_due, now, report)
            .await?;

        if !state_read {
            return Ok(());
        }
        let failures = report.fetch_failures;
        let tally = self.tally_day(g, d, round, now, report).await?;
        stale |= report.fetch_failures > failures;
        self.keep_view(g, d, round, &tally, now)?;

        let effects = decide::day(
            &decide::DayInput {
                game: g,
                day: d,
                tally: &tally,
                record: &record,
                stale,
                interim_every_hours: self.settings().poll.interim_every_hours,
                // The day's 潜水 comes after its last round (a run-off is part of the day, 001
                // L208), with round 2's duty where every living player votes (chuhan L118,
                // qipan L136).
                lurk: lurk_on && (round == 2 || !decide::runoff_follows(g, d, &tally)),
                lurk_stale: !lurk_read,
            },
            now,
        );
        self.carry_out(g, d, &tally, &effects, now, report)?;
        // A final held for the poll's lists holds what follows from the final too.
        let stale = stale || (close_due && decide::held_for_poll(&tally));
        if close_due && !stale {
            self.round_closed(g, d, round, &tally, now, report)?;
        }
        Ok(())
    }

    /// The day's threads besides the vote thread (read in `watch_day`): the other threads
    /// counted for 潜水 and the threads players opened themselves on the board (chuhan), in
    /// round 2 too, whose debate is part of the day (001 L208); round 1's required posts and
    /// acceleration requests. Whether 潜水's threads were all read (true where 潜水 is off).
    async fn read_day_threads(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        round: u32,
        close_due: bool,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<bool> {
        let lurk_read = !lurk_on(g) || self.read_lurk_threads(g, d, close_due, now, report).await?;
        if round == 1 {
            // Threads of required posts (报道, 杀帖): check each new or edited post once.
            self.read_checked_threads(g, d, close_due, now, report)
                .await?;
            // m103: acceleration requests in the progress thread; the judge is told once when
            // more than half of the living have asked.
            if let Some(pt) = d
                .progress_thread
                .filter(|_| !g.rules.acceleration.request.is_empty() && !d.accelerated_by(now))
            {
                self.watch_acceleration(g, d, pt, now, report).await?;
            }
        }
        Ok(lurk_read)
    }

    /// The round's view for the dashboard: its tally, 潜水 so far and the day's flags (round 1).
    fn keep_view(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        round: u32,
        tally: &Tally,
        now: Time,
    ) -> anyhow::Result<()> {
        let lurk = if lurk_on(g) && round == 1 {
            self.lurk_report(g, d, tally, now.min(d.last_close()), now)?
        } else {
            None
        };
        let flags = if round == 1 {
            self.day_flags(g, d, now.min(d.closes_at), now)?
        } else {
            Vec::new()
        };
        if let Ok(mut views) = self.views.lock() {
            views.insert(
                (g.name.clone(), d.day, round),
                DayView {
                    game: g.clone(),
                    day: d.clone(),
                    tally: tally.clone(),
                    lurk,
                    flags,
                },
            );
        }
        Ok(())
    }

    /// What a round's final, made at its close and not held, leaves in the record: the final
    /// itself (for the confirmation), round 1's roll call, day 1's sheriff, round 2's
    /// candidates (or none, when a final made again no longer ties).
    fn round_closed(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        round: u32,
        tally: &Tally,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        // What the judge confirms the day from (`confirm_day`), at the round's close.
        self.store.set_meta(
            &final_key(g, d.day, round),
            &Final {
                outcome: tally.outcome.clone(),
                close: d.closes_at,
            },
        )?;
        if round == 1 {
            self.roll_call(g, d, now, report)?;
        }
        // m103: day 1's vote elected the sheriff, whose vote weighs more from day 2 on.
        if round == 1 && tally.outcome.kind == rules::OutcomeKind::Sheriff {
            if let Some(s) = tally.outcome.players.first() {
                self.store.set_meta(&format!("sheriff/{}", g.id), s)?;
            }
        }
        // Round 1 closed in a tie that goes to round 2: the candidates, for the run-off.
        let to_round_two = matches!(
            tally.outcome.kind,
            rules::OutcomeKind::Runoff | rules::OutcomeKind::Overtime
        );
        let (candidates, places) = (
            format!("runoff_candidates/{}/{}", g.id, d.day),
            format!("runoff_places/{}/{}", g.id, d.day),
        );
        if round == 1 && to_round_two {
            self.store.set_meta(&candidates, &tally.outcome.players)?;
            match tally.outcome.places {
                Some(n) => self.store.set_meta(&places, &n)?,
                None => self.store.remove_meta(&places)?,
            }
        } else if round == 1 {
            // A final made again (a later close, a ruling) that no longer ties: no round 2.
            self.store.remove_meta(&candidates)?;
            self.store.remove_meta(&places)?;
        }
        Ok(())
    }

    /// Why day `d`'s close cannot be one, if it cannot (`window::misplaced_close`, with the
    /// vote thread's first post as recorded).
    fn misplaced(&self, g: &GameConfig, d: &DayConfig) -> anyhow::Result<Option<String>> {
        let first = match d.vote_thread {
            Some(tid) => self.store.first_posted_at(tid)?,
            None => None,
        };
        Ok(rules::window::misplaced_close(g, d, first))
    }

    /// A day held for a close that cannot be one (a typo of the date), from `watch_day` right
    /// after the vote thread's read: the judge is mailed once for that close,
    /// and each cycle's report (the status, the dashboard) says it; no final, 潜水, ledger
    /// entry or void ballot mail is made from it.
    fn hold_misplaced(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        why: &str,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        report.errors.push(format!(
            "{}：{why}（这一天暂不统计，改正配置后重新启动）",
            g.name
        ));
        let key = format!("misplaced/{}/{}/{}", g.id, d.day, d.closes_at.timestamp());
        self.queue(&key, report, || mails::close_misplaced(g, d, why, now))?;
        Ok(())
    }

    /// Read the threads counted for 潜水 other than the vote thread (read in full at the
    /// close), with the board's list of threads players opened themselves where they count,
    /// and an earlier day's thread of a run of days the record lacks (`earlier_unread`).
    /// Returns whether every counted thread was read.
    async fn read_lurk_threads(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        close_due: bool,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<bool> {
        let mut all_read = true;
        let mut lurk_threads = crate::domain::rules::lurk::threads_of(g, d);
        if g.rules.lurk.player_threads {
            if let Some(fid) = g.board {
                match self.forum.thread_list(fid).await {
                    Ok(list) => {
                        let key = format!("board/{}", g.id);
                        let mut known: Vec<bansha_parsers::threadlist::ThreadEntry> =
                            self.store.get_meta(&key)?.unwrap_or_default();
                        for t in list.threads {
                            match known.iter_mut().find(|k| k.tid == t.tid) {
                                Some(k) => *k = t,
                                None => known.push(t),
                            }
                        }
                        self.store.set_meta(&key, &known)?;
                    }
                    Err(e) => report.errors.push(format!("board {fid}: {e}")),
                }
            }
            lurk_threads.extend(self.player_threads(g, d)?);
            lurk_threads.sort_unstable();
            lurk_threads.dedup();
        }
        // The earlier days of a run of days (m103) come from the record; a thread of theirs
        // it lacks is read in full, once.
        let earlier = self.earlier_unread(g, d)?;
        {
            let lurk_threads = lurk_threads
                .into_iter()
                .filter(|t| Some(*t) != d.vote_thread)
                .map(|t| (t, close_due))
                .chain(earlier.into_iter().map(|(t, _)| (t, true)));
            for (t, full) in lurk_threads {
                match self.read_thread(t, full, now).await? {
                    Ok(changes) => {
                        report.new_posts += changes
                            .iter()
                            .filter(|c| matches!(c, Change::New { .. }))
                            .count();
                        self.settle(d, t)?;
                    }
                    Err(e) => {
                        self.failed(g, t, &e, now, report)?;
                        all_read = false;
                    }
                }
            }
        }
        Ok(all_read)
    }

    /// Read the day's threads of required posts (报道, 杀帖) and check each new or edited post.
    async fn read_checked_threads(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        close_due: bool,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        for ct in &d.checked_threads {
            match self.read_thread(ct.tid, close_due, now).await? {
                Ok(changes) => {
                    report.new_posts += changes
                        .iter()
                        .filter(|c| matches!(c, Change::New { .. }))
                        .count();
                    self.check_posts(g, d, ct, &changes, now, report)?;
                    self.store.settle(ct.tid)?;
                }
                Err(e) => self.failed(g, ct.tid, &e, now, report)?,
            }
        }
        Ok(())
    }

    /// The day's tally at `now` from the record: the vote thread's posts (as they stood at the
    /// close, after it), plus the ballots that are not thread posts (the poll, read now; the
    /// judge's inbox). A failed read of those counts in `report.fetch_failures`.
    async fn tally_day(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        round: u32,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<Tally> {
        let tid = d.vote_thread.expect("active days have a vote thread");
        // After the close: the posts as they stood at the close (an edit after it is not
        // applied), with the ballots posted since judged late, and without those the close's
        // own read no longer found (deleted before the close, or too near it to tell).
        let posts = if now >= d.closes_at {
            self.store.posts_at_close(tid, d.closes_at, now)?
        } else {
            self.store.posts_as_of(tid, now)?
        };
        // Ballots that are not thread posts: the poll (bansha42), the judge's inbox (qipan).
        let (posts, poll) = match g.rules.vote.source {
            BallotSource::Thread => (posts, Default::default()),
            BallotSource::Poll => (posts, self.read_poll(g, tid, now, report).await?),
            BallotSource::Pm => (self.read_pms(g, d, now, report).await?, Default::default()),
        };
        let rulings = self.rulings(g)?;
        Ok(rules::tally_of(
            g,
            d.day,
            round,
            now,
            &rules::Inputs {
                posts: &posts,
                casts: &poll.casts,
                poll_gaps: &poll.gaps,
                rulings: &rulings,
            },
        )?)
    }

    /// Do what `decide::day` found due, in its order.
    fn carry_out(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        tally: &Tally,
        effects: &[decide::Effect],
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        use decide::Effect;
        // Many void ballots new at once (the first read of a day already under way): one
        // digest, each ballot in it, rather than a mail each.
        let mut fresh: Vec<(&String, &rules::Ballot)> = Vec::new();
        for e in effects {
            if let Effect::Void { key, pid } = e {
                if let Some(b) = tally.ballots.iter().find(|b| b.pid == Some(*pid)) {
                    if !self.store.mail_known(key)? {
                        fresh.push((key, b));
                    }
                }
            }
        }
        let digest = fresh.len() >= decide::VOID_DIGEST_MIN;
        // On a day with a run-off every mail about a ballot names its round.
        let round =
            (tally.round == 2 || decide::runoff_follows(g, d, tally)).then_some(tally.round);
        if digest {
            let base = &self.settings().forum.base_url;
            let ballots: Vec<&rules::Ballot> = fresh.iter().map(|(_, b)| *b).collect();
            let key = format!("voids/{}/{}/{}", g.id, d.day, now.timestamp());
            let mail = mails::void_digest(g, d, &ballots, base, d.vote_thread, round, now);
            if self.store.enqueue(&key, &mail)? {
                report.mails_queued += 1;
            }
            for (k, _) in &fresh {
                self.store.cover(k)?;
            }
        }
        for e in effects {
            match e {
                Effect::Void { key, pid } => {
                    let Some(b) = tally.ballots.iter().find(|b| b.pid == Some(*pid)) else {
                        continue;
                    };
                    self.queue(key, report, || self.void_mail(g, d, b, *pid, round, now))?;
                }
                Effect::Mail { key, kind } => {
                    self.queue(key, report, || {
                        // The judge's recorded state, for the final's judge-only part.
                        let state = if kind.is_final() {
                            crate::io::state_file::load_state(&crate::io::state_file::state_path(
                                &g.path, None,
                            ))
                            .unwrap_or_default()
                        } else {
                            Default::default()
                        };
                        mails::tally(
                            kind,
                            g,
                            d,
                            tally,
                            &self.drawing(&self.settings()),
                            &state,
                            now,
                        )
                    })?;
                }
                Effect::Done(key) => {
                    self.store.mark_event(key, now)?;
                    if *key == self.key(g, d, "close") {
                        // The close this final was made for: a later one reopens the day.
                        self.store
                            .set_meta(&format!("closed_for/{}/{}", g.id, d.day), &d.closes_at)?;
                        // The rulings it was made with: a change reopens it too.
                        let print = crate::domain::rules::rulings::print(&self.rulings(g)?, d.day);
                        self.store
                            .set_meta(&format!("ruled_for/{}/{}", g.id, d.day), &print)?;
                        // Who could vote, as it was counted: a change reopens it as well.
                        self.store.set_meta(
                            &format!("played_for/{}/{}", g.id, d.day),
                            &decide::Alive::of(d),
                        )?;
                    }
                }
                Effect::Leader { key, seq, leader } => {
                    self.store.set_meta(key, &(*seq, leader.clone()))?
                }
                Effect::Lurk if tally.round == 2 => {
                    // The day's first (its round-1 duty, L136's first 环节), then round 2's.
                    self.day_lurk_after_runoff(g, d, now, report)?;
                    if g.rules.lurk.must_vote {
                        self.runoff_duty(g, d, tally, now, report)?;
                    }
                }
                Effect::Lurk => self.lurk_mail(g, d, tally, now, report)?,
            }
        }
        Ok(())
    }

    /// Check new and edited posts of a required-post thread; mail each failing one once.
    fn check_posts(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        ct: &crate::domain::config::CheckedThread,
        changes: &[Change],
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let Some(rule) = g.rules.checks.get(&ct.kind) else {
            return Ok(());
        };
        // Earlier texts from every thread watched for this day (first versions), for 原创首发.
        let mut watched: Vec<u64> = d.vote_thread.into_iter().collect();
        watched.extend(&d.discussion_threads);
        watched.extend(d.checked_threads.iter().map(|c| c.tid));
        let mut texts: Vec<(u64, Option<Time>, String, String)> = Vec::new();
        for t in watched {
            for rec in self.store.records(t)? {
                if let Some(v) = rec.versions.first() {
                    texts.push((
                        v.post.pid,
                        v.post.posted_at,
                        format!("{} {}（pid {}）", v.post.floor, v.post.author, v.post.pid),
                        v.post.text.clone(),
                    ));
                }
            }
        }
        for c in changes {
            let (pid, edited_now) = match c {
                Change::New { pid } => (*pid, false),
                Change::Edited { pid, .. } => (*pid, true),
                Change::Gone { .. } => continue,
            };
            let Some(rec) = self.store.post_record(ct.tid, pid)? else {
                continue;
            };
            let Some(v) = rec.versions.last() else {
                continue;
            };
            let post = &v.post;
            if !g.roster.players.contains(&post.author) || d.dead.contains(&post.author) {
                continue;
            }
            let quotes: Vec<&str> = post.quotes.iter().map(|q| q.text.as_str()).collect();
            let earlier: Vec<(String, String)> = texts
                .iter()
                .filter(|(p, t, _, _)| {
                    *p != pid && t.zip(post.posted_at).is_some_and(|(a, b)| a < b)
                })
                .map(|(_, _, label, text)| (label.clone(), text.clone()))
                .collect();
            let verdict = crate::domain::rules::checks::check_post(
                rule,
                &post.text,
                &quotes,
                &d.code_names,
                (edited_now || post.edited_at.is_some(), false),
                &earlier,
            );
            if verdict.pass {
                continue;
            }
            let fix_by = rule
                .fix_by_day
                .and_then(|fix_day| g.day(fix_day).map(|x| (fix_day, x.closes_at)));
            let line = mails::check_line(post, &verdict, fix_by);
            let mut failing: Vec<String> =
                self.store.get_meta("check_failures")?.unwrap_or_default();
            failing.push(line.clone());
            self.store.set_meta("check_failures", &failing)?;
            let mail = self.linked(
                mails::check_failed(g, d, post, &verdict, &line, now),
                ct.tid,
                pid,
            );
            if self.store.enqueue(
                &format!("check/{}/{pid}/{}", ct.tid, rec.versions.len()),
                &mail,
            )? {
                report.mails_queued += 1;
            }
        }
        Ok(())
    }

    /// A fetch of `tid` succeeded: its failure streak, if any, is over, and so is a login
    /// problem. (The read after a streak picks up every post made during it, with the forum's
    /// times; 潜水 withholds verdicts only while a counted thread is still unreadable.)
    fn recovered(&self, tid: u64) -> anyhow::Result<()> {
        self.recovered_streak(&tid.to_string())
    }

    /// `recovered` for a failure streak by its name (a thread's tid, `poll_streak` for a poll).
    fn recovered_streak(&self, streak: &str) -> anyhow::Result<()> {
        self.store.remove_meta(&format!("failing_since/{streak}"))?;
        self.store.remove_meta("login_failing_since")?;
        Ok(())
    }

    /// A fetch of `tid` failed: start or continue its failure streak; mail the judge once per
    /// streak after the configured time, and at once (once per streak) when the login needs them.
    pub(crate) fn failed(
        &self,
        g: &GameConfig,
        tid: u64,
        e: &FetchError,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        self.failed_streak(g, tid, &tid.to_string(), e, now, report)
    }

    /// `failed`, continuing the failure streak named `name` (see `recovered_streak`).
    fn failed_streak(
        &self,
        g: &GameConfig,
        tid: u64,
        name: &str,
        e: &FetchError,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let streak = |key: &str| -> anyhow::Result<Time> {
            Ok(match self.store.get_meta::<Time>(key)? {
                Some(t) => t,
                None => {
                    self.store.set_meta(key, &now)?;
                    now
                }
            })
        };
        let since = streak(&format!("failing_since/{name}"))?;
        let failure = decide::Failure {
            tid,
            since,
            login_since: if e.needs_judge() {
                Some(streak("login_failing_since")?)
            } else {
                None
            },
            alert_after_minutes: self.settings().poll.fetch_failure_alert_minutes,
        };
        if let Some(key) = decide::failure_alert(&failure, now) {
            // Days past their close whose final tally waits for this forum.
            let waiting = decide::waiting_days(g, |d| self.close_done(g, d).unwrap_or(true), now);
            let mail = mails::fetch_failed(g, tid, since, &e.zh(), e.needs_judge(), &waiting, now);
            if self.store.enqueue(&key, &mail)? {
                report.mails_queued += 1;
            }
        }
        report.fetch_failures += 1;
        report.errors.push(format!("fetch tid {tid}: {e}"));
        Ok(())
    }

    /// The judge's state file cannot be read: mail the judge at once, once per streak.
    fn state_unreadable(
        &self,
        g: &GameConfig,
        error: &str,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let key = format!("state_failing_since/{}", g.id);
        let since = match self.store.get_meta::<Time>(&key)? {
            Some(t) => t,
            None => {
                self.store.set_meta(&key, &now)?;
                now
            }
        };
        let path = crate::io::state_file::state_path(&g.path, None);
        let mail = mails::state_unreadable(g, &path, error, since, now);
        if self
            .store
            .enqueue(&format!("statefail/{}/{}", g.id, since.timestamp()), &mail)?
        {
            report.mails_queued += 1;
        }
        Ok(())
    }

    /// Threads living players opened during the day, from the stored board list.
    fn player_threads(&self, g: &GameConfig, d: &DayConfig) -> anyhow::Result<Vec<u64>> {
        let list: Vec<bansha_parsers::threadlist::ThreadEntry> = self
            .store
            .get_meta(&format!("board/{}", g.id))?
            .unwrap_or_default();
        let (from, to) = crate::domain::rules::lurk::window(g, d);
        Ok(list
            .iter()
            .filter(|t| g.roster.players.contains(&t.author) && !d.dead.contains(&t.author))
            .filter(|t| {
                t.created_at
                    .is_some_and(|c| from.is_none_or(|f| c > f) && c <= to)
            })
            .map(|t| t.tid)
            .collect())
    }

    /// The threads of the earlier days a day's 潜水 spans (m103's run of days, 002 L314) that
    /// the record has not read in full since that day's close (the daemon did not watch it, or
    /// a read failed): read once, then counted from the record like the rest.
    /// Each with its day's span (the hours its count may miss).
    fn earlier_unread(
        &self,
        g: &GameConfig,
        d: &DayConfig,
    ) -> anyhow::Result<Vec<(u64, (Time, Time))>> {
        let current = crate::domain::rules::lurk::threads_of(g, d);
        let mut seen: Vec<u64> = Vec::new();
        let mut out = Vec::new();
        // Latest day first: a thread counted on several days needs a read after the last.
        for x in crate::domain::rules::lurk::spanned_days(g, d)
            .into_iter()
            .skip(1)
        {
            for t in crate::domain::rules::lurk::threads_of(g, x) {
                if current.contains(&t) || seen.contains(&t) {
                    continue;
                }
                seen.push(t);
                let scanned = self.store.cursor(t)?.last_full_scan;
                if scanned.is_none_or(|s| s < x.closes_at) {
                    out.push((t, crate::domain::rules::lurk::span(g, x)));
                }
            }
        }
        Ok(out)
    }

    /// The day's 潜水 counts from the record as it stood at `as_of`.
    fn lurk_report(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        tally: &Tally,
        as_of: Time,
        now: Time,
    ) -> anyhow::Result<Option<crate::domain::rules::lurk::LurkReport>> {
        let mut posts = Vec::new();
        let own = if g.rules.lurk.player_threads {
            self.player_threads(g, d)?
        } else {
            Vec::new()
        };
        // Every day the count spans (m103's run of days), the earlier ones from the record.
        for t in crate::domain::rules::lurk::spanned_threads(g, d)
            .into_iter()
            .chain(own)
        {
            // As the latest read found it: a post that read no longer showed is not counted.
            posts.extend(self.store.posts_at_close(t, as_of, now)?);
        }
        let board: Vec<bansha_parsers::threadlist::ThreadEntry> = self
            .store
            .get_meta(&format!("board/{}", g.id))?
            .unwrap_or_default();
        // Counted threads unreadable right now: their counts may be short. An earlier day of a
        // run whose thread the record lacks in full: that day's count may be short.
        let mut outages: Vec<(Time, Time)> = Vec::new();
        for t in crate::domain::rules::lurk::threads_of(g, d) {
            if let Some(since) = self.store.get_meta::<Time>(&format!("failing_since/{t}"))? {
                outages.push((since, now));
            }
        }
        outages.extend(self.earlier_unread(g, d)?.into_iter().map(|(_, span)| span));
        let voters = tally.voted();
        Ok(crate::domain::rules::lurk::lurk(
            g,
            d.day,
            &posts,
            &outages,
            Some(&voters),
            &board,
        ))
    }

    /// At the close of a required post's last day to fix it (bansha42's reports: day 1, L48),
    /// the roll-call of the living players, mailed to the judge once.
    fn roll_call(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        for (kind, rule) in g
            .rules
            .checks
            .iter()
            .filter(|(_, r)| r.fix_by_day == Some(d.day))
        {
            let threads: Vec<u64> = g
                .days
                .iter()
                .filter(|x| x.day <= d.day)
                .flat_map(|x| x.checked_threads.iter())
                .filter(|c| &c.kind == kind)
                .map(|c| c.tid)
                .collect();
            if threads.is_empty() {
                continue;
            }
            let mut posts = Vec::new();
            for t in threads {
                posts.extend(self.store.posts_at_close(t, d.closes_at, now)?);
            }
            posts.sort_by_key(|p| p.posted_at);
            let quotes: Vec<Vec<&str>> = posts
                .iter()
                .map(|p| p.quotes.iter().map(|q| q.text.as_str()).collect())
                .collect();
            let submitted: Vec<crate::domain::rules::checks::Submitted> = posts
                .iter()
                .zip(&quotes)
                .map(|(p, q)| crate::domain::rules::checks::Submitted {
                    author: &p.author,
                    floor: &p.floor,
                    text: &p.text,
                    quotes: q.clone(),
                    edited: p.edited_at.is_some(),
                })
                .collect();
            let living: Vec<String> = g
                .roster
                .players
                .iter()
                .filter(|p| !d.dead.contains(p))
                .cloned()
                .collect();
            let redo = rule.redo_kind.as_ref().and_then(|k| g.rules.checks.get(k));
            let roll = crate::domain::rules::checks::roll_call(
                rule,
                redo,
                &submitted,
                &living,
                &d.challenged,
                &d.code_names,
            );
            let key = self.key(g, d, &format!("rollcall-{kind}"));
            self.queue(&key, report, || {
                mails::roll_call(g, d, &rule.label, &roll, now)
            })?;
        }
        Ok(())
    }

    /// The posts of the day's game threads (vote, discussion, progress) the judge should look
    /// at, from the record as it stood at `as_of` (`rules::flags`).
    fn day_flags(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        as_of: Time,
        now: Time,
    ) -> anyhow::Result<Vec<crate::domain::rules::flags::Flag>> {
        let f = &g.rules.flags;
        let any = f.red_font
            || f.large_font
            || f.dead_players
            || f.spectators
            || f.max_quote_chars.is_some()
            || !f.keywords.is_empty();
        if !any {
            return Ok(Vec::new());
        }
        let mut threads: Vec<u64> = d.vote_thread.into_iter().collect();
        threads.extend(&d.discussion_threads);
        threads.extend(d.progress_thread);
        threads.dedup();
        let mut posts = Vec::new();
        for t in threads {
            posts.extend(self.store.posts_at_close(t, as_of, now)?);
        }
        Ok(crate::domain::rules::flags::flags(g, d, &posts))
    }

    /// What tally mails are drawn with: the forum's address and the machine's fonts (loaded
    /// once for the mails of a minute, `io::fonts::system`).
    fn drawing<'a>(&self, settings: &'a Settings) -> crate::present::html::Drawing<'a> {
        crate::present::html::Drawing {
            forum_base: &settings.forum.base_url,
            fonts: self.fonts.clone().unwrap_or_else(crate::io::fonts::system),
        }
    }

    /// The threads of the watched days that cannot be read, since when (vote, 潜水 and
    /// required-post threads), each once.
    pub fn failing_threads(&self) -> Vec<(u64, Time)> {
        let mut out: Vec<(u64, Time)> = Vec::new();
        for v in self.views() {
            let mut tids: Vec<u64> = v.day.vote_thread.into_iter().collect();
            tids.extend(crate::domain::rules::lurk::threads_of(&v.game, &v.day));
            tids.extend(v.day.checked_threads.iter().map(|c| c.tid));
            for tid in tids {
                if let Ok(Some(since)) =
                    self.store.get_meta::<Time>(&format!("failing_since/{tid}"))
                {
                    if !out.iter().any(|(t, _)| *t == tid) {
                        out.push((tid, since));
                    }
                }
            }
        }
        // A day whose first read failed left no view: its vote thread counts too, and so does
        // a poll that cannot be read (its own streak).
        for g in &self.settings().games {
            for d in &g.days {
                if let Some(tid) = d.vote_thread {
                    for streak in [tid.to_string(), poll_streak(tid)] {
                        if let Ok(Some(since)) = self
                            .store
                            .get_meta::<Time>(&format!("failing_since/{streak}"))
                        {
                            if !out.iter().any(|(t, _)| *t == tid) {
                                out.push((tid, since));
                            }
                        }
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// The edits held in a post's window (`decide::EditWindow`), in one mail.
    fn mail_held_edits(
        &self,
        wkey: &str,
        w: &decide::EditWindow,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let (Some(first), Some((last_seen, last))) = (w.held.first(), w.held.last()) else {
            return Ok(());
        };
        let settings = self.settings();
        let Some(g) = settings.games.iter().find(|g| g.id == w.game) else {
            return Ok(());
        };
        let Some(d) = g.day(w.day) else {
            return Ok(());
        };
        let mail = self.linked(
            mails::edit_storm(g, d, last, w.held.len(), first.0, *last_seen, now),
            last.tid,
            last.pid,
        );
        if self
            .store
            .enqueue(&format!("edits/{wkey}/{}", w.opened.timestamp()), &mail)?
        {
            report.mails_queued += 1;
        }
        Ok(())
    }

    /// Post edit windows that have closed: their held edits are mailed, and the next edit of
    /// the post is mailed at once again.
    fn close_edit_windows(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<()> {
        let mut windows: std::collections::BTreeMap<String, decide::EditWindow> =
            self.store.get_meta("edit_windows")?.unwrap_or_default();
        let closed: Vec<String> = windows
            .iter()
            .filter(|(_, w)| decide::window_closed(w, now))
            .map(|(k, _)| k.clone())
            .collect();
        if closed.is_empty() {
            return Ok(());
        }
        for k in closed {
            if let Some(w) = windows.remove(&k) {
                self.mail_held_edits(&k, &w, now, report)?;
            }
        }
        self.store.set_meta("edit_windows", &windows)?;
        Ok(())
    }

    /// How many times a day was reopened by a later close.
    fn revision(&self, g: &GameConfig, d: &DayConfig) -> u32 {
        self.revision_of(&g.id, d.day)
    }

    fn revision_of(&self, id: &str, day: u32) -> u32 {
        self.store
            .get_meta(&format!("revision/{id}/{day}"))
            .ok()
            .flatten()
            .unwrap_or(0)
    }

    /// The store key of a day's one-time event, in its current revision.
    pub(crate) fn key(&self, g: &GameConfig, d: &DayConfig, what: &str) -> String {
        self.key_of(&g.id, d.day, what)
    }

    /// `key` of a game id and a day.
    fn key_of(&self, id: &str, day: u32, what: &str) -> String {
        decide::event_key_of(id, day, what, self.revision_of(id, day))
    }

    /// Days whose final was made for an earlier close than the config now says (the judge
    /// extended the deadline and restarted): reopened under new keys, and the judge is told
    /// the earlier final is withdrawn.
    fn reopen_moved(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<()> {
        for g in &self.settings().games {
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                let key = format!("closed_for/{}/{}", g.id, d.day);
                let closed_for: Option<Time> = self.store.get_meta(&key)?;
                if !decide::reopened(d, closed_for) {
                    continue;
                }
                let old = closed_for.expect("reopened days were closed");
                let revision = self.revision(g, d) + 1;
                self.store
                    .set_meta(&format!("revision/{}/{}", g.id, d.day), &revision)?;
                self.store.remove_meta(&key)?;
                let mail = mails::withdrawn(g, d, old, now);
                if self.store.enqueue(
                    &format!("withdrawn/{}/{}/{}", g.id, d.day, old.timestamp()),
                    &mail,
                )? {
                    report.mails_queued += 1;
                }
                crate::io::log::line(&format!(
                    "{} 第 {} 天：截止时间由 {old} 改为 {}；重新开放（第 {revision} 版）",
                    g.name, d.day, d.closes_at
                ));
            }
        }
        Ok(())
    }

    /// The judge's rulings on the game (both rounds share them), undone ones included.
    fn rulings(
        &self,
        g: &GameConfig,
    ) -> anyhow::Result<Vec<crate::domain::rules::rulings::Ruling>> {
        Ok(self
            .store
            .get_meta(&format!("rulings/{}", decide::round_one_id(&g.id)))?
            .unwrap_or_default())
    }

    /// Closed rounds whose day the judge ruled on (or undid a ruling of) after the final, or
    /// whose voters changed after it (the judge's state, recorded late or undone, or the
    /// config's `dead`, put a voter out or back): each is opened in a new revision, and the
    /// cycle makes its final again from the record as of the close with the rulings and the
    /// state as they now stand (a corrected final, once).
    fn reopen_ruled(&self) -> anyhow::Result<()> {
        for g in &self.settings().games {
            let rulings = self.rulings(g)?;
            // A state that cannot be read changes nothing here (the cycle tells the judge).
            let played = self.as_played(g).ok();
            let mut g2 = g.clone();
            g2.id = decide::round_two_id(g);
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                let print = crate::domain::rules::rulings::print(&rulings, d.day);
                let alive = played
                    .as_ref()
                    .and_then(|p| p.day(d.day))
                    .map(decide::Alive::of);
                for (round, game) in [(1, g), (2, &g2)] {
                    let close_done = self.store.event_done(&self.key(game, d, "close"))?;
                    if !close_done {
                        continue;
                    }
                    let mut why = Vec::new();
                    let at_final: Option<decide::Alive> = self
                        .store
                        .get_meta(&format!("played_for/{}/{}", game.id, d.day))?;
                    if let (Some(then), Some(now)) = (&at_final, &alive) {
                        why.extend(then.changed_to(now));
                    }
                    let at_final: Option<String> = self
                        .store
                        .get_meta(&format!("ruled_for/{}/{}", game.id, d.day))?;
                    if decide::ruled_again(close_done, at_final.as_deref(), &print) {
                        why.push(format!(
                            "法官在最终计票之后改了这一天的裁定（{}）",
                            crate::domain::rules::rulings::changes(
                                &rulings,
                                d.day,
                                at_final.as_deref().unwrap_or_default(),
                            )
                        ));
                    }
                    if why.is_empty() {
                        continue;
                    }
                    let revision = self.revision(game, d) + 1;
                    self.store
                        .set_meta(&format!("revision/{}/{}", game.id, d.day), &revision)?;
                    let why = why.join("；");
                    self.store.set_meta(&self.key(game, d, "corrected"), &why)?;
                    crate::io::log::line(&format!(
                        "{} 第 {} 天 第 {round} 轮：最终计票后裁定或存活名单有变；已重新计票（第 {revision} 版）",
                        g.name, d.day
                    ));
                }
            }
        }
        Ok(())
    }

    /// Closed days this process has no view of (it started after their close): drawn from the
    /// record as their final was — the posts as they stood at the close, the poll's and the
    /// inbox's ballots as logged, the judge's rulings — so the dashboard keeps showing them.
    /// Nothing is read from the forum.
    fn keep_closed_views(&self, now: Time) -> anyhow::Result<()> {
        for g in &self.settings().games {
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                let key = (g.name.clone(), d.day, 1);
                if self.views.lock().map_or(true, |v| v.contains_key(&key))
                    || !self.close_done(g, d)?
                {
                    continue;
                }
                let Some((g, d, tally)) = self.closed_day(g, d.day, now)? else {
                    continue;
                };
                let lurk_on = g.rules.lurk.min_posts > 0 || g.rules.lurk.must_vote;
                let lurk = if lurk_on {
                    self.lurk_report(&g, &d, &tally, d.last_close(), now)?
                } else {
                    None
                };
                let flags = self.day_flags(&g, &d, d.last_close(), now)?;
                if let Ok(mut views) = self.views.lock() {
                    views.insert(
                        key,
                        DayView {
                            game: g.clone(),
                            day: d,
                            tally,
                            lurk,
                            flags,
                        },
                    );
                }
            }
        }
        Ok(())
    }

    /// A closed day as its final was made, from the record: the game with the judge's state
    /// and the sheriff carried on, the day, and round 1's tally. None when the state file
    /// cannot be read (the day's own pass tells the judge) or the day is not configured.
    fn closed_day(
        &self,
        g: &GameConfig,
        day: u32,
        now: Time,
    ) -> anyhow::Result<Option<(GameConfig, DayConfig, Tally)>> {
        let Ok(g) = self.as_played(g) else {
            return Ok(None);
        };
        let Some(d) = g.day(day).cloned() else {
            return Ok(None);
        };
        let tally = self.recorded_tally(&g, &d, now)?;
        Ok(Some((GameConfig::clone(&g), d, tally)))
    }

    /// Round 1 of a closed day tallied from the record (`recorded_ballots`) with the judge's
    /// rulings.
    fn recorded_tally(&self, g: &GameConfig, d: &DayConfig, now: Time) -> anyhow::Result<Tally> {
        let (posts, poll) = self.recorded_ballots(g, d, now)?;
        let rulings = self.rulings(g)?;
        let inputs = rules::Inputs {
            posts: &posts,
            casts: &poll.casts,
            poll_gaps: &poll.gaps,
            rulings: &rulings,
        };
        Ok(rules::tally_of(g, d.day, 1, now, &inputs)?)
    }

    /// A closed day's ballots as the record holds them: the vote thread's posts as they stood
    /// at the close, the poll's votes as logged, the inbox's messages as kept.
    fn recorded_ballots(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        now: Time,
    ) -> anyhow::Result<(Vec<bansha_parsers::Post>, rules::channels::PollLog)> {
        let tid = d.vote_thread.expect("days with a vote thread");
        let posts = self.store.posts_at_close(tid, d.closes_at, now)?;
        Ok(match g.rules.vote.source {
            BallotSource::Thread => (posts, Default::default()),
            BallotSource::Poll => {
                let log: rules::channels::PollLog = self
                    .store
                    .get_meta(&format!("poll/{tid}/log"))?
                    .unwrap_or_default();
                (posts, log)
            }
            BallotSource::Pm => {
                let messages = self.store.private_messages()?;
                (
                    rules::channels::pm_posts(g, d, messages.values()),
                    Default::default(),
                )
            }
        })
    }

    /// The watched days as the last cycle left them, by game and day.
    pub fn views(&self) -> Vec<DayView> {
        self.views
            .lock()
            .map(|v| v.values().cloned().collect())
            .unwrap_or_default()
    }

    fn lurk_mail(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        tally: &Tally,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let Some(lurk) = self.lurk_report(g, d, tally, d.last_close(), now)? else {
            return Ok(());
        };
        // Automatic ledger entries, one per lurker and day (a count made again withdraws
        // those it no longer finds).
        let fresh = crate::domain::rules::ledger::lurk_entries(g, d.day, &lurk, now);
        self.recount(&g.id, &fresh, &format!("auto-lurk-d{}-", d.day))?;
        let entries = self.store.ledger(&g.id)?;
        let standings = crate::domain::rules::ledger::standings(
            &entries,
            &g.roster.players,
            &g.rules.discipline,
        );
        // What the judge is told now: a later recording that changes it is mailed again
        // (`ledger_after_close`).
        self.store.set_meta(
            &format!("verdicts/{}", g.id),
            &crate::domain::rules::ledger::verdicts(&entries, &standings),
        )?;
        self.store
            .set_meta(&format!("night_moves/{}/{}", g.id, d.day), &night_moves(d))?;
        let key = self.key(g, d, "lurk");
        let flags = self.day_flags(g, d, d.last_close(), now)?;
        let mut mail = mails::lurk(g, d, &lurk, &entries, &standings, now);
        mail.body += &mails::flags(&flags, &self.settings().forum.base_url);
        if self.store.enqueue(&key, &mail)? {
            report.mails_queued += 1;
        }
        Ok(())
    }

    /// A day's 潜水 held at its round 2's close (a counted thread unreadable then): the counted
    /// threads read again each cycle, within two days of that close, and the day's 潜水 (and
    /// round 2's duty, where voting is one) mailed once they all read.
    async fn held_runoff_lurk(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<()> {
        for g in &self.settings().games {
            if g.rules.lurk.min_posts == 0 && !g.rules.lurk.must_vote {
                continue;
            }
            for d in g.days.iter().filter(|d| d.vote_thread.is_some()) {
                let Some(r) = self.runoff_of(g, d)? else {
                    continue;
                };
                let (g2, d2) = decide::round_two(g, d, &r);
                let window = d2.closes_at..=d2.closes_at + chrono::Duration::days(2);
                if !window.contains(&now)
                    || !self.store.event_done(&self.key(&g2, &d2, "close"))?
                    || self.store.mail_known(&self.key(g, d, "lurk"))?
                {
                    continue;
                }
                let Ok(played) = self.as_played(g) else {
                    continue;
                };
                let Some(d) = played.day(d.day) else {
                    continue;
                };
                let (g2, d2) = decide::round_two(&played, d, &r);
                if !self.read_lurk_threads(&g2, &d2, true, now, report).await? {
                    continue;
                }
                self.day_lurk_after_runoff(&g2, &d2, now, report)?;
                if g.rules.lurk.must_vote {
                    let tally = self.tally_day(&g2, &d2, 2, now, report).await?;
                    self.runoff_duty(&g2, &d2, &tally, now, report)?;
                }
            }
        }
        Ok(())
    }

    /// Round 2 of a day closed: the day's 潜水, held from round 1's close, over the whole day
    /// (to round 2's close), under round 1's game and keys, with round 1's voters (the day's
    /// duty to vote, L118; round 2's own is `runoff_duty`).
    fn day_lurk_after_runoff(
        &self,
        g2: &GameConfig,
        d: &DayConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let mut g = g2.clone();
        g.id = decide::round_one_id(&g2.id).to_string();
        let Some(d) = g.day(d.day).cloned() else {
            return Ok(());
        };
        if self.store.mail_known(&self.key(&g, &d, "lurk"))? {
            return Ok(());
        }
        let round_one = self.recorded_tally(&g, &d, now)?;
        self.lurk_mail(&g, &d, &round_one, now, report)
    }

    /// A closed round 2 where every living player must vote: a ledger entry for each who did
    /// not (kept with round 1's, under the game's own id), and the judge is told once.
    fn runoff_duty(
        &self,
        g2: &GameConfig,
        d: &DayConfig,
        tally: &Tally,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let entries = crate::domain::rules::ledger::runoff_entries(g2, tally, now);
        let game_id = decide::round_one_id(&g2.id);
        self.recount(game_id, &entries, &format!("auto-lurk-d{}r2-", d.day))?;
        if entries.is_empty() {
            return Ok(());
        }
        let ledger = self.store.ledger(game_id)?;
        let standings = crate::domain::rules::ledger::standings(
            &ledger,
            &g2.roster.players,
            &g2.rules.discipline,
        );
        self.store.set_meta(
            &format!("verdicts/{game_id}"),
            &crate::domain::rules::ledger::verdicts(&ledger, &standings),
        )?;
        let key = self.key(g2, d, "lurk");
        self.queue(&key, report, || {
            mails::runoff_duty(g2, d, &entries, &ledger, &standings, now)
        })?;
        Ok(())
    }

    /// Duties missed recorded after a day's end-of-day mail (qipan 003 L110–L114: the night
    /// move falls after the close; L136; m103 002 L316): a day whose `missed_night_moves` (the
    /// judge's, and those a confirmed night recorded) changed since its 潜水 was counted is
    /// counted again (its automatic entries updated).
    /// Then, whatever was recorded (those, or entries the judge added or struck out with
    /// `bansha ledger`, the service running or not), a change in what the ledger decides
    /// (`ledger::verdicts`) is mailed as a corrected ledger, with the 潜水 lines of the days
    /// it touches as they now read.
    fn ledger_after_close(
        &self,
        g: &GameConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let lurk_on = g.rules.lurk.min_posts > 0 || g.rules.lurk.must_vote;
        // The days as played: a confirmed night's missed duties (`night::missed_to_days`) are
        // in no config, only in the state.
        let played = self
            .as_played(g)
            .unwrap_or_else(|_| std::sync::Arc::new(g.clone()));
        for d in played
            .days
            .iter()
            .filter(|d| d.vote_thread.is_some() && lurk_on)
        {
            let key = format!("night_moves/{}/{}", g.id, d.day);
            let counted: Option<Vec<String>> = self.store.get_meta(&key)?;
            if counted.is_none_or(|c| c == night_moves(d)) || !self.close_done(g, d)? {
                continue;
            }
            let Some((gs, ds, tally)) = self.closed_day(g, d.day, now)? else {
                continue;
            };
            let Some(lurk) = self.lurk_report(&gs, &ds, &tally, ds.closes_at, now)? else {
                continue;
            };
            let fresh = crate::domain::rules::ledger::lurk_entries(g, d.day, &lurk, now);
            self.recount(&g.id, &fresh, &format!("auto-lurk-d{}-", d.day))?;
            self.store.set_meta(&key, &night_moves(d))?;
            crate::io::log::line(&format!(
                "{} 第 {} 天：截止后记录了夜间行动；潜水重新统计",
                g.name, d.day
            ));
        }
        let entries = self.store.ledger(&g.id)?;
        let standings = crate::domain::rules::ledger::standings(
            &entries,
            &g.roster.players,
            &g.rules.discipline,
        );
        let now_said = crate::domain::rules::ledger::verdicts(&entries, &standings);
        let key = format!("verdicts/{}", g.id);
        let said: Option<std::collections::BTreeMap<String, String>> = self.store.get_meta(&key)?;
        let Some(said) = said else {
            // Nothing told yet: the first end-of-day mail tells it.
            return Ok(());
        };
        if said == now_said {
            return Ok(());
        }
        let changed: Vec<(String, String, String)> = now_said
            .keys()
            .chain(said.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|p| said.get(*p) != now_said.get(*p))
            .map(|p| {
                let get = |m: &std::collections::BTreeMap<String, String>| {
                    m.get(p).cloned().unwrap_or_default()
                };
                (p.clone(), get(&said), get(&now_said))
            })
            .collect();
        // The closed days the changed players' entries are on, with their 潜水 as it now reads.
        let mut days: Vec<u32> = entries
            .iter()
            .filter(|e| changed.iter().any(|(p, _, _)| *p == e.player))
            .filter_map(|e| e.day)
            .collect();
        days.sort_unstable();
        days.dedup();
        let mut lurks = Vec::new();
        for day in days {
            let Some(d) = g.day(day) else { continue };
            if !self.close_done(g, d)? {
                continue;
            }
            if let Some((gs, ds, tally)) = self.closed_day(g, day, now)? {
                if let Some(l) = self.lurk_report(&gs, &ds, &tally, ds.closes_at, now)? {
                    lurks.push(l);
                }
            }
        }
        let n: u32 = self
            .store
            .get_meta(&format!("verdicts_mailed/{}", g.id))?
            .unwrap_or(0)
            + 1;
        let mail = mails::ledger_corrected(g, &changed, &lurks, &entries, &standings, now);
        if self.store.enqueue(&format!("ledger/{}/{n}", g.id), &mail)? {
            report.mails_queued += 1;
        }
        self.store
            .set_meta(&format!("verdicts_mailed/{}", g.id), &n)?;
        self.store.set_meta(&key, &now_said)?;
        Ok(())
    }

    /// The rules' reminders due now (m103's night deadlines), each mailed once.
    fn remind(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<()> {
        for g in &self.settings().games {
            for d in &g.days {
                let due = decide::reminders_due(g, d, now);
                // A held day's close is no deadline (`hold_misplaced`).
                if due.is_empty() || self.misplaced(g, d)?.is_some() {
                    continue;
                }
                for (key, i, at) in due {
                    let r = &g.rules.reminder[i];
                    let mut text = r.text.clone();
                    if !r.verdict_kinds.is_empty() && !self.store.mail_known(&key)? {
                        text += &self.deadline_verdicts(g, d, &r.verdict_kinds, at, now)?;
                    }
                    self.queue(&key, report, || mails::reminder(g, d, &text, at, now))?;
                }
            }
        }
        Ok(())
    }

    /// The posts of `kinds` in the game's checked threads posted between day `d`'s close and
    /// the deadline `at`, each with its verdict, as lines for the deadline's mail.
    fn deadline_verdicts(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        kinds: &[String],
        at: Time,
        now: Time,
    ) -> anyhow::Result<String> {
        let mut lines = Vec::new();
        for kind in kinds {
            let Some(rule) = g.rules.checks.get(kind) else {
                continue;
            };
            let mut tids: Vec<u64> = g
                .days
                .iter()
                .flat_map(|x| x.checked_threads.iter())
                .filter(|c| &c.kind == kind)
                .map(|c| c.tid)
                .collect();
            tids.sort();
            tids.dedup();
            for tid in tids {
                for p in self.store.posts_at_close(tid, at, now)? {
                    let in_time = p.posted_at.is_some_and(|t| t > d.closes_at && t <= at);
                    if !in_time || !g.roster.players.contains(&p.author) {
                        continue;
                    }
                    let quotes: Vec<&str> = p.quotes.iter().map(|q| q.text.as_str()).collect();
                    let v = crate::domain::rules::checks::check_post(
                        rule,
                        &p.text,
                        &quotes,
                        &d.code_names,
                        (p.edited_at.is_some(), false),
                        &[],
                    );
                    lines.push(format!(
                        "  {} {} {}（{} 字）：{}",
                        rule.label,
                        p.floor,
                        p.author,
                        v.figures.total.words,
                        if v.pass {
                            "合格".to_string()
                        } else {
                            format!("不合格——{}", v.failures.join("；"))
                        }
                    ));
                }
            }
        }
        Ok(if lines.is_empty() {
            "\n\n截止前在交帖帖子里没有收到这类杀帖（交给哨子的请自行核对）。".into()
        } else {
            format!("\n\n截止前在交帖帖子里收到的：\n{}", lines.join("\n"))
        })
    }

    /// A mail about one post, with the post's floor link below (the judge clicks through
    /// rather than looking up a pid).
    fn linked(&self, mut mail: Mail, tid: u64, pid: u64) -> Mail {
        if tid != 0 {
            mail.body += &format!(
                "\n帖子链接：{}\n",
                crate::present::html::floor_url(&self.settings().forum.base_url, tid, pid)
            );
        }
        mail
    }

    /// The mail about a void ballot, linked to its floor when it is a post of the vote thread.
    fn void_mail(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        b: &rules::Ballot,
        pid: u64,
        round: Option<u32>,
        now: Time,
    ) -> Mail {
        let tid = match b.source {
            rules::tally::Source::Post => d.vote_thread.unwrap_or(0),
            _ => 0,
        };
        self.linked(mails::void_ballot(g, d, b, pid, round, now), tid, pid)
    }

    /// Write a day's automatic ledger entries as counted now (`ledger::recount`).
    fn recount(
        &self,
        game_id: &str,
        fresh: &[crate::domain::rules::ledger::Entry],
        prefix: &str,
    ) -> anyhow::Result<()> {
        let kept = self.store.ledger(game_id)?;
        for entry in crate::domain::rules::ledger::recount(&kept, fresh, prefix) {
            self.store.ledger_put(game_id, &entry)?;
        }
        Ok(())
    }

    /// Queue the mail `make` builds under `key`, unless a mail with that key is queued or sent
    /// already (then it is not built: tally mails draw a chart).
    pub(crate) fn queue(
        &self,
        key: &str,
        report: &mut CycleReport,
        make: impl FnOnce() -> Mail,
    ) -> anyhow::Result<bool> {
        if self.store.mail_known(key)? {
            return Ok(false);
        }
        let queued = self.store.enqueue(key, &make())?;
        if queued {
            report.mails_queued += 1;
        }
        Ok(queued)
    }

    async fn watch_acceleration(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        pt: u64,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        match self.read_thread(pt, false, now).await? {
            Ok(changes) => {
                report.new_posts += changes
                    .iter()
                    .filter(|c| matches!(c, Change::New { .. }))
                    .count();
                self.settle(d, pt)?;
            }
            Err(e) => self.failed(g, pt, &e, now, report)?,
        }
        let posts = self.store.posts_as_of(pt, now)?;
        let Some(a) = rules::acceleration::count(g, d, &posts, now).filter(|a| a.reached()) else {
            return Ok(());
        };
        let mail = mails::acceleration(g, d, pt, &a, now);
        if self
            .store
            .enqueue(&format!("accel/{}/{}", g.id, d.day), &mail)?
        {
            report.mails_queued += 1;
        }
        Ok(())
    }

    /// Read the poll once (only options whose count changed get their voter lists fetched),
    /// log each vote as first seen, and return the log: every vote logged so far, and where the
    /// last reading's counts and voter lists disagree. A failed reading is reported like a
    /// failed page (a failure streak of its own: the thread it sits in may read fine) and leaves
    /// the log as it was.
    async fn read_poll(
        &self,
        g: &GameConfig,
        tid: u64,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<rules::channels::PollLog> {
        let last_key = format!("poll/{tid}/last");
        let log_key = format!("poll/{tid}/log");
        let streak = poll_streak(tid);
        let mut log: rules::channels::PollLog = self.store.get_meta(&log_key)?.unwrap_or_default();
        if log.readings.last().is_some_and(|t| *t >= now) {
            return Ok(log);
        }
        let previous: Option<bansha_parsers::poll::Poll> = self.store.get_meta(&last_key)?;
        match self.forum.poll(tid, previous.as_ref()).await {
            Ok(poll) => {
                self.recovered_streak(&streak)?;
                let new = log.observe(&poll, now);
                report.new_posts += new.len();
                self.store.set_meta(&last_key, &poll)?;
                self.store.set_meta(&log_key, &log)?;
            }
            Err(e) => self.failed_streak(g, tid, &streak, &e, now, report)?,
        }
        Ok(log)
    }

    /// Read the judge's inbox (only conversations with something new), keep every message, and
    /// return the day's ballots by private message as posts.
    pub(crate) async fn read_pms(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<Vec<bansha_parsers::Post>> {
        use std::collections::BTreeMap;
        let mut known: BTreeMap<u64, i64> = self.store.get_meta("pm/known")?.unwrap_or_default();
        let mut messages = self.store.private_messages()?;
        let last_read: Option<Time> = self.store.get_meta("pm/read_at")?;
        if last_read.is_none_or(|t| t < now) {
            match self.forum.private_messages(&known).await {
                Ok((conversations, new)) => {
                    self.recovered(0)?;
                    // Only the messages new or changed are written, each under its own key;
                    // a message the read brought twice (pages shifting under it) as its last
                    // copy, counted new once.
                    let mut changed: BTreeMap<u64, bansha_parsers::pm::PrivateMessage> =
                        BTreeMap::new();
                    for m in new {
                        let had = changed.get(&m.pmid).or_else(|| messages.get(&m.pmid));
                        if had.is_none() {
                            report.new_posts += 1;
                        }
                        if had != Some(&m) {
                            changed.insert(m.pmid, m);
                        }
                    }
                    let changed: Vec<_> = changed.into_values().collect();
                    let mut seen = false;
                    for c in conversations {
                        if let Some(t) = c.last_at {
                            seen |= known.insert(c.plid, t.timestamp()) != Some(t.timestamp());
                        }
                    }
                    if !changed.is_empty() {
                        self.store.keep_private_messages(&changed)?;
                        messages = self.store.private_messages()?;
                    }
                    if seen {
                        self.store.set_meta("pm/known", &known)?;
                    }
                    self.store.set_meta("pm/read_at", &now)?;
                }
                Err(e) => self.failed(g, 0, &e, now, report)?,
            }
        }
        Ok(rules::channels::pm_posts(g, d, messages.values()))
    }

    /// The game state the judge keeps with `bansha change` / `bansha confirm` (the state file
    /// beside the game config): each win condition or warning that has come to hold, and each win
    /// condition that has come within one elimination, is mailed once. One that stops holding (an
    /// undo) and holds again is mailed again.
    fn watch_state(
        &self,
        g: &GameConfig,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let path = crate::io::state_file::state_path(&g.path, None);
        if !crate::domain::rules::state::complete(g) {
            return Ok(());
        }
        let Some(bytes) = crate::io::state_file::state_bytes(&path)? else {
            return Ok(());
        };
        // The same state and config judged to the end before: nothing new holds.
        let watched = |w: &std::collections::BTreeMap<
            String,
            (crate::io::state_file::Bytes, GameConfig),
        >| { w.get(&g.id).is_some_and(|(b, c)| *b == bytes && c == g) };
        if self.state_watched.lock().is_ok_and(|w| watched(&w)) {
            return Ok(());
        }
        let state = crate::io::state_file::load_state(&path)?;
        let snap = state.snapshot(g);
        let last = state
            .events
            .iter()
            .rev()
            .find(|e| !e.undone)
            .map_or(0, |e| e.id);
        let news = crate::domain::rules::state::holdings(g, &snap);
        let now_held: BTreeSet<String> = news.iter().map(|h| h.id.clone()).collect();
        let key = format!("held/{}", g.id);
        let before: BTreeSet<String> = self.store.get_meta(&key)?.unwrap_or_default();
        for held in news.iter().filter(|h| !before.contains(&h.id)) {
            let mail = mails::condition(g, held, &state, last, &path, now);
            if self
                .store
                .enqueue(&format!("state/{}/{}/{last}", g.id, held.id), &mail)?
            {
                report.mails_queued += 1;
            }
        }
        if before != now_held {
            self.store.set_meta(&key, &now_held)?;
        }
        if let Ok(mut w) = self.state_watched.lock() {
            w.insert(g.id.clone(), (bytes, g.clone()));
        }
        Ok(())
    }

    /// Edited or deleted posts of players that hold a ballot: the judge sees both versions.
    fn alert_changes(
        &self,
        g: &GameConfig,
        d: &DayConfig,
        changes: &[Change],
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let grammar = g.grammar(1);
        let is_ballot = |p: &StoredPost| {
            let r = grammar.read(&p.text);
            !r.found.is_empty() || r.malformed.is_some()
        };
        let is_player = |name: &str| g.roster.players.iter().any(|p| p == name);
        for c in changes {
            match c {
                Change::Edited {
                    pid,
                    before,
                    after,
                    seen_at,
                } if is_player(&after.author) && (is_ballot(before) || is_ballot(after)) => {
                    let wkey = format!("{}/{pid}", after.tid);
                    let mut windows: std::collections::BTreeMap<String, decide::EditWindow> =
                        self.store.get_meta("edit_windows")?.unwrap_or_default();
                    if decide::edit_held(windows.get(&wkey), *seen_at) {
                        if let Some(w) = windows.get_mut(&wkey) {
                            w.held.push((*seen_at, (**after).clone()));
                        }
                    } else {
                        if let Some(w) = windows.remove(&wkey) {
                            self.mail_held_edits(&wkey, &w, now, report)?;
                        }
                        let key = format!("edit/{}/{pid}/{}", after.tid, seen_at.timestamp());
                        let mail = self.linked(
                            mails::edited(g, d, before, after, *seen_at),
                            after.tid,
                            after.pid,
                        );
                        if self.store.enqueue(&key, &mail)? {
                            report.mails_queued += 1;
                        }
                        windows.insert(
                            wkey,
                            decide::EditWindow {
                                game: g.id.clone(),
                                day: d.day,
                                opened: *seen_at,
                                held: Vec::new(),
                            },
                        );
                    }
                    self.store.set_meta("edit_windows", &windows)?;
                }
                Change::Gone {
                    pid,
                    last,
                    last_seen,
                } if is_player(&last.author) && is_ballot(last) => {
                    let key = format!("gone/{}/{pid}", last.tid);
                    let when = if now < d.closes_at {
                        mails::Gone::BeforeClose
                    } else if self.close_done(g, d)? {
                        mails::Gone::AfterFinal
                    } else {
                        mails::Gone::AtClose
                    };
                    let mail = self.linked(
                        mails::gone(g, d, last, *last_seen, when, now),
                        last.tid,
                        last.pid,
                    );
                    if self.store.enqueue(&key, &mail)? {
                        report.mails_queued += 1;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Fetch what can have changed: from the last page known (or everything on a full scan).
    /// Read a thread into the record: from its last known page on, or from page 1 when `full`
    /// (and when it was never read in full). The cursor is saved, and a past failure of the
    /// thread cleared, only when the read succeeded; a failed read is the caller's to report.
    /// The changes of thread `tid` have been acted on (`Store::settle`), unless the day checks
    /// its posts: then the check, which reads the same changes, settles them.
    fn settle(&self, d: &DayConfig, tid: u64) -> anyhow::Result<()> {
        if !d.checked_threads.iter().any(|c| c.tid == tid) {
            self.store.settle(tid)?;
        }
        Ok(())
    }

    pub(crate) async fn read_thread(
        &self,
        tid: u64,
        full: bool,
        now: Time,
    ) -> anyhow::Result<Result<Vec<Change>, FetchError>> {
        let mut cursor = self.store.cursor(tid)?;
        let full = full || cursor.last_full_scan.is_none();
        // Changes an earlier read recorded that its cycle never acted on (killed in between):
        // handed out again before this read's, and kept until the caller `settle`s them.
        let unsettled = self.store.pending(tid)?;
        match self.fetch_thread(tid, full, &mut cursor, now).await {
            Ok(changes) => {
                self.recovered(tid)?;
                self.store.set_cursor(tid, &cursor)?;
                Ok(Ok(unsettled.into_iter().chain(changes).collect()))
            }
            Err(e) => Ok(Err(e)),
        }
    }

    async fn fetch_thread(
        &self,
        tid: u64,
        full: bool,
        cursor: &mut Cursor,
        now: Time,
    ) -> Result<Vec<Change>, FetchError> {
        let start = if full { 1 } else { cursor.last_page.max(1) };
        // A full scan on the API reads larger pages (fewer requests, so the final comes soon
        // after the close); the cursor stays in the reads' own page size.
        let sizes = self.forum.page_sizes().filter(|_| full);
        let ppp = sizes.map_or(0, |(big, _)| big);
        let read = |page: u32| async move {
            if ppp > 0 {
                self.forum.thread_page_sized(tid, page, ppp).await
            } else {
                self.forum.thread_page(tid, page).await
            }
        };
        let first = read(start).await?;
        if let Some(why) = crate::domain::record::implausible(tid, start, true, &first) {
            return Err(FetchError::Network(format!("tid {tid}：{why}")));
        }
        let mut last = first.last_page.unwrap_or(start).max(start);
        let mut posts = first.posts;
        let mut page = start;
        let pages = (last - start + 1) as u64;
        let mut progress = (pages >= crate::io::progress::LONG_READ_PAGES).then(|| {
            let mut p = crate::io::progress::Progress::new(format!("读取帖子 tid {tid}"), pages);
            p.inc();
            p
        });
        // Pages the forum claims but does not have come back as the last page again (Discuz
        // clamps the page number): a reply count that claims a million posts must not become
        // a hundred thousand requests. A page that repeats an older page instead is an error,
        // not the end: reading on from it would take the posts after it for deleted.
        let mut seen: std::collections::HashSet<u64> = posts.iter().map(|p| p.pid).collect();
        let mut previous: Vec<u64> = posts.iter().map(|p| p.pid).collect();
        // Stopped before the page count the forum gave: the read is complete as far as the
        // forum serves it, but not proof that a post missing from it was deleted.
        let mut cut_short = false;
        while page < last {
            page += 1;
            let p = read(page).await?;
            if let Some(why) = crate::domain::record::implausible(tid, page, false, &p) {
                return Err(FetchError::Network(format!("tid {tid}：{why}")));
            }
            let pids: Vec<u64> = p.posts.iter().map(|p| p.pid).collect();
            if pids.is_empty() || pids == previous {
                crate::io::log::line(&format!(
                    "tid {tid}：第 {page} 页重复了第 {} 页；帖子到此为止（论坛称共 {last} 页）",
                    page - 1
                ));
                last = page - 1;
                cut_short = true;
                break;
            }
            if pids.iter().all(|pid| seen.contains(pid)) {
                return Err(FetchError::Network(format!(
                    "tid {tid} 第 {page} 页返回的是前面某一页的帖子"
                )));
            }
            seen.extend(pids.iter().copied());
            previous = pids;
            last = last.max(p.last_page.unwrap_or(last));
            posts.extend(p.posts);
            if let Some(pr) = progress.as_mut() {
                pr.set_total((last - start + 1) as u64);
                pr.inc();
            }
        }
        if let Some(p) = progress {
            p.finish();
        }
        let mut changes = self
            .store
            .record(tid, &posts, now, full && !cut_short)
            .map_err(|e| FetchError::Network(e.to_string()))?;
        for c in &mut changes {
            if let Change::Gone { last_seen, .. } = c {
                *last_seen = cursor.last_full_scan;
            }
        }
        cursor.last_page = match sizes {
            // Read in larger pages: the page the reads in between start from is where the last
            // of the posts falls at their size (Discuz pages by the visible posts' order). A
            // forum that ignored the size served its own pages: counted as served.
            Some((big, small)) if first.posts_per_page == Some(big) => {
                let n = seen.len().max(1) as u32;
                n.div_ceil(small).max(1)
            }
            _ => last,
        };
        if full {
            cursor.last_full_scan = Some(now);
        }
        Ok(changes)
    }

    /// Send what is queued, in order. A temporary failure stops the queue until the next cycle
    /// (the server is down or busy); a permanent refusal (5xx) sets that mail aside, or that
    /// recipient of it where only one refuses, the judge is told, and the queue goes on. With
    /// several addresses each is sent its own copy (the same Message-ID), each marked done
    /// through the journal as the server answers, so one dead address stops nothing.
    async fn send_outbox(&self, now: Time, report: &mut CycleReport) {
        // A refusal queues a notice for the judge; it goes out in the same cycle.
        for _ in 0..2 {
            // Each mail of a kind the judge wants in QQ too becomes its QQ message while queued.
            if let Err(e) = self.qq_mirror(now) {
                report.errors.push(format!("qq: {e}"));
            }
            let queued = report.mails_queued;
            match self.try_send_outbox(now, report).await {
                Ok(true) if report.mails_queued > queued => continue,
                Ok(_) => break,
                Err(e) => {
                    if e.downcast_ref::<crate::io::store::StoreError>().is_some() {
                        report.store_failed = true;
                    }
                    report.errors.push(e.to_string());
                    break;
                }
            }
        }
        report.mails_waiting = self.store.outbox().map(|q| q.len()).unwrap_or(0);
    }

    /// One pass over the queue; false when a temporary failure stopped it.
    async fn try_send_outbox(&self, now: Time, report: &mut CycleReport) -> anyhow::Result<bool> {
        use crate::io::smtp::SendError;
        let recipients = self.mailer.recipients();
        let split = recipients.len() > 1;
        for (key, mail) in &self.store.outbox()? {
            // Mails queued with a text body only get their HTML alternative here, as they go.
            let mail = crate::present::html::with_html(mail);
            let mut refused: Vec<(String, String)> = Vec::new();
            let mut accepted = 0;
            let targets: Vec<Option<&str>> = if split {
                recipients.iter().map(|r| Some(r.as_str())).collect()
            } else {
                vec![None]
            };
            for only in targets {
                let part = only.map(|r| crate::io::store::part_key(key, r));
                if let Some(p) = &part {
                    if self.store.is_sent(p)? {
                        accepted += 1;
                        continue;
                    }
                }
                // Nothing goes out that cannot be marked sent (a full disk would send it
                // again at every cycle).
                let mark = if self.plants.no_send_reserve {
                    None
                } else {
                    Some(
                        self.store
                            .reserve_sent(part.as_deref().unwrap_or(key), now)?,
                    )
                };
                match self.mailer.send(key, &mail, only).await {
                    Ok(()) => {
                        accepted += 1;
                        match mark {
                            Some(mark) => self.store.confirm_sent(mark)?,
                            None => self.store.mark_sent(part.as_deref().unwrap_or(key), now)?,
                        }
                    }
                    Err(SendError::Refused(why)) => {
                        let to = only.map_or_else(|| recipients.join(", "), str::to_string);
                        report.errors.push(format!("smtp: {key} to {to}: {why}"));
                        if let Some(p) = &part {
                            self.store.mark_sent(p, now)?;
                        }
                        refused.push((to, why));
                    }
                    Err(SendError::Temporary(e)) => {
                        report.errors.push(format!("smtp: {e}"));
                        self.store.flush().await?;
                        return Ok(false);
                    }
                }
            }
            // Every recipient answered: the mail is done (sent, or set aside where all refused).
            if !self.store.is_sent(key)? {
                self.store.mark_sent(key, now)?;
            }
            if accepted > 0 {
                report.mails_sent += 1;
            }
            if !refused.is_empty() {
                self.refused(key, &mail, &refused, accepted > 0, now, report)?;
            }
            self.store.flush().await?;
        }
        Ok(true)
    }

    /// A mail (or some of its recipients) refused for good: kept for the dashboard and
    /// `bansha status`, and the judge is mailed about it (at the addresses that still take
    /// mail), once; a refused notice is not noticed again.
    fn refused(
        &self,
        key: &str,
        mail: &Mail,
        refused: &[(String, String)],
        others_took_it: bool,
        now: Time,
        report: &mut CycleReport,
    ) -> anyhow::Result<()> {
        let mut list: Vec<crate::domain::report::Refused> =
            self.store.get_meta("refused_mails")?.unwrap_or_default();
        for (to, why) in refused {
            list.push(crate::domain::report::Refused {
                key: key.to_string(),
                subject: mail.subject.clone(),
                to: to.clone(),
                reason: why.clone(),
                at: now,
            });
        }
        self.store.set_meta("refused_mails", &list)?;
        if key.starts_with("refused/") {
            return Ok(());
        }
        // An address that refuses while the others take the mail is a dead address: told once
        // for the address. A mail no address takes is told once for the mail.
        let notices: Vec<(String, Mail)> = if others_took_it {
            refused
                .iter()
                .map(|(to, why)| {
                    (
                        format!("refused/to/{to}"),
                        mails::refused_address(to, why, &mail.subject, now),
                    )
                })
                .collect()
        } else {
            vec![(
                format!("refused/{key}"),
                mails::refused(&mail.subject, mail.created_at, refused, now),
            )]
        };
        for (k, notice) in notices {
            if self.store.enqueue(&k, &notice)? {
                report.mails_queued += 1;
            }
        }
        Ok(())
    }
}

/// A day's `missed_night_moves` as counted (sorted): what a later change is told from.
fn night_moves(d: &DayConfig) -> Vec<String> {
    let mut v = d.missed_night_moves.clone();
    v.sort();
    v
}

/// Whether the game counts 潜水 (a minimum of posts, or a vote owed).
fn lurk_on(g: &GameConfig) -> bool {
    g.rules.lurk.min_posts > 0 || g.rules.lurk.must_vote
}
