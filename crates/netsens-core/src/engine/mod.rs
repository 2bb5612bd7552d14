//! The engine core: per-host LogGOPS clocks, the event loop, message matching,
//! both rendezvous protocols and wide-area links, exactly as `LOGGP.md` states.
//!
//! The core knows nothing of where operations come from. A [`Frontend`] describes
//! each operation and is told when one starts and when one is done; it answers by
//! enabling the operations that become ready ([`Core::enable`]). The GOAL schedule
//! executor is one front end; rank programs are another.

mod blocked;
mod compute;
mod limits;
mod message;
mod noise;
pub mod observe;
mod op;
pub mod queue;
mod receive;
pub mod relay;
mod send;
mod shared_links;
mod unexpected;
mod variability;
mod waiting;

use crate::error::{Error, Result};
use crate::platform::{Disks, Layout, Level, LevelParams, Platform, Rendezvous, Wan};
use crate::profile::{Recorder, RunResult};
use crate::time::Time;
use blocked::Blocked;
use message::{Msg, Posted};
use noise::NoiseState;
use observe::{At, Clock, Key, Observer};
use queue::{Event, EventKind, EventQueue};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use variability::Variability;

pub use limits::state_bytes;
pub use op::{any_tag_in, tag_matches, OpDesc, OpId, OpKind, ANY, CONTEXT_SHIFT};

/// A source of operations (GOAL schedule, rank programs) driving the core (of
/// observer type `O`, see [`Core`]).
pub trait Frontend<O: Observer + ?Sized = dyn Observer> {
    fn op(&self, id: OpId) -> OpDesc;
    /// `id` has started: operations that `irequires` it may be enabled now.
    fn started(&mut self, core: &mut Core<O>, id: OpId);
    /// `id` is done: operations that `require` it may be enabled now.
    fn done(&mut self, core: &mut Core<O>, id: OpId);
    /// After the event queue ran dry: `None` if every operation finished, else a
    /// one-line description of the stuck ranks and what each is waiting for.
    fn stuck(&self, core: &Core<O>) -> Option<String>;
    /// The message of send `send` met receive `recv` (a front end moves its payload).
    fn matched(&mut self, _send: OpId, _recv: OpId) {}
    /// One-sided op `op` (store, put or get) is processed by its target now; returns
    /// the compute a handler charges to the target's CPU (ps, before CPU-speed scaling).
    fn delivered(&mut self, _core: &mut Core<O>, _op: OpId) -> Time {
        0
    }
    /// Operation `id` is probably the next one the core looks up: a front end may
    /// start fetching its description into the cache (a hint; never required).
    #[inline]
    fn prefetch(&self, _id: OpId) {}
    /// One line naming operation `id` for error messages: its rank and its label or
    /// program op.
    fn describe(&self, id: OpId) -> String {
        let d = self.op(id);
        format!("rank {}'s {:?} of {} (op {id})", d.rank, d.kind, d.size)
    }
    /// (operations finished, operations in all) for progress reports; (0, 0) if unknown.
    fn completed(&self) -> (u64, u64) {
        (0, 0)
    }
}

/// How far a run has come, handed to the progress hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub events: u64,
    /// Virtual time of the latest event.
    pub now_ps: Time,
    pub ops_done: u64,
    pub ops_total: u64,
}

/// Events between two calls of the progress hook.
pub const PROGRESS_EVERY: u64 = 1 << 20;

/// Options of one run that are not part of the platform.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub seed: u64,
    /// Collect the (src, dst) message and byte matrices.
    pub matrix: bool,
    /// Rank programs charge the measured thread CPU time of their real work
    /// instead of their cost model (never deterministic; off by default). The
    /// result then holds what each piece of work cost (`RunResult::measured_work`).
    pub measured_compute: bool,
    /// Rank programs charge these costs for their work, in order per rank (a
    /// measured run's `measured_work`, or a median of several): a measured
    /// computation made deterministic, so that every run from it is exact.
    pub recorded_work: Option<Arc<[Vec<Time>]>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { seed: 0, matrix: true, measured_compute: false, recorded_work: None }
    }
}

/// The engine's state for one run. `O` is the type of its observer (see
/// `observe.rs`): a run without one, or one told through `dyn Observer`, is the
/// default, the same code as without the parameter; an observer named by its own
/// type (the recorder beside the run, `relay.rs`) is called directly, not through a
/// virtual call.
pub struct Core<O: Observer + ?Sized = dyn Observer> {
    queue: EventQueue,
    nhosts: usize,
    ncpus: usize,
    nnics: usize,
    /// Next-free clocks: `cpu[host·ncpus + c]`, `nic_s/nic_r[host·nnics + n]`.
    cpu: Vec<Time>,
    /// When ranks share cores (`[shape] cores_per_node`): next-free clock of each
    /// core's CPU `c`, `core[core·ncpus + c]`, which every CPU activity of its ranks
    /// also waits for and advances; empty when every rank has a core of its own.
    core: Vec<Time>,
    nic_s: Vec<Time>,
    nic_r: Vec<Time>,
    posted: Vec<VecDeque<Posted>>,
    unexpected: Vec<unexpected::Unexpected>,
    /// Messages that went into an unexpected queue so far (their arrival numbers).
    arrivals: u64,
    msgs: Vec<Msg>,
    free_msgs: Vec<u32>,
    node_params: LevelParams,
    cluster_params: LevelParams,
    layout: Layout,
    wan: Option<Wan>,
    link_free: Vec<Time>,
    disks: Option<Disks>,
    /// The topology's links that messages share (`[topology]`); `None`: the LogGP pipe.
    fabric: Option<Box<crate::fabric::Fabric>>,
    /// The latest arrival through the fabric per (from, to) pair, and its message.
    pair_arrival: rustc_hash::FxHashMap<u64, (Time, u32)>,
    /// Messages whose bytes are a flow of the fabric, until their receive completes.
    flow_bytes: rustc_hash::FxHashMap<u32, shared_links::Bytes>,
    /// Next-free clock of every disk: `disk_free[node·count + d]`.
    disk_free: Vec<Time>,
    /// Per host, when its last disk request finished (a rank waiting for its disk
    /// is busy until then, though its CPU is not); empty without disks.
    disk_done: Vec<Time>,
    /// An error found while running (stops the run).
    fatal: Option<Error>,
    /// The first operation whose time would have passed the engine's largest time.
    overflow: Option<OpId>,
    /// Events waiting for busy clocks, by the clocks they need.
    blocked: Blocked,
    rendezvous: Rendezvous,
    cpu_speed: f64,
    noise: NoiseState,
    /// Background traffic and soft faults; `now` is the time of the event being handled.
    var: Variability,
    now: Time,
    /// Last arrival per (src, dst): keeps MPI's non-overtaking order when jitter
    /// could reorder messages (only used then).
    last_arrival: HashMap<(u32, u32), Time>,
    rec: Recorder,
    events: u64,
    seed: u64,
    /// When the op being reported to the front end started (for `started`) or
    /// finished (for `done`); ops it enables are ready no earlier.
    release: Time,
    /// Told what every time was made of, when an analysis asks (see `observe.rs`).
    obs: Option<Box<O>>,
}

/// Call the observer, if there is one (arguments are evaluated only then).
macro_rules! tell {
    ($core:ident . $method:ident ( $($arg:expr),* )) => {
        if let Some(o) = $core.obs.as_deref_mut() {
            o.$method($($arg),*)
        }
    };
}
pub(crate) use tell;

impl<O: Observer + ?Sized> Core<O> {
    pub fn new(platform: &Platform, nhosts: u32, ncpus: u8, nnics: u8, opts: &RunOptions) -> Result<Core<O>> {
        if nhosts == 0 {
            return Err(Error::Input("a run needs at least 1 rank".into()));
        }
        let (ncpus, nnics) = (ncpus.max(1) as usize, nnics.max(1) as usize);
        crate::memory::ensure_fits(
            &format!("a run of {nhosts} ranks"),
            limits::state_bytes(nhosts as u128, ncpus as u128, nnics as u128, opts.matrix),
        )?;
        let layout = Layout::new(platform, nhosts)?;
        let n = nhosts as usize;
        let nclusters = layout.nclusters();
        crate::platform::variability::check_run(&platform.noise, nhosts, &platform.cluster)?;
        let var = Variability::new(&platform.noise.background, &platform.noise.faults, opts.seed, &layout);
        let fabric = match &platform.topology {
            Some(t) => Some(Box::new(crate::fabric::Fabric::new(t, layout.node(nhosts - 1) + 1, nhosts)?)),
            None => None,
        };
        Ok(Core {
            queue: EventQueue::default(),
            nhosts: n,
            ncpus,
            nnics,
            cpu: vec![0; n * ncpus],
            core: vec![0; layout.shared_cores(nhosts).map_or(0, |c| c as usize * ncpus)],
            nic_s: vec![0; n * nnics],
            nic_r: vec![0; n * nnics],
            posted: (0..n).map(|_| VecDeque::new()).collect(),
            unexpected: (0..n).map(|_| unexpected::Unexpected::default()).collect(),
            arrivals: 0,
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            node_params: platform.node.clone().unwrap_or_else(|| platform.cluster.clone()),
            cluster_params: platform.cluster.clone(),
            fabric,
            pair_arrival: Default::default(),
            flow_bytes: Default::default(),
            link_free: vec![0; if nclusters > 1 { nclusters * nclusters } else { 0 }],
            disk_free: platform.disks.as_ref().map_or(Vec::new(), |d| {
                let nodes = n.div_ceil(platform.shape.ranks_per_node.max(1) as usize);
                vec![0; nodes * d.count as usize]
            }),
            disk_done: if platform.disks.is_some() { vec![0; n] } else { Vec::new() },
            disks: platform.disks.clone(),
            fatal: None,
            overflow: None,
            blocked: Blocked::new(n * ncpus, nnics),
            layout,
            wan: platform.wan.clone(),
            rendezvous: platform.rendezvous,
            cpu_speed: platform.cpu_speed,
            noise: NoiseState::new(&platform.noise, opts.seed),
            var,
            now: 0,
            last_arrival: HashMap::new(),
            rec: Recorder::new(n, nclusters, opts.matrix),
            events: 0,
            seed: opts.seed,
            release: 0,
            obs: None,
        })
    }

    pub fn num_hosts(&self) -> usize {
        self.nhosts
    }

    /// The host's largest CPU clock (or the end of its last disk request, if later).
    pub fn host_end(&self, host: u32) -> Time {
        let c = host as usize * self.ncpus;
        let cpu = self.cpu[c..c + self.ncpus].iter().copied().max().unwrap_or(0);
        cpu.max(self.disk_done.get(host as usize).copied().unwrap_or(0))
    }

    /// When the op last reported to the front end started or finished.
    pub fn release_time(&self) -> Time {
        self.release
    }

    /// What the profile has recorded for `rank` so far.
    pub fn rank_stats(&self, rank: u32) -> &crate::profile::RankStats {
        &self.rec.ranks[rank as usize]
    }

    /// Receives posted on `host` that no message has matched yet.
    pub fn posted_ops(&self, host: u32) -> impl Iterator<Item = OpId> + '_ {
        self.posted[host as usize].iter().map(|p| p.op)
    }

    /// Queue `id` as ready at its host's clock (a send also waits for its NIC), and
    /// never before the op that released it started or finished: on a host with
    /// several CPUs the other CPU's clock may be behind (LogGOPSim would start the
    /// op in the past).
    #[inline]
    pub fn enable(&mut self, id: OpId, d: &OpDesc) {
        let ci = self.ci(d.rank, d.cpu);
        let c = self.cpu[ci].max(self.release);
        let ni = self.ni(d.rank, d.nic);
        let t = if d.kind == OpKind::Send { c.max(self.nic_s[ni]) } else { c };
        tell!(self.ready(id, d, ci, (d.kind == OpKind::Send).then_some(ni)));
        self.queue.push(t, EventKind::Ready, id, 0, 0);
    }

    /// Hand every time of the run to `obs` (see `observe.rs`); get it back from
    /// [`Core::run_observed`].
    pub fn observe(&mut self, obs: Box<O>) {
        self.obs = Some(obs);
        // A recorded run's critical path splits its link waits by class of links.
        if let Some(f) = self.fabric.as_mut() {
            f.by_class = true;
        }
    }

    /// As [`Core::run_with_progress`], also giving back the observer (told the run's
    /// end clocks).
    pub fn run_observed<F: Frontend<O>>(
        self,
        front: &mut F,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<(RunResult, Option<Box<O>>)> {
        let mut kept = None;
        let result = self.run_inner(front, progress, &mut kept)?;
        Ok((result, kept))
    }

    /// Run until no event is left, then report the result or why it is stuck.
    pub fn run<F: Frontend<O>>(self, front: &mut F) -> Result<RunResult> {
        self.run_with_progress(front, &mut |_| true)
    }

    /// As [`Core::run`], calling `progress` every [`PROGRESS_EVERY`] events; when it
    /// returns false the run stops with [`Error::Interrupted`].
    pub fn run_with_progress<F: Frontend<O>>(
        self,
        front: &mut F,
        progress: &mut dyn FnMut(Progress) -> bool,
    ) -> Result<RunResult> {
        self.run_inner(front, progress, &mut None)
    }

    fn run_inner<F: Frontend<O>>(
        mut self,
        front: &mut F,
        progress: &mut dyn FnMut(Progress) -> bool,
        kept: &mut Option<Box<O>>,
    ) -> Result<RunResult> {
        while let Some(ev) = self.queue.pop() {
            self.events += 1;
            if let Some(next) = self.queue.peek() {
                if next.kind == EventKind::Ready {
                    front.prefetch(next.id);
                }
            }
            if self.events.is_multiple_of(PROGRESS_EVERY) {
                let (ops_done, ops_total) = front.completed();
                if !progress(Progress { events: self.events, now_ps: ev.time, ops_done, ops_total }) {
                    return Err(Error::Interrupted);
                }
            }
            // A group's token stands for the group's first waiting event.
            let (ev, woken) = if ev.kind == EventKind::Wake {
                match self.wake(ev) {
                    Some(next) => (next, Some(ev)),
                    None => continue,
                }
            } else {
                (ev, None)
            };
            self.dispatch(ev, front);
            if self.overflow.is_some() {
                break;
            }
            if let Some(token) = woken {
                self.after_wake(token);
            }
        }
        if let Some(op) = self.overflow {
            return Err(limits::past_largest_time(&front.describe(op)));
        }
        if let Some(e) = self.fatal.take() {
            return Err(e);
        }
        if let Some(why) = front.stuck(&self) {
            return Err(Error::Deadlock(why));
        }
        self.check_unreceived()?;
        if self.rec.bytes_overflowed {
            return Err(limits::bytes_past_largest_total());
        }
        let ends: Vec<Time> = (0..self.nhosts as u32).map(|h| self.host_end(h)).collect();
        if let Some(mut o) = self.obs.take() {
            let mut clocks: Vec<Clock> = (0..self.cpu.len()).map(Clock::Cpu).collect();
            clocks.extend((0..self.disk_done.len()).map(Clock::HostDisk));
            o.finish(&clocks);
            *kept = Some(o);
        }
        let mut result = self.rec.finish(|r| ends[r as usize], self.events, self.seed);
        if let Some(f) = &self.fabric {
            result.links = Some(f.report(result.makespan_ps));
        }
        Ok(result)
    }

    // ---- clocks and parameters -------------------------------------------------

    #[inline]
    fn ci(&self, host: u32, cpu: u8) -> usize {
        host as usize * self.ncpus + cpu as usize
    }

    /// When CPU clock `c` (of [`Core::ci`]) is free: its own clock, and with ranks
    /// sharing cores also its core's.
    #[inline]
    fn cpu_free(&self, c: usize) -> Time {
        if self.core.is_empty() {
            self.cpu[c]
        } else {
            self.cpu[c].max(self.core[self.core_slot(c)])
        }
    }

    /// CPU clock `c` was advanced by a CPU activity: its core is busy until then too.
    #[inline]
    fn occupy(&mut self, c: usize) {
        if !self.core.is_empty() {
            let k = self.core_slot(c);
            self.core[k] = self.cpu[c];
        }
    }

    #[inline]
    fn core_slot(&self, c: usize) -> usize {
        self.layout.core((c / self.ncpus) as u32) as usize * self.ncpus + c % self.ncpus
    }

    #[inline]
    fn ni(&self, host: u32, nic: u8) -> usize {
        host as usize * self.nnics + nic as usize
    }

    #[inline]
    fn params(&self, a: u32, b: u32) -> (LevelParams, Level) {
        let level = self.layout.level(a, b);
        let mut p = if level == Level::Node { &self.node_params } else { &self.cluster_params }.clone();
        if self.var.faults_on {
            self.var.degrade(&mut p, a, b, self.now);
        }
        (p, level)
    }

    /// Computation time of operation `op` on this platform's CPUs (checked as [`Core::add`]).
    #[inline]
    fn scaled(&mut self, op: OpId, cost: Time) -> Time {
        if self.cpu_speed == 1.0 {
            return cost;
        }
        let t = (cost as f64 / self.cpu_speed).round();
        if t >= Time::MAX as f64 {
            return self.overflowed(op);
        }
        t as Time
    }

    /// `at` is the time `node` names for an observer.
    #[inline]
    fn started<F: Frontend<O>>(&mut self, front: &mut F, id: OpId, at: Time, node: At) {
        self.release = at;
        tell!(self.release(node));
        front.started(self, id);
    }

    #[inline]
    fn done<F: Frontend<O>>(&mut self, front: &mut F, id: OpId, at: Time, node: At) {
        self.release = at;
        tell!(self.release(node));
        front.done(self, id);
    }

    /// The observer is told that event `ev` of `op` is handled now, after waiting for
    /// CPU clock `cpu` (and its core) and `other`.
    #[inline]
    fn observe_begin(&mut self, ev: &Event, op: OpId, cpu: Option<usize>, other: Option<Clock>) {
        if self.obs.is_none() {
            return;
        }
        let key = match ev.kind {
            EventKind::Ready | EventKind::DiskDone => Key::Op(ev.id),
            _ => Key::Msg(ev.id),
        };
        // At most three clocks, on the stack: no allocation per event recorded.
        let (mut clocks, mut n) = ([Clock::Cpu(0); 3], 0);
        let mut add = |c| {
            clocks[n] = c;
            n += 1;
        };
        if let Some(c) = cpu {
            add(Clock::Cpu(c));
            if !self.core.is_empty() {
                add(Clock::Core(self.core_slot(c)));
            }
        }
        if let Some(o) = other {
            add(o);
        }
        let host = cpu.map(|c| (c / self.ncpus) as u32);
        tell!(self.begin(key, op, host, &clocks[..n]));
    }

    /// CPU clock `c` was set from `from` plus `cost` and noise `extra`: the observer
    /// hears of it and of the core it occupies.
    #[inline]
    fn observe_cpu(&mut self, c: usize, from: At, cost: observe::Cost, extra: Time) {
        if self.obs.is_none() {
            return;
        }
        let core = (!self.core.is_empty()).then(|| self.core_slot(c));
        tell!(self.advance(Clock::Cpu(c), from, cost, extra));
        if let Some(k) = core {
            tell!(self.set(Clock::Core(k), At::Clock(Clock::Cpu(c)), false));
        }
    }

    #[inline(always)]
    fn dispatch<F: Frontend<O>>(&mut self, ev: Event, front: &mut F) {
        self.now = ev.time;
        match ev.kind {
            EventKind::Ready => {
                let d = front.op(ev.id);
                match d.kind {
                    OpKind::Send => self.on_send(ev, &d, front),
                    OpKind::Recv => self.on_recv(ev, &d, front),
                    OpKind::Calc => self.on_calc(ev, &d, front),
                    OpKind::Store | OpKind::Put | OpKind::Get => self.on_one_sided(ev, &d, front),
                    OpKind::Disk => self.on_disk(ev, &d, front),
                }
            }
            EventKind::Arrive => self.on_arrive(ev, front),
            EventKind::Hop => self.on_hop(ev),
            EventKind::Transmit => self.on_transmit(ev, front),
            EventKind::FlowEnter => self.on_flow_enter(ev),
            EventKind::FlowDone => self.on_flow_done(ev, front),
            EventKind::Wake => unreachable!("tokens are taken apart by the run loop"),
            EventKind::DiskDone => {
                // The rank is busy until its disk is done, though its CPU is not.
                let rank = front.op(ev.id).rank as usize;
                self.disk_done[rank] = self.disk_done[rank].max(ev.time);
                self.observe_begin(&ev, ev.id, None, None);
                tell!(self.set(Clock::HostDisk(rank), At::Begin, true));
                self.done(front, ev.id, ev.time, At::Begin)
            }
        }
    }
}
