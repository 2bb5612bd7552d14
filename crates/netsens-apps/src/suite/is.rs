//! NPB IS: integer bucket sort of random keys (NAS Parallel Benchmarks, Martin's
//! thesis ch. 4).
//!
//! N keys in [0, Bmax), each `Bmax/4 · (r1 + r2 + r3 + r4)` of four seeded uniform
//! draws (NPB's bell-shaped key distribution), stream 0 of the seed, indexed by key;
//! rank r holds keys `span(N, P, r)`. Each of the `iters` iterations first changes two
//! keys on rank 0 as NPB does (key i = i, key i + iters = Bmax − i), then ranks all
//! keys:
//! - `count`: each rank counts its keys per bucket (the top [`BUCKETS_LOG2`] bits of a
//!   key), and an allreduce sums the counts; buckets are dealt to ranks in order so
//!   that each gets about N/P keys (NPB's assignment);
//! - `exchange`: each rank packs its keys per destination, tells every rank how many
//!   it sends (alltoall of one u32 per pair) and sends them (alltoallv, 4 bytes per key);
//! - `rank`: each rank counts its keys per key value and sums the counts up: the
//!   rank of every key value it owns (NPB's `key_buff1`).
//!
//! After the last iteration each rank sorts its keys by those counts (phase `sort`).
//!
//! **Communication** per iteration and rank, for P a power of two: the allreduce of
//! 2^10 four-byte counts (recursive doubling below S: log2 P messages of 4 KiB), P − 1
//! counts of 4 bytes, P − 1 key blocks (about 4·N/P² bytes each: 32 KiB at class A on
//! 32 ranks); the seed's 670 messages per processor are 10 such iterations at 32 ranks.
//!
//! **Cost model**: one unit is a key pass — reading one key and updating one entry of
//! a counter or buffer array (an L1/L2-resident increment or store) — charged at
//! [`PS_PER_KEY_PASS`] = 1 ns, an assumption of the order of a cache-resident
//! read-modify-write, scaled by the platform's CPU speed. `count` is one pass over the
//! rank's keys, `exchange` one (packing), `rank` one over the received keys plus one
//! per key value owned (the prefix sum), `sort` one over the received keys.
//!
//! **Verification** (phase `verify`): every rank's sorted keys are in order, an
//! allgather of every rank's (first, last) key shows that rank r's keys are all below
//! rank r+1's, and an allreduce of (count, sum, sum of a hash) of the sorted keys —
//! a fingerprint of the multiset — equals the fingerprint of the generated input
//! (with the iterations' changes) computed serially in the same process, cached per
//! thread.

use crate::data::unit_f64s_at;
use crate::examples::stencil::span;
use crate::registry::{App, Backend, Job, Size};
use netsens_core::program::collectives::{allgather, allreduce, alltoall, alltoallv};
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
/// NPB's 2^10 buckets.
pub const BUCKETS_LOG2: u32 = 10;
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
    pub iters: u32,
    pub seed: u64,
}

impl Config {
    /// tiny: NPB class S (2^16 keys below 2^11); small: class A (2^23 keys below
    /// 2^19); paper: class B (2^25 keys below 2^21), whose messages at 32 ranks
    /// (128 KiB) bracket the seed's ~60 KB with class A's (32 KiB). 10 iterations each.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (keys_log2, max_key_log2) = match size {
            Size::Tiny => (16, 11),
            Size::Small => (23, 19),
            Size::Paper => (25, 21),
        };
        Config { keys_log2, max_key_log2, iters: 10, seed }
    }

    pub fn keys(&self) -> u64 {
        1 << self.keys_log2
    }

    fn max_key(&self) -> u32 {
        1 << self.max_key_log2
    }

    /// A key's bucket is its top bits.
    fn shift(&self) -> u32 {
        self.max_key_log2 - BUCKETS_LOG2
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

/// A 64-bit mix of a key (SplitMix64's finaliser): its sum over a multiset is a
/// fingerprint that a lost, duplicated or changed key alters.
fn mix(key: u32) -> u64 {
    let mut z = u64::from(key).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// (count, sum, sum of [`mix`]) of keys, wrapping.
pub fn fingerprint(keys: &[u32]) -> [u64; 3] {
    keys.iter().fold([0u64; 3], |[n, s, h], &k| [n + 1, s.wrapping_add(u64::from(k)), h.wrapping_add(mix(k))])
}

thread_local! {
    /// The fingerprint of the last configuration's input on this thread.
    static REFERENCE: RefCell<Option<(Config, [u64; 3])>> = const { RefCell::new(None) };
}

/// The fingerprint of the whole input after every iteration's change, computed
/// serially once per thread.
fn reference(cfg: &Config) -> [u64; 3] {
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

/// Every rank's (count, first, last) keys: no key of a rank is above a key of a later rank.
pub fn check_boundaries(ends: &[u32]) -> std::result::Result<(), String> {
    let mut highest: Option<(usize, u32)> = None;
    for (rank, e) in ends.chunks_exact(3).enumerate() {
        if e[0] == 0 {
            continue;
        }
        if let Some((before, last)) = highest {
            if last > e[1] {
                return Err(format!("rank {before} ends with key {last}, above rank {rank}'s first key {}", e[1]));
            }
        }
        highest = Some((rank, e[2]));
    }
    Ok(())
}

/// The sorted keys' fingerprint equals the input's.
pub fn check_fingerprint(got: &[u64], want: &[u64; 3]) -> std::result::Result<(), String> {
    if got != want {
        return Err(format!(
            "the sorted keys are not a permutation of the input: (count, sum, hash sum) {got:?}, input {want:?}"
        ));
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
                let mut c = vec![0u32; 1 << BUCKETS_LOG2];
                keys.iter().for_each(|&k| c[(k >> shift) as usize] += 1);
                c
            })
            .await;
        let totals = allreduce(&r, &comm, &counts, Op::Sum).await;
        let first = assign(&totals, p, cfg.keys());
        r.phase("exchange");
        let blocks = r
            .work(pass(keys.len()), || {
                let mut dest = vec![0u32; 1 << BUCKETS_LOG2];
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
    check_sorted(&sorted)?;
    let ends = [sorted.len() as u32, *sorted.first().unwrap_or(&0), *sorted.last().unwrap_or(&0)];
    check_boundaries(&decode::<u32>(&allgather(&r, &comm, encode(&ends)).await))?;
    let total = allreduce(&r, &comm, &fingerprint(&sorted), Op::Sum).await;
    check_fingerprint(&total, &reference(&cfg))
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
        // (count, first, last) per rank; an empty rank in the middle is skipped.
        assert_eq!(check_boundaries(&[2, 1, 4, 0, 0, 0, 3, 4, 9]), Ok(()));
        let err = check_boundaries(&[2, 1, 5, 0, 0, 0, 3, 4, 9]).unwrap_err();
        assert_eq!(err, "rank 0 ends with key 5, above rank 2's first key 4");
        // One key changed, or one lost, changes the fingerprint.
        let want = fingerprint(&[1, 2, 3]);
        assert_eq!(check_fingerprint(&fingerprint(&[3, 1, 2]), &want), Ok(()));
        assert!(check_fingerprint(&fingerprint(&[1, 2, 4]), &want).is_err());
        assert!(check_fingerprint(&fingerprint(&[0, 1, 2, 3]), &want).is_err());
        assert!(check_fingerprint(&fingerprint(&[2, 2, 2]), &want).unwrap_err().starts_with("the sorted keys are not"));
    }
}
