//! The prices: a node's cost at given parameters, as the engine charges it (its
//! rounding to the ps included), and its slope in one parameter. Kept apart from the
//! passes that add these costs up along the record, so that what a node costs is
//! read in one place.

use super::float::max;
use crate::analysis::record::graph::{kind, ExecGraph, Node};
use crate::analysis::record::kind::KINDS;
use crate::analysis::record::params::{LevelValues, Param, Point};

/// `bytes · per_byte` ps as the engine charges it (`PerByte::cost`): exact for whole
/// ps per byte, else rounded half up to the ps on its fs/B grid, so that the record
/// gives the run's own times where G or O is not a whole number of ps per byte.
#[inline]
pub(crate) fn bytes_time(bytes: f64, per_byte: f64) -> f64 {
    Rate::of(per_byte).time(bytes)
}

/// A time per byte, with how [`bytes_time`] rounds it worked out once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rate {
    per_byte: f64,
    /// fs per byte, where `per_byte` is on the fs/B grid and not whole.
    fs: Option<u64>,
}

impl Rate {
    #[inline]
    pub fn of(per_byte: f64) -> Rate {
        let fs = (per_byte * 1000.0).round();
        let grid = !whole(per_byte) && (per_byte * 1000.0 - fs).abs() < 1e-6;
        Rate { per_byte, fs: grid.then_some(fs as u64) }
    }

    /// Whether `time` is whole ps per byte or rounded on the fs/B grid (not off it).
    #[inline]
    pub fn on_fs_grid(&self) -> bool {
        whole(self.per_byte) || self.fs.is_some()
    }

    /// ps for `bytes`: exact for whole ps per byte, else rounded half up on the fs/B grid.
    #[inline]
    pub fn time(&self, bytes: f64) -> f64 {
        if whole(self.per_byte) {
            return bytes * self.per_byte;
        }
        if let Some(fs) = self.fs.filter(|_| bytes < 1e18) {
            // In u64 where it fits (the same integer as in u128).
            let b = bytes as u64;
            return match b.checked_mul(fs).and_then(|p| p.checked_add(500)) {
                Some(p) => (p / 1000) as f64,
                None => ((b as u128 * fs as u128 + 500) / 1000) as f64,
            };
        }
        (bytes * self.per_byte + 0.5).floor()
    }
}

/// `x.fract() == 0.0` without a call into the maths library (no rounding
/// instruction on the baseline x86-64): every f64 from 2^52 up is whole.
#[inline]
pub(crate) fn whole(x: f64) -> bool {
    x.is_finite() && (x.abs() >= 4_503_599_627_370_496.0 || (x as i64) as f64 == x)
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

/// A node's cost at a point, by its kind: `fixed + max(bytes·per_byte,
/// bytes·or_per_byte)` ps, each product as the engine rounds it; a computation's
/// is its ps at speed 1 times `per_byte` (1/cpu_speed), rounded as the engine does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Price {
    pub fixed: f64,
    pub per_byte: f64,
    pub or_per_byte: f64,
}

impl Price {
    /// Of a node of `kind` whose level has values `l`, at point `p`.
    #[inline]
    pub fn of(kind: u8, l: &LevelValues, p: &Point) -> Price {
        let price = |fixed, per_byte, or_per_byte| Price { fixed, per_byte, or_per_byte };
        match kind {
            kind::ZERO => price(0.0, 0.0, 0.0),
            kind::COMPUTE => price(0.0, p.cpu_time, 0.0),
            kind::SEND_CPU | kind::RECV_CPU_NO_G => price(l.overhead, l.overhead_per_byte, 0.0),
            kind::RECV_CPU => price(l.overhead, l.overhead_per_byte, l.gap_per_byte),
            kind::GAP => price(l.gap, l.gap_per_byte, 0.0),
            kind::WIRE => price(l.overhead + l.latency, 0.0, 0.0),
            kind::TO_LINK => price(l.overhead, 0.0, 0.0),
            kind::LINK_BYTES => price(0.0, p.wan_per_byte, 0.0),
            kind::LINK_LATENCY => price(p.wan_latency, 0.0, 0.0),
            // A time recorded as it was (disk, a topology's links): its ps.
            _ => price(0.0, 1.0, 0.0),
        }
    }

    /// The cost (ps) of a node of `kind` with `bytes`.
    #[inline]
    pub fn cost(&self, kind: u8, bytes: f64) -> f64 {
        if kind == kind::COMPUTE {
            compute_time(bytes, self.per_byte)
        } else {
            self.fixed + bytes_time(bytes, self.per_byte).max(bytes_time(bytes, self.or_per_byte))
        }
    }

    /// Whether [`Price::cost`] is `fixed + max(bytes·per_byte, bytes·or_per_byte)`
    /// without rounding (whole ps per byte).
    #[inline]
    pub fn whole(&self, kind: u8) -> bool {
        if kind == kind::COMPUTE {
            self.per_byte == 1.0
        } else {
            whole(self.per_byte) && whole(self.or_per_byte)
        }
    }
}

/// ∂cost/∂x of a node, by its kind: `down.0 + bytes·down.1` going down, the same
/// with `up` going up (they differ only where a receive's O and G bytes tie).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Coef {
    pub down: (f64, f64),
    pub up: (f64, f64),
}

impl Coef {
    /// Of a node of `kind` at level `lv` (0 node, 1 cluster), at `p`, in `x`.
    #[inline]
    pub fn of(kind: u8, lv: u8, p: &Point, x: Param) -> Coef {
        const ONE: (f64, f64) = (1.0, 0.0);
        const BYTES: (f64, f64) = (0.0, 1.0);
        const NONE: (f64, f64) = (0.0, 0.0);
        let same = |c| Coef { down: c, up: c };
        let at = |want: u8| lv == want;
        match (kind, x) {
            (kind::COMPUTE, Param::CpuTime) => same(BYTES),
            (
                kind::SEND_CPU | kind::RECV_CPU | kind::RECV_CPU_NO_G | kind::WIRE | kind::TO_LINK,
                Param::Overhead(l),
            ) if at(l) => same(ONE),
            (kind::SEND_CPU | kind::RECV_CPU_NO_G, Param::OverheadPerByte(l)) if at(l) => same(BYTES),
            (kind::RECV_CPU, Param::OverheadPerByte(l) | Param::GapPerByte(l)) if at(l) => {
                let lvl = &p.levels[lv as usize];
                let (mine, other) = match x {
                    Param::OverheadPerByte(_) => (lvl.overhead_per_byte, lvl.gap_per_byte),
                    _ => (lvl.gap_per_byte, lvl.overhead_per_byte),
                };
                if mine > other {
                    same(BYTES)
                } else if mine < other {
                    same(NONE)
                } else {
                    Coef { down: NONE, up: BYTES }
                }
            }
            (kind::GAP, Param::Gap(l)) if at(l) => same(ONE),
            (kind::GAP, Param::GapPerByte(l)) if at(l) => same(BYTES),
            (kind::WIRE, Param::Latency(l)) if at(l) => same(ONE),
            (kind::LINK_BYTES, Param::WanPerByte) => same(BYTES),
            (kind::LINK_LATENCY, Param::WanLatency) => same(ONE),
            _ => same(NONE),
        }
    }

    /// (going down, going up) for a node of `bytes`.
    #[inline]
    pub fn at(&self, bytes: f64) -> (f64, f64) {
        (self.down.0 + bytes * self.down.1, self.up.0 + bytes * self.up.1)
    }
}

impl ExecGraph {
    /// Node `v`'s own cost at point `p` (ps).
    #[inline]
    pub(crate) fn cost(&self, v: usize, p: &Point) -> f64 {
        let n = &self.node(v);
        let c = Price::of(n.kind, &p.levels[self.level_of(n)], p).cost(n.kind, n.bytes as f64);
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
        let n = &self.node(v);
        Coef::of(n.kind, self.level_of(n) as u8, p, x).at(n.bytes as f64)
    }
}

impl ExecGraph {
    /// Node `v`'s cost as lines `a + b·x` in parameter `x` at `p`'s other values: one
    /// line, or two for a receive's `max(k·O, k·G)` in O or G (its maximum).
    pub fn lines(&self, v: usize, p: &Point, x: Param) -> Vec<(f64, f64)> {
        let n = &self.node(v);
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
    pub(crate) fn other_per_byte(&self, n: &Node, p: &Point, x: Param) -> f64 {
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

/// Each kind and level's price at one point, and whether it is whole ps per byte:
/// a node's cost there as a pass at that point computes it.
pub(crate) struct BasePrices(pub(crate) [(Price, bool); KINDS * 2]);

impl BasePrices {
    pub fn of(p: &Point) -> BasePrices {
        BasePrices(std::array::from_fn(|i| {
            let (k, level) = (i as u8 / 2, i % 2);
            let price = Price::of(k, &p.levels[level], p);
            (price, price.whole(k))
        }))
    }

    /// The cost (ps) of a node of price index `i` with `bytes`, its noise left out
    /// (always inlined: the loop at the run's end took 59 ms on the exchange with a
    /// call per node, 50 without).
    #[inline(always)]
    pub(crate) fn of_pair(&self, i: usize, bytes: u64) -> f64 {
        let (k, (price, whole), b) = ((i >> 1) as u8, &self.0[i], bytes as f64);
        if *whole && k != kind::COMPUTE {
            price.fixed + max(b * price.per_byte, b * price.or_per_byte)
        } else {
            price.cost(k, b)
        }
    }
}
