//! `MPI_Comm_split`: new communicators from colors and keys, agreed on by an
//! allgather.

use super::allgather::allgather_inner;
use super::{AllgatherAlgorithm, TAG_SPLIT};
use crate::program::api::{Communicator, Rank};
use crate::program::payload::{decode, encode};

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
