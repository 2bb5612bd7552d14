//! NOW-sort (Arpaci-Dusseau et al., SIGMOD'97), one-pass: a disk-to-disk sort of
//! 100-byte records with 10-byte keys. Each node's two disks are the modelled
//! resource: input is read from disk 0 and output written to disk 1, so the run is
//! disk-bound until the network is slower than a disk (Martin's thesis, §3.3.4).
//!
//! **Data**: rank r's input is records `r·R .. (r+1)·R` of stream 0 of the seed
//! (25 words of 4 bytes each), so each rank generates only its own records.
//!
//! **Algorithm** (each step a phase of that name, then `verify`):
//! 1. `read`: the rank reads its input from disk 0 in chunks of [`READ_CHUNK`]
//!    records, one request at a time. Every record of a chunk goes to the rank owning
//!    its key range (rank ⌊prefix·P / 2³²⌋, prefix = the key's first 4 bytes
//!    big-endian, so key order implies owner order): kept if it is this rank's, else
//!    appended to that destination's batch; a full batch of [`BATCH`] records
//!    (6400 B, below every preset's eager limit, so no receive needs to be posted) is
//!    sent at once and travels while the next chunk is read.
//! 2. `exchange`: after the last chunk, every batch left, possibly empty, goes to its
//!    destination with tag [`LAST`]; the rank receives from any source until it has a
//!    `LAST` from every other rank (MPI's per-pair order puts it after that rank's
//!    batches).
//! 3. `sort`: the rank sorts its records by key.
//! 4. `write`: the rank writes its output to disk 1.
//!
//! **Messages**: a pair (s, d ≠ s) with n records for d carries ⌊n/64⌋ + 1 messages
//! and 100·n bytes; in expectation (P−1)/P of the data crosses the network.
//!
//! **Disks**: on a platform without disks the runner adds the NOW's: 2 per node at
//! 5.5 MB/s each ([`NOW_DISK_BANDWIDTH`], the figure Martin's thesis §3.3.4 quotes
//! for the NOW-sort's disks; approximate, a sustained transfer rate of a 1997 SCSI
//! disk), so that `netsens run --app nowsort` needs no disk flags. A platform with
//! fewer than 2 disks per node is an input error.
//!
//! **Cost model**: the unit is one *record step*: a key comparison with its share of
//! moving a 100-byte record, or placing one record in a batch or in the sort buffer,
//! charged at [`PS_PER_STEP`] = 10 ns (a round figure for touching two cache lines on
//! one core; an assumption, not a measurement), scaled by the platform's CPU speed.
//! Placing a read record costs 1 step, taking in a received one 1 step, sorting m
//! records m·⌈log2 m⌉ steps. Generating the input and verifying cost no virtual time.
//!
//! **Verification**: every rank checks that its records are sorted by key; an
//! allgather of each rank's (count, first key, last key) checks the order across
//! ranks; an allreduce of the record count and the sum of a 64-bit hash (Fx) of
//! every record, over the generated input and over the output, checks that the output
//! is a permutation of the input.

use crate::app::{App, Backend, Job, Size};
use crate::data::{bytes, stream};
use netsens_core::program::collectives::{allgather, allreduce};
use netsens_core::program::{Op, Rank, Tag, ANY_SOURCE, ANY_TAG};
use netsens_core::time::{Time, NS};
use netsens_core::{input_err, Result};
use rustc_hash::FxHasher;
use std::borrow::Cow;
use std::hash::Hasher;

pub const APP: App = App {
    name: "nowsort",
    description: "NOW-sort: disk-to-disk sort of 100-byte records, one all-to-all exchange, two disks per node",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Bytes of a record and of its key (the Datamation sort benchmark's format).
pub const RECORD: usize = 100;
pub const KEY: usize = 10;
/// Records per read request (64 000 bytes).
pub const READ_CHUNK: usize = 640;
/// Records per message.
pub const BATCH: usize = 64;
/// Charge per record step, before CPU-speed scaling.
pub const PS_PER_STEP: Time = 10 * NS;
/// Bandwidth of one disk when the platform has none.
pub const NOW_DISK_BANDWIDTH: &str = "5.5MB/s";

/// Disk 0 holds the input, disk 1 the output.
const INPUT_DISK: u32 = 0;
const OUTPUT_DISK: u32 = 1;

/// Tags: a full batch, and a destination's last batch from this rank.
pub const DATA: Tag = 0;
pub const LAST: Tag = 1;

/// Seed stream of the records.
const RECORDS: u64 = 0;

pub type Record = [u8; RECORD];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Records per rank (R).
    pub records: usize,
    pub seed: u64,
}

impl Config {
    /// Records per rank: tiny 512 (50 KB), small 8 Ki (800 KiB), paper 32 Ki: 1 Mi
    /// records on the seed's 32 processors, the Datamation benchmark's million records
    /// (the seed does not give its input size).
    pub fn preset(size: Size, seed: u64) -> Config {
        let records = match size {
            Size::Tiny => 512,
            Size::Small => 8 << 10,
            Size::Paper => 32 << 10,
        };
        Config { records, seed }
    }
}

/// Rank `rank`'s input records.
pub fn input(cfg: &Config, rank: u32) -> Vec<Record> {
    let mut rng = stream(cfg.seed, RECORDS);
    rng.set_word_pos(u128::from(rank) * (cfg.records * RECORD / 4) as u128);
    bytes(&mut rng, cfg.records * RECORD).chunks_exact(RECORD).map(|c| c.try_into().expect("a record")).collect()
}

/// The rank of `ranks` owning `record`'s key range.
pub fn owner(record: &Record, ranks: u32) -> u32 {
    let prefix = u32::from_be_bytes(record[..4].try_into().expect("4 bytes"));
    ((u64::from(prefix) * u64::from(ranks)) >> 32) as u32
}

fn key(record: &Record) -> &[u8] {
    &record[..KEY]
}

fn ceil_log2(x: u64) -> u64 {
    u64::from(x.max(1).next_power_of_two().trailing_zeros())
}

/// A 64-bit hash of a record: Fx over its bytes, 8 at a time (FNV-1a, a byte at a
/// time, was a third of a run's CPU: the check hashes every record twice).
fn record_hash(record: &Record) -> u64 {
    let mut h = FxHasher::default();
    h.write(record);
    h.finish()
}

/// (count, sum of hashes) of `records`.
fn checksum(records: &[Record]) -> [u64; 2] {
    [records.len() as u64, records.iter().fold(0u64, |s, rec| s.wrapping_add(record_hash(rec)))]
}

/// The program.
pub async fn nowsort<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let (p, me) = (r.size(), r.rank());
    let records = input(&cfg, me);
    let mut mine: Vec<Record> = Vec::with_capacity(cfg.records + cfg.records / 4);
    let mut batches: Vec<Vec<u8>> = vec![Vec::new(); p as usize];
    let mut sends = Vec::new();

    r.phase("read");
    for chunk in records.chunks(READ_CHUNK) {
        r.disk(INPUT_DISK, (chunk.len() * RECORD) as u64).await;
        let full = r
            .work(chunk.len() as Time * PS_PER_STEP, || {
                let mut full = Vec::new();
                for rec in chunk {
                    let d = owner(rec, p);
                    if d == me {
                        mine.push(*rec);
                        continue;
                    }
                    let batch = &mut batches[d as usize];
                    batch.extend_from_slice(rec);
                    if batch.len() == BATCH * RECORD {
                        full.push((d, std::mem::take(batch)));
                    }
                }
                full
            })
            .await;
        sends.extend(full.into_iter().map(|(d, batch)| r.isend(&comm, d, DATA, batch)));
    }

    r.phase("exchange");
    for d in (0..p).filter(|&d| d != me) {
        sends.push(r.isend(&comm, d, LAST, std::mem::take(&mut batches[d as usize])));
    }
    let mut lasts = 0;
    while lasts + 1 < p {
        let m = r.recv(&comm, ANY_SOURCE, ANY_TAG).await;
        if m.data.len() % RECORD != 0 {
            return Err(format!("a message from rank {} has {} bytes, not whole records", m.source, m.data.len()));
        }
        let n = m.data.len() / RECORD;
        r.work(n as Time * PS_PER_STEP, || {
            mine.extend(m.data.chunks_exact(RECORD).map(|c| -> Record { c.try_into().expect("a record") }))
        })
        .await;
        lasts += u32::from(m.tag == LAST);
    }
    r.wait_all(sends).await;

    r.phase("sort");
    let steps = mine.len() as u64 * ceil_log2(mine.len() as u64);
    r.work(steps * PS_PER_STEP, || mine.sort_unstable_by(|a, b| key(a).cmp(key(b)))).await;

    r.phase("write");
    r.disk(OUTPUT_DISK, (mine.len() * RECORD) as u64).await;

    r.phase("verify");
    verify(&r, &records, &mine).await
}

/// Check that the records are sorted by key across all ranks and a permutation of
/// the input.
async fn verify<R: Rank>(r: &R, input: &[Record], mine: &[Record]) -> std::result::Result<(), String> {
    let comm = r.world();
    if let Some(i) = mine.windows(2).position(|w| key(&w[0]) > key(&w[1])) {
        return Err(format!("records {i} and {} of this rank are out of key order", i + 1));
    }
    // (count, first key, last key): 4 + 10 + 10 bytes.
    let mut bounds = (mine.len() as u32).to_le_bytes().to_vec();
    for rec in [mine.first(), mine.last()] {
        bounds.extend_from_slice(rec.map_or(&[0; KEY][..], |rec| key(rec)));
    }
    let all = allgather(r, &comm, bounds).await;
    let mut before: Option<(usize, &[u8])> = None;
    for (rank, b) in all.chunks_exact(4 + 2 * KEY).enumerate() {
        if b[..4] == [0; 4] {
            continue;
        }
        let (first, last) = (&b[4..4 + KEY], &b[4 + KEY..]);
        if let Some((prev, _)) = before.filter(|&(_, end)| end > first) {
            return Err(format!("rank {prev} ends with a key above the first key of rank {rank}"));
        }
        before = Some((rank, last));
    }
    let (i, o) = (checksum(input), checksum(mine));
    let sums = allreduce(r, &comm, &[i[0], i[1], o[0], o[1]], Op::Sum).await;
    if sums[..2] != sums[2..] {
        return Err(format!(
            "the output is not a permutation of the input: (count, hash sum) of the input {:?}, of the output {:?}",
            &sums[..2],
            &sums[2..]
        ));
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    let platform = match &job.platform.disks {
        None => {
            let mut p = job.platform.clone();
            p.set("disk_bandwidth", NOW_DISK_BANDWIDTH)?;
            Cow::Owned(p)
        }
        Some(d) if d.count < 2 => {
            return Err(input_err!(
                "nowsort reads disk 0 and writes disk 1 of each node, but the platform has {} disk per node; \
                 give it 2 (disks_per_node = 2)",
                d.count
            ))
        }
        Some(_) => Cow::Borrowed(job.platform),
    };
    backend.run(&platform, move |r| nowsort(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_split_the_key_space_evenly() {
        let rec = |prefix: u32| {
            let mut r = [0; RECORD];
            r[..4].copy_from_slice(&prefix.to_be_bytes());
            r
        };
        let at = [0, 0x3FFF_FFFF, 0x4000_0000, 0xBFFF_FFFF, 0xC000_0000, u32::MAX].map(|x| owner(&rec(x), 4));
        assert_eq!(at, [0, 0, 1, 2, 3, 3]);
        assert_eq!(owner(&rec(u32::MAX), 3), 2);
    }

    #[test]
    fn the_checksum_ignores_the_order_of_records_not_their_bytes() {
        let records = input(&Config { records: 64, seed: 3 }, 0);
        let mut shuffled = records.clone();
        shuffled.reverse();
        assert_eq!(checksum(&records), checksum(&shuffled));
        // One byte changed, or two bytes of a record swapped: another sum.
        let mut changed = records.clone();
        changed[17][99] ^= 1;
        assert_ne!(checksum(&records), checksum(&changed));
        let mut swapped = records.clone();
        swapped[5].swap(0, 57);
        assert_ne!(swapped[5], records[5]);
        assert_ne!(checksum(&records), checksum(&swapped));
        // A record lost and another doubled: the same count, another sum.
        let mut doubled = records.clone();
        doubled[9] = doubled[10];
        assert_ne!(checksum(&records), checksum(&doubled));
    }

    #[test]
    fn records_are_the_same_whichever_rank_asks() {
        let cfg = Config { records: 3, seed: 9 };
        let whole = input(&Config { records: 6, ..cfg }, 0);
        assert_eq!([input(&cfg, 0), input(&cfg, 1)].concat(), whole);
    }
}
