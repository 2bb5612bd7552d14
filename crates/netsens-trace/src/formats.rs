//! Where every trace format enters: the path decides the reader, and each reader hands
//! the same definitions and events to a [`Sink`] (crate::replay builds the schedule,
//! crate::info describes the trace).

use std::path::Path;

use crate::ffi::{self, Sink};
use crate::{allprof, dumpi};

/// Read the trace at `path` into `sink`: a liballprof trace (its directory or one of
/// its `pmpi-trace-rank-N.txt` or `htor-coll-rank-N.dat` files), a DUMPI trace (its `.meta` file, or a directory
/// holding one), else an OTF2 archive (its `.otf2` anchor file).
/// With `events` false, only the definitions.
pub fn read(path: &str, sink: &mut dyn Sink, events: bool) -> Result<(), String> {
    if let Some(files) = allprof::rank_files(path) {
        return allprof::read(&files?, sink, events);
    }
    if let Some(meta) = dumpi::meta_file(path) {
        return dumpi::read(&meta?, sink, events);
    }
    if Path::new(path).is_dir() {
        return Err(format!(
            "{path}: a directory, not a trace: give an OTF2 archive's .otf2 file, a directory of liballprof's \
             pmpi-trace-rank-N.txt or htor-coll-rank-N.dat files, or a DUMPI trace's .meta file"
        ));
    }
    ffi::read(path, sink, events)
}
