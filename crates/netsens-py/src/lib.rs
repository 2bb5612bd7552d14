//! `netsens._core`: the engine seen from Python. Thin on purpose: it parses,
//! runs, and hands back JSON; errors become netsens's own exception classes
//! carrying the engine's one-line message.

use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::{presets, Platform};
use netsens_core::schedule::{executor::run_schedule_with_progress, goal::parse_goal};
use netsens_core::Error;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use std::collections::HashMap;

create_exception!(_core, NetsensError, PyException, "Base class of every netsens error.");
create_exception!(_core, InputError, NetsensError, "Invalid input: a value, file, flag or schedule.");
create_exception!(_core, DeadlockError, NetsensError, "The simulated program cannot finish.");

fn to_py(e: Error) -> PyErr {
    match e {
        Error::Deadlock(m) => DeadlockError::new_err(m),
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

/// Runs without the GIL; every `PROGRESS_EVERY` events it takes the GIL back to let
/// Ctrl-C through and to call the optional `progress(events, now_ps, ops_done, ops_total)`.
/// An exception from either stops the run and is re-raised.
fn run_text(
    text: &str,
    name: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let p = platform_with(platform, overrides).map_err(to_py)?;
    let s = parse_goal(text, name).map_err(to_py)?;
    let mut raised: Option<PyErr> = None;
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
    let r = match run_schedule_with_progress(&s, &p, &RunOptions { seed, matrix, ..Default::default() }, &mut hook) {
        Ok(r) => r,
        Err(Error::Interrupted) => return Err(raised.unwrap_or_else(|| PyKeyboardInterrupt::new_err(()))),
        Err(e) => return Err(to_py(e)),
    };
    let mut v = serde_json::to_value(&r).expect("results serialize");
    let obj = v.as_object_mut().expect("a result is an object");
    obj.insert("platform".into(), serde_json::to_value(&p).expect("platforms serialize"));
    obj.insert("platform_name".into(), p.name.clone().into());
    obj.insert(
        "workload".into(),
        serde_json::json!({"kind": "goal", "file": name, "ops": s.num_ops(), "ranks": s.num_ranks}),
    );
    Ok(v.to_string())
}

fn read_goal(path: &str) -> PyResult<String> {
    std::fs::read_to_string(path)
        .map_err(|e| InputError::new_err(format!("cannot read GOAL file \"{path}\": {}", io_reason(&e))))
}

/// Run the GOAL file at `path`; returns the result as a JSON string.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None))]
fn run_goal(
    py: Python<'_>,
    path: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let text = read_goal(path)?;
    py.detach(|| run_text(&text, path, platform, overrides, seed, matrix, progress))
}

/// Run GOAL text (`name` labels it in errors); returns the result as a JSON string.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (text, name="<goal>", platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None))]
fn run_goal_text(
    py: Python<'_>,
    text: &str,
    name: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    py.detach(|| run_text(text, name, platform, overrides, seed, matrix, progress))
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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NetsensError", m.py().get_type::<NetsensError>())?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("DeadlockError", m.py().get_type::<DeadlockError>())?;
    m.add_function(wrap_pyfunction!(run_goal, m)?)?;
    m.add_function(wrap_pyfunction!(run_goal_text, m)?)?;
    m.add_function(wrap_pyfunction!(platform_toml, m)?)?;
    m.add_function(wrap_pyfunction!(platform_json, m)?)?;
    m.add("presets", wrap_pyfunction!(presets_list, m)?)?;
    Ok(())
}
