//! Runs whose time would pass the engine's largest time (2^64 − 1 ps ≈ 1.8·10^19 ps)
//! stop with one error naming the operation, never a wrapped or saturated time.

use netsens_core::platform::presets;
use netsens_core::schedule::executor::run_schedule;
use netsens_core::schedule::goal::parse_goal;
use netsens_core::{engine::RunOptions, Error};

fn run_goal(text: &str) -> netsens_core::Result<netsens_core::profile::RunResult> {
    let s = parse_goal(text, "t.goal").unwrap();
    run_schedule(&s, &presets::get("loggopsim").unwrap(), &RunOptions::default())
}

fn assert_time_limit(text: &str, names: &str) {
    match run_goal(text) {
        Err(Error::Input(msg)) => {
            assert!(msg.contains("largest time"), "{msg}");
            assert!(msg.contains(names), "{msg} should name {names}");
            assert!(!msg.contains('\n'), "{msg}");
        }
        other => panic!("expected the time limit error, got {other:?}"),
    }
}

#[test]
fn a_message_of_10_16_bytes_does_not_wrap() {
    // 10^16 B · G = 6 ns/B = 6·10^22 ps: past 2^64 − 1 ps.
    let goal = "num_ranks 2\nrank 0 {\nbig: send 10000000000000000b to 1 tag 0\n}\n\
                rank 1 {\nrecv 10000000000000000b from 0 tag 0\n}\n";
    assert_time_limit(goal, "rank 0's `big: send 10000000000000000b");
}

#[test]
fn a_message_of_2_64_minus_1_bytes_does_not_complete() {
    let goal = "num_ranks 2\nrank 0 {\nsend 18446744073709551615b to 1 tag 0\n}\n\
                rank 1 {\nrecv 18446744073709551615b from 0 tag 0\n}\n";
    assert_time_limit(goal, "rank 0's `send 18446744073709551615b");
}

#[test]
fn two_calcs_whose_sum_passes_the_limit_do_not_saturate() {
    // Each 18446744073709551 ns = 18446744073709551000 ps fits; their sum does not.
    let goal = "num_ranks 1\nrank 0 {\nc1: calc 18446744073709551\nc2: calc 18446744073709551\n\
                c2 requires c1\n}\n";
    assert_time_limit(goal, "rank 0's `c2: calc");
}

#[test]
fn one_calc_just_below_the_limit_still_runs() {
    // 18446744073709551 ns = 18446744073709551000 ps < 2^64 − 1 ps: an exact end.
    let r = run_goal("num_ranks 1\nrank 0 {\ncalc 18446744073709551\n}\n").unwrap();
    assert_eq!(r.ranks[0].end_ps, 18_446_744_073_709_551_000);
}

#[test]
fn bytes_whose_total_passes_2_64_stop_the_run() {
    // G = O = 0: two messages of 2^63 B take no time, but rank 0's bytes sent would
    // total 2^64 B, one past the largest u64.
    let mut p = presets::get("loggopsim").unwrap();
    p.set("G", "0ns/B").unwrap();
    p.set("O", "0ns/B").unwrap();
    let goal = "num_ranks 2\nrank 0 {\nsend 9223372036854775808b to 1 tag 0\nsend 9223372036854775808b to 1 tag 1\n}\n\
                rank 1 {\nrecv 9223372036854775808b from 0 tag 0\nrecv 9223372036854775808b from 0 tag 1\n}\n";
    let s = parse_goal(goal, "t.goal").unwrap();
    match run_schedule(&s, &p, &RunOptions::default()) {
        Err(Error::Input(msg)) => {
            assert!(msg.contains("2^64-1 B"), "{msg}");
            assert!(!msg.contains('\n'), "{msg}");
        }
        other => panic!("expected the byte total error, got {other:?}"),
    }
}

#[test]
fn a_huge_send_after_small_ones_is_an_error_not_a_panic() {
    // Found by the goal fuzz target: the bytes sent wrapped (a panic with overflow
    // checks) before the run's time error was reported.
    let goal = "num_ranks 2\nrank 0 {\n send 1b to 1 tag 0\nUaaaaaaaaa: send 1b to 0 tag 0\n\
                UU: send 18446744073709551615b to 1 tag 0\n}\nrank 1 {\nrecv 18416b from 0 tag 0\n}\n";
    assert!(matches!(run_goal(goal), Err(Error::Input(_)) | Err(Error::Deadlock(_))));
}
