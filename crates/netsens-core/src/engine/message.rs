//! Messages in flight: their protocol phases and their way from the sender's CPU
//! through the LAN or over wide-area links to the receiver.

use super::observe::{At, Clock, Cost, Key, Observer};
use super::queue::{Event, EventKind};
use super::{tell, Core, OpId};
use crate::platform::{Level, LevelParams};
use crate::time::Time;

/// Protocol phase of a message in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Phase {
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
    pub(super) fn from_u8(v: u8) -> Phase {
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

    /// The per-message CPU overhead a message of this phase pays at each end: the
    /// handshake's request-to-send and clear-to-send the control o, every other
    /// message o.
    #[inline]
    pub(super) fn overhead(self, p: &LevelParams) -> Time {
        if matches!(self, Phase::Rts | Phase::Cts) {
            p.control_o()
        } else {
            p.overhead
        }
    }
}

pub(super) const NO_OP: OpId = OpId::MAX;

/// One application message and its protocol state.
pub(super) struct Msg {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) tag: i32,
    pub(super) size: u64,
    pub(super) send_op: OpId,
    pub(super) recv_op: OpId,
    /// The phase it is in when it sits in an unexpected queue (Eager, Rts or Direct).
    pub(super) phase: Phase,
    /// CPU and NIC indices of the send operation (LogGOPSim charges the receiver's
    /// clocks of the same indices).
    pub(super) cpu: u8,
    pub(super) nic: u8,
    /// Time its latest trip through a topology waited on links shared with other
    /// messages (0 without a topology; see `shared_links.rs`).
    pub(super) link_wait: Time,
}

#[derive(Clone, Copy)]
pub(super) struct Posted {
    pub(super) op: OpId,
    pub(super) src: i32,
    pub(super) tag: i32,
}

impl<O: Observer + ?Sized> Core<O> {
    pub(super) fn alloc_msg(&mut self, m: Msg) -> u32 {
        if let Some(id) = self.free_msgs.pop() {
            self.msgs[id as usize] = m;
            id
        } else {
            self.msgs.push(m);
            (self.msgs.len() - 1) as u32
        }
    }

    #[inline]
    pub(super) fn wire_bytes(&self, id: u32, phase: Phase) -> u64 {
        match phase {
            Phase::Rts | Phase::Cts | Phase::PutAck | Phase::GetReq => 1,
            _ => self.msgs[id as usize].size,
        }
    }

    /// (from, to) hosts of a message in `phase`.
    #[inline]
    pub(super) fn ends(&self, id: u32, phase: Phase) -> (u32, u32) {
        let m = &self.msgs[id as usize];
        match phase {
            Phase::Cts | Phase::PutAck | Phase::GetReply => (m.dst, m.src),
            _ => (m.src, m.dst),
        }
    }

    /// A message leaves the sender's CPU at `t1` (= t0 + o): into the LAN, or onto
    /// the first wide-area link of its route.
    pub(super) fn inject(&mut self, id: u32, phase: Phase, level: Level, t1: Time, p: &LevelParams) {
        let (from, to) = self.ends(id, phase);
        if level == Level::Wan {
            let c = self.layout.cluster(from) as u16;
            self.queue.push(t1, EventKind::Hop, id, phase as u8, c);
            tell!(self.queued(Key::Msg(id), At::Begin, Cost::ToLink { level: Level::Cluster }, 0));
        } else if level == Level::Cluster && from != to && self.fabric.is_some() {
            // (A message to itself crosses no link: LogGP's rule below.)
            self.send_through_fabric(id, phase, (from, to), t1, p);
        } else {
            let op = self.msg_op(id, phase);
            let jitter = self.noise.latency_jitter(from);
            let ta = self.add(op, t1, p.latency);
            let ta = self.add(op, ta, jitter);
            tell!(self.queued(Key::Msg(id), At::Begin, Cost::Wire { level }, jitter));
            self.arrive_at(id, phase, from, to, ta);
        }
    }

    pub(super) fn arrive_at(&mut self, id: u32, phase: Phase, from: u32, to: u32, mut ta: Time) {
        // Flows of one pair may finish out of order; MPI's order per pair holds.
        if self.noise.reorders() || self.fabric.is_some() {
            let last = self.last_arrival.entry((from, to)).or_insert(0);
            ta = ta.max(*last);
            *last = ta;
        }
        self.queue.push(ta, EventKind::Arrive, id, phase as u8, 0);
    }

    /// A message reaches cluster `ev.aux`'s side of the wide area: the link out of it
    /// towards the message's destination, or, with a gateway cost, first the cluster's
    /// gateway (see [`PAST_GATEWAY`]).
    pub(super) fn on_hop(&mut self, ev: Event) {
        let phase = Phase::from_u8(ev.phase);
        let (from, to) = self.ends(ev.id, phase);
        let wire = self.wire_bytes(ev.id, phase);
        let wan = self.wan.as_ref().expect("a wide-area hop needs a [wan] section");
        let (latency, per_byte, gateway) = (wan.latency, wan.per_byte, wan.gateway);
        let at = (ev.aux & !PAST_GATEWAY) as usize;
        let dst_cluster = self.layout.cluster(to);
        if gateway > 0 && ev.aux & PAST_GATEWAY == 0 {
            self.through_gateway(ev, phase, (from, to), at, dst_cluster, gateway);
            return;
        }
        let next = self.layout.next_hop(at, dst_cluster);
        let link = self.layout.link_id(at, next);
        if self.var.flows_on {
            self.var.before_link(link, ev.time, &mut self.link_free[link], per_byte);
        }
        let start = ev.time.max(self.link_free[link]);
        let op = self.msg_op(ev.id, phase);
        let occupancy = self.per_byte(op, per_byte, wire);
        self.link_free[link] = self.add(op, start, occupancy);
        self.observe_begin(&ev, op, None, Some(Clock::Link(link)));
        tell!(self.advance(Clock::Link(link), At::Begin, Cost::LinkBytes(wire), 0));
        let w = &mut self.rec.wan[link];
        w.0 += 1;
        crate::profile::add_bytes(&mut w.1, wire, &mut self.rec.bytes_overflowed);
        // Busy time cannot pass the largest time: link_free, its upper bound, is checked.
        w.2 = w.2.saturating_add(occupancy);
        let jitter = self.noise.wan_jitter(link);
        let t_next = self.add(op, self.link_free[link], latency);
        let t_next = self.add(op, t_next, jitter);
        tell!(self.queued(Key::Msg(ev.id), At::Clock(Clock::Link(link)), Cost::LinkLatency, jitter));
        if next == dst_cluster && gateway == 0 {
            self.arrive_at(ev.id, phase, from, to, t_next);
        } else {
            // Into the next cluster's gateway (its last, or a hub or ring cluster's).
            self.queue.push(t_next, EventKind::Hop, ev.id, phase as u8, next as u16);
        }
    }

    /// Cluster `at`'s gateway forwards the message: one message at a time, `gateway`
    /// each, as the seed's Panda gateways forwarded every message between the Myrinet
    /// and the wide-area ATM link. Its clock is the link from the cluster to itself,
    /// which no route uses. Then the message goes on to the link out (`PAST_GATEWAY`),
    /// or, in its destination's cluster, arrives.
    fn through_gateway(&mut self, ev: Event, phase: Phase, ends: (u32, u32), at: usize, dst: usize, gateway: Time) {
        let gw = self.layout.link_id(at, at);
        let op = self.msg_op(ev.id, phase);
        let start = ev.time.max(self.link_free[gw]);
        self.link_free[gw] = self.add(op, start, gateway);
        self.observe_begin(&ev, op, None, Some(Clock::Link(gw)));
        // Held fixed by an analysis, and counted with the links' transmission time.
        tell!(self.advance(Clock::Link(gw), At::Begin, Cost::LinkTransmit(gateway), 0));
        tell!(self.queued(Key::Msg(ev.id), At::Clock(Clock::Link(gw)), Cost::Zero, 0));
        let done = self.link_free[gw];
        if at == dst {
            self.arrive_at(ev.id, phase, ends.0, ends.1, done);
        } else {
            self.queue.push(done, EventKind::Hop, ev.id, phase as u8, at as u16 | PAST_GATEWAY);
        }
    }
}

/// A `Hop` event's cluster with this bit set has passed the cluster's gateway already
/// (only with a gateway cost: without one no hop waits at a gateway).
const PAST_GATEWAY: u16 = 1 << 15;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunOptions;
    use crate::platform::{presets, Dist};

    #[test]
    pub(super) fn jitter_never_lets_a_message_overtake_an_earlier_one_of_the_same_pair() {
        let mut p = presets::get("loggopsim").unwrap();
        p.noise.latency_jitter = Dist::Uniform(0, 1000);
        let mut core: Core = Core::new(&p, 3, 1, 1, &RunOptions::default()).unwrap();
        // Pair 0→1: the second message would arrive first (50 < 100); it is held to 100.
        core.arrive_at(0, Phase::Eager, 0, 1, 100);
        core.arrive_at(1, Phase::Eager, 0, 1, 50);
        // Another pair is not held back.
        core.arrive_at(2, Phase::Eager, 2, 1, 60);
        let order: Vec<(Time, u32)> = std::iter::from_fn(|| core.queue.pop()).map(|e| (e.time, e.id)).collect();
        assert_eq!(order, vec![(60, 2), (100, 0), (100, 1)]);
    }
}
