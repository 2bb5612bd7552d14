//! Threads the analysis may use: its passes' lanes, the recorder beside the run and
//! the thread making the record's pages ready.

/// Threads a pass's lanes are spread over at most: each streams the whole record for
/// its own lanes, so past a few the memory, not the cores, is the limit.
const MAX_THREADS: usize = 4;

std::thread_local! {
    /// The threads asked for by the analysis running on this thread ([`with_threads`]).
    static ASKED: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// `f` with the analyses it runs on this thread using `threads` threads (`None`: as
/// [`threads`] finds): a process whose cores other processes share (a comparison's
/// points side by side) keeps its own analyses to one.
pub fn with_threads<T>(threads: Option<usize>, f: impl FnOnce() -> T) -> T {
    /// Puts back what was asked before, however `f` ends (a panic too).
    struct Before(Option<usize>);
    impl Drop for Before {
        fn drop(&mut self) {
            ASKED.set(self.0);
        }
    }
    let _before = Before(ASKED.replace(threads.map(|n| n.max(1))));
    f()
}

/// Threads the analysis spreads its lanes over: as asked by [`with_threads`], else
/// `NETSENS_ANALYSIS_THREADS` where set (1: one thread), else the cores this process
/// may use, at most [`MAX_THREADS`]. The answers are the same whatever the number:
/// lanes are independent.
pub fn threads() -> usize {
    if let Some(n) = ASKED.get() {
        return n;
    }
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        let asked = std::env::var("NETSENS_ANALYSIS_THREADS").ok().and_then(|v| v.trim().parse::<usize>().ok());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS);
        asked.unwrap_or(cores).max(1)
    })
}

/// Whether a core beside the run's is there for the work that can go to it while
/// the run goes (the recorder's thread, the thread making the record's pages ready):
/// where the analysis may use two threads or more.
pub(crate) fn core_beside_the_run() -> bool {
    threads() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_asked_hold_for_the_call_alone_and_nest() {
        let found = threads();
        assert_eq!(with_threads(Some(1), threads), 1);
        assert_eq!(with_threads(Some(0), threads), 1, "at least one");
        assert_eq!(with_threads(Some(3), || (threads(), with_threads(None, threads), threads())), (3, found, 3));
        assert!(!with_threads(Some(1), core_beside_the_run));
        assert_eq!(threads(), found);
        // A call that panics puts the number back too.
        assert!(std::panic::catch_unwind(|| with_threads(Some(5), || panic!("in the analysis"))).is_err());
        assert_eq!(threads(), found);
        // Another thread finds its own number, not this one's.
        assert_eq!(with_threads(Some(7), || std::thread::spawn(threads).join().expect("joins")), found);
    }
}
