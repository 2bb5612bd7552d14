//! The engine core: per-host LogGOPS clocks, the event loop, message matching,
//! both rendezvous protocols and wide-area links, exactly as `LOGGP.md` states.
//!
//! The core knows nothing of where operations come from. A [`Frontend`] describes
//! each operation and is told when one starts and when one is done; it answers by
//! enabling the operations that become ready ([`Core::enable`]). The GOAL schedule
//! executor is one front end; rank programs are another.

mod blocked;
mod limits;
mod noise;
mod op;
pub mod queue;
mod variability;

use crate::error::{Error, Result};
use crate::platform::{Disks, Layout, Level, LevelParams, Platform, Rendezvous, Wan};
use crate::profile::{Recorder, RunResult};
use crate::time::Time;
use blocked::{Blocked, Needs};
use noise::NoiseState;
use queue::{Event, EventKind, EventQueue};
use std::collections::{HashMap, VecDeque};
use variability::Variability;

pub use limits::state_bytes;
pub use op::{any_tag_in, tag_matches, OpDesc, OpId, OpKind, ANY, CONTEXT_SHIFT};

/// A source of operations (GOAL schedule, rank programs) driving the core.
pub trait Frontend {
    fn op(&self, id: OpId) -> OpDesc;
    /// `id` has started: operations that `irequires` it may be enabled now.
    fn started(&mut self, core: &mut Core, id: OpId);
    /// `id` is done: operations that `require` it may be enabled now.
    fn done(&mut self, core: &mut Core, id: OpId);
    /// After the event queue ran dry: `None` if every operation finished, else a
    /// one-line description of the stuck ranks and what each is waiting for.
    fn stuck(&self, core: &Core) -> Option<String>;
    /// The message of send `send` met receive `recv` (a front end moves its payload).
    fn matched(&mut self, _send: OpId, _recv: OpId) {}
    /// One-sided op `op` (store, put or get) is processed by its target now; returns
    /// the compute a handler charges to the target's CPU (ps, before CPU-speed scaling).
    fn delivered(&mut self, _core: &mut Core, _op: OpId) -> Time {
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

/// Protocol phase of a message in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Phase {
    /// An eager message (size ≤ S).
    Eager = 0,
    /// Handshake rendezvous: 1-byte request-to-send, sender → receiver.
    Rts = 1,
    /// Handshake rendezvous: 1-byte clear-to-send, receiver → sender.
    Cts = 2,
    /// Handshake rendezvous: the data, after the clear-to-send.
    Data = 3,
    /// LogGOPSim rendezvous: the data at once; the send completes when matched.
    Direct = 4,
    /// A store or active message: one way, processed by the target on arrival.
    OneWay = 5,
    /// A put's data; the target answers with `PutAck`.
    PutData = 6,
    /// 1-byte acknowledgement of a put, target → origin.
    PutAck = 7,
    /// 1-byte request of a get; the target answers with `GetReply`.
    GetReq = 8,
    /// A get's data, target → origin.
    GetReply = 9,
}

impl Phase {
    fn from_u8(v: u8) -> Phase {
        match v {
            0 => Phase::Eager,
            1 => Phase::Rts,
            2 => Phase::Cts,
            3 => Phase::Data,
            4 => Phase::Direct,
            5 => Phase::OneWay,
            6 => Phase::PutData,
            7 => Phase::PutAck,
            8 => Phase::GetReq,
            _ => Phase::GetReply,
        }
    }
}

const NO_OP: OpId = OpId::MAX;

/// One application message and its protocol state.
struct Msg {
    src: u32,
    dst: u32,
    tag: i32,
    size: u64,
    send_op: OpId,
    recv_op: OpId,
    /// The phase it is in when it sits in an unexpected queue (Eager, Rts or Direct).
    phase: Phase,
    /// CPU and NIC indices of the send operation (LogGOPSim charges the receiver's
    /// clocks of the same indices).
    cpu: u8,
    nic: u8,
}

#[derive(Clone, Copy)]
struct Posted {
    op: OpId,
    src: i32,
    tag: i32,
}

/// Options of one run that are not part of the platform.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    pub seed: u64,
    /// Collect the (src, dst) message and byte matrices.
    pub matrix: bool,
    /// Rank programs charge the measured thread CPU time of their real work
    /// instead of their cost model (never deterministic; off by default).
    pub measured_compute: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { seed: 0, matrix: true, measured_compute: false }
    }
}

pub struct Core {
    queue: EventQueue,
    nhosts: usize,
    ncpus: usize,
    nnics: usize,
    /// Next-free clocks: `cpu[host·ncpus + c]`, `nic_s/nic_r[host·nnics + n]`.
    cpu: Vec<Time>,
    nic_s: Vec<Time>,
    nic_r: Vec<Time>,
    posted: Vec<VecDeque<Posted>>,
    unexpected: Vec<VecDeque<u32>>,
    msgs: Vec<Msg>,
    free_msgs: Vec<u32>,
    node_params: LevelParams,
    cluster_params: LevelParams,
    layout: Layout,
    wan: Option<Wan>,
    link_free: Vec<Time>,
    disks: Option<Disks>,
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
}

impl Core {
    pub fn new(platform: &Platform, nhosts: u32, ncpus: u8, nnics: u8, opts: &RunOptions) -> Result<Core> {
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
        Ok(Core {
            queue: EventQueue::default(),
            nhosts: n,
            ncpus,
            nnics,
            cpu: vec![0; n * ncpus],
            nic_s: vec![0; n * nnics],
            nic_r: vec![0; n * nnics],
            posted: (0..n).map(|_| VecDeque::new()).collect(),
            unexpected: (0..n).map(|_| VecDeque::new()).collect(),
            msgs: Vec::new(),
            free_msgs: Vec::new(),
            node_params: platform.node.clone().unwrap_or_else(|| platform.cluster.clone()),
            cluster_params: platform.cluster.clone(),
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
        let c = self.cpu[self.ci(d.rank, d.cpu)].max(self.release);
        let t = if d.kind == OpKind::Send { c.max(self.nic_s[self.ni(d.rank, d.nic)]) } else { c };
        self.queue.push(t, EventKind::Ready, id, 0, 0);
    }

    /// Run until no event is left, then report the result or why it is stuck.
    pub fn run<F: Frontend>(self, front: &mut F) -> Result<RunResult> {
        self.run_with_progress(front, &mut |_| true)
    }

    /// As [`Core::run`], calling `progress` every [`PROGRESS_EVERY`] events; when it
    /// returns false the run stops with [`Error::Interrupted`].
    pub fn run_with_progress<F: Frontend>(
        mut self,
        front: &mut F,
        progress: &mut dyn FnMut(Progress) -> bool,
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
        let ends: Vec<Time> = (0..self.nhosts as u32).map(|h| self.host_end(h)).collect();
        Ok(self.rec.finish(|r| ends[r as usize], self.events, self.seed))
    }

    // ---- clocks and parameters -------------------------------------------------

    #[inline]
    fn ci(&self, host: u32, cpu: u8) -> usize {
        host as usize * self.ncpus + cpu as usize
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

    /// Sender side of a message of `wire` bytes starting at `t0` on `host`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn charge_send(&mut self, op: OpId, host: u32, c: usize, n: usize, t0: Time, wire: u64, p: &LevelParams) {
        let k = wire.saturating_sub(1);
        let per_byte = self.per_byte(op, p.overhead_per_byte, k);
        let busy = self.add(op, p.overhead, per_byte);
        let extra = self.noise.detour(host, t0, busy);
        let end = self.add(op, t0, busy);
        self.cpu[c] = self.add(op, end, extra);
        let per_byte = self.gap_bytes(op, p, wire);
        let gap = self.add(op, p.gap, per_byte);
        self.nic_s[n] = self.add(op, t0, gap);
        // Saturating: once a clock passed the largest time the run stops (see `add`).
        let r = &mut self.rec.ranks[host as usize];
        r.overhead_ps = r.overhead_ps.saturating_add(busy);
        r.noise_ps = r.noise_ps.saturating_add(extra);
    }

    fn alloc_msg(&mut self, m: Msg) -> u32 {
        if let Some(id) = self.free_msgs.pop() {
            self.msgs[id as usize] = m;
            id
        } else {
            self.msgs.push(m);
            (self.msgs.len() - 1) as u32
        }
    }

    #[inline]
    fn wire_bytes(&self, id: u32, phase: Phase) -> u64 {
        match phase {
            Phase::Rts | Phase::Cts | Phase::PutAck | Phase::GetReq => 1,
            _ => self.msgs[id as usize].size,
        }
    }

    /// (from, to) hosts of a message in `phase`.
    #[inline]
    fn ends(&self, id: u32, phase: Phase) -> (u32, u32) {
        let m = &self.msgs[id as usize];
        match phase {
            Phase::Cts | Phase::PutAck | Phase::GetReply => (m.dst, m.src),
            _ => (m.src, m.dst),
        }
    }

    /// A message leaves the sender's CPU at `t1` (= t0 + o): into the LAN, or onto
    /// the first wide-area link of its route.
    fn inject(&mut self, id: u32, phase: Phase, level: Level, t1: Time, p: &LevelParams) {
        let (from, to) = self.ends(id, phase);
        if level == Level::Wan {
            let c = self.layout.cluster(from) as u16;
            self.queue.push(t1, EventKind::Hop, id, phase as u8, c);
        } else {
            let op = self.msg_op(id, phase);
            let jitter = self.noise.latency_jitter(from);
            let ta = self.add(op, t1, p.latency);
            let ta = self.add(op, ta, jitter);
            self.arrive_at(id, phase, from, to, ta);
        }
    }

    fn arrive_at(&mut self, id: u32, phase: Phase, from: u32, to: u32, mut ta: Time) {
        if self.noise.reorders() {
            let last = self.last_arrival.entry((from, to)).or_insert(0);
            ta = ta.max(*last);
            *last = ta;
        }
        self.queue.push(ta, EventKind::Arrive, id, phase as u8, 0);
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

    #[inline]
    fn started<F: Frontend>(&mut self, front: &mut F, id: OpId, at: Time) {
        self.release = at;
        front.started(self, id);
    }

    #[inline]
    fn done<F: Frontend>(&mut self, front: &mut F, id: OpId, at: Time) {
        self.release = at;
        front.done(self, id);
    }

    // ---- waiting for busy clocks ----

    /// `ev` finds the clocks it needs busy until `free`: it waits in its group.
    fn block(&mut self, ev: Event, cpu: usize, nic: usize, needs: Needs, free: Time) {
        let id = self.blocked.group(cpu, nic, needs);
        let g = self.blocked.get(id);
        let token_needed = !g.token_live || g.min_seq().is_none_or(|m| ev.seq < m);
        self.blocked.push(id, ev);
        if token_needed {
            self.push_token(id, free, ev.seq);
        }
    }

    /// A token for group `id`'s lowest sequence number `seq` at `time`; any earlier
    /// token of the group goes stale.
    fn push_token(&mut self, id: u32, time: Time, seq: u64) {
        let g = self.blocked.get(id);
        g.version = (g.version + 1) & 0xFF_FFFF;
        g.token_live = true;
        let v = g.version;
        let token = Event { time, seq, id, kind: EventKind::Wake, phase: (v >> 16) as u8, aux: v as u16 };
        self.queue.defer(token, time);
    }

    /// A group's token: its lowest-sequence event, to hand to its handler (which may
    /// find the clocks busy again and put it back); `None` for a stale token.
    fn wake(&mut self, ev: Event) -> Option<Event> {
        let version = ((ev.phase as u32) << 16) | ev.aux as u32;
        let g = self.blocked.get(ev.id);
        if !g.token_live || g.version != version {
            return None; // stale: a newer token of the group is in the queue
        }
        g.token_live = false;
        let mut next = self.blocked.pop(ev.id).expect("a live token has a waiting event");
        next.time = ev.time;
        Some(next)
    }

    /// After a group's event ran: a token for the next one, if any waits.
    fn after_wake(&mut self, ev: Event) {
        let g = self.blocked.get(ev.id);
        if g.token_live {
            return;
        }
        match g.min_seq() {
            Some(seq) => {
                let (c, n, needs) = (g.cpu, g.nic, g.needs);
                let nic = match needs {
                    Needs::Cpu => 0,
                    Needs::SendNic => self.nic_s[n],
                    Needs::RecvNic => self.nic_r[n],
                };
                self.push_token(ev.id, self.cpu[c].max(nic).max(ev.time), seq);
            }
            None => self.blocked.release_if_idle(ev.id),
        }
    }

    #[inline(always)]
    fn dispatch<F: Frontend>(&mut self, ev: Event, front: &mut F) {
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
            EventKind::Wake => unreachable!("tokens are taken apart by the run loop"),
            EventKind::DiskDone => {
                // The rank is busy until its disk is done, though its CPU is not.
                let rank = front.op(ev.id).rank as usize;
                self.disk_done[rank] = self.disk_done[rank].max(ev.time);
                self.done(front, ev.id, ev.time)
            }
        }
    }

    /// Whether the CPU clock `c` and send-NIC clock `n` are free at `ev`'s time; if
    /// not, `ev` waits for them.
    #[inline]
    fn sender_free(&mut self, ev: Event, c: usize, n: usize) -> bool {
        if self.var.flows_on {
            let p = self.cluster_params.clone();
            self.var.before_send((n / self.nnics) as u32, ev.time, &mut self.nic_s[n], &p);
        }
        let free = self.cpu[c].max(self.nic_s[n]);
        if free > ev.time {
            self.block(ev, c, n, Needs::SendNic, free);
            return false;
        }
        true
    }

    // ---- event handlers ----------------------------------------------------------

    fn on_send<F: Frontend>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let (c, n) = (self.ci(host, d.cpu), self.ni(host, d.nic));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let dst = d.peer as u32;
        let (p, level) = self.params(host, dst);
        let phase = if d.size <= p.eager_limit {
            Phase::Eager
        } else if self.rendezvous == Rendezvous::Handshake {
            Phase::Rts
        } else {
            Phase::Direct
        };
        let wire = if phase == Phase::Rts { 1 } else { d.size };
        self.charge_send(ev.id, host, c, n, ev.time, wire, &p);
        let id = self.alloc_msg(Msg {
            src: host,
            dst,
            tag: d.tag,
            size: d.size,
            send_op: ev.id,
            recv_op: NO_OP,
            phase,
            cpu: d.cpu,
            nic: d.nic,
        });
        self.rec.sent(host, dst, d.size);
        if phase == Phase::Rts {
            self.rec.control_messages += 1;
        }
        let t1 = self.add(ev.id, ev.time, p.overhead);
        self.inject(id, phase, level, t1, &p);
        let at = self.cpu[c];
        self.started(front, ev.id, ev.time);
        if phase == Phase::Eager {
            self.done(front, ev.id, at);
        }
    }

    /// A store, put or get leaves its origin under the send rules (always eager:
    /// one-sided messages have no rendezvous).
    fn on_one_sided<F: Frontend>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let (c, n) = (self.ci(host, d.cpu), self.ni(host, d.nic));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let dst = d.peer as u32;
        let (p, level) = self.params(host, dst);
        let phase = match d.kind {
            OpKind::Store => Phase::OneWay,
            OpKind::Put => Phase::PutData,
            _ => Phase::GetReq,
        };
        let id = self.alloc_msg(Msg {
            src: host,
            dst,
            tag: d.tag,
            size: d.size,
            send_op: ev.id,
            recv_op: NO_OP,
            phase,
            cpu: d.cpu,
            nic: d.nic,
        });
        let wire = self.wire_bytes(id, phase);
        self.charge_send(ev.id, host, c, n, ev.time, wire, &p);
        if phase == Phase::GetReq {
            self.rec.control_messages += 1;
        } else {
            self.rec.sent(host, dst, d.size);
        }
        let t1 = self.add(ev.id, ev.time, p.overhead);
        self.inject(id, phase, level, t1, &p);
        let at = self.cpu[c];
        self.started(front, ev.id, ev.time);
        if phase == Phase::OneWay {
            self.done(front, ev.id, at);
        }
    }

    fn on_recv<F: Frontend>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        self.started(front, ev.id, ev.time);
        let q = &self.unexpected[host as usize];
        let pos = q.iter().position(|&m| {
            let m = &self.msgs[m as usize];
            (d.peer == ANY || m.src as i32 == d.peer) && tag_matches(d.tag, m.tag)
        });
        match pos {
            Some(pos) => {
                let m = self.unexpected[host as usize].remove(pos).expect("position is in range");
                // Done once the message's own arrival processing is over.
                let done_at = ev.time.max(self.cpu[self.ci(host, d.cpu)]);
                self.matched(m, ev.id, ev.time, done_at, front);
            }
            None => self.posted[host as usize].push_back(Posted { op: ev.id, src: d.peer, tag: d.tag }),
        }
    }

    fn on_calc<F: Frontend>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let host = d.rank;
        let c = self.ci(host, d.cpu);
        if self.cpu[c] > ev.time {
            self.block(ev, c, 0, Needs::Cpu, self.cpu[c]);
            return;
        }
        let dur = self.scaled(ev.id, d.size);
        let extra = self.noise.detour(host, ev.time, dur);
        let end = self.add(ev.id, ev.time, dur);
        self.cpu[c] = self.add(ev.id, end, extra);
        let r = &mut self.rec.ranks[host as usize];
        r.compute_ps = r.compute_ps.saturating_add(dur);
        r.noise_ps = r.noise_ps.saturating_add(extra);
        self.started(front, ev.id, ev.time);
        self.done(front, ev.id, self.cpu[c]);
    }

    /// A disk request: queued behind earlier requests to the same disk of the node,
    /// served at the disk's bandwidth; the CPU is not involved.
    fn on_disk<F: Frontend>(&mut self, ev: Event, d: &OpDesc, front: &mut F) {
        let Some(disks) = &self.disks else {
            self.fatal = Some(Error::Input(format!(
                "rank {} reads or writes a disk, but the platform has no disks; add a [disks] section or \
                 --disk-bandwidth",
                d.rank
            )));
            self.queue.clear();
            return;
        };
        if d.peer < 0 || d.peer as u32 >= disks.count {
            self.fatal = Some(Error::Input(format!(
                "rank {} uses disk {}, but nodes have {} disk(s)",
                d.rank, d.peer, disks.count
            )));
            self.queue.clear();
            return;
        }
        let disk = self.layout.node(d.rank) as usize * disks.count as usize + d.peer as usize;
        let start = ev.time.max(self.disk_free[disk]);
        let per_byte = disks.per_byte;
        let len = self.per_byte(ev.id, per_byte, d.size);
        let end = self.add(ev.id, start, len);
        self.disk_free[disk] = end;
        self.started(front, ev.id, start);
        // Reported at its end, so a program sees it finished only then.
        self.queue.push(end, EventKind::DiskDone, ev.id, 0, 0);
    }

    /// A message reaches the wide-area link out of cluster `ev.aux`.
    fn on_hop(&mut self, ev: Event) {
        let phase = Phase::from_u8(ev.phase);
        let (from, to) = self.ends(ev.id, phase);
        let wire = self.wire_bytes(ev.id, phase);
        let wan = self.wan.as_ref().expect("a wide-area hop needs a [wan] section");
        let (latency, per_byte) = (wan.latency, wan.per_byte);
        let at = ev.aux as usize;
        let dst_cluster = self.layout.cluster(to);
        let next = self.layout.next_hop(at, dst_cluster);
        let link = self.layout.link_id(at, next);
        if self.var.flows_on {
            self.var.before_link(link, ev.time, &mut self.link_free[link], per_byte);
        }
        let start = ev.time.max(self.link_free[link]);
        let op = self.msg_op(ev.id, phase);
        let occupancy = self.per_byte(op, per_byte, wire);
        self.link_free[link] = self.add(op, start, occupancy);
        let w = &mut self.rec.wan[link];
        w.0 += 1;
        w.1 = w.1.saturating_add(wire);
        w.2 = w.2.saturating_add(occupancy);
        let jitter = self.noise.wan_jitter(link);
        let t_next = self.add(op, self.link_free[link], latency);
        let t_next = self.add(op, t_next, jitter);
        if next == dst_cluster {
            self.arrive_at(ev.id, phase, from, to, t_next);
        } else {
            self.queue.push(t_next, EventKind::Hop, ev.id, phase as u8, next as u16);
        }
    }

    fn on_arrive<F: Frontend>(&mut self, ev: Event, front: &mut F) {
        let phase = Phase::from_u8(ev.phase);
        let (from, host) = self.ends(ev.id, phase);
        let (mcpu, mnic) = {
            let m = &self.msgs[ev.id as usize];
            (m.cpu, m.nic)
        };
        let (c, n) = (self.ci(host, mcpu), self.ni(host, mnic));
        if self.var.flows_on {
            let p = self.cluster_params.clone();
            self.var.before_receive(host, ev.time, &mut self.nic_r[n], &p);
        }
        let free = self.cpu[c].max(self.nic_r[n]);
        if free > ev.time {
            self.block(ev, c, n, Needs::RecvNic, free);
            return;
        }
        let (p, _) = self.params(from, host);
        let wire = self.wire_bytes(ev.id, phase);
        let k = wire.saturating_sub(1);
        let op = self.msg_op(ev.id, phase);
        let (o_bytes, g_bytes) = (self.per_byte(op, p.overhead_per_byte, k), self.gap_bytes(op, &p, wire));
        let busy = self.add(op, p.overhead, o_bytes.max(g_bytes));
        let extra = self.noise.detour(host, ev.time, busy);
        let end = self.add(op, ev.time, busy);
        self.cpu[c] = self.add(op, end, extra);
        let gap = self.add(op, p.gap, g_bytes);
        self.nic_r[n] = self.add(op, ev.time, gap);
        let r = &mut self.rec.ranks[host as usize];
        r.overhead_ps = r.overhead_ps.saturating_add(busy);
        r.noise_ps = r.noise_ps.saturating_add(extra);
        match phase {
            Phase::Eager | Phase::Direct | Phase::Rts => {
                let (src, tag) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.src as i32, m.tag)
                };
                let q = &mut self.posted[host as usize];
                let pos = q.iter().position(|r| (r.src == ANY || r.src == src) && tag_matches(r.tag, tag));
                match pos {
                    Some(pos) => {
                        let recv = q.remove(pos).expect("position is in range").op;
                        let now = ev.time;
                        self.matched(ev.id, recv, now, self.cpu[c], front);
                    }
                    None => self.unexpected[host as usize].push_back(ev.id),
                }
            }
            Phase::Cts => {
                // Back at the sender: the data goes out as soon as its clocks allow.
                let t = self.cpu[c];
                self.queue.push(t, EventKind::Transmit, ev.id, Phase::Data as u8, 0);
            }
            Phase::Data => {
                let (recv, size) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.recv_op, m.size)
                };
                self.rec.received(host, size);
                self.free_msgs.push(ev.id);
                self.done(front, recv, self.cpu[c]);
            }
            Phase::OneWay | Phase::PutData | Phase::GetReq => {
                // The target's handler runs now, after the arrival's own costs.
                let (op, size) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.send_op, m.size)
                };
                self.release = self.cpu[c];
                let cost = front.delivered(self, op);
                let handler = self.scaled(op, cost);
                if handler > 0 {
                    let extra = self.noise.detour(host, self.cpu[c], handler);
                    let end = self.add(op, self.cpu[c], handler);
                    self.cpu[c] = self.add(op, end, extra);
                    let r = &mut self.rec.ranks[host as usize];
                    r.compute_ps = r.compute_ps.saturating_add(handler);
                    r.noise_ps = r.noise_ps.saturating_add(extra);
                }
                match phase {
                    Phase::OneWay => {
                        self.rec.received(host, size);
                        self.free_msgs.push(ev.id);
                    }
                    Phase::PutData => {
                        self.rec.received(host, size);
                        self.rec.control_messages += 1;
                        self.queue.push(self.cpu[c], EventKind::Transmit, ev.id, Phase::PutAck as u8, 0);
                    }
                    _ => self.queue.push(self.cpu[c], EventKind::Transmit, ev.id, Phase::GetReply as u8, 0),
                }
            }
            Phase::PutAck | Phase::GetReply => {
                let (op, size) = {
                    let m = &self.msgs[ev.id as usize];
                    (m.send_op, m.size)
                };
                if phase == Phase::GetReply {
                    self.rec.received(host, size);
                }
                self.free_msgs.push(ev.id);
                self.done(front, op, self.cpu[c]);
            }
        }
    }

    /// Message `id` (Eager, Direct or Rts) met receive `recv` at time `t`; a data
    /// message completes the receive at `recv_done`.
    fn matched<F: Frontend>(&mut self, id: u32, recv: OpId, t: Time, recv_done: Time, front: &mut F) {
        let (phase, src, dst, size, send_op, mcpu, mnic) = {
            let m = &mut self.msgs[id as usize];
            m.recv_op = recv;
            (m.phase, m.src, m.dst, m.size, m.send_op, m.cpu, m.nic)
        };
        front.matched(send_op, recv);
        match phase {
            Phase::Rts => {
                // The receiver answers with a clear-to-send as soon as its clocks allow.
                self.rec.control_messages += 1;
                let rc = self.cpu[self.ci(dst, front.op(recv).cpu)];
                self.queue.push(rc.max(t), EventKind::Transmit, id, Phase::Cts as u8, 0);
            }
            Phase::Direct => {
                // LogGOPSim: the send completes now, its clocks advanced to this instant.
                let (c, n) = (self.ci(src, mcpu), self.ni(src, mnic));
                self.cpu[c] = self.cpu[c].max(t);
                self.nic_s[n] = self.nic_s[n].max(t);
                self.rec.received(dst, size);
                self.free_msgs.push(id);
                self.done(front, send_op, t);
                self.done(front, recv, recv_done);
            }
            _ => {
                self.rec.received(dst, size);
                self.free_msgs.push(id);
                self.done(front, recv, recv_done);
            }
        }
    }

    /// A protocol message (clear-to-send or rendezvous data) is sent under the send rules.
    fn on_transmit<F: Frontend>(&mut self, ev: Event, front: &mut F) {
        let phase = Phase::from_u8(ev.phase);
        let (from, to) = self.ends(ev.id, phase);
        let (cpu_idx, nic_idx, send_op) = {
            let m = &self.msgs[ev.id as usize];
            if phase == Phase::Cts {
                let r = front.op(m.recv_op);
                (r.cpu, r.nic, m.send_op)
            } else {
                (m.cpu, m.nic, m.send_op)
            }
        };
        let (c, n) = (self.ci(from, cpu_idx), self.ni(from, nic_idx));
        if !self.sender_free(ev, c, n) {
            return;
        }
        let (p, level) = self.params(from, to);
        let wire = self.wire_bytes(ev.id, phase);
        let op = self.msg_op(ev.id, phase);
        self.charge_send(op, from, c, n, ev.time, wire, &p);
        if phase == Phase::GetReply {
            self.rec.sent(from, to, wire);
        }
        let t1 = self.add(op, ev.time, p.overhead);
        self.inject(ev.id, phase, level, t1, &p);
        if phase == Phase::Data {
            self.done(front, send_op, self.cpu[c]);
        }
    }

    /// A run whose operations all finished may still have left messages nobody received.
    fn check_unreceived(&self) -> Result<()> {
        let mut total = 0usize;
        let mut shown = Vec::new();
        for (host, q) in self.unexpected.iter().enumerate() {
            for &id in q {
                total += 1;
                if shown.len() < 4 {
                    let m = &self.msgs[id as usize];
                    shown.push(format!("rank {} → rank {host} ({} B, tag {})", m.src, m.size, m.tag));
                }
            }
        }
        if total == 0 {
            return Ok(());
        }
        let more = if total > shown.len() { format!(" and {} more", total - shown.len()) } else { String::new() };
        Err(Error::Deadlock(format!("{total} message(s) were sent but never received: {}{more}", shown.join(", "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{presets, Dist};

    #[test]
    fn jitter_never_lets_a_message_overtake_an_earlier_one_of_the_same_pair() {
        let mut p = presets::get("loggopsim").unwrap();
        p.noise.latency_jitter = Dist::Uniform(0, 1000);
        let mut core = Core::new(&p, 3, 1, 1, &RunOptions::default()).unwrap();
        // Pair 0→1: the second message would arrive first (50 < 100); it is held to 100.
        core.arrive_at(0, Phase::Eager, 0, 1, 100);
        core.arrive_at(1, Phase::Eager, 0, 1, 50);
        // Another pair is not held back.
        core.arrive_at(2, Phase::Eager, 2, 1, 60);
        let order: Vec<(Time, u32)> = std::iter::from_fn(|| core.queue.pop()).map(|e| (e.time, e.id)).collect();
        assert_eq!(order, vec![(60, 2), (100, 0), (100, 1)]);
    }
}
