//! The critical path of a recorded run: the chain of times that sets its end, from
//! the end back to the start, and what its time was spent on.

use crate::analysis::passes::at_base::Choices;
use crate::analysis::prices::price::{bytes_time, compute_time};
use crate::analysis::record::graph::{kind, Edge, ExecGraph};
use crate::analysis::record::params::Point;
use crate::engine::{OpId, OpKind};
use std::collections::BTreeMap;

/// What a stretch of the critical path was spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    Compute,
    /// o, O, g, G, L of level 0 (node) or 1 (cluster).
    Overhead(u8),
    OverheadPerByte(u8),
    Gap(u8),
    GapPerByte(u8),
    Latency(u8),
    /// A wide-area link's latency, and its time for the message's own bytes.
    WanLatency,
    WanBytes,
    /// A topology route's link latencies.
    RouteLatency,
    /// A topology route's links moving the message's bytes alone, beyond its NIC's
    /// `w·G` (a link slower than the NIC).
    LinkTransmit,
    /// Waiting behind earlier messages on a busy link: a wide-area link, or a
    /// topology's links shared with other messages.
    LinkQueue,
    Disk,
    /// CPU detours and latency jitter.
    Noise,
}

impl Part {
    pub fn name(self) -> String {
        let level = |l: u8| if l == 0 { "node." } else { "" };
        match self {
            Part::Compute => "compute".into(),
            Part::Overhead(l) => format!("{}o", level(l)),
            Part::OverheadPerByte(l) => format!("{}O", level(l)),
            Part::Gap(l) => format!("{}g", level(l)),
            Part::GapPerByte(l) => format!("{}G", level(l)),
            Part::Latency(l) => format!("{}L", level(l)),
            Part::WanLatency => "wan.L".into(),
            Part::WanBytes => "wan.G".into(),
            Part::RouteLatency => "route latency".into(),
            Part::LinkTransmit => "link transmission".into(),
            Part::LinkQueue => "link queueing".into(),
            Part::Disk => "disk".into(),
            Part::Noise => "noise".into(),
        }
    }
}

/// One operation on a critical path.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub op: OpId,
    pub rank: u32,
    pub kind: OpKind,
    /// The step is the arrival of `op`'s message on `rank`.
    pub arrival: bool,
    /// The latest time (ps) the path is in it.
    pub until_ps: f64,
}

/// The critical path at one point.
#[derive(Clone, Debug, Default)]
pub struct CriticalPath {
    /// ps per part; they add up to the makespan.
    pub parts: BTreeMap<Part, f64>,
    /// The operations it passes through, from the first to the last.
    pub ops: Vec<Step>,
    /// ps the path spent waiting for a busy NIC (inside its g and G parts).
    pub nic_wait: f64,
    /// Its link queueing by class of links ([`WIDE_AREA`]: the wide-area links); they
    /// add up to the [`Part::LinkQueue`] part.
    pub link_queue_by_class: BTreeMap<u16, f64>,
}

/// The class of the wide-area links in [`CriticalPath::link_queue_by_class`] (a
/// topology's classes are its own, numbered from 0).
pub const WIDE_AREA: u16 = u16::MAX;

/// Nodes a walk back from the end asks the cache for ahead of it.
const AHEAD: usize = 256;

/// The predecessors' list asked for ahead of a walk back from the end, every line
/// once: the walk reads it downwards a step of a few lines at a time (radix: one
/// node in 28), which the CPU's own prefetcher does not follow, and each step waited
/// for memory there (two thirds of the walk's time).
struct Ahead {
    /// The lowest predecessor asked for so far.
    pred: usize,
}

impl Ahead {
    fn from(g: &ExecGraph) -> Ahead {
        Ahead { pred: g.preds.len() }
    }

    /// The walk is at node `v`: ask for the predecessors down to those of `AHEAD` nodes before it.
    #[inline]
    fn to(&mut self, g: &ExecGraph, v: usize) {
        const LINE: usize = 64 / std::mem::size_of::<u32>();
        let target = g.nodes.first_pred(v.saturating_sub(AHEAD));
        while self.pred > target + LINE {
            self.pred -= LINE;
            prefetch(&g.preds[self.pred]);
        }
    }
}

/// A hint to the cache to load `x`.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing the program sees.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((x as *const T).cast::<i8>())
    }
}

impl ExecGraph {
    /// Walk back from the end along the predecessor that set each time (the first
    /// recorded of tied ones).
    pub fn critical_path(&self, p: &Point, times: &[f64]) -> CriticalPath {
        let mut cp = CriticalPath::default();
        let mut v = self.sink as usize;
        let mut via = Edge::Event;
        loop {
            self.attribute(v, p, via, &mut cp);
            let n = self.node(v);
            let op = n.op;
            if op != OpId::MAX && cp.ops.last().map(|s| (s.op, s.arrival)) != Some((op, n.arrival)) {
                cp.ops.push(Step { op, rank: n.rank, kind: n.op_kind, arrival: n.arrival, until_ps: times[v] });
            }
            let (preds, edges) = self.preds_of(v);
            let Some(i) = (0..preds.len())
                .max_by(|&a, &b| times[preds[a] as usize].total_cmp(&times[preds[b] as usize]).then(b.cmp(&a)))
            else {
                break;
            };
            v = preds[i] as usize;
            via = edges[i];
        }
        cp.ops.reverse();
        cp
    }

    /// [`ExecGraph::critical_path`] from the predecessor the pass at `p` found to set
    /// each time ([`ExecGraph::at_base`]), and the makespan there: no time kept per
    /// node. Times are whole ps, so each one back is the one after less its cost, exactly.
    pub fn critical_path_of(&self, p: &Point, choices: &Choices, makespan: f64) -> CriticalPath {
        let mut cp = CriticalPath::default();
        let (mut v, mut via, mut t) = (self.sink as usize, Edge::Event, makespan);
        let mut ahead = Ahead::from(self);
        loop {
            self.attribute(v, p, via, &mut cp);
            let n = self.node(v);
            let op = n.op;
            if op != OpId::MAX && cp.ops.last().map(|s| (s.op, s.arrival)) != Some((op, n.arrival)) {
                cp.ops.push(Step { op, rank: n.rank, kind: n.op_kind, arrival: n.arrival, until_ps: t });
            }
            if self.nodes.pred_count(v) == 0 {
                break;
            }
            t -= self.cost(v, p);
            (v, via) = self.pred(v, choices.of(v));
            ahead.to(self, v);
        }
        cp.ops.reverse();
        cp
    }

    /// Add node `v`'s own cost at `p` to the parts; `via` is how the path left it.
    fn attribute(&self, v: usize, p: &Point, via: Edge, cp: &mut CriticalPath) {
        let n = &self.node(v);
        let lv = if self.node_level { n.level } else { 1 };
        let l = &p.levels[lv as usize];
        let b = n.bytes as f64;
        let mut add = |part: Part, t: f64| {
            if t != 0.0 {
                *cp.parts.entry(part).or_insert(0.0) += t;
            }
        };
        match n.kind {
            kind::COMPUTE => add(Part::Compute, compute_time(b, p.cpu_time)),
            kind::SEND_CPU | kind::RECV_CPU_NO_G => {
                add(Part::Overhead(lv), l.overhead);
                add(Part::OverheadPerByte(lv), bytes_time(b, l.overhead_per_byte));
            }
            kind::RECV_CPU => {
                add(Part::Overhead(lv), l.overhead);
                let (o, g) = (bytes_time(b, l.overhead_per_byte), bytes_time(b, l.gap_per_byte));
                if o >= g {
                    add(Part::OverheadPerByte(lv), o);
                } else {
                    add(Part::GapPerByte(lv), g);
                }
            }
            kind::GAP => {
                add(Part::Gap(lv), l.gap);
                add(Part::GapPerByte(lv), bytes_time(b, l.gap_per_byte));
                if via == Edge::Nic {
                    cp.nic_wait += l.gap + bytes_time(b, l.gap_per_byte);
                }
            }
            kind::WIRE => {
                add(Part::Overhead(lv), l.overhead);
                add(Part::Latency(lv), l.latency);
            }
            kind::TO_LINK => add(Part::Overhead(lv), l.overhead),
            kind::LINK_BYTES => {
                let t = bytes_time(b, p.wan_per_byte);
                add(if via == Edge::Link { Part::LinkQueue } else { Part::WanBytes }, t);
                if via == Edge::Link && t != 0.0 {
                    *cp.link_queue_by_class.entry(WIDE_AREA).or_insert(0.0) += t;
                }
            }
            kind::LINK_LATENCY => add(Part::WanLatency, p.wan_latency),
            kind::FIXED => add(Part::Disk, b),
            kind::ROUTE => add(Part::RouteLatency, b),
            kind::LINK_TRANSMIT => add(Part::LinkTransmit, b),
            kind::LINK_WAIT => {
                add(Part::LinkQueue, b);
                let i = self.link_wait_class.partition_point(|&(node, _)| (node as usize) < v);
                if let Some(&(node, class)) = self.link_wait_class.get(i).filter(|_| b != 0.0) {
                    debug_assert_eq!(node as usize, v, "every link wait has its class");
                    *cp.link_queue_by_class.entry(class).or_insert(0.0) += b;
                }
            }
            _ => {}
        }
        if let Some(&e) = self.extra.get(&(v as u32)) {
            add(Part::Noise, e as f64);
        }
    }
}
