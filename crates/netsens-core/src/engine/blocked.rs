//! Operations waiting for busy clocks.
//!
//! LOGGP.md: an event that finds its clocks busy waits until they free up and keeps
//! its sequence number. Re-queuing every waiting event at every clock change costs
//! O(k²) events for a burst of k operations on one host, so waiting events are kept
//! in groups that wait for the same clocks (same host, same CPU and NIC, same kind of
//! clock); only a token for each group's lowest sequence number sits in the event
//! queue. All members of a group become free at the same instant, so taking them in
//! sequence order, one per token, gives exactly the order of re-queuing them all.

use super::queue::Event;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Which clocks a waiting event needs (with its CPU clock).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    Cpu = 0,
    SendNic = 1,
    RecvNic = 2,
}

/// A waiting event, ordered by sequence number only.
struct BySeq(Event);

impl PartialEq for BySeq {
    fn eq(&self, other: &Self) -> bool {
        self.0.seq == other.0.seq
    }
}
impl Eq for BySeq {}
impl PartialOrd for BySeq {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for BySeq {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.seq.cmp(&other.0.seq)
    }
}

pub(crate) struct Group {
    /// The clocks: CPU clock index, NIC clock index, and which NIC clock.
    pub cpu: usize,
    pub nic: usize,
    pub needs: Needs,
    waiting: BinaryHeap<Reverse<BySeq>>,
    /// Tokens carry the version they were issued with; older ones are stale.
    pub version: u32,
    /// A token for the current lowest sequence number is in the queue.
    pub token_live: bool,
    slot: usize,
}

impl Group {
    pub fn min_seq(&self) -> Option<u64> {
        self.waiting.peek().map(|Reverse(BySeq(e))| e.seq)
    }
}

/// Every group, found by the clocks it waits for.
pub(crate) struct Blocked {
    /// Group of each (CPU clock, NIC, kind) slot, or `NONE`.
    group_of: Vec<u32>,
    groups: Vec<Group>,
    free: Vec<u32>,
    nnics: usize,
}

const NONE: u32 = u32::MAX;

impl Blocked {
    pub fn new(cpu_clocks: usize, nnics: usize) -> Self {
        Blocked { group_of: vec![NONE; cpu_clocks * nnics * 3], groups: Vec::new(), free: Vec::new(), nnics }
    }

    /// The group of events waiting for these clocks (made if there is none).
    /// `cpu` is a CPU clock index, `nic` a NIC clock index of the same host.
    pub fn group(&mut self, cpu: usize, nic: usize, needs: Needs) -> u32 {
        let slot = (cpu * self.nnics + nic % self.nnics) * 3 + needs as usize;
        if self.group_of[slot] != NONE {
            return self.group_of[slot];
        }
        let g = Group { cpu, nic, needs, waiting: BinaryHeap::new(), version: 0, token_live: false, slot };
        let id = match self.free.pop() {
            Some(id) => {
                // Keep counting versions, so tokens of the slot's earlier group stay stale.
                let version = self.groups[id as usize].version;
                self.groups[id as usize] = Group { version, ..g };
                id
            }
            None => {
                self.groups.push(g);
                (self.groups.len() - 1) as u32
            }
        };
        self.group_of[slot] = id;
        id
    }

    pub fn get(&mut self, id: u32) -> &mut Group {
        &mut self.groups[id as usize]
    }

    pub fn push(&mut self, id: u32, ev: Event) {
        self.groups[id as usize].waiting.push(Reverse(BySeq(ev)));
    }

    pub fn pop(&mut self, id: u32) -> Option<Event> {
        self.groups[id as usize].waiting.pop().map(|Reverse(BySeq(e))| e)
    }

    /// Recycle a group nobody waits in and no token refers to.
    pub fn release_if_idle(&mut self, id: u32) {
        let g = &self.groups[id as usize];
        if g.waiting.is_empty() && !g.token_live {
            self.group_of[g.slot] = NONE;
            self.free.push(id);
        }
    }
}
