//! A workload read once for several analyses in one process: a comparison's points
//! each analyse the same trace or GOAL file on another network, and reading it is
//! most of a run of a trace (libotf2's events, the schedule built from them). The
//! last one read is kept while the caller asks, keyed by the file (path, size and
//! modification time) and how it was read; any other read, or one not asking, lets
//! it go.

use std::any::Any;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use pyo3::prelude::*;

#[derive(PartialEq, Eq)]
struct Key {
    path: PathBuf,
    len: u64,
    modified: SystemTime,
    how: String,
}

impl Key {
    /// `None` where the file cannot be looked at (the read itself then says why).
    fn of(path: &str, how: String) -> Option<Key> {
        let path = std::fs::canonicalize(path).ok()?;
        let meta = std::fs::metadata(&path).ok()?;
        Some(Key { len: meta.len(), modified: meta.modified().ok()?, path, how })
    }
}

type Shared = Arc<dyn Any + Send + Sync>;

static KEPT: Mutex<Option<(Key, Shared)>> = Mutex::new(None);

/// The workload at `path` read as `how` says by `read`: the one kept where it is the
/// same file read the same way and `keep` asks for it; else read now, and kept where
/// `keep` asks (the one kept before let go first, so that two are never held).
pub fn read<T: Send + Sync + 'static>(
    path: &str,
    how: String,
    keep: bool,
    read: impl FnOnce() -> PyResult<T>,
) -> PyResult<Arc<T>> {
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let key = keep.then(|| Key::of(path, how)).flatten();
    if let (Some(key), Some((k, v))) = (&key, kept.as_ref()) {
        if k == key {
            if let Ok(v) = v.clone().downcast::<T>() {
                return Ok(v);
            }
        }
    }
    *kept = None;
    let v = Arc::new(read()?);
    if let Some(key) = key {
        *kept = Some((key, v.clone() as Shared));
    }
    Ok(v)
}

/// Let the workload kept go (a comparison's end).
#[pyfunction]
pub fn forget_kept_read() {
    *KEPT.lock().unwrap_or_else(|e| e.into_inner()) = None;
}
