//! An OTF2 archive written from events in the reader's own form
//! (native/otf2read/otf2_write.c): traces of any shape, for tests whose replay is
//! derived by hand.

use std::ffi::{c_char, CString};
use std::path::Path;

use netsens_core::Error;

pub use crate::ffi::{Event, COLL, ENTER, IRECV_DONE, IRECV_POST, ISEND, ISEND_DONE, LEAVE, NO_CPU_TIME, RECV, SEND};

extern "C" {
    fn ns_otf2_write(
        dir: *const c_char,
        ranks: u32,
        nnames: u32,
        names: *const *const c_char,
        n: u64,
        events: *const Event,
        ranks_of: *const u32,
        gaps: *const u64,
    ) -> i32;
}

/// Write the archive of `ranks` ranks in the new directory `dir`: region `r` is named
/// `regions[r]`, communicator 0 is the world and 1 a duplicate of it, timestamps are picoseconds, and each
/// `(rank, event)` comes in its rank's order (a non-blocking collective is not
/// written). Returns the anchor file's path.
pub fn write_archive(dir: &Path, ranks: u32, regions: &[&str], events: &[(u32, Event)]) -> Result<String, Error> {
    write_archive_with_gaps(dir, ranks, regions, events, None)
}

/// [`write_archive`], each rank's location carrying the tracer gaps netsens's tracer
/// records (`tracer_gaps[rank]`: wall and CPU clock, ps, [`NO_CPU_TIME`] for none).
pub fn write_archive_with_gaps(
    dir: &Path,
    ranks: u32,
    regions: &[&str],
    events: &[(u32, Event)],
    tracer_gaps: Option<&[(u64, u64)]>,
) -> Result<String, Error> {
    let text = dir.to_string_lossy().into_owned();
    let bad = |what: &str| Error::Input(format!("{text}: {what}"));
    let c_dir = CString::new(text.clone()).map_err(|_| bad("a NUL byte in the path"))?;
    let names: Vec<CString> = regions
        .iter()
        .map(|r| CString::new(*r))
        .collect::<Result<_, _>>()
        .map_err(|_| bad("a NUL byte in a region"))?;
    let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let (ranks_of, evs): (Vec<u32>, Vec<Event>) = events.iter().copied().unzip();
    if tracer_gaps.is_some_and(|g| g.len() != ranks as usize) {
        return Err(bad("tracer gaps: one (wall, cpu) pair per rank"));
    }
    let gaps: Option<Vec<u64>> = tracer_gaps.map(|g| g.iter().flat_map(|&(w, c)| [w, c]).collect());
    // SAFETY: every pointer names a live buffer of the stated length during the call.
    let rc = unsafe {
        ns_otf2_write(
            c_dir.as_ptr(),
            ranks,
            name_ptrs.len() as u32,
            name_ptrs.as_ptr(),
            evs.len() as u64,
            evs.as_ptr(),
            ranks_of.as_ptr(),
            gaps.as_ref().map_or(std::ptr::null(), |g| g.as_ptr()),
        )
    };
    if rc != 0 {
        return Err(bad("cannot write the OTF2 archive (an event kind it does not write?)"));
    }
    Ok(format!("{text}/traces.otf2"))
}
