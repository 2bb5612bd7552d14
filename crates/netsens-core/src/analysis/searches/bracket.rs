//! Where a tolerance's root is known to be while its search goes: the largest value
//! known at or below the target, the least known above it (or bounded to be), the
//! next step, and whether it is found. Shared by the search's ways of stepping (on
//! a grid, on floats, on floats with the computations' sizes), kept apart so that
//! each reads and moves the same bracket.

use crate::analysis::passes::eval::Eval;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Bracket {
    /// The parameter's value at the platform's point.
    pub x0: f64,
    /// (1 + ε)·T0 (ps).
    pub target: f64,
    /// The largest known with T ≤ target (grid steps from x0, or the value).
    pub lo: f64,
    /// On the grid: the smallest step known above the target, or bounded to be
    /// (off it: the least value known above it).
    pub hi: f64,
    /// Where the next step is (in grid steps from x0, or the value off the grid).
    pub next: f64,
    pub done: bool,
}

impl Bracket {
    /// Newton on floats (off any grid, without the computations' sizes): a step
    /// landing at or below the target is the answer; else the next step is Newton's
    /// from the least point above it, until it lands on the float it came from.
    pub fn newton_on_floats(&mut self, points: &[f64], evals: &[Eval]) {
        if evals[0].makespan <= self.target {
            (self.lo, self.done) = (points[0], true);
            return;
        }
        let mut from = (points[0], evals[0]);
        for (&v, e) in points.iter().zip(evals).skip(1) {
            if e.makespan <= self.target {
                self.lo = self.lo.max(v);
            } else if v < from.0 {
                from = (v, *e);
            }
        }
        let (z, e) = from;
        // What the bound answers, where it stops the search: below z.
        self.hi = self.hi.min(z);
        let next = if e.slope_down > 0.0 { z - (e.makespan - self.target) / e.slope_down } else { z };
        if next >= z {
            // Converged to the float: z is the root up to its error.
            (self.lo, self.done) = (z, true);
        } else {
            self.next = next;
        }
    }
}
