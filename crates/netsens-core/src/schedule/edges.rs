//! The dependency edges of a schedule, grouped by source op (in source order, each
//! group sorted by dependent op). Dependencies stay within a rank and in GOAL files
//! they nearly always point a few ops ahead, so the usual layout is compact: an
//! edge is the distance to its dependent (15 bits, the top bit marks `irequires`)
//! in 2 bytes, and an op's first edge is a 2-byte offset from a 4-byte base shared
//! by 256 ops. The first edge that does not fit (pointing backwards or 2^15 ops
//! ahead, or 2^16 edges in 256 ops) turns the whole table into the plain layout:
//! 4-byte dependents and 4-byte offsets.

use super::OpId;

/// A dependent's top bit in the plain layout marks an `irequires` edge.
pub(crate) const START_EDGE: u32 = 1 << 31;
/// The same mark in the compact layout.
const START_DELTA: u16 = 1 << 15;
/// Ops sharing one base offset in the compact layout.
const BLOCK_BITS: u32 = 8;

enum Layout {
    /// Op i's edges start at `base[i >> BLOCK_BITS] + rel[i]`; each is `dependent - i`
    /// (`| START_DELTA`).
    Compact { base: Vec<u32>, rel: Vec<u16>, deltas: Vec<u16> },
    /// Op i's edges are `targets[start[i]..start[i + 1]]` (`| START_EDGE`).
    Plain { start: Vec<u32>, targets: Vec<u32> },
}

pub(crate) struct EdgeTable {
    layout: Layout,
    /// Ops whose edges are in the table (edges come in source order).
    ops: usize,
    edges: usize,
    /// Whether every edge points to a later op (then the graph has no cycle).
    all_forward: bool,
    /// Whether any edge is an `irequires`.
    has_start: bool,
}

impl Default for EdgeTable {
    fn default() -> Self {
        EdgeTable {
            layout: Layout::Compact { base: Vec::new(), rel: Vec::new(), deltas: Vec::new() },
            ops: 0,
            edges: 0,
            all_forward: true,
            has_start: false,
        }
    }
}

impl EdgeTable {
    /// Ops whose edges are in the table.
    pub(crate) fn ops(&self) -> usize {
        self.ops
    }

    pub(crate) fn num_edges(&self) -> usize {
        self.edges
    }

    pub(crate) fn all_forward(&self) -> bool {
        self.all_forward
    }

    pub(crate) fn has_start_edges(&self) -> bool {
        self.has_start
    }

    /// Add the next op's edges: each `dependent | START_EDGE` for an `irequires`,
    /// sorted by dependent.
    pub(crate) fn push_op(&mut self, targets: &[u32]) {
        let op = self.ops as u32;
        for &t in targets {
            self.all_forward &= t & !START_EDGE > op;
            self.has_start |= t & START_EDGE != 0;
        }
        if let Layout::Compact { base, rel, deltas } = &mut self.layout {
            if self.ops.trailing_zeros() >= BLOCK_BITS {
                base.push(deltas.len() as u32);
            }
            let offset = deltas.len() as u32 - base[base.len() - 1];
            let fits = |&t: &u32| (t & !START_EDGE).checked_sub(op + 1).is_some_and(|d| d < START_DELTA as u32 - 1);
            if offset <= u16::MAX as u32 && targets.iter().all(fits) {
                rel.push(offset as u16);
                for &t in targets {
                    let mark = if t & START_EDGE != 0 { START_DELTA } else { 0 };
                    deltas.push(((t & !START_EDGE) - op) as u16 | mark);
                }
                self.ops += 1;
                self.edges += targets.len();
                return;
            }
            if self.ops.trailing_zeros() >= BLOCK_BITS {
                base.pop();
            }
            self.make_plain();
        }
        let Layout::Plain { start, targets: all } = &mut self.layout else { unreachable!("made plain above") };
        all.extend_from_slice(targets);
        start.push(all.len() as u32);
        self.ops += 1;
        self.edges += targets.len();
    }

    /// The positions of `op`'s edges, for [`EdgeTable::target`].
    #[inline]
    pub(crate) fn range(&self, op: OpId) -> (usize, usize) {
        let i = op as usize;
        match &self.layout {
            Layout::Compact { base, rel, deltas } => {
                let at = |i: usize| base[i >> BLOCK_BITS] as usize + rel[i] as usize;
                (at(i), if i + 1 < self.ops { at(i + 1) } else { deltas.len() })
            }
            Layout::Plain { start, .. } => (start[i] as usize, start[i + 1] as usize),
        }
    }

    /// The dependent at position `at` of `op`'s edges, and whether it is an `irequires`.
    #[inline]
    pub(crate) fn target(&self, op: OpId, at: usize) -> (OpId, bool) {
        match &self.layout {
            Layout::Compact { deltas, .. } => {
                let d = deltas[at];
                (op + (d & !START_DELTA) as u32, d & START_DELTA != 0)
            }
            Layout::Plain { targets, .. } => (targets[at] & !START_EDGE, targets[at] & START_EDGE != 0),
        }
    }

    /// The ops that depend on `op`, in id order; `true` marks an `irequires` edge.
    pub(crate) fn dependents(&self, op: OpId) -> impl Iterator<Item = (OpId, bool)> + '_ {
        let (a, b) = self.range(op);
        (a..b).map(move |at| self.target(op, at))
    }

    /// Switch to the plain layout (an edge did not fit the compact one).
    fn make_plain(&mut self) {
        if matches!(self.layout, Layout::Plain { .. }) {
            return;
        }
        let mut start = Vec::with_capacity(self.ops + 1);
        let mut targets = Vec::with_capacity(self.edges);
        start.push(0);
        for op in 0..self.ops as OpId {
            let (a, b) = self.range(op);
            for at in a..b {
                let (t, is_start) = self.target(op, at);
                targets.push(t | if is_start { START_EDGE } else { 0 });
            }
            start.push(targets.len() as u32);
        }
        self.layout = Layout::Plain { start, targets };
    }

    /// `other`'s edges after these, its ops numbered after this table's.
    pub(crate) fn append(&mut self, mut other: EdgeTable) {
        let shift = self.ops as u32;
        let edges = self.edges as u32;
        if let (Layout::Compact { base, rel, deltas }, Layout::Compact { .. }) = (&mut self.layout, &other.layout) {
            // Deltas do not change; each op's first edge moves by this table's edge count.
            let mut rebased = Vec::with_capacity(other.ops);
            let mut bases = Vec::new();
            let mut fits = true;
            for j in 0..other.ops {
                let k = self.ops + j;
                let at = edges + other.range(j as OpId).0 as u32;
                if k.trailing_zeros() >= BLOCK_BITS {
                    bases.push(at);
                }
                let block_base = bases.last().copied().unwrap_or_else(|| base[base.len() - 1]);
                fits &= at - block_base <= u16::MAX as u32;
                rebased.push((at - block_base) as u16);
            }
            if fits {
                let Layout::Compact { deltas: theirs, .. } = std::mem::replace(&mut other.layout, Layout::empty())
                else {
                    unreachable!("matched as compact above")
                };
                base.extend_from_slice(&bases);
                rel.extend_from_slice(&rebased);
                super::append::append_draining(deltas, theirs, |d| d);
                self.merge_counts(&other);
                return;
            }
        }
        self.make_plain();
        other.make_plain();
        let Layout::Plain { start, targets } = &mut self.layout else { unreachable!("made plain above") };
        let Layout::Plain { start: their_start, targets: theirs } = other.layout else { unreachable!("made plain") };
        start.extend(their_start[1..].iter().map(|&s| s + edges));
        super::append::append_draining(targets, theirs, |t| ((t & !START_EDGE) + shift) | (t & START_EDGE));
        other.layout = Layout::empty();
        self.merge_counts(&other);
    }

    fn merge_counts(&mut self, other: &EdgeTable) {
        self.ops += other.ops;
        self.edges += other.edges;
        self.all_forward &= other.all_forward;
        self.has_start |= other.has_start;
    }

    /// Give back the room reserved for edges never added.
    pub(crate) fn shrink_to_fit(&mut self) {
        match &mut self.layout {
            Layout::Compact { base, rel, deltas } => {
                base.shrink_to_fit();
                rel.shrink_to_fit();
                deltas.shrink_to_fit();
            }
            Layout::Plain { start, targets } => {
                start.shrink_to_fit();
                targets.shrink_to_fit();
            }
        }
    }

    /// Bytes held (for the benchmarks).
    pub(crate) fn heap_bytes(&self) -> usize {
        match &self.layout {
            Layout::Compact { base, rel, deltas } => base.capacity() * 4 + rel.capacity() * 2 + deltas.capacity() * 2,
            Layout::Plain { start, targets } => start.capacity() * 4 + targets.capacity() * 4,
        }
    }

    /// Whether the table is in the compact layout (for tests).
    #[cfg(test)]
    fn is_compact(&self) -> bool {
        matches!(self.layout, Layout::Compact { .. })
    }
}

impl Layout {
    fn empty() -> Layout {
        Layout::Plain { start: vec![0], targets: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table from per-op dependents, with every op's edges read back.
    fn table(groups: &[Vec<u32>]) -> EdgeTable {
        let mut t = EdgeTable::default();
        groups.iter().for_each(|g| t.push_op(g));
        t
    }

    fn read_back(t: &EdgeTable) -> Vec<Vec<u32>> {
        (0..t.ops() as OpId)
            .map(|op| t.dependents(op).map(|(d, s)| d | if s { START_EDGE } else { 0 }).collect())
            .collect()
    }

    /// Op i depends on i - 1 and i - 2 (an irequires), over 700 ops (three blocks).
    fn chain(n: u32) -> Vec<Vec<u32>> {
        (0..n).map(|i| [i + 1, (i + 2) | START_EDGE].into_iter().filter(|&t| t & !START_EDGE < n).collect()).collect()
    }

    #[test]
    fn forward_edges_stay_compact_and_read_back() {
        let groups = chain(700);
        let t = table(&groups);
        assert!(t.is_compact() && t.all_forward() && t.has_start_edges());
        assert_eq!((t.ops(), t.num_edges()), (700, 699 + 698));
        assert_eq!(read_back(&t), groups);
    }

    #[test]
    fn a_backward_far_or_crowded_edge_makes_the_table_plain() {
        let far = START_DELTA as u32; // the first distance past the compact one
                                      // 300 edges an op: op 219's offset in its block is 65700.
        let crowded: Vec<Vec<u32>> = (0..256).map(|i| (i + 1..i + 301).collect()).collect();
        for groups in [vec![vec![], vec![0]], vec![vec![far + 1]], crowded] {
            let mut groups = groups;
            let n = groups.iter().flatten().map(|&t| t + 1).max().unwrap_or(0) as usize;
            groups.resize(n.max(groups.len()), Vec::new());
            let t = table(&groups);
            assert!(!t.is_compact());
            assert_eq!(read_back(&t), groups);
        }
        assert!(!table(&[vec![], vec![0]]).all_forward());
        // One step short of each limit stays compact.
        let mut near = vec![vec![far - 1]];
        near.resize(far as usize, Vec::new());
        assert!(table(&near).is_compact());
    }

    #[test]
    fn appending_shifts_the_second_tables_ops_in_either_layout() {
        let (a, b) = (chain(300), chain(513));
        let shifted = |g: &[Vec<u32>], by: u32| -> Vec<Vec<u32>> {
            g.iter().map(|e| e.iter().map(|&t| ((t & !START_EDGE) + by) | (t & START_EDGE)).collect()).collect()
        };
        let whole: Vec<Vec<u32>> = a.iter().cloned().chain(shifted(&b, 300)).collect();
        let mut t = table(&a);
        t.append(table(&b));
        assert!(t.is_compact());
        assert_eq!(read_back(&t), whole);
        // A plain second table (a backward edge) makes the whole plain.
        let mut back = b.clone();
        back[5].insert(0, 2);
        let mut t = table(&a);
        t.append(table(&back));
        assert!(!t.is_compact() && !t.all_forward());
        let mut expect = whole.clone();
        expect[305].insert(0, 302);
        assert_eq!(read_back(&t), expect);
    }
}
