//! `netsens trace info`: what a user needs to know of a trace before a long sweep — its
//! ranks, the tracer that wrote it, the time it measured for each rank, and every MPI
//! call it holds with its count and whether replay models it. It works on traces
//! replay refuses.
//!
//! Beside the time measured, each rank's time between calls as the trace itself says
//! it (from its first MPI call to its last, less the time inside calls and with
//! measurement off) and the compute replay charges it, from the same reading: a reader
//! that dropped (or invented) time shows as a difference between the two. Replay
//! charges more where it keeps a call's duration as compute (communicator creation,
//! file I/O) and less where it removes the tracer's own cost or finds polls waiting.

use std::collections::HashMap;

use netsens_core::Error;

use crate::ffi::{self, Event, Members, Sink};
use crate::measure::Measured;
use crate::replay::{call_support_in, is_foreign, Builder, Compute, RegionKind, Support};
use crate::Algorithms;

/// One MPI call of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    /// Outermost calls of that name, over all ranks.
    pub count: u64,
    pub support: Support,
}

/// What `trace info` shows.
#[derive(Clone, Debug)]
pub struct TraceInfo {
    /// The archive's creator ("" when it names none).
    pub tracer: String,
    pub ranks: u32,
    /// The trace clock's ticks per second.
    pub ticks_per_second: u64,
    pub events: u64,
    /// Per rank, with replay's conventions (where its program is first measured to its
    /// last event, less the time measurement was off).
    pub measured: Vec<Measured>,
    /// Most frequent first, then by name.
    pub calls: Vec<Call>,
    /// Per rank, ps: the time between its first MPI call's start and its last call's
    /// end, less the time inside outermost calls and the time measurement was off.
    pub between_calls_ps: Vec<u64>,
    /// Per rank, ps: the compute replay charges it (by default); None where replay
    /// refuses the trace, and [`TraceInfo::replay_refused`] says why.
    pub replayed_compute_ps: Option<Vec<u64>>,
    /// The clock of that compute: "cpu" (the thread CPU time the trace records) or
    /// "wall".
    pub compute_clock: &'static str,
    pub replay_refused: Option<String>,
}

struct Census {
    foreign: bool,
    info: TraceInfo,
    regions: HashMap<u32, (Box<str>, RegionKind)>,
    counts: HashMap<Box<str>, u64>,
    depth: Vec<u32>,
    /// The rank is inside MPI_Init (another tracer's: measured from where it returns).
    in_init: Vec<bool>,
    /// Per rank: where its last outermost call ended, and the time measurement had
    /// been off by then.
    last_leave: Vec<Option<(u64, u64)>>,
}

impl Sink for Census {
    fn ranks(&mut self, n: u32, creator: &str, resolution: u64) -> Result<(), String> {
        self.foreign = is_foreign(creator);
        self.info.tracer = creator.to_string();
        self.info.ranks = n;
        self.info.ticks_per_second = resolution;
        self.info.measured = vec![Measured::default(); n as usize];
        self.depth = vec![0; n as usize];
        self.in_init = vec![false; n as usize];
        self.last_leave = vec![None; n as usize];
        self.info.between_calls_ps = vec![0; n as usize];
        if resolution == 0 {
            return Err("its clock has 0 ticks per second: its timestamps cannot be read as time".into());
        }
        Ok(())
    }

    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        self.regions.insert(id, (name.into(), RegionKind::of(name, paradigm)));
        Ok(())
    }

    fn comm(&mut self, _: u32, _: Members) -> Result<(), String> {
        Ok(())
    }

    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        self.info.events += 1;
        let r = rank as usize;
        let m = &mut self.info.measured[r];
        m.end_ps = ev.time_ps;
        if position == 0 && self.foreign {
            m.start_ps = ev.time_ps;
        }
        let kind = self.regions.get(&ev.region).map(|(n, k)| (n, *k));
        match (ev.kind, kind) {
            (ffi::MEASURE, _) if ev.bytes == 0 => m.pause(ev.time_ps),
            (ffi::MEASURE, _) => m.resume(ev.time_ps),
            (ffi::ENTER, Some((_, RegionKind::Measurement))) => m.pause(ev.time_ps),
            (ffi::LEAVE, Some((_, RegionKind::Measurement))) => m.resume(ev.time_ps),
            (ffi::ENTER, Some((name, RegionKind::Mpi))) => {
                self.depth[r] += 1;
                if self.depth[r] == 1 {
                    if let Some((at, paused)) = self.last_leave[r] {
                        let off = m.paused_ps.saturating_sub(paused);
                        self.info.between_calls_ps[r] += ev.time_ps.saturating_sub(at).saturating_sub(off);
                    }
                    *self.counts.entry(name.clone()).or_default() += 1;
                    self.in_init[r] = self.foreign && name.starts_with("MPI_Init");
                }
            }
            (ffi::LEAVE, Some((_, RegionKind::Mpi))) => {
                self.depth[r] = self.depth[r].saturating_sub(1);
                if self.depth[r] == 0 {
                    self.last_leave[r] = Some((ev.time_ps, m.paused_ps));
                }
                if self.depth[r] == 0 && std::mem::take(&mut self.in_init[r]) {
                    m.start_ps = ev.time_ps;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The census and replay's builder, fed from one reading of the trace: the builder's
/// refusal stops the builder only.
struct CensusAndReplay<'a> {
    census: Census,
    replay: Option<Builder<'a>>,
    refused: Option<String>,
}

impl CensusAndReplay<'_> {
    fn replay(&mut self, feed: impl FnOnce(&mut Builder) -> Result<(), String>) {
        if let Some(b) = &mut self.replay {
            if let Err(e) = feed(b) {
                self.refused = Some(e);
                self.replay = None;
            }
        }
    }
}

impl Sink for CensusAndReplay<'_> {
    fn ranks(&mut self, n: u32, creator: &str, resolution: u64) -> Result<(), String> {
        self.census.ranks(n, creator, resolution)?;
        self.replay(|b| b.ranks(n, creator, resolution));
        Ok(())
    }
    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        self.census.region(id, name, paradigm)?;
        self.replay(|b| b.region(id, name, paradigm));
        Ok(())
    }
    fn comm(&mut self, id: u32, members: Members) -> Result<(), String> {
        self.replay(|b| b.comm(id, members));
        Ok(())
    }
    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        self.census.event(rank, position, ev)?;
        self.replay(|b| b.event(rank, position, ev));
        Ok(())
    }
    fn tracer_gap(&mut self, rank: u32, wall_ps: u64, cpu_ps: u64) -> Result<(), String> {
        self.replay(|b| b.tracer_gap(rank, wall_ps, cpu_ps));
        Ok(())
    }
}

/// What the trace `anchor` (its `.otf2` file) holds; see [`TraceInfo`].
pub fn trace_info(anchor: &str) -> Result<TraceInfo, Error> {
    let census = Census {
        foreign: true,
        info: TraceInfo {
            tracer: String::new(),
            ranks: 0,
            ticks_per_second: 0,
            events: 0,
            measured: Vec::new(),
            calls: Vec::new(),
            between_calls_ps: Vec::new(),
            replayed_compute_ps: None,
            compute_clock: "wall",
            replay_refused: None,
        },
        regions: HashMap::new(),
        counts: HashMap::new(),
        depth: Vec::new(),
        in_init: Vec::new(),
        last_leave: Vec::new(),
    };
    let builder = Builder::new(anchor, Algorithms::default(), Compute::default());
    let mut both = CensusAndReplay { census, replay: Some(builder), refused: None };
    crate::formats::read(anchor, &mut both, true).map_err(|e| Error::Input(naming_the_trace(anchor, e)))?;
    let mut census = both.census;
    match both.replay.map(|b| b.into_replay()) {
        Some(Ok(replay)) => {
            census.info.replayed_compute_ps = Some(replay.measured.iter().map(|m| m.compute_ps).collect());
            census.info.compute_clock = replay.compute_clock;
        }
        Some(Err(e)) => census.info.replay_refused = Some(e.to_string()),
        None => census.info.replay_refused = both.refused,
    }
    let mut calls: Vec<Call> = census
        .counts
        .into_iter()
        .map(|(name, count)| Call { support: call_support_in(&name, &census.info.tracer), name: name.into(), count })
        .collect();
    calls.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    census.info.calls = calls;
    Ok(census.info)
}

/// A reader's refusal, naming the trace where the sink's own message does not.
fn naming_the_trace(anchor: &str, e: String) -> String {
    if e.starts_with(anchor) {
        e
    } else {
        format!("{anchor}: {e}")
    }
}
