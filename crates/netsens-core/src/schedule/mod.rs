//! The schedule front end: a GOAL-style dependency graph of send/recv/calc
//! operations, stored as flat arrays (no object per operation), executed by the
//! engine core through [`executor::ScheduleFrontend`].

mod append;
pub mod compiled;
mod countdown;
mod edges;
pub mod executor;
pub mod goal;
pub mod goal_file;
pub mod jobs;
mod labels;
mod mapping;
mod op_table;
pub mod patterns;
mod text_labels;

use edges::EdgeTable;
pub(crate) use edges::START_EDGE;
use labels::OpLabels;
use op_table::OpTable;

use crate::engine::OpDesc;
use crate::error::{Error, Result};
use crate::time::Time;

pub use crate::engine::{OpId, OpKind, ANY};

/// A finished schedule. Per op: a 16-byte record (see `op_table`), and its
/// dependency edges, usually 2 bytes per edge and 2 per op (see `edges`); the
/// executor adds a 1-byte countdown per op while it runs.
pub struct Schedule {
    pub num_ranks: u32,
    /// CPUs and NICs per host (the largest index used, plus one).
    pub ncpus: u8,
    pub nnics: u8,
    pub(crate) ops: OpTable,
    /// Edges out of each op, sorted by dependent op so that ops enabled together
    /// keep creation order.
    pub(crate) edges: EdgeTable,
    /// Optional labels for error messages (GOAL label per op, empty when unlabeled).
    pub(crate) labels: Option<OpLabels>,
    /// Or the labels left in a mapped GOAL file.
    pub(crate) text_labels: Option<text_labels::TextLabels>,
}

impl Schedule {
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }

    pub fn num_edges(&self) -> usize {
        self.edges.num_edges()
    }

    pub fn kind(&self, op: OpId) -> OpKind {
        self.ops.get(op).kind
    }

    #[inline]
    pub fn op(&self, op: OpId) -> OpDesc {
        self.ops.get(op)
    }

    /// Human-readable description of one op, for deadlock reports.
    pub fn describe(&self, op: OpId) -> String {
        let label = self.label(op).map(|l| format!("{l}: ")).unwrap_or_default();
        let any = |v: i32| if v == ANY { "any".to_string() } else { v.to_string() };
        let o = self.ops.get(op);
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
        self.edges.dependents(op)
    }

    /// Approximate heap bytes held by the schedule (for the benchmarks).
    pub fn heap_bytes(&self) -> usize {
        self.ops.heap_bytes()
            + self.edges.heap_bytes()
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
    /// (from, to | START_EDGE) pairs not yet in the edge table (see `seal`).
    pending_edges: Vec<(u32, u32)>,
    /// A pending edge leaves an op whose edges are already laid out: `build` lays
    /// every edge out again.
    late_edges: bool,
    /// The first dependency found to cross ranks: (its rank, the other rank).
    cross_rank: Option<(u32, u32)>,
    /// Scratch: one op's dependents while its edges are laid out.
    group: Vec<u32>,
}

/// Pending edges sorted in place by `seal`; more are grouped by a counting sort.
const SORT_PENDING_MAX: usize = 1 << 12;

impl ScheduleBuilder {
    pub fn new(num_ranks: u32) -> Self {
        ScheduleBuilder {
            s: Schedule {
                num_ranks,
                ncpus: 1,
                nnics: 1,
                ops: OpTable::default(),
                edges: EdgeTable::default(),
                labels: None,
                text_labels: None,
            },
            pending_edges: Vec::new(),
            late_edges: false,
            cross_rank: None,
            group: Vec::new(),
        }
    }

    /// Reserve room for `ops` operations and `edges` dependencies.
    pub fn reserve(&mut self, ops: usize, edges: usize) {
        self.s.ops.reserve(ops);
        self.pending_edges.reserve_exact(edges);
    }

    fn push(&mut self, op: OpDesc) -> OpId {
        self.s.ncpus = self.s.ncpus.max(op.cpu.saturating_add(1));
        self.s.nnics = self.s.nnics.max(op.nic.saturating_add(1));
        let id = self.s.ops.push(&op);
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
        self.add_edge(before, op);
    }

    /// `op` may start once `before` has started.
    pub fn irequires(&mut self, op: OpId, before: OpId) {
        self.add_edge(before, op | START_EDGE);
    }

    fn add_edge(&mut self, from: OpId, to: u32) {
        self.late_edges |= (from as usize) < self.s.edges.ops();
        self.pending_edges.push((from, to));
    }

    pub fn num_ops(&self) -> usize {
        self.s.ops.len()
    }

    /// Lay out the edges of every op added so far: a GOAL block's dependencies are
    /// all known when it closes, so its edges go into the compact table then and the
    /// pending list stays a block long. An edge added later from one of these ops
    /// is still right (`build` lays everything out again), only slower.
    pub fn seal(&mut self) {
        if self.late_edges {
            return;
        }
        let first = self.s.edges.ops();
        let n = self.s.ops.len();
        if self.pending_edges.is_empty() {
            (first..n).for_each(|_| self.s.edges.push_op(&[]));
            return;
        }
        if self.pending_edges.iter().any(|&(from, to)| from as usize >= n || (to & !START_EDGE) as usize >= n) {
            return; // `build` names the bad edge
        }
        if self.pending_edges.len() <= SORT_PENDING_MAX {
            // A block's few edges: sorted by (source, dependent) in place.
            let mut pending = std::mem::take(&mut self.pending_edges);
            pending.sort_unstable_by_key(|&(from, to)| (from, to & !START_EDGE));
            let mut group = std::mem::take(&mut self.group);
            let mut next = pending.iter().peekable();
            for from in first..n {
                group.clear();
                while let Some(&(_, to)) = next.next_if(|&&(f, _)| f as usize == from) {
                    group.push(to);
                }
                self.push_group(from, &group);
            }
            pending.clear();
            (self.pending_edges, self.group) = (pending, group);
            return;
        }
        // Many edges (a whole schedule built without `seal`): grouped by source with a
        // counting sort (linear), then each group in dependent order (creation
        // order); groups are a few edges long.
        let mut start = vec![0u32; n - first + 1];
        for &(from, _) in &self.pending_edges {
            start[from as usize - first + 1] += 1;
        }
        for i in 0..n - first {
            start[i + 1] += start[i];
        }
        let mut grouped = vec![0u32; self.pending_edges.len()];
        let mut next = start.clone();
        for &(from, to) in &self.pending_edges {
            let slot = &mut next[from as usize - first];
            grouped[*slot as usize] = to;
            *slot += 1;
        }
        self.pending_edges = Vec::new();
        drop(next);
        for (i, w) in start.windows(2).enumerate() {
            let group = &mut grouped[w[0] as usize..w[1] as usize];
            group.sort_unstable_by_key(|&to| to & !START_EDGE);
            self.push_group(first + i, group);
        }
    }

    /// Lay out the edges of op `from` (sorted by dependent), noting the first that
    /// crosses ranks.
    fn push_group(&mut self, from: usize, group: &[u32]) {
        if self.cross_rank.is_none() && !group.is_empty() {
            let rank_from = self.s.ops.rank(from as OpId);
            if let Some(&to) = group.iter().find(|&&to| self.s.ops.rank(to & !START_EDGE) != rank_from) {
                self.cross_rank = Some((self.s.ops.rank(to & !START_EDGE), rank_from));
            }
        }
        self.s.edges.push_op(group);
    }

    /// Add `other`'s ops after this builder's (their ids shift by this builder's op
    /// count), with their dependencies and labels; `other`'s memory is given back
    /// as its contents move, so the two never take much more than their sum.
    pub fn append(&mut self, mut other: ScheduleBuilder) {
        self.seal();
        other.seal();
        let base = self.s.ops.len() as u32;
        let (n_self, n_other) = (self.s.ops.len(), other.s.ops.len());
        self.s.ncpus = self.s.ncpus.max(other.s.ncpus);
        self.s.nnics = self.s.nnics.max(other.s.nnics);
        self.cross_rank = self.cross_rank.or(other.cross_rank);
        let shift = |(from, to): (u32, u32)| {
            (from.wrapping_add(base), (to & !START_EDGE).wrapping_add(base) | (to & START_EDGE))
        };
        let laid_out = self.s.edges.ops() == n_self && other.s.edges.ops() == n_other;
        if self.late_edges || other.late_edges || !laid_out {
            // Either side's edges are not laid out: both go back to pending pairs.
            self.unseal();
            other.unseal();
        }
        self.s.ops.append(other.s.ops);
        self.s.edges.append(std::mem::take(&mut other.s.edges));
        self.late_edges |= other.late_edges;
        append::append_draining(&mut self.pending_edges, other.pending_edges, shift);
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

    /// Move every laid-out edge back to the pending pairs.
    fn unseal(&mut self) {
        let edges = std::mem::take(&mut self.s.edges);
        let mut pairs = Vec::with_capacity(edges.num_edges() + self.pending_edges.len());
        for from in 0..edges.ops() as OpId {
            pairs.extend(edges.dependents(from).map(|(to, st)| (from, to | if st { START_EDGE } else { 0 })));
        }
        pairs.append(&mut self.pending_edges);
        self.pending_edges = pairs;
        self.late_edges = false;
    }

    /// Check peers and dependencies, reject cycles, and lay the edges out.
    pub fn build(mut self) -> Result<Schedule> {
        let n = self.s.ops.len();
        if self.s.num_ranks == 0 {
            return Err(Error::Input("the schedule has 0 ranks; it needs at least 1".into()));
        }
        if n >= START_EDGE as usize {
            return Err(Error::Input(format!(
                "the schedule has {n} operations; at most {} are supported",
                START_EDGE - 1
            )));
        }
        if let Some(&(from, to)) =
            self.pending_edges.iter().find(|&&(from, to)| from as usize >= n || (to & !START_EDGE) as usize >= n)
        {
            return Err(Error::Input(format!(
                "a dependency links op {} to op {from}, but the schedule has ops 0..{n}",
                to & !START_EDGE
            )));
        }
        let num_ranks = self.s.num_ranks;
        for op in 0..n as OpId {
            let o = self.s.ops.get(op);
            let bad = match o.kind {
                OpKind::Calc | OpKind::Disk => false,
                OpKind::Send | OpKind::Store | OpKind::Put | OpKind::Get => o.peer < 0 || o.peer as u32 >= num_ranks,
                OpKind::Recv => o.peer != ANY && (o.peer < 0 || o.peer as u32 >= num_ranks),
            };
            if bad || o.rank >= num_ranks {
                return Err(Error::Input(format!(
                    "rank {}: {} names rank {}, but the schedule has ranks 0..{}",
                    o.rank,
                    if o.kind == OpKind::Send { "a send" } else { "a receive" },
                    if bad { o.peer as i64 } else { o.rank as i64 },
                    num_ranks - 1
                )));
            }
        }
        if self.late_edges {
            self.unseal();
        }
        self.seal();
        if let Some((rank_to, rank_from)) = self.cross_rank {
            return Err(Error::Input(format!(
                "a dependency links rank {rank_to} to rank {rank_from}; dependencies must stay within one rank"
            )));
        }
        if !self.s.edges.all_forward() {
            check_acyclic(&self.s)?;
        }
        self.s.ops.shrink_to_fit();
        self.s.edges.shrink_to_fit();
        Ok(self.s)
    }
}

impl Schedule {
    /// Number of predecessors (requires + irequires) of every op.
    pub(crate) fn indegrees(&self) -> Vec<u32> {
        let mut indeg = vec![0u32; self.num_ops()];
        for op in 0..self.num_ops() as OpId {
            for (to, _) in self.edges.dependents(op) {
                indeg[to as usize] += 1;
            }
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
        for (to, _) in s.edges.dependents(op) {
            let t = to as usize;
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
        for (to, _) in s.edges.dependents(from as OpId) {
            let t = to as usize;
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
        s.ops.rank(op as OpId),
        s.describe(op as OpId)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edge_from_an_op_already_laid_out_is_kept_in_order() {
        let mut b = ScheduleBuilder::new(2);
        let (a, c, d) = (b.calc(0, 1, 0), b.calc(0, 2, 0), b.calc(0, 3, 0));
        b.requires(d, a);
        b.seal();
        // Later edges out of `a` (already laid out) and out of `c`.
        b.irequires(c, a);
        b.requires(d, c);
        let s = b.build().unwrap();
        assert_eq!(s.dependents(a).collect::<Vec<_>>(), [(c, true), (d, false)]);
        assert_eq!(s.dependents(c).collect::<Vec<_>>(), [(d, false)]);
    }

    #[test]
    fn a_dependency_across_ranks_or_a_cycle_is_an_error() {
        let mut b = ScheduleBuilder::new(2);
        let (a, c) = (b.calc(0, 1, 0), b.calc(1, 1, 0));
        b.requires(c, a);
        b.seal();
        let err = b.build().err().expect("an error").to_string();
        assert!(err.contains("links rank 1 to rank 0"), "{err}");
        let mut b = ScheduleBuilder::new(1);
        let (a, c) = (b.calc(0, 1, 0), b.calc(0, 1, 0));
        b.requires(c, a);
        b.requires(a, c);
        assert!(b.build().err().expect("an error").to_string().contains("form a cycle"));
    }
}
