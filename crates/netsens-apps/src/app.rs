//! What an application is and where it runs: its [`App`] entry, the [`Job`] it is
//! asked to do (ranks, [`Size`] preset, [`Variant`], seed, platform) and the
//! [`Backend`] its program runs on ([`Simulator`] here, real MPI in `netsens-mpi`).
//! The registry and every application import these from here, so no application
//! depends on the registry that lists it.

use netsens_core::analysis::{record_program, ExecGraph};
use netsens_core::engine::{Progress, RunOptions};
use netsens_core::platform::Platform;
use netsens_core::profile::RunResult;
use netsens_core::program::recorded::RecordedSchedule;
use netsens_core::program::replay::replay_schedule;
use netsens_core::program::{record_program_schedule, run_program_with_progress, Rank, SimRank};
use netsens_core::Result;
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
    /// As the seed's system ran the program written for one cluster.
    Original,
    Optimized,
    /// The original's data flow written as a message-passing program would: each
    /// transfer one message, all started at once (where it differs from `Original`).
    OriginalMessages,
}

impl Variant {
    /// The two forms of the seed's Table 2.
    pub const ALL: [Variant; 2] = [Variant::Original, Variant::Optimized];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Original => "original",
            Variant::Optimized => "optimized",
            Variant::OriginalMessages => "original-messages",
        }
    }

    pub fn parse(text: &str) -> Option<Variant> {
        [Variant::Original, Variant::Optimized, Variant::OriginalMessages].into_iter().find(|v| v.name() == text)
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

/// The simulator recording the run's execution graph for the sensitivity analysis
/// (`netsens_core::analysis`).
pub struct Recording<'a> {
    pub ranks: u32,
    pub opts: &'a RunOptions,
    pub progress: &'a mut dyn FnMut(Progress) -> bool,
}

impl Backend for Recording<'_> {
    type Rank = SimRank;
    type Output = (RunResult, ExecGraph);

    fn run<P, F>(self, platform: &Platform, program: P) -> Result<(RunResult, ExecGraph)>
    where
        P: Fn(SimRank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        record_program(platform, self.ranks, self.opts, program, self.progress)
    }
}

/// The simulator recording the schedule the program issues, for running it again at
/// other network parameters without the program (`None` when its ops can depend on
/// timing).
pub struct ScheduleRecording<'a> {
    pub ranks: u32,
    pub opts: &'a RunOptions,
    pub progress: &'a mut dyn FnMut(Progress) -> bool,
}

impl Backend for ScheduleRecording<'_> {
    type Rank = SimRank;
    type Output = (RunResult, Option<RecordedSchedule>);

    fn run<P, F>(self, platform: &Platform, program: P) -> Result<Self::Output>
    where
        P: Fn(SimRank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        record_program_schedule(platform, self.ranks, self.opts, program, self.progress)
    }
}

/// A recorded schedule standing in for the program: the application prepares its
/// platform as for a run, and the schedule runs on it (`None` when that platform
/// shows the program something its recording did not see).
pub struct ScheduleReplay<'a> {
    pub schedule: &'a RecordedSchedule,
    pub opts: &'a RunOptions,
    pub progress: &'a mut dyn FnMut(Progress) -> bool,
}

impl Backend for ScheduleReplay<'_> {
    type Rank = SimRank;
    type Output = Option<RunResult>;

    fn run<P, F>(self, platform: &Platform, _program: P) -> Result<Self::Output>
    where
        P: Fn(SimRank) -> F,
        F: Future<Output = std::result::Result<(), String>> + 'static,
    {
        replay_schedule(platform, self.schedule, self.opts, self.progress)
    }
}

/// An application as the registry lists it.
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
