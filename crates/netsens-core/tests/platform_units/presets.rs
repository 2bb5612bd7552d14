//! The named platforms: listed, round-tripped through TOML, with their values.

use netsens_core::platform::{presets, LevelParams, Platform, Rendezvous, Shape, WanShape};
use netsens_core::time::{PerByte, US};

// ---------------------------------------------------------------- presets

#[test]
fn presets_listed_and_round_trip() {
    let names: Vec<_> = presets::list().iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["loggopsim", "now1997", "das1998", "ib100", "eth10g"]);
    for (name, description) in presets::list() {
        assert!(!description.is_empty());
        let p = presets::get(name).unwrap();
        assert_eq!(p.name, name);
        p.validate().unwrap();
        let text = p.to_toml();
        let back = Platform::from_toml(&text, "x.toml").unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        assert_eq!(back, p, "{name}:\n{text}");
        assert_eq!(Platform::resolve(name).unwrap(), p);
    }
    assert!(presets::get("nope").is_none());
}

#[test]
fn preset_values() {
    let p = presets::get("loggopsim").unwrap();
    assert_eq!(
        p.cluster,
        LevelParams {
            latency: 2_500_000,
            overhead: 1_500_000,
            gap: 1_000_000,
            gap_per_byte: PerByte(6_000_000),
            overhead_per_byte: PerByte(0),
            eager_limit: 65_535,
            gap_above: 0,
            control_overhead: None,
        }
    );
    assert_eq!(p.rendezvous, Rendezvous::Loggopsim);
    assert_eq!(p.shape, Shape { clusters: None, ranks_per_node: 1, cores_per_node: None });
    assert!(p.wan.is_none() && p.node.is_none() && p.noise.is_none());

    let p = presets::get("now1997").unwrap();
    assert_eq!((p.cluster.latency, p.cluster.overhead, p.cluster.gap), (5_000_000, 2_900_000, 5_800_000));
    assert_eq!(p.cluster.gap_per_byte, PerByte(26_315_789)); // 1e15 / 38e6, rounded
    assert_eq!(p.cluster.eager_limit, 65_536);
    assert_eq!(p.rendezvous, Rendezvous::Handshake);
    // G on bulk transfers only (above GAM's 16-byte short messages); the CPU at
    // 167e6 × 2 × 1/4 / 1e9 of the suite's 1 Gflop/s.
    assert_eq!((p.cluster.gap_above, p.cpu_speed), (16, 0.0835));

    let p = presets::get("das1998").unwrap();
    // 18 us one way = o + L + o = 2 + 14 + 2.
    assert_eq!(p.cluster.overhead * 2 + p.cluster.latency, 18 * US);
    assert_eq!(p.cluster.gap_per_byte, PerByte(20_000_000)); // 50 MB/s = 20 ns/B
    assert_eq!(p.shape.clusters, Some(vec![8, 8, 8, 8]));
    let wan = p.wan.unwrap();
    assert_eq!(wan.shape, WanShape::Full);
    assert_eq!(wan.latency, 1_375_000_000); // (2.5 ms + 3 ms) / 2 / 2
    assert_eq!(wan.per_byte, PerByte(1_818_181_818)); // 1e15 / 550_000
                                                      // (0.1 ms − 2 × 18 us) / 2: the fastest wide-area one-way time, less the Myrinet hops.
    assert_eq!(wan.gateway, 32 * US);

    let p = presets::get("ib100").unwrap();
    assert_eq!((p.cluster.latency, p.cluster.overhead, p.cluster.gap), (600_000, 200_000, 50_000));
    assert_eq!(p.cluster.gap_per_byte, PerByte(80_000)); // 100 Gbit/s
    assert_eq!(p.cluster.eager_limit, 16_384);

    let p = presets::get("eth10g").unwrap();
    assert_eq!((p.cluster.latency, p.cluster.overhead, p.cluster.gap), (10 * US, 5 * US, 2 * US));
    assert_eq!(p.cluster.gap_per_byte, PerByte(800_000)); // 10 Gbit/s
    assert_eq!(p.cluster.overhead_per_byte, PerByte(100_000)); // 0.1 ns/B
}
