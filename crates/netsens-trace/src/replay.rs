//! OTF2 events → a [`Schedule`], through the public [`ScheduleBuilder`] only.
//!
//! Per rank, in the rank's order:
//! - the CPU time between two MPI calls (leave → next enter) becomes a `calc`, rounded
//!   to whole nanoseconds (so the GOAL form of the schedule is exact): the rank's thread
//!   CPU time when the archive records it at each call (netsens's library does), else
//!   the wall time ([`Compute`]). With more ranks than cores the wall time also counts
//!   the time the rank waited while another rank computed on its core; the platform's
//!   `cores_per_node` models that wait instead;
//! - a blocking send or receive waits for everything before it, and what follows
//!   waits for it; a receive takes the source and tag it matched (wildcards resolved
//!   as recorded);
//! - a non-blocking send starts after what precedes it and what follows starts once it
//!   has started (`irequires`); a non-blocking receive is posted where `MPI_Irecv` was
//!   called (created when its completion names the source); the op after a
//!   completion (`MPI_Wait*`, a successful `MPI_Test*`) waits for the request;
//! - a collective is expanded into rounds of messages ([`crate::collectives`]) on a
//!   tag of its own per communicator, so it never matches the program's messages; a
//!   non-blocking one (`MPI_Ibarrier`) starts where it was called and the op after
//!   its completion waits for it. While one is pending, the time after an
//!   unsuccessful `MPI_Test*` or `MPI_Iprobe` is polling, not compute (a rank
//!   waiting for the barrier spins in such a loop; the model waits instead).
//!
//! Communicator-creating calls (`MPI_Comm_dup`, `MPI_Comm_split`, ...) communicate
//! inside the MPI library, out of the trace's sight: their duration is kept as a
//! `calc`, so the rank's time does not shrink by it.
//!
//! Tags are renumbered densely per (communicator, tag), so that messages of different
//! communicators never match each other.

use std::collections::HashMap;

use netsens_core::schedule::{OpId, Schedule, ScheduleBuilder};
use netsens_core::Error;

use crate::collectives::{expand_with, Algorithms, Coll, Msg};
use crate::ffi::{self, Event, Sink};

/// MPI calls replay cannot model: their effect on the network is not in the trace.
const UNMODELED: &[&str] = &[
    "MPI_Win_create",
    "MPI_Win_allocate",
    "MPI_Win_fence",
    "MPI_Put",
    "MPI_Get",
    "MPI_Accumulate",
    "MPI_Mprobe",
    "MPI_Improbe",
    "MPI_Mrecv",
    "MPI_Imrecv",
    "MPI_Ibcast",
    "MPI_Ireduce",
    "MPI_Iallreduce",
    "MPI_Iallgather",
    "MPI_Ialltoall",
    "MPI_Alltoallw",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_allgather",
    "MPI_Comm_spawn",
];

/// Calls whose communication happens inside the MPI library, out of the trace's
/// sight (communicator creation agrees on a context id): their duration is kept as
/// the rank's time, like compute, rather than dropped.
const OPAQUE: &[&str] = &[
    "MPI_Comm_dup",
    "MPI_Comm_split",
    "MPI_Comm_split_type",
    "MPI_Comm_create",
    "MPI_Comm_create_group",
    "MPI_Cart_create",
    "MPI_Cart_sub",
    "MPI_Graph_create",
    "MPI_Dist_graph_create_adjacent",
    "MPI_Intercomm_create",
    "MPI_Intercomm_merge",
];

/// The call that pauses a tracing library's recording (`MPI_Pcontrol(0)` …
/// `MPI_Pcontrol(1)`, the profilers' convention), recorded as one call spanning the
/// pause: like any call, its time is not charged. A rank whose first call after
/// `MPI_Init` is such a pause marks everything before its end as set-up: its replay
/// starts there, as the program's own clock does.
const SETUP_PAUSE: &str = "MPI_Pcontrol";

/// The marker of collective traffic in the tag map (MPI tags are at most i32::MAX).
const COLLECTIVE_TAG: u32 = u32::MAX;

/// Which clock measures the compute between two calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compute {
    /// The rank's thread CPU time where the archive records it at both calls, else the
    /// wall time.
    #[default]
    Cpu,
    /// The wall time (timestamps) always.
    Wall,
}

impl Compute {
    pub fn parse(text: &str) -> Result<Compute, String> {
        match text.trim() {
            "cpu" => Ok(Compute::Cpu),
            "wall" => Ok(Compute::Wall),
            other => Err(format!("compute: unknown clock \"{other}\"; write cpu or wall")),
        }
    }
}

/// The op the next op of a rank depends on, and how.
#[derive(Clone, Copy)]
enum After {
    Nothing,
    Done(OpId),
    Started(OpId),
}

enum Request {
    Send(OpId),
    /// A receive posted after this point, created at its completion.
    Recv(After),
    /// A non-blocking collective started after this point, expanded at its completion.
    Coll(After),
}

struct RankState {
    after: After,
    /// Requests completed since the last op: the next op waits for them.
    completed: Vec<OpId>,
    last_leave: u64,
    /// The thread CPU time at the last leave, or [`ffi::NO_CPU_TIME`].
    last_leave_cpu: u64,
    /// Nesting of MPI regions (only the outermost call counts).
    depth: u32,
    requests: HashMap<u64, Request>,
    /// Non-blocking collectives started and not yet completed.
    pending_collectives: u32,
    /// The current call polls (a test or probe), and how many requests it completed.
    call_polls: bool,
    call_completions: u32,
    /// The last call was an unsuccessful poll while a collective was pending.
    polling: bool,
    /// When the current call began, if it is an opaque one ([`OPAQUE`]).
    opaque_since: Option<u64>,
    /// Messages sent: the program's point-to-point ones, a collective's.
    sends: u64,
    coll_sends: u64,
    /// Outermost calls entered so far.
    calls: u64,
    /// The outermost call in progress: its region and event position.
    open: Option<(u32, u64)>,
    /// The time before the rank's first call when that is `MPI_Init`, ns: charged
    /// unless the next call pauses the recording (see [`SETUP_PAUSE`]).
    before_init_ns: Option<u64>,
}

/// What a replay read: the schedule and counts for the result.
pub struct Replay {
    pub schedule: Schedule,
    pub events: u64,
    pub ranks: u32,
    /// Messages each rank sends, by kind, as a run's primitive counts: (rank, "send"
    /// for the program's point-to-point sends or "coll_send" for a collective's, count).
    pub primitives: Vec<(u32, &'static str, u64)>,
    /// The clock that measured the compute between calls: "cpu" (the ranks' thread CPU
    /// time, recorded in the archive) or "wall".
    pub compute_clock: &'static str,
}

struct Builder<'a> {
    path: &'a str,
    algorithms: Algorithms,
    compute: Compute,
    b: ScheduleBuilder,
    ranks: Vec<RankState>,
    regions: HashMap<u32, Box<str>>,
    comms: HashMap<u32, Vec<u32>>,
    tags: HashMap<(u32, u32), i32>,
    events: u64,
    /// Some compute was measured by the thread CPU time.
    cpu_time_used: bool,
}

impl<'a> Builder<'a> {
    /// Nothing read yet from the archive `anchor`.
    fn new(anchor: &'a str, algorithms: Algorithms, compute: Compute) -> Builder<'a> {
        Builder {
            path: anchor,
            algorithms,
            compute,
            b: ScheduleBuilder::new(1),
            ranks: Vec::new(),
            regions: HashMap::new(),
            comms: HashMap::new(),
            tags: HashMap::new(),
            events: 0,
            cpu_time_used: false,
        }
    }

    fn tag(&mut self, comm: u32, tag: u32) -> i32 {
        let next = self.tags.len() as i32;
        *self.tags.entry((comm, tag)).or_insert(next)
    }

    fn world(&self, rank: u32, position: u64, comm: u32, peer: u32) -> Result<u32, String> {
        let members = self
            .comms
            .get(&comm)
            .ok_or_else(|| format!("{}: rank {rank}, event {position}: undefined communicator {comm}", self.path))?;
        members.get(peer as usize).copied().ok_or_else(|| {
            format!("{}: rank {rank}, event {position}: peer {peer} is not in communicator {comm}", self.path)
        })
    }

    /// Add `op` of `rank` after what precedes it.
    fn link(&mut self, rank: u32, op: OpId, after: After) {
        depend(&mut self.b, op, after);
        for done in std::mem::take(&mut self.ranks[rank as usize].completed) {
            self.b.requires(op, done);
        }
    }

    fn blocking(&mut self, rank: u32, op: OpId) {
        let after = self.ranks[rank as usize].after;
        self.link(rank, op, after);
        self.ranks[rank as usize].after = After::Done(op);
    }

    /// Expand the collective of `ev` after `start`; returns its last op (None when
    /// the rank sends and receives nothing in it).
    fn collective(&mut self, rank: u32, position: u64, ev: &Event, start: After) -> Result<Option<OpId>, String> {
        let Some(coll) = Coll::from_otf2(ev.coll) else {
            return Err(format!(
                "{}: rank {rank}, event {position}: collective operation {} is an MPI call replay does not model",
                self.path, ev.coll
            ));
        };
        let members = self
            .comms
            .get(&ev.comm)
            .ok_or_else(|| format!("{}: rank {rank}, event {position}: undefined communicator {}", self.path, ev.comm))?
            .clone();
        let me = members.iter().position(|&w| w == rank).ok_or_else(|| {
            format!("{}: rank {rank}, event {position}: rank {rank} is not in communicator {}", self.path, ev.comm)
        })? as u32;
        let tag = self.tag(ev.comm, COLLECTIVE_TAG);
        let mut after = start;
        let mut last = None;
        let algos = self.algorithms;
        for round in expand_with(coll, members.len() as u32, me, ev.peer, ev.bytes, ev.bytes2, &algos) {
            let mut ops = Vec::with_capacity(round.len());
            for m in round {
                let op = match m {
                    Msg::Send { peer, bytes } => {
                        self.ranks[rank as usize].coll_sends += 1;
                        self.b.send(rank, members[peer as usize], bytes, tag, 0, 0)
                    }
                    Msg::Recv { peer, bytes } => self.b.recv(rank, members[peer as usize] as i32, bytes, tag, 0, 0),
                };
                depend(&mut self.b, op, after);
                ops.push(op);
            }
            // The next round waits for all of this one: chain through its last op,
            // which itself waits for the others.
            if let Some((&end, rest)) = ops.split_last() {
                for &o in rest {
                    self.b.requires(end, o);
                }
                after = After::Done(end);
                last = Some(end);
            }
        }
        Ok(last)
    }
}

impl Builder<'_> {
    /// A trace whose ranks end inside an MPI call is of a run that never finished (a
    /// deadlock stopped by a timeout): no replay, but the calls each rank was stuck in.
    fn check_finished(&self) -> Result<(), Error> {
        const SHOWN: usize = 4;
        let stuck: Vec<String> = self
            .ranks
            .iter()
            .enumerate()
            .filter_map(|(rank, st)| st.open.map(|open| (rank, open)))
            .map(|(rank, (region, position))| {
                let name = self.regions.get(&region).map_or("an MPI call", |s| &**s);
                format!("rank {rank} in {name} (event {position})")
            })
            .collect();
        if stuck.is_empty() {
            return Ok(());
        }
        let more = match stuck.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more rank(s)"),
        };
        Err(Error::Input(format!(
            "{}: the traced run never finished (a deadlock, or it was stopped); stuck: {}{more}",
            self.path,
            stuck[..stuck.len().min(SHOWN)].join(", ")
        )))
    }
}

/// The compute from a leave (at wall time `leave`, CPU time `leave_cpu`) to the enter
/// `ev`, ps, and whether it is CPU time: where both calls record it and `compute` asks
/// for it, else wall time.
fn compute_between(compute: Compute, leave: u64, leave_cpu: u64, ev: &Event) -> (u64, bool) {
    let recorded = leave_cpu != ffi::NO_CPU_TIME && ev.cpu_ps != ffi::NO_CPU_TIME;
    if compute == Compute::Cpu && recorded {
        (ev.cpu_ps.saturating_sub(leave_cpu), true)
    } else {
        (ev.time_ps.saturating_sub(leave), false)
    }
}

fn depend(b: &mut ScheduleBuilder, op: OpId, after: After) {
    match after {
        After::Nothing => {}
        After::Done(before) => b.requires(op, before),
        After::Started(before) => b.irequires(op, before),
    }
}

impl Sink for Builder<'_> {
    fn ranks(&mut self, n: u32) -> Result<(), String> {
        self.b = ScheduleBuilder::new(n);
        self.ranks = (0..n)
            .map(|_| RankState {
                after: After::Nothing,
                completed: Vec::new(),
                last_leave: 0,
                last_leave_cpu: ffi::NO_CPU_TIME,
                depth: 0,
                requests: HashMap::new(),
                pending_collectives: 0,
                call_polls: false,
                call_completions: 0,
                polling: false,
                opaque_since: None,
                sends: 0,
                coll_sends: 0,
                calls: 0,
                open: None,
                before_init_ns: None,
            })
            .collect();
        Ok(())
    }

    fn region(&mut self, id: u32, name: &str) -> Result<(), String> {
        self.regions.insert(id, name.into());
        Ok(())
    }

    fn comm(&mut self, id: u32, world: &[u64]) -> Result<(), String> {
        let n = self.ranks.len() as u64;
        if let Some(bad) = world.iter().find(|&&w| w >= n) {
            return Err(format!("{}: communicator {id} names rank {bad}, but the trace has {n} ranks", self.path));
        }
        self.comms.insert(id, world.iter().map(|&w| w as u32).collect());
        Ok(())
    }

    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        self.events += 1;
        let r = rank as usize;
        match ev.kind {
            ffi::ENTER | ffi::LEAVE => {
                let name = self.regions.get(&ev.region).map(|s| &**s).unwrap_or("");
                if !name.starts_with("MPI_") {
                    return Ok(()); // a user region: compute continues through it
                }
                if ev.kind == ffi::ENTER {
                    if UNMODELED.contains(&name) {
                        return Err(format!(
                            "{}: rank {rank}, event {position}: {name} is an MPI call replay does not model",
                            self.path
                        ));
                    }
                    let polls = name.starts_with("MPI_Test") || name == "MPI_Iprobe";
                    let compute = self.compute;
                    let st = &mut self.ranks[r];
                    st.depth += 1;
                    if st.depth == 1 {
                        let (gap_ps, by_cpu) = compute_between(compute, st.last_leave, st.last_leave_cpu, ev);
                        self.cpu_time_used |= by_cpu;
                        let gap_ns = gap_ps / 1000;
                        let polling = st.polling;
                        st.call_polls = polls;
                        st.call_completions = 0;
                        st.opaque_since = OPAQUE.contains(&name).then_some(ev.time_ps);
                        st.calls += 1;
                        st.open = Some((ev.region, position));
                        let mut charged = if polling { 0 } else { gap_ns };
                        if st.calls == 1 && name.starts_with("MPI_Init") {
                            st.before_init_ns = Some(gap_ns);
                            charged = 0;
                        } else if let Some(before) = st.before_init_ns.take() {
                            charged = if name == SETUP_PAUSE { 0 } else { charged + before };
                        }
                        if charged > 0 {
                            let op = self.b.calc(rank, charged * 1000, 0);
                            self.blocking(rank, op);
                        }
                    }
                } else {
                    let st = &mut self.ranks[r];
                    st.depth = st.depth.saturating_sub(1);
                    if st.depth == 0 {
                        st.open = None;
                        st.last_leave = ev.time_ps;
                        st.last_leave_cpu = ev.cpu_ps;
                        st.polling = st.pending_collectives > 0 && st.call_polls && st.call_completions == 0;
                        if let Some(since) = st.opaque_since.take() {
                            let ns = ev.time_ps.saturating_sub(since) / 1000;
                            if ns > 0 {
                                let op = self.b.calc(rank, ns * 1000, 0);
                                self.blocking(rank, op);
                            }
                        }
                    }
                }
            }
            ffi::SEND | ffi::ISEND => {
                let dst = self.world(rank, position, ev.comm, ev.peer)?;
                let tag = self.tag(ev.comm, ev.tag);
                let op = self.b.send(rank, dst, ev.bytes, tag, 0, 0);
                self.ranks[r].sends += 1;
                if ev.kind == ffi::SEND {
                    self.blocking(rank, op);
                } else {
                    let after = self.ranks[r].after;
                    self.link(rank, op, after);
                    self.ranks[r].after = After::Started(op);
                    self.ranks[r].requests.insert(ev.req, Request::Send(op));
                }
            }
            ffi::RECV => {
                let src = self.world(rank, position, ev.comm, ev.peer)?;
                let tag = self.tag(ev.comm, ev.tag);
                let op = self.b.recv(rank, src as i32, ev.bytes, tag, 0, 0);
                self.blocking(rank, op);
            }
            ffi::IRECV_POST => {
                let after = self.ranks[r].after;
                self.ranks[r].requests.insert(ev.req, Request::Recv(after));
            }
            ffi::ISEND_DONE | ffi::IRECV_DONE => {
                let op = match self.ranks[r].requests.remove(&ev.req) {
                    Some(Request::Send(op)) if ev.kind == ffi::ISEND_DONE => op,
                    Some(Request::Recv(after)) if ev.kind == ffi::IRECV_DONE => {
                        let src = self.world(rank, position, ev.comm, ev.peer)?;
                        let tag = self.tag(ev.comm, ev.tag);
                        let op = self.b.recv(rank, src as i32, ev.bytes, tag, 0, 0);
                        depend(&mut self.b, op, after);
                        op
                    }
                    _ => {
                        return Err(format!(
                            "{}: rank {rank}, event {position}: completion of request {} that was never started",
                            self.path, ev.req
                        ))
                    }
                };
                self.ranks[r].completed.push(op);
                self.ranks[r].call_completions += 1;
            }
            ffi::COLL => {
                let start = self.ranks[r].after;
                if let Some(last) = self.collective(rank, position, ev, start)? {
                    // the first round also waits for completed requests
                    for done in std::mem::take(&mut self.ranks[r].completed) {
                        self.b.requires(last, done);
                    }
                    self.ranks[r].after = After::Done(last);
                }
            }
            ffi::NBC_POST => {
                let after = self.ranks[r].after;
                self.ranks[r].requests.insert(ev.req, Request::Coll(after));
                self.ranks[r].pending_collectives += 1;
            }
            ffi::NBC_DONE => {
                let Some(Request::Coll(start)) = self.ranks[r].requests.remove(&ev.req) else {
                    return Err(format!(
                        "{}: rank {rank}, event {position}: completion of collective request {} that was never started",
                        self.path, ev.req
                    ));
                };
                let st = &mut self.ranks[r];
                st.pending_collectives = st.pending_collectives.saturating_sub(1);
                st.call_completions += 1;
                if let Some(last) = self.collective(rank, position, ev, start)? {
                    self.ranks[r].completed.push(last);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Read the OTF2 archive `anchor` (its `.otf2` file) into a schedule, collectives
/// expanded with MPICH's algorithms.
pub fn read_trace(anchor: &str) -> Result<Replay, Error> {
    read_trace_with(anchor, Algorithms::default())
}

/// [`read_trace`] with the collective algorithms of `algorithms`.
pub fn read_trace_with(anchor: &str, algorithms: Algorithms) -> Result<Replay, Error> {
    read_trace_compute(anchor, algorithms, Compute::default())
}

/// [`read_trace_with`], the compute between calls measured by `compute`.
pub fn read_trace_compute(anchor: &str, algorithms: Algorithms, compute: Compute) -> Result<Replay, Error> {
    let mut builder = Builder::new(anchor, algorithms, compute);
    ffi::read(anchor, &mut builder, true).map_err(Error::Input)?;
    builder.check_finished()?;
    let ranks = builder.ranks.len() as u32;
    let events = builder.events;
    let primitives = builder
        .ranks
        .iter()
        .zip(0..)
        .flat_map(|(st, rank)| [(rank, "send", st.sends), (rank, "coll_send", st.coll_sends)])
        .filter(|&(_, _, n)| n > 0)
        .collect();
    let schedule = builder.b.build().map_err(|e| Error::Input(format!("{anchor}: {e}")))?;
    let compute_clock = if builder.cpu_time_used { "cpu" } else { "wall" };
    Ok(Replay { schedule, events, ranks, primitives, compute_clock })
}

/// The number of ranks of the archive `anchor`, from its definitions only.
pub fn trace_ranks(anchor: &str) -> Result<u32, Error> {
    let mut builder = Builder::new(anchor, Algorithms::default(), Compute::default());
    ffi::read(anchor, &mut builder, false).map_err(Error::Input)?;
    Ok(builder.ranks.len() as u32)
}

/// Events in the archive `anchor`, read through libotf2 and dropped: the reading
/// benchmark's baseline (the library's own cost, before any schedule is built).
pub fn count_events(anchor: &str) -> Result<u64, Error> {
    struct Count(u64);
    impl Sink for Count {
        fn ranks(&mut self, _: u32) -> Result<(), String> {
            Ok(())
        }
        fn region(&mut self, _: u32, _: &str) -> Result<(), String> {
            Ok(())
        }
        fn comm(&mut self, _: u32, _: &[u64]) -> Result<(), String> {
            Ok(())
        }
        fn event(&mut self, _: u32, _: u64, _: &Event) -> Result<(), String> {
            self.0 += 1;
            Ok(())
        }
    }
    let mut count = Count(0);
    ffi::read(anchor, &mut count, true).map_err(Error::Input)?;
    Ok(count.0)
}
