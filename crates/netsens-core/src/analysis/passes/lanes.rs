//! Many evaluations of a recorded run in one pass. A pass over the whole record is
//! bound by memory, not arithmetic: carrying [`LANES`] points (each with the slopes
//! of its own parameter) through one pass costs little more than one point. The
//! values are kept only while a later node still reads them ([`Slots`]): a run's
//! live values are a few per rank, so every lane's values stay in cache however
//! long the run.

// A lane's loop indexes several arrays in step: by the lane, as the arithmetic reads.
#![allow(clippy::needless_range_loop)]

use super::eval::Eval;
use super::terms::{CodeRow, CodeRows, Terms};
use crate::analysis::prices::float::max;
use crate::analysis::prices::float::min;
use crate::analysis::record::codes::ESCAPE;
use crate::analysis::record::graph::{kind, ExecGraph};
use crate::analysis::record::params::{Param, Point};
pub use crate::analysis::record::slots::Slots;
pub use crate::analysis::record::threads::threads;

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
pub(crate) use by_width;

/// `n` lanes cut into at most `threads` runs, in order, as even as they go.
pub(crate) fn groups(n: usize, threads: usize) -> Vec<std::ops::Range<usize>> {
    let k = threads.clamp(1, n.max(1));
    let size = n.div_ceil(k).max(1);
    (0..n).step_by(size).map(|a| a..(a + size).min(n)).collect()
}

/// Lanes a thread takes at least: a pass of one lane costs about what one of two
/// does (the steepest lines of the exchange's g and O: 39 ms on one thread, 46 ms
/// on two of one lane each).
pub(crate) const LANES_A_THREAD: usize = 2;

/// `pass` over each run of `lanes` (with the run's index), the runs on threads of
/// their own (the first on this one); each run's output, in order.
pub(crate) fn in_groups<T: Send>(lanes: &[Lane], threads: usize, pass: impl Fn(&[Lane], usize) -> T + Sync) -> Vec<T> {
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
pub(crate) enum Slopes {
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
    pub(crate) fn passes(&self, slots: &Slots, lanes: &[Lane], slopes: Slopes, threads: usize) -> Vec<Eval> {
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
    pub(crate) fn pass<const N: usize>(&self, slots: &Slots, lanes: &[Lane], slopes: Slopes, out: &mut Vec<Eval>) {
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
    pub(crate) fn pass_avx2<const N: usize, const DOWN: bool, const UP: bool, const ROUND: bool>(
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
    pub(crate) fn pass_lanes<const N: usize, const DOWN: bool, const UP: bool, const ROUND: bool>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::passes::at_base::AtBase;
    use crate::analysis::prices::float::{fs_time, round_half_up, EXACT_FS};

    #[test]
    pub(crate) fn lanes_are_cut_into_even_runs_in_order() {
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
    pub(crate) fn every_number_of_threads_gives_the_same_answers() {
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
        // A pass with slopes gives the makespans of one without, bit for bit: a round's
        // points of both kinds may share one (`searches::tolerances`).
        let times =
            |slopes| g.passes(&slots, &lanes, slopes, 2).iter().map(|e| e.makespan.to_bits()).collect::<Vec<_>>();
        assert_eq!(times(Slopes::None), times(Slopes::Down));
        assert_eq!(times(Slopes::None), times(Slopes::Both));
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
    pub(crate) fn float_rounding_per_fs_is_the_engines_integer_rounding_below_its_limit() {
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
    pub(crate) fn rounding_half_up_is_round_for_non_negative_values() {
        let under_half = 0.5 - f64::EPSILON / 4.0;
        for y in
            [0.0, under_half, 0.5, 1.5, 2.5, 2.0 + under_half, 1e15 + 0.5, 4_503_599_627_370_495.5, 9.1e15, 123.456]
        {
            assert_eq!(round_half_up(y), y.round(), "{y}");
        }
    }
}
