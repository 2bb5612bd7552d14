//! `make bench`: what every sensitivity from one run costs against the run alone.
//!
//! On the 1024-rank × 500-iteration neighbour exchange (and a 2^14-rank
//! dissemination barrier): the run alone, the run recording its execution graph,
//! and the analysis (critical path, slopes up and down and the tolerances at
//! ε = 1, 2, 5, 10 % of every parameter), one after the other in each repeat: wall
//! time (median of repeats) as a ratio to the run alone, measured in the same
//! invocation, and peak heap of each; and the passes Newton's steps took. The
//! analysis spreads its lanes over the cores (`NETSENS_ANALYSIS_THREADS=1`: one): the
//! CPU time of all threads is printed beside the wall time.
//! Target (issue 26): record + analysis ≤ 3× the run alone.

mod support;

use netsens_core::analysis::{record_schedule, Param, Point, Slots, EPSILONS};
use netsens_core::engine::RunOptions;
use netsens_core::schedule::{executor::run_schedule, patterns, Schedule};
use netsens_core::time::NS;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use support::{median, platform, reset_peak, verdict, PEAK};

#[global_allocator]
static ALLOC: support::Counting = support::Counting;

/// The CPU time (s) this process has used, in all its threads.
fn cpu_s() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// ((wall s, CPU s), peak heap bytes above the schedule) of `f`.
fn measure<T>(f: impl FnOnce() -> T) -> ((f64, f64), usize, T) {
    let before = reset_peak();
    let (t, cpu) = (Instant::now(), cpu_s());
    let out = f();
    ((t.elapsed().as_secs_f64(), cpu_s() - cpu), PEAK.load(Relaxed) - before, out)
}

/// The run alone, the run recording, and the analysis, one after the other in each
/// repeat, so that load from elsewhere hits the three alike; the target's ratio is
/// the median of each repeat's own.
fn case(name: &str, s: &Schedule, repeats: usize) {
    let p = platform();
    let opts = RunOptions { seed: 1, matrix: false, ..Default::default() };
    let params = Param::all(&p);
    let (mut runs, mut records, mut analyses, mut ratios) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut analysis_cpus, mut cpu_ratios) = (Vec::new(), Vec::new());
    let (mut run_peak, mut record_peak, mut analysis_peak) = (0, 0, 0);
    let mut last = None;
    for _ in 0..repeats {
        drop(last.take());
        let (run_s, peak, _) = measure(|| run_schedule(s, &p, &opts).expect("benchmark runs"));
        run_peak = run_peak.max(peak);
        let (record_s, peak, g) = measure(|| record_schedule(s, &p, &opts, &mut |_| true).expect("benchmark runs").1);
        record_peak = record_peak.max(peak);
        let (analysis_s, peak, a) = measure(|| g.analyze(&Point::of(&p), &params, &EPSILONS));
        analysis_peak = analysis_peak.max(peak);
        runs.push(run_s.0);
        records.push(record_s.0);
        analyses.push(analysis_s.0);
        analysis_cpus.push(analysis_s.1);
        ratios.push((record_s.0 + analysis_s.0) / run_s.0);
        cpu_ratios.push((record_s.1 + analysis_s.1) / run_s.1);
        last = Some((g, a.newton_passes));
    }
    let (g, passes) = last.expect("at least one repeat");
    let (run_s, record_s, analysis_s, ratio) = (median(runs), median(records), median(analyses), median(ratios));
    let (analysis_cpu, cpu_ratio) = (median(analysis_cpus), median(cpu_ratios));
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    println!(
        "{name}: {} ops, {} nodes, {} predecessors, {} values live at most",
        s.num_ops(),
        g.nodes.len(),
        g.preds.len(),
        Slots::of(&g).count
    );
    println!("  run alone            {run_s:>8.3} s  1.00x   peak {:>8.1} MiB", mib(run_peak));
    println!(
        "  run + record         {record_s:>8.3} s  {:.2}x   peak {:>8.1} MiB (record {:.1} MiB, {:.1} B/op)",
        record_s / run_s,
        mib(record_peak),
        mib(g.bytes()),
        g.bytes() as f64 / s.num_ops() as f64
    );
    println!(
        "  analysis ({} params)  {analysis_s:>8.3} s  {:.2}x   peak {:>8.1} MiB (CPU {analysis_cpu:.3} s in {} threads)",
        params.len(),
        analysis_s / run_s,
        mib(analysis_peak),
        netsens_core::analysis::record::threads::threads()
    );
    println!(
        "  Newton's passes: {} carrying {:?} points ({} lanes of {} for {} tolerances)",
        passes.len(),
        passes,
        passes.iter().map(|&n| netsens_core::analysis::passes::lanes::width(n)).sum::<usize>(),
        netsens_core::analysis::passes::lanes::LANES,
        params.len() * EPSILONS.len()
    );
    println!(
        "  target record + analysis <= 3x the run (wall time, median of each repeat's ratio): {ratio:.2}x {}",
        verdict(ratio <= 3.0)
    );
    println!("  (CPU time of all threads, record + analysis against the run's: {cpu_ratio:.2}x)");
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let want = |n: &str| filter.as_deref().is_none_or(|f| n.contains(f));
    println!("netsens sensitivity benchmark (LogGOPSim default parameters; medians of repeats)");
    if want("exchange") {
        case("exchange 1024 ranks x 500 iters", &patterns::ring_exchange(1024, 500, 64, 1000 * NS).unwrap(), 5);
    }
    if want("dissemination") {
        case("dissemination 2^14 ranks", &patterns::dissemination(1 << 14, 1).unwrap(), 5);
    }
}
