//! `radix`: LSD radix sort of random 32-bit keys in the fine-grained Split-C style of
//! Martin et al. (ISCA'97): every key travels as its own small one-way message.
//! The algorithm, keys, cost model and check are those of [`super::lsd`].
//!
//! **Communication**, per digit (b-bit, B = 2^b buckets), all with `store` into the
//! target's window, each completed by `store_sync` and a barrier:
//! - phase `histogram`: every rank stores each of its B bucket counts (4 bytes) to the
//!   bucket's owner (rank d mod P); then each owner stores, for each of its buckets
//!   and each rank, that rank's prefix and the bucket's total (8 bytes). That is
//!   P·B + P·B stores per digit whatever P is (an owner stores P replies per bucket).
//!   Small one-way messages, as in the seed, rather than a collective.
//! - phase `scatter`: every key is stored (4 bytes) into the slot of its destination
//!   rank: P·N stores per digit.
//!
//! So a sort of N keys per rank sends exactly passes·(P·N + 2·P·B) stores. A key or
//! count whose destination is its own rank is stored too (a loopback message, paying
//! o at both ends): Split-C would write it locally, but storing it keeps every key one
//! message, as the suite asks, and the counts independent of the data (at 32 ranks it
//! adds about 1/32 to the traffic).
//!
//! Stores are produced (their addresses computed and charged) and issued in chunks
//! of [`CHUNK`], so a rank's computation interleaves with its sends as in Split-C's
//! per-key loop. Producing a count or reply store is charged as one scan step
//! ([`SCAN_PS_PER_COUNT`]), a key store as one move ([`MOVE_PS_PER_KEY`]).
//!
//! **Window** (little-endian u32 words): N incoming keys, then the counts an owner
//! receives (P per owned bucket), then B (prefix, total) pairs.

use super::lsd::{self, Config, HISTOGRAM_PS_PER_KEY, MOVE_PS_PER_KEY, SCAN_PS_PER_COUNT};
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::barrier;
use netsens_core::program::{decode, Rank};
use netsens_core::time::Time;
use netsens_core::Result;

pub const APP: App = App {
    name: "radix",
    description: "LSD radix sort of 32-bit keys, 8-bit digits; every key stored to its place as a small message",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Keys whose addresses are computed (and charged) before their stores are issued.
pub const CHUNK: usize = 16;

/// A store: destination rank, byte offset in its window, data.
type Store = (u32, usize, Vec<u8>);

/// Byte offsets of the window's three areas.
struct Layout {
    counts: usize,
    replies: usize,
    end: usize,
}

impl Layout {
    fn new(cfg: &Config, p: u32) -> Layout {
        let counts = 4 * cfg.keys;
        let replies = counts + 4 * cfg.buckets().div_ceil(p as usize) * p as usize;
        Layout { counts, replies, end: replies + 8 * cfg.buckets() }
    }
}

/// Words `from .. from + len` of this rank's window.
fn read<R: Rank>(r: &R, from: usize, len: usize) -> Vec<u32> {
    r.window(|w| decode(&w[from..from + 4 * len]))
}

/// Issue `count` stores (destination, offset, bytes) [`CHUNK`] at a time: each chunk
/// is produced (the real work: addresses, scans) and charged `each` per store, then
/// issued, so the computation interleaves with the sends.
async fn store_chunked<R: Rank>(r: &R, each: Time, count: usize, mut stores: impl Iterator<Item = Store>) {
    let mut left = count;
    while left > 0 {
        let n = left.min(CHUNK);
        let chunk: Vec<Store> = r.work(each * n as Time, || stores.by_ref().take(n).collect()).await;
        for (dst, offset, data) in chunk {
            r.store(dst, offset, data);
        }
        left -= n;
    }
}

/// Store, then wait until every rank's stores have landed.
async fn settle<R: Rank>(r: &R) {
    r.store_sync().await;
    barrier(r, &r.world()).await;
}

/// This rank's first global position in every bucket of digit `pass`.
async fn global_starts<R: Rank>(r: &R, cfg: &Config, at: &Layout, keys: &[u32], pass: u32) -> Vec<u64> {
    let (me, p, b) = (r.rank(), r.size(), cfg.buckets());
    let counts = r.work(HISTOGRAM_PS_PER_KEY * keys.len() as Time, || lsd::histogram(keys, pass, cfg.bits)).await;
    let to_owners = counts.iter().enumerate().map(|(d, c)| {
        let slot = d / p as usize * p as usize + me as usize;
        (lsd::owner(d, p), at.counts + 4 * slot, c.to_le_bytes().to_vec())
    });
    store_chunked(r, SCAN_PS_PER_COUNT, b, to_owners).await;
    settle(r).await;
    let mine: Vec<usize> = lsd::owned(me, p, b).collect();
    let matrix = read(r, at.counts, mine.len() * p as usize);
    // Each owned bucket's counts are scanned as its replies are produced.
    let replies = mine.iter().zip(matrix.chunks(p as usize)).flat_map(|(&d, counts)| {
        lsd::owner_scan(counts, p).into_iter().enumerate().map(move |(rank, (prefix, total))| {
            (rank as u32, at.replies + 8 * d, [prefix.to_le_bytes(), total.to_le_bytes()].concat())
        })
    });
    store_chunked(r, SCAN_PS_PER_COUNT, matrix.len(), replies).await;
    settle(r).await;
    let pairs = read(r, at.replies, 2 * b);
    r.work(SCAN_PS_PER_COUNT * b as Time, || {
        let (prefix, total): (Vec<u32>, Vec<u32>) = pairs.chunks(2).map(|x| (x[0], x[1])).unzip();
        lsd::starts(&prefix, &total)
    })
    .await
}

/// The program.
pub async fn radix<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let p = r.size();
    let at = Layout::new(&cfg, p);
    // Exposed before the first wait, so before any rank can store to it.
    r.expose(at.end);
    let mut keys = lsd::generate(&cfg, r.rank());
    let input = lsd::fingerprint(&keys);
    let n = cfg.keys as u64;
    for pass in 0..cfg.passes() {
        r.phase("histogram");
        let mut next = global_starts(&r, &cfg, &at, &keys, pass).await;
        r.phase("scatter");
        let places = keys.iter().map(|&k| {
            let d = lsd::digit(k, pass, cfg.bits);
            let g = next[d];
            next[d] += 1;
            ((g / n) as u32, 4 * (g % n) as usize, k.to_le_bytes().to_vec())
        });
        store_chunked(&r, MOVE_PS_PER_KEY, keys.len(), places).await;
        settle(&r).await;
        // The window is this rank's array of keys; reading it back costs nothing, as
        // Split-C would simply swap the two arrays.
        keys = read(&r, 0, cfg.keys);
    }
    lsd::verify(&r, &keys, input).await
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| radix(r, cfg))
}
