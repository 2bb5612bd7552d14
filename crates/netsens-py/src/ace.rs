//! `netsens._core.ace`: the emulator of `netsens_apps::ace` as JSON.

use crate::{opts, platform_with, to_py};
use netsens_apps::ace::json::ace_json;
use netsens_apps::ace::{plan, run_ace};
use pyo3::prelude::*;
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

/// The rank count a run of the EAs `specs` needs on the platform (as [`ace`] chooses
/// it), the specifications checked together without running them.
#[pyfunction]
#[pyo3(signature = (specs, platform="loggopsim", overrides=None, ranks=None))]
pub fn ace_world(
    specs: Vec<String>,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    ranks: Option<u32>,
) -> PyResult<u32> {
    let p = platform_with(platform, overrides).map_err(to_py)?;
    Ok(plan(&p, ranks, &specs).map_err(to_py)?.0)
}
