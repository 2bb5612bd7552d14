//! The schedule front end: a GOAL-style dependency graph of send/recv/calc
//! operations, stored as flat arrays (no object per operation), executed by the
//! engine core through [`executor::ScheduleFrontend`].

mod append;
pub mod compiled;
pub mod executor;
pub mod goal;
pub mod goal_file;
mod labels;
mod mapping;
pub mod patterns;
mod text_labels;

use labels::OpLabels;

use crate::engine::OpDesc;
use crate::error::{Error, Result};
use crate::time::Time;

pub use crate::engine::{OpId, OpKind, ANY};

// The per-op record the memory budget (≤ 48 B per op, issue 3) is built on.
const _: () = assert!(std::mem::size_of::<OpDesc>() == 24);

/// A dependency edge is stored on its source op; the top bit marks `irequires`.
const START_EDGE: u32 = 1 << 31;

/// A finished schedule. Per op: a 24-byte record (kind, cpu, nic, rank, peer, tag,
/// size), 4 B edge offset, 4 B per outgoing edge (the executor adds 4 B of
/// countdown per op while it runs). One record per op keeps an event's look-up to
/// one cache line.
pub struct Schedule {
    pub num_ranks: u32,
    /// CPUs and NICs per host (the largest index used, plus one).
    pub ncpus: u8,
    pub nnics: u8,
    pub(crate) ops: Vec<OpDesc>,
    /// Edges out of op i: `edges[edge_start[i]..edge_start[i+1]]`, each the dependent
    /// op, sorted by op id so that ops enabled together keep creation order.
    pub(crate) edge_start: Vec<u32>,
    pub(crate) edges: Vec<u32>,
    /// Whether any edge is an `irequires` (otherwise starting an op releases nothing).
    pub(crate) has_start_edges: bool,
    /// Optional labels for error messages (GOAL label per op, empty when unlabeled).
    pub(crate) labels: Option<OpLabels>,
    /// Or the labels left in a mapped GOAL file.
    pub(crate) text_labels: Option<text_labels::TextLabels>,
}

impl Schedule {
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    pub fn kind(&self, op: OpId) -> OpKind {
        self.ops[op as usize].kind
    }

    #[inline]
    pub fn op(&self, op: OpId) -> OpDesc {
        self.ops[op as usize]
    }

    /// Human-readable description of one op, for deadlock reports.
    pub fn describe(&self, op: OpId) -> String {
        let i = op as usize;
        let label = self.label(op).map(|l| format!("{l}: ")).unwrap_or_default();
        let any = |v: i32| if v == ANY { "any".to_string() } else { v.to_string() };
        let o = &self.ops[i];
        match o.kind {
            OpKind::Send => format!("{label}send {}b to {} tag {}", o.size, o.peer, any(o.tag)),
            OpKind::Recv => format!("{label}recv {}b from {} tag {}", o.size, any(o.peer), any(o.tag)),
            OpKind::Calc => format!("{label}calc {}", crate::units::format_time(o.size)),
            OpKind::Store => format!("{label}store {}b to {}", o.size, o.peer),
            OpKind::Put => format!("{label}put {}b to {}", o.size, o.peer),
            OpKind::Get => format!("{label}get {}b from {}", o.size, o.peer),
            OpKind::Disk => format!("{label}disk {} {}b", o.peer, o.size),
        }
    }

    /// Everything stored about one op (a read-only view, for tests and front ends).
    pub fn op_info(&self, op: OpId) -> OpInfo<'_> {
        OpInfo { op: self.op(op), label: self.label(op) }
    }

    /// The op's GOAL label, if it has one.
    pub(crate) fn label(&self, op: OpId) -> Option<&str> {
        let stored = self.labels.as_ref().map(|l| l.get(op as usize));
        stored.or_else(|| self.text_labels.as_ref().map(|l| l.get(op))).filter(|l| !l.is_empty())
    }

    /// The ops that depend on `op`, in id order; `true` marks an `irequires` edge.
    pub fn dependents(&self, op: OpId) -> impl Iterator<Item = (OpId, bool)> + '_ {
        let (a, b) = (self.edge_start[op as usize], self.edge_start[op as usize + 1]);
        self.edges[a as usize..b as usize].iter().map(|&e| edge_target(e))
    }

    /// Approximate heap bytes held by the schedule (for the benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.ops.capacity() * std::mem::size_of::<OpDesc>()
            + self.edge_start.capacity() * 4
            + self.edges.capacity() * 4
            + self.labels.as_ref().map_or(0, OpLabels::heap_bytes)
            + self.text_labels.as_ref().map_or(0, text_labels::TextLabels::heap_bytes)
    }
}

/// A read-only view of one op of a [`Schedule`]: its record and its GOAL label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo<'a> {
    pub op: OpDesc,
    pub label: Option<&'a str>,
}

impl std::ops::Deref for OpInfo<'_> {
    type Target = OpDesc;
    fn deref(&self) -> &OpDesc {
        &self.op
    }
}

/// Builds a [`Schedule`] op by op. Ops of one rank may be added in any order
/// relative to other ranks; dependencies must stay within a rank.
pub struct ScheduleBuilder {
    s: Schedule,
    /// (from, to | START_EDGE) pairs, turned into the edge arrays by `build`.
    pending_edges: Vec<(u32, u32)>,
}

impl ScheduleBuilder {
    pub fn new(num_ranks: u32) -> Self {
        ScheduleBuilder {
            s: Schedule {
                num_ranks,
                ncpus: 1,
                nnics: 1,
                ops: Vec::new(),
                edge_start: Vec::new(),
                edges: Vec::new(),
                has_start_edges: false,
                labels: None,
                text_labels: None,
            },
            pending_edges: Vec::new(),
        }
    }

    /// Reserve room for `ops` operations and `edges` dependencies.
    pub fn reserve(&mut self, ops: usize, edges: usize) {
        self.s.ops.reserve_exact(ops);
        self.pending_edges.reserve_exact(edges);
    }

    fn push(&mut self, op: OpDesc) -> OpId {
        let id = self.s.ops.len() as OpId;
        self.s.ncpus = self.s.ncpus.max(op.cpu.saturating_add(1));
        self.s.nnics = self.s.nnics.max(op.nic.saturating_add(1));
        self.s.ops.push(op);
        if let Some(labels) = self.s.labels.as_mut() {
            labels.push_unlabeled();
        }
        id
    }

    pub fn send(&mut self, rank: u32, dst: u32, bytes: u64, tag: i32, cpu: u8, nic: u8) -> OpId {
        self.push(OpDesc { kind: OpKind::Send, rank, peer: dst as i32, tag, size: bytes, cpu, nic })
    }

    /// `src` and `tag` may be [`ANY`].
    pub fn recv(&mut self, rank: u32, src: i32, bytes: u64, tag: i32, cpu: u8, nic: u8) -> OpId {
        self.push(OpDesc { kind: OpKind::Recv, rank, peer: src, tag, size: bytes, cpu, nic })
    }

    pub fn calc(&mut self, rank: u32, duration: Time, cpu: u8) -> OpId {
        self.push(OpDesc { kind: OpKind::Calc, rank, peer: 0, tag: 0, size: duration, cpu, nic: 0 })
    }

    /// Attach a label to an op (kept for error messages).
    pub fn label(&mut self, op: OpId, label: &str) {
        let n = self.s.ops.len();
        self.s.labels.get_or_insert_with(|| OpLabels::unlabeled(n)).set(op as usize, label);
    }

    /// `op` starts only after `before` is done.
    pub fn requires(&mut self, op: OpId, before: OpId) {
        self.pending_edges.push((before, op));
    }

    /// `op` may start once `before` has started.
    pub fn irequires(&mut self, op: OpId, before: OpId) {
        self.pending_edges.push((before, op | START_EDGE));
    }

    pub fn num_ops(&self) -> usize {
        self.s.ops.len()
    }

    /// Add `other`'s ops after this builder's (their ids shift by this builder's op
    /// count), with their dependencies and labels; `other`'s memory is given back
    /// as its contents move, so the two never take much more than their sum.
    pub fn append(&mut self, other: ScheduleBuilder) {
        let base = self.s.ops.len() as u32;
        let (n_self, n_other) = (self.s.ops.len(), other.s.ops.len());
        self.s.ncpus = self.s.ncpus.max(other.s.ncpus);
        self.s.nnics = self.s.nnics.max(other.s.nnics);
        append::append_draining(&mut self.s.ops, other.s.ops, |op| op);
        append::append_draining(&mut self.pending_edges, other.pending_edges, |(from, to)| {
            (from.wrapping_add(base), (to & !START_EDGE).wrapping_add(base) | (to & START_EDGE))
        });
        match (self.s.labels.as_mut(), other.s.labels) {
            (_, None) => {
                if let Some(labels) = self.s.labels.as_mut() {
                    (0..n_other).for_each(|_| labels.push_unlabeled());
                }
            }
            (Some(labels), Some(theirs)) => labels.append(theirs),
            (None, Some(theirs)) => {
                let mut labels = OpLabels::unlabeled(n_self);
                labels.append(theirs);
                self.s.labels = Some(labels);
            }
        }
    }

    /// Check peers and dependencies, reject cycles, and lay the edges out flat.
    pub fn build(mut self) -> Result<Schedule> {
        let s = &mut self.s;
        let n = s.ops.len();
        if s.num_ranks == 0 {
            return Err(Error::Input("the schedule has 0 ranks; it needs at least 1".into()));
        }
        if n >= START_EDGE as usize {
            return Err(Error::Input(format!(
                "the schedule has {n} operations; at most {} are supported",
                START_EDGE - 1
            )));
        }
        for o in &s.ops {
            let bad = match o.kind {
                OpKind::Calc | OpKind::Disk => false,
                OpKind::Send | OpKind::Store | OpKind::Put | OpKind::Get => o.peer < 0 || o.peer as u32 >= s.num_ranks,
                OpKind::Recv => o.peer != ANY && (o.peer < 0 || o.peer as u32 >= s.num_ranks),
            };
            if bad || o.rank >= s.num_ranks {
                return Err(Error::Input(format!(
                    "rank {}: {} names rank {}, but the schedule has ranks 0..{}",
                    o.rank,
                    if o.kind == OpKind::Send { "a send" } else { "a receive" },
                    if bad { o.peer as i64 } else { o.rank as i64 },
                    s.num_ranks - 1
                )));
            }
        }
        // Edges grouped by source with a counting sort (linear, where sorting all the
        // pairs was a tenth of a large GOAL file's parse), then each group in
        // dependent-id order (creation order); groups are a few edges long.
        let mut start = vec![0u32; n + 1];
        for &(from, _) in &self.pending_edges {
            start[from as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut edges = vec![0u32; self.pending_edges.len()];
        for &(from, to) in &self.pending_edges {
            let slot = &mut start[from as usize];
            edges[*slot as usize] = to;
            *slot += 1;
        }
        self.pending_edges = Vec::new();
        // The scatter left each group's end where its start was: shift them back.
        start.rotate_right(1);
        start[0] = 0;
        for from in 0..n {
            let group = &mut edges[start[from] as usize..start[from + 1] as usize];
            group.sort_unstable_by_key(|&to| to & !START_EDGE);
            for &to in group.iter() {
                let (rank_to, rank_from) = (s.ops[(to & !START_EDGE) as usize].rank, s.ops[from].rank);
                if rank_to != rank_from {
                    return Err(Error::Input(format!(
                        "a dependency links rank {rank_to} to rank {rank_from}; dependencies must stay within one rank"
                    )));
                }
            }
        }
        s.edges = edges;
        s.edge_start = start;
        s.has_start_edges = s.edges.iter().any(|&e| e & START_EDGE != 0);
        check_acyclic(s)?;
        Ok(self.s)
    }
}

impl Schedule {
    /// Number of predecessors (requires + irequires) of every op.
    pub(crate) fn indegrees(&self) -> Vec<u32> {
        let mut indeg = vec![0u32; self.num_ops()];
        for &e in &self.edges {
            indeg[edge_target(e).0 as usize] += 1;
        }
        indeg
    }
}

/// Kahn's algorithm over the whole graph; on a cycle, name a rank and an op in it.
fn check_acyclic(s: &Schedule) -> Result<()> {
    let n = s.ops.len();
    let mut indeg = s.indegrees();
    let mut stack: Vec<u32> = (0..n as u32).filter(|&i| indeg[i as usize] == 0).collect();
    let mut seen = 0usize;
    while let Some(op) = stack.pop() {
        seen += 1;
        let (a, b) = (s.edge_start[op as usize] as usize, s.edge_start[op as usize + 1] as usize);
        for &to in &s.edges[a..b] {
            let t = (to & !START_EDGE) as usize;
            indeg[t] -= 1;
            if indeg[t] == 0 {
                stack.push(t as u32);
            }
        }
    }
    if seen == n {
        return Ok(());
    }
    // Every op left has a predecessor that is left too; following one predecessor
    // per op n times ends on a cycle (not merely downstream of one).
    let mut pred = vec![u32::MAX; n];
    for from in 0..n {
        let (a, b) = (s.edge_start[from] as usize, s.edge_start[from + 1] as usize);
        for &to in &s.edges[a..b] {
            let t = (to & !START_EDGE) as usize;
            if indeg[from] > 0 && indeg[t] > 0 {
                pred[t] = from as u32;
            }
        }
    }
    let mut op = (0..n).find(|&i| indeg[i] > 0).unwrap_or(0);
    for _ in 0..n {
        if pred[op] == u32::MAX {
            break;
        }
        op = pred[op] as usize;
    }
    Err(Error::Input(format!(
        "the dependencies of rank {} form a cycle (it includes `{}`)",
        s.ops[op].rank,
        s.describe(op as OpId)
    )))
}

pub(crate) fn edge_target(e: u32) -> (OpId, bool) {
    (e & !START_EDGE, e & START_EDGE != 0)
}
