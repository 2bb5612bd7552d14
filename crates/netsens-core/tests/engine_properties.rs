//! Properties that must hold for any input: determinism, conservation of bytes,
//! and the latency law of a ping-pong (time grows by exactly 2·ΔL).

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Rendezvous;
use netsens_core::schedule::{executor::run_schedule, Schedule, ScheduleBuilder, ANY};
use netsens_core::time::NS;
use proptest::prelude::*;

/// Rounds of random permutations: each rank computes, sends to perm[i], receives
/// from perm⁻¹[i] (sometimes by wildcard); round r+1 waits for round r.
fn random_exchange(p: u32, rounds: &[(Vec<u32>, u64, u64)]) -> Schedule {
    let mut b = ScheduleBuilder::new(p);
    for i in 0..p {
        let mut prev = None;
        for (r, (perm, bytes, calc_ns)) in rounds.iter().enumerate() {
            let dst = perm[i as usize];
            let src = perm.iter().position(|&d| d == i).unwrap() as i32;
            let c = b.calc(i, calc_ns * NS * (1 + i as u64 % 3), 0);
            let s = b.send(i, dst, *bytes, r as i32, 0, 0);
            let from = if r % 2 == 0 { src } else { ANY };
            let rv = b.recv(i, from, *bytes, r as i32, 0, 0);
            b.requires(s, c);
            if let Some(pr) = prev {
                b.requires(c, pr);
            }
            prev = Some(rv);
        }
    }
    b.build().unwrap()
}

fn rounds_strategy(p: u32) -> impl Strategy<Value = Vec<(Vec<u32>, u64, u64)>> {
    let perm = Just((0..p).collect::<Vec<u32>>()).prop_shuffle();
    prop::collection::vec((perm, 0u64..200_000, 0u64..5_000), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn same_inputs_same_result(rounds in rounds_strategy(7), handshake in any::<bool>()) {
        let s = random_exchange(7, &rounds);
        let rdv = if handshake { Rendezvous::Handshake } else { Rendezvous::Loggopsim };
        let p = loggopsim_defaults(rdv);
        let a = run(&s, &p);
        let b = run(&s, &p);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn bytes_received_equal_bytes_sent(rounds in rounds_strategy(6), handshake in any::<bool>()) {
        let s = random_exchange(6, &rounds);
        let rdv = if handshake { Rendezvous::Handshake } else { Rendezvous::Loggopsim };
        let r = run(&s, &loggopsim_defaults(rdv));
        let sent: u64 = r.ranks.iter().map(|x| x.sent_bytes).sum();
        let recv: u64 = r.ranks.iter().map(|x| x.recv_bytes).sum();
        let expected: u64 = rounds.iter().map(|(_, b, _)| b * 6).sum();
        prop_assert_eq!(sent, expected);
        prop_assert_eq!(recv, expected);
        prop_assert_eq!(r.bytes, expected);
        let hist: u64 = r.histogram.iter().map(|h| h.bytes).sum();
        prop_assert_eq!(hist, expected);
        let m = r.matrix.as_ref().unwrap();
        prop_assert_eq!(m.iter().map(|e| e.bytes).sum::<u64>(), expected);
        for rank in 0..6u32 {
            let col: u64 = m.iter().filter(|e| e.dst == rank).map(|e| e.bytes).sum();
            prop_assert_eq!(col, r.ranks[rank as usize].recv_bytes);
        }
    }

    #[test]
    fn ping_pong_grows_by_twice_delta_l(
        l in 0u64..50_000, dl in 1u64..1_000_000, o in 0u64..10_000, g in 0u64..10_000,
        gb in 0u64..20, bytes in 1u64..60_000,
    ) {
        // Eager messages (S above the size): one round trip crosses the wire twice.
        let at = |latency: u64| {
            let p = flat(level(latency, o, g, gb, 0, 65535), Rendezvous::Handshake);
            run(&ping_pong(bytes), &p).makespan_ps
        };
        prop_assert_eq!(at(l + dl), at(l) + 2 * dl * NS);
    }
}

#[test]
fn noise_free_jitter_of_zero_is_the_noiseless_run() {
    let s = dissemination(8, 1);
    let quiet = run(&s, &loggopsim_defaults(Rendezvous::Handshake));
    let r = run_schedule(
        &s,
        &loggopsim_defaults(Rendezvous::Handshake),
        &RunOptions { seed: 99, matrix: true, ..Default::default() },
    );
    assert_eq!(quiet.makespan_ps, r.unwrap().makespan_ps);
}

#[test]
fn receive_nobody_sends_is_a_deadlock_naming_the_rank() {
    let mut b = ScheduleBuilder::new(3);
    b.send(0, 1, 8, 0, 0, 0);
    b.recv(1, 0, 8, 0, 0, 0);
    let r = b.recv(2, 1, 8, 5, 0, 0);
    let after = b.calc(2, 10, 0);
    b.requires(after, r);
    let err = run_schedule(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake), &RunOptions::default())
        .unwrap_err();
    let Error::Deadlock(msg) = err else { panic!("expected a deadlock, got {err:?}") };
    assert!(msg.contains("1 rank(s)"), "{msg}");
    assert!(msg.contains("rank 2 waits in `recv 8b from 1 tag 5` (no matching message), 1 op(s) behind"), "{msg}");
    assert!(!msg.contains('\n'));
}

#[test]
fn rendezvous_send_without_receiver_is_a_deadlock() {
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, 1_000_000, 0, 0, 0);
    let err = run_schedule(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake), &RunOptions::default())
        .unwrap_err();
    let Error::Deadlock(msg) = err else { panic!("expected a deadlock") };
    assert!(msg.contains("rank 0 waits in `send 1000000b to 1 tag 0` (its receiver never matched it)"), "{msg}");
}

#[test]
fn eager_message_never_received_is_reported() {
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, 8, 3, 0, 0);
    let err = run_schedule(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake), &RunOptions::default())
        .unwrap_err();
    assert_eq!(err, Error::Deadlock("1 message(s) were sent but never received: rank 0 → rank 1 (8 B, tag 3)".into()));
}

#[test]
fn wildcard_receives_match_in_mpi_order() {
    // Rank 2 posts ANY-source receives; rank 0's message (sent at 0) arrives before
    // rank 1's (which first computes 10 µs), so the first receive gets rank 0's 100 B.
    let mut b = ScheduleBuilder::new(3);
    b.send(0, 2, 100, 7, 0, 0);
    let c = b.calc(1, 10_000 * NS, 0);
    let s1 = b.send(1, 2, 1, 7, 0, 0);
    b.requires(s1, c);
    let r1 = b.recv(2, ANY, 100, ANY, 0, 0);
    let r2 = b.recv(2, ANY, 1, 7, 0, 0);
    b.requires(r2, r1);
    let r = run(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake));
    // 100 B: arrives 4000, done 4000+1500+99·6 = 6094. 1 B: sent at 10000, arrives
    // 14000, done 15500.
    assert_eq!(end_ns(&r, 2), 15500);
    assert_eq!(r.ranks[2].recv_bytes, 101);
}

#[test]
fn a_burst_of_sends_costs_events_linear_in_its_length() {
    // 1000 sends ready at once on one host: each waits for the one before it. Re-queuing
    // every waiting send at every clock change would take ~500 000 events; waiting in a
    // group costs a few per send. The timing is the same: the k-th send starts at
    // k·max(o, g) = k·1500 ns, so the last receive is done at 999·1500 + 1500 + 2500 + 1500.
    let k = 1000;
    let mut b = ScheduleBuilder::new(2);
    for _ in 0..k {
        b.send(0, 1, 1, 0, 0, 0);
    }
    for _ in 0..k {
        b.recv(1, 0, 1, 0, 0, 0);
    }
    let r = run(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake));
    assert!(r.events < 10 * 2 * k as u64, "{} events", r.events);
    assert_eq!(end_ns(&r, 1), 999 * 1500 + 1500 + 2500 + 1500);
}
