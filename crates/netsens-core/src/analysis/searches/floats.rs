//! A search off any grid (1/cpu_speed) where the program's computations have few
//! sizes: T is a staircase whose edges those sizes set ([`ComputeSizes`]), so the
//! search brackets the root between floats evaluated, steps by secants, Newton and
//! the bracket's chord, and once the bracket holds few edges tries the edges alone
//! (the smaller sizes' first), down to the float just below the first edge above
//! the target. Apart from the grid's search: it learns from T at floats, not steps.

use super::bracket::Bracket;
use crate::analysis::prices::cpu_stairs::ComputeSizes;
use crate::analysis::prices::stairs::cut_edges;

/// What the search on floats knows beside its bracket.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Floats {
    /// The computations' sizes (their edges bracket the root).
    pub sizes: ComputeSizes,
    /// T at the bracket's `lo`; T and its slope going down at its `hi`; and the next
    /// point known above the target (value, T) for a secant (T infinite: not
    /// evaluated, `hi` a bound).
    t_lo: f64,
    t_hi: f64,
    slope_hi: f64,
    above: (f64, f64),
}

impl Floats {
    /// With T at the platform's value `t0`, nothing known above the target yet.
    pub fn new(sizes: ComputeSizes, t0: f64) -> Floats {
        Floats { sizes, t_lo: t0, t_hi: f64::INFINITY, slope_hi: 0.0, above: (f64::INFINITY, f64::INFINITY) }
    }

    /// The first step is where the line of a path P through T0 at x0 (with slope s,
    /// n computations) meets the target. Each of P's prices is within half a ps of
    /// c·x, so T(x) ≥ P(x) ≥ T0 + s·(x − x0) − n, and the root is at most the first
    /// step plus n/s ≤ 1/(smallest size) (from a flat x0, P's constant is ≥ 0: the
    /// same): every float above that (and a hair for the floats' error) is above the
    /// target. With one computation size the bracket then holds one edge, its answer.
    pub fn first_hi(&self, at: &Bracket) -> f64 {
        let cap = at.next + (1.0 + 1e-9) / self.sizes.smallest() + 4.0 * f64::EPSILON * at.next;
        if cap.is_finite() && cap > at.lo {
            cap.next_up()
        } else {
            at.hi
        }
    }

    /// Whether the bracket holds few edges: the search cuts edges (T alone).
    pub fn on_edges(&self, at: &Bracket) -> bool {
        self.sizes.edges_in(at.lo, at.hi).is_some()
    }

    /// T never falls as x grows, so a point at or below the target raises `lo`, one
    /// above lowers `hi`. Once the bracket holds few edges, `lo` moves up to the
    /// float before the first edge above it and `hi` down to the last edge at or
    /// below it (T is flat between edges: neither's T changes); done when `hi` is the
    /// float after `lo`.
    pub fn learn(&mut self, at: &mut Bracket, known: &[(f64, f64, f64)]) {
        if at.done {
            return;
        }
        for &(v, t, slope) in known {
            if t <= at.target {
                if v > at.lo {
                    (at.lo, self.t_lo) = (v, t);
                }
            } else if v < at.hi {
                self.above = (at.hi, self.t_hi);
                (at.hi, self.t_hi, self.slope_hi) = (v, t, slope);
            } else if v > at.hi && v < self.above.0 {
                self.above = (v, t);
            }
        }
        let edges = self.sizes.edges_in(at.lo, at.hi);
        if let Some(&first) = edges.as_ref().and_then(|e| e.first()) {
            at.hi = *edges.as_ref().and_then(|e| e.last()).expect("an edge");
            at.lo = at.lo.max(first.next_down());
        }
        if at.hi <= at.lo.next_up() || edges.is_some_and(|e| e.is_empty()) {
            at.done = true;
        }
        if !at.hi.is_finite() && at.next <= at.lo {
            // The first step fell short (T's stairs are under its lines): twice as far.
            at.next = at.lo + (at.lo - at.x0).max(at.lo * f64::EPSILON);
        }
    }

    /// `n` points. Where the bracket holds few edges, the edges cut as per byte
    /// ([`cut_edges`]: the smaller sizes' first, each with the edge before it; T is
    /// flat between them); elsewhere the estimates of the root (a secant through the
    /// two least points above the target, Newton's step from the least, the chord
    /// between `lo` and `hi`), then points spread through the bracket.
    pub fn points(&self, at: &Bracket, n: usize) -> Vec<f64> {
        let (lo, hi) = (at.lo, at.hi);
        let mut points = Vec::with_capacity(n);
        let add = |points: &mut Vec<f64>, v: f64| {
            if points.len() < n && !points.contains(&v) {
                points.push(v);
            }
        };
        match self.sizes.edges_in(lo, hi) {
            Some(mut edges) => {
                // The edges strictly inside (T at `hi` is known), the smaller sizes'
                // first: the stairs are too uneven for the estimates to beat that
                // (radix: thousands of ps at one edge where sizes share it).
                edges.retain(|&e| e < hi);
                for p in cut_edges(&edges, |e| self.sizes.coarse(e), n) {
                    add(&mut points, p);
                }
            }
            None => {
                let mut estimates = Vec::new();
                if self.t_hi.is_finite() {
                    let (v2, t2) = self.above;
                    if t2.is_finite() && t2 > self.t_hi {
                        estimates.push(hi - (self.t_hi - at.target) * (v2 - hi) / (t2 - self.t_hi));
                    }
                    if self.slope_hi > 0.0 {
                        estimates.push(hi - (self.t_hi - at.target) / self.slope_hi);
                    }
                    estimates.push(lo + (at.target - self.t_lo) * (hi - lo) / (self.t_hi - self.t_lo));
                } else {
                    estimates.push(at.next);
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
            points.push(at.next);
        }
        points
    }

    /// The tolerance at the float `lo` found: x0 + Δx must not round past it.
    pub fn delta(at: &Bracket) -> f64 {
        let mut d = at.lo - at.x0;
        while d > 0.0 && at.x0 + d > at.lo {
            d = d.next_down();
        }
        d
    }
}
