//! Reading speed of trace replay on a generated archive of at least 10 M events
//! (8 ranks × 250 000 iterations of compute + MPI_Sendrecv, an allreduce every 100):
//! events per second into the engine's schedule, against a baseline measured in the
//! same run, libotf2 reading the same archive and dropping every event; memory kept
//! per operation, and the peak resident set against the archive's size. Then the same
//! program as a liballprof trace and as a DUMPI trace (50 000 iterations each): their
//! events per second into a schedule against the OTF2 reader's, all measured here.

use std::time::Instant;

use netsens_trace::{count_events, read_trace, write_synthetic};

#[path = "../tests/dumpi_writer/mod.rs"]
mod dumpi_writer;

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

    let lines = u64::from(ranks) * (50_000 + 50_000 / 100 + 2);
    let otf2_rate = events as f64 / f;
    let allprof = write_allprof(&tmp, ranks, 50_000);
    other_format("liballprof", "call lines", &allprof, &tmp, lines, otf2_rate);
    let _ = std::fs::remove_dir_all(&tmp);
    let dumpi = write_dumpi(&tmp, ranks, 50_000);
    other_format("DUMPI", "call records", &dumpi, &tmp, lines, otf2_rate);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Read the trace `path` (in `dir`, `calls` calls) into a schedule 3 times and print
/// the median's rates against the OTF2 reader's events per second.
fn other_format(name: &str, unit: &str, path: &std::path::Path, dir: &std::path::Path, calls: u64, otf2_rate: f64) {
    let mut times = Vec::new();
    let mut events = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let r = read_trace(path.to_str().unwrap()).expect("the trace replays");
        times.push(t.elapsed().as_secs_f64());
        events = r.events;
    }
    let t = median(times);
    println!("{name} reading: {calls} {unit} ({events} events), {:.1} MB", dir_bytes(dir) as f64 / 1e6);
    println!(
        "  into a schedule: {t:.2} s, {:.2} M {unit}/s, {:.2} M events/s",
        calls as f64 / t / 1e6,
        events as f64 / t / 1e6
    );
    println!("  events/s against the OTF2 reader's into a schedule: {:.2}", (events as f64 / t) / otf2_rate);
}

/// The benchmark's program as a DUMPI trace, as write_allprof's.
fn write_dumpi(dir: &std::path::Path, ranks: u32, iterations: u64) -> std::path::PathBuf {
    use dumpi_writer::{Bin, A, DOUBLE};
    const WORLD: u16 = 2;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("bench.meta"), format!("numprocs={ranks}\nfileprefix=bench\n")).unwrap();
    for r in 0..ranks as i32 {
        let (right, left) = ((r + 1) % ranks as i32, (r + ranks as i32 - 1) % ranks as i32);
        let mut b = Bin::new().call(124, 0.0, 0.0, &[A::I(0)]);
        let mut t = 0.0;
        for i in 0..iterations {
            t += 1.0;
            let args = [A::I(64), A::H(5), A::I(right), A::I(0), A::I(64), A::H(5), A::I(left), A::I(0), A::H(WORLD)];
            b = b.call(33, t, t + 3.0, &[args.as_slice(), &[A::Status(64, left, 0)]].concat());
            t += 3.0;
            if (i + 1) % 100 == 0 {
                b = b.call(65, t, t + 2.0, &[A::I(1), A::H(DOUBLE), A::B(3), A::H(WORLD)]);
                t += 2.0;
            }
        }
        let bytes = b.call(125, t, t, &[]).finish();
        std::fs::write(dir.join(format!("bench-{r:04}.bin")), bytes).unwrap();
    }
    dir.join("bench.meta")
}

/// The benchmark's program as liballprof rank files (1 µs of compute, then
/// MPI_Sendrecv of 64 B to the right, from the left; an 8-byte allreduce every 100).
fn write_allprof(dir: &std::path::Path, ranks: u32, iterations: u64) -> std::path::PathBuf {
    use std::io::Write;
    std::fs::create_dir_all(dir).unwrap();
    for r in 0..ranks {
        let file = std::fs::File::create(dir.join(format!("pmpi-trace-rank-{r}.txt"))).unwrap();
        let mut out = std::io::BufWriter::new(file);
        let comm = format!("0,{r},{ranks}");
        let (right, left) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
        writeln!(out, "# htor's PMPI Tracer 1 Output File\n\nMPI_Init:-:1:2:0").unwrap();
        let mut t = 0;
        for i in 0..iterations {
            t += 1;
            writeln!(out, "MPI_Sendrecv:{t}:1:64:1,1,1:{right}:0:2:64:1,1,1:{left}:0:{comm}:3:{}", t + 3).unwrap();
            t += 3;
            if (i + 1) % 100 == 0 {
                writeln!(out, "MPI_Allreduce:{t}:1:2:1:11,8,8:3:{comm}:{}", t + 2).unwrap();
                t += 2;
            }
        }
        writeln!(out, "MPI_Finalize:{t}:-").unwrap();
    }
    dir.join("pmpi-trace-rank-0.txt")
}
