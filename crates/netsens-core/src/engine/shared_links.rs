//! Messages through a topology's shared links (`crate::fabric`): a message leaves
//! its sender's CPU as a flow, joins its links once its route's latency is paid and
//! arrives when the fabric says; the end points' rules stay as they are.

use super::message::Phase;
use super::queue::{Event, EventKind};
use super::Core;
use crate::platform::LevelParams;
use crate::time::Time;

impl Core {
    /// Message `id` in `phase` leaves `from`'s CPU for `to` at `t1` into the fabric.
    pub(super) fn into_fabric(&mut self, id: u32, phase: Phase, (from, to): (u32, u32), t1: Time, p: &LevelParams) {
        let op = self.msg_op(id, phase);
        let jitter = self.noise.latency_jitter(from);
        let tail = self.add(op, p.latency, jitter);
        let wire = self.wire_bytes(id, phase);
        let nodes = (self.layout.node(from), self.layout.node(to));
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        let (flow, start) = fabric.open(t1, id, phase as u8, nodes, to, wire, p.gap_per_byte, tail);
        self.queue.push(start, EventKind::FlowEnter, flow, 0, 0);
    }

    /// A flow's route latency is paid: its bytes join its links.
    pub(super) fn on_flow_enter(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        fabric.enter(ev.time, ev.id);
        self.schedule_flow_ends();
    }

    /// A flow's bytes have all moved (unless its end has moved since): its message
    /// arrives, and the flows that shared its links speed up.
    pub(super) fn on_flow_done(&mut self, ev: Event) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        if let Some(d) = fabric.finish(ev.time, ev.id, ev.aux) {
            let phase = Phase::from_u8(d.phase);
            self.msgs[d.msg as usize].link_wait = d.link_wait;
            let (from, to) = self.ends(d.msg, phase);
            self.arrive_at(d.msg, phase, from, to, d.at);
        }
        self.schedule_flow_ends();
    }

    fn schedule_flow_ends(&mut self) {
        let fabric = self.fabric.as_mut().expect("a topology run has a fabric");
        for (flow, version, end) in fabric.retimed.drain(..) {
            self.queue.push(end, EventKind::FlowDone, flow, 0, version);
        }
    }

    /// How long message `msg`'s latest trip waited on links shared with other
    /// messages (0 without a topology): its own kind of wait, beside the end points'.
    pub fn link_wait(&self, msg: u32) -> Time {
        self.msgs[msg as usize].link_wait
    }
}
