//! `netsens._core.ace`: the emulator of `netsens_apps::ace` as JSON.

use crate::{opts, platform_with, to_py};
use netsens_apps::ace::{run_ace, AceResult, EaResult, Summary};
use pyo3::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;

/// Run the EAs `specs` (`pattern=ring,size=1MB,load=30%,iterations=100,ranks=0-15`)
/// on `ranks` ranks of the platform (default: its shape, else one past the highest
/// rank named); JSON with every EA's prediction, outcome and statistics (ps).
#[pyfunction]
#[pyo3(signature = (specs, platform="loggopsim", overrides=None, ranks=None, seed=0))]
pub fn ace(
    py: Python<'_>,
    specs: Vec<String>,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    ranks: Option<u32>,
    seed: u64,
) -> PyResult<String> {
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let r = run_ace(&p, ranks, &specs, &opts(seed, false)).map_err(to_py)?;
        Ok(ace_json(&r, &p.name, seed).to_string())
    })
}

fn summary(s: &Summary) -> Value {
    json!({"mean_ps": s.mean, "sd_ps": s.sd, "min_ps": s.min, "max_ps": s.max, "cv": s.cv})
}

fn ea_json(i: usize, ea: &EaResult) -> Value {
    let s = &ea.spec;
    let ranks: Vec<Value> = ea
        .ranks
        .iter()
        .map(|r| {
            json!({
                "rank": r.rank,
                "run_time_ps": r.run_time,
                "compute": summary(&r.compute),
                "comm": summary(&r.comm),
                "sync": summary(&r.sync),
                "comm_cycles_ps": r.comm_cycles,
            })
        })
        .collect();
    json!({
        "ea": i + 1,
        "pattern": s.pattern.name(),
        "size_bytes": s.size,
        "load": s.load,
        "iterations": s.iterations,
        "ranks": s.ranks,
        "bench": ea.bench.iter().map(|&(n, t)| json!({"size_bytes": n, "time_ps": t})).collect::<Vec<_>>(),
        "alpha_ps": ea.fit.alpha,
        "beta_ps_per_byte": ea.fit.beta,
        "r2": ea.fit.r2,
        "t_comm_ps": ea.t_comm,
        "t_sync_ps": ea.t_sync,
        "t_comp_ps": ea.t_comp,
        "predicted_ps": ea.predicted,
        "actual_ps": ea.actual,
        "error": ea.error(),
        "compute": summary(&ea.compute),
        "comm": summary(&ea.comm),
        "sync": summary(&ea.sync),
        "per_rank": ranks,
    })
}

fn ace_json(r: &AceResult, platform: &str, seed: u64) -> Value {
    json!({
        "platform_name": platform,
        "seed": seed,
        "world": r.world,
        "makespan_ps": r.run.makespan_ps,
        "eas": r.eas.iter().enumerate().map(|(i, ea)| ea_json(i, ea)).collect::<Vec<_>>(),
    })
}
