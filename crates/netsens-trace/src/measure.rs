//! What a trace measured of each rank, beside the compute replay charges it: a run
//! whose replayed compute exceeds the measured time says so instead of replaying to a
//! silently wrong time.

use netsens_core::units::format_time;

/// One rank's measured span: from where its program is first measured (for Score-P's
/// conventions, where `MPI_Init` returns) to its last event, less the time its
/// measurement was off; and the compute replay charged it in that span.
#[derive(Clone, Copy, Debug, Default)]
pub struct Measured {
    pub start_ps: u64,
    pub end_ps: u64,
    /// Time with measurement off (MEASUREMENT_ON_OFF, a trace buffer flush).
    pub paused_ps: u64,
    /// The compute charged as `calc`s (including the kept duration of opaque calls).
    pub compute_ps: u64,
    /// The tracer's cost removed from the gaps charged as compute ([`crate::tracer_cost`]).
    pub tracer_ps: u64,
    /// Gaps charged as compute.
    pub gaps: u64,
    /// Of the compute, the runs of unsuccessful polls that were no wait: the polls and
    /// the gaps between them ([`crate::polling`]).
    pub poll_runs_ps: u64,
    paused_since: Option<u64>,
}

impl Measured {
    /// The time the trace measured for the rank, ps.
    pub fn duration_ps(&self) -> u64 {
        self.end_ps.saturating_sub(self.start_ps).saturating_sub(self.paused_ps)
    }

    /// Measurement stopped at `at` (a second stop before a resume changes nothing).
    pub fn pause(&mut self, at: u64) {
        self.paused_since.get_or_insert(at);
    }

    /// Measurement resumed at `at`; the pause counts from the rank's start on.
    pub fn resume(&mut self, at: u64) {
        if let Some(since) = self.paused_since.take() {
            self.paused_ps += at.saturating_sub(since.max(self.start_ps));
        }
    }

    pub fn paused(&self) -> bool {
        self.paused_since.is_some()
    }
}

/// One line per trace (naming the first rank and how many more) where some rank's
/// charged compute exceeds its measured time by more than `precision_ps`, the trace's
/// clock tick: its thread CPU time ran faster than its wall clock, or its timestamps
/// are not those of one run.
pub fn compute_warnings(path: &str, ranks: &[Measured], precision_ps: u64) -> Vec<String> {
    let over: Vec<(usize, &Measured)> =
        ranks.iter().enumerate().filter(|(_, m)| m.compute_ps > m.duration_ps() + precision_ps).collect();
    let Some(&(rank, m)) = over.first() else {
        return Vec::new();
    };
    let more = match over.len() - 1 {
        0 => String::new(),
        n => format!(" (and {n} more rank(s))"),
    };
    vec![format!(
        "{path}: rank {rank}'s replayed compute ({}) exceeds the time the trace measured for it ({}){more}: \
         the recorded CPU time ran ahead of the wall clock; replay with --compute wall to charge the measured time",
        format_time(m.compute_ps),
        format_time(m.duration_ps())
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_is_not_measured_time_and_counts_only_after_the_start() {
        let mut m = Measured { start_ps: 100, ..Measured::default() };
        m.pause(50); // before the start: only 100..300 counts
        m.resume(300);
        m.pause(400);
        m.pause(450); // a second stop keeps the first
        m.resume(500);
        m.end_ps = 1000;
        assert_eq!(m.paused_ps, 200 + 100);
        assert_eq!(m.duration_ps(), 900 - 300);
        assert!(!m.paused());
    }

    #[test]
    fn compute_beyond_the_measured_time_and_its_precision_is_one_warning() {
        let m = |compute_ps| Measured { start_ps: 0, end_ps: 1_000_000, compute_ps, ..Measured::default() };
        assert!(compute_warnings("t", &[m(1_000_476)], 476).is_empty());
        let w = compute_warnings("t", &[m(10), m(1_000_477), m(2_000_000)], 476);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("t: rank 1's replayed compute (1000477ps) exceeds"), "{}", w[0]);
        assert!(w[0].contains("(1us) (and 1 more rank(s))"), "{}", w[0]);
    }
}
