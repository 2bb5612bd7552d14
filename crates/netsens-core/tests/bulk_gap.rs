//! G on bulk messages only (`G_above`, docs/concepts/bulk-gap.md), through the engine. Every
//! expected number is derived by hand from LOGGP.md's rules in the comment beside it.

mod common;
use common::*;
use netsens_core::platform::Rendezvous;
use netsens_core::schedule::{Schedule, ScheduleBuilder};

/// LogGOPSim's defaults (L=2500 o=1500 g=1000 ns, G=6 ns/B) with G charged only on
/// messages of more than `above` bytes.
fn platform(above: u64) -> netsens_core::platform::Platform {
    let mut p = loggopsim_defaults(Rendezvous::Handshake);
    p.cluster.gap_above = above;
    p
}

#[test]
fn receiver_pays_g_only_above_the_threshold() {
    // Arrival at o + L = 4000 ns; the receive is done at 4000 + o + k·G.
    // 16 B with G_above = 16: no G, 5500. 17 B: k = 16, 5500 + 96 = 5596.
    // 16 B with G_above = 0 (LogGP): k = 15, 5500 + 90 = 5590.
    for (above, bytes, end) in [(16, 16, 5500), (16, 17, 5596), (0, 16, 5590), (0, 1, 5500)] {
        let r = run(&one_message(bytes), &platform(above));
        assert_eq!(end_ns(&r, 1), end, "G_above {above}, {bytes} B");
    }
}

/// Two messages of `bytes` from rank 0 to rank 1, back to back.
fn two_messages(bytes: u64) -> Schedule {
    let mut b = ScheduleBuilder::new(2);
    let first = b.send(0, 1, bytes, 0, 0, 0);
    let second = b.send(0, 1, bytes, 0, 0, 0);
    b.requires(second, first);
    b.recv(1, 0, bytes, 0, 0, 0);
    b.recv(1, 0, bytes, 0, 0, 0);
    b.build().unwrap()
}

#[test]
fn sender_nic_pays_g_only_above_the_threshold() {
    // The second send starts at max(cpu, nic_s) = max(o, g + k·G) and ends o later.
    // 16 B under G_above = 16: max(1500, 1000) + 1500 = 3000.
    // 1000 B: nic_s = 1000 + 999·6 = 6994, so 6994 + 1500 = 8494 under either rule.
    for (above, bytes, end) in [(16, 16, 3000), (16, 1000, 8494), (0, 1000, 8494)] {
        let r = run(&two_messages(bytes), &platform(above));
        assert_eq!(end_ns(&r, 0), end, "G_above {above}, {bytes} B");
    }
}

#[test]
fn the_threshold_reads_and_overrides_with_a_unit() {
    let mut p = platform(0);
    p.set("G_above", "16B").unwrap();
    assert_eq!(p.cluster.gap_above, 16);
    let err = p.set("G_above", "16").unwrap_err().to_string();
    assert!(err.contains("G_above"), "{err}");
}
