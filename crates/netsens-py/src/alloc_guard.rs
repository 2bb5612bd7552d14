//! Every Rust allocation of the module goes through [`ExitOnFailure`]: one the system
//! refuses ends the process with one `netsens: error:` line and exit code 2 instead of
//! Rust's abort and backtrace. Runs too large for the machine are normally refused
//! before they start (`netsens_core::memory`); this catches what that estimate misses.
//! Points a sweep stored before are on disk already; nothing stored is lost.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct ExitOnFailure;

// SAFETY: every call is forwarded unchanged to the system allocator; only a null
// result is intercepted, and then the process ends.
unsafe impl GlobalAlloc for ExitOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

#[inline]
fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

/// Writes the error line without allocating (a fixed buffer and write(2)), then exits.
#[cold]
fn out_of_memory(size: usize) -> ! {
    let mut line = [0u8; 160];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        let n = bytes.len().min(line.len() - len);
        line[len..len + n].copy_from_slice(&bytes[..n]);
        len += n;
    };
    put(b"netsens: error: out of memory: allocating ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut v = size;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    put(&digits[i..]);
    put(b" B failed; use fewer ranks or a smaller size\n");
    // SAFETY: writes `len` initialised bytes of `line` to stderr, then ends the process.
    unsafe {
        libc::write(2, line.as_ptr().cast(), len);
        libc::_exit(2)
    }
}
