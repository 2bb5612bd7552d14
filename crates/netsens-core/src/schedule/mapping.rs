//! A regular file mapped read-only, whose pages can be handed back to the kernel
//! once read (they read back from the file if touched again).
//!
//! A mapped file that another program truncates during a run raises SIGBUS when a
//! page past its new end is read: the input changed under the run. While a file is
//! mapped, that signal, at an address inside a mapping, ends the process with one
//! error line and exit code 2 instead of a crash; any other SIGBUS goes to the action
//! that was there before.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

pub(crate) struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
    /// Kept open to ask, by the descriptor, whether the mapped file was written.
    file: File,
    /// The file's modification time and length when it was mapped.
    written: (i64, i64, u64),
}

/// What a write to the file changes (an unlink, rename or chmod does not).
fn written(meta: &std::fs::Metadata) -> (i64, i64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.mtime(), meta.mtime_nsec(), meta.len())
}

// SAFETY: the mapping is never written, and releasing its pages (madvise) is safe
// from any thread: a released page reads back the same bytes from the file.
unsafe impl Sync for Mapping {}
unsafe impl Send for Mapping {}

impl Mapping {
    /// Map `path`; `None` when it is not a non-empty regular file or cannot be mapped
    /// (read it instead).
    pub(crate) fn open(path: &Path) -> io::Result<Option<Mapping>> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        if !meta.is_file() || len == 0 {
            return Ok(None);
        }
        // SAFETY: a fresh private read-only mapping of an open regular file.
        let ptr = unsafe {
            use std::os::fd::AsRawFd;
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0)
        };
        if ptr == libc::MAP_FAILED {
            return Ok(None);
        }
        watch_range(ptr as usize, len);
        Ok(Some(Mapping { ptr, len, file, written: written(&meta) }))
    }

    /// An error naming `name` unless the file still holds what was mapped, not
    /// written or resized since (a write in place of the same length raises no
    /// SIGBUS but changes the bytes the mapping reads).
    pub(crate) fn check_unchanged(&self, name: &str) -> crate::error::Result<()> {
        if self.file.metadata().is_ok_and(|meta| written(&meta) == self.written) {
            return Ok(());
        }
        Err(crate::error::Error::Input(format!(
            "\"{name}\" was written while it was being read; run again once it is complete"
        )))
    }

    /// The file is about to be read from start to end.
    pub(crate) fn advise_sequential(&self) {
        // SAFETY: the mapping is open, readable and `len` bytes long.
        unsafe { libc::madvise(self.ptr, self.len, libc::MADV_SEQUENTIAL) };
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: the mapping lives as long as `self` and is never written.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }

    /// Hand back the pages wholly within `start..end`.
    pub(crate) fn release(&self, start: usize, end: usize) {
        let page = page_size();
        let first = start.min(self.len).div_ceil(page) * page;
        let end = end.min(self.len) / page * page;
        if end > first {
            // SAFETY: the range lies within the private read-only mapping.
            unsafe { libc::madvise(self.ptr.cast::<u8>().add(first).cast(), end - first, libc::MADV_DONTNEED) };
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        unwatch_range(self.ptr as usize);
        // SAFETY: unmapping the mapping this value owns, once.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// Address ranges (start, end) of the live mappings, for the SIGBUS handler.
static MAPPED: [(AtomicUsize, AtomicUsize); 64] = [const { (AtomicUsize::new(0), AtomicUsize::new(0)) }; 64];
/// The SIGBUS action before ours (Rust's runtime has one in its own binaries).
static mut PREVIOUS: Option<libc::sigaction> = None;

/// Installs [`on_bus_error`] for SIGBUS, once, and notes `start..start + len`.
fn watch_range(start: usize, len: usize) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sigaction with valid pointers; PREVIOUS is written before the
        // handler that reads it is installed, and never again.
        unsafe {
            let mut previous: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous);
            PREVIOUS = Some(previous);
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
    // A slot is free when its start is 0; with every slot taken the range is not
    // watched (a crash as before, never a wrong answer).
    for (s, e) in &MAPPED {
        if s.compare_exchange(0, start, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            e.store(start + len, Ordering::Release);
            return;
        }
    }
}

fn unwatch_range(start: usize) {
    for (s, e) in &MAPPED {
        if s.load(Ordering::Acquire) == start {
            e.store(0, Ordering::Release);
            s.store(0, Ordering::Release);
            return;
        }
    }
}

extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    if MAPPED.iter().any(|(s, e)| (s.load(Ordering::Acquire)..e.load(Ordering::Acquire)).contains(&addr)) {
        const LINE: &[u8] = b"netsens: error: a file netsens was reading (a GOAL file or a compiled schedule) was truncated during the run; leave input files unchanged while netsens runs\n";
        // SAFETY: write(2) and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, LINE.as_ptr().cast(), LINE.len());
            libc::_exit(2);
        }
    }
    // Not ours: put the previous action back; the faulting access runs again under it.
    // SAFETY: PREVIOUS was set before this handler was installed; sigaction is
    // async-signal-safe.
    unsafe {
        if let Some(previous) = (*std::ptr::addr_of!(PREVIOUS)).as_ref() {
            libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut());
        }
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}
