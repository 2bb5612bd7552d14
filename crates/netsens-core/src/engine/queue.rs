//! The event queue, ordered by (time, seq). `seq` is the creation order, so events
//! at the same instant run first-come first-served, and an event deferred to a later
//! time keeps its original `seq` (LOGGP.md "Per-host clocks").
//!
//! The engine never schedules into its past, so the queue is a radix heap on time:
//! an event lands in the bucket of the highest bit where its time differs from the
//! last minimum, a push is an append, and each event is moved at most once per bit.
//! Events at the current minimum wait in `now`, sorted by `seq`. An event scheduled
//! before the current minimum (which the engine does not do) goes to a binary heap
//! that is served first, so the order stays exact whatever is pushed.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

/// What an event does; `id` is an op id (`Ready`) or a message id (the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// An operation became ready (send, recv or calc).
    Ready,
    /// A message (in some protocol phase) reaches its destination host.
    Arrive,
    /// A message reaches the wide-area link leaving cluster `aux`.
    Hop,
    /// A protocol message (clear-to-send, rendezvous data) waits for its sender's clocks.
    Transmit,
    /// A disk request (`id`, an op) finishes.
    DiskDone,
    /// Flow `id` of a topology has paid its route's latency and joins its links.
    FlowEnter,
    /// Flow `id`'s bytes may all have moved; `aux` is the version of its end.
    FlowDone,
    /// The clocks a group of waiting events needs may be free (see `blocked.rs`);
    /// `id` is the group, `phase`/`aux` the token's version.
    Wake,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub time: Time,
    pub seq: u64,
    pub id: u32,
    pub kind: EventKind,
    /// Message phase (see `engine::Phase`).
    pub phase: u8,
    /// Current cluster of a `Hop`.
    pub aux: u16,
}

impl Ord for Event {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap, we want the earliest (time, seq).
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

impl PartialOrd for Event {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Buckets of the radix heap: one per bit of a time.
const BUCKETS: usize = Time::BITS as usize;

/// Events of room an emptied bucket keeps (32 KiB each: at most 2 MiB in all).
const KEPT_ROOM: usize = 1024;

pub struct EventQueue {
    /// The time of the events in `now`, and the key every bucket is relative to.
    last: Time,
    /// Events at `last`, in increasing `seq`.
    now: VecDeque<Event>,
    /// `buckets[b]`: events whose time's highest bit differing from `last` is bit `b`.
    buckets: [Vec<Event>; BUCKETS],
    /// Bit `b` set: `buckets[b]` is not empty.
    full: u64,
    /// Events before `last` (never, from the engine), served first in (time, seq).
    past: BinaryHeap<Event>,
    len: usize,
    next_seq: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            last: 0,
            now: VecDeque::new(),
            buckets: std::array::from_fn(|_| Vec::new()),
            full: 0,
            past: BinaryHeap::new(),
            len: 0,
            next_seq: 0,
        }
    }
}

impl EventQueue {
    /// A new event, ordered after every event created before it.
    #[inline]
    pub fn push(&mut self, time: Time, kind: EventKind, id: u32, phase: u8, aux: u16) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(Event { time, seq, id, kind, phase, aux });
    }

    /// Put an event back at a later time, keeping its place among equals.
    #[inline]
    pub fn defer(&mut self, mut ev: Event, time: Time) {
        ev.time = time;
        self.insert(ev);
    }

    #[inline]
    fn insert(&mut self, ev: Event) {
        self.len += 1;
        if ev.time == self.last {
            // A new event has the largest seq so far; a deferred one may not.
            match self.now.back() {
                Some(back) if back.seq > ev.seq => {
                    let at = self.now.partition_point(|e| e.seq < ev.seq);
                    self.now.insert(at, ev);
                }
                _ => self.now.push_back(ev),
            }
        } else if ev.time > self.last {
            let b = bucket(ev.time, self.last);
            self.buckets[b].push(ev);
            self.full |= 1 << b;
        } else {
            self.past.push(ev);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        if let Some(ev) = self.past.pop() {
            self.len -= 1;
            return Some(ev);
        }
        if self.now.is_empty() && !self.advance() {
            return None;
        }
        self.len -= 1;
        self.now.pop_front()
    }

    /// Move the earliest nonempty bucket's earliest time into `now`; false if empty.
    #[cold]
    fn advance(&mut self) -> bool {
        if self.full == 0 {
            return false;
        }
        let b = self.full.trailing_zeros() as usize;
        self.full &= !(1 << b);
        let mut events = std::mem::take(&mut self.buckets[b]);
        let last = events.iter().map(|e| e.time).min().expect("a nonempty bucket");
        self.last = last;
        for ev in events.drain(..) {
            if ev.time == last {
                self.now.push_back(ev);
            } else {
                // Differs from the new minimum below bit `b`: an earlier bucket.
                let to = bucket(ev.time, last);
                self.buckets[to].push(ev);
                self.full |= 1 << to;
            }
        }
        // A small bucket keeps its room for the next batch (no allocation per batch);
        // a large one gives it back: buckets that all kept their largest batch's room
        // would hold several times the queue's length.
        if events.capacity() <= KEPT_ROOM {
            self.buckets[b] = events;
        }
        self.now.make_contiguous().sort_unstable_by_key(|e| e.seq);
        true
    }

    /// The event that will be popped next if it is already known without moving
    /// events between buckets; a hint (for prefetching), `None` when it is not.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        self.past.peek().or_else(|| self.now.front())
    }

    /// Drop every pending event (a run that cannot go on).
    pub fn clear(&mut self) {
        self.now.clear();
        self.past.clear();
        self.buckets.iter_mut().for_each(Vec::clear);
        self.full = 0;
        self.len = 0;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn capacity_bytes(&self) -> usize {
        let slots = self.now.capacity() + self.past.capacity() + self.buckets.iter().map(Vec::capacity).sum::<usize>();
        slots * std::mem::size_of::<Event>()
    }
}

/// The radix heap's bucket of `time` relative to the minimum `last` (`time > last`):
/// the index of the highest bit where they differ.
#[inline]
fn bucket(time: Time, last: Time) -> usize {
    (Time::BITS - 1 - (time ^ last).leading_zeros()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: a binary min-heap on (time, seq), the engine's former queue.
    #[derive(Default)]
    struct HeapQueue {
        heap: BinaryHeap<Event>,
        next_seq: u64,
    }

    impl HeapQueue {
        fn push(&mut self, time: Time, id: u32) {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.heap.push(Event { time, seq, id, kind: EventKind::Ready, phase: 0, aux: 0 });
        }
    }

    /// What a step does: push at now + delta, pop, pop and defer by delta, or push
    /// at an absolute time (possibly in the past, which the engine never does).
    #[derive(Clone, Debug)]
    enum Step {
        Push(u64),
        Pop,
        Defer(u64),
        PushAt(u64),
    }

    fn delta() -> impl Strategy<Value = u64> {
        prop_oneof![Just(0), 0..4u64, 0..1_000_000u64, 0..u64::MAX / 4]
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => delta().prop_map(Step::Push),
            3 => Just(Step::Pop),
            1 => delta().prop_map(Step::Defer),
            1 => (0..2_000_000u64).prop_map(Step::PushAt),
        ]
    }

    /// Runs the steps on both queues; returns both pop orders as (time, seq, id).
    /// An event as popped: (time, seq, id).
    type Popped = (Time, u64, u32);

    fn replay(steps: &[Step]) -> (Vec<Popped>, Vec<Popped>) {
        let (mut radix, mut heap) = (EventQueue::default(), HeapQueue::default());
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let mut now: Time = 0;
        for (id, step) in steps.iter().enumerate() {
            let id = id as u32;
            match *step {
                Step::Push(d) => {
                    radix.push(now.saturating_add(d), EventKind::Ready, id, 0, 0);
                    heap.push(now.saturating_add(d), id);
                }
                Step::PushAt(t) => {
                    radix.push(t, EventKind::Ready, id, 0, 0);
                    heap.push(t, id);
                }
                Step::Pop | Step::Defer(_) => {
                    let (a, b) = (radix.pop(), heap.heap.pop());
                    got.extend(a.map(|e| (e.time, e.seq, e.id)));
                    want.extend(b.map(|e| (e.time, e.seq, e.id)));
                    if let (Some(a), Some(b), Step::Defer(d)) = (a, b, step) {
                        now = b.time;
                        radix.defer(a, now.saturating_add(*d));
                        heap.heap.push(Event { time: now.saturating_add(*d), ..b });
                    } else if let Some(b) = b {
                        now = b.time;
                    }
                }
            }
            assert_eq!(radix.len(), heap.heap.len());
        }
        got.extend(std::iter::from_fn(|| radix.pop()).map(|e| (e.time, e.seq, e.id)));
        want.extend(std::iter::from_fn(|| heap.heap.pop()).map(|e| (e.time, e.seq, e.id)));
        (got, want)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The radix queue pops exactly the binary heap's order, ties and deferred
        /// events included.
        #[test]
        fn same_order_as_the_binary_heap(steps in prop::collection::vec(step(), 0..400)) {
            let (got, want) = replay(&steps);
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn ties_pop_in_creation_order_and_a_deferred_event_keeps_its_place() {
        let mut q = EventQueue::default();
        for id in 0..3 {
            q.push(10, EventKind::Ready, id, 0, 0); // seq 0, 1, 2
        }
        let first = q.pop().unwrap(); // (10, 0)
        q.push(10, EventKind::Ready, 3, 0, 0); // seq 3
        q.defer(first, 10); // seq 0 again: before seq 1
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.id).collect();
        assert_eq!(order, [0, 1, 2, 3]);
        assert!(q.is_empty());
    }
}
