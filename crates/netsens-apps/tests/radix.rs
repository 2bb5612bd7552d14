//! The two radix sorts of the Split-C suite: they verify their answers, send exactly
//! the messages derived by hand from their algorithms, and slow down with o as
//! Martin's overhead model says.

mod common;

use netsens_apps::suite::lsd::Config;
use netsens_apps::suite::{radb, radix};
use netsens_core::engine::RunOptions;
use netsens_core::platform::{presets, Platform};
use netsens_core::profile::RunResult;
use netsens_core::program::run_program;
use netsens_core::time::{NS, US};

/// The `loggopsim` preset as it is (LogGOPSim's rendezvous), plus overrides.
fn loggopsim(overrides: &[(&str, &str)]) -> Platform {
    common::platform("loggopsim", overrides)
}

fn run_on(p: &Platform, app: &str, ranks: u32) -> RunResult {
    common::verified(p, app, ranks, "tiny")
}

fn run(app: &str, ranks: u32) -> RunResult {
    run_on(&loggopsim(&[]), app, ranks)
}

/// Run one of the sorts on a custom configuration.
fn run_cfg(p: &Platform, app: &str, ranks: u32, cfg: Config) -> RunResult {
    let opts = RunOptions::default();
    match app {
        "radix" => run_program(p, ranks, &opts, move |r| radix::radix(r, cfg)),
        _ => run_program(p, ranks, &opts, move |r| radb::radb(r, cfg)),
    }
    .expect("the sort runs and verifies")
}

/// Uses of `name` by each rank.
fn counts(r: &RunResult, name: &str) -> Vec<u64> {
    (0..r.ranks.len() as u32)
        .map(|rank| r.primitives.iter().find(|p| p.rank == rank && p.primitive == name).map_or(0, |p| p.count))
        .collect()
}

#[test]
fn both_sorts_verify_at_tiny() {
    for app in ["radix", "radb"] {
        for ranks in [1, 2, 3, 8] {
            let r = run(app, ranks);
            assert!(r.makespan_ps > 0, "{app} on {ranks} ranks");
            let phases = ["histogram", "scatter", "verify"];
            assert!(phases.iter().all(|ph| r.phases.iter().any(|p| p.rank == 0 && p.phase == *ph)), "{app}");
        }
    }
}

#[test]
fn more_ranks_than_buckets() {
    // 2-bit digits: 4 buckets over 8 ranks, so ranks 4..7 own none; 16 passes.
    let cfg = Config { keys: 100, bits: 2, seed: 3 };
    for app in ["radix", "radb"] {
        run_cfg(&loggopsim(&[]), app, 8, cfg);
    }
}

// --- radix ----------------------------------------------------------------------------

// Per digit, each rank stores its B counts to the owners (rank d mod P owns bucket d),
// each owner stores a (prefix, total) pair to every rank for each bucket it owns, and
// every key is one store: P·B + P·B + P·N stores per digit, over passes = 32 / b digits.

#[test]
fn radix_stores_every_key_and_every_count() {
    // tiny: N = 256 keys per rank, b = 8 (B = 256, 4 passes).
    let (n, b, passes) = (256u64, 256u64, 4u64);
    let r = run("radix", 8);
    // Each of the 8 ranks owns 32 buckets: 256 reply stores per digit.
    assert_eq!(counts(&r, "store"), vec![passes * (n + b + 8 * 32); 8]);
    assert_eq!(counts(&r, "store").iter().sum::<u64>(), passes * (8 * n + 2 * 8 * b));
    assert_eq!(counts(&r, "store_sync"), vec![3 * passes; 8]);
    assert_eq!(counts(&r, "barrier"), vec![3 * passes; 8]);
    // All messages: the stores; 3 dissemination barriers per digit, 3 rounds of one
    // message per rank each; in the check 7 boundary keys and a recursive-doubling
    // allreduce (3 rounds of 8 messages).
    assert_eq!(r.messages, 24_576 + passes * 3 * 3 * 8 + 7 + 3 * 8);
    // Keys and counts are 4 bytes, pairs 8; barrier messages 0; boundary keys 4;
    // allreduce messages 8 u64 sums.
    assert_eq!(r.bytes, passes * (8 * n * 4 + 8 * b * 4 + 8 * b * 8) + 7 * 4 + 24 * 64);

    // 3 ranks: rank 0 owns buckets 0, 3, ..., 255 (86), ranks 1 and 2 own 85 each.
    let r = run("radix", 3);
    assert_eq!(counts(&r, "store"), [86, 85, 85].map(|owned| passes * (n + b + 3 * owned)));
}

#[test]
fn radix_charges_its_cost_model() {
    // Per digit each rank counts N keys (50 ns each), produces its B count stores and
    // its owned buckets' P replies (a scan step, 20 ns each), scans the B pairs (20 ns)
    // and computes N key addresses (50 ns): with 2 ranks owning 128 buckets each,
    // 4·256·(50 + 20 + 20 + 20 + 50) ns.
    let r = run("radix", 2);
    for rank in &r.ranks {
        assert_eq!(rank.compute_ps, 4 * 256 * (50 + 20 + 20 + 20 + 50) * NS);
    }
}

// --- radb -----------------------------------------------------------------------------

// Per digit, every rank sends each of the min(P, B) owners one message of counts, each
// owner answers every rank with one message, and every rank sends every rank (itself
// included) one block of keys: P² + 2·P·min(P, B) sends per digit; the check adds P − 1
// boundary keys.

#[test]
fn radb_sends_one_block_per_destination_per_digit() {
    let passes = 4u64;
    let r = run("radb", 8);
    // Every rank is an owner: 8 count messages, 8 replies, 8 blocks per digit.
    let sends: Vec<u64> = (0..8).map(|rank| passes * 24 + u64::from(rank > 0)).collect();
    assert_eq!(counts(&r, "send"), sends);
    assert_eq!(counts(&r, "send").iter().sum::<u64>(), passes * (64 + 2 * 8 * 8) + 7);
    let recvs: Vec<u64> = (0..8).map(|rank| passes * 24 + u64::from(rank < 7)).collect();
    assert_eq!(counts(&r, "recv"), recvs);
    // No barrier, no store; the allreduce of the check adds 3 rounds of 8 messages.
    assert_eq!((counts(&r, "barrier"), counts(&r, "store")), (vec![0; 8], vec![0; 8]));
    assert_eq!(r.messages, passes * 192 + 7 + 24);
    // Bytes: per digit all 8·256 keys (4 B), the 8·256 counts (4 B) and pairs (8 B).
    assert_eq!(r.bytes, passes * 8 * 256 * (4 + 4 + 8) + 7 * 4 + 24 * 64);

    // 8 ranks, 4 buckets (b = 2, 16 passes): owners are ranks 0..3, so per digit
    // 8·8 blocks + 8·4 count messages + 4·8 replies.
    let r = run_cfg(&loggopsim(&[]), "radb", 8, Config { keys: 100, bits: 2, seed: 3 });
    let sends: Vec<u64> =
        (0..8).map(|rank| 16 * (8 + 4 + if rank < 4 { 8 } else { 0 }) + u64::from(rank > 0)).collect();
    assert_eq!(counts(&r, "send"), sends);
    assert_eq!(counts(&r, "send").iter().sum::<u64>(), 16 * (64 + 2 * 8 * 4) + 7);
}

// --- sensitivity to o -----------------------------------------------------------------

#[test]
fn both_sorts_slow_down_when_o_rises() {
    for app in ["radix", "radb"] {
        let times: Vec<u64> =
            ["500ns", "1500ns", "5us"].iter().map(|o| run_on(&loggopsim(&[("o", o)]), app, 8).makespan_ps).collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}

#[test]
fn radix_run_time_is_linear_in_o() {
    // Martin's overhead model: each message costs its o on both sides, so a run time
    // dominated by the per-key stores grows linearly with o. 8 points from 2 to 100 us
    // on the NOW of 1997, 4 ranks of 256 keys, 4-bit digits (8 passes, 16 buckets, so
    // that the keys' stores dominate); least-squares line, R² ≥ 0.99.
    let cfg = Config { keys: 256, bits: 4, seed: 1 };
    let os: Vec<u64> = (0..8).map(|i| 2 + i * 14).collect();
    let points: Vec<(f64, f64)> = os
        .iter()
        .map(|&o| {
            let mut p = presets::get("now1997").expect("a preset");
            p.cluster.overhead = o * US;
            (o as f64, run_cfg(&p, "radix", 4, cfg).makespan_ps as f64)
        })
        .collect();
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|p| (p.1 - my).powi(2)).sum();
    let r2 = sxy * sxy / (sxx * syy);
    assert!(r2 >= 0.99, "R² = {r2} over {points:?}");
    // The slope is about two o per message a rank handles: per digit it sends and
    // receives N keys, B counts and B pairs.
    let slope_per_us = sxy / sxx / US as f64;
    let per_rank_messages = 8.0 * 2.0 * (256.0 + 16.0 + 16.0);
    assert!((slope_per_us / per_rank_messages - 1.0).abs() < 0.1, "slope {slope_per_us} per us of o");
}
