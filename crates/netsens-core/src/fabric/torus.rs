//! A torus (or a mesh, where a dimension does not wrap) of routers with one host
//! each. Router `r` has coordinates `r` in the mixed radix of `dims`, dimension 0
//! fastest. Each router has a link to each neighbour: link `(r·D + dim)·2 + dir`,
//! dir 0 upward (+1), 1 downward. Routes correct dimension 0 first, then 1, ...;
//! round a ring they take the shorter way, upward when both are as short.

use super::network::{link, Network, Router};
use crate::platform::topology::LinkSpec;

pub(super) struct Torus {
    dims: Vec<u32>,
    wrap: Vec<bool>,
    /// Routers per step in each dimension (Π of the lower dimensions).
    stride: Vec<u32>,
}

impl Torus {
    pub(super) fn build(dims: &[u32], wrap: &[bool], spec: LinkSpec) -> Network {
        let mut stride = Vec::with_capacity(dims.len());
        let mut n = 1u32;
        for &d in dims {
            stride.push(n);
            n *= d;
        }
        let links = vec![link(spec, 0); n as usize * dims.len() * 2];
        let torus = Torus { dims: dims.to_vec(), wrap: wrap.to_vec(), stride };
        Network::new(links, vec!["torus".into()], (0..n).collect(), Router::Torus(torus))
    }

    pub(super) fn route(&self, src: u32, dst: u32, out: &mut Vec<u32>) {
        let nd = self.dims.len() as u32;
        let mut at = src;
        for (dim, &k) in self.dims.iter().enumerate() {
            let c = at / self.stride[dim] % k;
            let target = dst / self.stride[dim] % k;
            if c == target {
                continue;
            }
            let up = (target + k - c) % k;
            let upward = if self.wrap[dim] { up <= k - up } else { target > c };
            let hops = if upward { up } else { k - up };
            let mut c = c;
            for _ in 0..hops {
                out.push((at * nd + dim as u32) * 2 + u32::from(!upward));
                let next = if upward { (c + 1) % k } else { (c + k - 1) % k };
                at = at - c * self.stride[dim] + next * self.stride[dim];
                c = next;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::PerByte;

    #[test]
    fn dimension_order_and_the_shorter_way_round() {
        let spec = LinkSpec { per_byte: PerByte::from_ps(1), latency: 0 };
        let t = Torus::build(&[4, 4], &[true, true], spec);
        let mut r = Vec::new();
        // (0,0) → (3,1): dimension 0 downward one hop (wrap), then dimension 1 up one.
        t.route(0, 3 + 4, &mut r);
        // Links (router·2 + dim)·2 + dir: router 0 dim 0 down = 1; router 3 dim 1 up = 14.
        assert_eq!(r, vec![1, 14]);
        r.clear();
        // (0,0) → (2,0): two hops either way; the tie goes upward.
        t.route(0, 2, &mut r);
        assert_eq!(r, vec![0, 4]);
        // A mesh never wraps: (0,0) → (3,0) is three hops upward.
        let m = Torus::build(&[4, 4], &[false, false], spec);
        r.clear();
        m.route(0, 3, &mut r);
        assert_eq!(r, vec![0, 4, 8]);
    }
}
