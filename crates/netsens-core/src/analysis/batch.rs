//! Many evaluations of a recorded run in one pass. A pass over the whole record is
//! bound by memory, not arithmetic: carrying [`LANES`] points (each with the slopes
//! of its own parameter) through one pass costs little more than one point. The
//! values are kept only while a later node still reads them ([`Slots`]): a run's
//! live values are a few per rank, so every lane's values stay in cache however
//! long the run.

// A lane's loop indexes several arrays in step: by the lane, as the arithmetic reads.
#![allow(clippy::needless_range_loop)]

use super::codes::{CodeBook, PriceCodes, ESCAPE};
use super::eval::{compute_time, Coef, Eval, Price, Rate, KINDS};
use super::graph::{kind, ExecGraph};
use super::params::{Param, Point};
use super::sizes::NodeSizes;
pub use super::slots::Slots;
pub use super::threads::threads;
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;

/// Points evaluated together in one pass at most. More is dearer than two passes:
/// on radix's record a pass of 24 lanes with slopes took 1.5 to 2.5 times one of 16
/// (its values no longer fit the vector registers), where 16 took 1.3 times 8.
pub const LANES: usize = 16;

/// The lanes a pass of `n` points carries (a pass costs by its lanes): what
/// [`by_width!`] picks for `n` up to [`LANES`], passes of [`LANES`] beyond.
pub fn width(n: usize) -> usize {
    let rest = match n % LANES {
        0 => 0,
        1 => 1,
        2 => 2,
        3 | 4 => 4,
        5..=8 => 8,
        9..=12 => 12,
        _ => LANES,
    };
    n / LANES * LANES + rest
}

/// Call pass `$f` with as few lanes as `$n` points need: a pass costs by its lanes.
macro_rules! by_width {
    ($n:expr, $self:ident.$f:ident($($arg:expr),*)) => {
        match $n {
            1 => $self.$f::<1>($($arg),*),
            2 => $self.$f::<2>($($arg),*),
            3 | 4 => $self.$f::<4>($($arg),*),
            5..=8 => $self.$f::<8>($($arg),*),
            9..=12 => $self.$f::<12>($($arg),*),
            _ => $self.$f::<LANES>($($arg),*),
        }
    };
}

/// `n` lanes cut into at most `threads` runs, in order, as even as they go.
fn groups(n: usize, threads: usize) -> Vec<std::ops::Range<usize>> {
    let k = threads.clamp(1, n.max(1));
    let size = n.div_ceil(k).max(1);
    (0..n).step_by(size).map(|a| a..(a + size).min(n)).collect()
}

/// Lanes a thread takes at least: a pass of one lane costs about what one of two
/// does (the steepest lines of the exchange's g and O: 39 ms on one thread, 46 ms
/// on two of one lane each).
const LANES_A_THREAD: usize = 2;

/// `pass` over each run of `lanes` (with the run's index), the runs on threads of
/// their own (the first on this one); each run's output, in order.
fn in_groups<T: Send>(lanes: &[Lane], threads: usize, pass: impl Fn(&[Lane], usize) -> T + Sync) -> Vec<T> {
    let runs = groups(lanes.len(), threads.min(lanes.len() / LANES_A_THREAD));
    if runs.len() <= 1 {
        return vec![pass(lanes, 0)];
    }
    std::thread::scope(|scope| {
        let pass = &pass;
        let others: Vec<_> =
            runs[1..].iter().enumerate().map(|(i, r)| scope.spawn(move || pass(&lanes[r.clone()], i + 1))).collect();
        let mut out = vec![pass(&lanes[runs[0].clone()], 0)];
        out.extend(others.into_iter().map(|h| h.join().expect("an analysis thread does not panic")));
        out
    })
}

/// The slopes a pass carries besides the makespans.
#[derive(Clone, Copy)]
enum Slopes {
    Both,
    Down,
    None,
}

/// One evaluation: the makespan at `point` and its slopes in `param`.
#[derive(Clone, Copy, Debug)]
pub struct Lane {
    pub point: Point,
    pub param: Param,
}

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

/// Each kind and level's price at one point, and whether it is whole ps per byte:
/// a node's cost there as a pass at that point computes it.
pub(crate) struct BasePrices([(Price, bool); KINDS * 2]);

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
    fn of_pair(&self, i: usize, bytes: u64) -> f64 {
        let (k, (price, whole), b) = ((i >> 1) as u8, &self.0[i], bytes as f64);
        if *whole && k != kind::COMPUTE {
            price.fixed + max(b * price.per_byte, b * price.or_per_byte)
        } else {
            price.cost(k, b)
        }
    }
}

impl ExecGraph {
    /// [`ExecGraph::eval`] at every lane, up to [`LANES`] lanes a pass; the same
    /// numbers, bit for bit.
    pub fn eval_lanes(&self, slots: &Slots, lanes: &[Lane]) -> Vec<Eval> {
        self.passes(slots, lanes, Slopes::Both, threads())
    }

    /// As [`ExecGraph::eval_lanes`] without the slopes going up (NaN): a third less
    /// work where only the slopes going down are wanted (Newton's steps).
    pub fn eval_lanes_down(&self, slots: &Slots, lanes: &[Lane]) -> Vec<Eval> {
        self.passes(slots, lanes, Slopes::Down, threads())
    }

    /// As [`ExecGraph::eval_lanes`] with the makespans alone (slopes NaN): about half
    /// the work a lane, where no slope is wanted (halving a span per fs/B).
    pub fn eval_lanes_times(&self, slots: &Slots, lanes: &[Lane]) -> Vec<Eval> {
        self.passes(slots, lanes, Slopes::None, threads())
    }

    /// Passes over `lanes`, [`LANES`] at most each, on up to `threads` threads.
    fn passes(&self, slots: &Slots, lanes: &[Lane], slopes: Slopes, threads: usize) -> Vec<Eval> {
        in_groups(lanes, threads, |run, _| {
            let mut out = Vec::with_capacity(run.len());
            for chunk in run.chunks(LANES) {
                by_width!(chunk.len(), self.pass(slots, chunk, slopes, &mut out));
            }
            out
        })
        .concat()
    }

    /// A pass in AVX2's wider registers where the CPU has them (the same IEEE
    /// operations, so the same numbers), else in the baseline's; with the rounding
    /// of prices only where a lane has one (the loop without it stays as tight).
    fn pass<const N: usize>(&self, slots: &Slots, lanes: &[Lane], slopes: Slopes, out: &mut Vec<Eval>) {
        let terms = Terms::<N>::new(lanes);
        macro_rules! go {
            ($f:ident) => {
                match (slopes, terms.rounds()) {
                    (Slopes::Both, true) => self.$f::<N, true, true, true>(slots, &terms, out),
                    (Slopes::Both, false) => self.$f::<N, true, true, false>(slots, &terms, out),
                    (Slopes::Down, true) => self.$f::<N, true, false, true>(slots, &terms, out),
                    (Slopes::Down, false) => self.$f::<N, true, false, false>(slots, &terms, out),
                    (Slopes::None, true) => self.$f::<N, false, false, true>(slots, &terms, out),
                    (Slopes::None, false) => self.$f::<N, false, false, false>(slots, &terms, out),
                }
            };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just now.
            return unsafe { go!(pass_avx2) };
        }
        go!(pass_lanes)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn pass_avx2<const N: usize, const DOWN: bool, const UP: bool, const ROUND: bool>(
        &self,
        slots: &Slots,
        terms: &Terms<N>,
        out: &mut Vec<Eval>,
    ) {
        self.pass_lanes::<N, DOWN, UP, ROUND>(slots, terms, out)
    }

    /// Each slot holds each lane's time (ps) and (if `DOWN`) slope going down and (if
    /// `UP`) going up.
    #[inline(always)]
    fn pass_lanes<const N: usize, const DOWN: bool, const UP: bool, const ROUND: bool>(
        &self,
        slots: &Slots,
        terms: &Terms<N>,
        out: &mut Vec<Eval>,
    ) {
        let noisy = !self.extra.is_empty();
        let codes = self.codes();
        let rows = CodeRows::<N>::new(self, codes, terms);
        let zero = [0.0; N];
        let count = slots.count.max(1);
        let mut times = vec![zero; count];
        let mut downs = if DOWN { vec![zero; count] } else { Vec::new() };
        let mut ups = if UP { vec![zero; count] } else { Vec::new() };
        let pred_slots = slots.preds(self);
        let mut first = 0usize;
        for v in 0..self.nodes.len() {
            let next = first + self.nodes.pred_count(v);
            let preds = &pred_slots[first..next];
            first = next;
            // As `eval`: the latest predecessor, and the slopes of those tied with it
            // (kept as the latest so far changes; the same numbers, without branches).
            let (mut t, mut d, mut u) = match preds.first() {
                Some(&s) => (
                    times[s as usize],
                    if DOWN { downs[s as usize] } else { zero },
                    if UP { ups[s as usize] } else { zero },
                ),
                None => (zero, zero, zero),
            };
            for &s in preds.iter().skip(1) {
                let qt = &times[s as usize];
                for l in 0..N {
                    let (later, tied) = (qt[l] > t[l], qt[l] == t[l]);
                    if DOWN {
                        let qd = downs[s as usize][l];
                        let down = if tied { min(d[l], qd) } else { d[l] };
                        d[l] = if later { qd } else { down };
                    }
                    if UP {
                        let qu = ups[s as usize][l];
                        let up = if tied { max(u[l], qu) } else { u[l] };
                        u[l] = if later { qu } else { up };
                    }
                    t[l] = if later { qt[l] } else { t[l] };
                }
            }
            // A pure "latest of" adds nothing (0 ps, no parameter) unless noise does.
            let k = self.nodes.kind(v);
            if k != kind::ZERO || noisy {
                let code = codes.code[v];
                let escaped;
                let row = if code != ESCAPE {
                    &rows.of[code as usize]
                } else {
                    escaped = CodeRow::of::<ROUND>(self, terms, self.price_index(v), self.nodes.bytes(v));
                    &escaped
                };
                let e = if noisy { self.extra.get(&(v as u32)).copied().unwrap_or(0) as f64 } else { 0.0 };
                for l in 0..N {
                    t[l] += if noisy { row.cost[l] + e } else { row.cost[l] };
                    if DOWN {
                        d[l] += row.down[l];
                    }
                    if UP {
                        u[l] += row.up[l];
                    }
                }
            }
            let o = slots.node[v] as usize;
            times[o] = t;
            if DOWN {
                downs[o] = d;
            }
            if UP {
                ups[o] = u;
            }
        }
        let end = slots.node[self.sink as usize] as usize;
        out.extend((0..terms.lanes).map(|l| Eval {
            makespan: times[end][l],
            slope_down: if DOWN { downs[end][l] } else { f64::NAN },
            slope_up: if UP { ups[end][l] } else { f64::NAN },
        }));
    }
}

impl ExecGraph {
    /// The costs of a node of `b` bytes in lanes where some price is rounded: the
    /// engine's integer rounding, in floats where they are exact.
    #[inline(always)]
    fn rounded_costs<const N: usize>(&self, c: &LaneTerms<N>, b: f64, cost: &mut [f64; N]) {
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

/// The larger and the smaller of two values that are never NaN (as `f64::max` and
/// `f64::min` there, in instructions that work on several lanes at once).
#[inline(always)]
fn max(a: f64, b: f64) -> f64 {
    if a > b {
        a
    } else {
        b
    }
}

#[inline(always)]
fn min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// Products `bytes · fs` below this are exact in f64, and so is the rounding of
/// [`fs_time`]: its quotient is under 2^43, whose float is within 0.001 of it.
const EXACT_FS: f64 = 8.0e15;

/// `bytes · fs / 1000` ps rounded half up, as [`Rate::time`] does it in integers
/// (the same number where `bytes · fs < EXACT_FS`): the division is correctly
/// rounded, and a quotient under 2^43 that is not whole is at least 0.001 from the
/// next whole number, more than the float's error.
#[inline(always)]
fn fs_time(bytes: f64, fs: f64) -> f64 {
    ((bytes * fs + 500.0) / 1000.0).floor()
}

/// `y.round()` for `y ≥ 0` (half away from zero, as [`compute_time`]), in
/// instructions that work on several lanes at once: `y - floor(y)` is exact.
#[inline(always)]
fn round_half_up(y: f64) -> f64 {
    let r = y.floor();
    if y - r >= 0.5 {
        r + 1.0
    } else {
        r
    }
}

/// How a kind's lanes price a node.
#[derive(Clone, Copy, PartialEq)]
enum Rounding {
    /// Every lane whole ps per byte: `fixed + max(bytes·per_byte, bytes·or_per_byte)`.
    Whole,
    /// Some lane on the fs/B grid, not whole: every lane rounded as the engine does.
    Fs,
    /// A computation at a CPU speed other than 1 in some lane: rounded to the ps.
    Cpu,
}

/// Every lane's [`Price`] and [`Coef`] for each kind and level of node, laid out lane
/// by lane so that a node's lanes are computed together.
struct Terms<const N: usize> {
    of: Vec<LaneTerms<N>>,
    /// The lanes in use (up to `N`).
    lanes: usize,
}

#[derive(Clone)]
struct LaneTerms<const N: usize> {
    fixed: [f64; N],
    per_byte: [f64; N],
    or_per_byte: [f64; N],
    rounding: Rounding,
    /// fs per byte of the larger of the two rates (on the fs/B grid), and its
    /// largest over the lanes.
    fs: [f64; N],
    max_fs: f64,
    /// The lanes whose price is off the fs/B grid (and not whole), with its two rates.
    rounded: Vec<(usize, Rate, Rate)>,
    down_fixed: [f64; N],
    down_per_byte: [f64; N],
    up_fixed: [f64; N],
    up_per_byte: [f64; N],
}

impl<const N: usize> Terms<N> {
    fn index(kind: u8, level: usize) -> usize {
        kind as usize * 2 + level
    }

    /// Whether some lane's price of some kind is rounded.
    fn rounds(&self) -> bool {
        self.of.iter().any(|t| t.rounding != Rounding::Whole || !t.rounded.is_empty())
    }

    fn new(lanes: &[Lane]) -> Terms<N> {
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
struct CodeRow<const N: usize> {
    cost: [f64; N],
    down: [f64; N],
    up: [f64; N],
}

impl<const N: usize> CodeRow<N> {
    /// The row of a node of price index `i` with `bytes` (rounded as the engine
    /// rounds where `ROUND`: a pass none of whose lanes rounds leaves it out).
    #[inline(always)]
    fn of<const ROUND: bool>(g: &ExecGraph, terms: &Terms<N>, i: usize, bytes: u64) -> CodeRow<N> {
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
struct CodeRows<const N: usize> {
    of: Vec<CodeRow<N>>,
}

impl<const N: usize> CodeRows<N> {
    fn new(g: &ExecGraph, codes: &PriceCodes, terms: &Terms<N>) -> CodeRows<N> {
        CodeRows {
            of: codes.pairs.iter().map(|&(i, bytes)| CodeRow::of::<true>(g, terms, i as usize, bytes)).collect(),
        }
    }
}

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
struct ZeroTerms<const N: usize> {
    of: Vec<ZeroTerm<N>>,
}

#[derive(Clone)]
struct ZeroTerm<const N: usize> {
    fixed: [f64; N],
    per_byte: [f64; N],
    rounded: Vec<(usize, Price)>,
}

impl<const N: usize> ZeroTerms<N> {
    fn new(base: &Point, lanes: &[Lane], terms: &Terms<N>) -> ZeroTerms<N> {
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
    fn steepest_on(&self, slots: &Slots, base: &Point, params: &[Param], threads: usize) -> Vec<SteepestLine> {
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
    fn steepest_pass<const N: usize>(&self, slots: &Slots, base: &Point, lanes: &[Lane], out: &mut Vec<SteepestLine>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just now.
            return unsafe { self.steepest_pass_avx2::<N>(slots, base, lanes, out) };
        }
        self.steepest_pass_lanes::<N>(slots, base, lanes, out)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn steepest_pass_avx2<const N: usize>(
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
    fn steepest_pass_lanes<const N: usize>(
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

/// Which predecessor set each node's time at the platform's point (the first of tied
/// ones): the critical path walks back along it.
#[derive(Default)]
pub struct Choices {
    /// Its index among the node's predecessors, or `u8::MAX` for one in `wide`.
    of: Vec<u8>,
    /// The index of the nodes with more predecessors than a byte counts (the end's).
    wide: HashMap<u32, u32>,
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
    fn wide(&mut self, v: usize, i: usize, of: &mut [u8]) {
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
    fn at_base_on(&self, slots: &Slots, base: &Point, params: &[Param], threads: usize) -> AtBase {
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

    fn base_pass<const N: usize>(&self, slots: &Slots, lanes: &[Lane], out: &mut AtBase, choose: bool) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just now.
            return unsafe { self.base_pass_avx2::<N>(slots, lanes, out, choose) };
        }
        self.base_pass_lanes::<N>(slots, lanes, out, choose)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn base_pass_avx2<const N: usize>(&self, slots: &Slots, lanes: &[Lane], out: &mut AtBase, choose: bool) {
        self.base_pass_lanes::<N>(slots, lanes, out, choose)
    }

    /// A node's cost (ps) at the pass's one point and its slopes' terms (a call of
    /// its own: a node past the table is rare, and its work would cost the loop its
    /// registers).
    #[cold]
    #[inline(never)]
    fn base_row<const N: usize>(
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
    fn base_pass_lanes<const N: usize>(&self, slots: &Slots, lanes: &[Lane], out: &mut AtBase, choose: bool) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_cut_into_even_runs_in_order() {
        assert_eq!(groups(16, 2), vec![0..8, 8..16]);
        assert_eq!(groups(6, 4), vec![0..2, 2..4, 4..6]);
        assert_eq!(groups(5, 2), vec![0..3, 3..5]);
        assert_eq!(groups(1, 4), vec![0..1]);
        assert_eq!(groups(20, 1), vec![0..20]);
        assert_eq!(groups(0, 2), Vec::<std::ops::Range<usize>>::new());
    }

    /// Lanes spread over 1 to 5 threads give the one thread's answers bit for bit:
    /// the first pass's times, slopes, choices and sizes, the steepest lines, and
    /// passes of each kind (the runs come back in lane order).
    #[test]
    fn every_number_of_threads_gives_the_same_answers() {
        use crate::analysis::record_schedule;
        use crate::engine::RunOptions;
        use crate::platform::Platform;
        use crate::schedule::patterns;
        let p = Platform::resolve("loggopsim").expect("a preset");
        let s = patterns::ring_exchange(12, 4, 2000, 3_000_000).expect("a schedule");
        let (_, g) = record_schedule(&s, &p, &RunOptions::default(), &mut |_| true).expect("the run finishes");
        let (slots, base) = (g.slots(), Point::of(&p));
        // 12 lanes: as many runs as threads.
        let params: Vec<Param> = Param::all(&p).into_iter().cycle().take(12).collect();
        let bits = |e: &[Eval]| -> Vec<[u64; 3]> {
            e.iter().map(|e| [e.makespan.to_bits(), e.slope_down.to_bits(), e.slope_up.to_bits()]).collect()
        };
        // 20 lanes: every parameter at 1 to 4 times its value (more than a pass holds).
        let lanes: Vec<Lane> = (1..=4)
            .flat_map(|m| params.iter().map(move |&x| (x, m)))
            .take(20)
            .map(|(x, m)| Lane { point: base.with(x, base.get(x) * m as f64 + 1000.0), param: x })
            .collect();
        let one = g.at_base_on(&slots, &base, &params, 1);
        let sizes = |a: &AtBase| format!("{:?}", (&a.sizes.counts, a.sizes.sizes.map(|s| s.smallest())));
        for threads in 2..=5 {
            let many = g.at_base_on(&slots, &base, &params, threads);
            assert_eq!(many.makespan.to_bits(), one.makespan.to_bits());
            assert_eq!(bits(&many.slopes), bits(&one.slopes), "{threads} threads");
            assert_eq!(many.choices.of, one.choices.of);
            assert_eq!(sizes(&many), sizes(&one));
            assert_eq!(g.steepest_on(&slots, &base, &params, threads), g.steepest_on(&slots, &base, &params, 1));
            for slopes in [Slopes::Both, Slopes::Down, Slopes::None] {
                let (a, b) = (g.passes(&slots, &lanes, slopes, threads), g.passes(&slots, &lanes, slopes, 1));
                assert_eq!(bits(&a), bits(&b), "{threads} threads");
            }
        }
        // And the first lanes are the one-point answers (the order kept).
        assert_eq!(
            bits(&g.passes(&slots, &lanes[..3], Slopes::Both, 3))[2],
            bits(&g.eval_lanes(&slots, &lanes[2..3]))[0]
        );
    }

    /// [`fs_time`] against the engine's rounding in integers (u128, a second
    /// method): small and odd rates and sizes, the halves, and products just under
    /// [`EXACT_FS`] with every kind of remainder.
    #[test]
    fn float_rounding_per_fs_is_the_engines_integer_rounding_below_its_limit() {
        let mut cases = Vec::new();
        for fs in [0u64, 1, 333, 499, 500, 501, 999, 1000, 6000, 333_333, 26_315_789, 1_000_000_007] {
            for b in [0u64, 1, 2, 3, 7, 64, 1001, 65_535, 1 << 20, 123_456_789] {
                cases.push((b, fs));
            }
        }
        let top = EXACT_FS as u64 / 1000 * 1000 - 1000;
        for r in [0, 1, 499, 500, 501, 998, 999] {
            cases.push((1, top + r));
            cases.push((3, (top + r) / 3));
        }
        // Products past the limit take the integer path in a pass.
        for (b, fs) in cases.into_iter().filter(|&(b, fs)| ((b as u128 * fs as u128) as f64) < EXACT_FS) {
            let engine = ((b as u128 * fs as u128 + 500) / 1000) as f64;
            assert_eq!(fs_time(b as f64, fs as f64), engine, "{b} B × {fs} fs/B");
        }
    }

    /// [`round_half_up`] is `f64::round` for the products a computation's time is:
    /// halves, the float just under a half, and values where 2^52 makes every float whole.
    #[test]
    fn rounding_half_up_is_round_for_non_negative_values() {
        let under_half = 0.5 - f64::EPSILON / 4.0;
        for y in
            [0.0, under_half, 0.5, 1.5, 2.5, 2.0 + under_half, 1e15 + 0.5, 4_503_599_627_370_495.5, 9.1e15, 123.456]
        {
            assert_eq!(round_half_up(y), y.round(), "{y}");
        }
    }
}
