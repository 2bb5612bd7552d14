//! The recorder: how the record grows with each call the engine makes of its
//! observer (`crate::engine::observe::Observer`), all in this one place: every call
//! and every `Cost` it is told is handled here ([`ExecGraph::step`]: the node each
//! becomes), by the record's own means of growing (`graph.rs`: push, start, clocks).
//! At the run's end the slots of a pass are assigned (`batch`), with the record's
//! makespan at the run's own point.

use super::graph::{kind, Edge, ExecGraph, Start, SOURCE};
use crate::engine::observe::{At, Clock, Cost, Key, Observer};
use crate::engine::{OpDesc, OpId};
use crate::platform::Level;
use crate::time::Time;
use rustc_hash::FxHashMap as HashMap;
use std::any::Any;

impl Observer for ExecGraph {
    fn ready(&mut self, op: OpId, d: &OpDesc, cpu: usize, nic: Option<usize>) {
        self.set_op(op, d.rank, d.kind);
        self.handling(op, d.rank, false);
        // The CPU, the release's times (as the release node's own were labelled)
        // and the send NIC.
        let mut preds = [(SOURCE, Edge::Event); 6];
        preds[0] = (self.clock(Clock::Cpu(cpu)), Edge::Cpu);
        // All four places, so that the copy is a few moves (a call to memmove
        // otherwise, 1 % of recording); those past `n` are not read.
        preds[1..5].copy_from_slice(&self.release.preds);
        if self.release.n == 1 {
            preds[1].1 = Edge::Dependency;
        }
        let mut n = 1 + self.release.n;
        if let Some(nic) = nic {
            preds[n] = (self.clock(Clock::NicSend(nic)), Edge::Nic);
            n += 1;
        }
        let node = self.push(kind::ZERO, 1, 0, &preds[..n], 0);
        *self.event_slot(Key::Op(op)) = node;
    }

    fn queued(&mut self, key: Key, from: At, cost: Cost, extra: Time) {
        let from = self.start(from);
        let node = self.step(from, cost, extra);
        *self.event_slot(key) = node;
    }

    fn begin(&mut self, key: Key, op: OpId, host: Option<u32>, clocks: &[Clock]) {
        let own = self.op_rank(op);
        let arrival = matches!(key, Key::Msg(_)) && host.is_some() && host != own;
        self.handling(op, host.or(own).unwrap_or(0), arrival);
        // The event's own time and at most three clocks (CPU, core, NIC).
        let mut preds = [(SOURCE, Edge::Event); 4];
        preds[0].0 = *self.event_slot(key);
        for (p, &c) in preds[1..].iter_mut().zip(clocks) {
            *p = (self.clock(c), Self::edge_of(c));
        }
        let n = 1 + clocks.len().min(3);
        self.begin = Self::just(self.push(kind::ZERO, 1, 0, &preds[..n], 0));
        self.begin_read = false;
    }

    fn advance(&mut self, clock: Clock, from: At, cost: Cost, extra: Time) {
        let from = self.start(from);
        let node = self.step(from, cost, extra);
        self.set_clock(clock, node);
    }

    fn set(&mut self, clock: Clock, at: At, max: bool) {
        let node = if max {
            let from = self.start(at);
            let mut preds = [(self.clock(clock), Self::edge_of(clock)); 5];
            // All four places: a few moves, not a call.
            preds[1..].copy_from_slice(&from.preds);
            self.push(kind::ZERO, 1, 0, &preds[..=from.n], 0)
        } else {
            self.at(at)
        };
        self.set_clock(clock, node);
    }

    fn release(&mut self, at: At) {
        self.release = self.start(at);
    }

    fn delayed(&mut self, key: Key, op: OpId, cost: Cost) {
        // Told between events: the nodes belong to the message's operation.
        self.handling(op, self.op_rank(op).unwrap_or(0), false);
        let event = *self.event_slot(key);
        let from = Self::just(event);
        let node = self.step(from, cost, 0);
        *self.event_slot(key) = node;
    }

    fn after(&mut self, key: Key, earlier: Key) {
        let (own, before) = (*self.event_slot(key), *self.event_slot(earlier));
        let node = self.push(kind::ZERO, 1, 0, &[(own, Edge::Event), (before, Edge::Dependency)], 0);
        *self.event_slot(key) = node;
    }

    fn posted(&mut self, recv: OpId) {
        let ready = *self.event_slot(Key::Op(recv));
        if self.begin.n > 2 {
            let begin = self.begin;
            let node = self.push(kind::ZERO, 1, 0, begin.preds(), 0);
            self.begin = Self::just(node);
        }
        self.begin = self.begin.and((ready, Edge::Dependency));
        self.begin_read = false;
    }

    fn wildcard(&mut self) {
        self.wildcards = true;
    }

    fn finish(&mut self, ends: &[Clock]) {
        // Stopped before the recorder's state is freed under it: its lead covers the
        // nodes since its last report (and the codes' array, as long); a page it did
        // not reach is faulted in by the loop below, as without it.
        self.ahead = None;
        let preds: Vec<(u32, Edge)> = ends.iter().map(|&c| (self.clock(c), Edge::Cpu)).collect();
        self.handling(OpId::MAX, self.host, self.arrival);
        self.sink = if preds.is_empty() { SOURCE } else { self.push(kind::ZERO, 1, 0, &preds, 0) };
        // The recorder's state is not needed any more: freed before the slots are
        // made, its memory is theirs to take (a lower peak, pages not yet handed back).
        self.clocks = Default::default();
        self.op_event = Vec::new();
        self.ops = Vec::new();
        self.far_ops = HashMap::default();
        self.msg_event = Vec::new();
        self.recent = Vec::new();
        // The last readers become the nodes' slots, in place, in a pass's loop that
        // also evaluates the record at the run's own point, for its check: the
        // passes' (a layer above), told to the record by whoever records
        // ([`ExecGraph::ending_with`]); without it they are made when first asked for.
        if let Some(end) = self.at_end {
            end(self);
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// What each [`Cost`] the engine tells becomes: a node of its kind, level and bytes
/// (or none, where it adds nothing).
impl ExecGraph {
    fn level(level: Level) -> u8 {
        match level {
            Level::Node => 0,
            _ => 1,
        }
    }

    fn step(&mut self, from: Start, cost: Cost, extra: Time) -> u32 {
        let (k, level, bytes) = match cost {
            Cost::Zero => (kind::ZERO, 1, 0),
            Cost::Compute(ps) => (kind::COMPUTE, 1, ps),
            Cost::SendCpu { level, k } => (kind::SEND_CPU, Self::level(level), k),
            Cost::RecvCpu { level, k, gap_bytes } => {
                (if gap_bytes == 0 { kind::RECV_CPU_NO_G } else { kind::RECV_CPU }, Self::level(level), k)
            }
            Cost::Gap { level, gap_bytes } => (kind::GAP, Self::level(level), gap_bytes),
            Cost::Wire { level } => (kind::WIRE, Self::level(level), 0),
            Cost::ToLink { level } => (kind::TO_LINK, Self::level(level), 0),
            Cost::LinkBytes(b) => (kind::LINK_BYTES, 1, b),
            Cost::LinkLatency => (kind::LINK_LATENCY, 1, 0),
            Cost::Fixed(ps) => (kind::FIXED, 1, ps),
            Cost::Route(ps) => (kind::ROUTE, 1, ps),
            Cost::LinkTransmit(ps) => (kind::LINK_TRANSMIT, 1, ps),
            Cost::LinkWait { ps, .. } => (kind::LINK_WAIT, 1, ps),
        };
        let adds_nothing = matches!(k, kind::ROUTE | kind::LINK_TRANSMIT | kind::LINK_WAIT) && bytes == 0;
        if (k == kind::ZERO || adds_nothing) && extra == 0 {
            return self.node_of(from);
        }
        let node = match from.n {
            1 => self.push_one(k, level, bytes, from.preds[0], extra),
            _ => self.push(k, level, bytes, from.preds(), extra),
        };
        if let Cost::LinkWait { class, .. } = cost {
            self.link_wait_class.push((node, class));
        }
        node
    }
}
