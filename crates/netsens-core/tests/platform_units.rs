//! Units, noise distributions and platform descriptions. Expected values are derived
//! by hand in the comments next to them.

use netsens_core::platform::{presets, Dist, LevelParams, Noise, Platform, Rendezvous, Shape, Wan, WanShape};
use netsens_core::time::{PerByte, MS, NS, S, US};
use netsens_core::units::{format_per_byte, format_size, format_time, parse_per_byte, parse_size, parse_time};
use netsens_core::Error;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

fn msg<T: std::fmt::Debug>(r: netsens_core::Result<T>) -> String {
    let e = r.expect_err("expected an error");
    let text = e.to_string();
    assert!(!text.contains('\n'), "error is not one line: {text:?}");
    text
}

// ---------------------------------------------------------------- time

#[test]
fn time_units() {
    assert_eq!(parse_time("L", "5us").unwrap(), 5_000_000);
    assert_eq!(parse_time("L", "2.5µs").unwrap(), 2_500_000); // U+00B5 micro sign
    assert_eq!(parse_time("L", "2.5μs").unwrap(), 2_500_000); // U+03BC greek mu
    assert_eq!(parse_time("L", "3ms").unwrap(), 3_000_000_000);
    assert_eq!(parse_time("L", "40ps").unwrap(), 40);
    assert_eq!(parse_time("L", "1.5ns").unwrap(), 1_500);
    assert_eq!(parse_time("L", "2s").unwrap(), 2_000_000_000_000);
    assert_eq!(parse_time("L", "0ns").unwrap(), 0);
    assert_eq!(parse_time("L", "5 us").unwrap(), 5_000_000);
    assert_eq!(parse_time("L", " 7ns ").unwrap(), 7_000);
    assert_eq!(parse_time("L", "0.000001s").unwrap(), 1_000_000); // 1e-6 s = 1 us
    assert_eq!(parse_time("L", "1.375ms").unwrap(), 1_375_000_000);
    assert_eq!(parse_time("L", ".5ns").unwrap(), 500);
    assert_eq!(parse_time("L", "2.500us").unwrap(), 2_500_000);
}

#[test]
fn time_errors() {
    assert_eq!(msg(parse_time("L", "5")), r#"L: "5" has no unit; write a time such as 5us"#);
    assert_eq!(
        msg(parse_time("L", "5 parsecs")),
        r#"L: unknown unit "parsecs" in "5 parsecs"; write a time such as 5us"#
    );
    assert_eq!(msg(parse_time("L", "5uss")), r#"L: unknown unit "uss" in "5uss"; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "5US")), r#"L: unknown unit "US" in "5US"; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "-5us")), r#"L: "-5us" is negative; write a time such as 5us"#);
    assert_eq!(msg(parse_time("L", "0.5ps")), r#"L: "0.5ps" is not a whole number of picoseconds"#);
    assert_eq!(msg(parse_time("L", "1.0005ns")), r#"L: "1.0005ns" is not a whole number of picoseconds"#);
    assert_eq!(msg(parse_time("L", "")), "L: empty value; write a time such as 5us");
    assert_eq!(msg(parse_time("L", "us")), r#"L: "us" is not a number followed by a unit; write a time such as 5us"#);
    assert!(msg(parse_time("L", "1.2.3us")).starts_with(r#"L: "1.2.3us" is not a number"#));
    assert_eq!(msg(parse_time("L", "99999999999s")), r#"L: "99999999999s" is too large"#);
    assert!(msg(parse_time("L", "6ns/B")).contains(r#"unknown unit "ns/B""#));
}

// ---------------------------------------------------------------- per byte

#[test]
fn per_byte_units() {
    let fs = |t: &str| parse_per_byte("G", t).unwrap().fs_per_byte();
    assert_eq!(fs("6ns/B"), 6_000_000);
    assert_eq!(fs("0ns/B"), 0);
    assert_eq!(fs("40ps/B"), 40_000);
    assert_eq!(fs("1us/B"), 1_000_000_000);
    assert_eq!(fs("333.333ps/B"), 333_333);
    assert_eq!(fs("0.1ns/B"), 100_000);
    // 10 Gbit/s = 1.25e9 B/s; 1e15 fs / 1.25e9 = 800_000 fs/B = 800 ps/B.
    assert_eq!(fs("10Gbit/s"), 800_000);
    // 1 MB/s = 1e6 B/s: 1 us/B = 1e9 fs/B.
    assert_eq!(fs("1MB/s"), 1_000_000_000);
    // 12.5 GB/s = 1.25e10 B/s: 80 ps/B.
    assert_eq!(fs("12.5GB/s"), 80_000);
    // 100 Gbit/s = 1.25e10 B/s: 80 ps/B.
    assert_eq!(fs("100Gbit/s"), 80_000);
    // 38 MB/s: 1e15 / 3.8e7 = 26_315_789.47... → 26_315_789.
    assert_eq!(fs("38MB/s"), 26_315_789);
    // 3 GB/s: 1e15 / 3e9 = 333_333.33... → 333_333.
    assert_eq!(fs("3GB/s"), 333_333);
    // 1.5 TB/s: 1e15 / 1.5e12 = 666.66... → 667 (rounded to nearest).
    assert_eq!(fs("1.5TB/s"), 667);
    // 100 MiB/s = 104_857_600 B/s: 1e15 / 104_857_600 = 9_536_743.16... → 9_536_743.
    assert_eq!(fs("100MiB/s"), 9_536_743);
    // 1 KiB/s = 1024 B/s: 1e15 / 1024 = 976_562_500_000 exactly.
    assert_eq!(fs("1KiB/s"), 976_562_500_000);
    // 8 bit/s = 1 B/s: 1e15 fs/B.
    assert_eq!(fs("8bit/s"), 1_000_000_000_000_000);
    // 1 Mbit/s = 125_000 B/s: 8 us/B.
    assert_eq!(fs("1Mbit/s"), 8_000_000_000);
    // 0.55 MB/s = 550_000 B/s: 1e15 / 550_000 = 1_818_181_818.18... → 1_818_181_818.
    assert_eq!(fs("0.55MB/s"), 1_818_181_818);
    assert_eq!(fs("1 GB/s"), 1_000_000);
    assert_eq!(fs("1kB/s"), 1_000_000_000_000);
}

#[test]
fn per_byte_errors() {
    let example = "write a per-byte cost such as 6ns/B or a bandwidth such as 10Gbit/s";
    assert_eq!(msg(parse_per_byte("G", "5")), format!(r#"G: "5" has no unit; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5x")), format!(r#"G: unknown unit "x" in "5x"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5Gb/s")), format!(r#"G: unknown unit "Gb/s" in "5Gb/s"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "5xs/B")), format!(r#"G: unknown unit "xs/B" in "5xs/B"; {example}"#));
    assert_eq!(msg(parse_per_byte("G", "-1MB/s")), format!(r#"G: "-1MB/s" is negative; {example}"#));
    assert_eq!(
        msg(parse_per_byte("G", "0MB/s")),
        r#"G: bandwidth "0MB/s" is zero; write a positive bandwidth such as 10Gbit/s, or 0ns/B for no per-byte cost"#
    );
    assert!(msg(parse_per_byte("G", "0.0Gbit/s")).contains("is zero"));
    assert_eq!(
        msg(parse_per_byte("G", "0.0001ps/B")),
        r#"G: "0.0001ps/B" is not a whole number of femtoseconds per byte"#
    );
    assert_eq!(
        msg(parse_per_byte("G", "6ns")),
        r#"G: "6ns" is a time, not a per-byte cost; write 6ns/B, or a bandwidth such as 10Gbit/s"#
    );
    // 1e16 B/s would be 0.1 fs/B: not expressible, and not silently free.
    assert!(msg(parse_per_byte("G", "10000TB/s")).contains("too high"));
}

// ---------------------------------------------------------------- sizes

#[test]
fn size_units() {
    assert_eq!(parse_size("S", "64KiB").unwrap(), 65_536);
    assert_eq!(parse_size("S", "65535B").unwrap(), 65_535);
    assert_eq!(parse_size("S", "100b").unwrap(), 100);
    assert_eq!(parse_size("S", "1MB").unwrap(), 1_000_000);
    assert_eq!(parse_size("S", "1MiB").unwrap(), 1_048_576);
    assert_eq!(parse_size("S", "2GiB").unwrap(), 2_147_483_648);
    assert_eq!(parse_size("S", "3GB").unwrap(), 3_000_000_000);
    assert_eq!(parse_size("S", "1.5KiB").unwrap(), 1_536);
    assert_eq!(parse_size("S", "0B").unwrap(), 0);
    assert_eq!(parse_size("S", "16 KB").unwrap(), 16_000);
}

#[test]
fn size_errors() {
    assert_eq!(msg(parse_size("S", "5")), r#"S: "5" has no unit; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "5kg")), r#"S: unknown unit "kg" in "5kg"; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "-5B")), r#"S: "-5B" is negative; write a size such as 64KiB"#);
    assert_eq!(msg(parse_size("S", "1.5B")), r#"S: "1.5B" is not a whole number of bytes"#);
    assert_eq!(msg(parse_size("S", "0.0001KB")), r#"S: "0.0001KB" is not a whole number of bytes"#);
}

// ---------------------------------------------------------------- formatting

#[test]
fn formatting() {
    assert_eq!(format_time(1_500_000), "1.5us");
    assert_eq!(format_time(0), "0ns");
    assert_eq!(format_time(40), "40ps");
    assert_eq!(format_time(1_000), "1ns");
    assert_eq!(format_time(1_500), "1.5ns");
    assert_eq!(format_time(5 * US), "5us");
    assert_eq!(format_time(3 * MS), "3ms");
    // Shortest wins: "1375us" (6 chars) over "1.375ms" (7).
    assert_eq!(format_time(1_375 * US), "1375us");
    assert_eq!(format_time(1_500 * US), "1.5ms");
    assert_eq!(format_time(2 * S), "2s");
    // Never a leading "0." when a smaller unit is exact: 0.5 s is 500ms.
    assert_eq!(format_time(S / 2), "500ms");
    // 12_345 ps: "12345ps" (7 chars) beats "12.345ns" (8).
    assert_eq!(format_time(12_345), "12345ps");

    assert_eq!(format_per_byte(PerByte(6_000_000)), "6ns/B");
    assert_eq!(format_per_byte(PerByte(80_000)), "80ps/B");
    assert_eq!(format_per_byte(PerByte(333_333)), "333.333ps/B");
    assert_eq!(format_per_byte(PerByte(0)), "0ns/B");
    assert_eq!(format_per_byte(PerByte(1)), "0.001ps/B");
    assert_eq!(format_per_byte(PerByte(1_000_000_000)), "1us/B");
    assert_eq!(format_per_byte(PerByte(26_315_789)), "26.315789ns/B");

    assert_eq!(format_size(65_536), "64KiB");
    assert_eq!(format_size(65_535), "65535B");
    assert_eq!(format_size(0), "0B");
    assert_eq!(format_size(1_000), "1KB");
    assert_eq!(format_size(1 << 20), "1MiB");
    assert_eq!(format_size(16 * 1024), "16KiB");
}

proptest! {
    #[test]
    fn time_round_trip(ps in any::<u64>()) {
        prop_assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps);
    }

    #[test]
    fn per_byte_round_trip(fs in any::<u64>()) {
        prop_assert_eq!(parse_per_byte("G", &format_per_byte(PerByte(fs))).unwrap(), PerByte(fs));
    }

    #[test]
    fn size_round_trip(bytes in any::<u64>()) {
        prop_assert_eq!(parse_size("S", &format_size(bytes)).unwrap(), bytes);
    }

    #[test]
    fn small_time_round_trip(ps in 0u64..10_000_000_000) {
        prop_assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps);
    }
}

#[test]
fn round_trip_edges() {
    for ps in [0, 1, 999, 1_000, 1_001, 999_999, US, MS, S, S + 1, u64::MAX, u64::MAX - 1] {
        assert_eq!(parse_time("L", &format_time(ps)).unwrap(), ps, "{ps}");
    }
    for fs in [0, 1, 999, 1_000, 1_001, u64::MAX] {
        assert_eq!(parse_per_byte("G", &format_per_byte(PerByte(fs))).unwrap(), PerByte(fs));
    }
    for b in [0, 1, 1023, 1024, 1025, 1 << 40, u64::MAX] {
        assert_eq!(parse_size("S", &format_size(b)).unwrap(), b);
    }
}

// ---------------------------------------------------------------- noise

#[test]
fn dist_parse_and_display() {
    let cases = [
        ("none", Dist::None),
        ("constant(2us)", Dist::Constant(2 * US)),
        ("uniform(0ns, 5us)", Dist::Uniform(0, 5 * US)),
        ("exponential(2us)", Dist::Exponential(2 * US)),
        ("normal(5us, 1us)", Dist::Normal(5 * US, US)),
        ("lognormal(5us, 1us)", Dist::LogNormal(5 * US, US)),
        ("exponential(1.5ms)", Dist::Exponential(1_500 * US)),
    ];
    for (text, dist) in cases {
        assert_eq!(Dist::parse("noise.x", text).unwrap(), dist, "{text}");
        assert_eq!(dist.to_string(), text);
        assert_eq!(Dist::parse("noise.x", &dist.to_string()).unwrap(), dist);
    }
    assert_eq!(Dist::parse("n", " uniform( 1us ,2us ) ").unwrap(), Dist::Uniform(US, 2 * US));
    assert!(Dist::None.is_none());
    assert!(!Dist::Constant(0).is_none());
}

#[test]
fn dist_errors() {
    let e = msg(Dist::parse("noise.latency_jitter", "gamma(1us)"));
    assert!(e.starts_with(r#"noise.latency_jitter: unknown distribution "gamma" in "gamma(1us)"; write none,"#), "{e}");
    assert_eq!(
        msg(Dist::parse("noise.latency_jitter", "exponential(5)")),
        r#"noise.latency_jitter: "5" has no unit; write a time such as 5us"#
    );
    assert!(msg(Dist::parse("n", "exponential(1us, 2us)")).contains("exponential takes 1 time, got 2"));
    assert!(msg(Dist::parse("n", "normal(1us)")).contains("normal takes 2 times, got 1"));
    assert!(msg(Dist::parse("n", "uniform()")).contains("uniform takes 2 times, got 0"));
    assert!(msg(Dist::parse("n", "uniform(5us, 1us)")).contains("lower bound above its upper bound"));
    assert!(msg(Dist::parse("n", "constant(1us")).contains("closing parenthesis"));
    assert!(msg(Dist::parse("n", "5us")).contains("is not a distribution"));
    assert!(msg(Dist::parse("n", "constant(-1us)")).contains("negative"));
    assert!(msg(Dist::parse("n", "lognormal(0ns, 1us)")).contains("positive mean"));
}

fn draws(d: &Dist, seed: u64, n: usize) -> Vec<u64> {
    let mut rng = ChaCha12Rng::seed_from_u64(seed);
    (0..n).map(|_| d.sample(&mut rng)).collect()
}

#[test]
fn dist_sampling_is_deterministic() {
    for d in
        [Dist::Uniform(0, 5 * US), Dist::Exponential(2 * US), Dist::Normal(5 * US, US), Dist::LogNormal(5 * US, US)]
    {
        assert_eq!(draws(&d, 42, 1000), draws(&d, 42, 1000), "{d}");
        assert_ne!(draws(&d, 42, 1000), draws(&d, 43, 1000), "{d}");
    }
    assert_eq!(draws(&Dist::None, 1, 10), vec![0; 10]);
    assert_eq!(draws(&Dist::Constant(7 * NS), 1, 10), vec![7_000; 10]);
}

fn mean(d: &Dist, n: usize) -> f64 {
    draws(d, 7, n).iter().map(|&x| x as f64).sum::<f64>() / n as f64
}

#[test]
fn dist_means() {
    // Exponential with mean 2 us: the sample mean of 100k draws has a relative standard
    // error of 1/sqrt(1e5) = 0.3%, so 2% is more than six standard errors.
    let m = mean(&Dist::Exponential(2 * US), 100_000);
    assert!((m / 2e6 - 1.0).abs() < 0.02, "mean {m}");
    // Lognormal with mean 5 us and sd 1 us: relative standard error 0.2 / sqrt(1e5).
    let m = mean(&Dist::LogNormal(5 * US, US), 100_000);
    assert!((m / 5e6 - 1.0).abs() < 0.02, "mean {m}");
    // Uniform on [0, 5 us]: mean 2.5 us, relative sd 0.577 / sqrt(1e5).
    let m = mean(&Dist::Uniform(0, 5 * US), 100_000);
    assert!((m / 2.5e6 - 1.0).abs() < 0.02, "mean {m}");
    // Normal(5us, 1us) hardly clamps (5 sd above 0): mean 5 us.
    let m = mean(&Dist::Normal(5 * US, US), 100_000);
    assert!((m / 5e6 - 1.0).abs() < 0.02, "mean {m}");
}

#[test]
fn dist_bounds_and_clamping() {
    assert!(draws(&Dist::Uniform(US, 2 * US), 3, 10_000).iter().all(|&x| (US..=2 * US).contains(&x)));
    // Normal(0, 1us): every negative draw clamps to 0, about half of them.
    let d = draws(&Dist::Normal(0, US), 3, 10_000);
    let zeros = d.iter().filter(|&&x| x == 0).count();
    assert!((4_500..5_500).contains(&zeros), "{zeros} zeros");
}

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
        }
    );
    assert_eq!(p.rendezvous, Rendezvous::Loggopsim);
    assert_eq!(p.shape, Shape { clusters: None, ranks_per_node: 1 });
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

    let p = presets::get("ib100").unwrap();
    assert_eq!((p.cluster.latency, p.cluster.overhead, p.cluster.gap), (600_000, 200_000, 50_000));
    assert_eq!(p.cluster.gap_per_byte, PerByte(80_000)); // 100 Gbit/s
    assert_eq!(p.cluster.eager_limit, 16_384);

    let p = presets::get("eth10g").unwrap();
    assert_eq!((p.cluster.latency, p.cluster.overhead, p.cluster.gap), (10 * US, 5 * US, 2 * US));
    assert_eq!(p.cluster.gap_per_byte, PerByte(800_000)); // 10 Gbit/s
    assert_eq!(p.cluster.overhead_per_byte, PerByte(100_000)); // 0.1 ns/B
}

// ---------------------------------------------------------------- TOML

const MINIMAL: &str = r#"
[cluster]
L = "5us"
o = "2.9us"
g = "5.8us"
G = "38MB/s"
"#;

#[test]
fn minimal_toml_defaults() {
    let p = Platform::from_toml(MINIMAL, "platform.toml").unwrap();
    assert_eq!(p.name, "platform.toml");
    assert_eq!(p.cluster.overhead_per_byte, PerByte(0));
    assert_eq!(p.cluster.eager_limit, 65_536);
    assert_eq!(p.rendezvous, Rendezvous::Handshake);
    assert_eq!(p.cpu_speed, 1.0);
    assert_eq!(p.shape, Shape { clusters: None, ranks_per_node: 1 });
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
    assert_eq!(p.shape, Shape { clusters: Some(vec![8, 8, 16]), ranks_per_node: 4 });
    assert_eq!(p.wan, Some(Wan { shape: WanShape::Star, latency: 3 * MS, per_byte: PerByte(1_000_000_000), hub: 2 }));
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
        "platform.toml: unknown key \"nmae\"; accepted keys: name, base, rendezvous, cpu_speed, cluster, node, \
         shape, wan, noise, disks"
    );
    assert_eq!(
        with_cluster("l = \"1us\"\n"),
        "platform.toml: unknown key \"l\" in [cluster]; accepted keys: L, o, g, G, O, S, G_above"
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
    assert_eq!(p.shape, Shape { clusters: Some(vec![8]), ranks_per_node: 4 });
    p.set("clusters", "all").unwrap();
    assert_eq!(p.shape.clusters, None);
}

#[test]
fn set_all_adds_wide_area_links() {
    let mut p = presets::get("ib100").unwrap();
    // Order does not matter: the shape comes before the links it needs.
    p.set_all(&[("clusters", "4x8"), ("ranks_per_node", "2"), ("wan_bandwidth", "1MB/s"), ("wan_latency", "3ms")])
        .unwrap();
    assert_eq!(p.shape, Shape { clusters: Some(vec![8; 4]), ranks_per_node: 2 });
    assert_eq!(p.wan, Some(Wan { shape: WanShape::Full, latency: 3 * MS, per_byte: PerByte(1_000_000_000), hub: 0 }));
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
    assert_eq!(q.wan, Some(Wan { shape: WanShape::Star, latency: MS, per_byte: PerByte(1_000_000), hub: 2 }));
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
