//! What the benchmarks share: a counting allocator (exact peak heap), the platform
//! they run on, medians, the bare-heap baseline and the verdict words.
#![allow(dead_code)]

use netsens_core::engine::queue::{EventKind, EventQueue};
use netsens_core::platform::{LevelParams, Noise, Platform, Rendezvous, Shape};
use netsens_core::time::{PerByte, NS};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Counts live heap bytes and their peak, so memory figures are exact.
pub struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + new - l.size();
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

pub fn reset_peak() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

pub fn platform() -> Platform {
    // LogGOPSim's defaults (LOGGP.md).
    Platform {
        name: "loggopsim".into(),
        node: None,
        cluster: LevelParams {
            latency: 2500 * NS,
            overhead: 1500 * NS,
            gap: 1000 * NS,
            gap_per_byte: PerByte::from_ps(6000),
            overhead_per_byte: PerByte::ZERO,
            eager_limit: 65535,
            gap_above: 0,
            control_overhead: None,
        },
        wan: None,
        shape: Shape { clusters: None, ranks_per_node: 1, cores_per_node: None },
        cpu_speed: 1.0,
        rendezvous: Rendezvous::Loggopsim,
        noise: Noise::none(),
        disks: None,
        topology: None,
        am_window: None,
    }
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// A bare (time, seq) binary heap doing `events` pop+push pairs with `width`
/// entries in flight, the engine's queue discipline without any of its work.
pub fn bare_heap_events_per_s(events: u64, width: usize) -> f64 {
    let mut seq = 0u64;
    let heap = BinaryHeap::with_capacity(width);
    queue_events_per_s(
        heap,
        events,
        width,
        |heap: &mut BinaryHeap<Reverse<(u64, u64, u32)>>, time, id| {
            heap.push(Reverse((time, seq, id)));
            seq += 1;
        },
        |heap| heap.pop().map(|Reverse((time, _, id))| (time, id)),
    )
}

/// The engine's event queue (a radix heap on time) through the same loop as
/// [`bare_heap_events_per_s`].
pub fn radix_queue_events_per_s(events: u64, width: usize) -> f64 {
    queue_events_per_s(
        EventQueue::default(),
        events,
        width,
        |q: &mut EventQueue, time, id| q.push(time, EventKind::Ready, id, 0, 0),
        |q| q.pop().map(|e| (e.time, e.id)),
    )
}

/// `width` entries ready at times 0, 1, ...; then `events` times: pop the earliest
/// and push it again a pseudo-random 0 to 65 ns later. Pops per second.
fn queue_events_per_s<Q>(
    mut queue: Q,
    events: u64,
    width: usize,
    mut push: impl FnMut(&mut Q, u64, u32),
    mut pop: impl FnMut(&mut Q) -> Option<(u64, u32)>,
) -> f64 {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..width {
        push(&mut queue, i as u64, i as u32);
    }
    let t = Instant::now();
    for _ in 0..events {
        let (time, id) = pop(&mut queue).unwrap();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        push(&mut queue, time + (x & 0xFFFF), id);
    }
    std::hint::black_box(&queue);
    events as f64 / t.elapsed().as_secs_f64()
}

pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "PASS"
    } else {
        "FAIL"
    }
}
