//! The seeds' LogP calibration on real MPI: the microbenchmarks of
//! `netsens_apps::calibrate` (the same source as in simulation) run one after another
//! on the same two processes. Only one rank logs each microbenchmark's times, and the
//! next one is chosen from them, so after each run the two ranks swap their logs
//! (outside the timed part) and both reach the same decisions.

use crate::MpiBackend;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator as _, Destination, Source};
use netsens_apps::calibrate::{BenchRunner, Log};
use netsens_apps::registry::Backend;
use netsens_core::platform::Platform;
use netsens_core::time::Time;
use netsens_core::{Error, Result};
use std::future::Future;

/// Runs each microbenchmark on the two processes of `world`.
pub struct MpiBench<'a> {
    pub world: &'a SimpleCommunicator,
    /// The ranks' platform: CPU speed 1, so computed intervals are exact.
    pub platform: Platform,
}

impl BenchRunner for MpiBench<'_> {
    type Rank = crate::MpiRank;

    fn run<P, F>(&self, program: P) -> Result<Vec<Time>>
    where
        P: Fn(crate::MpiRank, Log) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        let log = Log::default();
        let shared = log.clone();
        let run = MpiBackend { world: self.world }.run(&self.platform, move |r| program(r, shared.clone()))?;
        run.rank.drain(None);
        run.outcome.map_err(Error::Program)?;
        Ok(swap_logs(self.world, log.take()))
    }
}

/// The log of whichever of the two ranks logged (the other's is empty).
fn swap_logs(world: &SimpleCommunicator, mine: Vec<Time>) -> Vec<Time> {
    let other = world.process_at_rank(1 - world.rank());
    let theirs = mpi::request::scope(|scope| {
        let sent = other.immediate_send(scope, &mine[..]);
        let (theirs, _) = other.receive_vec::<Time>();
        sent.wait();
        theirs
    });
    if mine.is_empty() {
        theirs
    } else {
        mine
    }
}
