//! Collectives on rank programs: end times derived by hand from the algorithms and
//! LOGGP.md, the same times through the schedule front end (the communication of
//! each algorithm rebuilt as a GOAL-style schedule), result payloads, automatic and
//! explicit algorithm choice, and deadlocks.
//!
//! Platform: LogGOPSim's defaults with the handshake rendezvous, L=2500 o=1500
//! g=1000 G=6 ns/B O=0 S=65535 B. For a message of s bytes, k = s−1 and:
//! - the sender's CPU is busy o = 1500 and its NIC g + 6k = 1000 + 6k;
//! - it arrives o + L = 4000 after it starts and, on an idle receiver, is processed
//!   for o + 6k = 1500 + 6k;
//! - so start of send → receive done is T(s) = 5500 + 6k when nothing queues.
//!
//! A rank's end time is its CPU clock when its last operation is done. Times below
//! are in ns.
//!
//! One module per part: `cases` and `plans` build the cases and their schedules;
//! `by_hand`, `schedules`, `payloads`, `choice` and `isolation` test them.

#[path = "../common.rs"]
mod common;

mod by_hand;
mod cases;
mod choice;
mod isolation;
mod payloads;
mod plans;
mod schedules;

use cases::*;
use common::*;
use netsens_core::engine::{OpId, RunOptions};
use netsens_core::error::Error;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::profile::RunResult;
use netsens_core::program::collectives::*;
use netsens_core::program::{run_program, Rank, SimRank, ANY_SOURCE, ANY_TAG};
use netsens_core::schedule::{Schedule, ScheduleBuilder};

fn defaults() -> Platform {
    loggopsim_defaults(Rendezvous::Handshake)
}

fn ends(r: &RunResult) -> Vec<u64> {
    (0..r.ranks.len()).map(|i| end_ns(r, i)).collect()
}

const S: usize = 65535;

fn uniform(p: u32, t: u64) -> Vec<u64> {
    vec![t; p as usize]
}
