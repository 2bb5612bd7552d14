//! Allreduce: recursive doubling for small vectors, Rabenseifner's reduce-scatter +
//! allgather for large ones, both folding in the ranks beyond a power of two.

use super::fold::{fold_rank, pof2_below, unfold_rank};
use super::steps::{recv_bytes, sendrecv};
use super::TAG_ALLREDUCE;
use crate::program::api::{Communicator, Rank};
use crate::program::payload::{decode, encode, Element, Op};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllreduceAlgorithm {
    /// Recursive doubling up to S bytes, Rabenseifner above (if the vector has at
    /// least as many elements as the largest power of two ≤ size).
    #[default]
    Auto,
    /// log2 p exchanges of the whole vector (fold-in for non-powers of two).
    RecursiveDoubling,
    /// Reduce-scatter by recursive halving, then allgather by recursive doubling
    /// (fold-in for non-powers of two).
    Rabenseifner,
}

/// Reduce every member's `data` (same length everywhere) with `op`; every member
/// gets the result.
pub async fn allreduce<R: Rank, T: Element>(r: &R, comm: &Communicator, data: &[T], op: Op) -> Vec<T> {
    allreduce_with(r, comm, data, op, AllreduceAlgorithm::Auto).await
}

pub async fn allreduce_with<R: Rank, T: Element>(
    r: &R,
    comm: &Communicator,
    data: &[T],
    op: Op,
    algo: AllreduceAlgorithm,
) -> Vec<T> {
    r.count("allreduce");
    let c = comm.collective();
    let (p, me) = (c.size(), c.rank());
    let pof2 = pof2_below(p);
    let rem = p - pof2;
    let algo = match algo {
        AllreduceAlgorithm::Auto if (data.len() * T::SIZE) as u64 > r.eager_limit() && data.len() >= pof2 as usize => {
            AllreduceAlgorithm::Rabenseifner
        }
        AllreduceAlgorithm::Auto => AllreduceAlgorithm::RecursiveDoubling,
        a => a,
    };
    let mut acc = data.to_vec();
    // Fold-in: even ranks < 2·rem hand their vector to the next (odd) rank and wait
    // for the result from it at the end.
    let Some(nr) = fold_rank(me, rem) else {
        r.send(&c, me + 1, TAG_ALLREDUCE, encode(&acc)).await;
        return decode(&recv_bytes(r, &c, me + 1, TAG_ALLREDUCE).await);
    };
    if me < 2 * rem {
        let got = decode::<T>(&recv_bytes(r, &c, me - 1, TAG_ALLREDUCE).await);
        op.fold_from_left(&got, &mut acc);
    }
    if algo == AllreduceAlgorithm::RecursiveDoubling {
        // Exchange the whole vector with new rank nr XOR mask, mask = 1, 2, 4, …
        let mut mask = 1;
        while mask < pof2 {
            let partner_nr = nr ^ mask;
            let partner = unfold_rank(partner_nr, rem);
            let got = decode::<T>(&sendrecv(r, &c, partner, partner, TAG_ALLREDUCE, encode(&acc)).await);
            if partner_nr < nr {
                op.fold_from_left(&got, &mut acc);
            } else {
                op.fold_into(&mut acc, &got);
            }
            mask <<= 1;
        }
    } else {
        // Rabenseifner. The vector is cut into pof2 blocks of ⌊n/pof2⌋ or ⌈n/pof2⌉
        // elements (the first n mod pof2 blocks one longer). Reduce-scatter by
        // recursive halving (as MPICH: mask = 1, 2, …; the lower partner keeps the
        // lower half of the current block range, sends the upper half, and combines
        // what it receives into the half it keeps), after which new rank nr holds the
        // fully reduced block bitreverse(nr); then an allgather retraces the steps in
        // reverse, exchanging the kept ranges until every rank has the whole vector.
        let n = acc.len();
        let start = |b: u32| -> usize {
            let b = b as usize;
            let (q, rm) = (n / pof2 as usize, n % pof2 as usize);
            b * q + b.min(rm)
        };
        let (mut lo, mut hi) = (0u32, pof2);
        let mut steps = Vec::new(); // (partner, the range before the split)
        let mut mask = 1;
        while mask < pof2 {
            let partner_nr = nr ^ mask;
            let partner = unfold_rank(partner_nr, rem);
            let mid = lo + (hi - lo) / 2;
            let (keep, give) = if nr < partner_nr { ((lo, mid), (mid, hi)) } else { ((mid, hi), (lo, mid)) };
            let out = encode(&acc[start(give.0)..start(give.1)]);
            let got = decode::<T>(&sendrecv(r, &c, partner, partner, TAG_ALLREDUCE, out).await);
            let kept = &mut acc[start(keep.0)..start(keep.1)];
            if partner_nr < nr {
                op.fold_from_left(&got, kept);
            } else {
                op.fold_into(kept, &got);
            }
            steps.push((partner, (lo, hi)));
            (lo, hi) = keep;
            mask <<= 1;
        }
        for &(partner, (plo, phi)) in steps.iter().rev() {
            // I hold [lo, hi); the partner holds the rest of [plo, phi).
            let other = if lo == plo { (hi, phi) } else { (plo, lo) };
            let out = encode(&acc[start(lo)..start(hi)]);
            let got = decode::<T>(&sendrecv(r, &c, partner, partner, TAG_ALLREDUCE, out).await);
            acc[start(other.0)..start(other.1)].copy_from_slice(&got);
            (lo, hi) = (plo, phi);
        }
    }
    // Fold-out: the odd rank of a pair gives the result to its even partner.
    if me < 2 * rem {
        r.send(&c, me - 1, TAG_ALLREDUCE, encode(&acc)).await;
    }
    acc
}
