//! Time (the only module that reads the clock): when to poll, the phase times of each game, the
//! catch-up after a restart, and the systemd watchdog.
//!
//! tokio-cron-scheduler drives a repeated tick (at the fast cadence) and one-shot jobs at each
//! lock-window start and close. A tick runs a cycle when the normal interval has passed, or
//! when a close is near, or when a phase time has passed and is not done yet — which is also
//! the catch-up: a close that passed while the daemon was down is due at the first tick, and
//! the cycle tallies it at its real cutoff from the record.

use crate::daemon::{CycleReport, Daemon};
use chrono::{DateTime, Duration, FixedOffset, Utc};
use std::sync::Arc;
use tokio::sync::Mutex;
use tokio_cron_scheduler::{Job, JobScheduler};

type Time = DateTime<FixedOffset>;

/// Where "now" comes from.
pub trait Clock: Send + Sync {
    fn now(&self) -> Time;
}

/// The system clock, in the forum's offset.
pub struct SystemClock(pub FixedOffset);

impl Clock for SystemClock {
    fn now(&self) -> Time {
        Utc::now().with_timezone(&self.0)
    }
}

/// A clock that starts at a given moment and runs at `speed` times real time: rehearsing a
/// recorded game (`bansha run --now T`) and the demo.
pub struct ShiftedClock {
    pub start: Time,
    pub real_start: std::time::Instant,
    pub speed: u32,
}

impl ShiftedClock {
    pub fn new(start: Time, speed: u32) -> ShiftedClock {
        ShiftedClock {
            start,
            real_start: std::time::Instant::now(),
            speed: speed.max(1),
        }
    }
}

impl Clock for ShiftedClock {
    fn now(&self) -> Time {
        let elapsed = self.real_start.elapsed() * self.speed;
        self.start + Duration::from_std(elapsed).unwrap_or_default()
    }
}

/// Whether a cycle is due at `now`, given the last one.
pub fn due(daemon: &Daemon, last: Option<Time>, now: Time) -> bool {
    let Some(last) = last else { return true };
    let poll = &daemon.settings.poll;
    if now - last >= Duration::seconds(poll.interval_secs as i64) {
        return true;
    }
    let near = Duration::minutes(poll.near_close_minutes as i64);
    for (g, d) in daemon.active_days(now) {
        let lock = (g.rules.vote.lock_minutes > 0)
            .then(|| d.closes_at - Duration::minutes(g.rules.vote.lock_minutes as i64));
        // A phase time passed since the last cycle.
        if [lock, Some(d.closes_at)]
            .into_iter()
            .flatten()
            .any(|t| last < t && t <= now)
        {
            return true;
        }
        if d.closes_at - now <= near && now - last >= Duration::seconds(poll.near_close_secs as i64)
        {
            return true;
        }
        if now >= d.closes_at {
            return true;
        }
    }
    false
}

/// Shared state of the running service.
pub struct Service {
    pub daemon: Arc<Daemon>,
    pub clock: Arc<dyn Clock>,
    pub last: Mutex<Option<(Time, CycleReport)>>,
}

impl Service {
    /// Run a cycle if one is due.
    pub async fn tick(&self, force: bool) {
        let now = self.clock.now();
        let last_at = self.last.lock().await.as_ref().map(|(t, _)| *t);
        if !force && !due(&self.daemon, last_at, now) {
            return;
        }
        let report = self.daemon.cycle(now).await;
        crate::fetch::tracing_line(&format!(
            "cycle {}: {} requests, {} new posts, {} edited, {} mails queued, {} sent, {} waiting{}",
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
                format!("; errors: {}", report.errors.join("; "))
            }
        ));
        *self.last.lock().await = Some((now, report));
    }

    /// Healthy: a cycle finished recently enough (three normal intervals, at least 15 minutes).
    pub async fn healthy(&self) -> bool {
        let now = self.clock.now();
        let limit =
            Duration::seconds((self.daemon.settings.poll.interval_secs * 3).max(900) as i64);
        match self.last.lock().await.as_ref() {
            Some((t, _)) => now - *t <= limit,
            None => false,
        }
    }
}

/// Run until SIGTERM or Ctrl-C.
pub async fn run(service: Arc<Service>) -> anyhow::Result<()> {
    let mut sched = JobScheduler::new().await?;
    let tick_every =
        std::time::Duration::from_secs(service.daemon.settings.poll.near_close_secs.max(1));
    let s = service.clone();
    sched
        .add(Job::new_repeated_async(tick_every, move |_, _| {
            let s = s.clone();
            Box::pin(async move { s.tick(false).await })
        })?)
        .await?;
    // One-shot jobs at each future lock start and close (plus a few seconds for the forum's
    // clock), so a phase never waits for the next tick.
    let now = service.clock.now();
    for (g, d) in service.daemon.active_days(now) {
        let lock = (g.rules.vote.lock_minutes > 0)
            .then(|| d.closes_at - Duration::minutes(g.rules.vote.lock_minutes as i64));
        for t in [lock, Some(d.closes_at)].into_iter().flatten() {
            let at = t + Duration::seconds(5);
            if at > now {
                let wait = (at - now).to_std().unwrap_or_default();
                let s = service.clone();
                sched
                    .add(Job::new_one_shot_at_instant_async(
                        std::time::Instant::now() + wait,
                        move |_, _| {
                            let s = s.clone();
                            Box::pin(async move { s.tick(true).await })
                        },
                    )?)
                    .await?;
            }
        }
    }
    sched.start().await?;
    // Catch up at once: anything due while the daemon was down.
    service.tick(true).await;
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Ready]);

    // The watchdog ping goes out only while cycles keep completing.
    if let Some(timeout) = sd_notify::watchdog_enabled() {
        let s = service.clone();
        tokio::spawn(async move {
            let every = timeout / 2;
            loop {
                tokio::time::sleep(every).await;
                if s.healthy().await {
                    let _ = sd_notify::notify(&[sd_notify::NotifyState::Watchdog]);
                }
            }
        });
    }

    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    let _ = sd_notify::notify(&[sd_notify::NotifyState::Stopping]);
    sched.shutdown().await?;
    // Let a running cycle finish its writes.
    let _ = service.daemon.store.flush().await;
    Ok(())
}
