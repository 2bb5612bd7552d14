//! A parameter's exact curve T(x) and its tolerance: while the recorded order of
//! events holds, T is the largest of the paths' lines in x (convex, piecewise
//! linear), so its pieces are found by intersecting the lines at the ends of an
//! interval and evaluating there, and the largest x with T ≤ (1 + ε)·T0 by Newton
//! steps, each of which lands on the next piece. Where only some values of x are
//! wanted, T there comes from the batched passes, every value a lane.

use super::batch::{Lane, Slots};
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

    /// T (ps) at each value asked of each parameter, at `base`'s other values: each
    /// curve's value there, without its corners. Every (parameter, value) is a lane of
    /// the same batched passes ([`ExecGraph::eval_lanes_down`]).
    pub fn curves_at(&self, slots: &Slots, base: &Point, asked: &[(Param, Vec<f64>)]) -> Vec<Vec<f64>> {
        let lanes: Vec<Lane> = asked
            .iter()
            .flat_map(|(x, values)| values.iter().map(|&v| Lane { point: base.with(*x, v), param: *x }))
            .collect();
        let mut evals = self.eval_lanes_down(slots, &lanes).into_iter();
        asked.iter().map(|(_, values)| evals.by_ref().take(values.len()).map(|e| e.makespan).collect()).collect()
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
/// Newton's root is a float within a few 1e-9 ps of the exact one; on the engine's
/// grid (whole ps, or fs/B) the answer is the grid step at or below the root. A step
/// aimed within float error of a grid step is taken at that grid step: landing there
/// (T ≤ target) makes it the answer; above the target with the next step as close,
/// the answer is the step below.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Search {
    pub x0: f64,
    /// The parameter's grid step ([`Param::grid`]).
    grid: Option<f64>,
    /// Grid steps from x0 of the answer, once known.
    on_grid: Option<u64>,
    /// A grid step within float error of Newton's root, evaluated next.
    check: Option<u64>,
    /// The grid step `x` is at, where it was aimed within float error of one.
    snapped: Option<u64>,
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
        let grid = x.grid();
        let mut s = Search {
            x0,
            grid,
            on_grid: None,
            check: None,
            snapped: None,
            target,
            x: first,
            below: x0,
            done: false,
            steps: 0,
        };
        s.aim(first);
        Some(s)
    }

    /// The grid step within Newton's float error of `x` (in grid steps, with a wide
    /// margin), if any; none beyond 2^53 steps, where a float holds no whole step.
    fn near_step(&self, x: f64) -> Option<u64> {
        let u = (x - self.x0) / self.grid?;
        let k = u.round();
        ((0.0..9e15).contains(&u) && (u - k).abs() <= 1e-3 + 1e-9 * u && k >= 1.0).then_some(k as u64)
    }

    /// Step to `x`, or to the grid step within float error of it.
    fn aim(&mut self, x: f64) {
        self.snapped = self.near_step(x);
        self.x = match (self.snapped, self.grid) {
            (Some(k), Some(g)) => self.x0 + k as f64 * g,
            _ => x,
        };
    }

    /// The tolerance found: a whole number of grid steps where the parameter has one.
    pub fn delta(&self) -> f64 {
        match (self.on_grid, self.grid) {
            (Some(n), Some(g)) => n as f64 * g,
            _ => self.x - self.x0,
        }
    }

    /// Newton has ended at `self.x`, T's root up to float error: its grid step.
    fn newton_done(&mut self) {
        self.done = true;
        let Some(g) = self.grid else { return };
        let u = (self.x - self.x0) / g;
        if let Some(k) = self.near_step(self.x) {
            (self.check, self.done) = (Some(k), false);
        } else if (0.0..9e15).contains(&u) {
            self.on_grid = Some(u.floor() as u64);
        }
    }

    /// Where T and its slope going down are wanted next: the step, then the points
    /// between.
    pub fn points(&self) -> Vec<f64> {
        if let (Some(k), Some(g)) = (self.check, self.grid) {
            return vec![self.x0 + k as f64 * g];
        }
        let between = if self.steps >= PLAIN_STEPS { BETWEEN } else { 0 };
        let span = self.x - self.below;
        std::iter::once(self.x)
            .chain((1..=between).map(|j| self.below + span * j as f64 / (between + 1) as f64))
            .collect()
    }

    /// Take T and its slope going down at each of [`Search::points`].
    pub fn step(&mut self, evals: &[Eval]) {
        if let Some(k) = self.check {
            // The root is within a hair of step k: at k, or in the step below.
            self.on_grid = Some(if evals[0].makespan <= self.target { k } else { k - 1 });
            self.done = true;
            return;
        }
        let points = self.points();
        self.steps += 1;
        if evals[0].makespan <= self.target {
            // The step landed on the root (on a grid step: the answer).
            if let Some(k) = self.snapped {
                self.on_grid = Some(k);
                self.done = true;
                return;
            }
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
        let at_step = if z == self.x { self.snapped } else { None };
        (self.x, self.snapped) = (z, at_step);
        if e.slope_down <= 0.0 {
            self.done = true;
            return;
        }
        let next = z - (e.makespan - self.target) / e.slope_down;
        if let (Some(k), true) = (at_step, self.near_step(next) == at_step) {
            // Above the target at grid step k, with the root within a hair of it.
            self.on_grid = Some(k - 1);
            self.done = true;
        } else if next >= z {
            self.newton_done();
        } else {
            self.aim(next);
            if self.x >= z {
                // Aimed back at z's own grid step: Newton has nowhere to go.
                self.x = z;
                self.newton_done();
            } else if self.steps >= MAX_PIECES {
                self.newton_done();
            }
        }
    }
}
