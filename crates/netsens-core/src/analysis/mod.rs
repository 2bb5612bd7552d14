//! Every sensitivity from one run, in five layers, each a folder with one job, each
//! using only those before it:
//!
//! 1. [`record`]: what the run leaves, an execution graph recorded by an observer
//!    beside the engine (the same for GOAL schedules, traces and programs);
//! 2. [`prices`]: a node's cost at given parameters, and where a rounded price steps;
//! 3. [`passes`]: the record evaluated at many points at once, a pass over its nodes;
//! 4. [`searches`]: each parameter's curve and its tolerances, a pass a step;
//! 5. [`answer`]: the report, the critical path and the timeline.
//!
//! This file runs and records (the engine's side); `tests/layers.rs` fails where a
//! file of one layer uses a later one.

pub mod answer;
pub mod passes;
pub mod prices;
pub mod record;
pub mod searches;

use crate::engine::observe::Observer;
use crate::engine::relay::Relay;
use crate::engine::{Core, Progress, RunOptions};
use crate::error::{Error, Result};
use crate::platform::Platform;
use crate::profile::RunResult;
use crate::program::{run_program_observed, SimRank};
use crate::schedule::executor::ScheduleFrontend;
use crate::schedule::Schedule;
pub use answer::analysis::Analysis;
pub use answer::critical::{CriticalPath, Part};
pub use answer::report::{report, Request, EPSILONS};
pub use answer::timeline::Window;
pub use passes::at_base::{AtBase, Choices};
pub use passes::eval::{Buffers, Eval};
pub use passes::lanes::Lane;
pub use record::graph::ExecGraph;
pub use record::params::{Param, Point};
pub use record::slots::Slots;
pub use searches::curve::Curve;
pub use searches::tolerances::ParamSensitivity;
use std::future::Future;

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
    record_schedule_on(s, platform, opts, progress, record::threads::core_beside_the_run())
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
    // Its end (the slots, codes and the check's makespan) made by the passes' loop.
    let graph = || Box::new(ExecGraph::with_capacity(platform, s.num_ops()).ending_with(passes::slots::end_record));
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
    record_program_on(platform, ranks, opts, program, progress, record::threads::core_beside_the_run())
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
    let graph = || Box::new(ExecGraph::new(platform).ending_with(passes::slots::end_record));
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
        ops as u128 * record::graph::BYTES_PER_OP,
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
        let waited = (0..a.nodes.len()).any(|v| a.nodes.kind(v) == record::kind::LINK_WAIT);
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
