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
use std::collections::{BinaryHeap, VecDeque};

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

/// A group's waiting events, taken lowest sequence number first. Events mostly join
/// in sequence order (a burst of arrivals, a rank's next ops), so those queue in a
/// deque (O(1) each way) and only the ones that come out of order go to a heap: a
/// heap alone paid a sift per event, most of a wake-up's time in message-bound runs.
#[derive(Default)]
struct Waiting {
    /// In increasing sequence number.
    in_order: VecDeque<Event>,
    /// Events that joined with a lower sequence number than the deque's last.
    late: BinaryHeap<Reverse<BySeq>>,
}

impl Waiting {
    fn push(&mut self, ev: Event) {
        match self.in_order.back() {
            Some(back) if back.seq > ev.seq => self.late.push(Reverse(BySeq(ev))),
            _ => self.in_order.push_back(ev),
        }
    }

    fn min_seq(&self) -> Option<u64> {
        let late = self.late.peek().map(|Reverse(BySeq(e))| e.seq);
        match (self.in_order.front().map(|e| e.seq), late) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn pop(&mut self) -> Option<Event> {
        let late_first = match (self.in_order.front(), self.late.peek()) {
            (Some(a), Some(Reverse(BySeq(b)))) => b.seq < a.seq,
            (None, _) => true,
            (Some(_), None) => false,
        };
        if late_first {
            self.late.pop().map(|Reverse(BySeq(e))| e)
        } else {
            self.in_order.pop_front()
        }
    }

    fn is_empty(&self) -> bool {
        self.in_order.is_empty() && self.late.is_empty()
    }
}

pub(crate) struct Group {
    /// The clocks: CPU clock index, NIC clock index, and which NIC clock.
    pub cpu: usize,
    pub nic: usize,
    pub needs: Needs,
    waiting: Waiting,
    /// Tokens carry the version they were issued with; older ones are stale.
    pub version: u32,
    /// A token for the current lowest sequence number is in the queue.
    pub token_live: bool,
    slot: usize,
}

impl Group {
    pub fn min_seq(&self) -> Option<u64> {
        self.waiting.min_seq()
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
        let g = Group { cpu, nic, needs, waiting: Waiting::default(), version: 0, token_live: false, slot };
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
        self.groups[id as usize].waiting.push(ev);
    }

    pub fn pop(&mut self, id: u32) -> Option<Event> {
        self.groups[id as usize].waiting.pop()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::queue::EventKind;
    use proptest::prelude::*;

    fn event(seq: u64) -> Event {
        Event { time: 0, seq, id: 0, kind: EventKind::Ready, phase: 0, aux: 0 }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Pushes in any sequence order (mostly increasing, as in a run, or not at
        /// all), interleaved with pops: every pop and `min_seq` gives the lowest
        /// sequence number waiting, as a sorted set of them says.
        #[test]
        fn pops_the_lowest_sequence_number_first(
            steps in prop::collection::vec(prop_oneof![3 => (0..64u64).prop_map(Some), 2 => Just(None)], 0..300),
            jumbled in any::<bool>(),
        ) {
            let (mut waiting, mut want) = (Waiting::default(), std::collections::BTreeSet::new());
            let mut next = 1000u64;
            for step in steps {
                match step {
                    Some(back) => {
                        // The next number, or (a quarter of the time, or always when
                        // jumbled) one up to 63 below it; a number taken is skipped.
                        next += 4;
                        let seq = if jumbled || back % 4 == 0 { next - back } else { next };
                        if want.insert(seq) {
                            waiting.push(event(seq));
                        }
                    }
                    None => prop_assert_eq!(waiting.pop().map(|e| e.seq), want.pop_first()),
                }
                prop_assert_eq!(waiting.min_seq(), want.first().copied());
                prop_assert_eq!(waiting.is_empty(), want.is_empty());
            }
        }
    }

    #[test]
    fn a_late_event_comes_out_before_the_in_order_ones_above_it() {
        let mut w = Waiting::default();
        for seq in [5, 9, 7, 12, 3] {
            w.push(event(seq));
        }
        assert_eq!((w.in_order.len(), w.late.len()), (3, 2)); // 5, 9, 12 in order; 7, 3 late
        let order: Vec<u64> = std::iter::from_fn(|| w.pop()).map(|e| e.seq).collect();
        assert_eq!(order, [3, 5, 7, 9, 12]);
    }
}
