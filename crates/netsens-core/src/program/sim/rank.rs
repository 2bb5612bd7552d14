//! [`SimRank`]: the [`Rank`] handle of the simulator. Every call issues an op in the
//! shared table, or awaits one.

use super::op_table::{Prim, Shared, FAR};
use super::waits::{AllWait, OpWait, SyncWait};
use crate::engine::{any_tag_in, OpDesc, OpId, OpKind, ANY, CONTEXT_SHIFT};
use crate::program::api::{
    Communicator, Handler, HandlerId, Message, Rank, Request, Tag, ANY_SOURCE, ANY_TAG, MAX_TAG,
};
use crate::time::Time;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// A rank's handle in the simulator.
#[derive(Clone)]
pub struct SimRank {
    pub(crate) shared: Rc<RefCell<Shared>>,
    pub(crate) world: Communicator,
}

impl SimRank {
    fn me(&self) -> u32 {
        self.world.me
    }

    fn desc(&self, kind: OpKind, peer: i32, tag: i32, size: u64) -> OpDesc {
        OpDesc { kind, rank: self.me(), peer, tag, size, cpu: 0, nic: 0 }
    }

    fn engine_tag(comm: &Communicator, tag: Tag) -> i32 {
        assert!((0..=MAX_TAG).contains(&tag), "tag {tag} is outside 0..={MAX_TAG}");
        ((comm.context as i32) << CONTEXT_SHIFT) | tag
    }

    fn one_sided(&self, kind: OpKind, dst: u32, offset: usize, size: usize, data: Vec<u8>) -> OpId {
        assert!(dst < self.world.size(), "rank {dst} does not exist");
        let mut s = self.shared.borrow_mut();
        let id = s.issue(self.desc(kind, dst as i32, 0, size as u64), data);
        let slot = &mut s.slots[id as usize];
        slot.source = dst;
        match u32::try_from(offset) {
            Ok(o) if o != FAR => slot.tag_or_offset = o,
            _ => {
                slot.tag_or_offset = FAR;
                s.far_offsets.insert(id, offset);
            }
        }
        id
    }

    fn wait_op(&self, id: OpId) -> OpWait {
        OpWait::new(self.shared.clone(), id)
    }
}

impl Rank for SimRank {
    fn world(&self) -> Communicator {
        self.world.clone()
    }

    fn rank(&self) -> u32 {
        self.world.me
    }

    fn size(&self) -> u32 {
        self.world.size()
    }

    fn eager_limit(&self) -> u64 {
        self.shared.borrow().eager_limit
    }

    fn cluster_sizes(&self) -> Vec<u32> {
        self.shared.borrow().cluster_sizes.clone()
    }

    fn isend(&self, comm: &Communicator, dst: u32, tag: Tag, data: Vec<u8>) -> Request {
        let to = comm.world_rank(dst);
        let d = self.desc(OpKind::Send, to as i32, Self::engine_tag(comm, tag), data.len() as u64);
        let mut s = self.shared.borrow_mut();
        s.bump(self.me(), if comm.is_collective() { Prim::CollSend } else { Prim::Send });
        Request(s.issue(d, data))
    }

    fn irecv(&self, comm: &Communicator, src: i32, tag: Tag) -> Request {
        let from = if src == ANY_SOURCE { ANY } else { comm.world_rank(src as u32) as i32 };
        let t = if tag == ANY_TAG { any_tag_in(comm.context) } else { Self::engine_tag(comm, tag) };
        // The engine times a receive by the message it matches; size is not needed.
        let d = self.desc(OpKind::Recv, from, t, 0);
        let mut s = self.shared.borrow_mut();
        s.bump(self.me(), if comm.is_collective() { Prim::CollRecv } else { Prim::Recv });
        let id = s.issue(d, Vec::new());
        if src != ANY_SOURCE {
            s.slots[id as usize].source = src as u32;
        }
        Request(id)
    }

    async fn wait(&self, req: Request) -> Message {
        self.wait_op(req.0).await
    }

    async fn wait_all(&self, reqs: Vec<Request>) -> Vec<Message> {
        AllWait::new(self.shared.clone(), reqs).await
    }

    fn test(&self, req: &Request) -> bool {
        let mut s = self.shared.borrow_mut();
        s.tests += 1;
        s.slots[req.0 as usize].done
    }

    async fn compute(&self, cost: Time) {
        let id = {
            let mut s = self.shared.borrow_mut();
            s.bump(self.me(), Prim::Compute);
            s.issue(self.desc(OpKind::Calc, 0, 0, cost), Vec::new())
        };
        self.wait_op(id).await;
    }

    async fn work<T>(&self, cost: Time, f: impl FnOnce() -> T) -> T {
        let me = self.me() as usize;
        let (measured, recorded) = {
            let mut s = self.shared.borrow_mut();
            let recorded = s.recorded_work.as_ref().map(|w| w[me].get(s.recorded_used[me]).copied());
            if recorded.is_some() {
                // Counted past the record's end too, so the run can say it differed.
                s.recorded_used[me] += 1;
            }
            (s.measured, recorded)
        };
        let (out, cost) = match recorded {
            Some(charge) => (f(), charge.unwrap_or(cost)),
            None if measured => {
                let start = thread_cpu_time();
                let out = f();
                let cost = thread_cpu_time().saturating_sub(start);
                self.shared.borrow_mut().measured_work[me].push(cost);
                (out, cost)
            }
            None => (f(), cost),
        };
        self.compute(cost).await;
        out
    }

    fn idisk(&self, disk: u32, bytes: u64) -> Request {
        let mut s = self.shared.borrow_mut();
        s.bump(self.me(), Prim::Disk);
        Request(s.issue(self.desc(OpKind::Disk, disk as i32, 0, bytes), Vec::new()))
    }

    fn now(&self) -> Time {
        let mut s = self.shared.borrow_mut();
        if let Some(log) = s.log.as_deref_mut() {
            log.clock_reads += 1;
        }
        s.clock
    }

    fn phase(&self, name: &str) {
        let mut s = self.shared.borrow_mut();
        if let Some(log) = s.log.as_deref_mut() {
            log.marks(self.me(), name);
        }
        s.marks.push((self.me(), name.to_string()));
    }

    fn count(&self, primitive: &'static str) {
        let mut s = self.shared.borrow_mut();
        let counts = &mut s.named_counts[self.me() as usize];
        match counts.iter_mut().find(|(name, _)| *name == primitive) {
            Some((_, count)) => *count += 1,
            None => counts.push((primitive, 1)),
        }
    }

    fn expose(&self, bytes: usize) {
        self.shared.borrow_mut().windows[self.me() as usize] = vec![0; bytes];
    }

    fn window<T>(&self, f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
        f(&mut self.shared.borrow_mut().windows[self.me() as usize])
    }

    fn store(&self, dst: u32, offset: usize, data: Vec<u8>) {
        let len = data.len();
        let id = self.one_sided(OpKind::Store, dst, offset, len, data);
        let mut s = self.shared.borrow_mut();
        s.slots[id as usize].consumed = true;
        s.unsynced[self.me() as usize] += 1;
        s.bump(self.me(), Prim::Store);
    }

    async fn store_sync(&self) {
        self.shared.borrow_mut().bump(self.me(), Prim::StoreSync);
        SyncWait::new(self.shared.clone(), self.me()).await
    }

    fn iput(&self, dst: u32, offset: usize, data: Vec<u8>) -> Request {
        let len = data.len();
        let id = self.one_sided(OpKind::Put, dst, offset, len, data);
        self.shared.borrow_mut().bump(self.me(), Prim::Put);
        Request(id)
    }

    fn iget(&self, dst: u32, offset: usize, len: usize) -> Request {
        let id = self.one_sided(OpKind::Get, dst, offset, len, Vec::new());
        self.shared.borrow_mut().bump(self.me(), Prim::Get);
        Request(id)
    }

    fn register(&self, handler: Handler) -> HandlerId {
        let mut s = self.shared.borrow_mut();
        let list = &mut s.handlers[self.me() as usize];
        list.push(handler);
        HandlerId((list.len() - 1) as u32)
    }

    fn am(&self, dst: u32, handler: HandlerId, data: Vec<u8>) {
        let len = data.len();
        let id = self.one_sided(OpKind::Store, dst, 0, len, data);
        let mut s = self.shared.borrow_mut();
        s.slots[id as usize].consumed = true;
        s.slots[id as usize].am = true;
        s.slots[id as usize].source = handler.0;
        s.unsynced[self.me() as usize] += 1;
        if let Some(log) = s.log.as_deref_mut() {
            log.active_messages += 1;
        }
        s.bump(self.me(), Prim::Am);
    }

    fn derive(&self, parent: &Communicator, members: Vec<u32>) -> Communicator {
        let me = members.iter().position(|&m| m == self.me()).expect("derive: this rank is not a member") as u32;
        let mut s = self.shared.borrow_mut();
        // The n-th derivation of the same group from the same parent names the same
        // communicator on every member (whatever else each member derived), so the
        // members agree on its context without exchanging messages.
        let seq = s.derive_seq.entry((self.me(), parent.context, members.clone())).or_insert(0);
        let key = (parent.context, members.clone(), *seq);
        *seq += 1;
        let next = s.next_context;
        assert!(
            next < 2 * crate::program::api::MAX_COMMUNICATORS,
            "more than {} communicators",
            crate::program::api::MAX_COMMUNICATORS
        );
        let context = *s.contexts.entry(key).or_insert(next);
        let members: Arc<[u32]> = members.into();
        if context == next {
            s.next_context += 2;
            s.members.push(members.clone());
        }
        Communicator::new(context, members, me)
    }
}

/// The context (communicator and message space) of an engine tag; a receive's
/// `ANY_TAG` is `-2 - context`.
pub(crate) fn context_of(tag: i32) -> u32 {
    if tag < ANY {
        (-2 - tag) as u32
    } else {
        (tag.max(0) >> CONTEXT_SHIFT) as u32
    }
}

/// CPU time of the calling thread, ps.
pub fn thread_cpu_time() -> Time {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime only writes the timespec we pass.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as Time * 1_000_000_000_000 + ts.tv_nsec as Time * 1000
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunOptions;
    use crate::platform::presets;
    use crate::program::run_program;

    #[test]
    fn context_of_reads_tags_and_any_tag() {
        assert_eq!(context_of(0), 0);
        assert_eq!(context_of((5 << CONTEXT_SHIFT) | 3), 5);
        assert_eq!(context_of(any_tag_in(0)), 0);
        assert_eq!(context_of(any_tag_in(7)), 7);
    }

    #[test]
    fn offsets_beyond_32_bits_are_kept_apart() {
        // A get far past the end of an empty window reads zeros (nothing is allocated),
        // and its offset does not fit in a slot; a near one does.
        let p = presets::get("loggopsim").unwrap();
        let far = 5usize << 32;
        run_program(&p, 2, &RunOptions::default(), move |r: SimRank| async move {
            if r.rank() == 0 {
                let a = r.iget(1, far, 3);
                let b = r.iget(1, 7, 2);
                let placed = {
                    let s = r.shared.borrow();
                    s.slots[a.0 as usize].tag_or_offset == FAR && s.offset(a.0) == far && s.offset(b.0) == 7
                };
                if !placed {
                    return Err("offsets are not where they belong".into());
                }
                let got = r.wait_all(vec![a, b]).await;
                if got[0].data != [0; 3] || got[1].data != [0; 2] || got[0].source != 1 {
                    return Err(format!("got {got:?}"));
                }
                if !r.shared.borrow().far_offsets.is_empty() {
                    return Err("a far offset outlived its op".into());
                }
            }
            Ok(())
        })
        .unwrap();
    }
}
