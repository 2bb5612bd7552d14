//! Personalised exchange (alltoall with equal blocks, alltoallv with any lengths) by
//! MPICH's pairwise exchange.

use super::steps::sendrecv;
use super::{TAG_ALLTOALL, TAG_ALLTOALLV};
use crate::program::api::{Communicator, Rank, Tag};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AlltoallAlgorithm {
    #[default]
    Auto,
    /// p−1 steps; in step i exchange with `me XOR i` (p a power of two) or send to
    /// `me+i` and receive from `me−i` (mod p).
    Pairwise,
}

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
