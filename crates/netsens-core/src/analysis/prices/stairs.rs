//! Where a per-byte price's rounding steps. At r fs/B a node of b bytes costs
//! ⌊(b·r + 500) / 1000⌋ ps (the engine's rounding), which rises with r only at
//! some r: its stair edges. T is a maximum over paths of sums of such prices, each
//! non-decreasing in r, so it can rise only where some node priced by the parameter
//! does: between two edges T is flat. A per-byte tolerance on the fs/B grid is thus
//! one fs/B below an edge (or below a step known above the target), and a search
//! needs T at edges alone.
//!
//! b·(r + 1000) costs b ps more than b·r: a price's edges repeat every 1000 fs/B, so
//! a set of residues mod 1000 holds them all; a node of 1000 bytes or more rises at
//! every fs/B.

use super::price::Coef;
pub use super::sizes::NodeSizes;
use super::sizes::{ByteCounts, Residues, PERIOD};
use crate::analysis::record::kind::KINDS;
use crate::analysis::record::params::{Param, Point};

/// The fs/B (mod 1000) at which some node priced per byte by one parameter costs
/// more than 1 fs/B below: T can rise only there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stairs {
    edges: Residues,
    /// The edges of every count but the largest (the fewest a period): where many
    /// nodes step together, T's tall steps (see [`cut_edges`]).
    coarse: Residues,
    /// The one byte count (1 to 999) of every node the parameter prices, if they
    /// have one: then T depends on the parameter only through that count's price.
    pub count: Option<u64>,
}

impl Stairs {
    /// Every fs/B an edge: T may rise at any (what a search assumes without counts).
    pub fn every() -> Stairs {
        Stairs { edges: Residues::every(), coarse: Residues::NONE, count: None }
    }

    /// The edges of the prices that parameter `x` sets per byte at `base`'s other
    /// values (a receive's max of O and G counted for both: its edges in one are
    /// among those of its own rounded product).
    pub fn of(counts: &ByteCounts, base: &Point, x: Param) -> Stairs {
        let far = base.with(x, 1e30);
        let mut bytes = Residues::NONE;
        for i in 0..KINDS * 2 {
            let (k, level) = ((i / 2) as u8, (i % 2) as u8);
            if Coef::of(k, level, &far, x).up.1 > 0.0 {
                if counts.over[i] {
                    return Stairs::every();
                }
                bytes.union(&counts.under[i]);
            }
        }
        let (mut edges, mut coarse) = (Residues::NONE, Residues::NONE);
        let mut counts = bytes.iter().filter(|&b| b > 0);
        let count = counts.next().filter(|_| counts.next().is_none());
        let largest = bytes.iter().filter(|&b| b > 0).last();
        for b in bytes.iter().filter(|&b| b > 0) {
            // b·r + 500 reaches 1000·m at r = ⌈(1000·m − 500) / b⌉, for m = 1..=b
            // in one period (r in 1..=1000; 1000 is residue 0).
            for m in 1..=b {
                let r = (PERIOD * m - 500).div_ceil(b) % PERIOD;
                edges.insert(r);
                if Some(b) != largest {
                    coarse.insert(r);
                }
            }
        }
        Stairs { edges, coarse, count }
    }

    /// Whether some price rises from `fs − 1` to `fs` fs/B.
    pub fn rises(&self, fs: u64) -> bool {
        self.edges.contains(fs % PERIOD)
    }

    /// Whether some count but the largest rises from `fs − 1` to `fs` fs/B.
    pub fn coarse(&self, fs: u64) -> bool {
        self.coarse.contains(fs % PERIOD)
    }

    /// How many edges a period has.
    pub fn per_period(&self) -> usize {
        self.edges.iter().count()
    }
}

/// Up to `n` points among `edges` (increasing, strictly inside a bracket that holds
/// the root), where T is a staircase that rises only at them: cut in equal parts
/// where no edge is `coarse`; else each of ⌊n / 2⌋ cuts of the coarse edges with the
/// edge just before it (T just below the step), and any odd point an equal cut of
/// all. Coarse edges are those of the smaller byte counts or computation sizes:
/// where a program has many small messages (or computations) of one size, they step
/// together, by far the tallest stairs, and a root lies just below one of them more
/// often than not (every tolerance of radix's G, O and two of its CPU's): the pair
/// then shows it in one round. Any answer is still found: every point is an edge
/// strictly inside the bracket, so each round narrows it.
pub(crate) fn cut_edges(edges: &[f64], coarse: impl Fn(f64) -> bool, n: usize) -> Vec<f64> {
    let m = edges.len();
    let equal = |k: usize, points: &mut Vec<f64>| {
        for j in 1..=k {
            if let Some(i) = ((m + 1) * j / (k + 1)).checked_sub(1) {
                points.push(edges[i]);
            }
        }
    };
    let big: Vec<usize> = (0..m).filter(|&i| coarse(edges[i])).collect();
    let mut points = Vec::with_capacity(n.max(2));
    if big.is_empty() || n < 2 {
        equal(n, &mut points);
    } else {
        let pairs = n / 2;
        for j in 1..=pairs {
            let i = big[((big.len() + 1) * j / (pairs + 1)).max(1) - 1];
            points.extend(i.checked_sub(1).map(|p| edges[p]));
            points.push(edges[i]);
        }
        equal(n - 2 * pairs, &mut points);
        points.sort_by(f64::total_cmp);
    }
    points.dedup();
    points
}

/// Whether some coarse edge lies among `edges` (then a search takes two points a round).
pub(crate) fn any_coarse(edges: &[f64], coarse: impl Fn(f64) -> bool) -> bool {
    edges.iter().any(|&e| coarse(e))
}

#[cfg(test)]
mod tests {
    use super::super::cpu_stairs::ComputeSizes;
    use super::super::sizes::PER_BYTE;
    use super::*;
    use crate::analysis::record::kind;
    use crate::analysis::record::params::LevelValues;

    /// The engine's rounded price of `b` bytes at `fs` fs/B, in integers.
    fn price(b: u64, fs: u64) -> u64 {
        (b * fs + 500) / 1000
    }

    /// The edges from the formula against the prices themselves (a second method):
    /// every fs/B where some count's price differs from the one below, over three
    /// periods, for single counts and a mix of two.
    #[test]
    fn edges_are_where_a_rounded_price_rises() {
        for counts in [vec![1u64], vec![3], vec![63], vec![500], vec![999], vec![7, 63], vec![2, 250, 333]] {
            let mut c = ByteCounts { under: vec![Residues::NONE; KINDS * 2], over: vec![false; KINDS * 2] };
            let gap = kind::GAP as usize * 2 + 1;
            counts.iter().for_each(|&b| c.under[gap].insert(b));
            let level =
                LevelValues { latency: 1.0, overhead: 1.0, gap: 1.0, gap_per_byte: 6.0, overhead_per_byte: 0.0 };
            let base = Point { levels: [level; 2], wan_latency: 0.0, wan_per_byte: 0.0, cpu_time: 1.0 };
            let stairs = Stairs::of(&c, &base, Param::GapPerByte(1));
            for fs in 1..3000 {
                let rises = counts.iter().any(|&b| price(b, fs) > price(b, fs - 1));
                assert_eq!(stairs.rises(fs), rises, "{counts:?} at {fs} fs/B");
            }
            // Every count b rises b times a period; a mix at the union of its counts'.
            if counts.len() == 1 {
                assert_eq!(stairs.per_period(), counts[0] as usize);
            }
            // The coarse edges: where a count other than the largest rises (none
            // with one count).
            let largest = *counts.iter().max().expect("a count");
            for fs in 1..3000 {
                let rises = counts.iter().filter(|&&b| b != largest).any(|&b| price(b, fs) > price(b, fs - 1));
                assert_eq!(stairs.coarse(fs), rises, "{counts:?} at {fs} fs/B");
            }
            // O sets no gap's price: no edges.
            assert_eq!(Stairs::of(&c, &base, Param::OverheadPerByte(1)).per_period(), 0);
            c.over[gap] = true;
            assert_eq!(Stairs::of(&c, &base, Param::GapPerByte(1)), Stairs::every());
        }
    }

    /// The sizes the first pass notes against a scan written here from each node as
    /// [`ExecGraph::node`] gives it (a second method): rounds where every rank computes
    /// for a size of its own and sends a size of its own (under and over 1000 B, one
    /// of them 0), with few computation sizes and with more than
    /// [`super::super::cpu_stairs::MAX_SIZES`].
    #[test]
    fn the_first_pass_notes_the_sizes_a_scan_of_the_nodes_finds() {
        use crate::analysis::{record_schedule, Param};
        use crate::engine::RunOptions;
        use crate::platform::Platform;
        use crate::schedule::ScheduleBuilder;
        let p = Platform::resolve("loggopsim").expect("a preset");
        let base = Point::of(&p);
        for (ranks, calcs) in [(4u32, 3u64), (6, 4), (20, 20)] {
            let mut b = ScheduleBuilder::new(ranks);
            let mut last = vec![None; ranks as usize];
            for round in 0..3 {
                for r in 0..ranks {
                    let calc = b.calc(r, (r as u64 % calcs) * 1000 + 7 * round as u64, 0);
                    if let Some(prev) = last[r as usize] {
                        b.requires(calc, prev);
                    }
                    let from = (r + ranks - 1) % ranks;
                    let size = |r: u32| [0, 1, 999, 1000, 70_000][r as usize % 5] + round as u64;
                    let recv = b.recv(r, from as i32, size(from), round, 0, 0);
                    let send = b.send(r, (r + 1) % ranks, size(r), round, 0, 0);
                    b.requires(recv, calc);
                    b.requires(send, calc);
                    last[r as usize] = Some(recv);
                }
            }
            let s = b.build().expect("a schedule");
            let (_, g) = record_schedule(&s, &p, &RunOptions::default(), &mut |_| true).expect("the run finishes");
            let at = g.at_base(&g.slots(), &base, &Param::all(&p));
            let mut counts = ByteCounts { under: vec![Residues::NONE; KINDS * 2], over: vec![false; KINDS * 2] };
            let mut sizes: Vec<f64> = Vec::new();
            for v in 0..g.nodes.len() {
                let n = g.node(v);
                let i = (n.kind as usize) * 2 + if g.node_level { n.level as usize } else { 1 };
                if PER_BYTE.contains(&n.kind) {
                    if n.bytes < 1000 {
                        counts.under[i].insert(n.bytes);
                    } else {
                        counts.over[i] = true;
                    }
                } else if n.kind == kind::COMPUTE && n.bytes > 0 && !sizes.contains(&(n.bytes as f64)) {
                    sizes.push(n.bytes as f64);
                }
            }
            assert!(counts.over.iter().any(|&o| o) && counts.under.iter().any(|u| *u != Residues::NONE));
            assert_eq!(at.sizes.counts, counts, "{ranks} ranks");
            assert_eq!(at.sizes.sizes, ComputeSizes::of(&sizes), "{ranks} ranks");
            assert_eq!(at.sizes.sizes.is_none(), sizes.len() > super::super::cpu_stairs::MAX_SIZES);
            // The scan of its own finds the same.
            let scanned = g.node_sizes();
            assert_eq!(scanned.counts, counts);
            assert_eq!(scanned.sizes, ComputeSizes::of(&sizes));
        }
    }

    /// The points among hand-made edges 1..=9: equal cuts where none is coarse, else
    /// a coarse edge with the edge before it (none before the first), the coarse
    /// edges cut in equal parts, and an odd point an equal cut of all.
    #[test]
    fn a_round_tries_a_coarse_edge_with_the_edge_before_it() {
        let edges: Vec<f64> = (1..=9).map(f64::from).collect();
        let none = |_: f64| false;
        assert_eq!(cut_edges(&edges, none, 1), [5.0]);
        assert_eq!(cut_edges(&edges, none, 2), [3.0, 6.0]);
        let at_4_8 = |e: f64| e == 4.0 || e == 8.0;
        assert_eq!(cut_edges(&edges, at_4_8, 1), [5.0]);
        assert_eq!(cut_edges(&edges, at_4_8, 2), [3.0, 4.0]);
        assert_eq!(cut_edges(&edges, at_4_8, 3), [3.0, 4.0, 5.0]);
        assert_eq!(cut_edges(&edges, at_4_8, 4), [3.0, 4.0, 7.0, 8.0]);
        assert_eq!(cut_edges(&edges, |e| e == 1.0, 2), [1.0]);
        assert!(any_coarse(&edges, at_4_8) && !any_coarse(&edges, none));
        // Every point an edge, increasing, at most n (a round always narrows the bracket).
        for n in 1..12 {
            for mask in 0u32..512 {
                let coarse = |e: f64| mask >> (e as u32 - 1) & 1 == 1;
                let points = cut_edges(&edges, coarse, n);
                assert!(!points.is_empty() && points.len() <= n.max(2), "{n} {mask:b}: {points:?}");
                assert!(points.windows(2).all(|w| w[0] < w[1]) && points.iter().all(|p| edges.contains(p)));
            }
        }
    }
}
