//! netsens on real MPI: [`MpiRank`], the [`Rank`](netsens_core::program::Rank) trait
//! on one MPI process, and [`MpiBackend`], which runs any application of the suite
//! (the same source as in simulation) on it. The `netsens-mpi-run` binary starts it
//! under `mpirun`. The backend injects nothing: it makes ordinary MPI calls, and a
//! PMPI library preloaded under it (native/pmpi) delays them.

pub mod calibrate;
mod comms;
mod disks;
mod matching;
mod one_sided;
mod rank;
mod transport;

pub use rank::{MpiRank, RankStats};
pub use transport::abort;

use mpi::topology::SimpleCommunicator;
use netsens_apps::app::Backend;
use netsens_core::platform::Platform;
use netsens_core::{Error, Result};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs a program on this MPI process (one rank per process).
pub struct MpiBackend<'a> {
    pub world: &'a SimpleCommunicator,
}

/// One rank's run: its handle (to serve the others until they finish, see
/// [`MpiRank::drain`]), what it measured and the program's verdict.
pub struct RankRun {
    pub rank: MpiRank,
    pub stats: RankStats,
    /// `Err(why)`: a wrong answer (or the program could not run here).
    pub outcome: std::result::Result<(), String>,
}

impl Backend for MpiBackend<'_> {
    type Rank = MpiRank;
    type Output = RankRun;

    fn run<P, F>(self, platform: &Platform, program: P) -> Result<RankRun>
    where
        P: Fn(MpiRank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        // A tracing library records the program's time only, as its clock measures it:
        // the set-up before and the drain after are paused (MPI_Pcontrol).
        transport::pcontrol(0);
        let rank = MpiRank::new(self.world, platform);
        // Every rank starts its clock after every rank has set up.
        mpi::collective::CommunicatorCollectives::barrier(self.world);
        rank.start_clock();
        transport::pcontrol(1);
        let outcome = drive(program(rank.clone()));
        transport::pcontrol(0);
        let stats = rank.finish();
        if let Some(why) = rank.disk_error() {
            return Err(Error::Input(why));
        }
        Ok(RankRun { rank, stats, outcome })
    }
}

/// Run a future that never waits (every call of [`MpiRank`] blocks inside) with one
/// poll on a no-op waker; a `Pending` is an internal error.
fn drive<T>(future: impl Future<Output = std::result::Result<T, String>>) -> std::result::Result<T, String> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => Err("internal error: the program waited on something other than its rank".into()),
    }
}

/// The MPI library's name and version, on one line.
pub fn library_version() -> String {
    let text = mpi::environment::library_version().unwrap_or_default();
    let first = text.trim_end_matches('\0').lines().next().unwrap_or("unknown MPI");
    first.split_whitespace().collect::<Vec<_>>().join(" ").trim_end_matches(',').to_string()
}
