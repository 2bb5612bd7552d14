//! Evaluating a recorded run at other parameters: one pass over the graph in the
//! order it was recorded gives the makespan, and with it the slopes of one
//! parameter on the paths that set it (the largest and smallest where paths tie).

use super::graph::{kind, ExecGraph, Node};
use super::params::{Param, Point};

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

/// `bytes · per_byte` ps as the engine charges it (`PerByte::cost`): exact for whole
/// ps per byte, else rounded half up to the ps on its fs/B grid, so that the record
/// gives the run's own times where G or O is not a whole number of ps per byte.
#[inline]
pub(crate) fn bytes_time(bytes: f64, per_byte: f64) -> f64 {
    if per_byte.fract() == 0.0 {
        return bytes * per_byte;
    }
    let fs = (per_byte * 1000.0).round();
    if (per_byte * 1000.0 - fs).abs() < 1e-6 && bytes < 1e18 {
        ((bytes as u128 * fs as u128 + 500) / 1000) as f64
    } else {
        (bytes * per_byte + 0.5).floor()
    }
}

/// A computation of `ps` at CPU speed 1 taking `cpu_time` (1/cpu_speed) per ps, rounded
/// to the ps as the engine does.
#[inline]
pub(crate) fn compute_time(ps: f64, cpu_time: f64) -> f64 {
    if cpu_time == 1.0 {
        ps
    } else {
        (ps * cpu_time).round()
    }
}

impl ExecGraph {
    #[inline]
    fn level_of(&self, n: &Node) -> usize {
        if self.node_level {
            n.level as usize
        } else {
            1
        }
    }

    /// Node `v`'s own cost at point `p` (ps).
    #[inline]
    pub(crate) fn cost(&self, v: usize, p: &Point) -> f64 {
        let n = &self.nodes[v];
        let l = &p.levels[self.level_of(n)];
        let b = n.bytes as f64;
        let c = match n.kind {
            kind::ZERO => 0.0,
            kind::COMPUTE => compute_time(b, p.cpu_time),
            kind::SEND_CPU => l.overhead + bytes_time(b, l.overhead_per_byte),
            kind::RECV_CPU => l.overhead + bytes_time(b, l.overhead_per_byte).max(bytes_time(b, l.gap_per_byte)),
            kind::RECV_CPU_NO_G => l.overhead + bytes_time(b, l.overhead_per_byte),
            kind::GAP => l.gap + bytes_time(b, l.gap_per_byte),
            kind::WIRE => l.overhead + l.latency,
            kind::TO_LINK => l.overhead,
            kind::LINK_BYTES => bytes_time(b, p.wan_per_byte),
            kind::LINK_LATENCY => p.wan_latency,
            _ => b,
        };
        if self.extra.is_empty() {
            c
        } else {
            c + self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64
        }
    }

    /// ∂cost/∂x of node `v` at `p`: (going down, going up); they differ only where a
    /// receive's O and G bytes tie.
    #[inline]
    pub(crate) fn coef(&self, v: usize, p: &Point, x: Param) -> (f64, f64) {
        let n = &self.nodes[v];
        let lv = self.level_of(n) as u8;
        let b = n.bytes as f64;
        let same = |c: f64| (c, c);
        let at = |want: u8| lv == want;
        match (n.kind, x) {
            (kind::COMPUTE, Param::CpuTime) => same(b),
            (
                kind::SEND_CPU | kind::RECV_CPU | kind::RECV_CPU_NO_G | kind::WIRE | kind::TO_LINK,
                Param::Overhead(l),
            ) if at(l) => same(1.0),
            (kind::SEND_CPU | kind::RECV_CPU_NO_G, Param::OverheadPerByte(l)) if at(l) => same(b),
            (kind::RECV_CPU, Param::OverheadPerByte(l) | Param::GapPerByte(l)) if at(l) => {
                let lvl = &p.levels[self.level_of(n)];
                let (mine, other) = match x {
                    Param::OverheadPerByte(_) => (lvl.overhead_per_byte, lvl.gap_per_byte),
                    _ => (lvl.gap_per_byte, lvl.overhead_per_byte),
                };
                if mine > other {
                    same(b)
                } else if mine < other {
                    same(0.0)
                } else {
                    (0.0, b)
                }
            }
            (kind::GAP, Param::Gap(l)) if at(l) => same(1.0),
            (kind::GAP, Param::GapPerByte(l)) if at(l) => same(b),
            (kind::WIRE, Param::Latency(l)) if at(l) => same(1.0),
            (kind::LINK_BYTES, Param::WanPerByte) => same(b),
            (kind::LINK_LATENCY, Param::WanLatency) => same(1.0),
            _ => same(0.0),
        }
    }

    /// Every node's time at `p` (ps), in `times` (reused between calls).
    pub fn times(&self, p: &Point, times: &mut Vec<f64>) {
        times.clear();
        times.reserve(self.nodes.len());
        for v in 0..self.nodes.len() {
            let (preds, _) = self.preds_of(v);
            let start = preds.iter().map(|&q| times[q as usize]).fold(0.0, f64::max);
            times.push(start + self.cost(v, p));
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
        for v in 0..n {
            let (preds, _) = self.preds_of(v);
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

impl ExecGraph {
    /// Node `v`'s cost as lines `a + b·x` in parameter `x` at `p`'s other values: one
    /// line, or two for a receive's `max(k·O, k·G)` in O or G (its maximum).
    pub fn lines(&self, v: usize, p: &Point, x: Param) -> Vec<(f64, f64)> {
        let n = &self.nodes[v];
        let at0 = p.with(x, 0.0);
        let per_byte = matches!(x, Param::OverheadPerByte(_) | Param::GapPerByte(_));
        let (_, b) = self.coef(v, p, x);
        if n.kind == kind::RECV_CPU && per_byte && self.coef(v, &p.with(x, 1e30), x).1 > 0.0 {
            // o + max(k·x, k·other): the line in x and the constant one.
            let fixed = self.cost(v, &at0);
            let own = self.cost(v, &at0) - (n.bytes as f64) * self.other_per_byte(n, p, x);
            return vec![(own, n.bytes as f64), (fixed, 0.0)];
        }
        vec![(self.cost(v, &at0), b)]
    }

    /// The per-byte cost a receive's max compares `x` with (G for O, O for G).
    fn other_per_byte(&self, n: &Node, p: &Point, x: Param) -> f64 {
        let l = &p.levels[self.level_of(n)];
        match x {
            Param::OverheadPerByte(_) => l.gap_per_byte,
            _ => l.overhead_per_byte,
        }
    }

    /// Every node's predecessors and cost lines in `x`, and the end node, as JSON.
    pub fn lines_json(&self, p: &Point, x: Param) -> serde_json::Value {
        let preds: Vec<&[u32]> = (0..self.nodes.len()).map(|v| self.preds_of(v).0).collect();
        let lines: Vec<Vec<(f64, f64)>> = (0..self.nodes.len()).map(|v| self.lines(v, p, x)).collect();
        serde_json::json!({"param": x.name(), "preds": preds, "lines": lines, "sink": self.sink})
    }
}

/// Scratch space of [`ExecGraph::eval`], kept between calls.
#[derive(Default)]
pub struct Buffers {
    pub times: Vec<f64>,
    down: Vec<f64>,
    up: Vec<f64>,
}
