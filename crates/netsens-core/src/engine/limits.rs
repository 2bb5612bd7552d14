//! The engine's range: clock arithmetic that stops the run, naming the operation,
//! instead of wrapping or saturating past the largest time.

use super::{Core, OpId, Phase};
use crate::error::Error;
use crate::time::{PerByte, Time};

/// The error of a run stopped at the largest time; `what` names the operation.
pub(super) fn past_largest_time(what: &str) -> Error {
    Error::Input(format!(
        "{what} would end after the engine's largest time, 2^64-1 ps (about 213 days); the run stopped instead \
         of giving a wrong time (shorten the run: smaller sizes, per-byte costs or compute)"
    ))
}

impl Core {
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
