//! The same communication as a schedule: each algorithm's messages rebuilt rank by
//! rank as a GOAL-style schedule, for the schedule front end to time.

use super::*;

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
    up_the_tree_plan(p, root, me, |_| bytes)
}

fn gather_plan(p: u32, root: u32, b: usize, me: u32) -> Stages {
    up_the_tree_plan(p, root, me, |ranks| b * ranks as usize)
}

/// The binomial tree towards the root of reduce and gather; `size(ranks)` is the
/// message carrying the partial result of a subtree of `ranks` ranks.
fn up_the_tree_plan(p: u32, root: u32, me: u32, size: impl Fn(u32) -> usize) -> Stages {
    let vr = (me + p - root) % p;
    let abs = |v: u32| (v + root) % p;
    let mut st = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < p {
                st.push(vec![Recv(abs(src), size(mask.min(p - src)))]);
            }
        } else {
            st.push(vec![Send(abs(vr - mask), size(mask.min(p - vr)))]);
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

/// The fold-in for p not a power of two: an even rank below 2·rem sends `give` bytes
/// to the next rank and receives `back` bytes from it at the end, its whole plan
/// (`Err`); an odd one receives those `give` bytes first. `Ok`: (new rank, stages).
fn fold_in(p: u32, me: u32, give: usize, back: usize) -> Result<(u32, Stages), Stages> {
    let (_, rem) = pof2_rem(p);
    if me < 2 * rem && me.is_multiple_of(2) {
        return Err(vec![vec![Send(me + 1, give)], vec![Recv(me + 1, back)]]);
    }
    if me < 2 * rem {
        Ok((me / 2, vec![vec![Recv(me - 1, give)]]))
    } else {
        Ok((me - rem, Vec::new()))
    }
}

/// The fold-out: an odd rank below 2·rem sends the `back` bytes to the rank before.
fn fold_out(p: u32, me: u32, back: usize, mut st: Stages) -> Stages {
    if me < 2 * pof2_rem(p).1 {
        st.push(vec![Send(me - 1, back)]);
    }
    st
}

fn allreduce_rd_plan(p: u32, bytes: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    let (nr, mut st) = match fold_in(p, me, bytes, bytes) {
        Ok(taking_part) => taking_part,
        Err(sitting_out) => return sitting_out,
    };
    let mut mask = 1;
    while mask < pof2 {
        let partner = unfold(nr ^ mask, rem);
        st.push(exchange(partner, bytes, partner, bytes));
        mask <<= 1;
    }
    fold_out(p, me, bytes, st)
}

fn rabenseifner_plan(p: u32, n: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    let bytes = 8 * n;
    let (nr, mut st) = match fold_in(p, me, bytes, bytes) {
        Ok(taking_part) => taking_part,
        Err(sitting_out) => return sitting_out,
    };
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
    fold_out(p, me, bytes, st)
}

fn allgather_rd_plan(p: u32, b: usize, me: u32) -> Stages {
    let (pof2, rem) = pof2_rem(p);
    let (nr, mut st) = match fold_in(p, me, b, b * p as usize) {
        Ok(taking_part) => taking_part,
        Err(sitting_out) => return sitting_out,
    };
    // New ranks [a, a+m) hold the blocks of ranks [first(a), first(a+m)).
    let first = |i: u32| if i < rem { 2 * i } else { i + rem };
    let group = |i: u32, m: u32| b * (first((i & !(m - 1)) + m) - first(i & !(m - 1))) as usize;
    let mut mask = 1;
    while mask < pof2 {
        let pnr = nr ^ mask;
        st.push(exchange(unfold(pnr, rem), group(nr, mask), unfold(pnr, rem), group(pnr, mask)));
        mask <<= 1;
    }
    fold_out(p, me, b * p as usize, st)
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

pub(crate) fn schedule_ends(p: u32, case: Case) -> Vec<u64> {
    ends(&run(&schedule_of(p, |me| plan(case, p, me)), &defaults()))
}

/// The rank program and the schedule give the same end time on every rank.
pub(crate) fn same_as_schedule(p: u32, case: Case) {
    assert_eq!(program_ends(p, case), schedule_ends(p, case), "{case:?} at {p} ranks");
}
