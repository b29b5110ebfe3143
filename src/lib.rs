//! bansha: the counting work of a Discuz! forum mafia game (版杀) judge.
//!
//! The library holds everything the `bansha` binary wires together; parsing lives in the
//! pure `bansha-parsers` crate. See `ARCHITECTURE.md` for the map.

pub mod config;
pub mod posts;
pub mod rules;
pub mod tally_cmd;
pub mod time;
