//! `make bench`: engine throughput and memory.
//!
//! Prints, for a generated 1024-rank × 500-iteration neighbour exchange and for
//! dissemination barriers of 2^17 and 2^20 ranks: events/s (median of repeats),
//! peak heap, bytes per operation, and the ratio of the engine's events/s to a
//! bare (time, seq) binary-heap push+pop loop over the same number of events,
//! measured in the same run. Targets (issue 3): ≥ 8 M events/s on the exchange,
//! ≤ 48 B per operation, the 2^20-rank barrier under 3 GiB.

mod support;

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::{executor::run_schedule, patterns, Schedule};
use netsens_core::time::NS;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use support::{bare_heap_events_per_s, median, platform, radix_queue_events_per_s, reset_peak, verdict, PEAK};

#[global_allocator]
static ALLOC: support::Counting = support::Counting;

struct Measured {
    events: u64,
    events_per_s: f64,
    wall_s: f64,
    peak_bytes: usize,
    ops: usize,
    makespan_ps: u64,
}

/// The benchmark platform on a two-level fat-tree of 1024 hosts (32 leaves of 32, no
/// taper), links as fast as the NIC (1/G = 166.7 MB/s) and 100 ns each.
fn fat_tree_platform() -> Platform {
    let text = "[cluster]\nL = \"2500ns\"\no = \"1500ns\"\ng = \"1000ns\"\nG = \"6ns/B\"\n\
                [topology]\nkind = \"fat-tree\"\ndown = [32, 32]\nbandwidth = \"6ns/B\"\nlatency = \"100ns\"\n";
    let mut p = platform();
    p.topology = Platform::from_toml(text, "bench").expect("the benchmark topology reads").topology;
    p
}

fn measure(name: &str, build: impl Fn() -> Schedule, repeats: usize) -> Measured {
    measure_on(name, build, repeats, &platform())
}

fn measure_on(name: &str, build: impl Fn() -> Schedule, repeats: usize, platform: &Platform) -> Measured {
    let base = reset_peak();
    let t = Instant::now();
    let s = build();
    let build_s = t.elapsed().as_secs_f64();
    let build_peak = PEAK.load(Relaxed) - base;
    let ops = s.num_ops();
    let mut rates = Vec::new();
    let mut walls = Vec::new();
    let mut peak = 0;
    let mut events = 0;
    let mut makespan = 0;
    for _ in 0..repeats {
        let before = reset_peak();
        let t = Instant::now();
        let r = run_schedule(&s, platform, &RunOptions { seed: 1, matrix: false, ..Default::default() })
            .expect("benchmark runs");
        let wall = t.elapsed().as_secs_f64();
        // Peak during the run, counting the schedule it runs on.
        peak = peak.max(PEAK.load(Relaxed) - before + s.heap_bytes());
        events = r.events;
        makespan = r.makespan_ps;
        rates.push(r.events as f64 / wall);
        walls.push(wall);
    }
    eprintln!("  {name}: {ops} ops built in {build_s:.2} s (build peak {:.1} B/op)", build_peak as f64 / ops as f64);
    Measured {
        events,
        events_per_s: median(rates),
        wall_s: median(walls),
        peak_bytes: peak,
        ops,
        makespan_ps: makespan,
    }
}

fn report(name: &str, m: &Measured, heap_rate: f64) {
    println!(
        "{name:<34} {:>11} {:>9.2} {:>8.2} {:>10.1} {:>9.1} {:>9.2}x {:>14}",
        m.events,
        m.wall_s,
        m.events_per_s / 1e6,
        m.peak_bytes as f64 / (1 << 20) as f64,
        m.peak_bytes as f64 / m.ops as f64,
        m.events_per_s / heap_rate,
        format!("{:.3} us", m.makespan_ps as f64 / 1e6),
    );
}

/// (name, schedule generator, repeats, entries the baseline heap holds)
type Case = (&'static str, Box<dyn Fn() -> Schedule>, usize, usize);

fn main() {
    // `cargo bench` passes --bench; a filter argument selects cases by substring.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let want = |n: &str| filter.as_deref().is_none_or(|f| n.contains(f));
    println!("netsens engine benchmark (LogGOPSim default parameters; medians of repeats)");
    println!(
        "{:<34} {:>11} {:>9} {:>8} {:>10} {:>9} {:>10} {:>14}",
        "case", "events", "wall s", "Mev/s", "peak MiB", "B/op", "vs heap", "makespan"
    );
    let cases: Vec<Case> = vec![
        (
            "exchange 1024 ranks x 500 iters",
            Box::new(|| patterns::ring_exchange(1024, 500, 64, 1000 * NS).unwrap()),
            5,
            4 * 1024,
        ),
        ("dissemination 2^17 ranks", Box::new(|| patterns::dissemination(1 << 17, 1).unwrap()), 3, 2 << 17),
        ("dissemination 2^20 ranks", Box::new(|| patterns::dissemination(1 << 20, 1).unwrap()), 1, 2 << 20),
    ];
    let mut results = Vec::new();
    for (name, build, repeats, width) in cases {
        if !want(name) {
            continue;
        }
        let m = measure(name, build, repeats);
        // Baseline in the same run: the same number of events through a bare heap
        // holding as many entries as the engine starts with.
        let heap_rate = median((0..3).map(|_| bare_heap_events_per_s(m.events, width)).collect());
        report(name, &m, heap_rate);
        println!("{:<34} {:>11} {:>9} {:>8.2}", "  bare (time, seq) heap", m.events, "", heap_rate / 1e6);
        // The engine's radix queue through the same loop: its gain over the heap.
        let radix_rate = median((0..3).map(|_| radix_queue_events_per_s(m.events, width)).collect());
        println!(
            "{:<34} {:>11} {:>9} {:>8.2} {:>10} {:>9} {:>9.2}x",
            "  radix queue, same loop",
            m.events,
            "",
            radix_rate / 1e6,
            "",
            "",
            radix_rate / heap_rate
        );
        results.push((name, m));
    }
    // The exchange again on a fat-tree: the fabric's cost per event against the LogGP
    // pipe, measured in this run (target: >= 1 M events/s).
    let fat_tree = "exchange 1024 x 500, fat-tree 1024";
    if want(fat_tree) {
        let build = || patterns::ring_exchange(1024, 500, 64, 1000 * NS).unwrap();
        let plain = results.iter().find(|(n, _)| n.starts_with("exchange")).map(|(_, m)| m.events_per_s);
        let plain = plain.unwrap_or_else(|| measure("exchange 1024 ranks x 500 iters", build, 3).events_per_s);
        let m = measure_on(fat_tree, build, 3, &fat_tree_platform());
        let heap_rate = median((0..3).map(|_| bare_heap_events_per_s(m.events, 4 * 1024)).collect());
        report(fat_tree, &m, heap_rate);
        let ns_per_event = |rate: f64| 1e9 / rate;
        println!(
            "  cost per event: {:.1} ns on the fat-tree, {:.1} ns without a topology ({:.2}x)",
            ns_per_event(m.events_per_s),
            ns_per_event(plain),
            plain / m.events_per_s
        );
        println!(
            "target exchange on a 1024-host fat-tree >= 1 M events/s: {:.2} M/s {}",
            m.events_per_s / 1e6,
            verdict(m.events_per_s >= 1e6)
        );
    }
    println!();
    for (name, m) in &results {
        if name.starts_with("exchange") {
            let ok = m.events_per_s >= 8e6;
            println!("target exchange >= 8 M events/s: {:.2} M/s {}", m.events_per_s / 1e6, verdict(ok));
        }
        let ok = m.peak_bytes as f64 / m.ops as f64 <= 48.0;
        println!("target <= 48 B/op ({name}): {:.1} B/op {}", m.peak_bytes as f64 / m.ops as f64, verdict(ok));
        if name.contains("2^20") {
            let gib = m.peak_bytes as f64 / (1u64 << 30) as f64;
            println!("target 2^20-rank barrier < 3 GiB: {gib:.2} GiB {}", verdict(gib < 3.0));
        }
    }
}
