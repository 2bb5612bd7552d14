//! The wide-area gateways' cost per message (`[wan] gateway`): each cluster's gateway
//! forwards one message at a time, in arrival order, busy c_gw each, on the way out of
//! a cluster, through a hub and into the destination's cluster. Times derived by hand
//! from LOGGP.md's wide-area rule and the gateway rule of docs/guides/wide-area-seeds.md.

mod common;
use common::*;
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program, Rank, ANY_SOURCE};
use netsens_core::time::{PerByte, Time, MS, NS, US};

/// LAN o = 1500 ns, g = 1000 ns, G = 0; links L_w = 3 ms and 1 µs/B (1 MB/s), each
/// cluster's gateway busy `gateway` per message.
fn wan(shape: WanShape, clusters: Vec<u32>, gateway: Time) -> Platform {
    let mut p = flat(level(2500, 1500, 1000, 0, 0, 65535), Rendezvous::Handshake);
    p.shape = Shape { clusters: Some(clusters), ranks_per_node: 1, cores_per_node: None };
    p.wan = Some(Wan { shape, latency: 3 * MS, per_byte: PerByte::from_ps(US), hub: 0, gateway });
    p
}

/// Ranks `senders` each send `bytes` to rank `dst` at time 0; `dst` receives them all.
fn all_send(p: &Platform, ranks: u32, senders: &'static [u32], dst: u32, bytes: usize) -> RunResult {
    run_program(p, ranks, &RunOptions::default(), move |r| async move {
        let w = r.world();
        if senders.contains(&r.rank()) {
            r.send(&w, dst, 0, vec![0; bytes]).await;
        } else if r.rank() == dst {
            for _ in 0..senders.len() {
                r.recv(&w, ANY_SOURCE, 0).await;
            }
        }
        Ok(())
    })
    .expect("the program runs")
}

#[test]
fn one_message_pays_the_gateway_at_each_end() {
    // 1000 B from rank 0 (cluster 0) to rank 1 (cluster 1), c_gw = 50 µs: off the CPU
    // at 1.5 µs, through gateway 0 until 51.5 µs, on the link until 1.0515 ms, 3 ms
    // later at gateway 1, through it at 4.1015 ms (the guide's vector: 4.0015 ms
    // without gateways + 2 × 50 µs); the receiver's o ends at 4.103 ms.
    let r = all_send(&wan(WanShape::Full, vec![1, 1], 50 * US), 2, &[0], 1, 1000);
    assert_eq!(r.ranks[1].end_ps, 4 * MS + 103 * US);
}

#[test]
fn a_second_message_queues_at_both_gateways() {
    // Ranks 0 and 1 (cluster 0) each send 1 B to rank 2 (cluster 1) at 0, c_gw = 50 µs.
    // First: gateway 0 1.5–51.5 µs, link 51.5–52.5 µs, at gateway 1 at 3.0525 ms,
    // through at 3.1025 ms. Second: gateway 0 51.5–101.5 µs (queued behind the first),
    // link 101.5–102.5 µs, at gateway 1 at 3.1025 ms, just as it frees: through at
    // 3.1525 ms. The receiver's second o ends at 3.154 ms. Without gateways the two
    // take the link at 1.5–2.5 µs and 2.5–3.5 µs and arrive at 3.0025 and 3.0035 ms;
    // the second waits for the receiver's first o (until 3.004 ms): done at 3.0055 ms.
    let r = all_send(&wan(WanShape::Full, vec![2, 1], 50 * US), 3, &[0, 1], 2, 1);
    assert_eq!(r.ranks[2].end_ps, 3 * MS + 154 * US);
    let r = all_send(&wan(WanShape::Full, vec![2, 1], 0), 3, &[0, 1], 2, 1);
    assert_eq!(r.ranks[2].end_ps, 3 * MS + 5500 * NS);
}

#[test]
fn a_hub_forwards_through_its_own_gateway() {
    // Star, hub 0, clusters 1 + 1 + 1: rank 1 → rank 2, 1 B, c_gw = 50 µs. Gateway 1
    // 1.5–51.5 µs, link 1→0 51.5–52.5 µs, hub's gateway 3.0525–3.1025 ms, link 0→2
    // 3.1025–3.1035 ms, gateway 2 6.1035–6.1535 ms; the receiver's o ends at 6.155 ms:
    // three gateways, where a full mesh passes two.
    let mut p = wan(WanShape::Star, vec![1, 1, 1], 50 * US);
    p.wan.as_mut().unwrap().hub = 0;
    let r = all_send(&p, 3, &[1], 2, 1);
    assert_eq!(r.ranks[2].end_ps, 6 * MS + 155 * US);
}

#[test]
fn a_blocking_read_across_the_wide_area_pays_four_gateways() {
    // Rank 0 (cluster 0) reads 8 B of rank 1's window (cluster 1), c_gw = 50 µs
    // (LOGGP.md's get: a 1-byte request, the target's o for it and o for its reply).
    // Request: off rank 0's CPU at 1.5 µs, gateway 0 until 51.5 µs, link until
    // 52.5 µs, gateway 1 3.0525–3.1025 ms; rank 1 processes it until 3.104 ms and
    // sends the reply, off its CPU at 3.1055 ms; gateway 1 until 3.1555 ms, link (8 B)
    // until 3.1635 ms, gateway 0 6.1635–6.2135 ms; rank 0's o ends the read at
    // 6.215 ms: 2 L_w + 4 c_gw + 9 B · G_w + 4 o.
    let p = wan(WanShape::Full, vec![1, 1], 50 * US);
    let r = run_program(&p, 2, &RunOptions::default(), |r| async move {
        r.expose(8);
        if r.rank() == 0 {
            r.get(1, 0, 8).await;
        }
        Ok(())
    })
    .expect("the program runs");
    assert_eq!(r.ranks[0].end_ps, 2 * 3 * MS + 4 * 50 * US + 9 * US + 4 * 1500 * NS);
    assert_eq!(r.ranks[0].end_ps, 6 * MS + 215 * US);
}

#[test]
fn a_gateway_cost_needs_a_unit_and_no_sign() {
    let err = |value: &str| {
        let text = format!("base = \"das1998\"\n[wan]\ngateway = {value}\n");
        Platform::from_toml(&text, "far.toml").map(|_| ()).unwrap_err().to_string()
    };
    assert_eq!(err("30"), r#"far.toml: wan.gateway: "30" has no unit; write a time such as 5us"#);
    assert_eq!(err("\"-30us\""), r#"far.toml: wan.gateway: "-30us" is negative; write a time such as 5us"#);
    let mut p = netsens_core::platform::presets::get("das1998").unwrap();
    assert_eq!(
        p.set("wan_gateway", "-1us").unwrap_err().to_string(),
        r#"wan_gateway: "-1us" is negative; write a time such as 5us"#
    );
    p.set("wan_gateway", "50us").unwrap();
    assert_eq!(p.wan.unwrap().gateway, 50 * US);
}
