//! Running a recorded schedule (see [`super::recorded`]) without its program: each
//! rank walks its steps as the program did — issuing ops, stopping at a wait until
//! the ops it awaited are done, at a `store_sync` until its stores are processed —
//! and hands the ops it issued to the core at the same moments the program front end
//! would. The core decides every queue order again, so at any network parameters the
//! run is the program's own, to the picosecond, as long as the program's ops do not
//! depend on timing (what recording checked).

use super::phases::PhaseBook;
use super::recorded::{is_store, RecordedSchedule, Step};
use crate::engine::{Core, Frontend, OpDesc, OpId, Progress, RunOptions};
use crate::error::Result;
use crate::platform::Platform;
use crate::profile::RunResult;
use crate::time::Time;

struct ReplayFrontend<'a> {
    s: &'a RecordedSchedule,
    /// Per rank: its next step, and its next op not yet issued.
    step: Vec<u32>,
    next_op: Vec<u32>,
    /// Per op: issued and done; a rank blocked in a wait counts the awaited ops left.
    done: Vec<bool>,
    awaited: Vec<bool>,
    left: Vec<u32>,
    /// Per rank: stores not yet processed, and whether it waits in `store_sync`.
    unsynced: Vec<u64>,
    sync_waiting: Vec<bool>,
    issued: Vec<OpId>,
    marks: Vec<(u32, u32)>,
    phases: PhaseBook,
    done_ops: u64,
    issued_ops: u64,
}

impl ReplayFrontend<'_> {
    #[inline]
    fn desc(&self, id: OpId) -> &OpDesc {
        &self.s.ops[id as usize]
    }

    /// Walk `rank`'s steps until it blocks or ends, then hand its ops to the core.
    fn poll_rank(&mut self, core: &mut Core, rank: u32) {
        let r = rank as usize;
        let sched = &self.s.ranks[r];
        while let Some(&step) = sched.steps.get(self.step[r] as usize) {
            match step {
                Step::Issue(n) => {
                    for _ in 0..n {
                        let id = self.s.base[r] + self.next_op[r];
                        self.next_op[r] += 1;
                        if is_store(self.s.ops[id as usize].kind) {
                            self.unsynced[r] += 1;
                        }
                        self.issued.push(id);
                    }
                }
                Step::Await { start, len } => {
                    let mut left = 0;
                    for &i in &sched.awaited[start as usize..(start + len) as usize] {
                        let id = self.s.base[r] + i;
                        if !self.done[id as usize] {
                            self.awaited[id as usize] = true;
                            left += 1;
                        }
                    }
                    if left > 0 {
                        self.left[r] = left;
                        self.step[r] += 1;
                        break;
                    }
                }
                Step::Sync => {
                    if self.unsynced[r] > 0 {
                        self.sync_waiting[r] = true;
                        self.step[r] += 1;
                        break;
                    }
                }
                Step::Mark(i) => self.marks.push((rank, i)),
            }
            self.step[r] += 1;
        }
        self.flush(core);
    }

    fn flush(&mut self, core: &mut Core) {
        self.issued_ops += self.issued.len() as u64;
        for id in std::mem::take(&mut self.issued) {
            let d = *self.desc(id);
            core.enable(id, &d);
        }
        for (rank, i) in std::mem::take(&mut self.marks) {
            self.phases.enter(core, rank, self.s.names[i as usize].clone());
        }
    }

    fn finished(&self, rank: usize) -> bool {
        self.step[rank] as usize >= self.s.ranks[rank].steps.len() && self.left[rank] == 0 && !self.sync_waiting[rank]
    }
}

impl Frontend for ReplayFrontend<'_> {
    fn op(&self, id: OpId) -> OpDesc {
        *self.desc(id)
    }

    fn started(&mut self, _core: &mut Core, _id: OpId) {}

    fn done(&mut self, core: &mut Core, id: OpId) {
        self.done[id as usize] = true;
        self.done_ops += 1;
        if std::mem::take(&mut self.awaited[id as usize]) {
            let rank = self.desc(id).rank;
            let left = &mut self.left[rank as usize];
            *left -= 1;
            if *left == 0 {
                self.poll_rank(core, rank);
            }
        }
    }

    /// A store, put or get is processed by its target (a recorded schedule has no
    /// active messages, so no handler charges compute).
    fn delivered(&mut self, core: &mut Core, op: OpId) -> Time {
        let d = *self.desc(op);
        if is_store(d.kind) {
            let r = d.rank as usize;
            self.unsynced[r] -= 1;
            if self.unsynced[r] == 0 && std::mem::take(&mut self.sync_waiting[r]) {
                self.poll_rank(core, d.rank);
            }
        }
        0
    }

    fn completed(&self) -> (u64, u64) {
        (self.done_ops, self.issued_ops)
    }

    fn stuck(&self, _core: &Core) -> Option<String> {
        let waiting: Vec<usize> = (0..self.s.ranks.len()).filter(|&r| !self.finished(r)).collect();
        (!waiting.is_empty()).then(|| {
            format!(
                "deadlock: {} rank(s) of the recorded schedule cannot finish (first: rank {})",
                waiting.len(),
                waiting[0]
            )
        })
    }
}

/// Run `schedule` on `platform`: the result the program that issued it gets there,
/// with its phases and primitive counts. `None` when the platform shows the program
/// something its recorded run did not see (its eager limit, its ranks per cluster),
/// so that the program might issue other ops: run the program instead.
pub fn replay_schedule(
    platform: &Platform,
    schedule: &RecordedSchedule,
    opts: &RunOptions,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<Option<RunResult>> {
    let ranks = schedule.num_ranks();
    let sizes = platform.shape.clusters.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| vec![ranks]);
    // Active Messages' flow control holds ops back by their replies' times, which
    // the schedule's steps do not model: the program runs instead.
    if platform.am_window.is_some() || !schedule.fits(platform.cluster.eager_limit, &sizes) {
        return Ok(None);
    }
    let mut core = Core::new(platform, ranks, 1, 1, opts)?;
    let (n, total) = (ranks as usize, schedule.ops.len());
    let mut front = ReplayFrontend {
        s: schedule,
        step: vec![0; n],
        next_op: vec![0; n],
        done: vec![false; total],
        awaited: vec![false; total],
        left: vec![0; n],
        unsynced: vec![0; n],
        sync_waiting: vec![false; n],
        issued: Vec::new(),
        marks: Vec::new(),
        phases: PhaseBook::new(n),
        done_ops: 0,
        issued_ops: 0,
    };
    for r in 0..ranks {
        front.poll_rank(&mut core, r);
    }
    let mut result = core.run_with_progress(&mut front, progress)?;
    front.phases.finish(&mut result);
    result.primitives = schedule.primitives.clone();
    Ok(Some(result))
}
