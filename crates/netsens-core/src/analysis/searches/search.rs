//! A tolerance's search: the largest Δx with T ≤ (1 + ε)·T0, by Newton steps, each
//! of which lands on the next piece of T (convex, piecewise linear while the
//! recorded order holds), on the parameter's grid (whole ps, ps/B then fs/B, or
//! floats). One search is one tolerance; every search's points of a pass are
//! evaluated together ([`super::analyze`]).

use super::bracket::Bracket;
use super::floats::Floats;
use super::grid::{Count, Grid};
use crate::analysis::passes::eval::Eval;
use crate::analysis::passes::steepest::SteepestLine;
use crate::analysis::prices::cpu_stairs::ComputeSizes;
use crate::analysis::prices::stairs::{any_coarse, cut_edges, Stairs};
use crate::analysis::record::graph::ExecGraph;
use crate::analysis::record::params::{Param, Point};

/// Passes a tolerance's search takes at most (each evaluates all its points at
/// once). Newton's steps land on a new piece of T each pass and the brackets at
/// least halve, so a search needs some tens; past the bound it stops with what it
/// knows: the largest Δx known to hold (its answer, "at least") and the largest not
/// yet known to fail ([`Search::at_most`]), instead of stepping on.
pub const MAX_SEARCH_STEPS: usize = 4096;

/// Newton's search for one tolerance: from the left the tangent overshoots (T is
/// convex); from then on steps from the right fall on the root, one piece at a time.
/// Each step's line is below T on its left, so where it reaches the target is a bound
/// the root is at or below. On a grid of whole ps every step is taken at the grid
/// step at or below that bound, where T is a whole number of ps and compared with the
/// target exactly: a step found at or below the target is the answer (the next grid
/// step is past the bound); a step's line below the target bounds it too (T is at
/// least that tangent past it). T is also at most the chord between two steps
/// evaluated either side of the target, so the last step where that chord is at or
/// below it is known to be too, without a pass: the bracket closes from both ends. Where the
/// root is many pieces away, steps also try points between the largest grid step
/// known below the target and the next step (spare lanes of a pass carry them at no
/// cost); the search steps on from the lowest one above it. A per-byte cost (on the engine's fs/B grid) whose nodes all have one
/// byte count is searched as above on whole ps of their price ([`Count`]); another in
/// two stages: first as above on whole ps/B from x0, where T is exactly a maximum of
/// lines (a whole number of ps per byte more adds whole ps to every rounded product),
/// which leaves the root within one ps/B; then by cutting that span of 1000 fs/B,
/// where T is only a staircase near the lines (see [`Search::learn`]), on its stair
/// edges alone (see [`Stairs`]: T is flat between them), the smaller byte counts'
/// edges first, each with the edge before it ([`cut_edges`]). A parameter off any grid
/// (1/cpu_speed) steps on floats until Newton lands; where the program's computations
/// have few sizes, it instead brackets the root between floats evaluated (from every
/// search of it), steps by secants, Newton and the bracket's chord, and once the
/// bracket holds few stair edges of the computations' prices ([`ComputeSizes`]) tries
/// the edges alone (the smaller sizes' first, as per byte), down to the float just
/// below the first edge above the target.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Search {
    /// Where the root is known to be, and the next step.
    pub at: Bracket,
    /// The grid it steps on now, and how its steps map to values.
    grid: Grid,
    /// Off any grid, where the computations have few sizes: the search on floats.
    floats: Option<Floats>,
    /// On the grid: the largest whole ps at or below the target (T there is whole).
    whole_target: f64,
    /// On the grid: the least bound known on the root (grid steps, a float).
    bound: f64,
    /// On a grid of whole ps started from the tangent at x0: T0 and its slope there
    /// (T is exactly that line up to any step found on it).
    line: Option<(f64, f64)>,
    /// Flat at x0: the first step is the steepest path's bound, a far one.
    flat: bool,
    /// Flat at x0, the first step is where the steepest path's own line reaches the
    /// target (each ε its own), not a far bound shared by them.
    steep_line: bool,
    steps: usize,
    /// Passes it takes at most ([`MAX_SEARCH_STEPS`]), and whether it stopped there.
    limit: usize,
    bounded: bool,
    /// On a grid where T is a maximum of lines: the largest step evaluated at or
    /// below the target and the least above it, with T there (their chord bounds
    /// the root from below).
    below_at: (f64, f64),
    above_at: (f64, f64),
}

/// Steps taken before a search tries points between (where a pass has no spare lanes).
pub(crate) const PLAIN_STEPS: usize = 2;

impl Search {
    /// The first step, or `None` where no path depends on x. Flat at x0, T may still
    /// rise later: the steepest path alone passes the target at x0 + target / its
    /// slope (its constant part is ≥ 0); `steepest` is that slope if already known.
    /// `stairs`: where a per-byte cost's T can rise (`None`: anywhere).
    pub fn start(
        g: &ExecGraph,
        base: &Point,
        x: Param,
        e0: &Eval,
        eps: f64,
        steepest: Option<SteepestLine>,
        stairs: Option<Stairs>,
    ) -> Option<Search> {
        let x0 = base.get(x);
        let target = (1.0 + eps) * e0.makespan;
        // Flat at x0, the steepest path's slope.
        let steepest = match e0.slope_up > 0.0 {
            true => None,
            false => Some(steepest.unwrap_or_else(|| g.steepest(base, x))).filter(|s| s.slope > 0.0),
        };
        let bound = match steepest {
            None if e0.slope_up <= 0.0 => return None,
            None => x0 + eps * e0.makespan / e0.slope_up,
            Some(line) => x0 + target / line.slope,
        };
        let engine_grid = x.grid().filter(|g| (bound - x0) / g < 4.5e15);
        let per_byte = engine_grid.is_some_and(|g| g < 1.0);
        let fs0 = (x0 * 1000.0).round().max(0.0) as u64;
        // A per-byte cost whose nodes have one byte count: on whole ps of its price.
        let count = stairs.and_then(|s| s.count).filter(|_| per_byte).map(|bytes| Count::at(bytes, fs0));
        // Another: whole ps/B first, where T is a maximum of lines, then fs/B.
        let fine = engine_grid.filter(|_| per_byte && count.is_none());
        let grid = if per_byte { Some(1.0) } else { engine_grid };
        let mut s = Search {
            at: Bracket {
                x0,
                target,
                lo: if grid.is_some() { 0.0 } else { x0 },
                hi: f64::INFINITY,
                next: 0.0,
                done: false,
            },
            grid: Grid { x0, unit: grid, fine, count, stairs: stairs.unwrap_or_else(Stairs::every), fs0 },
            floats: None,
            whole_target: target.floor(),
            bound: f64::INFINITY,
            line: None,
            flat: e0.slope_up <= 0.0,
            steep_line: false,
            steps: 0,
            limit: MAX_SEARCH_STEPS,
            bounded: false,
            below_at: (0.0, e0.makespan),
            above_at: (f64::INFINITY, f64::INFINITY),
        };
        match (grid, count, steepest) {
            (Some(_), _, None) => {
                let slope = s.grid.per_step(e0.slope_up);
                s.line = Some((e0.makespan, slope));
                s.aim((s.whole_target - e0.makespan) / slope)
            }
            // The steepest path's n nodes of the count cost at least n·y each beside
            // their fixed part, its other nodes what they cost at y = 0: T ≥ its line.
            (Some(_), Some(c), Some(steepest)) => {
                s.steep_line = true;
                s.aim((target - steepest.at_zero) / s.grid.per_step(steepest.slope) - c.y0 as f64)
            }
            // Where x's products are whole ps at every step (a time in ps, or whole
            // ps/B from a whole x0), T is at least the steepest path's line; else only
            // its slope is safe (a product rounded down may take half a ps a node).
            (Some(g), None, Some(steepest)) => {
                s.steep_line = !per_byte || x0.fract() == 0.0;
                let on_line = (target - steepest.at_zero) / steepest.slope;
                s.aim((if s.steep_line { on_line.min(bound) } else { bound } - x0) / g)
            }
            (None, ..) => s.at.next = bound,
        }
        Some(s)
    }

    /// Off any grid, with the sizes of the computations (`None`: Newton's steps on
    /// floats): its first bracket's top from them ([`Floats::first_hi`]).
    pub fn with_sizes(mut self, sizes: Option<ComputeSizes>) -> Search {
        // T at the platform's value, which no step has moved off yet.
        let t0 = self.below_at.1;
        self.floats = sizes.filter(|_| self.grid.unit.is_none()).map(|s| Floats::new(s, t0));
        if let Some(f) = &self.floats {
            self.at.hi = f.first_hi(&self.at);
        }
        self
    }

    /// On the grid: the root is at or below `bound` steps; step to the grid step at
    /// or below the least bound known (a hair's float error above is allowed for),
    /// if it is not known.
    fn aim(&mut self, bound: f64) {
        self.bound = self.bound.min(bound);
        let k = (self.bound + 1e-6 + 1e-12 * self.bound.abs()).floor().min(self.at.hi - 1.0);
        self.at.hi = self.at.hi.min(k + 1.0);
        if k <= self.at.lo {
            self.at.done = true;
        }
        self.at.next = k;
        self.refine();
    }

    /// Done on whole ps/B, a per-byte search goes on to the fs/B steps between the
    /// last whole one at or below the target and the next, known above it.
    /// (A search stopped at its bound ends where it is: see [`Search::check_bound`].)
    fn refine(&mut self) {
        let Some(fine) = self.grid.fine.filter(|_| self.at.done && self.at.hi <= self.at.lo + 1.0) else { return };
        let per = (self.grid.unit.unwrap_or(1.0) / fine).round();
        (self.grid.unit, self.grid.fine, self.line, self.flat) = (Some(fine), None, None, false);
        (self.at.lo, self.at.hi, self.bound) = (self.at.lo * per, self.at.hi * per, f64::INFINITY);
        // The points evaluated nearest the root, in fs/B steps: the secant's ends.
        (self.below_at.0, self.above_at.0) = (self.below_at.0 * per, self.above_at.0 * per);
        self.grid.onto_edges(&mut self.at);
    }

    /// Whether this search's first step can wait for that of `other`, a search of
    /// the same parameter with a larger ε: on a whole-ps grid, where T is one line up
    /// to the larger one's step, that step answers this one too; flat at x0, where
    /// the first steps are far bounds, the larger one's line bounds this one as well
    /// (not where each starts on the steepest path's own line: that is nearer).
    pub fn waits_for(&self, other: &Search) -> bool {
        (self.line.is_some() || (self.flat && self.shares() && !self.steep_line))
            && self.steps == 0
            && other.steps == 0
            && !other.at.done
            && other.at.target > self.at.target
    }

    /// The tolerance found: a whole number of grid steps where the parameter has one
    /// (by a count's price: the last fs/B priced at most the price found).
    pub fn delta(&self) -> f64 {
        match self.grid.delta(self.at.lo) {
            Some(d) => d,
            None if self.floats.is_some() => Floats::delta(&self.at),
            None => self.at.lo - self.at.x0,
        }
    }

    /// Where T and its slope going down are wanted next: the step, then `between`
    /// points between the largest known below the target and the step.
    pub fn points(&self, between: usize) -> Vec<f64> {
        if let Some(f) = &self.floats {
            return f.points(&self.at, 1 + between);
        }
        if self.grid.unit.is_some_and(|g| g < 1.0) {
            // Per fs/B: the edges either side of the secant's estimate (T is a
            // staircase within a few ps of its lines, so the root is near it), then
            // the m edges known to hold the root cut as evenly (m + 1 answers, the
            // last `hi` − 1), the smaller counts' first; where every step is an edge,
            // the span's steps lo + ⌊span·j / (n + 1)⌋. The cut alone halves the
            // span each pass; the secant's edges end most searches in two or three.
            let edges = self.grid.edges_between(self.at.lo, self.at.hi);
            let mut points = self.around_secant(&edges);
            let cut = cut_edges(&edges, |u| self.grid.coarse(u), (between + 1).saturating_sub(points.len()).max(1));
            for u in cut {
                if !points.contains(&u) {
                    points.push(u);
                }
            }
            return points.into_iter().map(|u| self.grid.value(u)).collect();
        }
        let mut points = vec![self.grid.value(self.at.next)];
        let (lo, span) = (self.at.lo, self.at.next - self.at.lo);
        for j in 1..=between {
            let mut u = lo + span * j as f64 / (between + 1) as f64;
            if self.grid.unit.is_some() {
                u = u.floor();
                if u <= lo || u >= self.at.next || points.contains(&self.grid.value(u)) {
                    continue;
                }
            }
            points.push(self.grid.value(u));
        }
        points
    }

    /// Whether its points need T's slope going down: not where it cuts stair edges
    /// (per fs/B, or of the computations' prices: learning from T alone).
    pub fn wants_slopes(&self) -> bool {
        if self.on_cpu_edges() {
            return false;
        }
        self.grid.unit.is_none_or(|g| g >= 1.0)
    }

    /// Off any grid, with few edges in the bracket: the search cuts edges (T alone).
    fn on_cpu_edges(&self) -> bool {
        self.floats.is_some_and(|f| f.on_edges(&self.at))
    }

    /// How many points between a step takes where no lane is spare (none where it
    /// halves a span already).
    pub fn between(&self) -> usize {
        if self.floats.is_some() {
            // Its estimate (or a cut of the edges with the edge before it), then a
            // second: more lanes would take radix's rounds past one pass.
            return usize::from(self.steps >= PLAIN_STEPS);
        }
        if self.grid.unit.is_some_and(|g| g < 1.0) {
            // A smaller count's edge and the edge before it, where the span has one;
            // the edges around the secant's estimate.
            let edges = self.grid.edges_between(self.at.lo, self.at.hi);
            return usize::from(any_coarse(&edges, |u| self.grid.coarse(u))) + self.around_secant(&edges).len();
        }
        usize::from(self.steps >= PLAIN_STEPS && self.grid.unit.is_none_or(|g| g >= 1.0))
    }

    /// Take T and its slope going down at each of `points` (from [`Search::points`]).
    pub fn step(&mut self, points: &[f64], evals: &[Eval]) {
        self.stepped();
        if self.floats.is_some() {
            return self.learn(&known(points, evals));
        }
        match self.grid.unit {
            Some(_) => self.learn(&known(points, evals)),
            None => self.at.newton_on_floats(points, evals),
        }
    }

    /// Count a pass this search had points in.
    pub fn stepped(&mut self) {
        self.steps += 1;
    }

    /// At most `limit` passes (tests reach the bound with a small one).
    pub fn within(self, limit: usize) -> Search {
        Search { limit, ..self }
    }

    /// After a pass: a search still open at its bound stops with what it knows (its
    /// answer the largest Δx known to hold, [`Search::at_most`] the rest).
    pub fn check_bound(&mut self) {
        if !self.at.done && self.steps >= self.limit {
            (self.at.done, self.bounded) = (true, true);
        }
    }

    /// Where the search stopped at its bound: the largest Δx not known to pass the
    /// target (infinite where no point past it was found); `None` where it ended by
    /// finding the tolerance.
    pub fn at_most(&self) -> Option<f64> {
        if !self.bounded {
            return None;
        }
        if !self.at.hi.is_finite() {
            return Some(f64::INFINITY);
        }
        Some(self.grid.below(self.at.hi).unwrap_or_else(|| self.at.hi.next_down() - self.at.x0))
    }

    /// Whether the search learns from every point of its parameter: on a grid (whole
    /// ps, whole ps/B from x0, or fs/B), never off it (1/cpu_speed steps on floats).
    pub fn shares(&self) -> bool {
        self.grid.unit.is_some() || self.floats.is_some()
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
        if let Some(f) = self.floats.as_mut() {
            return f.learn(&mut self.at, known);
        }
        let Some(g) = self.grid.unit.filter(|_| !self.at.done) else { return };
        if g < 1.0 {
            for &(v, t, _) in known {
                let k = ((v - self.at.x0) / g).round();
                if t <= self.whole_target {
                    self.at.lo = self.at.lo.max(k);
                    if k > self.below_at.0 {
                        self.below_at = (k, t);
                    }
                } else {
                    self.at.hi = self.at.hi.min(k);
                    if k < self.above_at.0 {
                        self.above_at = (k, t);
                    }
                }
            }
            self.grid.onto_edges(&mut self.at);
            return;
        }
        let mut bound = f64::INFINITY;
        // Points of this grid alone (those of another search already on fs/B are not).
        let on_grid: Vec<_> =
            known.iter().filter_map(|&(v, t, slope)| Some((self.grid.steps_of(v)?, t, slope))).collect();
        for (k, t, slope) in on_grid {
            if t <= self.whole_target {
                self.at.lo = self.at.lo.max(k);
                if k > self.below_at.0 {
                    self.below_at = (k, t);
                }
                if slope > 0.0 {
                    // T is at least its tangent here (convex, the slope going down a
                    // subgradient): past where that line reaches the target, T is above it.
                    bound = bound.min(k + (self.whole_target - t) / self.grid.per_step(slope));
                }
            } else {
                self.at.hi = self.at.hi.min(k);
                if k < self.above_at.0 {
                    self.above_at = (k, t);
                }
                if slope > 0.0 {
                    // The line of T's piece left of k reaches the target at this bound.
                    bound = bound.min(k - (t - self.whole_target) / self.grid.per_step(slope));
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
                self.at.lo = self.at.lo.max(on.min(k));
                if on < k {
                    self.at.hi = self.at.hi.min(on + 1.0);
                }
            }
        }
        self.at.lo = self.at.lo.max(self.chord());
        if self.at.hi <= self.at.lo + 1.0 {
            self.at.done = true;
            self.refine();
            return;
        }
        self.aim(bound);
    }

    /// Per fs/B, of `edges` (those strictly inside the bracket, in order): the last at
    /// or below where the chord between the points evaluated nearest the root
    /// reaches the target, and the first above it; none where no point above the
    /// target is evaluated yet. Only where to look: the answer rests on the steps
    /// evaluated, as by the cut alone.
    fn around_secant(&self, edges: &[f64]) -> Vec<f64> {
        let ((a, ta), (b, tb)) = (self.below_at, self.above_at);
        if !b.is_finite() || tb <= ta || b <= a || edges.is_empty() {
            return Vec::new();
        }
        let estimate = a + (self.whole_target - ta) * (b - a) / (tb - ta);
        let i = edges.partition_point(|&e| e <= estimate);
        [i.checked_sub(1).map(|j| edges[j]), edges.get(i).copied()].into_iter().flatten().collect()
    }

    /// On a grid where T is a maximum of lines (convex): T is at most the chord
    /// between two steps evaluated, so the last step where that chord is at or below
    /// the target is too (no pass needed to know it). In integers: T, the target and
    /// the steps are whole (below 2^53), their products below 2^106.
    fn chord(&self) -> f64 {
        let ((a, ta), (b, tb)) = (self.below_at, self.above_at);
        if !b.is_finite() || tb <= ta || b <= a + 1.0 {
            return a;
        }
        let (ta, tb, w) = (ta as i128, tb as i128, self.whole_target as i128);
        let span = (b - a) as i128;
        // The largest d with ta·span + (tb − ta)·d ≤ w·span.
        let d = (w - ta) * span / (tb - ta);
        a + d.clamp(0, span - 1) as f64
    }
}

/// `points` and their evaluations as (value, T, slope going down).
pub(crate) fn known(points: &[f64], evals: &[Eval]) -> Vec<(f64, f64, f64)> {
    points.iter().zip(evals).map(|(&v, e)| (v, e.makespan, e.slope_down)).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::record_schedule;
    use crate::engine::RunOptions;
    use crate::schedule::{Schedule, ScheduleBuilder};
    use crate::time::NS;

    /// Seven pairs of ranks, pair j computing, then playing j + 1 one-byte ping-pongs:
    /// T(L) has a corner every half µs or so, so L's searches take several passes.
    pub(crate) fn ladder() -> Schedule {
        let mut b = ScheduleBuilder::new(14);
        for j in 0..7u32 {
            let (a, z, trips) = (2 * j, 2 * j + 1, u64::from(j) + 1);
            let mut last = b.calc(a, (131_000 - 1000 * trips * trips - 11_000 * trips) * NS, 0);
            for t in 0..trips as i32 {
                let send = b.send(a, z, 1, t, 0, 0);
                b.requires(send, last);
                let got = b.recv(z, a as i32, 1, t, 0, 0);
                let back = b.send(z, a, 1, t, 0, 0);
                b.requires(back, got);
                last = b.recv(a, z as i32, 1, t, 0, 0);
                b.requires(last, send);
            }
        }
        b.build().expect("a schedule")
    }

    #[test]
    fn a_search_stopped_at_its_bound_answers_an_interval_around_the_tolerance() {
        let p = crate::platform::presets::get("loggopsim").expect("a preset");
        let s = ladder();
        let (_, g) = record_schedule(&s, &p, &RunOptions::default(), &mut |_| true).expect("it runs");
        let base = Point::of(&p);
        let params: Vec<Param> = Param::all(&p);
        let eps = [0.01, 0.02, 0.05, 0.10];
        let exact = g.analyze(&base, &params, &eps);
        let passes = exact.newton_passes.len();
        assert!(passes >= 3, "{passes} passes");
        assert!(exact.params.iter().all(|ps| ps.at_most.iter().all(Option::is_none)));
        // Every bound short of what the searches need: each tolerance not found is an
        // interval holding the exact answer; the bound on passes is kept.
        let mut stopped = 0;
        for limit in 1..passes {
            let a = g.analyze_within(&base, &params, &eps, limit);
            // Each search at most `limit` passes (one waiting for another starts later).
            assert!(a.newton_passes.len() <= limit * eps.len(), "limit {limit}: {:?}", a.newton_passes);
            for (ps, want) in a.params.iter().zip(&exact.params) {
                for ((&(_, got), most), &(e, exact)) in ps.tolerances.iter().zip(&ps.at_most).zip(&want.tolerances) {
                    let (Some(got), Some(exact)) = (got, exact) else { continue };
                    match most {
                        None => assert_eq!(got, exact, "{} ε={e} limit {limit}", ps.param.name()),
                        Some(most) => {
                            stopped += 1;
                            assert!(got <= exact && exact <= *most, "{} ε={e}: {got} {exact} {most}", ps.param.name());
                        }
                    }
                }
            }
        }
        assert!(stopped > 0);
        // The report says so: the interval's top beside the tolerance (null: none found).
        use crate::analysis::answer::report::tolerance_json;
        assert_eq!(tolerance_json(0.01, Some(5.0), None).to_string(), r#"{"delta":5.0,"epsilon":0.01}"#);
        let t = tolerance_json(0.01, Some(5.0), Some(9.0));
        assert_eq!((t["delta"].as_f64(), t["delta_at_most"].as_f64()), (Some(5.0), Some(9.0)));
        assert!(tolerance_json(0.01, Some(5.0), Some(f64::INFINITY))["delta_at_most"].is_null());
    }
}
