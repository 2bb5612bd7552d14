//! A dragonfly: `groups` groups of `routers` routers, `hosts` hosts a router. The
//! routers of a group are joined all-to-all by local links; every two groups by one
//! global link, which group g keeps on its router `k mod routers` for the k-th other
//! group after it (`k = (h − g − 1) mod groups`). Minimal routing: host link up, a
//! local hop to the router holding the global link (if another), the global link, a
//! local hop to the destination's router (if another), host link down. Valiant routing
//! (oblivious, as a static route per pair): a message between two groups goes first
//! minimally to an intermediate group, then minimally on to its destination, so that
//! adversarial traffic between two groups spreads over the other groups' global links.
//! A pair's intermediate is the `((src + dst) mod (groups − 2))`-th group counted after
//! the source's, the destination's skipped; with 2 groups there is none (minimal).

use super::network::{link, Network, Router};
use crate::platform::topology::LinkSpec;

pub(super) struct Dragonfly {
    groups: u32,
    routers: u32,
    hosts: u32,
    local_base: u32,
    global_base: u32,
    valiant: bool,
}

impl Dragonfly {
    /// `specs`: host, local and global links (classes 0, 1, 2).
    pub(super) fn build(groups: u32, routers: u32, hosts: u32, specs: [LinkSpec; 3], valiant: bool) -> Network {
        let nrouters = groups * routers;
        let nhosts = nrouters * hosts;
        let local_base = 2 * nhosts;
        let global_base = local_base + nrouters * routers;
        let mut links = vec![link(specs[0], 0); local_base as usize];
        links.extend(std::iter::repeat_n(link(specs[1], 1), (nrouters * routers) as usize));
        links.extend(std::iter::repeat_n(link(specs[2], 2), (groups * groups) as usize));
        let classes = vec!["host".into(), "local".into(), "global".into()];
        let attach = (0..nhosts).map(|h| h / hosts).collect();
        let d = Dragonfly { groups, routers, hosts, local_base, global_base, valiant };
        Network::new(links, classes, attach, Router::Dragonfly(d))
    }

    /// The router of group `g` holding its global link to group `h`.
    fn gateway(&self, g: u32, h: u32) -> u32 {
        (h + self.groups - g - 1) % self.groups % self.routers
    }

    fn local(&self, g: u32, from: u32, to: u32, out: &mut Vec<u32>) {
        if from != to {
            out.push(self.local_base + (g * self.routers + from) * self.routers + to);
        }
    }

    pub(super) fn route(&self, src: u32, dst: u32, out: &mut Vec<u32>) {
        let (rs, rd) = (src / self.hosts, dst / self.hosts);
        let (gs, gd) = (rs / self.routers, rd / self.routers);
        let (is, id) = (rs % self.routers, rd % self.routers);
        out.push(2 * src);
        if gs == gd {
            self.local(gs, is, id, out);
        } else if self.valiant && self.groups > 2 {
            // The k-th group after gs, gd skipped; u64: src + dst may pass 2^32.
            let k = ((u64::from(src) + u64::from(dst)) % u64::from(self.groups - 2)) as u32;
            let mut gi = (gs + 1 + k) % self.groups;
            if (gd + self.groups - gs) % self.groups <= k + 1 {
                gi = (gi + 1) % self.groups;
            }
            let (enter, leave) = (self.gateway(gi, gs), self.gateway(gi, gd));
            self.local(gs, is, self.gateway(gs, gi), out);
            out.push(self.global_base + gs * self.groups + gi);
            self.local(gi, enter, leave, out);
            out.push(self.global_base + gi * self.groups + gd);
            self.local(gd, self.gateway(gd, gi), id, out);
        } else {
            self.local(gs, is, self.gateway(gs, gd), out);
            out.push(self.global_base + gs * self.groups + gd);
            self.local(gd, self.gateway(gd, gs), id, out);
        }
        out.push(2 * dst + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PerByte;

    #[test]
    fn minimal_routes_take_local_global_local() {
        let spec = LinkSpec { per_byte: PerByte::from_ps(1), latency: 0 };
        // 3 groups of 2 routers, 1 host each: hosts 0..6; local links from 12, global from 24.
        let d = Dragonfly::build(3, 2, 1, [spec; 3], false);
        assert_eq!(d.hosts, 6);
        let mut r = Vec::new();
        // Host 0 (group 0, router 0) → host 5 (group 2, router 1): group 0 keeps the
        // link to group 2 (k = 1) on router 1, group 2 the link to group 0 (k = 0) on router 0.
        d.route(0, 5, &mut r);
        assert_eq!(r, vec![0, 12 + 1, 24 + 2, 12 + (2 * 2) * 2 + 1, 11]);
        let classes: Vec<u16> = r.iter().map(|&l| d.links[l as usize].class).collect();
        assert_eq!(classes, vec![0, 1, 2, 1, 0]);
    }
}
