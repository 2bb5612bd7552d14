//! `awari`: retrograde analysis of an Awari end-game database (Plaat, Bal and Hofman
//! 1998; Bal and Allis 1995). For every stone count s = 1 ..= S the positions of s
//! stones (`awari_game`: the first capture wins) are spread over the ranks by a hash
//! of the board. A rank first settles what it can alone (a capture at hand: won; no
//! move: lost) and counts the other positions' moves; then, in rounds, it sends every
//! position it settled to the owners of that position's predecessors as a small work
//! item (8 B: the predecessor and whether the settled position is lost), and applies
//! the items it gets: a predecessor of a lost position is won, and one whose every
//! move leads to a won position is lost. A round in which no rank sends an item ends
//! the database; what is left unsettled is drawn.
//!
//! **Communication**: the items are combined per destination, so a round sends one
//! message (a count of the sender's items for the termination test, then the items)
//! to each rank; with C clusters of k ranks, per round:
//! - `original`: to every other rank directly: P·(P − 1) messages, P·(P − k) of
//!   them over the wide area.
//! - `optimized`: inside the cluster directly; the items for the other clusters go in
//!   one message to the cluster's first rank (its designated rank), which sends each
//!   other cluster one message with its cluster's items, and the designated rank there
//!   hands each of its ranks one message with what came for it:
//!   C·k·(k − 1) + C·(k − 1) + C·(C − 1) + C·(k − 1) messages, C·(C − 1) of them over
//!   the wide area (on one cluster the optimized is the original).
//!
//! The rounds are the same in both variants (an item sent in round t is applied in
//! round t), so over R rounds the wide area carries R·P·(P − k) messages in the
//! original and R·C·(C − 1) in the optimized: at 4 × 8, 768·R against 12·R, a factor
//! of k² = 64, for the same bytes of items (every round pays two more local hops).
//!
//! **Check**: every rank compares its positions' values with the database computed
//! serially by forward iteration (`awari_game::solve`, a second method).
//!
//! The database has no random input: a run's seed changes nothing.

use super::awari_game::{board, classify, code, positions, predecessors, solve, Value};
use super::wan::{Clusters, OP_PS};
use crate::app::{App, Backend, Job, Size, Variant};
use netsens_core::program::{decode, encode, Communicator, Rank, Request, Tag};
use netsens_core::time::Time;
use netsens_core::Result;
use std::collections::HashMap;

pub const APP: App = App {
    name: "awari",
    description: "retrograde analysis of an Awari end-game database; small work items combined per destination",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Classifying a position: six sowings of about 15 operations.
const CLASSIFY_PS: Time = 90 * OP_PS;
/// Finding a settled position's predecessors: up to 54 candidate unmoves.
const UNMOVE_PS: Time = 300 * OP_PS;
/// Applying one work item: a hash lookup and an update.
const ITEM_PS: Time = 20 * OP_PS;

const TAG_WORK: Tag = 1;
const TAG_GATHER: Tag = 2;
const TAG_WAN: Tag = 3;
const TAG_SPREAD: Tag = 4;

/// An item's flag: the settled position is lost (its predecessor is won).
const LOST: u64 = 1 << 63;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The largest stone count of the database.
    pub stones: u8,
    pub variant: Variant,
}

impl Config {
    pub fn preset(size: Size, variant: Variant) -> Config {
        let stones = match size {
            Size::Tiny => 4,
            Size::Small => 7,
            Size::Paper => 9,
        };
        Config { stones, variant }
    }
}

/// The rank that owns a board (a SplitMix64 hash of its code).
pub fn owner(code: u64, p: u32) -> u32 {
    let mut z = code.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) % u64::from(p)) as u32
}

/// One rank's part of a database: its positions' values and moves left to refute.
struct Part {
    index: HashMap<u64, usize>,
    codes: Vec<u64>,
    value: Vec<Option<Value>>,
    moves_left: Vec<usize>,
}

impl Part {
    /// Apply an item; the position's index if it is now settled.
    fn apply(&mut self, item: u64) -> Option<usize> {
        let i = self.index[&(item & !LOST)];
        if self.value[i].is_some() {
            return None;
        }
        if item & LOST != 0 {
            self.value[i] = Some(Value::Win);
        } else {
            self.moves_left[i] -= 1;
            if self.moves_left[i] > 0 {
                return None;
            }
            self.value[i] = Some(Value::Loss);
        }
        Some(i)
    }
}

/// A message: the count that tells the termination test, then items.
fn message(count: u64, items: &[u64]) -> Vec<u8> {
    let mut v = Vec::with_capacity(items.len() + 1);
    v.push(count);
    v.extend_from_slice(items);
    encode(&v)
}

/// One round's exchange: `out[d]` are the items for rank d. Returns the items for
/// this rank and the number of items all ranks sent this round.
async fn exchange<R: Rank>(
    r: &R,
    w: &Communicator,
    cl: &Clusters,
    variant: Variant,
    mut out: Vec<Vec<u64>>,
) -> (Vec<u64>, u64) {
    let (me, p) = (r.rank(), r.size());
    let home = cl.of_rank(me);
    let combined = variant == Variant::Optimized && cl.count() > 1;
    let sent: u64 = out.iter().map(|v| v.len() as u64).sum();
    let direct: Vec<u32> =
        if combined { cl.members(home).filter(|&q| q != me).collect() } else { (0..p).filter(|&q| q != me).collect() };
    let mut sends: Vec<Request> =
        direct.iter().map(|&q| r.isend(w, q, TAG_WORK, message(sent, &out[q as usize]))).collect();
    let recvs: Vec<Request> = direct.iter().map(|&q| r.irecv(w, q as i32, TAG_WORK)).collect();
    let mut mine = std::mem::take(&mut out[me as usize]);
    let mut total = sent;
    if combined {
        let head = cl.coordinator(home);
        let far: Vec<u64> =
            (0..p).filter(|&q| cl.of_rank(q) != home).flat_map(|q| std::mem::take(&mut out[q as usize])).collect();
        let (far_count, spread) = if me == head {
            // Gather the cluster's items for the other clusters, send each its share,
            // then hand the ranks here what came for them.
            let members: Vec<u32> = cl.members(home).filter(|&q| q != me).collect();
            let gathers = members.iter().map(|&q| r.irecv(w, q as i32, TAG_GATHER)).collect();
            let (mut cluster_sent, mut items) = (sent, far);
            for m in r.wait_all(gathers).await {
                let v = decode::<u64>(&m.data);
                cluster_sent += v[0];
                items.extend_from_slice(&v[1..]);
            }
            let others: Vec<u32> = (0..cl.count()).filter(|&c| c != home).collect();
            for &c in &others {
                let share: Vec<u64> = items.iter().copied().filter(|&i| cl.of_rank(owner(i & !LOST, p)) == c).collect();
                sends.push(r.isend(w, cl.coordinator(c), TAG_WAN, message(cluster_sent, &share)));
            }
            let wans = others.iter().map(|&c| r.irecv(w, cl.coordinator(c) as i32, TAG_WAN)).collect();
            let (mut far_count, mut came) = (0, Vec::new());
            for m in r.wait_all(wans).await {
                let v = decode::<u64>(&m.data);
                far_count += v[0];
                came.extend_from_slice(&v[1..]);
            }
            for &q in &members {
                let share: Vec<u64> = came.iter().copied().filter(|&i| owner(i & !LOST, p) == q).collect();
                sends.push(r.isend(w, q, TAG_SPREAD, message(far_count, &share)));
            }
            (far_count, came.into_iter().filter(|&i| owner(i & !LOST, p) == me).collect())
        } else {
            sends.push(r.isend(w, head, TAG_GATHER, message(sent, &far)));
            let v = decode::<u64>(&r.recv(w, head as i32, TAG_SPREAD).await.data);
            (v[0], v[1..].to_vec())
        };
        total += far_count;
        mine.extend(spread);
    }
    for m in r.wait_all(recvs).await {
        let v = decode::<u64>(&m.data);
        total += v[0];
        mine.extend_from_slice(&v[1..]);
    }
    r.wait_all(sends).await;
    (mine, total)
}

/// The program.
pub async fn awari<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, w) = (r.rank(), r.size(), r.world());
    let cl = Clusters::of(&r);
    let mut parts = Vec::new();
    for stones in 1..=cfg.stones {
        r.phase("classify");
        let codes: Vec<u64> = positions(stones).iter().map(code).filter(|&c| owner(c, p) == me).collect();
        let mut part = Part {
            index: codes.iter().enumerate().map(|(i, &c)| (c, i)).collect(),
            value: vec![None; codes.len()],
            moves_left: vec![0; codes.len()],
            codes,
        };
        let mut settled = r
            .work(CLASSIFY_PS * part.codes.len() as Time, || {
                let mut settled = Vec::new();
                for i in 0..part.codes.len() {
                    let (v, moves) = classify(&board(part.codes[i]));
                    (part.value[i], part.moves_left[i]) = (v, moves);
                    if v.is_some() {
                        settled.push(i);
                    }
                }
                settled
            })
            .await;
        r.phase("rounds");
        loop {
            r.count("round");
            let out = r
                .work(UNMOVE_PS * settled.len() as Time, || {
                    let mut out = vec![Vec::new(); p as usize];
                    for &i in &settled {
                        let lost = if part.value[i] == Some(Value::Loss) { LOST } else { 0 };
                        for pred in predecessors(&board(part.codes[i])) {
                            let c = code(&pred);
                            out[owner(c, p) as usize].push(c | lost);
                        }
                    }
                    out
                })
                .await;
            let (items, total) = exchange(&r, &w, &cl, cfg.variant, out).await;
            if total == 0 {
                break;
            }
            settled =
                r.work(ITEM_PS * items.len() as Time, || items.iter().filter_map(|&i| part.apply(i)).collect()).await;
        }
        parts.push(part);
    }
    r.phase("check");
    for (stones, part) in (1..=cfg.stones).zip(&parts) {
        let want = solve(stones);
        for (c, v) in part.codes.iter().zip(&part.value) {
            let got = v.unwrap_or(Value::Draw);
            if got != want[c] {
                return Err(format!("position {:?}: {got:?}, forward iteration says {:?}", board(*c), want[c]));
            }
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.variant);
    backend.run(job.platform, move |r| awari(r, cfg))
}
