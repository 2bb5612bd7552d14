//! The sorting applications of the suite (`sample`, `nowsort`) through the registry:
//! they verify their answers, and their traffic and times agree with numbers derived
//! by hand.

mod common;

use netsens_apps::registry::run_app;
use netsens_apps::suite::nowsort::{self, BATCH, RECORD};
use netsens_core::engine::RunOptions;
use netsens_core::error::Error;
use netsens_core::profile::RunResult;

use common::{platform, verified as run_on};

fn run(app: &str, ranks: u32) -> RunResult {
    run_on(&platform("loggopsim", &[]), app, ranks, "tiny")
}

/// Uses of `primitive` summed over the ranks.
fn total(r: &RunResult, primitive: &str) -> u64 {
    r.primitives.iter().filter(|p| p.primitive == primitive).map(|p| p.count).sum()
}

fn log2(p: u64) -> u64 {
    u64::from(p.trailing_zeros())
}

#[test]
fn both_sorts_verify_at_tiny() {
    for app in ["sample", "nowsort"] {
        for ranks in [2, 3, 8] {
            assert!(run(app, ranks).makespan_ps > 0, "{app} on {ranks} ranks");
        }
    }
}

#[test]
fn makespans_rise_with_o() {
    for (app, overheads) in [("sample", ["500ns", "1500ns", "5us"]), ("nowsort", ["1500ns", "50us", "200us"])] {
        let times: Vec<u64> =
            overheads.iter().map(|o| run_on(&platform("loggopsim", &[("o", o)]), app, 8, "tiny").makespan_ps).collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}

// --- sample -----------------------------------------------------------------------------

#[test]
fn sample_sends_one_message_per_key() {
    // tiny: N = 256 keys per rank. Every key is one 4-byte active message, the keys a
    // rank keeps included: P·N. Around them, on P = 8 ranks (a power of two, every
    // message far below S): the gather of the samples and the broadcast of the
    // splitters (binomial trees, one message per non-root rank: P − 1 each), and
    // P·log2 P each for the barrier (dissemination) and the verification's allgather
    // and allreduce (recursive doubling).
    let (p, n) = (8, 256);
    let r = run("sample", p as u32);
    assert_eq!(total(&r, "am"), p * n);
    let collective = 2 * (p - 1) + 3 * p * log2(p);
    assert_eq!(collective, 86);
    assert_eq!(total(&r, "coll_send"), collective);
    assert_eq!(r.messages, p * n + collective);
    // One store_sync per window of 64 keys, one barrier per rank, no two-sided sends.
    assert_eq!((total(&r, "store_sync"), total(&r, "barrier"), total(&r, "send")), (p * n / 64, p, 0));
    // On 3 ranks the key messages are still exactly P·N.
    assert_eq!(total(&run("sample", 3), "am"), 3 * n);
}

// --- nowsort ----------------------------------------------------------------------------

/// Records rank `src` sends to each rank, found by a second method: the rank owning
/// a key is the one whose range [⌈d·2³²/P⌉, ⌈(d+1)·2³²/P⌉) holds its first 4 bytes.
fn records_sent(cfg: &nowsort::Config, src: u32, p: u32) -> Vec<u64> {
    let start = |d: u32| (u64::from(d) << 32).div_ceil(u64::from(p));
    let mut sent = vec![0; p as usize];
    for rec in nowsort::input(cfg, src) {
        let prefix = u64::from(u32::from_be_bytes(rec[..4].try_into().unwrap()));
        let d = (0..p).rev().find(|&d| start(d) <= prefix).unwrap();
        sent[d as usize] += 1;
    }
    sent
}

#[test]
fn nowsort_moves_the_off_rank_records() {
    // tiny: R = 512 records per rank, P = 4. A pair (s, d ≠ s) with n records carries
    // them in ⌊n/64⌋ full batches plus one last batch: ⌊n/64⌋ + 1 messages, 100·n bytes.
    // Around them: the verification's allgather of 24-byte blocks and allreduce of 4
    // u64s, both by recursive doubling: P·log2 P messages each; the allgather moves
    // P·(P−1) blocks, the allreduce P·log2 P vectors of 32 bytes.
    let (p, size) = (4u32, "tiny");
    let cfg = nowsort::Config::preset(netsens_apps::Size::Tiny, 0);
    let (mut records, mut messages) = (0, 0);
    for s in 0..p {
        for (d, n) in records_sent(&cfg, s, p).into_iter().enumerate() {
            if d as u32 != s {
                records += n;
                messages += n / BATCH as u64 + 1;
            }
        }
    }
    let pp = u64::from(p);
    // In expectation (P−1)/P of the 2048 records leave their rank: 1536.
    assert!((1436..=1636).contains(&records), "{records}");
    let r = run_on(&platform("loggopsim", &[]), "nowsort", p, size);
    assert_eq!(r.messages, messages + 2 * pp * log2(pp));
    assert_eq!(r.bytes, RECORD as u64 * records + pp * (pp - 1) * 24 + pp * log2(pp) * 32);
    assert_eq!(total(&r, "send"), messages);
    // Every rank reads its input and writes its output in chunks of 640 records.
    assert_eq!(total(&r, "disk"), 2 * pp);
}

/// Disk time of one node by hand: R records of 100 B read at 5.5 MB/s, then written
/// at 5.5 MB/s (each rank writes about as many records as it read).
fn disk_bound_ps(records: u64) -> f64 {
    2.0 * (records * RECORD as u64) as f64 / 5.5e6 * 1e12
}

#[test]
fn nowsort_is_disk_bound_on_a_fast_network() {
    // ib100 has no disks: the runner gives each node the NOW's two 5.5 MB/s disks.
    // small: R = 8192 records per rank (819 200 B per node): 0.298 s of disk time.
    let disk = disk_bound_ps(8192);
    let fast = run_on(&platform("ib100", &[]), "nowsort", 4, "small").makespan_ps as f64;
    assert!(fast >= disk && fast <= 1.1 * disk, "{fast} ps against {disk} ps of disk time");
    // At G = 1 us/B (1 MB/s, slower than a disk) each rank's ~614 KB off-rank
    // data takes ~0.6 s on its NIC: the network, not the disks, sets the pace.
    let slow = run_on(&platform("ib100", &[("G", "1us/B")]), "nowsort", 4, "small").makespan_ps as f64;
    assert!(slow > 2.0 * disk, "{slow} ps against {disk} ps of disk time");
}

#[test]
fn nowsort_needs_two_disks_per_node() {
    let p = platform("loggopsim", &[("disk_bandwidth", "5.5MB/s"), ("disks_per_node", "1")]);
    match run_app("nowsort", 2, "tiny", 0, &p, &RunOptions::default(), &mut |_| true) {
        Err(Error::Input(m)) => assert!(m.contains("has 1 disk per node"), "{m}"),
        other => panic!("expected an input error, got {other:?}"),
    }
}
