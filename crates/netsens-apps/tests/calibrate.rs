//! The calibration recovers every dialled parameter it can observe within 1% (exactly
//! where the model makes the timing exact), and says which it cannot observe and why,
//! on the presets and on synthetic platforms faster than today's hardware.

use netsens_apps::calibrate::{calibrate, Calibration, Estimate, Options};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::platform::Platform;

fn platform(base: &str, overrides: &[(&str, &str)]) -> Platform {
    let mut p = Platform::resolve(base).expect("a preset");
    p.set_all(overrides).expect("valid overrides");
    p
}

fn run(p: &Platform) -> Calibration {
    calibrate(p, &RunOptions::default(), &Options::default()).expect("the calibration runs")
}

/// Every parameter is measured within 1% of its dialled value, except those in
/// `hidden`, which must be reported as not observable with a bound that holds.
/// Timings made of whole picoseconds only (L, o_s, o_r, S, and g when the NIC binds a
/// 1-byte burst) must come out exact.
fn check(p: &Platform, hidden: &[&str]) -> Calibration {
    let c = run(p);
    let what = &p.name;
    for param in &c.params {
        let d = param.dialled;
        match &param.estimate {
            Estimate::Measured(m) => {
                assert!(!hidden.contains(&param.name), "{what}: {} should not be observable, got {m}", param.name);
                assert!((m - d).abs() <= 0.01 * d, "{what}: {} measured {m}, dialled {d}", param.name);
                let exact = matches!(param.name, "L" | "o_s" | "o_r" | "S" | "o_s_stream" | "o_r_stream")
                    || (param.name == "g" && d > c.params[1].dialled);
                if exact {
                    assert_eq!(*m, d, "{what}: {} is exact in the model", param.name);
                }
            }
            Estimate::AtMost { value, why } => {
                assert!(hidden.contains(&param.name), "{what}: {} not observable ({why})", param.name);
                assert!(d <= value * (1.0 + 1e-9), "{what}: {} = {d} is not <= the bound {value}", param.name);
                assert!(!why.is_empty());
            }
            Estimate::AtLeast { value, why } => {
                assert!(hidden.contains(&param.name), "{what}: {} not observable ({why})", param.name);
                assert!(d >= *value, "{what}: {} = {d} is not >= the bound {value}", param.name);
            }
        }
    }
    let line = c.line;
    assert!((line.alpha - line.model_alpha).abs() <= 1e-3 * line.model_alpha, "{what}: alpha {line:?}");
    assert!((line.beta - line.model_beta).abs() <= 1e-3 * line.model_beta.max(1e-9), "{what}: beta {line:?}");
    c
}

#[test]
fn presets_are_recovered() {
    // loggopsim, ib100 and eth10g have g < o: only a burst of large messages shows g.
    // now1997 has g > o. das1998's cluster level is calibrated on two flat ranks.
    // The α–β line assumes G on every byte: now1997's bulk-only G (no G up to 16 B)
    // is calibrated with G_above = 0B.
    for name in ["loggopsim", "now1997", "das1998", "ib100", "eth10g"] {
        check(&platform(name, &[("G_above", "0B")]), &[]);
    }
}

#[test]
fn faster_than_todays_hardware() {
    // 20 ns overhead, 5 ns gap (g < o), 1 TB/s.
    check(&platform("ib100", &[("L", "50ns"), ("o", "20ns"), ("g", "5ns"), ("G", "1ps/B"), ("S", "64KiB")]), &[]);
    // 2 ns overhead, 4 ns gap (g > o), 10 TB/s (0.1 ps/B, below a picosecond per byte),
    // a per-byte copy cost below G, and a 1 MiB eager limit.
    check(
        &platform(
            "ib100",
            &[("L", "10ns"), ("o", "2ns"), ("g", "4ns"), ("G", "10TB/s"), ("O", "20TB/s"), ("S", "1MiB")],
        ),
        &[],
    );
}

#[test]
fn gap_above_and_below_overhead() {
    let above = check(&platform("loggopsim", &[("g", "4us")]), &[]);
    assert_eq!(above.param("g").and_then(|p| p.measured()), Some(4e6));
    // g < o and no per-byte NIC cost: every burst is CPU-bound, g cannot be seen.
    let below = check(&platform("loggopsim", &[("g", "500ns"), ("G", "0ns/B")]), &["g"]);
    let g = below.param("g").expect("g");
    assert!(matches!(&g.estimate, Estimate::AtMost { value, .. } if *value == 1.5e6), "{g:?}");
    assert_eq!(below.param("G").and_then(|p| p.measured()), Some(0.0));
}

#[test]
fn copy_bound_hides_the_nic_per_byte_gap() {
    // O > G: the receiver's CPU pays max(k·O, k·G) = k·O, so G is only bounded by O;
    // and g < o with G < O leaves g hidden too.
    let c = check(&platform("loggopsim", &[("G", "1ps/B"), ("O", "4ps/B")]), &["G", "g", "G_long"]);
    assert!(matches!(&c.param("G").expect("G").estimate, Estimate::AtMost { value, .. } if *value == 4.0));
    assert!(matches!(&c.param("G_long").expect("G_long").estimate, Estimate::AtMost { value, .. } if *value == 4.0));
}

#[test]
fn eager_limit_above_the_probe_is_a_lower_bound() {
    let p = platform("loggopsim", &[("S", "4MiB")]);
    let c = calibrate(&p, &RunOptions::default(), &Options { max_size: 1 << 20, ..Options::default() }).expect("runs");
    let s = c.param("S").expect("S");
    assert!(matches!(&s.estimate, Estimate::AtLeast { value, .. } if *value == (1 << 20) as f64), "{s:?}");
    assert_eq!(c.param("G").and_then(|p| p.measured()), Some(6000.0));
}

#[test]
fn both_rendezvous_protocols_give_the_same_eager_limit() {
    for protocol in ["handshake", "loggopsim"] {
        let c = run(&platform("ib100", &[("rendezvous", protocol), ("S", "3000B")]));
        assert_eq!(c.param("S").and_then(|p| p.measured()), Some(3000.0), "{protocol}");
    }
}

#[test]
fn without_eager_messages_it_is_an_input_error() {
    match calibrate(&platform("loggopsim", &[("S", "1B")]), &RunOptions::default(), &Options::default()) {
        Err(Error::Input(m)) => assert!(m.contains("rendezvous"), "{m}"),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn a_receive_burst_is_bound_by_the_cpu_or_the_nic() {
    // Received back to back, messages that waited for the CPU end every max(o, g):
    // o = 1.5 us against g = 1 us (the CPU binds), then g = 4 us (the NIC binds, where
    // the streaming o_r keeps the single receive's o_r instead).
    use netsens_apps::calibrate::measure;
    for (g, interval) in [("1us", 1_500_000.0), ("4us", 4_000_000.0)] {
        let p = platform("loggopsim", &[("g", g)]);
        let m = measure(&p, &RunOptions::default(), &Options::default()).expect("runs");
        assert_eq!(m.receive_burst, interval, "g = {g}");
        let c = run(&p);
        assert_eq!(c.param("o_r_stream").and_then(|x| x.measured()), Some(1_500_000.0), "g = {g}");
    }
}

#[test]
fn long_messages_show_a_per_byte_gap_the_short_ones_do_not() {
    // G only on messages above 128 KiB (G_above), as a real machine whose short
    // messages' slope is not the long ones': the eager sizes (up to S = 65535 B) show
    // no per-byte cost, the long ping-pong (4, 10 and 16 MiB, all rendezvous) G.
    let c = run(&platform("loggopsim", &[("G_above", "128KiB")]));
    assert_eq!(c.param("G").and_then(|p| p.measured()), Some(0.0));
    let long = c.param("G_long").and_then(|p| p.measured()).expect("G_long measured");
    assert!((long - 6000.0).abs() <= 1e-3, "G_long {long} ps/B, dialled 6000");
}

#[test]
fn long_sizes_stay_on_one_side_of_the_eager_limit() {
    use netsens_apps::calibrate::long_sizes;
    assert_eq!(long_sizes(None, 1 << 20), vec![1 << 18, 5 << 17, 1 << 20]);
    assert_eq!(long_sizes(Some(256), 1 << 20), vec![1 << 18, 5 << 17, 1 << 20]);
    // S between a quarter and the largest size: only sizes above S.
    assert_eq!(long_sizes(Some(600_000), 1_000_000), vec![600_001, 800_000, 1_000_000]);
    assert_eq!(long_sizes(Some(999_999), 1_000_000), vec![1_000_000]);
}
