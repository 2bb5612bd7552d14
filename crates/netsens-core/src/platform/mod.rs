//! The platform: network parameters per level, machine shape, CPU speed, noise.
//!
//! `spec/` reads, validates and writes TOML and applies overrides, `presets.rs` holds
//! the named platforms, `layout.rs` places ranks on nodes and clusters for one run,
//! `topology.rs` reads the `[topology]` of a switched network.

mod layout;
pub mod noise;
pub mod presets;
pub mod spec;
pub mod topology;
pub mod variability;

pub use layout::{Layout, Level};
pub use noise::Dist;

use crate::time::{PerByte, Time};
use serde::Serialize;

/// LogGOPS parameters of one network level (LOGGP.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelParams {
    /// L: wire latency, ps.
    pub latency: Time,
    /// o: CPU overhead per message, charged on each side, ps.
    pub overhead: Time,
    /// g: gap between messages on one NIC, ps.
    pub gap: Time,
    /// G: gap per byte.
    pub gap_per_byte: PerByte,
    /// O: CPU overhead per byte.
    pub overhead_per_byte: PerByte,
    /// S: eager/rendezvous threshold, bytes (a message of more than S bytes uses rendezvous).
    pub eager_limit: u64,
    /// G applies only to messages of more than this many bytes (0: to every message,
    /// LogGP's rule). Martin et al. slowed only bulk transfers: see docs/concepts/bulk-gap.md.
    pub gap_above: u64,
    /// o of the handshake's control messages (request-to-send, clear-to-send), ps;
    /// `None` = `overhead`. An MPI's own rendezvous runs at the machine's o, whatever
    /// a tool injects on each MPI message: see docs/concepts/platforms.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control_overhead: Option<Time>,
}

impl LevelParams {
    /// o of a rendezvous control message: `control_overhead`, or o when unset.
    #[inline]
    pub fn control_o(&self) -> Time {
        self.control_overhead.unwrap_or(self.overhead)
    }

    /// The per-byte gap of a message of `wire` bytes: G·(wire − 1), or 0 for a message
    /// of at most `gap_above` bytes.
    #[inline]
    pub fn gap_bytes(&self, wire: u64) -> crate::time::Time {
        if wire > self.gap_above {
            self.gap_per_byte.cost(wire.saturating_sub(1))
        } else {
            0
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rendezvous {
    /// MPI-like: request-to-send, clear-to-send, then the data.
    Handshake,
    /// LogGOPSim's shortcut: data travels at once, the send completes when matched.
    Loggopsim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WanShape {
    /// One directed link per ordered pair of clusters.
    Full,
    /// Every route goes through the hub cluster (two links unless an end is the hub).
    Star,
    /// Clusters on a ring; the shorter way round (ties go upward).
    Ring,
}

/// Wide-area links between clusters; every directed link is a FIFO.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Wan {
    pub shape: WanShape,
    /// L_w: one-way latency of each link, ps.
    pub latency: Time,
    /// G_w = 1/B: time per byte on each link.
    pub per_byte: PerByte,
    /// Hub cluster index for `star`.
    pub hub: usize,
    /// c_gw: what each cluster's gateway is busy per message it forwards between the
    /// cluster and the wide-area links, ps (a FIFO per cluster; 0 = no gateway cost).
    pub gateway: Time,
}

/// `ranks_per_node` of a machine that is one node holding every rank (`"all"` in TOML),
/// such as the single machine `calibrate --live` measures.
pub const ALL_RANKS: u32 = u32::MAX;

/// How ranks are placed: consecutive ranks fill nodes, nodes fill clusters, and the
/// ranks of a node take its cores in turn.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    /// Ranks per cluster, in cluster order; `None` = one cluster holding every rank.
    pub clusters: Option<Vec<u32>>,
    /// Ranks sharing one node (1 = a node per rank, [`ALL_RANKS`] = one node of all).
    #[serde(serialize_with = "ranks_per_node_value")]
    pub ranks_per_node: u32,
    /// Cores of each node: rank r of a node runs on core r mod C, and the CPU work
    /// (compute, o, O) of ranks on one core is served first come, first served
    /// (`layout.rs`); `None` = a core per rank.
    pub cores_per_node: Option<u32>,
}

fn ranks_per_node_value<S: serde::Serializer>(rpn: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    if *rpn == ALL_RANKS {
        s.serialize_str("all")
    } else {
        s.serialize_u32(*rpn)
    }
}

/// Seeded variability (LOGGP.md "Noise"); all `Dist::None` means a noiseless run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Noise {
    /// Extra latency added to every message, drawn per sending host's link.
    pub latency_jitter: Dist,
    /// Extra latency added on every wide-area link traversal, drawn per link.
    pub wan_jitter: Dist,
    /// Time between CPU detours on each host (OS noise); `None` disables detours.
    pub detour_interval: Dist,
    /// Length of one CPU detour.
    pub detour_duration: Dist,
    /// Background traffic (`[[noise.background]]`, see [`variability`]).
    pub background: Vec<variability::Flow>,
    /// Soft faults (`[[noise.faults]]`).
    pub faults: Vec<variability::Fault>,
}

impl Noise {
    pub fn none() -> Self {
        Noise {
            latency_jitter: Dist::None,
            wan_jitter: Dist::None,
            detour_interval: Dist::None,
            detour_duration: Dist::None,
            background: Vec::new(),
            faults: Vec::new(),
        }
    }

    pub fn is_none(&self) -> bool {
        self.latency_jitter.is_none()
            && self.wan_jitter.is_none()
            && (self.detour_interval.is_none() || self.detour_duration.is_none())
            && self.background.is_empty()
            && self.faults.is_empty()
    }
}

/// Disks of every node (NOW-sort style): each disk serves one request at a time,
/// first come first served, at `per_byte` per byte, while the CPU goes on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disks {
    /// Disks per node.
    pub count: u32,
    /// 1 / bandwidth of one disk.
    pub per_byte: PerByte,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Platform {
    /// Preset name or file the platform came from.
    pub name: String,
    /// Parameters between ranks on the same node; `None` = same as `cluster`.
    pub node: Option<LevelParams>,
    /// Parameters inside a cluster (and the end-point costs of wide-area messages).
    pub cluster: LevelParams,
    pub wan: Option<Wan>,
    pub shape: Shape,
    /// CPU speed relative to the machine the compute costs were charged for (2.0 = twice as fast).
    pub cpu_speed: f64,
    pub rendezvous: Rendezvous,
    pub noise: Noise,
    /// Disks per node, for programs that read and write them; `None` = no disks.
    pub disks: Option<Disks>,
    /// The switched network inside the cluster, whose links concurrent messages
    /// share (`[topology]`); `None` = the LogGP pipe (and no key in JSON, as before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<topology::Topology>,
    /// Active Messages' flow control on the one-sided operations of rank programs
    /// (stores, puts, gets, active messages): at most this many requests outstanding
    /// per (origin, target) pair, each returning its credit with its reply (a store's
    /// is an acknowledgement); `None` = no window (and no key in JSON, as before).
    /// See docs/concepts/rank-programs.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub am_window: Option<u32>,
}
