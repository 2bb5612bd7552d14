//! Archives that record several runs (the recording paused with MPI_Pcontrol between
//! them): each run replays on its own, against times derived by hand.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_trace::write::{self, write_archive, Event};
use netsens_trace::{read_trace, read_trace_run, trace_runs, Algorithms, Compute, Replay};

const US: u64 = 1_000_000;
const INIT: u32 = 0;
const PAUSE: u32 = 1;
const SEND: u32 = 2;
const RECV: u32 = 3;
const FINALIZE: u32 = 4;
const REGIONS: [&str; 5] = ["MPI_Init", "MPI_Pcontrol", "MPI_Send", "MPI_Recv", "MPI_Finalize"];

/// L = 5 us, o = 1 us, g = 0: a 1-byte message sent at t is received at t + 7 us.
fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "0ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

fn call(events: &mut Vec<(u32, Event)>, rank: u32, region: u32, from_us: u64, to_us: u64, inner: Option<u8>) {
    let at = |us: u64, kind: u8| Event { kind, time_ps: us * US, cpu_ps: write::NO_CPU_TIME, ..Event::default() };
    events.push((rank, Event { region, ..at(from_us, write::ENTER) }));
    if let Some(kind) = inner {
        events.push((rank, Event { peer: 1 - rank, bytes: 1, ..at(from_us, kind) }));
    }
    events.push((rank, Event { region, ..at(to_us, write::LEAVE) }));
}

/// Both ranks: MPI_Init, then for each compute c (µs) a pause of 10 µs and a run in
/// which rank 0 computes c and sends rank 1 a byte; a last pause and MPI_Finalize.
/// Rank 1 records `rank1_runs` of the runs.
fn archive(computes: &[u64], rank1_runs: usize) -> (tempfile::TempDir, String) {
    let mut events = Vec::new();
    for rank in 0..2 {
        call(&mut events, rank, INIT, 0, 1, None);
        let mut t = 1;
        let runs = if rank == 0 { computes.len() } else { rank1_runs };
        for &c in &computes[..runs] {
            call(&mut events, rank, PAUSE, t, t + 10, None);
            t += 10;
            // Each rank pauses again as soon as its part of the run is done.
            if rank == 0 {
                call(&mut events, rank, SEND, t + c, t + c + 1, Some(write::SEND));
                t += c + 1;
            } else {
                call(&mut events, rank, RECV, t, t + c + 8, Some(write::RECV));
                t += c + 8;
            }
        }
        call(&mut events, rank, PAUSE, t, t + 10, None);
        call(&mut events, rank, FINALIZE, t + 10, t + 11, None);
    }
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_archive(&dir.path().join("t"), 2, &REGIONS, &events).unwrap();
    (dir, anchor)
}

fn end_ps(replay: &Replay) -> u64 {
    run_schedule(&replay.schedule, &platform(), &RunOptions::default()).unwrap().makespan_ps
}

#[test]
fn each_run_replays_alone() {
    // Run j starts where its pause ends: rank 0 computes c_j, then the byte reaches
    // rank 1 at c_j + o + L + o = c_j + 7 us.
    let computes = [20, 5, 12];
    let (_d, anchor) = archive(&computes, 3);
    assert_eq!(trace_runs(&anchor).unwrap(), 3);
    assert_eq!(read_trace(&anchor).unwrap().runs, 3, "counted while the whole archive is read");
    for (run, c) in computes.iter().enumerate() {
        let r = read_trace_run(&anchor, Algorithms::default(), Compute::Cpu, run as u32).unwrap();
        assert_eq!(end_ps(&r), (c + 7) * US, "run {run}");
    }
    let past = read_trace_run(&anchor, Algorithms::default(), Compute::Cpu, 3).err().unwrap();
    assert!(past.to_string().ends_with("run 4 asked for, but the archive records 3"), "{past}");
}

#[test]
fn an_archive_of_one_run_reads_the_same_either_way() {
    let (_d, anchor) = archive(&[9], 1);
    assert_eq!(trace_runs(&anchor).unwrap(), 1);
    let one = read_trace_run(&anchor, Algorithms::default(), Compute::Cpu, 0).unwrap();
    assert_eq!(end_ps(&one), 16 * US);
    assert_eq!(end_ps(&read_trace(&anchor).unwrap()), 16 * US);
}

#[test]
fn ranks_that_recorded_different_runs_are_one_line_of_error() {
    // Rank 1 stops after the first run: its receives of the other two are missing.
    let (_d, anchor) = archive(&[20, 5, 12], 1);
    let e = trace_runs(&anchor).unwrap_err().to_string();
    assert!(e.contains("the ranks recorded different numbers of runs (rank 0: 3, rank 1: 1)"), "{e}");
    assert!(!e.contains('\n'));
    // Read whole, as before runs were told apart.
    assert_eq!(read_trace(&anchor).unwrap().runs, 1);
}
