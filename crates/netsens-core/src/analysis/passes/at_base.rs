//! The first pass, at the platform's own point: the makespan, every parameter's
//! slopes both ways, which predecessor set each node's time (the critical path's
//! choices) and the nodes' sizes (where the per-byte prices step). Once per
//! analysis, so apart from the search steps' lanes.

// A lane's loop indexes several arrays in step: by the lane, as the arithmetic reads.
#![allow(clippy::needless_range_loop)]

use super::eval::Eval;
use super::lanes::{by_width, in_groups, threads, Lane, LANES};
use super::terms::{CodeRow, Terms};
use crate::analysis::prices::float::{max, min};
use crate::analysis::prices::price::BasePrices;
use crate::analysis::prices::sizes::NodeSizes;
use crate::analysis::record::codes::ESCAPE;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::params::{Param, Point};
use crate::analysis::record::slots::Slots;
use rustc_hash::FxHashMap as HashMap;

/// Which predecessor set each node's time at the platform's point (the first of tied
/// ones): the critical path walks back along it.
#[derive(Default)]
pub struct Choices {
    /// Its index among the node's predecessors, or `u8::MAX` for one in `wide`.
    pub(crate) of: Vec<u8>,
    /// The index of the nodes with more predecessors than a byte counts (the end's).
    pub(crate) wide: HashMap<u32, u32>,
}

impl Choices {
    /// The index of the predecessor that set node `v`'s time.
    pub fn of(&self, v: usize) -> usize {
        match self.of[v] {
            u8::MAX => self.wide[&(v as u32)] as usize,
            i => i as usize,
        }
    }

    /// Node `v`'s index `i`, past what a byte holds, in `of` (the list being made).
    #[cold]
    #[inline(never)]
    pub(crate) fn wide(&mut self, v: usize, i: usize, of: &mut [u8]) {
        of[v] = u8::MAX;
        self.wide.insert(v as u32, i as u32);
    }
}

/// The run at the platform's own point: its makespan, each parameter's slopes both
/// ways there, and the predecessor that set each time; and the nodes' sizes, noted
/// on the way.
pub struct AtBase {
    pub makespan: f64,
    pub slopes: Vec<Eval>,
    pub choices: Choices,
    pub sizes: NodeSizes,
}

impl ExecGraph {
    /// [`ExecGraph::eval_lanes`] of every parameter in `params` at `base`, in passes
    /// that share one time per node (every lane is at the same point): the same
    /// numbers, the predecessor that set each time and the nodes' sizes.
    pub fn at_base(&self, slots: &Slots, base: &Point, params: &[Param]) -> AtBase {
        self.at_base_on(slots, base, params, threads())
    }

    /// [`ExecGraph::at_base`] on up to `threads` threads: the first run of lanes
    /// also notes the choices and sizes (every run has the same times).
    pub(crate) fn at_base_on(&self, slots: &Slots, base: &Point, params: &[Param], threads: usize) -> AtBase {
        let blank = |lanes: usize| AtBase {
            makespan: 0.0,
            slopes: Vec::with_capacity(lanes),
            choices: Choices::default(),
            sizes: NodeSizes::new(),
        };
        if params.is_empty() {
            // The times and choices alone.
            let mut out = blank(0);
            let one = [Lane { point: *base, param: Param::CpuTime }];
            self.base_pass::<1>(slots, &one, &mut out, true);
            out.slopes.clear();
            return out;
        }
        let lanes: Vec<Lane> = params.iter().map(|&param| Lane { point: *base, param }).collect();
        let mut runs = in_groups(&lanes, threads, |run, i| {
            let mut out = blank(run.len());
            for (j, chunk) in run.chunks(LANES).enumerate() {
                by_width!(chunk.len(), self.base_pass(slots, chunk, &mut out, i == 0 && j == 0));
            }
            out
        })
        .into_iter();
        let mut out = runs.next().expect("a first run");
        for run in runs {
            out.slopes.extend(run.slopes);
        }
        out
    }

    pub(crate) fn base_pass<const N: usize>(&self, slots: &Slots, lanes: &[Lane], out: &mut AtBase, choose: bool) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just now.
            return unsafe { self.base_pass_avx2::<N>(slots, lanes, out, choose) };
        }
        self.base_pass_lanes::<N>(slots, lanes, out, choose)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    pub(crate) fn base_pass_avx2<const N: usize>(&self, slots: &Slots, lanes: &[Lane], out: &mut AtBase, choose: bool) {
        self.base_pass_lanes::<N>(slots, lanes, out, choose)
    }

    /// A node's cost (ps) at the pass's one point and its slopes' terms (a call of
    /// its own: a node past the table is rare, and its work would cost the loop its
    /// registers).
    #[cold]
    #[inline(never)]
    pub(crate) fn base_row<const N: usize>(
        &self,
        prices: &BasePrices,
        terms: &Terms<N>,
        i: usize,
        bytes: u64,
    ) -> (f64, CodeRow<N>) {
        (prices.of_pair(i, bytes), CodeRow::of::<false>(self, terms, i, bytes))
    }

    /// Each slot holds the node's time (ps) and each lane's slopes both ways.
    #[inline(always)]
    pub(crate) fn base_pass_lanes<const N: usize>(
        &self,
        slots: &Slots,
        lanes: &[Lane],
        out: &mut AtBase,
        choose: bool,
    ) {
        let noisy = !self.extra.is_empty();
        let terms = Terms::<N>::new(lanes);
        let prices = BasePrices::of(&lanes[0].point);
        let codes = self.codes();
        let rows: Vec<_> =
            codes.pairs.iter().map(|&(i, bytes)| self.base_row(&prices, &terms, i as usize, bytes)).collect();
        // Written in place, not pushed: no call in the loop (the lanes' values stay
        // in registers).
        let mut chosen_of = if choose { vec![0u8; self.nodes.len()] } else { Vec::new() };
        if choose {
            // Each pair's sizes once; an escaped node's below.
            codes.pairs.iter().for_each(|&(i, bytes)| out.sizes.note(i as usize, bytes));
        }
        let zero = [0.0; N];
        let count = slots.count.max(1);
        let mut times = vec![0.0f64; count];
        let (mut downs, mut ups) = (vec![zero; count], vec![zero; count]);
        let pred_slots = slots.preds(self);
        let mut first = 0usize;
        for v in 0..self.nodes.len() {
            let next = first + self.nodes.pred_count(v);
            let preds = &pred_slots[first..next];
            first = next;
            let (mut t, mut d, mut u, mut chosen) = match preds.first() {
                Some(&s) => (times[s as usize], downs[s as usize], ups[s as usize], 0),
                None => (0.0, zero, zero, 0),
            };
            for (i, &s) in preds.iter().enumerate().skip(1) {
                let (qt, qd, qu) = (times[s as usize], &downs[s as usize], &ups[s as usize]);
                let (later, tied) = (qt > t, qt == t);
                for l in 0..N {
                    let down = if tied { min(d[l], qd[l]) } else { d[l] };
                    d[l] = if later { qd[l] } else { down };
                    let up = if tied { max(u[l], qu[l]) } else { u[l] };
                    u[l] = if later { qu[l] } else { up };
                }
                if later {
                    (t, chosen) = (qt, i);
                }
            }
            if choose {
                if chosen < u8::MAX as usize {
                    chosen_of[v] = chosen as u8;
                } else {
                    out.choices.wide(v, chosen, &mut chosen_of);
                }
            }
            if self.nodes.kind(v) != kind::ZERO || noisy {
                let code = codes.code[v];
                let escaped;
                let (cost, r) = if code != ESCAPE {
                    &rows[code as usize]
                } else {
                    let (i, bytes) = (self.price_index(v), self.nodes.bytes(v));
                    if choose {
                        out.sizes.note(i, bytes);
                    }
                    escaped = self.base_row(&prices, &terms, i, bytes);
                    &escaped
                };
                // Prices, noise and times are whole ps (below 2^53): the sums are exact.
                t += if noisy { cost + self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64 } else { *cost };
                for l in 0..N {
                    d[l] += r.down[l];
                    u[l] += r.up[l];
                }
            }
            let o = slots.node[v] as usize;
            (times[o], downs[o], ups[o]) = (t, d, u);
        }
        if choose {
            out.choices.of = chosen_of;
        }
        let end = slots.node[self.sink as usize] as usize;
        out.makespan = times[end];
        out.slopes.extend((0..lanes.len()).map(|l| Eval {
            makespan: times[end],
            slope_down: downs[end][l],
            slope_up: ups[end][l],
        }));
    }
}
