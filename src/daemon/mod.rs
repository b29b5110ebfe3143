//! The running service: one poll cycle at an explicit `now` (`cycle`: read → decide → queue →
//! send, with the decisions pure in `decide`), the scheduler that calls it (`service`), and the
//! HTTP answers for the dashboard and the CLI (`http`).

pub mod confirm;
pub mod cycle;
pub mod days;
pub mod decide;
pub mod http;
pub mod identity;
pub mod night;
mod night_posts;
pub mod qq;
pub mod reload;
pub mod reply;
pub mod service;

pub use crate::domain::report::{CycleReport, DayView};
pub use cycle::Daemon;

/// What the service runs on besides its configs: the real forum, relay and disk unless given
/// (`Daemon::open_with`). The simulator (`tests/simd`) gives its own forum and relay, in the same
/// process, and switches the disk full through `Store::disk_full_switch`.
#[derive(Default, Clone)]
pub struct Seams {
    /// The forum's transport (`None`: reqwest to `forum.base_url`).
    pub http: Option<std::sync::Arc<dyn crate::io::http::Http>>,
    /// The mail relay (`None`: the configured SMTP server or folder).
    pub relay: Option<std::sync::Arc<dyn crate::io::smtp::Relay>>,
    /// The record's disk is full while set (`None`: the real disk's answers only).
    pub disk_full: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Known bugs put back, for the simulator to show it finds them (its planted-bug test).
    pub plants: Plants,
    /// The fonts the timeline picture is drawn with (`None`: the machine's, `io::fonts::system`).
    /// The simulator gives an empty set: the picture is drawn without its words, which no
    /// invariant reads and which were most of its CPU.
    pub fonts: Option<crate::present::chart::Fonts>,
}

/// Steps the simulator's planted-bug test takes out, one at a time, to show it notices. All
/// off in bansha; only `Seams` sets them.
#[derive(Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plants {
    /// The vote thread is not read in full at the close (only from its last known page).
    pub no_close_reread: bool,
    /// A mail goes to the relay without its line reserved in the sent journal first.
    pub no_send_reserve: bool,
}
