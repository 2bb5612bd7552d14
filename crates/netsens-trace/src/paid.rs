//! The overhead a traced program paid per message: LogGP's o measured under the
//! program's own load, from the durations of its MPI calls.
//!
//! A message's end is counted when a non-blocking call started it (`MPI_Isend` and its
//! kin, `MPI_Irecv`) and a test (`MPI_Test*`) completed it: neither call waits, so
//! their whole duration is the CPU the message cost its rank. What it paid is the
//! starting call's duration (shared among the requests that call started) plus the
//! completing test's (shared among the requests it completed); a receive also pays the
//! `MPI_Iprobe` that found its message (the probe right before the call that posted it,
//! as `polling.rs` tells a probe that found something). The o paid is their sum over
//! every counted end of every rank, divided by the number of counted ends.
//!
//! Left out, because their duration mixes waiting with work: blocking sends and
//! receives, `MPI_Wait*` (a request they complete is not counted), collectives, and
//! the tests and probes that found nothing (they poll while the rank waits; the MPI
//! may progress other messages inside them, which this measure then misses, so it is
//! a lower bound of what a message cost). Messages
//! above `up_to` bytes are left out too: their cost grows with their bytes, which
//! the platform's O and G charge.

use std::collections::HashMap;

use netsens_core::Error;

use crate::ffi::{self, Event, Members, Sink};
use crate::replay::RegionKind;

/// What one rank paid for the message ends counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankPaid {
    /// The message ends counted (sends and receives).
    pub ends: u64,
    /// The time in the calls that started and completed them, ps.
    pub ps: u64,
}

/// What [`overhead_paid`] measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paid {
    pub ranks: Vec<RankPaid>,
    /// The o paid, ps: every rank's time over every rank's ends (None: no end counted).
    pub o_ps: Option<u64>,
    /// The size limit of the messages counted, bytes.
    pub up_to: u64,
}

/// A request started by a non-blocking call: its share of that call, and its size
/// when the call knew it (a send's; a receive's is known at completion).
#[derive(Clone, Copy)]
struct Started {
    share_ps: u64,
    bytes: Option<u64>,
}

/// What an outermost call is to this measure.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Poll {
    Test,
    Probe,
    Other,
}

#[derive(Default)]
struct RankState {
    depth: u32,
    /// The outermost call in progress: what it polls, and when it began.
    poll: Option<Poll>,
    enter_ps: u64,
    /// The duration of the last outermost call, if it was a probe.
    probe_ps: Option<u64>,
    /// Requests the call in progress started, and those it completed (with a
    /// receive's size).
    starting: Vec<u64>,
    completing: Vec<(u64, Option<u64>)>,
    /// Started requests not yet completed.
    open: HashMap<u64, Started>,
    sends: HashMap<u64, u64>,
    paid: RankPaid,
}

struct Tally {
    up_to: u64,
    regions: HashMap<u32, (Poll, RegionKind)>,
    ranks: Vec<RankState>,
}

impl Tally {
    fn leave(&mut self, rank: usize, time_ps: u64) {
        let up_to = self.up_to;
        let st = &mut self.ranks[rank];
        let duration = time_ps.saturating_sub(st.enter_ps);
        let poll = st.poll.take();
        let found_ps = std::mem::replace(&mut st.probe_ps, (poll == Some(Poll::Probe)).then_some(duration));
        let starting = std::mem::take(&mut st.starting);
        if !starting.is_empty() {
            let share_ps = duration / starting.len() as u64;
            let receives = starting.iter().filter(|req| !st.sends.contains_key(req)).count() as u64;
            for req in starting {
                let bytes = st.sends.remove(&req);
                // A receive's share of the probe that found its message.
                let probe_ps = match (bytes, found_ps) {
                    (None, Some(found)) => found / receives,
                    _ => 0,
                };
                st.open.insert(req, Started { share_ps: share_ps + probe_ps, bytes });
            }
        }
        let completing = std::mem::take(&mut st.completing);
        if completing.is_empty() {
            return;
        }
        let test_share = duration / completing.len() as u64;
        for (req, received) in completing {
            // Completed by a wait (or started before the trace): not counted.
            let Some(started) = st.open.remove(&req) else { continue };
            let bytes = started.bytes.or(received).unwrap_or(0);
            if poll == Some(Poll::Test) && bytes <= up_to {
                st.paid.ends += 1;
                st.paid.ps += started.share_ps + test_share;
            }
        }
    }
}

impl Sink for Tally {
    fn ranks(&mut self, n: u32, _: &str, _: u64) -> Result<(), String> {
        self.ranks = (0..n).map(|_| RankState::default()).collect();
        Ok(())
    }

    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        let poll = match name {
            "MPI_Iprobe" => Poll::Probe,
            _ if name.starts_with("MPI_Test") => Poll::Test,
            _ => Poll::Other,
        };
        self.regions.insert(id, (poll, RegionKind::of(name, paradigm)));
        Ok(())
    }

    fn comm(&mut self, _: u32, _: Members) -> Result<(), String> {
        Ok(())
    }

    fn event(&mut self, rank: u32, _: u64, ev: &Event) -> Result<(), String> {
        let r = rank as usize;
        match ev.kind {
            ffi::ENTER | ffi::LEAVE => {
                let Some(&(poll, RegionKind::Mpi)) = self.regions.get(&ev.region) else { return Ok(()) };
                let st = &mut self.ranks[r];
                if ev.kind == ffi::ENTER {
                    st.depth += 1;
                    if st.depth == 1 {
                        st.poll = Some(poll);
                        st.enter_ps = ev.time_ps;
                    }
                } else {
                    st.depth = st.depth.saturating_sub(1);
                    if st.depth == 0 {
                        self.leave(r, ev.time_ps);
                    }
                }
            }
            ffi::ISEND => {
                let st = &mut self.ranks[r];
                st.sends.insert(ev.req, ev.bytes);
                st.starting.push(ev.req);
            }
            ffi::IRECV_POST => self.ranks[r].starting.push(ev.req),
            ffi::ISEND_DONE => self.ranks[r].completing.push((ev.req, None)),
            ffi::IRECV_DONE => self.ranks[r].completing.push((ev.req, Some(ev.bytes))),
            _ => {}
        }
        Ok(())
    }
}

/// The o the program traced in `anchor` paid per message of at most `up_to` bytes
/// (see the module's comment).
pub fn overhead_paid(anchor: &str, up_to: u64) -> Result<Paid, Error> {
    let mut tally = Tally { up_to, regions: HashMap::new(), ranks: Vec::new() };
    crate::formats::read(anchor, &mut tally, true).map_err(Error::Input)?;
    let ranks: Vec<RankPaid> = tally.ranks.iter().map(|s| s.paid).collect();
    let ends: u64 = ranks.iter().map(|r| r.ends).sum();
    let ps: u64 = ranks.iter().map(|r| r.ps).sum();
    let o_ps = (ends > 0).then(|| ps / ends);
    Ok(Paid { ranks, o_ps, up_to })
}
