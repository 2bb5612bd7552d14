//! Every lane's prices and slopes' coefficients for each kind and level of node,
//! laid out lane by lane, and the row of each of the record's price codes at a
//! pass's lanes: what a pass adds to a node's time, worked out once per pass (not
//! per node). Apart from the pass's loop (`lanes.rs`), which only reads them.

// A lane's loop indexes several arrays in step: by the lane, as the arithmetic reads.
#![allow(clippy::needless_range_loop)]

use super::lanes::Lane;
use crate::analysis::prices::float::{fs_time, max, round_half_up, EXACT_FS};
use crate::analysis::prices::price::{compute_time, Coef, Price, Rate};
use crate::analysis::record::codes::PriceCodes;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::kind::KINDS;

impl ExecGraph {
    /// The costs of a node of `b` bytes in lanes where some price is rounded: the
    /// engine's integer rounding, in floats where they are exact.
    #[inline(always)]
    pub(crate) fn rounded_costs<const N: usize>(&self, c: &LaneTerms<N>, b: f64, cost: &mut [f64; N]) {
        match c.rounding {
            Rounding::Fs if b * c.max_fs < EXACT_FS => {
                for l in 0..N {
                    cost[l] = c.fixed[l] + fs_time(b, c.fs[l]);
                }
            }
            Rounding::Fs => {
                for l in 0..N {
                    let (rate, or_rate) = (Rate::of(c.per_byte[l]), Rate::of(c.or_per_byte[l]));
                    cost[l] = c.fixed[l] + rate.time(b).max(or_rate.time(b));
                }
            }
            Rounding::Cpu => {
                for l in 0..N {
                    cost[l] = round_half_up(b * c.per_byte[l]);
                }
            }
            Rounding::Whole => {}
        }
    }
}

/// How a kind's lanes price a node.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Rounding {
    /// Every lane whole ps per byte: `fixed + max(bytes·per_byte, bytes·or_per_byte)`.
    Whole,
    /// Some lane on the fs/B grid, not whole: every lane rounded as the engine does.
    Fs,
    /// A computation at a CPU speed other than 1 in some lane: rounded to the ps.
    Cpu,
}

/// Every lane's [`Price`] and [`Coef`] for each kind and level of node, laid out lane
/// by lane so that a node's lanes are computed together.
pub(crate) struct Terms<const N: usize> {
    pub(crate) of: Vec<LaneTerms<N>>,
    /// The lanes in use (up to `N`).
    pub(crate) lanes: usize,
}

#[derive(Clone)]
pub(crate) struct LaneTerms<const N: usize> {
    pub(crate) fixed: [f64; N],
    pub(crate) per_byte: [f64; N],
    pub(crate) or_per_byte: [f64; N],
    pub(crate) rounding: Rounding,
    /// fs per byte of the larger of the two rates (on the fs/B grid), and its
    /// largest over the lanes.
    pub(crate) fs: [f64; N],
    pub(crate) max_fs: f64,
    /// The lanes whose price is off the fs/B grid (and not whole), with its two rates.
    pub(crate) rounded: Vec<(usize, Rate, Rate)>,
    pub(crate) down_fixed: [f64; N],
    pub(crate) down_per_byte: [f64; N],
    pub(crate) up_fixed: [f64; N],
    pub(crate) up_per_byte: [f64; N],
}

impl<const N: usize> Terms<N> {
    pub(crate) fn index(kind: u8, level: usize) -> usize {
        kind as usize * 2 + level
    }

    /// Whether some lane's price of some kind is rounded.
    pub(crate) fn rounds(&self) -> bool {
        self.of.iter().any(|t| t.rounding != Rounding::Whole || !t.rounded.is_empty())
    }

    pub(crate) fn new(lanes: &[Lane]) -> Terms<N> {
        let none = [0.0; N];
        let blank = LaneTerms {
            fixed: none,
            per_byte: none,
            or_per_byte: none,
            rounding: Rounding::Whole,
            fs: none,
            max_fs: 0.0,
            rounded: Vec::new(),
            down_fixed: none,
            down_per_byte: none,
            up_fixed: none,
            up_per_byte: none,
        };
        let mut of = vec![blank; KINDS * 2];
        for k in 0..KINDS as u8 {
            for level in 0..2 {
                let t = &mut of[Terms::<N>::index(k, level)];
                for (l, lane) in lanes.iter().enumerate() {
                    let p = &lane.point;
                    let price = Price::of(k, &p.levels[level], p);
                    let coef = Coef::of(k, level as u8, p, lane.param);
                    let fs =
                        |per_byte: f64| Some((per_byte * 1000.0).round()).filter(|_| Rate::of(per_byte).on_fs_grid());
                    if k == kind::COMPUTE {
                        if !price.whole(k) {
                            t.rounding = Rounding::Cpu;
                        }
                    } else if let (Some(a), Some(b)) = (fs(price.per_byte), fs(price.or_per_byte)) {
                        t.fs[l] = a.max(b);
                        t.max_fs = t.max_fs.max(t.fs[l]);
                        if !price.whole(k) {
                            t.rounding = Rounding::Fs;
                        }
                    } else {
                        t.rounded.push((l, Rate::of(price.per_byte), Rate::of(price.or_per_byte)));
                    }
                    (t.fixed[l], t.per_byte[l], t.or_per_byte[l]) = (price.fixed, price.per_byte, price.or_per_byte);
                    (t.down_fixed[l], t.down_per_byte[l]) = coef.down;
                    (t.up_fixed[l], t.up_per_byte[l]) = coef.up;
                }
            }
        }
        Terms { of, lanes: lanes.len() }
    }
}

/// A node's cost in every lane and its slopes' terms, as a pass adds them to its
/// time and slopes.
#[derive(Clone)]
pub(crate) struct CodeRow<const N: usize> {
    pub(crate) cost: [f64; N],
    pub(crate) down: [f64; N],
    pub(crate) up: [f64; N],
}

impl<const N: usize> CodeRow<N> {
    /// The row of a node of price index `i` with `bytes` (rounded as the engine
    /// rounds where `ROUND`: a pass none of whose lanes rounds leaves it out).
    #[inline(always)]
    pub(crate) fn of<const ROUND: bool>(g: &ExecGraph, terms: &Terms<N>, i: usize, bytes: u64) -> CodeRow<N> {
        let (c, k, b) = (&terms.of[i], (i >> 1) as u8, bytes as f64);
        let mut cost = [0.0; N];
        for l in 0..N {
            cost[l] = c.fixed[l] + max(b * c.per_byte[l], b * c.or_per_byte[l]);
        }
        if ROUND && c.rounding != Rounding::Whole {
            g.rounded_costs(c, b, &mut cost);
        }
        // Lanes whose price is off the fs/B grid, apart.
        for &(l, rate, or_rate) in c.rounded.iter().filter(|_| ROUND) {
            cost[l] = if k == kind::COMPUTE {
                compute_time(b, c.per_byte[l])
            } else {
                c.fixed[l] + rate.time(b).max(or_rate.time(b))
            };
        }
        let (mut down, mut up) = ([0.0; N], [0.0; N]);
        for l in 0..N {
            down[l] = c.down_fixed[l] + b * c.down_per_byte[l];
            up[l] = c.up_fixed[l] + b * c.up_per_byte[l];
        }
        CodeRow { cost, down, up }
    }
}

/// The row of every code of a record ([`PriceCodes`]) at a pass's lanes.
pub(crate) struct CodeRows<const N: usize> {
    pub(crate) of: Vec<CodeRow<N>>,
}

impl<const N: usize> CodeRows<N> {
    pub(crate) fn new(g: &ExecGraph, codes: &PriceCodes, terms: &Terms<N>) -> CodeRows<N> {
        CodeRows {
            of: codes.pairs.iter().map(|&(i, bytes)| CodeRow::of::<true>(g, terms, i as usize, bytes)).collect(),
        }
    }
}
