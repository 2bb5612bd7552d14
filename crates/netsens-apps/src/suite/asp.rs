//! `asp`: all-pairs shortest paths by Floyd–Warshall (Plaat, Bal and Hofman 1998).
//! The distance matrix of a seeded random directed graph (n nodes, each edge present
//! with probability 1/4, weights 1..=100) is split by rows into blocks, one per rank.
//! In step k every rank needs row k: its owner broadcasts it, and the broadcasts are
//! ordered by a sequencer, as Orca's totally ordered broadcast is.
//!
//! **Communication**, per row k (one message of n u32 distances each):
//! - `original`: a fixed sequencer, rank 0. The owner sends the row to the sequencer
//!   (unless it is the sequencer), which sends it to every other rank but the owner:
//!   P − 1 messages per row (P − 2 + 1 when the owner is not rank 0), n·(P − 1) in all.
//! - `optimized`: the sequencer migrates to the broadcasting cluster (its first rank,
//!   the coordinator). The owner hands the row to it (unless it is the coordinator),
//!   the coordinator sends it to each other cluster's coordinator, and inside every
//!   cluster the row goes down a binomial tree from the coordinator over the other
//!   ranks but the owner ([`binomial_tree`]; Panda's multicast spread a broadcast
//!   along a tree): again P − 1 messages per row, but only C − 1 of them cross the
//!   wide area, and inside a cluster no rank sends more than ⌈log₂ k⌉ copies.
//!
//! So with C equal clusters of P/C ranks, per row the original sends P − P/C messages
//! over the wide area (the ranks outside the sequencer's cluster, counting the owner's
//! hand-off in place of the row the owner does not receive) and the optimized C − 1:
//! at 4 × 8, 24 against 3, a factor of 8 = P/C.
//!
//! **Sizes from the seed's Table 1** (one cluster of 32: 6.0 s at a speedup of 31.3,
//! 0.75 MB/s): its serial run takes 31.3 · 6.0 s = 188 s for n³ = 1500³ relaxations,
//! 56 ns each (Orca's bounds-checked array loop on a 200 MHz Pentium Pro), and it
//! moves 4.5 MB, 3.0 kB a row: 1500 distances of 2 bytes. A row travels as 16-bit
//! distances ([`row_bytes`]); every finite distance of the generated graphs fits
//! (at most 100 per edge, and a shortest path has far fewer than 655 edges), and a
//! row that does not is an error, never a silent wrap.
//!
//! **Check**: every rank recomputes its rows' distances with Dijkstra's algorithm
//! (a second method) from its own copy of the input graph.

use super::wan::{block, owner, Clusters};
use crate::app::{App, Backend, Job, Size, Variant};
use crate::data;
use netsens_core::program::{decode, encode, Rank, Tag};
use netsens_core::time::{Time, NS};
use netsens_core::Result;
use rand_chacha::rand_core::Rng;

pub const APP: App = App {
    name: "asp",
    description: "all-pairs shortest paths (Floyd-Warshall); one row broadcast per step, ordered by a sequencer",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// No path (small enough that two of them add up without overflow).
pub const INF: u32 = 1 << 30;
const TAG_ROW: Tag = 1;
/// One relaxation `d[i][j] = min(d[i][j], d[i][k] + d[k][j])`: the seed's serial run
/// over its Table 1 (188 s for 1500³).
const RELAX_PS: Time = 56 * NS;
/// A row's "no path" on the wire.
const WIRE_INF: u16 = u16::MAX;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub n: usize,
    pub seed: u64,
    pub variant: Variant,
}

impl Config {
    pub fn preset(size: Size, seed: u64, variant: Variant) -> Config {
        let n = match size {
            Size::Tiny => 24,
            Size::Small => 256,
            Size::Paper => 1500,
        };
        Config { n, seed, variant }
    }
}

/// Row `i` of the input: distances of the edges out of node `i`.
pub fn input_row(cfg: &Config, i: usize) -> Vec<u32> {
    let mut rng = data::stream(cfg.seed, i as u64);
    (0..cfg.n)
        .map(|j| {
            let w = rng.next_u32();
            if i == j {
                0
            } else if w.is_multiple_of(4) {
                1 + (w >> 8) % 100
            } else {
                INF
            }
        })
        .collect()
}

/// Shortest distances from `src` by Dijkstra's algorithm on the dense graph.
fn dijkstra(graph: &[Vec<u32>], src: usize) -> Vec<u32> {
    let n = graph.len();
    let (mut dist, mut done) = (vec![INF; n], vec![false; n]);
    dist[src] = 0;
    for _ in 0..n {
        let Some(u) = (0..n).filter(|&v| !done[v] && dist[v] < INF).min_by_key(|&v| dist[v]) else { break };
        done[u] = true;
        for v in 0..n {
            if graph[u][v] < INF {
                dist[v] = dist[v].min(dist[u] + graph[u][v]);
            }
        }
    }
    dist
}

/// Row `row` as it travels: 2 bytes a distance, [`WIRE_INF`] for no path.
pub fn row_bytes(row: &[u32]) -> std::result::Result<Vec<u8>, String> {
    let wire: Vec<u16> = row
        .iter()
        .map(|&d| match d {
            INF => Ok(WIRE_INF),
            d if d < WIRE_INF as u32 => Ok(d as u16),
            d => Err(format!("a distance of {d} does not fit a row's 16-bit entries")),
        })
        .collect::<std::result::Result<_, _>>()?;
    Ok(encode(&wire))
}

/// The row [`row_bytes`] encoded.
pub fn row_of_bytes(bytes: &[u8]) -> Vec<u32> {
    decode::<u16>(bytes).into_iter().map(|d| if d == WIRE_INF { INF } else { d as u32 }).collect()
}

/// The edges (parent, child) of a binomial tree over `nodes`, rooted at the first:
/// the parent of position i is i without its highest set bit. Each parent's children
/// come largest subtree first, so the deepest branch starts earliest.
pub fn binomial_tree(nodes: &[u32]) -> Vec<(u32, u32)> {
    let mut edges: Vec<(usize, usize)> = (1..nodes.len()).map(|i| (1 << i.ilog2(), i)).collect();
    edges.sort_by_key(|&(bit, _)| std::cmp::Reverse(bit));
    edges.into_iter().map(|(bit, i)| (nodes[i - bit], nodes[i])).collect()
}

/// Who sends row `k` to whom: (sender, receiver) pairs in the order they are sent,
/// the owner's hand-off to the sequencer first.
pub fn row_route(variant: Variant, cl: &Clusters, p: u32, owner: u32) -> Vec<(u32, u32)> {
    let mut route = Vec::new();
    match variant {
        Variant::Original | Variant::OriginalMessages => {
            if owner != 0 {
                route.push((owner, 0));
            }
            route.extend((1..p).filter(|&q| q != owner).map(|q| (0, q)));
        }
        Variant::Optimized => {
            let home = cl.of_rank(owner);
            let seq = cl.coordinator(home);
            if owner != seq {
                route.push((owner, seq));
            }
            // The wide-area copies first, the slowest way; then inside each cluster
            // a binomial tree from its coordinator, as Panda's multicast spread a broadcast.
            route.extend((0..cl.count()).filter(|&c| c != home).map(|c| (seq, cl.coordinator(c))));
            for c in 0..cl.count() {
                let head = cl.coordinator(c);
                let tree: Vec<u32> =
                    std::iter::once(head).chain(cl.members(c).filter(|&q| q != head && q != owner)).collect();
                route.extend(binomial_tree(&tree));
            }
        }
    }
    route
}

/// The program.
pub async fn asp<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, n) = (r.rank(), r.size(), cfg.n);
    let w = r.world();
    let cl = Clusters::of(&r);
    let mine = block(n, p, me);
    let mut rows: Vec<Vec<u32>> = mine.clone().map(|i| input_row(&cfg, i)).collect();
    r.phase("floyd");
    for k in 0..n {
        let from = owner(n, p, k);
        let route = row_route(cfg.variant, &cl, p, from);
        // Row k arrives from whoever the route names as this rank's sender, if any.
        let row = if me == from {
            rows[k - mine.start].clone()
        } else {
            let src = route.iter().find(|&&(_, to)| to == me).map(|&(s, _)| s).expect("every rank gets the row");
            row_of_bytes(&r.recv(&w, src as i32, TAG_ROW).await.data)
        };
        let wire = row_bytes(&row)?;
        let sends: Vec<_> =
            route.iter().filter(|&&(s, _)| s == me).map(|&(_, to)| r.isend(&w, to, TAG_ROW, wire.clone())).collect();
        // The row leaves before this rank computes, as Panda hands a message to the
        // network interface in the send call: a forward still waiting for the NIC's
        // gap would otherwise wait out the computation, and its receivers with it.
        r.wait_all(sends).await;
        r.work(RELAX_PS * (rows.len() * n) as Time, || {
            for d in rows.iter_mut() {
                let dk = d[k];
                if dk < INF {
                    for (x, &y) in d.iter_mut().zip(&row) {
                        *x = (*x).min(dk + y);
                    }
                }
            }
        })
        .await;
    }
    r.phase("check");
    let graph: Vec<Vec<u32>> = (0..n).map(|i| input_row(&cfg, i)).collect();
    for (i, d) in mine.zip(&rows) {
        if dijkstra(&graph, i) != *d {
            return Err(format!("row {i}: Floyd-Warshall and Dijkstra disagree"));
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed, job.variant);
    backend.run(job.platform, move |r| asp(r, cfg))
}
