//! The root's data spread to the members: bcast (binomial tree, or scatter + ring
//! allgather for large messages) and scatter, both on MPICH's binomial tree.

use super::steps::{recv_bytes, sendrecv};
use super::{TAG_BCAST, TAG_BCAST_ALLGATHER, TAG_BCAST_SCATTER, TAG_SCATTER};
use crate::program::api::{Communicator, Rank, Tag};

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
pub enum ScatterAlgorithm {
    #[default]
    Auto,
    Binomial,
}

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
