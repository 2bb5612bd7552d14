//! A fat-tree as an extended generalised fat-tree (Öhring et al.): level 0 are the
//! hosts; a switch of level e + 1 has `m[e]` children and each node of level e has
//! `w[e]` parents (a host has one). A node of level e is numbered `hi · W[e] + lo`,
//! where `hi` numbers the subtree of `M[e]` hosts it serves and `lo` its choice of
//! parents on the way up. Routes climb to the nearest common ancestor, choosing the
//! parent at level e by the destination, `(dst / W[e]) mod w[e]` (D-mod-k), and then
//! descend on the only way down.

use super::network::{link, Network, Router};
use crate::platform::topology::LinkSpec;

pub(super) struct FatTree {
    m: Vec<u64>,
    w: Vec<u64>,
    /// Hosts under one node of level e: Π_{j<e} m[j].
    hosts_under: Vec<u64>,
    /// Parent choices of a node of level e: Π_{j<e} w[j].
    choices: Vec<u64>,
    /// First cable of each level of cables (the cables joining level e to e + 1).
    base: Vec<u64>,
}

impl FatTree {
    pub(super) fn build(down: &[u32], up: &[u32], specs: &[LinkSpec]) -> Network {
        let n = down.len();
        let m: Vec<u64> = down.iter().map(|&d| d as u64).collect();
        let w: Vec<u64> = std::iter::once(1).chain(up.iter().map(|&u| u as u64)).collect();
        let mut hosts_under = vec![1u64; n + 1];
        let mut choices = vec![1u64; n + 1];
        for e in 0..n {
            hosts_under[e + 1] = hosts_under[e] * m[e];
            choices[e + 1] = choices[e] * w[e];
        }
        let hosts = hosts_under[n];
        let mut base = vec![0u64; n + 1];
        let mut links = Vec::new();
        for e in 0..n {
            let nodes = hosts / hosts_under[e] * choices[e];
            let cables = nodes * w[e];
            base[e + 1] = base[e] + cables;
            // Two directed links per cable: up, then down.
            links.extend(std::iter::repeat_n(link(specs[e], e as u16), 2 * cables as usize));
        }
        let classes = (0..n).map(|e| format!("level {}", e + 1)).collect();
        let attach = (0..hosts).map(|h| (h / m[0]) as u32).collect();
        let tree = FatTree { m, w, hosts_under, choices, base };
        Network::new(links, classes, attach, Router::FatTree(tree))
    }

    fn cable(&self, e: usize, hi: u64, lo: u64, port: u64) -> u32 {
        (self.base[e] + (hi * self.choices[e] + lo) * self.w[e] + port) as u32
    }

    pub(super) fn route(&self, src: u32, dst: u32, out: &mut Vec<u32>) {
        let (s, d) = (src as u64, dst as u64);
        let top = (1..self.hosts_under.len())
            .find(|&e| s / self.hosts_under[e] == d / self.hosts_under[e])
            .expect("the top level holds every host");
        let (mut hi, mut lo) = (s, 0u64);
        for e in 0..top {
            let port = (d / self.choices[e]) % self.w[e];
            out.push(2 * self.cable(e, hi, lo, port));
            hi /= self.m[e];
            lo += self.choices[e] * port;
        }
        for e in (0..top).rev() {
            let child_hi = hi * self.m[e] + (d / self.hosts_under[e]) % self.m[e];
            let (child_lo, port) = (lo % self.choices[e], lo / self.choices[e]);
            out.push(2 * self.cable(e, child_hi, child_lo, port) + 1);
            hi = child_hi;
            lo = child_lo;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PerByte;

    fn tree(down: &[u32], up: &[u32]) -> Network {
        let spec = LinkSpec { per_byte: PerByte::from_ps(1), latency: 0 };
        FatTree::build(down, up, &vec![spec; down.len()])
    }

    #[test]
    fn counts_hosts_switches_and_links() {
        // 2 levels, 4 hosts a leaf, 2 leaves, 4 up ports a leaf: 8 hosts, 8 + 8 cables.
        let t = tree(&[4, 2], &[4]);
        assert_eq!(t.hosts, 8);
        assert_eq!(t.links.len(), 2 * (8 + 8));
        // Tapered 2:1: 2 up ports a leaf, 8 + 4 cables.
        assert_eq!(tree(&[4, 2], &[2]).links.len(), 2 * (8 + 4));
    }

    #[test]
    fn routes_climb_to_the_common_ancestor_and_back() {
        let t = tree(&[4, 2], &[4]);
        let mut r = Vec::new();
        // Same leaf: host 0 up, host 1 down.
        t.route(0, 1, &mut r);
        assert_eq!(r, vec![0, 3]); // host 1 down: cable 1, link 2·1 + 1
        r.clear();
        // Across leaves: host 0 up (cable 0), leaf 0 up port 5 % 4 = 1 (cable 8 + 0·4 + 1),
        // leaf 1 down from the same top switch (cable 8 + 1·4 + 1), host 5 down (cable 5).
        t.route(0, 5, &mut r);
        assert_eq!(r, vec![0, 2 * 9, 2 * 13 + 1, 2 * 5 + 1]);
    }
}
