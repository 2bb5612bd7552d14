//! Command-line overrides of a platform (`set`, `set_all`) and the disks section.

use super::{msg, MINIMAL};
use netsens_core::platform::{presets, Dist, LevelParams, Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::time::{PerByte, MS, US};

// ---------------------------------------------------------------- set

#[test]
fn set_overrides() {
    let mut p = presets::get("loggopsim").unwrap();
    p.set("L", "5us").unwrap();
    p.set("G", "10Gbit/s").unwrap();
    p.set("S", "16KiB").unwrap();
    p.set("O", "1ps/B").unwrap();
    p.set("o", "1us").unwrap();
    p.set("g", "2us").unwrap();
    p.set("rendezvous", "handshake").unwrap();
    p.set("cpu_speed", "2.5").unwrap();
    assert_eq!(
        p.cluster,
        LevelParams {
            latency: 5 * US,
            overhead: US,
            gap: 2 * US,
            gap_per_byte: PerByte(800_000),
            overhead_per_byte: PerByte(1_000),
            eager_limit: 16_384,
            gap_above: 0,
            control_overhead: None,
        }
    );
    assert_eq!(p.rendezvous, Rendezvous::Handshake);
    assert_eq!(p.cpu_speed, 2.5);

    // With a node level, the LogGP letters apply to both levels.
    let mut q = Platform::from_toml(&format!("{MINIMAL}[node]\nL = \"1ns\"\n"), "q.toml").unwrap();
    q.set("L", "7us").unwrap();
    assert_eq!((q.cluster.latency, q.node.as_ref().unwrap().latency), (7 * US, 7 * US));

    assert_eq!(msg(p.set("L", "5")), r#"L: "5" has no unit; write a time such as 5us"#);
    assert!(msg(p.set("l", "5us")).starts_with("unknown platform parameter \"l\"; accepted: L, o, g, G, O, S, "));
    assert!(msg(p.set("cpu_speed", "0")).contains("cpu_speed: \"0\" is not a positive number"));
    assert!(msg(p.set("rendezvous", "x")).contains("unknown rendezvous protocol"));

    // Shape: checked as a whole; a failed override leaves the platform unchanged.
    let before = p.clone();
    assert!(msg(p.set("clusters", "2x4")).contains("2 clusters need wide-area links"));
    assert!(msg(p.set("wan_latency", "3ms")).contains("has no wide-area links; give wan_latency and wan_bandwidth"));
    assert_eq!(p, before);
    p.set("clusters", "8").unwrap();
    p.set("ranks_per_node", "4").unwrap();
    assert!(msg(p.set("ranks_per_node", "3")).contains("3 does not divide the size 8 of cluster 0"));
    assert_eq!(p.shape, Shape { clusters: Some(vec![8]), ranks_per_node: 4, cores_per_node: None });
    p.set("clusters", "all").unwrap();
    assert_eq!(p.shape.clusters, None);
}

#[test]
fn set_all_adds_wide_area_links() {
    let mut p = presets::get("ib100").unwrap();
    // Order does not matter: the shape comes before the links it needs.
    p.set_all(&[("clusters", "4x8"), ("ranks_per_node", "2"), ("wan_bandwidth", "1MB/s"), ("wan_latency", "3ms")])
        .unwrap();
    assert_eq!(p.shape, Shape { clusters: Some(vec![8; 4]), ranks_per_node: 2, cores_per_node: None });
    assert_eq!(
        p.wan,
        Some(Wan { shape: WanShape::Full, latency: 3 * MS, per_byte: PerByte(1_000_000_000), hub: 0, gateway: 0 })
    );
    p.set("wan_shape", "star").unwrap();
    p.set("wan_hub", "3").unwrap();
    assert!(msg(p.set("wan_hub", "4")).contains("wan.hub: cluster 4 does not exist"));
    p.set("wan_shape", "ring").unwrap();
    assert_eq!(p.wan.as_ref().unwrap().hub, 0);
    assert!(msg(p.set("wan_hub", "1")).contains("only used with wan_shape = star"));
    p.set("wan_latency", "10ms").unwrap();
    p.set("latency_jitter", "exponential(1us)").unwrap();
    assert_eq!(p.noise.latency_jitter, Dist::Exponential(US));
    assert_eq!(Platform::from_toml(&p.to_toml(), "x").unwrap(), p);

    let mut q = presets::get("ib100").unwrap();
    let before = q.clone();
    assert!(msg(q.set_all(&[("clusters", "2x4"), ("wan_latency", "3ms")]))
        .contains("has no wide-area links; give wan_latency and wan_bandwidth together"));
    assert!(msg(q.set_all(&[("clusters", "2x4")])).contains("2 clusters need wide-area links"));
    assert_eq!(q, before);
    // The hub may come before the star shape it needs.
    q.set_all(&[
        ("wan_hub", "2"),
        ("clusters", "8,8,16"),
        ("wan_latency", "1ms"),
        ("wan_bandwidth", "1GB/s"),
        ("wan_shape", "star"),
    ])
    .unwrap();
    assert_eq!(
        q.wan,
        Some(Wan { shape: WanShape::Star, latency: MS, per_byte: PerByte(1_000_000), hub: 2, gateway: 0 })
    );
}

#[test]
fn disks_section_and_override() {
    let p = Platform::from_toml("base = \"now1997\"\n[disks]\nbandwidth = \"5MB/s\"\n", "d.toml").unwrap();
    let d = p.disks.as_ref().unwrap();
    // 5 MB/s = 200 ns per byte = 200_000 ps/B; two disks unless told otherwise.
    assert_eq!((d.count, d.per_byte.fs_per_byte()), (2, 200_000_000));
    assert_eq!(Platform::from_toml(&p.to_toml(), "again").unwrap().disks, p.disks);
    let mut q = netsens_core::platform::presets::get("loggopsim").unwrap();
    q.set_all(&[("disk_bandwidth", "1MB/s"), ("disks_per_node", "4")]).unwrap();
    assert_eq!(q.disks.as_ref().map(|d| d.count), Some(4));
    let err = Platform::from_toml("base = \"now1997\"\n[disks]\ncount = 0\nbandwidth = \"1MB/s\"\n", "z.toml");
    assert_eq!(err.unwrap_err().to_string(), "z.toml: disks.count: must be at least 1, got 0");
    let err = Platform::from_toml("base = \"now1997\"\n[disks]\nspeed = 1\n", "k.toml").unwrap_err().to_string();
    assert!(err.contains("unknown key \"speed\" in [disks]"), "{err}");
}

// ---------------------------------------------------------------- o_control

#[test]
fn control_overhead_in_toml_overrides_and_back() {
    // Unset: the control o is o, follows o's overrides, and is not written back.
    let mut p = Platform::from_toml(MINIMAL, "p.toml").unwrap();
    assert_eq!((p.cluster.control_overhead, p.cluster.control_o()), (None, 2_900_000));
    p.set("o", "52.9us").unwrap();
    assert_eq!(p.cluster.control_o(), 52_900_000);
    assert!(!p.to_toml().contains("o_control"));

    // In [cluster]: the [node] level inherits it unless it sets its own.
    let text = format!("{MINIMAL}o_control = \"2.2us\"\n[node]\nL = \"1us\"\n");
    let mut q = Platform::from_toml(&text, "q.toml").unwrap();
    assert_eq!(q.cluster.control_overhead, Some(2_200_000));
    assert_eq!(q.node.as_ref().unwrap().control_overhead, Some(2_200_000));
    q.set("o", "52.2us").unwrap();
    assert_eq!((q.cluster.overhead, q.cluster.control_o()), (52_200_000, 2_200_000));
    // The override sets both levels; written back, it reads back the same.
    q.set("o_control", "3us").unwrap();
    assert_eq!((q.cluster.control_o(), q.node.as_ref().unwrap().control_o()), (3 * US, 3 * US));
    let back = Platform::from_toml(&q.to_toml(), "back.toml").unwrap();
    assert_eq!((back.cluster, back.node), (q.cluster.clone(), q.node.clone()));

    assert_eq!(msg(q.set("o_control", "3")), r#"o_control: "3" has no unit; write a time such as 5us"#);
    let bad = format!("{MINIMAL}o_control = \"fast\"\n");
    assert!(msg(Platform::from_toml(&bad, "b.toml")).starts_with("b.toml: cluster.o_control: "));
}
