//! `netsens-mpi-run`: one application of the suite on real MPI, one rank per
//! process, started by `mpirun` (netsens live does this). Every rank writes
//! `OUT/app-rank-<r>.json` at the end (temporary name, then rename).
//!
//! `netsens-mpi-run --calibrate --out DIR` on two processes runs the seeds' LogP
//! calibration instead and rank 0 writes `OUT/calibration.json` (as `netsens
//! calibrate --json` prints it, the dialled values those of a machine with nothing
//! injected).
//!
//! `netsens-mpi-run --ea SPEC [--ea SPEC ...] --platform P --out DIR` runs ACE's
//! emulated applications instead (`netsens ace --live`): every rank writes its
//! `app-rank-<r>.json` and each EA's first rank, where the EA gathers its ranks' logs,
//! writes `ace-ea-<i>.json` (i from 0) in the schema of the simulated run's EAs.
//!
//! Exit codes: 0 verified (or nothing to verify); 2 bad arguments, a bad platform or
//! a rank count the application cannot use (one line from rank 0, every rank exits
//! 2); 3 a wrong answer (the rank prints why and records it) or an internal error.

use clap::Parser;
use mpi::traits::Communicator as _;
use netsens_apps::ace::json::ea_json;
use netsens_apps::ace::{emulate_on, plan};
use netsens_apps::app::Job;
use netsens_apps::calibrate::{analyse, measure_with, Options};
use netsens_apps::registry::{find_sized, find_variant, run_on};
use netsens_core::engine::RunOptions;
use netsens_core::platform::{Layout, LevelParams, Platform};
use netsens_core::program::Rank as _;
use netsens_core::time::PerByte;
use netsens_core::Error;
use netsens_mpi::calibrate::MpiBench;
use netsens_mpi::{abort, library_version, MpiBackend, RankRun};
use serde_json::json;
use std::path::{Path, PathBuf};

/// Run a netsens application on real MPI (one rank per MPI process).
#[derive(Parser, Debug)]
#[command(name = "netsens-mpi-run")]
struct Cli {
    /// Application name (as in `netsens apps`).
    #[arg(long, required_unless_present_any = ["calibrate", "ea"])]
    app: Option<String>,
    /// An emulated application of ACE, as `netsens ace --ea` takes it (repeat for more).
    #[arg(long = "ea", value_name = "SPEC", conflicts_with_all = ["app", "calibrate"])]
    ea: Vec<String>,
    /// Run the LogP calibration on two processes instead of an application.
    #[arg(long, conflicts_with = "app")]
    calibrate: bool,
    /// Calibration: messages per burst and round trips per size.
    #[arg(long, default_value_t = 40)]
    reps: u32,
    /// Calibration: the largest message the eager-limit probe tries, bytes.
    #[arg(long, default_value_t = 1 << 20)]
    max_size: u64,
    /// Size preset: tiny, small or paper.
    #[arg(long, default_value = "tiny")]
    size: String,
    /// Variant of a wide-area application: original or optimized (its default).
    #[arg(long)]
    variant: Option<String>,
    /// Seed of the application's generated data.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Platform file (TOML, as `netsens platform show` prints) or preset name.
    #[arg(long, required_unless_present = "calibrate")]
    platform: Option<String>,
    /// Directory for the per-rank results.
    #[arg(long)]
    out: PathBuf,
    /// CPU speed relative to the machine the compute costs were charged for (e.g. 2.0).
    #[arg(long)]
    cpu_speed: Option<String>,
    /// Run the application this many times in the same job, one after the other (each
    /// run's time is reported: a run of a few milliseconds varies between runs, and
    /// netsens takes the median run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
}

/// Seconds a failed rank waits for the others to finish before it aborts the job.
const FAILED_RANK_PATIENCE: f64 = 10.0;

fn main() {
    let parsed = Cli::try_parse();
    let Some(universe) = mpi::initialize() else {
        eprintln!("netsens-mpi-run: error: MPI could not be initialised");
        std::process::exit(2);
    };
    let world = universe.world();
    let me = world.rank();
    std::panic::set_hook(Box::new(move |info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let what = what.lines().next().unwrap_or_default().to_string();
        eprintln!("netsens-mpi-run: rank {me}: internal error: {what}");
        // The other ranks may wait for this one forever: end the job.
        abort(3);
    }));
    let code = match parsed {
        Ok(cli) if cli.calibrate => calibrate(&cli, &world),
        Ok(cli) if !cli.ea.is_empty() => ace(&cli, &world),
        Ok(cli) => run(&cli, &world),
        Err(e) => {
            let info = matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion);
            if me == 0 {
                if info {
                    print!("{e}");
                } else {
                    // clap's message up to its usage, on one line.
                    let text = e.to_string();
                    let parts: Vec<&str> = text.lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
                    eprintln!("netsens-mpi-run: error: {}", parts.join(" ").trim_start_matches("error: "));
                }
            }
            if info {
                0
            } else {
                2
            }
        }
    };
    drop(universe);
    std::process::exit(code);
}

/// The platform of `--platform` with `--cpu-speed` applied.
fn platform(cli: &Cli) -> Result<Platform, Error> {
    let mut platform = Platform::resolve(cli.platform.as_deref().unwrap_or_default())?;
    if let Some(speed) = &cli.cpu_speed {
        platform.set("cpu_speed", speed)?;
    }
    Ok(platform)
}

/// One line from rank 0 for a bad input; every rank's exit code 2.
fn bad(me: u32, e: Error) -> i32 {
    if me == 0 {
        eprintln!("netsens-mpi-run: error: {e}");
    }
    2
}

/// Run the job on this rank; the process's exit code.
fn run(cli: &Cli, world: &mpi::topology::SimpleCommunicator) -> i32 {
    let me = world.rank() as u32;
    let platform = match platform(cli) {
        Ok(p) => p,
        Err(e) => return bad(me, e),
    };
    let (app, size) = match find_sized(cli.app.as_deref().unwrap_or_default(), &cli.size) {
        Ok(found) => found,
        Err(e) => return bad(me, e),
    };
    let variant = match find_variant(app, cli.variant.as_deref()) {
        Ok(v) => v,
        Err(e) => return bad(me, e),
    };
    let ranks = world.size() as u32;
    if let Err(e) = Layout::new(&platform, ranks) {
        return bad(me, e);
    }
    let opts = RunOptions { seed: cli.seed, ..RunOptions::default() };
    let job = Job { ranks, size, variant, seed: cli.seed, platform: &platform, opts: &opts };
    // Every run but the last is drained at once (its one-sided requests served until
    // every rank has finished it), so the next starts clean; a failed run ends the job.
    let mut runs = Vec::new();
    let run = loop {
        let run = match run_on(app, &job, MpiBackend { world }) {
            Ok(run) => run,
            Err(e @ Error::Input(_)) => return bad(me, e),
            Err(e) => {
                eprintln!("netsens-mpi-run: rank {me}: {e}");
                abort(3);
            }
        };
        runs.push((run.stats.elapsed_ps, run.stats.compute_ps));
        if run.outcome.is_err() || runs.len() == cli.repeat as usize {
            break run;
        }
        run.rank.drain(None);
    };
    let verified = run.outcome.is_ok() && app.verifies;
    finish(cli, &report(cli, app.name, size.name(), me, ranks, verified, &run, &runs), &run)
}

/// ACE's emulated applications on this rank (the same emulator as in simulation);
/// the process's exit code.
fn ace(cli: &Cli, world: &mpi::topology::SimpleCommunicator) -> i32 {
    let me = world.rank() as u32;
    let ranks = world.size() as u32;
    let platform = match platform(cli) {
        Ok(p) => p,
        Err(e) => return bad(me, e),
    };
    let specs = match plan(&platform, Some(ranks), &cli.ea).and_then(|(_, specs)| {
        Layout::new(&platform, ranks)?;
        Ok(specs)
    }) {
        Ok(specs) => specs,
        Err(e) => return bad(me, e),
    };
    let (run, eas) = match emulate_on(&platform, specs, MpiBackend { world }) {
        Ok(done) => done,
        Err(e @ Error::Input(_)) => return bad(me, e),
        Err(e) => {
            eprintln!("netsens-mpi-run: rank {me}: {e}");
            abort(3);
        }
    };
    for (i, ea) in &eas {
        if let Err(why) = write_atomically(&cli.out, &format!("ace-ea-{i}.json"), &format!("{}\n", ea_json(*i, ea))) {
            eprintln!("netsens-mpi-run: rank {me}: cannot write the result of EA {}: {why}", i + 1);
            abort(2);
        }
    }
    let runs = [(run.stats.elapsed_ps, run.stats.compute_ps)];
    finish(cli, &report(cli, "ace", "-", me, ranks, false, &run, &runs), &run)
}

/// Write this rank's report, then serve the others until they are done (or give up
/// on a failed run); the process's exit code.
fn finish(cli: &Cli, report: &str, run: &RankRun) -> i32 {
    let me = run.rank.rank();
    if let Err(why) = write_atomically(&cli.out, &format!("app-rank-{me}.json"), report) {
        eprintln!("netsens-mpi-run: rank {me}: cannot write the result: {why}");
        abort(2);
    }
    match &run.outcome {
        Ok(()) => {
            run.rank.drain(None);
            0
        }
        Err(why) => {
            eprintln!("netsens-mpi-run: rank {me}: {why}");
            if !run.rank.drain(Some(FAILED_RANK_PATIENCE)) {
                abort(3);
            }
            3
        }
    }
}

/// The calibration on this process (one of two); rank 0 writes the result.
fn calibrate(cli: &Cli, world: &mpi::topology::SimpleCommunicator) -> i32 {
    let me = world.rank();
    if world.size() != 2 {
        if me == 0 {
            eprintln!("netsens-mpi-run: error: --calibrate runs on exactly 2 processes, got {}", world.size());
        }
        return 2;
    }
    let machine = match Platform::resolve("loggopsim") {
        Ok(p) => p,
        Err(e) => {
            eprintln!("netsens-mpi-run: rank {me}: {e}");
            return 3;
        }
    };
    // Nothing is dialled here: the injection, if any, is the preloaded library's.
    let nothing = LevelParams {
        latency: 0,
        overhead: 0,
        gap: 0,
        gap_per_byte: PerByte::ZERO,
        overhead_per_byte: PerByte::ZERO,
        eager_limit: 0,
        gap_above: 0,
        control_overhead: None,
    };
    let bench = MpiBench { world, platform: Platform { cpu_speed: 1.0, ..machine } };
    let options = Options { reps: cli.reps, max_size: cli.max_size };
    let measured = match measure_with(&bench, &options) {
        Ok(m) => m,
        Err(e @ Error::Input(_)) => {
            if me == 0 {
                eprintln!("netsens-mpi-run: error: {e}");
            }
            return 2;
        }
        Err(e) => {
            eprintln!("netsens-mpi-run: rank {me}: {e}");
            abort(3);
        }
    };
    if me == 0 {
        let result = analyse(&measured, &nothing, "machine");
        if let Err(why) = write_atomically(&cli.out, "calibration.json", &format!("{}\n", result.to_json())) {
            eprintln!("netsens-mpi-run: cannot write the calibration: {why}");
            return 2;
        }
    }
    0
}

/// This rank's result: the last run's phases and primitives, and every run's elapsed
/// and compute time (`runs`, in order; `elapsed_ps`/`compute_ps` are the last run's).
#[allow(clippy::too_many_arguments)]
fn report(
    cli: &Cli,
    app: &str,
    size: &str,
    me: u32,
    ranks: u32,
    verified: bool,
    run: &RankRun,
    runs: &[(u64, u64)],
) -> String {
    let s = &run.stats;
    let phases: Vec<_> = s
        .phases
        .iter()
        // Overhead cannot be told apart from waiting on real MPI: reported as 0.
        .map(|(name, elapsed, compute)| {
            json!({"phase": name, "elapsed_ps": elapsed, "compute_ps": compute, "overhead_ps": 0})
        })
        .collect();
    let primitives: Vec<_> = s.primitives.iter().map(|(p, n)| json!({"primitive": p, "count": n})).collect();
    let value = json!({
        "rank": me,
        "size": ranks,
        "app": app,
        "size_preset": size,
        "seed": cli.seed,
        "verified": verified,
        "error": run.outcome.as_ref().err(),
        "elapsed_ps": s.elapsed_ps,
        "compute_ps": s.compute_ps,
        "runs": runs.iter().map(|&(elapsed, compute)| json!({"elapsed_ps": elapsed, "compute_ps": compute})).collect::<Vec<_>>(),
        "phases": phases,
        "primitives": primitives,
        "mpi_library": library_version(),
    });
    format!("{value}\n")
}

/// Write `text` to `dir/name` through a temporary file and a rename, so a reader
/// never sees half a file.
fn write_atomically(dir: &Path, name: &str, text: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, dir.join(name))
}
