//! NPB IS: integer bucket sort of random keys (NAS Parallel Benchmarks, Martin's
//! thesis ch. 4).
//!
//! N keys in [0, Bmax), each `Bmax/4 · (r1 + r2 + r3 + r4)` of four seeded uniform
//! draws (NPB's bell-shaped key distribution), stream 0 of the seed, indexed by key;
//! rank r holds keys `span(N, P, r)`. Each of the `iters` iterations first changes two
//! keys on rank 0 as NPB does (key i = i, key i + iters = Bmax − i), then ranks all
//! keys:
//! - `count`: each rank counts its keys per bucket (the top `buckets_log2` bits of a
//!   key), and an allreduce sums the counts together with [`TEST_KEYS`] more slots,
//!   where NPB's partial verification loads its test keys (here the keys at
//!   [`test_index`]); buckets are dealt to ranks in order so that each gets about N/P
//!   keys (NPB's assignment);
//! - `exchange`: each rank packs its keys per destination, tells every rank how many
//!   it sends (alltoall of one u32 per pair) and sends them (alltoallv, 4 bytes per key);
//! - `rank`: each rank counts its keys per key value and sums the counts up: the
//!   rank of every key value it owns (NPB's `key_buff1`).
//!
//! After the last iteration each rank sorts its keys by those counts (phase `sort`).
//!
//! **Communication**, NPB 3.4's `is.c` over its timed region and `full_verify` (its
//! untimed warm-up iteration and setup broadcast are left out, as its timing leaves
//! them out). Per iteration and rank, for P a power of two: the allreduce of
//! 2^buckets_log2 + 5 four-byte counts (recursive doubling below S: log2 P messages of
//! 2 068 B at class S, 4 116 B above), the alltoall of P − 1 counts of 4 bytes, the
//! alltoallv of P − 1 key blocks (about 4·N/P² bytes each: 32 KiB at class A on 32
//! ranks); the seed's 670 messages per processor are 10 such iterations at 32 ranks.
//! Then, as NPB: a reduce to rank 0 of 8 bytes (NPB's timer maximum; here the
//! fingerprint of the sorted keys), each rank but the last sends its largest key (4
//! bytes) to the next, and a reduce to rank 0 of a 4-byte count (NPB's passed
//! verifications; here the keys found out of order).
//!
//! **Cost model**: one unit is a key pass — reading one key and updating one entry of
//! a counter or buffer array (an L1/L2-resident increment or store) — charged at
//! [`PS_PER_KEY_PASS`] = 1 ns, an assumption of the order of a cache-resident
//! read-modify-write, scaled by the platform's CPU speed. `count` is one pass over the
//! rank's keys, `exchange` one (packing), `rank` one over the received keys plus one
//! per key value owned (the prefix sum), `sort` one over the received keys.
//!
//! **Verification** (phase `verify`): every rank's sorted keys are in order and not
//! below the previous rank's largest key (the counts of keys out of order, reduced to
//! rank 0, are zero), and the sum of a 64-bit hash of every sorted key — a fingerprint
//! of the multiset, reduced to rank 0 — equals that of the generated input (with the
//! iterations' changes) computed serially in the same process, cached per thread.

use crate::app::{App, Backend, Job, Size};
use crate::data::unit_f64s_at;
use crate::examples::stencil::span;
use netsens_core::program::collectives::{allreduce, alltoall, alltoallv, reduce};
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::Time;
use netsens_core::{input_err, Result};
use std::cell::RefCell;

pub const APP: App = App {
    name: "is",
    description: "NPB IS integer bucket sort: allreduce of bucket counts, alltoall of counts, alltoallv of keys",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per key pass: 1 ns, before CPU-speed scaling.
pub const PS_PER_KEY_PASS: Time = 1000;
/// NPB's partial-verification slots after the bucket counts (`TEST_ARRAY_SIZE`).
pub const TEST_KEYS: usize = 5;
/// Tag of the largest key sent to the next rank (NPB's 1000).
const BOUNDARY_TAG: i32 = 1000;
/// Seed stream of the keys.
const KEYS: u64 = 0;
/// Fewest keys a rank may hold: rank 0 must hold the 2·iters + 1 keys NPB changes.
const MIN_KEYS_PER_RANK: u64 = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// N = 2^keys_log2 keys.
    pub keys_log2: u32,
    /// Keys lie in [0, 2^max_key_log2).
    pub max_key_log2: u32,
    /// 2^buckets_log2 buckets.
    pub buckets_log2: u32,
    pub iters: u32,
    pub seed: u64,
}

impl Config {
    /// NPB's classes: tiny = S (2^16 keys below 2^11, 2^9 buckets); small = W (2^20
    /// keys below 2^16, 2^10 buckets); paper = B (2^25 keys below 2^21, 2^10
    /// buckets), the seed's class, whose messages at 32 ranks are 128 KiB. 10
    /// iterations each, as NPB.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (keys_log2, max_key_log2, buckets_log2) = match size {
            Size::Tiny => (16, 11, 9),
            Size::Small => (20, 16, 10),
            Size::Paper => (25, 21, 10),
        };
        Config { keys_log2, max_key_log2, buckets_log2, iters: 10, seed }
    }

    fn buckets(&self) -> usize {
        1 << self.buckets_log2
    }

    pub fn keys(&self) -> u64 {
        1 << self.keys_log2
    }

    fn max_key(&self) -> u32 {
        1 << self.max_key_log2
    }

    /// A key's bucket is its top bits.
    fn shift(&self) -> u32 {
        self.max_key_log2 - self.buckets_log2
    }

    pub fn max_ranks(&self) -> u64 {
        self.keys() / MIN_KEYS_PER_RANK
    }
}

/// Keys `[lo, hi)` of the input, before the iterations change any.
fn generate(cfg: &Config, lo: u64, hi: u64) -> Vec<u32> {
    let draws = unit_f64s_at(cfg.seed, KEYS, 4 * lo, 4 * (hi - lo) as usize);
    let scale = f64::from(cfg.max_key() / 4);
    draws.chunks_exact(4).map(|r| (scale * (r[0] + r[1] + r[2] + r[3])) as u32).collect()
}

/// NPB's change at the start of iteration `it` (1-based): keys `it` and `it + iters`.
fn modify(cfg: &Config, keys: &mut [u32], it: u32) {
    keys[it as usize] = it;
    keys[(it + cfg.iters) as usize] = cfg.max_key() - it;
}

/// Deal buckets to ranks in order: rank j gets buckets `[first[j], first[j+1])`, the
/// next rank starting once the keys so far reach (j+1)·N/P (NPB's assignment; ranks
/// past the last bucket get none).
fn assign(totals: &[u32], p: u32, n: u64) -> Vec<usize> {
    let mut first = vec![totals.len(); p as usize + 1];
    first[0] = 0;
    let (mut sum, mut j) = (0u64, 0usize);
    for (b, &t) in totals.iter().enumerate() {
        sum += u64::from(t);
        if j + 1 < p as usize && sum >= (j as u64 + 1) * n / u64::from(p) {
            j += 1;
            first[j] = b + 1;
        }
    }
    first
}

/// Global index of partial-verification key `i`: spread over the input (NPB's test
/// indices are fixed per class; only their number matters to the messages).
pub fn test_index(cfg: &Config, i: usize) -> u64 {
    (2 * i as u64 + 1) * cfg.keys() / (2 * TEST_KEYS as u64)
}

/// A 64-bit mix of a key (SplitMix64's finaliser): its sum over a multiset is a
/// fingerprint that a lost, duplicated or changed key alters.
fn mix(key: u32) -> u64 {
    let mut z = u64::from(key).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The wrapping sum of [`mix`] over keys.
pub fn fingerprint(keys: &[u32]) -> u64 {
    keys.iter().fold(0u64, |h, &k| h.wrapping_add(mix(k)))
}

thread_local! {
    /// The fingerprint of the last configuration's input on this thread.
    static REFERENCE: RefCell<Option<(Config, u64)>> = const { RefCell::new(None) };
}

/// The fingerprint of the whole input after every iteration's change, computed
/// serially once per thread.
fn reference(cfg: &Config) -> u64 {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match *cache {
            Some((key, f)) if key == *cfg => f,
            _ => {
                let mut keys = generate(cfg, 0, cfg.keys());
                (1..=cfg.iters).for_each(|it| modify(cfg, &mut keys, it));
                let f = fingerprint(&keys);
                *cache = Some((*cfg, f));
                f
            }
        }
    })
}

/// Counts per key value in `[lo, lo + len)`, summed up: entry v is the number of
/// keys below `lo + v` (the key value's rank among this rank's keys).
fn rank_keys(keys: &[u32], lo: u32, len: usize) -> Vec<u32> {
    let mut counts = vec![0u32; len + 1];
    for &k in keys {
        counts[(k - lo) as usize + 1] += 1;
    }
    for v in 1..=len {
        counts[v] += counts[v - 1];
    }
    counts
}

/// `keys` sorted by their ranks: each key goes to the next free slot of its value.
fn place(keys: &[u32], lo: u32, mut ranks: Vec<u32>) -> Vec<u32> {
    let mut out = vec![0u32; keys.len()];
    for &k in keys {
        let slot = &mut ranks[(k - lo) as usize];
        out[*slot as usize] = k;
        *slot += 1;
    }
    out
}

/// The rank's keys are in order.
pub fn check_sorted(keys: &[u32]) -> std::result::Result<(), String> {
    match keys.windows(2).position(|w| w[0] > w[1]) {
        Some(i) => Err(format!("keys {i} and {} of this rank are out of order: {} > {}", i + 1, keys[i], keys[i + 1])),
        None => Ok(()),
    }
}

/// Keys out of order (NPB's `full_verify` count): pairs of neighbours in decreasing
/// order, plus one when the previous rank's largest key is above this rank's first.
pub fn out_of_order(keys: &[u32], previous_largest: Option<u32>) -> u32 {
    let inside = keys.windows(2).filter(|w| w[0] > w[1]).count() as u32;
    let boundary = matches!((previous_largest, keys.first()), (Some(k), Some(&first)) if k > first);
    inside + u32::from(boundary)
}

/// No key out of order anywhere, and the sorted keys' fingerprint equals the input's.
pub fn check_totals(out_of_order: u32, got: u64, want: u64) -> std::result::Result<(), String> {
    if out_of_order > 0 {
        return Err(format!("{out_of_order} keys are out of order across the ranks"));
    }
    if got != want {
        return Err(format!("the sorted keys are not a permutation of the input: hash sum {got:#x}, input {want:#x}"));
    }
    Ok(())
}

/// The program.
pub async fn is<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let (p, me) = (r.size(), r.rank());
    let (lo, hi) = span(cfg.keys() as usize, p, me);
    let mut keys = generate(&cfg, lo as u64, hi as u64);
    let shift = cfg.shift();
    let pass = |n: usize| PS_PER_KEY_PASS * n as Time;
    let mut mine = Vec::new();
    let mut owned = (0, 0);
    let mut ranks = Vec::new();
    for it in 1..=cfg.iters {
        if me == 0 {
            modify(&cfg, &mut keys, it);
        }
        r.phase("count");
        let counts = r
            .work(pass(keys.len()), || {
                let mut c = vec![0u32; cfg.buckets() + TEST_KEYS];
                keys.iter().for_each(|&k| c[(k >> shift) as usize] += 1);
                for i in 0..TEST_KEYS {
                    let at = test_index(&cfg, i);
                    if (lo as u64..hi as u64).contains(&at) {
                        c[cfg.buckets() + i] = keys[(at - lo as u64) as usize];
                    }
                }
                c
            })
            .await;
        let totals = allreduce(&r, &comm, &counts, Op::Sum).await;
        let first = assign(&totals[..cfg.buckets()], p, cfg.keys());
        r.phase("exchange");
        let blocks = r
            .work(pass(keys.len()), || {
                let mut dest = vec![0u32; cfg.buckets()];
                (0..p as usize).for_each(|j| dest[first[j]..first[j + 1]].fill(j as u32));
                let mut blocks = vec![Vec::new(); p as usize];
                keys.iter().for_each(|&k| blocks[dest[(k >> shift) as usize] as usize].push(k));
                blocks
            })
            .await;
        let sizes: Vec<u32> = blocks.iter().map(|b| b.len() as u32).collect();
        let expect = decode::<u32>(&alltoall(&r, &comm, encode(&sizes)).await);
        let got = alltoallv(&r, &comm, blocks.iter().map(|b| encode(b)).collect()).await;
        mine.clear();
        for (src, (bytes, &n)) in got.iter().zip(&expect).enumerate() {
            if bytes.len() != 4 * n as usize {
                return Err(format!("rank {src} announced {n} keys but sent {} bytes", bytes.len()));
            }
            mine.extend(decode::<u32>(bytes));
        }
        r.phase("rank");
        owned =
            ((first[me as usize] as u32) << shift, ((first[me as usize + 1] - first[me as usize]) as usize) << shift);
        ranks = r.work(pass(mine.len() + owned.1), || rank_keys(&mine, owned.0, owned.1)).await;
    }
    r.phase("sort");
    let sorted = r.work(pass(mine.len()), || place(&mine, owned.0, ranks)).await;
    r.phase("verify");
    let hash = reduce(&r, &comm, 0, &[fingerprint(&sorted)], Op::Sum).await;
    let from_previous = (me > 0).then(|| r.irecv(&comm, me as i32 - 1, BOUNDARY_TAG));
    if me + 1 < p {
        r.send(&comm, me + 1, BOUNDARY_TAG, encode(&[*sorted.last().unwrap_or(&0)])).await;
    }
    let previous_largest = match from_previous {
        Some(op) => Some(decode::<u32>(&r.wait(op).await.data)[0]),
        None => None,
    };
    let errors = reduce(&r, &comm, 0, &[out_of_order(&sorted, previous_largest)], Op::Sum).await;
    match (errors, hash) {
        (Some(errors), Some(hash)) => check_totals(errors[0], hash[0], reference(&cfg)),
        _ => Ok(()),
    }
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    if u64::from(job.ranks) > cfg.max_ranks() {
        return Err(input_err!(
            "is: size {} has {} keys, at least {MIN_KEYS_PER_RANK} per rank; accepted: 1 to {} ranks",
            job.size,
            cfg.keys(),
            cfg.max_ranks()
        ));
    }
    backend.run(job.platform, move |r| is(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_bell_shaped_and_in_range() {
        let cfg = Config::preset(Size::Tiny, 1);
        let keys = generate(&cfg, 0, cfg.keys());
        assert!(keys.iter().all(|&k| k < cfg.max_key()));
        // Four uniform draws summed: the middle half of the range holds most keys.
        let middle = keys.iter().filter(|&&k| (512..1536).contains(&k)).count();
        assert!(middle as u64 > cfg.keys() * 3 / 4, "{middle}");
        assert_eq!(generate(&cfg, 100, 110), keys[100..110]);
    }

    #[test]
    fn buckets_are_dealt_by_running_total() {
        // 8 keys over 4 buckets (3, 1, 2, 2) for 2 ranks: rank 0 stops once 4 keys are in.
        assert_eq!(assign(&[3, 1, 2, 2], 2, 8), [0, 2, 4]);
        // More ranks than buckets: the last ranks get none.
        assert_eq!(assign(&[1, 1], 4, 2), [0, 1, 2, 2, 2]);
    }

    #[test]
    fn ranking_then_placing_sorts() {
        let keys = [7, 5, 5, 9, 6];
        let ranks = rank_keys(&keys, 5, 5);
        assert_eq!(ranks, [0, 2, 3, 4, 4, 5]);
        assert_eq!(place(&keys, 5, ranks), [5, 5, 6, 7, 9]);
    }

    #[test]
    fn verification_catches_a_wrong_answer() {
        assert_eq!(check_sorted(&[1, 2, 2, 5]), Ok(()));
        assert_eq!(check_sorted(&[1, 3, 2]).unwrap_err(), "keys 1 and 2 of this rank are out of order: 3 > 2");
        // One pair inside, and the previous rank's largest key above the first.
        assert_eq!(out_of_order(&[1, 3, 2], None), 1);
        assert_eq!(out_of_order(&[1, 3, 2], Some(4)), 2);
        assert_eq!(out_of_order(&[4, 5], Some(4)), 0);
        assert_eq!(out_of_order(&[], Some(9)), 0);
        // One key changed, or one lost, changes the fingerprint.
        let want = fingerprint(&[1, 2, 3]);
        assert_eq!(check_totals(0, fingerprint(&[3, 1, 2]), want), Ok(()));
        assert_eq!(check_totals(2, want, want).unwrap_err(), "2 keys are out of order across the ranks");
        assert!(check_totals(0, fingerprint(&[1, 2, 4]), want).is_err());
        assert!(check_totals(0, fingerprint(&[0, 1, 2, 3]), want).is_err());
        assert!(check_totals(0, fingerprint(&[2, 2, 2]), want).unwrap_err().starts_with("the sorted keys are not"));
    }
}
