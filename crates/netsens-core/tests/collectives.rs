//! Collectives on rank programs: end times derived by hand from the algorithms and
//! LOGGP.md, the same times through the schedule front end (the communication of
//! each algorithm rebuilt as a GOAL-style schedule), result payloads, automatic and
//! explicit algorithm choice, and deadlocks.
//!
//! Platform: LogGOPSim's defaults with the handshake rendezvous, L=2500 o=1500
//! g=1000 G=6 ns/B O=0 S=65535 B. For a message of s bytes, k = s−1 and:
//! - the sender's CPU is busy o = 1500 and its NIC g + 6k = 1000 + 6k;
//! - it arrives o + L = 4000 after it starts and, on an idle receiver, is processed
//!   for o + 6k = 1500 + 6k;
//! - so start of send → receive done is T(s) = 5500 + 6k when nothing queues.
//!
//! A rank's end time is its CPU clock when its last operation is done. Times below
//! are in ns.

mod common;
use common::*;
use netsens_core::engine::{OpId, RunOptions};
use netsens_core::error::Error;
use netsens_core::platform::{Platform, Rendezvous};
use netsens_core::profile::RunResult;
use netsens_core::program::collectives::*;
use netsens_core::program::{run_program, Rank, SimRank, ANY_SOURCE, ANY_TAG};
use netsens_core::schedule::{Schedule, ScheduleBuilder};
use std::future::Future;

fn defaults() -> Platform {
    loggopsim_defaults(Rendezvous::Handshake)
}

fn go<P, F>(ranks: u32, program: P) -> RunResult
where
    P: Fn(SimRank) -> F,
    F: Future<Output = Result<(), String>> + 'static,
{
    run_program(&defaults(), ranks, &RunOptions::default(), program).expect("the program runs")
}

fn ends(r: &RunResult) -> Vec<u64> {
    (0..r.ranks.len()).map(|i| end_ns(r, i)).collect()
}

const S: usize = 65535;

// ---- the cases: one collective call with a chosen algorithm and size ---------------

#[derive(Clone, Copy, Debug)]
enum Case {
    Barrier,
    /// `n` bytes from `root`.
    Bcast {
        root: u32,
        n: usize,
        algo: BcastAlgorithm,
    },
    /// `n` u64 to `root`.
    Reduce {
        root: u32,
        n: usize,
    },
    /// `n` u64.
    Allreduce {
        n: usize,
        algo: AllreduceAlgorithm,
    },
    /// Blocks of `b` bytes.
    Gather {
        root: u32,
        b: usize,
    },
    Scatter {
        root: u32,
        b: usize,
    },
    Allgather {
        b: usize,
        algo: AllgatherAlgorithm,
    },
    Alltoall {
        b: usize,
    },
    /// Block i → j has 1 + step·`unit` bytes, where step is the pairwise-exchange
    /// step that carries it (i XOR j for powers of two, else (j − i) mod p).
    Alltoallv {
        unit: usize,
    },
    /// Every rank color 0, key −rank (one allgather of 8-byte blocks).
    Split,
}

fn step_of(i: u32, j: u32, p: u32) -> u32 {
    if p.is_power_of_two() {
        i ^ j
    } else {
        (j + p - i) % p
    }
}

fn vsize(i: u32, j: u32, p: u32, unit: usize) -> usize {
    1 + step_of(i, j, p) as usize * unit
}

async fn run_case(r: &SimRank, case: Case) -> Result<(), String> {
    let w = r.world();
    let (p, me) = (r.size(), r.rank());
    match case {
        Case::Barrier => barrier(r, &w).await,
        Case::Bcast { root, n, algo } => {
            let data: Vec<u8> = (0..n).map(|i| if me == root { (i % 251) as u8 } else { 0 }).collect();
            let got = bcast_with(r, &w, root, data, algo).await;
            if got.len() != n || got.iter().enumerate().any(|(i, &x)| x != (i % 251) as u8) {
                return Err("bcast delivered the wrong bytes".into());
            }
        }
        Case::Reduce { root, n } => {
            let got = reduce(r, &w, root, &vec![me as u64 + 1; n], Op::Sum).await;
            let want = (p as u64) * (p as u64 + 1) / 2;
            if (me == root) != got.is_some() || got.is_some_and(|v| v != vec![want; n]) {
                return Err("reduce result is wrong".into());
            }
        }
        Case::Allreduce { n, algo } => {
            let got = allreduce_with(r, &w, &vec![me as u64 + 1; n], Op::Sum, algo).await;
            if got != vec![(p as u64) * (p as u64 + 1) / 2; n] {
                return Err("allreduce result is wrong".into());
            }
        }
        Case::Gather { root, b } => {
            let got = gather(r, &w, root, vec![me as u8; b]).await;
            let want: Vec<u8> = (0..p).flat_map(|i| vec![i as u8; b]).collect();
            if (me == root) != got.is_some() || got.is_some_and(|v| v != want) {
                return Err("gather result is wrong".into());
            }
        }
        Case::Scatter { root, b } => {
            let data: Vec<u8> = if me == root { (0..p).flat_map(|i| vec![i as u8; b]).collect() } else { vec![] };
            if scatter(r, &w, root, data, b).await != vec![me as u8; b] {
                return Err("scatter result is wrong".into());
            }
        }
        Case::Allgather { b, algo } => {
            let want: Vec<u8> = (0..p).flat_map(|i| vec![i as u8; b]).collect();
            if allgather_with(r, &w, vec![me as u8; b], algo).await != want {
                return Err("allgather result is wrong".into());
            }
        }
        Case::Alltoall { b } => {
            let data: Vec<u8> = (0..p).flat_map(|j| vec![(me * 16 + j) as u8; b]).collect();
            let want: Vec<u8> = (0..p).flat_map(|i| vec![(i * 16 + me) as u8; b]).collect();
            if alltoall(r, &w, data).await != want {
                return Err("alltoall result is wrong".into());
            }
        }
        Case::Alltoallv { unit } => {
            let blocks = (0..p).map(|j| vec![(me * 16 + j) as u8; vsize(me, j, p, unit)]).collect();
            let got = alltoallv(r, &w, blocks).await;
            for (i, blk) in got.iter().enumerate() {
                if *blk != vec![(i as u32 * 16 + me) as u8; vsize(i as u32, me, p, unit)] {
                    return Err(format!("alltoallv block from {i} is wrong"));
                }
            }
        }
        Case::Split => {
            let c = split(r, &w, 0, -(me as i32)).await.ok_or("split gave no communicator")?;
            if c.rank() != p - 1 - me {
                return Err(format!("split ranked {me} as {}", c.rank()));
            }
        }
    }
    Ok(())
}

fn program_ends(p: u32, case: Case) -> Vec<u64> {
    ends(&go(p, move |r| async move { run_case(&r, case).await }))
}

// ---- the same communication as a schedule -------------------------------------------
//
// Each rank's part of an algorithm is a list of stages: the operations the program
// starts together (a receive before the send of a send-receive pair, as the program
// posts them), each stage waiting for every operation of the previous one — what the
// program's `wait`/`wait_all` does. Built rank by rank, so that operations starting at
// time 0 are enabled in rank order, as the program front end polls the ranks.

#[derive(Clone, Copy)]
enum Step {
    Send(u32, usize),
    Recv(u32, usize),
}
use Step::{Recv, Send};

type Stages = Vec<Vec<Step>>;

fn schedule_of(p: u32, plan: impl Fn(u32) -> Stages) -> Schedule {
    let mut b = ScheduleBuilder::new(p);
    for me in 0..p {
        let mut prev: Vec<OpId> = Vec::new();
        for stage in plan(me).into_iter().filter(|s| !s.is_empty()) {
            let ids: Vec<OpId> = stage
                .iter()
                .map(|s| match *s {
                    Send(to, n) => b.send(me, to, n as u64, 0, 0, 0),
                    Recv(from, n) => b.recv(me, from as i32, n as u64, 0, 0, 0),
                })
                .collect();
            for &i in &ids {
                for &q in &prev {
                    b.requires(i, q);
                }
            }
            prev = ids;
        }
    }
    b.build().expect("a valid schedule")
}

fn exchange(to: u32, send: usize, from: u32, recv: usize) -> Vec<Step> {
    vec![Recv(from, recv), Send(to, send)]
}

/// Lowest set bit of a relative rank; for the root, the smallest power of two ≥ p.
fn lowbit(vr: u32, p: u32) -> u32 {
    if vr == 0 {
        p.next_power_of_two()
    } else {
        vr & vr.wrapping_neg()
    }
}

fn barrier_plan(p: u32, me: u32) -> Stages {
    let mut st = Vec::new();
    let mut d = 1;
    while d < p {
        st.push(exchange((me + d) % p, 0, (me + p - d) % p, 0));
        d *= 2;
    }
    st
}

fn bcast_binomial_plan(p: u32, root: u32, n: usize, me: u32) -> Stages {
    let vr = (me + p - root) % p;
    let lb = lowbit(vr, p);
    let abs = |v: u32| (v + root) % p;
    let mut st = Vec::new();
    if vr != 0 {
        st.push(vec![Recv(abs(vr - lb), n)]);
    }
    let mut sends = Vec::new();
    let mut m = lb / 2;
    while m > 0 {
        if vr + m < p {
            sends.push(Send(abs(vr + m), n));
        }
        m /= 2;
    }
    st.push(sends);
    st
}

/// Binomial scatter of relative blocks [bounds[j], bounds[j+1]); empty pieces skipped.
fn scatter_plan(p: u32, root: u32, bounds: &[usize], me: u32) -> Stages {
    let vr = (me + p - root) % p;
    let lb = lowbit(vr, p);
    let abs = |v: u32| (v + root) % p;
    let at = |j: u32| bounds[j.min(p) as usize];
    let mut st = Vec::new();
    if vr != 0 && at(vr + lb) > at(vr) {
        st.push(vec![Recv(abs(vr - lb), at(vr + lb) - at(vr))]);
    }
    let mut sends = Vec::new();
    let mut m = lb / 2;
    while m > 0 {
        if vr + m < p && at(vr + 2 * m) > at(vr + m) {
            sends.push(Send(abs(vr + m), at(vr + 2 * m) - at(vr + m)));
        }
        m /= 2;
    }
    st.push(sends);
    st
}

fn bcast_scatter_allgather_plan(p: u32, root: u32, n: usize, me: u32) -> Stages {
    let chunk = n.div_ceil(p as usize);
    let bounds: Vec<usize> = (0..=p as usize).map(|i| (i * chunk).min(n)).collect();
    let size = |c: u32| bounds[c as usize + 1] - bounds[c as usize];
    let mut st = scatter_plan(p, root, &bounds, me);
    let vr = (me + p - root) % p;
    for i in 0..p - 1 {
        let (s, r) = ((vr + p - i) % p, (vr + 2 * p - i - 1) % p);
        st.push(exchange((me + 1) % p, size(s), (me + p - 1) % p, size(r)));
    }
    st
}

fn reduce_plan(p: u32, root: u32, bytes: usize, me: u32) -> Stages {
    let vr = (me + p - root) % p;
    let abs = |v: u32| (v + root) % p;
    let mut st = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask == 0 {
            if vr | mask < p {
                st.push(vec![Recv(abs(vr | mask), bytes)]);
            }
        } else {
            st.push(vec![Send(abs(vr - mask), bytes)]);
            break;
        }
        mask <<= 1;
    }
    st
}

fn gather_plan(p: u32, root: u32, b: usize, me: u32) -> Stages {
    let vr = (me + p - root) % p;
    let abs = |v: u32| (v + root) % p;
    let mut st = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < p {
                st.push(vec![Recv(abs(src), b * mask.min(p - src) as usize)]);
            }
        } else {
            st.push(vec![Send(abs(vr - mask), b * mask.min(p - vr) as usize)]);
            break;
        }
        mask <<= 1;
    }
    st
}

fn pof2_rem(p: u32) -> (u32, u32) {
    let pof2 = 1 << (31 - p.leading_zeros());
    (pof2, p - pof2)
}

fn unfold(nr: u32, rem: u32) -> u32 {
    if nr < rem {
        2 * nr + 1
    } else {
        nr + rem
    }
}

fn allreduce_rd_plan(p: u32, bytes: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    if me < 2 * rem && me.is_multiple_of(2) {
        return vec![vec![Send(me + 1, bytes)], vec![Recv(me + 1, bytes)]];
    }
    let mut st = Vec::new();
    if me < 2 * rem {
        st.push(vec![Recv(me - 1, bytes)]);
    }
    let nr = if me < 2 * rem { me / 2 } else { me - rem };
    let mut mask = 1;
    while mask < pof2 {
        let partner = unfold(nr ^ mask, rem);
        st.push(exchange(partner, bytes, partner, bytes));
        mask <<= 1;
    }
    if me < 2 * rem {
        st.push(vec![Send(me - 1, bytes)]);
    }
    st
}

fn rabenseifner_plan(p: u32, n: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    let bytes = 8 * n;
    if me < 2 * rem && me.is_multiple_of(2) {
        return vec![vec![Send(me + 1, bytes)], vec![Recv(me + 1, bytes)]];
    }
    let mut st = Vec::new();
    if me < 2 * rem {
        st.push(vec![Recv(me - 1, bytes)]);
    }
    let nr = if me < 2 * rem { me / 2 } else { me - rem };
    let start = |b: u32| {
        let b = b as usize;
        b * (n / pof2 as usize) + b.min(n % pof2 as usize)
    };
    let len = |a: u32, b: u32| 8 * (start(b) - start(a));
    let (mut lo, mut hi) = (0, pof2);
    let mut steps = Vec::new();
    let mut mask = 1;
    while mask < pof2 {
        let pnr = nr ^ mask;
        let partner = unfold(pnr, rem);
        let mid = lo + (hi - lo) / 2;
        let (keep, give) = if nr < pnr { ((lo, mid), (mid, hi)) } else { ((mid, hi), (lo, mid)) };
        st.push(exchange(partner, len(give.0, give.1), partner, len(keep.0, keep.1)));
        steps.push((partner, (lo, hi)));
        (lo, hi) = keep;
        mask <<= 1;
    }
    for &(partner, (plo, phi)) in steps.iter().rev() {
        let other = if lo == plo { (hi, phi) } else { (plo, lo) };
        st.push(exchange(partner, len(lo, hi), partner, len(other.0, other.1)));
        (lo, hi) = (plo, phi);
    }
    if me < 2 * rem {
        st.push(vec![Send(me - 1, bytes)]);
    }
    st
}

fn allgather_rd_plan(p: u32, b: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    if me < 2 * rem && me.is_multiple_of(2) {
        return vec![vec![Send(me + 1, b)], vec![Recv(me + 1, b * p as usize)]];
    }
    let mut st = Vec::new();
    if me < 2 * rem {
        st.push(vec![Recv(me - 1, b)]);
    }
    let nr = if me < 2 * rem { me / 2 } else { me - rem };
    // New ranks [a, a+m) hold the blocks of ranks [first(a), first(a+m)).
    let first = |i: u32| if i < rem { 2 * i } else { i + rem };
    let group = |i: u32, m: u32| b * (first((i & !(m - 1)) + m) - first(i & !(m - 1))) as usize;
    let mut mask = 1;
    while mask < pof2 {
        let pnr = nr ^ mask;
        st.push(exchange(unfold(pnr, rem), group(nr, mask), unfold(pnr, rem), group(pnr, mask)));
        mask <<= 1;
    }
    if me < 2 * rem {
        st.push(vec![Send(me - 1, b * p as usize)]);
    }
    st
}

fn ring_plan(p: u32, b: usize, me: u32) -> Stages {
    (1..p).map(|_| exchange((me + 1) % p, b, (me + p - 1) % p, b)).collect()
}

fn pairwise_plan(p: u32, size: impl Fn(u32, u32) -> usize, me: u32) -> Stages {
    (1..p)
        .map(|i| {
            let (dst, src) = if p.is_power_of_two() { (me ^ i, me ^ i) } else { ((me + i) % p, (me + p - i) % p) };
            exchange(dst, size(me, dst), src, size(src, me))
        })
        .collect()
}

fn plan(case: Case, p: u32, me: u32) -> Stages {
    match case {
        Case::Barrier => barrier_plan(p, me),
        Case::Bcast { root, n, algo } => {
            let big = algo == BcastAlgorithm::ScatterAllgather || (algo == BcastAlgorithm::Auto && n > S);
            if big {
                bcast_scatter_allgather_plan(p, root, n, me)
            } else {
                bcast_binomial_plan(p, root, n, me)
            }
        }
        Case::Reduce { root, n } => reduce_plan(p, root, 8 * n, me),
        Case::Allreduce { n, algo } => {
            let auto_big = 8 * n > S && n >= pof2_rem(p).0 as usize;
            if algo == AllreduceAlgorithm::Rabenseifner || (algo == AllreduceAlgorithm::Auto && auto_big) {
                rabenseifner_plan(p, n, me)
            } else {
                allreduce_rd_plan(p, 8 * n, me)
            }
        }
        Case::Gather { root, b } => gather_plan(p, root, b, me),
        Case::Scatter { root, b } => {
            let bounds: Vec<usize> = (0..=p as usize).map(|i| i * b).collect();
            scatter_plan(p, root, &bounds, me)
        }
        Case::Allgather { b, algo } => {
            if algo == AllgatherAlgorithm::Ring || (algo == AllgatherAlgorithm::Auto && b * p as usize > S) {
                ring_plan(p, b, me)
            } else {
                allgather_rd_plan(p, b, me)
            }
        }
        Case::Alltoall { b } => pairwise_plan(p, |_, _| b, me),
        Case::Alltoallv { unit } => pairwise_plan(p, |i, j| vsize(i, j, p, unit), me),
        Case::Split => allgather_rd_plan(p, 8, me),
    }
}

fn schedule_ends(p: u32, case: Case) -> Vec<u64> {
    ends(&run(&schedule_of(p, |me| plan(case, p, me)), &defaults()))
}

/// The rank program and the schedule give the same end time on every rank.
fn same_as_schedule(p: u32, case: Case) {
    assert_eq!(program_ends(p, case), schedule_ends(p, case), "{case:?} at {p} ranks");
}

// ---- 1. end times derived by hand ---------------------------------------------------

fn check_by_hand(case: Case, p: u32, want: &[u64]) {
    assert_eq!(program_ends(p, case), want, "{case:?} at {p} ranks");
}

fn uniform(p: u32, t: u64) -> Vec<u64> {
    vec![t; p as usize]
}

#[test]
fn barrier_by_hand() {
    // Dissemination, 0-byte messages (k = 0): in every round each rank sends at t and
    // receives a message sent at t by another rank: arrives t + 4000 on an idle CPU
    // (its own send left the CPU at t + 1500), done t + 5500. ⌈log2 p⌉ rounds × 5500
    // on every rank (LOGGP.md vector 3 at 16 ranks).
    for (p, rounds) in [(2, 1), (3, 2), (8, 3), (16, 4)] {
        check_by_hand(Case::Barrier, p, &uniform(p, rounds * 5500));
    }
}

#[test]
fn bcast_binomial_by_hand() {
    // Binomial tree, root 0, 1 byte (k = 0, T = 5500). A rank with relative rank vr
    // gets the data at f(vr) and then starts all its sends at once, to vr + m for
    // m = lowbit(vr)/2, …, 1 (largest subtree first; the root from the largest power
    // of two < p). Back-to-back sends start every max(o, g + 6k) = 1500, so the child
    // sent to j-th (from 0) gets the data at f(parent) + 1500·j + 5500; a rank with c
    // children ends at f + 1500·(c−1) + 1500, a leaf at f. Nothing else queues: every
    // rank receives one message, on an idle CPU.
    let case = |n| Case::Bcast { root: 0, n, algo: BcastAlgorithm::Auto };
    // p=2: 0 → 1 at 0: ends 1500, 5500.
    check_by_hand(case(1), 2, &[1500, 5500]);
    // p=3: 0 sends to 2 at 0, to 1 at 1500 (end 3000): f(2) = 5500, f(1) = 7000.
    check_by_hand(case(1), 3, &[3000, 7000, 5500]);
    // p=8: 0 → 4, 2, 1 at 0, 1500, 3000 (end 4500): f = 5500, 7000, 8500.
    //      4 → 6, 5 at 5500, 7000 (end 8500): f(6) = 11000, f(5) = 12500.
    //      2 → 3 at 7000 (end 8500): f(3) = 12500.  6 → 7 at 11000 (end 12500): f(7) = 16500.
    check_by_hand(case(1), 8, &[4500, 8500, 8500, 12500, 8500, 12500, 12500, 16500]);
    // p=16: 0 → 8, 4, 2, 1 at 0 … 4500 (end 6000); f(8) = 5500, f(4) = 7000,
    //      f(2) = 8500, f(1) = 10000. 8 → 12, 10, 9 at 5500, 7000, 8500 (end 10000):
    //      f = 11000, 12500, 14000. 4 → 6, 5 at 7000, 8500 (end 10000): f = 12500,
    //      14000. 2 → 3 at 8500 (end 10000): f(3) = 14000. 12 → 14, 13 at 11000,
    //      12500 (end 14000): f = 16500, 18000. 10 → 11 at 12500 (end 14000): 18000.
    //      6 → 7 at 12500 (end 14000): 18000. 14 → 15 at 16500 (end 18000): 22000.
    //      In closed form: end(vr) = 6000 + 4000·popcount(vr).
    let p16: Vec<u64> = (0..16u32).map(|v| 6000 + 4000 * v.count_ones() as u64).collect();
    assert_eq!(
        p16,
        [6000, 10000, 10000, 14000, 10000, 14000, 14000, 18000, 10000, 14000, 14000, 18000, 14000, 18000, 18000, 22000]
    );
    check_by_hand(case(1), 16, &p16);
    // Root 3 at 8 ranks: the same tree on relative ranks: rank r ends as vr = r − 3 did.
    let p8 = [4500, 8500, 8500, 12500, 8500, 12500, 12500, 16500];
    let rotated: Vec<u64> = (0..8).map(|r| p8[(r + 8 - 3) % 8]).collect();
    check_by_hand(Case::Bcast { root: 3, n: 1, algo: BcastAlgorithm::Binomial }, 8, &rotated);
    // 100 bytes (k = 99, 6k = 594) at 8 ranks: now the NIC gap g + 6k = 1594 exceeds
    // o = 1500, so back-to-back sends start every 1594; T = 5500 + 594 = 6094.
    //      0 → 4, 2, 1 at 0, 1594, 3188 (end 4688): f = 6094, 7688, 9282.
    //      4 → 6, 5 at 6094, 7688 (end 9188): f(6) = 12188, f(5) = 13782.
    //      2 → 3 at 7688 (end 9188): f(3) = 13782.  6 → 7 at 12188 (end 13688): 18282.
    check_by_hand(case(100), 8, &[4688, 9282, 9188, 13782, 9188, 13782, 13688, 18282]);
}

#[test]
fn bcast_scatter_allgather_by_hand() {
    // Chosen explicitly with small messages (n = p bytes: one 1-byte chunk per rank).
    let case = |n| Case::Bcast { root: 0, n, algo: BcastAlgorithm::ScatterAllgather };
    // p=2: scatter 0 → 1 (chunk 1) at 0: 0's CPU free at 1500, 1 done at 5500.
    // Ring step 0: 0 posts recv(1) and sends chunk 0 at 1500 (CPU 3000), arriving at 1
    // at 5500 — the instant 1's scatter receive is done. That arrival was created
    // before 1's ring operations, so it is processed first: 1's CPU busy until 7000,
    // the message unexpected; 1's receive matches it at once; 1's send waits for the
    // CPU: 7000 → CPU 8500 (1 ends 8500), arrives at 0 at 11000, done 12500.
    check_by_hand(case(2), 2, &[12500, 8500]);
    // p=3: scatter: 0 → 2 at 0, 0 → 1 at 1500 (0's CPU 3000); f(2) = 5500, f(1) = 7000.
    // Ring (right = r+1), step 0 sends a rank's own chunk, step 1 the chunk it got:
    //  0: step 0 at 3000: sends to 1 (CPU 4500), arriving 7000.
    //  2: step 0 at 5500: sends to 0 (CPU 7000), arriving 9500.
    //  1: its scatter receive is done at 7000, the instant 0's ring message arrives
    //     (an older event): processed first, 7000 → 8500; 1's send waits: 8500 → CPU
    //     10000, arriving at 2 at 12500. 1's step 0 is done at 10000.
    //  0: 2's message arrives 9500 on an idle CPU → 11000. Step 1 at 11000: sends to
    //     1 (CPU 12500), arriving 15000.
    //  1: step 1 at 10000: sends to 2 (CPU 11500), arriving 14000; 0's message
    //     arrives 15000 → done 16500 = 1's end.
    //  2: 1's step-0 message arrives 12500 → 14000 (step 0 done); at 14000 1's step-1
    //     message arrives (older event) → CPU 15500, unexpected; 2's step-1 receive
    //     matches it, its send waits: 15500 → CPU 17000 = 2's end; arrives at 0 19500.
    //  0: done 19500 + 1500 = 21000.
    check_by_hand(case(3), 3, &[21000, 16500, 17000]);
}

#[test]
fn reduce_by_hand() {
    // Binomial reduce to 0 of one u64 (8 bytes: k = 7, T = 5542, processing 1542).
    // A rank with bit `mask` of vr clear receives from vr + mask in turn (mask = 1, 2,
    // …), then sends to its parent. Powers of two: a subtree of height h is reduced
    // at R(h) = h·5542 — the child of height i sends at i·5542 and its message arrives
    // at i·5542 + 4000, after the previous child's receive (done at i·5542): nothing
    // queues. A rank of height h < log2 p ends at R(h) + 1500 (its send), the root at
    // log2(p)·5542.
    let case = Case::Reduce { root: 0, n: 1 };
    check_by_hand(case, 2, &[5542, 1500]);
    // p=3: 0's children 1 and 2 (2 has none: 3 ≥ p) both send at 0 and both messages
    // arrive at 4000; 1's (older) is processed 4000 → 5542 and completes 0's first
    // receive; 2's finds the CPU busy and is processed at 5542 → 7084 (unexpected, and
    // 0's second receive, posted at 5542, matches it): 0 ends at 7084.
    check_by_hand(case, 3, &[7084, 1500, 1500]);
    // p=8: height 0 (odd) 1500; height 1 (2, 6): 5542 + 1500 = 7042; height 2 (4):
    // 11084 + 1500 = 12584; root 3·5542 = 16626.
    check_by_hand(case, 8, &[16626, 1500, 7042, 1500, 12584, 1500, 7042, 1500]);
    // p=16: as p=8, plus height 3 (8): 16626 + 1500 = 18126; root 4·5542 = 22168.
    let p16: Vec<u64> = (0..16u32)
        .map(|v| match v {
            0 => 22168,
            _ => v.trailing_zeros() as u64 * 5542 + 1500,
        })
        .collect();
    assert_eq!(&p16[..9], [22168, 1500, 7042, 1500, 12584, 1500, 7042, 1500, 18126]);
    check_by_hand(case, 16, &p16);
}

#[test]
fn allreduce_recursive_doubling_by_hand() {
    // One u64 (k = 7): powers of two do log2 p symmetric exchanges of 5542 each.
    let case = Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto };
    check_by_hand(case, 2, &uniform(2, 5542));
    check_by_hand(case, 8, &uniform(8, 3 * 5542));
    check_by_hand(case, 16, &uniform(16, 4 * 5542));
    // p=3: pof2 = 2, rem = 1: 0 folds into 1; 1 (new rank 0) and 2 (new rank 1)
    // exchange; 1 hands the result back to 0.
    //  t=0: 0 sends to 1 (CPU 1500), arriving 4000. 2 posts recv(1) and sends to 1
    //       (CPU 1500), arriving 4000 too.
    //  4000: 0's message (older) completes 1's receive: CPU 5542. 1 then posts recv(2)
    //       and its send to 2, both at 5542. 2's message found the CPU busy and is
    //       processed at 5542 (an older event than 1's new operations): CPU 7084,
    //       unexpected; 1's receive matches it; 1's send waits for the CPU.
    //  7084: 1 sends to 2: CPU 8584; arrives 11084, 2 done 11084 + 1542 = 12626.
    //  8584: 1 sends the result to 0: CPU 10084 = 1's end; arrives 12584, 0 done
    //       12584 + 1542 = 14126.
    check_by_hand(case, 3, &[14126, 10084, 12626]);
}

#[test]
fn allreduce_rabenseifner_by_hand() {
    // Chosen explicitly with 16 u64 (128 bytes). Powers of two: a reduce-scatter of
    // log2 p symmetric exchanges of 64, 32, … bytes (half the range each), then an
    // allgather of the same sizes in reverse. T(64 B) = 5500 + 6·63 = 5878,
    // T(32) = 5686, T(16) = 5590, T(8) = 5542; NIC gaps (≤ 1378) never bind.
    let case = Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner };
    check_by_hand(case, 2, &uniform(2, 2 * 5878));
    check_by_hand(case, 8, &uniform(8, 2 * (5878 + 5686 + 5590)));
    check_by_hand(case, 16, &uniform(16, 2 * (5878 + 5686 + 5590 + 5542)));
    // p=3: 0 folds its 128 bytes (k = 127, 6k = 762) into 1; 1 and 2 run the
    // two-rank algorithm on 8-element halves (64 bytes, 6k = 378).
    //  t=0: 0 sends 128 B to 1 (CPU 1500), arriving 4000. 2 (upper new rank) keeps
    //       the upper half and sends the lower (64 B) to 1 (CPU 1500), arriving 4000.
    //  4000: 0's message (older): 1's CPU until 4000 + 1500 + 762 = 6262.
    //  6262: 2's message (deferred) → 1's CPU 6262 + 1878 = 8140, unexpected; 1's
    //       reduce-scatter receive matches it, its send (64 B) waits: 8140 → CPU
    //       9640, NIC 8140 + 1378 = 9518; arrives at 2 at 12140.
    //  9640: 1's allgather step: sends its reduced half (64 B): CPU 11140, arrives at
    //       2 at 13640.
    //  12140: 2 processes 1's first message → 14018 (2's reduce-scatter done).
    //  13640: 1's second message finds 2 busy; at 14018 it is processed first (older
    //       than 2's allgather operations): CPU 15896, unexpected; 2's receive matches
    //       it and 2's send waits: 15896 → CPU 17396 = 2's end; arrives at 1 at 19896.
    //  19896: 1 processes it → 21774; then the fold-out: 128 B to 0 at 21774, CPU
    //       23274 = 1's end; arrives 25774; 0 done 25774 + 2262 = 28036.
    check_by_hand(case, 3, &[28036, 23274, 17396]);
}

#[test]
fn gather_by_hand() {
    // Binomial gather to 0 of 1-byte blocks: as the reduce, but a rank of height h
    // forwards 2^h bytes (k = 2^h − 1). Powers of two: R(0) = 0, R(h+1) = R(h) +
    // 5500 + 6·(2^h − 1): R(1) = 5500, R(2) = 11006, R(3) = 16524, R(4) = 22066
    // (each child's message arrives after the previous receive is done, as in the
    // reduce). A rank of height h < log2 p ends at R(h) + 1500, the root at R(log2 p).
    let case = Case::Gather { root: 0, b: 1 };
    check_by_hand(case, 2, &[5500, 1500]);
    // p=3: both leaves' 1-byte messages arrive at 4000: 4000 → 5500, then 5500 → 7000.
    check_by_hand(case, 3, &[7000, 1500, 1500]);
    check_by_hand(case, 8, &[16524, 1500, 7000, 1500, 12506, 1500, 7000, 1500]);
    let r = [0u64, 5500, 11006, 16524, 22066];
    let p16: Vec<u64> = (0..16u32).map(|v| if v == 0 { r[4] } else { r[v.trailing_zeros() as usize] + 1500 }).collect();
    assert_eq!(&p16[..9], [22066, 1500, 7000, 1500, 12506, 1500, 7000, 1500, 18024]);
    check_by_hand(case, 16, &p16);
}

#[test]
fn scatter_by_hand() {
    // Binomial scatter from 0 of 1-byte blocks: the bcast tree, but the message to the
    // child vr + m carries its subtree's min(m, p − vr − m) blocks (k = blocks − 1).
    // Sends start every 1500 (g + 6k ≤ 1042 < o); a child sent to at t gets its data
    // at t + 5500 + 6k.
    let case = Case::Scatter { root: 0, b: 1 };
    check_by_hand(case, 2, &[1500, 5500]);
    check_by_hand(case, 3, &[3000, 7000, 5500]);
    // p=8: 0 → 4 (4 B) at 0, → 2 (2 B) at 1500, → 1 at 3000 (end 4500):
    //      f(4) = 5518, f(2) = 7006, f(1) = 8500.
    //      4 → 6 (2 B) at 5518, → 5 at 7018 (end 8518): f(6) = 11024, f(5) = 12518.
    //      2 → 3 at 7006 (end 8506): f(3) = 12506.  6 → 7 at 11024 (end 12524): 16524.
    check_by_hand(case, 8, &[4500, 8500, 8506, 12506, 8518, 12518, 12524, 16524]);
    // p=16: 0 → 8 (8 B), 4 (4 B), 2 (2 B), 1 at 0, 1500, 3000, 4500 (end 6000):
    //      f(8) = 5542, f(4) = 7018, f(2) = 8506, f(1) = 10000.
    //   8 → 12 (4 B), 10 (2 B), 9 at 5542, 7042, 8542 (end 10042): 11060, 12548, 14042.
    //   4 → 6 (2 B), 5 at 7018, 8518 (end 10018): f(6) = 12524, f(5) = 14018.
    //   2 → 3 at 8506 (end 10006): f(3) = 14006.
    //   12 → 14 (2 B), 13 at 11060, 12560 (end 14060): f(14) = 16566, f(13) = 18060.
    //   10 → 11 at 12548 (end 14048): 18048.  6 → 7 at 12524 (end 14024): 18024.
    //   14 → 15 at 16566 (end 18066): f(15) = 22066.
    check_by_hand(
        case,
        16,
        &[
            6000, 10000, 10006, 14006, 10018, 14018, 14024, 18024, 10042, 14042, 14048, 18048, 14060, 18060, 18066,
            22066,
        ],
    );
}

#[test]
fn allgather_by_hand() {
    // Recursive doubling, 1-byte blocks: powers of two exchange 1, 2, 4, … bytes,
    // symmetric: Σ_j (5500 + 6·(2^j − 1)) = 5500·log2 p + 6·(p − 1 − log2 p).
    let case = Case::Allgather { b: 1, algo: AllgatherAlgorithm::Auto };
    check_by_hand(case, 2, &uniform(2, 5500));
    check_by_hand(case, 8, &uniform(8, 16500 + 24));
    check_by_hand(case, 16, &uniform(16, 22000 + 66));
    // p=3: as the allreduce at 3 ranks with other sizes: 0's block (1 B) reaches 1
    // at 4000 → 5500; 2's 1-byte block, also arriving 4000, is processed 5500 → 7000;
    // 1 sends ranks 0–1's blocks (2 B) to 2 at 7000 (CPU 8500, NIC 8006), arriving
    // 11000, 2 done 11000 + 1506 = 12506; then all 3 B to 0 at 8500 (CPU 10000),
    // arriving 12500, 0 done 12500 + 1512 = 14012.
    check_by_hand(case, 3, &[14012, 10000, 12506]);
    // Ring (chosen explicitly): p − 1 symmetric steps of 5500.
    for p in [2, 3, 8, 16] {
        check_by_hand(Case::Allgather { b: 1, algo: AllgatherAlgorithm::Ring }, p, &uniform(p, (p as u64 - 1) * 5500));
    }
}

#[test]
fn alltoall_by_hand() {
    // Pairwise exchange, 1-byte blocks: p − 1 symmetric steps (XOR partners for powers
    // of two, else send to me+i / receive from me−i): every rank (p − 1)·5500.
    for p in [2, 3, 8, 16] {
        check_by_hand(Case::Alltoall { b: 1 }, p, &uniform(p, (p as u64 - 1) * 5500));
    }
    // Alltoallv with the block carried in step d of 1 + d bytes: step d is still
    // symmetric, 5500 + 6d; in all 5500·(p − 1) + 3·p·(p − 1).
    for (p, t) in [(2, 5506), (3, 11018), (8, 38668), (16, 83220)] {
        assert_eq!(t, 5500 * (p - 1) + 3 * p * (p - 1));
        check_by_hand(Case::Alltoallv { unit: 1 }, p as u32, &uniform(p as u32, t));
    }
}

#[test]
fn split_by_hand() {
    // An allgather (recursive doubling) of 8-byte (color, key) blocks; deriving the
    // communicator costs nothing. Powers of two: 8, 16, 32, 64 bytes per step:
    // 5542, 5590, 5686, 5878.
    check_by_hand(Case::Split, 2, &uniform(2, 5542));
    check_by_hand(Case::Split, 8, &uniform(8, 5542 + 5590 + 5686));
    check_by_hand(Case::Split, 16, &uniform(16, 5542 + 5590 + 5686 + 5878));
    // p=3 (as the allgather at 3): 0's 8 B → 1 at 4000 → 5542; 2's 8 B processed
    // 5542 → 7084; 1 sends 16 B to 2 at 7084 (CPU 8584, NIC 8174): 2 done 11084 +
    // 1590 = 12674; 1 sends 24 B to 0 at 8584 (CPU 10084): 0 done 12584 + 1638 = 14222.
    check_by_hand(Case::Split, 3, &[14222, 10084, 12674]);
}

// ---- 2. the same times through the schedule front end -------------------------------

fn all_cases(p: u32) -> Vec<Case> {
    let last = p - 1;
    vec![
        Case::Barrier,
        Case::Bcast { root: 0, n: 1, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: last, n: 100, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: 1 % p, n: 2 * p as usize + 1, algo: BcastAlgorithm::ScatterAllgather },
        Case::Reduce { root: 0, n: 1 },
        Case::Reduce { root: last, n: 3 },
        Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner },
        Case::Allreduce { n: 13, algo: AllreduceAlgorithm::Rabenseifner },
        Case::Gather { root: 0, b: 1 },
        Case::Gather { root: last, b: 24 },
        Case::Scatter { root: 0, b: 1 },
        Case::Scatter { root: last, b: 24 },
        Case::Allgather { b: 1, algo: AllgatherAlgorithm::Auto },
        Case::Allgather { b: 3, algo: AllgatherAlgorithm::Ring },
        Case::Alltoall { b: 1 },
        Case::Alltoallv { unit: 1 },
        Case::Alltoallv { unit: 40 },
        Case::Split,
    ]
}

/// Cases with messages above S (rendezvous handshake), algorithms picked by `Auto`
/// except where the small-message algorithm is forced on a large message.
fn large_cases(p: u32) -> Vec<Case> {
    let last = p - 1;
    vec![
        Case::Bcast { root: 0, n: 200_000, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: last, n: 100_000, algo: BcastAlgorithm::Auto },
        Case::Bcast { root: 0, n: 100_000, algo: BcastAlgorithm::Binomial },
        Case::Reduce { root: 1 % p, n: 10_000 },
        Case::Allreduce { n: 20_000, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 10_001, algo: AllreduceAlgorithm::Auto },
        Case::Allreduce { n: 10_000, algo: AllreduceAlgorithm::RecursiveDoubling },
        Case::Gather { root: 0, b: 40_000 },
        Case::Scatter { root: last, b: 40_000 },
        Case::Allgather { b: 70_000, algo: AllgatherAlgorithm::Auto },
        Case::Allgather { b: 70_000, algo: AllgatherAlgorithm::RecursiveDoubling },
        Case::Alltoall { b: 70_000 },
        Case::Alltoallv { unit: 30_000 },
    ]
}

#[test]
fn every_collective_matches_its_schedule() {
    for p in [2, 3, 8, 16] {
        for case in all_cases(p) {
            same_as_schedule(p, case);
        }
    }
}

#[test]
fn large_messages_match_their_schedules() {
    for p in [2, 3, 8, 16] {
        for case in large_cases(p) {
            same_as_schedule(p, case);
        }
    }
}

#[test]
fn schedules_reproduce_the_hand_derived_times() {
    // The hand-derived cases of a few tests above, through the schedule alone.
    assert_eq!(schedule_ends(3, Case::Allreduce { n: 1, algo: AllreduceAlgorithm::Auto }), [14126, 10084, 12626]);
    assert_eq!(
        schedule_ends(3, Case::Allreduce { n: 16, algo: AllreduceAlgorithm::Rabenseifner }),
        [28036, 23274, 17396]
    );
    assert_eq!(
        schedule_ends(3, Case::Bcast { root: 0, n: 3, algo: BcastAlgorithm::ScatterAllgather }),
        [21000, 16500, 17000]
    );
    assert_eq!(schedule_ends(8, Case::Scatter { root: 0, b: 1 }), [4500, 8500, 8506, 12506, 8518, 12518, 12524, 16524]);
    // The dissemination barrier is also `schedule::patterns::dissemination`.
    assert_eq!(ends(&run(&dissemination(16, 0), &defaults())), uniform(16, 22000));
}

// ---- 3. payloads ---------------------------------------------------------------------

/// Every collective with checked results, on `p` ranks (run one after the other, so
/// consecutive collectives must not disturb each other).
async fn payload_program(r: SimRank) -> Result<(), String> {
    let w = r.world();
    let (p, me) = (r.size(), r.rank());
    let pu = p as u64;
    for root in [0, p - 1, p / 2] {
        // bcast: small (binomial), large (scatter + allgather), and a length not
        // divisible by p through both algorithms explicitly.
        for (n, algo) in [
            (5, BcastAlgorithm::Auto),
            (70_001, BcastAlgorithm::Auto),
            (2 * p as usize + 3, BcastAlgorithm::ScatterAllgather),
            (p as usize - 1, BcastAlgorithm::ScatterAllgather),
            (0, BcastAlgorithm::Binomial),
        ] {
            let want: Vec<u8> = (0..n).map(|i| (i * 31 + root as usize) as u8).collect();
            let mine = if me == root { want.clone() } else { vec![0xEE; n] };
            let got = bcast_with(&r, &w, root, mine, algo).await;
            if got != want {
                return Err(format!("bcast of {n} bytes from {root} ({algo:?}) delivered the wrong bytes"));
            }
        }
        // reduce, integers (exact).
        let mine: Vec<u64> = (0..5).map(|i| (me as u64 + 1) * 1000 + i).collect();
        let got = reduce(&r, &w, root, &mine, Op::Sum).await;
        let want: Vec<u64> = (0..5).map(|i| 1000 * pu * (pu + 1) / 2 + pu * i).collect();
        match got {
            Some(v) if me == root && v == want => {}
            None if me != root => {}
            other => return Err(format!("reduce to {root}: {other:?}, want {want:?}")),
        }
        let got = reduce(&r, &w, root, &[me as i64 - 3], Op::Min).await;
        if me == root && got != Some(vec![-3]) {
            return Err(format!("reduce min: {got:?}"));
        }
        // gather of 3-byte blocks.
        let got = gather(&r, &w, root, vec![me as u8, me as u8 + 1, me as u8 + 2]).await;
        let want: Vec<u8> = (0..p as u8).flat_map(|i| [i, i + 1, i + 2]).collect();
        if (me == root && got.as_ref() != Some(&want)) || (me != root && got.is_some()) {
            return Err(format!("gather to {root}: {got:?}"));
        }
        // scatter of 2-byte blocks.
        let data: Vec<u8> = if me == root { (0..p as u8).flat_map(|i| [i, 100 + i]).collect() } else { vec![] };
        let got = scatter(&r, &w, root, data, 2).await;
        if got != [me as u8, 100 + me as u8] {
            return Err(format!("scatter from {root}: {got:?}"));
        }
    }
    // allreduce, integers, every op, every element type, every algorithm.
    for algo in [AllreduceAlgorithm::Auto, AllreduceAlgorithm::RecursiveDoubling, AllreduceAlgorithm::Rabenseifner] {
        for n in [1usize, 7, 37] {
            let mine: Vec<u64> = (0..n as u64).map(|i| (me as u64 + 1) * (i + 1)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Sum, algo).await;
            let want: Vec<u64> = (0..n as u64).map(|i| pu * (pu + 1) / 2 * (i + 1)).collect();
            if got != want {
                return Err(format!("allreduce sum of {n} u64 ({algo:?}): {got:?}, want {want:?}"));
            }
            let mine: Vec<i64> = (0..n as i64).map(|i| (me as i64 - 2) * (i + 1)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Min, algo).await;
            if got != (0..n as i64).map(|i| -2 * (i + 1)).collect::<Vec<_>>() {
                return Err(format!("allreduce min of i64 ({algo:?}): {got:?}"));
            }
            let got = allreduce_with(&r, &w, &mine, Op::Max, algo).await;
            if got != (0..n as i64).map(|i| (p as i64 - 3) * (i + 1)).collect::<Vec<_>>() {
                return Err(format!("allreduce max of i64 ({algo:?}): {got:?}"));
            }
            let mine = vec![if me % 2 == 0 { 2u32 } else { 1 }; n];
            let got = allreduce_with(&r, &w, &mine, Op::Prod, algo).await;
            if got != vec![1u32 << p.div_ceil(2); n] {
                return Err(format!("allreduce prod of u32 ({algo:?}): {got:?}"));
            }
            // f64: the fixed order of each algorithm vs the serial sum in rank order.
            let value = |rank: u32, i: usize| 1.0 / (rank as f64 + 1.0) + (i as f64) * 0.1 + 1e-3 * rank as f64;
            let mine: Vec<f64> = (0..n).map(|i| value(me, i)).collect();
            let got = allreduce_with(&r, &w, &mine, Op::Sum, algo).await;
            for (i, x) in got.iter().enumerate() {
                let serial: f64 = (0..p).map(|rank| value(rank, i)).sum();
                if ((x - serial) / serial).abs() > 1e-12 {
                    return Err(format!("allreduce f64 ({algo:?}) element {i}: {x} vs serial {serial}"));
                }
            }
            // Bit-identical on every rank: rank 0's result, broadcast, equals everyone's.
            let from0 = decode::<f64>(&bcast(&r, &w, 0, encode(&got)).await);
            if from0.iter().zip(&got).any(|(a, b)| a.to_bits() != b.to_bits()) {
                return Err(format!("allreduce f64 ({algo:?}) differs between ranks"));
            }
        }
    }
    // A vector above S: Rabenseifner by Auto.
    let n = 10_000;
    let mine: Vec<u64> = (0..n as u64).map(|i| i * (me as u64 + 1)).collect();
    let got = allreduce(&r, &w, &mine, Op::Sum).await;
    if got.iter().enumerate().any(|(i, &x)| x != i as u64 * pu * (pu + 1) / 2) {
        return Err("allreduce of 10000 u64 is wrong".into());
    }
    // allgather, both algorithms, small and large.
    for (b, algo) in [
        (2usize, AllgatherAlgorithm::Auto),
        (2, AllgatherAlgorithm::Ring),
        (5, AllgatherAlgorithm::RecursiveDoubling),
        (70_000, AllgatherAlgorithm::Auto),
        (0, AllgatherAlgorithm::Auto),
    ] {
        let block = |rank: u32| (0..b).map(|i| (rank as usize * 7 + i) as u8).collect::<Vec<u8>>();
        let got = allgather_with(&r, &w, block(me), algo).await;
        if got != (0..p).flat_map(block).collect::<Vec<u8>>() {
            return Err(format!("allgather of {b}-byte blocks ({algo:?}) is wrong"));
        }
    }
    // alltoall: block i → j is [i, j, i^j].
    let data: Vec<u8> = (0..p).flat_map(|j| [me as u8, j as u8, (me ^ j) as u8]).collect();
    let got = alltoall(&r, &w, data).await;
    if got != (0..p).flat_map(|i| [i as u8, me as u8, (i ^ me) as u8]).collect::<Vec<u8>>() {
        return Err(format!("alltoall: {got:?}"));
    }
    // alltoallv: block i → j has (i + 2j) mod 5 bytes (some empty) of i·16 + j.
    let blocks: Vec<Vec<u8>> = (0..p).map(|j| vec![(me * 16 + j) as u8; ((me + 2 * j) % 5) as usize]).collect();
    let got = alltoallv(&r, &w, blocks).await;
    for (i, blk) in got.iter().enumerate() {
        let i = i as u32;
        if *blk != vec![(i * 16 + me) as u8; ((i + 2 * me) % 5) as usize] {
            return Err(format!("alltoallv block from {i}: {blk:?}"));
        }
    }
    barrier(&r, &w).await;
    Ok(())
}

#[test]
fn payloads_are_correct() {
    for p in [2, 3, 8, 16] {
        run_program(&defaults(), p, &RunOptions::default(), payload_program)
            .unwrap_or_else(|e| panic!("{p} ranks: {e}"));
    }
}

#[test]
fn split_groups_orders_and_communicates() {
    for p in [2, 3, 8, 16] {
        go(p, |r| async move {
            let w = r.world();
            let me = r.rank();
            let p = r.size();
            // Three colors by rank mod 3, keyed in reverse rank order; rank 1 opts out.
            let color = if me == 1 { -1 } else { (me % 3) as i32 };
            let got = split(&r, &w, color, -(me as i32)).await;
            if me == 1 {
                if got.is_some() {
                    return Err("an undefined color got a communicator".into());
                }
            } else {
                let c = got.ok_or("no communicator")?;
                let members: Vec<u32> = (0..p).rev().filter(|&i| i != 1 && i % 3 == me % 3).collect();
                let seen: Vec<u32> = (0..c.size()).map(|i| c.world_rank(i)).collect();
                if seen != members || c.world_rank(c.rank()) != me {
                    return Err(format!("rank {me}: members {seen:?}, want {members:?}"));
                }
                // A message on the new communicator: everyone tells its new rank 0.
                if c.rank() == 0 {
                    for _ in 1..c.size() {
                        let m = r.recv(&c, ANY_SOURCE, 7).await;
                        if m.data != [c.world_rank(m.source) as u8] {
                            return Err(format!("new rank 0 got {:?} from {}", m.data, m.source));
                        }
                    }
                } else {
                    r.send(&c, 0, 7, vec![me as u8]).await;
                }
                // And a collective on it.
                let sum = allreduce(&r, &c, &[me as u64], Op::Sum).await;
                if sum != [members.iter().map(|&m| m as u64).sum::<u64>()] {
                    return Err(format!("allreduce on the split communicator: {sum:?}"));
                }
            }
            // Everyone splits again (one group): the ranks agree on the new communicator
            // even though rank 1 made no communicator the first time.
            let all = split(&r, &w, 0, me as i32).await.ok_or("no communicator")?;
            let sum = allreduce(&r, &all, &[1u32], Op::Sum).await;
            if sum != [p] || all.rank() != me {
                return Err(format!("second split: {sum:?}"));
            }
            Ok(())
        });
    }
}

#[test]
fn typed_helpers_round_trip() {
    assert_eq!(encode(&[1u32, 0x01020304]), [1, 0, 0, 0, 4, 3, 2, 1]);
    assert_eq!(decode::<u32>(&[1, 0, 0, 0, 4, 3, 2, 1]), [1, 0x01020304]);
    let f = [1.5f64, -0.0, f64::MAX];
    assert_eq!(decode::<f64>(&encode(&f)), f);
    let i = [i64::MIN, -1, 7];
    assert_eq!(decode::<i64>(&encode(&i)), i);
    assert_eq!(decode::<u64>(&encode(&[u64::MAX])), [u64::MAX]);
    assert_eq!(Op::Sum.apply(u64::MAX, 2), 1); // integers wrap
    assert_eq!(Op::Max.apply(2.0, f64::NAN), 2.0);
    let mut acc = vec![1i64, 5, -3];
    Op::Min.fold_into(&mut acc, &[0, 6, -4]);
    assert_eq!(acc, [0, 5, -4]);
}

// ---- 4. algorithm choice -------------------------------------------------------------

fn coll_sends(r: &RunResult) -> u64 {
    r.primitives.iter().filter(|x| x.primitive == "coll_send").map(|x| x.count).sum()
}

fn sends_of(p: u32, case: Case) -> (Vec<u64>, u64) {
    let r = go(p, move |r| async move { run_case(&r, case).await });
    (ends(&r), coll_sends(&r))
}

#[test]
fn above_s_algorithms_are_chosen_automatically_and_explicitly() {
    let p = 8;
    // bcast: binomial sends p − 1 messages; scatter + allgather p − 1 scatter pieces
    // and p·(p − 1) ring messages.
    let bc = |n, algo| Case::Bcast { root: 0, n, algo };
    let (t_auto, m_auto) = sends_of(p, bc(S + 1, BcastAlgorithm::Auto));
    let (t_sag, m_sag) = sends_of(p, bc(S + 1, BcastAlgorithm::ScatterAllgather));
    let (t_bin, m_bin) = sends_of(p, bc(S + 1, BcastAlgorithm::Binomial));
    assert_eq!((m_auto, m_sag, m_bin), (7 + 56, 7 + 56, 7));
    assert_eq!(t_auto, t_sag);
    assert_ne!(t_auto, t_bin);
    assert_eq!(sends_of(p, bc(S, BcastAlgorithm::Auto)).1, 7, "S bytes exactly stay binomial");

    // allreduce: recursive doubling sends log2 p = 3 messages per rank, Rabenseifner 6.
    let ar = |n, algo| Case::Allreduce { n, algo };
    let big = S / 8 + 1; // 8 × 8192 = 65536 > S
    let (t_auto, m_auto) = sends_of(p, ar(big, AllreduceAlgorithm::Auto));
    let (t_rab, m_rab) = sends_of(p, ar(big, AllreduceAlgorithm::Rabenseifner));
    let (t_rd, m_rd) = sends_of(p, ar(big, AllreduceAlgorithm::RecursiveDoubling));
    assert_eq!((m_auto, m_rab, m_rd), (48, 48, 24));
    assert_eq!(t_auto, t_rab);
    assert_ne!(t_auto, t_rd);
    assert_eq!(sends_of(p, ar(big - 1, AllreduceAlgorithm::Auto)).1, 24, "8 × 8191 bytes ≤ S");
    // Explicit Rabenseifner on a small vector runs it even there.
    assert_eq!(sends_of(p, ar(16, AllreduceAlgorithm::Rabenseifner)).1, 48);

    // allgather: recursive doubling 3 messages per rank, ring 7 — chosen by the
    // gathered size p·b against S.
    let ag = |b, algo| Case::Allgather { b, algo };
    let (t_auto, m_auto) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::Auto));
    let (t_ring, m_ring) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::Ring));
    let (_, m_rd) = sends_of(p, ag(S / 8 + 1, AllgatherAlgorithm::RecursiveDoubling));
    assert_eq!((m_auto, m_ring, m_rd), (56, 56, 24));
    assert_eq!(t_auto, t_ring);
    assert_eq!(sends_of(p, ag(S / 8, AllgatherAlgorithm::Auto)).1, 24);
}

// ---- 5. profile and isolation --------------------------------------------------------

#[test]
fn each_call_counts_once_by_kind() {
    let r = go(3, |r| async move {
        let w = r.world();
        barrier(&r, &w).await;
        barrier(&r, &w).await;
        bcast(&r, &w, 0, vec![1; 100_000]).await;
        allreduce(&r, &w, &[1u64; 10_000], Op::Sum).await;
        reduce(&r, &w, 0, &[1u64], Op::Sum).await;
        gather(&r, &w, 0, vec![1]).await;
        scatter(&r, &w, 0, vec![0; if r.rank() == 0 { 3 } else { 0 }], 1).await;
        allgather(&r, &w, vec![1; 30_000]).await;
        alltoall(&r, &w, vec![0; 3]).await;
        alltoallv(&r, &w, vec![vec![]; 3]).await;
        split(&r, &w, 0, 0).await;
        Ok(())
    });
    for rank in 0..3 {
        let count = |name: &str| {
            r.primitives.iter().filter(|x| x.rank == rank && x.primitive == name).map(|x| x.count).sum::<u64>()
        };
        for kind in ["bcast", "allreduce", "reduce", "gather", "scatter", "allgather", "alltoall", "alltoallv", "split"]
        {
            assert_eq!(count(kind), 1, "{kind} on rank {rank}");
        }
        assert_eq!(count("barrier"), 2);
        assert_eq!((count("send"), count("recv")), (0, 0), "collective messages are not the program's");
        assert!(count("coll_send") > 0);
    }
}

#[test]
fn collective_messages_never_match_program_receives() {
    // Each rank posts a wildcard receive on the world before the collectives and
    // satisfies it only after them: the collectives' messages must not match it.
    go(8, |r| async move {
        let w = r.world();
        let pending = r.irecv(&w, ANY_SOURCE, ANY_TAG);
        barrier(&r, &w).await;
        let s = allreduce(&r, &w, &[r.rank() as u64], Op::Sum).await;
        let b = bcast(&r, &w, 3, vec![r.rank() as u8; 4]).await;
        alltoall(&r, &w, vec![1; 8]).await;
        if r.test(&pending) {
            return Err("a collective message matched the program's receive".into());
        }
        r.send(&w, (r.rank() + 1) % 8, 42, vec![9]).await;
        let m = r.wait(pending).await;
        if (m.tag, m.data.as_slice(), s[0], b[0]) != (42, &[9u8][..], 28, 3) {
            return Err(format!("got tag {} {:?}, sum {:?}, bcast {:?}", m.tag, m.data, s, b));
        }
        Ok(())
    });
}

#[test]
fn collectives_on_a_derived_communicator() {
    // Ranks 4..8 form a communicator: a bcast from its rank 1 (world 5) and a gather.
    go(8, |r| async move {
        let w = r.world();
        let sub = split(&r, &w, (r.rank() >= 4) as i32, 0).await.ok_or("no communicator")?;
        if r.rank() >= 4 {
            let got = bcast(&r, &sub, 1, vec![r.rank() as u8; 2]).await;
            let all = gather(&r, &sub, 0, vec![r.rank() as u8]).await;
            if got != [5, 5] || (sub.rank() == 0 && all != Some(vec![4, 5, 6, 7])) {
                return Err(format!("got {got:?}, gathered {all:?}"));
            }
        }
        Ok(())
    });
}

// ---- 6. deadlock ---------------------------------------------------------------------

#[test]
fn a_missing_rank_is_a_deadlock_in_the_collective() {
    // Rank 3 never enters the barrier: rank 0 waits for its round-1 message, and the
    // ranks whose rounds depend on rank 0 or 3 wait too.
    let err = run_program(&defaults(), 4, &RunOptions::default(), |r| async move {
        if r.rank() != 3 {
            barrier(&r, &r.world()).await;
        }
        Ok(())
    })
    .unwrap_err();
    let Error::Deadlock(msg) = &err else { panic!("not a deadlock: {err}") };
    assert!(msg.starts_with("deadlock: 3 rank(s) cannot finish: rank 0 waits in `recv from 3 tag 1`"), "{msg}");
    assert!(msg.contains("on communicator 0 (collective)"), "{msg}");
    assert!(!msg.contains("rank 3 waits"), "{msg}");

    // The same for an allreduce where the missing rank is a fold-in partner.
    let err = run_program(&defaults(), 3, &RunOptions::default(), |r| async move {
        if r.rank() != 0 {
            allreduce(&r, &r.world(), &[1u64], Op::Sum).await;
        }
        Ok(())
    })
    .unwrap_err();
    let Error::Deadlock(msg) = &err else { panic!("not a deadlock: {err}") };
    assert!(msg.contains("rank 1 waits in `recv from 0 tag"), "{msg}");
    assert!(msg.contains("(collective)"), "{msg}");
}
