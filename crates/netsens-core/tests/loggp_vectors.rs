//! LOGGP.md's worked vectors and LogGOPSim's reference figures, through the
//! engine. Every expected number is derived by hand in the comment beside it.

mod common;
use common::*;
use netsens_core::platform::Rendezvous;
use netsens_core::schedule::ScheduleBuilder;
use netsens_core::time::{MS, NS};

#[test]
fn vector1_ping_one_byte() {
    // send at 0: cpu 0+1500; arrives 0+1500+2500 = 4000; recv done 4000+1500 = 5500.
    let r = run(&one_message(1), &loggopsim_defaults(Rendezvous::Handshake));
    assert_eq!(end_ns(&r, 0), 1500);
    assert_eq!(end_ns(&r, 1), 5500);
    assert_eq!(r.makespan_ps, 5500 * NS);
}

#[test]
fn vector2_ping_1001_bytes() {
    // k = 1000, O = 0: sender cpu 1500; arrives 4000; recv done 4000+1500+max(0, 6000) = 11500.
    let r = run(&one_message(1001), &loggopsim_defaults(Rendezvous::Handshake));
    assert_eq!(end_ns(&r, 0), 1500);
    assert_eq!(end_ns(&r, 1), 11500);
}

#[test]
fn vector3_dissemination_barrier_16() {
    // 4 rounds of (o 1500 + L 2500 + o 1500) = 5500 → 22000 ns on every rank.
    let r = run(&dissemination(16, 1), &loggopsim_defaults(Rendezvous::Loggopsim));
    for rank in 0..16 {
        assert_eq!(end_ns(&r, rank), 22000, "rank {rank}");
    }
}

fn two_sends(g: u64) -> u64 {
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, 1, 0, 0, 0);
    b.send(0, 1, 1, 0, 0, 0);
    b.recv(1, 0, 1, 0, 0, 0);
    b.recv(1, 0, 1, 0, 0, 0);
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.cluster.gap = g * NS;
    end_ns(&run(&b.build().unwrap(), &p), 0)
}

#[test]
fn vector4_back_to_back_sends() {
    // First send 0 → cpu 1500, nic 1000; second starts at max(1500, 1000) = 1500 → cpu 3000.
    assert_eq!(two_sends(1000), 3000);
    // g = 4000: second starts at max(1500, 4000) = 4000 → cpu 5500.
    assert_eq!(two_sends(4000), 5500);
}

#[test]
fn vector5_rendezvous_handshake() {
    // RTS 0→1: cpu0 1500, arrives 4000, processed → cpu1 5500. CTS at 5500 → cpu1 7000,
    // arrives at 0 at 9500 → cpu0 11000. Data at 11000: cpu0 12500 (send done),
    // arrives 15000, receiver: 15000 + 1500 + 99999·6 = 616494 (receive done).
    let r = run(&one_message(100_000), &loggopsim_defaults(Rendezvous::Handshake));
    assert_eq!(end_ns(&r, 0), 12500);
    assert_eq!(end_ns(&r, 1), 616494);
    assert_eq!(r.control_messages, 2);
    assert_eq!(r.messages, 1);
}

#[test]
fn vector6_rendezvous_loggopsim() {
    // Data at once: arrives 4000, matched then: send done at 4000 (sender cpu 1500 → 4000);
    // receive done 4000 + 1500 + 599994 = 605494.
    let r = run(&one_message(100_000), &loggopsim_defaults(Rendezvous::Loggopsim));
    assert_eq!(end_ns(&r, 0), 4000);
    assert_eq!(end_ns(&r, 1), 605494);
    assert_eq!(r.control_messages, 0);
}

#[test]
fn loggopsim_reference_ping_pong() {
    // L=5000 o=1000 g=2000 G=1: 0 sends at 0 (cpu 1000), arrives 6000, 1 done 7000;
    // 1 replies at 7000 (cpu 8000), arrives 13000, 0 done 14000.
    let p = flat(level(5000, 1000, 2000, 1, 0, 65536), Rendezvous::Loggopsim);
    let r = run(&ping_pong(1), &p);
    assert_eq!(end_ns(&r, 0), 14000);
    assert_eq!(end_ns(&r, 1), 8000);
}

#[test]
fn loggopsim_reference_calc_before_recv() {
    // Message arrives at 6000 but rank 1 computes until 10000: processed then → 11000.
    let mut b = ScheduleBuilder::new(2);
    b.send(0, 1, 1, 0, 0, 0);
    let c = b.calc(1, 10000 * NS, 0);
    let r = b.recv(1, 0, 1, 0, 0, 0);
    b.requires(r, c);
    let p = flat(level(5000, 1000, 2000, 1, 0, 65536), Rendezvous::Loggopsim);
    let res = run(&b.build().unwrap(), &p);
    assert_eq!(end_ns(&res, 1), 11000);
    assert_eq!(res.ranks[1].compute_ps, 10000 * NS);
    assert_eq!(res.ranks[1].overhead_ps, 1000 * NS);
}

#[test]
fn wan_example_and_link_fifo() {
    // Two clusters of 2; L_w = 3 ms, B = 1 MB/s (1 µs/B); 1000 B with o = 1500 ns, G = 0:
    // reaches the link at 1500 ns, occupies it 1 ms, arrives 1500 ns + 1 ms + 3 ms = 4.0015 ms;
    // the receiver is done o later: 4.003 ms. A second message from rank 1 to rank 3,
    // also sent at 0, waits for the link: arrives 5.0015 ms, done 5.003 ms.
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 2, 1000, 0, 0, 0);
    b.send(1, 3, 1000, 0, 0, 0);
    b.recv(2, 0, 1000, 0, 0, 0);
    b.recv(3, 1, 1000, 0, 0, 0);
    let p = two_clusters(level(2500, 1500, 1000, 0, 0, 65535), 2, 3 * MS, 1_000_000);
    let r = run(&b.build().unwrap(), &p);
    assert_eq!(r.ranks[2].end_ps, 4 * MS + 3000 * NS);
    assert_eq!(r.ranks[3].end_ps, 5 * MS + 3000 * NS);
    assert_eq!(r.wan_links.len(), 1);
    assert_eq!((r.wan_links[0].from_cluster, r.wan_links[0].to_cluster), (0, 1));
    assert_eq!(r.wan_links[0].busy_ps, 2 * MS);
}

#[test]
fn an_arrival_waits_behind_earlier_sends_at_every_free_instant() {
    // Rank 0 sends 5 one-byte messages to rank 1; rank 1 sends 1 to rank 0; every op is
    // ready at 0 (o = 1500, g = 1000, L = 2500 ns). Rank 0 sends at 0, 1500, 3000, 4500,
    // 6000. Rank 1's message reaches rank 0 at 0 + 1500 + 2500 = 4000, finds its CPU busy
    // until 4500 and waits; at 4500 and again at 6000 rank 0's next send, created before
    // the arrival, takes the CPU first (same time, lower sequence number), so the
    // arrival is processed at 7500 → rank 0 done at 9000. Rank 1 processes arrivals at
    // 4000, 5500, 7000, 8500 and 10000 (sent + 4000), each 1500 → done at 11500. (Were
    // the arrival served at 4500, rank 0's last two sends would start at 6000 and 7500
    // and rank 1 would end at 13000.)
    let mut b = ScheduleBuilder::new(2);
    for _ in 0..5 {
        b.send(0, 1, 1, 0, 0, 0);
    }
    b.recv(0, 1, 1, 0, 0, 0);
    b.send(1, 0, 1, 0, 0, 0);
    for _ in 0..5 {
        b.recv(1, 0, 1, 0, 0, 0);
    }
    let r = run(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake));
    assert_eq!(end_ns(&r, 0), 9000);
    assert_eq!(end_ns(&r, 1), 11500);
}
