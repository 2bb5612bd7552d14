//! What a run measured: per-rank time breakdown, message and byte matrices,
//! message-size histogram, wide-area traffic per link, event count.

use crate::time::Time;
use serde::Serialize;
use std::collections::HashMap;

/// Dense matrices up to this many ranks; a sparse map above it.
pub(crate) const DENSE_MATRIX_MAX_RANKS: usize = 1024;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RankStats {
    pub rank: u32,
    /// The rank's largest CPU clock at the end of the run.
    pub end_ps: Time,
    /// Time charged by computation (calc), after CPU-speed scaling.
    pub compute_ps: Time,
    /// CPU time spent in message overheads (o, k·O, and the receiver's max(k·O, k·G)).
    pub overhead_ps: Time,
    /// CPU time lost to noise detours.
    pub noise_ps: Time,
    /// end − compute − overhead − noise: time the rank waited.
    pub wait_ps: Time,
    pub sent_messages: u64,
    pub sent_bytes: u64,
    pub recv_messages: u64,
    pub recv_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistogramBin {
    pub lo_bytes: u64,
    pub hi_bytes: u64,
    pub messages: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixEntry {
    pub src: u32,
    pub dst: u32,
    pub messages: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WanLinkStats {
    pub from_cluster: usize,
    pub to_cluster: usize,
    pub messages: u64,
    pub bytes: u64,
    /// Time the link spent transmitting.
    pub busy_ps: Time,
}

/// Time one rank spent in one phase (between its `phase` markers).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseStats {
    pub rank: u32,
    pub phase: String,
    pub elapsed_ps: Time,
    pub compute_ps: Time,
    pub overhead_ps: Time,
}

/// How often one rank used one primitive (send, store, get, bcast, ...).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrimitiveCount {
    pub rank: u32,
    pub primitive: String,
    pub count: u64,
}

/// The operations of a run whose outcome can depend on timing: a receive with a
/// wildcard source or tag matches whichever message comes first, and a test answers
/// whether a request is done yet. A run with none of them sends the same messages at
/// any parameters (its program decides them alone); one with any may not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TimingDependence {
    pub wildcard_receives: u64,
    pub tests: u64,
}

impl TimingDependence {
    /// No operation whose outcome can depend on timing.
    pub fn is_none(&self) -> bool {
        self.wildcard_receives == 0 && self.tests == 0
    }
}

/// Everything a run reports. Times are picoseconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    pub makespan_ps: Time,
    pub ranks: Vec<RankStats>,
    /// Application messages (rendezvous control messages are counted apart).
    pub messages: u64,
    pub bytes: u64,
    pub control_messages: u64,
    pub events: u64,
    pub histogram: Vec<HistogramBin>,
    /// Non-zero (src, dst) cells; `None` when the matrix was not collected.
    pub matrix: Option<Vec<MatrixEntry>>,
    pub wan_links: Vec<WanLinkStats>,
    pub seed: u64,
    /// Rank programs only: time per phase per rank, and counts per primitive per rank.
    pub phases: Vec<PhaseStats>,
    pub primitives: Vec<PrimitiveCount>,
    /// Rank programs run with measured compute: per rank, what each piece of work
    /// cost, in order (empty otherwise; see `RunOptions::recorded_work`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub measured_work: Vec<Vec<Time>>,
    /// What a topology's links carried (`[topology]` runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<crate::fabric::LinkReport>,
    /// Operations whose outcome can depend on timing (absent when there were none).
    #[serde(skip_serializing_if = "TimingDependence::is_none")]
    pub timing_dependence: TimingDependence,
}

enum Matrix {
    Off,
    Dense { n: usize, cells: Vec<(u64, u64)> },
    Sparse(HashMap<(u32, u32), (u64, u64)>),
}

/// Counters filled in by the engine while it runs.
pub(crate) struct Recorder {
    pub ranks: Vec<RankStats>,
    pub control_messages: u64,
    hist: [(u64, u64); 65],
    matrix: Matrix,
    /// Per directed wide-area link (from·C + to): messages, bytes, busy time.
    pub wan: Vec<(u64, u64, Time)>,
    nclusters: usize,
    /// A byte total passed 2^64 − 1 (it saturated): the run must not report it.
    pub bytes_overflowed: bool,
    /// Receives posted with a wildcard source or tag.
    pub wildcard_receives: u64,
}

/// Add `bytes` to the byte total `total`; a sum past 2^64 − 1 saturates and sets
/// `overflowed`, so that the run stops instead of reporting a wrapped total.
#[inline]
pub(crate) fn add_bytes(total: &mut u64, bytes: u64, overflowed: &mut bool) {
    match total.checked_add(bytes) {
        Some(sum) => *total = sum,
        None => {
            *total = u64::MAX;
            *overflowed = true;
        }
    }
}

impl Recorder {
    pub fn new(nranks: usize, nclusters: usize, matrix: bool) -> Self {
        let matrix = if !matrix {
            Matrix::Off
        } else if nranks <= DENSE_MATRIX_MAX_RANKS {
            Matrix::Dense { n: nranks, cells: vec![(0, 0); nranks * nranks] }
        } else {
            Matrix::Sparse(HashMap::new())
        };
        Recorder {
            ranks: (0..nranks as u32).map(|rank| RankStats { rank, ..Default::default() }).collect(),
            control_messages: 0,
            hist: [(0, 0); 65],
            matrix,
            wan: if nclusters > 1 { vec![(0, 0, 0); nclusters * nclusters] } else { Vec::new() },
            nclusters,
            bytes_overflowed: false,
            wildcard_receives: 0,
        }
    }

    /// An application message of `bytes` leaves `src` for `dst`.
    #[inline]
    pub fn sent(&mut self, src: u32, dst: u32, bytes: u64) {
        let over = &mut self.bytes_overflowed;
        let r = &mut self.ranks[src as usize];
        r.sent_messages += 1;
        add_bytes(&mut r.sent_bytes, bytes, over);
        let bin = (u64::BITS - bytes.leading_zeros()) as usize;
        self.hist[bin].0 += 1;
        add_bytes(&mut self.hist[bin].1, bytes, over);
        let cell = match &mut self.matrix {
            Matrix::Off => return,
            Matrix::Dense { n, cells } => &mut cells[src as usize * *n + dst as usize],
            Matrix::Sparse(map) => map.entry((src, dst)).or_insert((0, 0)),
        };
        cell.0 += 1;
        add_bytes(&mut cell.1, bytes, over);
    }

    #[inline]
    pub fn received(&mut self, dst: u32, bytes: u64) {
        let r = &mut self.ranks[dst as usize];
        r.recv_messages += 1;
        add_bytes(&mut r.recv_bytes, bytes, &mut self.bytes_overflowed);
    }

    pub fn finish(mut self, cpu_end: impl Fn(u32) -> Time, events: u64, seed: u64) -> RunResult {
        for r in &mut self.ranks {
            r.end_ps = cpu_end(r.rank);
            r.wait_ps = r.end_ps.saturating_sub(r.compute_ps + r.overhead_ps + r.noise_ps);
        }
        let histogram = self
            .hist
            .iter()
            .enumerate()
            .filter(|(_, &(m, _))| m > 0)
            .map(|(i, &(messages, bytes))| HistogramBin {
                lo_bytes: if i == 0 { 0 } else { 1u64 << (i - 1) },
                hi_bytes: if i == 0 { 0 } else { (1u64 << (i - 1)).wrapping_mul(2).wrapping_sub(1) },
                messages,
                bytes,
            })
            .collect();
        let matrix = match self.matrix {
            Matrix::Off => None,
            Matrix::Dense { n, cells } => Some(
                cells
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.0 > 0)
                    .map(|(i, &(messages, bytes))| MatrixEntry {
                        src: (i / n) as u32,
                        dst: (i % n) as u32,
                        messages,
                        bytes,
                    })
                    .collect(),
            ),
            Matrix::Sparse(map) => {
                let mut v: Vec<_> = map
                    .into_iter()
                    .map(|((src, dst), (messages, bytes))| MatrixEntry { src, dst, messages, bytes })
                    .collect();
                v.sort_by_key(|e| (e.src, e.dst));
                Some(v)
            }
        };
        let c = self.nclusters;
        let wan_links = self
            .wan
            .iter()
            .enumerate()
            .filter(|(_, w)| w.0 > 0)
            .map(|(i, &(messages, bytes, busy_ps))| WanLinkStats {
                from_cluster: i / c,
                to_cluster: i % c,
                messages,
                bytes,
                busy_ps,
            })
            .collect();
        let messages = self.ranks.iter().map(|r| r.sent_messages).sum();
        let bytes = self.ranks.iter().map(|r| r.sent_bytes).sum();
        RunResult {
            makespan_ps: self.ranks.iter().map(|r| r.end_ps).max().unwrap_or(0),
            ranks: self.ranks,
            messages,
            bytes,
            control_messages: self.control_messages,
            events,
            histogram,
            matrix,
            wan_links,
            seed,
            phases: Vec::new(),
            primitives: Vec::new(),
            measured_work: Vec::new(),
            links: None,
            timing_dependence: TimingDependence { wildcard_receives: self.wildcard_receives, tests: 0 },
        }
    }
}
