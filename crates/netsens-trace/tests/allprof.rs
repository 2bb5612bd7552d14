//! liballprof traces written here (both dialects) replayed against times derived by
//! hand from LOGGP.md's rules, and bad ones refused in one line naming the file.
//!
//! Platform: L = 5 us, o = 1 us, g = 0, G = 6 ns/B, O = 0; an 8-byte message is
//! processed o + 7·G = 1042 ns after it arrives. Times in the files are µs of each
//! rank's own clock; replay starts each rank where MPI_Init returned.
//!
//! Rank 0: 3 µs of compute, an 8-byte send to rank 1 (CPU to 4000 ns, arrives 9000);
//! 6 µs to 10000: MPI_Irecv from any source, any tag; 2 µs to 12000: MPI_Wait.
//! Rank 1: 5 µs: MPI_Recv posted at 5000, done 9000 + 1042 = 10042; 2 µs to 12042: an
//! 8-byte send to rank 0 (CPU to 13042, arrives 18042); 7 µs to 20042: the allreduce.
//! Rank 0's receive is done at 18042 + 1042 = 19084, then 1 µs to 20084: the allreduce.
//! Allreduce (one exchange of 8 B): rank 1 sends at 20042 (CPU to 21042, arrives at
//! rank 0 at 26042), rank 0 at 20084 (CPU to 21084, arrives 26084): rank 0 ends at
//! 26042 + 1042 = 27084, rank 1 at 26084 + 1042 = 27126.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_core::Error;
use netsens_trace::{read_trace, trace_info};

const NS: u64 = 1000;

const RANK0: &str = "MPI_Init:-:140737488340112:140737488340104:1000
MPI_Comm_rank:1000:0,0,2:140737488340100:1000
MPI_Send:1003:11251872:1:11,8,8:1:7:0,0,2:1004
MPI_Irecv:1010:11251872:1:11,8,8:-1:-1:0,0,2:7104000:1010
MPI_Wait:1012:7104000:140734714680384:1040
MPI_Allreduce:1041:1:2:1:11,8,8:3:0,0,2:1050
MPI_Finalize:1050:-
";

const RANK1: &str = "MPI_Init:-:140737488340112:140737488340104:2000
MPI_Recv:2005:11287888:1:11,8,8:0:7:0,1,2:140737488340112:2020
MPI_Send:2022:11287888:1:11,8,8:0:9:0,1,2:2023
MPI_Allreduce:2030:1:2:1:11,8,8:3:0,1,2:2040
MPI_Finalize:2040:-
";

const HEADER: &str = "# htor's PMPI Tracer 1 Output File\n# time: Thu Nov 26 22:00:00 2026\n# clockdiff: 0.000000 s (relative to rank 0)\n\n";

fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "6ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

/// A trace directory of `files` (name, text).
fn trace(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn two_ranks(header: &str, rank0: &str, rank1: &str) -> tempfile::TempDir {
    trace(&[
        ("pmpi-trace-rank-0.txt", format!("{header}{rank0}")),
        ("pmpi-trace-rank-1.txt", format!("{header}{rank1}")),
    ])
}

fn ends(path: &str) -> Vec<u64> {
    let r = read_trace(path).unwrap();
    let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
    run.ranks.iter().map(|s| s.end_ps / NS).collect()
}

fn error(path: &str) -> String {
    let e = read_trace(path).err().unwrap();
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    text
}

#[test]
fn an_integer_dialect_trace_replays_to_the_hand_derived_ends() {
    let dir = two_ranks(HEADER, RANK0, RANK1);
    let path = dir.path().to_str().unwrap();
    assert_eq!(ends(path), [27084, 27126]);
    // one rank file stands for its trace
    let file = dir.path().join("pmpi-trace-rank-1.txt");
    assert_eq!(ends(file.to_str().unwrap()), [27084, 27126]);
}

#[test]
fn the_older_dialect_with_decimal_microseconds_reads_the_same() {
    let decimal = |text: &str| {
        text.lines()
            .map(|l| {
                let mut f: Vec<String> = l.split(':').map(str::to_string).collect();
                let last = f.len() - 1;
                for i in [1, last] {
                    if f[i] != "-" {
                        f[i] = format!("{}.000000", f[i]);
                    }
                }
                f.join(":") + "\n"
            })
            .collect::<String>()
    };
    let dir = two_ranks("# collprof 0.9\n", &decimal(RANK0), &decimal(RANK1));
    assert_eq!(ends(dir.path().to_str().unwrap()), [27084, 27126]);
    // rank 0's first compute 3.25 µs instead of 3: its send, so rank 1's receive, so
    // everything after moves 250 ns
    let rank0 = decimal(RANK0).replace("MPI_Send:1003.000000", "MPI_Send:1003.250000");
    let dir = two_ranks("# collprof 0.9\n", &rank0, &decimal(RANK1));
    assert_eq!(ends(dir.path().to_str().unwrap()), [27334, 27376]);
}

#[test]
fn trace_info_counts_the_calls_of_a_liballprof_trace() {
    let dir = two_ranks(HEADER, RANK0, RANK1);
    let info = trace_info(dir.path().to_str().unwrap()).unwrap();
    assert_eq!((info.tracer.as_str(), info.ranks, info.ticks_per_second), ("liballprof", 2, 1_000_000));
    // measured from MPI_Init's return to MPI_Finalize's call: 50 µs and 40 µs
    let measured: Vec<u64> = info.measured.iter().map(|m| m.duration_ps() / NS).collect();
    assert_eq!(measured, [50000, 40000]);
    let count = |name: &str| info.calls.iter().find(|c| c.name == name).map(|c| c.count);
    assert_eq!((count("MPI_Allreduce"), count("MPI_Send"), count("MPI_Wait")), (Some(2), Some(2), Some(1)));
}

#[test]
fn bad_liballprof_traces_are_one_line_naming_the_file() {
    // a truncated rank file: its last line cut in the middle
    let cut = &RANK1[..RANK1.find("MPI_Allreduce").unwrap() + 20];
    let dir = two_ranks(HEADER, RANK0, cut);
    let e = error(dir.path().to_str().unwrap());
    assert!(e.contains("pmpi-trace-rank-1.txt: line 8"), "{e}");
    // a file that stops after a whole line: no MPI_Finalize
    let stop = &RANK1[..RANK1.find("MPI_Allreduce").unwrap()];
    let dir = two_ranks(HEADER, RANK0, stop);
    assert!(error(dir.path().to_str().unwrap()).contains("pmpi-trace-rank-1.txt: truncated"));
    // an unknown call
    let dir = two_ranks(HEADER, RANK0, &RANK1.replace("MPI_Send:", "MPI_Frobnicate:"));
    assert!(error(dir.path().to_str().unwrap()).contains("line 7: MPI_Frobnicate is a call this reader does not know"));
    // a communicator whose members liballprof did not record
    let dir = two_ranks(HEADER, RANK0, &RANK1.replace("0,1,2:2040", "5,0,1:2040"));
    assert!(error(dir.path().to_str().unwrap()).contains("MPI_Allreduce on communicator 5 (1 ranks"));
    // which request MPI_Waitany completed is not recorded
    let dir = two_ranks(HEADER, &RANK0.replace("MPI_Wait:1012:7104000", "MPI_Waitany:1012:1:7104000"), RANK1);
    assert!(error(dir.path().to_str().unwrap()).contains("MPI_Waitany: liballprof does not record which request"));
    // a missing rank file, a file that is not a liballprof trace, a bare directory
    let dir = trace(&[("pmpi-trace-rank-0.txt", format!("{HEADER}{RANK0}")), ("pmpi-trace-rank-2.txt", String::new())]);
    assert!(error(dir.path().to_str().unwrap()).contains("rank 1's (pmpi-trace-rank-1.txt) is missing"));
    let dir = two_ranks("num_ranks 2\n", RANK0, RANK1);
    assert!(error(dir.path().to_str().unwrap()).contains("not a liballprof trace"));
    let empty = tempfile::tempdir().unwrap();
    let e = error(empty.path().to_str().unwrap());
    assert!(e.contains("a directory, not a trace"), "{e}");
}

/// A small seeded generator (xorshift64*), so that the generated traces are the same
/// on every run without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// A 4-rank liballprof trace in the tracer's exact layout, as `MPI_Wtime` since the
/// epoch prints it (integer µs near 1.7·10¹⁵, `%.0f` of `PMPI_Wtime()*1e6`): `rounds`
/// rounds of compute, a ring exchange and an allreduce, with seeded compute and call
/// times. Returns the rank files' texts and each rank's span from MPI_Init's return to
/// MPI_Finalize's call less the time inside calls, ps.
fn epoch_trace(seed: u64, rounds: u32) -> (Vec<String>, Vec<u64>) {
    let mut rng = Rng(seed);
    let mut files = Vec::new();
    let mut spans = Vec::new();
    for r in 0..4u32 {
        let mut t: u64 = 1_765_432_100_000_000 + rng.below(5000); // µs since the epoch
        let mut text = String::from(HEADER);
        text += &format!("MPI_Init:-:140737488340112:140737488340104:{t}\n");
        let mut outside = 0;
        let comm = format!("0,{r},4");
        let (right, left) = ((r + 1) % 4, (r + 3) % 4);
        for _ in 0..rounds {
            let mut call = |name: &str, args: String, rng: &mut Rng| {
                let gap = 1 + rng.below(20_000); // µs of compute before it
                let inside = 1 + rng.below(50);
                t += gap;
                outside += gap;
                text += &format!("{name}:{t}:{args}:{}\n", t + inside);
                t += inside;
            };
            call("MPI_Isend", format!("11251872:250:11,4,4:{right}:3:{comm}:7104000"), &mut rng);
            call("MPI_Irecv", format!("11251880:250:11,4,4:{left}:3:{comm}:7104008"), &mut rng);
            call("MPI_Waitall", "2:7104000:140734714680384".into(), &mut rng);
            call("MPI_Allreduce", format!("1:2:1:11,8,8:3:{comm}"), &mut rng);
        }
        let gap = rng.below(1000);
        t += gap;
        outside += gap;
        text += &format!("MPI_Finalize:{t}:-\n");
        files.push(text);
        spans.push(outside * 1_000_000);
    }
    (files, spans)
}

#[test]
fn a_trace_on_the_epoch_clock_replays_its_whole_compute() {
    // Replayed compute is the trace's own span less the time inside calls, rank by
    // rank, to the ps: no time between calls is dropped (at epoch-scale times a
    // conversion to ps that saturates made every gap 0).
    for seed in [1, 7, 12345] {
        let (files, spans) = epoch_trace(seed, 30);
        let named: Vec<(String, String)> =
            files.into_iter().enumerate().map(|(r, t)| (format!("pmpi-trace-rank-{r}.txt"), t)).collect();
        let dir = trace(&named.iter().map(|(n, t)| (n.as_str(), t.clone())).collect::<Vec<_>>());
        let path = dir.path().to_str().unwrap();
        let r = read_trace(path).unwrap();
        let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
        let compute: Vec<u64> = run.ranks.iter().map(|s| s.compute_ps).collect();
        assert_eq!(compute, spans, "seed {seed}");
        // trace info measures each rank from MPI_Init's return to MPI_Finalize's call
        let info = trace_info(path).unwrap();
        for (m, span) in info.measured.iter().zip(&spans) {
            assert!(m.duration_ps() >= *span, "{} < {span}", m.duration_ps());
        }
        // the makespan is at least the longest rank's compute: the 66x-too-fast replay
        // (compute 0) fails here
        assert!(run.ranks.iter().map(|s| s.end_ps).max().unwrap() >= *spans.iter().max().unwrap());
    }
}

#[test]
fn the_collective_profilers_file_names_read_the_same() {
    let (files, spans) = epoch_trace(3, 5);
    let named: Vec<(String, String)> =
        files.into_iter().enumerate().map(|(r, t)| (format!("htor-coll-rank-{r}.dat"), t)).collect();
    let dir = trace(&named.iter().map(|(n, t)| (n.as_str(), t.clone())).collect::<Vec<_>>());
    for path in [dir.path().to_path_buf(), dir.path().join("htor-coll-rank-2.dat")] {
        let r = read_trace(path.to_str().unwrap()).unwrap();
        assert_eq!(r.schedule.num_ranks, 4);
        let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
        assert_eq!(run.ranks.iter().map(|s| s.compute_ps).collect::<Vec<_>>(), spans);
    }
    // a rank missing in this naming is named in it
    std::fs::remove_file(dir.path().join("htor-coll-rank-1.dat")).unwrap();
    let e = error(dir.path().to_str().unwrap());
    assert!(e.contains("rank 1's (htor-coll-rank-1.dat) is missing"), "{e}");
}

#[test]
fn a_clock_the_reader_cannot_interpret_is_refused_in_one_line() {
    // 10^8 s past the first time (more than the 213 days 64-bit ps hold)
    let far =
        RANK1.replace("MPI_Send:2022:", "MPI_Send:100000000002022:").replace(":0,1,2:2023", ":0,1,2:100000000002023");
    let dir = two_ranks(HEADER, RANK0, &far);
    let e = error(dir.path().to_str().unwrap());
    assert!(e.contains("pmpi-trace-rank-1.txt: line 7: MPI_Send at") && e.contains("cannot interpret"), "{e}");
    // a time that is not a number
    let dir = two_ranks(HEADER, RANK0, &RANK1.replace("MPI_Send:2022:", "MPI_Send:20x2:"));
    assert!(error(dir.path().to_str().unwrap()).contains("line 7: not a call record"));
}
