//! Several jobs at once on one network from Python: GOAL files and traces side by
//! side, each job on its own hosts of the platform's `[topology]`.

use std::collections::HashMap;

use netsens_core::fabric::job_hosts::JobHosts;
use netsens_core::schedule::executor::run_schedule_with_progress;
use netsens_core::schedule::jobs::{place_jobs, side_by_side};
use netsens_core::schedule::Schedule;
use pyo3::prelude::*;
use serde_json::{json, Value};

use super::{load_goal, opts, platform_with, result_json, to_py, with_progress, InputError};

/// One job's schedule and how its workload is described in the result.
fn load_job(kind: &str, path: &str) -> PyResult<(Schedule, Value)> {
    match kind {
        "goal" => {
            let s = load_goal(path)?;
            let w = json!({"kind": "goal", "file": path, "ops": s.num_ops(), "ranks": s.num_ranks});
            Ok((s, w))
        }
        "trace" => {
            let t = netsens_trace::read_trace_compute(path, Default::default(), Default::default()).map_err(to_py)?;
            let w = json!({"kind": "trace", "file": path, "events": t.events, "ops": t.schedule.num_ops(),
                           "ranks": t.ranks, "warnings": t.warnings});
            Ok((t.schedule, w))
        }
        other => Err(InputError::new_err(format!("job kind: \"goal\" or \"trace\", got \"{other}\""))),
    }
}

/// Run `jobs` — (kind "goal" or "trace", path, hosts or None for the next free ones in
/// placement order) — side by side on `platform`'s topology; returns the result as JSON
/// text (the schema of `run_goal`, its ranks job after job) with `jobs`: per job its
/// workload, first rank, ranks, hosts and makespan (its last rank's end, ps).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
#[pyo3(signature = (jobs, platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None))]
pub fn run_jobs(
    py: Python<'_>,
    jobs: Vec<(String, String, Option<Vec<u32>>)>,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    seed: u64,
    matrix: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    if jobs.is_empty() {
        return Err(InputError::new_err("jobs: give at least one job"));
    }
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let mut schedules = Vec::with_capacity(jobs.len());
        let mut workloads = Vec::with_capacity(jobs.len());
        for (kind, path, _) in &jobs {
            let (s, w) = load_job(kind, path)?;
            schedules.push(s);
            workloads.push(w);
        }
        let ranks: Vec<u32> = schedules.iter().map(|s| s.num_ranks).collect();
        let asked: Vec<JobHosts> =
            jobs.iter().map(|(_, _, h)| h.clone().map_or(JobHosts::Next, JobHosts::List)).collect();
        let (placed, hosts) = place_jobs(&p, &ranks, &asked).map_err(to_py)?;
        let refs: Vec<&Schedule> = schedules.iter().collect();
        let (both, first) = side_by_side(&refs).map_err(to_py)?;
        drop(schedules);
        let r = with_progress(progress, |hook| run_schedule_with_progress(&both, &placed, &opts(seed, matrix), hook))?;
        let per_job: Vec<Value> = (0..jobs.len())
            .map(|j| {
                let (lo, n) = (first[j] as usize, ranks[j] as usize);
                let makespan = r.ranks[lo..lo + n].iter().map(|s| s.end_ps).max().unwrap_or(0);
                json!({"job": j + 1, "workload": workloads[j], "first_rank": first[j], "ranks": ranks[j],
                       "hosts": hosts[j], "makespan_ps": makespan})
            })
            .collect();
        let workload = json!({"kind": "jobs", "jobs": jobs.len(), "ops": both.num_ops(), "ranks": both.num_ranks});
        drop(both);
        Ok(result_json(r, &placed, workload, &[("jobs", per_job.into())], None))
    })
}
