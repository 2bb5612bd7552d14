//! Trace replay from Python: an OTF2 archive run like a GOAL file, and its GOAL form.

use std::collections::HashMap;
use std::io::Write;

use netsens_core::schedule::executor::run_schedule_with_progress;
use pyo3::prelude::*;
use serde_json::json;

use super::{opts, platform_with, result_json, to_py, with_progress, InputError};

/// Replay the OTF2 archive whose anchor file is `path`; returns the result as a JSON
/// string (the schema of `run_goal`, with workload kind "trace"). `ranks`, if given,
/// must equal the trace's. `collectives` picks algorithms ("bcast=linear,..."); `compute`
/// the clock of the compute between calls ("cpu", the default, or "wall").
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, ranks=None, collectives=None, compute=None))]
pub fn run_trace(
    py: Python<'_>,
    path: &str,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
    ranks: Option<i64>,
    collectives: Option<&str>,
    compute: Option<&str>,
) -> PyResult<String> {
    let algorithms = algorithms(collectives)?;
    let compute = compute.map_or(Ok(netsens_trace::Compute::default()), netsens_trace::Compute::parse);
    let compute = compute.map_err(InputError::new_err)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let t = netsens_trace::read_trace_compute(path, algorithms, compute).map_err(to_py)?;
        if let Some(asked) = ranks {
            if asked != i64::from(t.ranks) {
                return Err(InputError::new_err(format!(
                    "ranks: the trace \"{path}\" has {} ranks, not {asked} (leave ranks out for a trace)",
                    t.ranks
                )));
            }
        }
        let s = &t.schedule;
        let r = with_progress(progress, |hook| run_schedule_with_progress(s, &p, &opts(seed, matrix), hook))?;
        let workload = json!({
            "kind": "trace", "file": path, "events": t.events, "ops": s.num_ops(), "ranks": t.ranks,
            "compute_clock": t.compute_clock, "tracer": t.tracer, "warnings": t.warnings,
        });
        let primitives: Vec<_> =
            t.primitives.iter().map(|&(rank, p, n)| json!({"rank": rank, "primitive": p, "count": n})).collect();
        Ok(result_json(r, &p, workload, &[("primitives", primitives.into())], None))
    })
}

fn algorithms(collectives: Option<&str>) -> PyResult<netsens_trace::Algorithms> {
    netsens_trace::Algorithms::parse(collectives.unwrap_or("")).map_err(InputError::new_err)
}

/// Write the GOAL form of the trace at `path` to `out`; returns (ranks, ops).
#[pyfunction]
#[pyo3(signature = (path, out, collectives=None))]
pub fn trace_to_goal(py: Python<'_>, path: &str, out: &str, collectives: Option<&str>) -> PyResult<(u32, usize)> {
    let algorithms = algorithms(collectives)?;
    py.detach(|| {
        let t = netsens_trace::read_trace_with(path, algorithms).map_err(to_py)?;
        let write = || -> std::io::Result<()> {
            let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
            netsens_trace::goal_out::write_goal(&t.schedule, &mut f)?;
            f.flush()
        };
        write().map_err(|e| InputError::new_err(format!("cannot write \"{out}\": {e}")))?;
        Ok((t.ranks, t.schedule.num_ops()))
    })
}

/// The number of ranks of the trace at `path` (its definitions only).
#[pyfunction]
pub fn trace_ranks(path: &str) -> PyResult<u32> {
    netsens_trace::trace_ranks(path).map_err(to_py)
}

/// What the trace at `path` holds (`netsens trace info`), as a JSON string: tracer,
/// ranks, clock, events, each rank's measured time and time with measurement off (ps), and every
/// MPI call with its count and what replay does with it.
#[pyfunction]
pub fn trace_info(py: Python<'_>, path: &str) -> PyResult<String> {
    py.detach(|| {
        let info = netsens_trace::trace_info(path).map_err(to_py)?;
        let measured: Vec<_> = info
            .measured
            .iter()
            .enumerate()
            .map(|(rank, m)| json!({"rank": rank, "measured_ps": m.duration_ps(), "paused_ps": m.paused_ps}))
            .collect();
        let calls: Vec<_> = info
            .calls
            .iter()
            .map(|c| json!({"call": c.name, "count": c.count, "replay": c.support.as_str()}))
            .collect();
        Ok(json!({
            "file": path, "tracer": info.tracer, "ranks": info.ranks,
            "ticks_per_second": info.ticks_per_second, "events": info.events,
            "ranks_measured": measured, "calls": calls,
        })
        .to_string())
    })
}

/// Write the two-rank archive in Score-P's conventions of netsens-trace's tests
/// (`netsens_trace::write_scorep_style`; `variant` picks its bits) in the new directory
/// `dir`; returns the anchor file's path. For tests and examples.
#[pyfunction]
pub fn write_scorep_style_trace(dir: &str, variant: u32) -> PyResult<String> {
    netsens_trace::write_scorep_style(std::path::Path::new(dir), variant).map_err(to_py)
}

/// Write the synthetic archive of netsens-trace's tests (`netsens_trace::write_synthetic`,
/// netsens's conventions) in the new directory `dir`; returns the anchor file's path.
/// For tests.
#[pyfunction]
pub fn write_synthetic_trace(
    dir: &str,
    ranks: u32,
    iterations: u64,
    compute_ns: u64,
    bytes: u64,
    allreduce_every: u64,
    faults: u32,
) -> PyResult<String> {
    let dir = std::path::Path::new(dir);
    netsens_trace::write_synthetic(dir, ranks, iterations, compute_ns, bytes, allreduce_every, faults).map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_synthetic_trace, m)?)?;
    m.add_function(wrap_pyfunction!(write_scorep_style_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(run_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_to_goal, m)?)?;
    m.add_function(wrap_pyfunction!(trace_ranks, m)?)?;
    Ok(())
}
