//! Archives in Score-P's conventions (native/otf2read/otf2_scorep_synth.c, written
//! with libotf2 here) replayed against times derived by hand from LOGGP.md's rules.
//!
//! Platform: L = 5 us, o = 1 us, g = 0, G = 6 ns/B, O = 0; 8-byte messages are
//! processed o + 7·G = 1042 ns after they arrive. Times are ns after each rank's
//! replay starts (where MPI_Init returned, at T0).
//!
//! Rank 0: MPI_Comm_split's 500 ns kept, 3000 ns compute, the send at 3500 (CPU to
//! 4500, arrives at rank 1 at 3500 + o + L = 9500), 2000 ns compute to 6500 (then 5 ms
//! with measurement off: nothing), 1000 ns compute to 7500: the allreduce.
//! Rank 1: 500 + 3000 ns, the receive posted at 3500, done at 9500 + 1042 = 10542;
//! 1000 ns compute, a 2 ms buffer flush (nothing), 1000 ns: the allreduce at 12542.
//! Allreduce (p = 2, one exchange): rank 0 sends at 7500 (arrives 13500), rank 1 at
//! 12542 (CPU to 13542, arrives at rank 0 at 18542). Rank 1 processes rank 0's message
//! when its CPU is free, 13542 → 14584; rank 0 processes rank 1's at 18542 → 19584.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::schedule::executor::run_schedule;
use netsens_core::Error;
use netsens_trace::{
    read_trace, read_trace_with, trace_info, write_scorep_style, write_synthetic, Algorithms, Support,
    SCOREP_NONBLOCKING, SCOREP_NO_MPI, SCOREP_OTHER_CALLS, SCOREP_REGIONS_ONLY, SCOREP_STREAM_RANK, SCOREP_THREAD_MPI,
};

const NS: u64 = 1000;

fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "6ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

fn archive(variant: u32) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_scorep_style(&dir.path().join("t"), variant).unwrap();
    (dir, anchor)
}

fn run(anchor: &str, algorithms: Algorithms) -> RunResult {
    let r = read_trace_with(anchor, algorithms).unwrap();
    run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap()
}

fn ends(r: &RunResult) -> Vec<u64> {
    r.ranks.iter().map(|s| s.end_ps / NS).collect()
}

#[test]
fn a_scorep_trace_starts_where_mpi_init_returns_and_pauses_with_measurement() {
    let (_d, anchor) = archive(0);
    let r = run(&anchor, Algorithms::default());
    assert_eq!(ends(&r), [19584, 14584]);
    assert_eq!(r.makespan_ps, 19584 * NS);
    // compute charged: rank 0 500 + 3000 + 2000 + 1000, rank 1 500 + 3000 + 1000 + 1000
    let compute: Vec<u64> = r.ranks.iter().map(|s| s.compute_ps / NS).collect();
    assert_eq!(compute, [6500, 5500]);
}

#[test]
fn what_the_trace_measured_is_kept_per_rank_and_never_below_the_compute() {
    let (_d, anchor) = archive(0);
    let r = read_trace(&anchor).unwrap();
    assert_eq!(r.tracer, "Score-P 8.4");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // rank 0: T0 to T0 + 5 021 000 (after the self allreduce and MPI_Finalize), less
    // 5 ms off; rank 1: T0 to T0 + 2 024 500, less the 2 ms flush.
    let measured: Vec<u64> = r.measured.iter().map(|m| m.duration_ps() / NS).collect();
    assert_eq!(measured, [21000, 24500]);
    let compute: Vec<u64> = r.measured.iter().map(|m| m.compute_ps / NS).collect();
    assert_eq!(compute, [6500, 5500]);
}

#[test]
fn a_nonblocking_allreduce_starts_at_its_call_and_completes_at_its_wait() {
    // Iallreduce at 7500 (rank 0) and 12542 (rank 1), 4000 ns of compute, MPI_Wait.
    // One CPU per rank (the default, progress in MPI calls): rank 0's send takes the
    // CPU to 8500, its compute runs to 12500; rank 1's send to 13542, then rank 0's
    // message (arrived at 13500) → 14584 and the compute → 18584 (either order ends
    // there); rank 0 processes rank 1's message at 18542 → 19584.
    let (_d, anchor) = archive(SCOREP_NONBLOCKING);
    assert_eq!(ends(&run(&anchor, Algorithms::default())), [19584, 18584]);
    // With a progress thread the messages run on a second CPU: rank 1's compute runs
    // 12542 → 16542 beside its send (to 13542) and the receive (13542 → 14584); rank 0's
    // end is still the processing of rank 1's message.
    let thread = Algorithms::parse("nonblocking=thread").unwrap();
    assert_eq!(ends(&run(&anchor, thread)), [19584, 16542]);
}

/// Score-P's archive holds MPI_Iallreduce's region only (no request record, so neither
/// its communicator nor its sizes nor where it completes): replayed as a blocking
/// allreduce at the call, on MPI_COMM_WORLD, of 0 B, with a warning naming the call.
/// Rank 0 calls it at 7500, rank 1 at 12542 (as the blocking allreduce above); each
/// message is processed in o = 1000 ns (no bytes): rank 1 sends (CPU to 13542) and
/// processes rank 0's (arrived at 13500) to 14542; rank 0's send takes its CPU to 8500
/// and it processes rank 1's message (arrived at 12542 + 1000 + 5000) to 19542. Then
/// each computes its 4000 ns before MPI_Wait: 23542 and 18542.
#[test]
fn a_nonblocking_collective_without_its_request_is_the_blocking_one_at_the_call() {
    let (_d, anchor) = archive(SCOREP_REGIONS_ONLY);
    let r = read_trace(&anchor).unwrap();
    let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
    assert_eq!(ends(&run), [23542, 18542]);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert!(w.starts_with(&anchor) && w.contains("MPI_Iallreduce 1 time(s) on each rank"), "{w}");
    assert!(w.contains("blocking collective where each was called") && !w.contains('\n'), "{w}");
}

#[test]
fn a_trace_without_mpi_is_refused_in_one_line() {
    let (_d, anchor) = archive(SCOREP_NO_MPI);
    let e = read_trace(&anchor).err().unwrap();
    let text = e.to_string();
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    assert!(text.starts_with(&anchor) && text.contains("no MPI processes") && text.contains("33 locations"), "{text}");
    assert!(!text.contains('\n'));
}

#[test]
fn a_rank_on_an_accelerator_stream_is_a_layout_netsens_cannot_map() {
    let (_d, anchor) = archive(SCOREP_STREAM_RANK);
    let text = read_trace(&anchor).err().unwrap().to_string();
    assert!(text.contains("MPI rank 1 is location 11, which is not a CPU thread"), "{text}");
}

#[test]
fn trace_info_names_the_tracer_the_measured_time_and_every_call() {
    let (_d, anchor) = archive(0);
    let info = trace_info(&anchor).unwrap();
    assert_eq!((info.tracer.as_str(), info.ranks, info.ticks_per_second), ("Score-P 8.4", 2, 2_100_000_000));
    let measured: Vec<u64> = info.measured.iter().map(|m| m.duration_ps() / NS).collect();
    assert_eq!(measured, [21000, 24500]);
    // each rank: MPI_Init, MPI_Comm_split, one send or receive, two allreduces (world,
    // self), MPI_Finalize
    let calls: Vec<(&str, u64, Support)> = info.calls.iter().map(|c| (c.name.as_str(), c.count, c.support)).collect();
    assert_eq!(
        calls,
        [
            ("MPI_Allreduce", 4, Support::Modelled),
            ("MPI_Comm_split", 2, Support::KeptAsCompute),
            ("MPI_Finalize", 2, Support::Modelled),
            ("MPI_Init", 2, Support::Modelled),
            ("MPI_Recv", 1, Support::Modelled),
            ("MPI_Send", 1, Support::Modelled),
        ]
    );
    // A trace replay refuses is still described: rank 1's MPI_Put is named.
    let dir = tempfile::tempdir().unwrap();
    let put = write_synthetic(&dir.path().join("t"), 2, 2, 1000, 1, 0, 2).unwrap();
    let info = trace_info(&put).unwrap();
    assert_eq!(info.tracer, "netsens-pmpi");
    let put_call = info.calls.iter().find(|c| c.name == "MPI_Put").unwrap();
    assert_eq!((put_call.count, put_call.support), (1, Support::NotModelled));
    assert_eq!(info.calls[0].name, "MPI_Sendrecv");
    assert_eq!(info.calls[0].count, 4);
}

#[test]
fn persistent_and_any_some_completions_probes_comm_dup_and_sendrecv_replace_are_modelled() {
    // The persistent send, MPI_Irecv + MPI_Testsome + MPI_Waitsome and the unmatched
    // MPI_Iprobe sit where the blocking calls were: the same times up to the allreduce,
    // done at 19584 (rank 0) and 14584 (rank 1). MPI_Comm_dup keeps 500 ns: 20084 and
    // 15084. MPI_Sendrecv_replace of 100 000 B (k·G = 599 994 ns; LogGOPSim's
    // rendezvous: the data travels at once): rank 1 sends at 15084 (arrives 21084),
    // rank 0 at 20084 (arrives 26084); each receive is posted once its send started,
    // so rank 0 processes rank 1's data at 21084 → 622078, rank 1 rank 0's at 26084 →
    // 627078. Taken as a blocking send, each send would wait for the other's receive:
    // a deadlock.
    let (_d, anchor) = archive(SCOREP_OTHER_CALLS);
    assert_eq!(ends(&run(&anchor, Algorithms::default())), [622078, 627078]);
    let calls = trace_info(&anchor).unwrap().calls;
    let support = |name: &str| calls.iter().find(|c| c.name == name).map(|c| c.support);
    assert_eq!(support("MPI_Waitsome"), Some(Support::Modelled));
    assert_eq!(support("MPI_Comm_dup"), Some(Support::KeptAsCompute));
}

#[test]
fn mpi_communication_on_a_thread_beside_the_ranks_is_refused_not_dropped() {
    let (_d, anchor) = archive(SCOREP_THREAD_MPI);
    let text = read_trace(&anchor).err().unwrap().to_string();
    assert!(
        text.contains("location 9, a thread beside the MPI ranks' (location group 0), records MPI communication"),
        "{text}"
    );
    assert!(!text.contains('\n'));
}
