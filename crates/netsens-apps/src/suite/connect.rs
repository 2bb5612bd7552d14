//! Connect: connected components of a random 2-D lattice graph, as the Split-C
//! Connect does it: a local union-find in each block, then a few global phases that
//! read labels across the cut with blocking remote reads until no label changes.
//!
//! **Graph**: the N×N sites of a square lattice, all present; the edge from each site
//! to its right and to its lower neighbour is present with probability
//! [`EDGE_PROBABILITY`] = 0.4 (bond percolation below the 2-D threshold of 0.5, so
//! components stay finite and cross few block boundaries: few global phases). The
//! draws are streams 0 (right edges) and 1 (down edges) of the seed, indexed by site,
//! so each rank generates only the edges that touch its block. A component's label is
//! the smallest index `row·N + column` of its sites.
//!
//! **Decomposition**: the process grid and block spans of the stencil example
//! ([`Grid::for_ranks`], [`span`]): the most square factorisation of P, rows split as
//! evenly as they go. A process grid with more than N processes per side is an input
//! error.
//!
//! **Algorithm**: each rank unions the edges inside its block (the root of a set is
//! its smallest site, whose global index is the set's first label). A *cut edge* joins
//! one of its sites to a neighbour's. Every rank exposes a window with two buffers of
//! one u32 label per site of its block and publishes the label of each of its cut
//! sites into buffer 0; a barrier. Global phase k: for every cut edge, a blocking
//! `get` of the 4-byte label of the far site from the neighbour's buffer k mod 2;
//! each far label lowers the label of the near site's set if smaller; the rank
//! publishes its cut sites' labels into buffer (k+1) mod 2; an allreduce (max) of
//! "some label changed". A rank writes buffer (k+1) mod 2 only after the allreduce of
//! phase k−1, which every reader of that buffer has finished reading, so the reads of
//! phase k see exactly the labels of the end of phase k−1, whatever the timing. The
//! phases stop when no label changed: then the labels agree across every edge and each
//! is the smallest site of its component.
//!
//! **Communication**: per global phase, one get per cut edge on each side: 2·(cut
//! edges) gets of 4 bytes; per phase one allreduce; one barrier before the phases and
//! one allreduce (the component count) after them.
//!
//! **Cost model**: [`FIND_PS`] = 50 ns per union-find step (a find with path halving
//! on a large array: a few dependent loads, about one cache miss; an assumption, not a
//! measurement), scaled by the platform's CPU speed. Local phase: 2 steps per edge
//! inside the block (the union's two finds) and 1 per site (find its root to label the
//! sets); each global phase: 2 per cut edge (merge the far label, publish the near
//! one). Generating the lattice is the input and is not charged.
//!
//! **Verification**: every rank compares the label of each of its sites with a serial
//! union-find of the whole lattice (computed once per process, cached per thread by
//! (N, seed)), and the allreduced number of sites that are their own label (one per
//! component) with the serial component count.

use crate::app::{App, Backend, Job, Size};
use crate::data::unit_f64s_at;
use crate::examples::stencil::{span, Grid};
use netsens_core::program::collectives::{allreduce, barrier};
use netsens_core::program::{Op, Rank};
use netsens_core::time::Time;
use netsens_core::Result;
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

pub const APP: App = App {
    name: "connect",
    description: "connected components of a random 2-D lattice: local union-find, then blocking reads across the cut",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Probability that an edge between two neighbouring sites is present.
pub const EDGE_PROBABILITY: f64 = 0.4;
/// Charge per union-find step: 50 ns, before CPU-speed scaling.
pub const FIND_PS: Time = 50_000;

/// Seed streams of the right and the down edges.
const RIGHT: u64 = 0;
const DOWN: u64 = 1;
/// Bytes of a label.
const LABEL: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Lattice side: N×N sites.
    pub n: usize,
    pub seed: u64,
}

impl Config {
    /// tiny: 64×64 sites; small: 1024×1024; paper: 2048×2048 (4 M sites; the seeds do
    /// not give Connect's input, so this is a size of the seed's era).
    pub fn preset(size: Size, seed: u64) -> Config {
        let n = match size {
            Size::Tiny => 64,
            Size::Small => 1024,
            Size::Paper => 2048,
        };
        Config { n, seed }
    }

    /// Whether the edges (i, j)–(i, j+1) are present, for j in `cols`.
    pub fn right_edges(&self, i: usize, cols: Range<usize>) -> Vec<bool> {
        let draws = unit_f64s_at(self.seed, RIGHT, (i * self.n + cols.start) as u64, cols.len());
        cols.zip(draws).map(|(j, x)| j + 1 < self.n && x < EDGE_PROBABILITY).collect()
    }

    /// Whether the edges (i, j)–(i+1, j) are present, for j in `cols`.
    pub fn down_edges(&self, i: usize, cols: Range<usize>) -> Vec<bool> {
        let draws = unit_f64s_at(self.seed, DOWN, (i * self.n + cols.start) as u64, cols.len());
        draws.into_iter().map(|x| i + 1 < self.n && x < EDGE_PROBABILITY).collect()
    }
}

/// Union-find whose root is always the smallest element of its set.
struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect() }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        self.parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// The canonical label (smallest site of its component) of every site, by a serial
/// union-find of the whole lattice.
fn serial(cfg: &Config) -> Vec<u32> {
    let n = cfg.n;
    let mut uf = UnionFind::new(n * n);
    for i in 0..n {
        let (right, down) = (cfg.right_edges(i, 0..n), cfg.down_edges(i, 0..n));
        for j in 0..n {
            let s = (i * n + j) as u32;
            if right[j] {
                uf.union(s, s + 1);
            }
            if down[j] {
                uf.union(s, s + n as u32);
            }
        }
    }
    (0..(n * n) as u32).map(|s| uf.find(s)).collect()
}

thread_local! {
    /// The last serial labelling computed on this thread, by (N, seed).
    static REFERENCE: RefCell<Option<(Config, Rc<Vec<u32>>)>> = const { RefCell::new(None) };
}

/// The serial labelling for `cfg`, computed once per thread.
fn reference(cfg: &Config) -> Rc<Vec<u32>> {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((key, labels)) if key == cfg => labels.clone(),
            _ => {
                let labels = Rc::new(serial(cfg));
                *cache = Some((*cfg, labels.clone()));
                labels
            }
        }
    })
}

/// An edge from one of this rank's sites to a neighbour's site.
struct Cut {
    /// The near site, indexed in this block.
    site: u32,
    /// The neighbour's world rank.
    rank: u32,
    /// The far site, indexed in the neighbour's block, and that block's site count.
    far: usize,
    far_sites: usize,
}

/// A rank's block: sites `r0..r0+h` × `c0..c0+w` of the N×N lattice, indexed `i·w + j`.
struct Block {
    n: usize,
    r0: usize,
    c0: usize,
    h: usize,
    w: usize,
    /// Edges inside the block.
    edges: Vec<(u32, u32)>,
    cuts: Vec<Cut>,
    uf: UnionFind,
    /// The label of each set, kept at its root.
    label: Vec<u32>,
}

impl Block {
    /// The block of rank `me` and the edges that touch it.
    fn generate(cfg: &Config, grid: Grid, me: u32) -> Block {
        let (pr, pc) = (me / grid.cols, me % grid.cols);
        let ((r0, r1), (c0, c1)) = (span(cfg.n, grid.rows, pr), span(cfg.n, grid.cols, pc));
        let (h, w) = (r1 - r0, c1 - c0);
        // The neighbour at (pr, pc) in the process grid: its world rank and block shape.
        let neighbour = |pr: u32, pc: u32| {
            let ((r0, r1), (c0, c1)) = (span(cfg.n, grid.rows, pr), span(cfg.n, grid.cols, pc));
            (pr * grid.cols + pc, r1 - r0, c1 - c0)
        };
        let at = |i: usize, j: usize| (i * w + j) as u32;
        let present = |edges: Vec<bool>| edges.into_iter().enumerate().filter(|e| e.1).map(|e| e.0);
        let (mut edges, mut cuts) = (Vec::new(), Vec::new());
        if pr > 0 {
            let (rank, nh, nw) = neighbour(pr - 1, pc);
            for j in present(cfg.down_edges(r0 - 1, c0..c1)) {
                cuts.push(Cut { site: at(0, j), rank, far: (nh - 1) * nw + j, far_sites: nh * nw });
            }
        }
        for i in 0..h {
            if pc > 0 && cfg.right_edges(r0 + i, c0 - 1..c0)[0] {
                let (rank, nh, nw) = neighbour(pr, pc - 1);
                cuts.push(Cut { site: at(i, 0), rank, far: i * nw + nw - 1, far_sites: nh * nw });
            }
            for j in present(cfg.right_edges(r0 + i, c0..c1)) {
                if j + 1 < w {
                    edges.push((at(i, j), at(i, j + 1)));
                } else {
                    let (rank, nh, nw) = neighbour(pr, pc + 1);
                    cuts.push(Cut { site: at(i, j), rank, far: i * nw, far_sites: nh * nw });
                }
            }
            for j in present(cfg.down_edges(r0 + i, c0..c1)) {
                if i + 1 < h {
                    edges.push((at(i, j), at(i + 1, j)));
                } else {
                    let (rank, nh, nw) = neighbour(pr + 1, pc);
                    cuts.push(Cut { site: at(i, j), rank, far: j, far_sites: nh * nw });
                }
            }
        }
        Block { n: cfg.n, r0, c0, h, w, edges, cuts, uf: UnionFind::new(h * w), label: vec![0; h * w] }
    }

    fn sites(&self) -> usize {
        self.h * self.w
    }

    /// The global index of local site `s`.
    fn global(&self, s: u32) -> u32 {
        let (i, j) = (s as usize / self.w, s as usize % self.w);
        ((self.r0 + i) * self.n + self.c0 + j) as u32
    }

    /// The current label of local site `s`.
    fn label_of(&mut self, s: u32) -> u32 {
        let root = self.uf.find(s);
        self.label[root as usize]
    }

    /// Union the edges inside the block; each set's label is its root's global index.
    fn union_local(&mut self) {
        for &(a, b) in &self.edges {
            self.uf.union(a, b);
        }
        for s in 0..self.sites() as u32 {
            if self.uf.find(s) == s {
                self.label[s as usize] = self.global(s);
            }
        }
    }

    /// Lower each cut site's label to the far site's label `far[k]` of cut `k`; whether
    /// any label changed.
    fn merge(&mut self, far: &[u32]) -> bool {
        let mut changed = false;
        for (k, &l) in far.iter().enumerate() {
            let root = self.uf.find(self.cuts[k].site) as usize;
            if l < self.label[root] {
                self.label[root] = l;
                changed = true;
            }
        }
        changed
    }

    /// Write the label of every cut site into window buffer `buf`.
    fn publish<R: Rank>(&mut self, r: &R, buf: usize) {
        let base = buf * self.sites();
        let labels: Vec<(usize, u32)> =
            (0..self.cuts.len()).map(|k| (self.cuts[k].site as usize, self.label_of(self.cuts[k].site))).collect();
        r.window(|win| {
            for (s, l) in labels {
                win[(base + s) * LABEL..][..LABEL].copy_from_slice(&l.to_le_bytes());
            }
        });
    }
}

/// The program.
pub async fn connect<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let me = r.rank();
    let mut blk = Block::generate(&cfg, Grid::for_ranks(r.size()), me);
    r.expose(2 * blk.sites() * LABEL);
    r.phase("local");
    let cost = FIND_PS * (2 * blk.edges.len() + blk.sites()) as Time;
    r.work(cost, || {
        blk.union_local();
        blk.publish(&r, 0);
    })
    .await;
    barrier(&r, &comm).await;
    for k in 0.. {
        r.phase("read");
        let mut far = Vec::with_capacity(blk.cuts.len());
        for c in &blk.cuts {
            let bytes = r.get(c.rank, (k % 2 * c.far_sites + c.far) * LABEL, LABEL).await;
            let label: [u8; LABEL] = bytes
                .try_into()
                .map_err(|b: Vec<u8>| format!("rank {me}: a label read from rank {} has {} bytes", c.rank, b.len()))?;
            far.push(u32::from_le_bytes(label));
        }
        r.phase("merge");
        let changed = r
            .work(2 * FIND_PS * blk.cuts.len() as Time, || {
                let changed = blk.merge(&far);
                blk.publish(&r, (k + 1) % 2);
                changed
            })
            .await;
        if allreduce(&r, &comm, &[u32::from(changed)], Op::Max).await[0] == 0 {
            break;
        }
    }
    r.phase("verify");
    verify(&r, &cfg, &mut blk).await
}

/// Compare every site's label with the serial labelling, and the component count.
async fn verify<R: Rank>(r: &R, cfg: &Config, blk: &mut Block) -> std::result::Result<(), String> {
    let want = reference(cfg);
    let mut roots = 0u64;
    for s in 0..blk.sites() as u32 {
        let (g, got) = (blk.global(s), blk.label_of(s));
        let expected = want[g as usize];
        if got != expected {
            return Err(format!(
                "site ({}, {}) has label {got}; the serial union-find gives {expected}",
                g as usize / cfg.n,
                g as usize % cfg.n
            ));
        }
        roots += u64::from(got == g);
    }
    let components = allreduce(r, &r.world(), &[roots], Op::Sum).await[0];
    let expected = want.iter().enumerate().filter(|&(s, &l)| s as u32 == l).count() as u64;
    if components != expected {
        return Err(format!("{components} components; the serial union-find finds {expected}"));
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    Grid::fitting("connect", job, cfg.n, "lattice")?;
    backend.run(job.platform, move |r| connect(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_find_roots_are_the_smallest_sites() {
        let mut uf = UnionFind::new(6);
        uf.union(4, 2);
        uf.union(5, 4);
        uf.union(3, 1);
        assert_eq!((0..6).map(|s| uf.find(s)).collect::<Vec<_>>(), [0, 1, 2, 1, 2, 2]);
    }

    #[test]
    fn no_edge_leaves_the_lattice() {
        let cfg = Config { n: 16, seed: 1 };
        assert!((0..16).all(|i| !cfg.right_edges(i, 15..16)[0]));
        assert!(cfg.down_edges(15, 0..16).iter().all(|&e| !e));
        let edges: usize = (0..16).map(|i| cfg.right_edges(i, 0..16).iter().filter(|&&e| e).count()).sum();
        assert!((60..=130).contains(&edges), "{edges} of 240 right edges at p = 0.4");
    }

    #[test]
    fn the_serial_labels_agree_across_every_edge() {
        let cfg = Config { n: 32, seed: 2 };
        let labels = serial(&cfg);
        for i in 0..32 {
            let (right, down) = (cfg.right_edges(i, 0..32), cfg.down_edges(i, 0..32));
            for j in 0..32 {
                let s = i * 32 + j;
                assert!(labels[s] as usize <= s);
                if right[j] {
                    assert_eq!(labels[s], labels[s + 1]);
                }
                if down[j] {
                    assert_eq!(labels[s], labels[s + 32]);
                }
            }
        }
    }
}
