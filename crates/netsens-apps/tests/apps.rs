//! The example applications through the registry: they verify their answers, and
//! their times and traffic agree with numbers derived by hand from LOGGP.md.

mod common;

use netsens_apps::registry::{list, run_app};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::profile::RunResult;
use netsens_core::time::NS;

use common::{loggopsim, run, run_sized as run_on};

fn phase(r: &RunResult, rank: u32, name: &str) -> u64 {
    r.phases.iter().find(|p| p.rank == rank && p.phase == name).map(|p| p.elapsed_ps).expect("the phase exists")
}

fn input_error(app: &str, ranks: u32, size: &str) -> String {
    match run_on(&loggopsim(&[]), app, ranks, size) {
        Err(Error::Input(m)) => m,
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn both_apps_verify_at_tiny() {
    for app in ["pingpong", "stencil"] {
        for ranks in [2, 3, 8] {
            let r = run(app, ranks);
            assert!(r.makespan_ps > 0, "{app} on {ranks} ranks");
        }
    }
    run("stencil", 1);
}

// --- pingpong -------------------------------------------------------------------------

// One eager round trip of s bytes on an idle network: rank 0's send costs o, the
// message arrives o + L after it started, rank 1 receives it o + (s-1)·G later (G > O),
// sends it back at once, and the same again: 2·(2o + L + (s-1)·G) with o = 1500,
// L = 2500, G = 6 ns/B. The NICs never delay it (g + (s-1)·G is far below a round trip).
fn round_trip_ns(s: u64, o: u64) -> u64 {
    2 * (2 * o + 2500 + (s - 1) * 6)
}

#[test]
fn pingpong_one_byte_round_trip_is_11_us() {
    // tiny: 2 round trips per size; the 1 B phase of rank 0 is two round trips of 11 us.
    let r = run("pingpong", 2);
    assert_eq!(round_trip_ns(1, 1500), 11_000);
    assert_eq!(phase(&r, 0, "1B"), 2 * 11_000 * NS);
    assert_eq!(phase(&r, 0, "1KiB"), 2 * round_trip_ns(1024, 1500) * NS);
}

#[test]
fn pingpong_makespan_and_traffic_by_hand() {
    // Sizes 1, 2, ..., 1024 B (11 of them), 2 round trips each, back to back.
    let r = run("pingpong", 2);
    let sizes: Vec<u64> = (0..11).map(|i| 1 << i).collect();
    let expected: u64 = sizes.iter().map(|&s| 2 * round_trip_ns(s, 1500)).sum();
    assert_eq!(expected, 290_864);
    assert_eq!(r.makespan_ps, expected * NS);
    assert_eq!(r.ranks[0].end_ps, expected * NS);
    // 2 messages per round trip; 2 round trips per size of each size.
    assert_eq!(r.messages, 11 * 2 * 2);
    assert_eq!(r.bytes, 2 * 2 * sizes.iter().sum::<u64>());
}

#[test]
fn pingpong_extra_ranks_idle() {
    let r = run("pingpong", 3);
    assert_eq!(r.ranks[2].end_ps, 0);
    assert_eq!((r.ranks[2].sent_messages, r.ranks[2].recv_messages), (0, 0));
    assert_eq!(r.messages, 44);
    assert!(r.phases.iter().all(|p| p.rank < 2));
}

#[test]
fn pingpong_grows_by_four_o_per_round_trip() {
    // Each round trip pays 4 o: raising o by 500 ns adds 4 · 500 ns to each of the
    // 22 round trips.
    let base = run_on(&loggopsim(&[]), "pingpong", 2, "tiny").unwrap().0.makespan_ps;
    let slower = run_on(&loggopsim(&[("o", "2us")]), "pingpong", 2, "tiny").unwrap().0.makespan_ps;
    assert_eq!(slower - base, 22 * 4 * 500 * NS);
}

#[test]
fn pingpong_counts_sends_and_receives() {
    let r = run("pingpong", 2);
    let count = |rank: u32, name: &str| {
        r.primitives.iter().find(|p| p.rank == rank && p.primitive == name).map_or(0, |p| p.count)
    };
    assert_eq!((count(0, "send"), count(0, "recv"), count(1, "send"), count(1, "recv")), (22, 22, 22, 22));
}

// --- stencil --------------------------------------------------------------------------

#[test]
fn stencil_messages_by_hand() {
    // tiny: 32×32, 4 iterations. Each rank sends one message per existing neighbour
    // per iteration, an edge of its block as 8-byte values.
    // 3 ranks: a 3×1 process grid; ranks 0 and 2 have one neighbour, rank 1 two:
    // 4 messages per iteration, each a full row of 32 values (256 B).
    let r = run("stencil", 3);
    assert_eq!(r.messages, 4 * 4);
    assert_eq!(r.bytes, 4 * 4 * 256);
    assert_eq!([0, 1, 2].map(|i| r.ranks[i].sent_messages), [4, 8, 4]);
    // 8 ranks: a 4×2 grid of 8×16 blocks. 6 vertical neighbour pairs exchange rows of
    // 16 values (128 B), 4 horizontal pairs columns of 8 values (64 B), two messages per
    // pair per iteration.
    let r = run("stencil", 8);
    assert_eq!(r.messages, 4 * 2 * (6 + 4));
    assert_eq!(r.bytes, 4 * 2 * (6 * 128 + 4 * 64));
    // Corner blocks have 2 neighbours, the others 3.
    let sent: Vec<u64> = r.ranks.iter().map(|x| x.sent_messages).collect();
    assert_eq!(sent, [8, 8, 12, 12, 12, 12, 8, 8]);
    let matrix = r.matrix.as_ref().expect("the matrix is collected");
    assert!(matrix.iter().all(|m| m.messages == 4), "4 iterations, one message per pair and direction");
    assert_eq!(matrix.len(), 20);
}

#[test]
fn stencil_charges_five_flops_per_point() {
    // 4 ranks: 2×2 blocks of 16×16 points; 4 iterations × 256 points × 5 flops × 1 ns.
    let r = run("stencil", 4);
    for rank in 0..4 {
        let p = r.phases.iter().find(|p| p.rank == rank && p.phase == "compute").unwrap();
        assert_eq!(p.compute_ps, 4 * 256 * 5 * 1000);
        assert!(phase(&r, rank, "halo") > 0);
    }
    // 3 ranks: rows split 10, 11, 11, of 32 points each.
    let r = run("stencil", 3);
    let compute: Vec<u64> = r.ranks.iter().map(|x| x.compute_ps).collect();
    assert_eq!(compute, [10, 11, 11].map(|rows| 4 * rows * 32 * 5 * 1000));
}

#[test]
fn stencil_slows_down_when_o_rises() {
    let times: Vec<u64> = ["500ns", "1500ns", "5us"]
        .iter()
        .map(|o| run_on(&loggopsim(&[("o", o)]), "stencil", 8, "tiny").unwrap().0.makespan_ps)
        .collect();
    assert!(times[0] < times[1] && times[1] < times[2], "{times:?}");
}

#[test]
fn same_inputs_same_result() {
    let a = run_app("stencil", 8, "tiny", 5, &loggopsim(&[]), &RunOptions::default(), &mut |_| true).unwrap();
    let b = run_app("stencil", 8, "tiny", 5, &loggopsim(&[]), &RunOptions::default(), &mut |_| true).unwrap();
    assert_eq!(a, b);
}

// --- the registry ---------------------------------------------------------------------

#[test]
fn list_names_the_apps_with_their_sizes() {
    let apps = list();
    let names: Vec<&str> = apps.iter().map(|a| a.0).collect();
    assert_eq!(
        names,
        [
            "pingpong",
            "stencil",
            "radix",
            "radb",
            "sample",
            "em3d-write",
            "em3d-read",
            "barnes",
            "pray",
            "murphi",
            "connect",
            "nowsort",
            "ft",
            "is",
            "mg",
            "asp",
            "fft1d",
            "water",
            "tsp",
            "bh",
            "awari"
        ]
    );
    assert!(apps.iter().all(|a| a.2 == ["tiny", "small", "paper"] && !a.1.is_empty()));
}

#[test]
fn bad_inputs_name_what_is_accepted() {
    assert_eq!(
        input_error("nosuch", 2, "tiny"),
        "unknown application \"nosuch\"; applications: pingpong, stencil, radix, radb, sample, em3d-write, em3d-read, barnes, pray, murphi, connect, nowsort, ft, is, mg, asp, fft1d, water, tsp, bh, awari"
    );
    assert_eq!(input_error("stencil", 2, "huge"), "unknown size \"huge\" for stencil; sizes: tiny, small, paper");
    assert_eq!(input_error("stencil", 0, "tiny"), "ranks: must be at least 1, got 0");
    assert_eq!(
        input_error("pingpong", 1, "tiny"),
        "pingpong needs at least 2 ranks (ranks 0 and 1 play, any others idle), got 1"
    );
    let m = input_error("stencil", 37, "tiny");
    assert!(m.starts_with("stencil: 37 ranks form a 37x1 process grid"), "{m}");
    assert!(m.contains("32x32 grid of size tiny"), "{m}");
}

#[test]
fn failures_and_deadlocks_are_reported() {
    let p = loggopsim(&[]);
    match run_on(&p, "_wrong-answer", 3, "tiny") {
        Err(Error::Program(m)) => assert_eq!(m, "rank 2: checksum 41 != 42 (a deliberately wrong answer)"),
        other => panic!("{other:?}"),
    }
    match run_on(&p, "_deadlock", 3, "tiny") {
        Err(Error::Deadlock(m)) => assert!(m.contains("rank 0 waits in `recv from 2 tag 0`"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_size_verifies() {
    for size in ["small", "paper"] {
        for (app, ranks) in [("pingpong", 2), ("stencil", 16)] {
            let (_, info) = run_on(&loggopsim(&[]), app, ranks, size).expect("the app runs");
            assert!(info.verified && info.size == size);
        }
    }
}
