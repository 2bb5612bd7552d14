//! Messages through a topology's shared links (`crate::fabric`): a message leaves
//! its sender's CPU as a flow, joins its links once its route's latency is paid,
//! arrives when the fabric's prediction of its first byte comes, and leaves its links
//! when its bytes are through; the end points' rules stay as they are.

use super::message::Phase;
use super::observe::{At, Cost, Key, Observer};
use super::queue::{Event, EventKind};
use super::{tell, Core};
use crate::platform::{Level, LevelParams};
use crate::time::Time;

/// A message's trip through the fabric, in its pair's sending order; `at` is its
/// arrival once its bytes are through.
#[derive(Clone, Copy)]
pub(super) struct Trip {
    msg: u32,
    phase: Phase,
    at: Option<Time>,
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
        let nodes = (self.layout.node(from), self.layout.node(to));
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        let (flow, start) = fabric.open(t1, id, phase as u8, nodes, to, wire, p.gap_per_byte, tail);
        // LogGP's o + L, then the route's latency (the link time comes at arrival).
        tell!(self.queued(Key::Msg(id), At::Begin, Cost::Wire { level: Level::Cluster }, jitter));
        tell!(self.delayed(Key::Msg(id), op, Cost::Route(start - t1)));
        self.queue.push(start, EventKind::FlowEnter, flow, 0, 0);
        self.in_flight.entry(pair(from, to)).or_default().push_back(Trip { msg: id, phase, at: None });
    }

    /// A flow's route latency is paid: its bytes join its links.
    pub(super) fn on_flow_enter(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        fabric.enter(ev.time, ev.id);
        self.schedule_flow_ends();
    }

    /// A flow's first byte reaches its receiver (unless its arrival has moved since):
    /// its message arrives, in its pair's sending order.
    pub(super) fn on_flow_arrive(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        if let Some(d) = fabric.arrive(ev.time, ev.id, ev.aux) {
            let phase = Phase::from_u8(d.phase);
            self.msgs[d.msg as usize].link_wait = d.link_wait;
            if self.obs.is_some() {
                let op = self.msg_op(d.msg, phase);
                let transmit = d.link_wait.min(d.slow_link);
                tell!(self.delayed(Key::Msg(d.msg), op, Cost::LinkTransmit(transmit)));
                tell!(self.delayed(Key::Msg(d.msg), op, Cost::LinkWait(d.link_wait - transmit)));
            }
            let (from, to) = self.ends(d.msg, phase);
            // Arrivals of one pair in sending order (MPI's non-overtaking rule): a trip
            // that arrives first waits for the earlier trips of its pair, and arrives
            // with the last of them (`arrive_at` keeps the pair's order).
            let key = pair(from, to);
            let trips = self.in_flight.get_mut(&key).expect("the trip was opened");
            let me = trips.iter_mut().find(|t| t.msg == d.msg && t.phase == phase).expect("the trip is in flight");
            me.at = Some(d.at);
            let mut ready = Vec::new();
            while let Some(&Trip { msg, phase, at: Some(at) }) = trips.front() {
                trips.pop_front();
                ready.push((msg, phase, at));
            }
            if trips.is_empty() {
                self.in_flight.remove(&key);
            }
            let mut earlier = None;
            for (msg, phase, at) in ready {
                if let Some(e) = earlier {
                    tell!(self.after(Key::Msg(msg), Key::Msg(e)));
                }
                earlier = Some(msg);
                self.arrive_at(msg, phase, from, to, at);
            }
        }
    }

    /// A flow's bytes have all moved (unless its end has moved since): the flows that
    /// shared its links speed up.
    pub(super) fn on_flow_done(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        fabric.finish(ev.time, ev.id, ev.aux);
        self.schedule_flow_ends();
    }

    fn schedule_flow_ends(&mut self) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        for r in fabric.retimed.drain(..) {
            if let Some(at) = r.arrive {
                self.queue.push(at, EventKind::FlowArrive, r.flow, 0, r.version);
            }
            self.queue.push(r.end, EventKind::FlowDone, r.flow, 0, r.version);
        }
    }

    /// How long message `msg`'s latest trip waited on links shared with other
    /// messages (0 without a topology): its own kind of wait, beside the end points'.
    pub fn link_wait(&self, msg: u32) -> Time {
        self.msgs[msg as usize].link_wait
    }
}
