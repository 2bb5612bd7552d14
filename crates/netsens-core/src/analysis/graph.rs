//! The execution graph of one run, recorded by an [`Observer`] beside the event loop.
//!
//! Every time the engine set is a node: either the latest of earlier nodes (a
//! operation waiting for its predecessor, its CPU, its NIC or a link) or one earlier
//! node plus a cost in the platform's parameters ([`Cost`]). Nodes are recorded in
//! the order the engine made them, so every node's predecessors come before it and
//! one pass in that order evaluates the whole run at other parameters.

use super::codes::{CodeBook, PriceCodes};
pub(crate) use super::kind;
use super::params::Point;
use super::slots::Slots;
use crate::engine::observe::{At, Clock, Key};
use crate::engine::{OpId, OpKind};
use crate::memory;
use crate::platform::Platform;
use crate::prefault::{Buffer, Prefault};
use crate::time::Time;
use rustc_hash::FxHashMap as HashMap;
use std::sync::OnceLock;

/// How a node depends on one of its predecessors (the make-up of a critical path
/// tells queueing from the program's own order by it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Edge {
    /// The event's own time (a message's arrival, an operation's readiness).
    Event = 0,
    /// The host's CPU (or shared core) was busy.
    Cpu = 1,
    /// The NIC was busy with an earlier message.
    Nic = 2,
    /// A link was busy with an earlier message.
    Link = 3,
    /// The operation waited for the one that released it (program order, `requires`).
    Dependency = 4,
    /// The disk was busy.
    Disk = 5,
}

/// One node, as [`ExecGraph::node`] gives it: `cost` of kind `kind` at `level` (0
/// node, 1 cluster) with `bytes` (message bytes, or ps of a computation or a fixed
/// time).
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub bytes: u64,
    /// The operation whose event made it, its rank and kind (a rank program reuses
    /// the ids of finished operations, so they are kept with the node).
    pub op: OpId,
    pub rank: u32,
    pub kind: u8,
    pub level: u8,
    pub op_kind: OpKind,
    /// Made where a message of `op` arrived (on `rank`, not `op`'s own).
    pub arrival: bool,
}

/// The nodes as a pass reads them, array by array: 5 B a node (and 4 B every
/// [`MARK`] nodes).
#[derive(Default)]
pub struct Nodes {
    /// `preds << 5 | kind << 1 | level`: how many predecessors it has (up to
    /// [`MANY`] − 1; [`MANY`]: that many or more, its count in `many`) and the index
    /// of its price in a table by kind and level.
    cost: Vec<u8>,
    /// Each node's bytes (or ps), [`WIDE`] where they need more than 32 bits: then
    /// they are in `wide`, by node (a computation or a fixed time of 4.3 ms or more, a
    /// message of 4 GiB), read by [`Nodes::bytes`].
    bytes: Vec<u32>,
    /// (node, bytes) in the order of the nodes.
    wide: Vec<(u32, u64)>,
    /// Where the predecessors of every [`MARK`]-th node start in `preds`: a node's
    /// start is its mark's and the counts of the nodes between (no 4 B a node).
    marks: Vec<u32>,
    /// (node, predecessors) of the nodes with [`MANY`] or more, in node order.
    many: Vec<(u32, u32)>,
}

/// A node's count of predecessors from which it is kept in [`Nodes`]'s list (the
/// three high bits of its cost byte hold the smaller counts).
const MANY: u8 = 7;

/// Nodes between two marks of where their predecessors start.
const MARK: usize = 32;

impl Nodes {
    pub fn len(&self) -> usize {
        self.cost.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cost.is_empty()
    }

    #[inline]
    pub fn kind(&self, v: usize) -> u8 {
        (self.cost[v] >> 1) & 0xf
    }

    /// `kind << 1 | level`: node `v`'s index in a table by kind and level.
    #[inline]
    pub fn price(&self, v: usize) -> u8 {
        self.cost[v] & 0x1f
    }

    /// How many predecessors node `v` has.
    #[inline]
    pub fn pred_count(&self, v: usize) -> usize {
        match self.cost[v] >> 5 {
            MANY => self.many_of(v),
            n => n as usize,
        }
    }

    #[cold]
    pub(super) fn many_of(&self, v: usize) -> usize {
        self.many[self.many.partition_point(|m| (m.0 as usize) < v)].1 as usize
    }

    /// Where node `v`'s predecessors start in the record's list of them: its mark's
    /// start and the counts since, eight cost bytes at a time.
    #[inline]
    pub fn first_pred(&self, v: usize) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        let m = v / MARK;
        let (mut first, mut u) = (self.marks[m] as usize, m * MARK);
        while u + 8 <= v {
            let w = u64::from_le_bytes(self.cost[u..u + 8].try_into().expect("eight bytes"));
            // Each byte's three high bits, as a byte.
            let counts = (w >> 5) & (7 * ONES);
            if counts & (counts >> 1) & (counts >> 2) & ONES != 0 {
                // A count kept aside among them: one at a time from here.
                break;
            }
            first += (counts.wrapping_mul(ONES) >> 56) as usize;
            u += 8;
        }
        (u..v).fold(first, |first, u| first + self.pred_count(u))
    }

    /// Node `v`'s bytes (message bytes, or ps of a computation or a fixed time).
    #[inline]
    pub fn bytes(&self, v: usize) -> u64 {
        match self.bytes[v] {
            WIDE => self.wide[self.wide.partition_point(|w| (w.0 as usize) < v)].1,
            b => b as u64,
        }
    }

    /// A node of `kind << 1 | level` with `bytes` whose `count` predecessors start at `first_pred`.
    /// Always inlined: left a call, it was 4 % of what recording adds.
    #[inline(always)]
    pub(super) fn push(&mut self, cost: u8, bytes: u64, first_pred: u32, count: usize) {
        let v = self.cost.len();
        let narrow = u32::try_from(bytes).ok().filter(|&b| b != WIDE);
        if narrow.is_none() {
            self.wide.push((v as u32, bytes));
        }
        if v.is_multiple_of(MARK) {
            self.marks.push(first_pred);
        }
        let small = u8::try_from(count).ok().filter(|&n| n < MANY);
        if small.is_none() {
            self.many.push((v as u32, count as u32));
        }
        self.cost.push(small.unwrap_or(MANY) << 5 | cost);
        self.bytes.push(narrow.unwrap_or(WIDE));
    }

    /// Bytes the nodes hold.
    pub(super) fn held(&self) -> usize {
        self.len() * 5 + self.marks.len() * 4 + self.wide.len() * 16 + self.many.len() * 8
    }
}

/// A node's bytes that are in [`Nodes`]'s table of wide values.
const WIDE: u32 = u32::MAX;

/// Which operation's event made the nodes from where it starts (a bit of
/// [`SpanStarts`]) up to the next span's: what only the critical path and the
/// timeline read, kept once per event (8 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub op: OpId,
    /// `rank << 4 | kind << 1 | arrival` of the operation's kind ([`OP_KINDS`]) and
    /// whether the nodes are where its message arrived; a rank from [`FAR_RANK`] on
    /// is [`FAR_RANK`] here and kept in [`ExecGraph`]'s list by span.
    who: u32,
}

/// Which nodes start a span, a bit each (where a span's first node was 4 B a span):
/// a node's span is the count of starts up to it, less one.
#[derive(Default)]
struct SpanStarts {
    /// Bit `v % 64` of word `v / 64`: node `v` starts a span.
    bits: Vec<u64>,
    /// Spans started before each word's first node.
    before: Vec<u32>,
}

impl SpanStarts {
    /// Node `v` (the next one), starting a span or not, `spans` spans before it.
    #[inline]
    pub(super) fn push(&mut self, v: usize, starts: bool, spans: usize) {
        if v.is_multiple_of(64) {
            self.bits.push(0);
            self.before.push(spans as u32);
        }
        self.bits[v / 64] |= (starts as u64) << (v % 64);
    }

    /// The span node `v` is in.
    #[inline]
    pub(super) fn span_of(&self, v: usize) -> usize {
        let (w, b) = (v / 64, v % 64);
        // The starts at or before `v` in its word.
        let upto = (self.bits[w] & (u64::MAX >> (63 - b))).count_ones();
        (self.before[w] + upto) as usize - 1
    }

    pub(super) fn held(&self) -> usize {
        self.bits.len() * 8 + self.before.len() * 4
    }
}

/// Operation kinds by their code in a span.
const OP_KINDS: [OpKind; 7] =
    [OpKind::Send, OpKind::Recv, OpKind::Calc, OpKind::Store, OpKind::Put, OpKind::Get, OpKind::Disk];

/// Ranks from this one on are kept beside the spans (28 bits hold the rest).
const FAR_RANK: u32 = (1 << 28) - 1;

impl Span {
    pub(super) fn who(rank: u32, kind: OpKind, arrival: bool) -> u32 {
        let code = match kind {
            OpKind::Send => 0,
            OpKind::Recv => 1,
            OpKind::Calc => 2,
            OpKind::Store => 3,
            OpKind::Put => 4,
            OpKind::Get => 5,
            OpKind::Disk => 6,
        };
        rank.min(FAR_RANK) << 4 | code << 1 | arrival as u32
    }

    pub fn op_kind(&self) -> OpKind {
        Span::kind_of(self.who)
    }

    pub(super) fn kind_of(who: u32) -> OpKind {
        OP_KINDS[(who >> 1 & 7) as usize]
    }

    pub fn arrival(&self) -> bool {
        self.who & 1 == 1
    }
}

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
    pub(super) ahead: Option<Prefault>,
    pub nodes: Nodes,
    pub spans: Vec<Span>,
    starts: SpanStarts,
    /// (span, rank) of the spans whose rank is [`FAR_RANK`] or more, in span order.
    pub(super) far_ranks: Vec<(u32, u32)>,
    /// Every node's predecessors, in node order: their nodes while the run goes
    /// (and in a record not ended by its run); once it has ended, the slots their
    /// values live in during a pass, written over the nodes ([`Slots::assign_at`]:
    /// no second array of their size). Their nodes: [`ExecGraph::preds_of`].
    pub preds: Vec<u32>,
    /// The predecessors' nodes, found again from the slots when first asked for
    /// (the timeline, the reference evaluations; the analysis does without).
    pub(super) pred_nodes: OnceLock<Vec<u32>>,
    /// Each node's price and size as a code into a short table ([`PriceCodes`]):
    /// made in the loop at the run's end, or for the first pass that asks.
    pub(super) codes: OnceLock<PriceCodes>,
    /// Room for the codes of every node, reserved with the record (its pages made
    /// ready with the others'), filled at the run's end.
    pub(super) code_room: Vec<u8>,
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
    /// The platform's own point, and the record's makespan there (ps), worked out
    /// with the slots when the run ends: what the record is checked by.
    pub(super) own: Point,
    pub(super) own_makespan: Option<f64>,
    /// The last node reading each node (itself where none does), while recording.
    pub(super) last: Vec<u32>,
    /// Where the predecessors of the last [`RECENT`] nodes start, by node modulo
    /// [`RECENT`], while recording: what [`ExecGraph::dominated_by`] reads of a recent
    /// node without counting from its mark.
    pub(super) recent: Vec<u32>,
    /// The node of each clock's current value, by kind of clock and index.
    pub(super) clocks: [Vec<u32>; Clock::KINDS],
    pub(super) op_event: Vec<u32>,
    /// Rank and kind of every live operation, by its id, as a span's `who` (4 B
    /// where a pair took 8); a rank from [`FAR_RANK`] on is in `far_ops`.
    pub(super) ops: Vec<u32>,
    pub(super) far_ops: HashMap<OpId, u32>,
    pub(super) msg_event: Vec<u32>,
    /// When operations enabled next are ready: never a node of its own (each `ready`
    /// takes its times as predecessors; half are read by none, half by one).
    pub(super) release: Start,
    /// When the current event began; after `posted`, the latest of two made into a
    /// node only when a second step reads it (most are read by one).
    pub(super) begin: Start,
    pub(super) begin_read: bool,
    pub(super) op: OpId,
    /// Where the current event is handled, and whether it is a message reaching
    /// another rank than its operation's.
    pub(super) host: u32,
    pub(super) arrival: bool,
    /// The span's code of the three (`Span::who`), worked out once per event, not
    /// per node.
    pub(super) who: u32,
}

pub(super) const SOURCE: u32 = 0;

/// Nodes back whose predecessors' start the recorder keeps at hand (256 KiB).
const RECENT: usize = 1 << 16;

/// The time a step starts from: one node, or the latest of up to four not made
/// into one (a step from it takes them as its own predecessors).
#[derive(Clone, Copy)]
pub(super) struct Start {
    pub(super) preds: [(u32, Edge); 4],
    pub(super) n: usize,
}

impl Start {
    /// This start and time `p` (a `Start` holds at most four: both are at most two).
    pub(super) fn and(mut self, p: (u32, Edge)) -> Start {
        self.preds[self.n] = p;
        self.n += 1;
        self
    }

    pub(super) fn preds(&self) -> &[(u32, Edge)] {
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
    const NODES: usize = 0;
    const SPANS: usize = 1;
    const PREDS: usize = 2;
    const WHOLE: usize = 3;

    /// Nodes between two reports of the record's size to the thread keeping ahead.
    const REPORT: usize = 1 << 14;

    /// Starts a thread making the record's pages ready ahead of the recorder, where
    /// the analysis may use more than one thread (`NETSENS_ANALYSIS_THREADS`): the
    /// first write to a fresh page then waits on another core, not on the run's.
    /// The tables by operation are written in no order: made ready whole.
    pub(super) fn prefault(&mut self) {
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
    pub(super) fn report(&self, a: &Prefault) {
        a.wrote(Self::NODES, self.nodes.len());
        a.wrote(Self::SPANS, self.spans.len());
        a.wrote(Self::PREDS, self.preds.len());
        a.wake();
    }

    /// Room for `nodes` nodes and `preds` predecessors in all (and spans for 2 of 5
    /// nodes), in 2 MiB pages where the system allows: written once, a record of
    /// hundreds of MiB otherwise takes a page fault every 4 KiB (see
    /// [`memory::advise_huge_pages`]).
    pub(super) fn reserve(&mut self, nodes: usize, preds: usize) {
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

#[cfg(test)]
#[path = "graph_tests.rs"]
mod tests;
