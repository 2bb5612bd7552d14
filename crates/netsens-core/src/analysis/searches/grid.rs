//! The grid a tolerance's search steps on, and how its steps map to the
//! parameter's values: whole ps (a time), whole ps/B then the engine's fs/B (a
//! per-byte cost), whole ps of one byte count's price ([`Count`]), or none (floats).
//! On the fs/B grid T can rise only at the stair edges of the prices
//! ([`Stairs`]): the steps between are known without a pass. Kept apart from the
//! search's steps (`search.rs`), which reason in grid steps alone.

use super::bracket::Bracket;
use crate::analysis::prices::stairs::Stairs;

/// A per-byte cost whose nodes all have one byte count b: at x fs/B each costs its
/// price y = ⌊(b·x + 500) / 1000⌋ ps, so T depends on x only through y, and is a
/// maximum of lines in y (a path's constant plus y for each of its nodes of b bytes),
/// searched on whole y as on whole ps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Count {
    pub bytes: u64,
    /// The price at x0.
    pub y0: u64,
}

impl Count {
    pub fn at(bytes: u64, fs0: u64) -> Count {
        let c = Count { bytes, y0: 0 };
        Count { y0: c.price(fs0), ..c }
    }

    /// The price at `fs` fs/B, as the engine rounds it.
    fn price(&self, fs: u64) -> u64 {
        ((self.bytes as u128 * fs as u128 + 500) / 1000) as u64
    }

    /// The least fs/B at which the price is `y`.
    fn first_fs(&self, y: u64) -> u64 {
        (1000 * y as u128).saturating_sub(500).div_ceil(self.bytes as u128) as u64
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    pub x0: f64,
    /// The grid searched now: the parameter's ([`crate::analysis::Param::grid`]), 1
    /// ps/B while a per-byte cost is searched on whole ps/B, `None` where it has
    /// none or the answer would be beyond 2^52 steps.
    pub unit: Option<f64>,
    /// The fs/B grid a per-byte cost goes on to once its root is within one ps/B.
    pub fine: Option<f64>,
    /// Where every node it prices has one byte count: its grid is whole ps of their
    /// price, from x0's.
    pub count: Option<Count>,
    /// Where T can rise on the fs/B grid, and x0 in fs/B (the edges are by the fs/B
    /// value, the steps from x0).
    pub stairs: Stairs,
    pub fs0: u64,
}

impl Grid {
    /// The value of `u` (grid steps, or the value off the grid).
    pub fn value(&self, u: f64) -> f64 {
        match (self.count, self.unit) {
            (Some(c), _) => c.first_fs(c.y0 + u as u64) as f64 / 1000.0,
            (None, Some(g)) => self.x0 + u * g,
            (None, None) => u,
        }
    }

    /// The grid steps of value `v`, where it is on the grid.
    pub fn steps_of(&self, v: f64) -> Option<f64> {
        match (self.count, self.unit) {
            (Some(c), _) => Some(c.price((v * 1000.0).round() as u64) as f64 - c.y0 as f64),
            (None, Some(g)) => Some((v - self.x0) / g).filter(|u| (u - u.round()).abs() < 1e-6).map(f64::round),
            (None, None) => None,
        }
    }

    /// T's slope per grid step, from its slope in x: a path through n nodes of the
    /// count has slope n·count in x and n in their price.
    pub fn per_step(&self, slope: f64) -> f64 {
        match (self.count, self.unit) {
            (Some(c), _) => slope / c.bytes as f64,
            (None, g) => slope * g.unwrap_or(1.0),
        }
    }

    /// Δx of `lo` grid steps, the tolerance found (by a count's price: the last fs/B
    /// priced at most the price found); `None` off any grid.
    pub fn delta(&self, lo: f64) -> Option<f64> {
        match (self.count, self.unit) {
            (Some(c), _) => Some((c.first_fs(c.y0 + lo as u64 + 1) - 1 - self.fs0) as f64 * 0.001),
            (None, Some(g)) => Some(lo * g),
            (None, None) => None,
        }
    }

    /// The largest Δx below step `hi` (known above the target); `None` off any grid.
    pub fn below(&self, hi: f64) -> Option<f64> {
        match (self.count, self.unit) {
            (Some(c), _) => Some((c.first_fs(c.y0 + hi as u64) - 1).saturating_sub(self.fs0) as f64 * 0.001),
            (None, Some(g)) => Some((hi - 1.0) * g),
            (None, None) => None,
        }
    }

    /// Whether T can rise from step `u − 1` to `u` on the fs/B grid.
    pub fn rises(&self, u: f64) -> bool {
        self.stairs.rises(self.fs0 + u as u64)
    }

    /// Whether step `u` is an edge of a smaller count (see
    /// [`crate::analysis::prices::stairs::cut_edges`]).
    pub fn coarse(&self, u: f64) -> bool {
        self.stairs.coarse(self.fs0 + u as u64)
    }

    /// On the fs/B grid: the edges strictly between `lo` and `hi`, where T is not known.
    pub fn edges_between(&self, lo: f64, hi: f64) -> Vec<f64> {
        (lo as u64 + 1..hi as u64).map(|u| u as f64).filter(|&u| self.rises(u)).collect()
    }

    /// On the fs/B grid: T is flat from `lo` to the step before the next edge, and
    /// `hi`'s T is that of the last edge at or below it; done when they are
    /// neighbours.
    pub fn onto_edges(&self, at: &mut Bracket) {
        let next = (at.lo as u64 + 1..at.hi as u64).find(|&u| self.rises(u as f64));
        at.lo = next.map_or(at.hi, |u| u as f64) - 1.0;
        if let Some(u) = (at.lo as u64 + 1..=at.hi as u64).rev().find(|&u| self.rises(u as f64)) {
            at.hi = u as f64;
        }
        at.done = at.hi <= at.lo + 1.0;
    }
}
