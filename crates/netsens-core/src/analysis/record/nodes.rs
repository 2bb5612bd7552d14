//! The record's nodes and spans as stored: a node's cost kind, level and bytes in a
//! few bytes each ([`Nodes`]), how it depends on each predecessor ([`Edge`]), and
//! which operation's event made it ([`Span`], once per event). Apart from the graph
//! that holds them: these are the storage's layout, the graph its whole.

use crate::engine::OpId;
use crate::engine::OpKind;

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
    pub(crate) cost: Vec<u8>,
    /// Each node's bytes (or ps), [`WIDE`] where they need more than 32 bits: then
    /// they are in `wide`, by node (a computation or a fixed time of 4.3 ms or more, a
    /// message of 4 GiB), read by [`Nodes::bytes`].
    pub(crate) bytes: Vec<u32>,
    /// (node, bytes) in the order of the nodes.
    pub(crate) wide: Vec<(u32, u64)>,
    /// Where the predecessors of every [`MARK`]-th node start in `preds`: a node's
    /// start is its mark's and the counts of the nodes between (no 4 B a node).
    pub(crate) marks: Vec<u32>,
    /// (node, predecessors) of the nodes with [`MANY`] or more, in node order.
    pub(crate) many: Vec<(u32, u32)>,
}

/// A node's count of predecessors from which it is kept in [`Nodes`]'s list (the
/// three high bits of its cost byte hold the smaller counts).
pub(crate) const MANY: u8 = 7;

/// Nodes between two marks of where their predecessors start.
pub(crate) const MARK: usize = 32;

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
pub(crate) const WIDE: u32 = u32::MAX;

/// Which operation's event made the nodes from where it starts (a bit of
/// [`SpanStarts`]) up to the next span's: what only the critical path and the
/// timeline read, kept once per event (8 B).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub op: OpId,
    /// `rank << 4 | kind << 1 | arrival` of the operation's kind ([`OP_KINDS`]) and
    /// whether the nodes are where its message arrived; a rank from [`FAR_RANK`] on
    /// is [`FAR_RANK`] here and kept in [`ExecGraph`]'s list by span.
    pub(crate) who: u32,
}

/// Which nodes start a span, a bit each (where a span's first node was 4 B a span):
/// a node's span is the count of starts up to it, less one.
#[derive(Default)]
pub(crate) struct SpanStarts {
    /// Bit `v % 64` of word `v / 64`: node `v` starts a span.
    pub(crate) bits: Vec<u64>,
    /// Spans started before each word's first node.
    pub(crate) before: Vec<u32>,
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
pub(crate) const OP_KINDS: [OpKind; 7] =
    [OpKind::Send, OpKind::Recv, OpKind::Calc, OpKind::Store, OpKind::Put, OpKind::Get, OpKind::Disk];

/// Ranks from this one on are kept beside the spans (28 bits hold the rest).
pub(crate) const FAR_RANK: u32 = (1 << 28) - 1;

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
