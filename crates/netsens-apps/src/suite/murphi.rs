//! Murphi: parallel explicit-state reachability (breadth first) of a small
//! cache-coherence protocol, in the style of Stern and Dill's parallel Murphi: every
//! state has an owner rank (a hash of the state), successors travel to their owners in
//! batches, and each owner deduplicates with a hash set and expands what is new.
//!
//! **Model**: `n` caches share one memory line under an atomic MSI protocol with
//! [`VALUES`] = 3 data values. Rules, for every cache `i`:
//! - *read* (i invalid): a modified copy elsewhere is written back and becomes shared;
//!   `i` becomes shared with the current value;
//! - *write v* (each of the 3 values, any state of `i`): a modified copy elsewhere is
//!   written back, every other copy is invalidated, `i` becomes modified with `v`;
//! - *evict* (i valid): a modified copy is written back; `i` becomes invalid.
//!
//! So every state has exactly `n·(VALUES + 1)` successors (read or evict, and 3
//! writes, per cache). The invariant checked on every state: at most one modified
//! copy and none beside shared ones; every valid copy holds the last value written;
//! with no modified copy, memory holds it too. By hand, the reachable states are
//! `3·2^n` without a modified copy (any set of sharers, all holding memory's value)
//! plus `9n` with one (which cache, its value, memory's possibly stale value).
//!
//! **State encoding** (u64): cache `i` in bits `3i..3i+3`: 0 invalid, 1 + v shared
//! with value v, 4 + v modified with value v; memory's value in bits `3n..3n+2`; the
//! last value written (the checker's auxiliary variable) in bits `3n+2..3n+4`. So
//! `n ≤ 20`. The initial state is 0: all invalid, memory and last value 0.
//!
//! **Ownership**: [`owner`] mixes the state with the run's seed (splitmix64's
//! finaliser), modulo the rank count: any rank count works, and the seed moves the
//! states between owners (the model itself has no random data).
//!
//! **Communication** (one BFS level per round): a rank expands its frontier in
//! chunks of [`CHUNK`] states and buffers each successor for its owner (its own are
//! inserted at once); a buffer that reaches [`BATCH`] states goes out as one active
//! message of 8 bytes per state, and at the end of the round every non-empty buffer
//! goes out. Successors are sent without local deduplication, as in parallel Murphi:
//! a round from rank a to rank b carries every successor a generated that b owns,
//! in `ceil(count / BATCH)` messages. The handler inserts the states into the owner's
//! table; the new ones form the owner's next frontier.
//!
//! **Termination**: each round ends with `store_sync` (this rank's batches have been
//! handled) and an allreduce of the number of states this rank expanded. When that
//! allreduce returns, every rank has passed its `store_sync`, so every batch of the
//! round has been handled and the next frontiers are complete; a round in which no
//! rank expanded anything sent nothing, so the search is over. That costs one empty
//! round after the last BFS level: rounds = levels + 1.
//!
//! **Cost model**: [`RULE_PS`] = 250 ns per rule fired (evaluate the guard, build the
//! successor, hash it for its owner) and [`INSERT_PS`] = 100 ns per hash-table probe
//! at the owner (charged by the handler for received states, inside the expansion's
//! `work` for a rank's own). Murphi fires interpreted rules on record-structured
//! states; these are round figures for such a rule on one core, an assumption, not
//! a measurement, scaled by the platform's CPU speed.
//!
//! **Verification**: every rank checks that each state it owns is in a serial BFS of
//! the same model (computed once per process and per model size, cached per thread),
//! and the allreduced count of owned states equals the serial count: the owners'
//! disjoint sets then are exactly the reachable set.

use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::allreduce;
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::Time;
use netsens_core::Result;
// Fx, not SipHash: a run inserts ~13 M states (64 per state expanded) and hashing
// them was half its CPU; no set's iteration order decides a result.
use rustc_hash::FxHashSet as HashSet;
use std::cell::RefCell;
use std::rc::Rc;

pub const APP: App = App {
    name: "murphi",
    description: "explicit-state BFS of an MSI cache-coherence model, states hashed to owners and sent in batches",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Data values a write can store.
pub const VALUES: u64 = 3;
/// Charge per rule fired: 250 ns, before CPU-speed scaling.
pub const RULE_PS: Time = 250_000;
/// Charge per hash-table probe at the owner: 100 ns.
pub const INSERT_PS: Time = 100_000;
/// States per batch message (8 bytes each: 4 KiB messages).
pub const BATCH: usize = 512;
/// Frontier states expanded between two looks at the batch buffers.
pub const CHUNK: usize = 64;

const INVALID: u64 = 0;
const SHARED: u64 = 1;
const MODIFIED: u64 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Caches in the model (at most 20: the state fits a u64).
    pub caches: u32,
    /// Seed of the owner hash.
    pub seed: u64,
}

impl Config {
    /// tiny: 10 caches (3 162 states); small: 16 (196 752); paper: 18 (786 594). The
    /// seeds do not give Murphi's input; 18 caches is the largest model that stays
    /// near a million states.
    pub fn preset(size: Size, seed: u64) -> Config {
        let caches = match size {
            Size::Tiny => 10,
            Size::Small => 16,
            Size::Paper => 18,
        };
        Config { caches, seed }
    }

    /// The reachable states, derived by hand: `3·2^n + 9n`.
    pub fn reachable(&self) -> u64 {
        3 * (1 << self.caches) + 9 * u64::from(self.caches)
    }

    /// Successors of every state: a read or an evict, and a write per value, per cache.
    pub fn rules_per_state(&self) -> u64 {
        u64::from(self.caches) * (VALUES + 1)
    }
}

fn line(s: u64, i: u32) -> u64 {
    (s >> (3 * i)) & 7
}

fn with_line(s: u64, i: u32, code: u64) -> u64 {
    (s & !(7 << (3 * i))) | (code << (3 * i))
}

fn memory(s: u64, n: u32) -> u64 {
    (s >> (3 * n)) & 3
}

fn with_memory(s: u64, n: u32, v: u64) -> u64 {
    (s & !(3 << (3 * n))) | (v << (3 * n))
}

fn latest(s: u64, n: u32) -> u64 {
    (s >> (3 * n + 2)) & 3
}

fn with_latest(s: u64, n: u32, v: u64) -> u64 {
    (s & !(3 << (3 * n + 2))) | (v << (3 * n + 2))
}

fn is_modified(code: u64) -> bool {
    code >= MODIFIED
}

fn value(code: u64) -> u64 {
    if is_modified(code) {
        code - MODIFIED
    } else {
        code - SHARED
    }
}

/// The initial state: every cache invalid, memory and the last value written 0.
pub const INITIAL: u64 = 0;

/// Append the successors of `s` (in a model of `n` caches) to `out`, in rule order.
pub fn successors(n: u32, s: u64, out: &mut Vec<u64>) {
    let dirty = (0..n).find(|&j| is_modified(line(s, j)));
    // The state after the modified copy (if any) is written back to memory.
    let written_back = |s: u64, except: u32| match dirty {
        Some(j) if j != except => with_memory(s, n, value(line(s, j))),
        _ => s,
    };
    let lines = (1u64 << (3 * n)) - 1;
    for i in 0..n {
        let code = line(s, i);
        if code == INVALID {
            let t = match dirty {
                Some(j) => with_line(written_back(s, i), j, SHARED + value(line(s, j))),
                None => s,
            };
            out.push(with_line(t, i, SHARED + memory(t, n)));
        }
        let others_invalid = written_back(s, i) & !lines;
        for v in 0..VALUES {
            out.push(with_latest(with_line(others_invalid, i, MODIFIED + v), n, v));
        }
        if code != INVALID {
            let t = if is_modified(code) { with_memory(s, n, value(code)) } else { s };
            out.push(with_line(t, i, INVALID));
        }
    }
}

/// The protocol's invariant on state `s`.
pub fn check(n: u32, s: u64) -> std::result::Result<(), String> {
    let last = latest(s, n);
    let (mut shared, mut modified) = (0, 0);
    for i in 0..n {
        let code = line(s, i);
        match code {
            INVALID => continue,
            1..=3 => shared += 1,
            4..=6 => modified += 1,
            _ => return Err(format!("state {s:#x}: cache {i} has no valid encoding ({code})")),
        }
        if value(code) != last {
            return Err(format!("state {s:#x}: cache {i} holds {}, the last value written is {last}", value(code)));
        }
    }
    if modified > 1 || (modified == 1 && shared > 0) {
        return Err(format!("state {s:#x}: {modified} modified and {shared} shared copies"));
    }
    if modified == 0 && memory(s, n) != last {
        return Err(format!("state {s:#x}: memory holds {}, the last value written is {last}", memory(s, n)));
    }
    Ok(())
}

/// The rank (of `ranks`) that owns state `s` in a run seeded with `seed`.
pub fn owner(s: u64, seed: u64, ranks: u32) -> u32 {
    let mut z = s ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % u64::from(ranks)) as u32
}

/// A serial BFS of the model of `n` caches: the states of each level, in the order
/// they were found.
pub fn levels(n: u32) -> Vec<Vec<u64>> {
    let mut seen = HashSet::from_iter([INITIAL]);
    let mut levels = vec![vec![INITIAL]];
    let mut succ = Vec::new();
    loop {
        let mut next = Vec::new();
        for &s in levels.last().expect("a level") {
            succ.clear();
            successors(n, s, &mut succ);
            next.extend(succ.iter().filter(|&&t| seen.insert(t)));
        }
        if next.is_empty() {
            return levels;
        }
        levels.push(next);
    }
}

thread_local! {
    /// The reachable set of the last model size explored on this thread.
    static REFERENCE: RefCell<Option<(u32, Rc<HashSet<u64>>)>> = const { RefCell::new(None) };
}

/// The reachable states of the model of `n` caches, explored once per thread.
fn reference(n: u32) -> Rc<HashSet<u64>> {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((key, states)) if *key == n => states.clone(),
            _ => {
                let states: Rc<HashSet<u64>> = Rc::new(levels(n).into_iter().flatten().collect());
                *cache = Some((n, states.clone()));
                states
            }
        }
    })
}

/// An owner's states: all it has seen, and the new ones to expand next round.
#[derive(Default)]
struct Table {
    seen: HashSet<u64>,
    next: Vec<u64>,
}

impl Table {
    fn insert(&mut self, states: &[u64]) {
        for &s in states {
            if self.seen.insert(s) {
                self.next.push(s);
            }
        }
    }
}

/// The program.
pub async fn murphi<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let (me, p, n) = (r.rank(), r.size(), cfg.caches);
    let table = Rc::new(RefCell::new(Table::default()));
    let receive = {
        let table = table.clone();
        r.register(Rc::new(move |_, bytes: &[u8]| {
            let states: Vec<u64> = decode(bytes);
            table.borrow_mut().insert(&states);
            INSERT_PS * states.len() as Time
        }))
    };
    if owner(INITIAL, cfg.seed, p) == me {
        table.borrow_mut().insert(&[INITIAL]);
    }
    let mut out: Vec<Vec<u64>> = vec![Vec::new(); p as usize];
    let mut succ = Vec::new();
    loop {
        r.phase("expand");
        let frontier = std::mem::take(&mut table.borrow_mut().next);
        for chunk in frontier.chunks(CHUNK) {
            let cost = RULE_PS * cfg.rules_per_state() * chunk.len() as Time;
            r.work(cost, || {
                for &s in chunk {
                    check(n, s)?;
                    succ.clear();
                    successors(n, s, &mut succ);
                    for &t in &succ {
                        out[owner(t, cfg.seed, p) as usize].push(t);
                    }
                }
                Ok::<_, String>(())
            })
            .await?;
            let mine = std::mem::take(&mut out[me as usize]);
            r.work(INSERT_PS * mine.len() as Time, || table.borrow_mut().insert(&mine)).await;
            for (dst, buf) in out.iter_mut().enumerate() {
                while buf.len() >= BATCH {
                    r.am(dst as u32, receive, encode(&buf[buf.len() - BATCH..]));
                    buf.truncate(buf.len() - BATCH);
                }
            }
        }
        for (dst, buf) in out.iter_mut().enumerate().filter(|(_, b)| !b.is_empty()) {
            r.am(dst as u32, receive, encode(buf));
            buf.clear();
        }
        r.phase("sync");
        r.store_sync().await;
        if allreduce(&r, &comm, &[frontier.len() as u64], Op::Sum).await[0] == 0 {
            break;
        }
    }
    r.phase("verify");
    let want = reference(n);
    let owned = {
        let t = table.borrow();
        if let Some(s) = t.seen.iter().find(|s| !want.contains(s)) {
            return Err(format!("rank {me} reached state {s:#x}, which the serial search of {n} caches never reaches"));
        }
        t.seen.len() as u64
    };
    let total = allreduce(&r, &comm, &[owned], Op::Sum).await[0];
    if total != want.len() as u64 {
        return Err(format!(
            "the ranks own {total} states in all; the serial search of {n} caches finds {}",
            want.len()
        ));
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| murphi(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serial_search_finds_the_states_derived_by_hand() {
        for n in 1..=8 {
            let cfg = Config { caches: n, seed: 0 };
            let states: Vec<u64> = levels(n).into_iter().flatten().collect();
            assert_eq!(states.len() as u64, cfg.reachable(), "{n} caches");
            assert!(states.iter().all(|&s| check(n, s).is_ok()));
        }
    }

    #[test]
    fn every_state_has_four_successors_per_cache() {
        let mut out = Vec::new();
        for s in levels(4).into_iter().flatten() {
            out.clear();
            successors(4, s, &mut out);
            assert_eq!(out.len(), 16);
        }
    }

    #[test]
    fn rules_by_hand() {
        // 2 caches; cache 0 modified with 2, cache 1 invalid, memory 1, last value 2.
        let s = with_latest(with_memory(with_line(0, 0, MODIFIED + 2), 2, 1), 2, 2);
        let mut out = Vec::new();
        successors(2, s, &mut out);
        let shared_both = with_line(with_line(with_memory(s, 2, 2), 0, SHARED + 2), 1, SHARED + 2);
        // Cache 1 reads: cache 0 writes 2 back and both share it.
        assert!(out.contains(&shared_both));
        // Cache 0 evicts: memory gets 2.
        assert!(out.contains(&with_line(with_memory(s, 2, 2), 0, INVALID)));
        // Cache 1 writes 0: cache 0 writes back and is invalidated.
        assert!(out.contains(&with_latest(with_line(with_memory(0, 2, 2), 1, MODIFIED), 2, 0)));
    }

    #[test]
    fn the_invariant_catches_a_stale_copy() {
        let stale = with_latest(with_line(0, 1, SHARED + 1), 3, 2);
        assert_eq!(check(3, stale), Err("state 0x1010: cache 1 holds 1, the last value written is 2".into()));
        assert!(check(3, with_line(with_line(0, 0, MODIFIED), 2, MODIFIED)).is_err());
    }
}
