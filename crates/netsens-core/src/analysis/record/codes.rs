//! Each node's price and size as a code into a short table of the pairs the run
//! has: a run prices few distinct (kind, level, bytes), so a pass works out a
//! node's cost in every lane once per pair, not once per node, and a node then
//! costs one table row (an exchange's nodes have a dozen pairs; a pass spent a
//! third of its time in the per-node arithmetic).

use super::kind;
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
