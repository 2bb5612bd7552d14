//! The simulator backend of [`Rank`]: every call records an operation in a table
//! shared with the program front end, which hands it to the engine core and polls
//! the rank's coroutine again when one of its operations completes.

use super::api::{Communicator, Handler, HandlerId, Message, Rank, Request, Tag, ANY_SOURCE, ANY_TAG, MAX_TAG};
use crate::engine::{any_tag_in, OpDesc, OpId, OpKind, ANY, CONTEXT_SHIFT};
use crate::time::Time;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};

/// One operation of a program: the fields every op needs, in one cache line (the
/// core reads `desc` of every op it dispatches, long after the op was issued).
#[repr(align(64))]
pub(crate) struct Slot {
    pub desc: OpDesc,
    /// Outgoing payload, then (receive, get) the payload received.
    pub data: Vec<u8>,
    /// Receive: the sender once matched (its world rank for an `ANY_SOURCE`
    /// receive, else its rank in the communicator); get, put: the target; active
    /// message: the handler's id.
    pub source: u32,
    /// Receive: the tag of the message it matched. One-sided op: its offset in the
    /// target's window, or [`FAR`] (the offset is in `Shared::far_offsets`).
    pub tag_or_offset: u32,
    pub done: bool,
    /// The program has taken the result (or never will: stores, active messages).
    pub consumed: bool,
    /// The engine still refers to it (a message not yet matched or delivered).
    pub in_flight: bool,
    /// An active message (a store whose `source` names its handler).
    pub am: bool,
    /// Whether a blocked future waits for this op (see [`Wake`]).
    pub wake: Wake,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 64);

/// `Slot::tag_or_offset` of a one-sided op whose offset does not fit in 32 bits.
pub(crate) const FAR: u32 = u32::MAX;

/// Free slots a rank's poll prefetches.
const PREFETCH_FREE: usize = 8;

/// Start fetching `slot` into the cache (a hint; nothing on other targets).
#[inline]
pub(crate) fn prefetch(slot: &Slot) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it reads nothing the program sees.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((slot as *const Slot).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// No op (the end of a free list).
const NO_OP: OpId = OpId::MAX;

/// A list of free slots: the last one freed, and how many there are.
#[derive(Clone, Copy)]
struct FreeList {
    head: OpId,
    len: u32,
}

impl FreeList {
    const EMPTY: FreeList = FreeList { head: NO_OP, len: 0 };
}

/// Free slots a rank keeps for itself.
const OWN_FREE: u32 = 32;

/// How a blocked future waits for an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wake {
    No,
    /// Poll the rank when this op completes.
    Single,
    /// Poll the rank when this op and every other counted op of the rank completed
    /// (`wait_all`: one poll for the whole set instead of one per op).
    Counted,
}

/// The primitives every run counts (cheaply, by index); others are counted by name.
#[derive(Clone, Copy)]
pub(crate) enum Prim {
    Send,
    Recv,
    CollSend,
    CollRecv,
    Compute,
    Store,
    Am,
    Put,
    Get,
    StoreSync,
    Disk,
}

pub(crate) const PRIM_NAMES: [&str; 11] =
    ["send", "recv", "coll_send", "coll_recv", "compute", "store", "am", "put", "get", "store_sync", "disk"];

/// State shared by all ranks' handles and the front end (one thread).
pub(crate) struct Shared {
    pub slots: Vec<Slot>,
    /// Free slots, in lists linked through `next_free`: per rank, the slots its
    /// ops used (it reuses them, so the ops of one rank stay close together in
    /// memory), at most [`OWN_FREE`] of them; the others go to a shared list, which
    /// a rank draws on when its own is empty (so that slots one rank freed do not
    /// sit idle while others need more).
    free: Vec<FreeList>,
    free_shared: FreeList,
    /// Kept apart from the slots (a small array that stays in the cache), so that
    /// finding a rank's next free slot does not wait for the slot itself.
    next_free: Vec<OpId>,
    /// Offsets of one-sided ops that do not fit in their slot (`FAR`), by op.
    pub far_offsets: HashMap<OpId, usize>,
    /// Member list of each communicator, by id (context / 2), to name the sender
    /// of an `ANY_SOURCE` receive by its rank in the receive's communicator.
    members: Vec<Arc<[u32]>>,
    /// Ops issued since the front end last looked, in issue order.
    pub issued: Vec<OpId>,
    /// Phase markers since the front end last looked: (rank, name).
    pub marks: Vec<(u32, String)>,
    /// Current time of the rank being polled.
    pub clock: Time,
    pub measured: bool,
    pub eager_limit: u64,
    /// Ranks per cluster, in rank order (the platform's shape).
    pub cluster_sizes: Vec<u32>,
    pub windows: Vec<Vec<u8>>,
    pub handlers: Vec<Vec<Handler>>,
    /// Stores and active messages issued by each rank and not yet processed.
    pub unsynced: Vec<u64>,
    /// Per rank: counts of the built-in primitives, and of named ones (collectives).
    pub counts: Vec<[u64; PRIM_NAMES.len()]>,
    /// A program names few counters (a cache's hits and misses, a collective's kind)
    /// and may bump one per remote read: a short list scanned in place beats hashing.
    pub named_counts: Vec<Vec<(&'static str, u64)>>,
    /// Ranks blocked in store_sync.
    pub sync_waiting: Vec<bool>,
    /// Per rank: counted ops not yet complete.
    pub counted: Vec<u32>,
    /// (parent context, member list, how often this rank derived that group from
    /// that parent before) → context.
    contexts: HashMap<(u32, Vec<u32>, u32), u32>,
    derive_seq: HashMap<(u32, u32, Vec<u32>), u32>,
    next_context: u32,
}

impl Shared {
    pub fn new(everyone: Arc<[u32]>, measured: bool, eager_limit: u64) -> Self {
        let ranks = everyone.len() as u32;
        Shared {
            slots: Vec::new(),
            free: vec![FreeList::EMPTY; ranks as usize],
            free_shared: FreeList::EMPTY,
            next_free: Vec::new(),
            far_offsets: HashMap::new(),
            members: vec![everyone],
            issued: Vec::new(),
            marks: Vec::new(),
            clock: 0,
            measured,
            eager_limit,
            cluster_sizes: vec![ranks],
            windows: vec![Vec::new(); ranks as usize],
            handlers: vec![Vec::new(); ranks as usize],
            unsynced: vec![0; ranks as usize],
            counts: vec![[0; PRIM_NAMES.len()]; ranks as usize],
            named_counts: vec![Vec::new(); ranks as usize],
            sync_waiting: vec![false; ranks as usize],
            counted: vec![0; ranks as usize],
            contexts: HashMap::new(),
            derive_seq: HashMap::new(),
            next_context: 2,
        }
    }

    #[inline]
    fn issue(&mut self, desc: OpDesc, data: Vec<u8>) -> OpId {
        let slot = Slot {
            desc,
            data,
            source: 0,
            tag_or_offset: 0,
            done: false,
            consumed: false,
            in_flight: matches!(desc.kind, OpKind::Send | OpKind::Store | OpKind::Put | OpKind::Get),
            am: false,
            wake: Wake::No,
        };
        let mut list = &mut self.free[desc.rank as usize];
        if list.head == NO_OP {
            list = &mut self.free_shared;
        }
        let id = if list.head != NO_OP {
            let id = list.head;
            list.head = self.next_free[id as usize];
            list.len -= 1;
            // A free slot holds nothing to drop (see `release_if_unused`).
            let old = std::mem::replace(&mut self.slots[id as usize], slot);
            debug_assert!(old.data.capacity() == 0);
            std::mem::forget(old);
            id
        } else {
            if self.slots.len() == self.slots.capacity() {
                // A quarter more, not double: with thousands of ranks the table is
                // a good part of a run's memory.
                let more = (self.slots.len() / 4).max(64);
                self.slots.reserve_exact(more);
                self.next_free.reserve_exact(more);
            }
            self.slots.push(slot);
            self.next_free.push(NO_OP);
            (self.slots.len() - 1) as OpId
        };
        self.issued.push(id);
        id
    }

    /// Start fetching the slots `rank` will use for its next ops into the cache
    /// (they were freed long ago, when the rank last took its results).
    #[inline]
    pub fn prefetch_free(&self, rank: u32) {
        if cfg!(not(target_arch = "x86_64")) {
            return;
        }
        let mut id = self.free[rank as usize].head;
        for _ in 0..PREFETCH_FREE {
            if id == NO_OP {
                break;
            }
            prefetch(&self.slots[id as usize]);
            id = self.next_free[id as usize];
        }
    }

    /// Where one-sided op `id` reads or writes its target's window.
    #[inline]
    pub fn offset(&self, id: OpId) -> usize {
        match self.slots[id as usize].tag_or_offset {
            FAR => self.far_offsets[&id],
            o => o as usize,
        }
    }

    /// Recycle a slot once nobody — program or engine — needs it.
    #[inline]
    pub fn release_if_unused(&mut self, id: OpId) {
        let s = &mut self.slots[id as usize];
        if s.done && s.consumed && !s.in_flight {
            s.data = Vec::new();
            if s.tag_or_offset == FAR && s.desc.kind != OpKind::Recv {
                self.far_offsets.remove(&id);
            }
            let mut list = &mut self.free[s.desc.rank as usize];
            if list.len >= OWN_FREE {
                list = &mut self.free_shared;
            }
            self.next_free[id as usize] = list.head;
            list.head = id;
            list.len += 1;
        }
    }

    #[inline]
    fn bump(&mut self, rank: u32, primitive: Prim) {
        self.counts[rank as usize][primitive as usize] += 1;
    }

    /// Take a finished op's result, recycling its slot.
    #[inline]
    fn take(&mut self, id: OpId) -> Message {
        let s = &mut self.slots[id as usize];
        s.consumed = true;
        let recv = s.desc.kind == OpKind::Recv;
        let source = if recv && s.desc.peer == ANY {
            let members = &self.members[context_of(s.desc.tag) as usize / 2];
            members.iter().position(|&w| w == s.source).unwrap_or(0) as u32
        } else {
            s.source
        };
        // A send's or put's payload belongs to the message until it is delivered.
        let data = match s.desc.kind {
            OpKind::Recv | OpKind::Get => std::mem::take(&mut s.data),
            _ => Vec::new(),
        };
        let tag = if recv { s.tag_or_offset as Tag & MAX_TAG } else { 0 };
        let msg = Message { source, tag, data };
        self.release_if_unused(id);
        msg
    }
}

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
        OpWait { shared: self.shared.clone(), op: id }
    }
}

/// Resolves when the op is done, yielding its result.
pub(crate) struct OpWait {
    shared: Rc<RefCell<Shared>>,
    op: OpId,
}

impl Future for OpWait {
    type Output = Message;
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Message> {
        let mut s = self.shared.borrow_mut();
        let slot = &mut s.slots[self.op as usize];
        if slot.done {
            Poll::Ready(s.take(self.op))
        } else {
            slot.wake = Wake::Single;
            Poll::Pending
        }
    }
}

/// Resolves when every op is done; the first time it blocks it marks the ops
/// still running as counted, so the rank is polled once, when the last completes.
struct AllWait {
    shared: Rc<RefCell<Shared>>,
    ops: OpList,
    next: usize,
    marked: bool,
}

/// Ops waited for together: a few inline (in the waiting future, which the poll
/// touches anyway), more in a vector.
enum OpList {
    Inline(u8, [OpId; INLINE_OPS]),
    Heap(Vec<OpId>),
}

const INLINE_OPS: usize = 8;

impl OpList {
    fn new(reqs: Vec<Request>) -> OpList {
        if reqs.len() <= INLINE_OPS {
            let mut ids = [0; INLINE_OPS];
            for (id, r) in ids.iter_mut().zip(&reqs) {
                *id = r.0;
            }
            OpList::Inline(reqs.len() as u8, ids)
        } else {
            OpList::Heap(reqs.into_iter().map(|r| r.0).collect())
        }
    }

    #[inline]
    fn as_slice(&self) -> &[OpId] {
        match self {
            OpList::Inline(n, ids) => &ids[..*n as usize],
            OpList::Heap(v) => v,
        }
    }
}

impl Future for AllWait {
    type Output = Vec<Message>;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Vec<Message>> {
        let this = &mut *self;
        let ops = this.ops.as_slice();
        let mut s = this.shared.borrow_mut();
        while this.next < ops.len() && s.slots[ops[this.next] as usize].done {
            this.next += 1;
        }
        if this.next < ops.len() {
            if !this.marked {
                this.marked = true;
                let rank = s.slots[ops[this.next] as usize].desc.rank as usize;
                for &op in &ops[this.next..] {
                    let slot = &mut s.slots[op as usize];
                    if !slot.done && slot.wake == Wake::No {
                        slot.wake = Wake::Counted;
                        s.counted[rank] += 1;
                    }
                }
            }
            return Poll::Pending;
        }
        Poll::Ready(ops.iter().map(|&op| s.take(op)).collect())
    }
}

/// Resolves when the rank has no store in flight.
struct SyncWait {
    shared: Rc<RefCell<Shared>>,
    rank: u32,
}

impl Future for SyncWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let mut s = self.shared.borrow_mut();
        let r = self.rank as usize;
        s.sync_waiting[r] = s.unsynced[r] > 0;
        if s.sync_waiting[r] {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
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
        AllWait { shared: self.shared.clone(), ops: OpList::new(reqs), next: 0, marked: false }.await
    }

    fn test(&self, req: &Request) -> bool {
        self.shared.borrow().slots[req.0 as usize].done
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
        let measured = self.shared.borrow().measured;
        let (out, cost) = if measured {
            let start = thread_cpu_time();
            let out = f();
            (out, thread_cpu_time().saturating_sub(start))
        } else {
            (f(), cost)
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
        self.shared.borrow().clock
    }

    fn phase(&self, name: &str) {
        self.shared.borrow_mut().marks.push((self.me(), name.to_string()));
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
        SyncWait { shared: self.shared.clone(), rank: self.me() }.await
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
        assert!(next < 2 * super::api::MAX_COMMUNICATORS, "more than {} communicators", super::api::MAX_COMMUNICATORS);
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
