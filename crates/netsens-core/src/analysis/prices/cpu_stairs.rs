//! Where a computation's price steps as 1/cpu_speed grows. At t = 1/cpu_speed the
//! record prices a computation of c ps (at speed 1) at round(fl(c·t)) ps, half away
//! from zero ([`compute_time`]); fl(c·t) never falls as t grows, so the price rises
//! by 1 ps at the least float t with fl(c·t) ≥ k + 0.5, for each k: its stair edges.
//! T is a maximum over paths of sums of such prices, so between two edges of the
//! program's computation sizes T is flat, and the CPU's tolerance is the float just
//! below an edge: a search needs T at edges alone, as a per-byte one ([`super::stairs`]).
//!
//! Kept only where the program has few sizes (a trace of measured computations has
//! as many edges as floats, and its search stays on floats).

use super::price::compute_time;

/// Computation sizes beyond which the edges are not kept.
pub const MAX_SIZES: usize = 16;

/// Edges beyond which a bracket's are not listed (its search steps on floats).
pub const MAX_EDGES: u64 = 1 << 12;

/// The distinct sizes (ps at speed 1, > 0) of a record's computations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComputeSizes {
    sizes: [f64; MAX_SIZES],
    len: usize,
}

impl ComputeSizes {
    /// Of the sizes given (for tests); `None` where there are more than [`MAX_SIZES`].
    pub fn of(sizes: &[f64]) -> Option<ComputeSizes> {
        let mut s = ComputeSizes { sizes: [0.0; MAX_SIZES], len: 0 };
        for &c in sizes.iter().filter(|&&c| c > 0.0) {
            s.insert(c)?;
        }
        Some(s)
    }

    pub(crate) fn insert(&mut self, c: f64) -> Option<()> {
        if !self.sizes[..self.len].contains(&c) {
            *self.sizes.get_mut(self.len)? = c;
            self.len += 1;
        }
        Some(())
    }

    fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        self.sizes[..self.len].iter().copied()
    }

    /// The smallest size (ps; infinite where there is none).
    pub fn smallest(&self) -> f64 {
        self.iter().fold(f64::INFINITY, f64::min)
    }

    /// Whether the price of some size but the largest (the one with the most edges)
    /// rises at `t` from the float below: a coarse edge (see `stairs::cut_edges`).
    pub fn coarse(&self, t: f64) -> bool {
        let largest = self.iter().fold(0.0, f64::max);
        let below = t.next_down();
        self.iter().filter(|&c| c != largest).any(|c| compute_time(c, t) > compute_time(c, below))
    }

    /// The least float t with a price of c ps above `k` ps (fl(c·t) ≥ k + 0.5).
    fn edge(c: f64, k: f64) -> f64 {
        let mut t = (k + 0.5) / c;
        while t > 0.0 && compute_time(c, t.next_down()) > k {
            t = t.next_down();
        }
        while compute_time(c, t) <= k {
            t = t.next_up();
        }
        t
    }

    /// Every edge in (lo, hi], increasing, where there are at most [`MAX_EDGES`]
    /// (`None`: more, or `hi` infinite).
    pub fn edges_in(&self, lo: f64, hi: f64) -> Option<Vec<f64>> {
        if !hi.is_finite() {
            return None;
        }
        let count = self.iter().map(|c| compute_time(c, hi) - compute_time(c, lo)).sum::<f64>();
        if count > MAX_EDGES as f64 {
            return None;
        }
        let mut edges: Vec<f64> = Vec::with_capacity(count as usize);
        for c in self.iter() {
            let (from, to) = (compute_time(c, lo), compute_time(c, hi));
            edges.extend((from as u64..to as u64).map(|k| ComputeSizes::edge(c, k as f64)));
        }
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        Some(edges)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The edges against the prices themselves (a second method): at each edge some
    /// size's price is above its price one float below, and nowhere else among the
    /// floats sampled around the edges; for the four sizes of radix's computations
    /// near 1/cpu_speed = 1.6376 and for sizes of a few ps at 1.
    #[test]
    fn cpu_edges_are_where_a_rounded_price_rises() {
        const RADIX: [f64; 4] = [800_000.0, 320_000.0, 5_120_000.0, 819_200_000.0];
        let cases: [(&[f64], f64, f64); 3] = [
            (&RADIX, 1.637_623_9, 1.637_624_0),
            // Around 1.318834375, where every 800 000 ps computation rises at once.
            (&RADIX, 1.318_834_3, 1.318_834_4),
            (&[3.0, 7.0, 1_000.0], 1.0, 1.01),
        ];
        let prices = |sizes: &[f64], t: f64| sizes.iter().map(|&c| compute_time(c, t)).collect::<Vec<_>>();
        for (sizes, lo, hi) in cases {
            let s = ComputeSizes::of(sizes).unwrap();
            let edges = s.edges_in(lo, hi).unwrap();
            assert!(!edges.is_empty());
            let expected: f64 = sizes.iter().map(|&c| compute_time(c, hi) - compute_time(c, lo)).sum();
            assert!(edges.len() as f64 <= expected && edges.windows(2).all(|w| w[0] < w[1]));
            let largest = sizes.iter().copied().fold(0.0, f64::max);
            for &e in &edges {
                assert!(e > lo && e <= hi);
                // Coarse where a size other than the largest rises.
                let rises = sizes.iter().any(|&c| c != largest && compute_time(c, e) > compute_time(c, e.next_down()));
                assert_eq!(s.coarse(e), rises, "{sizes:?} at {e}");
                assert_ne!(prices(sizes, e), prices(sizes, e.next_down()), "{sizes:?} at {e}");
                // The floats just above an edge price as it does.
                assert_eq!(prices(sizes, e), prices(sizes, e.next_up()), "{sizes:?} at {e}");
            }
            // Between two edges (and from lo to the first) the prices are flat: they
            // never fall, and are the same at both ends.
            for w in std::iter::once(lo).chain(edges.iter().copied()).collect::<Vec<_>>().windows(2) {
                assert_eq!(prices(sizes, w[0]), prices(sizes, w[1].next_down()), "{sizes:?} in {w:?}");
            }
        }
        let s = ComputeSizes::of(&RADIX).unwrap();
        assert!(s.coarse(1.318_834_375) && !s.coarse(1.318_834_375f64.next_up()));
        // Too many edges, or too many sizes: none kept.
        let s = ComputeSizes::of(&[819_200_000.0]).unwrap();
        assert!(s.edges_in(1.0, 1.1).is_none() && s.edges_in(1.0, f64::INFINITY).is_none());
        let many: Vec<f64> = (1..=MAX_SIZES as u64 + 1).map(|c| c as f64).collect();
        assert!(ComputeSizes::of(&many).is_none() && ComputeSizes::of(&many[1..]).is_some());
    }
}
