//! Trace replay from Python: an OTF2 archive run like a GOAL file, and its GOAL form.

use std::collections::HashMap;
use std::io::Write;

use netsens_core::schedule::executor::run_schedule_with_progress;
use netsens_trace::RunChoice;
use pyo3::prelude::*;
use serde_json::json;

use super::{opts, platform_with, result_json, to_py, with_progress, InputError};

/// Replay the OTF2 archive whose anchor file is `path`; returns the result as a JSON
/// string (the schema of `run_goal`, with workload kind "trace"). `ranks`, if given,
/// must equal the trace's. `collectives` picks algorithms ("bcast=linear,..."); `compute`
/// the clock of the compute between calls ("cpu", the default, or "wall"). An archive
/// that records several runs (the recording paused between them) reports the run
/// `run` names: "median" (the default: every run replayed, the median one reported),
/// "whole" (the archive as one recording) or a run number from 1; the workload then
/// says `runs`, the `run` reported and every run's `run_makespans_ps`. `served` names
/// the served communicators ("1,3": OTF2 references; "none"; "auto", the default: those
/// the trace shows, [`netsens_trace::served`]); the workload says which (`served`).
/// `tracer_gap` ("85ns") is the tracer's cost per gap between calls to remove from the
/// compute, in place of what the archive records ("0ps": charge the gaps whole); the
/// workload says per rank what was removed (`tracer_gap_ps`, `tracer_removed_ps`, over
/// `compute_gaps` gaps charged as compute). `poll_runs` ("wait", the default, or
/// "work") says how a run of unsuccessful polls that ends in new work is charged
/// ([`netsens_trace::polling`]), and `tracer_call` ("230ns") the tracer's cost inside
/// each poll, left out of such a run charged as work; the workload says per rank what
/// was charged (`poll_runs_charged_ps`).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (path, platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, ranks=None, collectives=None, compute=None, run=None, served=None, tracer_gap=None, poll_runs=None, tracer_call=None))]
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
    run: Option<&str>,
    served: Option<&str>,
    tracer_gap: Option<&str>,
    poll_runs: Option<&str>,
    tracer_call: Option<&str>,
) -> PyResult<String> {
    let algorithms = algorithms(collectives)?;
    let compute = compute.map_or(Ok(netsens_trace::Compute::default()), netsens_trace::Compute::parse);
    let compute = compute.map_err(InputError::new_err)?;
    let served = netsens_trace::Served::parse(served.unwrap_or("auto")).map_err(InputError::new_err)?;
    let tracer_gap = tracer_gap.map(|t| netsens_core::units::parse_time("tracer_gap", t)).transpose().map_err(to_py)?;
    let tracer_call =
        tracer_call.map(|t| netsens_core::units::parse_time("tracer_call", t)).transpose().map_err(to_py)?;
    let poll_runs =
        netsens_trace::PollRuns::parse(poll_runs.unwrap_or("wait"), tracer_call).map_err(InputError::new_err)?;
    let mut options = netsens_trace::ReadOptions { algorithms, compute, served, tracer_gap, poll_runs };
    let choice = run.map_or(Ok(RunChoice::Median), RunChoice::parse).map_err(InputError::new_err)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        // Told from the trace once, for the whole archive and each of its runs alike.
        options.served = netsens_trace::Served::Listed(options.served.resolve(path).map_err(to_py)?);
        let t = netsens_trace::read_trace_options(path, options.clone()).map_err(to_py)?;
        if let Some(asked) = ranks {
            if asked != i64::from(t.ranks) {
                return Err(InputError::new_err(format!(
                    "ranks: the trace \"{path}\" has {} ranks, not {asked} (leave ranks out for a trace)",
                    t.ranks
                )));
            }
        }
        let wanted: Vec<u32> = match choice {
            RunChoice::Whole => Vec::new(),
            RunChoice::Median if t.runs == 1 => Vec::new(),
            RunChoice::Median => (0..t.runs).collect(),
            RunChoice::Run(k) if k <= t.runs && t.runs == 1 => Vec::new(),
            RunChoice::Run(k) if k <= t.runs => vec![k - 1],
            RunChoice::Run(k) => {
                return Err(InputError::new_err(format!(
                    "run: {k} asked for, but the trace \"{path}\" records {} run(s)",
                    t.runs
                )))
            }
        };
        if wanted.is_empty() {
            let s = &t.schedule;
            let r = with_progress(progress, |hook| run_schedule_with_progress(s, &p, &opts(seed, matrix), hook))?;
            return Ok(result_json(r, &p, workload(path, &t, None), &[("primitives", primitives(&t))], None));
        }
        // Each run read and replayed on its own; the one asked for (or the median) reported.
        let mut replays = Vec::with_capacity(wanted.len());
        for &k in &wanted {
            let one = netsens_trace::read_trace_run_options(path, options.clone(), k).map_err(to_py)?;
            let s = &one.schedule;
            let r = with_progress(None, |hook| run_schedule_with_progress(s, &p, &opts(seed, matrix), hook))?;
            replays.push((k, one, r));
        }
        let ends: Vec<u64> = replays.iter().map(|(_, _, r)| r.makespan_ps).collect();
        let (k, one, r) = replays.swap_remove(netsens_trace::median_index(&ends));
        let runs = (t.runs, k + 1, ends);
        Ok(result_json(r, &p, workload(path, &one, Some(runs)), &[("primitives", primitives(&one))], None))
    })
}

/// The workload of a replayed trace; with `runs` (the archive's runs, the run
/// reported from 1, the end time of each run replayed) for an archive of several.
fn workload(path: &str, t: &netsens_trace::Replay, runs: Option<(u32, u32, Vec<u64>)>) -> serde_json::Value {
    let mut w = json!({
        "kind": "trace", "file": path, "events": t.events, "ops": t.schedule.num_ops(), "ranks": t.ranks,
        "compute_clock": t.compute_clock, "tracer": t.tracer, "warnings": t.warnings,
        "tracer_gap_ps": t.tracer_gaps,
        "tracer_removed_ps": t.measured.iter().map(|m| m.tracer_ps).collect::<Vec<_>>(),
        "compute_gaps": t.measured.iter().map(|m| m.gaps).collect::<Vec<_>>(),
        "poll_runs_charged_ps": t.measured.iter().map(|m| m.poll_runs_ps).collect::<Vec<_>>(),
        "served": t.served,
    });
    if let Some((count, reported, ends)) = runs {
        w["runs"] = count.into();
        w["run"] = reported.into();
        w["run_makespans_ps"] = ends.into();
    }
    w
}

fn primitives(t: &netsens_trace::Replay) -> serde_json::Value {
    t.primitives.iter().map(|&(rank, p, n)| json!({"rank": rank, "primitive": p, "count": n})).collect()
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

/// Write the GOAL file, compiled schedule or trace (`trace`) at `path` on `platform`
/// as SimGrid's time-independent trace and platform into directory `out`
/// (`netsens goal to-simgrid`); returns (ranks, actions, routes, notes).
#[pyfunction]
#[pyo3(signature = (path, platform, out, overrides=None, trace=false))]
pub fn schedule_to_simgrid(
    py: Python<'_>,
    path: &str,
    platform: &str,
    out: &str,
    overrides: Option<HashMap<String, String>>,
    trace: bool,
) -> PyResult<(u32, u64, u64, Vec<String>)> {
    let algorithms = algorithms(None)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let s = if trace {
            netsens_trace::read_trace_with(path, algorithms).map_err(to_py)?.schedule
        } else {
            super::load_goal(path)?
        };
        let e =
            netsens_trace::ti_out::write_simgrid_schedule(&s, &p, path, std::path::Path::new(out)).map_err(to_py)?;
        Ok((e.ranks, e.actions, e.routes, e.notes))
    })
}

/// The number of ranks of the trace at `path` (its definitions only).
#[pyfunction]
pub fn trace_ranks(path: &str) -> PyResult<u32> {
    netsens_trace::trace_ranks(path).map_err(to_py)
}

/// What the trace at `path` holds (`netsens trace info`), as a JSON string: tracer,
/// ranks, clock, events, each rank's measured time, time with measurement off, time between
/// its calls and the compute replay charges it (ps; null where replay refuses the trace,
/// `replay_refused` says why), and every MPI call with its count and what replay does with it.
#[pyfunction]
pub fn trace_info(py: Python<'_>, path: &str) -> PyResult<String> {
    py.detach(|| {
        let info = netsens_trace::trace_info(path).map_err(to_py)?;
        let measured: Vec<_> = info
            .measured
            .iter()
            .enumerate()
            .map(|(rank, m)| {
                json!({
                    "rank": rank, "measured_ps": m.duration_ps(), "paused_ps": m.paused_ps,
                    "between_calls_ps": info.between_calls_ps.get(rank),
                    "replayed_compute_ps": info.replayed_compute_ps.as_ref().and_then(|c| c.get(rank)),
                })
            })
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
            "compute_clock": info.compute_clock, "replay_refused": info.replay_refused,
        })
        .to_string())
    })
}

/// The o the program traced at `path` paid per message of at most `up_to` bytes
/// (`netsens_trace::overhead_paid`), as a JSON string: `o_ps` (null when no message
/// was both started by a non-blocking call and completed by a test), `up_to_bytes`,
/// and per rank the message ends counted and the time they paid, ps.
#[pyfunction]
pub fn trace_overhead_paid(py: Python<'_>, path: &str, up_to: u64) -> PyResult<String> {
    py.detach(|| {
        let paid = netsens_trace::overhead_paid(path, up_to).map_err(to_py)?;
        let ranks: Vec<_> = paid
            .ranks
            .iter()
            .enumerate()
            .map(|(rank, r)| json!({"rank": rank, "ends": r.ends, "paid_ps": r.ps}))
            .collect();
        Ok(json!({"o_ps": paid.o_ps, "up_to_bytes": paid.up_to, "ranks": ranks}).to_string())
    })
}

/// Write an OTF2 archive of `ranks` ranks event by event in the new directory `dir`
/// (`netsens_trace::write::write_archive`): region `r` is `regions[r]`; each event is
/// (rank, kind, time_ps, region, peer, bytes, request), kind one of enter, leave,
/// send, recv, isend, isend_done, irecv_post, irecv_done. Returns the anchor file's
/// path. For tests whose replay is derived by hand.
#[pyfunction]
pub fn write_trace_archive(
    dir: &str,
    ranks: u32,
    regions: Vec<String>,
    events: Vec<(u32, String, u64, u32, u32, u64, u64)>,
) -> PyResult<String> {
    use netsens_trace::write;
    let mut written = Vec::with_capacity(events.len());
    for (rank, kind, time_ps, region, peer, bytes, req) in events {
        let kind = match kind.as_str() {
            "enter" => write::ENTER,
            "leave" => write::LEAVE,
            "send" => write::SEND,
            "recv" => write::RECV,
            "isend" => write::ISEND,
            "isend_done" => write::ISEND_DONE,
            "irecv_post" => write::IRECV_POST,
            "irecv_done" => write::IRECV_DONE,
            other => {
                return Err(InputError::new_err(format!(
                "event kind \"{other}\": write enter, leave, send, recv, isend, isend_done, irecv_post or irecv_done"
            )))
            }
        };
        let ev =
            write::Event { kind, time_ps, region, peer, bytes, req, cpu_ps: write::NO_CPU_TIME, ..Default::default() };
        written.push((rank, ev));
    }
    let names: Vec<&str> = regions.iter().map(String::as_str).collect();
    write::write_archive(std::path::Path::new(dir), ranks, &names, &written).map_err(to_py)
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
    m.add_function(wrap_pyfunction!(trace_overhead_paid, m)?)?;
    m.add_function(wrap_pyfunction!(write_trace_archive, m)?)?;
    m.add_function(wrap_pyfunction!(run_trace, m)?)?;
    m.add_function(wrap_pyfunction!(trace_to_goal, m)?)?;
    m.add_function(wrap_pyfunction!(schedule_to_simgrid, m)?)?;
    m.add_function(wrap_pyfunction!(trace_ranks, m)?)?;
    Ok(())
}
