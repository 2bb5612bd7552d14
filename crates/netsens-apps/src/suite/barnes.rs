//! Barnes: Barnes–Hut n-body simulation on a shared octree that is spread over the
//! ranks, as the Split-C Barnes of Martin et al. (ISCA'97) runs it: a rank computes the
//! forces on its own bodies by walking the whole tree, and reads every cell and body it
//! needs from another rank with a blocking `get` (a round trip), through a software
//! cache so that each is read at most once per time step.
//!
//! **Bodies**: a Plummer sphere of N bodies of mass 1/N in standard units (Aarseth,
//! Hénon and Wielen 1974, as SPLASH's Barnes generates it), drawn in order from stream
//! 0 of the seed with square roots only (a radius from the maximum of three uniform
//! draws, directions by rejection from the cube), so the input is bit-identical on
//! every machine. Gravitational constant 1, softening ε = 0.05, time step dt = 0.025
//! (SPLASH's values), each step a kick then a drift (symplectic Euler).
//!
//! **Distribution**: the bodies in Morton (Z-curve) order of their bounding cube, cut
//! into P equal blocks (⌊rN/P⌋ .. ⌊(r+1)N/P⌋ for rank r): each rank holds a compact
//! piece of space, as costzones would give it. Every rank derives the cut alike from
//! the generated input (as if reading a partitioned input file); it is not charged.
//! Bodies stay with their rank for the whole run. Any rank count works; with more ranks
//! than bodies some ranks hold none.
//!
//! **Tree**: the global octree is the forest of the ranks' octrees, each over one
//! rank's bodies in that rank's own bounding cube: a cell with more than [`LEAF`] = 8
//! bodies (SPLASH-2's leaves hold several) is split into its non-empty octants, at most
//! 21 levels deep. A rank rebuilds its tree every step and lays it out in its window:
//! its bodies in tree order ([`BODY_BYTES`] = 32 each: position and mass), then its
//! cells in breadth-first order ([`CELL_BYTES`] = 56 each: centre of mass, mass, the
//! opening radius², and the range of its children or, for a leaf, of its bodies). The
//! root is cell 0, and every rank knows how many bodies each rank holds, so a remote
//! cell or body is one fixed-size `get` at a known offset.
//!
//! **Forces**: for each of its bodies a rank walks the trees of ranks r, r+1, …, r−1
//! (its own first), depth first, children in order. A cell whose centre of mass is at
//! distance d ≥ r_crit from the body interacts as a point mass; otherwise its children
//! are visited, or, for a leaf, each of its bodies interacts. r_crit = s/θ + δ (s the
//! cell's side, δ the distance from its geometric centre to its centre of mass: Barnes'
//! "bmax" criterion, which keeps the error bounded when the mass sits off centre), with
//! θ = 0.7; θ = 0 opens every cell (the direct sum, in tree order).
//!
//! **Software cache**: a rank keeps every remote cell and body it has read, in a table
//! per owner indexed by cell or body number (they are dense, so nothing is evicted),
//! until the end of the step, when the trees are rebuilt. A hit costs no message and no
//! extra time; a miss is one `get`. Every remote access counts `cache_hit` or
//! `cache_miss`, so `cache_miss` equals `get`. [`Config::cache`] = false (tests) reads
//! on every access.
//!
//! **Step** (phases): `build` (sort, build the tree, write it into the window), a
//! barrier (every tree is published before anyone reads), `force`, a barrier (every
//! read of this step's trees is done before anyone rebuilds), `update` (kick, drift).
//!
//! **Communication**: per step and rank, one get (a 1-byte request, a 56- or 32-byte
//! reply) per distinct remote cell or body its walks visit, and two barriers; nothing
//! else. Far ranks' trees are read only near their roots, near ones down to bodies.
//!
//! **Cost model** (the suite's 1 ns per flop; round figures, assumptions rather than
//! measurements, scaled by the platform's CPU speed): an interaction (body with body or
//! with a cell's centre of mass: a difference, a squared distance with softening, a
//! square root and a division, three multiply-adds; about 20 flops plus loading the
//! record) costs [`INTERACT_PS`] = 30 ns; visiting a cell (the opening test, about 8
//! flops and a branch) [`OPEN_PS`] = 10 ns; building a tree of n bodies n·([`KEY_PS`] =
//! 20 ns for its Morton key + ⌈log2 n⌉·[`SORT_PS`] = 5 ns of sorting) plus [`CELL_PS`]
//! = 40 ns per cell (centre of mass and opening radius); the update (kick and drift)
//! [`UPDATE_PS`] = 10 ns per body (12 flops). The force walk charges its cost as it
//! goes, with `compute` before each remote read (the cost of a stretch is known only
//! once it has run), so a run that measures compute still charges the model for the
//! walk.
//!
//! **Verification**: a serial run of the same simulation (the same forest, walked by
//! the same code over local data; computed once per thread for (input, P)) must give
//! every body's acceleration in the last step, and its final position and velocity, bit
//! for bit. And for a sample of 64 bodies spread over the input, the acceleration must
//! be within [`Config::tolerance`] of a direct O(N²) sum over all bodies at the same
//! positions: θ²/10, 4.9 % at θ = 0.7 (the errors of the monopole approximation with
//! the bmax criterion, measured over 128 bodies of the small input on 32 ranks: median
//! 0.5 %, largest 2.0 % at θ = 0.7; 0.2 % and 1.0 % at θ = 0.5; 1.2 % and 4.3 % at
//! θ = 1).
//!
//! **Sizes** (bodies, steps; θ = 0.7 throughout): tiny 256, 2; small 4096, 2; paper
//! 32768, 2. The seeds at hand state no input for Barnes; 32 K bodies lies between
//! SPLASH-2's base input (16 K) and the 64 K of the wide-area suite's Barnes–Hut, at
//! two steps so that a run with its serial reference stays near ten seconds.

use super::ready;
use crate::data::{stream, unit_f64};
use crate::registry::{App, Backend, Job, Size};
use netsens_core::program::collectives::barrier;
use netsens_core::program::Rank;
use netsens_core::time::Time;
use netsens_core::Result;
use rand_chacha::ChaCha12Rng;
use std::cell::RefCell;
use std::rc::Rc;

pub const APP: App = App {
    name: "barnes",
    description: "Barnes-Hut n-body on an octree spread over the ranks; remote cells and bodies read with blocking gets through a software cache",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per interaction (body–body or body–cell): 30 ns, before CPU-speed scaling.
pub const INTERACT_PS: Time = 30_000;
/// Charge per cell visited (the opening test): 10 ns.
pub const OPEN_PS: Time = 10_000;
/// Charge per body for its Morton key: 20 ns.
pub const KEY_PS: Time = 20_000;
/// Charge per body and level of the sort: 5 ns.
pub const SORT_PS: Time = 5_000;
/// Charge per cell built (centre of mass, opening radius): 40 ns.
pub const CELL_PS: Time = 40_000;
/// Charge per body updated (kick and drift): 10 ns.
pub const UPDATE_PS: Time = 10_000;

/// Most bodies in a leaf cell.
pub const LEAF: usize = 8;
/// Levels of the octree (bits of each coordinate in a Morton key).
const LEVELS: u32 = 21;
/// Bytes of a cell in a window.
pub const CELL_BYTES: usize = 56;
/// Bytes of a body in a window.
pub const BODY_BYTES: usize = 32;
/// Bodies whose acceleration is checked against the direct sum.
pub const SAMPLES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub bodies: usize,
    pub steps: u32,
    /// Opening angle θ (0 ≤ θ ≤ 1).
    pub theta: f64,
    /// Softening length ε.
    pub eps: f64,
    /// Time step.
    pub dt: f64,
    /// Keep what was read (false: read on every access; for tests).
    pub cache: bool,
    pub seed: u64,
}

impl Config {
    /// tiny: 256 bodies; small: 4096; paper: 32768; two steps each, θ = 0.7.
    pub fn preset(size: Size, seed: u64) -> Config {
        let bodies = match size {
            Size::Tiny => 256,
            Size::Small => 4096,
            Size::Paper => 32768,
        };
        Config { bodies, steps: 2, theta: 0.7, eps: 0.05, dt: 0.025, cache: true, seed }
    }

    /// The largest relative error of one acceleration against the direct sum: θ²/10
    /// (4.9 % at θ = 0.7), and rounding only (1e-9) at θ = 0.
    pub fn tolerance(&self) -> f64 {
        if self.theta == 0.0 {
            1e-9
        } else {
            0.1 * self.theta * self.theta
        }
    }

    /// The same input and simulation, whatever the cache does.
    fn problem_key(&self) -> Config {
        Config { cache: true, ..*self }
    }
}

/// A body of the simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    pub id: u32,
    pub pos: [f64; 3],
    pub vel: [f64; 3],
    pub mass: f64,
}

/// A body as the tree holds it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Point {
    pub pos: [f64; 3],
    pub mass: f64,
}

/// A cell of a rank's octree.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cell {
    /// Centre of mass.
    pub com: [f64; 3],
    pub mass: f64,
    /// Opening radius squared: the cell is opened for a body nearer than that.
    pub rcrit2: f64,
    /// Children (cells `first .. first + count`) or, for a leaf, bodies.
    pub first: u32,
    pub count: u32,
    pub leaf: bool,
}

impl Point {
    fn encode(&self, out: &mut [u8]) {
        let words = [self.pos[0], self.pos[1], self.pos[2], self.mass];
        for (k, w) in words.iter().enumerate() {
            out[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
    }

    fn decode(b: &[u8]) -> Point {
        let f = |k: usize| f64::from_le_bytes(b[8 * k..8 * k + 8].try_into().expect("8 bytes"));
        Point { pos: [f(0), f(1), f(2)], mass: f(3) }
    }
}

impl Cell {
    fn encode(&self, out: &mut [u8]) {
        let words = [self.com[0], self.com[1], self.com[2], self.mass, self.rcrit2];
        for (k, w) in words.iter().enumerate() {
            out[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        out[40..44].copy_from_slice(&self.first.to_le_bytes());
        out[44..48].copy_from_slice(&self.count.to_le_bytes());
        out[48..52].copy_from_slice(&u32::from(self.leaf).to_le_bytes());
        out[52..56].fill(0);
    }

    fn decode(b: &[u8]) -> Cell {
        let f = |k: usize| f64::from_le_bytes(b[8 * k..8 * k + 8].try_into().expect("8 bytes"));
        let u = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        Cell { com: [f(0), f(1), f(2)], mass: f(3), rcrit2: f(4), first: u(40), count: u(44), leaf: u(48) != 0 }
    }
}

// ---- input -----------------------------------------------------------------------

/// A direction uniform on the unit sphere, by rejection from the cube.
fn direction(rng: &mut ChaCha12Rng) -> [f64; 3] {
    loop {
        let v = [0, 1, 2].map(|_| 2.0 * unit_f64(rng) - 1.0);
        let n2 = dot(v, v);
        if n2 > 1e-6 && n2 <= 1.0 {
            let n = n2.sqrt();
            return v.map(|x| x / n);
        }
    }
}

/// The N bodies of a Plummer sphere, in standard units, by id.
pub fn generate(cfg: &Config) -> Vec<Body> {
    let mut rng = stream(cfg.seed, 0);
    let rsc = 3.0 * std::f64::consts::PI / 16.0;
    let vsc = (1.0 / rsc).sqrt();
    let mass = 1.0 / cfg.bodies as f64;
    (0..cfg.bodies as u32)
        .map(|id| {
            // The enclosed mass fraction m is uniform; s = m^(1/3) is the largest of
            // three uniform draws; r = (m^(-2/3) − 1)^(-1/2) = s / √(1 − s²).
            let r = loop {
                let s = (0..3).map(|_| unit_f64(&mut rng)).fold(0.0, f64::max);
                let r = s / (1.0 - s * s).sqrt();
                if r < 9.0 {
                    break r;
                }
            };
            let pos = direction(&mut rng).map(|x| rsc * r * x);
            // Speed as a fraction q of the escape speed: density q²(1 − q²)^(7/2).
            let q = loop {
                let (x, y) = (unit_f64(&mut rng), 0.1 * unit_f64(&mut rng));
                let w = 1.0 - x * x;
                if y <= x * x * w * w * w * w.sqrt() {
                    break x;
                }
            };
            let speed = q * std::f64::consts::SQRT_2 / (1.0 + r * r).sqrt().sqrt();
            let vel = direction(&mut rng).map(|x| vsc * speed * x);
            Body { id, pos, vel, mass }
        })
        .collect()
}

/// The Morton key of `p` in the cube of corner `lo` and side `side`: 21 bits per
/// coordinate, interleaved x, y, z from the top.
fn morton(p: [f64; 3], lo: [f64; 3], side: f64) -> u64 {
    let scale = (1u64 << LEVELS) as f64 / side;
    let spread = |v: f64| {
        let mut x = (((v * scale) as i64).clamp(0, (1 << LEVELS) - 1)) as u64;
        x = (x | (x << 32)) & 0x1f00000000ffff;
        x = (x | (x << 16)) & 0x1f0000ff0000ff;
        x = (x | (x << 8)) & 0x100f00f00f00f00f;
        x = (x | (x << 4)) & 0x10c30c30c30c30c3;
        (x | (x << 2)) & 0x1249249249249249
    };
    spread(p[0] - lo[0]) << 2 | spread(p[1] - lo[1]) << 1 | spread(p[2] - lo[2])
}

/// Corner and side of the cube around `bodies` (side 1 if they are all one point).
fn bounding_cube(bodies: &[Body]) -> ([f64; 3], f64) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for b in bodies {
        for k in 0..3 {
            lo[k] = lo[k].min(b.pos[k]);
            hi[k] = hi[k].max(b.pos[k]);
        }
    }
    let side = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    (lo, if side > 0.0 { side } else { 1.0 })
}

/// Sort `bodies` by Morton key in their cube (ties by id); the keys, in that order.
fn sort_by_key(bodies: &mut [Body]) -> Vec<u64> {
    let (lo, side) = bounding_cube(bodies);
    let mut keyed: Vec<(u64, Body)> = bodies.iter().map(|b| (morton(b.pos, lo, side), *b)).collect();
    keyed.sort_by_key(|&(k, b)| (k, b.id));
    for (slot, (_, b)) in bodies.iter_mut().zip(&keyed) {
        *slot = *b;
    }
    keyed.into_iter().map(|(k, _)| k).collect()
}

/// Every rank's bodies at the start: the Morton order of all bodies cut into equal blocks.
pub fn partition(cfg: &Config, ranks: u32) -> Vec<Vec<Body>> {
    let mut all = generate(cfg);
    sort_by_key(&mut all);
    let n = all.len();
    let p = ranks as usize;
    (0..p).map(|r| all[r * n / p..(r + 1) * n / p].to_vec()).collect()
}

// ---- the tree --------------------------------------------------------------------

/// One rank's octree: its bodies in tree order and its cells, root first.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    pub cells: Vec<Cell>,
    pub bodies: Vec<Point>,
}

impl Tree {
    /// Bytes of the tree in a window: bodies, then cells.
    pub fn bytes(&self) -> usize {
        self.bodies.len() * BODY_BYTES + self.cells.len() * CELL_BYTES
    }

    fn write(&self, w: &mut [u8]) {
        for (b, out) in self.bodies.iter().zip(w.chunks_exact_mut(BODY_BYTES)) {
            b.encode(out);
        }
        let cells = &mut w[self.bodies.len() * BODY_BYTES..];
        for (c, out) in self.cells.iter().zip(cells.chunks_exact_mut(CELL_BYTES)) {
            c.encode(out);
        }
    }
}

/// Where cell `index` of a rank holding `bodies` bodies lies in its window.
pub fn cell_offset(bodies: usize, index: u32) -> usize {
    bodies * BODY_BYTES + index as usize * CELL_BYTES
}

/// Where body `index` lies in its rank's window.
pub fn body_offset(index: u32) -> usize {
    index as usize * BODY_BYTES
}

/// Sort `bodies` into tree order and build their octree with opening angle `theta`.
pub fn build(bodies: &mut [Body], theta: f64) -> Tree {
    let n = bodies.len();
    if n == 0 {
        return Tree { cells: vec![Cell { leaf: true, ..Cell::default() }], bodies: Vec::new() };
    }
    let (lo, side) = bounding_cube(bodies);
    let keys = sort_by_key(bodies);
    // Breadth first: a cell's body range, depth and key prefix (its place in the cube).
    let mut cells = vec![Cell::default()];
    let mut meta = vec![(0usize, n, 0u32, 0u64)];
    let mut i = 0;
    while i < cells.len() {
        let (a, b, depth, prefix) = meta[i];
        if b - a <= LEAF || depth == LEVELS {
            cells[i] = Cell { leaf: true, first: a as u32, count: (b - a) as u32, ..Cell::default() };
        } else {
            let shift = 3 * (LEVELS - 1 - depth);
            let first = cells.len();
            let mut s = a;
            while s < b {
                let octant = (keys[s] >> shift) & 7;
                let e = s + keys[s..b].partition_point(|k| (k >> shift) & 7 == octant);
                cells.push(Cell::default());
                meta.push((s, e, depth + 1, prefix << 3 | octant));
                s = e;
            }
            cells[i] =
                Cell { leaf: false, first: first as u32, count: (cells.len() - first) as u32, ..Cell::default() };
        }
        i += 1;
    }
    // Masses and centres of mass bottom up (children come after their parent).
    let points: Vec<Point> = bodies.iter().map(|b| Point { pos: b.pos, mass: b.mass }).collect();
    for i in (0..cells.len()).rev() {
        let c = cells[i];
        let (mut m, mut mx) = (0.0, [0.0; 3]);
        let mut add = |mass: f64, at: [f64; 3]| {
            m += mass;
            for k in 0..3 {
                mx[k] += mass * at[k];
            }
        };
        let range = c.first as usize..(c.first + c.count) as usize;
        if c.leaf {
            points[range].iter().for_each(|p| add(p.mass, p.pos));
        } else {
            cells[range].iter().for_each(|ch| add(ch.mass, ch.com));
        }
        let com = mx.map(|x| x / m);
        // The geometric centre from the key prefix: depth bits per coordinate.
        let (_, _, depth, prefix) = meta[i];
        let s = side / (1u64 << depth) as f64;
        let coord = |axis: u32| (0..depth).fold(0u64, |acc, l| acc | ((prefix >> (3 * l + 2 - axis)) & 1) << l);
        let centre = [0, 1, 2].map(|k| lo[k] + (coord(k as u32) as f64 + 0.5) * s);
        let delta = dot(sub(com, centre), sub(com, centre)).sqrt();
        let rcrit = s / theta + delta;
        cells[i] = Cell { com, mass: m, rcrit2: rcrit * rcrit, ..c };
    }
    Tree { cells, bodies: points }
}

/// Cost of building a tree of `n` bodies and `cells` cells.
pub fn build_cost(n: usize, cells: usize) -> Time {
    let levels = n.max(1).next_power_of_two().trailing_zeros() as Time;
    n as Time * (KEY_PS + levels * SORT_PS) + cells as Time * CELL_PS
}

// ---- forces ----------------------------------------------------------------------

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Add the pull of `mass` at offset `d` from the body (softened by ε²).
#[inline]
fn interact(acc: &mut [f64; 3], d: [f64; 3], mass: f64, eps2: f64) {
    let r2 = dot(d, d) + eps2;
    let f = mass / (r2 * r2.sqrt());
    for k in 0..3 {
        acc[k] += f * d[k];
    }
}

/// The forest as the force walk sees it: any rank's cells and bodies, at hand (this
/// rank's own, or cached) or fetched.
#[allow(async_fn_in_trait)]
pub trait Forest {
    /// Cell `index` of rank `owner`'s tree, if at hand.
    fn cell(&mut self, owner: u32, index: u32) -> Option<Cell>;
    /// Read cell `index` of rank `owner`'s tree (it is not at hand).
    async fn fetch_cell(&mut self, owner: u32, index: u32) -> Cell;
    /// Body `index` (in tree order) of rank `owner`, if at hand.
    fn body(&mut self, owner: u32, index: u32) -> Option<Point>;
    /// Read body `index` of rank `owner` (it is not at hand).
    async fn fetch_body(&mut self, owner: u32, index: u32) -> Point;
    /// Charge `cost` of computation done.
    fn charge(&mut self, cost: Time);
}

/// The acceleration of body `index` of rank `owner`, at `pos`: the trees of ranks
/// owner, owner+1, … walked depth first.
pub async fn accel<F: Forest>(
    f: &mut F,
    ranks: u32,
    owner: u32,
    index: u32,
    pos: [f64; 3],
    eps2: f64,
    stack: &mut Vec<u32>,
) -> [f64; 3] {
    let mut acc = [0.0; 3];
    for k in 0..ranks {
        let t = (owner + k) % ranks;
        stack.clear();
        stack.push(0);
        while let Some(c) = stack.pop() {
            let cell = match f.cell(t, c) {
                Some(cell) => cell,
                None => f.fetch_cell(t, c).await,
            };
            f.charge(OPEN_PS);
            if cell.mass == 0.0 {
                continue;
            }
            let d = sub(cell.com, pos);
            if dot(d, d) >= cell.rcrit2 {
                interact(&mut acc, d, cell.mass, eps2);
                f.charge(INTERACT_PS);
            } else if cell.leaf {
                for j in cell.first..cell.first + cell.count {
                    if t == owner && j == index {
                        continue;
                    }
                    let b = match f.body(t, j) {
                        Some(b) => b,
                        None => f.fetch_body(t, j).await,
                    };
                    interact(&mut acc, sub(b.pos, pos), b.mass, eps2);
                    f.charge(INTERACT_PS);
                }
            } else {
                stack.extend((cell.first..cell.first + cell.count).rev());
            }
        }
    }
    acc
}

/// Every rank's tree in one process (the serial reference).
struct Local<'a>(&'a [Tree]);

impl Forest for Local<'_> {
    fn cell(&mut self, owner: u32, index: u32) -> Option<Cell> {
        Some(self.0[owner as usize].cells[index as usize])
    }

    async fn fetch_cell(&mut self, _: u32, _: u32) -> Cell {
        unreachable!("every cell is at hand")
    }

    fn body(&mut self, owner: u32, index: u32) -> Option<Point> {
        Some(self.0[owner as usize].bodies[index as usize])
    }

    async fn fetch_body(&mut self, _: u32, _: u32) -> Point {
        unreachable!("every body is at hand")
    }

    fn charge(&mut self, _: Time) {}
}

/// What a rank has read of another rank's tree this step.
#[derive(Default)]
struct Mirror {
    cells: Vec<Option<Cell>>,
    bodies: Vec<Option<Point>>,
}

/// A rank's view in a run: its own tree, and the others' through gets and the cache.
struct Remote<'a, R: Rank> {
    r: &'a R,
    me: u32,
    tree: &'a Tree,
    /// Bodies held by each rank.
    sizes: &'a [usize],
    cache: Vec<Mirror>,
    enabled: bool,
    /// Computation done but not charged yet.
    pending: Time,
}

impl<R: Rank> Remote<'_, R> {
    async fn flush(&mut self) {
        if self.pending > 0 {
            let cost = std::mem::take(&mut self.pending);
            self.r.compute(cost).await;
        }
    }

    /// A miss: charge the work so far, then read.
    async fn read(&mut self, owner: u32, offset: usize, len: usize) -> Vec<u8> {
        self.r.count("cache_miss");
        self.flush().await;
        self.r.get(owner, offset, len).await
    }
}

impl<R: Rank> Forest for Remote<'_, R> {
    fn cell(&mut self, owner: u32, index: u32) -> Option<Cell> {
        if owner == self.me {
            return Some(self.tree.cells[index as usize]);
        }
        let c = self.cache[owner as usize].cells.get(index as usize).copied().flatten();
        if c.is_some() {
            self.r.count("cache_hit");
        }
        c
    }

    async fn fetch_cell(&mut self, owner: u32, index: u32) -> Cell {
        let bytes = self.read(owner, cell_offset(self.sizes[owner as usize], index), CELL_BYTES).await;
        let c = Cell::decode(&bytes);
        if self.enabled {
            let (m, i) = (&mut self.cache[owner as usize].cells, index as usize);
            if m.len() <= i {
                m.resize(i + 1, None);
            }
            m[i] = Some(c);
        }
        c
    }

    fn body(&mut self, owner: u32, index: u32) -> Option<Point> {
        if owner == self.me {
            return Some(self.tree.bodies[index as usize]);
        }
        let b = self.cache[owner as usize].bodies.get(index as usize).copied().flatten();
        if b.is_some() {
            self.r.count("cache_hit");
        }
        b
    }

    async fn fetch_body(&mut self, owner: u32, index: u32) -> Point {
        let bytes = self.read(owner, body_offset(index), BODY_BYTES).await;
        let b = Point::decode(&bytes);
        if self.enabled {
            let m = &mut self.cache[owner as usize].bodies;
            if m.is_empty() {
                m.resize(self.sizes[owner as usize], None);
            }
            m[index as usize] = Some(b);
        }
        b
    }

    fn charge(&mut self, cost: Time) {
        self.pending += cost;
    }
}

/// One step of `bodies` with their accelerations: kick, then drift.
fn update(bodies: &mut [Body], accs: &[[f64; 3]], dt: f64) {
    for (b, a) in bodies.iter_mut().zip(accs) {
        for ((v, x), a) in b.vel.iter_mut().zip(&mut b.pos).zip(a) {
            *v += a * dt;
            *x += *v * dt;
        }
    }
}

// ---- the serial reference --------------------------------------------------------

/// The initial distribution and the serial run, by body id.
pub struct Problem {
    pub initial: Vec<Vec<Body>>,
    /// Every body at the end.
    pub last: Vec<Body>,
    /// Positions at the last force computation.
    pub last_pos: Vec<[f64; 3]>,
    /// Accelerations of the last step.
    pub last_acc: Vec<[f64; 3]>,
}

fn serial(cfg: &Config, ranks: u32) -> Problem {
    let initial = partition(cfg, ranks);
    let mut parts = initial.clone();
    let n = cfg.bodies;
    let (mut last_pos, mut last_acc) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut stack = Vec::new();
    for _ in 0..cfg.steps {
        let trees: Vec<Tree> = parts.iter_mut().map(|p| build(p, cfg.theta)).collect();
        for (owner, part) in parts.iter_mut().enumerate() {
            let accs: Vec<[f64; 3]> = part
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut f = Local(&trees);
                    ready(accel(&mut f, ranks, owner as u32, i as u32, b.pos, cfg.eps * cfg.eps, &mut stack))
                })
                .collect();
            for (b, a) in part.iter().zip(&accs) {
                last_pos[b.id as usize] = b.pos;
                last_acc[b.id as usize] = *a;
            }
            update(part, &accs, cfg.dt);
        }
    }
    let mut last: Vec<Body> = parts.into_iter().flatten().collect();
    last.sort_by_key(|b| b.id);
    Problem { initial, last, last_pos, last_acc }
}

type Cached = ((Config, u32), Rc<Problem>);

thread_local! {
    /// The last problem computed on this thread, by (config, ranks).
    static PROBLEM: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// The input and serial run for `cfg` on `ranks` ranks, computed once per thread.
pub fn problem(cfg: &Config, ranks: u32) -> Rc<Problem> {
    let key = (cfg.problem_key(), ranks);
    PROBLEM.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((k, p)) if *k == key => p.clone(),
            _ => {
                let p = Rc::new(serial(cfg, ranks));
                *cache = Some((key, p.clone()));
                p
            }
        }
    })
}

/// The acceleration of body `id` by direct summation over `pos` (all bodies).
pub fn direct(cfg: &Config, pos: &[[f64; 3]], id: usize) -> [f64; 3] {
    let mass = 1.0 / cfg.bodies as f64;
    let mut acc = [0.0; 3];
    for (j, p) in pos.iter().enumerate() {
        if j != id {
            interact(&mut acc, sub(*p, pos[id]), mass, cfg.eps * cfg.eps);
        }
    }
    acc
}

/// Relative error of `got` against `want`.
fn relative_error(got: [f64; 3], want: [f64; 3]) -> f64 {
    let d = sub(got, want);
    (dot(d, d) / dot(want, want)).sqrt()
}

/// Check a rank's bodies (after the last step) and their last accelerations.
fn verify(
    cfg: &Config,
    want: &Problem,
    me: u32,
    bodies: &[Body],
    accs: &[[f64; 3]],
) -> std::result::Result<(), String> {
    let bits = |v: [f64; 3]| v.map(f64::to_bits);
    for (b, a) in bodies.iter().zip(accs) {
        let id = b.id as usize;
        let (w, wa) = (want.last[id], want.last_acc[id]);
        if bits(*a) != bits(wa) {
            return Err(format!(
                "body {id} (rank {me}) has acceleration {a:?} in step {}; the serial run has {wa:?}",
                cfg.steps
            ));
        }
        if bits(b.pos) != bits(w.pos) || bits(b.vel) != bits(w.vel) {
            return Err(format!(
                "body {id} (rank {me}) ends at {:?} with velocity {:?}; the serial run has {:?}, {:?}",
                b.pos, b.vel, w.pos, w.vel
            ));
        }
    }
    let stride = (cfg.bodies / SAMPLES).max(1);
    for (b, a) in bodies.iter().zip(accs).filter(|(b, _)| (b.id as usize).is_multiple_of(stride)) {
        let exact = direct(cfg, &want.last_pos, b.id as usize);
        let err = relative_error(*a, exact);
        if err.is_nan() || err > cfg.tolerance() {
            return Err(format!(
                "body {} (rank {me}): the tree gives acceleration {a:?}, the direct sum {exact:?}: relative error {err:.3e} > {:.1e} (θ = {})",
                b.id,
                cfg.tolerance(),
                cfg.theta
            ));
        }
    }
    Ok(())
}

// ---- the program -----------------------------------------------------------------

/// The program.
pub async fn barnes<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (world, ranks, me) = (r.world(), r.size(), r.rank());
    let want = problem(&cfg, ranks);
    let sizes: Vec<usize> = want.initial.iter().map(Vec::len).collect();
    let mut bodies = want.initial[me as usize].clone();
    let n = bodies.len();
    let (mut accs, mut stack) = (Vec::with_capacity(n), Vec::new());
    for _ in 0..cfg.steps {
        r.phase("build");
        let tree = r.work(build_cost(n, 0), || build(&mut bodies, cfg.theta)).await;
        r.compute(build_cost(0, tree.cells.len())).await;
        r.expose(tree.bytes());
        r.window(|w| tree.write(w));
        barrier(&r, &world).await;
        r.phase("force");
        let mut forest = Remote {
            r: &r,
            me,
            tree: &tree,
            sizes: &sizes,
            cache: (0..ranks).map(|_| Mirror::default()).collect(),
            enabled: cfg.cache,
            pending: 0,
        };
        accs.clear();
        for (i, b) in bodies.iter().enumerate() {
            accs.push(accel(&mut forest, ranks, me, i as u32, b.pos, cfg.eps * cfg.eps, &mut stack).await);
        }
        forest.flush().await;
        barrier(&r, &world).await;
        r.phase("update");
        r.work(UPDATE_PS * n as Time, || update(&mut bodies, &accs, cfg.dt)).await;
    }
    r.phase("verify");
    verify(&cfg, &want, me, &bodies, &accs)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| barnes(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_keys_interleave_x_y_z() {
        // x = 1, y = 0, z = 0 in the lowest bit: key bit 2; x's top bit is key bit 62.
        let lo = [0.0; 3];
        let side = (1u64 << LEVELS) as f64;
        assert_eq!(morton([1.0, 0.0, 0.0], lo, side), 0b100);
        assert_eq!(morton([0.0, 1.0, 1.0], lo, side), 0b011);
        assert_eq!(morton([side - 1.0, 0.0, 0.0], lo, side), 0x4924924924924924);
    }

    #[test]
    fn cells_round_trip_their_bytes() {
        let c = Cell { com: [1.0, -2.0, 0.5], mass: 3.0, rcrit2: 0.25, first: 7, count: 3, leaf: true };
        let mut b = [0u8; CELL_BYTES];
        c.encode(&mut b);
        assert_eq!(Cell::decode(&b), c);
        let p = Point { pos: [0.1, 0.2, 0.3], mass: 0.5 };
        let mut b = [0u8; BODY_BYTES];
        p.encode(&mut b);
        assert_eq!(Point::decode(&b), p);
    }

    #[test]
    fn a_tree_holds_its_bodies_once_and_their_mass() {
        let cfg = Config::preset(Size::Tiny, 3);
        let mut bodies = generate(&cfg);
        let tree = build(&mut bodies, cfg.theta);
        let root = tree.cells[0];
        assert!((root.mass - 1.0).abs() < 1e-12, "{}", root.mass);
        // Every body in exactly one leaf, every leaf at most LEAF bodies.
        let mut seen = vec![0; bodies.len()];
        for c in tree.cells.iter().filter(|c| c.leaf) {
            assert!(c.count as usize <= LEAF);
            (c.first..c.first + c.count).for_each(|j| seen[j as usize] += 1);
        }
        assert!(seen.iter().all(|&s| s == 1));
        // A body lies inside every cell that holds it, so it always opens them.
        for c in tree.cells.iter().filter(|c| c.leaf) {
            for j in c.first..c.first + c.count {
                let d = sub(c.com, tree.bodies[j as usize].pos);
                assert!(dot(d, d) < c.rcrit2);
            }
        }
    }

    #[test]
    fn plummer_bodies_have_the_standard_energy() {
        // In standard units the kinetic energy is 1/4 (virial: 2T = −W = 1/2). N = 4096
        // bodies: within a few per cent.
        let cfg = Config { bodies: 4096, ..Config::preset(Size::Tiny, 1) };
        let bodies = generate(&cfg);
        let t: f64 = bodies.iter().map(|b| 0.5 * b.mass * dot(b.vel, b.vel)).sum();
        assert!((t - 0.25).abs() < 0.02, "kinetic energy {t}");
    }

    #[test]
    fn theta_zero_is_the_direct_sum() {
        let cfg = Config { theta: 0.0, ..Config::preset(Size::Tiny, 2) };
        let p = problem(&cfg, 3);
        let pos: Vec<[f64; 3]> = p.last_pos.clone();
        for id in [0, 17, 255] {
            assert!(relative_error(p.last_acc[id], direct(&cfg, &pos, id)) < 1e-12);
        }
    }

    #[test]
    fn verification_catches_a_wrong_acceleration() {
        let cfg = Config::preset(Size::Tiny, 5);
        let p = problem(&cfg, 2);
        let mut mine: Vec<Body> = p.last.iter().filter(|b| b.id % 2 == 0).copied().collect();
        let mut accs: Vec<[f64; 3]> = mine.iter().map(|b| p.last_acc[b.id as usize]).collect();
        assert_eq!(verify(&cfg, &p, 0, &mine, &accs), Ok(()));
        accs[3][1] *= 1.0 + 1e-15;
        let err = verify(&cfg, &p, 0, &mine, &accs).unwrap_err();
        assert!(err.starts_with(&format!("body {} (rank 0) has acceleration", mine[3].id)), "{err}");
        accs[3] = p.last_acc[mine[3].id as usize];
        mine[0].vel[0] += 1e-9;
        assert!(verify(&cfg, &p, 0, &mine, &accs).unwrap_err().contains("ends at"));
    }
}
