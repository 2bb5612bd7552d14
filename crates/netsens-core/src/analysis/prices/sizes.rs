//! The sizes the record prices: the byte counts of the nodes priced per byte (by
//! kind and level, as residues mod 1000 fs/B, where their prices' edges repeat)
//! and the computations' sizes, noted by the first pass as it reads every node
//! (see `stairs` for where they make a per-byte price step).

use super::cpu_stairs::ComputeSizes;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::kind::KINDS;

/// fs/B after which every price's edges repeat.
pub(super) const PERIOD: u64 = 1000;

/// A set of residues 0..1000 (bits of 16 words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Residues([u64; 16]);

impl Residues {
    pub(super) const NONE: Residues = Residues([0; 16]);

    pub(super) fn every() -> Residues {
        let mut r = Residues::NONE;
        (0..PERIOD).for_each(|i| r.insert(i));
        r
    }

    pub(super) fn insert(&mut self, i: u64) {
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }

    pub(super) fn contains(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    pub(super) fn union(&mut self, other: &Residues) {
        self.0.iter_mut().zip(other.0).for_each(|(a, b)| *a |= b);
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        (0..PERIOD).filter(|&i| self.contains(i))
    }
}

/// The byte counts the record prices per byte, by kind and level of node (the index
/// of its price in a table, `kind·2 + level`): those under 1000, and whether any is
/// 1000 or more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteCounts {
    pub(super) under: Vec<Residues>,
    pub(super) over: Vec<bool>,
}

/// Kinds of node whose price has a per-byte part a parameter can set.
pub(super) const PER_BYTE: [u8; 5] = [kind::SEND_CPU, kind::RECV_CPU, kind::RECV_CPU_NO_G, kind::GAP, kind::LINK_BYTES];

/// The byte counts priced per byte and the computations' sizes, gathered a node at a
/// time: by the first pass, which reads every node's kind and bytes anyway (two scans
/// of their own took 35–45 ms of radix's analysis), or by [`ExecGraph::node_sizes`].
pub struct NodeSizes {
    pub counts: ByteCounts,
    /// `None` where there are more than [`super::cpu_stairs::MAX_SIZES`].
    pub sizes: Option<ComputeSizes>,
    per_byte: [bool; KINDS * 2],
    // Messages and computations repeat their sizes: one just seen is not looked up again.
    last: (usize, u64),
    last_compute: u64,
}

impl NodeSizes {
    pub fn new() -> NodeSizes {
        let mut per_byte = [false; KINDS * 2];
        PER_BYTE.iter().for_each(|&k| (per_byte[k as usize * 2], per_byte[k as usize * 2 + 1]) = (true, true));
        NodeSizes {
            counts: ByteCounts { under: vec![Residues::NONE; KINDS * 2], over: vec![false; KINDS * 2] },
            sizes: ComputeSizes::of(&[]),
            per_byte,
            last: (usize::MAX, u64::MAX),
            last_compute: u64::MAX,
        }
    }

    /// A node of price index `i` (`kind·2 + level`) and `b` bytes.
    #[inline(always)]
    pub fn note(&mut self, i: usize, b: u64) {
        if self.per_byte[i] {
            if (i, b) != self.last {
                self.last = (i, b);
                if b < PERIOD {
                    self.counts.under[i].insert(b);
                } else {
                    self.counts.over[i] = true;
                }
            }
        } else if i >> 1 == kind::COMPUTE as usize && b != self.last_compute && b != 0 {
            self.last_compute = b;
            self.sizes = self.sizes.and_then(|mut s| s.insert(b as f64).map(|_| s));
        }
    }
}

impl Default for NodeSizes {
    fn default() -> Self {
        NodeSizes::new()
    }
}

impl ExecGraph {
    /// Every byte count of a node priced per byte and every computation's size, in
    /// one scan of the nodes' kinds and bytes (not their predecessors).
    pub fn node_sizes(&self) -> NodeSizes {
        let mut s = NodeSizes::new();
        for v in 0..self.nodes.len() {
            s.note(self.price_index(v), self.nodes.bytes(v));
        }
        s
    }
}
