//! A parameter's exact curve T(x), and T at values asked for: while the recorded
//! order of events holds, T is the largest of the paths' lines in x (convex,
//! piecewise linear), so its pieces are found by intersecting the lines at the ends
//! of an interval and evaluating there. Where only some values of x are wanted, T
//! there comes from the batched passes, every value a lane. Apart from the
//! tolerance's search (`search.rs`), which steps towards one value instead.

use super::search::Search;
use crate::analysis::passes::eval::{Buffers, Eval};
use crate::analysis::passes::lanes::Lane;
use crate::analysis::passes::steepest::SteepestLine;
use crate::analysis::prices::price::{Coef, Price};
use crate::analysis::prices::stairs::Stairs;
use crate::analysis::record::graph::ExecGraph;
use crate::analysis::record::params::{Param, Point};
use crate::analysis::record::slots::Slots;

/// The curve's corners, and the ends of the range, as (x, T in ps), x increasing.
pub type Curve = Vec<(f64, f64)>;

/// Pieces a curve is not split into more of (a bound, never reached by a program
/// whose matching does not depend on timing over a sane range): past it the curve
/// ends with the pieces found and says so ([`ExecGraph::curve_within`]).
pub const MAX_PIECES: usize = 4096;

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
        while !search.at.done {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::record_schedule;
    use crate::analysis::searches::search::tests::ladder;
    use crate::engine::RunOptions;

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
