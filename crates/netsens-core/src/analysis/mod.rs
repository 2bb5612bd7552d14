//! Every sensitivity from one run: the run is recorded as an execution graph
//! ([`graph`]) by an observer beside the engine; the critical path ([`critical`]),
//! the exact slopes ([`eval`]), each parameter's curve and its tolerance ([`curve`])
//! are computed from that record, the same for GOAL schedules, traces and programs.

pub mod batch;
mod codes;
pub mod cpu_stairs;
pub mod critical;
pub mod curve;
pub mod eval;
pub mod graph;
pub mod params;
pub mod report;
pub mod stairs;
pub mod timeline;

use crate::engine::observe::Observer;
use crate::engine::{Core, Progress, RunOptions};
use crate::error::{Error, Result};
use crate::platform::Platform;
use crate::profile::RunResult;
use crate::program::{run_program_observed, SimRank};
use crate::schedule::executor::ScheduleFrontend;
use crate::schedule::Schedule;
pub use batch::{AtBase, Choices, Lane, Slots};
pub use critical::{CriticalPath, Part};
pub use curve::Curve;
use curve::Search;
pub use eval::{Buffers, Eval};
pub use graph::ExecGraph;
pub use params::{Param, Point};
pub use report::{report, Request, EPSILONS};
use stairs::Stairs;
use std::future::Future;
pub use timeline::Window;

/// The analysis needs the run's times to be set by its parameters alone.
pub fn check_platform(platform: &Platform) -> Result<()> {
    let levels = std::iter::once(&platform.cluster).chain(platform.node.as_ref());
    if levels.into_iter().any(|l| l.control_overhead.is_some_and(|c| c != l.overhead)) {
        return Err(Error::Input(
            "sensitivity does not follow o_control (the handshake's control o) apart from o: the record prices \
             every message at o; remove o_control for this analysis"
                .into(),
        ));
    }
    if !platform.noise.background.is_empty() || !platform.noise.faults.is_empty() {
        return Err(Error::Input(
            "sensitivity cannot follow background traffic or faults ([[noise.background]], [[noise.faults]]): they \
             change the times by the clock, not by the parameters; remove them for this analysis"
                .into(),
        ));
    }
    Ok(())
}

/// Run schedule `s` on `platform`, recording its execution graph. A schedule whose
/// record would not fit in memory stops before it starts.
pub fn record_schedule(
    s: &Schedule,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, ExecGraph)> {
    check_platform(platform)?;
    check_record_fits(s.num_ops(), crate::memory::available_bytes())?;
    let mut core = Core::new(platform, s.num_ranks, s.ncpus, s.nnics, opts)?;
    core.observe(Box::new(ExecGraph::with_capacity(platform, s.num_ops())));
    let mut front = ScheduleFrontend::new(s);
    front.enable_roots(&mut core);
    let (result, obs) = core.run_observed(&mut front, progress)?;
    recorded(result, obs, platform)
}

/// Run rank program `program` on `ranks` ranks of `platform`, recording its
/// execution graph (its size is known only as it runs: it is not checked before).
pub fn record_program<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, ExecGraph)>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    check_platform(platform)?;
    let observer: Box<dyn Observer> = Box::new(ExecGraph::new(platform));
    let (result, obs) = run_program_observed(platform, ranks, opts, program, progress, Some(observer))?;
    recorded(result, obs, platform)
}

fn recorded(result: RunResult, obs: Option<Box<dyn Observer>>, platform: &Platform) -> Result<(RunResult, ExecGraph)> {
    let graph = obs
        .expect("an observed run gives back its observer")
        .into_any()
        .downcast::<ExecGraph>()
        .expect("the observer is the execution graph");
    check_record(&graph, platform, &result)?;
    Ok((result, *graph))
}

/// A record of `ops` operations fits in `available` bytes (`None`: unknown), or
/// one error line with what it would need.
pub fn check_record_fits(ops: usize, available: Option<u64>) -> Result<()> {
    crate::memory::ensure_fits_in(
        &format!("the dependency record of {ops} operations (for the sensitivity analysis)"),
        ops as u128 * graph::BYTES_PER_OP,
        available,
    )
}

/// The record evaluated at the run's own parameters must give the run's end: where
/// something the record does not model set a time (jitter holding a message behind
/// an earlier one), the analysis says so instead of answering wrongly.
pub fn check_record(graph: &ExecGraph, platform: &Platform, result: &RunResult) -> Result<()> {
    // Worked out with the slots when the run ended (no pass of its own).
    let t = graph.makespan_at(&Point::of(platform));
    let end = result.ranks.iter().map(|r| r.end_ps).max().unwrap_or(0);
    if (t - end as f64).abs() > 0.5 + end as f64 * 1e-12 {
        return Err(Error::Input(format!(
            "the dependency record gives {t:.0} ps where the run ended at {end} ps: this platform has timing \
             (latency jitter reordering messages, CPU speed rounding) the analysis does not follow; remove the \
             noise for this analysis"
        )));
    }
    Ok(())
}

/// What one parameter does to the run.
#[derive(Clone, Debug)]
pub struct ParamSensitivity {
    pub param: Param,
    /// The platform's value (in `param.unit()`).
    pub value: f64,
    pub slope: Eval,
    /// (ε, largest Δx with T ≤ (1 + ε)·T0; `None`: unbounded).
    pub tolerances: Vec<(f64, Option<f64>)>,
}

/// The analysis at the platform's point: the makespan, the critical path and what
/// each parameter does.
pub struct Analysis {
    /// ps.
    pub makespan: f64,
    pub critical_path: CriticalPath,
    pub params: Vec<ParamSensitivity>,
    /// The points of each pass of Newton's steps (all parameters and ε together).
    pub newton_passes: Vec<usize>,
}

impl ExecGraph {
    /// Slopes and tolerances of `params` at `base` (see [`ExecGraph::analyze`]).
    pub fn sensitivities(&self, base: &Point, params: &[Param], epsilons: &[f64]) -> Vec<ParamSensitivity> {
        self.analyze(base, params, epsilons).params
    }

    /// The makespan, critical path, slopes and tolerances of `params` at `base`: the
    /// time of every node, every parameter's slopes and the predecessor that set each
    /// time in one pass, then each round of Newton steps of every (parameter, ε) in
    /// one more.
    pub fn analyze(&self, base: &Point, params: &[Param], epsilons: &[f64]) -> Analysis {
        let slots = self.slots();
        let at = self.at_base(&slots, base, params);
        let critical_path = self.critical_path_of(base, &at.choices, at.makespan);
        let slopes = at.slopes;
        // Flat at the platform's value, a parameter's search starts from its steepest path.
        let flat: Vec<Param> = params.iter().zip(&slopes).filter(|(_, e)| e.slope_up <= 0.0).map(|(&x, _)| x).collect();
        let steepest = self.steepest_lanes(&slots, base, &flat);
        let steepest_of = |x: Param| flat.iter().position(|&f| f == x).map(|i| steepest[i]);
        // Where a per-byte cost's T can rise on the fs/B grid: the byte counts it
        // prices, noted by the first pass.
        let per_byte = |x: Param| x.grid().is_some_and(|g| g < 1.0);
        let searched = |(x, e0): (&Param, &Eval)| e0.slope_up > 0.0 || steepest_of(*x).is_some_and(|s| s.slope > 0.0);
        let any_searched =
            |of: &dyn Fn(Param) -> bool| params.iter().zip(&slopes).any(|(x, e0)| of(*x) && searched((x, e0)));
        let counts = any_searched(&per_byte).then_some(&at.sizes.counts);
        // Where 1/cpu_speed's T can rise: the computations' sizes, where few (the first pass's too).
        let sizes = any_searched(&|x| x == Param::CpuTime).then_some(at.sizes.sizes).flatten();
        // (parameter, its search for each ε; `None`: unbounded).
        let mut searches: Vec<Vec<Option<Search>>> = params
            .iter()
            .zip(&slopes)
            .map(|(&x, e0)| {
                let steepest = steepest_of(x);
                let stairs = counts.filter(|_| per_byte(x)).map(|c| Stairs::of(c, base, x));
                let sizes = sizes.filter(|_| x == Param::CpuTime);
                epsilons
                    .iter()
                    .map(|&eps| Search::start(self, base, x, e0, eps, steepest, stairs).map(|s| s.with_sizes(sizes)))
                    .collect()
            })
            .collect();
        let mut newton_passes = Vec::new();
        loop {
            // Every open search's step and the points between it takes anyway, then
            // the lanes the pass carries spare, shared among the searches on a grid
            // (where every point of a parameter answers each of its ε).
            // A search whose first step can wait for the largest ε's first step waits.
            let open: Vec<(usize, usize)> = (0..params.len())
                .flat_map(|i| (0..epsilons.len()).map(move |j| (i, j)))
                .filter(|&(i, j)| {
                    let Some(s) = searches[i][j].filter(|s| !s.done) else { return false };
                    let top = searches[i].iter().flatten().max_by(|a, b| a.target.total_cmp(&b.target));
                    !top.is_some_and(|top| s.waits_for(top))
                })
                .collect();
            if open.is_empty() {
                break;
            }
            let mut between: Vec<usize> = open.iter().map(|&(i, j)| searches[i][j].expect("open").between()).collect();
            // Searches halving a span per fs/B want no slopes: their points go in a
            // pass of makespans alone, the others' in one with slopes going down.
            let slopes: Vec<bool> = open.iter().map(|&(i, j)| searches[i][j].expect("open").wants_slopes()).collect();
            for group in [true, false] {
                let members: Vec<usize> = (0..open.len()).filter(|&o| slopes[o] == group).collect();
                let wanted = members.iter().map(|&o| 1 + between[o]).sum::<usize>();
                let sharing: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&o| searches[open[o].0][open[o].1].is_some_and(|s| s.shares()))
                    .collect();
                for n in 0..(batch::width(wanted) - wanted) {
                    if let Some(&o) = sharing.get(n % sharing.len().max(1)) {
                        between[o] += 1;
                    }
                }
            }
            let points: Vec<Vec<f64>> =
                open.iter().zip(&between).map(|(&(i, j), &b)| searches[i][j].expect("open").points(b)).collect();
            let lanes_of = |group: bool| -> Vec<Lane> {
                open.iter()
                    .zip(&points)
                    .zip(&slopes)
                    .filter(|(_, &s)| s == group)
                    .flat_map(|((&(i, _), list), _)| {
                        list.iter().map(move |&v| Lane { point: base.with(params[i], v), param: params[i] })
                    })
                    .collect()
            };
            let (with_slopes, times_alone) = (lanes_of(true), lanes_of(false));
            let mut evals_with = self.eval_lanes_down(&slots, &with_slopes).into_iter();
            let mut evals_alone = self.eval_lanes_times(&slots, &times_alone).into_iter();
            // Back in the order of the open searches' points.
            let evals: Vec<Eval> = points
                .iter()
                .zip(&slopes)
                .flat_map(|(list, &s)| {
                    let from = if s { &mut evals_with } else { &mut evals_alone };
                    from.by_ref().take(list.len()).collect::<Vec<_>>()
                })
                .collect();
            let lanes = with_slopes.len() + times_alone.len();
            newton_passes.push(lanes);
            // Each parameter's points on a grid, learnt by all its searches.
            let mut known: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); params.len()];
            let mut first = 0;
            for (&(i, j), list) in open.iter().zip(&points) {
                let s = searches[i][j].as_mut().expect("open");
                let evals = &evals[first..first + list.len()];
                first += list.len();
                if s.shares() {
                    s.stepped();
                    known[i].extend(curve::known(list, evals));
                } else {
                    s.step(list, evals);
                }
            }
            for (list, known) in searches.iter_mut().zip(&known) {
                for s in list.iter_mut().flatten().filter(|s| s.shares()) {
                    s.learn(known);
                }
            }
        }
        let params = params
            .iter()
            .zip(slopes)
            .zip(searches)
            .map(|((&x, slope), list)| ParamSensitivity {
                param: x,
                value: base.get(x),
                slope,
                tolerances: epsilons.iter().zip(list).map(|(&e, s)| (e, s.map(|s| s.delta()))).collect(),
            })
            .collect();
        Analysis { makespan: at.makespan, critical_path, params, newton_passes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_too_large_is_refused_with_what_it_needs() {
        // 10^9 operations at BYTES_PER_OP (78 + 60 + 64 + 24 + 144 = 370 B) need 370 GB;
        // 8 GB are free.
        let e = check_record_fits(1_000_000_000, Some(8_000_000_000)).unwrap_err().to_string();
        assert!(e.contains("370.000 GB") && e.contains("8.000 GB") && e.contains("1000000000 operations"), "{e}");
        assert!(!e.contains('\n'));
        assert!(check_record_fits(1000, Some(8_000_000_000)).is_ok());
    }
}
