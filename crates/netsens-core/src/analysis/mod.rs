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
use crate::engine::relay::Relay;
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
    // The recorder on a thread of its own where there is a core for it (see
    // `crate::engine::relay`).
    record_schedule_on(s, platform, opts, progress, batch::core_beside_the_run())
}

/// As [`record_schedule`], the recorder `beside` the run or on the run's own thread
/// (the same record either way).
pub(crate) fn record_schedule_on(
    s: &Schedule,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
    beside: bool,
) -> Result<(RunResult, ExecGraph)> {
    check_platform(platform)?;
    check_record_fits(s.num_ops(), crate::memory::available_bytes())?;
    let graph = || Box::new(ExecGraph::with_capacity(platform, s.num_ops()));
    // A core of the recorder's own type: its calls are direct, not virtual. Where the
    // system starts no thread for it, the recorder stays on the run's.
    if let Some(relay) = beside.then(|| Relay::start(graph()).ok()).flatten() {
        let (result, relay) = run_recorded(s, platform, opts, progress, Box::new(relay))?;
        recorded(result, relay.into_inner(), platform)
    } else {
        let (result, graph) = run_recorded(s, platform, opts, progress, graph())?;
        recorded(result, graph, platform)
    }
}

/// Run schedule `s` told to observer `obs`; the run's result and the observer back.
fn run_recorded<O: Observer>(
    s: &Schedule,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
    obs: Box<O>,
) -> Result<(RunResult, Box<O>)> {
    let mut core: Core<O> = Core::new(platform, s.num_ranks, s.ncpus, s.nnics, opts)?;
    core.observe(obs);
    let mut front = ScheduleFrontend::new(s);
    front.enable_roots(&mut core);
    let (result, obs) = core.run_observed(&mut front, progress)?;
    Ok((result, obs.expect("an observed run gives back its observer")))
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
    record_program_on(platform, ranks, opts, program, progress, batch::core_beside_the_run())
}

/// As [`record_program`], the recorder `beside` the run or on the run's own thread.
pub(crate) fn record_program_on<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
    beside: bool,
) -> Result<(RunResult, ExecGraph)>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    check_platform(platform)?;
    let graph = || Box::new(ExecGraph::new(platform));
    // Where the system starts no thread for it, the recorder stays on the run's.
    let observer: Box<dyn Observer> = match beside.then(|| Relay::start(graph()).ok()).flatten() {
        Some(relay) => Box::new(relay),
        None => graph(),
    };
    let (result, obs) = run_program_observed(platform, ranks, opts, program, progress, Some(observer))?;
    let obs = obs.expect("an observed run gives back its observer").into_any();
    let graph = match obs.downcast::<Relay<ExecGraph>>() {
        Ok(relay) => relay.into_inner(),
        Err(obs) => obs.downcast::<ExecGraph>().expect("the observer is the execution graph"),
    };
    recorded(result, graph, platform)
}

fn recorded(result: RunResult, graph: Box<ExecGraph>, platform: &Platform) -> Result<(RunResult, ExecGraph)> {
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
    /// Per ε, where its search stopped at [`curve::MAX_SEARCH_STEPS`] passes: the
    /// largest Δx not known to fail (the tolerance is at least its Δx above and at
    /// most this; infinite: no point past the target was found). `None`: exact.
    pub at_most: Vec<Option<f64>>,
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
        self.analyze_within(base, params, epsilons, curve::MAX_SEARCH_STEPS)
    }

    /// As [`ExecGraph::analyze`], each search taking at most `max_steps` passes.
    pub(crate) fn analyze_within(
        &self,
        base: &Point,
        params: &[Param],
        epsilons: &[f64],
        max_steps: usize,
    ) -> Analysis {
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
                    .map(|&eps| {
                        Search::start(self, base, x, e0, eps, steepest, stairs)
                            .map(|s| s.with_sizes(sizes).within(max_steps))
                    })
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
            for &(i, j) in &open {
                searches[i][j].as_mut().expect("open").check_bound();
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
                tolerances: epsilons.iter().zip(&list).map(|(&e, s)| (e, s.map(|s| s.delta()))).collect(),
                at_most: list.iter().map(|s| s.and_then(|s| s.at_most())).collect(),
            })
            .collect();
        Analysis { makespan: at.makespan, critical_path, params, newton_passes }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything two records hold, node by node, and their slots.
    fn assert_same_record(a: &ExecGraph, b: &ExecGraph) {
        assert_eq!(a.nodes.len(), b.nodes.len());
        for v in 0..a.nodes.len() {
            assert_eq!(format!("{:?}", a.node(v)), format!("{:?}", b.node(v)), "node {v}");
            assert_eq!(a.preds_of(v), b.preds_of(v), "node {v}'s predecessors");
        }
        assert_eq!((&a.preds, &a.edges, &a.spans, &a.extra), (&b.preds, &b.edges, &b.spans, &b.extra));
        assert_eq!((a.sink, a.wildcards, a.bytes()), (b.sink, b.wildcards, b.bytes()));
        let (sa, sb) = (a.slots(), b.slots());
        assert_eq!((sa.count, sa.nodes()), (sb.count, sb.nodes()));
    }

    #[test]
    fn the_record_beside_the_run_is_the_one_made_on_the_runs_thread() {
        use crate::schedule::{patterns, ScheduleBuilder};
        let record = |s: &Schedule, p: &Platform, beside| {
            let (r, g) = record_schedule_on(s, p, &RunOptions::default(), &mut |_| true, beside).expect("it runs");
            (r.makespan_ps, g)
        };
        use crate::platform::noise::Dist;
        // An exchange of many batches of calls, then with the OS's detours on the CPUs.
        let mut p = crate::platform::presets::get("loggopsim").expect("a preset");
        let s = patterns::ring_exchange(8, 60, 64, 1000 * crate::time::NS).expect("a schedule");
        let (t, a) = record(&s, &p, false);
        let (u, b) = record(&s, &p, true);
        assert!(a.nodes.len() > 5000 && t == u);
        assert_same_record(&a, &b);
        (p.noise.detour_interval, p.noise.detour_duration) =
            (Dist::Uniform(20_000_000, 40_000_000), Dist::Constant(1_000_000));
        let (t, a) = record(&s, &p, false);
        let (u, b) = record(&s, &p, true);
        assert!(!a.extra.is_empty() && t == u);
        assert_same_record(&a, &b);
        // Messages sharing a fat-tree's links: delays and the pair order told between events.
        let toml = "[cluster]\nL = \"1us\"\no = \"1us\"\ng = \"0ns\"\nG = \"1ns/B\"\nS = \"1MiB\"\n\
                    [topology]\nkind = \"fat-tree\"\ndown = [2, 2]\nup = [1]\nbandwidth = \"1GB/s\"\nlatency = \"100ns\"\n";
        let p = Platform::from_toml(toml, "t.toml").expect("the platform reads");
        let mut sb = ScheduleBuilder::new(4);
        for round in 0..20 {
            for src in 0..4u32 {
                let dst = (src + 1 + round % 3) % 4;
                sb.send(src, dst, 1000 + 10 * round as u64, 0, 0, 0);
                sb.recv(dst, src as i32, 1000 + 10 * round as u64, 0, 0, 0);
            }
        }
        let s = sb.build().expect("a schedule");
        let (t, a) = record(&s, &p, false);
        let (u, b) = record(&s, &p, true);
        let waited = (0..a.nodes.len()).any(|v| a.nodes.kind(v) == graph::kind::LINK_WAIT);
        assert!(t == u && waited);
        assert_same_record(&a, &b);
    }

    #[test]
    fn a_rank_programs_record_beside_the_run_is_the_one_made_on_its_thread() {
        use crate::program::{Rank, ANY_SOURCE};
        let p = crate::platform::presets::get("loggopsim").expect("a preset");
        // Rank 0 takes the others' messages from any source, 300 rounds.
        let record = |beside| {
            let program = |r: SimRank| async move {
                let w = r.world();
                for round in 0..300u32 {
                    if r.rank() == 0 {
                        for _ in 1..r.size() {
                            r.recv(&w, ANY_SOURCE, 0).await;
                        }
                    } else {
                        r.compute(1000 * (1 + (r.rank() + round) as u64 % 3)).await;
                        r.send(&w, 0, 0, vec![1; 100]).await;
                    }
                }
                Ok(())
            };
            record_program_on(&p, 4, &RunOptions::default(), program, &mut |_| true, beside).expect("it runs")
        };
        let ((r, a), (q, b)) = (record(false), record(true));
        assert!(a.wildcards && a.nodes.len() > 5000 && r.makespan_ps == q.makespan_ps);
        assert_same_record(&a, &b);
    }

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
