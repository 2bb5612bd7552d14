//! What the wide-area suite (Plaat, Bal and Hofman 1998) shares: which applications
//! have an `original` and an `optimized` variant, and a rank's view of the clusters
//! (from [`Rank::cluster_sizes`]), which the optimized variants use to send one
//! message per cluster over the wide area and forward it inside.

use crate::app::Variant;
use netsens_core::program::Rank;
use netsens_core::time::{Time, NS};
use std::ops::Range;

/// The variants of each wide-area application; none for the other applications.
pub fn variants(app: &str) -> &'static [Variant] {
    match app {
        // The default is the last: optimized.
        "water" | "bh" => &[Variant::OriginalMessages, Variant::Original, Variant::Optimized],
        "tsp" | "asp" | "awari" => &Variant::ALL,
        // The seed found no cluster-aware form of the transpose FFT.
        "fft1d" => &[Variant::Original],
        _ => &[],
    }
}

/// One basic operation (an add, compare or store with its loads) on DAS's 200 MHz
/// Pentium Pro: about two cycles.
pub const OP_PS: Time = 10 * NS;

/// The ranks of every cluster, as one rank sees them.
#[derive(Clone, Debug)]
pub struct Clusters {
    /// First world rank of each cluster, then the world size.
    starts: Vec<u32>,
}

impl Clusters {
    pub fn of<R: Rank>(r: &R) -> Clusters {
        let mut starts = vec![0];
        for n in r.cluster_sizes() {
            starts.push(starts.last().unwrap() + n);
        }
        Clusters { starts }
    }

    pub fn count(&self) -> u32 {
        self.starts.len() as u32 - 1
    }

    /// World ranks of cluster `c`.
    pub fn members(&self, c: u32) -> Range<u32> {
        self.starts[c as usize]..self.starts[c as usize + 1]
    }

    /// The cluster holding world rank `rank`.
    pub fn of_rank(&self, rank: u32) -> u32 {
        (self.starts.partition_point(|&s| s <= rank) - 1) as u32
    }

    /// The rank that speaks for cluster `c` over the wide area: its first.
    pub fn coordinator(&self, c: u32) -> u32 {
        self.starts[c as usize]
    }
}

/// Block `q` of `n` items split over `p` owners as evenly as possible.
pub fn block(n: usize, p: u32, q: u32) -> Range<usize> {
    let (p, q) = (p as usize, q as usize);
    n * q / p..n * (q + 1) / p
}

/// The owner of item `i` under [`block`].
pub fn owner(n: usize, p: u32, i: usize) -> u32 {
    (0..p).find(|&q| block(n, p, q).contains(&i)).expect("an item within 0..n")
}
