//! The barrier: dissemination, ⌈log2 p⌉ rounds of empty messages.

use super::steps::sendrecv;
use super::TAG_BARRIER;
use crate::program::api::{Communicator, Rank};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BarrierAlgorithm {
    #[default]
    Auto,
    /// ⌈log2 p⌉ rounds; in round k rank i sends to i+2^k and receives from i−2^k (mod p).
    Dissemination,
}

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
