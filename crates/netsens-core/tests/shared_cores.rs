//! Ranks sharing cores (`[shape] cores_per_node`): placement in turn on a node's cores
//! and CPU work served first come, first served, against end times derived by hand.

mod common;
use common::*;
use netsens_core::platform::{Platform, Rendezvous, ALL_RANKS};
use netsens_core::schedule::ScheduleBuilder;
use netsens_core::time::US;

/// L = 2.5 µs, o = 1.5 µs, g = 1 µs, G = O = 0; `ranks_per_node` ranks a node with
/// `cores` cores each.
fn machine(ranks_per_node: u32, cores: Option<u32>) -> Platform {
    let mut p = flat(level(2500, 1500, 1000, 0, 0, 65535), Rendezvous::Handshake);
    p.shape.ranks_per_node = ranks_per_node;
    p.shape.cores_per_node = cores;
    p
}

/// Every rank computes `us` microseconds.
fn everyone_computes(ranks: u32, us: u64, p: &Platform) -> Vec<u64> {
    let mut b = ScheduleBuilder::new(ranks);
    for r in 0..ranks {
        b.calc(r, us * US, 0);
    }
    let r = run(&b.build().unwrap(), p);
    (0..ranks as usize).map(|i| end_ns(&r, i)).collect()
}

#[test]
fn ranks_take_the_cores_of_their_node_in_turn() {
    // One node of 4 ranks on 2 cores: ranks 0, 2 on core 0 and 1, 3 on core 1, so
    // 2 and 3 start when 0 and 1 are done: 10 µs, then 20 µs.
    assert_eq!(everyone_computes(4, 10, &machine(ALL_RANKS, Some(2))), [10_000, 10_000, 20_000, 20_000]);
    // Two nodes of 2 ranks, one core each: 0 and 1 share node 0's core, 2 and 3 node 1's.
    assert_eq!(everyone_computes(4, 10, &machine(2, Some(1))), [10_000, 20_000, 10_000, 20_000]);
    // At least a core per rank (4 cores, or none given): nothing waits.
    assert_eq!(everyone_computes(4, 10, &machine(ALL_RANKS, Some(4))), [10_000; 4]);
    assert_eq!(everyone_computes(4, 10, &machine(ALL_RANKS, None)), [10_000; 4]);
    // A node per rank (the default): cores per node change nothing.
    assert_eq!(everyone_computes(4, 10, &machine(1, Some(1))), [10_000; 4]);
}

/// Ranks 0 and 1 each compute 10 µs; then 0 sends 1 B to 1, which receives it.
fn compute_then_send(p: &Platform) -> (u64, u64) {
    let mut b = ScheduleBuilder::new(2);
    let c0 = b.calc(0, 10 * US, 0);
    let s = b.send(0, 1, 1, 0, 0, 0);
    b.requires(s, c0);
    let c1 = b.calc(1, 10 * US, 0);
    let r = b.recv(1, 0, 1, 0, 0, 0);
    b.requires(r, c1);
    let res = run(&b.build().unwrap(), p);
    (end_ns(&res, 0), end_ns(&res, 1))
}

#[test]
fn the_second_rank_on_a_core_computes_after_the_first() {
    // A core each: 0 sends at 10 µs, o until 11.5; arrival 14, rank 1's o until 15.5.
    assert_eq!(compute_then_send(&machine(ALL_RANKS, None)), (11_500, 15_500));
    // One core: rank 1's compute came at 0 and runs 10..20 µs; rank 0's send came at
    // 10 µs and waits for the core: o 20..21.5, arrival 24, rank 1's o 24..25.5.
    assert_eq!(compute_then_send(&machine(ALL_RANKS, Some(1))), (21_500, 25_500));
}

#[test]
fn an_arrival_waits_for_the_other_rank_on_its_core() {
    // 3 ranks on 2 cores: 0 and 2 on core 0. Rank 2 computes 10 µs from 0; rank 1
    // sends to rank 0 at 0: o 0..1.5, arrival at 4 µs, but core 0 is busy until 10,
    // so rank 0's o runs 10..11.5 µs (5.5 µs with a core of its own: 4 + 1.5).
    let run_on = |p: &Platform| {
        let mut b = ScheduleBuilder::new(3);
        b.calc(2, 10 * US, 0);
        b.send(1, 0, 1, 0, 0, 0);
        b.recv(0, 1, 1, 0, 0, 0);
        end_ns(&run(&b.build().unwrap(), p), 0)
    };
    assert_eq!(run_on(&machine(ALL_RANKS, Some(2))), 11_500);
    assert_eq!(run_on(&machine(ALL_RANKS, None)), 5_500);
}

#[test]
fn a_ping_pong_takes_as_long_on_one_core_as_on_two() {
    // Its CPU work never overlaps: o 0..1.5, arrival 4, o 4..5.5, reply o 5.5..7,
    // arrival 9.5, o 9.5..11 µs, on one core or two.
    for cores in [None, Some(1), Some(2)] {
        assert_eq!(end_ns(&run(&ping_pong(1), &machine(ALL_RANKS, cores)), 0), 11_000, "cores {cores:?}");
    }
}

#[test]
fn cores_and_all_ranks_read_and_write_as_toml() {
    let p =
        Platform::from_toml("base = \"loggopsim\"\n[shape]\nranks_per_node = \"all\"\ncores_per_node = 2\n", "m.toml")
            .unwrap();
    assert_eq!((p.shape.ranks_per_node, p.shape.cores_per_node), (ALL_RANKS, Some(2)));
    let back = Platform::from_toml(&p.to_toml(), "back.toml").unwrap();
    assert_eq!(back.shape, p.shape);
    let mut q = Platform::resolve("loggopsim").unwrap();
    q.set_all(&[("ranks_per_node", "all"), ("cores_per_node", "3")]).unwrap();
    assert_eq!((q.shape.ranks_per_node, q.shape.cores_per_node), (ALL_RANKS, Some(3)));
}

#[test]
fn bad_core_counts_are_one_line_errors() {
    let bad = |shape: &str| {
        let text = format!("base = \"loggopsim\"\n[shape]\n{shape}\n");
        Platform::from_toml(&text, "m.toml").unwrap_err().to_string()
    };
    assert!(bad("cores_per_node = 0").contains("shape.cores_per_node: must be at least 1, got 0"));
    assert!(bad("cores_per_node = -2").contains("shape.cores_per_node: -2 is negative"));
    assert!(bad("cores_per_node = \"two\"").contains("\"two\" is not a whole number"));
    assert!(bad("ranks_per_node = \"some\"").contains("shape.ranks_per_node: \"some\" is not a whole number"));
    assert!(bad("clusters = \"2x4\"\nranks_per_node = \"all\"").contains("cannot span 2 clusters"));
    let mut p = Platform::resolve("loggopsim").unwrap();
    let e = p.set("cores_per_node", "0").unwrap_err().to_string();
    assert!(e.contains("cores_per_node: must be at least 1, got 0"), "{e}");
    for e in [bad("cores_per_node = 0"), e] {
        assert!(!e.contains('\n'), "{e}");
    }
}
