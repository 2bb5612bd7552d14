//! A sweep's fast path from Python: run an application once with the schedule its
//! program issued recorded, and run that schedule at the sweep's other points
//! (`netsens_core::program::recorded` and `replay`). The schedule stays in the
//! process that recorded it, behind an opaque handle.

use std::collections::HashMap;

use netsens_core::program::recorded::RecordedSchedule;
use pyo3::prelude::*;

use super::{app_result_json, checked_app, opts, platform_with, to_py, with_progress};

/// The schedule an application's program issued in one run (opaque).
#[pyclass(module = "netsens._core", frozen)]
pub struct AppSchedule {
    schedule: RecordedSchedule,
    app: String,
    variant: Option<String>,
    size: String,
    seed: u64,
}

#[pymethods]
impl AppSchedule {
    /// Operations the schedule holds.
    #[getter]
    fn ops(&self) -> u64 {
        self.schedule.num_ops()
    }

    /// Bytes it holds in memory (about).
    #[getter]
    fn nbytes(&self) -> u64 {
        self.schedule.bytes()
    }
}

/// Run application `name` as `run_app` does, recording the schedule its program
/// issued: (the result as JSON, the schedule, or None when its ops can depend on
/// timing).
#[pyfunction]
#[allow(clippy::too_many_arguments)] // mirrors run_app's keyword arguments
#[pyo3(signature = (name, ranks, size="small", platform="loggopsim", overrides=None, seed=0, matrix=true, progress=None, variant=None))]
fn record_app_schedule(
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
) -> PyResult<(String, Option<AppSchedule>)> {
    let (app, chosen, ranks) = checked_app(name, variant, ranks)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let (r, schedule, info) = with_progress(progress, |hook| {
            netsens_apps::registry::record_app_schedule(
                app.name,
                variant,
                ranks,
                size,
                seed,
                &p,
                &opts(seed, matrix),
                hook,
            )
        })?;
        let handle = schedule.map(|schedule| AppSchedule {
            schedule,
            app: app.name.to_string(),
            variant: variant.map(String::from),
            size: size.to_string(),
            seed,
        });
        Ok((app_result_json(r, &p, app, chosen, &info, ranks), handle))
    })
}

/// The result `run_app` gives for the recorded run's application, variant, ranks,
/// size and seed on `platform` with `overrides`, as JSON, got by running `schedule`
/// instead of the program; None when that platform shows the program something its
/// recorded run did not see (its eager limit, its ranks per cluster): run it instead.
#[pyfunction]
#[pyo3(signature = (schedule, platform="loggopsim", overrides=None, matrix=true, progress=None))]
fn replay_app_schedule(
    py: Python<'_>,
    schedule: &AppSchedule,
    platform: &str,
    overrides: Option<HashMap<String, String>>,
    matrix: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Option<String>> {
    let s = schedule;
    let app = netsens_apps::registry::find(&s.app).map_err(to_py)?;
    let chosen = netsens_apps::registry::find_variant(app, s.variant.as_deref()).map_err(to_py)?;
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let out = with_progress(progress, |hook| {
            netsens_apps::registry::replay_app_schedule(
                &s.schedule,
                app.name,
                s.variant.as_deref(),
                &s.size,
                s.seed,
                &p,
                &opts(s.seed, matrix),
                hook,
            )
        })?;
        Ok(out.map(|(r, info)| app_result_json(r, &p, app, chosen, &info, s.schedule.num_ranks())))
    })
}

/// Write `schedule` on `platform` as SimGrid's time-independent trace and platform
/// into directory `out` (`netsens goal to-simgrid --app`); returns (ranks, actions,
/// routes, notes).
#[pyfunction]
#[pyo3(signature = (schedule, platform, out, overrides=None))]
fn app_schedule_to_simgrid(
    py: Python<'_>,
    schedule: &AppSchedule,
    platform: &str,
    out: &str,
    overrides: Option<HashMap<String, String>>,
) -> PyResult<(u32, u64, u64, Vec<String>)> {
    py.detach(|| {
        let p = platform_with(platform, overrides).map_err(to_py)?;
        let name = format!("{} ({} ranks, size {})", schedule.app, schedule.schedule.num_ranks(), schedule.size);
        let e = netsens_trace::ti_out::write_simgrid_program(&schedule.schedule, &p, &name, std::path::Path::new(out))
            .map_err(to_py)?;
        Ok((e.ranks, e.actions, e.routes, e.notes))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AppSchedule>()?;
    m.add_function(wrap_pyfunction!(record_app_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(replay_app_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(app_schedule_to_simgrid, m)?)?;
    Ok(())
}
