//! The table of a run's operations, shared by every rank's handle and the front end:
//! one cache line per op, slots recycled through per-rank free lists so a rank's ops
//! stay close in memory, and the per-rank counters and communicator contexts.

use super::context_of;
use super::credits::Credits;
use crate::engine::{OpDesc, OpId, OpKind, ANY};
use crate::program::api::{Handler, Message, Tag, MAX_TAG};
use crate::program::recorded::IssueLog;
use crate::time::Time;
use std::collections::HashMap;
use std::sync::Arc;

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
    /// A store (or active message) that the core runs as a put, so that its
    /// acknowledgement returns its Active Messages credit (see `credits.rs`).
    pub acked: bool,
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
    pub(super) members: Vec<Arc<[u32]>>,
    /// Ops issued since the front end last looked, in issue order.
    pub issued: Vec<OpId>,
    /// Phase markers since the front end last looked: (rank, name).
    pub marks: Vec<(u32, String)>,
    /// Current time of the rank being polled.
    pub clock: Time,
    pub measured: bool,
    /// With `measured`: per rank, what each piece of work cost, in order.
    pub measured_work: Vec<Vec<Time>>,
    /// Costs to charge for work instead (`RunOptions::recorded_work`), and per rank
    /// how many of them were used.
    pub recorded_work: Option<Arc<[Vec<Time>]>>,
    pub recorded_used: Vec<usize>,
    /// `test` calls, by any rank: their answers can depend on timing.
    pub tests: u64,
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
    pub(super) contexts: HashMap<(u32, Vec<u32>, u32), u32>,
    pub(super) derive_seq: HashMap<(u32, u32, Vec<u32>), u32>,
    pub(super) next_context: u32,
    /// The schedule being recorded, when a caller asked for it (see `recorded.rs`).
    pub log: Option<Box<IssueLog>>,
    /// Active Messages' flow control, when the platform has an `am_window`.
    pub credits: Option<Box<Credits>>,
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
            measured_work: if measured { vec![Vec::new(); ranks as usize] } else { Vec::new() },
            recorded_work: None,
            recorded_used: vec![0; ranks as usize],
            tests: 0,
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
            log: None,
            credits: None,
        }
    }

    #[inline]
    pub(super) fn issue(&mut self, desc: OpDesc, data: Vec<u8>) -> OpId {
        let slot = Slot {
            desc,
            data,
            source: 0,
            tag_or_offset: 0,
            done: false,
            consumed: false,
            in_flight: matches!(desc.kind, OpKind::Send | OpKind::Store | OpKind::Put | OpKind::Get),
            am: false,
            acked: false,
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
        if let Some(log) = self.log.as_deref_mut() {
            log.issued(id, &desc);
        }
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
    pub(super) fn bump(&mut self, rank: u32, primitive: Prim) {
        self.counts[rank as usize][primitive as usize] += 1;
    }

    /// Take a finished op's result, recycling its slot.
    #[inline]
    pub(super) fn take(&mut self, id: OpId) -> Message {
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
