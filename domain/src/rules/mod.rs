//! The rules: pure code that takes posts, the game config and an explicit `now`. No network,
//! no database, no clock.

pub mod acceleration;
pub mod channels;
pub mod checks;
pub mod confirm;
pub mod draw;
pub mod flags;
pub mod ledger;
pub mod lurk;
pub mod roster;
pub mod rulings;
pub mod state;
pub mod tally;
pub mod timeline;
pub mod window;

pub use tally::{
    tally, tally_of, tally_ruled, tally_with, Ballot, BallotKind, Cast, Count, Inputs, Outcome,
    OutcomeKind, Tally, TallyError,
};
