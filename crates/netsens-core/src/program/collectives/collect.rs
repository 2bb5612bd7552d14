//! The members' data brought to the root up a binomial tree: reduce (combined with
//! an operator) and gather (concatenated in rank order).

use super::steps::recv_bytes;
use super::{TAG_GATHER, TAG_REDUCE};
use crate::program::api::{Communicator, Rank};
use crate::program::payload::{decode, encode, Element, Op};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReduceAlgorithm {
    #[default]
    Auto,
    /// Partial results flow up a binomial tree to the root.
    Binomial,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GatherAlgorithm {
    #[default]
    Auto,
    Binomial,
}

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
