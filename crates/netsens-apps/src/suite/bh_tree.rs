//! The octree of `bh` (Barnes–Hut): built over one rank's bodies, walked for the
//! forces on a body, and cut into the *locally essential tree* another rank (or
//! cluster) needs, given the box its bodies lie in: every cell far enough from the
//! whole box travels as one pseudo-body (its mass at its centre of mass), every leaf
//! too near travels as its bodies. A cell accepted for the box is accepted for every
//! body in it (no body is nearer to the cell than the box is), so the receiver sums
//! the pieces directly, with the accuracy of its own tree walk.

pub type Vec3 = [f64; 3];

/// Bodies per leaf.
const LEAF: usize = 4;
/// Opening angle: a cell of side s at distance d acts as one body when s < θ·d.
pub const THETA: f64 = 0.5;
/// Plummer softening², so that a body's force on itself is zero and near pairs stay
/// finite.
const EPS2: f64 = 1e-4;

/// A body, or a cell standing for its bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    pub mass: f64,
    pub at: Vec3,
}

impl Item {
    pub fn flat(items: &[Item]) -> Vec<f64> {
        items.iter().flat_map(|i| [i.mass, i.at[0], i.at[1], i.at[2]]).collect()
    }

    pub fn unflat(values: &[f64]) -> Vec<Item> {
        values.chunks(4).map(|c| Item { mass: c[0], at: [c[1], c[2], c[3]] }).collect()
    }
}

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BBox {
    pub lo: Vec3,
    pub hi: Vec3,
}

impl BBox {
    /// The box of `points` (an empty box for none: it absorbs nothing in `union`).
    pub fn of(points: impl IntoIterator<Item = Vec3>) -> BBox {
        let mut b = BBox { lo: [f64::INFINITY; 3], hi: [f64::NEG_INFINITY; 3] };
        for p in points {
            b = b.union(&BBox { lo: p, hi: p });
        }
        b
    }

    pub fn union(&self, o: &BBox) -> BBox {
        BBox { lo: [0, 1, 2].map(|k| self.lo[k].min(o.lo[k])), hi: [0, 1, 2].map(|k| self.hi[k].max(o.hi[k])) }
    }

    /// Distance from `p` to the nearest point of the box.
    pub fn distance(&self, p: &Vec3) -> f64 {
        (0..3).map(|k| (self.lo[k] - p[k]).max(p[k] - self.hi[k]).max(0.0).powi(2)).sum::<f64>().sqrt()
    }

    pub fn flat(&self) -> [f64; 6] {
        [self.lo[0], self.lo[1], self.lo[2], self.hi[0], self.hi[1], self.hi[2]]
    }

    pub fn unflat(v: &[f64]) -> BBox {
        BBox { lo: [v[0], v[1], v[2]], hi: [v[3], v[4], v[5]] }
    }
}

struct Cell {
    /// Side of the cell's cube.
    side: f64,
    mass: f64,
    com: Vec3,
    /// Children (cells) of an inner cell; empty for a leaf.
    children: Vec<usize>,
    /// A leaf's bodies: a range of `Tree::bodies`.
    bodies: std::ops::Range<usize>,
}

/// An octree over a set of bodies; counts the basic steps of every operation so
/// that a program can charge them.
pub struct Tree {
    cells: Vec<Cell>,
    bodies: Vec<Item>,
}

/// Work done: cells visited and body (or pseudo-body) interactions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Steps {
    pub visits: u64,
    pub interactions: u64,
}

impl Steps {
    pub fn add(&mut self, o: Steps) {
        self.visits += o.visits;
        self.interactions += o.interactions;
    }
}

/// The acceleration on a body at `at` from `from`, added to `acc`.
pub fn interact(at: &Vec3, from: &Item, acc: &mut Vec3) {
    let d = [from.at[0] - at[0], from.at[1] - at[1], from.at[2] - at[2]];
    let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2;
    let s = from.mass / (r2 * r2.sqrt());
    (0..3).for_each(|k| acc[k] += d[k] * s);
}

impl Tree {
    pub fn build(bodies: Vec<Item>) -> Tree {
        let mut t = Tree { cells: Vec::new(), bodies };
        if !t.bodies.is_empty() {
            let b = BBox::of(t.bodies.iter().map(|i| i.at));
            let side = (0..3).map(|k| b.hi[k] - b.lo[k]).fold(0.0, f64::max).max(1e-12);
            let n = t.bodies.len();
            t.cell(b.lo, side, 0..n);
        }
        t
    }

    /// Make the cell of corner `lo` and side `side` over `bodies[range]`; its index.
    fn cell(&mut self, lo: Vec3, side: f64, range: std::ops::Range<usize>) -> usize {
        let slice = &self.bodies[range.clone()];
        let mass: f64 = slice.iter().map(|i| i.mass).sum();
        let com = [0, 1, 2].map(|k| slice.iter().map(|i| i.mass * i.at[k]).sum::<f64>() / mass);
        let id = self.cells.len();
        self.cells.push(Cell { side, mass, com, children: Vec::new(), bodies: range.clone() });
        // Split at the centre; coincident bodies (or a tiny side) stay in one leaf.
        if range.len() <= LEAF || side < 1e-9 {
            return id;
        }
        let half = side / 2.0;
        let octant = |p: &Vec3| (0..3).fold(0, |o, k| o | (usize::from(p[k] >= lo[k] + half) << k));
        self.bodies[range.clone()].sort_by_key(|i| octant(&i.at));
        let mut start = range.start;
        for o in 0..8 {
            let end = start + self.bodies[start..range.end].iter().take_while(|i| octant(&i.at) == o).count();
            if end > start {
                let corner = [0, 1, 2].map(|k| lo[k] + if o >> k & 1 == 1 { half } else { 0.0 });
                let child = self.cell(corner, half, start..end);
                self.cells[id].children.push(child);
            }
            start = end;
        }
        id
    }

    pub fn bodies(&self) -> &[Item] {
        &self.bodies
    }

    pub fn mass(&self) -> f64 {
        self.cells.first().map_or(0.0, |c| c.mass)
    }

    /// The acceleration on a body at `at` from this tree's bodies, added to `acc`;
    /// the mass those interactions stand for, added to `mass` (a check: the whole
    /// tree's mass, whatever the walk opened).
    pub fn accel(&self, at: &Vec3, acc: &mut Vec3, mass: &mut f64) -> Steps {
        let mut steps = Steps::default();
        let mut stack: Vec<usize> = if self.cells.is_empty() { vec![] } else { vec![0] };
        while let Some(c) = stack.pop() {
            steps.visits += 1;
            let cell = &self.cells[c];
            let d2: f64 = (0..3).map(|k| (cell.com[k] - at[k]).powi(2)).sum();
            if cell.children.is_empty() {
                for b in &self.bodies[cell.bodies.clone()] {
                    interact(at, b, acc);
                    *mass += b.mass;
                    steps.interactions += 1;
                }
            } else if cell.side * cell.side < THETA * THETA * d2 {
                interact(at, &Item { mass: cell.mass, at: cell.com }, acc);
                *mass += cell.mass;
                steps.interactions += 1;
            } else {
                stack.extend(&cell.children);
            }
        }
        steps
    }

    /// The pieces of this tree that bodies anywhere in `to` need.
    pub fn essential(&self, to: &BBox) -> (Vec<Item>, Steps) {
        let (mut out, mut steps) = (Vec::new(), Steps::default());
        let mut stack: Vec<usize> = if self.cells.is_empty() { vec![] } else { vec![0] };
        while let Some(c) = stack.pop() {
            steps.visits += 1;
            let cell = &self.cells[c];
            if cell.children.is_empty() {
                out.extend_from_slice(&self.bodies[cell.bodies.clone()]);
            } else if cell.side < THETA * to.distance(&cell.com) {
                out.push(Item { mass: cell.mass, at: cell.com });
            } else {
                stack.extend(&cell.children);
            }
        }
        (out, steps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> Vec<Item> {
        // n³ unit masses on the points (i, j, l)/n.
        let s = n as f64;
        (0..n * n * n)
            .map(|i| Item { mass: 1.0, at: [(i % n) as f64 / s, (i / n % n) as f64 / s, (i / n / n) as f64 / s] })
            .collect()
    }

    #[test]
    fn a_far_box_gets_the_whole_tree_as_one_body() {
        // 27 unit masses in [0, 2/3]³: centre of mass (1/3, 1/3, 1/3), side 2/3. A box
        // 100 away is beyond side/θ = 4/3, so one pseudo-body of mass 27 suffices.
        let t = Tree::build(grid(3));
        let (items, _) = t.essential(&BBox { lo: [100.0; 3], hi: [101.0; 3] });
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].mass, 27.0);
        assert!(items[0].at.iter().all(|&x| (x - 1.0 / 3.0).abs() < 1e-12));
    }

    #[test]
    fn a_box_over_the_bodies_gets_every_body() {
        // Inside the box every cell is at distance 0: nothing is far enough.
        let t = Tree::build(grid(3));
        let (items, _) = t.essential(&BBox { lo: [0.0; 3], hi: [1.0; 3] });
        assert_eq!(items.len(), 27);
    }

    #[test]
    fn the_walk_sees_the_whole_mass_and_agrees_with_the_direct_sum() {
        let bodies = grid(6);
        let t = Tree::build(bodies.clone());
        let at = [0.52, 0.47, 0.3];
        let (mut a, mut m) = ([0.0; 3], 0.0);
        let steps = t.accel(&at, &mut a, &mut m);
        assert_eq!(m, 216.0);
        assert!(steps.interactions < 216, "the walk used cells: {steps:?}");
        let mut direct = [0.0; 3];
        bodies.iter().for_each(|b| interact(&at, b, &mut direct));
        let err: f64 = (0..3).map(|k| (a[k] - direct[k]).powi(2)).sum::<f64>().sqrt();
        let norm: f64 = direct.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(err < 0.02 * norm, "{a:?} against {direct:?}");
    }

    #[test]
    fn a_point_box_distance_is_euclidean() {
        let b = BBox { lo: [0.0; 3], hi: [1.0; 3] };
        assert_eq!(b.distance(&[0.5, 0.5, 0.5]), 0.0);
        assert_eq!(b.distance(&[4.0, 5.0, 0.5]), 5.0); // (3, 4, 0)
    }
}
