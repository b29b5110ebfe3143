//! The daemon's decisions, pure: given what the record says and `now`, which days are watched,
//! which phase is due, which mails are due under which keys, when a failing forum is reported.
//! `cycle` reads the record, calls these, and carries out what they return; nothing here reads
//! the store, the forum or the clock, so every decision is unit-tested with an explicit record
//! and time.
//!
//! The keys are the store's idempotency keys (and the mails' Message-IDs): a renamed key would
//! send the judge a mail again, so they are written here once and tested.

use crate::domain::config::{BallotSource, DayConfig, GameConfig};
use crate::domain::rules::Tally;
use crate::present::mails::TallyMail;
use chrono::{DateTime, Duration, FixedOffset};

type Time = DateTime<FixedOffset>;

/// How long after a close the vote thread is read once more for late edits.
pub const RECHECK_MINUTES: i64 = 10;

/// The key of a day's one-time event (`lock`, `close`, `recheck`, `lurk`), after its close was
/// moved later `revision` times (each move reopens the day: a new lock, a new final, a new 潜水
/// mail, under new keys; revision 0 is the key bansha always used).
pub fn event_key_at(g: &GameConfig, d: &DayConfig, what: &str, revision: u32) -> String {
    event_key_of(&g.id, d.day, what, revision)
}

/// `event_key_at` of a game id and a day.
pub fn event_key_of(id: &str, day: u32, what: &str, revision: u32) -> String {
    match revision {
        0 => format!("{what}/{id}/{day}"),
        r => format!("{what}/{id}/{day}/r{r}"),
    }
}

/// Whether a day whose final tally was made for the close `closed_for` is reopened: its close
/// now stands later in the config (the judge extended the deadline and restarted).
pub fn reopened(d: &DayConfig, closed_for: Option<Time>) -> bool {
    closed_for.is_some_and(|c| d.closes_at > c)
}

/// When the lock window starts (none when the rules have no lock).
pub fn lock_from(g: &GameConfig, d: &DayConfig) -> Option<Time> {
    lock_before(g, d.closes_at)
}

/// The lock window's start before a close at `close` (round 2's lock: its day is round 1's
/// with the run-off's close, `round_two`).
pub fn lock_before(g: &GameConfig, close: Time) -> Option<Time> {
    let m = g.rules.vote.lock_minutes;
    (m > 0).then(|| close - Duration::minutes(m as i64))
}

/// Whether a day is watched at `now`: it has a vote thread, its close is not yet tallied, and it
/// is open (or within a week of the close when no opening time is set).
pub fn watched(d: &DayConfig, close_done: bool, now: Time) -> bool {
    if d.vote_thread.is_none() || close_done {
        return false;
    }
    now >= d.watch_from()
}

/// Whether a closed day's after-close look is due: ten minutes after the close and within two
/// days of it, once, for a day whose ballots are thread posts.
pub fn recheck_due(
    g: &GameConfig,
    d: &DayConfig,
    close_done: bool,
    recheck_done: bool,
    now: Time,
) -> bool {
    if g.rules.vote.source == BallotSource::Poll || d.vote_thread.is_none() {
        return false;
    }
    let due = d.closes_at + Duration::minutes(RECHECK_MINUTES);
    now >= due && now <= d.closes_at + Duration::days(2) && close_done && !recheck_done
}

/// How long after a mailed edit of a post further edits of it are held for one mail.
pub const EDIT_WINDOW_MINUTES: i64 = 30;

/// A post's edit window: opened by an edit mailed at once; the edits seen during it are held
/// and mailed together when it closes (an edit storm is one mail per window, not one per poll).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EditWindow {
    pub game: String,
    pub day: u32,
    pub opened: Time,
    /// The edits held: when each was seen, and the post as it then stood.
    pub held: Vec<(Time, crate::domain::record::StoredPost)>,
}

/// Whether an edit seen at `seen_at` falls in the post's open window (held, not mailed now).
pub fn edit_held(window: Option<&EditWindow>, seen_at: Time) -> bool {
    window.is_some_and(|w| seen_at < w.opened + Duration::minutes(EDIT_WINDOW_MINUTES))
}

/// Whether a window has closed at `now` (its held edits, if any, are mailed).
pub fn window_closed(w: &EditWindow, now: Time) -> bool {
    now >= w.opened + Duration::minutes(EDIT_WINDOW_MINUTES)
}

/// What the record says of one watched day, as its decisions need it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DayRecord {
    /// How many times the day was reopened by a later close (`event_key_at`).
    pub revision: u32,
    pub lock_done: bool,
    /// The last leader mailed: its sequence number and the leaders' names.
    pub leader: Option<(u32, String)>,
    /// This revision was opened because the judge's rulings on the day changed after its
    /// final: what changed, for the corrected final.
    pub corrected: Option<String>,
}

/// Who could vote on a day as its final counted them (the day as played: the config's `dead`
/// with the judge's recorded eliminations, and bansha42's half voters), and the votes added or
/// taken before the count (chuhan's 诅咒 +1 / 庇佑 −1, 000 L80, L82: the judge's `curse` /
/// `bless`, else a confirmed night's), kept with the final so a later change to any of them
/// (a night confirmed after the next day's close) makes it again.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Alive {
    pub dead: Vec<String>,
    pub half: Vec<String>,
    /// None in a final made before these were kept: not compared.
    #[serde(default)]
    pub adjust: Option<std::collections::BTreeMap<String, i32>>,
}

/// How a corrected final made for a change of who could vote begins (a 潜水 count is made
/// again with it: who was out posts nothing).
pub const ALIVE_CHANGED: &str = "这一天的存活名单在最终计票之后有变";

impl Alive {
    pub fn of(d: &DayConfig) -> Alive {
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v.dedup();
            v
        };
        let adjust = match (&d.curse, &d.bless) {
            (None, None) => d.night_adjust.clone(),
            (curse, bless) => {
                let mut m = std::collections::BTreeMap::new();
                for (p, by) in [(curse, 1), (bless, -1)] {
                    if let Some(p) = p {
                        *m.entry(p.clone()).or_insert(0) += by;
                    }
                }
                m
            }
        };
        Alive {
            dead: sorted(&d.dead),
            half: sorted(&d.half_voters),
            adjust: Some(adjust.into_iter().filter(|(_, by)| *by != 0).collect()),
        }
    }

    /// What changed from `self` (at the final) to `now`, for the judge; None when nothing did.
    pub fn changed_to(&self, now: &Alive) -> Option<String> {
        let gone = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|x| !b.contains(x)).cloned().collect()
        };
        let mut parts = Vec::new();
        for (label, list) in [
            ("出局", gone(&now.dead, &self.dead)),
            ("恢复", gone(&self.dead, &now.dead)),
            ("改为半票", gone(&now.half, &self.half)),
            ("不再半票", gone(&self.half, &now.half)),
        ] {
            if !list.is_empty() {
                parts.push(format!("{label}：{}", list.join("、")));
            }
        }
        if let (Some(then), Some(now)) = (&self.adjust, &now.adjust) {
            if then != now {
                let show = |m: &std::collections::BTreeMap<String, i32>| {
                    if m.is_empty() {
                        return "无".to_string();
                    }
                    m.iter()
                        .map(|(p, by)| format!("{p} {by:+} 票"))
                        .collect::<Vec<_>>()
                        .join("、")
                };
                parts.push(format!("诅咒/庇佑：{} → {}", show(then), show(now)));
            }
        }
        (!parts.is_empty()).then(|| format!("{ALIVE_CHANGED}（{}）", parts.join("；")))
    }
}

/// Whether a closed round's final is to be made again: the rulings on its day now differ from
/// those it was made with (`at_final`; None: a final made before prints were kept, taken as
/// made with the rulings as they are).
pub fn ruled_again(close_done: bool, at_final: Option<&str>, now_print: &str) -> bool {
    close_done && at_final.is_some_and(|p| p != now_print)
}

/// Whether the lock window's start is due and not yet done.
pub fn lock_due(g: &GameConfig, d: &DayConfig, rec: &DayRecord, now: Time) -> bool {
    lock_from(g, d).is_some_and(|l| now >= l) && !rec.lock_done
}

/// Something a cycle is to do for a day, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Queue the tally mail of this kind under `key` (built only when the key is new).
    Mail { key: String, kind: TallyMail },
    /// Queue the mail about this void ballot (by pid) under `key`.
    Void { key: String, pid: u64 },
    /// Record a one-time event as done.
    Done(String),
    /// Record the leader last mailed.
    Leader {
        key: String,
        seq: u32,
        leader: String,
    },
    /// The day's 潜水 mail and ledger entries (at the close).
    Lurk,
}

/// What the daemon knows of a watched day when it decides.
pub struct DayInput<'a> {
    pub game: &'a GameConfig,
    pub day: &'a DayConfig,
    /// The tally at `now` (the posts as of the close, after it).
    pub tally: &'a Tally,
    pub record: &'a DayRecord,
    /// A ballot source could not be read this cycle: the record may miss ballots.
    pub stale: bool,
    /// `[poll] interim_every_hours` (0: none).
    pub interim_every_hours: u64,
    /// The rules judge 潜水.
    pub lurk: bool,
    /// A thread counted for 潜水 could not be read this cycle: its counts may be short or
    /// stale, so the 潜水 mail waits for the after-close look.
    pub lurk_stale: bool,
}

/// The leaders of a tally (all tied at the top with at least one vote), joined with 、.
pub fn leaders(tally: &Tally) -> (String, f64) {
    let top = tally.counts.first().map(|c| c.votes).unwrap_or(0.0);
    let names: Vec<String> = tally
        .counts
        .iter()
        .filter(|c| top > 0.0 && (c.votes - top).abs() < 1e-9)
        .map(|c| c.target.clone())
        .collect();
    (names.join("、"), top)
}

/// A closed round's tally that cannot be final: the poll's counts and voter lists disagree.
pub fn held_for_poll(tally: &Tally) -> bool {
    !tally.poll_gaps.is_empty()
}

/// Which mails and events are due for a watched day at `now`.
///
/// Each void ballot is mailed once. Before the close: the lock window's start (once), a change
/// of leader, the periodic interim tally. At the close: nothing while the record is `stale` (the
/// final tally waits for a complete reading), only the mail saying why while the poll's voter
/// lists do not name every vote (`held_for_poll`); otherwise the final tally, the close event, the
/// after-close look when this reading is already late enough to count as it, and 潜水 (held for
/// the after-close look while a counted thread is unreadable).
pub fn day(input: &DayInput, now: Time) -> Vec<Effect> {
    let (g, d, tally) = (input.game, input.day, input.tally);
    let mut out = Vec::new();
    for b in tally.ballots.iter().filter(|b| !b.valid) {
        if let Some(pid) = b.pid {
            out.push(Effect::Void {
                key: format!("void/{}/{}/{pid}", g.id, d.day),
                pid,
            });
        }
    }
    if now < d.closes_at {
        if lock_due(g, d, input.record, now) {
            let key = event_key_at(g, d, "lock", input.record.revision);
            out.push(Effect::Mail {
                key: key.clone(),
                kind: TallyMail::Lock,
            });
            out.push(Effect::Done(key));
        }
        let (leader, top) = leaders(tally);
        let key = format!("leader/{}/{}", g.id, d.day);
        let last = input.record.leader.as_ref();
        if !leader.is_empty() && last.map(|(_, l)| l) != Some(&leader) {
            let seq = last.map_or(0, |(n, _)| n + 1);
            out.push(Effect::Mail {
                key: format!("{key}/{seq}"),
                kind: TallyMail::Leader {
                    leader: leader.clone(),
                    top,
                },
            });
            out.push(Effect::Leader { key, seq, leader });
        }
        let hours = input.interim_every_hours;
        if hours > 0 {
            let bucket = now.timestamp() / (hours as i64 * 3600);
            out.push(Effect::Mail {
                key: format!("interim/{}/{}/{bucket}", g.id, d.day),
                kind: TallyMail::Interim { hours },
            });
        }
    } else if !input.stale && held_for_poll(tally) {
        // The poll counts votes its lists do not name (or the other way round): who voted is
        // not known, so there is no final, 潜水 or close yet (bansha42 L73 "以投票机数据为准", L77
        // "数据以投票机统计的为准"). The judge is told once why the final waits; each cycle reads
        // the lists again.
        out.push(Effect::Mail {
            key: event_key_at(g, d, "pollgaps", input.record.revision),
            kind: TallyMail::Held,
        });
    } else if !input.stale {
        let key = event_key_at(g, d, "close", input.record.revision);
        out.push(Effect::Mail {
            key: key.clone(),
            kind: match &input.record.corrected {
                Some(why) => TallyMail::Corrected { why: why.clone() },
                None => TallyMail::Final,
            },
        });
        out.push(Effect::Done(key));
        if now >= d.closes_at + Duration::minutes(RECHECK_MINUTES) && !input.lurk_stale {
            // This reading is already late enough to have seen edits after the close.
            out.push(Effect::Done(event_key_at(
                g,
                d,
                "recheck",
                input.record.revision,
            )));
        }
        // A final made again for a ruling changes 潜水 only where voting is a duty.
        // One made again for a change of who could vote changes it everywhere.
        let lurk_changes = input
            .record
            .corrected
            .as_ref()
            .is_none_or(|why| why.starts_with(ALIVE_CHANGED))
            || g.rules.lurk.must_vote;
        if input.lurk && !input.lurk_stale && lurk_changes {
            out.push(Effect::Lurk);
        }
    }
    out
}

/// A failed read of a thread, as the record's failure streaks stand after it (each streak
/// started at its first failure; `login_since` only when the login needs the judge).
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub tid: u64,
    /// The thread's failure streak began then.
    pub since: Time,
    /// The login has needed the judge since then (captcha, lock-out, wrong password).
    pub login_since: Option<Time>,
    /// `[poll] fetch_failure_alert_minutes`.
    pub alert_after_minutes: u64,
}

/// The key of the failure mail due at `now`, if one is: at once (once per streak) when the login
/// needs the judge, otherwise once per streak after the configured time.
pub fn failure_alert(f: &Failure, now: Time) -> Option<String> {
    if let Some(login) = f.login_since {
        return Some(format!("loginfail/{}", login.timestamp()));
    }
    let limit = Duration::minutes(f.alert_after_minutes as i64);
    (now - f.since >= limit).then(|| format!("fetchfail/{}/{}", f.tid, f.since.timestamp()))
}

/// The days of a game past their close whose final tally has not been made (it waits for the
/// forum), as (day, close), for the failure mail.
pub fn waiting_days(
    g: &GameConfig,
    close_done: impl Fn(&DayConfig) -> bool,
    now: Time,
) -> Vec<(u32, Time)> {
    g.days
        .iter()
        .filter(|d| d.vote_thread.is_some() && now >= d.closes_at)
        .filter(|d| !close_done(d))
        .map(|d| (d.day, d.closes_at))
        .collect()
}

/// How far the machine's clock may be from the forum's before bansha goes by the forum's.
pub const CLOCK_TOLERANCE: Duration = Duration::seconds(60);

/// Whether to ask the forum its time before this cycle decides anything: when no answer has
/// given it yet, when the last one is old (ten minutes), or when carrying it forward disagrees
/// with the machine's clock (a jump of either clock, or a suspend the monotonic clock slept
/// through) and the reading is not fresh already.
pub fn clock_probe_due(machine: Time, forum: Option<(Time, std::time::Duration)>) -> bool {
    match forum {
        None => true,
        Some((_, age)) if age > std::time::Duration::from_secs(600) => true,
        Some((t, age)) => {
            (t - machine).abs() > CLOCK_TOLERANCE && age > std::time::Duration::from_secs(2)
        }
    }
}

/// What to add to the machine's clock to get the forum's, when the judge is to be told of it:
/// nothing within the tolerance (the forum's `Date` has whole seconds, requests take time),
/// else the difference, to the nearest second.
pub fn clock_offset(machine: Time, forum: Option<Time>) -> Option<Duration> {
    let diff = forum? - machine;
    (diff.abs() > CLOCK_TOLERANCE).then(|| whole_seconds(diff))
}

/// What to add to the machine's clock to go by the forum's, told or not: any difference of a
/// second or more. A machine a few seconds fast would otherwise take a round's final read
/// before the forum's close, with ballots still to come; the `Date` a reply carries was
/// written before it arrived, so the forum's time read from it is never ahead of the forum.
pub fn clock_correction(machine: Time, forum: Option<Time>) -> Option<Duration> {
    let diff = whole_seconds(forum? - machine);
    (!diff.is_zero()).then_some(diff)
}

fn whole_seconds(d: Duration) -> Duration {
    Duration::seconds((d.num_milliseconds() as f64 / 1000.0).round() as i64)
}

/// A day's run-off (round 2) as the daemon runs it.
#[derive(Debug, Clone, PartialEq)]
pub enum RunoffPlan {
    /// No round 2: round 1 decided, or the judge cancelled it (`no_runoff`).
    None,
    /// Round 2 among these candidates, closing then: the judge's (`runoff = {…}` on the day,
    /// which also moves it) or the rules' (`runoff.hours` after round 1's close).
    Run(crate::domain::config::Runoff),
    /// Round 1 ended in a tie that goes to round 2, and nothing says when round 2 closes.
    NeedsTime(Vec<String>),
    /// bansha42's overtime (L79 "如果平票者所有票都同时到，则加时15分钟，票一出X"): 15 minutes
    /// from the close, `places` of the tied going out, in a poll the judge opens (the daemon
    /// runs it once the day's `runoff` names that poll).
    NeedsPoll {
        closes_at: Time,
        candidates: Vec<String>,
        places: u32,
    },
}

/// bansha42 L79: overtime runs 15 minutes.
pub const OVERTIME_MINUTES: i64 = 15;

/// The run-off of day `d`, given the candidates round 1's final named (None: it named none)
/// and, for an overtime, how many of them go out.
pub fn runoff_plan(
    g: &GameConfig,
    d: &DayConfig,
    round1: Option<&[String]>,
    places: Option<u32>,
) -> RunoffPlan {
    if d.no_runoff {
        return RunoffPlan::None;
    }
    if let Some(r) = &d.runoff {
        return RunoffPlan::Run(r.clone());
    }
    let Some(candidates) = round1 else {
        return RunoffPlan::None;
    };
    if let Some(places) = places {
        return RunoffPlan::NeedsPoll {
            closes_at: d.closes_at + Duration::minutes(OVERTIME_MINUTES),
            candidates: candidates.to_vec(),
            places,
        };
    }
    match g.rules.runoff.as_ref().and_then(|r| r.hours) {
        Some(h) => RunoffPlan::Run(crate::domain::config::Runoff {
            closes_at: game_time_after(d.closes_at, h, &g.rules.schedule.paused_weekdays),
            opens_at: None,
            candidates: candidates.to_vec(),
            vote_thread: None,
            eliminate: None,
        }),
        None => RunoffPlan::NeedsTime(candidates.to_vec()),
    }
}

/// Whether a round 2 follows round 1 of day `d` as `tally` (round 1's) leaves it: the judge's
/// `runoff` block, or a tie the rules send to round 2 (one whose time or poll the judge has
/// still to give counts too). The day's 潜水 then waits for the day's last round.
pub fn runoff_follows(g: &GameConfig, d: &DayConfig, tally: &Tally) -> bool {
    let tied = matches!(
        tally.outcome.kind,
        crate::domain::rules::OutcomeKind::Runoff | crate::domain::rules::OutcomeKind::Overtime
    )
    .then(|| tally.outcome.players.clone());
    !matches!(
        runoff_plan(g, d, tied.as_deref(), tally.outcome.places),
        RunoffPlan::None
    )
}

/// Round 2 of a day as the cycle runs it: the game under its own id (every key of round 2 is
/// its own: `GAME~r2`) with the day's run-off set (what the tally reads), and the day as its
/// phases run (round 2 opens at round 1's close and closes at the run-off's).
pub fn round_two(
    g: &GameConfig,
    d: &DayConfig,
    r: &crate::domain::config::Runoff,
) -> (GameConfig, DayConfig) {
    let mut tallied = d.clone();
    tallied.runoff = Some(r.clone());
    let mut g2 = g.clone();
    g2.id = round_two_id(g);
    if let Some(x) = g2.days.iter_mut().find(|x| x.day == d.day) {
        *x = tallied.clone();
    }
    let mut phase = tallied;
    phase.opens_at = Some(d.closes_at);
    phase.closes_at = r.closes_at;
    phase.vote_thread = r.vote_thread.or(d.vote_thread);
    (g2, phase)
}

/// This many void ballots new in one cycle (a first read of a day under way) go to the judge
/// as one digest instead of a mail each.
pub const VOID_DIGEST_MIN: usize = 3;

/// How long after its time a reminder is still worth sending (after a longer downtime it is
/// dropped: the deadline it warns of has passed).
pub const REMINDER_GRACE_MINUTES: i64 = 60;

/// When each of the rules' reminders falls for day `d` (by index): from its close, or from the
/// next day's `opens_at` (none when that is not set).
pub fn reminder_times(g: &GameConfig, d: &DayConfig) -> Vec<(usize, Time)> {
    g.rules
        .reminder
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let anchor = match r.from.as_str() {
                "close" => Some(d.closes_at),
                _ => g.day(d.day + 1).and_then(|n| n.opens_at),
            }?;
            let base = match r.at.as_deref() {
                None => anchor,
                Some(hm) => next_time_of_day(anchor, hm)?,
            };
            Some((i, base + Duration::minutes(r.minutes)))
        })
        .collect()
}

/// The first moment after `t` whose time of day (in `t`'s offset) is `hm` ("12:00").
fn next_time_of_day(t: Time, hm: &str) -> Option<Time> {
    use chrono::TimeZone;
    let when = chrono::NaiveTime::parse_from_str(hm, "%H:%M").ok()?;
    let today = t
        .timezone()
        .from_local_datetime(&t.date_naive().and_time(when))
        .single()?;
    Some(if today > t {
        today
    } else {
        today + Duration::days(1)
    })
}

/// The reminders of day `d` due at `now`, with their store keys: each once, from its time
/// until `REMINDER_GRACE_MINUTES` after it.
pub fn reminders_due(g: &GameConfig, d: &DayConfig, now: Time) -> Vec<(String, usize, Time)> {
    reminder_times(g, d)
        .into_iter()
        .filter(|(_, t)| *t <= now && now < *t + Duration::minutes(REMINDER_GRACE_MINUTES))
        .map(|(i, t)| (format!("reminder/{}/{}/{i}", g.id, d.day), i, t))
        .collect()
}

/// What a game id gets for its round 2 (`round_two`).
pub const ROUND_TWO: &str = "~r2";

/// The id a game's round two is recorded under (`round_two`).
pub fn round_two_id(g: &GameConfig) -> String {
    format!("{}{ROUND_TWO}", g.id)
}

/// The game id a round-2 id (`round_two`) was made from; a round-1 id as it is.
pub fn round_one_id(id: &str) -> &str {
    id.strip_suffix(ROUND_TWO).unwrap_or(id)
}

/// The sheriff a day's tally weighs (m103 L152–153): the day's own `sheriff`, else the one day
/// 1 elected, while alive. The second value: the elected sheriff is out and nobody succeeds
/// yet (the judge must be told the succession rule, L154–156).
pub fn carry_sheriff(d: &DayConfig, elected: Option<&str>) -> (DayConfig, Option<String>) {
    let mut out = d.clone();
    let Some(name) = elected.filter(|_| d.sheriff.is_none() && d.day > 1) else {
        return (out, None);
    };
    if d.dead.iter().any(|x| x == name) {
        return (out, Some(name.to_string()));
    }
    out.sheriff = Some(name.to_string());
    (out, None)
}

/// `start` plus `hours` of game time: the days the rules pause (ISO weekdays; chuhan L155
/// "真实时间的周六、日游戏将暂停") do not count, so no deadline falls on them.
pub fn game_time_after(start: Time, hours: u32, paused: &[u32]) -> Time {
    use chrono::{Datelike, TimeZone};
    let mut t = start;
    let mut left = Duration::hours(hours as i64);
    let midnight_after = |t: Time| {
        let next = t.date_naive().succ_opt().unwrap_or(t.date_naive());
        t.timezone()
            .from_local_datetime(&next.and_hms_opt(0, 0, 0).unwrap_or_default())
            .single()
            .unwrap_or(t + Duration::days(1))
    };
    // At most a year of steps: a config pausing every weekday cannot loop for ever.
    for _ in 0..800 {
        if left <= Duration::zero() {
            break;
        }
        let next = midnight_after(t);
        if paused.contains(&t.weekday().number_from_monday()) {
            t = next;
            continue;
        }
        let step = (next - t).min(left);
        t += step;
        left -= step;
    }
    t
}

#[cfg(test)]
mod tests {
    /// A night confirmed after the next day's final (its 诅咒 stamped at the night's deadline,
    /// before that close: 000 L80 "得票数+1", round 1, L114) changes the day's count: the
    /// final is made again. A final kept before the adjustments were is not compared on them.
    #[test]
    fn a_curse_or_blessing_recorded_after_the_final_makes_it_again() {
        let g = crate::domain::game::load_str(
            "ruleset = \"chuhan\"\nname = \"t\"\n[roster]\nplayers = [\"甲\", \"乙\"]\n\
             [[days]]\nday = 3\nvote_thread = 3\ncloses_at = \"2026-12-03 21:00:00\"\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let d = g.day(3).unwrap().clone();
        let then = super::Alive::of(&d);
        let mut later = d.clone();
        later.night_adjust.insert("甲".into(), 1);
        let why = then
            .changed_to(&super::Alive::of(&later))
            .expect("made again");
        assert!(why.contains("甲 +1 票"), "{why}");
        // The judge's own `curse` on the same player says the same: nothing to make again.
        let mut typed = d.clone();
        typed.curse = Some("甲".into());
        assert_eq!(
            super::Alive::of(&later).changed_to(&super::Alive::of(&typed)),
            None
        );
        let old = super::Alive {
            adjust: None,
            ..then
        };
        assert_eq!(old.changed_to(&super::Alive::of(&later)), None);
    }

    use super::*;
    use std::path::Path;

    /// The captured m103 game (版杀一室 第十二局, day 2 closing 11-29 21:00, a 60-minute lock).
    fn game() -> GameConfig {
        crate::domain::game::load_str(
            include_str!("../../config/examples/banshayishi-12.toml"),
            Path::new("config/examples/banshayishi-12.toml"),
        )
        .expect("the example config loads")
    }

    fn at(s: &str) -> Time {
        crate::domain::time::parse_local_time(s, FixedOffset::east_opt(8 * 3600).unwrap()).unwrap()
    }

    fn tally_at(g: &GameConfig, day: u32, now: Time) -> Tally {
        crate::domain::rules::tally(g, day, 1, now, &[]).unwrap()
    }

    fn keys(effects: &[Effect]) -> Vec<String> {
        effects
            .iter()
            .map(|e| match e {
                Effect::Mail { key, .. } => format!("mail {key}"),
                Effect::Void { key, .. } => format!("void {key}"),
                Effect::Done(key) => format!("done {key}"),
                Effect::Leader { key, seq, leader } => format!("leader {key} {seq} {leader}"),
                Effect::Lurk => "lurk".into(),
            })
            .collect()
    }

    fn day_effects(
        g: &GameConfig,
        rec: &DayRecord,
        stale: bool,
        hours: u64,
        now: Time,
    ) -> Vec<String> {
        let d = g.day(2).unwrap();
        let t = tally_at(g, 2, now);
        keys(&day(
            &DayInput {
                game: g,
                day: d,
                tally: &t,
                record: rec,
                stale,
                interim_every_hours: hours,
                lurk: true,
                lurk_stale: false,
            },
            now,
        ))
    }

    /// m103 L236–239: 30 minutes after the close, and 30 minutes before the next day opens
    /// (when it has an `opens_at`); each due from its time for an hour.
    #[test]
    fn reminders_fall_around_the_close_and_the_next_opening() {
        let mut g = game();
        let d = g.day(2).unwrap().clone();
        let times = reminder_times(&g, &d);
        assert_eq!(
            times,
            vec![(0, at("2026-11-29 21:30"))],
            "no day 3: no next opening"
        );
        g.days.push(crate::domain::config::DayConfig {
            day: 3,
            opens_at: Some(at("2026-11-30 09:00")),
            ..d.clone()
        });
        let d = g.day(2).unwrap().clone();
        assert_eq!(
            reminder_times(&g, &d),
            vec![(0, at("2026-11-29 21:30")), (1, at("2026-11-30 08:30"))]
        );
        assert!(reminders_due(&g, &d, at("2026-11-29 21:29")).is_empty());
        let due = reminders_due(&g, &d, at("2026-11-29 21:30"));
        assert_eq!(
            due,
            vec![(format!("reminder/{}/2/0", g.id), 0, at("2026-11-29 21:30"))]
        );
        assert!(
            reminders_due(&g, &d, at("2026-11-29 22:30")).is_empty(),
            "an hour late: dropped"
        );
        // bansha42's next-day deadlines: the first 12:00 after the close, half an hour before.
        std::sync::Arc::make_mut(&mut g.rules).reminder = vec![crate::domain::config::Reminder {
            from: "close".into(),
            minutes: -30,
            at: Some("12:00".into()),
            text: "x".into(),
            verdict_kinds: Vec::new(),
        }];
        assert_eq!(reminder_times(&g, &d), vec![(0, at("2026-11-30 11:30"))]);
        let i = g.days.iter().position(|x| x.day == 2).unwrap();
        g.days[i].closes_at = at("2026-11-29 09:00");
        let d = g.day(2).unwrap().clone();
        assert_eq!(
            reminder_times(&g, &d),
            vec![(0, at("2026-11-29 11:30"))],
            "the same day"
        );
    }

    /// A final made with other rulings than those now on its day is made again, as a
    /// corrected final; 潜水 with it only where a missed vote counts.
    #[test]
    fn rulings_changed_after_the_final_make_a_corrected_final() {
        assert!(!ruled_again(false, Some("r1"), "r1,r2"), "not closed yet");
        assert!(!ruled_again(true, Some("r1"), "r1"), "the same rulings");
        assert!(ruled_again(true, Some("r1"), "r1,r2"));
        assert!(ruled_again(true, Some(""), "r1-"), "an undo made after it");
        assert!(
            !ruled_again(true, None, "r1"),
            "a final from before prints were kept"
        );
        let mut g = game();
        let rec = DayRecord {
            revision: 1,
            corrected: Some("新裁定 pid 113 作废（x）".into()),
            ..Default::default()
        };
        let name = g.id.clone();
        let after = at("2026-11-29 21:30");
        let kinds = |g: &GameConfig| {
            let d = g.day(2).unwrap();
            let t = tally_at(g, 2, after);
            day(
                &DayInput {
                    game: g,
                    day: d,
                    tally: &t,
                    record: &rec,
                    stale: false,
                    interim_every_hours: 0,
                    lurk: true,
                    lurk_stale: false,
                },
                after,
            )
        };
        let e = kinds(&g);
        assert!(e.contains(&Effect::Mail {
            key: format!("close/{name}/2/r1"),
            kind: TallyMail::Corrected {
                why: "新裁定 pid 113 作废（x）".into()
            },
        }));
        assert!(e.contains(&Effect::Lurk), "m103: a missed vote is 潜水");
        std::sync::Arc::make_mut(&mut g.rules).lurk.must_vote = false;
        assert!(
            !kinds(&g).contains(&Effect::Lurk),
            "posts alone: 潜水 unchanged"
        );
    }

    #[test]
    fn a_later_close_reopens_the_day_under_new_keys() {
        let g = game();
        let mut d = g.day(2).unwrap().clone();
        let first = d.closes_at;
        assert!(!reopened(&d, None), "never closed");
        assert!(!reopened(&d, Some(first)), "closed for this deadline");
        d.closes_at = first + Duration::days(1);
        assert!(reopened(&d, Some(first)));
        assert_eq!(
            event_key_at(&g, &d, "close", 0),
            format!("close/{}/2", g.id)
        );
        assert_eq!(
            event_key_at(&g, &d, "close", 1),
            format!("close/{}/2/r1", g.id)
        );
    }

    #[test]
    fn edits_inside_a_window_are_held_until_it_closes() {
        let opened = at("2026-11-29 19:01:30");
        let w = EditWindow {
            game: "g".into(),
            day: 2,
            opened,
            held: Vec::new(),
        };
        assert!(!edit_held(None, opened), "no window: mailed at once");
        assert!(edit_held(Some(&w), at("2026-11-29 19:31:29")));
        assert!(
            !edit_held(Some(&w), at("2026-11-29 19:31:30")),
            "a new window"
        );
        assert!(!window_closed(&w, at("2026-11-29 19:31:29")));
        assert!(window_closed(&w, at("2026-11-29 19:31:30")));
    }

    #[test]
    fn the_lock_is_due_once_from_its_start() {
        let g = game();
        let d = g.day(2).unwrap();
        assert_eq!(lock_from(&g, d), Some(at("2026-11-29 20:00")));
        let fresh = DayRecord::default();
        assert!(!lock_due(&g, d, &fresh, at("2026-11-29 19:59:59")));
        assert!(lock_due(&g, d, &fresh, at("2026-11-29 20:00")));
        let done = DayRecord {
            lock_done: true,
            ..Default::default()
        };
        assert!(!lock_due(&g, d, &done, at("2026-11-29 20:30")));
        let name = &g.id;
        assert_eq!(
            day_effects(&g, &fresh, false, 0, at("2026-11-29 20:00")),
            [format!("mail lock/{name}/2"), format!("done lock/{name}/2")]
        );
        assert!(day_effects(&g, &done, false, 0, at("2026-11-29 20:01")).is_empty());
    }

    #[test]
    fn interim_tallies_fall_in_buckets_of_the_configured_hours() {
        let g = game();
        let rec = DayRecord::default();
        let a = day_effects(&g, &rec, false, 6, at("2026-11-29 14:00"));
        let b = day_effects(&g, &rec, false, 6, at("2026-11-29 19:59"));
        let c = day_effects(&g, &rec, false, 6, at("2026-11-29 20:00"));
        assert_eq!(a.len(), 1, "{a:?}");
        assert_eq!(a, b, "one bucket from 14:00 to 20:00 (UTC 06:00 to 12:00)");
        assert_ne!(a[0], c[0]);
        assert!(day_effects(&g, &rec, false, 0, at("2026-11-29 14:00")).is_empty());
    }

    #[test]
    fn a_new_leader_is_mailed_with_the_next_sequence_number() {
        use crate::domain::rules::Count;
        let g = game();
        let d = g.day(2).unwrap();
        let now = at("2026-11-29 15:00");
        let mut t = tally_at(&g, 2, now);
        let count = |target: &str, votes: f64| Count {
            target: target.into(),
            votes,
            voters: Vec::new(),
            adjustments: Vec::new(),
            half_votes: 0.0,
            reached_at: None,
        };
        t.counts = vec![count("李逵", 3.0), count("大灰狼", 3.0), count("小飞", 1.0)];
        let run_on = |t: &Tally, rec: &DayRecord| {
            keys(&day(
                &DayInput {
                    game: &g,
                    day: d,
                    tally: t,
                    record: rec,
                    stale: false,
                    interim_every_hours: 0,
                    lurk: false,
                    lurk_stale: false,
                },
                now,
            ))
        };
        let run = |rec: &DayRecord| run_on(&t, rec);
        let name = &g.id;
        assert_eq!(
            run(&DayRecord::default()),
            [
                format!("mail leader/{name}/2/0"),
                format!("leader leader/{name}/2 0 李逵、大灰狼")
            ]
        );
        let same = DayRecord {
            leader: Some((4, "李逵、大灰狼".into())),
            ..Default::default()
        };
        assert!(
            run(&same).is_empty(),
            "the same leaders are not mailed again"
        );
        let other = DayRecord {
            leader: Some((4, "李逵".into())),
            ..Default::default()
        };
        assert_eq!(
            run(&other),
            [
                format!("mail leader/{name}/2/5"),
                format!("leader leader/{name}/2 5 李逵、大灰狼")
            ]
        );
        let mut none = t.clone();
        none.counts.clear();
        assert!(
            run_on(&none, &DayRecord::default()).is_empty(),
            "no votes, no leader"
        );
    }

    #[test]
    fn the_close_sends_the_final_and_lurk_unless_the_reading_is_stale() {
        let g = game();
        let rec = DayRecord::default();
        let name = &g.id;
        assert_eq!(
            day_effects(&g, &rec, false, 6, at("2026-11-29 21:00")),
            [
                format!("mail close/{name}/2"),
                format!("done close/{name}/2"),
                "lurk".to_string()
            ],
            "no interim, leader or lock mail after the close"
        );
        // Caught up late: the reading counts as the after-close look too.
        assert_eq!(
            day_effects(&g, &rec, false, 6, at("2026-11-29 21:10")),
            [
                format!("mail close/{name}/2"),
                format!("done close/{name}/2"),
                format!("done recheck/{name}/2"),
                "lurk".to_string()
            ]
        );
        assert!(
            day_effects(&g, &rec, true, 6, at("2026-11-29 21:00")).is_empty(),
            "a stale reading holds the final tally, 潜水 and the close"
        );
    }

    #[test]
    fn a_counted_thread_unreadable_at_the_close_holds_only_the_lurk_mail() {
        let g = game();
        let d = g.day(2).unwrap();
        let now = at("2026-11-29 21:10");
        let t = tally_at(&g, 2, now);
        let rec = DayRecord::default();
        let effects = keys(&day(
            &DayInput {
                game: &g,
                day: d,
                tally: &t,
                record: &rec,
                stale: false,
                interim_every_hours: 0,
                lurk: true,
                lurk_stale: true,
            },
            now,
        ));
        let name = &g.id;
        assert_eq!(
            effects,
            [
                format!("mail close/{name}/2"),
                format!("done close/{name}/2")
            ],
            "the final goes; 潜水 and the after-close look wait for the thread"
        );
    }

    #[test]
    fn the_after_close_look_is_due_from_ten_minutes_to_two_days_after_the_close() {
        let g = game();
        let d = g.day(2).unwrap();
        assert!(!recheck_due(&g, d, true, false, at("2026-11-29 21:09:59")));
        assert!(recheck_due(&g, d, true, false, at("2026-11-29 21:10")));
        assert!(recheck_due(&g, d, true, false, at("2026-12-01 21:00")));
        assert!(!recheck_due(&g, d, true, false, at("2026-12-01 21:00:01")));
        assert!(
            !recheck_due(&g, d, true, true, at("2026-11-29 21:30")),
            "once"
        );
        assert!(
            !recheck_due(&g, d, false, false, at("2026-11-29 21:30")),
            "not before the final tally is made"
        );
    }

    #[test]
    fn a_day_is_watched_from_its_opening_until_its_close_is_tallied() {
        let g = game();
        let mut d = g.day(2).unwrap().clone();
        d.opens_at = Some(at("2026-11-28 12:00"));
        assert!(!watched(&d, false, at("2026-11-28 11:59")));
        assert!(watched(&d, false, at("2026-11-28 12:00")));
        assert!(watched(&d, false, at("2026-11-30 12:00")), "until tallied");
        assert!(!watched(&d, true, at("2026-11-29 21:01")));
        d.opens_at = None;
        assert!(
            !watched(&d, false, at("2026-11-22 20:59")),
            "a week before at most"
        );
        assert!(watched(&d, false, at("2026-11-22 21:00")));
        d.vote_thread = None;
        assert!(!watched(&d, false, at("2026-11-29 12:00")));
    }

    #[test]
    fn a_failure_streak_is_mailed_once_after_the_limit_and_a_login_at_once() {
        let f = Failure {
            tid: 3,
            since: at("2026-11-29 18:00"),
            login_since: None,
            alert_after_minutes: 30,
        };
        assert_eq!(failure_alert(&f, at("2026-11-29 18:29:59")), None);
        let key = failure_alert(&f, at("2026-11-29 18:30"));
        assert_eq!(key, Some(format!("fetchfail/3/{}", f.since.timestamp())));
        assert_eq!(
            failure_alert(&f, at("2026-11-29 21:00")),
            key,
            "the same key for the whole streak: one mail"
        );
        let later = Failure {
            since: at("2026-11-29 21:30"),
            ..f.clone()
        };
        assert_ne!(
            failure_alert(&later, at("2026-11-29 22:00")),
            key,
            "a new streak"
        );
        let login = Failure {
            login_since: Some(at("2026-11-29 18:00")),
            ..f
        };
        assert_eq!(
            failure_alert(&login, at("2026-11-29 18:00")),
            Some(format!("loginfail/{}", at("2026-11-29 18:00").timestamp())),
            "a login that needs the judge: at once"
        );
    }

    #[test]
    fn the_failure_mail_names_the_days_whose_final_waits() {
        let g = game();
        let closed = |_: &DayConfig| false;
        assert!(waiting_days(&g, closed, at("2026-11-29 20:59")).is_empty());
        assert_eq!(
            waiting_days(&g, closed, at("2026-11-29 21:00")),
            [(2, at("2026-11-29 21:00"))]
        );
        assert!(waiting_days(&g, |_| true, at("2026-11-29 21:30")).is_empty());
    }

    #[test]
    fn the_forum_clock_counts_only_beyond_a_minute() {
        let m = at("2026-11-29T20:41:00+08:00");
        assert_eq!(clock_offset(m, None), None);
        // Within the tolerance the judge is not told, but the cycle goes by the forum's time.
        assert_eq!(
            clock_correction(m, Some(m - Duration::seconds(15))),
            Some(Duration::seconds(-15))
        );
        assert_eq!(
            clock_correction(m, Some(m + Duration::milliseconds(400))),
            None
        );
        assert_eq!(clock_correction(m, None), None);
        assert_eq!(clock_offset(m, Some(m + Duration::seconds(59))), None);
        assert_eq!(clock_offset(m, Some(m - Duration::seconds(60))), None);
        assert_eq!(
            clock_offset(m, Some(m - Duration::minutes(19))),
            Some(Duration::minutes(-19))
        );
        assert_eq!(
            clock_offset(m, Some(m + Duration::hours(1))),
            Some(Duration::hours(1))
        );
    }

    #[test]
    fn the_forum_is_asked_its_time_when_unknown_old_or_disagreeing() {
        let m = at("2026-11-29T20:41:00+08:00");
        let s = std::time::Duration::from_secs;
        assert!(clock_probe_due(m, None));
        assert!(!clock_probe_due(m, Some((m, s(30)))));
        assert!(clock_probe_due(m, Some((m, s(601)))));
        // The machine's clock jumped since the last answer: ask again before believing either.
        assert!(clock_probe_due(m, Some((m + Duration::hours(1), s(30)))));
        // A fresh answer that disagrees is believed.
        assert!(!clock_probe_due(m, Some((m + Duration::hours(1), s(1)))));
    }

    #[test]
    fn round_two_runs_the_rules_hours_of_game_time_skipping_paused_days() {
        // Thursday 21:00 + 24 h: Friday 21:00.
        let thu = at("2026-11-26T21:00:00+08:00");
        assert_eq!(
            game_time_after(thu, 24, &[6, 7]),
            at("2026-11-27T21:00:00+08:00")
        );
        // Friday 21:00 + 24 h: 3 h on Friday, the weekend stops the clock, 21 h on Monday.
        let fri = at("2026-11-27T21:00:00+08:00");
        assert_eq!(
            game_time_after(fri, 24, &[6, 7]),
            at("2026-11-30T21:00:00+08:00")
        );
        assert_eq!(
            game_time_after(fri, 24, &[]),
            at("2026-11-28T21:00:00+08:00")
        );
    }

    #[test]
    fn the_judges_runoff_settings_come_first_then_the_rules() {
        let mut g = game();
        let mut d = g.days[0].clone();
        let tied = ["李逵".to_string(), "小飞".to_string()];
        assert_eq!(runoff_plan(&g, &d, None, None), RunoffPlan::None);
        // The preset game (m103-based) has no round-2 duration: the judge must set one.
        assert_eq!(
            runoff_plan(&g, &d, Some(&tied), None),
            RunoffPlan::NeedsTime(tied.to_vec())
        );
        std::sync::Arc::make_mut(&mut g.rules)
            .runoff
            .get_or_insert_with(Default::default)
            .hours = Some(24);
        std::sync::Arc::make_mut(&mut g.rules)
            .schedule
            .paused_weekdays = vec![];
        match runoff_plan(&g, &d, Some(&tied), None) {
            RunoffPlan::Run(r) => {
                assert_eq!(r.closes_at, d.closes_at + Duration::hours(24));
                assert_eq!(r.candidates, tied);
            }
            other => panic!("{other:?}"),
        }
        let moved = crate::domain::config::Runoff {
            opens_at: None,
            closes_at: d.closes_at + Duration::hours(2),
            candidates: tied.to_vec(),
            vote_thread: None,
            eliminate: None,
        };
        d.runoff = Some(moved.clone());
        assert_eq!(
            runoff_plan(&g, &d, Some(&tied), None),
            RunoffPlan::Run(moved)
        );
        d.no_runoff = true;
        assert_eq!(runoff_plan(&g, &d, Some(&tied), None), RunoffPlan::None);
    }

    #[test]
    fn the_day_one_sheriff_carries_while_alive_and_the_judges_choice_wins() {
        let g = game();
        let mut d = g.days[0].clone();
        d.day = 3;
        let (x, gone) = carry_sheriff(&d, Some("花千树"));
        assert_eq!((x.sheriff.as_deref(), gone), (Some("花千树"), None));
        d.dead.push("花千树".into());
        let (x, gone) = carry_sheriff(&d, Some("花千树"));
        assert_eq!((x.sheriff, gone.as_deref()), (None, Some("花千树")));
        d.sheriff = Some("李逵".into());
        let (x, gone) = carry_sheriff(&d, Some("花千树"));
        assert_eq!((x.sheriff.as_deref(), gone), (Some("李逵"), None));
    }

    #[test]
    fn an_overtime_runs_fifteen_minutes_in_the_poll_the_judge_names() {
        let g = game();
        let d = g.days[0].clone();
        let tied = ["李逵".to_string(), "冷雪".to_string()];
        assert_eq!(
            runoff_plan(&g, &d, Some(&tied), Some(1)),
            RunoffPlan::NeedsPoll {
                closes_at: d.closes_at + Duration::minutes(15),
                candidates: tied.to_vec(),
                places: 1
            }
        );
        let r = crate::domain::config::Runoff {
            opens_at: None,
            closes_at: d.closes_at + Duration::minutes(15),
            candidates: tied.to_vec(),
            vote_thread: Some(6),
            eliminate: Some(1),
        };
        let (g2, phase) = round_two(&g, &d, &r);
        assert_eq!(phase.vote_thread, Some(6));
        assert_eq!(phase.closes_at, r.closes_at);
        // The scheduler's round 2 phases (`service::phase_jobs`, `Daemon::runoff_phases`) are
        // taken from the run-off without building round 2: the same lock and close.
        assert!(lock_from(&g2, &phase).is_some());
        assert_eq!(lock_from(&g2, &phase), lock_before(&g, r.closes_at));
    }
}
