//! Runs a [`Schedule`] on the engine core: counts down each operation's
//! predecessors and enables it when they reach zero.

use super::{edge_target, OpId, OpKind, Schedule};
use crate::engine::{Core, Frontend, OpDesc, Progress, RunOptions};
use crate::error::Result;
use crate::platform::Platform;
use crate::profile::RunResult;
use std::collections::BTreeMap;

/// Marks a finished op in `remaining` (no op has this many predecessors).
const DONE: u32 = u32::MAX;

pub struct ScheduleFrontend<'a> {
    s: &'a Schedule,
    /// Predecessors not yet satisfied, or `DONE`.
    remaining: Vec<u32>,
    done: usize,
}

impl<'a> ScheduleFrontend<'a> {
    pub fn new(s: &'a Schedule) -> Self {
        ScheduleFrontend { s, remaining: s.indegrees(), done: 0 }
    }

    /// Satisfy the edges of `id` of one kind (start edges or done edges).
    #[inline]
    fn release(&mut self, core: &mut Core, id: OpId, on_start: bool) {
        let (a, b) = (self.s.edge_start[id as usize] as usize, self.s.edge_start[id as usize + 1] as usize);
        for i in a..b {
            let (to, is_start) = edge_target(self.s.edges[i]);
            if is_start == on_start {
                let r = &mut self.remaining[to as usize];
                *r -= 1;
                if *r == 0 {
                    let d = self.op(to);
                    core.enable(to, &d);
                }
            }
        }
    }
}

impl Frontend for ScheduleFrontend<'_> {
    #[inline]
    fn op(&self, id: OpId) -> OpDesc {
        self.s.op(id)
    }

    #[inline]
    fn started(&mut self, core: &mut Core, id: OpId) {
        if self.s.has_start_edges {
            self.release(core, id, true);
        }
    }

    #[inline]
    fn done(&mut self, core: &mut Core, id: OpId) {
        self.remaining[id as usize] = DONE;
        self.done += 1;
        self.release(core, id, false);
    }

    fn describe(&self, id: OpId) -> String {
        format!("rank {}'s `{}`", self.s.op(id).rank, self.s.describe(id))
    }

    fn completed(&self) -> (u64, u64) {
        (self.done as u64, self.s.num_ops() as u64)
    }

    fn stuck(&self, core: &Core) -> Option<String> {
        if self.done == self.s.num_ops() {
            return None;
        }
        // Per stuck rank: the operations that were under way (posted receives,
        // sends waiting for their rendezvous), and how many wait behind them.
        let mut per_rank: BTreeMap<u32, (Vec<OpId>, usize)> = BTreeMap::new();
        for (i, &rem) in self.remaining.iter().enumerate() {
            if rem == DONE {
                continue;
            }
            let e = per_rank.entry(self.s.ops[i].rank).or_default();
            if rem == 0 {
                e.0.push(i as OpId);
            } else {
                e.1 += 1;
            }
        }
        let stuck_ranks = per_rank.len();
        let mut lines = Vec::new();
        for (&rank, (active, blocked)) in per_rank.iter().take(6) {
            let posted: Vec<OpId> = core.posted_ops(rank).collect();
            let what: Vec<String> = active
                .iter()
                .take(2)
                .map(|&op| {
                    let why = match self.s.kind(op) {
                        OpKind::Recv if posted.contains(&op) => "no matching message",
                        OpKind::Send => "its receiver never matched it",
                        _ => "not started",
                    };
                    format!("`{}` ({why})", self.s.describe(op))
                })
                .collect();
            let mut line = if what.is_empty() {
                format!("rank {rank} has")
            } else {
                format!("rank {rank} waits in {}", what.join(", "))
            };
            if active.len() > 2 {
                line += &format!(" and {} more", active.len() - 2);
            }
            if *blocked > 0 {
                line += &format!(", {blocked} op(s) behind");
            }
            lines.push(line);
        }
        let more = if stuck_ranks > 6 { format!("; and {} more rank(s)", stuck_ranks - 6) } else { String::new() };
        Some(format!("deadlock: {stuck_ranks} rank(s) cannot finish: {}{more}", lines.join("; ")))
    }
}

/// Run a schedule on a platform.
pub fn run_schedule(s: &Schedule, platform: &Platform, opts: &RunOptions) -> Result<RunResult> {
    run_schedule_with_progress(s, platform, opts, &mut |_| true)
}

/// Run a schedule, reporting progress (see [`Core::run_with_progress`]).
pub fn run_schedule_with_progress(
    s: &Schedule,
    platform: &Platform,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<RunResult> {
    let mut core = Core::new(platform, s.num_ranks, s.ncpus, s.nnics, opts)?;
    let mut front = ScheduleFrontend::new(s);
    // Operations without predecessors start at time 0, in creation order.
    for id in 0..s.num_ops() as OpId {
        if front.remaining[id as usize] == 0 {
            let d = front.op(id);
            core.enable(id, &d);
        }
    }
    core.run_with_progress(&mut front, progress)
}
