//! [`MpiRank`]: the [`Rank`] trait on one MPI process (one rank per process).
//!
//! Every blocking call blocks inside, so all its futures complete at their first
//! poll. Waiting loops MPI_Test, serving one-sided requests between tests and
//! yielding the CPU, so that more ranks than cores still progress.
//!
//! A receive is matched lazily: once its message has arrived, it posts the MPI_Irecv of
//! exactly that message (its source, tag and size), so no receive needs to know a size
//! in advance ([`crate::matching`]: one probe finds what has arrived).

use crate::comms::Comms;
use crate::disks::{self, Disks};
use crate::matching::{match_arrived, Pattern, Wildcards};
use crate::one_sided::OneSided;
use crate::transport::{self, RawComm, Transfer};
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator as _;
use netsens_core::platform::Platform;
use netsens_core::program::{
    thread_cpu_time, Communicator, Handler, HandlerId, Message, Rank, Request, Tag, ANY_SOURCE, ANY_TAG,
};
use netsens_core::time::Time;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// An operation the program started and has not yet waited for.
enum Op {
    Send(Transfer),
    /// A receive; `posted` once its message was found and its MPI_Irecv started.
    Recv {
        posted: Option<Transfer>,
    },
    Put {
        request: Transfer,
        ack: Transfer,
        dst: u32,
    },
    Get {
        request: Transfer,
        reply: Transfer,
        dst: u32,
    },
    /// A disk request, complete at this time (ps since the start).
    Disk {
        deadline: Time,
    },
}

/// Time a rank spent in one phase.
#[derive(Clone, Copy, Default)]
struct PhaseAcc {
    elapsed: Time,
    compute: Time,
}

/// What one rank measured, for its report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankStats {
    /// From the start to the end of the program, ps (wall time).
    pub elapsed_ps: Time,
    /// Time in `work` (thread CPU time of the real work) and `compute` (spun), ps.
    pub compute_ps: Time,
    /// (phase, elapsed ps, compute ps), by name.
    pub phases: Vec<(String, Time, Time)>,
    /// (primitive, count), by name, only those used.
    pub primitives: Vec<(&'static str, u64)>,
}

struct State {
    comms: Comms,
    /// A duplicate of the world for the end of the run (see [`MpiRank::drain`]).
    fence: SimpleCommunicator,
    one_sided: OneSided,
    ops: Vec<Option<Op>>,
    free: Vec<u32>,
    /// Receives not yet matched, in the order the program posted them.
    unmatched: Vec<(u32, Pattern<RawComm>)>,
    disks: Option<Disks>,
    /// First disk error (the request completes at once; the run then fails).
    pub disk_error: Option<String>,
    start: f64,
    cpu_speed: f64,
    eager_limit: u64,
    cluster_sizes: Vec<u32>,
    compute: Time,
    counts: Vec<(&'static str, u64)>,
    phases: BTreeMap<String, PhaseAcc>,
    /// The open phase and (time, compute) when it began.
    open: Option<(String, Time, Time)>,
    /// Set while a request is being served, so a handler's calls do not serve again.
    serving: bool,
}

/// A rank's handle on real MPI.
#[derive(Clone)]
pub struct MpiRank {
    state: Rc<RefCell<State>>,
    world: Communicator,
}

fn elapsed_ps(start: f64) -> Time {
    ((mpi::time() - start).max(0.0) * 1e12) as Time
}

impl MpiRank {
    /// This process's rank on `platform` (its CPU speed, eager limit, clusters, disks).
    pub fn new(world: &SimpleCommunicator, platform: &Platform) -> MpiRank {
        let size = world.size() as u32;
        let members: Arc<[u32]> = (0..size).collect();
        let state = State {
            comms: Comms::new(world),
            fence: world.duplicate(),
            one_sided: OneSided::new(world),
            ops: Vec::new(),
            free: Vec::new(),
            unmatched: Vec::new(),
            disks: Disks::new(platform),
            disk_error: None,
            start: mpi::time(),
            cpu_speed: platform.cpu_speed,
            eager_limit: platform.cluster.eager_limit,
            cluster_sizes: platform.shape.clusters.clone().unwrap_or_else(|| vec![size]),
            compute: 0,
            counts: Vec::new(),
            phases: BTreeMap::new(),
            open: None,
            serving: false,
        };
        let world = Communicator::from_parts(0, members, world.rank() as u32);
        MpiRank { state: Rc::new(RefCell::new(state)), world }
    }

    /// Start the clock now (after every rank has set up).
    pub fn start_clock(&self) {
        self.state.borrow_mut().start = mpi::time();
    }

    fn bump(&self, primitive: &'static str) {
        let mut s = self.state.borrow_mut();
        match s.counts.iter_mut().find(|(name, _)| *name == primitive) {
            Some((_, n)) => *n += 1,
            None => s.counts.push((primitive, 1)),
        }
    }

    fn add_op(&self, op: Op) -> Request {
        let mut s = self.state.borrow_mut();
        let id = match s.free.pop() {
            Some(id) => {
                s.ops[id as usize] = Some(op);
                id
            }
            None => {
                s.ops.push(Some(op));
                (s.ops.len() - 1) as u32
            }
        };
        Request::from_id(id)
    }

    /// Enter the communication layer: serve the one-sided requests waiting here,
    /// match posted receives to arrived messages, let sends move on.
    fn poll(&self) {
        loop {
            let delivery = {
                let mut s = self.state.borrow_mut();
                if s.serving {
                    return;
                }
                match s.one_sided.serve_one() {
                    None => break,
                    Some(None) => continue,
                    Some(Some(d)) => {
                        s.serving = true;
                        d
                    }
                }
            };
            // The handler runs with no borrow held: it may use this rank's handle.
            let _cost = (delivery.handler)(delivery.origin, &delivery.data);
            self.state.borrow_mut().serving = false;
        }
        let mut s = self.state.borrow_mut();
        let s = &mut *s;
        s.one_sided.progress();
        let ops = &mut s.ops;
        let wild = Wildcards { any_source: transport::any_source(), any_tag: transport::any_tag() };
        match_arrived(&mut s.unmatched, wild, transport::probe, |id, comm, env| {
            if let Some(Op::Recv { posted }) = ops[id as usize].as_mut() {
                *posted = Some(Transfer::recv(comm, env.source, env.tag, env.len));
            }
        });
    }

    /// Whether op `id` has completed.
    fn complete(&self, id: u32) -> bool {
        let now = self.now();
        let mut s = self.state.borrow_mut();
        match s.ops[id as usize].as_mut().expect("a request waited for twice") {
            Op::Send(t) => t.test(),
            Op::Recv { posted, .. } => posted.as_mut().is_some_and(|t| t.test()),
            Op::Put { request, ack, .. } => request.test() & ack.test(),
            Op::Get { request, reply, .. } => request.test() & reply.test(),
            Op::Disk { deadline } => now >= *deadline,
        }
    }

    /// Take a completed op's result.
    fn take(&self, id: u32) -> Message {
        let mut s = self.state.borrow_mut();
        let op = s.ops[id as usize].take().expect("a request waited for twice");
        s.free.push(id);
        match op {
            Op::Recv { posted: Some(mut t), .. } => {
                let env = t.envelope.expect("a completed receive has an envelope");
                let mut data = std::mem::take(&mut t.buffer);
                data.truncate(env.len);
                Message { source: env.source as u32, tag: env.tag, data }
            }
            Op::Get { mut reply, dst, .. } => Message { source: dst, tag: 0, data: std::mem::take(&mut reply.buffer) },
            Op::Put { dst, .. } => Message { source: dst, tag: 0, data: Vec::new() },
            _ => Message::default(),
        }
    }

    /// Block until `done` holds, serving requests and yielding between tries.
    fn block_until(&self, mut done: impl FnMut(&Self) -> bool) {
        loop {
            self.poll();
            if done(self) {
                return;
            }
            std::thread::yield_now();
        }
    }

    /// The end of the program: its statistics (open phase closed at this time).
    pub fn finish(&self) -> RankStats {
        let now = self.now();
        let mut s = self.state.borrow_mut();
        let compute = s.compute;
        close_phase(&mut s, now, compute);
        RankStats {
            elapsed_ps: now,
            compute_ps: compute,
            phases: s.phases.iter().map(|(n, a)| (n.clone(), a.elapsed, a.compute)).collect(),
            primitives: {
                let mut v = s.counts.clone();
                v.sort();
                v
            },
        }
    }

    /// A disk error the program ran into, if any.
    pub fn disk_error(&self) -> Option<String> {
        self.state.borrow().disk_error.clone()
    }

    /// After the program: serve the others' requests until every rank has finished
    /// (a non-blocking barrier on the one-sided service's own communicator). Gives up
    /// after `patience` seconds (`None`: waits as long as it takes); whether it ended.
    pub fn drain(&self, patience: Option<f64>) -> bool {
        use mpi::traits::AsRaw;
        self.block_until(|r| r.state.borrow().one_sided.idle());
        let mut fence = transport::Fence::start(self.state.borrow().fence.as_raw());
        let since = mpi::time();
        loop {
            self.poll();
            if fence.test() {
                return true;
            }
            if patience.is_some_and(|p| mpi::time() - since > p) {
                return false;
            }
            std::thread::yield_now();
        }
    }
}

fn close_phase(s: &mut State, now: Time, compute: Time) {
    if let Some((name, t0, c0)) = s.open.take() {
        let acc = s.phases.entry(name).or_default();
        acc.elapsed += now.saturating_sub(t0);
        acc.compute += compute.saturating_sub(c0);
    }
}

impl Rank for MpiRank {
    fn world(&self) -> Communicator {
        self.world.clone()
    }

    fn rank(&self) -> u32 {
        self.world.rank()
    }

    fn size(&self) -> u32 {
        self.world.size()
    }

    fn eager_limit(&self) -> u64 {
        self.state.borrow().eager_limit
    }

    fn cluster_sizes(&self) -> Vec<u32> {
        self.state.borrow().cluster_sizes.clone()
    }

    fn isend(&self, comm: &Communicator, dst: u32, tag: Tag, data: Vec<u8>) -> Request {
        self.poll();
        self.bump(if comm.is_collective() { "coll_send" } else { "send" });
        let raw = self.state.borrow().comms.raw(comm);
        assert!(dst < comm.size(), "rank {dst} is not in a communicator of {} ranks", comm.size());
        self.add_op(Op::Send(Transfer::send(raw, dst as i32, tag, data, false)))
    }

    fn irecv(&self, comm: &Communicator, src: i32, tag: Tag) -> Request {
        self.poll();
        self.bump(if comm.is_collective() { "coll_recv" } else { "recv" });
        let raw = self.state.borrow().comms.raw(comm);
        let src = if src == ANY_SOURCE { transport::any_source() } else { src };
        let tag = if tag == ANY_TAG { transport::any_tag() } else { tag };
        let req = self.add_op(Op::Recv { posted: None });
        self.state.borrow_mut().unmatched.push((req.id(), Pattern { comm: raw, src, tag }));
        req
    }

    async fn wait(&self, req: Request) -> Message {
        self.block_until(|r| r.complete(req.id()));
        self.take(req.id())
    }

    async fn wait_all(&self, reqs: Vec<Request>) -> Vec<Message> {
        let mut next = 0;
        self.block_until(|r| {
            while next < reqs.len() && r.complete(reqs[next].id()) {
                next += 1;
            }
            next == reqs.len()
        });
        reqs.iter().map(|q| self.take(q.id())).collect()
    }

    fn test(&self, req: &Request) -> bool {
        self.poll();
        self.complete(req.id())
    }

    async fn compute(&self, cost: Time) {
        self.bump("compute");
        let speed = self.state.borrow().cpu_speed;
        let target = (cost as f64 / speed).round() as Time;
        // Modelled time with no work behind it: this thread's CPU busy for that long.
        let start = thread_cpu_time();
        let mut spent = 0;
        while spent < target {
            spent = thread_cpu_time().saturating_sub(start);
        }
        self.state.borrow_mut().compute += spent;
    }

    async fn work<T>(&self, _cost: Time, f: impl FnOnce() -> T) -> T {
        self.bump("compute");
        // The real work is the cost: its thread CPU time is what it charges.
        let start = thread_cpu_time();
        let out = f();
        let spent = thread_cpu_time().saturating_sub(start);
        self.state.borrow_mut().compute += spent;
        out
    }

    fn idisk(&self, disk: u32, bytes: u64) -> Request {
        self.bump("disk");
        let now = self.now();
        let deadline = {
            let mut s = self.state.borrow_mut();
            let outcome = match s.disks.as_mut() {
                Some(d) => d.request(disk, bytes, now),
                None => Err(disks::NO_DISKS.to_string()),
            };
            outcome.unwrap_or_else(|why| {
                s.disk_error.get_or_insert(why);
                now
            })
        };
        self.add_op(Op::Disk { deadline })
    }

    fn now(&self) -> Time {
        elapsed_ps(self.state.borrow().start)
    }

    fn phase(&self, name: &str) {
        let now = self.now();
        let mut s = self.state.borrow_mut();
        let compute = s.compute;
        close_phase(&mut s, now, compute);
        s.open = Some((name.to_string(), now, compute));
    }

    fn count(&self, primitive: &'static str) {
        self.bump(primitive);
    }

    fn expose(&self, bytes: usize) {
        self.state.borrow_mut().one_sided.window = vec![0; bytes];
    }

    fn window<T>(&self, f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        f(&mut self.state.borrow_mut().one_sided.window)
    }

    fn store(&self, dst: u32, offset: usize, data: Vec<u8>) {
        self.poll();
        self.bump("store");
        self.state.borrow_mut().one_sided.store(dst, offset, &data, None);
    }

    async fn store_sync(&self) {
        self.bump("store_sync");
        self.block_until(|r| r.state.borrow().one_sided.synced());
    }

    fn iput(&self, dst: u32, offset: usize, data: Vec<u8>) -> Request {
        self.poll();
        self.bump("put");
        let (request, ack) = self.state.borrow_mut().one_sided.put(dst, offset, &data);
        self.add_op(Op::Put { request, ack, dst })
    }

    fn iget(&self, dst: u32, offset: usize, len: usize) -> Request {
        self.poll();
        self.bump("get");
        let (request, reply) = self.state.borrow_mut().one_sided.get(dst, offset, len);
        self.add_op(Op::Get { request, reply, dst })
    }

    fn register(&self, handler: Handler) -> HandlerId {
        let mut s = self.state.borrow_mut();
        s.one_sided.handlers.push(handler);
        HandlerId::from_index((s.one_sided.handlers.len() - 1) as u32)
    }

    fn am(&self, dst: u32, handler: HandlerId, data: Vec<u8>) {
        self.poll();
        self.bump("am");
        self.state.borrow_mut().one_sided.store(dst, 0, &data, Some(handler.index()));
    }

    fn derive(&self, parent: &Communicator, members: Vec<u32>) -> Communicator {
        self.poll();
        self.state.borrow_mut().comms.derive(parent, members, self.world.rank())
    }
}
