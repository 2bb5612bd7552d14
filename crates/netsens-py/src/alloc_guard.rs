//! Every Rust allocation of the module goes through [`ExitOnFailure`]: one the machine
//! cannot give ends the process with one `netsens: error:` line and exit code 2 instead
//! of Rust's abort and backtrace, or of the kernel's OOM killer (Linux overcommits, so
//! an allocation far beyond the machine's memory usually *succeeds* and the process is
//! killed later, when it touches the pages). Runs too large for the machine are
//! normally refused before they start (`netsens_core::memory`); this catches what that
//! estimate misses, such as an application's own data growing with the rank count.
//! Points a sweep stored before are on disk already; nothing stored is lost.
//!
//! The watch is cheap: after every [`CHECK_EVERY`] bytes a thread allocates (and before any one
//! allocation that large) the kernel's `MemAvailable` is read, without allocating, and
//! an allocation that would leave less than [`RESERVE`] is refused. The environment
//! variable `NETSENS_MEMORY_LIMIT` (bytes, or a number with KiB, MiB, GiB or TiB) caps
//! the process's resident memory lower still, e.g. on a shared login node.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct ExitOnFailure;

/// Bytes allocated between two looks at the machine's free memory.
const CHECK_EVERY: usize = 64 << 20;
/// Memory left to the rest of the machine (and to the allocations until the next look).
const RESERVE: u64 = 256 << 20;

thread_local! {
    // Per thread, so counting costs no atomic operation (a `const` thread local with
    // no destructor never allocates).
    static SINCE_CHECK: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; a null result,
// or a request the machine's free memory cannot hold, ends the process instead.
unsafe impl GlobalAlloc for ExitOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        watch(layout.size());
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        watch(layout.size());
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        watch(new_size.saturating_sub(layout.size()));
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// Counts `size` new bytes; every `CHECK_EVERY` of them (or at once for a request that
/// large) compares the request with what the machine can still give.
#[inline]
fn watch(size: usize) {
    let since = SINCE_CHECK.with(|c| {
        let since = c.get().saturating_add(size);
        c.set(if since >= CHECK_EVERY { 0 } else { since });
        since
    });
    if since >= CHECK_EVERY {
        if let Some(free) = free_bytes() {
            if size as u64 + RESERVE > free {
                refuse(size, free);
            }
        }
    }
}

#[inline]
fn checked(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(size);
    }
    ptr
}

/// What this process may still allocate: `MemAvailable`, capped by the cgroup's
/// `memory.max` less its `memory.current` (a container's limit, where the OOM killer
/// strikes first), and under `NETSENS_MEMORY_LIMIT` by that limit less the resident
/// set. Read without allocating; `None` when nothing can be read (no check then).
fn free_bytes() -> Option<u64> {
    let mut buf = [0u8; 4096];
    let machine =
        read_file(b"/proc/meminfo\0", &mut buf).and_then(|m| kib_field(m, b"MemAvailable:")).map(|k| k * 1024);
    let cgroup = cgroup_free();
    let limit = env_limit().map(|limit| {
        let mut statm = [0u8; 256];
        let resident_pages = read_file(b"/proc/self/statm\0", &mut statm)
            .and_then(|s| s.split(|&b| b == b' ').nth(1).and_then(parse_u64))
            .unwrap_or(0);
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
        limit.saturating_sub(resident_pages * page)
    });
    [machine, cgroup, limit].into_iter().flatten().min()
}

/// What the process's own memory cgroup has left (its limit less its usage), v2 or v1,
/// found through /proc/self/cgroup; `None` without a limit.
fn cgroup_free() -> Option<u64> {
    let mut buf = [0u8; 2048];
    let groups = read_file(b"/proc/self/cgroup\0", &mut buf)?;
    for line in groups.split(|&b| b == b'\n') {
        // "0::/path" (v2) or "N:memory:/path" (v1; the controller list may be "memory,...").
        let mut fields = line.splitn(3, |&b| b == b':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        let (root, max_file, used_file): (&[u8], &[u8], &[u8]) = if controllers.is_empty() {
            (b"/sys/fs/cgroup", b"/memory.max", b"/memory.current")
        } else if controllers.split(|&b| b == b',').any(|c| c == b"memory") {
            (b"/sys/fs/cgroup/memory", b"/memory.limit_in_bytes", b"/memory.usage_in_bytes")
        } else {
            continue;
        };
        // A hybrid system lists v2's group too, without a memory controller there.
        let Some(max) = read_number(&CPath::new(&[root, path, max_file])) else { continue };
        let used = read_number(&CPath::new(&[root, path, used_file])).unwrap_or(0);
        return Some(max.saturating_sub(used));
    }
    None
}

/// A NUL-terminated path joined from parts in a fixed buffer (too long: empty, unreadable).
struct CPath([u8; 1024]);

impl CPath {
    fn new(parts: &[&[u8]]) -> Self {
        let mut buf = [0u8; 1024];
        let mut len = 0;
        for part in parts {
            if len + part.len() >= buf.len() {
                return CPath([0; 1024]);
            }
            buf[len..len + part.len()].copy_from_slice(part);
            len += part.len();
        }
        CPath(buf)
    }
}

/// A file holding one decimal number (`max` or anything else: `None`).
fn read_number(path: &CPath) -> Option<u64> {
    let mut buf = [0u8; 64];
    parse_u64(read_file(&path.0, &mut buf)?.trim_ascii())
}

/// `NETSENS_MEMORY_LIMIT` in bytes: digits, optionally followed by B, KiB, MiB, GiB or
/// TiB. Unset or unreadable: no limit (the CLI checks the spelling before a run).
fn env_limit() -> Option<u64> {
    // SAFETY: the name is NUL-terminated; the value is read before returning and the
    // process does not change its environment while running.
    let value = unsafe { libc::getenv(c"NETSENS_MEMORY_LIMIT".as_ptr()) };
    if value.is_null() {
        return None;
    }
    // SAFETY: getenv returned a NUL-terminated string.
    parse_limit(unsafe { std::ffi::CStr::from_ptr(value) }.to_bytes())
}

pub(crate) fn parse_limit(text: &[u8]) -> Option<u64> {
    let text = text.trim_ascii();
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    let number = parse_u64(&text[..digits])?;
    let shift = match text[digits..].trim_ascii() {
        b"" | b"B" => 0,
        b"KiB" => 10,
        b"MiB" => 20,
        b"GiB" => 30,
        b"TiB" => 40,
        _ => return None,
    };
    number.checked_mul(1u64 << shift)
}

fn read_file<'a>(path: &[u8], buf: &'a mut [u8]) -> Option<&'a [u8]> {
    // SAFETY: `path` is NUL-terminated; `buf` is writable for its length.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        (n > 0).then(|| &buf[..n as usize])
    }
}

fn kib_field(text: &[u8], name: &[u8]) -> Option<u64> {
    let at = text.windows(name.len()).position(|w| w == name)? + name.len();
    let rest = text[at..].trim_ascii_start();
    parse_u64(&rest[..rest.iter().take_while(|b| b.is_ascii_digit()).count()])
}

fn parse_u64(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, &d| {
        if !d.is_ascii_digit() {
            return None;
        }
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// One line written without allocating (a fixed buffer and write(2)), then exit 2.
struct Line {
    buf: [u8; 200],
    len: usize,
}

impl Line {
    fn new() -> Self {
        Line { buf: [0; 200], len: 0 }
    }

    fn put(&mut self, bytes: &[u8]) -> &mut Self {
        let n = bytes.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
        self
    }

    fn number(&mut self, mut v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(&digits[i..])
    }

    fn exit(&self) -> ! {
        // SAFETY: writes `len` initialised bytes of `buf` to stderr, then ends the process.
        unsafe {
            libc::write(2, self.buf.as_ptr().cast(), self.len);
            libc::_exit(2)
        }
    }
}

/// The system allocator returned nothing.
#[cold]
fn out_of_memory(size: usize) -> ! {
    Line::new()
        .put(b"netsens: error: out of memory: allocating ")
        .number(size as u64)
        .put(b" B failed; use fewer ranks or a smaller size\n")
        .exit()
}

/// The request would leave the machine (or the limit) nearly without memory.
#[cold]
fn refuse(size: usize, free: u64) -> ! {
    Line::new()
        .put(b"netsens: error: out of memory: only ")
        .number(free >> 20)
        .put(b" MiB left to this run (256 MiB are kept for the machine) when allocating ")
        .number(size as u64)
        .put(b" B more; use fewer ranks or a smaller size\n")
        .exit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_in_binary_units() {
        assert_eq!(parse_limit(b"4096"), Some(4096));
        assert_eq!(parse_limit(b"2GiB"), Some(2 << 30));
        assert_eq!(parse_limit(b" 512 MiB "), Some(512 << 20));
        assert_eq!(parse_limit(b"3 TiB"), Some(3 << 40));
        assert_eq!(parse_limit(b"2GB"), None);
        assert_eq!(parse_limit(b"GiB"), None);
        assert_eq!(parse_limit(b"99999999999999999999"), None);
        assert_eq!(parse_limit(b"16777216TiB"), None); // 2^64 B: past u64
    }

    #[test]
    fn meminfo_is_read_in_kib() {
        let text = b"MemTotal:       24684084 kB\nMemAvailable:   23267946 kB\n";
        assert_eq!(kib_field(text, b"MemAvailable:"), Some(23_267_946));
        assert_eq!(kib_field(text, b"SwapFree:"), None);
    }
}
