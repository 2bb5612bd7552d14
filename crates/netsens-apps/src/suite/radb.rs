//! `radb`: the LSD radix sort of [`super::radix`] with bulk messages (Martin et al.,
//! ISCA'97): per digit, the keys for each destination travel as one message. The
//! algorithm, keys, cost model and check are those of [`super::lsd`].
//!
//! **Communication**, per digit (b-bit, B = 2^b buckets), point-to-point messages on
//! the world communicator, receives posted before sends:
//! - phase `histogram`: every rank sends each owner (the ranks q < min(P, B); rank q
//!   owns buckets q, q + P, ...) one message with its counts of the owner's buckets;
//!   each owner answers every rank with one message of (prefix, total) pairs, one per
//!   bucket it owns: 2·P·min(P, B) messages.
//! - phase `scatter`: every rank sorts its keys locally by the digit (stably), which
//!   lays out the keys for each destination as one contiguous block, and sends every
//!   rank, itself included, its block: P² messages, empty where a rank has no keys for
//!   a destination. Sending every block keeps the exchange free of a count round
//!   (each rank receives exactly one block from every rank) and the count independent
//!   of the data. A receiver concatenates the blocks in source order and sorts them
//!   stably by the digit: global positions are ordered by (digit, source rank, index
//!   at the source), so that is exactly its part of the global order.
//!
//! So a sort sends exactly passes·(P² + 2·P·min(P, B)) messages (plus P − 1 small ones
//! in the final check). The receiver's local sort is charged as one histogram step
//! and one move per key, the sender's as one move per key.

use super::lsd::{self, Config, HISTOGRAM_PS_PER_KEY, MOVE_PS_PER_KEY, SCAN_PS_PER_COUNT};
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::{decode, encode, Rank, Tag};
use netsens_core::time::Time;
use netsens_core::Result;

pub const APP: App = App {
    name: "radb",
    description: "LSD radix sort of 32-bit keys, 8-bit digits; one bulk message of keys per destination per digit",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

const TAG_COUNTS: Tag = 1;
const TAG_REPLIES: Tag = 2;
const TAG_KEYS: Tag = 3;

/// Send `blocks[q]` to every rank q in `to` and receive one block from every rank in
/// `from`; returns the received blocks in the order of `from`.
async fn exchange<R: Rank>(r: &R, tag: Tag, from: u32, to: u32, blocks: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    let w = r.world();
    let recvs: Vec<_> = (0..from).map(|q| r.irecv(&w, q as i32, tag)).collect();
    let sends: Vec<_> =
        blocks.into_iter().take(to as usize).enumerate().map(|(q, b)| r.isend(&w, q as u32, tag, encode(&b))).collect();
    let got = r.wait_all(recvs).await;
    r.wait_all(sends).await;
    got.iter().map(|m| decode(&m.data)).collect()
}

/// This rank's first global position in every bucket of digit `pass`.
async fn global_starts<R: Rank>(r: &R, cfg: &Config, keys: &[u32], pass: u32) -> Vec<u64> {
    let (me, p, b) = (r.rank(), r.size(), cfg.buckets());
    let owners = p.min(b as u32);
    let counts = r.work(HISTOGRAM_PS_PER_KEY * keys.len() as Time, || lsd::histogram(keys, pass, cfg.bits)).await;
    let per_owner = (0..owners).map(|q| lsd::owned(q, p, b).map(|d| counts[d]).collect()).collect();
    let senders = if me < owners { p } else { 0 };
    let got = exchange(r, TAG_COUNTS, senders, owners, per_owner).await;
    // Bucket-major, as the scan wants it: matrix[j·P + rank].
    let owned = lsd::owned(me, p, b).count();
    let matrix: Vec<u32> = (0..owned).flat_map(|j| got.iter().map(move |c| c[j])).collect();
    let scanned = r.work(SCAN_PS_PER_COUNT * matrix.len() as Time, || lsd::owner_scan(&matrix, p)).await;
    let replies = (0..p as usize)
        .map(|rank| (0..owned).flat_map(|j| <[u32; 2]>::from(scanned[j * p as usize + rank])).collect())
        .collect();
    let got = exchange(r, TAG_REPLIES, owners, if me < owners { p } else { 0 }, replies).await;
    r.work(SCAN_PS_PER_COUNT * b as Time, || {
        let (mut prefix, mut total) = (vec![0; b], vec![0; b]);
        for (q, pairs) in got.iter().enumerate() {
            for (d, pair) in lsd::owned(q as u32, p, b).zip(pairs.chunks(2)) {
                (prefix[d], total[d]) = (pair[0], pair[1]);
            }
        }
        lsd::starts(&prefix, &total)
    })
    .await
}

/// The program.
pub async fn radb<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let p = r.size();
    let mut keys = lsd::generate(&cfg, r.rank());
    let input = lsd::fingerprint(&keys);
    let n = cfg.keys as u64;
    let per_key = |ps: Time| ps * cfg.keys as Time;
    for pass in 0..cfg.passes() {
        r.phase("histogram");
        let starts = global_starts(&r, &cfg, &keys, pass).await;
        r.phase("scatter");
        let blocks = r
            .work(per_key(MOVE_PS_PER_KEY), || {
                // In digit order the keys' global positions rise, so each destination
                // gets a contiguous run: its block.
                let sorted = lsd::counting_sort(&keys, pass, cfg.bits);
                let mut blocks = vec![Vec::new(); p as usize];
                let mut next = starts.clone();
                for k in sorted {
                    let d = lsd::digit(k, pass, cfg.bits);
                    blocks[(next[d] / n) as usize].push(k);
                    next[d] += 1;
                }
                blocks
            })
            .await;
        let got = exchange(&r, TAG_KEYS, p, p, blocks).await.concat();
        if got.len() != cfg.keys {
            return Err(format!("digit {pass}: received {} keys, expected {}", got.len(), cfg.keys));
        }
        keys =
            r.work(per_key(HISTOGRAM_PS_PER_KEY + MOVE_PS_PER_KEY), || lsd::counting_sort(&got, pass, cfg.bits)).await;
    }
    lsd::verify(&r, &keys, input).await
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| radb(r, cfg))
}
