//! Virtual time: integer picoseconds, and per-byte costs with sub-picosecond precision.

use serde::{Deserialize, Serialize};

/// A point or span of virtual time in picoseconds.
pub type Time = u64;

pub const PS: Time = 1;
pub const NS: Time = 1_000;
pub const US: Time = 1_000_000;
pub const MS: Time = 1_000_000_000;
pub const S: Time = 1_000_000_000_000;

/// The engine's largest time, 2^64 − 1 ps (about 213 days). A run whose clocks would
/// pass it stops with an error instead of wrapping or saturating.
pub const TIME_MAX: Time = Time::MAX;

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

    /// As [`PerByte::cost`], or `None` when the time would pass [`TIME_MAX`].
    #[inline]
    pub fn checked_cost(self, bytes: u64) -> Option<Time> {
        if self.0.is_multiple_of(1000) {
            bytes.checked_mul(self.0 / 1000)
        } else {
            Time::try_from((bytes as u128 * self.0 as u128 + 500) / 1000).ok()
        }
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_cost_refuses_products_past_the_largest_time() {
        // 10^16 B at 6 ns/B = 6·10^22 ps > 2^64 − 1 ≈ 1.8·10^19 ps.
        assert_eq!(PerByte::from_ps(6 * NS).checked_cost(10u64.pow(16)), None);
        // 10^6 B at 6 ns/B = 6 ms exactly.
        assert_eq!(PerByte::from_ps(6 * NS).checked_cost(1_000_000), Some(6 * MS));
        // 333.333 ps/B (3 GB/s) · 3 B = 999.999 ps → 1000 ps; u64::MAX B does not fit.
        assert_eq!(PerByte(333_333).checked_cost(3), Some(1000));
        assert_eq!(PerByte(333_333).checked_cost(u64::MAX), None);
    }
}
