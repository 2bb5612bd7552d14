//! Active Messages' flow control (`Platform::am_window`): a rank may have at most
//! `window` one-sided requests (stores, puts, gets, active messages) outstanding to
//! each target; each returns its credit when its reply is processed back at the
//! origin (a get's data, a put's acknowledgement; a store, which has no reply of its
//! own, is acknowledged like a put). A request that would exceed the window blocks
//! its rank, as Generic Active Messages' request call does: the CPU polls, handling
//! what arrives, and runs none of the rank's later ops until a credit returns.

use crate::engine::{OpDesc, OpId, OpKind};
use std::collections::VecDeque;

pub(crate) struct Credits {
    window: u32,
    /// Per rank: (target, requests outstanding) for each target with at least one;
    /// a short list (a rank talks to few targets at once) rather than a P×P table.
    outstanding: Vec<Vec<(u32, u32)>>,
    /// Per rank: ops issued but not yet handed to the core, in issue order; the first
    /// is a request waiting for a credit.
    held: Vec<VecDeque<OpId>>,
}

/// Whether an op of this kind is an Active Messages request (it takes a credit).
#[inline]
pub(crate) fn is_request(kind: OpKind) -> bool {
    matches!(kind, OpKind::Store | OpKind::Put | OpKind::Get)
}

impl Credits {
    pub fn new(ranks: u32, window: u32) -> Credits {
        Credits { window, outstanding: vec![Vec::new(); ranks as usize], held: vec![VecDeque::new(); ranks as usize] }
    }

    /// Whether op `id` (described by `d`) may go to the core now, taking its credit
    /// if it is a request; if not, it is held behind its rank's earlier ops.
    pub fn admit(&mut self, id: OpId, d: &OpDesc) -> bool {
        let r = d.rank as usize;
        if !self.held[r].is_empty() || !self.take(d) {
            self.held[r].push_back(id);
            return false;
        }
        true
    }

    /// Take a credit for `d` if it is a request (false: its window is full).
    fn take(&mut self, d: &OpDesc) -> bool {
        if !is_request(d.kind) {
            return true;
        }
        let list = &mut self.outstanding[d.rank as usize];
        let target = d.peer as u32;
        match list.iter_mut().find(|(t, _)| *t == target) {
            Some((_, n)) if *n >= self.window => false,
            Some((_, n)) => {
                *n += 1;
                true
            }
            None => {
                list.push((target, 1));
                true
            }
        }
    }

    /// A reply from `target` reached `rank`: its credit comes back.
    pub fn give_back(&mut self, rank: u32, target: u32) {
        let list = &mut self.outstanding[rank as usize];
        let at = list.iter().position(|&(t, _)| t == target).expect("a credit returns to a target with requests out");
        list[at].1 -= 1;
        if list[at].1 == 0 {
            list.swap_remove(at);
        }
    }

    /// `rank`'s held ops that may go now, in order (each request taking its credit),
    /// up to the next one whose window is still full; `desc` describes an op.
    pub fn release(&mut self, rank: u32, desc: impl Fn(OpId) -> OpDesc) -> Vec<OpId> {
        let mut go = Vec::new();
        while let Some(&id) = self.held[rank as usize].front() {
            if !self.take(&desc(id)) {
                break;
            }
            self.held[rank as usize].pop_front();
            go.push(id);
        }
        go
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: OpKind, rank: u32, peer: i32) -> OpDesc {
        OpDesc { kind, rank, peer, tag: 0, size: 1, cpu: 0, nic: 0 }
    }

    #[test]
    fn a_full_window_holds_the_request_and_everything_after_it() {
        let mut c = Credits::new(3, 2);
        let descs = [
            op(OpKind::Get, 0, 1),
            op(OpKind::Store, 0, 1),
            op(OpKind::Put, 0, 2),  // another target: its own window
            op(OpKind::Get, 0, 1),  // third to rank 1: held
            op(OpKind::Calc, 0, 0), // behind it, held too
            op(OpKind::Get, 1, 0),  // another rank is not held
        ];
        let admitted: Vec<bool> = descs.iter().enumerate().map(|(i, d)| c.admit(i as OpId, d)).collect();
        assert_eq!(admitted, [true, true, true, false, false, true]);
        assert!(c.release(0, |i| descs[i as usize]).is_empty());
        c.give_back(0, 2); // a credit from another target frees nothing
        assert!(c.release(0, |i| descs[i as usize]).is_empty());
        c.give_back(0, 1);
        assert_eq!(c.release(0, |i| descs[i as usize]), [3, 4]);
        assert_eq!(c.outstanding[0], [(1, 2)]);
    }
}
