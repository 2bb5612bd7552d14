//! The applications netsens runs by name: each with a one-line description, the
//! size presets it accepts and a runner that checks the inputs and runs its program
//! on a [`Backend`]: the simulator here, real MPI in `netsens-mpi`, the same source
//! on both. The suite of `APPS.md` adds its applications to the [`suite!`] list at
//! the end, one line each.

use crate::examples::{faults, pingpong, stencil};
use crate::suite::{
    asp, awari, barnes, bh, connect, em3d_read, em3d_write, fft1d, ft, is, mg, murphi, nowsort, pray, radb, radix,
    sample, tsp, water,
};
use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::program::{run_program_with_progress, Rank, SimRank};
use netsens_core::{input_err, Result};
use std::fmt;
use std::future::Future;

/// A size preset: `tiny` for unit tests, `small` for the default study, `paper` for
/// the input size of the seed paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    Tiny,
    Small,
    Paper,
}

impl Size {
    pub const ALL: [Size; 3] = [Size::Tiny, Size::Small, Size::Paper];

    pub fn name(self) -> &'static str {
        match self {
            Size::Tiny => "tiny",
            Size::Small => "small",
            Size::Paper => "paper",
        }
    }

    pub fn parse(text: &str) -> Option<Size> {
        Size::ALL.into_iter().find(|s| s.name() == text)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The form of a wide-area application (Plaat, Bal and Hofman): as written for one
/// cluster, or rewritten to know which ranks share a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    Original,
    Optimized,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Original, Variant::Optimized];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Original => "original",
            Variant::Optimized => "optimized",
        }
    }

    pub fn parse(text: &str) -> Option<Variant> {
        Variant::ALL.into_iter().find(|v| v.name() == text)
    }
}

/// One run of an application.
pub struct Job<'a> {
    pub ranks: u32,
    pub size: Size,
    /// The variant asked for (applications without variants ignore it).
    pub variant: Variant,
    /// Seed of the application's generated data.
    pub seed: u64,
    pub platform: &'a Platform,
    pub opts: &'a RunOptions,
}

/// Where an application's program runs. Each application checks its job (rank
/// count, size) and hands its program, generic over [`Rank`], to a backend.
pub trait Backend {
    type Rank: Rank;
    /// What a finished run gives back (the simulator: the run's result).
    type Output;
    /// Run `program` on every rank of the job on `platform` (an application may
    /// adjust the job's platform, e.g. give it disks).
    fn run<P, F>(self, platform: &Platform, program: P) -> Result<Self::Output>
    where
        P: Fn(Self::Rank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static;
}

/// The simulator: every rank a coroutine in virtual time.
pub struct Simulator<'a> {
    pub ranks: u32,
    pub opts: &'a RunOptions,
    pub progress: &'a mut dyn FnMut(Progress) -> bool,
}

impl Backend for Simulator<'_> {
    type Rank = SimRank;
    type Output = RunResult;

    fn run<P, F>(self, platform: &Platform, program: P) -> Result<RunResult>
    where
        P: Fn(SimRank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        run_program_with_progress(platform, self.ranks, self.opts, program, self.progress)
    }
}

pub struct App {
    /// The name the CLI and the Python API use.
    pub name: &'static str,
    /// One line: what it computes and how it communicates.
    pub description: &'static str,
    pub sizes: &'static [Size],
    /// The program checks its answer (a finished run is a verified one).
    pub verifies: bool,
    /// Left out of [`list`] and of error messages: test programs for the error paths.
    pub hidden: bool,
}

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
    let (app, size) = find_sized(name, size)?;
    let variant = find_variant(app, variant)?;
    if ranks == 0 {
        return Err(input_err!("ranks: must be at least 1, got 0"));
    }
    let job = Job { ranks, size, variant, seed, platform, opts };
    let result = run_on(app, &job, Simulator { ranks, opts, progress })?;
    Ok((result, AppInfo { app: app.name.into(), size: size.name().into(), verified: app.verifies }))
}
