//! Pure presentation: everything the judge reads, drawn from domain values. BBCode for the
//! thread, the HTML tally, every mail's subject and body, the dashboard page, the timeline
//! chart. Player text is escaped here, once, where it is drawn.

pub mod bbcode;
pub mod chart;
pub mod dashboard;
pub mod days;
pub mod html;
pub mod judge;
pub mod mails;
pub mod night;
pub mod qq;
