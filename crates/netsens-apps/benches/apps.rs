//! `make bench`, applications: the wall time of every application at size `small`
//! on 32 ranks of the `now1997` platform (the default study's setting), and the
//! simulated events per second. Target (issue 5): every application under 20 s.

use netsens_apps::registry::{list, run_app};
use netsens_core::engine::RunOptions;
use netsens_core::platform::presets;
use std::time::Instant;

const RANKS: u32 = 32;
const TARGET_S: f64 = 20.0;

fn main() {
    // `cargo bench` passes --bench; a filter argument selects applications by name.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let platform = presets::get("now1997").expect("the now1997 preset exists");
    let opts = RunOptions { matrix: false, ..Default::default() };
    println!("netsens applications at size small, {RANKS} ranks, now1997 (one run each)");
    println!("{:<12} {:>9} {:>12} {:>9} {:>16} {:>9}", "app", "wall s", "events", "Mev/s", "makespan", "verified");
    let mut slowest: (f64, &str) = (0.0, "");
    for (name, _, sizes) in list() {
        if !sizes.contains(&"small") || filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let t = Instant::now();
        let outcome = run_app(name, RANKS, "small", 1, &platform, &opts, &mut |_| true);
        let wall = t.elapsed().as_secs_f64();
        match outcome {
            Ok((r, info)) => println!(
                "{name:<12} {wall:>9.2} {:>12} {:>9.2} {:>13.3} ms {:>9}",
                r.events,
                r.events as f64 / wall / 1e6,
                r.makespan_ps as f64 / 1e9,
                info.verified
            ),
            Err(e) => println!("{name:<12} {wall:>9.2} failed: {e}"),
        }
        if wall > slowest.0 {
            slowest = (wall, name);
        }
    }
    let verdict = if slowest.0 < TARGET_S { "PASS" } else { "FAIL" };
    println!("\ntarget every app at small under {TARGET_S} s: slowest {} at {:.2} s {verdict}", slowest.1, slowest.0);
}
