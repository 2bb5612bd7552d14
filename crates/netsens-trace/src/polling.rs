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

/// One rank's polling state between its outermost MPI calls.
#[derive(Debug, Default)]
pub(crate) struct Polls {
    last: Last,
    /// The call in progress polls: a test (`false`) or a probe (`true`).
    call: Option<bool>,
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
    /// The outermost call `call` begins: whether the gap before it, measured by the
    /// thread CPU time when `by_cpu`, was waiting rather than compute.
    pub fn enter(&mut self, call: &str, by_cpu: bool) -> bool {
        self.call = poll_kind(call);
        self.waiting(by_cpu, RECEIVES.contains(&call))
    }

    /// Whether the outermost call in progress is a test (`MPI_Test*`).
    pub fn in_test(&self) -> bool {
        self.call == Some(false)
    }

    /// Whether the gap since the last call, ending in something other than a call
    /// (measurement paused), was waiting.
    pub fn gap_is_waiting(&self, by_cpu: bool) -> bool {
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

    /// The outermost call in progress ends, having completed `completions` requests,
    /// with `pending_collectives` non-blocking collectives still pending.
    pub fn leave(&mut self, completions: u32, pending_collectives: u32) {
        self.last = match self.call.take() {
            Some(_) if completions == 0 && pending_collectives > 0 => Last::AwaitingCollective,
            Some(true) => Last::Probe,
            Some(false) if completions == 0 => Last::Unsuccessful,
            _ => Last::Other,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap_after(calls: &[(&str, u32)], next: &str, by_cpu: bool) -> bool {
        let mut p = Polls::default();
        for &(call, completions) in calls {
            p.enter(call, by_cpu);
            p.leave(completions, 0);
        }
        p.enter(next, by_cpu)
    }

    #[test]
    fn only_the_gap_after_a_poll_that_found_nothing_is_waiting() {
        assert!(gap_after(&[("MPI_Test", 0)], "MPI_Test", false));
        assert!(gap_after(&[("MPI_Testsome", 0)], "MPI_Isend", false));
        assert!(!gap_after(&[("MPI_Test", 1)], "MPI_Test", false));
        assert!(!gap_after(&[("MPI_Test", 0), ("MPI_Wait", 1)], "MPI_Send", false));
        assert!(!gap_after(&[("MPI_Isend", 0)], "MPI_Test", false));
        assert!(!gap_after(&[("MPI_Test_cancelled", 0)], "MPI_Test", false));
    }

    #[test]
    fn a_probe_before_a_receive_found_its_message() {
        assert!(gap_after(&[("MPI_Iprobe", 0)], "MPI_Iprobe", false));
        assert!(gap_after(&[("MPI_Iprobe", 0)], "MPI_Test", false));
        assert!(!gap_after(&[("MPI_Iprobe", 0)], "MPI_Irecv", false));
        assert!(!gap_after(&[("MPI_Iprobe", 0)], "MPI_Recv", false));
    }

    #[test]
    fn on_the_cpu_clock_the_polls_stay_charged_unless_a_collective_is_pending() {
        assert!(!gap_after(&[("MPI_Test", 0)], "MPI_Test", true));
        assert!(!gap_after(&[("MPI_Iprobe", 0)], "MPI_Test", true));
        let mut p = Polls::default();
        p.enter("MPI_Iprobe", true);
        p.leave(0, 1);
        assert!(p.enter("MPI_Irecv", true), "waiting for the collective, on either clock");
        p.leave(0, 1);
        p.enter("MPI_Test", true);
        p.leave(1, 0);
        assert!(!p.enter("MPI_Barrier", true));
    }
}
