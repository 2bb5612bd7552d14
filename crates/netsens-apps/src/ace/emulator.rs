//! The emulator's rank program, written against the `Rank` API only: phase one
//! benchmarks the EA's pattern and fits α–β, then measures T_comm for the chosen size;
//! phase two runs the compute/communicate cycles and times each part of each cycle.

use super::spec::EaSpec;
use super::stats::AlphaBeta;
use netsens_core::program::collectives::{allreduce, barrier, gather};
use netsens_core::program::{decode, encode, Communicator, Op, Rank};
use netsens_core::time::Time;
use std::cell::RefCell;
use std::rc::Rc;

/// What one rank of an EA measured.
#[derive(Clone, Debug, Default)]
pub struct RankLog {
    /// Index of the EA in the run's list.
    pub ea: usize,
    /// World rank.
    pub rank: u32,
    /// Phase one, agreed by the EA's ranks: (size in bytes, mean exchange time in ps).
    pub bench: Vec<(u64, f64)>,
    pub fit: AlphaBeta,
    /// Mean exchange and barrier time at the chosen size just before phase two (ps).
    pub t_comm: f64,
    pub t_sync: f64,
    /// Compute per cycle derived from the load (ps).
    pub t_comp: Time,
    /// Per cycle: compute, exchange and barrier time (ps).
    pub compute: Vec<Time>,
    pub comm: Vec<Time>,
    pub sync: Vec<Time>,
    /// Phase two from its starting barrier to the end of the last cycle (ps).
    pub run_time: Time,
}

/// Where each EA's first rank leaves its ranks' logs (the simulator reads it after
/// the run).
pub type Sink = Rc<RefCell<Vec<RankLog>>>;

/// Message sizes of phase one: eighths, quarters, halves and the chosen size.
pub fn bench_sizes(size: u64) -> Vec<u64> {
    let mut sizes: Vec<u64> = [size / 8, size / 4, size / 2, size].into_iter().filter(|&s| s > 0).collect();
    sizes.dedup();
    sizes
}

/// Compute used to learn how long a unit of charged compute takes here (the CPU
/// speed scales it in simulation; live, a spin loop's rate).
const PROBE: Time = 1_000_000_000;

/// The rank program: ranks in no EA return at once.
pub async fn emulate<R: Rank>(r: R, specs: Rc<Vec<EaSpec>>, sink: Sink) -> Result<(), String> {
    let me = r.rank();
    let Some((ea, spec)) = specs.iter().enumerate().find(|(_, s)| s.ranks.contains(&me)) else {
        return Ok(());
    };
    let comm = r.derive(&r.world(), spec.ranks.clone());
    let p = comm.size() as f64;
    let size = spec.size as usize;

    r.phase("benchmark");
    let t = r.now();
    r.compute(PROBE).await;
    let rate = PROBE as f64 / (r.now() - t) as f64;
    let sizes = bench_sizes(spec.size);
    let mut means = Vec::with_capacity(sizes.len());
    for &n in &sizes {
        let mut total = 0;
        for _ in 0..spec.bench_reps {
            barrier(&r, &comm).await;
            let t = r.now();
            spec.pattern.exchange(&r, &comm, n as usize).await;
            total += r.now() - t;
        }
        means.push(total as f64 / spec.bench_reps as f64);
    }
    // Every rank of the EA uses the same figures: the means over its ranks.
    let means = mean_over(&r, &comm, &means, p).await;
    let bench: Vec<(u64, f64)> = sizes.iter().copied().zip(means).collect();
    let fit = AlphaBeta::fit(&bench.iter().map(|&(n, t)| (n as f64, t)).collect::<Vec<_>>());

    // T_comm for the chosen size in the cycle's own shape, right before phase two:
    // once back to back, then with the compute that gives (a busy CPU delays the
    // processing of arrivals, so the cycle's shape matters to T_comm).
    barrier(&r, &comm).await;
    let first = measure_cycles(&r, &comm, spec, 0, p).await;
    let t_comp = compute_for(first, spec.load);
    let (t_comm, t_sync) = measure_cycles(&r, &comm, spec, (t_comp as f64 * rate).round() as Time, p).await;
    let t_comp = compute_for((t_comm, t_sync), spec.load);
    let charge = (t_comp as f64 * rate).round() as Time;

    r.phase("cycles");
    let n = spec.iterations as usize;
    let (mut compute, mut comm_t, mut sync) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    barrier(&r, &comm).await;
    let start = r.now();
    for _ in 0..n {
        let t0 = r.now();
        r.compute(charge).await;
        let t1 = r.now();
        spec.pattern.exchange(&r, &comm, size).await;
        let t2 = r.now();
        barrier(&r, &comm).await;
        let t3 = r.now();
        compute.push(t1 - t0);
        comm_t.push(t2 - t1);
        sync.push(t3 - t2);
    }
    let run_time = r.now() - start;

    // The EA's first rank collects every rank's cycles (after the timed part, through
    // the API, so a live run gets them the same way) and leaves the logs in the sink.
    let mine: Vec<u64> = [run_time].iter().chain(&compute).chain(&comm_t).chain(&sync).copied().collect();
    if let Some(all) = gather(&r, &comm, 0, encode(&mine)).await {
        let all: Vec<u64> = decode(&all);
        let mut sink = sink.borrow_mut();
        for (i, block) in all.chunks(mine.len()).enumerate() {
            let cycles = |k: usize| block[1 + k * n..1 + (k + 1) * n].to_vec();
            sink.push(RankLog {
                ea,
                rank: comm.world_rank(i as u32),
                bench: bench.clone(),
                fit,
                t_comm,
                t_sync,
                t_comp,
                compute: cycles(0),
                comm: cycles(1),
                sync: cycles(2),
                run_time: block[0],
            });
        }
    }
    Ok(())
}

/// `reps` cycles of (compute `charge`, exchange, barrier) after one unmeasured (the
/// first after an aligned start is shorter than the steady state): the mean exchange
/// and barrier times over the cycles and the EA's ranks (ps).
async fn measure_cycles<R: Rank>(r: &R, comm: &Communicator, spec: &EaSpec, charge: Time, p: f64) -> (f64, f64) {
    let (mut comm_sum, mut sync_sum) = (0, 0);
    for rep in 0..=spec.bench_reps {
        r.compute(charge).await;
        let t0 = r.now();
        spec.pattern.exchange(r, comm, spec.size as usize).await;
        let t1 = r.now();
        barrier(r, comm).await;
        if rep > 0 {
            comm_sum += t1 - t0;
            sync_sum += r.now() - t1;
        }
    }
    let reps = spec.bench_reps as f64;
    let agreed = mean_over(r, comm, &[comm_sum as f64 / reps, sync_sum as f64 / reps], p).await;
    (agreed[0], agreed[1])
}

/// `load = T_comm / T_cycle` with `T_cycle = T_comp + T_comm`, the barrier counted
/// as communication: `T_comp = T_comm (1 − load) / load`.
fn compute_for((t_comm, t_sync): (f64, f64), load: f64) -> Time {
    ((t_comm + t_sync) * (1.0 - load) / load).round() as Time
}

/// The element-wise mean of `values` over the members of `comm` (`p` of them).
async fn mean_over<R: Rank>(r: &R, comm: &Communicator, values: &[f64], p: f64) -> Vec<f64> {
    allreduce(r, comm, values, Op::Sum).await.into_iter().map(|v| v / p).collect()
}
