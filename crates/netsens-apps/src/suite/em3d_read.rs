//! `em3d-read`: EM3D ([`super::em3d`]: graph, sizes, cost model, verification) in
//! which a rank pulls each remote neighbour's value with a blocking read when it
//! needs it, as the seed's EM3D(read): one 8-byte `get` per remote edge per
//! half-step, nothing cached, each a round trip (≥ 2L + 4o) with nothing to overlap
//! it — the latency worst case of Martin et al. A run issues
//! `iters × 2 × nodes × remote` gets per rank.
//!
//! Each rank exposes its values in its window (E then H, one little-endian f64 per
//! node). A half-step (phase `e-update` or `h-update`) goes node by node: read the
//! node's remote neighbours in edge order, then charge the node's update
//! (`degree × EDGE_PS`). The rank then writes its new values into its window and
//! enters a barrier: the new values are read only after it (in the next half-step
//! but one), and every read of the old ones happened before it. Phase `setup`
//! exposes the window and waits for every rank to have done so.

use super::em3d::{update, verify, Config, Kind, Part};
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::barrier;
use netsens_core::program::{decode, encode, Rank};
use netsens_core::Result;

pub const APP: App = App {
    name: "em3d-read",
    description: "EM3D on a random bipartite graph; every remote neighbour's value read with a blocking get",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Where the value of node `index` of kind `k` lives in its owner's window.
fn offset(cfg: &Config, k: Kind, index: u32) -> usize {
    (k as usize * cfg.nodes + index as usize) * 8
}

/// Copy this rank's values of kind `k` into its window.
fn publish<R: Rank>(r: &R, cfg: &Config, part: &Part, k: Kind) {
    let at = offset(cfg, k, 0);
    r.window(|w| w[at..at + cfg.nodes * 8].copy_from_slice(&encode(&part.values[k as usize])));
}

/// The program.
pub async fn em3d_read<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (world, ranks, me) = (r.world(), r.size(), r.rank());
    let mut part = Part::generate(&cfg, ranks, me);
    r.phase("setup");
    r.expose(2 * cfg.nodes * 8);
    for k in Kind::BOTH {
        publish(&r, &cfg, &part, k);
    }
    barrier(&r, &world).await;
    let mut fetched = vec![0.0; cfg.degree];
    for _ in 0..cfg.iters {
        for k in Kind::BOTH {
            r.phase(k.phase());
            let o = k.other();
            for i in 0..cfg.nodes {
                for (j, e) in part.node_edges(k, i).iter().enumerate().filter(|(_, e)| e.owner != me) {
                    fetched[j] = decode::<f64>(&r.get(e.owner, offset(&cfg, o, e.index), 8).await)[0];
                }
                let local = &part.values[o as usize];
                let old = part.values[k as usize][i];
                let edges = part.node_edges(k, i);
                let new = r
                    .work(cfg.cost(1), || {
                        update(old, edges, |j, e| if e.owner == me { local[e.index as usize] } else { fetched[j] })
                    })
                    .await;
                part.values[k as usize][i] = new;
            }
            publish(&r, &cfg, &part, k);
            barrier(&r, &world).await;
        }
    }
    verify(&cfg, ranks, me, &part.values)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| em3d_read(r, cfg))
}
