//! The GOAL examples shipped in `examples/goal`, parsed and run: they must give
//! LOGGP.md's hand-derived times (LogGOPSim's own figures where it quotes them).

mod common;
use common::*;
use netsens_core::platform::{presets, Platform, Rendezvous};
use netsens_core::schedule::goal::parse_goal;

fn run_example(name: &str, p: &Platform) -> netsens_core::profile::RunResult {
    let path = format!("{}/../../examples/goal/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    run(&parse_goal(&text, name).unwrap(), p)
}

fn loggopsim_reference() -> Platform {
    // LogGOPSim's reference run: L=5000 o=1000 g=2000 G=1 O=0 S=65536 (ns).
    flat(level(5000, 1000, 2000, 1, 0, 65536), Rendezvous::Loggopsim)
}

#[test]
fn pingpong_goal_matches_loggopsim() {
    let r = run_example("pingpong.goal", &loggopsim_reference());
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (14000, 8000));
}

#[test]
fn calc_before_recv_goal_matches_loggopsim() {
    let r = run_example("calc_recv.goal", &loggopsim_reference());
    assert_eq!(end_ns(&r, 1), 11000);
}

#[test]
fn dissemination16_goal_ends_at_22us() {
    let r = run_example("dissemination16.goal", &presets::get("loggopsim").unwrap());
    assert!((0..16).all(|i| end_ns(&r, i) == 22000));
    assert_eq!(r.messages, 64);
}

#[test]
fn rendezvous_goal_under_both_protocols() {
    let mut p = presets::get("loggopsim").unwrap();
    let r = run_example("rendezvous.goal", &p);
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (4000, 605494));
    p.rendezvous = Rendezvous::Handshake;
    let r = run_example("rendezvous.goal", &p);
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (12500, 616494));
}
