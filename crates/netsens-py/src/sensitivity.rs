//! Every sensitivity from one run, from Python: a GOAL file or a trace is run once
//! with its execution graph recorded, and the analysis comes back as JSON.

use std::collections::HashMap;

use netsens_core::analysis::record::threads::with_threads;
use netsens_core::analysis::{record_schedule, report, ExecGraph, Request, Window, EPSILONS};
use netsens_core::engine::OpId;
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::schedule::Schedule;
use pyo3::prelude::*;
use serde_json::json;

use super::{kept, load_goal, opts, platform_with, result_json, to_py, with_progress, InputError};

/// Curves asked for: (parameter, optional (low, high) in its unit).
type Curves = Vec<(String, Option<(f64, f64)>)>;

/// Values asked for: (parameter, its values in its unit).
type At = Vec<(String, Vec<f64>)>;

fn analyze(
    s: &Schedule,
    p: &Platform,
    seed: u64,
    req: &Request,
    progress: Option<Py<PyAny>>,
    workload: serde_json::Value,
) -> PyResult<String> {
    let (result, graph) = with_progress(progress, |hook| record_schedule(s, p, &opts(seed, false), hook))?;
    let describe = |op| s.describe(op);
    answer(&graph, result, p, req, Some(&describe), workload, &[])
}

/// The report with the run's own result beside it, as JSON text.
fn answer(
    graph: &ExecGraph,
    result: RunResult,
    p: &Platform,
    req: &Request,
    describe: Option<&dyn Fn(OpId) -> String>,
    workload: serde_json::Value,
    extra: &[(&str, serde_json::Value)],
) -> PyResult<String> {
    let mut out = report(graph, p, req, describe).map_err(to_py)?;
    let run: serde_json::Value =
        serde_json::from_str(&result_json(result, p, workload, extra, Some(64))).expect("a result is JSON");
    name_link_classes(&mut out, &run);
    out["run"] = run;
    Ok(out.to_string())
}

/// Each class of the critical path's link queueing named as the run's link report
/// names it (by index), the wide-area links as such.
fn name_link_classes(out: &mut serde_json::Value, run: &serde_json::Value) {
    let Some(rows) = out["critical_path"]["link_queueing_by_class"].as_array_mut() else { return };
    for row in rows {
        let name = match row["class_index"].as_u64() {
            None => "wide-area".to_string(),
            Some(i) => {
                run["links"]["classes"][i as usize]["class"].as_str().map_or(format!("class {i}"), str::to_string)
            }
        };
        row["class"] = json!(name);
    }
}

/// (first rank, last rank, from ps, to ps, items kept at most) of a timeline.
type TimelineArgs = (u32, u32, f64, f64, usize);

/// What to compute besides the critical path, as Python passes it (a dict; see
/// `netsens.sensitivity.analyze`).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Ask {
    params: Option<Vec<String>>,
    epsilons: Option<Vec<f64>>,
    curves: Option<Curves>,
    // Absent from callers written before it: nothing asked.
    #[pyo3(default)]
    at: Option<At>,
    chain: usize,
    timeline: Option<TimelineArgs>,
    graph: Option<String>,
    /// Threads the analysis may use (`None`: as `NETSENS_ANALYSIS_THREADS` or the cores).
    #[pyo3(default)]
    threads: Option<usize>,
    /// Keep the file as read for the next analysis of it ([`super::kept`]).
    #[pyo3(default)]
    keep_read: bool,
}

/// The threads an analysis was asked to use (`None`: as it finds).
fn threads_of(ask: &Option<Ask>) -> Option<usize> {
    ask.as_ref().and_then(|a| a.threads)
}

/// Whether the file read is to be kept for the next analysis of it.
fn keep_of(ask: &Option<Ask>) -> bool {
    ask.as_ref().is_some_and(|a| a.keep_read)
}

fn ask_request(ask: Option<Ask>) -> Request {
    ask.map_or_else(|| Request { epsilons: EPSILONS.to_vec(), chain_limit: 200, ..Default::default() }, Ask::request)
}

impl Ask {
    fn request(self) -> Request {
        Request {
            params: self.params,
            epsilons: self.epsilons.unwrap_or_else(|| EPSILONS.to_vec()),
            curves: self.curves.unwrap_or_default(),
            at: self.at.unwrap_or_default(),
            chain_limit: self.chain,
            timeline: self.timeline.map(|(a, b, t0, t1, max_items)| Window {
                ranks: (a, b),
                time: (t0, t1),
                max_items,
            }),
            graph: self.graph,
        }
    }
}

fn check_ranks(name: &str, have: u32, asked: Option<i64>, what: &str) -> PyResult<()> {
    match asked {
        Some(a) if a != i64::from(have) => Err(InputError::new_err(format!(
            "ranks: the {what} \"{name}\" has {have} ranks, not {a} (leave ranks out for a {what})"
        ))),
        _ => Ok(()),
    }
}

/// The sensitivity analysis of the GOAL file (or compiled schedule) at `path`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, ask=None, progress=None, ranks=None))]
pub fn sensitivity_goal(
    py: Python<'_>,
    path: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    ask: Option<Ask>,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
) -> PyResult<String> {
    let (threads, keep) = (threads_of(&ask), keep_of(&ask));
    py.detach(|| {
        with_threads(threads, || {
            let p = platform_with(platform, overrides).map_err(to_py)?;
            let s = kept::read(path, String::new(), keep, || load_goal(path))?;
            check_ranks(path, s.num_ranks, ranks, "GOAL file")?;
            let workload = json!({"kind": "goal", "file": path, "ops": s.num_ops(), "ranks": s.num_ranks});
            analyze(&s, &p, seed, &ask_request(ask), progress, workload)
        })
    })
}

/// The sensitivity analysis of the OTF2 trace whose anchor file is `path`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, ask=None, progress=None, ranks=None, collectives=None, compute=None))]
pub fn sensitivity_trace(
    py: Python<'_>,
    path: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    ask: Option<Ask>,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
    collectives: Option<&str>,
    compute: Option<&str>,
) -> PyResult<String> {
    let algorithms = netsens_trace::Algorithms::parse(collectives.unwrap_or("")).map_err(InputError::new_err)?;
    let compute = compute.map_or(Ok(netsens_trace::Compute::default()), netsens_trace::Compute::parse);
    let compute = compute.map_err(InputError::new_err)?;
    let (threads, keep) = (threads_of(&ask), keep_of(&ask));
    py.detach(|| {
        with_threads(threads, || {
            let p = platform_with(platform, overrides).map_err(to_py)?;
            let how = format!("{algorithms:?} {compute:?}");
            let t = kept::read(path, how, keep, || {
                netsens_trace::read_trace_compute(path, algorithms, compute).map_err(to_py)
            })?;
            check_ranks(path, t.ranks, ranks, "trace")?;
            let workload = json!({
                "kind": "trace", "file": path, "events": t.events, "ops": t.schedule.num_ops(), "ranks": t.ranks,
                "compute_clock": t.compute_clock,
            });
            analyze(&t.schedule, &p, seed, &ask_request(ask), progress, workload)
        })
    })
}

/// The sensitivity analysis of application `name` on `ranks` ranks at `size`.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (name, ranks, size="small", platform="loggopsim", overrides=None, seed=0, ask=None, progress=None, variant=None))]
pub fn sensitivity_app(
    py: Python<'_>,
    name: &str,
    ranks: i64,
    size: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    ask: Option<Ask>,
    progress: Option<Py<PyAny>>,
    variant: Option<&str>,
) -> PyResult<String> {
    let ranks = super::check_ranks(ranks)?;
    let threads = threads_of(&ask);
    py.detach(|| {
        with_threads(threads, || {
            let p = platform_with(platform, overrides).map_err(to_py)?;
            let (result, recorded, info) = with_progress(progress, |hook| {
                netsens_apps::registry::record_app(name, variant, ranks, size, seed, &p, &opts(seed, false), hook)
            })?;
            let workload = json!({"kind": "app", "app": info.app, "size": info.size, "ranks": ranks});
            let extra = [
                ("app", info.app.clone().into()),
                ("size", info.size.clone().into()),
                ("verified", info.verified.into()),
            ];
            answer(&recorded, result, &p, &ask_request(ask), None, workload, &extra)
        })
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sensitivity_goal, m)?)?;
    m.add_function(wrap_pyfunction!(sensitivity_trace, m)?)?;
    m.add_function(wrap_pyfunction!(sensitivity_app, m)?)?;
    Ok(())
}
