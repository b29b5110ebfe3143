//! Pure domain: the game and daemon configs (types, presets, loading from text, validation),
//! the rules, the judge's game state and times. Nothing here touches the network, the store,
//! a file or the clock; what a decision depends on is passed in, `now` included.

pub mod config;
pub mod days;
pub mod deadline;
pub mod game;
pub mod mail;
pub mod night;
pub mod qq;
pub mod record;
pub mod reply;
pub mod report;
pub mod rules;
pub mod settings;
pub mod sources;
pub mod subject;
pub mod time;
