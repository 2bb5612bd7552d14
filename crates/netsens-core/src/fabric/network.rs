//! The links of a topology and the route between any two of its hosts, built once
//! per run from the platform's `[topology]`. Links are directed (a cable is two
//! links, one each way); every link belongs to a class (a fat-tree level, a
//! dragonfly's local or global links, ...) for the statistics.

use super::{dragonfly, fat_tree, graph, torus};
use crate::error::Result;
use crate::platform::topology::{LinkSpec, Shape, Topology};
use crate::time::{PerByte, Time};

#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub per_byte: PerByte,
    pub latency: Time,
    pub class: u16,
}

/// How a topology finds routes (each kind's own rule).
pub(super) enum Router {
    FatTree(fat_tree::FatTree),
    Torus(torus::Torus),
    Dragonfly(dragonfly::Dragonfly),
    Graph(graph::Graph),
}

pub struct Network {
    pub links: Vec<Link>,
    pub classes: Vec<String>,
    pub hosts: u32,
    /// The first-hop switch (router) of each host, which round-robin placement deals over.
    pub attach: Vec<u32>,
    router: Router,
}

impl Network {
    pub fn build(t: &Topology) -> Result<Network> {
        match &t.shape {
            Shape::FatTree { down, up, links } => Ok(fat_tree::FatTree::build(down, up, links)),
            Shape::Torus { dims, wrap, link } => Ok(torus::Torus::build(dims, wrap, *link)),
            Shape::Dragonfly { groups, routers, hosts, host, local, global, valiant } => {
                let specs = [*host, *local, *global];
                Ok(dragonfly::Dragonfly::build(*groups, *routers, *hosts, specs, *valiant))
            }
            Shape::Graph { hosts, switches, links } => graph::Graph::build(t, *hosts, switches, links),
        }
    }

    pub(super) fn new(links: Vec<Link>, classes: Vec<String>, attach: Vec<u32>, router: Router) -> Network {
        let hosts = attach.len() as u32;
        Network { links, classes, hosts, attach, router }
    }

    /// The directed links from host `src` to host `dst`, in order, appended to `out`.
    pub fn route(&self, src: u32, dst: u32, out: &mut Vec<u32>) {
        if src == dst {
            return;
        }
        match &self.router {
            Router::FatTree(f) => f.route(src, dst, out),
            Router::Torus(t) => t.route(src, dst, out),
            Router::Dragonfly(d) => d.route(src, dst, out),
            Router::Graph(g) => g.route(src, dst, out),
        }
    }
}

/// A link of class `class` with `spec`'s bandwidth and latency.
pub(super) fn link(spec: LinkSpec, class: u16) -> Link {
    Link { per_byte: spec.per_byte, latency: spec.latency, class }
}
