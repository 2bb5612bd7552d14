//! Collective operations built from point-to-point messages on the [`Rank`] trait
//! only, so they run unchanged on any backend (the simulator today, real MPI later).
//!
//! Every collective
//! - runs on `comm.collective()`, the communicator's message context reserved for
//!   collectives, with fixed internal tags, so its messages never match the
//!   program's own receives (and consecutive collectives on one communicator stay
//!   apart by MPI's non-overtaking order, as in MPICH);
//! - counts itself once per call with [`Rank::count`] under its kind (`"barrier"`,
//!   `"bcast"`, `"reduce"`, `"allreduce"`, `"gather"`, `"scatter"`, `"allgather"`,
//!   `"alltoall"`, `"alltoallv"`, `"split"`); the point-to-point messages inside it
//!   count as `coll_send` / `coll_recv`;
//! - takes ranks (roots, peers) relative to `comm`;
//! - charges no compute for local work (copies, the reduction arithmetic): only the
//!   messages cost virtual time.
//!
//! The algorithms are those of `LOGGP.md` ("Collectives"), written as MPICH writes
//! them; each has an enum to pick it explicitly (`*_with`), and the plain function
//! is `Auto`:
//!
//! | collective | `Auto` picks (the other choices are the enum's variants) |
//! |---|---|
//! | [`barrier`] | dissemination |
//! | [`bcast`] | binomial tree; scatter + ring allgather when the message is larger than S |
//! | [`reduce`] | binomial tree |
//! | [`allreduce`] | recursive doubling; Rabenseifner when the vector is larger than S |
//! | [`gather`], [`scatter`] | binomial tree |
//! | [`allgather`] | recursive doubling; ring when the gathered vector is larger than S |
//! | [`alltoall`], [`alltoallv`] | pairwise exchange |
//!
//! **Threshold.** S is [`Rank::eager_limit`]. The comparison is on the size of the
//! whole vector the collective moves, as MPICH does: the broadcast message (bcast),
//! the reduced vector (allreduce), the gathered result `size × block` (allgather).
//! For bcast and allreduce that is exactly the size of every message of the
//! small-message algorithm, so `Auto` switches when those messages would go by
//! rendezvous. Rabenseifner is picked only when the vector also has at least as
//! many elements as the largest power of two ≤ size (MPICH's `count >= pof2`).
//!
//! **Non-powers of two.** Recursive doubling (allreduce, allgather) and Rabenseifner
//! fold the extra ranks in as MPICH does: with `pof2` the largest power of two ≤ p
//! and `rem = p − pof2`, each even rank `2i < 2·rem` first sends its whole vector to
//! the odd rank `2i+1` and sits out; the `pof2` remaining ranks (new rank `i` for odd
//! rank `2i+1` when `i < rem`, else new rank `i` is rank `i + rem`) run the
//! power-of-two algorithm; at the end each odd rank `2i+1` sends the whole result
//! back to `2i`. Binomial trees, dissemination, ring and pairwise exchange need no
//! fold-in (a tree's children beyond p are skipped; pairwise exchange pairs rank
//! `me+i` / `me−i` mod p instead of `me XOR i`).
//!
//! **Reduction order.** Floating-point sums depend on the order of the additions;
//! every algorithm here uses one fixed order, so a run is reproducible and every
//! rank of an allreduce gets bit-identical results:
//! - binomial reduce: a rank starts from its own vector and combines its children's
//!   partial results in increasing distance (`acc = acc ⊕ child`), i.e. the tree
//!   of MPICH's `MPIR_Reduce_intra_binomial`;
//! - recursive doubling / Rabenseifner: in each exchange the partner with the lower
//!   rank contributes the left operand (`lower ⊕ upper`); the fold-in computes
//!   `even ⊕ odd`.
//!
//! Payloads are bytes; [`encode`] / [`decode`] convert slices of numbers (little
//! endian), and the reductions are typed over [`Element`] with an [`Op`].

use super::api::{Communicator, Rank, Tag};
pub use super::payload::{decode, encode, Element, Op};

// ---- tags (on the collective context, so they never meet user tags) -------------

const TAG_BARRIER: Tag = 1;
const TAG_BCAST: Tag = 2;
const TAG_BCAST_SCATTER: Tag = 3;
const TAG_BCAST_ALLGATHER: Tag = 4;
const TAG_REDUCE: Tag = 5;
const TAG_ALLREDUCE: Tag = 6;
const TAG_GATHER: Tag = 7;
const TAG_SCATTER: Tag = 8;
const TAG_ALLGATHER: Tag = 9;
const TAG_ALLTOALL: Tag = 10;
const TAG_ALLTOALLV: Tag = 11;
const TAG_SPLIT: Tag = 12;

// ---- algorithm choices ----------------------------------------------------------

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BarrierAlgorithm {
    #[default]
    Auto,
    /// ⌈log2 p⌉ rounds; in round k rank i sends to i+2^k and receives from i−2^k (mod p).
    Dissemination,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BcastAlgorithm {
    /// Binomial up to S bytes, scatter + allgather above.
    #[default]
    Auto,
    /// The root sends the whole message down a binomial tree.
    Binomial,
    /// Binomial scatter of p chunks of ⌈n/p⌉ bytes, then a ring allgather (MPICH's
    /// `scatter_ring_allgather`).
    ScatterAllgather,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceAlgorithm {
    #[default]
    Auto,
    /// Partial results flow up a binomial tree to the root.
    Binomial,
}

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

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GatherAlgorithm {
    #[default]
    Auto,
    Binomial,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScatterAlgorithm {
    #[default]
    Auto,
    Binomial,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AllgatherAlgorithm {
    /// Recursive doubling up to S gathered bytes, ring above.
    #[default]
    Auto,
    /// log2 p exchanges of doubling size (fold-in for non-powers of two).
    RecursiveDoubling,
    /// p−1 steps, each passing one block to the right neighbour.
    Ring,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AlltoallAlgorithm {
    #[default]
    Auto,
    /// p−1 steps; in step i exchange with `me XOR i` (p a power of two) or send to
    /// `me+i` and receive from `me−i` (mod p).
    Pairwise,
}

// ---- helpers --------------------------------------------------------------------

/// Largest power of two ≤ p (p ≥ 1).
fn pof2_below(p: u32) -> u32 {
    1 << (31 - p.leading_zeros())
}

/// Receive from `src` and send to `dst` at the same time (receive posted first, as
/// `MPI_Sendrecv`); returns the received bytes.
async fn sendrecv<R: Rank>(r: &R, c: &Communicator, dst: u32, src: u32, tag: Tag, data: Vec<u8>) -> Vec<u8> {
    let rq = r.irecv(c, src as i32, tag);
    let sq = r.isend(c, dst, tag, data);
    let mut done = r.wait_all(vec![rq, sq]).await;
    std::mem::take(&mut done[0].data)
}

async fn recv_bytes<R: Rank>(r: &R, c: &Communicator, src: u32, tag: Tag) -> Vec<u8> {
    r.recv(c, src as i32, tag).await.data
}

/// Fold-in of recursive doubling for p not a power of two: the rank's new rank
/// among the `pof2` participants, or `None` for an even rank `< 2·rem` that sits out.
fn fold_rank(me: u32, rem: u32) -> Option<u32> {
    if me < 2 * rem {
        if me.is_multiple_of(2) {
            None
        } else {
            Some(me / 2)
        }
    } else {
        Some(me - rem)
    }
}

/// Rank of new rank `nr` (inverse of [`fold_rank`]).
fn unfold_rank(nr: u32, rem: u32) -> u32 {
    if nr < rem {
        2 * nr + 1
    } else {
        nr + rem
    }
}

/// First original rank covered by new rank `nr` (an odd rank `2i+1` also holds the
/// data of `2i`); `first_covered(pof2) = p`.
fn first_covered(nr: u32, rem: u32) -> u32 {
    if nr < rem {
        2 * nr
    } else {
        nr + rem
    }
}

// ---- barrier --------------------------------------------------------------------

/// Wait until every member of `comm` has entered the barrier.
pub async fn barrier<R: Rank>(r: &R, comm: &Communicator) {
    barrier_with(r, comm, BarrierAlgorithm::Auto).await
}

pub async fn barrier_with<R: Rank>(r: &R, comm: &Communicator, algo: BarrierAlgorithm) {
    r.count("barrier");
    let c = comm.collective();
    match algo {
        BarrierAlgorithm::Auto | BarrierAlgorithm::Dissemination => {
            let (p, me) = (c.size(), c.rank());
            let mut dist = 1;
            while dist < p {
                sendrecv(r, &c, (me + dist) % p, (me + p - dist) % p, TAG_BARRIER, Vec::new()).await;
                dist *= 2;
            }
        }
    }
}

// ---- bcast ----------------------------------------------------------------------

/// Broadcast `data` from member `root`. Every member passes a buffer of the same
/// length (as in MPI; the non-roots' contents are ignored) and gets the root's bytes.
pub async fn bcast<R: Rank>(r: &R, comm: &Communicator, root: u32, data: Vec<u8>) -> Vec<u8> {
    bcast_with(r, comm, root, data, BcastAlgorithm::Auto).await
}

pub async fn bcast_with<R: Rank>(
    r: &R,
    comm: &Communicator,
    root: u32,
    data: Vec<u8>,
    algo: BcastAlgorithm,
) -> Vec<u8> {
    r.count("bcast");
    let c = comm.collective();
    assert!(root < c.size(), "bcast: root {root} is not a member of a {}-rank communicator", c.size());
    let algo = match algo {
        BcastAlgorithm::Auto if data.len() as u64 > r.eager_limit() => BcastAlgorithm::ScatterAllgather,
        BcastAlgorithm::Auto => BcastAlgorithm::Binomial,
        a => a,
    };
    if algo == BcastAlgorithm::Binomial {
        return bcast_binomial(r, &c, root, data, TAG_BCAST).await;
    }
    // Scatter + ring allgather: chunk i is bytes [i·⌈n/p⌉, (i+1)·⌈n/p⌉) ∩ [0, n) of
    // the message (chunks past the end are empty), in ranks relative to the root.
    let (p, me) = (c.size(), c.rank());
    let n = data.len();
    let chunk = n.div_ceil(p as usize);
    let bounds: Vec<usize> = (0..=p as usize).map(|i| (i * chunk).min(n)).collect();
    let vr = (me + p - root) % p;
    let held = scatter_binomial(r, &c, root, data, &bounds, TAG_BCAST_SCATTER).await;
    // The root holds the whole message; every other rank its own chunk (first bytes of `held`).
    let mut out = vec![0u8; n];
    let own = bounds[vr as usize]..bounds[vr as usize + 1];
    out[own.clone()].copy_from_slice(&held[..own.len()]);
    // Ring allgather of the chunks (relative ranks): in step i send chunk vr−i to the
    // right, receive chunk vr−i−1 from the left. Empty chunks go as 0-byte messages.
    let right = (me + 1) % p;
    let left = (me + p - 1) % p;
    for i in 0..p - 1 {
        let send_chunk = ((vr + p - i) % p) as usize;
        let recv_chunk = ((vr + 2 * p - i - 1) % p) as usize;
        let piece = out[bounds[send_chunk]..bounds[send_chunk + 1]].to_vec();
        let got = sendrecv(r, &c, right, left, TAG_BCAST_ALLGATHER, piece).await;
        let range = bounds[recv_chunk]..bounds[recv_chunk + 1];
        assert_eq!(got.len(), range.len(), "bcast: members passed buffers of different lengths");
        out[range].copy_from_slice(&got);
    }
    out
}

/// MPICH's binomial broadcast: relative rank `vr` receives from `vr − lowbit(vr)`,
/// then sends to `vr + m` for m = lowbit/2, lowbit/4, …, 1 (those < p; for the root
/// m runs down from the largest power of two < p), all sends started at once.
async fn bcast_binomial<R: Rank>(r: &R, c: &Communicator, root: u32, mut data: Vec<u8>, tag: Tag) -> Vec<u8> {
    let (p, me) = (c.size(), c.rank());
    let vr = (me + p - root) % p;
    let mut mask = 1;
    while mask < p {
        if vr & mask != 0 {
            data = recv_bytes(r, c, (vr - mask + root) % p, tag).await;
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    let mut reqs = Vec::new();
    while mask > 0 {
        if vr + mask < p {
            reqs.push(r.isend(c, (vr + mask + root) % p, tag, data.clone()));
        }
        mask >>= 1;
    }
    r.wait_all(reqs).await;
    data
}

/// Binomial scatter (MPICH's): `data` (significant at the root only) holds the
/// blocks `[bounds[j], bounds[j+1])`, block j for relative rank j (rank `(j + root)
/// mod p`). Relative rank `vr` receives the blocks of its subtree `[vr, vr +
/// lowbit(vr)) ∩ [0, p)` from `vr − lowbit(vr)`, then sends each child `vr + m`
/// (m = lowbit/2, lowbit/4, …, 1; from the largest power of two < p at the root) the
/// child's subtree, all sends started at once. Empty pieces are not sent (every rank
/// knows the bounds). Returns the bytes the rank ends with: its subtree's blocks,
/// its own first (the root: all of `data`).
async fn scatter_binomial<R: Rank>(
    r: &R,
    c: &Communicator,
    root: u32,
    data: Vec<u8>,
    bounds: &[usize],
    tag: Tag,
) -> Vec<u8> {
    let (p, me) = (c.size(), c.rank());
    let vr = (me + p - root) % p;
    let at = |j: u32| bounds[j.min(p) as usize];
    let mut buf = Vec::new();
    let mut mask = 1;
    while mask < p {
        if vr & mask != 0 {
            let len = at(vr + mask) - at(vr);
            if len > 0 {
                buf = recv_bytes(r, c, (vr - mask + root) % p, tag).await;
                assert_eq!(buf.len(), len, "scatter: members disagree on the block sizes");
            }
            break;
        }
        mask <<= 1;
    }
    if vr == 0 {
        buf = data;
    }
    mask >>= 1;
    let mut reqs = Vec::new();
    while mask > 0 {
        if vr + mask < p {
            let piece = at(vr + mask) - at(vr)..at(vr + 2 * mask) - at(vr);
            if !piece.is_empty() {
                reqs.push(r.isend(c, (vr + mask + root) % p, tag, buf[piece].to_vec()));
            }
        }
        mask >>= 1;
    }
    r.wait_all(reqs).await;
    buf
}

// ---- reduce and allreduce -------------------------------------------------------

/// Reduce every member's `data` (same length everywhere) with `op` to member
/// `root`, which gets `Some(result)`; the others get `None`.
pub async fn reduce<R: Rank, T: Element>(r: &R, comm: &Communicator, root: u32, data: &[T], op: Op) -> Option<Vec<T>> {
    reduce_with(r, comm, root, data, op, ReduceAlgorithm::Auto).await
}

pub async fn reduce_with<R: Rank, T: Element>(
    r: &R,
    comm: &Communicator,
    root: u32,
    data: &[T],
    op: Op,
    algo: ReduceAlgorithm,
) -> Option<Vec<T>> {
    r.count("reduce");
    let c = comm.collective();
    assert!(root < c.size(), "reduce: root {root} is not a member of a {}-rank communicator", c.size());
    match algo {
        ReduceAlgorithm::Auto | ReduceAlgorithm::Binomial => {
            // MPICH's binomial reduce: for mask = 1, 2, 4, …: a relative rank with that
            // bit clear receives (in turn) from vr + mask and combines; with it set it
            // sends its partial result to vr − mask and is done.
            let (p, me) = (c.size(), c.rank());
            let vr = (me + p - root) % p;
            let mut acc = data.to_vec();
            let mut mask = 1;
            while mask < p {
                if vr & mask == 0 {
                    let src = vr | mask;
                    if src < p {
                        let got = decode::<T>(&recv_bytes(r, &c, (src + root) % p, TAG_REDUCE).await);
                        op.fold_into(&mut acc, &got);
                    }
                } else {
                    r.send(&c, (vr - mask + root) % p, TAG_REDUCE, encode(&acc)).await;
                    return None;
                }
                mask <<= 1;
            }
            Some(acc)
        }
    }
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

// ---- gather and scatter ---------------------------------------------------------

/// Gather every member's `data` (same length everywhere) to member `root`, which
/// gets `Some` of the blocks concatenated in rank order; the others get `None`.
pub async fn gather<R: Rank>(r: &R, comm: &Communicator, root: u32, data: Vec<u8>) -> Option<Vec<u8>> {
    gather_with(r, comm, root, data, GatherAlgorithm::Auto).await
}

pub async fn gather_with<R: Rank>(
    r: &R,
    comm: &Communicator,
    root: u32,
    data: Vec<u8>,
    algo: GatherAlgorithm,
) -> Option<Vec<u8>> {
    r.count("gather");
    let c = comm.collective();
    assert!(root < c.size(), "gather: root {root} is not a member of a {}-rank communicator", c.size());
    match algo {
        GatherAlgorithm::Auto | GatherAlgorithm::Binomial => {
            // MPICH's binomial gather: like the binomial reduce, but a rank appends
            // its children's blocks (relative ranks vr, vr+1, … in order) instead of
            // combining them, so it forwards min(lowbit(vr), p − vr) blocks.
            let (p, me) = (c.size(), c.rank());
            let vr = (me + p - root) % p;
            let block = data.len();
            let mut buf = data;
            let mut mask = 1;
            while mask < p {
                if vr & mask == 0 {
                    let src = vr | mask;
                    if src < p {
                        let got = recv_bytes(r, &c, (src + root) % p, TAG_GATHER).await;
                        assert_eq!(
                            got.len(),
                            block * mask.min(p - src) as usize,
                            "gather: members passed blocks of different lengths"
                        );
                        buf.extend_from_slice(&got);
                    }
                } else {
                    r.send(&c, (vr - mask + root) % p, TAG_GATHER, buf).await;
                    return None;
                }
                mask <<= 1;
            }
            // Relative order → rank order.
            buf.rotate_right(root as usize * block);
            Some(buf)
        }
    }
}

/// Scatter the root's `data` (`size × block` bytes, block i for member i); every
/// member gets its `block` bytes. Non-roots pass any `data` (it is ignored).
pub async fn scatter<R: Rank>(r: &R, comm: &Communicator, root: u32, data: Vec<u8>, block: usize) -> Vec<u8> {
    scatter_with(r, comm, root, data, block, ScatterAlgorithm::Auto).await
}

pub async fn scatter_with<R: Rank>(
    r: &R,
    comm: &Communicator,
    root: u32,
    data: Vec<u8>,
    block: usize,
    algo: ScatterAlgorithm,
) -> Vec<u8> {
    r.count("scatter");
    let c = comm.collective();
    let p = c.size();
    assert!(root < p, "scatter: root {root} is not a member of a {p}-rank communicator");
    if c.rank() == root {
        assert_eq!(data.len(), block * p as usize, "scatter: the root's data is not {p} blocks of {block} bytes");
    }
    match algo {
        ScatterAlgorithm::Auto | ScatterAlgorithm::Binomial => {
            // Relative block j is rank (j + root) mod p's: the root rotates its data.
            let bounds: Vec<usize> = (0..=p as usize).map(|i| i * block).collect();
            let data = if c.rank() == root {
                let mut data = data;
                data.rotate_left(root as usize * block);
                data
            } else {
                Vec::new()
            };
            let mut held = scatter_binomial(r, &c, root, data, &bounds, TAG_SCATTER).await;
            held.truncate(block);
            held
        }
    }
}

// ---- allgather ------------------------------------------------------------------

/// Gather every member's `data` (same length everywhere) to every member: the
/// blocks concatenated in rank order.
pub async fn allgather<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>) -> Vec<u8> {
    allgather_with(r, comm, data, AllgatherAlgorithm::Auto).await
}

pub async fn allgather_with<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>, algo: AllgatherAlgorithm) -> Vec<u8> {
    r.count("allgather");
    allgather_inner(r, comm, data, algo, TAG_ALLGATHER).await
}

async fn allgather_inner<R: Rank>(
    r: &R,
    comm: &Communicator,
    data: Vec<u8>,
    algo: AllgatherAlgorithm,
    tag: Tag,
) -> Vec<u8> {
    let c = comm.collective();
    let (p, me) = (c.size(), c.rank());
    let b = data.len();
    let algo = match algo {
        AllgatherAlgorithm::Auto if (b * p as usize) as u64 > r.eager_limit() => AllgatherAlgorithm::Ring,
        AllgatherAlgorithm::Auto => AllgatherAlgorithm::RecursiveDoubling,
        a => a,
    };
    let mut out = vec![0u8; b * p as usize];
    out[me as usize * b..(me as usize + 1) * b].copy_from_slice(&data);
    let check = |got: &[u8], want: usize| {
        assert_eq!(got.len(), want, "allgather: members passed blocks of different lengths");
    };
    match algo {
        AllgatherAlgorithm::Ring => {
            // Step i: send block me−i to the right, receive block me−i−1 from the left.
            let (right, left) = ((me + 1) % p, (me + p - 1) % p);
            for i in 0..p.saturating_sub(1) {
                let s = ((me + p - i) % p) as usize;
                let d = ((me + 2 * p - i - 1) % p) as usize;
                let got = sendrecv(r, &c, right, left, tag, out[s * b..(s + 1) * b].to_vec()).await;
                check(&got, b);
                out[d * b..(d + 1) * b].copy_from_slice(&got);
            }
        }
        _ => {
            let pof2 = pof2_below(p);
            let rem = p - pof2;
            let Some(nr) = fold_rank(me, rem) else {
                r.send(&c, me + 1, tag, data).await;
                let got = recv_bytes(r, &c, me + 1, tag).await;
                check(&got, out.len());
                return got;
            };
            if me < 2 * rem {
                let got = recv_bytes(r, &c, me - 1, tag).await;
                check(&got, b);
                out[(me as usize - 1) * b..me as usize * b].copy_from_slice(&got);
            }
            // New ranks [a, a+mask) hold the blocks of ranks [first(a), first(a+mask)).
            let bytes = |a: u32, len: u32| first_covered(a, rem) as usize * b..first_covered(a + len, rem) as usize * b;
            let mut mask = 1;
            while mask < pof2 {
                let partner_nr = nr ^ mask;
                let mine = bytes(nr & !(mask - 1), mask);
                let theirs = bytes(partner_nr & !(mask - 1), mask);
                let partner = unfold_rank(partner_nr, rem);
                let got = sendrecv(r, &c, partner, partner, tag, out[mine].to_vec()).await;
                check(&got, theirs.len());
                out[theirs].copy_from_slice(&got);
                mask <<= 1;
            }
            if me < 2 * rem {
                r.send(&c, me - 1, tag, out.clone()).await;
            }
        }
    }
    out
}

// ---- alltoall -------------------------------------------------------------------

/// Personalised exchange: `data` is `size` blocks of equal length, block j for
/// member j; every member gets the blocks sent to it, block i from member i.
pub async fn alltoall<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>) -> Vec<u8> {
    alltoall_with(r, comm, data, AlltoallAlgorithm::Auto).await
}

pub async fn alltoall_with<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>, algo: AlltoallAlgorithm) -> Vec<u8> {
    r.count("alltoall");
    let c = comm.collective();
    let p = c.size() as usize;
    assert!(data.len().is_multiple_of(p), "alltoall: {} bytes are not {p} equal blocks", data.len());
    let b = data.len() / p;
    let blocks: Vec<Vec<u8>> = (0..p).map(|j| data[j * b..(j + 1) * b].to_vec()).collect();
    let got = pairwise(r, &c, blocks, algo, TAG_ALLTOALL).await;
    for g in &got {
        assert_eq!(g.len(), b, "alltoall: members passed blocks of different lengths");
    }
    got.concat()
}

/// Personalised exchange of blocks of any length: `blocks[j]` goes to member j;
/// every member gets one block from each member, in rank order (a member learns
/// the lengths from the messages; empty blocks still travel as 0-byte messages).
pub async fn alltoallv<R: Rank>(r: &R, comm: &Communicator, blocks: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    alltoallv_with(r, comm, blocks, AlltoallAlgorithm::Auto).await
}

pub async fn alltoallv_with<R: Rank>(
    r: &R,
    comm: &Communicator,
    blocks: Vec<Vec<u8>>,
    algo: AlltoallAlgorithm,
) -> Vec<Vec<u8>> {
    r.count("alltoallv");
    let c = comm.collective();
    assert_eq!(blocks.len(), c.size() as usize, "alltoallv: need one block per member");
    pairwise(r, &c, blocks, algo, TAG_ALLTOALLV).await
}

/// MPICH's pairwise exchange: in step i = 1 … p−1 send to `me XOR i` and receive
/// from it when p is a power of two, else send to `me+i` and receive from `me−i`.
async fn pairwise<R: Rank>(
    r: &R,
    c: &Communicator,
    mut blocks: Vec<Vec<u8>>,
    algo: AlltoallAlgorithm,
    tag: Tag,
) -> Vec<Vec<u8>> {
    match algo {
        AlltoallAlgorithm::Auto | AlltoallAlgorithm::Pairwise => {
            let (p, me) = (c.size(), c.rank());
            let mut out = vec![Vec::new(); p as usize];
            out[me as usize] = std::mem::take(&mut blocks[me as usize]);
            for i in 1..p {
                let (dst, src) = if p.is_power_of_two() { (me ^ i, me ^ i) } else { ((me + i) % p, (me + p - i) % p) };
                let piece = std::mem::take(&mut blocks[dst as usize]);
                out[src as usize] = sendrecv(r, c, dst, src, tag, piece).await;
            }
            out
        }
    }
}

// ---- split ----------------------------------------------------------------------

/// MPI_Comm_split: members with the same `color` form a new communicator, ranked by
/// `key` (ties by rank in `comm`); a negative color (MPI_UNDEFINED) gives `None`.
///
/// An allgather (recursive doubling) of every member's (color, key), then
/// [`Rank::derive`] with the members sorted by key then rank.
pub async fn split<R: Rank>(r: &R, comm: &Communicator, color: i32, key: i32) -> Option<Communicator> {
    r.count("split");
    let p = comm.size();
    let all =
        decode::<i32>(&allgather_inner(r, comm, encode(&[color, key]), AllgatherAlgorithm::Auto, TAG_SPLIT).await);
    let entries = |want: &dyn Fn(i32) -> bool| -> Vec<u32> {
        let mut m: Vec<(i32, u32)> =
            (0..p).filter(|&i| want(all[2 * i as usize])).map(|i| (all[2 * i as usize + 1], i)).collect();
        m.sort_unstable();
        m.into_iter().map(|(_, i)| comm.world_rank(i)).collect()
    };
    if color < 0 {
        return None;
    }
    Some(r.derive(comm, entries(&|c| c == color)))
}
