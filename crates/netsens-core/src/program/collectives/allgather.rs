//! Allgather: recursive doubling for small gathered vectors, a ring for large ones.
//! `split` runs on the same algorithm under its own tag.

use super::fold::{first_covered, fold_rank, pof2_below, unfold_rank};
use super::steps::{recv_bytes, sendrecv};
use super::TAG_ALLGATHER;
use crate::program::api::{Communicator, Rank, Tag};

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

/// Gather every member's `data` (same length everywhere) to every member: the
/// blocks concatenated in rank order.
pub async fn allgather<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>) -> Vec<u8> {
    allgather_with(r, comm, data, AllgatherAlgorithm::Auto).await
}

pub async fn allgather_with<R: Rank>(r: &R, comm: &Communicator, data: Vec<u8>, algo: AllgatherAlgorithm) -> Vec<u8> {
    r.count("allgather");
    allgather_inner(r, comm, data, algo, TAG_ALLGATHER).await
}

pub(super) async fn allgather_inner<R: Rank>(
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
