//! The members' data brought to the root up a binomial tree: reduce (combined with
//! an operator) and gather (concatenated in rank order).

use super::steps::recv_bytes;
use super::{TAG_GATHER, TAG_REDUCE};
use crate::program::api::{Communicator, Rank, Tag};
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
            // A rank combines each child's partial result into its own, `acc ⊕ child`.
            let take_in = |acc: &mut Vec<T>, got: Vec<u8>, _| op.fold_into(acc, &decode::<T>(&got));
            up_the_tree(r, &c, root, TAG_REDUCE, data.to_vec(), take_in, |acc| encode(&acc)).await
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
            // A rank appends its children's blocks (relative ranks vr, vr+1, … in
            // order), so it forwards min(lowbit(vr), p − vr) blocks.
            let block = data.len();
            let take_in = |buf: &mut Vec<u8>, got: Vec<u8>, ranks: u32| {
                assert_eq!(got.len(), block * ranks as usize, "gather: members passed blocks of different lengths");
                buf.extend_from_slice(&got);
            };
            let mut buf = up_the_tree(r, &c, root, TAG_GATHER, data, take_in, |buf| buf).await?;
            // Relative order → rank order.
            buf.rotate_right(root as usize * block);
            Some(buf)
        }
    }
}

/// MPICH's binomial tree towards the root (relative rank `vr`): for mask = 1, 2, 4, …
/// a rank with that bit clear receives (in turn) from vr + mask, if it exists, and
/// takes it in with `take_in(acc, bytes, ranks)` (`ranks`: the child's subtree,
/// min(mask, p − child)); with the bit set it sends `to_bytes(acc)` to vr − mask and
/// is done (`None`). The root ends with `Some(acc)`.
async fn up_the_tree<R: Rank, A>(
    r: &R,
    c: &Communicator,
    root: u32,
    tag: Tag,
    mut acc: A,
    mut take_in: impl FnMut(&mut A, Vec<u8>, u32),
    to_bytes: impl FnOnce(A) -> Vec<u8>,
) -> Option<A> {
    let (p, me) = (c.size(), c.rank());
    let vr = (me + p - root) % p;
    let mut mask = 1;
    while mask < p {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < p {
                let got = recv_bytes(r, c, (src + root) % p, tag).await;
                take_in(&mut acc, got, mask.min(p - src));
            }
        } else {
            r.send(c, (vr - mask + root) % p, tag, to_bytes(acc)).await;
            return None;
        }
        mask <<= 1;
    }
    Some(acc)
}
