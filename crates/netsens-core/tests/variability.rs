//! Background traffic and soft faults (`[[noise.background]]`, `[[noise.faults]]`):
//! one message timed by hand under each, the TOML form read back, and bad input.

mod common;

use common::{end_ns, loggopsim_defaults, one_message, run};
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::schedule::executor::run_schedule;

/// LogGOPSim's defaults (L 2500, o 1500, g 1000 ns, G 6 ns/B) plus `noise` TOML.
fn with_noise(noise: &str) -> Platform {
    let text = format!("base = \"loggopsim\"\nrendezvous = \"handshake\"\n{noise}");
    Platform::from_toml(&text, "test.toml").unwrap()
}

#[test]
fn a_flow_message_holds_both_nics_first() {
    // One 1001-byte flow message from rank 0 to 1 at 0 (the next a second later):
    // rank 0's NIC is busy until g + 1000·G = 7 us, so the 1-byte send starts at 7 us
    // and arrives at 7 + 1.5 + 2.5 = 11 us; rank 1's NIC took the flow message at
    // o + L = 4 us and is free at 4 + 7 = 11 us: the receive is done at 12.5 us.
    let p = with_noise("[[noise.background]]\nbetween = [0, 1]\nsize = \"1001B\"\ninterval = \"constant(1s)\"\n");
    assert_eq!(end_ns(&run(&one_message(1), &p), 1), 12_500);
    assert_eq!(end_ns(&run(&one_message(1), &loggopsim_defaults(Rendezvous::Handshake)), 1), 5_500);
}

#[test]
fn a_fault_degrades_inside_its_window_only() {
    let fault = |param: &str, from: &str, to: &str| {
        with_noise(&format!(
            "[[noise.faults]]\nlink = [1, 0]\nparam = \"{param}\"\nfactor = 3\nfrom = \"{from}\"\nto = \"{to}\"\n"
        ))
    };
    // L × 3: 1.5 + 7.5 + 1.5 us.
    assert_eq!(end_ns(&run(&one_message(1), &fault("L", "0us", "1ms")), 1), 10_500);
    // o × 3 at both ends: 4.5 + 2.5 + 4.5 us.
    assert_eq!(end_ns(&run(&one_message(1), &fault("o", "0us", "1ms")), 1), 11_500);
    // G × 3 on 1001 bytes: 4 us to arrive, then o + 1000 · 18 ns.
    assert_eq!(end_ns(&run(&one_message(1001), &fault("G", "0us", "1ms")), 1), 4_000 + 1_500 + 18_000);
    // A window that opens later changes nothing.
    assert_eq!(end_ns(&run(&one_message(1), &fault("L", "1ms", "2ms")), 1), 5_500);
}

#[test]
fn flows_and_faults_read_back_from_the_platform_toml() {
    let p = with_noise(
        "[noise]\nlatency_jitter = \"exponential(100ns)\"\n\
         [[noise.background]]\nbetween = [0, 3]\nsize = \"64KiB\"\ninterval = \"exponential(1ms)\"\nstart = \"5us\"\n\
         [[noise.faults]]\nnode = 2\nparam = \"o\"\nfactor = 2.5\nfrom = \"1ms\"\nto = \"3ms\"\n",
    );
    assert_eq!(p.noise.background.len(), 1);
    assert_eq!(p.noise.faults.len(), 1);
    assert_eq!(Platform::from_toml(&p.to_toml(), "again").unwrap().noise, p.noise);
    // Seeded: the same seed gives the same run, another seed another.
    let s = netsens_core::schedule::patterns::dissemination(4, 1).unwrap();
    let opts = |seed| RunOptions { seed, ..Default::default() };
    let a = run_schedule(&s, &p, &opts(1)).unwrap().makespan_ps;
    assert_eq!(a, run_schedule(&s, &p, &opts(1)).unwrap().makespan_ps);
}

fn bad(text: &str) -> String {
    let msg = Platform::from_toml(&format!("base = \"loggopsim\"\n{text}"), "p.toml").unwrap_err().to_string();
    assert!(!msg.contains('\n'), "{msg}");
    msg
}

#[test]
fn bad_flows_and_faults_are_one_line_errors() {
    let flow = "[[noise.background]]\nbetween = [0, 1]\ninterval = \"constant(1us)\"\n";
    assert!(bad(flow).contains("noise.background.size: missing"), "{}", bad(flow));
    assert!(bad(&format!("{flow}size = \"1KiB\"\ncolour = 1\n")).contains("noise.background.colour: unknown key"));
    assert!(bad("[[noise.background]]\nlink = [0, 1]\nsize = \"1KiB\"\ninterval = \"constant(1us)\"\n")
        .contains("not a wide-area link"));
    let fault = "[[noise.faults]]\nnode = 1\nfactor = 2\nfrom = \"1ms\"\n";
    assert!(bad(&format!("{fault}param = \"g\"\nto = \"2ms\"\n")).contains("\"g\" is not L, G or o"));
    assert!(bad(&format!("{fault}param = \"L\"\nto = \"1ms\"\n")).contains("is empty"));
    assert!(bad(&format!("{fault}param = \"L\"\nto = \"2\"\n")).contains("noise.faults.to"));
    let far = with_noise("[[noise.faults]]\nnode = 9\nparam = \"L\"\nfactor = 2\nfrom = \"0us\"\nto = \"1ms\"\n");
    let err = run_schedule(&one_message(1), &far, &RunOptions::default()).unwrap_err().to_string();
    assert!(err.contains("noise.faults.node: rank 9 does not exist in a run of 2 ranks"), "{err}");
    // 64 KiB take g + 65535·G = 394.21 us of a NIC: one every 100 us would never drain.
    let flood =
        with_noise("[[noise.background]]\nbetween = [0, 1]\nsize = \"64KiB\"\ninterval = \"constant(100us)\"\n");
    let err = run_schedule(&one_message(1), &flood, &RunOptions::default()).unwrap_err().to_string();
    assert!(err.contains("faster than a NIC takes 64KiB messages (394.21us each)"), "{err}");
}
