//! The execution graph of one run, recorded by an [`Observer`] beside the event loop.
//!
//! Every time the engine set is a node: either the latest of earlier nodes (a
//! operation waiting for its predecessor, its CPU, its NIC or a link) or one earlier
//! node plus a cost in the platform's parameters ([`Cost`]). Nodes are recorded in
//! the order the engine made them, so every node's predecessors come before it and
//! one pass in that order evaluates the whole run at other parameters.

use super::codes::{CodeBook, PriceCodes};
pub(crate) use super::kind;
pub use super::nodes::{Edge, Node, Nodes, Span};
use super::nodes::{SpanStarts, FAR_RANK, MARK};
use super::params::Point;
use super::slots::Slots;
use crate::engine::observe::Clock;
use crate::engine::{OpId, OpKind};
use crate::memory;
use crate::platform::Platform;
use crate::prefault::{Buffer, Prefault};
use crate::time::Time;
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// Bytes per operation of a schedule the analysis needs at most: its record (up to
/// 6 nodes of 13 B (6 B with its code, a mark every 32 nodes, and a wide value's or
/// a long list's entry now and then), 12 predecessors of 5 B and 4 spans of 16 B (8 B
/// now) per operation, 24 B of recorder state) and the analysis's scratch (a time, a slot
/// and a last reader of 4 + 4 + 8 B per node, a slot of 4 B per predecessor, now
/// written over its node): what a run too large for its record is refused by (the
/// bound kept as it was, above what the record now takes).
pub const BYTES_PER_OP: u128 = 6 * 13 + 12 * 5 + 4 * 16 + 24 + 6 * 24;

/// The recorded graph, and the recorder's state while the run goes.
pub struct ExecGraph {
    /// The thread making the record's pages ready ahead of the recorder while the run
    /// goes (see [`crate::prefault`]); first, so that it stops before the buffers are
    /// freed.
    pub(crate) ahead: Option<Prefault>,
    pub nodes: Nodes,
    pub spans: Vec<Span>,
    pub(crate) starts: SpanStarts,
    /// (span, rank) of the spans whose rank is [`FAR_RANK`] or more, in span order.
    pub(crate) far_ranks: Vec<(u32, u32)>,
    /// Every node's predecessors, in node order: their nodes while the run goes
    /// (and in a record not ended by its run); once it has ended, the slots their
    /// values live in during a pass, written over the nodes ([`Slots::assign_at`]:
    /// no second array of their size). Their nodes: [`ExecGraph::preds_of`].
    pub preds: Vec<u32>,
    /// The predecessors' nodes, found again from the slots when first asked for
    /// (the timeline, the reference evaluations; the analysis does without).
    pub(crate) pred_nodes: OnceLock<Vec<u32>>,
    /// Each node's price and size as a code into a short table ([`PriceCodes`]):
    /// made in the loop at the run's end, or for the first pass that asks.
    pub(crate) codes: OnceLock<PriceCodes>,
    /// Room for the codes of every node, reserved with the record (its pages made
    /// ready with the others'), filled at the run's end.
    pub(crate) code_room: Vec<u8>,
    pub edges: Vec<Edge>,
    /// Noise and jitter added to a node (a constant of the run).
    pub extra: HashMap<u32, Time>,
    /// (node, class of links) of each wait behind shared links, in node order: the
    /// fabric's class of the links that held its bytes back.
    pub link_wait_class: Vec<(u32, u16)>,
    /// The node of the run's end (the latest end clock).
    pub sink: u32,
    /// A receive had a wildcard source or tag: matching may depend on timing.
    pub wildcards: bool,
    /// Whether the platform has a node level of its own (else a node-level message
    /// uses the cluster's parameters).
    pub node_level: bool,
    /// Where each node's value lives in a pass, assigned when the run ends.
    pub(crate) slots: Option<Slots>,
    /// What makes the slots, the codes and the makespan at the run's own point when
    /// the run ends: a pass's loop, from the layer above ([`ExecGraph::ending_with`]).
    pub(crate) at_end: Option<fn(&mut ExecGraph)>,
    /// The platform's own point, and the record's makespan there (ps), worked out
    /// with the slots when the run ends: what the record is checked by.
    pub(crate) own: Point,
    pub(crate) own_makespan: Option<f64>,
    /// The last node reading each node (itself where none does), while recording.
    pub(crate) last: Vec<u32>,
    /// Where the predecessors of the last [`RECENT`] nodes start, by node modulo
    /// [`RECENT`], while recording: what [`ExecGraph::dominated_by`] reads of a recent
    /// node without counting from its mark.
    pub(crate) recent: Vec<u32>,
    /// The node of each clock's current value, by kind of clock and index.
    pub(crate) clocks: [Vec<u32>; Clock::KINDS],
    pub(crate) op_event: Vec<u32>,
    /// Rank and kind of every live operation, by its id, as a span's `who` (4 B
    /// where a pair took 8); a rank from [`FAR_RANK`] on is in `far_ops`.
    pub(crate) ops: Vec<u32>,
    pub(crate) far_ops: HashMap<OpId, u32>,
    pub(crate) msg_event: Vec<u32>,
    /// When operations enabled next are ready: never a node of its own (each `ready`
    /// takes its times as predecessors; half are read by none, half by one).
    pub(crate) release: Start,
    /// When the current event began; after `posted`, the latest of two made into a
    /// node only when a second step reads it (most are read by one).
    pub(crate) begin: Start,
    pub(crate) begin_read: bool,
    pub(crate) op: OpId,
    /// Where the current event is handled, and whether it is a message reaching
    /// another rank than its operation's.
    pub(crate) host: u32,
    pub(crate) arrival: bool,
    /// The span's code of the three (`Span::who`), worked out once per event, not
    /// per node.
    pub(crate) who: u32,
}

pub(crate) const SOURCE: u32 = 0;

/// Nodes back whose predecessors' start the recorder keeps at hand (256 KiB).
pub(crate) const RECENT: usize = 1 << 16;

/// The time a step starts from: one node, or the latest of up to four not made
/// into one (a step from it takes them as its own predecessors).
#[derive(Clone, Copy)]
pub(crate) struct Start {
    pub(crate) preds: [(u32, Edge); 4],
    pub(crate) n: usize,
}

impl Start {
    /// This start and time `p` (a `Start` holds at most four: both are at most two).
    pub(crate) fn and(mut self, p: (u32, Edge)) -> Start {
        self.preds[self.n] = p;
        self.n += 1;
        self
    }

    pub(crate) fn preds(&self) -> &[(u32, Edge)] {
        &self.preds[..self.n]
    }
}

impl ExecGraph {
    pub fn new(platform: &Platform) -> ExecGraph {
        ExecGraph {
            ahead: None,
            code_room: Vec::new(),
            nodes: Nodes { cost: vec![kind::ZERO << 1 | 1], bytes: vec![0], marks: vec![0], ..Default::default() },
            spans: vec![Span { op: OpId::MAX, who: Span::who(0, OpKind::Calc, false) }],
            starts: SpanStarts { bits: vec![1], before: vec![0] },
            far_ranks: Vec::new(),
            preds: Vec::new(),
            pred_nodes: OnceLock::new(),
            codes: OnceLock::new(),
            edges: Vec::new(),
            extra: HashMap::default(),
            link_wait_class: Vec::new(),
            sink: SOURCE,
            slots: None,
            at_end: None,
            own: Point::of(platform),
            own_makespan: None,
            last: vec![SOURCE],
            recent: vec![0; RECENT],
            wildcards: false,
            node_level: platform.node.is_some(),
            clocks: Default::default(),
            op_event: Vec::new(),
            ops: Vec::new(),
            far_ops: HashMap::default(),
            msg_event: Vec::new(),
            release: Self::just(SOURCE),
            begin: Self::just(SOURCE),
            begin_read: false,
            op: OpId::MAX,
            host: 0,
            arrival: false,
            who: Span::who(0, OpKind::Calc, false),
        }
    }

    /// This record, with `end` run on it when the run ends (the passes' making of
    /// the slots: see `recorder.rs`'s `finish`).
    pub(crate) fn ending_with(mut self, end: fn(&mut ExecGraph)) -> ExecGraph {
        self.at_end = Some(end);
        self
    }

    /// As [`ExecGraph::new`], with room for the record of a schedule of `ops`
    /// operations (about 5 nodes and 8 predecessors each): no growing as it runs.
    pub fn with_capacity(platform: &Platform, ops: usize) -> ExecGraph {
        let mut g = ExecGraph::new(platform);
        g.reserve(5 * ops, 8 * ops);
        // A schedule's operation ids are its indices; their tables in 2 MiB pages as
        // the record's (4 B an operation each, a fault every 4 KiB otherwise).
        g.op_event.reserve(ops);
        g.ops.reserve(ops);
        memory::advise_huge_pages(&g.op_event);
        memory::advise_huge_pages(&g.ops);
        g.prefault();
        g
    }

    /// Counters of what is written, by group of buffers ([`Prefault::wrote`]).
    pub(crate) const NODES: usize = 0;
    pub(crate) const SPANS: usize = 1;
    pub(crate) const PREDS: usize = 2;
    pub(crate) const WHOLE: usize = 3;

    /// Nodes between two reports of the record's size to the thread keeping ahead.
    pub(crate) const REPORT: usize = 1 << 14;

    /// Starts a thread making the record's pages ready ahead of the recorder, where
    /// the analysis may use more than one thread (`NETSENS_ANALYSIS_THREADS`): the
    /// first write to a fresh page then waits on another core, not on the run's.
    /// The tables by operation are written in no order: made ready whole.
    pub(crate) fn prefault(&mut self) {
        self.ahead = None;
        if !super::threads::core_beside_the_run() {
            return;
        }
        let buffers = vec![
            Buffer::of(&self.nodes.cost, Self::NODES),
            Buffer::of(&self.nodes.bytes, Self::NODES),
            Buffer::of(&self.last, Self::NODES),
            Buffer::of(&self.preds, Self::PREDS),
            Buffer::of(&self.edges, Self::PREDS),
            Buffer::of(&self.spans, Self::SPANS),
            Buffer::of(&self.op_event, Self::WHOLE),
            Buffer::of(&self.ops, Self::WHOLE),
            Buffer::of(&self.code_room, Self::NODES),
        ];
        self.ahead = Prefault::start(buffers);
        if let Some(a) = &self.ahead {
            // Every element, as if written.
            a.wrote(Self::WHOLE, usize::MAX);
            self.report(a);
        }
    }

    /// Tells the thread keeping ahead how far the record is written.
    pub(crate) fn report(&self, a: &Prefault) {
        a.wrote(Self::NODES, self.nodes.len());
        a.wrote(Self::SPANS, self.spans.len());
        a.wrote(Self::PREDS, self.preds.len());
        a.wake();
    }

    /// Room for `nodes` nodes and `preds` predecessors in all (and spans for 2 of 5
    /// nodes), in 2 MiB pages where the system allows: written once, a record of
    /// hundreds of MiB otherwise takes a page fault every 4 KiB (see
    /// [`memory::advise_huge_pages`]).
    pub(crate) fn reserve(&mut self, nodes: usize, preds: usize) {
        // Not while the thread keeping ahead may be in the buffers that move.
        self.ahead = None;
        fn room<T>(v: &mut Vec<T>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
            memory::advise_huge_pages(v);
        }
        room(&mut self.nodes.cost, nodes);
        room(&mut self.nodes.bytes, nodes);
        room(&mut self.nodes.marks, nodes / MARK + 1);
        room(&mut self.last, nodes);
        room(&mut self.spans, nodes * 2 / 5);
        room(&mut self.starts.bits, nodes / 64 + 1);
        room(&mut self.starts.before, nodes / 64 + 1);
        room(&mut self.preds, preds);
        room(&mut self.edges, preds);
        room(&mut self.code_room, nodes);
    }

    /// Predecessors of node `v` and how it depends on each.
    #[inline]
    pub fn preds_of(&self, v: usize) -> (&[u32], &[Edge]) {
        let a = self.nodes.first_pred(v);
        let b = a + self.nodes.pred_count(v);
        (&self.pred_nodes()[a..b], &self.edges[a..b])
    }

    /// Every node's predecessors' nodes, in node order: the record's own until the
    /// run has ended, then found again from the slots the first time (one pass, and
    /// an array of the predecessors' size kept from then on).
    pub fn pred_nodes(&self) -> &[u32] {
        let Some(slots) = &self.slots else { return &self.preds };
        self.pred_nodes.get_or_init(|| {
            // The node in each slot as a pass would have it there.
            let mut owner = vec![SOURCE; slots.count.max(1)];
            let mut nodes = Vec::with_capacity(self.preds.len());
            let mut first = 0;
            for (v, &slot) in slots.nodes().iter().enumerate() {
                let next = first + self.nodes.pred_count(v);
                nodes.extend(self.preds[first..next].iter().map(|&s| owner[s as usize]));
                first = next;
                owner[slot as usize] = v as u32;
            }
            nodes
        })
    }

    /// Each node's price and size as a code, worked out the first time asked for.
    pub(crate) fn codes(&self) -> &PriceCodes {
        self.codes.get_or_init(|| self.scan_codes())
    }

    /// The codes of the nodes, in a scan of their kinds and bytes (a record not
    /// ended by its run: one that was gets them in the loop at its end).
    pub(crate) fn scan_codes(&self) -> PriceCodes {
        let mut codes = CodeBook::new(Vec::with_capacity(self.nodes.len()));
        for v in 0..self.nodes.len() {
            codes.push(self.price_index(v), self.nodes.kind(v), self.nodes.bytes(v));
        }
        codes.done()
    }

    /// Node `v`'s predecessor `i` and how `v` depends on it, without finding every
    /// predecessor's node again: from its slot once the run has ended (a walk back
    /// from the end, as the critical path's, scans each node once).
    pub fn pred(&self, v: usize, i: usize) -> (usize, Edge) {
        let at = self.nodes.first_pred(v) + i;
        let q = match (&self.slots, self.pred_nodes.get()) {
            (Some(slots), None) => slots.last_in(self.preds[at], v),
            _ => self.pred_nodes()[at] as usize,
        };
        (q, self.edges[at])
    }

    /// Bytes the record holds (without the predecessors' nodes where something
    /// found them again: 4 B a predecessor more while the record lives).
    pub fn bytes(&self) -> usize {
        let slots = self.slots.as_ref().map_or(0, Slots::held);
        self.nodes.held()
            + self.spans.len() * std::mem::size_of::<Span>()
            + self.starts.held()
            + self.far_ranks.len() * 8
            + self.preds.len() * 5
            + self.extra.len() * 24
            + self.link_wait_class.len() * 8
            + self.codes.get().map_or(0, PriceCodes::held)
            + slots
    }

    /// Node `v` with its operation (from its span).
    pub fn node(&self, v: usize) -> Node {
        let i = self.starts.span_of(v);
        let s = &self.spans[i];
        let rank = match s.who >> 4 {
            FAR_RANK => self.far_ranks[self.far_ranks.partition_point(|f| (f.0 as usize) < i)].1,
            r => r,
        };
        let cost = self.nodes.price(v);
        Node {
            bytes: self.nodes.bytes(v),
            op: s.op,
            rank,
            kind: cost >> 1,
            level: cost & 1,
            op_kind: s.op_kind(),
            arrival: s.arrival(),
        }
    }
}

/// Where a node's price is looked up (the record's own layout of kinds and levels).
impl ExecGraph {
    #[inline]
    pub(crate) fn level_of(&self, n: &Node) -> usize {
        if self.node_level {
            n.level as usize
        } else {
            1
        }
    }

    /// Node `v`'s index in a table by kind and level (`kind·2 + level`, the
    /// cluster's level where the platform has no node level of its own).
    #[inline]
    pub(crate) fn price_index(&self, v: usize) -> usize {
        (self.nodes.price(v) | !self.node_level as u8) as usize
    }
}

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
