//! The applications netsens runs by name: each with a one-line description, the
//! size presets it accepts and a runner that checks the inputs and runs its program
//! on a [`Backend`]: the simulator here, real MPI in `netsens-mpi`, the same source
//! on both. The suite of `APPS.md` adds its applications to the [`suite!`] list at
//! the end, one line each.

use crate::app::{App, Backend, Job, Recording, ScheduleRecording, ScheduleReplay, Simulator, Size, Variant};
use crate::examples::{faults, pingpong, stencil};
use crate::suite::{
    asp, awari, barnes, bh, connect, em3d_read, em3d_write, fft1d, ft, is, mg, murphi, nowsort, pray, radb, radix,
    sample, tsp, water,
};
use netsens_core::analysis::ExecGraph;
use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::program::recorded::RecordedSchedule;
use netsens_core::{input_err, Result};

/// Lists every application once (its description and its runner): gives [`APPS`]
/// and [`run_on`], which a backend's type cannot be chosen apart from.
macro_rules! suite {
    ($($app:path => $run:path),* $(,)?) => {
        /// Every application, listed in this order.
        pub const APPS: &[App] = &[$($app),*];

        /// Run `app`'s program for `job` on `backend` (`app` from [`find`]).
        pub fn run_on<B: Backend>(app: &App, job: &Job<'_>, backend: B) -> Result<B::Output> {
            $(if app.name == $app.name {
                return $run(job, backend);
            })*
            Err(input_err!("unknown application \"{}\"", app.name))
        }
    };
}

suite! {
    pingpong::APP => pingpong::run,
    stencil::APP => stencil::run,
    radix::APP => radix::run,
    radb::APP => radb::run,
    sample::APP => sample::run,
    em3d_write::APP => em3d_write::run,
    em3d_read::APP => em3d_read::run,
    barnes::APP => barnes::run,
    pray::APP => pray::run,
    murphi::APP => murphi::run,
    connect::APP => connect::run,
    nowsort::APP => nowsort::run,
    ft::APP => ft::run,
    is::APP => is::run,
    mg::APP => mg::run,
    asp::APP => asp::run,
    fft1d::APP => fft1d::run,
    water::APP => water::run,
    tsp::APP => tsp::run,
    bh::APP => bh::run,
    awari::APP => awari::run,
    faults::DEADLOCK => faults::deadlock,
    faults::WRONG_ANSWER => faults::wrong_answer,
}

/// What a run was: the application, its size, and whether it checked its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppInfo {
    pub app: String,
    pub size: String,
    pub verified: bool,
}

impl AppInfo {
    fn of(app: &App, size: Size) -> AppInfo {
        AppInfo { app: app.name.into(), size: size.name().into(), verified: app.verifies }
    }
}

/// The application called `name`.
pub fn find(name: &str) -> Result<&'static App> {
    APPS.iter().find(|a| a.name == name).ok_or_else(|| {
        let known: Vec<&str> = APPS.iter().filter(|a| !a.hidden).map(|a| a.name).collect();
        input_err!("unknown application \"{name}\"; applications: {}", known.join(", "))
    })
}

/// (name, description, sizes) of every application.
pub fn list() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    APPS.iter()
        .filter(|a| !a.hidden)
        .map(|a| (a.name, a.description, a.sizes.iter().map(|s| s.name()).collect()))
        .collect()
}

/// The application called `name` at size preset `size` (an `Error::Input` naming the
/// sizes it accepts otherwise).
pub fn find_sized(name: &str, size: &str) -> Result<(&'static App, Size)> {
    let app = find(name)?;
    let size = Size::parse(size).filter(|s| app.sizes.contains(s)).ok_or_else(|| {
        let sizes: Vec<&str> = app.sizes.iter().map(|s| s.name()).collect();
        input_err!("unknown size \"{size}\" for {name}; sizes: {}", sizes.join(", "))
    })?;
    Ok((app, size))
}

/// Run application `name` on `ranks` ranks of `platform` at size preset `size`, its
/// data generated from `seed` (`opts.seed` seeds the platform's noise; netsens passes
/// the same value for both). An unknown application or size, or a rank count the
/// application cannot use, is an `Error::Input` naming what is accepted; a wrong
/// answer is an `Error::Program`.
pub fn run_app(
    name: &str,
    ranks: u32,
    size: &str,
    seed: u64,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, AppInfo)> {
    run_app_variant(name, None, ranks, size, seed, platform, opts, progress)
}

/// The variants `app` accepts: none for an application without variants.
pub fn variants(app: &App) -> &'static [Variant] {
    crate::suite::wan::variants(app.name)
}

/// The variant `variant` names for `app` (`None`: its default, `optimized` where it
/// has one); an `Error::Input` when the application has no such variant.
pub fn find_variant(app: &App, variant: Option<&str>) -> Result<Variant> {
    let accepted = variants(app);
    let Some(text) = variant else {
        return Ok(accepted.last().copied().unwrap_or(Variant::Original));
    };
    if accepted.is_empty() {
        let with: Vec<&str> = APPS.iter().filter(|a| !variants(a).is_empty()).map(|a| a.name).collect();
        return Err(input_err!("{} has no variants; --variant applies to {}", app.name, with.join(", ")));
    }
    let names: Vec<&str> = accepted.iter().map(|v| v.name()).collect();
    match Variant::parse(text) {
        Some(v) if accepted.contains(&v) => Ok(v),
        Some(v) => Err(input_err!(
            "{} has no {} variant (no cluster-aware form exists); variants: {}",
            app.name,
            v.name(),
            names.join(", ")
        )),
        None => Err(input_err!("unknown variant \"{text}\" for {}; variants: {}", app.name, names.join(", "))),
    }
}

/// As [`run_app`], choosing the variant of a wide-area application (`None`: its
/// default); naming one for an application without variants is an `Error::Input`.
#[allow(clippy::too_many_arguments)] // run_app's arguments and the variant
pub fn run_app_variant(
    name: &str,
    variant: Option<&str>,
    ranks: u32,
    size: &str,
    seed: u64,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, AppInfo)> {
    let (app, size, variant) = checked(name, variant, ranks, size)?;
    let job = Job { ranks, size, variant, seed, platform, opts };
    let result = run_on(app, &job, Simulator { ranks, opts, progress })?;
    Ok((result, AppInfo::of(app, size)))
}

/// The application, size and variant of a run, checked (and its rank count).
fn checked(name: &str, variant: Option<&str>, ranks: u32, size: &str) -> Result<(&'static App, Size, Variant)> {
    let (app, size) = find_sized(name, size)?;
    let variant = find_variant(app, variant)?;
    if ranks == 0 {
        return Err(input_err!("ranks: must be at least 1, got 0"));
    }
    Ok((app, size, variant))
}

/// As [`run_app_variant`], recording the run's execution graph.
#[allow(clippy::too_many_arguments)] // run_app_variant's arguments
pub fn record_app(
    name: &str,
    variant: Option<&str>,
    ranks: u32,
    size: &str,
    seed: u64,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, ExecGraph, AppInfo)> {
    let (app, size, variant) = checked(name, variant, ranks, size)?;
    let job = Job { ranks, size, variant, seed, platform, opts };
    let (result, graph) = run_on(app, &job, Recording { ranks, opts, progress })?;
    Ok((result, graph, AppInfo::of(app, size)))
}

/// As [`run_app_variant`], recording the schedule the program issued (`None` when its
/// ops can depend on timing: see `netsens_core::program::recorded`).
#[allow(clippy::too_many_arguments)] // run_app_variant's arguments
pub fn record_app_schedule(
    name: &str,
    variant: Option<&str>,
    ranks: u32,
    size: &str,
    seed: u64,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, Option<RecordedSchedule>, AppInfo)> {
    let (app, size, variant) = checked(name, variant, ranks, size)?;
    let job = Job { ranks, size, variant, seed, platform, opts };
    let (result, schedule) = run_on(app, &job, ScheduleRecording { ranks, opts, progress })?;
    Ok((result, schedule, AppInfo::of(app, size)))
}

/// The result of [`run_app_variant`] for the same application, variant, ranks, size
/// and seed as `schedule`'s recording, got by running the schedule on `platform`
/// instead of the program; `None` when the platform shows the program something its
/// recording did not see (run it instead).
#[allow(clippy::too_many_arguments)] // run_app_variant's arguments and the schedule
pub fn replay_app_schedule(
    schedule: &RecordedSchedule,
    name: &str,
    variant: Option<&str>,
    size: &str,
    seed: u64,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Option<(RunResult, AppInfo)>> {
    let ranks = schedule.num_ranks();
    let (app, size, variant) = checked(name, variant, ranks, size)?;
    let job = Job { ranks, size, variant, seed, platform, opts };
    let result = run_on(app, &job, ScheduleReplay { schedule, opts, progress })?;
    let info = AppInfo::of(app, size);
    Ok(result.map(|r| (r, info)))
}
