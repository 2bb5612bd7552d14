//! A liballprof trace written here, replayed by netsens on the `loggopsim` platform and
//! by LogGOPSim on the GOAL that Schedgen makes of the same trace: every rank ends at
//! the same time. Both expand a barrier as a dissemination; they cannot agree on an
//! allreduce (Schedgen: dissemination with the whole vector each round; netsens:
//! recursive doubling), an alltoall (linear; netsens: pairwise exchange) or a
//! reduce/bcast whose tree Schedgen orders otherwise, so the trace has none.
//!
//! LogGOPSim's end times for this trace (`LOGGOPSIM_ENDS_NS`) were produced once by
//! LogGOPSim and Schedgen built from source and checked by hand against the trace (a
//! golden vector, as DESIGN.md allows); with `LOGGOPSIM_SRC` naming a LogGOPSim
//! checkout's `src` with LogGOPSim/LogGOPSim, LogGOPSim/txt2bin and Schedgen/schedgen
//! built (docs/guides/traces.md says how), the test runs them again and checks the
//! vector too.

use std::path::Path;
use std::process::Command;

use netsens_core::engine::RunOptions;
use netsens_core::platform::Platform;
use netsens_core::schedule::executor::run_schedule;
use netsens_trace::read_trace;

/// Rank `r` of 4: compute, a ring exchange of 1000 B with Isend/Irecv/Waitall, a
/// barrier, an exchange of 100 B with rank r ^ 1 in MPI_Sendrecv, compute.
fn rank_file(r: u32) -> String {
    let t0 = 5000 + 7 * u64::from(r); // each rank's own clock
    let c: u64 = [3, 11, 5, 8][r as usize]; // µs of compute, different per rank
    let (right, left, partner) = ((r + 1) % 4, (r + 3) % 4, r ^ 1);
    let comm = format!("0,{r},4");
    let mut t = t0;
    let mut lines = vec![format!("MPI_Init:-:1:2:{t}")];
    let mut call = |text: String, before: u64, takes: u64| {
        t += before;
        lines.push(format!(
            "{}:{}:{}:{}",
            text.split(':').next().unwrap(),
            t,
            &text[text.find(':').unwrap() + 1..],
            t + takes
        ));
        t += takes;
    };
    call(format!("MPI_Isend:11:1000:1,1,1:{right}:1:{comm}:7000000"), c, 1);
    call(format!("MPI_Irecv:12:1000:1,1,1:{left}:1:{comm}:7000008"), 1, 1);
    call("MPI_Waitall:2:7000000:7000100".to_string(), 2 * c, 20);
    call(format!("MPI_Barrier:{comm}"), 4, 30);
    call(format!("MPI_Sendrecv:13:100:1,1,1:{partner}:2:14:100:1,1,1:{partner}:2:{comm}:7000200"), c + 1, 15);
    lines.push(format!("MPI_Finalize:{}:-", t + 6));
    format!("# htor's PMPI Tracer 1 Output File\n\n{}\n", lines.join("\n"))
}

fn loggopsim_ends(src: &Path, dir: &Path) -> Vec<u64> {
    let run = |program: &Path, args: &[&str]| {
        let out = Command::new(program).args(args).current_dir(dir).output().unwrap();
        assert!(out.status.success(), "{}: {}", program.display(), String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let rank0 = dir.join("pmpi-trace-rank-0.txt");
    run(&src.join("Schedgen/schedgen"), &["-p", "trace", "--traces", rank0.to_str().unwrap(), "-o", "s.goal"]);
    run(&src.join("LogGOPSim/txt2bin"), &["-i", "s.goal", "-o", "s.bin"]);
    let out = run(
        &src.join("LogGOPSim/LogGOPSim"),
        &["-f", "s.bin", "-L", "5000", "-o", "1000", "-g", "1000", "-G", "6", "-O", "0", "-S", "65536"],
    );
    // "Host 0: 29084"
    out.lines().filter_map(|l| l.strip_prefix("Host ")?.split_once(": ")?.1.trim().parse().ok()).collect()
}

/// What LogGOPSim printed per host (ns) for Schedgen's GOAL of `rank_file`'s trace with
/// L = 5 us, o = g = 1 us, G = 6 ns/B, O = 0, S = 65536 B.
const LOGGOPSIM_ENDS_NS: [u64; 4] = [75588, 79588, 78588, 75588];

#[test]
fn replay_agrees_with_loggopsim_on_schedgens_goal_of_the_same_trace() {
    let dir = tempfile::tempdir().unwrap();
    for r in 0..4 {
        std::fs::write(dir.path().join(format!("pmpi-trace-rank-{r}.txt")), rank_file(r)).unwrap();
    }
    let expected = LOGGOPSIM_ENDS_NS.to_vec();
    if let Some(src) = std::env::var_os("LOGGOPSIM_SRC") {
        assert_eq!(loggopsim_ends(Path::new(&src), dir.path()), expected, "LogGOPSim itself");
    }
    let mut platform = Platform::resolve("loggopsim").unwrap();
    platform
        .set_all(&[("L", "5us"), ("o", "1us"), ("g", "1us"), ("G", "6ns/B"), ("O", "0ns/B"), ("S", "65536B")])
        .unwrap();
    let r = read_trace(dir.path().to_str().unwrap()).unwrap();
    let run = run_schedule(&r.schedule, &platform, &RunOptions::default()).unwrap();
    let ends: Vec<u64> = run.ranks.iter().map(|s| s.end_ps / 1000).collect();
    eprintln!("rank ends, ns: netsens {ends:?}, LogGOPSim {expected:?}");
    assert_eq!(ends, expected);
}
