//! Where each rank sits for one run: its node, cluster and core, and therefore which
//! network level a message between two ranks uses and which ranks compute in turn.
//!
//! Cores (`[shape] cores_per_node = C`): the ranks of a node take its cores in turn,
//! rank r of the node on core r mod C (Open MPI's `--map-by core`). Ranks on one core
//! share one CPU clock in the engine: each CPU activity (compute, o, O) starts no
//! earlier than the core is free, first come, first served in event order. This is not
//! time slicing: an activity, once started, runs to its end, and a rank waiting in a
//! receive takes no CPU.

use super::{Platform, WanShape, ALL_RANKS};
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Both ends on one node (uses the node parameters when the platform has them).
    Node,
    /// Both ends in one cluster.
    Cluster,
    /// Ends in different clusters: cluster end-point costs, wide-area route.
    Wan,
}

pub struct Layout {
    ranks_per_node: u32,
    /// Cores per node when ranks share them (fewer cores than ranks per node).
    shared_cores: Option<u32>,
    /// Cluster of each rank; empty when there is a single cluster.
    cluster_of: Vec<u16>,
    nclusters: usize,
    wan_shape: WanShape,
    hub: usize,
}

impl Layout {
    pub fn new(platform: &Platform, ranks: u32) -> Result<Layout> {
        let rpn = platform.shape.ranks_per_node.max(1);
        let mut cluster_of = Vec::new();
        let mut nclusters = 1;
        if let Some(sizes) = &platform.shape.clusters {
            let total: u64 = sizes.iter().map(|&s| s as u64).sum();
            if total != ranks as u64 {
                return Err(Error::Input(format!(
                    "the platform's clusters hold {total} ranks ({}) but the workload has {ranks} ranks; \
                     set the shape to match (e.g. --clusters or [shape] clusters)",
                    sizes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join("+")
                )));
            }
            if sizes.len() > u16::MAX as usize {
                return Err(Error::Input(format!("{} clusters; at most {} are supported", sizes.len(), u16::MAX)));
            }
            nclusters = sizes.len();
            // A hop past a gateway marks its cluster's index with the top bit (engine).
            if nclusters > (u16::MAX >> 1) as usize && platform.wan.as_ref().is_some_and(|w| w.gateway > 0) {
                return Err(Error::Input(format!(
                    "{nclusters} clusters; at most {} are supported with a gateway cost",
                    u16::MAX >> 1
                )));
            }
            if nclusters > 1 {
                cluster_of.reserve_exact(ranks as usize);
                for (c, &n) in sizes.iter().enumerate() {
                    cluster_of.extend(std::iter::repeat_n(c as u16, n as usize));
                }
                if platform.wan.is_none() {
                    return Err(Error::Input(format!(
                        "the platform has {nclusters} clusters but no [wan] section to join them"
                    )));
                }
            }
        }
        if rpn == ALL_RANKS && nclusters > 1 {
            return Err(Error::Input(format!(
                "ranks_per_node = \"all\" puts every rank on one node, which cannot span {nclusters} clusters"
            )));
        }
        if rpn > 1 && rpn != ALL_RANKS && !ranks.is_multiple_of(rpn) {
            return Err(Error::Input(format!("ranks_per_node = {rpn} does not divide the workload's {ranks} ranks")));
        }
        let (wan_shape, hub) = platform.wan.as_ref().map(|w| (w.shape, w.hub)).unwrap_or((WanShape::Full, 0));
        let shared_cores = platform.shape.cores_per_node.filter(|&c| c < rpn.min(ranks));
        Ok(Layout { ranks_per_node: rpn, shared_cores, cluster_of, nclusters, wan_shape, hub })
    }

    /// Number of cores the ranks share when some share one, else `None` (a core per rank).
    pub fn shared_cores(&self, ranks: u32) -> Option<u32> {
        let c = self.shared_cores?;
        let nodes = ranks.div_ceil(self.ranks_per_node);
        Some(nodes.saturating_mul(c).min(ranks))
    }

    /// The core `rank` runs on (numbered across nodes), when ranks share cores: rank r
    /// of its node on the node's core r mod C.
    #[inline]
    pub fn core(&self, rank: u32) -> u32 {
        match self.shared_cores {
            Some(c) => rank / self.ranks_per_node * c + rank % self.ranks_per_node % c,
            None => rank,
        }
    }

    /// The node holding `rank` (consecutive ranks share a node).
    #[inline]
    pub fn node(&self, rank: u32) -> u32 {
        rank / self.ranks_per_node
    }

    pub fn nclusters(&self) -> usize {
        self.nclusters
    }

    #[inline]
    pub fn cluster(&self, rank: u32) -> usize {
        if self.cluster_of.is_empty() {
            0
        } else {
            self.cluster_of[rank as usize] as usize
        }
    }

    #[inline]
    pub fn level(&self, a: u32, b: u32) -> Level {
        if self.ranks_per_node > 1 && a / self.ranks_per_node == b / self.ranks_per_node {
            Level::Node
        } else if self.cluster(a) == self.cluster(b) {
            Level::Cluster
        } else {
            Level::Wan
        }
    }

    /// Directed link id of `from → to` (clusters).
    #[inline]
    pub fn link_id(&self, from: usize, to: usize) -> usize {
        from * self.nclusters + to
    }

    /// Next cluster on the wide-area route from cluster `at` towards cluster `dst`.
    pub fn next_hop(&self, at: usize, dst: usize) -> usize {
        match self.wan_shape {
            WanShape::Full => dst,
            WanShape::Star => {
                if at == self.hub || dst == self.hub {
                    dst
                } else {
                    self.hub
                }
            }
            WanShape::Ring => {
                let n = self.nclusters;
                let up = (dst + n - at) % n;
                if up <= n - up {
                    (at + 1) % n
                } else {
                    (at + n - 1) % n
                }
            }
        }
    }
}
