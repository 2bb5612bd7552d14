//! No reader drops time: for every trace format, the compute replay charges each rank
//! against the trace's own time between calls (from the first MPI call to the last,
//! less the time inside calls and with measurement off), both as `trace info` shows
//! them, on files in each format's exact layout. Where replay charges more, the
//! difference is what it keeps on purpose, derived here by hand.

use netsens_trace::{trace_info, write_scorep_style, write_synthetic, TraceInfo};

mod dumpi_writer;
use dumpi_writer::{Bin, A, DOUBLE};

const NS: u64 = 1000;

fn figures(info: &TraceInfo) -> (Vec<u64>, Vec<u64>) {
    let replayed = info.replayed_compute_ps.as_ref().unwrap_or_else(|| panic!("{:?}", info.replay_refused));
    (info.between_calls_ps.iter().map(|p| p / NS).collect(), replayed.iter().map(|p| p / NS).collect())
}

/// DUMPI (sst-dumpi's layout, wall clock only): rank 0's calls are MPI_Init (to
/// 1000 µs), MPI_Send 1003–1004, MPI_Irecv 1010, MPI_Wait 1012–1040, MPI_Allreduce
/// 1041–1050, MPI_Finalize 1050: 3 + 6 + 2 + 1 µs between them; rank 1's MPI_Init (to
/// 2000), MPI_Recv 2005–2020, MPI_Send 2022–2023, MPI_Allreduce 2030–2040, MPI_Finalize
/// 2040: 5 + 2 + 7 µs. Replay charges exactly that.
#[test]
fn dumpi_compute_is_the_time_between_calls() {
    const WORLD: u16 = 2;
    let p2p = |peer: i32, tag: i32| vec![A::I(1), A::H(DOUBLE), A::I(peer), A::I(tag), A::H(WORLD)];
    let allreduce = [A::I(1), A::H(DOUBLE), A::B(3), A::H(WORLD)];
    let init = |t: f64| Bin::new().call(124, t - 10.0, t, &[A::I(0)]);
    let r0 = init(1000.0)
        .call(0, 1003.0, 1004.0, &p2p(1, 7))
        .call(12, 1010.0, 1010.0, &[p2p(-1, -1), vec![A::I(5)]].concat())
        .call(13, 1012.0, 1040.0, &[A::I(5), A::Status(8, 1, 9)])
        .call(65, 1041.0, 1050.0, &allreduce)
        .call(125, 1050.0, 1050.0, &[]);
    let r1 = init(2000.0)
        .call(1, 2005.0, 2020.0, &[p2p(0, 7), vec![A::Status(8, 0, 7)]].concat())
        .call(0, 2022.0, 2023.0, &p2p(0, 9))
        .call(65, 2030.0, 2040.0, &allreduce)
        .call(125, 2040.0, 2040.0, &[]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("run.meta"), "numprocs=2\nfileprefix=run\n").unwrap();
    for (r, bin) in [r0.finish(), r1.finish()].iter().enumerate() {
        std::fs::write(dir.path().join(format!("run-{r:04}.bin")), bin).unwrap();
    }
    let info = trace_info(dir.path().to_str().unwrap()).unwrap();
    assert_eq!(figures(&info), (vec![12_000, 14_000], vec![12_000, 14_000]));
    assert_eq!(info.compute_clock, "wall");
}

/// Score-P's conventions (tests/scorep.rs's archive, written with libotf2): rank 0 has
/// 3000 ns before its send, 2000 + 1000 around 5 ms with measurement off; rank 1 3000
/// ns before its receive, 1000 + 1000 around a 2 ms buffer flush. Replay keeps each
/// rank's 500 ns MPI_Comm_split as compute too (a call, so not between calls).
#[test]
fn scorep_compute_is_the_time_between_calls_and_the_kept_split() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_scorep_style(&dir.path().join("t"), 0).unwrap();
    let info = trace_info(&anchor).unwrap();
    let (between, replayed) = figures(&info);
    assert_eq!(between, [6000, 5000]);
    assert_eq!(replayed, [6000 + 500, 5000 + 500]);
}

/// netsens's own archives (written with libotf2 in its conventions): 3 iterations of
/// 1000 ns then an MPI_Sendrecv (3 ns): 2 × 1000 ns between the calls, and replay also
/// charges the 1000 ns before the first call (its ranks start at the clock's offset).
#[test]
fn own_trace_compute_is_the_time_between_calls_and_before_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = write_synthetic(&dir.path().join("t"), 2, 3, 1000, 8, 0, 0).unwrap();
    let info = trace_info(&anchor).unwrap();
    assert_eq!(figures(&info), (vec![2000, 2000], vec![3000, 3000]));
}

/// A trace replay refuses still shows the time between its calls (rank 1 calls
/// MPI_Put 1 ns after its last MPI_Sendrecv), and why not the replayed compute.
#[test]
fn a_refused_trace_shows_its_time_between_calls_and_the_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let put = write_synthetic(&dir.path().join("t"), 2, 2, 1000, 1, 0, 2).unwrap();
    let info = trace_info(&put).unwrap();
    assert_eq!(info.between_calls_ps.iter().map(|p| p / NS).collect::<Vec<_>>(), [1000, 1001]);
    assert!(info.replayed_compute_ps.is_none());
    let refused = info.replay_refused.unwrap();
    assert!(refused.contains("MPI_Put is an MPI call replay does not model"), "{refused}");
}

/// liballprof (the tracer's exact layout, integer µs of MPI_Wtime since the epoch): the
/// same program as the DUMPI test above, 3 + 6 + 2 + 1 µs between rank 0's calls and
/// 5 + 2 + 7 µs between rank 1's. Replay charges exactly that.
#[test]
fn liballprof_compute_is_the_time_between_calls() {
    const B: u64 = 1_765_432_100_000_000; // µs since the epoch
    let rank0 = format!(
        "MPI_Init:-:140737488340112:140737488340104:{}\nMPI_Comm_rank:{}:0,0,2:140737488340100:{}\n\
         MPI_Send:{}:11251872:1:11,8,8:1:7:0,0,2:{}\nMPI_Irecv:{}:11251872:1:11,8,8:-1:-1:0,0,2:7104000:{}\n\
         MPI_Wait:{}:7104000:140734714680384:{}\nMPI_Allreduce:{}:1:2:1:11,8,8:3:0,0,2:{}\nMPI_Finalize:{}:-\n",
        B + 1000,
        B + 1000,
        B + 1000,
        B + 1003,
        B + 1004,
        B + 1010,
        B + 1010,
        B + 1012,
        B + 1040,
        B + 1041,
        B + 1050,
        B + 1050
    );
    let rank1 = format!(
        "MPI_Init:-:140737488340112:140737488340104:{}\nMPI_Recv:{}:11287888:1:11,8,8:0:7:0,1,2:140737488340112:{}\n\
         MPI_Send:{}:11287888:1:11,8,8:0:9:0,1,2:{}\nMPI_Allreduce:{}:1:2:1:11,8,8:3:0,1,2:{}\nMPI_Finalize:{}:-\n",
        B + 2000,
        B + 2005,
        B + 2020,
        B + 2022,
        B + 2023,
        B + 2030,
        B + 2040,
        B + 2040
    );
    let header = "# htor's PMPI Tracer 1 Output File\n# time: Thu Nov 26 22:00:00 2026\n\n";
    let dir = tempfile::tempdir().unwrap();
    for (r, text) in [rank0, rank1].iter().enumerate() {
        std::fs::write(dir.path().join(format!("pmpi-trace-rank-{r}.txt")), format!("{header}{text}")).unwrap();
    }
    let info = trace_info(dir.path().to_str().unwrap()).unwrap();
    assert_eq!(figures(&info), (vec![12_000, 14_000], vec![12_000, 14_000]));
}
