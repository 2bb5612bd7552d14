//! Wide-area link contention through a rank program (no application): messages that
//! share a link queue on it, first come first served, on every WAN shape; the per-link
//! traffic and busy time the result reports. Times derived by hand from LOGGP.md's
//! wide-area rule.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Platform, Shape, Wan, WanShape};
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program, Rank, ANY_SOURCE};
use netsens_core::time::{PerByte, MS, NS, US};

/// LAN o = 1500 ns, g = 1000 ns, G = 0; links L_w = 1 ms and 1 µs/B, so 1000 B
/// occupy a link for 1 ms.
fn wan(shape: WanShape, clusters: Vec<u32>, hub: usize) -> Platform {
    let mut p = flat(level(2500, 1500, 1000, 0, 0, 65535), netsens_core::platform::Rendezvous::Handshake);
    p.shape = Shape { clusters: Some(clusters), ranks_per_node: 1, cores_per_node: None };
    p.wan = Some(Wan { shape, latency: MS, per_byte: PerByte::from_ps(US), hub, gateway: 0 });
    p
}

/// Ranks `senders` each send 1000 B to rank `dst` at time 0; `dst` receives both.
fn both_send(p: &Platform, ranks: u32, senders: [u32; 2], dst: u32) -> RunResult {
    run_program(p, ranks, &RunOptions::default(), move |r| async move {
        let w = r.world();
        if senders.contains(&r.rank()) {
            r.send(&w, dst, 0, vec![0; 1000]).await;
        } else if r.rank() == dst {
            for _ in 0..2 {
                r.recv(&w, ANY_SOURCE, 0).await;
            }
        }
        Ok(())
    })
    .expect("the program runs")
}

/// (from, to, messages, bytes, busy ps) of every link used.
fn links(r: &RunResult) -> Vec<(usize, usize, u64, u64, u64)> {
    r.wan_links.iter().map(|l| (l.from_cluster, l.to_cluster, l.messages, l.bytes, l.busy_ps)).collect()
}

#[test]
fn two_senders_of_one_cluster_queue_on_a_full_link() {
    // Clusters 2 + 1: ranks 0 and 1 → rank 2. Both reach link 0→1 at o = 1500 ns; the
    // first occupies it until 1.0015 ms and arrives at 2.0015 ms, the second starts
    // then, leaves at 2.0015 ms and arrives at 3.0015 ms; the receiver ends one o
    // later: 3.003 ms. The link carried 2 messages, 2000 B, busy 2 ms.
    let r = both_send(&wan(WanShape::Full, vec![2, 1], 0), 3, [0, 1], 2);
    assert_eq!(r.ranks[2].end_ps, 3 * MS + 3000 * NS);
    assert_eq!(links(&r), vec![(0, 1, 2, 2000, 2 * MS)]);
}

#[test]
fn the_hub_of_a_star_forwards_queued_messages_in_turn() {
    // Clusters 1 + 2 + 1, hub 0: ranks 1 and 2 (cluster 1) → rank 3 (cluster 2), both
    // through the hub. Link 1→0: the first leaves at 1.0015 ms and reaches the hub at
    // 2.0015 ms, the second leaves at 2.0015 ms and reaches it at 3.0015 ms. Link 0→2:
    // the first occupies it 2.0015–3.0015 ms and arrives at 4.0015 ms, the second
    // 3.0015–4.0015 ms and arrives at 5.0015 ms; the receiver ends at 5.003 ms.
    let r = both_send(&wan(WanShape::Star, vec![1, 2, 1], 0), 4, [1, 2], 3);
    assert_eq!(r.ranks[3].end_ps, 5 * MS + 3000 * NS);
    assert_eq!(links(&r), vec![(0, 2, 2, 2000, 2 * MS), (1, 0, 2, 2000, 2 * MS)]);
}

#[test]
fn a_ring_takes_the_short_way_and_leaves_the_long_way_idle() {
    // Clusters 2 + 1 + 1 + 1: ranks 0 and 1 (cluster 0) → rank 4 (cluster 3), one hop
    // down the ring; the long way (0→1→2→3) is never used. Times as on one full link:
    // 3.003 ms, only link 0→3 busy.
    let r = both_send(&wan(WanShape::Ring, vec![2, 1, 1, 1], 0), 5, [0, 1], 4);
    assert_eq!(r.ranks[4].end_ps, 3 * MS + 3000 * NS);
    assert_eq!(links(&r), vec![(0, 3, 2, 2000, 2 * MS)]);
}
