//! The tracer's own cost in the gaps between calls (`tracer_cost.rs`), from archives
//! written event by event, against end times derived by hand from LOGGP.md's rules.
//!
//! The program: rank 1 computes 10 µs, sends rank 0 one byte (its call 10–11 µs),
//! computes 1 µs and receives the answer (12–27 µs); rank 0 receives (0–17 µs),
//! computes 3 µs and answers (20–21 µs). On L = 5 µs, o = 1 µs, g = 0, charged whole:
//! the message leaves rank 1 at 10 µs (o to 11), arrives at 16, is received at 17;
//! the answer leaves at 20 (o to 21), arrives at 26 and is received at **27 µs**.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_trace::write::{self, write_archive, write_archive_with_gaps, Event, NO_CPU_TIME};
use netsens_trace::{read_trace_options, Compute, ReadOptions, Replay};

const US: u64 = 1_000_000;
const SEND: u32 = 0;
const RECV: u32 = 1;
const INIT: u32 = 2;
const REGIONS: [&str; 3] = ["MPI_Send", "MPI_Recv", "MPI_Init"];

/// Rank `rank`'s call of `region` from `enter` to `leave` µs with one message event to
/// or from `peer`; with `cpu` the thread CPU time equals the wall time.
fn call(rank: u32, region: u32, enter: u64, leave: u64, kind: u8, cpu: bool) -> Vec<(u32, Event)> {
    let at = |kind, us: u64| {
        let time_ps = us * US;
        let cpu_ps = if cpu && kind != write::SEND && kind != write::RECV { time_ps } else { NO_CPU_TIME };
        (rank, Event { kind, time_ps, cpu_ps, region, peer: 1 - rank, bytes: 1, ..Event::default() })
    };
    let mut events = vec![at(write::ENTER, enter)];
    if kind != write::ENTER {
        events.push(at(kind, enter));
    }
    events.push(at(write::LEAVE, leave));
    events
}

/// Each rank starts with `MPI_Init` at 0, so that every gap has both clocks.
fn program(cpu: bool) -> Vec<(u32, Event)> {
    let mut events = call(0, INIT, 0, 0, write::ENTER, cpu);
    events.extend(call(0, RECV, 0, 17, write::RECV, cpu));
    events.extend(call(0, SEND, 20, 21, write::SEND, cpu));
    events.extend(call(1, INIT, 0, 0, write::ENTER, cpu));
    events.extend(call(1, SEND, 10, 11, write::SEND, cpu));
    events.extend(call(1, RECV, 12, 27, write::RECV, cpu));
    events
}

fn replay(gaps: Option<&[(u64, u64)]>, cpu: bool, options: ReadOptions) -> (u64, Replay) {
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_archive_with_gaps(&dir.path().join("t"), 2, &REGIONS, &program(cpu), gaps).unwrap();
    let t = read_trace_options(&anchor, options).unwrap();
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "0ns/B"), ("O", "0ns/B")]).unwrap();
    (run_schedule(&t.schedule, &p, &RunOptions::default()).unwrap().makespan_ps, t)
}

#[test]
fn an_archive_without_a_tracer_cost_is_charged_whole() {
    let (end, t) = replay(None, false, ReadOptions::default());
    assert_eq!(end, 27 * US);
    assert_eq!(t.tracer_gaps, vec![None, None]);
    assert!(t.measured.iter().all(|m| m.tracer_ps == 0));
    // The same archive written by write_archive (no gaps at all) alike.
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_archive(&dir.path().join("t"), 2, &REGIONS, &program(false)).unwrap();
    assert_eq!(read_trace_options(&anchor, ReadOptions::default()).unwrap().tracer_gaps, vec![None, None]);
}

#[test]
fn the_recorded_tracer_cost_leaves_each_gap_never_below_zero() {
    // 2 µs of each gap is the tracer's. Rank 1 computes 10 − 2 = 8 µs and sends (o to
    // 9), the message arrives at 14 and is received at 15; rank 0 computes 3 − 2 = 1 µs
    // and answers at 16 (o to 17), arriving at 22, received at 23 µs. Rank 1's 1 µs
    // gap before its receive loses 1 µs, not 2; the gaps before MPI_Init and rank 0's
    // receive (both at 0) lose none.
    let gap = (2 * US, NO_CPU_TIME);
    let (end, t) = replay(Some(&[gap, gap]), false, ReadOptions::default());
    assert_eq!(end, 23 * US);
    assert_eq!(t.tracer_gaps, vec![Some(2 * US), Some(2 * US)]);
    assert_eq!([t.measured[0].tracer_ps, t.measured[1].tracer_ps], [2 * US, 3 * US]);
    assert_eq!([t.measured[0].compute_ps, t.measured[1].compute_ps], [US, 8 * US]);
    assert_eq!([t.measured[0].gaps, t.measured[1].gaps], [3, 3]);
}

#[test]
fn the_cost_on_the_clock_of_the_compute_and_a_given_cost() {
    // Wall 5 µs, CPU 2 µs: by the CPU time 23 µs as above; by the wall time rank 1
    // computes 5 µs (send o to 6, arrival 11, received 12), rank 0's 3 µs gap is all
    // the tracer's: the answer leaves at 12 (o to 13), arrives 18, received at 19 µs.
    let gap = (5 * US, 2 * US);
    assert_eq!(replay(Some(&[gap, gap]), true, ReadOptions::default()).0, 23 * US);
    let wall = ReadOptions { compute: Compute::Wall, ..ReadOptions::default() };
    assert_eq!(replay(Some(&[gap, gap]), true, wall).0, 19 * US);
    // A given cost replaces the archive's: 1 µs gives 9 µs of compute on rank 1 (send
    // o to 10, arrival 15, received 16), 2 µs on rank 0 (answer at 18, o to 19,
    // arrival 24, received at 25 µs); 0 charges the gaps whole.
    let given = |ps| ReadOptions { tracer_gap: Some(ps), ..ReadOptions::default() };
    assert_eq!(replay(Some(&[gap, gap]), false, given(US)).0, 25 * US);
    assert_eq!(replay(None, false, given(US)).0, 25 * US);
    let (end, t) = replay(Some(&[gap, gap]), false, given(0));
    assert_eq!(end, 27 * US);
    assert!(t.measured.iter().all(|m| m.tracer_ps == 0));
}
