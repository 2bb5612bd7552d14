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
            let points = search.points(search.between());
            let evals: Vec<Eval> = points.iter().map(|&v| self.eval(&base.with(x, v), x, buf)).collect();
            search.step(&points, &evals);
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
/// Each step's line is below T on its left, so where it reaches the target is a bound
/// the root is at or below. On a grid of whole ps every step is taken at the grid
/// step at or below that bound, where T is a whole number of ps and compared with the
/// target exactly: a step found at or below the target is the answer (the next grid
/// step is past the bound). Where the root is many pieces away, steps also try points
/// between the largest grid step known below the target and the next step (spare
/// lanes of a pass carry them at no cost); the search steps on from the lowest one
/// above it. A per-byte cost (on the engine's fs/B grid) is searched in two stages:
/// first as above on whole ps/B from x0, where T is exactly a maximum of lines (a
/// whole number of ps per byte more adds whole ps to every rounded product), which
/// leaves the root within one ps/B; then by halving that span of 1000 fs/B, where T
/// is only a staircase near the lines (see [`Search::learn`]). A parameter off any
/// grid (1/cpu_speed) steps on floats until Newton lands.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Search {
    pub x0: f64,
    /// The grid searched now: the parameter's ([`Param::grid`]), 1 ps/B while a
    /// per-byte cost is searched on whole ps/B, `None` where it has none or the
    /// answer would be beyond 2^52 steps.
    grid: Option<f64>,
    /// The fs/B grid a per-byte cost goes on to once its root is within one ps/B.
    fine: Option<f64>,
    pub target: f64,
    /// On the grid: the largest whole ps at or below the target (T there is whole).
    whole_target: f64,
    /// Where the next step is (in grid steps from x0, or the value off the grid).
    next: f64,
    /// The largest known with T ≤ target (grid steps, or the value).
    lo: f64,
    /// On the grid: the smallest step known above the target, or bounded to be.
    hi: f64,
    /// On the grid: the least bound known on the root (grid steps, a float).
    bound: f64,
    /// On a grid of whole ps started from the tangent at x0: T0 and its slope there
    /// (T is exactly that line up to any step found on it).
    line: Option<(f64, f64)>,
    /// Flat at x0: the first step is the steepest path's bound, a far one.
    flat: bool,
    pub done: bool,
    steps: usize,
}

/// Steps taken before a search tries points between (where a pass has no spare lanes).
pub(crate) const PLAIN_STEPS: usize = 2;

impl Search {
    /// The first step, or `None` where no path depends on x. Flat at x0, T may still
    /// rise later: the steepest path alone passes the target at x0 + target / its
    /// slope (its constant part is ≥ 0); `steepest` is that slope if already known.
    pub fn start(g: &ExecGraph, base: &Point, x: Param, e0: &Eval, eps: f64, steepest: Option<f64>) -> Option<Search> {
        let x0 = base.get(x);
        let target = (1.0 + eps) * e0.makespan;
        let bound = if e0.slope_up > 0.0 {
            x0 + eps * e0.makespan / e0.slope_up
        } else {
            let steepest = steepest.unwrap_or_else(|| g.steepest(base, x));
            if steepest <= 0.0 {
                return None;
            }
            x0 + target / steepest
        };
        let engine_grid = x.grid().filter(|g| (bound - x0) / g < 4.5e15);
        // A per-byte cost: whole ps/B first, where T is a maximum of lines.
        let fine = engine_grid.filter(|&g| g < 1.0);
        let grid = fine.map_or(engine_grid, |_| Some(1.0));
        let mut s = Search {
            x0,
            grid,
            fine,
            target,
            whole_target: target.floor(),
            next: 0.0,
            lo: if grid.is_some() { 0.0 } else { x0 },
            hi: f64::INFINITY,
            bound: f64::INFINITY,
            line: None,
            flat: e0.slope_up <= 0.0,
            done: false,
            steps: 0,
        };
        match grid {
            Some(g) if e0.slope_up > 0.0 => {
                s.line = (g == 1.0).then_some((e0.makespan, e0.slope_up));
                s.aim((s.whole_target - e0.makespan) / (e0.slope_up * g))
            }
            Some(g) => s.aim((bound - x0) / g),
            None => s.next = bound,
        }
        Some(s)
    }

    /// On the grid: the root is at or below `bound` steps; step to the grid step at
    /// or below the least bound known (a hair's float error above is allowed for),
    /// if it is not known.
    fn aim(&mut self, bound: f64) {
        self.bound = self.bound.min(bound);
        let k = (self.bound + 1e-6 + 1e-12 * self.bound.abs()).floor().min(self.hi - 1.0);
        self.hi = self.hi.min(k + 1.0);
        if k <= self.lo {
            self.done = true;
        }
        self.next = k;
        self.refine();
    }

    /// Done on whole ps/B, a per-byte search goes on to the fs/B steps between the
    /// last whole one at or below the target and the next, known above it.
    fn refine(&mut self) {
        let Some(fine) = self.fine.filter(|_| self.done) else { return };
        let per = (self.grid.unwrap_or(1.0) / fine).round();
        (self.grid, self.fine, self.line, self.flat) = (Some(fine), None, None, false);
        (self.lo, self.hi, self.bound) = (self.lo * per, self.hi * per, f64::INFINITY);
        self.halve();
    }

    /// On the fs/B grid: the step halfway between the largest known at or below the
    /// target and the smallest known above it.
    fn halve(&mut self) {
        self.done = self.hi <= self.lo + 1.0;
        self.next = ((self.lo + self.hi) / 2.0).floor();
    }

    /// Whether this search's first step can wait for that of `other`, a search of
    /// the same parameter with a larger ε: on a whole-ps grid, where T is one line up
    /// to the larger one's step, that step answers this one too; flat at x0, the
    /// first steps are far bounds and the larger one's line bounds this one as well.
    pub fn waits_for(&self, other: &Search) -> bool {
        (self.line.is_some() || (self.flat && self.shares()))
            && self.steps == 0
            && other.steps == 0
            && !other.done
            && other.target > self.target
    }

    /// The value of `u` (grid steps, or the value off the grid).
    fn value(&self, u: f64) -> f64 {
        match self.grid {
            Some(g) => self.x0 + u * g,
            None => u,
        }
    }

    /// The tolerance found: a whole number of grid steps where the parameter has one.
    pub fn delta(&self) -> f64 {
        match self.grid {
            Some(g) => self.lo * g,
            None => self.lo - self.x0,
        }
    }

    /// Where T and its slope going down are wanted next: the step, then `between`
    /// points between the largest known below the target and the step.
    pub fn points(&self, between: usize) -> Vec<f64> {
        if self.grid.is_some_and(|g| g < 1.0) {
            // Per fs/B: the span known to hold the root cut in equal parts.
            let (n, span) = (between + 1, self.hi - self.lo);
            let mut points: Vec<f64> = (1..=n).map(|j| self.lo + (span * j as f64 / (n + 1) as f64).floor()).collect();
            points.dedup();
            points.retain(|&u| u > self.lo && u < self.hi);
            return points.into_iter().map(|u| self.value(u)).collect();
        }
        let mut points = vec![self.value(self.next)];
        let (lo, span) = (self.lo, self.next - self.lo);
        for j in 1..=between {
            let mut u = lo + span * j as f64 / (between + 1) as f64;
            if self.grid.is_some() {
                u = u.floor();
                if u <= lo || u >= self.next || points.contains(&self.value(u)) {
                    continue;
                }
            }
            points.push(self.value(u));
        }
        points
    }

    /// Whether its points need T's slope going down: not where it halves a span per
    /// fs/B (learning from T alone).
    pub fn wants_slopes(&self) -> bool {
        self.grid.is_none_or(|g| g >= 1.0)
    }

    /// How many points between a step takes where no lane is spare (none where it
    /// halves a span already).
    pub fn between(&self) -> usize {
        usize::from(self.steps >= PLAIN_STEPS && self.grid.is_none_or(|g| g >= 1.0))
    }

    /// Take T and its slope going down at each of `points` (from [`Search::points`]).
    pub fn step(&mut self, points: &[f64], evals: &[Eval]) {
        self.stepped();
        match self.grid {
            Some(_) => self.learn(&known(points, evals)),
            None => self.step_off_grid(points, evals),
        }
    }

    /// Count a pass this search had points in.
    pub fn stepped(&mut self) {
        self.steps += 1;
    }

    /// Whether the search learns from every point of its parameter: on a grid (whole
    /// ps, whole ps/B from x0, or fs/B), never off it (1/cpu_speed steps on floats).
    pub fn shares(&self) -> bool {
        self.grid.is_some()
    }

    /// Learn from points of this parameter, as (value, T, slope going down),
    /// evaluated by any search of it. T never falls as x grows: a point at or below
    /// the target raises the answer, one above it bounds the root. On whole ps (or
    /// whole ps/B from x0) T is also one convex curve: a point above bounds the root
    /// by its line, and one on the tangent at x0 shows T is that line up to it. Per
    /// fs/B, T is rounded to the ps a message, a staircase near those lines whose root
    /// may lie past a line's bound: there the answer rests on evaluated steps alone.
    /// Then aim the next step.
    pub fn learn(&mut self, known: &[(f64, f64, f64)]) {
        let Some(g) = self.grid.filter(|_| !self.done) else { return };
        if g < 1.0 {
            for &(v, t, _) in known {
                let k = ((v - self.x0) / g).round();
                if t <= self.whole_target {
                    self.lo = self.lo.max(k);
                } else {
                    self.hi = self.hi.min(k);
                }
            }
            self.halve();
            return;
        }
        let mut bound = f64::INFINITY;
        // Points of this grid alone (those of another search already on fs/B are not).
        let on_grid = known.iter().map(|&(v, t, slope)| ((v - self.x0) / g, t, slope));
        for (k, t, slope) in on_grid.filter(|&(u, _, _)| (u - u.round()).abs() < 1e-6) {
            let k = k.round();
            if t <= self.whole_target {
                self.lo = self.lo.max(k);
            } else {
                self.hi = self.hi.min(k);
                if slope > 0.0 {
                    // The line of T's piece left of k reaches the target at this bound.
                    bound = bound.min(k - (t - self.whole_target) / (slope * g));
                }
            }
            if let Some((t0, slope)) = self.line.filter(|&(t0, slope)| t == t0 + slope * k) {
                // T is convex, at least its tangent at x0 and on it at k: it is that
                // line up to k, whose last whole step at or below the target is `on`.
                let mut on = ((self.whole_target - t0) / slope).floor();
                while on > 0.0 && t0 + slope * on > self.whole_target {
                    on -= 1.0;
                }
                while t0 + slope * (on + 1.0) <= self.whole_target {
                    on += 1.0;
                }
                self.lo = self.lo.max(on.min(k));
                if on < k {
                    self.hi = self.hi.min(on + 1.0);
                }
            }
        }
        if self.hi <= self.lo + 1.0 || self.steps >= MAX_PIECES {
            self.done = true;
            self.refine();
            return;
        }
        self.aim(bound);
    }

    /// Newton on floats: a step landing at or below the target is the answer.
    fn step_off_grid(&mut self, points: &[f64], evals: &[Eval]) {
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
        let next = if e.slope_down > 0.0 { z - (e.makespan - self.target) / e.slope_down } else { z };
        if next >= z || self.steps >= MAX_PIECES {
            // Converged to the float: z is the root up to its error.
            (self.lo, self.done) = (z, true);
        } else {
            self.next = next;
        }
    }
}

/// `points` and their evaluations as (value, T, slope going down).
pub(crate) fn known(points: &[f64], evals: &[Eval]) -> Vec<(f64, f64, f64)> {
    points.iter().zip(evals).map(|(&v, e)| (v, e.makespan, e.slope_down)).collect()
}
