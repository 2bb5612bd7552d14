//! DUMPI traces written here, following the layout of sst-dumpi's `dumpi/common/io.c`
//! and `dumpiio.c` (big-endian; magic, body, end-of-stream label, header, datatype
//! sizes, index), replayed against times derived by hand, and bad ones refused in one
//! line naming the file.
//!
//! The program is tests/allprof.rs's (the same hand derivation): L = 5 us, o = 1 us,
//! g = 0, G = 6 ns/B; rank 0 sends 8 B to rank 1 and receives 8 B from it, then both
//! allreduce 8 B. Rank 0 ends at 27 084 ns, rank 1 at 27 126 ns.

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_core::Error;
use netsens_trace::{read_trace, read_trace_compute, trace_info, Algorithms, Compute, Support};

mod dumpi_writer;
use dumpi_writer::layouts::LAYOUTS;
use dumpi_writer::{Bin, A};

const NS: u64 = 1000;
const WORLD: u16 = 2;
use dumpi_writer::DOUBLE;
/// Function labels (`dumpi_function`).
const SEND: u16 = 0;
const RECV: u16 = 1;
const ISEND: u16 = 8;
const IRECV: u16 = 12;
const WAIT: u16 = 13;
const WAITANY: u16 = 16;
const WAITALL: u16 = 18;
const SEND_INIT: u16 = 26;
const START: u16 = 31;
const COMM_DUP: u16 = 84;
const COMM_CREATE: u16 = 85;
const COMM_SPLIT: u16 = 86;
const BARRIER: u16 = 52;
const BCAST: u16 = 53;
const GATHER: u16 = 54;
const ALLTOALL: u16 = 60;
const ALLREDUCE: u16 = 65;
const INIT: u16 = 124;
const FINALIZE: u16 = 125;
const PUT: u16 = 143;

fn init(t: f64) -> Bin {
    Bin::new().call(INIT, t - 10.0, t, &[A::I(1), A::I(4), A::I(0x61626364)])
}

/// `count` doubles to or from `peer` with `tag` on MPI_COMM_WORLD.
fn p2p(count: i32, peer: i32, tag: i32) -> Vec<A> {
    vec![A::I(count), A::H(DOUBLE), A::I(peer), A::I(tag), A::H(WORLD)]
}

fn with(mut args: Vec<A>, more: A) -> Vec<A> {
    args.push(more);
    args
}

fn allreduce(b: Bin, start: f64, end: f64) -> Bin {
    b.call(ALLREDUCE, start, end, &[A::I(1), A::H(DOUBLE), A::B(3), A::H(WORLD)])
}

/// The program with blocking calls and a wildcard receive, as tests/allprof.rs's.
fn blocking() -> [Vec<u8>; 2] {
    let r0 = init(1000.0)
        .call(SEND, 1003.0, 1004.0, &p2p(1, 1, 7))
        .call(IRECV, 1010.0, 1010.0, &with(p2p(1, -1, -1), A::I(5)))
        .call(WAIT, 1012.0, 1040.0, &[A::I(5), A::Status(8, 1, 9)]);
    let r0 = allreduce(r0, 1041.0, 1050.0).call(FINALIZE, 1050.0, 1050.0, &[]);
    let r1 = init(2000.0).call(RECV, 2005.0, 2020.0, &with(p2p(1, 0, 7), A::Status(8, 0, 7))).call(
        SEND,
        2022.0,
        2023.0,
        &p2p(1, 0, 9),
    );
    let r1 = allreduce(r1, 2030.0, 2040.0).call(FINALIZE, 2040.0, 2040.0, &[]);
    [r0.finish(), r1.finish()]
}

/// A trace directory: `run.meta` and `run-NNNN.bin` for each of `bins`.
fn trace(bins: &[Vec<u8>]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let meta = format!(
        "hostname=host\nnumprocs={}\nusername=user\nstartime=1700000000\nfileprefix=/scratch/user/run\nversion=0\nsubversion=8\nsubsubversion=0\n",
        bins.len()
    );
    std::fs::write(dir.path().join("run.meta"), meta).unwrap();
    for (r, bin) in bins.iter().enumerate() {
        std::fs::write(dir.path().join(format!("run-{r:04}.bin")), bin).unwrap();
    }
    dir
}

fn meta(dir: &tempfile::TempDir) -> String {
    dir.path().join("run.meta").to_str().unwrap().to_string()
}

fn platform() -> Platform {
    let mut p = Platform::resolve("loggopsim").unwrap();
    p.set_all(&[("L", "5us"), ("o", "1us"), ("g", "0us"), ("G", "6ns/B"), ("O", "0ns/B")]).unwrap();
    p
}

fn ends(path: &str) -> Vec<u64> {
    let r = read_trace(path).unwrap();
    let run = run_schedule(&r.schedule, &platform(), &RunOptions::default()).unwrap();
    run.ranks.iter().map(|s| s.end_ps / NS).collect()
}

#[track_caller]
fn error(path: &str) -> String {
    let Some(e) = read_trace(path).err() else { panic!("{path} replays") };
    assert!(matches!(e, Error::Input(_)), "{e:?}");
    let text = e.to_string();
    assert!(!text.contains('\n'), "{text}");
    text
}

#[test]
fn blocking_calls_replay_to_the_hand_derived_ends() {
    let dir = trace(&blocking());
    assert_eq!(ends(&meta(&dir)), [27084, 27126]);
    // the directory holding the .meta stands for it
    assert_eq!(ends(dir.path().to_str().unwrap()), [27084, 27126]);
    // rank 0 computes 250 ns more before its send: everything after moves 250 ns
    let [_, r1] = blocking();
    let r0 = init(1000.0)
        .call(SEND, 1003.25, 1004.0, &p2p(1, 1, 7))
        .call(IRECV, 1010.0, 1010.0, &with(p2p(1, -1, -1), A::I(5)))
        .call(WAIT, 1012.0, 1040.0, &[A::I(5), A::Status(8, 1, 9)]);
    let r0 = allreduce(r0, 1041.0, 1050.0).call(FINALIZE, 1050.0, 1050.0, &[]);
    assert_eq!(ends(&meta(&trace(&[r0.finish(), r1]))), [27334, 27376]);
}

#[test]
fn non_blocking_and_persistent_calls_replay_as_their_blocking_forms() {
    // an eager send is its isend and its wait (LOGGP.md): the same ends as blocking()
    let r0 = init(1000.0)
        .call(SEND_INIT, 1003.0, 1003.0, &with(p2p(1, 1, 7), A::I(3)))
        .call(START, 1003.0, 1003.5, &[A::I(3)])
        .call(WAIT, 1003.5, 1004.0, &[A::I(3), A::Status(0, 0, 0)])
        .call(IRECV, 1010.0, 1010.0, &with(p2p(1, -1, -1), A::I(5)))
        .call(WAITANY, 1012.0, 1040.0, &[A::I(2), A::Arr(vec![9, 5]), A::I(1), A::Status(8, 1, 9)]);
    let r0 = allreduce(r0, 1041.0, 1050.0).call(FINALIZE, 1050.0, 1050.0, &[]);
    let r1 = init(2000.0)
        .call(IRECV, 2005.0, 2005.0, &with(p2p(1, 0, 7), A::I(1)))
        .call(WAIT, 2005.0, 2020.0, &[A::I(1), A::Status(8, 0, 7)])
        .call(ISEND, 2022.0, 2022.5, &with(p2p(1, 0, 9), A::I(2)))
        .call(WAITALL, 2022.5, 2023.0, &[A::I(1), A::Arr(vec![2]), A::Statuses(vec![(0, 0, 0)])]);
    let r1 = allreduce(r1, 2030.0, 2040.0).call(FINALIZE, 2040.0, 2040.0, &[]);
    assert_eq!(ends(&meta(&trace(&[r0.finish(), r1.finish()]))), [27084, 27126]);
}

/// The same collectives as a liballprof trace, which tests/allprof.rs checks by hand.
#[test]
fn collectives_replay_as_the_same_calls_of_a_liballprof_trace() {
    let coll = |rank: i32, t: f64| {
        let me = rank;
        init(t)
            .call(BARRIER, t + 2.0, t + 3.0, &[A::H(WORLD)])
            .call(BCAST, t + 5.0, t + 6.0, &[A::I(100), A::H(DOUBLE), A::I(1), A::H(WORLD)])
            .call(GATHER, t + 8.0, t + 9.0, &{
                let mut a = vec![A::I(me), A::I(4), A::H(DOUBLE), A::I(0), A::H(WORLD)];
                if me == 0 {
                    a.extend([A::I(4), A::H(DOUBLE)]);
                }
                a
            })
            .call(ALLTOALL, t + 10.0, t + 11.0, &[A::I(16), A::H(DOUBLE), A::I(16), A::H(DOUBLE), A::H(WORLD)])
            .call(FINALIZE, t + 12.0, t + 12.0, &[])
            .finish()
    };
    let dumpi = trace(&[coll(0, 1000.0), coll(1, 2000.0), coll(2, 3000.0)]);
    let allprof = tempfile::tempdir().unwrap();
    for (r, t) in [(0, 1000), (1, 2000), (2, 3000)] {
        let text = format!(
            "# htor's PMPI Tracer 1 Output File\nMPI_Init:-:1:2:{t}\nMPI_Barrier:{}:0,{r},3:{}\n\
             MPI_Bcast:{}:7:100:11,8,8:1:0,{r},3:{}\nMPI_Gather:{}:7:4:11,8,8:8:4:11,8,8:0:0,{r},3:{}\n\
             MPI_Alltoall:{}:7:16:11,8,8:8:16:11,8,8:0,{r},3:{}\nMPI_Finalize:{}:-\n",
            t + 2,
            t + 3,
            t + 5,
            t + 6,
            t + 8,
            t + 9,
            t + 10,
            t + 11,
            t + 12
        );
        std::fs::write(allprof.path().join(format!("pmpi-trace-rank-{r}.txt")), text).unwrap();
    }
    let expected = ends(allprof.path().to_str().unwrap());
    assert!(expected.iter().all(|&e| e > 12_000), "{expected:?}");
    assert_eq!(ends(&meta(&dumpi)), expected);
}

#[test]
fn trace_info_names_the_tracer_and_counts_the_calls() {
    let dir = trace(&blocking());
    let info = trace_info(&meta(&dir)).unwrap();
    assert_eq!((info.tracer.as_str(), info.ranks, info.ticks_per_second), ("DUMPI", 2, 1_000_000_000));
    // measured from MPI_Init's return to MPI_Finalize: 50 µs and 40 µs
    let measured: Vec<u64> = info.measured.iter().map(|m| m.duration_ps() / NS).collect();
    assert_eq!(measured, [50_000, 40_000]);
    let count = |name: &str| info.calls.iter().find(|c| c.name == name).map(|c| c.count);
    assert_eq!((count("MPI_Allreduce"), count("MPI_Send"), count("MPI_Recv")), (Some(2), Some(2), Some(1)));
}

#[test]
fn bad_dumpi_traces_are_one_line_naming_the_file() {
    let [r0, r1] = blocking();
    // a .bin cut short: its index is gone
    let dir = trace(&[r0.clone(), r1[..r1.len() - 30].to_vec()]);
    let e = error(&meta(&dir));
    assert!(e.contains("run-0001.bin: truncated"), "{e}");
    // a rank's file missing
    let dir = trace(&[r0.clone(), r1.clone()]);
    std::fs::remove_file(dir.path().join("run-0001.bin")).unwrap();
    let e = error(&meta(&dir));
    assert!(e.contains("run-0001.bin: missing") && e.contains("2 ranks, 1 of"), "{e}");
    // a .meta without its bins
    let dir = trace(&[]);
    std::fs::write(dir.path().join("run.meta"), "numprocs=4\nfileprefix=run\n").unwrap();
    let e = error(&meta(&dir));
    assert!(e.contains("run-0000.bin: missing") && e.contains("4 ranks, 0 of"), "{e}");
    // a call replay does not model
    let put = init(1000.0).call(PUT, 1001.0, 1002.0, &[A::I(1)]);
    let e = error(&meta(&trace(&[put.finish(), r1.clone()])));
    assert!(e.contains("run.meta: rank 0, event 2: MPI_Put is an MPI call replay does not model"), "{e}");
    // a record running past the calls
    let short = init(1000.0).call(SEND, 1001.0, 1002.0, &[A::I(1), A::H(DOUBLE), A::I(1)]);
    let e = error(&meta(&trace(&[short.finish(), r1.clone()])));
    assert!(e.contains("run-0000.bin: truncated: a record at byte"), "{e}");
    // a directory where the .meta or a .bin should be
    let dir = trace(&[r0.clone(), r1.clone()]);
    std::fs::create_dir(dir.path().join("x.meta")).unwrap();
    let e = error(dir.path().join("x.meta").to_str().unwrap());
    assert!(e.ends_with("x.meta: a directory, not a DUMPI .meta file"), "{e}");
    std::fs::remove_file(dir.path().join("run-0001.bin")).unwrap();
    std::fs::create_dir(dir.path().join("run-0001.bin")).unwrap();
    let e = error(&meta(&dir));
    assert!(e.contains("run-0001.bin: a directory, not a DUMPI .bin file"), "{e}");
    // not DUMPI at all
    let dir = trace(&[r0, b"hello, world, not a trace".to_vec()]);
    let e = error(&meta(&dir));
    assert!(e.contains("run-0001.bin: not a DUMPI file"), "{e}");
    // a call from a second thread
    let threaded = init(1000.0).call_by(2, BARRIER, 1001.0, 1002.0, &[A::H(WORLD)]);
    let e = error(&meta(&trace(&[threaded.finish(), blocking()[1].clone()])));
    assert!(e.contains("run-0000.bin: record 2 (MPI_Barrier): called by thread 2"), "{e}");
    // a communicator made from a group the trace does not define: its members are unknown
    let create = init(1000.0).call(COMM_CREATE, 1001.0, 1002.0, &[A::H(WORLD), A::H(5), A::H(4)]).call(
        BARRIER,
        1003.0,
        1004.0,
        &[A::H(4)],
    );
    let e = error(&meta(&trace(&[create.finish(), blocking()[1].clone()])));
    assert!(e.contains("run-0000.bin: record 3 (MPI_Barrier): communicator 4 is not one whose members"), "{e}");
}

/// A record is refused only where the file is damaged: a label libdumpi never writes,
/// a mask with bits no version sets, a count past the end of the calls.
#[test]
fn damaged_records_are_one_line_naming_the_file_and_the_damage() {
    let [_, r1] = blocking();
    let bad = |b: Bin| error(&meta(&trace(&[b.finish(), r1.clone()])));
    let e = bad(init(1000.0).call(label("MPI_Pcontrol"), 1001.0, 1002.0, &[]));
    assert!(
        e.contains("run-0000.bin: damaged: record 2 at byte")
            && e.contains("(MPI_Pcontrol), which libdumpi never writes"),
        "{e}"
    );
    let e = bad(init(1000.0).call(400, 1001.0, 1002.0, &[]));
    assert!(e.contains("run-0000.bin: damaged: record 2") && e.contains("400, not a DUMPI function label"), "{e}");
    let e = bad(init(1000.0).call_masked(0b0111_1001, BARRIER, 1001.0, 1002.0, &[A::H(WORLD)]));
    assert!(e.contains("run-0000.bin: record 2 (MPI_Barrier): damaged: its mask 0x79"), "{e}");
    // a clock that runs back: the 16-bit seconds of a call past 65 536 s wrap
    let e = bad(init(65_535.5e6).call(BARRIER, 65_536e6 + 1.0, 65_536e6 + 2.0, &[A::H(WORLD)]));
    assert!(e.contains("record 2 (MPI_Barrier): its wall clock runs back 65535 s"), "{e}");
    // MPI_Group_incl with a count of 2^31 ranks
    let incl = [A::H(5), A::I(1), A::I(i32::MAX), A::I(0), A::H(6)];
    let e = bad(init(1000.0).call(label("MPI_Group_incl"), 1001.0, 1002.0, &incl));
    assert!(
        e.contains("run-0000.bin: truncated or damaged: a count at byte") && e.contains("2147483647 values"),
        "{e}"
    );
}

/// The function label of the call `name`.
fn label(name: &str) -> u16 {
    LAYOUTS.iter().position(|&(n, _)| n == name).unwrap_or_else(|| panic!("{name}")) as u16
}

/// One rank calling every call DUMPI records once, each record written from the
/// layout table (dumpi_writer/layouts.rs) with sample arguments (`A::sample`), 1 µs
/// apart; `keep` says which calls.
fn every_record(version: [u8; 3], keep: impl Fn(&str) -> bool) -> Vec<u8> {
    let argc = if version < [0, 6, 2] { vec![A::I(0), A::I(0)] } else { vec![A::I(0)] };
    let mut b = Bin::of_version(version).call(label("MPI_Init"), 990.0, 1000.0, &argc);
    let mut t = 1000.0;
    for (l, &(name, layout)) in LAYOUTS.iter().enumerate() {
        if layout == "-" || name == "MPI_Init" || name == "MPI_Finalize" || !keep(name) {
            continue;
        }
        let mut args = A::from_layout(layout);
        if version < [0, 6, 2] && layout == "A" {
            args.insert(0, A::I(1)); // argc, written twice
        }
        if version < [0, 6, 9] && layout.contains('9') || version < [0, 6, 8] && layout.contains('8') {
            // one integer where later versions write the array
            let at = layout.replace(['[', ']'], "").find(['9', '8']).unwrap();
            args[at] = A::I(-2);
        }
        b = b.call(l as u16, t + 0.25, t + 1.0, &args);
        t += 1.0;
    }
    for function in [291, 292] {
        b = b.call(function, t + 0.25, t + 1.0, &[A::L(0x4000)]);
        t += 1.0;
    }
    b.call(label("MPI_Finalize"), t + 0.5, t + 0.5, &[]).finish()
}

/// sst-dumpi's list of records is closed: every one of them is read (and skipped when
/// it carries no message of the program's own) in the layout of the DUMPI version that
/// wrote the file, so `trace info` counts each call once.
#[test]
fn every_dumpi_record_is_read_in_its_layout() {
    for version in [[0, 8, 0], [0, 6, 1]] {
        let dir = trace(&[every_record(version, |_| true)]);
        let info = trace_info(&meta(&dir)).unwrap_or_else(|e| panic!("{version:?}: {e}"));
        let written: Vec<&str> = LAYOUTS.iter().filter(|(_, l)| *l != "-").map(|(n, _)| *n).collect();
        assert_eq!(info.calls.len(), written.len(), "{version:?}");
        assert!(info.calls.iter().all(|c| c.count == 1 && written.contains(&c.name.as_str())), "{version:?}");
        // each call's region entered and left, and one event for each of the 16
        // collectives (on MPI_COMM_SELF; the point-to-point calls are to and from
        // MPI_PROC_NULL: no message)
        let collectives = ["Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv"]
            .iter()
            .chain(&["Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter", "Scan", "Exscan"])
            .count() as u64;
        assert_eq!(info.events, 2 * written.len() as u64 + collectives, "{version:?}");
        // what replay does not model is named; the rest replays
        let refused: Vec<&str> =
            info.calls.iter().filter(|c| c.support == Support::NotModelled).map(|c| c.name.as_str()).collect();
        assert!(refused.contains(&"MPI_Put") && refused.contains(&"MPI_Win_fence"), "{refused:?}");
        let replayable = trace(&[every_record(version, |name| !refused.contains(&name))]);
        let r = read_trace(&meta(&replayable)).unwrap_or_else(|e| panic!("{version:?}: {e}"));
        assert_eq!(r.ranks, 1);
    }
}

/// Four ranks split MPI_COMM_WORLD by parity with keys reversing the order: {2, 0} and
/// {3, 1}; rank 0 of each (world 2 and 3) sends 8 B to rank 1 (world 0 and 1) on the
/// split communicator's duplicate. Each rank starts where MPI_Init returns; the split
/// and the duplicate (1 µs each) are kept as compute, as every communicator creation.
/// Senders: 2 µs of creation + 1 µs to the send, CPU 3000 to 4000 ns, arrival 9000;
/// receivers: done at 9000 + o + 7·G = 10 042 ns. Read in the other order, world 0
/// and 1 would send, to ranks that never receive.
#[test]
fn split_communicators_map_their_members_from_every_rank_records() {
    let rank = |world: i32| {
        let t = 1000.0 * f64::from(world + 1);
        let b = init(t).call(COMM_SPLIT, t, t + 1.0, &[A::H(WORLD), A::I(world % 2), A::I(-world), A::H(4)]).call(
            COMM_DUP,
            t + 1.0,
            t + 2.0,
            &[A::H(4), A::H(5)],
        );
        let comm = |peer| vec![A::I(1), A::H(DOUBLE), A::I(peer), A::I(3), A::H(5)];
        let b = if world >= 2 {
            b.call(SEND, t + 3.0, t + 3.5, &comm(1)).call(FINALIZE, t + 3.5, t + 3.5, &[])
        } else {
            let b = b.call(RECV, t + 2.5, t + 20.0, &with(comm(0), A::Status(8, 0, 3)));
            b.call(FINALIZE, t + 20.0, t + 20.0, &[])
        };
        b.finish()
    };
    let dir = trace(&[rank(0), rank(1), rank(2), rank(3)]);
    assert_eq!(ends(&meta(&dir)), [10042, 10042, 4000, 4000]);
}

/// With the process's CPU time recorded, compute is charged from it (the default), as
/// for netsens's own traces: rank 0's 3 µs of wall time before its send are 2 µs of
/// CPU, so everything after moves 1000 ns earlier; `--compute wall` gives the wall
/// clock's ends.
#[test]
fn recorded_cpu_time_is_the_compute_unless_wall_is_asked() {
    let [_, r1] = blocking();
    let r0 = Bin::new()
        .call_cpu((990.0, 1000.0), INIT, 990.0, 1000.0, &[A::I(0)])
        .call_cpu((1002.0, 1004.0), SEND, 1003.0, 1004.0, &p2p(1, 1, 7))
        .call_cpu((1010.0, 1010.0), IRECV, 1010.0, 1010.0, &with(p2p(1, -1, -1), A::I(5)))
        .call_cpu((1012.0, 1040.0), WAIT, 1012.0, 1040.0, &[A::I(5), A::Status(8, 1, 9)])
        .call_cpu((1041.0, 1050.0), ALLREDUCE, 1041.0, 1050.0, &[A::I(1), A::H(DOUBLE), A::B(3), A::H(WORLD)])
        .call_cpu((1050.0, 1050.0), FINALIZE, 1050.0, 1050.0, &[]);
    let dir = trace(&[r0.finish(), r1]);
    assert_eq!(ends(&meta(&dir)), [26084, 26126]);
    let wall = read_trace_compute(&meta(&dir), Algorithms::default(), Compute::Wall).unwrap();
    let run = run_schedule(&wall.schedule, &platform(), &RunOptions::default()).unwrap();
    assert_eq!(run.ranks.iter().map(|s| s.end_ps / NS).collect::<Vec<_>>(), [27084, 27126]);
}

/// Four ranks: rank 3 sends 8 B to rank 1 on a communicator only they are in, made
/// three ways, each from what every rank's records say. The communicator's creation
/// (2 µs) is kept as compute, as every communicator creation; then, as in the split
/// test above, the sender's send at 3000 ns (CPU to 4000) arrives at 9000 and the
/// receive is done at 10 042 ns; ranks 0 and 2 create nothing more and end at 2000.
/// Read in world order instead of the group's, rank 1 would be the sender.
fn pair_from(create: impl Fn(Bin, f64, i32) -> (Bin, u16)) -> Vec<u64> {
    let rank = |world: i32| {
        let t = 1000.0 * f64::from(world + 1);
        let (b, comm) = create(init(t), t, world);
        let msg = |peer| vec![A::I(1), A::H(DOUBLE), A::I(peer), A::I(3), A::H(comm)];
        let b = match world {
            3 => b.call(SEND, t + 3.0, t + 3.5, &msg(1)).call(FINALIZE, t + 3.5, t + 3.5, &[]),
            1 => b.call(RECV, t + 2.5, t + 20.0, &with(msg(0), A::Status(8, 0, 3))).call(
                FINALIZE,
                t + 20.0,
                t + 20.0,
                &[],
            ),
            _ => b.call(FINALIZE, t + 2.0, t + 2.0, &[]),
        };
        b.finish()
    };
    ends(&meta(&trace(&[rank(0), rank(1), rank(2), rank(3)])))
}

#[test]
fn communicators_from_groups_and_topologies_map_their_members() {
    // MPI_Comm_group of MPI_COMM_WORLD, MPI_Group_incl of ranks 3 and 1 (in that
    // order), MPI_Comm_create: ranks 0 and 2 get MPI_COMM_NULL (handle 1)
    let from_group = pair_from(|b, t, world| {
        let b = b.call(label("MPI_Comm_group"), t, t, &[A::H(WORLD), A::H(5)]).call(
            label("MPI_Group_incl"),
            t,
            t,
            &[A::H(5), A::I(2), A::Arr(vec![3, 1]), A::H(6)],
        );
        let comm = if world % 2 == 1 { 7 } else { 1 };
        (b.call(COMM_CREATE, t, t + 2.0, &[A::H(WORLD), A::H(6), A::H(comm)]), 7)
    });
    assert_eq!(from_group, [2000, 10042, 2000, 4000]);
    // the same group as MPI_COMM_WORLD less ranks 0 and 2 (MPI_Group_excl keeps the
    // order: 1, 3), then {3} ∪ that: 3, 1
    let union = pair_from(|b, t, world| {
        let b = b
            .call(label("MPI_Comm_group"), t, t, &[A::H(WORLD), A::H(5)])
            .call(label("MPI_Group_excl"), t, t, &[A::H(5), A::I(2), A::Arr(vec![2, 0]), A::H(6)])
            .call(label("MPI_Group_range_incl"), t, t, &[A::H(5), A::I(1), A::I(1), A::Arr(vec![3, 3, 1]), A::H(8)])
            .call(label("MPI_Group_union"), t, t, &[A::H(8), A::H(6), A::H(9)]);
        let comm = if world % 2 == 1 { 7 } else { 1 };
        (b.call(COMM_CREATE, t, t + 2.0, &[A::H(WORLD), A::H(9), A::H(comm)]), 7)
    });
    assert_eq!(union, [2000, 10042, 2000, 4000]);
    // a 2 × 2 Cartesian grid (rank = 2·row + column) split into its columns
    // (remain_dims 1, 0): {0, 2} and {1, 3}, ranked by row: ranks 0 and 1 (row 0)
    // send to rank 1 of their column, ranks 2 and 3
    let grid = |b: Bin, t: f64| {
        b.call(
            label("MPI_Cart_create"),
            t,
            t + 1.0,
            &[A::H(WORLD), A::I(2), A::Arr(vec![2, 2]), A::Arr(vec![0, 0]), A::I(0), A::H(4)],
        )
        .call(label("MPI_Cart_sub"), t + 1.0, t + 2.0, &[A::I(2), A::H(4), A::Arr(vec![1, 0]), A::H(7)])
    };
    let rank = |world: i32| {
        let t = 1000.0 * f64::from(world + 1);
        let b = grid(init(t), t);
        let msg = |peer| vec![A::I(1), A::H(DOUBLE), A::I(peer), A::I(3), A::H(7)];
        let b = if world < 2 {
            b.call(SEND, t + 3.0, t + 3.5, &msg(1)).call(FINALIZE, t + 3.5, t + 3.5, &[])
        } else {
            b.call(RECV, t + 2.5, t + 20.0, &with(msg(0), A::Status(8, 0, 3))).call(FINALIZE, t + 20.0, t + 20.0, &[])
        };
        b.finish()
    };
    // rows would pair 0 with 1 and 2 with 3: senders to senders, never received
    assert_eq!(ends(&meta(&trace(&[rank(0), rank(1), rank(2), rank(3)]))), [4000, 4000, 10042, 10042]);
}

/// MPI_Alltoallw replays as the MPI_Alltoallv of the same bytes: 3 doubles to and
/// from each of 2 ranks, as one datatype or two.
#[test]
fn alltoallw_replays_as_the_alltoallv_of_its_bytes() {
    let run = |w: bool| {
        let rank = |t: f64| {
            let args = if w {
                // 3 doubles to rank 0, 24 bytes (datatype 5: 1 byte) to rank 1
                vec![
                    A::I(2),
                    A::Arr(vec![3, 24]),
                    A::Arr(vec![0, 0]),
                    A::Arr16(vec![DOUBLE, 5]),
                    A::Arr(vec![3, 3]),
                    A::Arr(vec![0, 0]),
                    A::Arr16(vec![DOUBLE, DOUBLE]),
                    A::H(WORLD),
                ]
            } else {
                vec![
                    A::I(2),
                    A::Arr(vec![3, 3]),
                    A::Arr(vec![0, 0]),
                    A::H(DOUBLE),
                    A::Arr(vec![3, 3]),
                    A::Arr(vec![0, 0]),
                    A::H(DOUBLE),
                    A::H(WORLD),
                ]
            };
            let call = if w { label("MPI_Alltoallw") } else { label("MPI_Alltoallv") };
            init(t).call(call, t + 1.0, t + 2.0, &args).call(FINALIZE, t + 3.0, t + 3.0, &[]).finish()
        };
        ends(&meta(&trace(&[rank(1000.0), rank(2000.0)])))
    };
    let v = run(false);
    assert!(v.iter().all(|&e| e > 6000), "{v:?}");
    assert_eq!(run(true), v);
}
