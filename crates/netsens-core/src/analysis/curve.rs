//! A parameter's exact curve T(x) and its tolerance: while the recorded order of
//! events holds, T is the largest of the paths' lines in x (convex, piecewise
//! linear), so its pieces are found by intersecting the lines at the ends of an
//! interval and evaluating there, and the largest x with T ≤ (1 + ε)·T0 by Newton
//! steps, each of which lands on the next piece.

use super::eval::{Buffers, Eval};
use super::graph::ExecGraph;
use super::params::{Param, Point};

/// The curve's corners, and the ends of the range, as (x, T in ps), x increasing.
pub type Curve = Vec<(f64, f64)>;

/// Pieces a curve is not split into more of (a bound, never reached by a program
/// whose matching does not depend on timing over a sane range).
const MAX_PIECES: usize = 4096;

impl ExecGraph {
    /// T(x) on [lo, hi] at `base`'s other values: every corner in the range.
    pub fn curve(&self, base: &Point, x: Param, lo: f64, hi: f64, buf: &mut Buffers) -> Curve {
        let a = self.eval(&base.with(x, lo), x, buf);
        let b = self.eval(&base.with(x, hi), x, buf);
        let mut out = vec![(lo, a.makespan)];
        let mut stack = vec![((lo, a.makespan, a.slope_up), (hi, b.makespan, b.slope_down))];
        while let Some(((xa, ta, sa), (xb, tb, sb))) = stack.pop() {
            // The two end lines meet at xm; if T is on them there, T is their maximum.
            if sb - sa <= 0.0 || out.len() > MAX_PIECES {
                out.push((xb, tb));
                continue;
            }
            let xm = (tb - ta + sa * xa - sb * xb) / (sa - sb);
            if !(xm > xa && xm < xb) {
                out.push((xb, tb));
                continue;
            }
            let m = self.eval(&base.with(x, xm), x, buf);
            let line = ta + sa * (xm - xa);
            if m.makespan <= line + 1e-6 * line.abs().max(1.0) {
                out.push((xm, m.makespan));
                out.push((xb, tb));
            } else {
                // Right half first on the stack, so the left one is taken first.
                stack.push(((xm, m.makespan, m.slope_up), (xb, tb, sb)));
                stack.push(((xa, ta, sa), (xm, m.makespan, m.slope_down)));
            }
        }
        out.dedup_by(|b, a| b.0 == a.0);
        out
    }

    /// The largest increase Δx from `base` with T ≤ (1 + eps)·T0 (`None`: T never
    /// passes it, no path depends on x); `e0` is T and its slopes at `base`.
    pub fn tolerance(&self, base: &Point, x: Param, e0: &Eval, eps: f64, buf: &mut Buffers) -> Option<f64> {
        let mut search = Search::start(self, base, x, e0, eps, None)?;
        while !search.done {
            let evals: Vec<Eval> = search.points().iter().map(|&v| self.eval(&base.with(x, v), x, buf)).collect();
            search.step(&evals);
        }
        Some(search.delta())
    }

    /// The largest slope in x of any path: T's slope as x grows without bound.
    pub fn steepest(&self, base: &Point, x: Param) -> f64 {
        let far = base.with(x, 1e30);
        let mut best: Vec<f64> = Vec::with_capacity(self.nodes.len());
        for v in 0..self.nodes.len() {
            let (preds, _) = self.preds_of(v);
            let b = preds.iter().map(|&q| best[q as usize]).fold(0.0, f64::max);
            best.push(b + self.coef(v, &far, x).1);
        }
        best[self.sink as usize]
    }
}

/// Newton's search for one tolerance: from the left the tangent overshoots (T is
/// convex); from then on steps from the right fall on the root, one piece at a time.
/// Where the root is many pieces away, each step also tries points between the
/// largest x known below the target and the step (a pass carries them at little
/// more cost than the step alone), and steps on from the lowest one above it.
/// Newton's root is a float a few 1e-9 ps off the exact one; on the engine's grid
/// (whole ps, or fs/B) the search ends by evaluating the grid step at or below it and
/// the next, and moves by one step until the first fits and the next does not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Search {
    pub x0: f64,
    /// The parameter's grid step ([`Param::grid`]).
    grid: Option<f64>,
    /// Grid steps from x0 once Newton has ended (`None` while it runs).
    on_grid: Option<u64>,
    pub target: f64,
    /// The next value to step from (T there is above the target, or it is the answer).
    pub x: f64,
    /// The largest value known with T ≤ target.
    below: f64,
    pub done: bool,
    steps: usize,
}

/// Steps taken before a search tries points between, and how many it tries.
const PLAIN_STEPS: usize = 2;
const BETWEEN: usize = 1;

impl Search {
    /// The first step, or `None` where no path depends on x. Flat at x0, T may still
    /// rise later: the steepest path alone passes the target at x0 + target / its
    /// slope (its constant part is ≥ 0); `steepest` is that slope if already known.
    pub fn start(g: &ExecGraph, base: &Point, x: Param, e0: &Eval, eps: f64, steepest: Option<f64>) -> Option<Search> {
        let x0 = base.get(x);
        let target = (1.0 + eps) * e0.makespan;
        let first = if e0.slope_up > 0.0 {
            x0 + eps * e0.makespan / e0.slope_up
        } else {
            let steepest = steepest.unwrap_or_else(|| g.steepest(base, x));
            if steepest <= 0.0 {
                return None;
            }
            x0 + target / steepest
        };
        Some(Search { x0, grid: x.grid(), on_grid: None, target, x: first, below: x0, done: false, steps: 0 })
    }

    /// The tolerance found: a whole number of grid steps where the parameter has one.
    pub fn delta(&self) -> f64 {
        match (self.on_grid, self.grid) {
            (Some(n), Some(g)) => n as f64 * g,
            _ => self.x - self.x0,
        }
    }

    /// Newton has ended at `self.x`: on a grid, check the step at or below it next.
    fn newton_done(&mut self) {
        match self.grid {
            // Beyond 2^53 steps a float holds no whole step: keep Newton's root.
            Some(g) if (self.x - self.x0) / g < 9e15 => {
                // Newton's root may sit a hair below a whole step that is the answer.
                self.on_grid = Some(((self.x - self.x0) / g + 1e-6).floor().max(0.0) as u64);
            }
            _ => self.done = true,
        }
    }

    /// Take T at grid step n and n + 1: move down while n is over the target, up
    /// while n + 1 is not, else n is the answer.
    fn grid_step(&mut self, n: u64, evals: &[Eval]) {
        if evals[0].makespan > self.target && n > 0 {
            self.on_grid = Some(n - 1);
        } else if evals[1].makespan <= self.target {
            self.on_grid = Some(n + 1);
        } else {
            self.done = true;
        }
    }

    /// Where T and its slope going down are wanted next: the step, then the points
    /// between.
    pub fn points(&self) -> Vec<f64> {
        if let (Some(n), Some(g)) = (self.on_grid, self.grid) {
            return vec![self.x0 + n as f64 * g, self.x0 + (n + 1) as f64 * g];
        }
        let between = if self.steps >= PLAIN_STEPS { BETWEEN } else { 0 };
        let span = self.x - self.below;
        std::iter::once(self.x)
            .chain((1..=between).map(|j| self.below + span * j as f64 / (between + 1) as f64))
            .collect()
    }

    /// Take T and its slope going down at each of [`Search::points`].
    pub fn step(&mut self, evals: &[Eval]) {
        if let Some(n) = self.on_grid {
            return self.grid_step(n, evals);
        }
        let points = self.points();
        self.steps += 1;
        if evals[0].makespan <= self.target {
            // The step landed on the root.
            return self.newton_done();
        }
        let mut from = (self.x, evals[0]);
        for (&v, e) in points.iter().zip(evals).skip(1) {
            if e.makespan <= self.target {
                self.below = self.below.max(v);
            } else if v < from.0 {
                from = (v, *e);
            }
        }
        let (z, e) = from;
        self.x = z;
        if e.slope_down <= 0.0 {
            self.done = true;
            return;
        }
        let next = z - (e.makespan - self.target) / e.slope_down;
        if next >= z {
            self.newton_done();
        } else {
            self.x = next;
            if self.steps >= MAX_PIECES {
                self.newton_done();
            }
        }
    }
}
