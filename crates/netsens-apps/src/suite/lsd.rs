//! What the two LSD radix sorts of the Split-C suite (`radix`, `radb`) share: the
//! keys, the digits, the arithmetic of the global histogram, the compute cost model
//! and the final check. The two differ only in how their messages travel.
//!
//! **Keys**: every rank holds N random 32-bit keys, words `rank·N ..` of stream 0 of
//! the seed, and ends with N keys: rank i holds global positions `i·N .. (i+1)·N` of
//! the sorted sequence.
//!
//! **One pass per b-bit digit**, least significant first (b = 8: 4 passes). A key of
//! digit d on rank p goes to global position `base[d] + prefix[p][d] + j`, where
//! `base[d]` counts all keys of smaller digits, `prefix[p][d]` the keys of digit d on
//! ranks before p and j the key's rank among p's own keys of digit d: a stable
//! counting sort over all ranks. Position g lives on rank g / N at slot g % N.
//!
//! **Global histogram**: bucket d is owned by rank d mod P. Every rank sends its count
//! of each bucket to the bucket's owner; each owner scans the counts of its buckets
//! over the ranks and returns to every rank its prefix and the bucket's total, from
//! which the rank computes `base[d] + prefix[p][d]` for every d.
//!
//! **Cost model** (charged through `Rank::work`, scaled by the platform's CPU speed;
//! the real work runs inside): one unit is the time of a few integer instructions on
//! the 167 MHz UltraSPARC of Martin's NOW, rounded. [`HISTOGRAM_PS_PER_KEY`] = 50 ns
//! (about 8 cycles: load a key, shift, mask, increment its bucket's count);
//! [`MOVE_PS_PER_KEY`] = 50 ns (the digit again, fetch and advance the bucket's
//! next position, split it into rank and slot or copy the key there);
//! [`SCAN_PS_PER_COUNT`] = 20 ns (about 3 cycles: one addition and one store per
//! count in the prefix scans). These are assumptions, not measurements; the message
//! costs themselves (o, g, L, G) come from the network model.
//!
//! **Check** (phase `verify`): each rank's keys are in order; each rank sends its
//! first key to the rank before it (one small message), which checks that its last
//! key is not larger; and the multiset of all keys is the input's, compared by an
//! allreduce of order-independent sums (count, Σk, Σk², Σh(k) for a 64-bit mixing
//! hash h) over the output and over the generated input.

use crate::data;
use netsens_core::program::collectives::allreduce;
use netsens_core::program::{Op, Rank};
use netsens_core::time::{Time, NS};
use rand_chacha::rand_core::Rng;

/// Count one key's digit.
pub const HISTOGRAM_PS_PER_KEY: Time = 50 * NS;
/// Move one key to its computed place (or compute that place).
pub const MOVE_PS_PER_KEY: Time = 50 * NS;
/// One step of a prefix scan over counts.
pub const SCAN_PS_PER_COUNT: Time = 20 * NS;

/// Seed stream of the keys.
const KEYS: u64 = 0;
/// Tag of the boundary keys of the check.
const TAG_BOUNDARY: i32 = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Keys per rank (N ≥ 1).
    pub keys: usize,
    /// Bits per digit (1 ..= 16).
    pub bits: u32,
    /// Seed of the keys.
    pub seed: u64,
}

impl Config {
    /// 8-bit digits (4 passes, 256 buckets). tiny: 256 keys per rank; small: 16 Ki,
    /// which `radix` simulates in a few seconds at 32 ranks (every key is a message);
    /// paper: 1 Mi (32 Mi keys on the seed's 32 processors). The seeds at hand do not
    /// state Radix's input: 1 Mi keys per rank is what they state for sample sort (over
    /// a million messages per processor, one per key), the same 32-bit keys.
    pub fn preset(size: crate::Size, seed: u64) -> Config {
        let keys = match size {
            crate::Size::Tiny => 256,
            crate::Size::Small => 1 << 14,
            crate::Size::Paper => 1 << 20,
        };
        Config { keys, bits: 8, seed }
    }

    pub fn passes(&self) -> u32 {
        32u32.div_ceil(self.bits)
    }

    pub fn buckets(&self) -> usize {
        1 << self.bits
    }
}

/// Rank `rank`'s input keys.
pub fn generate(cfg: &Config, rank: u32) -> Vec<u32> {
    let mut rng = data::stream(cfg.seed, KEYS);
    rng.set_word_pos(u128::from(rank) * cfg.keys as u128);
    (0..cfg.keys).map(|_| rng.next_u32()).collect()
}

/// Digit `pass` of `key`.
#[inline]
pub fn digit(key: u32, pass: u32, bits: u32) -> usize {
    ((u64::from(key) >> (pass * bits)) & ((1 << bits) - 1)) as usize
}

/// Keys per bucket of digit `pass`.
pub fn histogram(keys: &[u32], pass: u32, bits: u32) -> Vec<u32> {
    let mut counts = vec![0; 1 << bits];
    for &k in keys {
        counts[digit(k, pass, bits)] += 1;
    }
    counts
}

/// Stable counting sort of `keys` by digit `pass`.
pub fn counting_sort(keys: &[u32], pass: u32, bits: u32) -> Vec<u32> {
    let mut next = vec![0usize; 1 << bits];
    let counts = histogram(keys, pass, bits);
    for d in 1..next.len() {
        next[d] = next[d - 1] + counts[d - 1] as usize;
    }
    let mut out = vec![0; keys.len()];
    for &k in keys {
        let d = digit(k, pass, bits);
        out[next[d]] = k;
        next[d] += 1;
    }
    out
}

/// The rank that owns bucket `d` among `p` ranks.
pub fn owner(d: usize, p: u32) -> u32 {
    (d % p as usize) as u32
}

/// The buckets rank `q` owns: q, q + P, q + 2P, ...
pub fn owned(q: u32, p: u32, buckets: usize) -> impl Iterator<Item = usize> {
    (q as usize..buckets).step_by(p as usize)
}

/// An owner's scan: `counts[j·P + p]` is rank p's count of the owner's j-th bucket;
/// returns, in the same layout, (keys of that bucket on ranks before p, bucket total).
pub fn owner_scan(counts: &[u32], p: u32) -> Vec<(u32, u32)> {
    counts
        .chunks(p as usize)
        .flat_map(|bucket| {
            let total: u32 = bucket.iter().sum();
            bucket.iter().scan(0, move |before, &c| {
                let item = (*before, total);
                *before += c;
                Some(item)
            })
        })
        .collect()
}

/// This rank's first global position in every bucket, from its prefix and every
/// bucket's total.
pub fn starts(prefix: &[u32], total: &[u32]) -> Vec<u64> {
    let mut base = 0u64;
    prefix
        .iter()
        .zip(total)
        .map(|(&pre, &t)| {
            let start = base + u64::from(pre);
            base += u64::from(t);
            start
        })
        .collect()
}

/// Order-independent sums of a multiset of keys: count, Σk, Σk², Σh(k) (wrapping).
pub fn fingerprint(keys: &[u32]) -> [u64; 4] {
    keys.iter().fold([0u64; 4], |[n, s, sq, h], &k| {
        let k = u64::from(k);
        [n + 1, s.wrapping_add(k), sq.wrapping_add(k * k), h.wrapping_add(mix(k))]
    })
}

/// SplitMix64's finaliser: a bijective 64-bit mixing, so Σh(k) catches changes that
/// keep the count, sum and sum of squares.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The check of one rank's part of the answer: its keys in order, its last key not
/// above the next rank's first (`next_first`, none on the last rank), and the
/// output's fingerprint (summed over all ranks) equal to the input's.
pub fn check(
    keys: &[u32],
    next_first: Option<u32>,
    output: [u64; 4],
    input: [u64; 4],
) -> std::result::Result<(), String> {
    if let Some(i) = keys.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!("not sorted: key {i} is {} and key {} is {}", keys[i], i + 1, keys[i + 1]));
    }
    if let (Some(&last), Some(first)) = (keys.last(), next_first) {
        if last > first {
            return Err(format!("not sorted across ranks: the last key is {last}, the next rank's first is {first}"));
        }
    }
    if output != input {
        return Err(format!(
            "not a permutation of the input: (count, sum, sum of squares, hash sum) of the output {output:?}, \
             of the input {input:?}"
        ));
    }
    Ok(())
}

/// Check the sorted `keys` of this rank against the fingerprint of its input.
pub async fn verify<R: Rank>(r: &R, keys: &[u32], input: [u64; 4]) -> std::result::Result<(), String> {
    r.phase("verify");
    let (w, me, p) = (r.world(), r.rank(), r.size());
    let send = (me > 0).then(|| r.isend(&w, me - 1, TAG_BOUNDARY, keys[0].to_le_bytes().to_vec()));
    let next_first = if me + 1 < p {
        let m = r.recv(&w, (me + 1) as i32, TAG_BOUNDARY).await;
        Some(u32::from_le_bytes(m.data.try_into().map_err(|_| "a boundary key is not 4 bytes".to_string())?))
    } else {
        None
    };
    if let Some(s) = send {
        r.wait(s).await;
    }
    let mut sums = fingerprint(keys).to_vec();
    sums.extend(input);
    let total = allreduce(r, &w, &sums, Op::Sum).await;
    check(keys, next_first, total[..4].try_into().expect("4 sums"), total[4..].try_into().expect("4 sums"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_histogram_and_stable_sort() {
        assert_eq!((digit(0x12345678, 0, 8), digit(0x12345678, 3, 8), digit(0xffff_ffff, 2, 16)), (0x78, 0x12, 0));
        let keys = [0x0102, 0x0201, 0x0301, 0x0002];
        assert_eq!(histogram(&keys, 0, 8)[1..3], [2, 2]);
        // By the low byte, stably: 0x0201, 0x0301 (digit 1) before 0x0102, 0x0002.
        assert_eq!(counting_sort(&keys, 0, 8), [0x0201, 0x0301, 0x0102, 0x0002]);
        assert_eq!(counting_sort(&counting_sort(&keys, 0, 8), 1, 8), [0x0002, 0x0102, 0x0201, 0x0301]);
    }

    #[test]
    fn owners_scan_and_starts_by_hand() {
        assert_eq!(owned(1, 3, 8).collect::<Vec<_>>(), [1, 4, 7]);
        assert_eq!(owned(5, 8, 4).count(), 0);
        assert_eq!(owner(7, 3), 1);
        // Two buckets over three ranks: counts (2, 0, 5) and (1, 1, 1).
        assert_eq!(owner_scan(&[2, 0, 5, 1, 1, 1], 3), [(0, 7), (2, 7), (2, 7), (0, 3), (1, 3), (2, 3)]);
        // Totals 7, 3, 4; this rank's prefixes 2, 1, 0: starts 2, 7 + 1, 10 + 0.
        assert_eq!(starts(&[2, 1, 0], &[7, 3, 4]), [2, 8, 10]);
    }

    #[test]
    fn keys_are_per_rank_slices_of_one_stream() {
        let cfg = Config { keys: 5, bits: 8, seed: 9 };
        let all = generate(&Config { keys: 10, ..cfg }, 0);
        assert_eq!([generate(&cfg, 0), generate(&cfg, 1)].concat(), all);
    }

    #[test]
    fn the_check_catches_wrong_answers() {
        let input = [5, 1, 4, 1];
        let good = [1, 1, 4, 5];
        let fp = fingerprint(&input);
        assert_eq!(check(&good, Some(5), fp, fp), Ok(()));
        assert_eq!(check(&good, None, fp, fp), Ok(()));
        let unsorted = [1, 4, 1, 5];
        assert_eq!(
            check(&unsorted, None, fingerprint(&unsorted), fp),
            Err("not sorted: key 1 is 4 and key 2 is 1".into())
        );
        let err = check(&good, Some(4), fp, fp).unwrap_err();
        assert!(err.contains("across ranks"), "{err}");
        // Sorted, the same count and sum, but not the input's keys.
        let other = [1, 2, 3, 5];
        assert_eq!(fingerprint(&other)[..2], fp[..2]);
        let err = check(&other, None, fingerprint(&other), fp).unwrap_err();
        assert!(err.starts_with("not a permutation of the input"), "{err}");
    }
}
