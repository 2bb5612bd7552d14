//! Barnes' force walk (see [`super::barnes`]): a body's acceleration from the forest
//! of the ranks' trees, over local data (the serial reference) or through remote reads
//! and the software cache (a run).

use super::barnes_tree::{body_offset, cell_offset, dot, sub, Cell, Point, Tree, BODY_BYTES, CELL_BYTES};
use netsens_core::program::Rank;
use netsens_core::time::Time;

/// Charge per interaction (body–body or body–cell): 30 ns, before CPU-speed scaling.
pub const INTERACT_PS: Time = 30_000;
/// Charge per cell visited (the opening test): 10 ns.
pub const OPEN_PS: Time = 10_000;
/// Add the pull of `mass` at offset `d` from the body (softened by ε²).
#[inline]
pub(crate) fn interact(acc: &mut [f64; 3], d: [f64; 3], mass: f64, eps2: f64) {
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
pub(crate) struct Local<'a>(pub(crate) &'a [Tree]);

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
pub(crate) struct Mirror {
    cells: Vec<Option<Cell>>,
    bodies: Vec<Option<Point>>,
}

/// A rank's view in a run: its own tree, and the others' through gets and the cache.
pub(crate) struct Remote<'a, R: Rank> {
    pub(crate) r: &'a R,
    pub(crate) me: u32,
    pub(crate) tree: &'a Tree,
    /// Bodies held by each rank.
    pub(crate) sizes: &'a [usize],
    pub(crate) cache: Vec<Mirror>,
    pub(crate) enabled: bool,
    /// Computation done but not charged yet.
    pub(crate) pending: Time,
}

impl<R: Rank> Remote<'_, R> {
    pub(crate) async fn flush(&mut self) {
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
