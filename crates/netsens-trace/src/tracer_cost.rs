//! The tracer's own cost in the gaps between MPI calls.
//!
//! Replay charges the time from a call's leave to the next call's enter as the
//! program's compute. Part of that time is the tracer's: the rest of the leave's
//! record, the next enter's region lookup, record and clock reads. netsens's PMPI
//! library measures that part at start-up (a burst of back-to-back calls with nothing
//! between them, native/pmpi/trace.c) and stores it per rank in the archive, on the
//! wall clock and, where it records CPU times, on the thread CPU clock. Replay removes
//! it from every gap it charges as compute, never below 0, and says how much it
//! removed. An archive without it (another tracer's, or netsens's before it recorded
//! one) is charged whole unless the caller gives a cost ([`crate::ReadOptions::tracer_gap`]).

use crate::ffi::NO_CPU_TIME;

/// What the tracer adds to one gap between two calls of a rank, ps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TracerGap {
    pub wall_ps: Option<u64>,
    pub cpu_ps: Option<u64>,
}

impl TracerGap {
    /// As the archive records it ([`NO_CPU_TIME`]: not recorded).
    pub fn recorded(wall_ps: u64, cpu_ps: u64) -> TracerGap {
        let known = |ps| (ps != NO_CPU_TIME).then_some(ps);
        TracerGap { wall_ps: known(wall_ps), cpu_ps: known(cpu_ps) }
    }

    /// The same cost on both clocks (a cost the caller gives).
    pub fn given(ps: u64) -> TracerGap {
        TracerGap { wall_ps: Some(ps), cpu_ps: Some(ps) }
    }

    /// The cost on the clock that measured the gap, if known.
    pub fn on(&self, by_cpu: bool) -> Option<u64> {
        if by_cpu {
            self.cpu_ps
        } else {
            self.wall_ps
        }
    }

    /// A gap of `gap_ps` measured on the CPU clock (`by_cpu`) or the wall clock, split
    /// into the program's part and the tracer's (at most the whole gap).
    pub fn split(&self, gap_ps: u64, by_cpu: bool) -> (u64, u64) {
        let tracer = self.on(by_cpu).unwrap_or(0).min(gap_ps);
        (gap_ps - tracer, tracer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tracer_part_never_exceeds_the_gap_and_follows_the_clock() {
        let g = TracerGap::recorded(80_000, 300_000);
        assert_eq!(g.split(1_000_000, false), (920_000, 80_000));
        assert_eq!(g.split(1_000_000, true), (700_000, 300_000));
        assert_eq!(g.split(50_000, false), (0, 50_000));
        let old = TracerGap::recorded(NO_CPU_TIME, NO_CPU_TIME);
        assert_eq!(old, TracerGap::default());
        assert_eq!(old.split(1_000, false), (1_000, 0));
        let wall_only = TracerGap::recorded(80_000, NO_CPU_TIME);
        assert_eq!(wall_only.split(1_000, true), (1_000, 0));
    }
}
