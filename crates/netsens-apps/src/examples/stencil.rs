//! 2-D Jacobi (5-point stencil) on an N×N grid, decomposed into blocks on a
//! process grid, with a halo exchange with the four neighbours every iteration.
//!
//! It solves −∇²u = f with u = 0 outside the grid: every iteration replaces each
//! point by u' = (up + down + left + right + b) / 4, where b = h²f. The initial u and
//! b are seeded random values in [0, 1), streams 0 and 1 of the seed, indexed by
//! grid point, so each rank generates only its own block.
//!
//! **Decomposition**: P ranks form the most square process grid rows × cols
//! (rows ≥ cols: 3 → 3×1, 8 → 4×2, 16 → 4×4); rank r holds block
//! (r / cols, r % cols), rows and columns split as evenly as they go (32 rows over 3
//! process rows: 10, 11, 11). A process grid with more than N processes per side is
//! an input error.
//!
//! **Communication**: each iteration (phase `halo`) a rank posts a non-blocking
//! receive from, and sends its edge to, each neighbour that exists (no wrap-around),
//! then waits for all: a block edge of w points is one message of 8·w bytes
//! (little-endian f64). So per iteration each adjacent pair of blocks exchanges two
//! messages: 2·((rows−1)·cols + rows·(cols−1)) messages in all.
//!
//! **Cost model** (phase `compute`): the update is 4 additions and 1 multiplication,
//! [`FLOPS_PER_POINT`] = 5 flops per point, charged at [`PS_PER_FLOP`] = 1 ns per flop
//! (a sustained 1 Gflop/s, a round figure for a memory-bound stencil on one core; an
//! assumption, not a measurement), scaled by the platform's CPU speed. The real
//! arithmetic runs inside `Rank::work`.
//!
//! **Verification**: after the last iteration every rank compares its block, value
//! for value (bit for bit: the same operations in the same order), with a serial
//! Jacobi on the whole grid. This is the simulator's check: all ranks run in one
//! process, so the serial reference is computed once per process and shared (cached
//! per thread, keyed by (N, iterations, seed)); it costs no virtual time.

use crate::app::{App, Backend, Job, Size};
use crate::data::unit_f64s_at;
use netsens_core::program::{decode, encode};
use netsens_core::program::{Communicator, Rank, Tag};
use netsens_core::time::Time;
use netsens_core::{input_err, Result};
use std::cell::RefCell;
use std::rc::Rc;

pub const APP: App = App {
    name: "stencil",
    description: "2-D Jacobi (5-point) on an N x N grid, halo exchange with 4 neighbours (example, not the suite)",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Flops of one point update: 4 additions and 1 multiplication.
pub const FLOPS_PER_POINT: u64 = 5;
/// Charge per flop: 1 ns (a sustained 1 Gflop/s), before CPU-speed scaling.
pub const PS_PER_FLOP: Time = 1000;

/// Seed streams of the initial values and of the right-hand side.
const U0: u64 = 0;
const RHS: u64 = 1;

/// Tags: the direction an edge travels (a rank's top row travels north).
const NORTH: Tag = 0;
const SOUTH: Tag = 1;
const WEST: Tag = 2;
const EAST: Tag = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Grid side: N×N points.
    pub n: usize,
    pub iters: u32,
    /// Seed of the initial values and the right-hand side.
    pub seed: u64,
}

impl Config {
    /// tiny: 32×32, 4 iterations; small: 256×256, 20; paper: 1024×1024, 50.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (n, iters) = match size {
            Size::Tiny => (32, 4),
            Size::Small => (256, 20),
            Size::Paper => (1024, 50),
        };
        Config { n, iters, seed }
    }
}

/// The process grid: `rows × cols` processes, rank r at (r / cols, r % cols).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub rows: u32,
    pub cols: u32,
}

impl Grid {
    /// The most square factorisation of `p`, the longer side first.
    pub fn for_ranks(p: u32) -> Grid {
        let cols = (1..=p).take_while(|c| c * c <= p).filter(|c| p.is_multiple_of(*c)).last().unwrap_or(1);
        Grid { rows: p / cols, cols }
    }

    /// The process grid of `job.ranks` over an `n`×`n` `domain` (e.g. "grid"), or the
    /// input error `app` reports when its longer side has more processes than points.
    pub fn fitting(app: &str, job: &Job<'_>, n: usize, domain: &str) -> Result<Grid> {
        let grid = Grid::for_ranks(job.ranks);
        if grid.rows as usize > n {
            return Err(input_err!(
                "{app}: {} ranks form a {}x{} process grid (the most square factorisation), which does not fit the \
                 {n}x{n} {domain} of size {}; accepted: rank counts whose most square factorisation has both sides at \
                 most {n}",
                job.ranks,
                grid.rows,
                grid.cols,
                job.size
            ));
        }
        Ok(grid)
    }

    /// Messages of one halo exchange: two per pair of adjacent blocks.
    pub fn messages_per_iteration(&self) -> u64 {
        let (r, c) = (u64::from(self.rows), u64::from(self.cols));
        2 * ((r - 1) * c + r * (c - 1))
    }
}

/// Points `[start, end)` of part `i` when `n` points are split into `parts`.
pub fn span(n: usize, parts: u32, i: u32) -> (usize, usize) {
    let (parts, i) = (parts as usize, i as usize);
    (i * n / parts, (i + 1) * n / parts)
}

/// One point's update: 4 additions, 1 multiplication.
#[inline(always)]
fn update(up: f64, down: f64, left: f64, right: f64, b: f64) -> f64 {
    0.25 * (up + down + left + right + b)
}

/// One Jacobi sweep over the h×w interior of `u` (stored with a ghost ring, row
/// stride w + 2) into `next`; `b` is h×w.
pub fn sweep(u: &[f64], next: &mut [f64], b: &[f64], h: usize, w: usize) {
    let s = w + 2;
    for i in 1..=h {
        for j in 1..=w {
            let k = i * s + j;
            next[k] = update(u[k - s], u[k + s], u[k - 1], u[k + 1], b[(i - 1) * w + j - 1]);
        }
    }
}

/// A block of the grid: rows `r0..r0+h`, columns `c0..c0+w`, with its ghost ring.
struct Block {
    r0: usize,
    c0: usize,
    h: usize,
    w: usize,
    u: Vec<f64>,
    b: Vec<f64>,
}

impl Block {
    fn generate(cfg: &Config, rows: (usize, usize), cols: (usize, usize)) -> Block {
        let (r0, c0, h, w) = (rows.0, cols.0, rows.1 - rows.0, cols.1 - cols.0);
        let s = w + 2;
        let mut u = vec![0.0; (h + 2) * s];
        let mut b = vec![0.0; h * w];
        for i in 0..h {
            let at = ((r0 + i) * cfg.n + c0) as u64;
            u[(i + 1) * s + 1..][..w].copy_from_slice(&unit_f64s_at(cfg.seed, U0, at, w));
            b[i * w..][..w].copy_from_slice(&unit_f64s_at(cfg.seed, RHS, at, w));
        }
        Block { r0, c0, h, w, u, b }
    }

    fn row(&self, i: usize) -> Vec<f64> {
        self.u[i * (self.w + 2) + 1..][..self.w].to_vec()
    }

    fn col(&self, j: usize) -> Vec<f64> {
        (1..=self.h).map(|i| self.u[i * (self.w + 2) + j]).collect()
    }

    fn set(&mut self, ghost: Ghost, values: &[f64]) {
        let s = self.w + 2;
        match ghost {
            Ghost::Row(i) => self.u[i * s + 1..][..self.w].copy_from_slice(values),
            Ghost::Col(j) => (1..=self.h).zip(values).for_each(|(i, &v)| self.u[i * s + j] = v),
        }
    }
}

/// A row or column of a block's array (with its ghost ring): a ghost to fill, or an
/// edge to send.
#[derive(Clone, Copy)]
enum Ghost {
    Row(usize),
    Col(usize),
}

/// The serial Jacobi on the whole grid, with its ghost ring (stride n + 2).
fn serial(cfg: &Config) -> Vec<f64> {
    let mut grid = Block::generate(cfg, (0, cfg.n), (0, cfg.n));
    let mut next = vec![0.0; grid.u.len()];
    for _ in 0..cfg.iters {
        sweep(&grid.u, &mut next, &grid.b, cfg.n, cfg.n);
        std::mem::swap(&mut grid.u, &mut next);
    }
    grid.u
}

thread_local! {
    /// The last serial reference computed on this thread, by (n, iterations, seed).
    static REFERENCE: RefCell<Option<(Config, Rc<Vec<f64>>)>> = const { RefCell::new(None) };
}

/// The serial reference for `cfg`, computed once per thread.
fn reference(cfg: &Config) -> Rc<Vec<f64>> {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((key, grid)) if key == cfg => grid.clone(),
            _ => {
                let grid = Rc::new(serial(cfg));
                *cache = Some((*cfg, grid.clone()));
                grid
            }
        }
    })
}

/// Neighbour ranks, where they exist.
struct Neighbours {
    north: Option<u32>,
    south: Option<u32>,
    west: Option<u32>,
    east: Option<u32>,
}

/// Swap edges with every neighbour: receives posted first, then sends, then wait for all.
async fn exchange<R: Rank>(
    r: &R,
    comm: &Communicator,
    nb: &Neighbours,
    blk: &mut Block,
) -> std::result::Result<(), String> {
    let mut reqs = Vec::with_capacity(8);
    let mut into = Vec::with_capacity(4);
    // (neighbour, tag its edge travels with, where it lands)
    let incoming = [
        (nb.north, SOUTH, Ghost::Row(0)),
        (nb.south, NORTH, Ghost::Row(blk.h + 1)),
        (nb.west, EAST, Ghost::Col(0)),
        (nb.east, WEST, Ghost::Col(blk.w + 1)),
    ];
    for (peer, tag, ghost) in incoming {
        if let Some(p) = peer {
            reqs.push(r.irecv(comm, p as i32, tag));
            into.push((ghost, if matches!(ghost, Ghost::Row(_)) { blk.w } else { blk.h }));
        }
    }
    let outgoing = [
        (nb.north, NORTH, Ghost::Row(1)),
        (nb.south, SOUTH, Ghost::Row(blk.h)),
        (nb.west, WEST, Ghost::Col(1)),
        (nb.east, EAST, Ghost::Col(blk.w)),
    ];
    for (peer, tag, edge) in outgoing {
        if let Some(p) = peer {
            let values = match edge {
                Ghost::Row(i) => blk.row(i),
                Ghost::Col(j) => blk.col(j),
            };
            reqs.push(r.isend(comm, p, tag, encode(&values)));
        }
    }
    let got = r.wait_all(reqs).await;
    for (m, (ghost, len)) in got.iter().zip(into) {
        if m.data.len() != 8 * len {
            return Err(format!("a halo from rank {} has {} bytes, expected {}", m.source, m.data.len(), 8 * len));
        }
        let values: Vec<f64> = decode(&m.data);
        blk.set(ghost, &values);
    }
    Ok(())
}

/// The program.
pub async fn stencil<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let grid = Grid::for_ranks(r.size());
    let me = r.rank();
    let (pr, pc) = (me / grid.cols, me % grid.cols);
    let mut blk = Block::generate(&cfg, span(cfg.n, grid.rows, pr), span(cfg.n, grid.cols, pc));
    let nb = Neighbours {
        north: (pr > 0).then(|| me - grid.cols),
        south: (pr + 1 < grid.rows).then(|| me + grid.cols),
        west: (pc > 0).then(|| me - 1),
        east: (pc + 1 < grid.cols).then(|| me + 1),
    };
    let cost = FLOPS_PER_POINT * PS_PER_FLOP * (blk.h * blk.w) as Time;
    let mut next = vec![0.0; blk.u.len()];
    for _ in 0..cfg.iters {
        r.phase("halo");
        exchange(&r, &comm, &nb, &mut blk).await?;
        r.phase("compute");
        r.work(cost, || sweep(&blk.u, &mut next, &blk.b, blk.h, blk.w)).await;
        std::mem::swap(&mut blk.u, &mut next);
    }
    verify(&cfg, &blk)
}

/// Compare the block with the serial reference, value for value.
fn verify(cfg: &Config, blk: &Block) -> std::result::Result<(), String> {
    let want = reference(cfg);
    let (s, rs) = (blk.w + 2, cfg.n + 2);
    for i in 0..blk.h {
        for j in 0..blk.w {
            let got = blk.u[(i + 1) * s + j + 1];
            let expected = want[(blk.r0 + i + 1) * rs + blk.c0 + j + 1];
            if got.to_bits() != expected.to_bits() {
                return Err(format!(
                    "grid point ({}, {}) is {got} after {} iterations; the serial reference has {expected}",
                    blk.r0 + i,
                    blk.c0 + j,
                    cfg.iters
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    Grid::fitting("stencil", job, cfg.n, "grid")?;
    backend.run(job.platform, move |r| stencil(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_square_process_grids() {
        let g = |p| {
            let g = Grid::for_ranks(p);
            (g.rows, g.cols)
        };
        assert_eq!(
            [g(1), g(2), g(3), g(4), g(8), g(12), g(16), g(37)],
            [(1, 1), (2, 1), (3, 1), (2, 2), (4, 2), (4, 3), (4, 4), (37, 1)]
        );
    }

    #[test]
    fn spans_cover_the_grid_evenly() {
        assert_eq!([span(32, 3, 0), span(32, 3, 1), span(32, 3, 2)], [(0, 10), (10, 21), (21, 32)]);
    }

    #[test]
    fn one_sweep_by_hand() {
        // A 1×1 interior with neighbours 1, 2, 3, 4 and b = 2: (1+2+3+4+2)/4 = 3.
        let u = [0.0, 1.0, 0.0, 3.0, 9.0, 4.0, 0.0, 2.0, 0.0];
        let mut next = [0.0; 9];
        sweep(&u, &mut next, &[2.0], 1, 1);
        assert_eq!(next[4], 3.0);
    }

    #[test]
    fn verification_catches_a_wrong_value() {
        // With 0 iterations the reference is the initial grid: a block of it passes,
        // and the same block with one value changed fails, naming the point.
        let cfg = Config { n: 8, iters: 0, seed: 3 };
        let mut blk = Block::generate(&cfg, (2, 6), (4, 8));
        assert_eq!(verify(&cfg, &blk), Ok(()));
        blk.u[2 * 6 + 3] += 1e-12;
        let err = verify(&cfg, &blk).unwrap_err();
        assert!(err.starts_with("grid point (3, 6) is "), "{err}");
    }
}
