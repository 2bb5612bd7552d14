//! Score-P's byte counts of a collective, turned into netsens's (the convention
//! `crate::collectives` expands, docs/reference/pmpi.md: bcast n, n; allreduce n, n; ...).
//!
//! Score-P counts a collective as if each rank exchanged its data with every rank of
//! the communicator: an allreduce of n bytes on p ranks is recorded as p·n sent and p·n
//! received, a bcast's root as p·n sent; with `MPI_IN_PLACE` the rank's own share is
//! left out ((p−1)·n). The record does not say whether the call was in place: a total
//! that p divides is read as p shares, else one that p−1 divides as p−1 shares.

use crate::collectives::Coll;

/// One share of `total` bytes counted over `p` ranks (see the module's note).
fn share(total: u64, p: u64) -> u64 {
    if p <= 1 || total.is_multiple_of(p) || !total.is_multiple_of(p - 1) {
        total / p.max(1)
    } else {
        total / (p - 1)
    }
}

/// The (sent, received) of rank `me` of `p` (root `root`) in netsens's convention,
/// from Score-P's.
pub fn from_scorep(coll: Coll, op: u8, p: u32, me: u32, root: u32, sent: u64, received: u64) -> (u64, u64) {
    let n = u64::from(p);
    let at_root = me == root;
    match coll {
        Coll::Barrier => (0, 0),
        // every rank, the root too, records the n bytes it holds as received
        Coll::Bcast => (received, received),
        Coll::Reduce if at_root => {
            let block = if sent > 0 { sent } else { received / n.saturating_sub(1).max(1) };
            (block, block)
        }
        Coll::Reduce => (sent, 0),
        Coll::Allreduce => {
            let block = share(sent, n);
            (block, block)
        }
        // the root's own block is left out of an in-place gather's total
        Coll::Gather if at_root && sent == 0 => (0, received + received / n.saturating_sub(1).max(1)),
        Coll::Gather => (sent, received),
        Coll::Scatter if at_root && received == 0 => (sent + sent / n.saturating_sub(1).max(1), 0),
        Coll::Scatter => (sent, received),
        // the v-forms' totals are netsens's already; the regular forms' shares are blocks
        Coll::Allgather if op == ALLGATHERV => (sent, received),
        Coll::Allgather => {
            let block = share(received, n);
            (block, block * n)
        }
        Coll::Alltoall if op == ALLTOALLV || op == ALLTOALLW => (sent, received),
        Coll::Alltoall => {
            let total = share(sent, n) * n;
            (total, total)
        }
        Coll::ReduceScatter => (sent, sent / n.max(1)),
        Coll::Scan => {
            // scan: (p − me)·n sent; exscan (and an in-place scan): (p − me − 1)·n
            let after = u64::from(p - me);
            let block = if op == SCAN && sent.is_multiple_of(after) {
                sent / after
            } else if after > 1 {
                sent / (after - 1)
            } else {
                received / u64::from(me.max(1))
            };
            (block, block)
        }
    }
}

/// OTF2's codes of the forms that tell apart what [`Coll`] groups.
const ALLGATHERV: u8 = 7;
const ALLTOALLV: u8 = 9;
const ALLTOALLW: u8 = 10;
const SCAN: u8 = 14;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scorep_counts_become_netsens_blocks() {
        // allreduce of 8 B on 4 ranks: 32, 32; of 5 B in place: 15, 15 (4 does not
        // divide it, 3 does); of 8 B in place, 24 reads as 4 shares of 6 B: the record
        // cannot tell
        assert_eq!(from_scorep(Coll::Allreduce, 11, 4, 1, 0, 32, 32), (8, 8));
        assert_eq!(from_scorep(Coll::Allreduce, 11, 4, 1, 0, 15, 15), (5, 5));
        assert_eq!(from_scorep(Coll::Allreduce, 11, 4, 1, 0, 24, 24), (6, 6));
        // bcast of 8 B on 4 ranks: the root 32 sent, 8 received; others 0, 8
        assert_eq!(from_scorep(Coll::Bcast, 1, 4, 2, 2, 32, 8), (8, 8));
        assert_eq!(from_scorep(Coll::Bcast, 1, 4, 0, 2, 0, 8), (8, 8));
        // reduce at the root, in place: 0 sent, 3 · 8 received
        assert_eq!(from_scorep(Coll::Reduce, 12, 4, 2, 2, 0, 24), (8, 8));
        assert_eq!(from_scorep(Coll::Reduce, 12, 4, 0, 2, 8, 0), (8, 0));
        // allgather of 8 B blocks: 32, 32 → the block and the total
        assert_eq!(from_scorep(Coll::Allgather, 6, 4, 3, 0, 32, 32), (8, 32));
        // alltoall of 8 B blocks: 32, 32 stay totals
        assert_eq!(from_scorep(Coll::Alltoall, 8, 4, 3, 0, 32, 32), (32, 32));
        // in-place gather at the root: its own block is added back
        assert_eq!(from_scorep(Coll::Gather, 2, 4, 0, 0, 0, 24), (0, 32));
        // scan of 8 B at rank 1 of 4: 3 · 8 sent, 2 · 8 received; exscan: 2 · 8, 1 · 8
        assert_eq!(from_scorep(Coll::Scan, 14, 4, 1, 0, 24, 16), (8, 8));
        assert_eq!(from_scorep(Coll::Scan, 15, 4, 1, 0, 16, 8), (8, 8));
        assert_eq!(from_scorep(Coll::Scan, 15, 4, 3, 0, 0, 24), (8, 8));
    }
}
