//! The wall clock: the only place bansha reads it. Everything else takes `now` as a value.

use chrono::{DateTime, Duration, FixedOffset, Utc};

type Time = DateTime<FixedOffset>;

/// Where "now" comes from.
pub trait Clock: Send + Sync {
    fn now(&self) -> Time;
    /// How many times as fast as real time this clock runs (1 but for the served demo): the
    /// service's timers wait the clock's duration divided by it.
    fn speed(&self) -> u32 {
        1
    }
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
    fn speed(&self) -> u32 {
        self.speed
    }
}

/// A clock read from a file at each look (the forum's local time written as `--now` takes it,
/// `2026-11-29 21:00:05`): a rehearsal stepped by hand, a day at a time, in a service that
/// keeps running (`bansha run --clock-file F`). A file that cannot be read or parsed leaves
/// the clock where it was (never behind its start).
#[derive(Debug)]
pub struct FileClock {
    path: std::path::PathBuf,
    offset: FixedOffset,
    last: std::sync::Mutex<Time>,
}

impl FileClock {
    /// The clock, first read now: an unreadable file at the start is an error (in Chinese).
    pub fn open(path: &std::path::Path, offset: FixedOffset) -> Result<FileClock, String> {
        let first = read_time(path, offset)?;
        Ok(FileClock {
            path: path.to_path_buf(),
            offset,
            last: std::sync::Mutex::new(first),
        })
    }
}

fn read_time(path: &std::path::Path, offset: FixedOffset) -> Result<Time, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("无法读取时钟文件 {}：{e}", path.display()))?;
    crate::domain::time::parse_local_time(text.trim(), offset)
        .map_err(|e| format!("时钟文件 {}：{e}", path.display()))
}

impl Clock for FileClock {
    fn now(&self) -> Time {
        let mut last = match self.last.lock() {
            Ok(l) => l,
            Err(p) => p.into_inner(),
        };
        if let Ok(t) = read_time(&self.path, self.offset) {
            *last = t;
        }
        *last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_clock_follows_its_file_and_keeps_its_time_when_the_file_is_bad() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("now");
        let cst = FixedOffset::east_opt(8 * 3600).unwrap();
        assert!(FileClock::open(&f, cst)
            .unwrap_err()
            .contains("无法读取时钟文件"));
        std::fs::write(&f, "2026-11-29 21:00:05\n").unwrap();
        let c = FileClock::open(&f, cst).unwrap();
        assert_eq!(c.now().to_rfc3339(), "2026-11-29T21:00:05+08:00");
        std::fs::write(&f, "2026-11-30 09:00").unwrap();
        assert_eq!(c.now().to_rfc3339(), "2026-11-30T09:00:00+08:00");
        std::fs::write(&f, "明天").unwrap();
        assert_eq!(c.now().to_rfc3339(), "2026-11-30T09:00:00+08:00");
    }
}
