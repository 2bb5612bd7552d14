//! The applications netsens runs by name: each with a one-line description, the
//! size presets it accepts and a runner that checks the inputs and runs it on the
//! simulator. The suite of `APPS.md` adds its applications to [`APPS`], one entry
//! each.

use crate::examples::{faults, pingpong, stencil};
use crate::suite::{barnes, connect, em3d_read, em3d_write, ft, is, mg, murphi, nowsort, pray, radb, radix, sample};
use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::{input_err, Result};
use std::fmt;

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

/// One run of an application.
pub struct Job<'a> {
    pub ranks: u32,
    pub size: Size,
    /// Seed of the application's generated data.
    pub seed: u64,
    pub platform: &'a Platform,
    pub opts: &'a RunOptions,
}

/// Checks the job (rank count, size) and runs it, reporting progress.
pub type Runner = fn(&Job<'_>, &mut dyn FnMut(Progress) -> bool) -> Result<RunResult>;

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
    pub run: Runner,
}

/// Every application, listed in this order.
pub const APPS: &[App] = &[
    pingpong::APP,
    stencil::APP,
    radix::APP,
    radb::APP,
    sample::APP,
    em3d_write::APP,
    em3d_read::APP,
    barnes::APP,
    pray::APP,
    murphi::APP,
    connect::APP,
    nowsort::APP,
    ft::APP,
    is::APP,
    mg::APP,
    faults::DEADLOCK,
    faults::WRONG_ANSWER,
];

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
    let app = find(name)?;
    let size = Size::parse(size).filter(|s| app.sizes.contains(s)).ok_or_else(|| {
        let sizes: Vec<&str> = app.sizes.iter().map(|s| s.name()).collect();
        input_err!("unknown size \"{size}\" for {name}; sizes: {}", sizes.join(", "))
    })?;
    if ranks == 0 {
        return Err(input_err!("ranks: must be at least 1, got 0"));
    }
    let job = Job { ranks, size, seed, platform, opts };
    let result = (app.run)(&job, progress)?;
    Ok((result, AppInfo { app: app.name.into(), size: size.name().into(), verified: app.verifies }))
}
