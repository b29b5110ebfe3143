//! Time (the clock itself is `io::clock`): when to poll, the phase times of each game, the
//! catch-up after a restart, and the systemd watchdog.
//!
//! Plain tokio timers drive a repeated tick (at the fast cadence) and one-shot jobs at each
//! lock-window start and close (a scheduler crate gave nothing more and cost its time-zone
//! database and builders in every build: issue 32). A tick runs a cycle when the normal
//! interval has passed, or when a close is near, or when a phase time has passed and is not
//! done yet — which is also the catch-up: a close that passed while the daemon was down is due
//! at the first tick, and the cycle tallies it at its real cutoff from the record.

use crate::daemon::{CycleReport, Daemon};
use crate::domain::settings::PollSettings;
use crate::io::clock::Clock;
use crate::io::systemd;
use chrono::{DateTime, Duration, FixedOffset};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::Mutex;

type Time = DateTime<FixedOffset>;

/// How long to wait after the last cycle when the forum has failed in the last `failing`
/// cycles in a row: the fast cadence doubled per failed cycle, never beyond the normal interval
/// (a forum that is down or throttling is not hammered at the close; a phase time still runs).
pub fn backoff(poll: &PollSettings, failing: u32) -> Duration {
    if failing == 0 {
        return Duration::zero();
    }
    let fast = poll.near_close_secs.max(1);
    let wait = fast.saturating_mul(1u64 << failing.min(20));
    Duration::seconds(wait.min(poll.interval_secs.max(fast)) as i64)
}

/// Whether a cycle is due at `now`, given the last one, the lock-window starts and closes of
/// the active days, and how many cycles in a row have failed to read the forum.
pub fn due(
    poll: &PollSettings,
    phases: &[(Option<Time>, Time)],
    last: Option<Time>,
    now: Time,
    failing: u32,
) -> bool {
    let Some(last) = last else { return true };
    // The clock went back past the last cycle (the machine's was set back, or bansha now goes
    // by the forum's): a cycle now, not when the clock has caught up.
    if now < last {
        return true;
    }
    // Ticks come every `near_close_secs`, give or take the scheduler's jitter: a tick a few
    // milliseconds early still counts as a period after the last (else every other poll near
    // the close was skipped, and they came two periods apart).
    let since = now - last + TICK_SLACK;
    let wait = backoff(poll, failing);
    if since >= Duration::seconds(poll.interval_secs as i64).max(wait) {
        return true;
    }
    let near = Duration::minutes(poll.near_close_minutes as i64);
    for &(lock, close) in phases {
        // A phase time passed since the last cycle.
        if [lock, Some(close)]
            .into_iter()
            .flatten()
            .any(|t| last < t && t <= now)
        {
            return true;
        }
        if close - now <= near && since >= Duration::seconds(poll.near_close_secs as i64).max(wait)
        {
            return true;
        }
        // Past the close and not yet tallied (the forum failed at the close): every tick,
        // or as the backoff allows, but at least every `OWED_RETRY`: the judge waits for it.
        if now >= close && since >= wait.min(OWED_RETRY) {
            return true;
        }
    }
    false
}

/// The longest wait between two tries of a final owed past its close, however long the forum
/// has failed: ten minutes at most late once it answers, six requests an hour while it is down.
const OWED_RETRY: Duration = Duration::minutes(10);

/// How early a tick may fire and still count as a full period after the last cycle.
const TICK_SLACK: Duration = Duration::milliseconds(500);

/// The moments the one-shot phase jobs fire: a few seconds after each future lock-window start
/// and close of every day with a vote thread, whether or not it is watched yet (a day that
/// opens while the service runs gets its jobs too), and after each of the rules' reminders.
pub fn phase_jobs(games: &[crate::domain::config::GameConfig], now: Time) -> Vec<Time> {
    let mut out: Vec<Time> = games
        .iter()
        .flat_map(|g| {
            g.days
                .iter()
                .filter(|d| d.vote_thread.is_some())
                .flat_map(move |d| {
                    // A run-off the judge wrote down has its phases too.
                    // Round 2's day closes at the run-off's close under the same rules
                    // (`decide::round_two`).
                    let r2 = d.runoff.as_ref().filter(|_| !d.no_runoff).map(|r| {
                        (
                            crate::daemon::decide::lock_before(g, r.closes_at),
                            r.closes_at,
                        )
                    });
                    [
                        crate::daemon::decide::lock_from(g, d),
                        Some(d.closes_at),
                        r2.and_then(|x| x.0),
                        r2.map(|x| x.1),
                    ]
                })
                .chain(g.days.iter().flat_map(move |d| {
                    crate::daemon::decide::reminder_times(g, d)
                        .into_iter()
                        .map(|(_, t)| Some(t))
                }))
        })
        .flatten()
        .map(|t| t + Duration::seconds(5))
        .filter(|t| *t > now)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The one-shot jobs still to add at `now` for phases found since the service started (a
/// run-off's lock and close, known once round 1 has closed in a tie): a few seconds after each
/// future phase time not scheduled yet.
pub fn new_phase_jobs(
    phases: &[(Option<Time>, Time)],
    scheduled: &std::collections::BTreeSet<Time>,
    now: Time,
) -> Vec<Time> {
    let mut out: Vec<Time> = phases
        .iter()
        .flat_map(|(lock, close)| [*lock, Some(*close)])
        .flatten()
        .map(|t| t + Duration::seconds(5))
        .filter(|t| *t > now && !scheduled.contains(t))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The lock-window start and close of each active day.
pub fn phases(daemon: &Daemon, now: Time) -> Vec<(Option<Time>, Time)> {
    let settings = daemon.settings();
    let mut out: Vec<(Option<Time>, Time)> = daemon
        .active_days(&settings, now)
        .into_iter()
        .map(|(g, d)| {
            let lock = (g.rules.vote.lock_minutes > 0)
                .then(|| d.closes_at - Duration::minutes(g.rules.vote.lock_minutes as i64));
            (lock, d.closes_at)
        })
        .collect();
    // Round 2 of a tied day: its lock and close are phases too.
    out.extend(daemon.runoff_phases(now));
    out
}

/// Shared state of the running service.
pub struct Service {
    pub daemon: Arc<Daemon>,
    pub clock: Arc<dyn Clock>,
    pub last: Mutex<Option<(Time, CycleReport)>>,
    /// Cycles in a row that failed to read the forum (the backoff).
    pub failing: std::sync::atomic::AtomicU32,
    /// Told when the store cannot write: the service stops (systemd starts it again).
    stop: tokio::sync::Notify,
    /// The timer tasks, once `run` has started them (none in tests and the simulator, which
    /// call `tick` themselves), and the moments the one-shot jobs fire.
    jobs: std::sync::Mutex<Option<Vec<tokio::task::AbortHandle>>>,
    scheduled: std::sync::Mutex<std::collections::BTreeSet<Time>>,
}

impl Service {
    pub fn new(daemon: Arc<Daemon>, clock: Arc<dyn Clock>) -> Service {
        Service {
            daemon,
            clock,
            last: Mutex::new(None),
            failing: Default::default(),
            stop: tokio::sync::Notify::new(),
            jobs: Default::default(),
            scheduled: Default::default(),
        }
    }

    /// Add a one-shot job (a forced tick) at each of `at`, remembered as scheduled.
    fn schedule(self: &Arc<Self>, at: Vec<Time>) {
        let now = self.clock.now();
        for t in at {
            let wait = (t - now).to_std().unwrap_or_default() / self.clock.speed().max(1);
            let s = self.clone();
            let job = async move {
                tokio::time::sleep(wait).await;
                s.tick(true).await;
            };
            if !self.add_job(job) {
                return;
            }
            if let Ok(mut known) = self.scheduled.lock() {
                known.insert(t);
            }
        }
    }

    /// Start `job` as a timer task of the running service; false (and not started) before
    /// `run` has started or after it has stopped.
    fn add_job(&self, job: impl std::future::Future<Output = ()> + Send + 'static) -> bool {
        let Ok(mut jobs) = self.jobs.lock() else {
            return false;
        };
        let Some(jobs) = jobs.as_mut() else {
            return false;
        };
        jobs.retain(|j| !j.is_finished());
        jobs.push(tokio::spawn(job).abort_handle());
        true
    }

    /// Stop every timer task (a cycle running in one ends at its next await).
    fn stop_jobs(&self) {
        if let Ok(mut jobs) = self.jobs.lock() {
            for j in jobs.take().unwrap_or_default() {
                j.abort();
            }
        }
    }

    /// One-shot jobs for the phases found since the start (a run-off's lock and close): round 2
    /// runs on time as round 1 does, not at the next tick.
    fn schedule_new_phases(self: &Arc<Self>) {
        let now = self.clock.now() + self.daemon.clock_offset();
        let phases = self.daemon.runoff_phases(now);
        // And every phase of the configs running now: a day or a moved deadline a reload
        // brought gets its jobs without a restart.
        let configured = phase_jobs(&self.daemon.settings().games, now);
        let due = match self.scheduled.lock() {
            Ok(known) => {
                let mut due = new_phase_jobs(&phases, &known, now);
                due.extend(configured.into_iter().filter(|t| !known.contains(t)));
                due.sort();
                due.dedup();
                due
            }
            Err(_) => return,
        };
        self.schedule(due);
    }

    /// Run a cycle if one is due.
    pub async fn tick(&self, force: bool) {
        // Fonts drawn with more than a minute ago go at the next tick, cycle or not: an idle
        // daemon's next cycle can be an hour away.
        if crate::io::fonts::release_stale() {
            crate::io::memory::trim_now();
        }
        // The machine's clock, set by the forum's as the last cycle found them apart.
        let machine = self.clock.now();
        let now = machine + self.daemon.clock_offset();
        let last_at = self.last.lock().await.as_ref().map(|(t, _)| *t);
        let failing = self.failing.load(Ordering::Relaxed);
        if !force
            && !due(
                &self.daemon.settings().poll,
                &phases(&self.daemon, now),
                last_at,
                now,
                failing,
            )
        {
            return;
        }
        // Boxed: the cycle is a large future, not copied into the scope's.
        let report = crate::io::state_file::reading(Box::pin(self.daemon.cycle(machine))).await;
        // What the cycle dropped goes back to the system: the idle daemon holds its record's
        // cache and the day views, not the last read's pages (nor fonts drawn with a while ago).
        match crate::io::fonts::release_stale() {
            true => crate::io::memory::trim_now(),
            false => crate::io::memory::trim(),
        }
        let now = report.at.unwrap_or(now);
        if report.fetch_failures > 0 {
            self.failing.fetch_add(1, Ordering::Relaxed);
            crate::io::log::line(&format!(
                "论坛连续 {} 轮读取失败：下次轮询最早在 {} 秒后",
                failing + 1,
                backoff(&self.daemon.settings().poll, failing + 1).num_seconds()
            ));
        } else {
            self.failing.store(0, Ordering::Relaxed);
        }
        crate::io::log::line(&format!(
            "轮询 {}：请求 {} 次，新帖 {}，编辑 {}，邮件入队 {}、已发 {}、待发 {}{}",
            now.format("%Y-%m-%d %H:%M:%S"),
            report.requests,
            report.new_posts,
            report.edited_posts,
            report.mails_queued,
            report.mails_sent,
            report.mails_waiting,
            if report.errors.is_empty() {
                String::new()
            } else {
                format!("；错误：{}", report.errors.join("；"))
            }
        ));
        if report.store_failed {
            self.stop.notify_one();
        }
        *self.last.lock().await = Some((now, report));
    }

    /// Healthy: a cycle finished recently enough (three normal intervals, at least 15 minutes).
    /// The service's problems now: the one health value `bansha status` and the dashboard
    /// show (`domain::report::health`).
    pub async fn health(&self) -> Vec<crate::domain::report::Problem> {
        self.health_with(&self.daemon.reload_state()).await
    }

    /// `health` with the config reload's state as the caller read it (`status` shows both:
    /// one read, so the refused config and its problem are shown together or not at all).
    pub async fn health_with(
        &self,
        reload: &crate::daemon::reload::Reload,
    ) -> Vec<crate::domain::report::Problem> {
        let now = self.clock.now() + self.daemon.clock_offset();
        let last = self.last.lock().await.clone();
        let failing = self.daemon.failing_threads();
        let outbox = self.daemon.store.outbox().unwrap_or_default();
        let waiting: Vec<Time> = outbox.iter().map(|(_, m)| m.created_at).collect();
        let refused: Vec<crate::domain::report::Refused> = self
            .daemon
            .store
            .get_meta("refused_mails")
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut problems = crate::domain::report::health(
            &crate::domain::report::HealthInput {
                last: last.as_ref().map(|(t, r)| (*t, r)),
                stale_after: self.stale_after(),
                failing: &failing,
                waiting: &waiting,
                refused: refused.len(),
                config_error: reload.error.as_deref(),
            },
            now,
        );
        if let Some(line) = self.daemon.qq_failing() {
            problems.push(crate::domain::report::Problem::QqFailing { line });
        }
        problems
    }

    /// How old the last cycle may be before the service counts as stopped.
    fn stale_after(&self) -> Duration {
        Duration::seconds((self.daemon.settings().poll.interval_secs * 3).max(900) as i64)
    }

    /// Whether cycles keep completing (the watchdog's question; `health` is the judge's).
    pub async fn healthy(&self) -> bool {
        let now = self.clock.now() + self.daemon.clock_offset();
        let limit =
            Duration::seconds((self.daemon.settings().poll.interval_secs * 3).max(900) as i64);
        match self.last.lock().await.as_ref() {
            Some((t, r)) => now - *t <= limit && !r.store_failed,
            None => false,
        }
    }
}

/// Run until SIGTERM or Ctrl-C.
pub async fn run(service: Arc<Service>) -> anyhow::Result<()> {
    if let Ok(mut jobs) = service.jobs.lock() {
        *jobs = Some(Vec::new());
    }
    // On the clock's time: the served demo's clock runs faster, and its ticks come as often
    // in its time as a real service's do in real time (not at most once a real minute).
    let tick_every =
        std::time::Duration::from_secs(service.daemon.settings().poll.near_close_secs.max(1))
            / service.clock.speed().max(1);
    let s = service.clone();
    service.add_job(async move {
        let mut every =
            tokio::time::interval_at(tokio::time::Instant::now() + tick_every, tick_every);
        // A tick that a long cycle held up comes when it ends, not in a burst after it.
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            s.tick(false).await;
            s.schedule_new_phases();
        }
    });
    // One-shot jobs at each future lock start and close (plus a few seconds for the forum's
    // clock), so a phase never waits for the next tick; a run-off found later gets its own.
    let now = service.clock.now();
    service.schedule(phase_jobs(&service.daemon.settings().games, now));
    // Catch up at once: anything due while the daemon was down.
    service.tick(true).await;
    service.schedule_new_phases();
    systemd::ready();

    // The watchdog ping goes out only while cycles keep completing.
    if let Some(timeout) = systemd::watchdog_enabled() {
        let s = service.clone();
        tokio::spawn(async move {
            let every = timeout / 2;
            loop {
                tokio::time::sleep(every).await;
                if s.healthy().await {
                    systemd::watchdog();
                }
            }
        });
    }

    // SIGHUP (`systemctl reload`): look at the config files now.
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())?;
    let s = service.clone();
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            crate::io::log::line("收到 SIGHUP：重新载入配置");
            s.daemon.ask_reload();
            s.tick(true).await;
            s.schedule_new_phases();
        }
    });
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let store_failed = tokio::select! {
        _ = tokio::signal::ctrl_c() => false,
        _ = term.recv() => false,
        _ = service.stop.notified() => true,
    };
    systemd::stopping();
    // Stopping takes seconds at most, whatever a cycle or the disk is doing: the record is
    // flushed when it can be, and what was not marked sent goes out after the restart.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        service.stop_jobs();
        let _ = service.daemon.store.flush().await;
    })
    .await;
    if store_failed {
        anyhow::bail!(
            "记录无法写入磁盘（磁盘已满？）：bansha 停止运行，由 systemd 重新启动；无法标记为已发送的邮件一封也没有发出"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Time {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn poll() -> PollSettings {
        PollSettings {
            interval_secs: 300,
            near_close_secs: 60,
            near_close_minutes: 90,
            ..PollSettings::default()
        }
    }

    #[test]
    fn a_clock_set_back_runs_a_cycle_at_once() {
        let last = at("2026-11-29T20:30:00+08:00");
        assert!(due(&poll(), &[], Some(last), last - Duration::hours(1), 0));
    }

    #[test]
    fn a_tick_a_little_early_is_still_a_period_after_the_last() {
        let p = poll();
        let close = at("2026-11-29T21:00:00+08:00");
        let phases = [(Some(at("2026-11-29T20:00:00+08:00")), close)];
        let last = at("2026-11-29T20:30:00+08:00");
        let early = last + Duration::seconds(p.near_close_secs as i64) - Duration::milliseconds(3);
        assert!(due(&p, &phases, Some(last), early, 0));
        assert!(!due(
            &p,
            &phases,
            Some(last),
            last + Duration::seconds(30),
            0
        ));
    }

    #[test]
    fn phase_jobs_cover_days_that_open_later() {
        let g = crate::domain::game::load_str(
            include_str!("../../config/examples/banshayishi-12.toml"),
            std::path::Path::new("game.toml"),
        )
        .unwrap();
        let mut later = g.days[0].clone();
        later.day = 3;
        later.opens_at = Some(at("2026-11-30T09:00:00+08:00"));
        later.closes_at = at("2026-11-30T21:00:00+08:00");
        let mut g = g;
        g.days.push(later);
        // Day 3 is not watched on the 29th, but its lock and close get their jobs then; so do
        // m103's reminders (002 L236–239: 30 minutes after each close, 30 minutes before day
        // 3 opens).
        let jobs = phase_jobs(std::slice::from_ref(&g), at("2026-11-29T12:00:00+08:00"));
        assert_eq!(
            jobs,
            [
                at("2026-11-29T20:00:05+08:00"),
                at("2026-11-29T21:00:05+08:00"),
                at("2026-11-29T21:30:05+08:00"),
                at("2026-11-30T08:30:05+08:00"),
                at("2026-11-30T20:00:05+08:00"),
                at("2026-11-30T21:00:05+08:00"),
                at("2026-11-30T21:30:05+08:00")
            ]
        );
        assert_eq!(phase_jobs(&[g], at("2026-11-30T20:30:00+08:00")).len(), 2);
    }

    /// Issue 29 (live game): a run-off found after the service started got no one-shot jobs
    /// (its lock mail 61 s late, its final 59.6 s late). Its phases are scheduled once each,
    /// when found; a written `runoff` is scheduled from the start.
    #[test]
    fn a_runoff_gets_its_own_phase_jobs() {
        let close = at("2026-11-29T22:00:00+08:00");
        let lock = Some(at("2026-11-29T21:00:00+08:00"));
        let now = at("2026-11-29T20:30:00+08:00");
        let mut known = std::collections::BTreeSet::new();
        let jobs = new_phase_jobs(&[(lock, close)], &known, now);
        assert_eq!(
            jobs,
            [
                at("2026-11-29T21:00:05+08:00"),
                at("2026-11-29T22:00:05+08:00")
            ]
        );
        known.extend(jobs);
        assert!(new_phase_jobs(&[(lock, close)], &known, now).is_empty());
        let past = close + Duration::seconds(5);
        assert!(new_phase_jobs(&[(lock, close)], &Default::default(), past).is_empty());

        let g = crate::domain::game::load_str(
            &include_str!("../../config/examples/banshayishi-12.toml").replace(
                "closes_at = \"2026-11-29 21:00:00\"\n",
                "closes_at = \"2026-11-29 21:00:00\"\nrunoff = { closes_at = \"2026-11-29 23:00:00\", candidates = [\"李逵\", \"小飞\"] }\n",
            ),
            std::path::Path::new("game.toml"),
        )
        .unwrap();
        let jobs = phase_jobs(std::slice::from_ref(&g), at("2026-11-29T12:00:00+08:00"));
        assert!(jobs.contains(&at("2026-11-29T22:00:05+08:00")), "{jobs:?}");
        assert!(jobs.contains(&at("2026-11-29T23:00:05+08:00")), "{jobs:?}");
    }

    /// A final still owed after its close is retried at least every `OWED_RETRY` however long
    /// the forum has failed: with an hour's interval, a forum down for an hour at the close
    /// would otherwise send the final up to an hour after it answers again.
    #[test]
    fn a_final_owed_is_retried_within_ten_minutes_however_long_the_forum_failed() {
        let p = PollSettings {
            interval_secs: 3600,
            near_close_secs: 60,
            near_close_minutes: 5,
            ..PollSettings::default()
        };
        let close = at("2026-11-29T21:00:00+08:00");
        let phases = [(None, close)];
        let last = Some(at("2026-11-29T23:00:00+08:00"));
        assert!(!due(&p, &phases, last, at("2026-11-29T23:09:58+08:00"), 12));
        assert!(due(&p, &phases, last, at("2026-11-29T23:10:00+08:00"), 12));
        // Before the close, far from it, a failing forum is still read at the interval.
        let far = [(None, at("2026-11-30T21:00:00+08:00"))];
        assert!(!due(&p, &far, last, at("2026-11-29T23:59:58+08:00"), 12));
    }

    #[test]
    fn the_backoff_doubles_up_to_the_normal_interval() {
        let p = poll();
        let secs: Vec<i64> = (0..6).map(|n| backoff(&p, n).num_seconds()).collect();
        assert_eq!(secs, [0, 120, 240, 300, 300, 300]);
        assert_eq!(backoff(&p, u32::MAX).num_seconds(), 300);
    }

    #[test]
    fn a_failing_forum_is_polled_less_often_but_phase_times_still_run() {
        let p = poll();
        let close = at("2026-11-29T21:00:00+08:00");
        let lock = Some(at("2026-11-29T20:00:00+08:00"));
        let phases = [(lock, close)];
        let last = Some(at("2026-11-29T20:30:00+08:00"));
        let now = at("2026-11-29T20:31:30+08:00");
        // Near the close: every minute while the forum answers, every 2 / 4 / 5 minutes while
        // it fails.
        assert!(due(&p, &phases, last, now, 0));
        assert!(!due(&p, &phases, last, now, 1));
        assert!(due(&p, &phases, last, at("2026-11-29T20:32:00+08:00"), 1));
        assert!(!due(&p, &phases, last, at("2026-11-29T20:33:59+08:00"), 2));
        assert!(due(&p, &phases, last, at("2026-11-29T20:34:00+08:00"), 2));
        assert!(!due(&p, &phases, last, at("2026-11-29T20:34:59+08:00"), 9));
        // The close itself is never skipped.
        let last = Some(at("2026-11-29T20:59:30+08:00"));
        assert!(due(&p, &phases, last, at("2026-11-29T21:00:00+08:00"), 9));
        // After a close the forum failed at, the retries back off too.
        let last = Some(at("2026-11-29T21:00:00+08:00"));
        assert!(due(&p, &phases, last, at("2026-11-29T21:00:30+08:00"), 0));
        assert!(!due(&p, &phases, last, at("2026-11-29T21:04:00+08:00"), 3));
        assert!(due(&p, &phases, last, at("2026-11-29T21:05:00+08:00"), 3));
        // Far from any close: the normal interval, failing or not.
        let far = [(None, at("2026-11-30T21:00:00+08:00"))];
        let last = Some(at("2026-11-29T12:00:00+08:00"));
        assert!(!due(&p, &far, last, at("2026-11-29T12:04:59+08:00"), 5));
        assert!(due(&p, &far, last, at("2026-11-29T12:05:00+08:00"), 5));
    }
}
