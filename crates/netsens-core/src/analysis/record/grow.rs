//! How the record grows: a node pushed over its predecessors (the latest-of nodes
//! that add nothing left out), the clocks' current nodes, the start of a step, and
//! the table of live operations. The recorder (`recorder.rs`) calls these for each
//! call the engine makes of it; apart from the graph's layout (`graph.rs`), which
//! the passes read.

use super::graph::{kind, ExecGraph, Start, RECENT, SOURCE};
use super::nodes::{Edge, Span, FAR_RANK};
use crate::engine::observe::{At, Clock, Key};
use crate::engine::{OpId, OpKind};
use crate::time::Time;

impl ExecGraph {
    pub(super) fn push(&mut self, kind: u8, level: u8, bytes: u64, preds: &[(u32, Edge)], extra: Time) -> u32 {
        self.make_room(preds.len());
        let first_pred = self.preds.len();
        // The first predecessor taken's own, where they are already in its time:
        // looked up only when a second one comes (most nodes have one).
        let mut under = None;
        for &(p, e) in preds {
            // The start of the run adds nothing to a latest-of when another time is there.
            if p == SOURCE && preds.iter().any(|q| q.0 != SOURCE) {
                continue;
            }
            if self.preds.len() > first_pred {
                if self.preds[first_pred..].contains(&p) {
                    continue;
                }
                let under = under.get_or_insert_with(|| self.dominated_by(self.preds[first_pred]));
                if self.preds[under.clone()].contains(&p) {
                    continue;
                }
            }
            self.preds.push(p);
            self.edges.push(e);
        }
        if kind == kind::ZERO && extra == 0 && self.preds.len() == first_pred + 1 {
            // The latest of one time is that time.
            self.edges.pop();
            return self.preds.pop().expect("one predecessor was pushed");
        }
        self.node_over(kind << 1 | level, bytes, first_pred, extra)
    }

    /// Room for a node and `preds` predecessors more: a record whose size was not
    /// known ahead (a rank program's) doubles.
    #[inline(always)]
    pub(super) fn make_room(&mut self, preds: usize) {
        if self.nodes.len() == self.nodes.cost.capacity() || self.preds.capacity() - self.preds.len() < preds {
            self.reserve(2 * self.nodes.len().max(1 << 12), 2 * self.preds.len().max(1 << 13) + preds);
            self.prefault();
        }
    }

    /// A node of one predecessor `p` that is made whatever its cost (a step from
    /// one time): nothing to leave out, no latest-of to look into.
    pub(super) fn push_one(&mut self, kind: u8, level: u8, bytes: u64, p: (u32, Edge), extra: Time) -> u32 {
        self.make_room(1);
        let first_pred = self.preds.len();
        self.preds.push(p.0);
        self.edges.push(p.1);
        self.node_over(kind << 1 | level, bytes, first_pred, extra)
    }

    /// The next node, of `cost` (`kind << 1 | level`) with `bytes`, over the
    /// predecessors pushed from `first_pred` on (room for it already made).
    #[inline(always)]
    pub(super) fn node_over(&mut self, cost: u8, bytes: u64, first_pred: usize, extra: Time) -> u32 {
        let n = self.preds.len() - first_pred;
        let id = self.nodes.len() as u32;
        let last = self.spans.last().expect("the start's span");
        let far = self.host >= FAR_RANK;
        // Two far ranks look alike in `who`: the last far span's is in the list.
        let starts = (last.op, last.who) != (self.op, self.who)
            || (far && self.far_ranks.last().map(|f| f.1) != Some(self.host));
        self.starts.push(id as usize, starts, self.spans.len());
        if starts {
            if far {
                self.far_ranks.push((self.spans.len() as u32, self.host));
            }
            self.spans.push(Span { op: self.op, who: self.who });
        }
        self.last.push(id);
        for &p in &self.preds[first_pred..] {
            self.last[p as usize] = id;
        }
        self.recent[id as usize % RECENT] = first_pred as u32;
        self.nodes.push(cost, bytes, first_pred as u32, n);
        if (id as usize).is_multiple_of(Self::REPORT) {
            if let Some(a) = &self.ahead {
                self.report(a);
            }
        }
        if extra > 0 {
            self.extra.insert(id, extra);
        }
        id
    }

    /// The times already among those of `p`, the first predecessor taken for the node
    /// being made (the event's own time where there is one), as a range of `preds`: a
    /// latest-of without noise is no earlier than each of its own predecessors, so
    /// such a time adds nothing to the maximum, to the slopes of the tied paths (the
    /// first's already include its) or to the critical path (ties go to the first).
    /// Only the first is looked into: the others would cost a cache miss each for little.
    pub(super) fn dominated_by(&self, p: u32) -> std::ops::Range<usize> {
        let p = p as usize;
        if p == SOURCE as usize
            || self.nodes.kind(p) != kind::ZERO
            || (!self.extra.is_empty() && self.extra.contains_key(&(p as u32)))
        {
            return 0..0;
        }
        let first = match self.nodes.len() - p {
            back if back <= RECENT => self.recent[p % RECENT] as usize,
            _ => self.nodes.first_pred(p),
        };
        first..first + self.nodes.pred_count(p)
    }

    pub(super) fn clock(&self, c: Clock) -> u32 {
        let (k, i) = c.parts();
        self.clocks[k].get(i).copied().unwrap_or(SOURCE)
    }

    pub(super) fn set_clock(&mut self, c: Clock, node: u32) {
        let (k, i) = c.parts();
        let v = &mut self.clocks[k];
        if v.len() <= i {
            v.resize(i + 1, SOURCE);
        }
        v[i] = node;
    }

    pub(super) fn edge_of(c: Clock) -> Edge {
        match c {
            Clock::Cpu(_) | Clock::Core(_) | Clock::HostDisk(_) => Edge::Cpu,
            Clock::NicSend(_) | Clock::NicRecv(_) => Edge::Nic,
            Clock::Link(_) => Edge::Link,
            Clock::Disk(_) => Edge::Disk,
        }
    }

    /// The times `at` is the latest of, unmade: a step from it takes them as its own
    /// predecessors (no latest-of node read by it alone).
    pub(super) fn start(&mut self, at: At) -> Start {
        match at {
            At::Begin => self.began(),
            At::Clock(c) => Self::just(self.clock(c)),
            At::BeginOr(c) => self.began().and((self.clock(c), Self::edge_of(c))),
        }
    }

    /// The event's begin time as a start: the first step to read a latest-of not
    /// made into a node takes its times, the second makes the node.
    pub(super) fn began(&mut self) -> Start {
        if self.begin.n > 1 {
            if self.begin_read {
                let begin = self.begin;
                let node = self.push(kind::ZERO, 1, 0, begin.preds(), 0);
                self.begin = Self::just(node);
            }
            self.begin_read = true;
        }
        self.begin
    }

    /// The node of a time (made if it is a latest-of of two).
    pub(super) fn node_of(&mut self, from: Start) -> u32 {
        match from.n {
            1 => from.preds[0].0,
            _ => self.push(kind::ZERO, 1, 0, from.preds(), 0),
        }
    }

    pub(super) fn at(&mut self, at: At) -> u32 {
        let from = self.start(at);
        self.node_of(from)
    }

    pub(super) fn just(node: u32) -> Start {
        Start { preds: [(node, Edge::Event); 4], n: 1 }
    }

    /// Operation `op` (live from now on) is of `kind` on `rank`.
    pub(super) fn set_op(&mut self, op: OpId, rank: u32, kind: OpKind) {
        let i = op as usize;
        if self.ops.len() <= i {
            self.ops.resize(i + 1, Span::who(0, OpKind::Calc, false));
        }
        self.ops[i] = Span::who(rank, kind, false);
        if rank >= FAR_RANK {
            self.far_ops.insert(op, rank);
        }
    }

    /// Nodes made from now on are of operation `op`'s event, on `host` (its kind
    /// from the table of live operations; a computation's where it is not live),
    /// where its message arrived or not.
    pub(super) fn handling(&mut self, op: OpId, host: u32, arrival: bool) {
        let kind = self.ops.get(op as usize).map_or(OpKind::Calc, |&who| Span::kind_of(who));
        (self.op, self.host, self.arrival) = (op, host, arrival);
        self.who = Span::who(host, kind, arrival);
    }

    /// The rank of operation `op` (`None`: never made live).
    pub(super) fn op_rank(&self, op: OpId) -> Option<u32> {
        self.ops.get(op as usize).map(|&who| match who >> 4 {
            FAR_RANK => self.far_ops[&op],
            rank => rank,
        })
    }

    pub(super) fn event_slot(&mut self, key: Key) -> &mut u32 {
        let (v, i) = match key {
            Key::Op(i) => (&mut self.op_event, i as usize),
            Key::Msg(i) => (&mut self.msg_event, i as usize),
        };
        if v.len() <= i {
            v.resize(i + 1, SOURCE);
        }
        &mut v[i]
    }
}
