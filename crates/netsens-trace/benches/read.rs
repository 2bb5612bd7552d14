//! Reading speed of trace replay on a generated archive of at least 10 M events
//! (8 ranks × 250 000 iterations of compute + MPI_Sendrecv, an allreduce every 100):
//! events per second into the engine's schedule, against a baseline measured in the
//! same run, libotf2 reading the same archive and dropping every event; memory kept
//! per operation, and the peak resident set against the archive's size.

use std::time::Instant;

use netsens_trace::{count_events, read_trace, write_synthetic};

fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .map(|e| {
                    let p = e.path();
                    if p.is_dir() {
                        dir_bytes(&p)
                    } else {
                        e.metadata().map_or(0, |m| m.len())
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let tmp = std::env::temp_dir().join(format!("netsens-trace-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let (ranks, iterations) = (8, 250_000);
    let anchor = write_synthetic(&tmp, ranks, iterations, 1000, 64, 100, 0).expect("the archive is written");
    let archive_bytes = dir_bytes(&tmp);

    let mut base = Vec::new();
    let mut full = Vec::new();
    let mut events = 0;
    let mut ops = 0;
    let mut heap = 0;
    for _ in 0..3 {
        let t = Instant::now();
        events = count_events(&anchor).expect("the archive reads");
        base.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let r = read_trace(&anchor).expect("the archive replays");
        full.push(t.elapsed().as_secs_f64());
        ops = r.schedule.num_ops();
        heap = r.schedule.heap_bytes();
    }
    let rss = peak_rss_bytes();
    let (b, f) = (median(base), median(full));
    println!("trace reading: {events} events, {ops} operations kept, archive {:.1} MB", archive_bytes as f64 / 1e6);
    println!("  libotf2 alone (baseline): {:.2} s, {:.2} M events/s", b, events as f64 / b / 1e6);
    println!("  into a schedule:          {:.2} s, {:.2} M events/s", f, events as f64 / f / 1e6);
    println!("  ratio schedule / baseline time: {:.2}", f / b);
    println!("  schedule memory: {:.1} B per operation kept", heap as f64 / ops as f64);
    println!(
        "  peak resident set: {:.1} B per operation kept, {:.2} × the archive ({:.1} MB)",
        rss as f64 / ops as f64,
        rss as f64 / archive_bytes as f64,
        rss as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
