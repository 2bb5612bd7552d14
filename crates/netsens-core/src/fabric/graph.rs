//! A topology given as a graph: hosts `h0..h{n-1}`, named switches, links between
//! them (each a cable: two directed links). Routes are shortest paths in hops that
//! pass through switches only; where several next hops are as short, a flow takes
//! one chosen by (source, destination, vertex), so that equal-cost paths share the
//! load (ECMP) and a pair always takes the same path.

use super::network::{link, Network, Router};
use crate::error::Result;
use crate::platform::topology::{GraphLink, Topology};
use std::collections::{HashMap, VecDeque};

const UNREACHED: u32 = u32::MAX;
/// Classes of links a graph may name (each is a row of the statistics).
const MAX_CLASSES: usize = 256;

pub(super) struct Graph {
    hosts: u32,
    /// Per vertex, its outgoing (neighbour, directed link).
    out: Vec<Vec<(u32, u32)>>,
    /// Hops from each vertex to each host: `dist[host · V + vertex]`.
    dist: Vec<u32>,
    vertices: usize,
}

impl Graph {
    pub(super) fn build(t: &Topology, hosts: u32, switches: &[String], specs: &[GraphLink]) -> Result<Network> {
        let mut index: HashMap<&str, u32> = HashMap::new();
        for (i, s) in switches.iter().enumerate() {
            let v = hosts + i as u32;
            if index.insert(s.as_str(), v).is_some() || is_host_name(s) {
                return Err(t.error(&format!("switches[{i}]"), format!("\"{s}\" is named twice (or like a host)")));
            }
        }
        let vertex = |i: usize, j: usize, name: &str| -> Result<u32> {
            if let Some(h) = name.strip_prefix('h').and_then(|n| n.parse::<u32>().ok()) {
                if h < hosts && name == format!("h{h}") {
                    return Ok(h);
                }
            }
            index.get(name).copied().ok_or_else(|| {
                t.error(
                    &format!("links[{i}].ends[{j}]"),
                    format!("\"{name}\" is neither a host (h0..h{}) nor a listed switch", hosts - 1),
                )
            })
        };
        let vertices = hosts as usize + switches.len();
        let mut out = vec![Vec::new(); vertices];
        let mut classes: Vec<String> = Vec::new();
        let mut links = Vec::with_capacity(2 * specs.len());
        for (i, l) in specs.iter().enumerate() {
            let (a, b) = (vertex(i, 0, &l.ends.0)?, vertex(i, 1, &l.ends.1)?);
            if a == b {
                return Err(t.error(&format!("links[{i}].ends"), "a link must join two different vertices"));
            }
            let class = match classes.iter().position(|c| *c == l.class) {
                Some(c) => c,
                None if classes.len() < MAX_CLASSES => {
                    classes.push(l.class.clone());
                    classes.len() - 1
                }
                None => return Err(t.error(&format!("links[{i}].class"), format!("more than {MAX_CLASSES} classes"))),
            } as u16;
            let id = links.len() as u32;
            links.push(link(l.spec, class));
            links.push(link(l.spec, class));
            out[a as usize].push((b, id));
            out[b as usize].push((a, id + 1));
        }
        let mut dist = vec![UNREACHED; hosts as usize * vertices];
        for h in 0..hosts {
            let d = &mut dist[h as usize * vertices..(h as usize + 1) * vertices];
            bfs_to(h, hosts, &out, d);
            if let Some(s) = (0..hosts).find(|&s| d[s as usize] == UNREACHED) {
                return Err(t.error("links", format!("host h{s} has no path to host h{h} through the switches")));
            }
        }
        let attach = (0..hosts).map(|h| out[h as usize].first().map_or(h, |&(v, _)| v)).collect();
        let g = Graph { hosts, out, dist, vertices };
        Ok(Network::new(links, classes, attach, Router::Graph(g)))
    }

    pub(super) fn route(&self, src: u32, dst: u32, out: &mut Vec<u32>) {
        let dist = &self.dist[dst as usize * self.vertices..(dst as usize + 1) * self.vertices];
        let mut at = src;
        while at != dst {
            let want = dist[at as usize] - 1;
            let next = |&&(v, _): &&(u32, u32)| dist[v as usize] == want && (v == dst || v >= self.hosts);
            let ties = self.out[at as usize].iter().filter(next).count() as u64;
            let pick = spread(src, dst, at) % ties;
            let &(v, l) = self.out[at as usize].iter().filter(next).nth(pick as usize).expect("a shorter neighbour");
            out.push(l);
            at = v;
        }
    }
}

fn is_host_name(s: &str) -> bool {
    s.strip_prefix('h').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Hops from every vertex to host `h`, never passing through another host.
fn bfs_to(h: u32, hosts: u32, out: &[Vec<(u32, u32)>], dist: &mut [u32]) {
    dist[h as usize] = 0;
    let mut queue = VecDeque::from([h]);
    while let Some(v) = queue.pop_front() {
        if v < hosts && v != h {
            continue; // a host ends a path; it does not forward
        }
        // Links are cables: a neighbour of v reaches v over the reverse link.
        for &(u, _) in &out[v as usize] {
            if dist[u as usize] == UNREACHED {
                dist[u as usize] = dist[v as usize] + 1;
                queue.push_back(u);
            }
        }
    }
}

/// A well-mixed number from (source, destination, vertex) for the ECMP choice.
fn spread(src: u32, dst: u32, at: u32) -> u64 {
    let mut x = (src as u64) << 42 ^ (dst as u64) << 21 ^ at as u64;
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x
}
