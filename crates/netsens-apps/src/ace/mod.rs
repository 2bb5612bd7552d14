//! ACE, Evans and Hood's Application Communication Emulator: emulated applications
//! (EAs), each a communication pattern repeated in compute/communicate cycles with a
//! chosen communication load, on disjoint sets of ranks with a communicator each, so
//! several run at once and share the network.
//!
//! Per EA, phase one benchmarks the pattern over message sizes and fits the α–β line
//! `T(n) = α + β·n` (α the start-up per exchange, β per byte; for ring, pairwise and
//! blocking-send one exchange is one message per rank), then measures T_comm for the
//! chosen size immediately before phase two, as the seed insists. Phase two derives
//! T_comp from the load (`load = T_comm / T_cycle`, `T_cycle = T_comp + T_comm`),
//! predicts the run time `iterations × T_cycle` and runs the cycles: compute, the
//! pattern, a barrier. The barrier's time is the synchronisation; it is part of
//! T_comm in the prediction, as the cycle cannot end before it.
//!
//! The program ([`emulator::emulate`]) uses the `Rank` API only; [`emulate_on`] runs it
//! on a [`Backend`] (the simulator, [`run_ace`], or real MPI in `netsens-mpi`) and turns
//! each rank's log into dispersion statistics; [`json`] gives the result's one schema.

pub mod emulator;
pub mod json;
pub mod pattern;
pub mod spec;
pub mod stats;

pub use pattern::Pattern;
pub use spec::EaSpec;
pub use stats::{AlphaBeta, Summary};

use crate::app::{Backend, Simulator};
use emulator::{emulate, RankLog, Sink};
use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::time::Time;
use netsens_core::{input_err, Result};
use std::rc::Rc;

/// One rank's phase two, summarised over its cycles.
#[derive(Clone, Debug)]
pub struct RankSummary {
    pub rank: u32,
    pub run_time: Time,
    pub compute: Summary,
    pub comm: Summary,
    pub sync: Summary,
    /// Communication time of every cycle (ps), for dispersion plots.
    pub comm_cycles: Vec<Time>,
}

/// One EA's prediction and outcome.
#[derive(Clone, Debug)]
pub struct EaResult {
    pub spec: EaSpec,
    /// Phase one: (size in bytes, mean exchange time in ps) and the fitted line.
    pub bench: Vec<(u64, f64)>,
    pub fit: AlphaBeta,
    /// Measured before phase two (ps): exchange, barrier, and the compute per cycle.
    pub t_comm: f64,
    pub t_sync: f64,
    pub t_comp: Time,
    /// `iterations × (T_comp + T_comm + T_sync)`, ps.
    pub predicted: f64,
    /// The slowest rank's phase two, ps.
    pub actual: Time,
    /// Over every cycle of every rank.
    pub compute: Summary,
    pub comm: Summary,
    pub sync: Summary,
    pub ranks: Vec<RankSummary>,
}

impl EaResult {
    /// (actual − predicted) / predicted.
    pub fn error(&self) -> f64 {
        (self.actual as f64 - self.predicted) / self.predicted
    }
}

pub struct AceResult {
    pub eas: Vec<EaResult>,
    /// The whole run (every EA, both phases).
    pub run: RunResult,
    pub world: u32,
}

/// The number of ranks `platform` fixes, if its shape lists clusters.
pub fn platform_ranks(platform: &Platform) -> Option<u32> {
    platform.shape.clusters.as_ref().map(|c| c.iter().sum())
}

/// Parse the EA specifications for a run of `ranks` ranks (default: the platform's
/// shape, else one past the highest rank named) and check them together: the run's
/// rank count and the specifications, before anything runs.
pub fn plan(platform: &Platform, ranks: Option<u32>, specs: &[String]) -> Result<(u32, Vec<EaSpec>)> {
    let fixed = platform_ranks(platform);
    if let (Some(asked), Some(has)) = (ranks, fixed) {
        if asked > has {
            return Err(input_err!("ranks: {asked} is more than platform {}'s {has} ranks", platform.name));
        }
    }
    let hint = ranks.or(fixed);
    let specs = specs.iter().map(|s| EaSpec::parse(s, hint)).collect::<Result<Vec<_>>>()?;
    let highest = specs.iter().flat_map(|s| s.ranks.last()).max().map_or(0, |&r| r + 1);
    let world = hint.unwrap_or(highest);
    spec::check_all(&specs, world)?;
    Ok((world, specs))
}

/// Plan the EAs and run them on the simulator.
pub fn run_ace(platform: &Platform, ranks: Option<u32>, specs: &[String], opts: &RunOptions) -> Result<AceResult> {
    let (world, specs) = plan(platform, ranks, specs)?;
    emulate_all(platform, world, specs, opts)
}

/// Run checked specifications on `world` simulated ranks.
pub fn emulate_all(platform: &Platform, world: u32, specs: Vec<EaSpec>, opts: &RunOptions) -> Result<AceResult> {
    let backend = Simulator { ranks: world, opts, progress: &mut |_| true };
    let (run, eas) = emulate_on(platform, specs, backend)?;
    Ok(AceResult { eas: eas.into_iter().map(|(_, ea)| ea).collect(), run, world })
}

/// The EAs whose logs one process holds, with their index in the run's list.
pub type HeldEas = Vec<(usize, EaResult)>;

/// Run checked specifications on `backend`: its output and the EAs whose logs this
/// process holds, with their index (every EA on the simulator; on MPI, the EAs whose
/// first rank this process is, as each EA gathers its logs there).
pub fn emulate_on<B: Backend>(platform: &Platform, specs: Vec<EaSpec>, backend: B) -> Result<(B::Output, HeldEas)> {
    let specs = Rc::new(specs);
    let sink = Sink::default();
    let (s, k) = (specs.clone(), sink.clone());
    let out = backend.run(platform, move |r| emulate(r, s.clone(), k.clone()))?;
    let logs = sink.take();
    let eas = specs
        .iter()
        .enumerate()
        .filter(|(i, _)| logs.iter().any(|l| l.ea == *i))
        .map(|(i, spec)| (i, summarise(spec, logs.iter().filter(|l| l.ea == i))))
        .collect();
    Ok((out, eas))
}

fn as_f64(times: &[Time]) -> Vec<f64> {
    times.iter().map(|&t| t as f64).collect()
}

fn summarise<'a>(spec: &EaSpec, logs: impl Iterator<Item = &'a RankLog>) -> EaResult {
    let mut logs: Vec<&RankLog> = logs.collect();
    logs.sort_by_key(|l| l.rank);
    let first = logs[0];
    let pooled = |part: fn(&RankLog) -> &Vec<Time>| {
        Summary::of(&logs.iter().flat_map(|l| part(l).iter().map(|&t| t as f64)).collect::<Vec<_>>())
    };
    EaResult {
        spec: spec.clone(),
        bench: first.bench.clone(),
        fit: first.fit,
        t_comm: first.t_comm,
        t_sync: first.t_sync,
        t_comp: first.t_comp,
        predicted: spec.iterations as f64 * (first.t_comp as f64 + first.t_comm + first.t_sync),
        actual: logs.iter().map(|l| l.run_time).max().unwrap_or(0),
        compute: pooled(|l| &l.compute),
        comm: pooled(|l| &l.comm),
        sync: pooled(|l| &l.sync),
        ranks: logs
            .iter()
            .map(|l| RankSummary {
                rank: l.rank,
                run_time: l.run_time,
                compute: Summary::of(&as_f64(&l.compute)),
                comm: Summary::of(&as_f64(&l.comm)),
                sync: Summary::of(&as_f64(&l.sync)),
                comm_cycles: l.comm.clone(),
            })
            .collect(),
    }
}
