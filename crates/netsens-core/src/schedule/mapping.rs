//! A regular file mapped read-only, whose pages can be handed back to the kernel
//! once read (they read back from the file if touched again).

use std::fs::File;
use std::io;
use std::path::Path;

pub(crate) struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
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
        Ok((ptr != libc::MAP_FAILED).then_some(Mapping { ptr, len }))
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
        // SAFETY: unmapping the mapping this value owns, once.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(1)
}
