//! The futures a rank's program awaits: one op, a set of ops (the rank is polled once,
//! when the last of them completes), and the end of its stores.

use super::op_table::{Shared, Wake};
use crate::engine::OpId;
use crate::program::api::{Message, Request};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

/// Resolves when the op is done, yielding its result.
pub(crate) struct OpWait {
    shared: Rc<RefCell<Shared>>,
    op: OpId,
    logged: bool,
}

impl OpWait {
    pub(super) fn new(shared: Rc<RefCell<Shared>>, op: OpId) -> Self {
        OpWait { shared, op, logged: false }
    }
}

impl Future for OpWait {
    type Output = Message;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Message> {
        let op = self.op;
        let first = !std::mem::replace(&mut self.logged, true);
        let mut s = self.shared.borrow_mut();
        if first {
            let sh = &mut *s;
            if let Some(log) = sh.log.as_deref_mut() {
                log.awaits(sh.slots[op as usize].desc.rank, &[op]);
            }
        }
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
pub(super) struct AllWait {
    shared: Rc<RefCell<Shared>>,
    ops: OpList,
    next: usize,
    marked: bool,
    logged: bool,
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

impl AllWait {
    pub(super) fn new(shared: Rc<RefCell<Shared>>, reqs: Vec<Request>) -> Self {
        AllWait { shared, ops: OpList::new(reqs), next: 0, marked: false, logged: false }
    }
}

impl Future for AllWait {
    type Output = Vec<Message>;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Vec<Message>> {
        let this = &mut *self;
        let ops = this.ops.as_slice();
        let mut s = this.shared.borrow_mut();
        if !std::mem::replace(&mut this.logged, true) && !ops.is_empty() {
            let sh = &mut *s;
            if let Some(log) = sh.log.as_deref_mut() {
                log.awaits(sh.slots[ops[0] as usize].desc.rank, ops);
            }
        }
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
pub(super) struct SyncWait {
    shared: Rc<RefCell<Shared>>,
    rank: u32,
    logged: bool,
}

impl SyncWait {
    pub(super) fn new(shared: Rc<RefCell<Shared>>, rank: u32) -> Self {
        SyncWait { shared, rank, logged: false }
    }
}

impl Future for SyncWait {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let first = !std::mem::replace(&mut self.logged, true);
        let mut s = self.shared.borrow_mut();
        let r = self.rank as usize;
        if first {
            if let Some(log) = s.log.as_deref_mut() {
                log.syncs(self.rank);
            }
        }
        s.sync_waiting[r] = s.unsynced[r] > 0;
        if s.sync_waiting[r] {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}
