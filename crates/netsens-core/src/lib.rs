//! netsens-core: the deterministic discrete-event engine behind netsens.
//!
//! Time is integer picoseconds ([`time::Time`]); the timing rules are those of
//! `LOGGP.md` (LogGOPS as LogGOPSim implements it, plus rendezvous handshake,
//! wide-area links and seeded noise). Front ends (GOAL schedules here, rank
//! programs later) feed one engine core through the [`engine::Frontend`] trait.

pub mod analysis;
pub mod engine;
pub mod error;
pub mod fabric;
pub mod memory;
pub mod platform;
pub mod prefault;
pub mod profile;
pub mod program;
pub mod schedule;
pub mod time;
pub mod units;

pub use error::{Error, Result};
pub use time::Time;
