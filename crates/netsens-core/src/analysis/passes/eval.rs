//! Evaluating a recorded run at other parameters, one point at a time: one pass over
//! the graph in the order it was recorded gives the makespan, and with it the slopes
//! of one parameter on the paths that set it (the largest and smallest where paths
//! tie). The reference the batched passes ([`super::lanes`]) are checked against.

use crate::analysis::prices::price::Price;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::kind::KINDS;
use crate::analysis::record::params::{Param, Point};

/// The makespan at a point and the slopes of one parameter there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eval {
    /// ps.
    pub makespan: f64,
    /// ∂T/∂x going down (the smallest slope of the paths that tie for the end).
    pub slope_down: f64,
    /// ∂T/∂x going up (the largest).
    pub slope_up: f64,
}

impl ExecGraph {
    /// Every node's time at `p` (ps), in `times` (reused between calls).
    pub fn times(&self, p: &Point, times: &mut Vec<f64>) {
        times.clear();
        times.reserve(self.nodes.len());
        // Each kind and level's price, worked out once.
        let prices: Vec<Price> = (0..KINDS * 2).map(|i| Price::of(i as u8 / 2, &p.levels[i % 2], p)).collect();
        let noisy = !self.extra.is_empty();
        let all = self.pred_nodes();
        let mut first = 0;
        for v in 0..self.nodes.len() {
            let preds = &all[first..first + self.nodes.pred_count(v)];
            first += preds.len();
            let start = preds.iter().map(|&q| times[q as usize]).fold(0.0, f64::max);
            let k = self.nodes.kind(v);
            if k == kind::ZERO && !noisy {
                times.push(start + 0.0);
                continue;
            }
            let c = prices[self.price_index(v)].cost(k, self.nodes.bytes(v) as f64);
            let extra = if noisy { self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64 } else { 0.0 };
            times.push(start + if noisy { c + extra } else { c });
        }
    }

    /// The makespan at `p` (ps).
    pub fn makespan(&self, p: &Point, times: &mut Vec<f64>) -> f64 {
        self.times(p, times);
        times[self.sink as usize]
    }

    /// The makespan at `p` and ∂T/∂x both ways: a path's slope is the sum of its
    /// nodes' coefficients; T's slope going up is the largest over the paths that
    /// set T (a maximum of lines grows with its steepest tied line), going down the
    /// smallest.
    pub fn eval(&self, p: &Point, x: Param, buf: &mut Buffers) -> Eval {
        let n = self.nodes.len();
        buf.times.clear();
        buf.down.clear();
        buf.up.clear();
        buf.times.reserve(n);
        buf.down.reserve(n);
        buf.up.reserve(n);
        let all = self.pred_nodes();
        let mut first = 0;
        for v in 0..n {
            let preds = &all[first..first + self.nodes.pred_count(v)];
            first += preds.len();
            let start = preds.iter().map(|&q| buf.times[q as usize]).fold(0.0, f64::max);
            let (mut down, mut up) = (f64::INFINITY, f64::NEG_INFINITY);
            for &q in preds {
                if buf.times[q as usize] == start {
                    down = down.min(buf.down[q as usize]);
                    up = up.max(buf.up[q as usize]);
                }
            }
            if preds.is_empty() {
                (down, up) = (0.0, 0.0);
            }
            let (cd, cu) = self.coef(v, p, x);
            buf.times.push(start + self.cost(v, p));
            buf.down.push(down + cd);
            buf.up.push(up + cu);
        }
        let s = self.sink as usize;
        Eval { makespan: buf.times[s], slope_down: buf.down[s], slope_up: buf.up[s] }
    }
}

/// Scratch space of [`ExecGraph::eval`], kept between calls.
#[derive(Default)]
pub struct Buffers {
    pub times: Vec<f64>,
    down: Vec<f64>,
    up: Vec<f64>,
}
