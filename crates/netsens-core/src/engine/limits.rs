//! The engine's range: clock arithmetic that stops the run, naming the operation,
//! instead of wrapping or saturating past the largest time.

use super::message::Phase;
use super::observe::Observer;
use super::{Core, OpId};
use crate::error::Error;
use crate::platform::LevelParams;
use crate::time::{PerByte, Time};

/// The error of a run stopped at the largest time; `what` names the operation.
pub(super) fn past_largest_time(what: &str) -> Error {
    Error::Input(format!(
        "{what} would end after the engine's largest time, 2^64-1 ps (about 213 days); the run stopped instead \
         of giving a wrong time (shorten the run: smaller sizes, per-byte costs or compute)"
    ))
}

/// A byte total of the run's profile (a rank's bytes sent or received, a histogram
/// bin, a matrix cell, a wide-area link) would pass 2^64 − 1.
pub(super) fn bytes_past_largest_total() -> Error {
    Error::Input(
        "the bytes sent would total more than 2^64-1 B on one rank, size bin, pair of ranks or link; \
         the run stopped instead of reporting a wrong total (use smaller messages)"
            .into(),
    )
}

/// Bytes the core allocates for a run of `ranks` ranks before its first event: clocks,
/// queues, waiting groups, per-rank statistics and, when asked for, the dense
/// message matrix (a lower bound: messages in flight come on top).
pub fn state_bytes(ranks: u128, ncpus: u128, nnics: u128, matrix: bool) -> u128 {
    use std::mem::size_of;
    let per_rank = ncpus * size_of::<Time>() as u128
        + 2 * nnics * size_of::<Time>() as u128
        + 2 * size_of::<std::collections::VecDeque<u32>>() as u128
        + size_of::<crate::profile::RankStats>() as u128
        + ncpus * nnics * 3 * size_of::<u32>() as u128
        + size_of::<Time>() as u128;
    let cells = if matrix && ranks <= crate::profile::DENSE_MATRIX_MAX_RANKS as u128 { ranks * ranks } else { 0 };
    ranks * per_rank + cells * size_of::<(u64, u64)>() as u128
}

impl<O: Observer + ?Sized> Core<O> {
    /// `a + b` for operation `op`; a time past the engine's largest stops the run.
    #[inline]
    pub(super) fn add(&mut self, op: OpId, a: Time, b: Time) -> Time {
        match a.checked_add(b) {
            Some(t) => t,
            None => self.overflowed(op),
        }
    }

    /// `cost · bytes` for operation `op`, checked as [`Core::add`].
    #[inline]
    pub(super) fn per_byte(&mut self, op: OpId, cost: PerByte, bytes: u64) -> Time {
        match cost.checked_cost(bytes) {
            Some(t) => t,
            None => self.overflowed(op),
        }
    }

    /// The per-byte gap of a message of `wire` bytes for operation `op`: G·(wire − 1),
    /// or 0 at most `gap_above` bytes (see [`LevelParams::gap_bytes`]), checked as
    /// [`Core::add`].
    #[inline]
    pub(super) fn gap_bytes(&mut self, op: OpId, p: &LevelParams, wire: u64) -> Time {
        if wire > p.gap_above {
            self.per_byte(op, p.gap_per_byte, wire.saturating_sub(1))
        } else {
            0
        }
    }

    #[cold]
    pub(super) fn overflowed(&mut self, op: OpId) -> Time {
        self.overflow.get_or_insert(op);
        self.queue.clear();
        Time::MAX
    }

    /// The operation a message in `phase` belongs to (the receive for a clear-to-send).
    pub(super) fn msg_op(&self, id: u32, phase: Phase) -> OpId {
        let m = &self.msgs[id as usize];
        if phase == Phase::Cts {
            m.recv_op
        } else {
            m.send_op
        }
    }
}
