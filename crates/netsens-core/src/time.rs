//! Virtual time: integer picoseconds, and per-byte costs with sub-picosecond precision.

use serde::{Deserialize, Serialize};

/// A point or span of virtual time in picoseconds.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const S: Time = 1_000_000_000_000;

/// A cost per byte (G, O, or a wide-area link's 1/bandwidth), kept in femtoseconds
/// per byte so that bandwidths like 3 GB/s (333.3 ps/B) are not rounded away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PerByte(pub u64);

impl PerByte {
    pub const ZERO: PerByte = PerByte(0);

    pub fn from_ps(ps_per_byte: u64) -> Self {
        PerByte(ps_per_byte * 1000)
    }

    pub fn fs_per_byte(self) -> u64 {
        self.0
    }

    /// Time to move `bytes` bytes, rounded to the nearest picosecond
    /// (exact whenever the cost is a whole number of picoseconds per byte).
    #[inline]
    pub fn cost(self, bytes: u64) -> Time {
        if self.0.is_multiple_of(1000) {
            bytes * (self.0 / 1000)
        } else {
            ((bytes as u128 * self.0 as u128 + 500) / 1000) as Time
        }
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}
