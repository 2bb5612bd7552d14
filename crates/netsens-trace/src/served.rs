//! Served communicators, told from the trace: where a rank takes requests as they come.
//!
//! A served communicator carries requests to a rank that serves them between its own
//! work (stores and active messages of a one-sided layer built on MPI messages): the
//! server's own work never waits for one ([`crate::ReadOptions::served`]). The trace
//! shows it by two things together, both needed:
//! - every message on the communicator is sent synchronously (`MPI_Issend`,
//!   `MPI_Ssend`): its sender asks to know when it was taken, so the sender is the
//!   one who waits for it;
//! - every receive of it is posted right after an `MPI_Iprobe` (the receiver asked for
//!   nothing before the message was there: it looked, found it, took it) and completed
//!   by a test (`MPI_Test*`), never by a wait or a blocking receive.
//!
//! A program that needs a message posts its receive and waits for it (or tests until it
//! is done): the second condition fails. A backend that matches the program's receives
//! by probing first (the suite's) takes its messages as a server takes requests, but
//! they are sent with `MPI_Isend`: the first fails. Either condition alone would take
//! one of these for a server; together they take neither.
//!
//! The pass reads the events only when the archive defines a synchronous send region,
//! so an archive without one costs only its definitions.

use std::collections::{BTreeMap, HashMap};

use netsens_core::Error;

use crate::ffi::{self, Event, Members, Sink};
use crate::replay::RegionKind;

/// What replay does with messages a rank may serve as they come.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Served {
    /// The communicators the trace shows served (see the module's comment).
    #[default]
    Auto,
    /// These communicators, by their OTF2 reference (empty: none).
    Listed(Vec<u32>),
}

impl Served {
    /// `"auto"`, `"none"` (or empty) or `"1,3"`: the served communicators' OTF2
    /// references, comma-separated.
    pub fn parse(text: &str) -> Result<Served, String> {
        match text.trim() {
            "auto" => return Ok(Served::Auto),
            "none" | "" => return Ok(Served::Listed(Vec::new())),
            _ => {}
        }
        let listed = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<u32>().map_err(|_| {
                    format!(
                        "served: \"{s}\" is not a communicator reference; write auto, none, or the numbers \
                         otf2-print shows in <>, e.g. 1 or 1,3"
                    )
                })
            })
            .collect::<Result<Vec<u32>, String>>()?;
        Ok(Served::Listed(listed))
    }

    /// The communicators served in the trace `anchor`: those listed, or those it shows.
    pub fn resolve(&self, anchor: &str) -> Result<Vec<u32>, Error> {
        match self {
            Served::Listed(comms) => Ok(comms.clone()),
            Served::Auto => served_communicators(anchor),
        }
    }
}

/// A region as this pass sees it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    SynchronousSend,
    Probe,
    Irecv,
    Test,
    Other,
}

#[derive(Default)]
struct RankState {
    depth: u32,
    /// The outermost call in progress, and the one before it.
    call: Option<Call>,
    previous: Option<Call>,
    /// Receives posted and not yet completed: whether a probe found each first.
    posted: HashMap<u64, bool>,
}

/// Per communicator: messages sent, of them synchronously; receives, of them taken as
/// a server takes a request.
#[derive(Clone, Copy, Default)]
struct Counts {
    sends: u64,
    synchronous: u64,
    receives: u64,
    taken: u64,
}

#[derive(Default)]
struct Tally {
    regions: HashMap<u32, (Call, RegionKind)>,
    ranks: Vec<RankState>,
    comms: BTreeMap<u32, Counts>,
}

impl Tally {
    fn has_synchronous_sends(&self) -> bool {
        self.regions.values().any(|&(call, _)| call == Call::SynchronousSend)
    }
}

impl Sink for Tally {
    fn ranks(&mut self, n: u32, _: &str, _: u64) -> Result<(), String> {
        self.ranks = (0..n).map(|_| RankState::default()).collect();
        Ok(())
    }

    fn region(&mut self, id: u32, name: &str, paradigm: u8) -> Result<(), String> {
        let call = match name {
            "MPI_Issend" | "MPI_Ssend" => Call::SynchronousSend,
            "MPI_Iprobe" => Call::Probe,
            "MPI_Irecv" => Call::Irecv,
            _ if name.starts_with("MPI_Test") => Call::Test,
            _ => Call::Other,
        };
        self.regions.insert(id, (call, RegionKind::of(name, paradigm)));
        Ok(())
    }

    fn comm(&mut self, _: u32, _: Members) -> Result<(), String> {
        Ok(())
    }

    fn event(&mut self, rank: u32, _: u64, ev: &Event) -> Result<(), String> {
        let st = &mut self.ranks[rank as usize];
        match ev.kind {
            ffi::ENTER | ffi::LEAVE => {
                let Some(&(call, RegionKind::Mpi)) = self.regions.get(&ev.region) else { return Ok(()) };
                if ev.kind == ffi::ENTER {
                    st.depth += 1;
                    if st.depth == 1 {
                        st.call = Some(call);
                    }
                } else {
                    st.depth = st.depth.saturating_sub(1);
                    if st.depth == 0 {
                        st.previous = st.call.take();
                    }
                }
            }
            ffi::SEND | ffi::ISEND => {
                let counts = self.comms.entry(ev.comm).or_default();
                counts.sends += 1;
                counts.synchronous += u64::from(st.call == Some(Call::SynchronousSend));
            }
            ffi::IRECV_POST => {
                let after_probe = st.call == Some(Call::Irecv) && st.previous == Some(Call::Probe);
                st.posted.insert(ev.req, after_probe);
            }
            ffi::IRECV_DONE | ffi::RECV => {
                let after_probe = ev.kind == ffi::IRECV_DONE && st.posted.remove(&ev.req).unwrap_or(false);
                let counts = self.comms.entry(ev.comm).or_default();
                counts.receives += 1;
                counts.taken += u64::from(after_probe && st.call == Some(Call::Test));
            }
            _ => {}
        }
        Ok(())
    }
}

/// The communicators the archive `anchor` shows served (see the module's comment), by
/// their OTF2 reference, in increasing order.
pub fn served_communicators(anchor: &str) -> Result<Vec<u32>, Error> {
    let mut tally = Tally::default();
    crate::formats::read(anchor, &mut tally, false).map_err(Error::Input)?;
    if !tally.has_synchronous_sends() {
        return Ok(Vec::new());
    }
    let mut tally = Tally::default();
    crate::formats::read(anchor, &mut tally, true).map_err(Error::Input)?;
    let served = tally.comms.iter().filter(|(_, c)| c.sends > 0 && c.synchronous == c.sends && c.taken == c.receives);
    Ok(served.filter(|(_, c)| c.receives > 0).map(|(&comm, _)| comm).collect())
}
