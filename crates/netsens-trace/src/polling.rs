//! Polls: what an `MPI_Test*` or `MPI_Iprobe` that found nothing says about the time
//! after it.
//!
//! A rank that polls and finds nothing is waiting for what it polls for, the request or
//! the message, not computing: the gap from such a poll to the rank's next call is left
//! out of the replay, so the rank is idle until what it polled for completes, as at an
//! `MPI_Wait`. The replay's own order then holds it there: the op after the test that
//! completes a request waits for that request, and a receive posted after a probe
//! waits for its message.
//!
//! With [`PollRuns::Work`], not when the rank stops polling without getting it: a run of
//! polls that found nothing and ends in a call that starts something new (a send, a
//! receive posted without a probe, a collective) was no wait. The rank looked and went
//! on with its own work, as a program does that checks for messages between its sends
//! (the suite's MPI backend probed every pending receive before each send it started,
//! until it learnt to probe once for any message).
//! That run's polls and the gaps between them are then the rank's own time, charged as
//! compute when the run ends, less the tracer's cost inside each poll where it is
//! given. A run that ends in what it polled for (a test that completes a request, a
//! probe whose message the next call receives) or in a blocking wait or receive is
//! waiting either way.
//!
//! Measured by the rank's thread CPU time (ranks sharing cores, where the archive
//! records it), the gap is the CPU the polling loop took from the other ranks of its
//! core, and stays charged as compute; except while a non-blocking collective is
//! pending, where the gap after an unsuccessful poll is waiting on either clock.
//!
//! A test found nothing when it completed no request. An `MPI_Iprobe` records no
//! result: it found a message when the rank's next call receives one (the program
//! probes, then receives what it found), and nothing otherwise.

/// Receiving calls: a probe right before one of them found its message.
const RECEIVES: &[&str] = &["MPI_Recv", "MPI_Irecv", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Mrecv", "MPI_Imrecv"];

/// Blocking calls that end a run of unsuccessful polls as a wait: the rank stopped
/// polling to wait for the same kind of thing without polling.
const WAITS: &[&str] = &[
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Recv",
    "MPI_Sendrecv",
    "MPI_Sendrecv_replace",
    "MPI_Mrecv",
    "MPI_Probe",
    "MPI_Mprobe",
];

/// How replay charges a run of unsuccessful polls that ends in new work rather than in
/// what it polled for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PollRuns {
    /// Left out, as every unsuccessful poll's gap (the rank waited).
    #[default]
    Wait,
    /// Charged as the rank's compute: its polls, less the tracer's cost inside each
    /// (ps, on the wall clock), and the program's part of the gaps between them.
    Work { tracer_call_ps: u64 },
}

impl PollRuns {
    /// `"wait"` or `"work"`, with the tracer's cost inside a poll (ps) for `"work"`.
    pub fn parse(mode: &str, tracer_call_ps: Option<u64>) -> Result<PollRuns, String> {
        match (mode, tracer_call_ps) {
            ("wait", None) => Ok(PollRuns::Wait),
            ("wait", Some(_)) => Err("tracer_call: applies to poll_runs \"work\" only".to_string()),
            ("work", ps) => Ok(PollRuns::Work { tracer_call_ps: ps.unwrap_or(0) }),
            _ => Err(format!("poll_runs: {mode:?} is not one of \"wait\", \"work\"")),
        }
    }
}

/// What a rank's last outermost call was, as far as the gap after it is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Last {
    #[default]
    Other,
    /// A test that completed nothing.
    Unsuccessful,
    /// A probe: unsuccessful unless the next call receives.
    Probe,
    /// An unsuccessful test or probe while a non-blocking collective was pending.
    AwaitingCollective,
}

/// What the gap before a rank's next call was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gap {
    /// The rank's own compute.
    Compute,
    /// Waiting for what the rank polled for: left out.
    Waiting,
    /// Inside a run of unsuccessful polls whose end is not known yet: held
    /// ([`Polls::add_to_run`]) until it is.
    InRun,
    /// The end of a run of unsuccessful polls that was no wait: the gap is compute, and
    /// so is the run held ([`Polls::take_run`]).
    RunWasWork,
}

/// The time of a run of unsuccessful polls not yet known to be waiting or work, ps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PollRun {
    /// The polls' own durations, less the tracer's cost inside each.
    pub polls_ps: u64,
    /// The gaps between them: the program's part and the tracer's, and how many.
    pub gaps_own_ps: u64,
    pub gaps_tracer_ps: u64,
    pub gaps: u64,
}

/// One rank's polling state between its outermost MPI calls.
#[derive(Debug, Default)]
pub(crate) struct Polls {
    runs: PollRuns,
    last: Last,
    /// The call in progress polls: a test (`false`) or a probe (`true`).
    call: Option<bool>,
    /// When the call in progress began (wall clock, ps).
    entered_ps: u64,
    /// The run of unsuccessful polls in progress ([`PollRuns::Work`], wall clock only).
    run: PollRun,
}

/// A test (`MPI_Test`, `MPI_Testany`, `MPI_Testsome`, `MPI_Testall`) or a probe
/// (`MPI_Iprobe`): Some(true) for a probe, Some(false) for a test, None otherwise.
fn poll_kind(call: &str) -> Option<bool> {
    match call {
        "MPI_Iprobe" => Some(true),
        "MPI_Test" | "MPI_Testany" | "MPI_Testsome" | "MPI_Testall" => Some(false),
        _ => None,
    }
}

impl Polls {
    /// A rank's polls, their runs charged as `runs` says.
    pub fn new(runs: PollRuns) -> Polls {
        Polls { runs, ..Polls::default() }
    }

    /// The outermost call `call` begins at `at_ps`: what the gap before it was, measured
    /// by the thread CPU time when `by_cpu`.
    pub fn enter(&mut self, call: &str, by_cpu: bool, at_ps: u64) -> Gap {
        let kind = poll_kind(call);
        let receives = RECEIVES.contains(&call);
        let in_run = matches!(self.runs, PollRuns::Work { .. })
            && !by_cpu
            && matches!(self.last, Last::Unsuccessful | Last::Probe);
        self.call = kind;
        self.entered_ps = at_ps;
        if !in_run {
            return if self.waiting(by_cpu, receives) { Gap::Waiting } else { Gap::Compute };
        }
        let found = self.last == Last::Probe && receives;
        if found || WAITS.contains(&call) {
            // The run ends in what it polled for: it was waiting.
            self.run = PollRun::default();
            if found {
                Gap::Compute
            } else {
                Gap::Waiting
            }
        } else if kind.is_some() {
            Gap::InRun
        } else {
            Gap::RunWasWork
        }
    }

    /// Hold the gap before a poll of the run in progress (the program's part and the
    /// tracer's, ps).
    pub fn add_to_run(&mut self, own_ps: u64, tracer_ps: u64) {
        self.run.gaps_own_ps += own_ps;
        self.run.gaps_tracer_ps += tracer_ps;
        self.run.gaps += 1;
    }

    /// The run of unsuccessful polls that just ended as work, to be charged.
    pub fn take_run(&mut self) -> PollRun {
        std::mem::take(&mut self.run)
    }

    /// Whether the outermost call in progress is a test (`MPI_Test*`).
    pub fn in_test(&self) -> bool {
        self.call == Some(false)
    }

    /// Whether the gap since the last call, ending in something other than a call
    /// (measurement paused), was waiting. A run of polls in progress ends there as a
    /// wait: the measured part of the program ended while the rank polled.
    pub fn gap_is_waiting(&mut self, by_cpu: bool) -> bool {
        self.run = PollRun::default();
        self.waiting(by_cpu, false)
    }

    /// Whether the gap since the last call was waiting, when what ends it receives
    /// (`receives`: a probe before it found its message) or not.
    fn waiting(&self, by_cpu: bool, receives: bool) -> bool {
        match self.last {
            Last::Other => false,
            Last::AwaitingCollective => true,
            Last::Unsuccessful => !by_cpu,
            Last::Probe => !by_cpu && !receives,
        }
    }

    /// The outermost call in progress ends at `at_ps`, having completed `completions`
    /// requests, with `pending_collectives` non-blocking collectives still pending.
    pub fn leave(&mut self, completions: u32, pending_collectives: u32, at_ps: u64) {
        self.last = match self.call.take() {
            Some(_) if completions == 0 && pending_collectives > 0 => Last::AwaitingCollective,
            Some(true) => Last::Probe,
            Some(false) if completions == 0 => Last::Unsuccessful,
            _ => Last::Other,
        };
        match (self.runs, self.last) {
            // Part of a run unless it turns out to have found what it polled for.
            (PollRuns::Work { tracer_call_ps }, Last::Unsuccessful | Last::Probe) => {
                self.run.polls_ps += at_ps.saturating_sub(self.entered_ps).saturating_sub(tracer_call_ps);
            }
            _ => self.run = PollRun::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORK: PollRuns = PollRuns::Work { tracer_call_ps: 0 };

    /// The gap before `next`, after `calls` (name, requests completed), each 1 µs long
    /// and 1 µs apart.
    fn gap_after_with(runs: PollRuns, calls: &[(&str, u32)], next: &str, by_cpu: bool) -> Gap {
        let mut p = Polls::new(runs);
        let mut at = 0;
        for &(call, completions) in calls {
            p.enter(call, by_cpu, at);
            p.leave(completions, 0, at + 1_000_000);
            at += 2_000_000;
        }
        p.enter(next, by_cpu, at)
    }

    fn gap_after(calls: &[(&str, u32)], next: &str, by_cpu: bool) -> Gap {
        gap_after_with(PollRuns::Wait, calls, next, by_cpu)
    }

    #[test]
    fn only_the_gap_after_a_poll_that_found_nothing_is_waiting() {
        assert_eq!(gap_after(&[("MPI_Test", 0)], "MPI_Test", false), Gap::Waiting);
        assert_eq!(gap_after(&[("MPI_Testsome", 0)], "MPI_Isend", false), Gap::Waiting);
        assert_eq!(gap_after(&[("MPI_Test", 1)], "MPI_Test", false), Gap::Compute);
        assert_eq!(gap_after(&[("MPI_Test", 0), ("MPI_Wait", 1)], "MPI_Send", false), Gap::Compute);
        assert_eq!(gap_after(&[("MPI_Isend", 0)], "MPI_Test", false), Gap::Compute);
        assert_eq!(gap_after(&[("MPI_Test_cancelled", 0)], "MPI_Test", false), Gap::Compute);
    }

    #[test]
    fn a_probe_before_a_receive_found_its_message() {
        for runs in [PollRuns::Wait, WORK] {
            assert_eq!(gap_after_with(runs, &[("MPI_Iprobe", 0)], "MPI_Irecv", false), Gap::Compute);
            assert_eq!(gap_after_with(runs, &[("MPI_Iprobe", 0)], "MPI_Recv", false), Gap::Compute);
        }
        assert_eq!(gap_after(&[("MPI_Iprobe", 0)], "MPI_Iprobe", false), Gap::Waiting);
        assert_eq!(gap_after(&[("MPI_Iprobe", 0)], "MPI_Test", false), Gap::Waiting);
    }

    #[test]
    fn as_work_a_run_of_polls_that_ends_in_new_work_is_charged() {
        // Three probes that found nothing, each 2 µs (0.5 µs of it the tracer's), 1 µs
        // apart, then a send: the rank looked and went on.
        let mut p = Polls::new(PollRuns::Work { tracer_call_ps: 500_000 });
        for k in 0..3u64 {
            let gap = p.enter("MPI_Iprobe", false, k * 3_000_000);
            assert_eq!(gap, if k == 0 { Gap::Compute } else { Gap::InRun });
            if k > 0 {
                p.add_to_run(1_000_000, 0);
            }
            p.leave(0, 0, k * 3_000_000 + 2_000_000);
        }
        assert_eq!(p.enter("MPI_Isend", false, 9_000_000), Gap::RunWasWork);
        let run = p.take_run();
        assert_eq!((run.polls_ps, run.gaps_own_ps, run.gaps), (3 * 1_500_000, 2_000_000, 2));
        assert_eq!(p.take_run(), PollRun::default());
        // A test that found nothing, then a receive posted without a probe: new work too.
        assert_eq!(gap_after_with(WORK, &[("MPI_Test", 0)], "MPI_Irecv", false), Gap::RunWasWork);
        assert_eq!(gap_after_with(WORK, &[("MPI_Testsome", 0)], "MPI_Isend", false), Gap::RunWasWork);
        assert_eq!(gap_after_with(WORK, &[("MPI_Iprobe", 0)], "MPI_Allreduce", false), Gap::RunWasWork);
        assert_eq!(gap_after_with(WORK, &[("MPI_Test", 0)], "MPI_Test", false), Gap::InRun);
        // Ending in a blocking wait, the run waited.
        assert_eq!(gap_after_with(WORK, &[("MPI_Test", 0)], "MPI_Wait", false), Gap::Waiting);
    }

    #[test]
    fn as_work_a_run_that_ends_in_what_it_polled_for_is_dropped() {
        let mut p = Polls::new(WORK);
        p.enter("MPI_Test", false, 0);
        p.leave(0, 0, 1_000_000);
        assert_eq!(p.enter("MPI_Test", false, 2_000_000), Gap::InRun);
        p.add_to_run(1_000_000, 0);
        p.leave(1, 0, 3_000_000);
        assert_eq!(p.take_run(), PollRun::default(), "the test completed: the run was waiting");
        let mut p = Polls::new(WORK);
        p.enter("MPI_Iprobe", false, 0);
        p.leave(0, 0, 1_000_000);
        assert_eq!(p.enter("MPI_Irecv", false, 2_000_000), Gap::Compute);
        assert_eq!(p.take_run(), PollRun::default(), "the probe found its message");
    }

    #[test]
    fn on_the_cpu_clock_the_polls_stay_charged_unless_a_collective_is_pending() {
        for runs in [PollRuns::Wait, WORK] {
            assert_eq!(gap_after_with(runs, &[("MPI_Test", 0)], "MPI_Test", true), Gap::Compute);
            assert_eq!(gap_after_with(runs, &[("MPI_Iprobe", 0)], "MPI_Test", true), Gap::Compute);
            assert_eq!(gap_after_with(runs, &[("MPI_Iprobe", 0)], "MPI_Isend", true), Gap::Compute);
            let mut p = Polls::new(runs);
            p.enter("MPI_Iprobe", true, 0);
            p.leave(0, 1, 1);
            assert_eq!(p.enter("MPI_Irecv", true, 2), Gap::Waiting, "waiting for the collective, on either clock");
            p.leave(0, 1, 3);
            p.enter("MPI_Test", true, 4);
            p.leave(1, 0, 5);
            assert_eq!(p.enter("MPI_Barrier", true, 6), Gap::Compute);
        }
    }
}
