//! A recorded schedule run at other network parameters gives exactly what running the
//! program there gives: the whole result (makespan, every rank's end time and
//! breakdown, messages, events, phases, primitive counts), to the picosecond, at
//! points far from the one it was recorded at; programs whose ops can depend on
//! timing are not recorded, and a platform that shows the program something else
//! is refused.

mod common;

use common::platform;
use netsens_apps::registry::{record_app_schedule, replay_app_schedule, run_app_variant};
use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::program::recorded::RecordedSchedule;

fn full(p: &Platform, app: &str, variant: Option<&str>, ranks: u32) -> RunResult {
    let (r, info) =
        run_app_variant(app, variant, ranks, "tiny", 3, p, &RunOptions { seed: 3, ..Default::default() }, &mut |_| {
            true
        })
        .unwrap_or_else(|e| panic!("{app}: {e}"));
    assert!(info.verified, "{app} checks its answer");
    r
}

fn record(p: &Platform, app: &str, variant: Option<&str>, ranks: u32) -> (RunResult, Option<RecordedSchedule>) {
    let opts = RunOptions { seed: 3, ..Default::default() };
    let (r, s, _) = record_app_schedule(app, variant, ranks, "tiny", 3, p, &opts, &mut |_| true).unwrap();
    (r, s)
}

fn replay(s: &RecordedSchedule, p: &Platform, app: &str, variant: Option<&str>) -> Option<RunResult> {
    let opts = RunOptions { seed: 3, ..Default::default() };
    replay_app_schedule(s, app, variant, "tiny", 3, p, &opts, &mut |_| true).unwrap().map(|(r, _)| r)
}

/// The `loggopsim` preset (L 2.5 µs, o 1.5 µs, g 1 µs, G 6 ns/B) with the handshake
/// rendezvous, and the points far from it the sweep test crosses.
fn points() -> Vec<(&'static str, Platform)> {
    let base = [("rendezvous", "handshake")];
    let with = |extra: &[(&str, &str)]| {
        let mut p = platform("loggopsim", &base);
        p.set_all(extra).expect("valid overrides");
        p
    };
    vec![
        ("o x100", with(&[("o", "150us")])),
        ("L x1000", with(&[("L", "2.5ms")])),
        ("G x10", with(&[("G", "60ns/B")])),
        ("g x50, O 1 ns/B", with(&[("g", "50us"), ("O", "1ns/B")])),
        ("cpu 3x slower", with(&[("cpu_speed", "0.333")])),
        ("2 ranks sharing a core", with(&[("ranks_per_node", "2"), ("cores_per_node", "1")])),
    ]
}

/// Recorded once at the baseline, the schedule of `app` gives at every point what the
/// program gives there.
fn replays_exactly(app: &str, variant: Option<&str>, ranks: u32) {
    let base = platform("loggopsim", &[("rendezvous", "handshake")]);
    let (at_base, schedule) = record(&base, app, variant, ranks);
    let schedule = schedule.unwrap_or_else(|| panic!("{app} issues the same ops at any parameters"));
    assert_eq!(at_base, full(&base, app, variant, ranks), "{app}: recording changes nothing");
    assert!(schedule.num_ops() > 0);
    for (what, p) in points() {
        let replayed = replay(&schedule, &p, app, variant).unwrap_or_else(|| panic!("{app} at {what}: refused"));
        let ran = full(&p, app, variant, ranks);
        assert_ne!(ran.makespan_ps, at_base.makespan_ps, "{app} at {what}: the point is not the baseline");
        let ends = |r: &RunResult| r.ranks.iter().map(|s| s.end_ps).collect::<Vec<_>>();
        assert_eq!(ends(&replayed), ends(&ran), "{app} at {what}: rank end times, ps");
        assert_eq!(replayed, ran, "{app} at {what}: the whole result");
    }
}

#[test]
fn radix_replays_exactly() {
    replays_exactly("radix", None, 8);
}

#[test]
fn em3d_write_replays_exactly() {
    replays_exactly("em3d-write", None, 8);
}

#[test]
fn mg_replays_exactly() {
    replays_exactly("mg", None, 8);
}

#[test]
fn em3d_read_with_remote_reads_replays_exactly() {
    replays_exactly("em3d-read", None, 8);
}

#[test]
fn ft_and_is_with_all_to_all_exchanges_replay_exactly() {
    replays_exactly("ft", None, 8);
    replays_exactly("is", None, 8);
}

#[test]
fn water_and_asp_replay_exactly_on_clusters_over_a_slow_wide_area() {
    // Recorded on 2 clusters of 4 at das1998's own links; replayed at 1 MB/s and 30 ms.
    for (app, variant) in [("water", "original"), ("water", "optimized"), ("asp", "original"), ("asp", "optimized")] {
        let base = platform("das1998", &[("clusters", "2x4")]);
        let (at_base, schedule) = record(&base, app, Some(variant), 8);
        let schedule = schedule.unwrap_or_else(|| panic!("{app} {variant}: recorded"));
        let far = platform("das1998", &[("clusters", "2x4"), ("wan_bandwidth", "1MB/s"), ("wan_latency", "30ms")]);
        let replayed = replay(&schedule, &far, app, Some(variant)).expect("same clusters: replayed");
        let ran = full(&far, app, Some(variant), 8);
        assert!(ran.makespan_ps > at_base.makespan_ps + 30_000_000_000, "{app} {variant}: 30 ms links are felt");
        assert_eq!(replayed, ran, "{app} {variant} at 1 MB/s, 30 ms");
    }
}

#[test]
fn a_program_whose_ops_can_depend_on_timing_is_not_recorded() {
    // tsp steals work with wildcard receives; nowsort receives from any source.
    let base = platform("loggopsim", &[]);
    for app in ["tsp", "nowsort"] {
        let (r, schedule) = record(&base, app, None, 4);
        assert!(!r.timing_dependence.is_none(), "{app} has wildcard receives or tests");
        assert!(schedule.is_none(), "{app}: no schedule");
    }
    // murphi's handlers add states to the next frontier in arrival order, and the
    // frontier's order decides its work per chunk: at o x100 a schedule recorded at
    // the baseline would be wrong. Active messages are never recorded.
    for app in ["murphi", "sample"] {
        let (r, schedule) = record(&base, app, None, 4);
        assert!(r.timing_dependence.is_none(), "{app}: no wildcard receive or test");
        assert!(schedule.is_none(), "{app} sends active messages: no schedule");
    }
}

#[test]
fn a_platform_that_shows_the_program_something_else_is_refused() {
    let base = platform("das1998", &[("clusters", "2x4")]);
    let (_, schedule) = record(&base, "water", Some("optimized"), 8);
    let schedule = schedule.unwrap();
    // The optimized form reads the cluster sizes; a collective reads the eager limit.
    assert!(replay(&schedule, &platform("das1998", &[("clusters", "4x2")]), "water", Some("optimized")).is_none());
    assert!(replay(&schedule, &platform("das1998", &[("clusters", "2x4"), ("S", "100B")]), "water", Some("optimized"))
        .is_none());
    assert!(replay(&schedule, &platform("das1998", &[("clusters", "2x4"), ("L", "1ms")]), "water", Some("optimized"))
        .is_some());
}
