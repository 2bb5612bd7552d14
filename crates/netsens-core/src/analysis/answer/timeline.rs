//! The run as ranks × time, from its record: each rank's CPU busy with computation
//! or with overhead (the rest is waiting), its messages from the sender's start to
//! the arrival, and the critical path over them; only the ranks and the time window
//! asked for, so a figure of a few hundred ranks stays small.

use crate::analysis::record::graph::{kind, Edge, ExecGraph};
use crate::analysis::record::params::Point;
use serde_json::{json, Value};

/// Which part of the run to draw.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// Ranks `first..=last`.
    pub ranks: (u32, u32),
    /// ps.
    pub time: (f64, f64),
    /// Intervals and messages kept at most (each kind); the rest are counted.
    pub max_items: usize,
}

impl ExecGraph {
    /// Intervals `[rank, start, end]` of computation and of overhead, messages
    /// `[src, sent, dst, arrived]` and the critical path's `[rank, time]` points in
    /// `w`, as JSON (ps).
    pub fn timeline(&self, p: &Point, times: &[f64], w: &Window) -> Value {
        let in_ranks = |r: u32| r >= w.ranks.0 && r <= w.ranks.1;
        let overlaps = |a: f64, b: f64| b >= w.time.0 && a <= w.time.1;
        let (mut compute, mut overhead, mut messages) = (Vec::new(), Vec::new(), Vec::new());
        let mut dropped = 0usize;
        for v in 0..self.nodes.len() {
            let list = match self.nodes.kind(v) {
                kind::COMPUTE => &mut compute,
                kind::SEND_CPU | kind::RECV_CPU | kind::RECV_CPU_NO_G => &mut overhead,
                _ => continue,
            };
            let n = self.node(v);
            let end = times[v];
            let start = end - self.cost(v, p);
            if in_ranks(n.rank) && overlaps(start, end) && end > start {
                if list.len() < w.max_items {
                    list.push(json!([n.rank, start, end]));
                } else {
                    dropped += 1;
                }
            }
            if matches!(n.kind, kind::RECV_CPU | kind::RECV_CPU_NO_G) {
                if let Some((src, sent)) = self.sender(v, p, times) {
                    let keep = (in_ranks(src) || in_ranks(n.rank)) && overlaps(sent, start);
                    if keep && messages.len() < w.max_items {
                        messages.push(json!([src, sent, n.rank, start]));
                    } else if keep {
                        dropped += 1;
                    }
                }
            }
        }
        let mut critical = Vec::new();
        let mut v = self.sink as usize;
        loop {
            let n = self.node(v);
            if n.op != crate::engine::OpId::MAX && in_ranks(n.rank) && overlaps(times[v], times[v]) {
                critical.push(json!([n.rank, times[v]]));
            }
            let (preds, _) = self.preds_of(v);
            let Some(&q) = preds.iter().max_by(|&&a, &&b| times[a as usize].total_cmp(&times[b as usize])) else {
                break;
            };
            v = q as usize;
        }
        critical.reverse();
        json!({
            "ranks": [w.ranks.0, w.ranks.1], "window_ps": [w.time.0, w.time.1],
            "compute": compute, "overhead": overhead, "messages": messages, "critical": critical,
            "left_out": dropped,
        })
    }

    /// The rank and start time of the send whose arrival node `v` processes: back
    /// through its event edges to the message's last leg (o + L, or a link's L_w).
    fn sender(&self, v: usize, p: &Point, times: &[f64]) -> Option<(u32, f64)> {
        let mut u = v;
        for _ in 0..8 {
            let (preds, edges) = self.preds_of(u);
            let i = edges.iter().position(|&e| e == Edge::Event)?;
            u = preds[i] as usize;
            let n = self.node(u);
            if n.kind == kind::WIRE || n.kind == kind::TO_LINK {
                return Some((n.rank, times[u] - self.cost(u, p)));
            }
        }
        None
    }
}
