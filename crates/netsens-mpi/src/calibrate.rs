//! The seeds' LogP calibration on real MPI: the microbenchmarks of
//! `netsens_apps::calibrate` (the same source as in simulation) run one after another
//! on the same two processes. Only one rank logs each microbenchmark's times, and the
//! next one is chosen from them, so after each run the two ranks swap their logs
//! (outside the timed part) and both reach the same decisions.

use crate::MpiBackend;
use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::CommunicatorCollectives;
use mpi::Count;
use netsens_apps::app::Backend;
use netsens_apps::calibrate::{BenchRunner, Log};
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

    /// A send preempted for longer than the receiver's wait (a fraction of a
    /// millisecond; a time slice on a busy machine is several) looks rendezvous.
    fn eager_tries(&self) -> u32 {
        9
    }
}

/// The log of whichever of the two ranks logged (the other's is empty), through
/// collectives the injection library handles (a matched probe, as `receive_vec`
/// uses, it passes through).
fn swap_logs(world: &SimpleCommunicator, mine: Vec<Time>) -> Vec<Time> {
    let mut lengths = [0 as Count; 2];
    world.all_gather_into(&(mine.len() as Count), &mut lengths[..]);
    let displs = [0, lengths[0]];
    let mut both = vec![0 as Time; (lengths[0] + lengths[1]) as usize];
    let mut partition = PartitionMut::new(&mut both[..], &lengths[..], &displs[..]);
    world.all_gather_varcount_into(&mine[..], &mut partition);
    let (first, second) = both.split_at(lengths[0] as usize);
    if first.is_empty() {
        second.to_vec()
    } else {
        first.to_vec()
    }
}
