//! The steepest path's line in each parameter, for many parameters in one pass:
//! where a tolerance search starts its bracket (past where this line reaches the
//! target, T is above it). A pass of its own kind (a line per lane, not a time and
//! slopes), so apart from the lanes' evaluation.

// A lane's loop indexes several arrays in step: by the lane, as the arithmetic reads.
#![allow(clippy::needless_range_loop)]

use super::lanes::{by_width, in_groups, threads, Lane, LANES};
use super::terms::Terms;
use crate::analysis::prices::price::Price;
use crate::analysis::record::codes::ESCAPE;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::kind::KINDS;
use crate::analysis::record::params::{Param, Point};
use crate::analysis::record::slots::Slots;

/// The steepest path's line in a parameter x: the largest slope of any path, and of
/// the paths that slope the largest value at x = 0 (each node's price with x at 0,
/// where x is a rate per byte its part alone). Every node's cost is at least its line
/// (a price per byte is the larger of two rates), so T(x) is at least this one
/// wherever x's products are whole ps: past where it reaches a target, T is above.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteepestLine {
    /// ps per unit of x.
    pub slope: f64,
    /// ps.
    pub at_zero: f64,
}

/// Each lane's part of a node's value at x = 0 in its [`SteepestLine`], for each kind
/// and level: `fixed + bytes·per_byte` where that is exact, the price's own rounding
/// (`rounded`, a lane and its price with x at 0) elsewhere.
pub(crate) struct ZeroTerms<const N: usize> {
    of: Vec<ZeroTerm<N>>,
}

#[derive(Clone)]
pub(crate) struct ZeroTerm<const N: usize> {
    fixed: [f64; N],
    per_byte: [f64; N],
    rounded: Vec<(usize, Price)>,
}

impl<const N: usize> ZeroTerms<N> {
    pub(crate) fn new(base: &Point, lanes: &[Lane], terms: &Terms<N>) -> ZeroTerms<N> {
        let at_zero: Vec<Point> = lanes.iter().map(|lane| base.with(lane.param, 0.0)).collect();
        let blank = ZeroTerm { fixed: [0.0; N], per_byte: [0.0; N], rounded: Vec::new() };
        let mut of = vec![blank; KINDS * 2];
        for k in 0..KINDS as u8 {
            for level in 0..2 {
                let i = Terms::<N>::index(k, level);
                let z = &mut of[i];
                for (l, p) in at_zero.iter().enumerate() {
                    let price = Price::of(k, &p.levels[level], p);
                    if terms.of[i].up_per_byte[l] > 0.0 {
                        // x is a rate per byte of this kind: its price's fixed part.
                        z.fixed[l] = price.fixed;
                    } else if price.whole(k) {
                        (z.fixed[l], z.per_byte[l]) = match k {
                            kind::COMPUTE => (0.0, price.per_byte),
                            _ => (price.fixed, price.per_byte.max(price.or_per_byte)),
                        };
                    } else {
                        z.rounded.push((l, price));
                    }
                }
            }
        }
        ZeroTerms { of }
    }
}

impl ExecGraph {
    /// [`ExecGraph::steepest`] of every parameter in `params`, up to [`LANES`] a pass.
    pub fn steepest_lanes(&self, slots: &Slots, base: &Point, params: &[Param]) -> Vec<SteepestLine> {
        self.steepest_on(slots, base, params, threads())
    }

    /// [`ExecGraph::steepest_lanes`] on up to `threads` threads.
    pub(crate) fn steepest_on(
        &self,
        slots: &Slots,
        base: &Point,
        params: &[Param],
        threads: usize,
    ) -> Vec<SteepestLine> {
        let far: Vec<Lane> = params.iter().map(|&param| Lane { point: base.with(param, 1e30), param }).collect();
        in_groups(&far, threads, |run, _| {
            let mut out = Vec::with_capacity(run.len());
            for chunk in run.chunks(LANES) {
                by_width!(chunk.len(), self.steepest_pass(slots, base, chunk, &mut out));
            }
            out
        })
        .concat()
    }

    /// [`ExecGraph::steepest_pass_lanes`] in AVX2's registers where the CPU has them.
    pub(crate) fn steepest_pass<const N: usize>(
        &self,
        slots: &Slots,
        base: &Point,
        lanes: &[Lane],
        out: &mut Vec<SteepestLine>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just now.
            return unsafe { self.steepest_pass_avx2::<N>(slots, base, lanes, out) };
        }
        self.steepest_pass_lanes::<N>(slots, base, lanes, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(crate) fn steepest_pass_avx2<const N: usize>(
        &self,
        slots: &Slots,
        base: &Point,
        lanes: &[Lane],
        out: &mut Vec<SteepestLine>,
    ) {
        self.steepest_pass_lanes::<N>(slots, base, lanes, out)
    }

    /// As `steepest`: every path's largest slope, whatever its time, and the largest
    /// value at x = 0 among the paths of that slope (compared as pairs).
    #[inline(always)]
    pub(crate) fn steepest_pass_lanes<const N: usize>(
        &self,
        slots: &Slots,
        base: &Point,
        lanes: &[Lane],
        out: &mut Vec<SteepestLine>,
    ) {
        let terms = Terms::<N>::new(lanes);
        let zero_terms = ZeroTerms::<N>::new(base, lanes, &terms);
        let noisy = !self.extra.is_empty();
        let rounds = zero_terms.of.iter().any(|z| !z.rounded.is_empty());
        // A node's slope, its linear part at x = 0, and its rounded part there.
        let row = |i: usize, bytes: u64| {
            let (t, z, b) = (&terms.of[i], &zero_terms.of[i], bytes as f64);
            let (mut up, mut line, mut rounded) = ([0.0; N], [0.0; N], [0.0; N]);
            for l in 0..N {
                up[l] = t.up_fixed[l] + b * t.up_per_byte[l];
                line[l] = z.fixed[l] + b * z.per_byte[l];
            }
            for &(l, price) in &z.rounded {
                // Its linear terms are 0: the price as the engine rounds it.
                rounded[l] = price.cost((i >> 1) as u8, b);
            }
            (up, line, rounded)
        };
        let codes = self.codes();
        let code_rows: Vec<_> = codes.pairs.iter().map(|&(i, bytes)| row(i as usize, bytes)).collect();
        let mut rows = vec![([0.0; N], [0.0; N]); slots.count.max(1)];
        let pred_slots = slots.preds(self);
        let mut first = 0usize;
        for v in 0..self.nodes.len() {
            let next = first + self.nodes.pred_count(v);
            let (mut slope, mut zero) = ([0.0; N], [0.0; N]);
            for &s in &pred_slots[first..next] {
                let (qs, qz) = &rows[s as usize];
                for l in 0..N {
                    // Without short-circuits: compared and blended in vector registers.
                    let take = (qs[l] > slope[l]) | ((qs[l] == slope[l]) & (qz[l] > zero[l]));
                    slope[l] = if take { qs[l] } else { slope[l] };
                    zero[l] = if take { qz[l] } else { zero[l] };
                }
            }
            first = next;
            let code = codes.code[v];
            let escaped;
            let (up, line, rounded) = if code != ESCAPE {
                &code_rows[code as usize]
            } else {
                escaped = row(self.price_index(v), self.nodes.bytes(v));
                &escaped
            };
            let noise = if noisy { self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64 } else { 0.0 };
            for l in 0..N {
                slope[l] += up[l];
                zero[l] += line[l] + noise;
            }
            if rounds {
                // 0 in the lanes not rounded: adding it changes nothing.
                for l in 0..N {
                    zero[l] += rounded[l];
                }
            }
            rows[slots.node[v] as usize] = (slope, zero);
        }
        let (slope, zero) = &rows[slots.node[self.sink as usize] as usize];
        out.extend((0..lanes.len()).map(|l| SteepestLine { slope: slope[l], at_zero: zero[l] }));
    }
}
