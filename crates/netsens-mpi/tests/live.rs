//! netsens-mpi-run under real mpirun, 4 ranks (3 for the one-sided check), tiny
//! sizes: every application verifies its answer on Open MPI, a few on MPICH; the
//! error paths give their exit codes; primitive counts match the simulator's.

use netsens_apps::registry::run_app;
use netsens_core::engine::RunOptions;
use netsens_core::platform::presets;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

const RANKS: u32 = 4;
const SEED: u64 = 3;

/// The binary cargo built for these tests (against Open MPI, the default).
fn openmpi_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_netsens-mpi-run"))
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary built against MPICH into target/mpich/ (as `make mpi-run` does),
/// built here when it is missing.
fn mpich_binary() -> PathBuf {
    static BUILD: Once = Once::new();
    let dir = workspace().join("target/mpich");
    BUILD.call_once(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "-p", "netsens-mpi", "--bin", "netsens-mpi-run", "--target-dir"])
            .arg(&dir)
            .env("MPICC", "mpicc.mpich")
            .current_dir(workspace())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building netsens-mpi-run against MPICH failed");
    });
    dir.join("release/netsens-mpi-run")
}

#[derive(Clone, Copy)]
enum Mpi {
    OpenMpi,
    Mpich,
}

/// Seconds a run may take before it counts as hung (exit 124 from `timeout`).
const HUNG_AFTER: &str = "300";

fn mpirun(mpi: Mpi, ranks: u32, program: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("timeout");
    cmd.args(["--kill-after=10", HUNG_AFTER]);
    match mpi {
        Mpi::OpenMpi => cmd.args(["mpirun.openmpi", "--oversubscribe", "--allow-run-as-root"]),
        Mpi::Mpich => cmd.arg("mpirun.mpich"),
    };
    cmd.arg("-np").arg(ranks.to_string()).arg(program).args(args);
    cmd.output().expect("mpirun starts")
}

/// Run `app` at tiny size; the exit code, stderr and each rank's JSON (rank order).
fn run_live(mpi: Mpi, app: &str) -> (Option<i32>, String, Vec<Value>) {
    let out = tempfile_dir(app);
    let binary = match mpi {
        Mpi::OpenMpi => openmpi_binary(),
        Mpi::Mpich => mpich_binary(),
    };
    let seed = SEED.to_string();
    let args = ["--app", app, "--size", "tiny", "--seed", &seed, "--platform", "loggopsim", "--out"];
    let mut args: Vec<&str> = args.to_vec();
    let out_s = out.to_string_lossy().to_string();
    args.push(&out_s);
    let o = mpirun(mpi, RANKS, &binary, &args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    let ranks = (0..RANKS)
        .filter_map(|r| std::fs::read_to_string(out.join(format!("app-rank-{r}.json"))).ok())
        .map(|t| serde_json::from_str(&t).expect("a rank's result is JSON"))
        .collect();
    // Written through a temporary name and a rename: none is left behind.
    if let Ok(entries) = std::fs::read_dir(&out) {
        let names: Vec<String> = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.iter().all(|n| n.starts_with("app-rank-") && n.ends_with(".json")), "{names:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
    (o.status.code(), stderr, ranks)
}

/// A fresh directory per run (tests run in parallel, some with the same application).
fn tempfile_dir(name: &str) -> PathBuf {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("netsens-mpi-test-{}-{n}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn assert_verified(mpi: Mpi, app: &str) {
    let (code, stderr, ranks) = run_live(mpi, app);
    assert_eq!(code, Some(0), "{app}: exit {code:?}, stderr: {stderr}");
    assert_eq!(ranks.len(), RANKS as usize, "{app}: every rank writes its result");
    for (r, j) in ranks.iter().enumerate() {
        assert_eq!(j["rank"], r as u64);
        assert_eq!(j["size"], RANKS as u64);
        assert_eq!(j["verified"], true, "{app} rank {r}: {j}");
        assert!(j["error"].is_null());
    }
}

#[test]
fn every_application_verifies_on_open_mpi() {
    for (app, _, _) in netsens_apps::list() {
        assert_verified(Mpi::OpenMpi, app);
    }
}

#[test]
fn some_applications_verify_on_mpich() {
    for app in ["radb", "em3d-read", "ft", "nowsort"] {
        assert_verified(Mpi::Mpich, app);
    }
    let (_, _, ranks) = run_live(Mpi::Mpich, "pingpong");
    assert!(ranks[0]["mpi_library"].as_str().unwrap().starts_with("MPICH"), "{}", ranks[0]);
    let (code, stderr, _) = run_live(Mpi::Mpich, "_wrong-answer");
    assert_eq!(code, Some(3), "{stderr}");
}

#[test]
fn a_wrong_answer_exits_3_with_its_error_recorded() {
    let (code, stderr, ranks) = run_live(Mpi::OpenMpi, "_wrong-answer");
    assert_eq!(code, Some(3), "stderr: {stderr}");
    // The last rank is the one that fails (faults.rs); the others finish.
    let last = &ranks[RANKS as usize - 1];
    assert_eq!(last["verified"], false);
    assert!(last["error"].as_str().unwrap().contains("41 != 42"), "{last}");
    assert!(stderr.contains("netsens-mpi-run: rank 3: checksum 41 != 42"), "{stderr}");
    assert!(ranks[0]["error"].is_null());
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let dir = tempfile_dir("bad");
    let out = dir.to_string_lossy().to_string();
    let bin = openmpi_binary();
    for (ranks, args, what) in [
        (RANKS, vec!["--app", "nosuch", "--platform", "loggopsim", "--out", &out], "unknown application \"nosuch\""),
        (RANKS, vec!["--app", "radb", "--size", "huge", "--platform", "loggopsim", "--out", &out], "unknown size"),
        (RANKS, vec!["--app", "radb", "--platform", "/nonexistent/p.toml", "--out", &out], "not found"),
        (RANKS, vec!["--app", "radb", "--platform", "loggopsim"], "--out"),
        (RANKS, vec!["--app", "radb", "--platform", "loggopsim", "--cpu-speed", "fast", "--out", &out], "cpu_speed"),
        // mg needs a power of two of ranks.
        (3, vec!["--app", "mg", "--platform", "loggopsim", "--out", &out], "mg: 3 ranks"),
    ] {
        let o = mpirun(Mpi::OpenMpi, ranks, &bin, &args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        let ours: Vec<&str> = stderr.lines().filter(|l| l.starts_with("netsens-mpi-run")).collect();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(ours.len(), 1, "{args:?}: one line from rank 0 only: {stderr}");
        assert!(ours[0].starts_with("netsens-mpi-run: error: ") && ours[0].contains(what), "{}", ours[0]);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// Per rank: primitive → count.
type Counts = Vec<BTreeMap<String, u64>>;

/// The primitive counts of the same program in the simulator: an independent
/// implementation of the program's control flow (virtual time, its own request
/// table), so equal counts say the MPI backend issued the same operations.
fn simulated_counts(app: &str) -> Counts {
    let p = presets::get("loggopsim").unwrap();
    let opts = RunOptions { seed: SEED, ..RunOptions::default() };
    let (result, _) = run_app(app, RANKS, "tiny", SEED, &p, &opts, &mut |_| true).unwrap();
    let mut counts = vec![BTreeMap::new(); RANKS as usize];
    for c in result.primitives {
        counts[c.rank as usize].insert(c.primitive, c.count);
    }
    counts
}

fn live_counts(ranks: &[Value]) -> Counts {
    ranks
        .iter()
        .map(|j| {
            j["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["primitive"].as_str().unwrap().to_string(), p["count"].as_u64().unwrap()))
                .collect()
        })
        .collect()
}

#[test]
fn primitive_counts_equal_the_simulators() {
    // Programs whose operations do not depend on timing: radb and is route keys by
    // value to fixed destinations with fixed message counts, ft and mg exchange fixed
    // blocks or halos; none receives from ANY_SOURCE in a loop whose length depends
    // on arrival order or reads remote state whose value depends on timing.
    for app in ["radb", "ft", "is", "mg"] {
        let (code, stderr, ranks) = run_live(Mpi::OpenMpi, app);
        assert_eq!(code, Some(0), "{app}: {stderr}");
        assert_eq!(live_counts(&ranks), simulated_counts(app), "{app}");
    }
}

#[test]
fn one_sided_operations_leave_the_simulators_windows() {
    // The example runs the same program in the simulator and on MPI and compares
    // every rank's window (see examples/one_sided_check.rs); it exits 1 on a difference.
    let example = openmpi_binary().parent().unwrap().join("examples/one_sided_check");
    assert!(example.exists(), "cargo test builds the examples: {}", example.display());
    let o = mpirun(Mpi::OpenMpi, 3, &example, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
