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
//!   tag of its own per communicator, so it never matches the program's messages (a
//!   round's receives are posted with its sends, the next round waits for all); a
//!   non-blocking one (`MPI_Ibarrier`) starts where it was called and the op after
//!   its completion waits for it;
//! - the tracer's own cost in each gap, where the archive records it (or the caller
//!   gives it), is removed from the compute (`tracer_cost.rs`);
//! - the time after an `MPI_Test*` or `MPI_Iprobe` that found nothing is waiting, not
//!   compute (`polling.rs`);
//! - a receive on a *served* communicator ([`ReadOptions::served`]; by default those the
//!   trace shows, `served.rs`) that a test
//!   completes orders nothing after it: the rank serves such messages as they come
//!   (requests to a server, one-sided operations over messages), so its own work never
//!   waits for one; it still pays the receive's o when the message arrives.
//!
//! Communicator-creating calls (`MPI_Comm_dup`, `MPI_Comm_split`, ...) communicate
//! inside the MPI library, out of the trace's sight: their duration is kept as a
//! `calc`, so the rank's time does not shrink by it.
//!
//! Tags are renumbered densely per (communicator, tag), so that messages of different
//! communicators never match each other.

use std::collections::HashMap;

use netsens_core::schedule::{OpId, Schedule, ScheduleBuilder, ANY};
use netsens_core::Error;

use crate::collectives::{expand_with, Algorithms, Coll, Msg};
use crate::ffi::{self, Event, Members, Sink};
use crate::measure::{compute_warnings, Measured};
use crate::polling::{Gap, PollRuns, Polls};
use crate::runs::{agreed_runs, RunCount};
use crate::scorep_bytes::from_scorep;
use crate::served::Served;
use crate::tracer_cost::TracerGap;

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
    "MPI_Ialltoallw",
    "MPI_Neighbor_alltoall",
    "MPI_Neighbor_allgather",
    "MPI_Ineighbor_alltoall",
    "MPI_Ineighbor_allgather",
    "MPI_Comm_spawn",
];

/// MPI-3's non-blocking collectives that replay models, with the OTF2 code of their
/// operation. Each should record its request (OTF2's NonBlockingCollectiveRequest, then
/// NonBlockingCollectiveComplete where it completes), which places its messages; one
/// whose trace holds its region only is replayed as the blocking collective at the
/// call (see [`Builder::unrequested`]).
const NONBLOCKING_COLLECTIVES: &[(&str, u8)] = &[
    ("MPI_Ibarrier", 0),
    ("MPI_Ibcast", 1),
    ("MPI_Igather", 2),
    ("MPI_Igatherv", 3),
    ("MPI_Iscatter", 4),
    ("MPI_Iscatterv", 5),
    ("MPI_Iallgather", 6),
    ("MPI_Iallgatherv", 7),
    ("MPI_Ialltoall", 8),
    ("MPI_Ialltoallv", 9),
    ("MPI_Iallreduce", 11),
    ("MPI_Ireduce", 12),
    ("MPI_Ireduce_scatter", 13),
    ("MPI_Iscan", 14),
    ("MPI_Iexscan", 15),
    ("MPI_Ireduce_scatter_block", 16),
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

/// Calls whose time goes to the file system (MPI-IO: `MPI_File_*` and ROMIO's
/// `MPIO_*` request calls), not to the network replay models: kept as the rank's time
/// too.
const FILE_IO: [&str; 2] = ["MPI_File_", "MPIO_"];

/// Whether the call `name` is kept as compute ([`OPAQUE`], [`FILE_IO`]).
fn is_opaque(name: &str) -> bool {
    OPAQUE.contains(&name) || FILE_IO.iter().any(|p| name.starts_with(p))
}

/// The call that pauses a tracing library's recording (`MPI_Pcontrol(0)` …
/// `MPI_Pcontrol(1)`, the profilers' convention), recorded as one call spanning the
/// pause: like any call, its time is not charged. A rank whose first call after
/// `MPI_Init` is such a pause marks everything before its end as set-up: its replay
/// starts there, as the program's own clock does.
const SETUP_PAUSE: &str = "MPI_Pcontrol";

/// The marker of collective traffic in the tag map (MPI tags are at most i32::MAX).
const COLLECTIVE_TAG: u32 = u32::MAX;

/// The creator netsens's PMPI library writes in its archives (native/pmpi/trace_otf2.c).
const OWN_TRACER: &str = "netsens-pmpi";

/// Whether the archive's creator is another tracer than netsens's (Score-P): then its
/// ranks start where `MPI_Init` returns, not at the clock's global offset.
pub(crate) fn is_foreign(creator: &str) -> bool {
    creator != OWN_TRACER
}

/// What replay does with an MPI call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Its messages (or none) are replayed; its own duration is not compute.
    Modelled,
    /// Its communication is out of the trace's sight: its duration is kept as compute.
    KeptAsCompute,
    /// Replay refuses the trace (the call is named in one error line).
    NotModelled,
}

impl Support {
    pub fn as_str(self) -> &'static str {
        match self {
            Support::Modelled => "modelled",
            Support::KeptAsCompute => "kept as compute",
            Support::NotModelled => "not modelled",
        }
    }
}

/// MPI calls netsens's own library passes on without recording their messages
/// (docs/reference/pmpi.md): in its archives replay cannot model them.
const OWN_TRACER_UNRECORDED: &[&str] = &["MPI_Alltoallw"];

/// What replay does with the MPI call `name`.
pub fn call_support(name: &str) -> Support {
    call_support_in(name, "")
}

/// What replay does with the MPI call `name` in a trace written by `tracer`.
pub fn call_support_in(name: &str, tracer: &str) -> Support {
    if UNMODELED.contains(&name) || (!is_foreign(tracer) && OWN_TRACER_UNRECORDED.contains(&name)) {
        Support::NotModelled
    } else if is_opaque(name) {
        Support::KeptAsCompute
    } else {
        Support::Modelled
    }
}

/// What a region is to replay, from its paradigm and name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum RegionKind {
    /// An MPI call (paradigm MPI, or unknown with an `MPI_` name).
    Mpi,
    /// The measurement system's own work (Score-P's trace buffer flush): not the
    /// program's time, a pause like measurement switched off.
    Measurement,
    /// The program's own region (a function, an OpenMP construct): compute goes on.
    User,
}

impl RegionKind {
    pub(crate) fn of(name: &str, paradigm: u8) -> RegionKind {
        const UNKNOWN: u8 = 0;
        match paradigm {
            ffi::PARADIGM_MEASUREMENT => RegionKind::Measurement,
            ffi::PARADIGM_MPI | UNKNOWN if name.starts_with("MPI_") || name.starts_with("MPIO_") => RegionKind::Mpi,
            _ => RegionKind::User,
        }
    }
}

/// A communicator's members, as world ranks.
enum Comm {
    World(Vec<u32>),
    /// Each rank alone (`MPI_COMM_SELF`).
    OwnRank,
}

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

/// How a trace is read into a schedule.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Collective algorithms (MPICH's by default).
    pub algorithms: Algorithms,
    /// The clock of the compute between calls.
    pub compute: Compute,
    /// Served communicators: a receive on one that an `MPI_Test*` completes orders
    /// nothing after it. The traced run fixes the order in which a server found its
    /// requests; on another network they arrive in another order, and the server would
    /// have gone on with its own work and served each when it came. By default those
    /// the trace shows ([`crate::served`]).
    pub served: Served,
    /// What the tracer adds to each gap between two calls, ps, for every rank and
    /// clock, in place of what the archive records (`Some(0)`: charge the gaps whole).
    pub tracer_gap: Option<u64>,
    /// How a run of unsuccessful polls that ends in new work is charged
    /// ([`crate::polling`]).
    pub poll_runs: PollRuns,
}

impl ReadOptions {
    /// `"1,3"`: the served communicators' OTF2 references, comma-separated; `"auto"`
    /// and `"none"` as [`Served::parse`] says.
    pub fn parse_served(text: &str) -> Result<Served, String> {
        Served::parse(text)
    }
}

/// The op the next op of a rank depends on, and how.
#[derive(Clone, Copy)]
enum After {
    Nothing,
    Done(OpId),
    Started(OpId),
    /// Every op from the first to the last id given, both included: a collective's
    /// round that sends and receives, whose receives do not wait for its sends.
    DoneAll(OpId, OpId),
}

/// A collective expanded for one rank: its first round's ops and, unless the rank sends
/// and receives nothing in it, its last op and what the rank's next op waits for.
type Expanded = (Vec<OpId>, Option<(OpId, After)>);

enum Request {
    Send(OpId),
    /// A receive posted after this point, created at its completion.
    Recv(After),
    /// A non-blocking collective started after `start`, expanded at its completion;
    /// `next` is the id the rank's next op took (the reader reads one rank at a time,
    /// so the ops from `next` on up to the completion are this rank's).
    Coll {
        start: After,
        next: usize,
    },
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
    /// Requests the current call completed.
    call_completions: u32,
    /// Whether the gap after the last call is waiting (an unsuccessful poll).
    polls: Polls,
    /// The runs the rank recorded between pauses ([`crate::runs`]).
    runs: RunCount,
    /// When the current call began, if it is an opaque one ([`is_opaque`]).
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
    /// The current call is `MPI_Init`, in a trace of another tracer: the rank's
    /// measured time starts where it returns.
    in_init: bool,
    /// Non-blocking collective requests the current call started.
    call_collective_requests: u32,
    /// The blocking send record of the current `MPI_Sendrecv` (Score-P's form): done
    /// when the call returns.
    sendrecv_send: Option<OpId>,
    measured: Measured,
    /// What the tracer adds to each of the rank's gaps.
    tracer_gap: TracerGap,
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
    /// The archive's creator (the tracer that wrote it; "" if it names none).
    pub tracer: String,
    /// What the trace measured of each rank, and the compute charged it.
    pub measured: Vec<Measured>,
    /// One line each for what replay charges differently from what the trace measured.
    pub warnings: Vec<String>,
    /// The runs the archive records, each between pauses of the recording
    /// ([`crate::read_trace_run`] reads one); 1 when it never pauses, or when its ranks
    /// disagree (then it is read whole).
    pub runs: u32,
    /// Each rank's tracer cost per gap, ps, on the clock of its compute (None: not
    /// recorded, its gaps charged whole); `measured[r].tracer_ps` is what was removed.
    pub tracer_gaps: Vec<Option<u64>>,
    /// The communicators replayed as served ([`ReadOptions::served`]).
    pub served: Vec<u32>,
}

pub(crate) struct Builder<'a> {
    path: &'a str,
    algorithms: Algorithms,
    compute: Compute,
    /// The served communicators ([`ReadOptions::served`], resolved).
    served: Vec<u32>,
    /// See [`ReadOptions::tracer_gap`].
    tracer_gap: Option<u64>,
    /// See [`ReadOptions::poll_runs`].
    poll_runs: PollRuns,
    b: ScheduleBuilder,
    ranks: Vec<RankState>,
    regions: HashMap<u32, (Box<str>, RegionKind)>,
    comms: HashMap<u32, Comm>,
    tags: HashMap<(u32, u32), i32>,
    events: u64,
    /// Messages, receives and collectives read: a trace with none is refused.
    communication: u64,
    /// Some compute was measured by the thread CPU time.
    cpu_time_used: bool,
    tracer: String,
    /// The archive's clock tick, ps: the precision of its timestamps.
    tick_ps: u64,
    /// Non-blocking collectives replayed as blocking ones, by name: calls per rank.
    unrequested: HashMap<&'static str, Vec<u64>>,
}

impl<'a> Builder<'a> {
    /// Nothing read yet from the archive `anchor`.
    pub(crate) fn new(anchor: &'a str, algorithms: Algorithms, compute: Compute) -> Builder<'a> {
        Builder::with(anchor, ReadOptions { algorithms, compute, ..ReadOptions::default() }, Vec::new())
    }

    /// Nothing read yet from the archive `anchor`, to be read as `options` say, with
    /// `served` the served communicators (`options.served` resolved).
    pub(crate) fn with(anchor: &'a str, options: ReadOptions, served: Vec<u32>) -> Builder<'a> {
        Builder {
            path: anchor,
            algorithms: options.algorithms,
            compute: options.compute,
            served,
            tracer_gap: options.tracer_gap,
            poll_runs: options.poll_runs,
            b: ScheduleBuilder::new(1),
            ranks: Vec::new(),
            regions: HashMap::new(),
            comms: HashMap::new(),
            tags: HashMap::new(),
            events: 0,
            communication: 0,
            cpu_time_used: false,
            tracer: String::new(),
            tick_ps: 1,
            unrequested: HashMap::new(),
        }
    }

    /// See [`is_foreign`].
    fn foreign(&self) -> bool {
        is_foreign(&self.tracer)
    }

    /// Collective byte counts in Score-P's convention (crate::scorep_bytes): an OTF2
    /// archive of another tracer than netsens's. The liballprof and DUMPI readers give
    /// netsens's.
    fn scorep_byte_counts(&self) -> bool {
        self.foreign() && self.tracer != crate::allprof::CREATOR && self.tracer != crate::dumpi::CREATOR
    }

    /// Charge `ps` of compute to `rank`, after what precedes it.
    fn charge(&mut self, rank: u32, ps: u64) {
        let op = self.b.calc(rank, ps, 0);
        self.blocking(rank, op);
        self.ranks[rank as usize].measured.compute_ps += ps;
    }

    /// Measurement of `rank` stops at `ev` (MEASUREMENT_ON_OFF off, a measurement
    /// region entered): outside a call, the compute up to here is charged, and nothing
    /// until it resumes.
    fn pause(&mut self, rank: u32, ev: &Event) {
        let st = &mut self.ranks[rank as usize];
        if st.depth == 0 && !st.measured.paused() {
            let (gap_ps, by_cpu) = compute_between(self.compute, st.last_leave, st.last_leave_cpu, ev);
            self.cpu_time_used |= by_cpu;
            let waiting = st.polls.gap_is_waiting(by_cpu);
            let gap_ps = if waiting { 0 } else { st.own_compute(gap_ps, by_cpu) };
            let charged = gap_ps / 1000 * 1000;
            if charged > 0 {
                self.charge(rank, charged);
            }
        }
        self.ranks[rank as usize].measured.pause(ev.time_ps);
    }

    /// Measurement of `rank` resumes at `ev`: the compute outside calls starts again here.
    fn resume(&mut self, rank: u32, ev: &Event) {
        let st = &mut self.ranks[rank as usize];
        st.measured.resume(ev.time_ps);
        if st.depth == 0 {
            st.last_leave = ev.time_ps;
            st.last_leave_cpu = ffi::NO_CPU_TIME;
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
        let world = match members {
            Comm::World(members) => members.get(peer as usize).copied(),
            Comm::OwnRank => (peer == 0).then_some(rank),
        };
        world.ok_or_else(|| {
            format!("{}: rank {rank}, event {position}: peer {peer} is not in communicator {comm}", self.path)
        })
    }

    /// A receive's source (world rank) and tag: as matched in an OTF2 trace; as posted in
    /// a liballprof one, where [`ffi::ANY`] is `MPI_ANY_SOURCE` or `MPI_ANY_TAG` (which,
    /// as in Schedgen's GOAL, also matches a collective's messages from that source).
    fn source_and_tag(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(i32, i32), String> {
        let src = if ev.peer == ffi::ANY { ANY } else { self.world(rank, position, ev.comm, ev.peer)? as i32 };
        let tag = if ev.tag == ffi::ANY { ANY } else { self.tag(ev.comm, ev.tag) };
        Ok((src, tag))
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

    /// Expand the collective of `ev` after `start`, its messages on the rank's CPU
    /// `cpu`; returns its first round's ops and, unless the rank sends and receives
    /// nothing in it, its last op (the one its completions attach to) and what the
    /// rank's next op waits for (that op, or its whole last round).
    fn collective(&mut self, rank: u32, position: u64, ev: &Event, start: After, cpu: u8) -> Result<Expanded, String> {
        let Some(coll) = Coll::from_otf2(ev.coll) else {
            return Err(format!(
                "{}: rank {rank}, event {position}: collective operation {} is an MPI call replay does not model",
                self.path, ev.coll
            ));
        };
        let members = match self.comms.get(&ev.comm) {
            Some(Comm::World(members)) => members.clone(),
            Some(Comm::OwnRank) => vec![rank],
            None => {
                return Err(format!("{}: rank {rank}, event {position}: undefined communicator {}", self.path, ev.comm))
            }
        };
        let me = members.iter().position(|&w| w == rank).ok_or_else(|| {
            format!("{}: rank {rank}, event {position}: rank {rank} is not in communicator {}", self.path, ev.comm)
        })? as u32;
        let tag = self.tag(ev.comm, COLLECTIVE_TAG);
        let mut after = start;
        let mut last = None;
        let mut first = Vec::new();
        let algos = self.algorithms;
        let p = members.len() as u32;
        let (sent, received) = if self.scorep_byte_counts() {
            from_scorep(coll, ev.coll, p, me, ev.peer, ev.bytes, ev.bytes2)
        } else {
            (ev.bytes, ev.bytes2)
        };
        let rounds = expand_with(coll, p, me, ev.peer, sent, received, &algos);
        for (index, round) in rounds.into_iter().enumerate() {
            let mut ops = Vec::with_capacity(round.len());
            let mut last_send = None;
            let mut recvs = Vec::new();
            for m in round {
                let op = match m {
                    Msg::Send { peer, bytes } => {
                        self.ranks[rank as usize].coll_sends += 1;
                        self.b.send(rank, members[peer as usize], bytes, tag, cpu, 0)
                    }
                    Msg::Recv { peer, bytes } => self.b.recv(rank, members[peer as usize] as i32, bytes, tag, cpu, 0),
                };
                match (m, last_send) {
                    // A round's receives are posted with its sends (once they have
                    // started), as MPI posts them before it waits: a receive that waits
                    // for a send above S deadlocks two ranks that exchange (each send
                    // waits for its receiver's clear-to-send). A receive enabled when an
                    // eager send starts is ready at the CPU's clock, which the send has
                    // already moved to where it is done: eager rounds are timed exactly
                    // as when the receive waited for the send.
                    (Msg::Recv { .. }, Some(send)) => {
                        self.b.irequires(op, send);
                        recvs.push(op);
                    }
                    (Msg::Send { .. }, _) => {
                        depend(&mut self.b, op, after);
                        last_send = Some(op);
                    }
                    (Msg::Recv { .. }, None) => depend(&mut self.b, op, after),
                }
                ops.push(op);
            }
            // The next round waits for all of this one: chain through its last op,
            // which itself waits for the others; in a round that sends and receives,
            // through its last receive, and the next round waits for the sends too.
            let mixed = !recvs.is_empty();
            let chain = if mixed { &recvs } else { &ops };
            if let Some((&end, rest)) = chain.split_last() {
                for &o in rest {
                    self.b.requires(end, o);
                }
                after = if mixed { After::DoneAll(ops[0], ops[ops.len() - 1]) } else { After::Done(end) };
                last = Some((end, after));
            }
            if index == 0 {
                first = ops;
            }
        }
        Ok((first, last))
    }
}

impl Builder<'_> {
    /// A non-blocking collective call (region `region`, entered at event `at`) that
    /// recorded no request: replay cannot tell where it completes, nor (the completion
    /// records them) its communicator and sizes. It is replayed as the blocking
    /// collective at the call, on MPI_COMM_WORLD, with no bytes, and counted for the
    /// warning ([`Builder::unrequested_warning`]).
    fn unrequested(&mut self, rank: u32, region: u32, at: u64, time_ps: u64) -> Result<(), String> {
        let Some((name, _)) = self.regions.get(&region) else { return Ok(()) };
        let Some(&(name, code)) = NONBLOCKING_COLLECTIVES.iter().find(|(n, _)| *n == &**name) else { return Ok(()) };
        if self.ranks[rank as usize].call_collective_requests > 0 {
            return Ok(());
        }
        let n = self.ranks.len();
        let world = self.comms.iter().find_map(|(&id, c)| match c {
            Comm::World(m) if m.len() == n && m.iter().zip(0..).all(|(&w, r)| w == r) => Some(id),
            _ => None,
        });
        let Some(world) = world else {
            return Err(format!(
                "{}: rank {rank}, event {at}: {name} has no request record (OTF2's NonBlockingCollectiveRequest) and \
                 the trace defines no communicator of all its ranks to replay it on as a blocking collective",
                self.path
            ));
        };
        self.unrequested.entry(name).or_insert_with(|| vec![0; n])[rank as usize] += 1;
        self.communication += 1;
        let r = rank as usize;
        let ev = Event { kind: ffi::COLL, coll: code, comm: world, time_ps, ..Event::default() };
        let start = self.ranks[r].after;
        if let (_, Some((last, then))) = self.collective(rank, at, &ev, start, 0)? {
            for done in std::mem::take(&mut self.ranks[r].completed) {
                self.b.requires(last, done);
            }
            self.ranks[r].after = then;
        }
        Ok(())
    }

    /// The warning for the non-blocking collectives replayed as blocking ones: the
    /// calls and their counts. Ranks that called one a different number of times did
    /// not all call it on MPI_COMM_WORLD: then replay refuses the trace.
    fn unrequested_warning(&self) -> Result<Option<String>, Error> {
        if self.unrequested.is_empty() {
            return Ok(None);
        }
        let mut calls: Vec<(&str, &Vec<u64>)> = self.unrequested.iter().map(|(n, c)| (*n, c)).collect();
        calls.sort();
        let mut shown = Vec::new();
        for (name, counts) in calls {
            if let Some((rank, &n)) = counts.iter().enumerate().find(|&(_, &n)| n != counts[0]) {
                return Err(Error::Input(format!(
                    "{}: {name} has no request record (OTF2's NonBlockingCollectiveRequest) and rank 0 calls it {} \
                     time(s), rank {rank} {n}: not all on MPI_COMM_WORLD, so replay cannot place it; a tracer that \
                     records its requests (Score-P 8 with SCOREP_MPI_ENABLE_GROUPS' default groups) makes it \
                     replayable",
                    self.path, counts[0]
                )));
            }
            shown.push(format!("{name} {} time(s)", counts[0]));
        }
        Ok(Some(format!(
            "{}: non-blocking collectives without a request record (the tracer kept their regions only): {} on \
             each rank; replayed as the blocking collective where each was called, on MPI_COMM_WORLD and with no \
             bytes (their communicator and sizes are in the request records)",
            self.path,
            shown.join(", ")
        )))
    }

    /// A trace without a single message or collective has nothing for the network to do.
    fn check_communicates(&self) -> Result<(), Error> {
        if self.communication > 0 {
            return Ok(());
        }
        Err(Error::Input(format!(
            "{}: the trace has no MPI communication (no message or collective on any of its {} rank(s)): \
             nothing for replay to model",
            self.path,
            self.ranks.len()
        )))
    }

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
                let name = self.regions.get(&region).map_or("an MPI call", |(s, _)| &**s);
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

impl RankState {
    /// The program's part of a gap of `gap_ps` charged as compute: less the tracer's
    /// cost, which is counted as removed.
    fn own_compute(&mut self, gap_ps: u64, by_cpu: bool) -> u64 {
        let (own, tracer) = self.tracer_gap.split(gap_ps, by_cpu);
        self.measured.tracer_ps += tracer;
        self.measured.gaps += 1;
        own
    }

    /// The run of unsuccessful polls that just ended as the rank's own work
    /// ([`crate::polling`]): its polls and the program's part of its gaps, ps, to charge
    /// as compute.
    fn charge_poll_run(&mut self) -> u64 {
        let run = self.polls.take_run();
        self.measured.tracer_ps += run.gaps_tracer_ps;
        self.measured.gaps += run.gaps;
        self.measured.poll_runs_ps += run.polls_ps + run.gaps_own_ps;
        run.polls_ps + run.gaps_own_ps
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
        After::DoneAll(first, last) => {
            for before in first..=last {
                b.requires(op, before);
            }
        }
    }
}

impl Sink for Builder<'_> {
    fn ranks(&mut self, n: u32, creator: &str, resolution: u64) -> Result<(), String> {
        if resolution == 0 {
            return Err(format!(
                "{}: its clock has 0 ticks per second: its timestamps cannot be read as time",
                self.path
            ));
        }
        self.tracer = creator.to_string();
        self.tick_ps = 1_000_000_000_000u64.div_ceil(resolution.max(1));
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
                call_completions: 0,
                polls: Polls::new(self.poll_runs),
                runs: RunCount::default(),
                opaque_since: None,
                sends: 0,
                coll_sends: 0,
                calls: 0,
                open: None,
                before_init_ns: None,
                in_init: false,
                call_collective_requests: 0,
                sendrecv_send: None,
                measured: Measured::default(),
                tracer_gap: self.tracer_gap.map(TracerGap::given).unwrap_or_default(),
            })
            .collect();
        Ok(())
    }

    fn tracer_gap(&mut self, rank: u32, wall_ps: u64, cpu_ps: u64) -> Result<(), String> {
        if let (None, Some(st)) = (self.tracer_gap, self.ranks.get_mut(rank as usize)) {
            st.tracer_gap = TracerGap::recorded(wall_ps, cpu_ps);
        }
        Ok(())
    }

    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        self.regions.insert(id, (name.into(), RegionKind::of(name, paradigm)));
        Ok(())
    }

    fn comm(&mut self, id: u32, members: Members) -> Result<(), String> {
        let Members::World(world) = members else {
            self.comms.insert(id, Comm::OwnRank);
            return Ok(());
        };
        let n = self.ranks.len() as u64;
        if let Some(bad) = world.iter().find(|&&w| w >= n) {
            return Err(format!("{}: communicator {id} names rank {bad}, but the trace has {n} ranks", self.path));
        }
        self.comms.insert(id, Comm::World(world.iter().map(|&w| w as u32).collect()));
        Ok(())
    }

    fn event(&mut self, rank: u32, position: u64, ev: &Event) -> Result<(), String> {
        self.events += 1;
        let r = rank as usize;
        let foreign = self.foreign();
        let st = &mut self.ranks[r];
        st.measured.end_ps = ev.time_ps;
        if position == 0 && foreign {
            // Another tracer's clock starts at the earliest process's start: this
            // rank is measured from its own first event on, never from the offset.
            st.last_leave = ev.time_ps;
            st.measured.start_ps = ev.time_ps;
        }
        match ev.kind {
            ffi::ENTER | ffi::LEAVE => {
                let (name, kind) = self.regions.get(&ev.region).map_or(("", RegionKind::User), |(n, k)| (&**n, *k));
                match (kind, ev.kind) {
                    (RegionKind::User, _) => return Ok(()), // compute continues through it
                    (RegionKind::Measurement, ffi::ENTER) => {
                        self.pause(rank, ev);
                        return Ok(());
                    }
                    (RegionKind::Measurement, _) => {
                        self.resume(rank, ev);
                        return Ok(());
                    }
                    (RegionKind::Mpi, _) => {}
                }
                if ev.kind == ffi::ENTER {
                    if call_support_in(name, &self.tracer) == Support::NotModelled {
                        return Err(format!(
                            "{}: rank {rank}, event {position}: {name} is an MPI call replay does not model",
                            self.path
                        ));
                    }
                    let compute = self.compute;
                    let st = &mut self.ranks[r];
                    st.depth += 1;
                    if st.depth == 1 {
                        let (gap_ps, by_cpu) = compute_between(compute, st.last_leave, st.last_leave_cpu, ev);
                        self.cpu_time_used |= by_cpu;
                        let gap = st.polls.enter(name, by_cpu, ev.time_ps);
                        let paused = st.measured.paused();
                        let polling = matches!(gap, Gap::Waiting | Gap::InRun);
                        if gap == Gap::InRun && !paused {
                            let (own, tracer) = st.tracer_gap.split(gap_ps, by_cpu);
                            st.polls.add_to_run(own, tracer);
                        }
                        let mut gap_ps = if polling || paused { gap_ps } else { st.own_compute(gap_ps, by_cpu) };
                        if gap == Gap::RunWasWork && !paused {
                            gap_ps += st.charge_poll_run();
                        }
                        let gap_ns = if paused { 0 } else { gap_ps / 1000 };
                        st.runs.call(name);
                        st.call_completions = 0;
                        st.call_collective_requests = 0;
                        st.opaque_since = is_opaque(name).then_some(ev.time_ps);
                        st.calls += 1;
                        st.open = Some((ev.region, position));
                        let mut charged = if polling { 0 } else { gap_ns };
                        let init = st.calls == 1 && name.starts_with("MPI_Init");
                        if init && foreign {
                            // Score-P's convention: what precedes MPI_Init is start-up
                            // (the process launch), not the program's measured time.
                            st.in_init = true;
                            charged = 0;
                        } else if init {
                            st.before_init_ns = Some(gap_ns);
                            charged = 0;
                        } else if let Some(before) = st.before_init_ns.take() {
                            charged = if name == SETUP_PAUSE { 0 } else { charged + before };
                        }
                        if charged > 0 {
                            self.charge(rank, charged * 1000);
                        }
                    }
                } else {
                    let st = &mut self.ranks[r];
                    st.depth = st.depth.saturating_sub(1);
                    if st.depth == 0 {
                        if let Some((region, at)) = st.open.take() {
                            self.unrequested(rank, region, at, ev.time_ps)?;
                        }
                        let st = &mut self.ranks[r];
                        if let Some(send) = st.sendrecv_send.take() {
                            st.completed.push(send);
                        }
                        st.last_leave = ev.time_ps;
                        st.last_leave_cpu = ev.cpu_ps;
                        st.polls.leave(st.call_completions, st.pending_collectives, ev.time_ps);
                        if std::mem::take(&mut st.in_init) {
                            st.measured.start_ps = ev.time_ps;
                        }
                        if let Some(since) = st.opaque_since.take() {
                            let ns = ev.time_ps.saturating_sub(since) / 1000;
                            if ns > 0 {
                                self.charge(rank, ns * 1000);
                            }
                        }
                    }
                }
            }
            ffi::MEASURE if ev.bytes == 0 => self.pause(rank, ev),
            ffi::MEASURE => self.resume(rank, ev),
            ffi::CANCELLED => {
                if let Some(Request::Coll { .. }) = self.ranks[r].requests.remove(&ev.req) {
                    let st = &mut self.ranks[r];
                    st.pending_collectives = st.pending_collectives.saturating_sub(1);
                }
            }
            ffi::SEND | ffi::ISEND => {
                self.communication += 1;
                let dst = self.world(rank, position, ev.comm, ev.peer)?;
                let tag = self.tag(ev.comm, ev.tag);
                let op = self.b.send(rank, dst, ev.bytes, tag, 0, 0);
                self.ranks[r].sends += 1;
                // Score-P records MPI_Sendrecv's send as a blocking one: it is in flight
                // while the receive completes, done when the call returns.
                let in_sendrecv = self.ranks[r]
                    .open
                    .and_then(|(region, _)| self.regions.get(&region))
                    .is_some_and(|(name, _)| name.starts_with("MPI_Sendrecv"));
                if ev.kind == ffi::SEND && !in_sendrecv {
                    self.blocking(rank, op);
                } else {
                    let after = self.ranks[r].after;
                    self.link(rank, op, after);
                    let st = &mut self.ranks[r];
                    st.after = After::Started(op);
                    if ev.kind == ffi::SEND {
                        st.sendrecv_send = Some(op);
                    } else {
                        st.requests.insert(ev.req, Request::Send(op));
                    }
                }
            }
            ffi::RECV => {
                self.communication += 1;
                let (src, tag) = self.source_and_tag(rank, position, ev)?;
                let op = self.b.recv(rank, src, ev.bytes, tag, 0, 0);
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
                        self.communication += 1;
                        let (src, tag) = self.source_and_tag(rank, position, ev)?;
                        let op = self.b.recv(rank, src, ev.bytes, tag, 0, 0);
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
                // A served request, found by a poll: the rank's own work goes on without it.
                let served =
                    ev.kind == ffi::IRECV_DONE && self.ranks[r].polls.in_test() && self.served.contains(&ev.comm);
                if !served {
                    self.ranks[r].completed.push(op);
                }
                self.ranks[r].call_completions += 1;
            }
            ffi::COLL => {
                self.communication += 1;
                let start = self.ranks[r].after;
                if let (_, Some((last, then))) = self.collective(rank, position, ev, start, 0)? {
                    // the first round also waits for completed requests
                    for done in std::mem::take(&mut self.ranks[r].completed) {
                        self.b.requires(last, done);
                    }
                    self.ranks[r].after = then;
                }
            }
            ffi::NBC_POST => {
                let start = self.ranks[r].after;
                let next = self.b.num_ops();
                self.ranks[r].requests.insert(ev.req, Request::Coll { start, next });
                self.ranks[r].pending_collectives += 1;
                self.ranks[r].call_collective_requests += 1;
            }
            ffi::NBC_DONE => {
                let Some(Request::Coll { start, next }) = self.ranks[r].requests.remove(&ev.req) else {
                    return Err(format!(
                        "{}: rank {rank}, event {position}: completion of collective request {} that was never started",
                        self.path, ev.req
                    ));
                };
                self.communication += 1;
                let st = &mut self.ranks[r];
                st.pending_collectives = st.pending_collectives.saturating_sub(1);
                st.call_completions += 1;
                // Progress (docs/guides/traces.md): on the rank's CPU between its compute
                // blocks, or with `nonblocking=thread` on a second CPU beside it.
                let cpu = u8::from(self.algorithms.nonblocking_thread);
                let created = self.b.num_ops();
                let (first, last) = self.collective(rank, position, ev, start, cpu)?;
                // Its first round starts at the call: on the rank's own CPU, what the
                // rank did after the call starts once those messages have started (as
                // after an MPI_Isend); a progress thread's CPU leaves the rank's alone.
                if next < created && cpu == 0 {
                    for &op in &first {
                        self.b.irequires(next as OpId, op);
                    }
                }
                match last {
                    Some((_, After::DoneAll(first, last))) => self.ranks[r].completed.extend(first..=last),
                    Some((last, _)) => self.ranks[r].completed.push(last),
                    None => {}
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
    read_trace_options(anchor, ReadOptions { algorithms, compute, ..ReadOptions::default() })
}

/// Read the archive `anchor` into a schedule as `options` say.
pub fn read_trace_options(anchor: &str, options: ReadOptions) -> Result<Replay, Error> {
    let served = options.served.resolve(anchor)?;
    let mut builder = Builder::with(anchor, options, served);
    crate::formats::read(anchor, &mut builder, true).map_err(Error::Input)?;
    builder.into_replay()
}

impl Builder<'_> {
    /// The schedule and counts of everything read, once every rank's calls ended.
    pub(crate) fn into_replay(self) -> Result<Replay, Error> {
        self.check_finished()?;
        self.check_communicates()?;
        let ranks = self.ranks.len() as u32;
        let events = self.events;
        let primitives = self
            .ranks
            .iter()
            .zip(0..)
            .flat_map(|(st, rank)| [(rank, "send", st.sends), (rank, "coll_send", st.coll_sends)])
            .filter(|&(_, _, n)| n > 0)
            .collect();
        let anchor = self.path;
        let compute_clock = if self.cpu_time_used { "cpu" } else { "wall" };
        let measured: Vec<Measured> = self.ranks.iter().map(|st| st.measured).collect();
        let by_cpu = self.cpu_time_used;
        let tracer_gaps = self.ranks.iter().map(|st| st.tracer_gap.on(by_cpu)).collect();
        let mut warnings = compute_warnings(anchor, &measured, self.tick_ps);
        warnings.extend(self.unrequested_warning()?);
        let counts: Vec<u32> = self.ranks.iter().map(|st| st.runs.runs).collect();
        let runs = agreed_runs(anchor, &counts).unwrap_or(1);
        let schedule = self.b.build().map_err(|e| Error::Input(format!("{anchor}: {e}")))?;
        let tracer = self.tracer;
        let served = self.served;
        Ok(Replay {
            schedule,
            events,
            ranks,
            primitives,
            compute_clock,
            tracer,
            measured,
            warnings,
            runs,
            tracer_gaps,
            served,
        })
    }
}

/// The number of ranks of the archive `anchor`, from its definitions only.
pub fn trace_ranks(anchor: &str) -> Result<u32, Error> {
    let mut builder = Builder::new(anchor, Algorithms::default(), Compute::default());
    crate::formats::read(anchor, &mut builder, false).map_err(Error::Input)?;
    Ok(builder.ranks.len() as u32)
}

/// Events in the archive `anchor`, read through libotf2 and dropped: the reading
/// benchmark's baseline (the library's own cost, before any schedule is built).
pub fn count_events(anchor: &str) -> Result<u64, Error> {
    let mut count = ffi::EventCount(0);
    crate::formats::read(anchor, &mut count, true).map_err(Error::Input)?;
    Ok(count.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock of 0 ticks per second gives no time to any timestamp: refused in one
    /// line naming the trace, by replay and by `trace info` alike.
    #[test]
    fn a_clock_of_no_ticks_per_second_is_refused() {
        let mut b = Builder::new("t.otf2", Algorithms::default(), Compute::default());
        let e = b.ranks(2, "Score-P 8.4", 0).unwrap_err();
        assert_eq!(e, "t.otf2: its clock has 0 ticks per second: its timestamps cannot be read as time");
        assert!(Builder::new("t.otf2", Algorithms::default(), Compute::default()).ranks(2, "", 1).is_ok());
    }
}
