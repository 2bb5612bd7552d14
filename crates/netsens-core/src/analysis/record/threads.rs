//! Threads the analysis may use: its passes' lanes, the recorder beside the run and
//! the thread making the record's pages ready.

/// Threads a pass's lanes are spread over at most: each streams the whole record for
/// its own lanes, so past a few the memory, not the cores, is the limit.
const MAX_THREADS: usize = 4;

/// Threads the analysis spreads its lanes over: `NETSENS_ANALYSIS_THREADS` where set
/// (1: one thread), else the cores this process may use, at most [`MAX_THREADS`].
/// The answers are the same whatever the number: lanes are independent.
pub fn threads() -> usize {
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
