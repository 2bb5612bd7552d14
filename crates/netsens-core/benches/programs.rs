//! `make bench`, program front end: the same communication run as rank programs
//! (async coroutines) and as a schedule (GOAL's dependency graph), in one run.
//!
//! Prints events/s of both front ends, their ratio (median of alternating pairs),
//! and peak heap per rank.
//! Target (issue 4): the program front end within 2× of the schedule front end.

mod support;

use netsens_core::engine::RunOptions;
use netsens_core::profile::RunResult;
use netsens_core::program::collectives::{allreduce_with, AllreduceAlgorithm, Op};
use netsens_core::program::{run_program, Rank};
use netsens_core::schedule::{executor::run_schedule, Schedule, ScheduleBuilder};
use netsens_core::time::{Time, NS};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use support::{median, platform, reset_peak, verdict, PEAK};

#[global_allocator]
static ALLOC: support::Counting = support::Counting;

/// A px × py grid of ranks; each iteration computes, then exchanges `bytes` with
/// each existing neighbour (non-blocking sends and receives, then wait for all).
#[derive(Clone, Copy)]
struct Stencil {
    px: u32,
    py: u32,
    iters: u32,
    bytes: usize,
    calc: Time,
}

impl Stencil {
    fn neighbours(&self, me: u32) -> Vec<u32> {
        let (x, y) = (me % self.px, me / self.px);
        [(x > 0).then(|| me - 1), (x + 1 < self.px).then(|| me + 1), (y > 0).then(|| me - self.px)]
            .into_iter()
            .chain([(y + 1 < self.py).then(|| me + self.px)])
            .flatten()
            .collect()
    }

    async fn program<R: Rank>(self, r: R) -> Result<(), String> {
        let w = r.world();
        let nbrs = self.neighbours(r.rank());
        for _ in 0..self.iters {
            r.compute(self.calc).await;
            let mut reqs = Vec::with_capacity(2 * nbrs.len());
            for &n in &nbrs {
                reqs.push(r.isend(&w, n, 0, vec![0; self.bytes]));
            }
            for &n in &nbrs {
                reqs.push(r.irecv(&w, n as i32, 0));
            }
            let got = r.wait_all(reqs).await;
            if got[nbrs.len()..].iter().any(|m| m.data.len() != self.bytes) {
                return Err("a halo arrived with the wrong size".into());
            }
        }
        Ok(())
    }

    /// The same communication as a schedule: calc, sends, receives; the next calc
    /// requires every send and receive of the iteration (what wait_all waits for).
    fn schedule(&self) -> Schedule {
        let p = self.px * self.py;
        let mut b = ScheduleBuilder::new(p);
        for me in 0..p {
            let nbrs = self.neighbours(me);
            let mut prev: Vec<u32> = Vec::new();
            for _ in 0..self.iters {
                let c = b.calc(me, self.calc, 0);
                for &op in &prev {
                    b.requires(c, op);
                }
                prev.clear();
                for &n in &nbrs {
                    let s = b.send(me, n, self.bytes as u64, 0, 0, 0);
                    b.requires(s, c);
                    prev.push(s);
                }
                for &n in &nbrs {
                    let rv = b.recv(me, n as i32, self.bytes as u64, 0, 0, 0);
                    b.requires(rv, c);
                    prev.push(rv);
                }
            }
        }
        b.build().unwrap()
    }
}

/// Compute, then a recursive-doubling allreduce of `values` f64 sums, repeated.
#[derive(Clone, Copy)]
struct AllreduceLoop {
    ranks: u32,
    iters: u32,
    values: usize,
    calc: Time,
}

impl AllreduceLoop {
    async fn program<R: Rank>(self, r: R) -> Result<(), String> {
        let w = r.world();
        let mine = vec![r.rank() as f64; self.values];
        let expected = (self.ranks as f64 - 1.0) * self.ranks as f64 / 2.0;
        for _ in 0..self.iters {
            r.compute(self.calc).await;
            let sum = allreduce_with(&r, &w, &mine, Op::Sum, AllreduceAlgorithm::RecursiveDoubling).await;
            if sum.iter().any(|&x| x != expected) {
                return Err(format!("allreduce gave {} instead of {expected}", sum[0]));
            }
        }
        Ok(())
    }

    /// The same as a schedule: in round k each rank posts its receive from, then its
    /// send to, rank ^ 2^k (as the collective does); a round waits for both of the
    /// previous round's operations, the next calc for the last round's.
    fn schedule(&self) -> Schedule {
        assert!(self.ranks.is_power_of_two());
        let bytes = 8 * self.values as u64;
        let mut b = ScheduleBuilder::new(self.ranks);
        for me in 0..self.ranks {
            let mut prev: Vec<u32> = Vec::new();
            for _ in 0..self.iters {
                let c = b.calc(me, self.calc, 0);
                for &op in &prev {
                    b.requires(c, op);
                }
                prev = vec![c];
                let mut dist = 1;
                while dist < self.ranks {
                    let peer = me ^ dist;
                    let rv = b.recv(me, peer as i32, bytes, 0, 0, 0);
                    let sd = b.send(me, peer, bytes, 0, 0, 0);
                    for &op in &prev {
                        b.requires(rv, op);
                        b.requires(sd, op);
                    }
                    prev = vec![rv, sd];
                    dist *= 2;
                }
            }
        }
        b.build().unwrap()
    }
}

struct Timed {
    events_per_s: f64,
    peak_bytes: usize,
    result: RunResult,
}

fn once(f: &mut impl FnMut() -> RunResult) -> (f64, usize, RunResult) {
    let before = reset_peak();
    let t = Instant::now();
    let r = f();
    let wall = t.elapsed().as_secs_f64();
    (r.events as f64 / wall, PEAK.load(Relaxed) - before, r)
}

/// Program and schedule runs alternate, so that a change in the machine's load
/// hits both alike; the ratio is the median of the per-pair ratios.
fn paired(
    repeats: usize,
    mut program: impl FnMut() -> RunResult,
    mut schedule: impl FnMut() -> RunResult,
) -> (Timed, Timed, f64) {
    let (mut rates_p, mut rates_s, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut peak_p, mut peak_s) = (0, 0);
    let (mut last_p, mut last_s) = (None, None);
    for _ in 0..repeats {
        let (rp, mp, p) = once(&mut program);
        let (rs, ms, s) = once(&mut schedule);
        rates_p.push(rp);
        rates_s.push(rs);
        ratios.push(rs / rp);
        peak_p = peak_p.max(mp);
        peak_s = peak_s.max(ms);
        last_p = Some(p);
        last_s = Some(s);
    }
    let p = Timed { events_per_s: median(rates_p), peak_bytes: peak_p, result: last_p.unwrap() };
    let s = Timed { events_per_s: median(rates_s), peak_bytes: peak_s, result: last_s.unwrap() };
    (p, s, median(ratios))
}

fn compare(name: &str, ranks: u32, (program, schedule, ratio): (Timed, Timed, f64), schedule_bytes: usize) {
    let same = program.result.ranks.iter().map(|r| r.end_ps).eq(schedule.result.ranks.iter().map(|r| r.end_ps));
    println!(
        "{name:<32} {:>10} {:>9.2} {:>9.2} {:>8.2}x {:>11.0} {:>11.0} {:>6}",
        program.result.events,
        program.events_per_s / 1e6,
        schedule.events_per_s / 1e6,
        ratio,
        program.peak_bytes as f64 / ranks as f64,
        (schedule.peak_bytes + schedule_bytes) as f64 / ranks as f64,
        if same { "yes" } else { "NO" },
    );
    println!("target program within 2x of schedule ({name}): {ratio:.2}x {}", verdict(ratio <= 2.0));
}

fn main() {
    println!("netsens program front end vs schedule front end (LogGOPSim default parameters; medians)");
    println!(
        "{:<32} {:>10} {:>9} {:>9} {:>9} {:>11} {:>11} {:>6}",
        "case", "events", "prog Mev/s", "sched Mev/s", "sched/prog", "prog B/rank", "sched B/rank", "same t"
    );
    // `cargo bench` passes --bench; a filter argument selects cases by substring.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let want = |n: &str| filter.as_deref().is_none_or(|f| n.contains(f));
    let opts = RunOptions { matrix: false, ..Default::default() };
    let stencil = Stencil { px: 64, py: 64, iters: 50, bytes: 1024, calc: 10_000 * NS };
    if want("stencil") {
        let s = stencil.schedule();
        let runs = paired(
            5,
            || run_program(&platform(), 4096, &opts, |r| stencil.program(r)).unwrap(),
            || run_schedule(&s, &platform(), &opts).unwrap(),
        );
        compare("stencil 4096 ranks x 50 iters", 4096, runs, s.heap_bytes());
    }

    let loop_ = AllreduceLoop { ranks: 4096, iters: 20, values: 1, calc: 10_000 * NS };
    if want("allreduce") {
        let s = loop_.schedule();
        let runs = paired(
            5,
            || run_program(&platform(), 4096, &opts, |r| loop_.program(r)).unwrap(),
            || run_schedule(&s, &platform(), &opts).unwrap(),
        );
        compare("allreduce 4096 ranks x 20 iters", 4096, runs, s.heap_bytes());
    }
}
