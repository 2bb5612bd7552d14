//! Barnes' bodies and octree (see [`super::barnes`]): the Plummer input, its Morton
//! order and cut into blocks, and one rank's tree as it lies in the rank's window, with
//! the cost of building it.

use super::barnes::Config;
use crate::data::{stream, unit_f64};
use netsens_core::time::Time;
use rand_chacha::ChaCha12Rng;

/// Charge per body for its Morton key: 20 ns.
pub const KEY_PS: Time = 20_000;
/// Charge per body and level of the sort: 5 ns.
pub const SORT_PS: Time = 5_000;
/// Charge per cell built (centre of mass, opening radius): 40 ns.
pub const CELL_PS: Time = 40_000;
/// Most bodies in a leaf cell.
pub const LEAF: usize = 8;
/// Levels of the octree (bits of each coordinate in a Morton key).
pub(crate) const LEVELS: u32 = 21;
/// Bytes of a cell in a window.
pub const CELL_BYTES: usize = 56;
/// Bytes of a body in a window.
pub const BODY_BYTES: usize = 32;
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
    pub(crate) fn encode(&self, out: &mut [u8]) {
        let words = [self.pos[0], self.pos[1], self.pos[2], self.mass];
        for (k, w) in words.iter().enumerate() {
            out[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
    }

    pub(crate) fn decode(b: &[u8]) -> Point {
        let f = |k: usize| f64::from_le_bytes(b[8 * k..8 * k + 8].try_into().expect("8 bytes"));
        Point { pos: [f(0), f(1), f(2)], mass: f(3) }
    }
}

impl Cell {
    pub(crate) fn encode(&self, out: &mut [u8]) {
        let words = [self.com[0], self.com[1], self.com[2], self.mass, self.rcrit2];
        for (k, w) in words.iter().enumerate() {
            out[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        out[40..44].copy_from_slice(&self.first.to_le_bytes());
        out[44..48].copy_from_slice(&self.count.to_le_bytes());
        out[48..52].copy_from_slice(&u32::from(self.leaf).to_le_bytes());
        out[52..56].fill(0);
    }

    pub(crate) fn decode(b: &[u8]) -> Cell {
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

    pub(crate) fn write(&self, w: &mut [u8]) {
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

pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Size;

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
}
