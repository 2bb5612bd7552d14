//! An observer on a thread of its own: the engine's calls are written into batches
//! and handed to the thread, which tells them to the observer in the same order.
//!
//! A recorder's own work (an execution graph's nodes and their predecessors, the
//! first write to each of its pages) then runs on another core beside the run, and
//! neither evicts the other's data from its core's caches. What the observer ends
//! with is the same, call for call: only where it runs changes.

use super::observe::{At, Clock, Cost, Key, Observer};
use super::{OpDesc, OpId};
use crate::time::Time;
use std::any::Any;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

/// One call of [`Observer`], its arguments owned and packed: 48 B where the enums
/// as they are took 80 (a clock or a time named in 8 B; noise, rare, as a call of
/// its own before the one it belongs to).
#[derive(Clone, Copy, Debug)]
enum Call {
    Ready {
        op: OpId,
        d: OpDesc,
        cpu: u64,
        nic: u64,
    },
    Queued {
        key: Key,
        from: PackedAt,
        cost: Cost,
    },
    Begin {
        n: u8,
        op: OpId,
        key: Key,
        host: Option<u32>,
        clocks: [PackedClock; 3],
    },
    Advance {
        clock: PackedClock,
        from: PackedAt,
        cost: Cost,
    },
    /// Noise or jitter added to the next `Queued` or `Advance` (most have none).
    Extra(Time),
    Set {
        max: bool,
        clock: PackedClock,
        at: PackedAt,
    },
    Release(PackedAt),
    Delayed {
        op: OpId,
        key: Key,
        cost: Cost,
    },
    After {
        key: Key,
        earlier: Key,
    },
    Posted(OpId),
    Wildcard,
}

/// A [`Clock`] in 8 B: its kind in the top 3 bits, its index (of a table of times,
/// far below 2^59 entries) below them.
#[derive(Clone, Copy, Debug)]
struct PackedClock(u64);

const INDEX_BITS: u32 = 59;

impl PackedClock {
    #[inline(always)]
    fn of(c: Clock) -> PackedClock {
        let (kind, i) = c.parts();
        debug_assert!((i as u64) < 1 << INDEX_BITS);
        PackedClock((kind as u64) << INDEX_BITS | i as u64)
    }

    #[inline(always)]
    fn get(self) -> Clock {
        Clock::from_parts((self.0 >> INDEX_BITS) as usize, (self.0 & ((1 << INDEX_BITS) - 1)) as usize)
    }
}

/// An [`At`] in 8 B: which of the three in the top 2 bits, its clock below.
#[derive(Clone, Copy, Debug)]
struct PackedAt(u64);

impl PackedAt {
    const CLOCK: u64 = 1 << 62;
    const BEGIN_OR: u64 = 2 << 62;

    #[inline(always)]
    fn of(at: At) -> PackedAt {
        PackedAt(match at {
            At::Begin => 0,
            At::Clock(c) => Self::CLOCK | PackedClock::of(c).0,
            At::BeginOr(c) => Self::BEGIN_OR | PackedClock::of(c).0,
        })
    }

    #[inline(always)]
    fn get(self) -> At {
        let c = PackedClock(self.0 & !(3 << 62));
        match self.0 >> 62 {
            0 => At::Begin,
            1 => At::Clock(c.get()),
            _ => At::BeginOr(c.get()),
        }
    }
}

/// A NIC's index, or none (`u64::MAX`).
const NO_NIC: u64 = u64::MAX;

/// Calls in a batch: 192 KiB, within a core's cache while it is written and read.
const BATCH: usize = 4096;

/// Batches on their way at most: the run waits when the observer is this far behind
/// (768 KiB of calls), so that a slow observer never holds a run's worth of them.
const IN_FLIGHT: usize = 4;

/// An observer `O` told the engine's calls on a thread of its own.
pub struct Relay<O: Observer + Send> {
    batch: Vec<Call>,
    to: Option<SyncSender<Vec<Call>>>,
    /// Batches the thread has told, handed back to be written again.
    back: Receiver<Vec<Call>>,
    worker: Option<JoinHandle<Box<O>>>,
    /// The observer, back from its thread once the run has ended.
    done: Option<Box<O>>,
}

impl<O: Observer + Send> Relay<O> {
    /// Starts the thread that tells `observer` every call from now on; an error
    /// where the system starts no thread (the observer is dropped with it).
    pub fn start(observer: Box<O>) -> std::io::Result<Relay<O>> {
        let (to, calls) = sync_channel::<Vec<Call>>(IN_FLIGHT);
        let (give_back, back) = std::sync::mpsc::channel::<Vec<Call>>();
        let worker = std::thread::Builder::new().name("netsens-record".into()).spawn(move || {
            let (mut o, mut extra) = (observer, 0);
            for mut batch in calls {
                for call in batch.drain(..) {
                    tell(&mut *o, call, &mut extra);
                }
                // The run may have ended meanwhile: then nobody takes it back.
                let _ = give_back.send(batch);
            }
            o
        })?;
        Ok(Relay { batch: Vec::with_capacity(BATCH), to: Some(to), back, worker: Some(worker), done: None })
    }

    /// The observer, once the run has ended (told [`Observer::finish`]); before, it
    /// is first told every call so far.
    pub fn into_inner(mut self) -> Box<O> {
        match self.done.take() {
            Some(o) => o,
            None => self.join(),
        }
    }

    #[inline(always)]
    fn call(&mut self, call: Call) {
        self.batch.push(call);
        if self.batch.len() == BATCH {
            self.send();
        }
    }

    #[cold]
    fn send(&mut self) {
        let spare = self.back.try_recv().unwrap_or_else(|_| Vec::with_capacity(BATCH));
        let full = std::mem::replace(&mut self.batch, spare);
        if let Some(to) = &self.to {
            // Fails only where the thread has stopped: its panic is raised by `join`.
            let _ = to.send(full);
        }
    }

    /// Hands over the last calls and waits for the thread to have told them all.
    fn join(&mut self) -> Box<O> {
        if !self.batch.is_empty() {
            self.send();
        }
        self.to = None;
        let worker = self.worker.take().expect("the thread is joined once");
        match worker.join() {
            Ok(o) => o,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl<O: Observer + Send> Drop for Relay<O> {
    /// A run that stopped early: the thread ends with the calls it has and is waited for.
    fn drop(&mut self) {
        self.to = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Tells `o` one call; `extra` is the noise a [`Call::Extra`] left for the next one.
#[inline(always)]
fn tell<O: Observer + ?Sized>(o: &mut O, call: Call, extra: &mut Time) {
    match call {
        Call::Ready { op, d, cpu, nic } => o.ready(op, &d, cpu as usize, (nic != NO_NIC).then_some(nic as usize)),
        Call::Queued { key, from, cost } => o.queued(key, from.get(), cost, std::mem::take(extra)),
        Call::Begin { n, op, key, host, clocks } => {
            let clocks = clocks.map(PackedClock::get);
            o.begin(key, op, host, &clocks[..n as usize])
        }
        Call::Advance { clock, from, cost } => o.advance(clock.get(), from.get(), cost, std::mem::take(extra)),
        Call::Extra(e) => *extra = e,
        Call::Set { max, clock, at } => o.set(clock.get(), at.get(), max),
        Call::Release(at) => o.release(at.get()),
        Call::Delayed { op, key, cost } => o.delayed(key, op, cost),
        Call::After { key, earlier } => o.after(key, earlier),
        Call::Posted(recv) => o.posted(recv),
        Call::Wildcard => o.wildcard(),
    }
}

impl<O: Observer + Send> Observer for Relay<O> {
    #[inline]
    fn ready(&mut self, op: OpId, d: &OpDesc, cpu: usize, nic: Option<usize>) {
        self.call(Call::Ready { op, d: *d, cpu: cpu as u64, nic: nic.map_or(NO_NIC, |n| n as u64) });
    }

    #[inline]
    fn queued(&mut self, key: Key, from: At, cost: Cost, extra: Time) {
        if extra > 0 {
            self.call(Call::Extra(extra));
        }
        self.call(Call::Queued { key, from: PackedAt::of(from), cost });
    }

    #[inline]
    fn begin(&mut self, key: Key, op: OpId, host: Option<u32>, clocks: &[Clock]) {
        // The engine names at most three clocks (CPU, core, NIC or link).
        debug_assert!(clocks.len() <= 3);
        let mut held = [PackedClock(0); 3];
        let n = clocks.len().min(3);
        for (h, &c) in held.iter_mut().zip(&clocks[..n]) {
            *h = PackedClock::of(c);
        }
        self.call(Call::Begin { n: n as u8, op, key, host, clocks: held });
    }

    #[inline]
    fn advance(&mut self, clock: Clock, from: At, cost: Cost, extra: Time) {
        if extra > 0 {
            self.call(Call::Extra(extra));
        }
        self.call(Call::Advance { clock: PackedClock::of(clock), from: PackedAt::of(from), cost });
    }

    #[inline]
    fn set(&mut self, clock: Clock, at: At, max: bool) {
        self.call(Call::Set { max, clock: PackedClock::of(clock), at: PackedAt::of(at) });
    }

    #[inline]
    fn release(&mut self, at: At) {
        self.call(Call::Release(PackedAt::of(at)));
    }

    #[inline]
    fn delayed(&mut self, key: Key, op: OpId, cost: Cost) {
        self.call(Call::Delayed { op, key, cost });
    }

    #[inline]
    fn after(&mut self, key: Key, earlier: Key) {
        self.call(Call::After { key, earlier });
    }

    #[inline]
    fn posted(&mut self, recv: OpId) {
        self.call(Call::Posted(recv));
    }

    #[inline]
    fn wildcard(&mut self) {
        self.call(Call::Wildcard);
    }

    /// The thread tells the last calls and ends; the observer's own end runs here.
    fn finish(&mut self, ends: &[Clock]) {
        let mut o = self.join();
        o.finish(ends);
        self.done = Some(o);
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OpKind;
    use crate::platform::Level;
    use std::sync::atomic::Ordering::SeqCst;
    use std::sync::atomic::{AtomicBool, AtomicUsize};
    use std::sync::Arc;

    /// Writes down every call, in order, as text.
    #[derive(Default)]
    struct Log(Vec<String>, bool);

    impl Observer for Log {
        fn ready(&mut self, op: OpId, d: &OpDesc, cpu: usize, nic: Option<usize>) {
            self.0.push(format!("ready {op} {d:?} {cpu} {nic:?}"));
        }
        fn queued(&mut self, key: Key, from: At, cost: Cost, extra: Time) {
            self.0.push(format!("queued {key:?} {from:?} {cost:?} {extra}"));
        }
        fn begin(&mut self, key: Key, op: OpId, host: Option<u32>, clocks: &[Clock]) {
            self.0.push(format!("begin {key:?} {op} {host:?} {clocks:?}"));
        }
        fn advance(&mut self, clock: Clock, from: At, cost: Cost, extra: Time) {
            self.0.push(format!("advance {clock:?} {from:?} {cost:?} {extra}"));
        }
        fn set(&mut self, clock: Clock, at: At, max: bool) {
            self.0.push(format!("set {clock:?} {at:?} {max}"));
        }
        fn release(&mut self, at: At) {
            self.0.push(format!("release {at:?}"));
        }
        fn delayed(&mut self, key: Key, op: OpId, cost: Cost) {
            self.0.push(format!("delayed {key:?} {op} {cost:?}"));
        }
        fn after(&mut self, key: Key, earlier: Key) {
            self.0.push(format!("after {key:?} {earlier:?}"));
        }
        fn posted(&mut self, recv: OpId) {
            self.0.push(format!("posted {recv}"));
        }
        fn wildcard(&mut self) {
            self.0.push("wildcard".into());
        }
        fn finish(&mut self, ends: &[Clock]) {
            assert!(!self.1, "finished once");
            self.0.push(format!("finish {ends:?}"));
            self.1 = true;
        }
        fn into_any(self: Box<Self>) -> Box<dyn Any> {
            self
        }
    }

    /// Call `i` of a varied sequence: every kind of call, with arguments from `i`.
    fn call(o: &mut dyn Observer, i: usize) {
        let (k, c) = (i as u64, Clock::NicSend(i % 7));
        let d = OpDesc { kind: OpKind::Send, rank: i as u32, peer: -1, tag: 3, size: k, cpu: 1, nic: 0 };
        match i % 10 {
            0 => o.ready(i as OpId, &d, i, i.is_multiple_of(2).then_some(i / 2)),
            // With noise and without, every other time.
            1 => o.queued(
                Key::Msg(i as u32),
                At::BeginOr(c),
                Cost::RecvCpu { level: Level::Node, k, gap_bytes: 2 },
                k % 2,
            ),
            2 => o.begin(Key::Op(i as OpId), 7, Some(2), &[Clock::Cpu(i), c, Clock::Link(1 << 40)][..i % 4]),
            3 => o.advance(c, At::Clock(Clock::HostDisk(i)), Cost::Compute(k), (k / 10) % 2 * 5),
            4 => o.set(Clock::Disk(i), At::Begin, i.is_multiple_of(3)),
            5 => o.release(At::Clock(c)),
            6 => o.delayed(Key::Msg(1), i as OpId, Cost::LinkWait { class: 0, ps: k }),
            7 => o.after(Key::Msg(i as u32), Key::Op(2)),
            8 => o.posted(i as OpId),
            _ => o.wildcard(),
        }
    }

    #[test]
    fn clocks_and_times_come_back_as_packed_and_a_call_takes_48_bytes() {
        let big = (1 << INDEX_BITS) - 1;
        for i in [0, 1, 12_345, 1 << 40, big] {
            let clocks = [Clock::Cpu(i), Clock::Core(i), Clock::NicSend(i), Clock::NicRecv(i)];
            let more = [Clock::Link(i), Clock::Disk(i), Clock::HostDisk(i)];
            for c in clocks.into_iter().chain(more) {
                assert_eq!(PackedClock::of(c).get(), c);
                for at in [At::Begin, At::Clock(c), At::BeginOr(c)] {
                    assert_eq!(PackedAt::of(at).get(), at);
                }
            }
        }
        assert_eq!(std::mem::size_of::<Call>(), 48);
    }

    #[test]
    fn the_observer_beside_is_told_every_call_in_order_and_finishes_once() {
        // Several batches and a part of one: 2.5 batches of calls.
        let n = BATCH * 5 / 2;
        let mut direct = Log::default();
        let mut relay = Relay::start(Box::new(Log::default())).expect("a thread");
        for i in 0..n {
            call(&mut direct, i);
            call(&mut relay, i);
        }
        let ends = [Clock::Cpu(0), Clock::HostDisk(1)];
        direct.finish(&ends);
        relay.finish(&ends);
        let told = relay.into_inner();
        assert_eq!(told.0.len(), n + 1);
        assert_eq!(told.0, direct.0);
        assert!(told.1);
    }

    #[test]
    fn an_observer_not_finished_is_given_back_with_every_call_so_far() {
        let mut relay = Relay::start(Box::new(Log::default())).expect("a thread");
        for i in 0..BATCH + 3 {
            call(&mut relay, i);
        }
        let told = relay.into_inner();
        assert_eq!((told.0.len(), told.1), (BATCH + 3, false));
        assert_eq!(told.0.last().map(String::as_str), Some("posted 4098"));
    }

    /// Counts its calls, and says when it is dropped.
    struct Counted(Arc<AtomicUsize>, Arc<AtomicBool>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.store(true, SeqCst);
        }
    }

    impl Observer for Counted {
        fn ready(&mut self, _: OpId, _: &OpDesc, _: usize, _: Option<usize>) {
            self.0.fetch_add(1, SeqCst);
        }
        fn queued(&mut self, _: Key, _: At, _: Cost, _: Time) {
            self.0.fetch_add(1, SeqCst);
        }
        fn begin(&mut self, _: Key, _: OpId, _: Option<u32>, _: &[Clock]) {
            self.0.fetch_add(1, SeqCst);
        }
        fn advance(&mut self, _: Clock, _: At, _: Cost, _: Time) {
            self.0.fetch_add(1, SeqCst);
        }
        fn set(&mut self, _: Clock, _: At, _: bool) {
            self.0.fetch_add(1, SeqCst);
        }
        fn release(&mut self, _: At) {
            self.0.fetch_add(1, SeqCst);
        }
        fn delayed(&mut self, _: Key, _: OpId, _: Cost) {
            self.0.fetch_add(1, SeqCst);
        }
        fn after(&mut self, _: Key, _: Key) {
            self.0.fetch_add(1, SeqCst);
        }
        fn posted(&mut self, _: OpId) {
            self.0.fetch_add(1, SeqCst);
        }
        fn wildcard(&mut self) {
            self.0.fetch_add(1, SeqCst);
        }
        fn finish(&mut self, _: &[Clock]) {}
        fn into_any(self: Box<Self>) -> Box<dyn Any> {
            self
        }
    }

    #[test]
    fn a_run_that_stops_early_ends_the_thread_and_frees_the_observer() {
        let (calls, dropped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let mut relay = Relay::start(Box::new(Counted(Arc::clone(&calls), Arc::clone(&dropped)))).expect("a thread");
        // Two whole batches, handed over as they filled, and three calls not (calls
        // without noise: one entry each).
        for i in 0..2 * BATCH + 3 {
            relay.posted(i as OpId);
        }
        drop(relay);
        // Dropping waited for the thread: it had told the batches handed over and
        // freed the observer before the drop returned.
        assert!(dropped.load(SeqCst));
        assert_eq!(calls.load(SeqCst), 2 * BATCH);
    }

    /// Panics on its first call.
    struct Broken;

    impl Observer for Broken {
        fn ready(&mut self, _: OpId, _: &OpDesc, _: usize, _: Option<usize>) {
            panic!("the observer broke");
        }
        fn queued(&mut self, _: Key, _: At, _: Cost, _: Time) {}
        fn begin(&mut self, _: Key, _: OpId, _: Option<u32>, _: &[Clock]) {}
        fn advance(&mut self, _: Clock, _: At, _: Cost, _: Time) {}
        fn set(&mut self, _: Clock, _: At, _: bool) {}
        fn release(&mut self, _: At) {}
        fn delayed(&mut self, _: Key, _: OpId, _: Cost) {}
        fn after(&mut self, _: Key, _: Key) {}
        fn posted(&mut self, _: OpId) {}
        fn wildcard(&mut self) {}
        fn finish(&mut self, _: &[Clock]) {}
        fn into_any(self: Box<Self>) -> Box<dyn Any> {
            self
        }
    }

    #[test]
    #[should_panic(expected = "the observer broke")]
    fn a_panic_on_the_observers_thread_is_raised_where_the_run_ends() {
        let mut relay = Relay::start(Box::new(Broken)).expect("a thread");
        for i in 0..3 * BATCH {
            call(&mut relay, i);
        }
        relay.finish(&[]);
    }
}
