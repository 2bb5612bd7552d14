//! Pages of buffers that are being filled, made ready by a thread of their own a
//! little ahead of the writer.
//!
//! The first write to a fresh page stops the writer while the kernel finds and zeroes
//! it. On a virtual machine that hands free memory back to its host (Linux's free
//! page reporting, as on the 2-core machines this project is measured and tested on)
//! that page must first come back from the host: 0.25–0.44 GB/s there, against about
//! 10 GB/s for memory the guest still holds: 14–17 % of what recording a run's
//! execution graph cost there. `MADV_POPULATE_WRITE` (Linux 5.14) faults the pages in
//! without writing them, so another core can wait for them instead; the contents of
//! a buffer never change.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;

/// How far ahead of what was written a buffer's pages are made ready: two 2 MiB pages.
const LEAD: usize = 4 << 20;

/// The pages made ready in one call (a huge page): what a stop waits for at most.
const CHUNK: usize = 2 << 20;

/// One buffer: where it starts, its capacity in bytes, its element's size and which
/// of the writer's counters says how many elements are written.
#[derive(Clone, Copy, Debug)]
pub struct Buffer {
    pub start: usize,
    pub bytes: usize,
    pub item: usize,
    pub counter: usize,
}

impl Buffer {
    /// `v`'s whole allocation (its capacity), filled as counter `counter` says.
    pub fn of<T>(v: &Vec<T>, counter: usize) -> Buffer {
        let item = std::mem::size_of::<T>();
        Buffer { start: v.as_ptr() as usize, bytes: v.capacity() * item, item, counter }
    }

    fn end(&self) -> usize {
        self.start + self.bytes
    }
}

/// Counters a writer publishes (elements written, by buffer group).
pub const COUNTERS: usize = 4;

struct Shared {
    written: [AtomicUsize; COUNTERS],
    stop: AtomicBool,
}

/// A thread making `buffers`' pages ready up to [`LEAD`] bytes past what is written,
/// until stopped (by [`Prefault::stop`] or dropping it, which wait for the page in
/// hand) or every buffer is ready to its end.
pub struct Prefault {
    shared: Arc<Shared>,
    helper: Option<JoinHandle<()>>,
}

impl Prefault {
    /// Starts the thread; `None` where the system has nothing to do it with (see
    /// [`supported`], or a thread could not be made: the writer then faults its own
    /// pages).
    pub fn start(buffers: Vec<Buffer>) -> Option<Prefault> {
        if !supported() {
            return None;
        }
        let shared = Arc::new(Shared { written: Default::default(), stop: AtomicBool::new(false) });
        let theirs = Arc::clone(&shared);
        let helper =
            std::thread::Builder::new().name("prefault".into()).spawn(move || make_ready(&buffers, &theirs)).ok()?;
        Some(Prefault { shared, helper: Some(helper) })
    }

    /// Counter `counter` now stands at `elements` written (seen at the next
    /// [`Prefault::wake`]).
    #[inline]
    pub fn wrote(&self, counter: usize, elements: usize) {
        self.shared.written[counter].store(elements, Relaxed);
    }

    /// Wakes the thread to keep ahead of the counters.
    pub fn wake(&self) {
        if let Some(h) = &self.helper {
            h.thread().unpark();
        }
    }

    /// Stops the thread, waiting for the page it has in hand.
    pub fn stop(&mut self) {
        self.shared.stop.store(true, Relaxed);
        if let Some(h) = self.helper.take() {
            h.thread().unpark();
            // A panic in the helper only means pages were not made ready.
            let _ = h.join();
        }
    }
}

impl Drop for Prefault {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether this system can fault pages in without writing them: Linux 5.14 or later
/// (asked once, on a page of its own).
pub fn supported() -> bool {
    static SUPPORTED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SUPPORTED.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            const PAGE: usize = 4096;
            let (rw, anon) = (libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS);
            // SAFETY: a fresh private mapping of one page, populated and unmapped here.
            unsafe {
                let page = libc::mmap(std::ptr::null_mut(), PAGE, rw, anon, -1, 0);
                if page == libc::MAP_FAILED {
                    return false;
                }
                let ok = libc::madvise(page, PAGE, libc::MADV_POPULATE_WRITE) == 0;
                libc::munmap(page, PAGE);
                ok
            }
        }
        #[cfg(not(target_os = "linux"))]
        false
    })
}

/// The helper's loop: every buffer's pages up to its lead, then sleep until woken.
fn make_ready(buffers: &[Buffer], shared: &Shared) {
    let mut ready: Vec<usize> = buffers.iter().map(|b| b.start).collect();
    loop {
        let mut behind = false;
        for (b, done) in buffers.iter().zip(ready.iter_mut()) {
            if shared.stop.load(Relaxed) {
                return;
            }
            let written = shared.written[b.counter].load(Relaxed).saturating_mul(b.item);
            let want = b.start.saturating_add(written).saturating_add(LEAD).min(b.end());
            if *done < want {
                // A chunk at a time, so that a stop waits for one at most.
                let to = (*done + CHUNK).min(want);
                if !populate(*done, to) {
                    return;
                }
                *done = to;
                behind |= to < want;
            }
        }
        if ready.iter().zip(buffers).all(|(&r, b)| r >= b.end()) {
            return;
        }
        if !behind {
            std::thread::park();
        }
    }
}

/// Faults in the pages over `from..to` as a write would, without writing; false where
/// the kernel refuses (older than 5.14, or the range is not mapped writable).
fn populate(from: usize, to: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let (a, b) = (from / PAGE * PAGE, to.next_multiple_of(PAGE));
        // SAFETY: populating changes how pages are backed, never their contents; the
        // owner of the range keeps it mapped until the helper has stopped.
        unsafe { libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_POPULATE_WRITE) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (from, to);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Resident pages of `v` (`mincore`), as a share of its pages.
    fn resident<T>(v: &Vec<T>) -> f64 {
        const PAGE: usize = 4096;
        let (start, bytes) = (v.as_ptr() as usize, v.capacity() * std::mem::size_of::<T>());
        let (a, b) = (start / PAGE * PAGE, (start + bytes).next_multiple_of(PAGE));
        let mut pages = vec![0u8; (b - a) / PAGE];
        // SAFETY: the range is `v`'s own allocation, `pages` one byte a page of it.
        let rc = unsafe { libc::mincore(a as *mut libc::c_void, b - a, pages.as_mut_ptr()) };
        assert_eq!(rc, 0);
        pages.iter().filter(|&&p| p & 1 == 1).count() as f64 / pages.len() as f64
    }

    #[test]
    fn this_kernel_can_make_pages_ready_as_the_project_requires() {
        // The project's machines run Linux 6 (5.14 brought MADV_POPULATE_WRITE): the
        // other tests here check the thread, not its absence.
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").expect("Linux's release");
        let mut parts = release.trim().split(['.', '-']).map(|p| p.parse::<u32>().unwrap_or(0));
        let version = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        assert_eq!(supported(), version >= (5, 14), "Linux {release}");
    }

    #[test]
    fn pages_are_made_ready_ahead_of_the_writer_and_no_further() {
        // 64 MiB: nothing resident before a write; the writer at 16 MiB: the pages up
        // to 16 MiB + the lead and no further (one 2 MiB page more where the system
        // backs the buffer with them); the writer going on beside the thread to the
        // end: all, and every value as written.
        const N: usize = 8 << 20;
        let mut v: Vec<u64> = Vec::with_capacity(N);
        assert!(resident(&v) < 0.01, "fresh pages are not resident");
        let Some(mut ahead) = Prefault::start(vec![Buffer::of(&v, 1)]) else {
            // A kernel before 5.14: no thread, and the writer's own faults as before.
            assert!(!supported());
            return;
        };
        v.extend((0..N as u64 / 4).map(|i| 3 * i));
        ahead.wrote(1, v.len());
        ahead.wake();
        let share = ((16 << 20) + LEAD) as f64 / (64 << 20) as f64;
        let settled = |v: &Vec<u64>, want: f64| {
            (0..2000).any(|_| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                resident(v) >= want
            })
        };
        assert!(settled(&v, share - 0.001), "{} of {share} resident", resident(&v));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let slack = CHUNK as f64 / (64 << 20) as f64;
        assert!(resident(&v) <= share + slack, "{} resident for {share}", resident(&v));
        while v.len() < N {
            let next = (v.len() + (1 << 16)).min(N);
            v.extend((v.len() as u64..next as u64).map(|i| 3 * i));
            ahead.wrote(1, v.len());
            ahead.wake();
        }
        assert!(settled(&v, 0.999), "{} resident at the end", resident(&v));
        ahead.stop();
        assert!(v.iter().enumerate().all(|(i, &x)| x == 3 * i as u64), "the values as written");
    }

    #[test]
    fn a_stop_ends_the_thread_before_the_buffers_are_ready() {
        // Nothing written: the lead alone (4 MiB of 256) is made ready. Then all of
        // it written and the thread stopped at once: it ends with the chunk in hand,
        // far from the end, and no page is made ready after the stop.
        let v: Vec<u8> = Vec::with_capacity(256 << 20);
        let Some(mut ahead) = Prefault::start(vec![Buffer::of(&v, 0)]) else {
            assert!(!supported(), "a thread wherever pages can be made ready");
            return;
        };
        ahead.wake();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let lead = LEAD as f64 / (256 << 20) as f64;
        let r = resident(&v);
        assert!(r >= 0.99 * lead && r <= lead + 0.01, "{r} of 256 MiB resident with nothing written");
        ahead.wrote(0, 256 << 20);
        ahead.wake();
        ahead.stop();
        assert!(ahead.helper.is_none());
        let r = resident(&v);
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert_eq!(resident(&v), r, "pages made ready after the stop");
        assert!(r < 0.5, "{r} of 256 MiB resident");
    }
}
