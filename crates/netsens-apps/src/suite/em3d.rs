//! EM3D's problem, shared by `em3d-write` and `em3d-read`: electric and magnetic
//! field values propagated on a random bipartite graph (Culler et al., Split-C;
//! Martin et al., ISCA'97), its generation, the cost model and the serial reference.
//!
//! **Graph**: every rank owns `nodes` E nodes and `nodes` H nodes. Each node has
//! `degree` edges to nodes of the other kind, each with a weight in [0, 1/degree):
//! the first `remote` edges go to a node on another rank (uniform over the other
//! ranks, then over their nodes), the rest to a node on the same rank. With one rank
//! there is no other rank, so every edge is local. A rank generates its own nodes
//! only: initial values from streams 0 (E) and 1 (H) of the seed indexed by global
//! node number, the edges of kind k on rank r from stream 2 + 2r + k, so every rank
//! agrees on the whole graph without generating it.
//!
//! **Iteration**: first every E node becomes e − Σ w·h over its edges, in edge
//! order, then every H node h − Σ w·e from the new E values.
//!
//! **Cost model**: an edge costs [`EDGE_PS`] = 10 ns: a multiply-add (2 flops at the
//! suite's 1 ns per flop) plus about 8 ns for loading a neighbour's value from a
//! random place in memory (usually a cache miss on a random graph, partly
//! overlapped). An assumption, not a measurement; scaled by the platform's CPU speed.
//!
//! **Verification**: every rank compares its values bit for bit (the same operations
//! in the same order) with a serial run of the whole graph, computed once per thread
//! for (config, ranks): all ranks of a simulation run in one process.
//!
//! **Sizes** (nodes of each kind per rank, degree, remote edges per node, iterations):
//! tiny 16, 4, 1 (25 %), 2; small 500, 10, 2 (20 %), 5; paper 2500, 20, 8 (40 %), 5
//! — 5000 nodes per rank, degree 20, 40 % of the edges remote: an input of the seed's
//! era, chosen here (the seeds at hand state no EM3D input).

use crate::app::Size;
use crate::data::{stream, unit_f64, unit_f64s_at};
use netsens_core::time::Time;
use rand_chacha::rand_core::Rng;
use std::cell::RefCell;
use std::rc::Rc;

/// Charge per edge update, before CPU-speed scaling.
pub const EDGE_PS: Time = 10_000;

/// The two kinds of node; an edge of a node of one kind goes to a node of the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    E = 0,
    H = 1,
}

impl Kind {
    /// In update order.
    pub const BOTH: [Kind; 2] = [Kind::E, Kind::H];

    pub fn other(self) -> Kind {
        match self {
            Kind::E => Kind::H,
            Kind::H => Kind::E,
        }
    }

    /// The phase that updates this kind.
    pub fn phase(self) -> &'static str {
        match self {
            Kind::E => "e-update",
            Kind::H => "h-update",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Nodes of each kind per rank.
    pub nodes: usize,
    /// Edges per node.
    pub degree: usize,
    /// Remote edges per node (with more than one rank).
    pub remote: usize,
    pub iters: u32,
    pub seed: u64,
}

impl Config {
    pub fn preset(size: Size, seed: u64) -> Config {
        let (nodes, degree, remote, iters) = match size {
            Size::Tiny => (16, 4, 1, 2),
            Size::Small => (500, 10, 2, 5),
            Size::Paper => (2500, 20, 8, 5),
        };
        Config { nodes, degree, remote, iters, seed }
    }

    /// Remote edges per node on `ranks` ranks.
    pub fn remote_on(&self, ranks: u32) -> usize {
        if ranks > 1 {
            self.remote
        } else {
            0
        }
    }

    /// Cost of updating `nodes` nodes.
    pub fn cost(&self, nodes: usize) -> Time {
        (nodes * self.degree) as Time * EDGE_PS
    }
}

/// An edge to node `index` of kind `other` on rank `owner`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Edge {
    pub owner: u32,
    pub index: u32,
    pub weight: f64,
}

/// One rank's nodes: values and edges of each kind, indexed by [`Kind`].
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub degree: usize,
    pub values: [Vec<f64>; 2],
    /// `degree` edges per node, node after node.
    pub edges: [Vec<Edge>; 2],
}

/// A draw in `0..n` (multiply-shift: no division, bias below 2^-32 for our n).
fn below(rng: &mut impl Rng, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

impl Part {
    pub fn generate(cfg: &Config, ranks: u32, rank: u32) -> Part {
        let first = u64::from(rank) * cfg.nodes as u64;
        let values = Kind::BOTH.map(|k| unit_f64s_at(cfg.seed, k as u64, first, cfg.nodes));
        let remote = cfg.remote_on(ranks);
        let edges = Kind::BOTH.map(|k| {
            let mut rng = stream(cfg.seed, 2 + 2 * u64::from(rank) + k as u64);
            let mut edges = Vec::with_capacity(cfg.nodes * cfg.degree);
            for _ in 0..cfg.nodes {
                for j in 0..cfg.degree {
                    let owner = if j < remote {
                        (rank + 1 + below(&mut rng, u64::from(ranks - 1)) as u32) % ranks
                    } else {
                        rank
                    };
                    let index = below(&mut rng, cfg.nodes as u64) as u32;
                    let weight = unit_f64(&mut rng) / cfg.degree as f64;
                    edges.push(Edge { owner, index, weight });
                }
            }
            edges
        });
        Part { degree: cfg.degree, values, edges }
    }

    /// The values of kind `k` (to update), those of the other kind, and the edges of kind `k`.
    pub fn sides(&mut self, k: Kind) -> (&mut [f64], &[f64], &[Edge]) {
        let [e, h] = &mut self.values;
        let (mine, others) = match k {
            Kind::E => (e, h),
            Kind::H => (h, e),
        };
        (mine, others, &self.edges[k as usize])
    }

    /// The edges of node `node` of kind `k`.
    pub fn node_edges(&self, k: Kind, node: usize) -> &[Edge] {
        &self.edges[k as usize][node * self.degree..][..self.degree]
    }
}

/// One node's update from its edges and its neighbours' values (in edge order):
/// `value − Σ w·v`, summed left to right, the same arithmetic everywhere.
#[inline]
pub fn update(value: f64, edges: &[Edge], neighbour: impl Fn(usize, &Edge) -> f64) -> f64 {
    value - edges.iter().enumerate().fold(0.0, |acc, (j, e)| acc + e.weight * neighbour(j, e))
}

/// Update every node of `values` in place from its `degree` edges of `edges`; the
/// neighbours' values come from `neighbour` (by edge number and edge).
pub fn update_all(values: &mut [f64], edges: &[Edge], neighbour: impl Fn(usize, &Edge) -> f64) {
    let d = edges.len() / values.len().max(1);
    for (i, v) in values.iter_mut().enumerate() {
        *v = update(*v, &edges[i * d..][..d], |j, e| neighbour(i * d + j, e));
    }
}

/// The serial run: every rank's part after `cfg.iters` iterations.
fn serial(cfg: &Config, ranks: u32) -> Vec<Part> {
    let mut parts: Vec<Part> = (0..ranks).map(|r| Part::generate(cfg, ranks, r)).collect();
    for _ in 0..cfg.iters {
        for k in Kind::BOTH {
            let o = k.other() as usize;
            let others: Vec<Vec<f64>> = parts.iter().map(|p| p.values[o].clone()).collect();
            for p in &mut parts {
                let (mine, _, edges) = p.sides(k);
                update_all(mine, edges, |_, e| others[e.owner as usize][e.index as usize]);
            }
        }
    }
    parts
}

type Reference = ((Config, u32), Rc<Vec<Part>>);

thread_local! {
    /// The last serial run computed on this thread, by (config, ranks).
    static REFERENCE: RefCell<Option<Reference>> = const { RefCell::new(None) };
}

/// The serial reference for `cfg` on `ranks` ranks, computed once per thread.
fn reference(cfg: &Config, ranks: u32) -> Rc<Vec<Part>> {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((key, parts)) if *key == (*cfg, ranks) => parts.clone(),
            _ => {
                let parts = Rc::new(serial(cfg, ranks));
                *cache = Some(((*cfg, ranks), parts.clone()));
                parts
            }
        }
    })
}

/// Compare rank `rank`'s values with the serial reference, bit for bit.
pub fn verify(cfg: &Config, ranks: u32, rank: u32, values: &[Vec<f64>; 2]) -> Result<(), String> {
    let want = reference(cfg, ranks);
    for k in Kind::BOTH {
        let expected = &want[rank as usize].values[k as usize];
        for (i, (got, exp)) in values[k as usize].iter().zip(expected).enumerate() {
            if got.to_bits() != exp.to_bits() {
                return Err(format!(
                    "{k:?} node {i} of rank {rank} is {got} after {} iterations; the serial reference has {exp}",
                    cfg.iters
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_follow_the_configuration() {
        let cfg = Config::preset(Size::Tiny, 1);
        for rank in 0..3 {
            let p = Part::generate(&cfg, 3, rank);
            for k in Kind::BOTH {
                assert_eq!(p.edges[k as usize].len(), cfg.nodes * cfg.degree);
                for i in 0..cfg.nodes {
                    for (j, e) in p.node_edges(k, i).iter().enumerate() {
                        assert_eq!(e.owner != rank, j < cfg.remote, "edge {j} of {k:?} node {i}");
                        assert!((e.index as usize) < cfg.nodes && e.owner < 3);
                        assert!((0.0..1.0 / cfg.degree as f64).contains(&e.weight));
                    }
                }
            }
        }
        // One rank: every edge local.
        let p = Part::generate(&cfg, 1, 0);
        assert!(p.edges.iter().flatten().all(|e| e.owner == 0));
    }

    #[test]
    fn one_update_by_hand() {
        // 5 − (0.5·2 + 0.25·4) = 3.
        let edges = [Edge { owner: 0, index: 0, weight: 0.5 }, Edge { owner: 0, index: 1, weight: 0.25 }];
        assert_eq!(update(5.0, &edges, |j, _| [2.0, 4.0][j]), 3.0);
    }

    #[test]
    fn verification_catches_a_wrong_value() {
        let cfg = Config { iters: 1, ..Config::preset(Size::Tiny, 2) };
        let mut values = reference(&cfg, 2)[1].values.clone();
        assert_eq!(verify(&cfg, 2, 1, &values), Ok(()));
        values[1][3] += 1e-12;
        let err = verify(&cfg, 2, 1, &values).unwrap_err();
        assert!(err.starts_with("H node 3 of rank 1 is "), "{err}");
    }
}
