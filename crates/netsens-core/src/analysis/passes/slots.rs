//! The making of the slots (where each node's value lives during a pass): a pass's
//! loop without lanes, or with one lane at the run's own point, at the run's end
//! (the record's check and its codes from the same loop). Apart from the lanes: it
//! runs once per record, not once per search step.

use super::lanes::Lane;
use crate::analysis::prices::price::BasePrices;
use crate::analysis::record::codes::{CodeBook, PriceCodes};
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::params::{Param, Point};
use crate::analysis::record::slots::Slots;
use std::borrow::Cow;
use std::sync::OnceLock;

/// The making of the slots: a pass's loop without lanes (or with the run's own point).
impl Slots {
    /// The slots of `g`'s nodes: those it was given while recorded, else worked out.
    pub fn of(g: &ExecGraph) -> Slots {
        g.slots().into_owned()
    }

    /// The slot of each of `g`'s predecessors (`g`: the record these slots are of).
    #[inline]
    pub(crate) fn preds<'a>(&'a self, g: &'a ExecGraph) -> &'a [u32] {
        self.preds.as_deref().unwrap_or(&g.preds)
    }

    /// The last node reading each node (itself where none does); `g`'s
    /// predecessors are its nodes (a record not ended by its run).
    pub(crate) fn last_readers(g: &ExecGraph) -> Vec<u32> {
        let mut last: Vec<u32> = (0..g.nodes.len() as u32).collect();
        let mut first = 0;
        for v in 0..g.nodes.len() {
            let next = first + g.nodes.pred_count(v);
            for &q in &g.preds[first..next] {
                last[q as usize] = v as u32;
            }
            first = next;
        }
        last
    }

    /// Slots for `g`'s nodes, given each node's last reader (itself where none does;
    /// the end's is never, whatever `last` says), in arrays of their own (`g`'s
    /// predecessors are its nodes: a record not ended by its run).
    pub(crate) fn assign(g: &ExecGraph, last: Vec<u32>) -> Slots {
        let mut preds = g.preds.clone();
        let (node, count, _) = Slots::assign_in::<false>(g, &mut preds, last, None);
        Slots { node, preds: Some(preds), count }
    }

    /// As [`Slots::assign`], written over the predecessors `preds` (`g`'s own, taken
    /// out of it while this runs), and the makespan at `at` (ps) from the same loop,
    /// one lane through the slots as they are assigned: the record's check at the
    /// run's end without a pass of its own; the nodes' codes written into `code`.
    pub(crate) fn assign_at(
        g: &ExecGraph,
        preds: &mut [u32],
        last: Vec<u32>,
        at: &Point,
        code: Vec<u8>,
    ) -> (Slots, f64, PriceCodes) {
        let mut codes = CodeBook::new(code);
        let (node, count, makespan) = Slots::assign_in::<true>(g, preds, last, Some((&BasePrices::of(at), &mut codes)));
        (Slots { node, preds: None, count }, makespan, codes.done())
    }

    /// The nodes' slots and how many there are, with `preds` (the nodes of `g`'s
    /// predecessors) turned into their slots: each is read and written in place, as
    /// the nodes' slots are written over `last`; with `TIMES` the makespan at the
    /// point of `prices`, and the nodes' codes in the book (else 0 and none).
    fn assign_in<const TIMES: bool>(
        g: &ExecGraph,
        preds: &mut [u32],
        mut last: Vec<u32>,
        mut prices: Option<(&BasePrices, &mut CodeBook)>,
    ) -> (Vec<u32>, usize, f64) {
        let n = g.nodes.len();
        assert_eq!(last.len(), n, "a last reader for every node");
        // The last reader of the node in each slot while it is live, and its time at `at`.
        let mut reader: Vec<u32> = Vec::new();
        let mut times: Vec<f64> = Vec::new();
        let noisy = !g.extra.is_empty();
        let (mut free, mut count) = (Vec::new(), 0u32);
        let sink = g.sink as usize;
        let mut first = 0usize;
        for v in 0..n {
            let next = first + g.nodes.pred_count(v);
            let mut t = 0.0f64;
            if TIMES {
                // As a pass (times are never below 0, so 0 is where the latest starts),
                // in a loop of its own: no call in it, the latest stays in a register.
                // `q < v`: its entry already holds its slot.
                for &q in &preds[first..next] {
                    let qt = times[last[q as usize] as usize];
                    t = if qt > t { qt } else { t };
                }
            }
            for p in &mut preds[first..next] {
                let q = *p as usize;
                let s = last[q];
                *p = s;
                if reader[s as usize] == v as u32 && q != sink {
                    free.push(s);
                }
            }
            first = next;
            // A pass reads every predecessor before it writes the node: it may take
            // a slot freed just now.
            let s = free.pop().unwrap_or_else(|| {
                count += 1;
                reader.push(0);
                times.push(0.0);
                count - 1
            });
            if let Some((prices, codes)) = prices.as_mut().filter(|_| TIMES) {
                let k = g.nodes.kind(v);
                let (i, bytes) = codes.push(g.price_index(v), k, g.nodes.bytes(v));
                let cost = if k == kind::ZERO && !noisy { 0.0 } else { prices.of_pair(i, bytes) };
                let e = if noisy { g.extra.get(&(v as u32)).copied().unwrap_or(0) as f64 } else { 0.0 };
                times[s as usize] = t + if noisy { cost + e } else { cost };
            }
            let r = std::mem::replace(&mut last[v], s);
            reader[s as usize] = r;
            if r == v as u32 && v != sink {
                free.push(s);
            }
        }
        let makespan = if TIMES { times[last[sink] as usize] } else { 0.0 };
        (last, count as usize, makespan)
    }
}

impl ExecGraph {
    /// Where each node's value lives in a pass: as assigned when the run ended, or
    /// worked out now (a record not ended by its run).
    pub fn slots(&self) -> Cow<'_, Slots> {
        match &self.slots {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(Slots::assign(self, Slots::last_readers(self))),
        }
    }

    /// The record's makespan at point `p` (ps): from the run's end where `p` is the
    /// platform's own point, else one lane through the slots.
    pub fn makespan_at(&self, p: &Point) -> f64 {
        match self.own_makespan {
            Some(t) if *p == self.own => t,
            _ => {
                let lane = Lane { point: *p, param: Param::CpuTime };
                self.eval_lanes(&self.slots(), &[lane])[0].makespan
            }
        }
    }
}

/// The record's end as a pass makes it, once the recorder has freed its own state:
/// the last readers become the nodes' slots, written over the predecessors, and the
/// same loop gives the makespan at the run's own point and the nodes' codes.
pub(crate) fn end_record(g: &mut ExecGraph) {
    let last = std::mem::take(&mut g.last);
    let mut preds = std::mem::take(&mut g.preds);
    let code = std::mem::take(&mut g.code_room);
    let (slots, makespan, codes) = Slots::assign_at(g, &mut preds, last, &g.own, code);
    g.preds = preds;
    (g.slots, g.own_makespan, g.codes) = (Some(slots), Some(makespan), OnceLock::from(codes));
}
