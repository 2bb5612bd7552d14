//! The result's JSON schema (times in ps), one for the simulated and the live run:
//! `netsens._core.ace` prints [`ace_json`], `netsens-mpi-run --ea` writes each EA's
//! [`ea_json`] and netsens merges them into the same document.

use super::{AceResult, EaResult, Summary};
use serde_json::{json, Value};

fn summary(s: &Summary) -> Value {
    json!({"mean_ps": s.mean, "sd_ps": s.sd, "min_ps": s.min, "max_ps": s.max, "cv": s.cv})
}

/// EA number `i` (from 0; numbered from 1 in the document): its specification, phase
/// one, prediction, outcome and statistics, over all its ranks and per rank.
pub fn ea_json(i: usize, ea: &EaResult) -> Value {
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

/// A simulated run's whole document.
pub fn ace_json(r: &AceResult, platform: &str, seed: u64) -> Value {
    json!({
        "mode": "simulate",
        "platform_name": platform,
        "seed": seed,
        "world": r.world,
        "makespan_ps": r.run.makespan_ps,
        "eas": r.eas.iter().enumerate().map(|(i, ea)| ea_json(i, ea)).collect::<Vec<_>>(),
    })
}
