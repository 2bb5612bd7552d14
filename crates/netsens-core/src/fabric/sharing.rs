//! Max-min fair shares of link bandwidth among flows (progressive filling): every
//! flow's rate grows with its weight until a link it crosses is full or it reaches
//! its own bound; flows on a full link keep their rate, the others grow on. With
//! equal weights this is plain max-min fairness; SimGrid's CM02/LV08 models weigh a
//! flow by 1 / (its route latency + weight_S · Σ 1/bandwidth).

/// A flow as the solver sees it.
pub(super) struct Want<'a> {
    pub links: &'a [u32],
    pub weight: f64,
    /// Largest rate, bytes/ps (infinite: none).
    pub bound: f64,
}

/// Scratch space of the solver, kept between calls.
#[derive(Default)]
pub(super) struct Solver {
    room: Vec<f64>,
    weights: Vec<f64>,
    /// Flows still growing on each link: a link with none is out of the filling
    /// (its weight sum may keep a rounding residue).
    growing: Vec<u32>,
    state: Vec<u8>,
}

const GROWING: u8 = 0;
const FIXED_NOW: u8 = 1;
const FIXED: u8 = 2;

/// No link: a flow its own bound (its NIC, TCP's window) holds back.
pub(super) const NO_LINK: u32 = u32::MAX;

/// Relative tolerance when comparing shares (two links full at the same share).
const EPS: f64 = 1e-12;

impl Solver {
    /// The rate of each flow in `flows` (bytes/ps) into `rates`, given the capacity of
    /// each link (`capacity[link]`, bytes/ps). `links` are every link the flows cross;
    /// `slot[link]` is scratch, indexed by link id. Where `held` is given, it gets
    /// each flow's bottleneck: the full link that stopped its rate growing (the first
    /// of its route's full ones), or [`NO_LINK`] where its own bound did.
    pub(super) fn solve(
        &mut self,
        flows: &[Want],
        links: &[u32],
        capacity: &[f64],
        slot: &mut [u32],
        rates: &mut Vec<f64>,
        mut held: Option<&mut Vec<u32>>,
    ) {
        rates.clear();
        rates.resize(flows.len(), 0.0);
        if let Some(h) = held.as_deref_mut() {
            h.clear();
            h.resize(flows.len(), NO_LINK);
        }
        self.room.clear();
        self.weights.clear();
        self.growing.clear();
        for (i, &l) in links.iter().enumerate() {
            slot[l as usize] = i as u32;
            self.room.push(capacity[l as usize]);
            self.weights.push(0.0);
            self.growing.push(0);
        }
        for f in flows {
            for &l in f.links {
                let s = slot[l as usize] as usize;
                self.weights[s] += f.weight;
                self.growing[s] += 1;
            }
        }
        self.state.clear();
        self.state.resize(flows.len(), GROWING);
        let mut left = flows.len();
        while left > 0 {
            // The smallest share per unit of weight: a full link or a flow's bound.
            let mut share = f64::INFINITY;
            for ((room, &w), &n) in self.room.iter().zip(&self.weights).zip(&self.growing) {
                if n > 0 {
                    share = share.min(room.max(0.0) / w);
                }
            }
            for (f, &state) in flows.iter().zip(&self.state) {
                if state == GROWING {
                    share = share.min(f.bound / f.weight);
                }
            }
            let limit = share * (1.0 + EPS);
            for (i, f) in flows.iter().enumerate() {
                if self.state[i] != GROWING {
                    continue;
                }
                let at_bound = f.bound / f.weight <= limit;
                let full_link = f.links.iter().copied().find(|&l| {
                    let s = slot[l as usize] as usize;
                    self.growing[s] > 0 && self.room[s].max(0.0) / self.weights[s] <= limit
                });
                if at_bound || full_link.is_some() {
                    rates[i] = if at_bound { f.bound.min(share * f.weight) } else { share * f.weight };
                    if let (Some(h), false) = (held.as_deref_mut(), at_bound) {
                        h[i] = full_link.unwrap_or(NO_LINK);
                    }
                    self.state[i] = FIXED_NOW;
                    left -= 1;
                }
            }
            // Take this round's flows off their links only now, so that all of them
            // saw the same shares.
            let mut any = false;
            for (i, f) in flows.iter().enumerate() {
                if self.state[i] == FIXED_NOW {
                    for &l in f.links {
                        let s = slot[l as usize] as usize;
                        self.room[s] -= rates[i];
                        self.weights[s] -= f.weight;
                        self.growing[s] -= 1;
                    }
                    self.state[i] = FIXED;
                    any = true;
                }
            }
            if !any {
                break; // nothing bounds the rest (no link, no bound): they stay at 0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(flows: &[Want], capacity: &[f64]) -> Vec<f64> {
        let mut links: Vec<u32> = flows.iter().flat_map(|f| f.links.iter().copied()).collect();
        links.sort_unstable();
        links.dedup();
        let mut slot = vec![0; capacity.len()];
        let mut out = Vec::new();
        Solver::default().solve(flows, &links, capacity, &mut slot, &mut out, None);
        out
    }

    #[test]
    fn two_flows_on_one_link_get_half_each() {
        let f = [
            Want { links: &[0], weight: 1.0, bound: f64::INFINITY },
            Want { links: &[0], weight: 1.0, bound: f64::INFINITY },
        ];
        assert_eq!(rates(&f, &[1.0]), vec![0.5, 0.5]);
    }

    #[test]
    fn the_classic_three_flow_line() {
        // Links 0 (capacity 1) and 1 (capacity 2); A crosses both, B link 0, C link 1.
        // Link 0 is the bottleneck: A = B = 0.5; C takes what link 1 has left: 1.5.
        let f = [
            Want { links: &[0, 1], weight: 1.0, bound: f64::INFINITY },
            Want { links: &[0], weight: 1.0, bound: f64::INFINITY },
            Want { links: &[1], weight: 1.0, bound: f64::INFINITY },
        ];
        assert_eq!(rates(&f, &[1.0, 2.0]), vec![0.5, 0.5, 1.5]);
    }

    #[test]
    fn each_flow_is_held_by_the_full_link_that_stopped_it_or_by_its_bound() {
        // The three-flow line: A and B stop at link 0, C at link 1; then a flow
        // bounded below its link's share is held by its bound.
        let f = [
            Want { links: &[0, 1], weight: 1.0, bound: f64::INFINITY },
            Want { links: &[0], weight: 1.0, bound: f64::INFINITY },
            Want { links: &[1], weight: 1.0, bound: f64::INFINITY },
        ];
        let (mut slot, mut rates, mut held) = (vec![0; 2], Vec::new(), Vec::new());
        Solver::default().solve(&f, &[0, 1], &[1.0, 2.0], &mut slot, &mut rates, Some(&mut held));
        assert_eq!(held, vec![0, 0, 1]);
        let f =
            [Want { links: &[0], weight: 1.0, bound: 0.25 }, Want { links: &[0], weight: 1.0, bound: f64::INFINITY }];
        Solver::default().solve(&f, &[0], &[1.0], &mut slot, &mut rates, Some(&mut held));
        assert_eq!(held, vec![NO_LINK, 0]);
    }

    #[test]
    fn a_bounded_flow_leaves_the_rest_to_the_others_and_weights_split_in_proportion() {
        let f =
            [Want { links: &[0], weight: 1.0, bound: 0.25 }, Want { links: &[0], weight: 1.0, bound: f64::INFINITY }];
        assert_eq!(rates(&f, &[1.0]), vec![0.25, 0.75]);
        let f = [
            Want { links: &[0], weight: 3.0, bound: f64::INFINITY },
            Want { links: &[0], weight: 1.0, bound: f64::INFINITY },
        ];
        assert_eq!(rates(&f, &[1.0]), vec![0.75, 0.25]);
    }

    #[test]
    fn tiny_unequal_weights_still_fill_every_link() {
        // CM02's weights are 1 / latency in ps (about 1e-5): the sums left on a link
        // once its flows are fixed must not pass for a full link.
        let (a, b, c) = (1.0 / 100_000.0, 1.0 / 170_000.0, 1.0 / 130_000.0);
        let f = [
            Want { links: &[0, 1], weight: a, bound: f64::INFINITY },
            Want { links: &[0], weight: b, bound: f64::INFINITY },
            Want { links: &[1], weight: c, bound: f64::INFINITY },
        ];
        let r = rates(&f, &[1e-3, 2e-3]);
        // Link 0 is full first, split a : b; link 1 gives C what A leaves.
        let first = 1e-3 * a / (a + b);
        let want = [first, 1e-3 - first, 2e-3 - first];
        assert!(r.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-15), "{r:?}");
    }
}
