//! The wall clock: the only place bansha reads it. Everything else takes `now` as a value.

use chrono::{DateTime, Duration, FixedOffset, Utc};

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
