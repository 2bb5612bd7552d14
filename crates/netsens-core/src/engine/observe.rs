//! An optional observer beside the event loop: told, for every time the engine sets,
//! which earlier times it was the maximum of and what was added, in terms of the
//! platform's parameters. From that record an analysis can re-evaluate the run at
//! other parameters without running it again (see `crate::analysis`).
//!
//! A run without an observer makes none of these calls: each hook is one branch on
//! an empty `Option`.

use super::{OpDesc, OpId};
use crate::platform::Level;
use crate::time::Time;
use std::any::Any;

/// A next-free clock of the engine, by the index the core keeps it under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clock {
    /// A host's CPU clock (`host·ncpus + cpu`).
    Cpu(usize),
    /// A shared core's CPU clock (ranks sharing cores).
    Core(usize),
    NicSend(usize),
    NicRecv(usize),
    /// A link that messages queue for: today a directed wide-area link; a fabric
    /// with shared links reports its own through the same variant.
    Link(usize),
    Disk(usize),
    /// When a host's last disk request finished.
    HostDisk(usize),
}

impl Clock {
    /// Kinds of clock there are.
    pub const KINDS: usize = 7;

    /// Its kind (0 to 6, in the order of the variants) and its index.
    #[inline(always)]
    pub fn parts(self) -> (usize, usize) {
        match self {
            Clock::Cpu(i) => (0, i),
            Clock::Core(i) => (1, i),
            Clock::NicSend(i) => (2, i),
            Clock::NicRecv(i) => (3, i),
            Clock::Link(i) => (4, i),
            Clock::Disk(i) => (5, i),
            Clock::HostDisk(i) => (6, i),
        }
    }

    /// The clock of `kind` (as [`Clock::parts`] numbers them; 6 and above: a host's
    /// disk) and `index`.
    #[inline(always)]
    pub fn from_parts(kind: usize, index: usize) -> Clock {
        match kind {
            0 => Clock::Cpu(index),
            1 => Clock::Core(index),
            2 => Clock::NicSend(index),
            3 => Clock::NicRecv(index),
            4 => Clock::Link(index),
            5 => Clock::Disk(index),
            _ => Clock::HostDisk(index),
        }
    }
}

/// What the engine added to a time, in the platform's parameters, so that an
/// observer can evaluate it again at other values of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Zero,
    /// A computation of this many ps at CPU speed 1 (the time is it ÷ cpu_speed).
    Compute(Time),
    /// A sending CPU: o + k·O.
    SendCpu {
        level: Level,
        k: u64,
    },
    /// A receiving CPU: o + max(k·O, gap_bytes·G).
    RecvCpu {
        level: Level,
        k: u64,
        gap_bytes: u64,
    },
    /// A NIC between two messages: g + gap_bytes·G.
    Gap {
        level: Level,
        gap_bytes: u64,
    },
    /// From the start of a send to its arrival on the LAN: o + L.
    Wire {
        level: Level,
    },
    /// From the start of a send to the first wide-area link: o.
    ToLink {
        level: Level,
    },
    /// Bytes occupying a link: bytes · G_w.
    LinkBytes(u64),
    /// One link's latency L_w.
    LinkLatency,
    /// A time no parameter sets (a disk request's transfer).
    Fixed(Time),
    /// A topology route's link latencies (ps): the fabric's, held fixed.
    Route(Time),
    /// What a message's bytes took on its route's links alone beyond its NIC's
    /// `w·G` (a slower link), ps: held fixed.
    LinkTransmit(Time),
    /// What it waited on links shared with other messages, ps: held fixed. `class`:
    /// the fabric's class of the links that held its bytes back (a wait split over
    /// several classes is told once per class).
    LinkWait {
        class: u16,
        ps: Time,
    },
}

/// Which pending event a time belongs to: an operation's (ready, disk done) or a
/// message's (hop, arrival, protocol transmission).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Op(OpId),
    Msg(u32),
}

/// A time the engine refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// When the event being handled began.
    Begin,
    /// A clock's current value.
    Clock(Clock),
    /// The later of the two.
    BeginOr(Clock),
}

/// Told what each time of a run was made of. Every method has the engine's time
/// already computed; the observer keeps its own record of how.
pub trait Observer: Any {
    /// Operation `op` (described by `d`) becomes ready at the later of its CPU clock,
    /// the release time (see [`Observer::release`]) and, for a send, its send NIC.
    fn ready(&mut self, op: OpId, d: &OpDesc, cpu: usize, nic: Option<usize>);
    /// An event for `key` is queued at `from` + `cost` + `extra` (noise, jitter).
    fn queued(&mut self, key: Key, from: At, cost: Cost, extra: Time);
    /// The event for `key` (of operation `op`) is handled now on `host` (`None`: on
    /// `op`'s own), at the later of its own time and `clocks`.
    fn begin(&mut self, key: Key, op: OpId, host: Option<u32>, clocks: &[Clock]);
    /// `clock` becomes `from` + `cost` + `extra`.
    fn advance(&mut self, clock: Clock, from: At, cost: Cost, extra: Time);
    /// `clock` becomes the later of itself and `at` (`max`), or `at` itself.
    fn set(&mut self, clock: Clock, at: At, max: bool);
    /// Operations enabled next are ready no earlier than `at`.
    fn release(&mut self, at: At);
    /// The pending event for `key` (of operation `op`) comes `cost` later than told
    /// so far: the fabric adds a route's latency and its links' time as it learns them.
    fn delayed(&mut self, key: Key, op: OpId, cost: Cost);
    /// The pending event for `key` comes no earlier than that of `earlier` (messages
    /// of one pair arrive in their sending order).
    fn after(&mut self, key: Key, earlier: Key);
    /// The event being handled matched a message to receive `recv`: it happens no
    /// earlier than `recv` was posted (whichever of the two came first this time).
    fn posted(&mut self, recv: OpId);
    /// A receive with a wildcard source or tag was posted: which message it matches
    /// can depend on timing.
    fn wildcard(&mut self);
    /// The run ended; its end is the latest of these clocks.
    fn finish(&mut self, ends: &[Clock]);
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}
