//! The event queue: a binary min-heap on (time, seq). `seq` is the creation
//! order, so events at the same instant run first-come first-served, and an event
//! deferred to a later time keeps its original `seq` (LOGGP.md "Per-host clocks").

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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

#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    next_seq: u64,
}

impl EventQueue {
    /// A new event, ordered after every event created before it.
    #[inline]
    pub fn push(&mut self, time: Time, kind: EventKind, id: u32, phase: u8, aux: u16) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Event { time, seq, id, kind, phase, aux });
    }

    /// Put an event back at a later time, keeping its place among equals.
    #[inline]
    pub fn defer(&mut self, mut ev: Event, time: Time) {
        ev.time = time;
        self.heap.push(ev);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        self.heap.pop()
    }

    /// The event that would be popped next.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        self.heap.peek()
    }

    /// Drop every pending event (a run that cannot go on).
    pub fn clear(&mut self) {
        self.heap.clear();
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn capacity_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Event>()
    }
}
