//! bansha: the counting work of a Discuz! forum mafia game (版杀) judge.
//!
//! The library holds everything the `bansha` binary wires together; parsing lives in the
//! pure `bansha-parsers` crate. Imports go one way (ARCHITECTURE.md, enforced by
//! `tests/layers.rs`):
//!
//! `cli → daemon → {present, io} → domain → bansha-parsers`
//!
//! - [`domain`]: pure — config and settings types with their validation, the rules, the
//!   judge's game state, times. No network, no store, no files, no clock.
//! - [`present`]: pure — everything the judge reads: BBCode, HTML, mail subjects and bodies,
//!   the dashboard page, the timeline chart.
//! - [`io`]: one owner per resource — the forum, the store (sled), SMTP, the files bansha reads
//!   and writes, the wall clock, the log.
//! - [`daemon`]: the poll cycle (read → decide → queue → send, where decide is pure), the
//!   service and its scheduler, the HTTP answers.
//! - [`cli`]: one module per subcommand.

pub mod cli;
pub mod daemon;
pub use bansha_domain as domain;
pub mod io;
pub mod present;
