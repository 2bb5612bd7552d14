//! Parses a GOAL file as `netsens run --goal` does and prints, as one JSON line, the
//! size of its op table: ops, edges, ranks, bytes held (records, edges, the rank
//! blocks' label index), bytes per op, the parse's wall time and the process's
//! peak resident memory.
//!
//!     cargo run --release -p netsens-core --example goal_op_table -- FILE.goal

use netsens_core::schedule::goal_file::GoalText;
use std::sync::Arc;

/// The process's peak resident memory in bytes (Linux), 0 when unknown.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix("kB"));
    kib.and_then(|v| v.trim().parse::<u64>().ok()).map_or(0, |k| k * 1024)
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("netsens: error: usage: goal_op_table FILE.goal");
        std::process::exit(2);
    };
    let start = std::time::Instant::now();
    let parsed = GoalText::open(std::path::Path::new(&path))
        .map_err(|e| e.to_string())
        .and_then(|text| Arc::new(text).parse(&path).map_err(|e| e.to_string()));
    let s = parsed.unwrap_or_else(|e| {
        eprintln!("netsens: error: {e}");
        std::process::exit(2);
    });
    let seconds = start.elapsed().as_secs_f64();
    let bytes = s.heap_bytes();
    println!(
        "{{\"ops\": {}, \"edges\": {}, \"ranks\": {}, \"table_bytes\": {bytes}, \"bytes_per_op\": {:.2}, \
         \"parse_s\": {seconds:.3}, \"peak_rss_bytes\": {}}}",
        s.num_ops(),
        s.num_edges(),
        s.num_ranks,
        bytes as f64 / s.num_ops().max(1) as f64,
        peak_rss()
    );
}
