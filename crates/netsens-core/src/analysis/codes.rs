//! Each node's price and size as a code into a short table of the pairs the run
//! has: a run prices few distinct (kind, level, bytes), so a pass works out a
//! node's cost in every lane once per pair, not once per node, and a node then
//! costs one table row (an exchange's nodes have a dozen pairs; a pass spent a
//! third of its time in the per-node arithmetic).

use super::graph::{kind, ExecGraph};
use rustc_hash::FxHashMap as HashMap;

/// A node whose pair is not in the table (it filled up first): priced per node.
pub(crate) const ESCAPE: u8 = u8::MAX;

/// The codes of a record's nodes and the pair each stands for.
#[derive(Default)]
pub(crate) struct PriceCodes {
    /// The code of each node, [`ESCAPE`] where its pair is not in `pairs`. A node
    /// that adds nothing (a latest-of, [`kind::ZERO`]) has one too, never read
    /// where the run has no noise.
    pub code: Vec<u8>,
    /// (price index (`ExecGraph::price_index`), bytes) of each code, in the order
    /// first met.
    pub pairs: Vec<(u8, u64)>,
}

impl PriceCodes {
    /// The codes of `g`'s nodes, in a scan of their kinds and bytes (a record not
    /// ended by its run: one that was gets them in the loop at its end).
    pub fn of(g: &ExecGraph) -> PriceCodes {
        let mut codes = CodeBook::new(Vec::with_capacity(g.nodes.len()));
        for v in 0..g.nodes.len() {
            codes.push(g.price_index(v), g.nodes.kind(v), g.nodes.bytes(v));
        }
        codes.done()
    }

    /// Bytes the codes hold.
    pub fn held(&self) -> usize {
        self.code.len() + self.pairs.len() * 16
    }
}

/// [`PriceCodes`] being made, a node at a time: the first 255 pairs met get a code.
/// The last pair of each price index is at hand (most nodes repeat it), the others
/// in a map.
pub(crate) struct CodeBook {
    codes: PriceCodes,
    known: HashMap<(u8, u64), u8>,
    /// By price index: the last bytes seen and their code.
    last: [(u64, u8); 32],
}

impl CodeBook {
    /// A book writing its codes into `code` (room for every node reserved by the caller).
    pub fn new(mut code: Vec<u8>) -> CodeBook {
        code.clear();
        CodeBook {
            codes: PriceCodes { code, pairs: Vec::new() },
            known: HashMap::default(),
            last: [(u64::MAX, ESCAPE); 32],
        }
    }

    /// The next node, of price index `i`, kind `k` and `bytes`; its pair (a latest-of
    /// node's bytes taken as 0: they price nothing).
    #[inline(always)]
    pub fn push(&mut self, i: usize, k: u8, bytes: u64) -> (usize, u64) {
        let bytes = if k == kind::ZERO { 0 } else { bytes };
        let (b, c) = self.last[i];
        let c = if b == bytes { c } else { self.look_up(i, bytes) };
        self.codes.code.push(c);
        (i, bytes)
    }

    #[cold]
    fn look_up(&mut self, i: usize, bytes: u64) -> u8 {
        let pairs = &mut self.codes.pairs;
        let c = *self.known.entry((i as u8, bytes)).or_insert_with(|| {
            if pairs.len() < ESCAPE as usize {
                pairs.push((i as u8, bytes));
                pairs.len() as u8 - 1
            } else {
                ESCAPE
            }
        });
        self.last[i] = (bytes, c);
        c
    }

    pub fn done(self) -> PriceCodes {
        self.codes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::record_schedule;
    use crate::engine::RunOptions;
    use crate::platform::Platform;
    use crate::schedule::patterns;

    /// The codes of `g` (a record ended by its run), checked: the end's loop made
    /// the scan's; every node's code stands for its own price index and bytes, or
    /// is an escape only once the table is full, whose pairs are distinct. The
    /// number of escapes.
    fn escapes(g: &ExecGraph) -> usize {
        let codes = PriceCodes::of(g);
        // Those the loop at the run's end made are the same.
        assert_eq!((&g.codes().code, &g.codes().pairs), (&codes.code, &codes.pairs));
        assert_eq!(codes.code.len(), g.nodes.len());
        let mut seen = std::collections::HashSet::new();
        assert!(codes.pairs.iter().all(|p| seen.insert(*p)), "distinct pairs");
        let mut escapes = 0;
        for (v, &c) in codes.code.iter().enumerate() {
            let bytes = if g.nodes.kind(v) == kind::ZERO { 0 } else { g.nodes.bytes(v) };
            let pair = (g.price_index(v) as u8, bytes);
            if c == ESCAPE {
                assert_eq!(codes.pairs.len(), 255, "an escape only once the table is full");
                assert!(!seen.contains(&pair), "node {v}'s pair has a code");
                escapes += 1;
            } else {
                assert_eq!(codes.pairs[c as usize], pair, "node {v}");
            }
        }
        escapes
    }

    #[test]
    fn every_code_is_its_nodes_own_price_and_size() {
        let p = Platform::resolve("loggopsim").expect("a preset");
        let record = |s| record_schedule(&s, &p, &RunOptions::default(), &mut |_| true).expect("the run finishes").1;
        // One message size: a handful of pairs, no escape.
        assert_eq!(escapes(&record(patterns::ring_exchange(8, 3, 1500, 2_000_000).expect("a schedule"))), 0);
        // 400 computations of sizes of their own: the table fills up, the rest escape.
        let mut b = crate::schedule::ScheduleBuilder::new(1);
        for i in 0..400 {
            b.calc(0, 1000 + i, 0);
        }
        let g = record(b.build().expect("a schedule"));
        assert!(escapes(&g) >= 400 - 255, "{}", escapes(&g));
    }
}
