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
