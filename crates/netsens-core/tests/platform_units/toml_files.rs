//! Platform TOML documents and files: defaults, every section, bases, errors, and
//! resolving a name or a path.

use super::{msg, MINIMAL};
use netsens_core::platform::{presets, Dist, LevelParams, Noise, Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::time::{PerByte, MS, NS, US};
use netsens_core::Error;

// ---------------------------------------------------------------- TOML

#[test]
fn minimal_toml_defaults() {
    let p = Platform::from_toml(MINIMAL, "platform.toml").unwrap();
    assert_eq!(p.name, "platform.toml");
    assert_eq!(p.cluster.overhead_per_byte, PerByte(0));
    assert_eq!(p.cluster.eager_limit, 65_536);
    assert_eq!(p.rendezvous, Rendezvous::Handshake);
    assert_eq!(p.cpu_speed, 1.0);
    assert_eq!(p.shape, Shape { clusters: None, ranks_per_node: 1, cores_per_node: None });
    assert!(p.node.is_none() && p.wan.is_none());
    assert_eq!(p.noise, Noise::none());
    // The same numbers as the now1997 preset, but G on every byte (G_above's default).
    assert_eq!(p.cluster.gap_above, 0);
    assert_eq!(LevelParams { gap_above: 16, ..p.cluster }, presets::get("now1997").unwrap().cluster);
}

#[test]
fn full_toml() {
    let text = r#"
name = "mine"
rendezvous = "loggopsim"
cpu_speed = 2
[cluster]
L = "1us"
o = "500ns"
g = "100ns"
G = "26ns/B"
O = "0.5ps/B"
S = "0B"
[node]
L = "100ns"
[shape]
clusters = [8, 8, 16]
ranks_per_node = 4
[wan]
shape = "star"
latency = "3ms"
bandwidth = "1us/B"
hub = 2
[noise]
latency_jitter = "exponential(200ns)"
detour_interval = "exponential(1ms)"
detour_duration = "constant(20us)"
"#;
    let p = Platform::from_toml(text, "f.toml").unwrap();
    assert_eq!(p.name, "mine");
    assert_eq!(p.rendezvous, Rendezvous::Loggopsim);
    assert_eq!(p.cpu_speed, 2.0);
    assert_eq!(p.cluster.overhead_per_byte, PerByte(500));
    assert_eq!(p.cluster.eager_limit, 0);
    let node = p.node.clone().unwrap();
    assert_eq!(node.latency, 100_000);
    assert_eq!(LevelParams { latency: p.cluster.latency, ..node }, p.cluster); // the rest inherited
    assert_eq!(p.shape, Shape { clusters: Some(vec![8, 8, 16]), ranks_per_node: 4, cores_per_node: None });
    assert_eq!(
        p.wan,
        Some(Wan { shape: WanShape::Star, latency: 3 * MS, per_byte: PerByte(1_000_000_000), hub: 2, gateway: 0 })
    );
    assert_eq!(p.noise.latency_jitter, Dist::Exponential(200 * NS));
    assert_eq!(p.noise.wan_jitter, Dist::None);
    assert_eq!(p.noise.detour_duration, Dist::Constant(20 * US));
    assert_eq!(Platform::from_toml(&p.to_toml(), "g.toml").unwrap(), p);
}

#[test]
fn clusters_forms() {
    let with = |clusters: &str| {
        let text = format!("base = \"das1998\"\n[shape]\nclusters = {clusters}\n");
        Platform::from_toml(&text, "p.toml").map(|p| p.shape.clusters)
    };
    assert_eq!(with("\"4x8\"").unwrap(), Some(vec![8; 4]));
    assert_eq!(with("\"8,8,16\"").unwrap(), Some(vec![8, 8, 16]));
    assert_eq!(with("[2, 6]").unwrap(), Some(vec![2, 6]));
    assert_eq!(with("32").unwrap(), Some(vec![32]));
    assert_eq!(with("\"all\"").unwrap(), None);
    assert!(msg(with("\"4x0\"")).contains("cluster sizes must be positive"));
    assert!(msg(with("[]")).contains("empty"));
    assert!(msg(with("\"4y8\"")).contains("is not a list of cluster sizes"));
}

#[test]
fn base_and_overrides() {
    let text = "base = \"das1998\"\nname = \"far\"\n[wan]\nlatency = \"30ms\"\n[cluster]\nL = \"10us\"\n";
    let p = Platform::from_toml(text, "far.toml").unwrap();
    let das = presets::get("das1998").unwrap();
    assert_eq!(p.name, "far");
    assert_eq!(p.wan.as_ref().unwrap().latency, 30 * MS);
    assert_eq!(p.wan.as_ref().unwrap().per_byte, das.wan.as_ref().unwrap().per_byte);
    assert_eq!(p.cluster.latency, 10 * US);
    assert_eq!(p.cluster.overhead, das.cluster.overhead);
    assert_eq!(p.shape, das.shape);
    // Without a name, the origin names the platform.
    assert_eq!(Platform::from_toml("base = \"ib100\"", "mine.toml").unwrap().name, "mine.toml");
}

#[test]
fn toml_errors() {
    let err = |text: &str| msg(Platform::from_toml(text, "platform.toml"));
    let with_cluster = |extra: &str| err(&format!("{MINIMAL}{extra}"));

    // Malformed TOML: one line, with the line number of the mistake.
    let e = err("name = \"x\"\n[cluster]\nL = \"5us\nG = 1\n");
    assert!(e.starts_with("platform.toml:3: malformed TOML: "), "{e}");
    assert!(matches!(Platform::from_toml("[cluster\n", "p.toml"), Err(Error::Parse { line: 1, .. })));

    assert_eq!(
        err("nmae = \"x\"\n"),
        "platform.toml: unknown key \"nmae\"; accepted keys: name, base, rendezvous, cpu_speed, am_window, \
         cluster, node, shape, wan, noise, disks, topology"
    );
    assert_eq!(
        with_cluster("l = \"1us\"\n"),
        "platform.toml: unknown key \"l\" in [cluster]; accepted keys: L, o, g, G, O, S, G_above, o_control"
    );
    assert!(with_cluster("[wan]\nlatency = \"1ms\"\nbw = \"1MB/s\"\n")
        .starts_with("platform.toml: unknown key \"bw\" in [wan]; accepted keys: shape, latency, bandwidth, hub"));

    assert!(err("[cluster]\nL = \"5us\"\no = \"1us\"\nG = \"1ns/B\"\n")
        .starts_with("platform.toml: cluster.g is missing; write a time such as g = \"5us\""));
    assert!(
        err("[cluster]\nL = \"5us\"\no = \"1us\"\ng = \"1us\"\n").starts_with("platform.toml: cluster.G is missing")
    );
    assert!(err("name = \"x\"\n").starts_with("platform.toml: the [cluster] section is missing"));

    assert_eq!(
        err("[cluster]\nL = 5\no = \"1us\"\ng = \"1us\"\nG = \"1ns/B\"\n"),
        r#"platform.toml: cluster.L: "5" has no unit; write a time such as 5us"#
    );
    assert_eq!(
        err("[cluster]\nL = \"5\"\no = \"1us\"\ng = \"1us\"\nG = \"1ns/B\"\n"),
        r#"platform.toml: cluster.L: "5" has no unit; write a time such as 5us"#
    );
    assert_eq!(
        err("[cluster]\nL = \"5us\"\no = \"1us\"\ng = \"1us\"\nG = \"0Gbit/s\"\n"),
        "platform.toml: cluster.G: bandwidth \"0Gbit/s\" is zero; write a positive bandwidth such as 10Gbit/s, or \
         0ns/B for no per-byte cost"
    );
    assert!(with_cluster("[node]\nS = \"-1B\"\n").starts_with(r#"platform.toml: node.S: "-1B" is negative"#));
    assert!(with_cluster("[node]\nS = true\n").contains("node.S: expected a string such as \"64KiB\", found a boolean"));

    assert_eq!(
        with_cluster(
            "[shape]\nclusters = \"2x8\"\nranks_per_node = 3\n[wan]\nlatency = \"1ms\"\nbandwidth = \"1MB/s\"\n"
        ),
        "platform.toml: shape.ranks_per_node: 3 does not divide the size 8 of cluster 0; every cluster must hold \
         whole nodes"
    );
    assert!(with_cluster("[shape]\nranks_per_node = 0\n").contains("shape.ranks_per_node: must be at least 1"));
    assert_eq!(
        with_cluster("[shape]\nclusters = \"2x8\"\n"),
        "platform.toml: shape.clusters: 2 clusters need wide-area links; add a [wan] section with latency and \
         bandwidth"
    );
    assert_eq!(
        with_cluster(
            "[shape]\nclusters = \"2x8\"\n[wan]\nshape = \"star\"\nhub = 2\nlatency = \"1ms\"\nbandwidth = \"1MB/s\"\n"
        ),
        "platform.toml: wan.hub: cluster 2 does not exist; the platform has 2 clusters (0..1)"
    );
    assert!(with_cluster("[wan]\nhub = 0\nlatency = \"1ms\"\nbandwidth = \"1MB/s\"\n")
        .contains("wan.hub: a hub is only used with shape = \"star\""));
    assert!(with_cluster("[wan]\nlatency = \"1ms\"\n").starts_with("platform.toml: wan.bandwidth is missing"));
    assert!(with_cluster("[wan]\nbandwidth = \"1MB/s\"\n").starts_with("platform.toml: wan.latency is missing"));
    assert!(with_cluster("[wan]\nshape = \"mesh\"\nlatency = \"1ms\"\nbandwidth = \"1MB/s\"\n")
        .contains("wan.shape: unknown wide-area shape \"mesh\"; write full, star or ring"));

    assert!(err(&format!("cpu_speed = 0\n{MINIMAL}")).contains("cpu_speed: \"0\" is not a positive number"));
    assert!(err(&format!("cpu_speed = \"fast\"\n{MINIMAL}")).contains("cpu_speed: \"fast\" is not a positive number"));
    assert!(err(&format!("cpu_speed = nan\n{MINIMAL}")).contains("is not a positive number"));
    assert!(err(&format!("rendezvous = \"eager\"\n{MINIMAL}"))
        .contains("rendezvous: unknown rendezvous protocol \"eager\"; write handshake or loggopsim"));
    assert_eq!(
        err("base = \"now97\"\n"),
        "platform.toml: base: unknown platform preset \"now97\"; known presets: loggopsim, now1997, das1998, ib100, \
         eth10g"
    );
    assert!(err("cluster = 5\n").contains("cluster: expected a section [cluster], found a integer"));

    assert!(with_cluster("[noise]\ndetour_interval = \"exponential(1ms)\"\n")
        .contains("noise.detour_interval is given without noise.detour_duration"));
    assert!(with_cluster("[noise]\ndetour_interval = \"constant(0ns)\"\ndetour_duration = \"constant(1us)\"\n")
        .contains("noise.detour_interval: \"constant(0ns)\" has mean 0"));
    assert!(with_cluster("[noise]\nlatency_jitter = \"exp(1us)\"\n")
        .starts_with("platform.toml: noise.latency_jitter: unknown distribution \"exp\""));
    assert!(with_cluster("[noise]\njitter = \"none\"\n").contains("unknown key \"jitter\" in [noise]"));
}

// ---------------------------------------------------------------- resolve, files

fn examples_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/platforms")
}

#[test]
fn resolve_presets_and_files() {
    assert_eq!(Platform::resolve("ib100").unwrap(), presets::get("ib100").unwrap());
    assert_eq!(msg(Platform::resolve("nope.toml")), r#"platform file "nope.toml" not found"#);
    assert_eq!(msg(Platform::resolve("dir/nope")), r#"platform file "dir/nope" not found"#);
    assert_eq!(
        msg(Platform::resolve("infiniband")),
        "unknown platform preset \"infiniband\"; known presets: loggopsim, now1997, das1998, ib100, eth10g (or give \
         a .toml file)"
    );

    let dir = examples_dir();
    let now = Platform::resolve(dir.join("now1997.toml").to_str().unwrap()).unwrap();
    assert_eq!(now, presets::get("now1997").unwrap());

    let far = Platform::resolve(dir.join("das1998-far.toml").to_str().unwrap()).unwrap();
    assert_eq!(far.wan.as_ref().unwrap().latency, 30 * MS);
    assert_eq!(far.wan.as_ref().unwrap().per_byte, PerByte(3_333_333_333)); // 1e15 / 3e5

    let two = Platform::resolve(dir.join("two-sites.toml").to_str().unwrap()).unwrap();
    assert_eq!(two.shape.clusters, Some(vec![16, 16, 4]));
    assert_eq!(two.node.as_ref().unwrap().gap, two.cluster.gap);
    assert_eq!(two.node.as_ref().unwrap().gap_per_byte, PerByte(50_000)); // 20 GB/s
    assert!(!two.noise.is_none());

    // Every example reads back from its own to_toml.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let p = Platform::resolve(path.to_str().unwrap()).unwrap();
        assert_eq!(Platform::from_toml(&p.to_toml(), "x").unwrap(), p, "{}", path.display());
    }

    // A file with a mistake names itself.
    let tmp = std::env::temp_dir().join(format!("netsens-platform-test-{}.toml", std::process::id()));
    std::fs::write(&tmp, "[cluster]\nL = \"5\"\n").unwrap();
    let spec = tmp.to_str().unwrap().to_string();
    let e = msg(Platform::resolve(&spec));
    std::fs::remove_file(&tmp).unwrap();
    assert_eq!(e, format!("{spec}: cluster.L: \"5\" has no unit; write a time such as 5us"));
}
