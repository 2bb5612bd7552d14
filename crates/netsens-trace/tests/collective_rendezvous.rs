//! Collectives of a trace whose messages are above S, replayed under the rendezvous
//! handshake: a round that sends and receives posts its receives with its sends (a
//! receive that waited for its round's send would wait for ever, the send waiting for
//! that very receiver's clear-to-send). liballprof traces written here, every
//! collective the reader knows at 2 and 3 ranks, with MPICH's algorithms and the
//! others of `--collectives`, under both rendezvous protocols; an alltoall and an
//! allreduce against end times derived by hand from LOGGP.md's rules.
//!
//! Platform: L = 5 us, o = 1 us, g = 0, G = 6 ns/B, O = 0, S = 4096 B. Blocks of
//! 1024 doubles (8192 B, k·G = 8191 · 6 = 49146 ns), every rank entering at 0.
//!
//! One exchange of 8192 B between two ranks, as each does it (LOGGP.md, vector 5):
//! the request-to-send leaves the CPU at 1000 and arrives at 6000; the receive is
//! posted at 1000 (with the send), so the request is processed to 7000 and the
//! clear-to-send leaves at 8000, arriving at 13000; processed to 14000, the data
//! leaves the CPU at 15000 (send done) and arrives at 20000, processed to
//! 20000 + 1000 + 49146 = 70146 ns: the receive is done, and the round.
//! Eager (S = 65536 B): the data arrives at 6000, processed to 56146 ns.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_trace::{read_trace, read_trace_with, Algorithms};

const NS: u64 = 1000;
/// 8-byte elements per block: 8192 B, above S.
const N: u64 = 1024;
const HEADER: &str = "# htor's PMPI Tracer 1 Output File\n\n";

fn platform(s: &str, rendezvous: &str) -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[
        ("L", "5us"),
        ("o", "1us"),
        ("g", "0us"),
        ("G", "6ns/B"),
        ("O", "0ns/B"),
        ("S", s),
        ("rendezvous", rendezvous),
    ])
    .unwrap();
    p
}

/// The call line of `name` for rank `r` of `p` in liballprof's layout (the C
/// prototype's arguments: buffers as addresses, counts, `id,size,extent` datatypes,
/// root 0, `id,rank,size` communicator), from 0 to 1 µs.
fn call(name: &str, r: u32, p: u32) -> String {
    let (dt, comm) = ("11,8,8", format!("0,{r},{p}"));
    let args = match name {
        "MPI_Barrier" => comm,
        "MPI_Bcast" => format!("1:{N}:{dt}:0:{comm}"),
        "MPI_Reduce" => format!("1:2:{N}:{dt}:3:0:{comm}"),
        "MPI_Allreduce" | "MPI_Scan" => format!("1:2:{N}:{dt}:3:{comm}"),
        "MPI_Gather" | "MPI_Scatter" => format!("1:{N}:{dt}:2:{N}:{dt}:0:{comm}"),
        "MPI_Allgather" | "MPI_Alltoall" => format!("1:{N}:{dt}:2:{N}:{dt}:{comm}"),
        "MPI_Reduce_scatter" => {
            let counts = vec![N.to_string(); p as usize].join(",");
            format!("1:2:3:{counts}:{dt}:3:{comm}")
        }
        _ => unreachable!("{name}"),
    };
    format!("{name}:0:{args}:1")
}

/// A trace of `p` ranks, each calling `name` once between MPI_Init and MPI_Finalize.
fn trace(name: &str, p: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..p {
        let text = format!("{HEADER}MPI_Init:-:1:2:0\n{}\nMPI_Finalize:1:-\n", call(name, r, p));
        std::fs::write(dir.path().join(format!("pmpi-trace-rank-{r}.txt")), text).unwrap();
    }
    dir
}

/// Each rank's end, ns, of `name` at `p` ranks on `platform` with `algorithms`.
fn ends(name: &str, p: u32, platform: &Platform, algorithms: Algorithms) -> Result<Vec<u64>, String> {
    let dir = trace(name, p);
    let r = read_trace_with(dir.path().to_str().unwrap(), algorithms).unwrap();
    let run = run_schedule(&r.schedule, platform, &RunOptions::default()).map_err(|e| e.to_string())?;
    Ok(run.ranks.iter().map(|s| s.end_ps / NS).collect())
}

const COLLECTIVES: [&str; 10] = [
    "MPI_Barrier",
    "MPI_Bcast",
    "MPI_Reduce",
    "MPI_Allreduce",
    "MPI_Scan",
    "MPI_Gather",
    "MPI_Scatter",
    "MPI_Allgather",
    "MPI_Alltoall",
    "MPI_Reduce_scatter",
];

#[test]
fn an_alltoall_above_s_ends_as_loggp_md_says_under_the_handshake() {
    let handshake = platform("4096B", "handshake");
    let mpich = Algorithms::default();
    // 2 ranks: one exchange each way (the module's comment).
    assert_eq!(ends("MPI_Alltoall", 2, &handshake, mpich), Ok(vec![70146, 70146]));
    // 3 ranks, pairwise exchange: send to r + 1 while receiving from r − 1, then to
    // r + 2 from r − 2; each round is the exchange above (a ring, every rank alike),
    // and the second starts when the first is done (the NICs are free long before):
    // 2 · 70146 ns.
    assert_eq!(ends("MPI_Alltoall", 3, &handshake, mpich), Ok(vec![140292; 3]));
    // Recursive doubling at 2 ranks is the same exchange.
    assert_eq!(ends("MPI_Allreduce", 2, &handshake, mpich), Ok(vec![70146, 70146]));
    // The same traces with every message eager: the data arrives at 6000 and is
    // processed to 56146; at 3 ranks the second round starts at 56146, the first's
    // data processed (nic_s free at 49146): 2 · 56146.
    let eager = platform("65536B", "handshake");
    assert_eq!(ends("MPI_Alltoall", 2, &eager, mpich), Ok(vec![56146, 56146]));
    assert_eq!(ends("MPI_Alltoall", 3, &eager, mpich), Ok(vec![112292; 3]));
}

#[test]
fn no_collective_above_s_deadlocks_at_two_or_three_ranks() {
    let others =
        Algorithms::parse("bcast=linear,reduce=linear,gather=linear,allreduce=reduce-bcast,allgather=ring").unwrap();
    for rendezvous in ["handshake", "loggopsim"] {
        let above = platform("4096B", rendezvous);
        let eager = platform("65536B", rendezvous);
        for name in COLLECTIVES {
            for p in [2, 3] {
                for algorithms in [Algorithms::default(), others] {
                    let slow = ends(name, p, &above, algorithms);
                    let fast = ends(name, p, &eager, algorithms).unwrap();
                    let slow =
                        slow.unwrap_or_else(|e| panic!("{name} at {p} ranks, {rendezvous}, {algorithms:?}: {e}"));
                    // A rank that exchanges no message above S (the barrier's are
                    // empty) ends as when eager; none ends earlier than eager.
                    for (s, f) in slow.iter().zip(&fast) {
                        assert!(s >= f, "{name} at {p} ranks, {rendezvous}: {slow:?} before eager {fast:?}");
                    }
                    if name == "MPI_Barrier" {
                        assert_eq!(slow, fast, "{rendezvous}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_trace_read_with_the_default_algorithms_replays_the_smallest_case() {
    // The smallest case of the defect: one alltoall of 8 KiB blocks at 2 ranks read by
    // `read_trace` (MPICH's algorithms), on the calibrated machine's protocol.
    let dir = trace("MPI_Alltoall", 2);
    let r = read_trace(dir.path().to_str().unwrap()).unwrap();
    let run = run_schedule(&r.schedule, &platform("4KiB", "handshake"), &RunOptions::default()).unwrap();
    assert_eq!(run.makespan_ps, 70146 * NS);
}
