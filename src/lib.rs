//! bansha: the counting work of a Discuz! forum mafia game (版杀) judge.
//!
//! The library holds everything the `bansha` binary wires together; parsing lives in the
//! pure `bansha-parsers` crate. See `ARCHITECTURE.md` for the map.

pub mod chart;
pub mod check_cmd;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod draw_cmd;
pub mod fetch;
pub mod init_cmd;
pub mod lurk_cmd;
pub mod notify;
pub mod poll_pm_cmd;
pub mod posts;
pub mod progress;
pub mod render;
pub mod rules;
pub mod run_cmd;
pub mod schedule;
pub mod settings;
pub mod state_cmd;
pub mod status;
pub mod store;
pub mod tally_cmd;
pub mod time;
pub mod wordcount_cmd;
