//! Runs a [`Schedule`] on the engine core: counts down each operation's
//! predecessors and enables it when they reach zero.

use super::countdown::Countdown;
use super::{OpId, OpKind, Schedule};
use crate::engine::observe::Observer;
use crate::engine::{Core, Frontend, OpDesc, Progress, RunOptions};
use crate::error::Result;
use crate::platform::Platform;
use crate::profile::RunResult;
use std::collections::BTreeMap;

pub struct ScheduleFrontend<'a> {
    s: &'a Schedule,
    /// Predecessors not yet satisfied, or done.
    remaining: Countdown,
    done: usize,
}

impl<'a> ScheduleFrontend<'a> {
    pub fn new(s: &'a Schedule) -> Self {
        ScheduleFrontend { s, remaining: Countdown::new(s), done: 0 }
    }

    /// Enable the operations without predecessors: they start at time 0, in creation order.
    pub fn enable_roots<O: Observer + ?Sized>(&mut self, core: &mut Core<O>) {
        for id in 0..self.s.num_ops() as OpId {
            if self.remaining.left(id) == Some(0) {
                let d = self.s.op(id);
                core.enable(id, &d);
            }
        }
    }

    /// Satisfy the edges of `id` of one kind (start edges or done edges).
    #[inline]
    fn release<O: Observer + ?Sized>(&mut self, core: &mut Core<O>, id: OpId, on_start: bool) {
        let (a, b) = self.s.edges.range(id);
        for at in a..b {
            let (to, is_start) = self.s.edges.target(id, at);
            if is_start == on_start && self.remaining.satisfy(to) {
                let d = self.s.op(to);
                core.enable(to, &d);
            }
        }
    }
}

/// For a core of any observer type: a schedule's recording calls its recorder directly.
impl<O: Observer + ?Sized> Frontend<O> for ScheduleFrontend<'_> {
    #[inline]
    fn op(&self, id: OpId) -> OpDesc {
        self.s.op(id)
    }

    #[inline]
    fn started(&mut self, core: &mut Core<O>, id: OpId) {
        if self.s.edges.has_start_edges() {
            self.release(core, id, true);
        }
    }

    #[inline]
    fn prefetch(&self, id: OpId) {
        self.s.ops.prefetch(id);
    }

    #[inline]
    fn done(&mut self, core: &mut Core<O>, id: OpId) {
        self.remaining.finish(id);
        self.done += 1;
        self.release(core, id, false);
    }

    fn describe(&self, id: OpId) -> String {
        format!("rank {}'s `{}`", self.s.op(id).rank, self.s.describe(id))
    }

    fn completed(&self) -> (u64, u64) {
        (self.done as u64, self.s.num_ops() as u64)
    }

    fn stuck(&self, core: &Core<O>) -> Option<String> {
        if self.done == self.s.num_ops() {
            return None;
        }
        // Per stuck rank: the operations that were under way (posted receives,
        // sends waiting for their rendezvous), and how many wait behind them.
        let mut per_rank: BTreeMap<u32, (Vec<OpId>, usize)> = BTreeMap::new();
        for i in 0..self.s.num_ops() as OpId {
            let Some(rem) = self.remaining.left(i) else { continue };
            let e = per_rank.entry(self.s.ops.rank(i)).or_default();
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
    let mut core: Core = Core::new(platform, s.num_ranks, s.ncpus, s.nnics, opts)?;
    let mut front = ScheduleFrontend::new(s);
    front.enable_roots(&mut core);
    core.run_with_progress(&mut front, progress)
}
