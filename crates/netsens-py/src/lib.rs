//! `netsens._core`: the engine seen from Python. Thin on purpose: it parses,
//! runs, and hands back JSON; errors become netsens's own exception classes
//! carrying the engine's one-line message.

mod ace;
mod jobs;
mod kept;
mod result_out;

use netsens_apps::calibrate::Options;
use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::{presets, Platform};
use netsens_core::schedule::compiled;
use netsens_core::schedule::goal::parse_goal;
use netsens_core::schedule::goal_file::GoalText;
use netsens_core::schedule::{executor::run_schedule_with_progress, Schedule};
use netsens_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use result_out::result_json;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

mod alloc_guard;

#[global_allocator]
static ALLOCATOR: alloc_guard::ExitOnFailure = alloc_guard::ExitOnFailure;

mod schedule;
mod sensitivity;
mod trace;

create_exception!(_core, NetsensError, PyException, "Base class of every netsens error.");
create_exception!(_core, InputError, NetsensError, "Invalid input: a value, file, flag or schedule.");
create_exception!(_core, DeadlockError, NetsensError, "The simulated program cannot finish.");
create_exception!(_core, ProgramError, NetsensError, "The simulated program failed: a wrong answer or another error.");

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Deadlock(m) => DeadlockError::new_err(m),
        Error::Program(_) => ProgramError::new_err(e.to_string()),
        Error::Interrupted => PyKeyboardInterrupt::new_err(()),
        other => InputError::new_err(other.to_string()),
    }
}

fn platform_with(spec: &str, overrides: Option<HashMap<String, String>>) -> Result<Platform, Error> {
    let mut p = Platform::resolve(spec)?;
    let mut keys: Vec<(String, String)> = overrides.unwrap_or_default().into_iter().collect();
    keys.sort();
    let pairs: Vec<(&str, &str)> = keys.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // All at once: a new shape and its wide-area links are only valid together.
    p.set_all(&pairs)?;
    Ok(p)
}

/// Run `f` (without the GIL) with a progress hook that, every `PROGRESS_EVERY`
/// events, takes the GIL back to let Ctrl-C through and to call the optional
/// `progress(events, now_ps, ops_done, ops_total)`. An exception from either stops
/// the run and is re-raised.
fn with_progress<T>(
    progress: Option<Py<PyAny>>,
    f: impl FnOnce(&mut dyn FnMut(Progress) -> bool) -> Result<T, Error>,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let outcome = {
        let mut hook = |pr: Progress| {
            let outcome = Python::attach(|py| {
                py.check_signals()?;
                if let Some(cb) = &progress {
                    cb.call1(py, (pr.events, pr.now_ps, pr.ops_done, pr.ops_total))?;
                }
                Ok::<(), PyErr>(())
            });
            outcome.map_err(|e| raised = Some(e)).is_ok()
        };
        f(&mut hook)
    };
    match outcome {
        Ok(v) => Ok(v),
        Err(Error::Interrupted) => Err(raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err(()))),
        Err(e) => Err(to_py(e)),
    }
}

fn opts(seed: u64, matrix: bool) -> RunOptions {
    RunOptions { seed, matrix, ..Default::default() }
}

/// A rank count from Python: at least 1.
fn check_ranks(ranks: i64) -> PyResult<u32> {
    match u32::try_from(ranks) {
        Ok(r) if r >= 1 => Ok(r),
        Ok(_) | Err(_) if ranks < 1 => Err(InputError::new_err(format!("ranks: must be at least 1, got {ranks}"))),
        _ => Err(InputError::new_err(format!("ranks: must be at most {}, got {ranks}", u32::MAX))),
    }
}

#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
fn run_text(
    text: &str,
    name: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
) -> PyResult<String> {
    let p = platform_with(platform, overrides).map_err(to_py)?;
    let s = parse_goal(text, name).map_err(to_py)?;
    run_parsed(s, name, &p, seed, matrix, progress, ranks, None)
}

/// Run a schedule parsed from GOAL file or text `name` on platform `p`; with more
/// ranks than `summary_over`, the result gives their spread instead of each rank.
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
fn run_parsed(
    s: Schedule,
    name: &str,
    p: &Platform,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
    summary_over: Option<usize>,
) -> PyResult<String> {
    if let Some(asked) = ranks {
        if asked != i64::from(s.num_ranks) {
            return Err(InputError::new_err(format!(
                "ranks: the GOAL file \"{name}\" has {} ranks, not {asked} (leave ranks out for a GOAL file)",
                s.num_ranks
            )));
        }
    }
    let r = with_progress(progress, |hook| run_schedule_with_progress(&s, p, &opts(seed, matrix), hook))?;
    let workload = json!({"kind": "goal", "file": name, "ops": s.num_ops(), "ranks": s.num_ranks});
    // The op table goes before the result's JSON is built (with many ranks the
    // JSON is the run's largest moment).
    drop(s);
    Ok(result_json(r, p, workload, &[], summary_over))
}

fn read_error(path: &str, e: &std::io::Error) -> PyErr {
    InputError::new_err(format!("cannot read GOAL file \"{path}\": {}", io_reason(e)))
}

/// Run the GOAL file at `path`; returns the result as a JSON string. `ranks`, if
/// given, must equal the file's `num_ranks`; `parsing(bytes, total)` is called as
/// the text is parsed; with more ranks than `summary_over`, the result's `ranks`
/// is empty and `rank_summary` gives their spread.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, ranks=None, parsing=None, summary_over=None))]
fn run_goal(
    py: Python<'_>,
    path: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
    parsing: Option<Py<PyAny>>,
    summary_over: Option<usize>,
) -> PyResult<String> {
    py.detach(|| {
        // The text is mapped and released as it is parsed; the schedule keeps the
        // mapping to read labels back for messages, none of the text is held.
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let s = load_goal_reporting(path, parsing.as_ref())?;
        run_parsed(s, path, &p, seed, matrix, progress, ranks, summary_over)
    })
}

/// The schedule of a GOAL file or of a compiled one (`.nsg`, told by its first bytes).
fn load_goal(path: &str) -> PyResult<Schedule> {
    load_goal_reporting(path, None)
}

/// Bytes of text parsed between two calls of a `parsing` callback.
const PARSE_REPORT_EVERY: u64 = 64 << 20;

/// [`load_goal`], calling `parsing(bytes, total)` every [`PARSE_REPORT_EVERY`] bytes
/// of text parsed (from the parser's threads, taking the GIL); an exception it
/// raises is raised once the parse is over.
fn load_goal_reporting(path: &str, parsing: Option<&Py<PyAny>>) -> PyResult<Schedule> {
    if compiled::file_is_compiled(Path::new(path)) {
        return compiled::read(Path::new(path), path).map_err(to_py);
    }
    let text = Arc::new(GoalText::open(Path::new(path)).map_err(|e| read_error(path, &e))?);
    let Some(cb) = parsing else {
        return text.parse(path).map_err(to_py);
    };
    let raised = std::sync::Mutex::new(None);
    let last = std::sync::atomic::AtomicU64::new(0);
    let report = |done: u64, total: u64| {
        use std::sync::atomic::Ordering::Relaxed;
        let seen = last.load(Relaxed);
        if (done < seen + PARSE_REPORT_EVERY && done < total)
            || last.compare_exchange(seen, done, Relaxed, Relaxed).is_err()
        {
            return;
        }
        let mut raised = raised.lock().unwrap_or_else(|e| e.into_inner());
        if raised.is_none() {
            *raised = Python::attach(|py| cb.call1(py, (done, total)).err());
        }
    };
    let s = text.parse_reporting(path, &report).map_err(to_py)?;
    match raised.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(s),
    }
}

/// Compile the GOAL file at `path` into `out` (see `netsens goal compile`); returns
/// the number of operations.
#[pyfunction]
fn compile_goal(py: Python<'_>, path: &str, out: &str) -> PyResult<usize> {
    py.detach(|| {
        let s = load_goal(path)?;
        compiled::write(&s, Path::new(out)).map_err(to_py)?;
        Ok(s.num_ops())
    })
}

/// Run GOAL text (`name` labels it in errors); returns the result as a JSON string.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (text, name="<goal>", platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, ranks=None))]
fn run_goal_text(
    py: Python<'_>,
    text: &str,
    name: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
) -> PyResult<String> {
    py.detach(|| run_text(text, name, platform, overrides, seed, matrix, progress, ranks))
}

/// Run application `name` on `ranks` ranks at size preset `size`, its data and the
/// platform's noise seeded by `seed`; returns the result as a JSON string with
/// `app`, `size` and `verified` added.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (name, ranks, size="small", platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, variant=None, measured_compute=false, recorded_work=None))]
fn run_app(
    py: Python<'_>,
    name: &str,
    ranks: i64,
    size: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    variant: Option<&str>,
    measured_compute: bool,
    recorded_work: Option<Vec<Vec<u64>>>,
) -> PyResult<String> {
    let (app, chosen, ranks) = checked_app(name, variant, ranks)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let (r, info) = with_progress(progress, |hook| {
            let recorded_work = recorded_work.clone().map(Into::into);
            let run_opts = RunOptions { measured_compute, recorded_work, ..opts(seed, matrix) };
            netsens_apps::registry::run_app_variant(app.name, variant, ranks, size, seed, &p, &run_opts, hook)
        })?;
        Ok(app_result_json(r, &p, app, chosen, &info, ranks))
    })
}

/// The application `name`, its variant and the rank count, checked before the
/// platform, so that a bad one is reported first.
fn checked_app(
    name: &str,
    variant: Option<&str>,
    ranks: i64,
) -> PyResult<(&'static netsens_apps::app::App, netsens_apps::app::Variant, u32)> {
    let app = netsens_apps::registry::find(name).map_err(to_py)?;
    let chosen = netsens_apps::registry::find_variant(app, variant).map_err(to_py)?;
    Ok((app, chosen, check_ranks(ranks)?))
}

/// A run of `app` as JSON: its result with `app`, `size`, `verified` and, for a
/// wide-area application, `variant` added.
fn app_result_json(
    r: netsens_core::profile::RunResult,
    p: &Platform,
    app: &netsens_apps::app::App,
    chosen: netsens_apps::app::Variant,
    info: &netsens_apps::AppInfo,
    ranks: u32,
) -> String {
    let mut workload = json!({"kind": "app", "app": info.app, "size": info.size, "ranks": ranks});
    let mut extra =
        vec![("app", info.app.clone().into()), ("size", info.size.clone().into()), ("verified", info.verified.into())];
    // Only the wide-area applications have variants; the others' results stay as they were.
    if !netsens_apps::registry::variants(app).is_empty() {
        workload["variant"] = chosen.name().into();
        extra.push(("variant", chosen.name().into()));
    }
    result_json(r, p, workload, &extra, None)
}

/// The seeds' LogP calibration on the cluster level of the platform (see
/// `netsens_apps::calibrate`), as JSON: per parameter its unit, dialled and measured
/// values and relative error, or, when the method cannot observe it, the bound it
/// proves and why; then the α–β line of half a round trip, measured and modelled.
#[pyfunction]
#[pyo3(signature = (platform="loggopsim", overrides=None))]
fn calibrate(py: Python<'_>, platform: &str, overrides: Option<HashMap<String, String>>) -> PyResult<String> {
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let c = netsens_apps::calibrate::calibrate(&p, &opts(0, false), &Options::default()).map_err(to_py)?;
        Ok(c.to_json().to_string())
    })
}

/// (name, description, sizes) of every application.
#[pyfunction]
fn apps() -> Vec<(String, String, Vec<String>)> {
    netsens_apps::list()
        .into_iter()
        .map(|(n, d, s)| (n.to_string(), d.to_string(), s.into_iter().map(String::from).collect()))
        .collect()
}

/// The variants application `name` accepts (empty for an application without variants).
#[pyfunction]
fn app_variants(name: &str) -> PyResult<Vec<String>> {
    let app = netsens_apps::registry::find(name).map_err(to_py)?;
    Ok(netsens_apps::registry::variants(app).iter().map(|v| v.name().to_string()).collect())
}

/// The resolved platform as TOML with units on every value.
#[pyfunction]
#[pyo3(signature = (spec, overrides=None))]
fn platform_toml(spec: &str, overrides: Option<HashMap<String, String>>) -> PyResult<String> {
    platform_with(spec, overrides).map(|p| p.to_toml()).map_err(to_py)
}

/// The resolved platform as JSON (times in ps).
#[pyfunction]
#[pyo3(signature = (spec, overrides=None))]
fn platform_json(spec: &str, overrides: Option<HashMap<String, String>>) -> PyResult<String> {
    platform_with(spec, overrides).map(|p| serde_json::to_string(&p).expect("platforms serialize")).map_err(to_py)
}

/// (name, description) of every platform preset.
#[pyfunction]
fn presets_list() -> Vec<(String, String)> {
    presets::list().into_iter().map(|(n, d)| (n.to_string(), d.to_string())).collect()
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// `NETSENS_MEMORY_LIMIT`'s value in bytes as the allocator reads it, `None` when it
/// cannot (then the allocator would run without the cap).
#[pyfunction]
fn memory_limit_bytes(text: &str) -> Option<u64> {
    alloc_guard::parse_limit(text.as_bytes())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NetsensError", m.py().get_type::<NetsensError>())?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("DeadlockError", m.py().get_type::<DeadlockError>())?;
    m.add("ProgramError", m.py().get_type::<ProgramError>())?;
    m.add_function(wrap_pyfunction!(run_goal, m)?)?;
    m.add_function(wrap_pyfunction!(compile_goal, m)?)?;
    m.add_function(wrap_pyfunction!(memory_limit_bytes, m)?)?;
    trace::register(m)?;
    sensitivity::register(m)?;
    m.add_function(wrap_pyfunction!(kept::forget_kept_read, m)?)?;
    schedule::register(m)?;
    m.add_function(wrap_pyfunction!(run_goal_text, m)?)?;
    m.add_function(wrap_pyfunction!(run_app, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::run_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(apps, m)?)?;
    m.add_function(wrap_pyfunction!(app_variants, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(ace::ace, m)?)?;
    m.add_function(wrap_pyfunction!(ace::ace_world, m)?)?;
    m.add_function(wrap_pyfunction!(platform_toml, m)?)?;
    m.add_function(wrap_pyfunction!(platform_json, m)?)?;
    m.add("presets", wrap_pyfunction!(presets_list, m)?)?;
    Ok(())
}
