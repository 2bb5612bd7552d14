//! `netsens trace info`: what a user needs to know of a trace before a long sweep — its
//! ranks, the tracer that wrote it, the time it measured for each rank, and every MPI
//! call it holds with its count and whether replay models it. Reads the whole archive
//! but builds no schedule, so it works on traces replay refuses.

use std::collections::HashMap;

use netsens_core::Error;

use crate::ffi::{self, Event, Members, Sink};
use crate::measure::Measured;
use crate::replay::{call_support_in, is_foreign, RegionKind, Support};

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
}

struct Census {
    foreign: bool,
    info: TraceInfo,
    regions: HashMap<u32, (Box<str>, RegionKind)>,
    counts: HashMap<Box<str>, u64>,
    depth: Vec<u32>,
    /// The rank is inside MPI_Init (another tracer's: measured from where it returns).
    in_init: Vec<bool>,
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
                    *self.counts.entry(name.clone()).or_default() += 1;
                    self.in_init[r] = self.foreign && name.starts_with("MPI_Init");
                }
            }
            (ffi::LEAVE, Some((_, RegionKind::Mpi))) => {
                self.depth[r] = self.depth[r].saturating_sub(1);
                if self.depth[r] == 0 && std::mem::take(&mut self.in_init[r]) {
                    m.start_ps = ev.time_ps;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// What the trace `anchor` (its `.otf2` file) holds; see [`TraceInfo`].
pub fn trace_info(anchor: &str) -> Result<TraceInfo, Error> {
    let mut census = Census {
        foreign: true,
        info: TraceInfo {
            tracer: String::new(),
            ranks: 0,
            ticks_per_second: 0,
            events: 0,
            measured: Vec::new(),
            calls: Vec::new(),
        },
        regions: HashMap::new(),
        counts: HashMap::new(),
        depth: Vec::new(),
        in_init: Vec::new(),
    };
    crate::formats::read(anchor, &mut census, true).map_err(Error::Input)?;
    let mut calls: Vec<Call> = census
        .counts
        .into_iter()
        .map(|(name, count)| Call { support: call_support_in(&name, &census.info.tracer), name: name.into(), count })
        .collect();
    calls.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    census.info.calls = calls;
    Ok(census.info)
}
