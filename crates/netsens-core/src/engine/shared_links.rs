//! Messages through a topology's shared links (`crate::fabric`). A message's first
//! byte pays LogGP's L and its route's latency, and arrives whatever the sharing: the
//! receiver's LogGOPS rule (its CPU and NIC) starts there. Its `k` further bytes are a
//! flow whose end is known only when they are through, under every change of sharing
//! until then; a receive completes no earlier than that allows (docs/guides/topology.md):
//!
//! `done = max(LogGOPS's completion, ta + o + max(k·O, k·G) + δ)`,
//!
//! `ta` the first byte's arrival and `δ` what the flow took beyond `k·G`. Where the
//! bytes are not through when LogGOPS would complete the receive, the completion waits
//! for the flow's end: it is never predicted, so no later sharing can make it wrong.

use super::message::Phase;
use super::observe::{At, Clock, Cost, Key, Observer};
use super::queue::{Event, EventKind};
use super::{tell, Core, Frontend, OpId};
use crate::platform::{Level, LevelParams};
use crate::time::Time;

/// A message whose `k` bytes are a flow of the fabric: what its completion needs.
pub(super) struct Bytes {
    /// Its first byte's arrival.
    ta: Time,
    /// The receiving CPU's `o + max(k·O, k·G)` at its arrival, and how the observer
    /// was told it (level, k, bytes charged G).
    busy: Option<(Time, Level, u64, u64)>,
    /// Once through: δ and, of it, what a link slower than the NIC takes alone.
    through: Option<(Time, Time)>,
    /// Once through, the rest of δ per class of links (a recorded run).
    split: crate::fabric::WaitSplit,
    /// The operation whose completion waits, when its CPU's part is done, and the
    /// host it completes on.
    waiting: Option<(OpId, Time, u32)>,
    /// A one-sided message's handler waits instead (its phase).
    handler: Option<Phase>,
}

/// The (from, to) key of a pair of hosts.
fn pair(from: u32, to: u32) -> u64 {
    (from as u64) << 32 | to as u64
}

impl<O: Observer + ?Sized> Core<O> {
    /// Message `id` in `phase` leaves `from`'s CPU for `to` at `t1` into the fabric.
    pub(super) fn send_through_fabric(
        &mut self,
        id: u32,
        phase: Phase,
        (from, to): (u32, u32),
        t1: Time,
        p: &LevelParams,
    ) {
        let op = self.msg_op(id, phase);
        let jitter = self.noise.latency_jitter(from);
        let tail = self.add(op, p.latency, jitter);
        let wire = self.wire_bytes(id, phase);
        // The bytes LogGP charges G for are the flow; a message it charges none
        // (one byte, or not above G_above) crosses in its route's latency.
        let k = if wire > p.gap_above { wire - 1 } else { 0 };
        let nodes = (self.layout.node(from), self.layout.node(to));
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        let start = if k == 0 {
            t1.saturating_add(fabric.latency(nodes))
        } else {
            let (flow, start) = fabric.open(t1, id, phase as u8, nodes, to, (k, wire), p.gap_per_byte);
            self.queue.push(start, EventKind::FlowEnter, flow, 0, 0);
            start
        };
        // LogGP's o + L, then the route's latency.
        tell!(self.queued(Key::Msg(id), At::Begin, Cost::Wire { level: Level::Cluster }, jitter));
        tell!(self.delayed(Key::Msg(id), op, Cost::Route(start - t1)));
        let mut ta = self.add(op, start, tail);
        // Arrivals of one pair in sending order (MPI's non-overtaking rule): one sent
        // later arrives no earlier (they differ only where jitter or several CPUs of a
        // host reorder them).
        let last = self.pair_arrival.entry(pair(from, to)).or_insert((0, id));
        if ta < last.0 {
            ta = last.0;
            let earlier = last.1;
            tell!(self.after(Key::Msg(id), Key::Msg(earlier)));
        }
        *last = (ta, id);
        if k > 0 {
            let split = Default::default();
            self.flow_bytes.insert(id, Bytes { ta, busy: None, through: None, split, waiting: None, handler: None });
        }
        self.queue.push(ta, EventKind::Arrive, id, phase as u8, 0);
    }

    /// The receiving CPU's part of message `id`'s arrival was `busy` (`o + max(k·O,
    /// gap_bytes·G)` at `level`): kept for its completion.
    pub(super) fn arrival_cost(&mut self, id: u32, busy: Time, level: Level, k: u64, gap_bytes: u64) {
        if let Some(b) = self.flow_bytes.get_mut(&id) {
            b.busy = Some((busy, level, k, gap_bytes));
        }
    }

    /// Receive (or get) `op` of message `id` is done at `at` by LogGOPS's rule; on a
    /// topology no earlier than the message's bytes allow, which may be when its
    /// flow's end comes. The message is freed once the operation is done.
    pub(super) fn receive_done<F: Frontend<O>>(&mut self, front: &mut F, id: u32, op: OpId, at: (Time, At)) {
        // A receive completes at the message's destination, a get at its origin.
        let m = &self.msgs[id as usize];
        let host = if m.recv_op == op { m.dst } else { m.src };
        if !self.wait_for_bytes(front, id, op, at, host, None) {
            self.free_msgs.push(id);
            self.done(front, op, at.0, at.1);
        }
    }

    /// The handler of one-sided message `id` (a store's or a put's data) runs on CPU
    /// `c` of `host` once its bytes are in: at once without a topology.
    pub(super) fn handler_after_bytes<F: Frontend<O>>(
        &mut self,
        front: &mut F,
        id: u32,
        phase: Phase,
        host: u32,
        c: usize,
    ) {
        let op = self.msgs[id as usize].send_op;
        let at = (self.cpu[c], At::Clock(Clock::Cpu(c)));
        if !self.wait_for_bytes(front, id, op, at, host, Some(phase)) {
            self.one_sided_handler(front, id, phase, host, c);
        }
    }

    /// Where message `id`'s bytes are a flow: `op` (or the handler of `handler`'s
    /// phase) on `host` waits for them, its CPU's part done at `at`, and completes now
    /// if they are through. False where nothing waits for bytes (no flow).
    fn wait_for_bytes<F: Frontend<O>>(
        &mut self,
        front: &mut F,
        id: u32,
        op: OpId,
        at: (Time, At),
        host: u32,
        handler: Option<Phase>,
    ) -> bool {
        let flow = if self.fabric.is_some() { self.flow_bytes.get_mut(&id) } else { None };
        let Some(b) = flow else { return false };
        b.waiting = Some((op, at.0, host));
        b.handler = handler;
        let through = b.through.is_some();
        // The CPU's part, kept in the operation's own place until the bytes are in.
        tell!(self.queued(Key::Op(op), at.1, Cost::Zero, 0));
        if through {
            self.bytes_in(front, id);
        }
        true
    }

    /// Message `id`'s bytes are through and an operation waits for them: it is done
    /// at the later of its CPU's part and `ta + busy + δ`, and its CPU is busy until
    /// then (as LogGOPS's receiving CPU is until its receive is done).
    fn bytes_in<F: Frontend<O>>(&mut self, front: &mut F, id: u32) {
        let b = self.flow_bytes.remove(&id).expect("a flow's message has its bytes");
        let ((op, cpu_done, host), (wait, slow)) = (b.waiting.expect("waits"), b.through.expect("through"));
        let (busy, level, k, gap_bytes) = b.busy.expect("a message is charged on arrival before it completes");
        let send_op = self.msgs[id as usize].send_op;
        let bytes = self.add(send_op, b.ta, busy);
        let bytes = self.add(send_op, bytes, wait);
        if self.obs.is_some() {
            tell!(self.delayed(Key::Msg(id), send_op, Cost::RecvCpu { level, k, gap_bytes }));
            tell!(self.delayed(Key::Msg(id), send_op, Cost::LinkTransmit(slow)));
            // The wait behind shared links, a node per class of links that held the
            // bytes back (they add up to `wait - slow`).
            for (class, ps) in b.split.parts() {
                tell!(self.delayed(Key::Msg(id), send_op, Cost::LinkWait { class, ps }));
            }
            tell!(self.after(Key::Msg(id), Key::Op(op)));
            tell!(self.begin(Key::Msg(id), op, Some(host), &[]));
        }
        let done = cpu_done.max(bytes);
        let c = self.ci(host, self.msgs[id as usize].cpu);
        // Waiting for bytes is not computing: a core the CPU shares stays free.
        self.cpu[c] = self.cpu[c].max(done);
        tell!(self.set(Clock::Cpu(c), At::Begin, true));
        if let Some(phase) = b.handler {
            self.one_sided_handler(front, id, phase, host, c);
            return;
        }
        self.free_msgs.push(id);
        self.done(front, op, done, At::Begin);
    }

    /// A flow's route latency is paid: its bytes join its links.
    pub(super) fn on_flow_enter(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        fabric.enter(ev.time, ev.id);
        self.schedule_flow_ends();
    }

    /// A flow's bytes have all moved (unless its end has moved since): the flows that
    /// shared its links speed up, and an operation waiting for them completes.
    pub(super) fn on_flow_done<F: Frontend<O>>(&mut self, ev: Event, front: &mut F) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        if let Some(t) = fabric.finish(ev.time, ev.id, ev.aux) {
            self.msgs[t.msg as usize].link_wait = t.link_wait;
            let b = self.flow_bytes.get_mut(&t.msg).expect("a flow's message has its bytes");
            b.through = Some((t.link_wait, t.slow_link));
            b.split = t.split;
            if b.waiting.is_some() {
                self.bytes_in(front, t.msg);
            }
        }
        self.schedule_flow_ends();
    }

    fn schedule_flow_ends(&mut self) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        for r in fabric.retimed.drain(..) {
            self.queue.push(r.end, EventKind::FlowDone, r.flow, 0, r.version);
        }
    }

    /// How long message `msg`'s latest trip waited on links shared with other
    /// messages (0 without a topology): its own kind of wait, beside the end points'.
    pub fn link_wait(&self, msg: u32) -> Time {
        self.msgs[msg as usize].link_wait
    }
}
