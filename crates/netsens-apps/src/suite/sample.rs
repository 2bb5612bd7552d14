//! Sample sort of random 32-bit keys, Split-C style (Martin et al., ISCA'97): every
//! key travels to its destination as one small one-way message, so a processor sends
//! as many messages as it holds keys (the seed: over a million per processor).
//!
//! **Data**: rank r holds keys `r·N .. (r+1)·N` of stream 0 of the seed, one 32-bit
//! word each, so each rank generates only its own keys.
//!
//! **Algorithm** (each step a phase of that name, then `verify`):
//! 1. `sample`: each rank picks s keys at positions drawn from stream 1 of the seed;
//!    a [`gather`] brings the P·s samples to rank 0, which sorts them and takes every
//!    s-th as one of the P−1 splitters; a [`bcast`] gives them to every rank.
//! 2. `route`: each key goes to rank d = the number of splitters ≤ key, as one
//!    4-byte active message whose handler appends it to d's receive buffer. Keys a
//!    rank keeps go the same way (a message to itself), so the rank sends exactly N
//!    key messages. Active messages that append, rather than stores into slots, need
//!    no count exchange first: a slot layout would cost two all-to-alls of counts
//!    (P−1 messages each per rank) so that senders learn their offsets. Keys go in
//!    windows of [`WINDOW`], each closed by `store_sync` (this rank's keys so far are
//!    appended); a [`barrier`] after the last (everyone's are).
//! 3. `sort`: each rank sorts what it received.
//!
//! **Messages** (P a power of two, so that every collective below takes its
//! small-message algorithm): P·N key messages, plus the gather's P−1 and the
//! broadcast's P−1 (binomial trees: one message per non-root rank), plus P·log2 P
//! for each of the barrier (dissemination) and the verification's allgather and
//! allreduce (recursive doubling).
//!
//! **Cost model**: the unit is one *key step*: a comparison with its data movement in
//! a sort, one probe of the splitter binary search, or appending one key in the
//! handler, charged at [`PS_PER_STEP`] = 5 ns (a round figure for a cache-missing key
//! operation on one core; an assumption, not a measurement), scaled by the platform's
//! CPU speed. Sorting m keys costs m·⌈log2 m⌉ steps, picking s samples s steps,
//! routing a key ⌈log2 P⌉ steps (the binary search) and appending it 1 step (on the
//! receiver, charged by the handler). Generating the input and verifying the answer
//! cost no virtual time.
//!
//! **Verification**: every rank checks that its keys are sorted; an allgather of each
//! rank's (count, min, max) checks the order across ranks; an allreduce of the key
//! count, sum and sum of a 64-bit hash of every key, taken over the generated input
//! and over the sorted output, checks that the output is a permutation of the input.

use crate::app::{App, Backend, Job, Size};
use crate::data::stream;
use netsens_core::program::collectives::{allgather, allreduce, barrier, bcast, gather};
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::{Time, NS};
use netsens_core::Result;
use rand_chacha::rand_core::Rng;
use std::cell::RefCell;
use std::rc::Rc;

pub const APP: App = App {
    name: "sample",
    description: "sample sort of random 32-bit keys: splitters by sampling, then one small active message per key",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per key step, before CPU-speed scaling.
pub const PS_PER_STEP: Time = 5 * NS;

/// Seed streams of the keys and of the sample positions.
const KEYS: u64 = 0;
const SAMPLES: u64 = 1;

/// Keys routed per window: a window's searches are charged, its keys sent, and the
/// rank waits (`store_sync`) until they are appended before the next window. This
/// bounds the messages in flight, as a finite send queue would (the simulator's cost
/// grows with the square of a rank's backlog of blocked sends), at the price of about
/// one L + o per window (≈ 2% of a window's 64 sends at the NOW's g).
pub const WINDOW: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Keys per rank (N).
    pub keys: usize,
    /// Samples per rank (s, the oversampling ratio).
    pub samples: usize,
    pub seed: u64,
}

impl Config {
    /// Keys per rank: tiny 256 (s = 16), small 16 Ki (s = 64), paper 1 Mi (s = 64):
    /// the seed's "over 1 million messages per processor" (32 Mi keys on its 32
    /// processors).
    pub fn preset(size: Size, seed: u64) -> Config {
        let (keys, samples) = match size {
            Size::Tiny => (256, 16),
            Size::Small => (16 << 10, 64),
            Size::Paper => (1 << 20, 64),
        };
        Config { keys, samples, seed }
    }
}

/// Rank `rank`'s keys.
pub fn keys_of(cfg: &Config, rank: u32) -> Vec<u32> {
    let mut rng = stream(cfg.seed, KEYS);
    rng.set_word_pos(u128::from(rank) * cfg.keys as u128);
    (0..cfg.keys).map(|_| rng.next_u32()).collect()
}

/// Rank `rank`'s samples: keys at positions drawn from the sample stream.
fn samples_of(cfg: &Config, rank: u32, keys: &[u32]) -> Vec<u32> {
    let mut rng = stream(cfg.seed, SAMPLES);
    rng.set_word_pos(u128::from(rank) * cfg.samples as u128);
    (0..cfg.samples).map(|_| keys[((u64::from(rng.next_u32()) * keys.len() as u64) >> 32) as usize]).collect()
}

/// Steps of sorting `m` keys: m·⌈log2 m⌉.
fn sort_steps(m: usize) -> u64 {
    m as u64 * u64::from(ceil_log2(m as u64))
}

fn ceil_log2(x: u64) -> u32 {
    x.max(1).next_power_of_two().trailing_zeros()
}

/// The destination of `key`: the number of splitters ≤ key.
fn destination(splitters: &[u32], key: u32) -> u32 {
    splitters.partition_point(|&s| s <= key) as u32
}

/// 64-bit mix of a key (SplitMix64's finaliser), so that the checksum sums values
/// spread over the whole word.
fn mix(key: u32) -> u64 {
    let mut z = u64::from(key).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// (count, sum, sum of mixes) of `keys`.
fn checksum(keys: &[u32]) -> [u64; 3] {
    keys.iter()
        .fold([keys.len() as u64, 0, 0], |[n, s, m], &k| [n, s.wrapping_add(u64::from(k)), m.wrapping_add(mix(k))])
}

/// The program.
pub async fn sample<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let (p, me) = (r.size(), r.rank());
    let keys = keys_of(&cfg, me);
    let received = Rc::new(RefCell::new(Vec::with_capacity(cfg.keys)));
    let sink = received.clone();
    let append = r.register(Rc::new(move |_, data: &[u8]| {
        sink.borrow_mut().push(u32::from_le_bytes(data.try_into().expect("a 4-byte key")));
        PS_PER_STEP
    }));

    r.phase("sample");
    let picked = r.work(cfg.samples as Time * PS_PER_STEP, || samples_of(&cfg, me, &keys)).await;
    let splitters = match gather(&r, &comm, 0, encode(&picked)).await {
        Some(all) => {
            let mut all: Vec<u32> = decode(&all);
            r.work(sort_steps(all.len()) * PS_PER_STEP, || all.sort_unstable()).await;
            encode(&(1..p as usize).map(|i| all[i * cfg.samples]).collect::<Vec<u32>>())
        }
        None => vec![0; 4 * (p as usize - 1)],
    };
    let splitters: Vec<u32> = decode(&bcast(&r, &comm, 0, splitters).await);

    r.phase("route");
    let search = u64::from(ceil_log2(u64::from(p))) * PS_PER_STEP;
    for window in keys.chunks(WINDOW) {
        let dests = r
            .work(window.len() as Time * search, || {
                window.iter().map(|&k| destination(&splitters, k)).collect::<Vec<_>>()
            })
            .await;
        for (&key, &d) in window.iter().zip(&dests) {
            r.am(d, append, key.to_le_bytes().to_vec());
        }
        r.store_sync().await;
    }
    barrier(&r, &comm).await;

    r.phase("sort");
    let mut mine = received.take();
    r.work(sort_steps(mine.len()) * PS_PER_STEP, || mine.sort_unstable()).await;

    r.phase("verify");
    verify(&r, &keys, &mine).await
}

/// Check that the keys are sorted across all ranks and a permutation of the input.
async fn verify<R: Rank>(r: &R, input: &[u32], mine: &[u32]) -> std::result::Result<(), String> {
    let comm = r.world();
    if let Some(i) = mine.windows(2).position(|w| w[0] > w[1]) {
        return Err(format!("keys {i} and {} of this rank are out of order: {} > {}", i + 1, mine[i], mine[i + 1]));
    }
    let bounds = [mine.len() as u32, mine.first().copied().unwrap_or(0), mine.last().copied().unwrap_or(0)];
    let all: Vec<u32> = decode(&allgather(r, &comm, encode(&bounds)).await);
    let mut before: Option<(usize, u32)> = None;
    for (rank, b) in all.chunks_exact(3).enumerate() {
        if b[0] == 0 {
            continue;
        }
        if let Some((prev, max)) = before.filter(|&(_, max)| max > b[1]) {
            return Err(format!("rank {prev} ends with key {max}, above the first key {} of rank {rank}", b[1]));
        }
        before = Some((rank, b[2]));
    }
    let (i, o) = (checksum(input), checksum(mine));
    let sums = allreduce(r, &comm, &[i[0], i[1], i[2], o[0], o[1], o[2]], Op::Sum).await;
    if sums[..3] != sums[3..] {
        return Err(format!(
            "the output is not a permutation of the input: (count, sum, hash sum) of the input {:?}, of the output {:?}",
            &sums[..3],
            &sums[3..]
        ));
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| sample(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_follow_the_splitters() {
        let s = [10, 20, 20, 30];
        assert_eq!([0, 9, 10, 19, 20, 29, 30, u32::MAX].map(|k| destination(&s, k)), [0, 0, 1, 1, 3, 3, 4, 4]);
        assert_eq!(destination(&[], 7), 0);
    }

    #[test]
    fn keys_are_the_same_whichever_rank_asks() {
        let cfg = Config { keys: 8, samples: 2, seed: 3 };
        let whole = keys_of(&Config { keys: 16, ..cfg }, 0);
        assert_eq!([keys_of(&cfg, 0), keys_of(&cfg, 1)].concat(), whole);
    }

    #[test]
    fn sort_costs_by_hand() {
        assert_eq!([sort_steps(0), sort_steps(1), sort_steps(4), sort_steps(5)], [0, 0, 8, 15]);
        assert_eq!([ceil_log2(1), ceil_log2(2), ceil_log2(3), ceil_log2(1024)], [0, 1, 2, 10]);
    }
}
