//! Runs in one archive: a program that repeats its work and pauses the recording
//! between repetitions (`MPI_Pcontrol(0)` … `MPI_Pcontrol(1)`, as the suite's
//! `--repeat K` does around each run) leaves K recorded stretches; each is a run,
//! replayed on its own.
//!
//! On each rank, a run is a stretch of calls between two pauses (or `MPI_Init`,
//! `MPI_Finalize`) holding at least one call besides those three. Run k of a rank is
//! read as if the archive held only it: the rank's `MPI_Init`, the pause before the
//! run (so replay starts where the pause ends, as for a single run), the run's calls,
//! and the pause or `MPI_Finalize` that ends it. Every rank must record the same
//! number of runs.

use std::collections::HashMap;

use netsens_core::Error;

use crate::collectives::Algorithms;
use crate::ffi::{self, Event, Members, Sink};
use crate::replay::{Builder, Compute, ReadOptions, Replay};

/// The call that pauses the recording, recorded as one call spanning the pause.
const PAUSE: &str = "MPI_Pcontrol";

/// Calls that begin no run.
fn starts_no_run(call: &str) -> bool {
    call == PAUSE || call.starts_with("MPI_Init") || call == "MPI_Finalize"
}

/// Where a rank's reading of run `wanted` stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// No run begun yet (`MPI_Init` and the like are passed on).
    Before,
    /// In or after an earlier run.
    Skipping,
    /// In the wanted run.
    Forwarding,
    /// In the pause that ends the wanted run.
    Closing,
    /// Past the wanted run.
    Done,
}

/// Where the events of the call in progress go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    Pass,
    Hold,
    Drop,
}

/// One rank's runs so far, from its outermost calls in order.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RunCount {
    /// The current stretch has begun a run.
    in_run: bool,
    pub runs: u32,
}

impl RunCount {
    /// The outermost call `call` begins: the index of the run it begins, if it does.
    pub fn call(&mut self, call: &str) -> Option<u32> {
        if call == PAUSE {
            self.in_run = false;
        } else if !self.in_run && !starts_no_run(call) {
            self.in_run = true;
            self.runs += 1;
            return Some(self.runs - 1);
        }
        None
    }
}

struct RankRuns {
    stage: Stage,
    depth: u32,
    dest: Dest,
    count: RunCount,
    /// The last pause seen before the wanted run: passed on when the run begins.
    held: Vec<(u64, Event)>,
}

/// A [`Sink`] that passes on definitions, and of the events only those of run
/// `wanted` (0-based) of each rank; with `wanted` = `u32::MAX` it passes no event and
/// only counts the runs.
pub(crate) struct OneRun<'a> {
    inner: &'a mut dyn Sink,
    wanted: u32,
    regions: HashMap<u32, Box<str>>,
    ranks: Vec<RankRuns>,
}

impl<'a> OneRun<'a> {
    pub fn new(inner: &'a mut dyn Sink, wanted: u32) -> OneRun<'a> {
        OneRun { inner, wanted, regions: HashMap::new(), ranks: Vec::new() }
    }

    /// The runs each rank recorded.
    pub fn runs(&self) -> Vec<u32> {
        self.ranks.iter().map(|r| r.count.runs).collect()
    }

    /// Where the events of the outermost call `call`, beginning now, go.
    fn begin_call(&mut self, rank: usize, call: &str) -> Dest {
        let wanted = self.wanted;
        let st = &mut self.ranks[rank];
        let begun = st.count.call(call);
        if call == PAUSE {
            return match st.stage {
                Stage::Forwarding => {
                    st.stage = Stage::Closing;
                    Dest::Pass
                }
                Stage::Before | Stage::Skipping => {
                    st.held.clear();
                    Dest::Hold
                }
                Stage::Closing | Stage::Done => Dest::Drop,
            };
        }
        if let Some(run) = begun {
            st.stage = match run.cmp(&wanted) {
                std::cmp::Ordering::Less => Stage::Skipping,
                std::cmp::Ordering::Equal => Stage::Forwarding,
                std::cmp::Ordering::Greater => Stage::Done,
            };
        }
        match st.stage {
            Stage::Before | Stage::Forwarding => Dest::Pass,
            _ => Dest::Drop,
        }
    }

    fn pass(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        let held = std::mem::take(&mut self.ranks[rank as usize].held);
        for (p, e) in &held {
            self.inner.event(rank, *p, e)?;
        }
        self.inner.event(rank, position, ev)
    }
}

impl Sink for OneRun<'_> {
    fn ranks(&mut self, n: u32, creator: &str, resolution: u64) -> Result<(), String> {
        self.ranks = (0..n)
            .map(|_| RankRuns {
                stage: Stage::Before,
                depth: 0,
                dest: Dest::Pass,
                count: RunCount::default(),
                held: Vec::new(),
            })
            .collect();
        self.inner.ranks(n, creator, resolution)
    }

    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        self.regions.insert(id, name.into());
        self.inner.region(id, name, paradigm)
    }

    fn comm(&mut self, id: u32, members: Members) -> Result<(), String> {
        self.inner.comm(id, members)
    }

    fn tracer_gap(&mut self, rank: u32, wall_ps: u64, cpu_ps: u64) -> Result<(), String> {
        self.inner.tracer_gap(rank, wall_ps, cpu_ps)
    }

    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        let r = rank as usize;
        let mpi_call = matches!(ev.kind, ffi::ENTER | ffi::LEAVE)
            && self.regions.get(&ev.region).is_some_and(|name| name.starts_with("MPI_"));
        if mpi_call && ev.kind == ffi::ENTER {
            if self.ranks[r].depth == 0 {
                let name = self.regions.get(&ev.region).cloned().unwrap_or_default();
                self.ranks[r].dest = self.begin_call(r, &name);
            }
            self.ranks[r].depth += 1;
        }
        let dest = self.ranks[r].dest;
        if mpi_call && ev.kind == ffi::LEAVE {
            let st = &mut self.ranks[r];
            st.depth = st.depth.saturating_sub(1);
            if st.depth == 0 && st.stage == Stage::Closing {
                st.stage = Stage::Done;
            }
        }
        match dest {
            Dest::Pass if self.wanted != u32::MAX => self.pass(rank, position, ev),
            Dest::Hold => {
                self.ranks[r].held.push((position, *ev));
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Every rank's run count, which must agree: the archive's number of runs.
pub(crate) fn agreed_runs(path: &str, runs: &[u32]) -> Result<u32, String> {
    let first = runs.first().copied().unwrap_or(0);
    match runs.iter().position(|&n| n != first) {
        None => Ok(first.max(1)),
        Some(r) => Err(format!(
            "{path}: the ranks recorded different numbers of runs (rank 0: {first}, rank {r}: {}); \
             every rank must pause its recording (MPI_Pcontrol) around the same runs",
            runs[r]
        )),
    }
}

/// The number of runs the archive `anchor` records (1 when it never pauses).
pub fn trace_runs(anchor: &str) -> Result<u32, Error> {
    let mut events = ffi::EventCount(0);
    let mut counter = OneRun::new(&mut events, u32::MAX);
    crate::formats::read(anchor, &mut counter, true).map_err(Error::Input)?;
    agreed_runs(anchor, &counter.runs()).map_err(Error::Input)
}

/// [`crate::read_trace_compute`] of run `run` (0-based) of the archive `anchor` alone.
pub fn read_trace_run(anchor: &str, algorithms: Algorithms, compute: Compute, run: u32) -> Result<Replay, Error> {
    read_trace_run_options(anchor, ReadOptions { algorithms, compute, ..ReadOptions::default() }, run)
}

/// [`read_trace_run`], read as `options` say.
pub fn read_trace_run_options(anchor: &str, options: ReadOptions, run: u32) -> Result<Replay, Error> {
    let served = options.served.resolve(anchor)?;
    let mut builder = Builder::with(anchor, options, served);
    let mut one = OneRun::new(&mut builder, run);
    crate::formats::read(anchor, &mut one, true).map_err(Error::Input)?;
    let runs = agreed_runs(anchor, &one.runs()).map_err(Error::Input)?;
    if run >= runs {
        return Err(Error::Input(format!("{anchor}: run {} asked for, but the archive records {runs}", run + 1)));
    }
    builder.into_replay()
}

/// Which run of an archive that records several a replay reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunChoice {
    /// Every run replayed; the one whose end time is the median (the lower of the two
    /// middle ones for an even count), as `live --repeat` reports its median run.
    Median,
    /// The archive as one recording, pauses and all.
    Whole,
    /// Run k (1-based).
    Run(u32),
}

impl RunChoice {
    pub fn parse(text: &str) -> Result<RunChoice, String> {
        match text.trim() {
            "median" => Ok(RunChoice::Median),
            "whole" => Ok(RunChoice::Whole),
            n => match n.parse::<u32>() {
                Ok(k) if k >= 1 => Ok(RunChoice::Run(k)),
                _ => Err(format!("run: \"{n}\" is not a run; write median, whole or a run number from 1, e.g. 2")),
            },
        }
    }
}

/// The index of the median of `ends` (the lower middle one for an even count).
pub fn median_index(ends: &[u64]) -> usize {
    let mut order: Vec<usize> = (0..ends.len()).collect();
    order.sort_by_key(|&i| (ends[i], i));
    order[(ends.len().max(1) - 1) / 2]
}
