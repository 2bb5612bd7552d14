//! `em3d-write`: EM3D ([`super::em3d`]: graph, sizes, cost model, verification) in
//! which the owner of each node pushes its new value to the ranks that need it with
//! one-way writes, as the seed's EM3D(write).
//!
//! **Ghosts**: a rank keeps one ghost copy of each remote node its nodes have an edge
//! to, however many of its edges point there, in its window (one little-endian f64
//! each): the ghosts of E nodes, then those of H nodes, each sorted by (owner, index).
//!
//! **Setup** (phase `setup`): each rank exposes its window and tells every owner, in
//! one `alltoallv`, which of the owner's nodes it holds ghosts of and where (pairs of
//! u64: the node, E nodes then H nodes, and the byte offset of its ghost); then the
//! owners push the initial H values.
//!
//! **Iteration**: a half-step (phase `e-update` or `h-update`) reads the ghosts of
//! the other kind from the window, updates the rank's nodes of its kind (one charge
//! of `nodes × degree × EDGE_PS`), then stores each new value once into each rank
//! holding a ghost of it — one 8-byte store per (value, consumer) pair, in node
//! order — and waits in `store_sync` and a barrier, after which every ghost holds
//! the new values. The last H values are not pushed: no one reads them. So an owner
//! issues `iters ×` (the ghosts of its nodes, over all ranks) stores in a run.

use super::em3d::{update_all, verify, Config, Kind, Part};
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::{alltoallv, barrier};
use netsens_core::program::{decode, encode, Rank};
use netsens_core::Result;
use std::ops::Range;

pub const APP: App = App {
    name: "em3d-write",
    description: "EM3D on a random bipartite graph; new values pushed to remote neighbours' ghosts with stores",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Where an edge's neighbour value is read from.
#[derive(Clone, Copy)]
enum Source {
    /// This rank's node of the other kind.
    Local(usize),
    /// A ghost, numbered within its kind's ghosts.
    Ghost(usize),
}

/// This rank's ghosts: which remote nodes it copies, and where each edge reads.
struct Ghosts {
    /// Per kind: the ghosted nodes (owner, index), sorted.
    nodes: [Vec<(u32, u32)>; 2],
    /// Per kind: the ghost numbers (window offset / 8) of its ghosts.
    ranges: [Range<usize>; 2],
    /// Per kind of the updated node: one source per edge.
    sources: [Vec<Source>; 2],
}

impl Ghosts {
    fn new(part: &Part, me: u32) -> Ghosts {
        let nodes = Kind::BOTH.map(|s| {
            // Nodes of kind s are the neighbours of the other kind's nodes.
            let mut v: Vec<(u32, u32)> =
                part.edges[s.other() as usize].iter().filter(|e| e.owner != me).map(|e| (e.owner, e.index)).collect();
            v.sort_unstable();
            v.dedup();
            v
        });
        let ne = nodes[Kind::E as usize].len();
        let ranges = [0..ne, ne..ne + nodes[Kind::H as usize].len()];
        let sources = Kind::BOTH.map(|k| {
            let ghosted = &nodes[k.other() as usize];
            part.edges[k as usize]
                .iter()
                .map(|e| {
                    if e.owner == me {
                        Source::Local(e.index as usize)
                    } else {
                        Source::Ghost(
                            ghosted.binary_search(&(e.owner, e.index)).expect("a remote neighbour has a ghost"),
                        )
                    }
                })
                .collect()
        });
        Ghosts { nodes, ranges, sources }
    }

    /// Per owner: (node, ghost byte offset) of every ghost of its nodes, as u64 pairs.
    fn requests(&self, cfg: &Config, ranks: u32) -> Vec<Vec<u8>> {
        let mut pairs = vec![Vec::new(); ranks as usize];
        for s in Kind::BOTH {
            for (g, &(owner, index)) in self.nodes[s as usize].iter().enumerate() {
                let node = (s as usize * cfg.nodes + index as usize) as u64;
                pairs[owner as usize].extend([node, ((self.ranges[s as usize].start + g) * 8) as u64]);
            }
        }
        pairs.iter().map(|p| encode::<u64>(p)).collect()
    }
}

/// Per kind: (node, consumer, ghost byte offset) of every store of a new value.
type Subscribers = [Vec<(usize, u32, usize)>; 2];

/// The stores each of this rank's values needs, from every rank's requests, in node order.
fn subscribers(cfg: &Config, requests: &[Vec<u8>]) -> Subscribers {
    let mut subs: Subscribers = [Vec::new(), Vec::new()];
    for (consumer, block) in requests.iter().enumerate() {
        for pair in decode::<u64>(block).chunks_exact(2) {
            let (node, offset) = (pair[0] as usize, pair[1] as usize);
            subs[node / cfg.nodes].push((node % cfg.nodes, consumer as u32, offset));
        }
    }
    for s in &mut subs {
        s.sort_unstable();
    }
    subs
}

/// Store this rank's values of kind `k` into every ghost of them, then wait until
/// every rank's stores have landed.
async fn push<R: Rank>(r: &R, part: &Part, subs: &Subscribers, k: Kind) {
    let values = &part.values[k as usize];
    for &(node, consumer, offset) in &subs[k as usize] {
        r.store(consumer, offset, values[node].to_le_bytes().to_vec());
    }
    r.store_sync().await;
    barrier(r, &r.world()).await;
}

/// The program.
pub async fn em3d_write<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (world, ranks, me) = (r.world(), r.size(), r.rank());
    let mut part = Part::generate(&cfg, ranks, me);
    r.phase("setup");
    let ghosts = Ghosts::new(&part, me);
    // Exposed before the requests leave: an owner that has them may store at once.
    r.expose(ghosts.ranges[1].end * 8);
    let subs = subscribers(&cfg, &alltoallv(&r, &world, ghosts.requests(&cfg, ranks)).await);
    push(&r, &part, &subs, Kind::H).await;
    for it in 0..cfg.iters {
        for k in Kind::BOTH {
            r.phase(k.phase());
            let range = ghosts.ranges[k.other() as usize].clone();
            let ghost: Vec<f64> = r.window(|w| decode(&w[range.start * 8..range.end * 8]));
            let sources = &ghosts.sources[k as usize];
            let (mine, local, edges) = part.sides(k);
            r.work(cfg.cost(cfg.nodes), || {
                update_all(mine, edges, |j, _| match sources[j] {
                    Source::Local(i) => local[i],
                    Source::Ghost(g) => ghost[g],
                })
            })
            .await;
            if k == Kind::E || it + 1 < cfg.iters {
                push(&r, &part, &subs, k).await;
            }
        }
    }
    verify(&cfg, ranks, me, &part.values)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| em3d_write(r, cfg))
}
