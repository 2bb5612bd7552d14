//! The rendezvous handshake's control o (`o_control`): the request-to-send and the
//! clear-to-send pay it at both ends, the data message pays o. Every expected end is
//! derived by hand from LOGGP.md's rules in the comment beside it (LogGOPSim's
//! defaults: L = 2500, g = 1000 ns, G = 6 ns/B, O = 0, S = 65535 B; the receive is
//! posted at 0).

mod common;
use common::*;
use netsens_core::analysis::check_platform;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::time::NS;

fn platform(o: u64, control: Option<u64>, rendezvous: Rendezvous) -> Platform {
    let mut p = loggopsim_defaults(rendezvous);
    p.cluster.overhead = o * NS;
    p.cluster.control_overhead = control.map(|c| c * NS);
    p
}

#[test]
fn control_messages_pay_the_control_o_and_the_data_pays_o() {
    // o = 51500 (the machine's 1500 + 50 us injected), o_control = 1500, s = 100000:
    // RTS: sender cpu 0 + 1500 = 1500, arrives 1500 + 2500 = 4000; receiver processes it
    // at 4000 → 5500. CTS at 5500: receiver cpu 7000, arrives 5500 + 1500 + 2500 = 9500;
    // sender processes it → 11000. Data at 11000: sender cpu 11000 + 51500 = 62500 (the
    // send is done), arrives 62500 + 2500 = 65000; receiver 65000 + 51500 + 99999·6
    // = 716494 (the receive is done).
    let r = run(&one_message(100_000), &platform(51_500, Some(1500), Rendezvous::Handshake));
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (62_500, 716_494));
    // Without o_control every message of the handshake pays 51500: RTS → 51500, arrives
    // 54000 → 105500; CTS → 157000, arrives 105500 + 54000 = 159500 → 211000; data →
    // 262500 (send done), arrives 265000 → 265000 + 51500 + 599994 = 916494.
    let r = run(&one_message(100_000), &platform(51_500, None, Rendezvous::Handshake));
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (262_500, 916_494));
}

#[test]
fn a_control_o_above_o_delays_the_handshake_only() {
    // o = 1500, o_control = 51500: RTS → 51500, arrives 54000 → 105500; CTS → 157000,
    // arrives 159500 → 211000; data → 212500 (send done), arrives 215000 →
    // 215000 + 1500 + 599994 = 816494.
    let r = run(&one_message(100_000), &platform(1500, Some(51_500), Rendezvous::Handshake));
    assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (212_500, 816_494));
}

#[test]
fn control_o_equal_to_o_is_vector_5() {
    // LOGGP.md vector 5: send done 12500, receive done 616494, with o_control unset or
    // set to o.
    for control in [None, Some(1500)] {
        let r = run(&one_message(100_000), &platform(1500, control, Rendezvous::Handshake));
        assert_eq!((end_ns(&r, 0), end_ns(&r, 1)), (12_500, 616_494), "o_control {control:?}");
    }
}

#[test]
fn messages_without_control_messages_ignore_it() {
    // Eager (vector 1): 0 → 1500, arrives 4000, receive done 5500 whatever o_control.
    let r = run(&one_message(1), &platform(1500, Some(51_500), Rendezvous::Handshake));
    assert_eq!(end_ns(&r, 1), 5500);
    // LogGOPSim's rendezvous (vector 6) has no control messages: receive done at
    // 4000 + 1500 + 599994 = 605494.
    let r = run(&one_message(100_000), &platform(1500, Some(51_500), Rendezvous::Loggopsim));
    assert_eq!(end_ns(&r, 1), 605_494);
}

#[test]
fn sensitivity_refuses_a_control_o_apart_from_o() {
    let err = check_platform(&platform(1500, Some(51_500), Rendezvous::Handshake)).unwrap_err().to_string();
    assert!(err.contains("o_control") && !err.contains('\n'), "{err}");
    assert!(check_platform(&platform(1500, Some(1500), Rendezvous::Handshake)).is_ok());
}
