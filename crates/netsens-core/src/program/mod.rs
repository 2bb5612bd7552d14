//! The program front end: every rank is an async coroutine in virtual time, driven
//! by the same engine core as GOAL schedules. No thread per rank: a rank's future
//! is polled when one of its operations completes (or its stores are processed).

pub mod api;
pub mod collectives;
pub mod payload;
mod phases;
pub mod recorded;
pub mod replay;
mod sim;

pub use api::{Communicator, Handler, HandlerId, Message, Rank, Request, Tag, ANY_SOURCE, ANY_TAG, MAX_TAG};
pub use payload::{decode, encode, Element, Op};
pub use sim::{thread_cpu_time, SimRank};

use crate::engine::observe::Observer;
use crate::engine::{Core, Frontend, OpDesc, OpId, OpKind, Progress, RunOptions};
use crate::error::{Error, Result};
use crate::platform::Platform;
use crate::profile::{PrimitiveCount, RunResult};
use crate::time::Time;
use phases::PhaseBook;
use recorded::{IssueLog, RecordedSchedule};
use sim::{Shared, Wake};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

type Task = Pin<Box<dyn Future<Output = std::result::Result<(), String>>>>;

pub struct ProgramFrontend {
    shared: Rc<RefCell<Shared>>,
    tasks: Vec<Option<Task>>,
    failures: Vec<(u32, String)>,
    phases: PhaseBook,
    done_ops: u64,
    issued_ops: u64,
}

impl ProgramFrontend {
    fn poll_rank(&mut self, core: &mut Core, rank: u32) {
        let Some(task) = self.tasks[rank as usize].as_mut() else { return };
        {
            let mut s = self.shared.borrow_mut();
            s.clock = core.host_end(rank).max(core.release_time());
            s.prefetch_free(rank);
        }
        let mut cx = Context::from_waker(Waker::noop());
        if let Poll::Ready(outcome) = task.as_mut().poll(&mut cx) {
            self.tasks[rank as usize] = None;
            if let Err(why) = outcome {
                self.failures.push((rank, why));
            }
        }
        self.flush(core);
    }

    /// A reply from `target` gave `rank` back a credit: hand the core the rank's held
    /// ops that may go now (before anything the rank issues next).
    fn credit_returned(&mut self, core: &mut Core, rank: u32, target: u32) {
        let mut s = self.shared.borrow_mut();
        let s = &mut *s;
        let credits = s.credits.as_deref_mut().expect("credits return only under a window");
        credits.give_back(rank, target);
        let slots = &s.slots;
        for op in credits.release(rank, |id| slots[id as usize].desc) {
            hand_over(&mut s.slots[op as usize], core, op);
        }
    }

    /// Hand the ops issued during a poll to the core; close and open phases.
    fn flush(&mut self, core: &mut Core) {
        let marks = {
            let mut s = self.shared.borrow_mut();
            let s = &mut *s;
            self.issued_ops += s.issued.len() as u64;
            match s.credits.as_deref_mut() {
                None => {
                    for op in s.issued.drain(..) {
                        core.enable(op, &s.slots[op as usize].desc);
                    }
                }
                Some(credits) => {
                    for op in s.issued.drain(..) {
                        if credits.admit(op, &s.slots[op as usize].desc) {
                            hand_over(&mut s.slots[op as usize], core, op);
                        }
                    }
                }
            }
            if s.marks.is_empty() {
                return;
            }
            std::mem::take(&mut s.marks)
        };
        for (rank, name) in marks {
            self.phases.enter(core, rank, name);
        }
    }
}

/// Give the core an op that Active Messages' flow control let through; a store goes
/// as a put, whose acknowledgement brings its credit back.
fn hand_over(slot: &mut sim::Slot, core: &mut Core, op: OpId) {
    if slot.desc.kind == OpKind::Store {
        slot.desc.kind = OpKind::Put;
        slot.acked = true;
    }
    core.enable(op, &slot.desc);
}

impl Frontend for ProgramFrontend {
    #[inline]
    fn op(&self, id: OpId) -> OpDesc {
        self.shared.borrow().slots[id as usize].desc
    }

    #[inline]
    fn prefetch(&self, id: OpId) {
        // Ops are looked up long after they were issued, so their slots have left
        // the cache; fetching the next one while this event runs hides the miss.
        if let Ok(s) = self.shared.try_borrow() {
            if let Some(slot) = s.slots.get(id as usize) {
                sim::prefetch(slot);
            }
        }
    }

    fn describe(&self, id: OpId) -> String {
        let d = self.op(id);
        format!("rank {}'s {}", d.rank, describe(&d))
    }

    fn started(&mut self, _core: &mut Core, _id: OpId) {}

    fn done(&mut self, core: &mut Core, id: OpId) {
        let (rank, wake, credit) = {
            let mut s = self.shared.borrow_mut();
            let windowed = s.credits.is_some();
            let slot = &mut s.slots[id as usize];
            slot.done = true;
            // Under a window every request's reply returns its credit (stores go as puts).
            let credit = (windowed && sim::is_request(slot.desc.kind)).then_some(slot.desc.peer as u32);
            if slot.desc.kind == OpKind::Get {
                slot.in_flight = false;
            }
            let (rank, wake) = (slot.desc.rank, std::mem::replace(&mut slot.wake, Wake::No));
            s.release_if_unused(id);
            let wake = match wake {
                Wake::No => false,
                Wake::Single => true,
                Wake::Counted => {
                    let left = &mut s.counted[rank as usize];
                    *left -= 1;
                    *left == 0
                }
            };
            (rank, wake, credit)
        };
        self.done_ops += 1;
        if let Some(target) = credit {
            self.credit_returned(core, rank, target);
        }
        // Only a rank blocked on this op can make progress now.
        if wake {
            self.poll_rank(core, rank);
        }
    }

    fn matched(&mut self, send: OpId, recv: OpId) {
        let mut s = self.shared.borrow_mut();
        let (data, from, tag) = {
            let sl = &mut s.slots[send as usize];
            sl.in_flight = false;
            (std::mem::take(&mut sl.data), sl.desc.rank, sl.desc.tag)
        };
        let r = &mut s.slots[recv as usize];
        r.data = data;
        r.tag_or_offset = tag as u32;
        if r.desc.peer == crate::engine::ANY {
            r.source = from;
        }
        s.release_if_unused(send);
    }

    fn delivered(&mut self, core: &mut Core, op: OpId) -> Time {
        let (kind, origin, target, offset, handler) = {
            let s = self.shared.borrow();
            let sl = &s.slots[op as usize];
            let handler = sl.am.then_some(sl.source);
            // A store the core ran as a put (for its credit) is still a store here.
            let kind = if sl.acked { OpKind::Store } else { sl.desc.kind };
            (kind, sl.desc.rank, sl.desc.peer as u32, s.offset(op), handler)
        };
        let mut cost = 0;
        match (kind, handler) {
            (OpKind::Store, Some(h)) => {
                // Run the handler without holding the table: it may use its rank's handle.
                let (f, data) = {
                    let mut s = self.shared.borrow_mut();
                    let f = s.handlers[target as usize].get(h as usize).cloned();
                    (f, std::mem::take(&mut s.slots[op as usize].data))
                };
                let f = f.unwrap_or_else(|| panic!("rank {target} has no active-message handler {h}"));
                cost = f(origin, &data);
            }
            (OpKind::Store | OpKind::Put, _) => {
                let mut s = self.shared.borrow_mut();
                let data = std::mem::take(&mut s.slots[op as usize].data);
                let w = &mut s.windows[target as usize];
                if w.len() < offset + data.len() {
                    w.resize(offset + data.len(), 0);
                }
                w[offset..offset + data.len()].copy_from_slice(&data);
            }
            _ => {
                // A get reads the target's window now, as the request is processed.
                let mut s = self.shared.borrow_mut();
                let len = s.slots[op as usize].desc.size as usize;
                let w = &s.windows[target as usize];
                let mut data = vec![0; len];
                let end = w.len().min(offset + len);
                if offset < end {
                    data[..end - offset].copy_from_slice(&w[offset..end]);
                }
                s.slots[op as usize].data = data;
            }
        }
        if kind == OpKind::Store {
            let sync_done = {
                let mut s = self.shared.borrow_mut();
                s.slots[op as usize].in_flight = false;
                s.release_if_unused(op);
                let left = &mut s.unsynced[origin as usize];
                *left -= 1;
                *left == 0 && std::mem::take(&mut s.sync_waiting[origin as usize])
            };
            if sync_done {
                // A rank waiting in store_sync can go on.
                self.poll_rank(core, origin);
            }
        } else if kind == OpKind::Put {
            self.shared.borrow_mut().slots[op as usize].in_flight = false;
        }
        cost
    }

    fn completed(&self) -> (u64, u64) {
        (self.done_ops, self.issued_ops)
    }

    fn stuck(&self, _core: &Core) -> Option<String> {
        let waiting: Vec<u32> = (0..self.tasks.len() as u32).filter(|&r| self.tasks[r as usize].is_some()).collect();
        if waiting.is_empty() {
            return None;
        }
        let s = self.shared.borrow();
        let mut pending: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for sl in s.slots.iter().filter(|sl| !sl.done && !sl.consumed) {
            pending.entry(sl.desc.rank).or_default().push(describe(&sl.desc));
        }
        let lines: Vec<String> = waiting
            .iter()
            .take(6)
            .map(|&r| match pending.get(&r) {
                Some(ops) if !ops.is_empty() => {
                    let more = if ops.len() > 2 { format!(" and {} more", ops.len() - 2) } else { String::new() };
                    format!("rank {r} waits in {}{more}", ops.iter().take(2).cloned().collect::<Vec<_>>().join(", "))
                }
                _ => format!("rank {r} waits in store_sync"),
            })
            .collect();
        let more = if waiting.len() > 6 { format!("; and {} more rank(s)", waiting.len() - 6) } else { String::new() };
        Some(format!("deadlock: {} rank(s) cannot finish: {}{more}", waiting.len(), lines.join("; ")))
    }
}

fn describe(d: &OpDesc) -> String {
    let tag = |t: i32| {
        if t < 0 {
            "any".to_string()
        } else {
            (t & MAX_TAG).to_string()
        }
    };
    let comm = |t: i32| {
        let ctx = sim::context_of(t);
        let what = if ctx & 1 == 1 { " (collective)" } else { "" };
        format!("communicator {}{what}", ctx / 2)
    };
    match d.kind {
        OpKind::Recv => {
            let src = if d.peer < 0 { "any".to_string() } else { d.peer.to_string() };
            format!("`recv from {src} tag {}` on {}", tag(d.tag), comm(d.tag))
        }
        OpKind::Send => format!("`send {}b to {} tag {}` on {}", d.size, d.peer, tag(d.tag), comm(d.tag)),
        OpKind::Calc => "`compute`".into(),
        OpKind::Store => format!("`store {}b to {}`", d.size, d.peer),
        OpKind::Put => format!("`put {}b to {}`", d.size, d.peer),
        OpKind::Get => format!("`get {}b from {}`", d.size, d.peer),
        OpKind::Disk => format!("`disk {} {}b`", d.peer, d.size),
    }
}

/// Run `program` on `ranks` ranks of `platform`. The program gets its rank's
/// handle and returns `Err(why)` if its answer is wrong (the run then fails).
pub fn run_program<P, F>(platform: &Platform, ranks: u32, opts: &RunOptions, program: P) -> Result<RunResult>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    run_program_with_progress(platform, ranks, opts, program, &mut |_| true)
}

/// As [`run_program`], reporting progress (see [`Core::run_with_progress`]).
pub fn run_program_with_progress<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<RunResult>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    run_program_observed(platform, ranks, opts, program, progress, None).map(|(r, _)| r)
}

/// As [`run_program_with_progress`], telling `observer` (if any) every time of the
/// run and giving it back.
pub fn run_program_observed<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
    observer: Option<Box<dyn Observer>>,
) -> Result<(RunResult, Option<Box<dyn Observer>>)>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    let (result, observer, _) = run_inner(platform, ranks, opts, program, progress, observer, false)?;
    Ok((result, observer))
}

/// As [`run_program_with_progress`], also recording the schedule the program issued
/// (see [`recorded`]): `None` when its ops can depend on timing (a wildcard receive,
/// a test, a read of its clock, an active message, measured compute), so that no
/// replay can stand in for running it.
pub fn record_program_schedule<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
) -> Result<(RunResult, Option<RecordedSchedule>)>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    let (result, _, schedule) = run_inner(platform, ranks, opts, program, progress, None, true)?;
    Ok((result, schedule))
}

/// A run's result, its observer given back, and its recorded schedule.
type Outcome = (RunResult, Option<Box<dyn Observer>>, Option<RecordedSchedule>);

fn run_inner<P, F>(
    platform: &Platform,
    ranks: u32,
    opts: &RunOptions,
    program: P,
    progress: &mut dyn FnMut(Progress) -> bool,
    observer: Option<Box<dyn Observer>>,
    record: bool,
) -> Result<Outcome>
where
    P: Fn(SimRank) -> F,
    F: Future<Output = std::result::Result<(), String>> + 'static,
{
    // Each rank's program state (its future, boxed) and bookkeeping, on top of the core's.
    let per_rank = std::mem::size_of::<F>()
        + std::mem::size_of::<Option<Task>>()
        + phases::PER_RANK_BYTES
        + std::mem::size_of::<u32>();
    let bytes = ranks as u128 * per_rank as u128 + crate::engine::state_bytes(ranks as u128, 1, 1, opts.matrix);
    crate::memory::ensure_fits(&format!("a run of {ranks} ranks"), bytes)?;
    let mut core = Core::new(platform, ranks, 1, 1, opts)?;
    if let Some(o) = observer {
        core.observe(o);
    }
    let everyone: std::sync::Arc<[u32]> = (0..ranks).collect();
    let shared =
        Rc::new(RefCell::new(Shared::new(everyone.clone(), opts.measured_compute, platform.cluster.eager_limit)));
    if let Some(record) = &opts.recorded_work {
        if record.len() != ranks as usize {
            return Err(Error::Input(format!("the recorded work is of {} ranks; the run has {ranks}", record.len())));
        }
        shared.borrow_mut().recorded_work = Some(record.clone());
    }
    if let Some(sizes) = platform.shape.clusters.as_ref().filter(|s| !s.is_empty()) {
        // Core::new checked that the clusters hold exactly the run's ranks.
        shared.borrow_mut().cluster_sizes = sizes.clone();
    }
    if let Some(window) = platform.am_window {
        shared.borrow_mut().credits = Some(Box::new(sim::Credits::new(ranks, window)));
    }
    if record {
        shared.borrow_mut().log = Some(Box::new(IssueLog::new(ranks)));
    }
    let tasks: Vec<Option<Task>> = (0..ranks)
        .map(|r| {
            let handle = SimRank { shared: shared.clone(), world: Communicator::world(&everyone, r) };
            Some(Box::pin(program(handle)) as Task)
        })
        .collect();
    let n = ranks as usize;
    let mut front =
        ProgramFrontend { shared, tasks, failures: Vec::new(), phases: PhaseBook::new(n), done_ops: 0, issued_ops: 0 };
    // Every rank runs until its first blocking call, in rank order, at time 0.
    for r in 0..ranks {
        front.poll_rank(&mut core, r);
    }
    let outcome = core.run_observed(&mut front, progress);
    if let Some((rank, why)) = front.failures.first() {
        let more = if front.failures.len() > 1 {
            format!(" (and {} more rank(s) failed)", front.failures.len() - 1)
        } else {
            String::new()
        };
        return Err(Error::Program(format!("rank {rank}: {why}{more}")));
    }
    let (mut result, observer) = outcome?;
    {
        let mut s = front.shared.borrow_mut();
        if let Some(record) = &s.recorded_work {
            if let Some(r) = (0..n).find(|&r| s.recorded_used[r] != record[r].len()) {
                return Err(Error::Program(format!(
                    "rank {r} did {} pieces of work where the recorded run did {}: the program's \
                     work depends on timing, so a recorded computation cannot stand in for it",
                    s.recorded_used[r],
                    record[r].len()
                )));
            }
        }
        result.measured_work = std::mem::take(&mut s.measured_work);
        result.timing_dependence.tests = s.tests;
    }
    front.phases.finish(&mut result);
    let mut s = front.shared.borrow_mut();
    result.primitives = (0..n)
        .flat_map(|rank| {
            let builtin = s.counts[rank].iter().zip(sim::PRIM_NAMES).map(|(&count, name)| (name, count));
            let named = s.named_counts[rank].iter().copied();
            let mut v: Vec<_> = builtin
                .chain(named)
                .filter(|&(_, count)| count > 0)
                .map(|(name, count)| PrimitiveCount { rank: rank as u32, primitive: name.to_string(), count })
                .collect();
            v.sort_by(|a, b| a.primitive.cmp(&b.primitive));
            v
        })
        .collect();
    let schedule = match s.log.take() {
        Some(log)
            if log.clock_reads == 0
                && log.active_messages == 0
                && !opts.measured_compute
                && result.timing_dependence.is_none() =>
        {
            Some(log.finish(result.primitives.clone(), s.eager_limit, s.cluster_sizes.clone()))
        }
        _ => None,
    };
    Ok((result, observer, schedule))
}
