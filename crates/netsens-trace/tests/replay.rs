//! Replay of synthetic OTF2 archives (native/otf2read/otf2_synth.c) against times
//! derived by hand from LOGGP.md's rules, the GOAL round trip, determinism and bad
//! archives.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_core::schedule::goal::parse_goal;
use netsens_core::Error;
use netsens_trace::goal_out::write_goal;
use netsens_trace::{read_trace, read_trace_compute, write_synthetic, Algorithms, Compute};

const NS: u64 = 1000;

/// L = 5 us, o = 1 us, g = 0, G = 6 ns/B, O = 0: one-byte messages have no
/// per-byte term, an 8-byte one arrives (8 − 1)·G = 42 ns later.
fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "6ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

fn synth(ranks: u32, iterations: u64, every: u64, faults: u32) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let anchor = write_synthetic(&out, ranks, iterations, 1000, 1, every, faults).unwrap();
    (dir, anchor)
}

fn makespan(anchor: &str) -> u64 {
    let r = read_trace(anchor).unwrap();
    run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
}

#[test]
fn a_ring_exchange_costs_compute_two_overheads_and_a_latency_per_iteration() {
    // Each iteration: calc 1000 ns; the send's o (1 us) then L (5 us) to the
    // neighbour, whose receive pays o (1 us): C + 2o + L = 8000 ns, all ranks alike.
    for ranks in [2, 4, 5] {
        let (_d, anchor) = synth(ranks, 3, 0, 0);
        assert_eq!(makespan(&anchor), 3 * 8000 * NS, "{ranks} ranks");
    }
}

#[test]
fn compute_is_the_recorded_cpu_time_when_the_archive_has_it() {
    // Bit 4: each call records the thread CPU time, which advances 500 ns during each
    // 1000 ns of compute. The first compute starts with the rank, where no CPU time is
    // recorded: 1000 ns of wall time, 8000 ns in all; the next two cost their 500 ns of
    // CPU: 500 + 2 o + L = 7500 ns each. Measured by the wall clock: 3 · 8000 ns.
    let (_d, anchor) = synth(2, 3, 0, 16);
    assert_eq!(makespan(&anchor), (8000 + 2 * 7500) * NS);
    let run = |compute| {
        let r = read_trace_compute(&anchor, Algorithms::default(), compute).unwrap();
        run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
    };
    assert_eq!(run(Compute::Wall), 3 * 8000 * NS);
    // An archive without the attribute keeps the wall time either way.
    let (_d2, plain) = synth(2, 3, 0, 0);
    let r = read_trace_compute(&plain, Algorithms::default(), Compute::Cpu).unwrap();
    assert_eq!(run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps, 3 * 8000 * NS);
    assert_eq!(Compute::parse("wall"), Ok(Compute::Wall));
    assert_eq!(Compute::parse("user").unwrap_err(), "compute: unknown clock \"user\"; write cpu or wall");
}

#[test]
fn a_cpu_clock_ahead_of_the_wall_clock_is_reported_not_replayed_silently() {
    // Bit 5: each 1000 ns of compute records 2000 ns of CPU time. Rank 0 is measured
    // from the offset to its last leave, 3 · 1003 ns; it is charged the first
    // compute's wall time (1000 ns) and then 2 · 2000 ns of CPU: 5000 ns > 3009 ns.
    let (_d, anchor) = synth(2, 3, 0, 32);
    let r = read_trace(&anchor).unwrap();
    assert_eq!(r.measured[0].duration_ps(), 3009 * NS);
    assert_eq!(r.measured[0].compute_ps, 5000 * NS);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(
        r.warnings[0].contains(
            "rank 0's replayed compute (5us) exceeds the time the trace measured for it (3009ns) (and 1 more rank(s))"
        ),
        "{}",
        r.warnings[0]
    );
    // Measured by the wall clock, or with the CPU time behind the wall clock: none.
    let wall = read_trace_compute(&anchor, Algorithms::default(), Compute::Wall).unwrap();
    assert!(wall.warnings.is_empty(), "{:?}", wall.warnings);
    let (_d2, slower) = synth(2, 3, 0, 16);
    assert!(read_trace(&slower).unwrap().warnings.is_empty());
}

#[test]
fn a_communicator_creation_keeps_its_duration() {
    // MPI_Comm_dup's own messages are not in the trace: its 500 ns stay as the
    // rank's time, before the first iteration's 8000 ns.
    let (_d, anchor) = synth(2, 1, 0, 4);
    assert_eq!(makespan(&anchor), (500 + 8000) * NS);
}

#[test]
fn an_allreduce_of_two_ranks_adds_one_exchange() {
    // Recursive doubling at p = 2: one round, send + receive of 8 bytes with the
    // partner: o + L + 7·G + o = 7042 ns after the ring exchange's 8000 ns.
    let (_d, anchor) = synth(2, 2, 1, 0);
    assert_eq!(makespan(&anchor), 2 * (8000 + 7042) * NS);
}

#[test]
fn the_reader_counts_every_event_and_keeps_only_operations() {
    // Per iteration: enter, isend, recv, isend complete, leave (5 events) and the
    // ops kept are calc, send, recv (3).
    let (_d, anchor) = synth(4, 10, 0, 0);
    let r = read_trace(&anchor).unwrap();
    assert_eq!(r.ranks, 4);
    assert_eq!(r.events, 4 * 10 * 5);
    assert_eq!(r.schedule.num_ops(), 4 * 10 * 3);
}

#[test]
fn replaying_the_goal_form_gives_the_same_end_times() {
    let (_d, anchor) = synth(5, 6, 2, 0);
    let r = read_trace(&anchor).unwrap();
    let mut text = Vec::new();
    write_goal(&r.schedule, &mut text).unwrap();
    let goal = parse_goal(std::str::from_utf8(&text).unwrap(), "t.goal").unwrap();
    let opts = RunOptions::default();
    let a = run_schedule(&r.schedule, &platform(), &opts).unwrap();
    let b = run_schedule(&goal, &platform(), &opts).unwrap();
    assert_eq!(a.makespan_ps, b.makespan_ps);
    let ends = |x: &netsens_core::profile::RunResult| serde_json::to_value(&x.ranks).unwrap();
    assert_eq!(ends(&a), ends(&b));
}

#[test]
fn replay_is_deterministic() {
    let (_d, anchor) = synth(4, 20, 3, 0);
    let run = || {
        let r = read_trace(&anchor).unwrap();
        serde_json::to_string(&run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap()).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_missing_or_truncated_archive_is_one_line_of_input_error() {
    let e = read_trace("/nonexistent/traces.otf2").err().unwrap();
    assert!(matches!(e, Error::Input(_)));
    assert!(e.to_string().contains("/nonexistent/traces.otf2"), "{e}");

    let (d, anchor) = synth(2, 50, 0, 0);
    let evt = d.path().join("t/traces/1.evt");
    let len = std::fs::metadata(&evt).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&evt).unwrap();
    f.set_len(len / 2).unwrap();
    let e = read_trace(&anchor).err().unwrap();
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    assert!(!e.to_string().contains('\n'), "{e}");
}

#[test]
fn an_unmodelled_call_is_named_with_its_rank_and_position() {
    let (_d, anchor) = synth(2, 2, 0, 2);
    let e = read_trace(&anchor).err().unwrap().to_string();
    // rank 1's events: 2 iterations × 5, then the MPI_Put's enter at position 10
    assert!(e.contains("rank 1, event 10: MPI_Put"), "{e}");
}

#[test]
fn a_receive_nobody_sends_is_a_deadlock_not_a_hang() {
    let (_d, anchor) = synth(2, 1, 0, 1);
    let r = read_trace(&anchor).unwrap();
    let e = run_schedule(&r.schedule, &platform(), &RunOptions::default()).err().unwrap();
    assert!(matches!(e, Error::Deadlock(_)), "{e:?}");
}

#[test]
fn a_rank_ending_inside_a_call_is_named_as_stuck() {
    let (_d, anchor) = synth(2, 2, 0, 8);
    let e = read_trace(&anchor).err().unwrap();
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    // rank 1's events: 2 iterations × 5, then the enter that is never left at 10
    let text = e.to_string();
    assert!(text.contains("never finished") && text.contains("rank 1 in MPI_Sendrecv (event 10)"), "{text}");
    assert!(!text.contains("rank 0"), "{text}");
}

/// An archive (netsens's conventions: ranks start at the clock's offset) in which each
/// rank's `MPI_Iallgather`s are regions only, at `calls` ns (500 ns each), then
/// MPI_Finalize at 4500 ns.
fn iallgathers(calls: &[&[u64]]) -> (tempfile::TempDir, String) {
    use netsens_trace::write::{write_archive, Event, ENTER, LEAVE, NO_CPU_TIME};
    let dir = tempfile::tempdir().unwrap();
    let mut events = Vec::new();
    for (rank, starts) in calls.iter().enumerate() {
        let at = |kind, region, ns: u64| {
            (rank as u32, Event { kind, region, time_ps: ns * NS, cpu_ps: NO_CPU_TIME, ..Event::default() })
        };
        for &t in *starts {
            events.extend([at(ENTER, 0, t), at(LEAVE, 0, t + 500)]);
        }
        events.extend([at(ENTER, 1, 4500), at(LEAVE, 1, 4500)]);
    }
    let anchor =
        write_archive(&dir.path().join("t"), calls.len() as u32, &["MPI_Iallgather", "MPI_Finalize"], &events).unwrap();
    (dir, anchor)
}

#[test]
fn an_iallgather_without_its_request_is_the_blocking_allgather_at_the_call() {
    // Both ranks call it at 1000 ns: an allgather of no bytes on 2 ranks is one
    // exchange; each send takes the CPU to 2000 and arrives at 1000 + o + L = 7000, is
    // processed to 8000; then the 3000 ns of compute before MPI_Finalize: 11 000 ns.
    let (_d, anchor) = iallgathers(&[&[1000], &[1000]]);
    let r = read_trace(&anchor).unwrap();
    let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
    assert_eq!(run.ranks.iter().map(|s| s.end_ps / NS).collect::<Vec<_>>(), [11_000, 11_000]);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("MPI_Iallgather 1 time(s) on each rank"), "{}", r.warnings[0]);
    // Ranks that called it a different number of times did not all call it on
    // MPI_COMM_WORLD: refused in one line naming the call and the counts.
    let (_d, anchor) = iallgathers(&[&[1000, 2000], &[1000]]);
    let e = read_trace(&anchor).err().unwrap();
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    let text = e.to_string();
    assert!(
        text.contains("MPI_Iallgather has no request record") && text.contains("rank 0 calls it 2 time(s), rank 1 1"),
        "{text}"
    );
    assert!(!text.contains('\n'));
}
