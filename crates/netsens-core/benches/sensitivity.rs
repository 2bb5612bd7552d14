//! `make bench`: what every sensitivity from one run costs against the run alone.
//!
//! On the 1024-rank × 500-iteration neighbour exchange (and a 2^14-rank
//! dissemination barrier): the run alone, the run recording its execution graph,
//! and the analysis (critical path, slopes up and down and the tolerances at
//! ε = 1, 2, 5, 10 % of every parameter): wall time (median of repeats) as a ratio
//! to the run alone, measured in the same invocation, and peak heap of each.
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

/// (median wall s, peak heap bytes above the schedule) of `f` over `repeats` runs.
fn measure(repeats: usize, mut f: impl FnMut()) -> (f64, usize) {
    let mut walls = Vec::new();
    let mut peak = 0;
    for _ in 0..repeats {
        let before = reset_peak();
        let t = Instant::now();
        f();
        walls.push(t.elapsed().as_secs_f64());
        peak = peak.max(PEAK.load(Relaxed) - before);
    }
    (median(walls), peak)
}

fn case(name: &str, s: &Schedule, repeats: usize) {
    let p = platform();
    let opts = RunOptions { seed: 1, matrix: false, ..Default::default() };
    let (run_s, run_peak) = measure(repeats, || {
        run_schedule(s, &p, &opts).expect("benchmark runs");
    });
    let mut graph = None;
    let (record_s, record_peak) = measure(repeats, || {
        graph = Some(record_schedule(s, &p, &opts, &mut |_| true).expect("benchmark runs").1);
    });
    let g = graph.expect("recorded");
    let params = Param::all(&p);
    let mut passes = Vec::new();
    let (analysis_s, analysis_peak) = measure(repeats, || {
        passes = g.analyze(&Point::of(&p), &params, &EPSILONS).newton_passes;
    });
    let mib = |b: usize| b as f64 / (1 << 20) as f64;
    let ratio = (record_s + analysis_s) / run_s;
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
        "  analysis ({} params)  {analysis_s:>8.3} s  {:.2}x   peak {:>8.1} MiB",
        params.len(),
        analysis_s / run_s,
        mib(analysis_peak)
    );
    println!(
        "  Newton's passes: {} carrying {:?} points ({} lanes of {} for {} tolerances)",
        passes.len(),
        passes,
        passes.iter().map(|&n| netsens_core::analysis::batch::width(n)).sum::<usize>(),
        netsens_core::analysis::batch::LANES,
        params.len() * EPSILONS.len()
    );
    println!("  target record + analysis <= 3x the run: {ratio:.2}x {}", verdict(ratio <= 3.0));
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let want = |n: &str| filter.as_deref().is_none_or(|f| n.contains(f));
    println!("netsens sensitivity benchmark (LogGOPSim default parameters; medians of repeats)");
    if want("exchange") {
        case("exchange 1024 ranks x 500 iters", &patterns::ring_exchange(1024, 500, 64, 1000 * NS).unwrap(), 3);
    }
    if want("dissemination") {
        case("dissemination 2^14 ranks", &patterns::dissemination(1 << 14, 1).unwrap(), 3);
    }
}
