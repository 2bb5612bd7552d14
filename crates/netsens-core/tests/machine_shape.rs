//! Machine shape and noise: node level, wide-area routes (full, star, ring) and
//! seeded noise, each against times derived by hand from LOGGP.md.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Dist, Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::schedule::{executor::run_schedule, ScheduleBuilder};
use netsens_core::time::{PerByte, MS, NS, US};

/// One 1000-byte message from `src` to `dst` on `p` ranks; returns the receiver's end.
fn deliver(p: u32, src: u32, dst: u32, platform: &Platform) -> u64 {
    let mut b = ScheduleBuilder::new(p);
    b.send(src, dst, 1000, 0, 0, 0);
    b.recv(dst, src as i32, 1000, 0, 0, 0);
    run(&b.build().unwrap(), platform).ranks[dst as usize].end_ps
}

fn wan_platform(shape: WanShape, clusters: u32) -> Platform {
    // o = 1500 ns, G = 0 on the LAN; links: L_w = 1 ms, 1 µs/B (so 1000 B take 1 ms).
    let mut p = flat(level(2500, 1500, 1000, 0, 0, 65535), Rendezvous::Handshake);
    p.shape = Shape { clusters: Some(vec![1; clusters as usize]), ranks_per_node: 1, cores_per_node: None };
    p.wan = Some(Wan { shape, latency: MS, per_byte: PerByte::from_ps(US), hub: 0, gateway: 0 });
    p
}

#[test]
fn ring_takes_the_shorter_way_and_ties_go_upward() {
    let p = wan_platform(WanShape::Ring, 4);
    // 0 → 3: one hop downward: 1500 ns + (1 ms + 1 ms) + o 1500 ns.
    assert_eq!(deliver(4, 0, 3, &p), 2 * MS + 3000 * NS);
    // 0 → 2: a tie, two hops: 1500 ns + 2·(1 ms + 1 ms) + 1500 ns.
    assert_eq!(deliver(4, 0, 2, &p), 4 * MS + 3000 * NS);
}

#[test]
fn star_routes_through_the_hub() {
    let p = wan_platform(WanShape::Star, 3);
    assert_eq!(deliver(3, 1, 2, &p), 4 * MS + 3000 * NS); // 1 → hub 0 → 2
    assert_eq!(deliver(3, 0, 2, &p), 2 * MS + 3000 * NS); // from the hub: one link
    let full = wan_platform(WanShape::Full, 3);
    assert_eq!(deliver(3, 1, 2, &full), 2 * MS + 3000 * NS);
}

#[test]
fn ranks_on_one_node_use_the_node_level() {
    // Node: L=100 o=200 g=50 G=0; cluster: loggopsim defaults. Ranks 0,1 share a node.
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.node = Some(level(100, 200, 50, 0, 0, 65535));
    p.shape = Shape { clusters: None, ranks_per_node: 2, cores_per_node: None };
    // Same node: 200 + 100 + 200 = 500 ns. Across nodes (1 → 2): 1500 + 2500 + 1500 = 5500 ns.
    let mut b = ScheduleBuilder::new(4);
    b.send(0, 1, 1, 0, 0, 0);
    b.recv(1, 0, 1, 0, 0, 0);
    b.send(3, 2, 1, 0, 0, 0);
    b.recv(2, 3, 1, 0, 0, 0);
    let r = run(&b.build().unwrap(), &p);
    assert_eq!(end_ns(&r, 1), 500);
    // 3 and 2 share node 1, so that is a node message too.
    assert_eq!(end_ns(&r, 2), 500);
    let mut b = ScheduleBuilder::new(4);
    b.send(1, 2, 1, 0, 0, 0);
    b.recv(2, 1, 1, 0, 0, 0);
    assert_eq!(end_ns(&run(&b.build().unwrap(), &p), 2), 5500);
}

#[test]
fn cpu_speed_scales_computation_only() {
    let mut b = ScheduleBuilder::new(1);
    b.calc(0, 10 * US, 0);
    let s = b.build().unwrap();
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.cpu_speed = 4.0;
    assert_eq!(run(&s, &p).makespan_ps, 2500 * NS);
}

fn noisy(latency_jitter: Dist, detours: Option<(Dist, Dist)>) -> Platform {
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.noise.latency_jitter = latency_jitter;
    if let Some((every, length)) = detours {
        p.noise.detour_interval = every;
        p.noise.detour_duration = length;
    }
    p
}

#[test]
fn zero_noise_is_exactly_the_noiseless_run() {
    let s = dissemination(16, 8);
    let quiet = run(&s, &loggopsim_defaults(Rendezvous::Handshake));
    let zero = noisy(Dist::Constant(0), Some((Dist::Constant(MS), Dist::Constant(0))));
    let r = run_schedule(&s, &zero, &RunOptions { seed: 7, matrix: true, ..Default::default() }).unwrap();
    assert_eq!(r, RunResult { seed: 7, ..quiet });
}

#[test]
fn constant_jitter_adds_to_every_latency() {
    // Barrier: 4 rounds, each gains the 1 µs of jitter: 22000 + 4000 ns.
    let r = run(&dissemination(16, 1), &noisy(Dist::Constant(US), None));
    assert!(r.ranks.iter().all(|x| x.end_ps == 26_000 * NS));
}

#[test]
fn random_noise_is_seeded_and_keeps_message_order() {
    let p = noisy(Dist::Exponential(3 * US), Some((Dist::Exponential(20 * US), Dist::Constant(5 * US))));
    let s = dissemination(32, 64);
    let at = |seed| run_schedule(&s, &p, &RunOptions { seed, matrix: false, ..Default::default() }).unwrap();
    let (a, a2, b) = (at(1), at(1), at(2));
    assert_eq!(a, a2);
    assert_ne!(a.makespan_ps, b.makespan_ps);
    assert!(a.makespan_ps > 22_000 * NS);
    assert!(a.ranks.iter().any(|r| r.noise_ps > 0));
    // Each detour is 5 µs long, so the noise charged is a whole number of detours.
    assert!(a.ranks.iter().all(|r| r.noise_ps % (5 * US) == 0));
}

use netsens_core::profile::RunResult;

#[test]
fn an_op_on_a_second_cpu_never_starts_before_what_it_requires() {
    // cpu 0 computes 100 ns, then cpu 1 computes 50 ns: the second ends at 150 ns.
    let mut b = ScheduleBuilder::new(1);
    let first = b.calc(0, 100 * NS, 0);
    let second = b.calc(0, 50 * NS, 1);
    b.requires(second, first);
    assert_eq!(run(&b.build().unwrap(), &loggopsim_defaults(Rendezvous::Handshake)).makespan_ps, 150 * NS);
}

#[test]
fn a_second_nic_sends_without_waiting_for_the_first_ones_gap() {
    // g = 4000 ns. One NIC: the second send waits for nic_s = 4000 → cpu 5500 (vector 4).
    // Two NICs: the second send only waits for the CPU: starts 1500 → cpu 3000.
    let sender_end = |second_nic: u8| {
        let mut b = ScheduleBuilder::new(2);
        b.send(0, 1, 1, 0, 0, 0);
        b.send(0, 1, 1, 0, 0, second_nic);
        b.recv(1, 0, 1, 0, 0, 0);
        b.recv(1, 0, 1, 0, 0, 0);
        let mut p = loggopsim_defaults(Rendezvous::Handshake);
        p.cluster.gap = 4000 * NS;
        end_ns(&run(&b.build().unwrap(), &p), 0)
    };
    assert_eq!(sender_end(0), 5500);
    assert_eq!(sender_end(1), 3000);
}
