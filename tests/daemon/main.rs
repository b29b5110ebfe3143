//! The daemon end to end: the real binary (`bansha run --once --now T`, one poll cycle at an
//! injected time per run) against a local HTTP server replaying the captured vote thread as the
//! mobile API v1 served it, and a real local SMTP server (mailin-embedded).
//!
//! The thread as it stood at an earlier time is the captured pages with the later posts taken
//! out (and pid 98 with the text it had before its 21:05 edit, from the scenario key); a
//! deleted post is one taken out. Faults are injected per request: a 502, a timeout, a login
//! expiry (the captured "no permission" answer, then a login through the captured login form).

//!
//! One test binary, split by subject; `support` holds the replay forum, the SMTP server and
//! the helpers every test uses.

#[path = "../common/mod.rs"]
mod common;
mod support;

mod ballot_sources;
mod browser;
mod clock;
mod confirm_day;
mod crash;
mod dashboard;
mod day;
mod days_found;
mod disk;
mod faults;
mod game_days;
mod identity;
mod judge_records;
mod judge_state;
mod live_game;
mod lurk;
mod night;
mod night_bansha42;
mod night_m103;
mod night_qipan;
mod qq;
mod refresh;
mod reload;
mod secrets;
