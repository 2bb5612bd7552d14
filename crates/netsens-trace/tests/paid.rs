//! The overhead a traced program paid per message (`paid.rs`), from an archive written
//! event by event, against sums done by hand.
//!
//! Rank 0: `MPI_Isend` of 19 B (request 1) 9–10 µs; an `MPI_Iprobe` that finds the
//! message 10–10.4 and `MPI_Irecv` (request 2) 11–11.5; an `MPI_Test` that finds
//! nothing 12–12.4; an `MPI_Testsome` that completes both, 13–13.6 (0.3 µs each: the
//! send paid 1 + 0.3 = 1.3 µs, the receive of 19 B 0.4 + 0.5 + 0.3 = 1.2); an
//! `MPI_Isend` of 8 KiB (request 3) 14–15 completed by an `MPI_Test` 15–15.2 (1.2 µs);
//! an `MPI_Isend` of 19 B (request 4) 16–16.5 completed by an `MPI_Wait` 17–20 (not
//! counted: a wait's time mixes waiting with work).
//! Rank 1: `MPI_Irecv` (request 1) 0–2 µs; `MPI_Isend` of 19 B (request 2) 2–3; an
//! `MPI_Iprobe` 3–3.3 that finds nothing (the next call does not receive: not
//! counted); an `MPI_Test` completing the receive of 19 B 5–5.5 (2.5 µs) and one
//! completing the send 6–6.2 (1.2 µs); a blocking `MPI_Send` 7–9 (not counted).
//!
//! Up to 4 KiB: 4 ends, 1.3 + 1.2 + 2.5 + 1.2 = 6.2 µs, o = 1.55 µs. Every size: the
//! 8 KiB send too, 5 ends, 7.4 µs, o = 1.48 µs.

use netsens_trace::write::{self, write_archive, Event};
use netsens_trace::{overhead_paid, RankPaid};

const NS: u64 = 1_000;
const REGIONS: [&str; 7] = ["MPI_Isend", "MPI_Irecv", "MPI_Test", "MPI_Testsome", "MPI_Wait", "MPI_Send", "MPI_Iprobe"];
const ISEND: u32 = 0;
const IRECV: u32 = 1;
const TEST: u32 = 2;
const TESTSOME: u32 = 3;
const WAIT: u32 = 4;
const SEND: u32 = 5;
const IPROBE: u32 = 6;

/// Rank `rank`'s call of `region` from `enter` to `leave` ns, with the message events
/// `inside` (kind, request, bytes) at its start.
fn call(rank: u32, region: u32, enter: u64, leave: u64, inside: &[(u8, u64, u64)]) -> Vec<(u32, Event)> {
    let at = |kind, ns: u64| Event { kind, time_ps: ns * NS, region, peer: 1 - rank, ..Event::default() };
    let mut events = vec![(rank, at(write::ENTER, enter))];
    for &(kind, req, bytes) in inside {
        events.push((rank, Event { req, bytes, ..at(kind, enter) }));
    }
    events.push((rank, at(write::LEAVE, leave)));
    events
}

fn program() -> Vec<(u32, Event)> {
    let send = |req, bytes| (write::ISEND, req, bytes);
    let sent = |req| (write::ISEND_DONE, req, 0);
    let posted = |req| (write::IRECV_POST, req, 0);
    let received = |req, bytes| (write::IRECV_DONE, req, bytes);
    [
        call(0, ISEND, 9_000, 10_000, &[send(1, 19)]),
        call(0, IPROBE, 10_000, 10_400, &[]),
        call(0, IRECV, 11_000, 11_500, &[posted(2)]),
        call(0, TEST, 12_000, 12_400, &[]),
        call(0, TESTSOME, 13_000, 13_600, &[sent(1), received(2, 19)]),
        call(0, ISEND, 14_000, 15_000, &[send(3, 8192)]),
        call(0, TEST, 15_000, 15_200, &[sent(3)]),
        call(0, ISEND, 16_000, 16_500, &[send(4, 19)]),
        call(0, WAIT, 17_000, 20_000, &[sent(4)]),
        call(1, IRECV, 0, 2_000, &[posted(1)]),
        call(1, ISEND, 2_000, 3_000, &[send(2, 19)]),
        call(1, IPROBE, 3_000, 3_300, &[]),
        call(1, TEST, 5_000, 5_500, &[received(1, 19)]),
        call(1, TEST, 6_000, 6_200, &[sent(2)]),
        call(1, SEND, 7_000, 9_000, &[(write::SEND, 0, 19)]),
    ]
    .concat()
}

fn anchor(dir: &tempfile::TempDir, events: &[(u32, Event)]) -> String {
    write_archive(&dir.path().join("t"), 2, &REGIONS, events).unwrap()
}

#[test]
fn a_message_pays_the_calls_that_started_found_and_completed_it() {
    let dir = tempfile::tempdir().unwrap();
    let paid = overhead_paid(&anchor(&dir, &program()), 4096).unwrap();
    assert_eq!(paid.ranks, vec![RankPaid { ends: 2, ps: 2_500_000 }, RankPaid { ends: 2, ps: 3_700_000 }]);
    assert_eq!(paid.o_ps, Some(1_550_000));
    assert_eq!(paid.up_to, 4096);
}

#[test]
fn messages_above_the_size_limit_are_left_to_the_per_byte_costs() {
    let dir = tempfile::tempdir().unwrap();
    let paid = overhead_paid(&anchor(&dir, &program()), u64::MAX).unwrap();
    assert_eq!(paid.ranks[0], RankPaid { ends: 3, ps: 3_700_000 });
    assert_eq!(paid.o_ps, Some(1_480_000));
}

#[test]
fn a_program_that_only_waits_paid_nothing_measurable() {
    let dir = tempfile::tempdir().unwrap();
    let events = [
        call(0, ISEND, 0, 1_000, &[(write::ISEND, 1, 19)]),
        call(0, WAIT, 1_000, 5_000, &[(write::ISEND_DONE, 1, 0)]),
        call(1, SEND, 0, 2_000, &[(write::SEND, 0, 19)]),
    ]
    .concat();
    let paid = overhead_paid(&anchor(&dir, &events), 4096).unwrap();
    assert_eq!(paid.o_ps, None);
    assert!(paid.ranks.iter().all(|r| r.ends == 0));
}

#[test]
fn a_missing_archive_is_an_input_error() {
    let err = overhead_paid("/nonexistent/traces.otf2", 4096).unwrap_err();
    assert!(matches!(err, netsens_core::Error::Input(_)), "{err:?}");
}
