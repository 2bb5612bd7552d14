//! The schedule a rank program issued, recorded as it ran: per rank, in program
//! order, each op it issued (its descriptor), each wait (the ops whose completion the
//! program awaited before going on), each `store_sync` and each phase mark. A program
//! whose ops cannot depend on timing issues the same schedule at any network
//! parameters, so [`crate::program::replay`] can run it again at other parameters
//! without the program, and get what the program would.

use crate::engine::{OpDesc, OpId, OpKind};
use crate::profile::PrimitiveCount;

/// One step of a rank's program, in program order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Issue the rank's next `n` ops.
    Issue(u32),
    /// Go on once these ops (`awaited[start..start + len]`, rank-local indexes) are done.
    Await { start: u32, len: u32 },
    /// Go on once every store and active message the rank issued has been processed.
    Sync,
    /// Enter the phase named `names[i]`.
    Mark(u32),
}

/// What one rank issued and waited for.
#[derive(Clone, Debug, Default)]
pub(crate) struct RankSchedule {
    pub steps: Vec<Step>,
    /// While recording: the rank's ops (moved into `RecordedSchedule::ops` at the end).
    ops: Vec<OpDesc>,
    pub awaited: Vec<u32>,
}

/// A rank program's recorded schedule, with what the program observed of its
/// platform: a platform that shows it something else may change what it issues.
#[derive(Clone, Debug)]
pub struct RecordedSchedule {
    pub(crate) ranks: Vec<RankSchedule>,
    /// Every rank's ops, one rank after another: rank r's op i is `ops[base[r] + i]`.
    pub(crate) ops: Vec<OpDesc>,
    pub(crate) base: Vec<OpId>,
    pub(crate) names: Vec<String>,
    pub(crate) primitives: Vec<PrimitiveCount>,
    /// What the program could read of its platform: the eager limit, ranks per cluster.
    pub(crate) eager_limit: u64,
    pub(crate) cluster_sizes: Vec<u32>,
}

impl RecordedSchedule {
    pub fn num_ranks(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// Operations in the schedule.
    pub fn num_ops(&self) -> u64 {
        self.ops.len() as u64
    }

    /// Bytes the schedule holds (about), for bounding how many a process keeps.
    pub fn bytes(&self) -> u64 {
        let ranks: usize =
            self.ranks.iter().map(|r| r.steps.len() * std::mem::size_of::<Step>() + r.awaited.len() * 4).sum();
        (ranks + self.ops.len() * std::mem::size_of::<OpDesc>()) as u64
    }

    /// Whether a program that read `eager_limit` and `cluster_sizes` from its platform
    /// saw what the recorded run saw.
    pub fn fits(&self, eager_limit: u64, cluster_sizes: &[u32]) -> bool {
        self.eager_limit == eager_limit && self.cluster_sizes == cluster_sizes
    }
}

/// One step of a rank's recorded program, as an exporter reads it (phase marks left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramStep<'a> {
    /// The rank issued these ops, in order.
    Issue(&'a [OpDesc]),
    /// It went on once these of its ops were done (indexes among its ops, in issue order).
    Await(&'a [u32]),
    /// It went on once its stores and active messages were processed.
    Sync,
}

impl RecordedSchedule {
    /// Rank `rank`'s program, step by step.
    pub fn rank_steps(&self, rank: u32) -> impl Iterator<Item = ProgramStep<'_>> + '_ {
        let r = &self.ranks[rank as usize];
        let first = self.base[rank as usize] as usize;
        let end = self.base.get(rank as usize + 1).map_or(self.ops.len(), |&b| b as usize);
        let ops = &self.ops[first..end];
        let mut next = 0usize;
        r.steps.iter().filter_map(move |step| match *step {
            Step::Issue(n) => {
                let issued = &ops[next..next + n as usize];
                next += n as usize;
                Some(ProgramStep::Issue(issued))
            }
            Step::Await { start, len } => Some(ProgramStep::Await(&r.awaited[start as usize..(start + len) as usize])),
            Step::Sync => Some(ProgramStep::Sync),
            Step::Mark(_) => None,
        })
    }
}

/// The recording in progress, kept by the simulator's shared op table.
#[derive(Default)]
pub(crate) struct IssueLog {
    ranks: Vec<RankSchedule>,
    names: Vec<String>,
    /// Rank-local index of the op each slot holds now (slots are recycled).
    local: Vec<u32>,
    /// Times a rank read its clock: a program that does can act on timing.
    pub clock_reads: u64,
    /// Active messages sent: their handlers run in arrival order, and a handler that
    /// changes what its rank does next (murphi's next frontier, in arrival order)
    /// makes the program's ops depend on timing.
    pub active_messages: u64,
}

impl IssueLog {
    pub fn new(ranks: u32) -> Self {
        IssueLog { ranks: vec![RankSchedule::default(); ranks as usize], ..Default::default() }
    }

    #[inline]
    pub fn issued(&mut self, id: OpId, desc: &OpDesc) {
        let r = &mut self.ranks[desc.rank as usize];
        let index = r.ops.len() as u32;
        r.ops.push(*desc);
        match r.steps.last_mut() {
            Some(Step::Issue(n)) => *n += 1,
            _ => r.steps.push(Step::Issue(1)),
        }
        let slot = id as usize;
        if self.local.len() <= slot {
            self.local.resize(slot + 1, 0);
        }
        self.local[slot] = index;
    }

    /// `rank` waits for the ops now in these slots.
    pub fn awaits(&mut self, rank: u32, ops: &[OpId]) {
        let r = &mut self.ranks[rank as usize];
        let start = r.awaited.len() as u32;
        r.awaited.extend(ops.iter().map(|&id| self.local[id as usize]));
        r.steps.push(Step::Await { start, len: ops.len() as u32 });
    }

    pub fn syncs(&mut self, rank: u32) {
        self.ranks[rank as usize].steps.push(Step::Sync);
    }

    pub fn marks(&mut self, rank: u32, name: &str) {
        let i = match self.names.iter().position(|n| n == name) {
            Some(i) => i,
            None => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
        };
        self.ranks[rank as usize].steps.push(Step::Mark(i as u32));
    }

    pub fn finish(
        mut self,
        primitives: Vec<PrimitiveCount>,
        eager_limit: u64,
        cluster_sizes: Vec<u32>,
    ) -> RecordedSchedule {
        let mut base = Vec::with_capacity(self.ranks.len());
        let mut ops = Vec::with_capacity(self.ranks.iter().map(|r| r.ops.len()).sum());
        for r in &mut self.ranks {
            base.push(ops.len() as OpId);
            ops.append(&mut r.ops);
        }
        RecordedSchedule { ranks: self.ranks, ops, base, names: self.names, primitives, eager_limit, cluster_sizes }
    }
}

/// Whether an op of this kind counts among its rank's unsynchronized stores.
#[inline]
pub(crate) fn is_store(kind: OpKind) -> bool {
    kind == OpKind::Store
}
