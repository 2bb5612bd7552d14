//! Memory a run needs, checked before it is allocated: a run too large for this
//! machine stops with the estimate and what the machine has, instead of aborting
//! half-way through an allocation.

use crate::error::{Error, Result};

/// Bytes this process may still allocate: the kernel's `MemAvailable`, capped by the
/// cgroup's limit when one is set; `None` when neither can be read (no check then).
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let mem = meminfo.as_deref().and_then(|m| kib_field(m, "MemAvailable:")).map(|k| k.saturating_mul(1024));
    let cgroup = || -> Option<u64> {
        let max = std::fs::read_to_string("/sys/fs/cgroup/memory.max").ok()?;
        let used = std::fs::read_to_string("/sys/fs/cgroup/memory.current").ok()?;
        Some(max.trim().parse::<u64>().ok()?.saturating_sub(used.trim().parse().ok()?))
    };
    match (mem, cgroup()) {
        (Some(m), Some(c)) => Some(m.min(c)),
        (m, c) => m.or(c),
    }
}

fn kib_field(meminfo: &str, name: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

/// `bytes` for `what` (e.g. "the engine's state for 4000000000 ranks"), refused when
/// it exceeds what the machine has.
pub fn ensure_fits(what: &str, bytes: u128) -> Result<()> {
    ensure_fits_in(what, bytes, available_bytes())
}

/// As [`ensure_fits`] against a given amount of free memory (`None`: unknown, allowed).
pub fn ensure_fits_in(what: &str, bytes: u128, available: Option<u64>) -> Result<()> {
    match available {
        Some(free) if bytes > free as u128 => Err(Error::Input(format!(
            "{what} needs about {} of memory, but this machine has {} available; use fewer ranks or a smaller size",
            gigabytes(bytes),
            gigabytes(free as u128)
        ))),
        _ => Ok(()),
    }
}

/// Ask the kernel to back `v`'s whole buffer (its capacity) with 2 MiB pages where
/// it can (Linux's transparent huge pages, which default to "madvise"): a record of
/// hundreds of MiB written once otherwise takes a page fault every 4 KiB, which cost
/// about as much as the run itself. Only advice: nothing else changes.
pub fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: the range lies within `v`'s own allocation; the advice changes
            // how its pages are backed, never their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Bytes as decimal gigabytes with 3 decimals (an estimate: never exact).
fn gigabytes(bytes: u128) -> String {
    format!("{:.3} GB", bytes as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_above_what_is_free_is_refused_with_both_figures() {
        // 32·10^9 B needed, 8·10^9 B free.
        let e = ensure_fits_in("a run of 4000000000 ranks", 32_000_000_000, Some(8_000_000_000)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("32.000 GB") && msg.contains("8.000 GB") && msg.contains("4000000000 ranks"), "{msg}");
        assert!(ensure_fits_in("x", 8_000_000_000, Some(8_000_000_000)).is_ok());
        assert!(ensure_fits_in("x", u128::MAX, None).is_ok());
    }

    #[test]
    fn meminfo_fields_are_read_in_kib() {
        let text = "MemTotal:       24684084 kB\nMemAvailable:   23267946 kB\n";
        assert_eq!(kib_field(text, "MemAvailable:"), Some(23_267_946));
        assert_eq!(kib_field(text, "SwapFree:"), None);
    }

    /// The kB of 2 MiB pages backing the mapping that holds `addr` (`/proc/self/smaps`).
    #[cfg(target_os = "linux")]
    fn huge_kib_at(addr: usize) -> Option<u64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            let bounds =
                range.and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?)));
            // A mapping's first line starts with its address range; its fields follow.
            if let Some((a, b)) = bounds {
                inside = (a..b).contains(&addr);
            } else if inside && line.starts_with("AnonHugePages:") {
                return kib_field(line, "AnonHugePages:");
            }
        }
        None
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn an_advised_buffer_is_backed_by_2_mib_pages_where_the_kernel_allows() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if !thp.contains("[madvise]") && !thp.contains("[always]") {
            return; // Transparent huge pages are off: the advice can do nothing here.
        }
        // 16 MiB holds at least 7 whole aligned 2 MiB pages, whatever its start.
        let mut v: Vec<u8> = Vec::with_capacity(16 << 20);
        advise_huge_pages(&v);
        v.resize(16 << 20, 1);
        let kib = huge_kib_at(v.as_ptr() as usize + (8 << 20)).expect("the buffer's mapping is listed");
        assert!(kib >= 2048, "{kib} kB of huge pages");
        assert!(v.iter().all(|&b| b == 1));
    }
}
