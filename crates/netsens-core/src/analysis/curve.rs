//! A parameter's exact curve T(x) and its tolerance: while the recorded order of
//! events holds, T is the largest of the paths' lines in x (convex, piecewise
//! linear), so its pieces are found by intersecting the lines at the ends of an
//! interval and evaluating there, and the largest x with T ≤ (1 + ε)·T0 by Newton
//! steps, each of which lands on the next piece. Where only some values of x are
//! wanted, T there comes from the batched passes, every value a lane.

use super::batch::{Lane, Slots, SteepestLine};
use super::cpu_stairs::ComputeSizes;
use super::eval::{Buffers, Coef, Eval, Price};
use super::graph::ExecGraph;
use super::params::{Param, Point};
use super::stairs::{any_coarse, cut_edges, Stairs};

/// The curve's corners, and the ends of the range, as (x, T in ps), x increasing.
pub type Curve = Vec<(f64, f64)>;

/// Pieces a curve is not split into more of (a bound, never reached by a program
/// whose matching does not depend on timing over a sane range): past it the curve
/// ends with the pieces found and says so ([`ExecGraph::curve_within`]).
pub const MAX_PIECES: usize = 4096;

/// Passes a tolerance's search takes at most (each evaluates all its points at
/// once). Newton's steps land on a new piece of T each pass and the brackets at
/// least halve, so a search needs some tens; past the bound it stops with what it
/// knows: the largest Δx known to hold (its answer, "at least") and the largest not
/// yet known to fail ([`Search::at_most`]), instead of stepping on.
pub const MAX_SEARCH_STEPS: usize = 4096;

impl ExecGraph {
    /// T(x) on [lo, hi] at `base`'s other values: every corner in the range (up to
    /// [`MAX_PIECES`]).
    pub fn curve(&self, base: &Point, x: Param, lo: f64, hi: f64, buf: &mut Buffers) -> Curve {
        self.curve_within(base, x, lo, hi, buf, MAX_PIECES).0
    }

    /// T(x) on [lo, hi], split into at most `max_pieces` pieces, and whether that
    /// bound cut it short (then the last pieces are chords: T is at or below them).
    pub fn curve_within(
        &self,
        base: &Point,
        x: Param,
        lo: f64,
        hi: f64,
        buf: &mut Buffers,
        max_pieces: usize,
    ) -> (Curve, bool) {
        let mut cut = false;
        let a = self.eval(&base.with(x, lo), x, buf);
        let b = self.eval(&base.with(x, hi), x, buf);
        let mut out = vec![(lo, a.makespan)];
        let mut stack = vec![((lo, a.makespan, a.slope_up), (hi, b.makespan, b.slope_down))];
        while let Some(((xa, ta, sa), (xb, tb, sb))) = stack.pop() {
            // The two end lines meet at xm; if T is on them there, T is their maximum.
            if sb - sa <= 0.0 {
                out.push((xb, tb));
                continue;
            }
            if out.len() > max_pieces {
                cut = true;
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
        (out, cut)
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
        let per_byte = x.grid().is_some_and(|g| g < 1.0);
        let found = (per_byte || x == Param::CpuTime).then(|| self.node_sizes());
        let stairs = found.as_ref().filter(|_| per_byte).map(|f| Stairs::of(&f.counts, base, x));
        let sizes = found.and_then(|f| f.sizes).filter(|_| x == Param::CpuTime);
        let mut search = Search::start(self, base, x, e0, eps, None, stairs)?.with_sizes(sizes);
        while !search.done {
            let points = search.points(search.between());
            let evals: Vec<Eval> = points.iter().map(|&v| self.eval(&base.with(x, v), x, buf)).collect();
            search.step(&points, &evals);
            search.check_bound();
        }
        Some(search.delta())
    }

    /// The steepest path's line in x ([`SteepestLine`]): T's slope as x grows without
    /// bound, node by node (the batched pass's second method).
    pub fn steepest(&self, base: &Point, x: Param) -> SteepestLine {
        let (far, zero) = (base.with(x, 1e30), base.with(x, 0.0));
        let mut best: Vec<(f64, f64)> = Vec::with_capacity(self.nodes.len());
        for v in 0..self.nodes.len() {
            let (preds, _) = self.preds_of(v);
            let b = preds.iter().map(|&q| best[q as usize]).fold((0.0, 0.0), |a, q| if q > a { q } else { a });
            let n = self.node(v);
            let level = self.level_of(&n);
            let coef = Coef::of(n.kind, level as u8, &far, x);
            let price = Price::of(n.kind, &zero.levels[level], &zero);
            // A rate per byte of x: its price's fixed part at x = 0.
            let own = if coef.up.1 > 0.0 { price.fixed } else { price.cost(n.kind, n.bytes as f64) };
            let noise = self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64;
            best.push((b.0 + coef.at(n.bytes as f64).1, b.1 + own + noise));
        }
        let (slope, at_zero) = best[self.sink as usize];
        SteepestLine { slope, at_zero }
    }
}

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
    pub x0: f64,
    /// The grid searched now: the parameter's ([`Param::grid`]), 1 ps/B while a
    /// per-byte cost is searched on whole ps/B, `None` where it has none or the
    /// answer would be beyond 2^52 steps.
    grid: Option<f64>,
    /// The fs/B grid a per-byte cost goes on to once its root is within one ps/B.
    fine: Option<f64>,
    /// Where every node it prices has one byte count: its grid is whole ps of their
    /// price, from x0's.
    count: Option<Count>,
    /// Where T can rise on the fs/B grid, and x0 in fs/B (the edges are by the fs/B
    /// value, the steps from x0).
    stairs: Stairs,
    fs0: u64,
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
    /// Flat at x0, the first step is where the steepest path's own line reaches the
    /// target (each ε its own), not a far bound shared by them.
    steep_line: bool,
    pub done: bool,
    steps: usize,
    /// Passes it takes at most ([`MAX_SEARCH_STEPS`]), and whether it stopped there.
    limit: usize,
    bounded: bool,
    /// Off any grid: the sizes of the computations, where few (their edges bracket
    /// the root); with T at `lo`, T and its slope going down at `hi`, and the next
    /// point known above the target (value, T) for a secant (T infinite: not
    /// evaluated, `hi` a bound).
    sizes: Option<ComputeSizes>,
    t_lo: f64,
    t_hi: f64,
    slope_hi: f64,
    above: (f64, f64),
    /// On a grid where T is a maximum of lines: the largest step evaluated at or
    /// below the target and the least above it, with T there (their chord bounds
    /// the root from below).
    below_at: (f64, f64),
    above_at: (f64, f64),
}

/// A per-byte cost whose nodes all have one byte count b: at x fs/B each costs its
/// price y = ⌊(b·x + 500) / 1000⌋ ps, so T depends on x only through y, and is a
/// maximum of lines in y (a path's constant plus y for each of its nodes of b bytes),
/// searched on whole y as on whole ps.
#[derive(Clone, Copy, Debug)]
struct Count {
    bytes: u64,
    /// The price at x0.
    y0: u64,
}

impl Count {
    fn at(bytes: u64, fs0: u64) -> Count {
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
            x0,
            grid,
            fine,
            count,
            stairs: stairs.unwrap_or_else(Stairs::every),
            fs0,
            target,
            whole_target: target.floor(),
            next: 0.0,
            lo: if grid.is_some() { 0.0 } else { x0 },
            hi: f64::INFINITY,
            bound: f64::INFINITY,
            line: None,
            flat: e0.slope_up <= 0.0,
            steep_line: false,
            done: false,
            steps: 0,
            limit: MAX_SEARCH_STEPS,
            bounded: false,
            sizes: None,
            t_lo: e0.makespan,
            t_hi: f64::INFINITY,
            slope_hi: 0.0,
            above: (f64::INFINITY, f64::INFINITY),
            below_at: (0.0, e0.makespan),
            above_at: (f64::INFINITY, f64::INFINITY),
        };
        match (grid, count, steepest) {
            (Some(_), _, None) => {
                let slope = s.per_step(e0.slope_up);
                s.line = Some((e0.makespan, slope));
                s.aim((s.whole_target - e0.makespan) / slope)
            }
            // The steepest path's n nodes of the count cost at least n·y each beside
            // their fixed part, its other nodes what they cost at y = 0: T ≥ its line.
            (Some(_), Some(c), Some(steepest)) => {
                s.steep_line = true;
                s.aim((target - steepest.at_zero) / s.per_step(steepest.slope) - c.y0 as f64)
            }
            // Where x's products are whole ps at every step (a time in ps, or whole
            // ps/B from a whole x0), T is at least the steepest path's line; else only
            // its slope is safe (a product rounded down may take half a ps a node).
            (Some(g), None, Some(steepest)) => {
                s.steep_line = !per_byte || x0.fract() == 0.0;
                let on_line = (target - steepest.at_zero) / steepest.slope;
                s.aim((if s.steep_line { on_line.min(bound) } else { bound } - x0) / g)
            }
            (None, ..) => s.next = bound,
        }
        Some(s)
    }

    /// Off any grid, with the sizes of the computations (`None`: today's Newton steps).
    ///
    /// The first step is where the line of a path P through T0 at x0 (with slope s,
    /// n computations) meets the target. Each of P's prices is within half a ps of
    /// c·x, so T(x) ≥ P(x) ≥ T0 + s·(x − x0) − n, and the root is at most the first
    /// step plus n/s ≤ 1/(smallest size) (from a flat x0, P's constant is ≥ 0: the
    /// same): every float above that (and a hair for the floats' error) is above the
    /// target. With one computation size the bracket then holds one edge, its answer.
    pub fn with_sizes(self, sizes: Option<ComputeSizes>) -> Search {
        let sizes = sizes.filter(|_| self.grid.is_none());
        let cap = |s: ComputeSizes| self.next + (1.0 + 1e-9) / s.smallest() + 4.0 * f64::EPSILON * self.next;
        let hi = match sizes.map(cap) {
            Some(cap) if cap.is_finite() && cap > self.lo => cap.next_up(),
            _ => self.hi,
        };
        Search { sizes, hi, ..self }
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
    /// (A search stopped at its bound ends where it is: see [`Search::check_bound`].)
    fn refine(&mut self) {
        let Some(fine) = self.fine.filter(|_| self.done && self.hi <= self.lo + 1.0) else { return };
        let per = (self.grid.unwrap_or(1.0) / fine).round();
        (self.grid, self.fine, self.line, self.flat) = (Some(fine), None, None, false);
        (self.lo, self.hi, self.bound) = (self.lo * per, self.hi * per, f64::INFINITY);
        self.onto_edges();
    }

    /// Whether T can rise from step `u − 1` to `u` on the fs/B grid.
    fn rises(&self, u: f64) -> bool {
        self.stairs.rises(self.fs0 + u as u64)
    }

    /// On the fs/B grid: T is flat from `lo` to the step before the next edge, and
    /// `hi`'s T is that of the last edge at or below it; done when they are
    /// neighbours.
    fn onto_edges(&mut self) {
        let next = (self.lo as u64 + 1..self.hi as u64).find(|&u| self.rises(u as f64));
        self.lo = next.map_or(self.hi, |u| u as f64) - 1.0;
        if let Some(u) = (self.lo as u64 + 1..=self.hi as u64).rev().find(|&u| self.rises(u as f64)) {
            self.hi = u as f64;
        }
        self.done = self.hi <= self.lo + 1.0;
    }

    /// Whether step `u` is an edge of a smaller count (see [`cut_edges`]).
    fn coarse_fs(&self, u: f64) -> bool {
        self.stairs.coarse(self.fs0 + u as u64)
    }

    /// On the fs/B grid: the edges strictly between `lo` and `hi`, where T is not known.
    fn edges_between(&self) -> Vec<f64> {
        (self.lo as u64 + 1..self.hi as u64).map(|u| u as f64).filter(|&u| self.rises(u)).collect()
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
            && !other.done
            && other.target > self.target
    }

    /// The value of `u` (grid steps, or the value off the grid).
    fn value(&self, u: f64) -> f64 {
        match (self.count, self.grid) {
            (Some(c), _) => c.first_fs(c.y0 + u as u64) as f64 / 1000.0,
            (None, Some(g)) => self.x0 + u * g,
            (None, None) => u,
        }
    }

    /// The grid steps of value `v`, where it is on the grid.
    fn steps_of(&self, v: f64) -> Option<f64> {
        match (self.count, self.grid) {
            (Some(c), _) => Some(c.price((v * 1000.0).round() as u64) as f64 - c.y0 as f64),
            (None, Some(g)) => Some((v - self.x0) / g).filter(|u| (u - u.round()).abs() < 1e-6).map(f64::round),
            (None, None) => None,
        }
    }

    /// T's slope per grid step, from its slope in x: a path through n nodes of the
    /// count has slope n·count in x and n in their price.
    fn per_step(&self, slope: f64) -> f64 {
        match (self.count, self.grid) {
            (Some(c), _) => slope / c.bytes as f64,
            (None, g) => slope * g.unwrap_or(1.0),
        }
    }

    /// The tolerance found: a whole number of grid steps where the parameter has one
    /// (by a count's price: the last fs/B priced at most the price found).
    pub fn delta(&self) -> f64 {
        match (self.count, self.grid) {
            (Some(c), _) => (c.first_fs(c.y0 + self.lo as u64 + 1) - 1 - self.fs0) as f64 * 0.001,
            (None, Some(g)) => self.lo * g,
            (None, None) if self.sizes.is_some() => {
                // x0 + Δx must not round past the float found.
                let mut d = self.lo - self.x0;
                while d > 0.0 && self.x0 + d > self.lo {
                    d = d.next_down();
                }
                d
            }
            (None, None) => self.lo - self.x0,
        }
    }

    /// Where T and its slope going down are wanted next: the step, then `between`
    /// points between the largest known below the target and the step.
    pub fn points(&self, between: usize) -> Vec<f64> {
        if self.sizes.is_some() {
            return self.float_points(1 + between);
        }
        if self.grid.is_some_and(|g| g < 1.0) {
            // Per fs/B: the m edges known to hold the root (m + 1 answers, the last
            // `hi` − 1), the smaller counts' first; where every step is an edge, the
            // span's steps lo + ⌊span·j / (n + 1)⌋.
            let edges = self.edges_between();
            return cut_edges(&edges, |u| self.coarse_fs(u), between + 1).into_iter().map(|u| self.value(u)).collect();
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

    /// Whether its points need T's slope going down: not where it cuts stair edges
    /// (per fs/B, or of the computations' prices: learning from T alone).
    pub fn wants_slopes(&self) -> bool {
        if self.on_cpu_edges() {
            return false;
        }
        self.grid.is_none_or(|g| g >= 1.0)
    }

    /// Off any grid, with few edges in the bracket: the search cuts edges (T alone).
    fn on_cpu_edges(&self) -> bool {
        self.sizes.is_some_and(|s| s.edges_in(self.lo, self.hi).is_some())
    }

    /// How many points between a step takes where no lane is spare (none where it
    /// halves a span already).
    pub fn between(&self) -> usize {
        if self.sizes.is_some() {
            // Its estimate (or a cut of the edges with the edge before it), then a
            // second: more lanes would take radix's rounds past one pass.
            return usize::from(self.steps >= PLAIN_STEPS);
        }
        if self.grid.is_some_and(|g| g < 1.0) {
            // A smaller count's edge and the edge before it, where the span has one.
            return usize::from(any_coarse(&self.edges_between(), |u| self.coarse_fs(u)));
        }
        usize::from(self.steps >= PLAIN_STEPS && self.grid.is_none_or(|g| g >= 1.0))
    }

    /// Take T and its slope going down at each of `points` (from [`Search::points`]).
    pub fn step(&mut self, points: &[f64], evals: &[Eval]) {
        self.stepped();
        if self.sizes.is_some() {
            return self.learn(&known(points, evals));
        }
        match self.grid {
            Some(_) => self.learn(&known(points, evals)),
            None => self.step_off_grid(points, evals),
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
        if !self.done && self.steps >= self.limit {
            (self.done, self.bounded) = (true, true);
        }
    }

    /// Where the search stopped at its bound: the largest Δx not known to pass the
    /// target (infinite where no point past it was found); `None` where it ended by
    /// finding the tolerance.
    pub fn at_most(&self) -> Option<f64> {
        if !self.bounded {
            return None;
        }
        if !self.hi.is_finite() {
            return Some(f64::INFINITY);
        }
        Some(match (self.count, self.grid) {
            (Some(c), _) => (c.first_fs(c.y0 + self.hi as u64) - 1).saturating_sub(self.fs0) as f64 * 0.001,
            (None, Some(g)) => (self.hi - 1.0) * g,
            (None, None) => self.hi.next_down() - self.x0,
        })
    }

    /// Whether the search learns from every point of its parameter: on a grid (whole
    /// ps, whole ps/B from x0, or fs/B), never off it (1/cpu_speed steps on floats).
    pub fn shares(&self) -> bool {
        self.grid.is_some() || self.sizes.is_some()
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
        if self.sizes.is_some() {
            return self.learn_floats(known);
        }
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
            self.onto_edges();
            return;
        }
        let mut bound = f64::INFINITY;
        // Points of this grid alone (those of another search already on fs/B are not).
        let on_grid: Vec<_> = known.iter().filter_map(|&(v, t, slope)| Some((self.steps_of(v)?, t, slope))).collect();
        for (k, t, slope) in on_grid {
            if t <= self.whole_target {
                self.lo = self.lo.max(k);
                if k > self.below_at.0 {
                    self.below_at = (k, t);
                }
                if slope > 0.0 {
                    // T is at least its tangent here (convex, the slope going down a
                    // subgradient): past where that line reaches the target, T is above it.
                    bound = bound.min(k + (self.whole_target - t) / self.per_step(slope));
                }
            } else {
                self.hi = self.hi.min(k);
                if k < self.above_at.0 {
                    self.above_at = (k, t);
                }
                if slope > 0.0 {
                    // The line of T's piece left of k reaches the target at this bound.
                    bound = bound.min(k - (t - self.whole_target) / self.per_step(slope));
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
        self.lo = self.lo.max(self.chord());
        if self.hi <= self.lo + 1.0 {
            self.done = true;
            self.refine();
            return;
        }
        self.aim(bound);
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

    /// Off any grid, with the computations' sizes: T never falls as x grows, so a
    /// point at or below the target raises `lo`, one above lowers `hi`. Once the
    /// bracket holds few edges, `lo` moves up to the float before the first edge
    /// above it and `hi` down to the last edge at or below it (T is flat between
    /// edges: neither's T changes); done when `hi` is the float after `lo`.
    fn learn_floats(&mut self, known: &[(f64, f64, f64)]) {
        if self.done {
            return;
        }
        for &(v, t, slope) in known {
            if t <= self.target {
                if v > self.lo {
                    (self.lo, self.t_lo) = (v, t);
                }
            } else if v < self.hi {
                self.above = (self.hi, self.t_hi);
                (self.hi, self.t_hi, self.slope_hi) = (v, t, slope);
            } else if v > self.hi && v < self.above.0 {
                self.above = (v, t);
            }
        }
        let edges = self.sizes.and_then(|s| s.edges_in(self.lo, self.hi));
        if let Some(&first) = edges.as_ref().and_then(|e| e.first()) {
            self.hi = *edges.as_ref().and_then(|e| e.last()).expect("an edge");
            self.lo = self.lo.max(first.next_down());
        }
        if self.hi <= self.lo.next_up() || edges.is_some_and(|e| e.is_empty()) {
            self.done = true;
        }
        if !self.hi.is_finite() && self.next <= self.lo {
            // The first step fell short (T's stairs are under its lines): twice as far.
            self.next = self.lo + (self.lo - self.x0).max(self.lo * f64::EPSILON);
        }
    }

    /// Off any grid, with the computations' sizes: `n` points. Where the bracket
    /// holds few edges, the edges cut as per byte ([`cut_edges`]: the smaller sizes'
    /// first, each with the edge before it; T is flat between them); elsewhere the
    /// estimates of the root (a secant through the two least points above the
    /// target, Newton's step from the least, the chord between `lo` and `hi`), then
    /// points spread through the bracket.
    fn float_points(&self, n: usize) -> Vec<f64> {
        let (lo, hi) = (self.lo, self.hi);
        let mut points = Vec::with_capacity(n);
        let add = |points: &mut Vec<f64>, v: f64| {
            if points.len() < n && !points.contains(&v) {
                points.push(v);
            }
        };
        match self.sizes.and_then(|s| s.edges_in(lo, hi)) {
            Some(mut edges) => {
                // The edges strictly inside (T at `hi` is known), the smaller sizes'
                // first: the stairs are too uneven for the estimates to beat that
                // (radix: thousands of ps at one edge where sizes share it).
                edges.retain(|&e| e < hi);
                let sizes = self.sizes.expect("with sizes");
                for p in cut_edges(&edges, |e| sizes.coarse(e), n) {
                    add(&mut points, p);
                }
            }
            None => {
                let mut estimates = Vec::new();
                if self.t_hi.is_finite() {
                    let (v2, t2) = self.above;
                    if t2.is_finite() && t2 > self.t_hi {
                        estimates.push(hi - (self.t_hi - self.target) * (v2 - hi) / (t2 - self.t_hi));
                    }
                    if self.slope_hi > 0.0 {
                        estimates.push(hi - (self.t_hi - self.target) / self.slope_hi);
                    }
                    estimates.push(lo + (self.target - self.t_lo) * (hi - lo) / (self.t_hi - self.t_lo));
                } else {
                    estimates.push(self.next);
                }
                // Each estimate inside the bracket, and as far again from `hi` (T's
                // stairs may give half the drop a line expects).
                for x in estimates.into_iter().filter(|&x| x > lo && x < hi) {
                    add(&mut points, x);
                    add(&mut points, (hi - 2.0 * (hi - x)).max(lo + (x - lo) / 2.0));
                }
                if hi.is_finite() {
                    for j in 1..=n {
                        add(&mut points, lo + (hi - lo) * j as f64 / (n + 1) as f64);
                    }
                }
            }
        }
        if points.is_empty() {
            points.push(self.next);
        }
        points
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

/// `points` and their evaluations as (value, T, slope going down).
pub(crate) fn known(points: &[f64], evals: &[Eval]) -> Vec<(f64, f64, f64)> {
    points.iter().zip(evals).map(|(&v, e)| (v, e.makespan, e.slope_down)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::record_schedule;
    use crate::engine::RunOptions;
    use crate::schedule::{Schedule, ScheduleBuilder};
    use crate::time::NS;

    /// Seven pairs of ranks, pair j computing, then playing j + 1 one-byte ping-pongs:
    /// T(L) has a corner every half µs or so, so L's searches take several passes.
    fn ladder() -> Schedule {
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
        use crate::analysis::report::tolerance_json;
        assert_eq!(tolerance_json(0.01, Some(5.0), None).to_string(), r#"{"delta":5.0,"epsilon":0.01}"#);
        let t = tolerance_json(0.01, Some(5.0), Some(9.0));
        assert_eq!((t["delta"].as_f64(), t["delta_at_most"].as_f64()), (Some(5.0), Some(9.0)));
        assert!(tolerance_json(0.01, Some(5.0), Some(f64::INFINITY))["delta_at_most"].is_null());
    }

    #[test]
    fn a_curve_cut_at_its_bound_of_pieces_says_so() {
        let p = crate::platform::presets::get("loggopsim").expect("a preset");
        let (_, g) = record_schedule(&ladder(), &p, &RunOptions::default(), &mut |_| true).expect("it runs");
        let (base, l, mut buf) = (Point::of(&p), Param::Latency(1), Buffers::default());
        let (whole, cut) = g.curve_within(&base, l, 0.0, 20e6, &mut buf, MAX_PIECES);
        assert!(!cut && whole.len() > 6, "{} corners", whole.len());
        let (short, cut) = g.curve_within(&base, l, 0.0, 20e6, &mut buf, 3);
        assert!(cut && short.len() < whole.len());
        // A chord of a convex curve is at or above it: every corner left out is below.
        for &(x, t) in &whole {
            let i = short.iter().position(|&(sx, _)| sx >= x).expect("within the range");
            let ((x0, t0), (x1, t1)) = (short[i.saturating_sub(1)], short[i]);
            let chord = if x1 > x0 { t0 + (t1 - t0) * (x - x0) / (x1 - x0) } else { t1 };
            assert!(t <= chord + 1e-6 * chord, "at {x}: T {t}, the cut curve {chord}");
        }
    }
}
