//! The fabric: a topology's links, which the messages crossing them at the same
//! time share (docs/guides/topology.md). The engine's end points (o, g, G, O, S,
//! rendezvous) stay as `LOGGP.md` states; between them, a message is a *flow*.
//!
//! A message of `w` bytes is LogGP's first byte, which pays latency alone, and
//! `k = w − 1` bytes more, which the sender's NIC would move at one per `G`. Here
//! those `k` bytes are a *flow*: it leaves its sender's CPU at `t1`, pays its route's
//! latency `Λ · latency_factor` and then moves at the rate that max-min sharing gives
//! it (never faster than its sender's NIC, 1/G), recomputed whenever any flow that
//! shares a link with it, directly or through others, joins or leaves. Alone on idle
//! links it takes `k · G`; what it takes beyond is its *link wait* `δ`, known only
//! when its bytes are through. The message's first byte arrives at
//! `t1 + L + Λ · latency_factor` whatever the sharing (the receiver's LogGOPS rule
//! starts there) and its receive completes no earlier than `δ` after LogGOPS's
//! completion (engine/shared_links.rs; docs/guides/topology.md). A message LogGP
//! charges no per-byte time (one byte, or not above `G_above`) is no flow: it
//! crosses in its route's latency.
//!
//! The engine's interface is narrow: [`Fabric::open`] a flow, [`Fabric::enter`] it
//! when its latency is paid, [`Fabric::finish`] it when its scheduled end comes; the
//! ends that moved wait in [`Fabric::retimed`] for the engine to schedule.

mod dragonfly;
mod fat_tree;
mod graph;
pub mod job_hosts;
pub mod network;
pub mod placement;
mod sharing;
mod stats;
mod torus;

use crate::error::Result;
use crate::platform::topology::{Sharing, Topology};
use crate::time::{PerByte, Time};
use network::Network;
use sharing::{Solver, Want, NO_LINK};
pub use stats::{LinkClassStats, LinkReport, LinkStats};

/// A new end of flow `flow` (its event carries `version`).
#[derive(Clone, Copy, Debug)]
pub struct Retimed {
    pub flow: u32,
    pub version: u16,
    pub end: Time,
}

/// A flow's link queueing per class of links (ps, by class; nothing where the fabric
/// does not split waits): a few classes inline (a route crosses few), more beside.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaitSplit {
    inline: [(u16, Time); 4],
    n: u8,
    more: Vec<(u16, Time)>,
}

impl WaitSplit {
    fn push(&mut self, part: (u16, Time)) {
        match self.inline.get_mut(self.n as usize) {
            Some(slot) => {
                *slot = part;
                self.n += 1;
            }
            None => self.more.push(part),
        }
    }

    /// (class, ps) of each class that held the bytes back, by class.
    pub fn parts(&self) -> impl Iterator<Item = (u16, Time)> + '_ {
        self.inline[..self.n as usize].iter().chain(&self.more).copied()
    }
}

/// A flow whose bytes are through, handed back to the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Through {
    pub msg: u32,
    pub phase: u8,
    /// What its bytes took beyond `k·G` (ps): sharing and slower links.
    pub link_wait: Time,
    /// Of `link_wait`, what its bytes would take beyond `k·G` alone on its route (a
    /// link slower than its NIC); the rest is sharing.
    pub slow_link: Time,
    /// The rest per class of links ([`Fabric::by_class`]).
    pub split: WaitSplit,
}

struct Flow {
    msg: u32,
    phase: u8,
    /// The receiving rank (its link wait is counted there).
    rank: u32,
    links: Vec<u32>,
    /// Bytes still to move as of `updated`.
    left: f64,
    rate: f64,
    weight: f64,
    bound: f64,
    updated: Time,
    /// When the bytes will all have moved at the current rate.
    end: Time,
    /// When the bytes started to move (latency paid).
    start: Time,
    /// Its bytes are through and it has left its links.
    through: bool,
    /// `k · G`: the bytes' time alone at the NIC's rate.
    alone: Time,
    /// Its bytes' time alone on its route beyond `alone` (a link slower than the NIC).
    slow_link: Time,
    /// The message's bytes, for the links' statistics.
    wire: u64,
    /// Its rate alone on its route (its bound or its slowest link), bytes/ps.
    route_rate: f64,
    /// The link whose share holds its rate now ([`NO_LINK`]: its own bound).
    held: u32,
    /// The class of its route's slowest link: where a wait no link is known to
    /// have caused (a rounding) is counted.
    slowest_class: u16,
    /// Per class of links, the time it lost so far to a link of the class holding
    /// it below its rate alone (ps, kept only where the run is recorded).
    lost: Vec<(u16, f64)>,
    /// The earliest end event pending (`Time::MAX`: none). An end that moves later
    /// waits for it and is scheduled again then: most moves cost no event.
    scheduled: Time,
    /// The slot's use: events of an earlier flow in it are ignored.
    version: u16,
}

pub struct Fabric {
    net: Network,
    /// The host of each node.
    host_of: Vec<u32>,
    sharing: Sharing,
    /// Capacity of each link, bytes/ps.
    capacity: Vec<f64>,
    on_link: Vec<Vec<u32>>,
    flows: Vec<Flow>,
    free: Vec<u32>,
    stats: stats::Recorder,
    /// Link wait of the messages each rank received, ps.
    wait_of_rank: Vec<Time>,
    /// Flows whose times moved, for the engine to schedule.
    pub retimed: Vec<Retimed>,
    /// Split each flow's wait by the class of the links that held it back (a
    /// recorded run: the critical path's link waits per class).
    pub by_class: bool,
    held: Vec<u32>,
    scratch_split: Vec<(u16, Time)>,
    // Scratch of the sharing.
    solver: Solver,
    seen_flow: Vec<u32>,
    seen_link: Vec<u32>,
    epoch: u32,
    group_flows: Vec<u32>,
    group_links: Vec<u32>,
    slot: Vec<u32>,
    rates: Vec<f64>,
    scratch_route: Vec<u32>,
}

/// Bytes per ps of a per-byte cost (infinite for a zero cost).
fn rate_of(per_byte: PerByte) -> f64 {
    if per_byte.is_zero() {
        f64::INFINITY
    } else {
        1000.0 / per_byte.fs_per_byte() as f64
    }
}

fn round_ps(x: f64) -> Time {
    if x >= Time::MAX as f64 {
        Time::MAX
    } else {
        x.round().max(0.0) as Time
    }
}

impl Fabric {
    /// The fabric of `topology` for a run of `nodes` nodes and `ranks` ranks.
    pub fn new(topology: &Topology, nodes: u32, ranks: u32) -> Result<Fabric> {
        let net = Network::build(topology)?;
        let host_of = placement::place(topology, &net, nodes)?;
        let bf = topology.sharing.bandwidth_factor;
        let capacity = net.links.iter().map(|l| rate_of(l.per_byte) * bf).collect();
        let n = net.links.len();
        Ok(Fabric {
            on_link: vec![Vec::new(); n],
            stats: stats::Recorder::new(n),
            seen_link: vec![0; n],
            slot: vec![0; n],
            host_of,
            sharing: topology.sharing.clone(),
            capacity,
            net,
            flows: Vec::new(),
            free: Vec::new(),
            wait_of_rank: vec![0; ranks as usize],
            retimed: Vec::new(),
            by_class: false,
            held: Vec::new(),
            scratch_split: Vec::new(),
            solver: Solver::default(),
            seen_flow: Vec::new(),
            epoch: 0,
            group_flows: Vec::new(),
            group_links: Vec::new(),
            rates: Vec::new(),
            scratch_route: Vec::new(),
        })
    }

    /// The route's latency from node `src` to node `dst`, `round(Λ · latency_factor)`:
    /// all a message that is no flow takes on the way.
    pub fn latency(&mut self, (src, dst): (u32, u32)) -> Time {
        let mut links = std::mem::take(&mut self.scratch_route);
        links.clear();
        self.net.route(self.host_of[src as usize], self.host_of[dst as usize], &mut links);
        let latency: Time = links.iter().map(|&l| self.net.links[l as usize].latency).sum();
        self.scratch_route = links;
        round_ps(latency as f64 * self.sharing.latency_factor)
    }

    /// The `bytes` (k) of a message of `wire` bytes from node `src` to node `dst`
    /// (received by `rank`) leave their sender's CPU at `t1`, its NIC moving `nic` per
    /// byte. Returns the flow and when its bytes start to move (its route's latency
    /// paid); the engine calls [`Fabric::enter`] then.
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        &mut self,
        t1: Time,
        msg: u32,
        phase: u8,
        (src, dst): (u32, u32),
        rank: u32,
        (bytes, wire): (u64, u64),
        nic: PerByte,
    ) -> (u32, Time) {
        let (mut links, mut lost) = match self.free.last() {
            Some(&f) => {
                let f = &mut self.flows[f as usize];
                (std::mem::take(&mut f.links), std::mem::take(&mut f.lost))
            }
            None => (Vec::new(), Vec::new()),
        };
        links.clear();
        lost.clear();
        self.net.route(self.host_of[src as usize], self.host_of[dst as usize], &mut links);
        let s = &self.sharing;
        let latency: Time = links.iter().map(|&l| self.net.links[l as usize].latency).sum();
        let mut bound = rate_of(nic);
        if s.tcp_gamma > 0.0 && latency > 0 {
            bound = bound.min(s.tcp_gamma / (2.0 * latency as f64));
        }
        let weight = if s.rtt_weighted {
            let per_byte: f64 = links.iter().map(|&l| self.net.links[l as usize].per_byte.fs_per_byte() as f64).sum();
            let penalty = latency as f64 + s.weight_s * per_byte / 1000.0;
            if penalty > 0.0 {
                1.0 / penalty
            } else {
                1.0
            }
        } else {
            1.0
        };
        let start = t1.saturating_add(round_ps(latency as f64 * s.latency_factor));
        let alone = nic.checked_cost(bytes).unwrap_or(Time::MAX);
        let slowest = links.iter().map(|&l| self.capacity[l as usize]).fold(bound, f64::min);
        let slowest_class = match self.by_class {
            true => links
                .iter()
                .min_by(|&&a, &&b| self.capacity[a as usize].total_cmp(&self.capacity[b as usize]))
                .map_or(u16::MAX, |&l| self.net.links[l as usize].class),
            false => u16::MAX,
        };
        let slow_link = if slowest > 0.0 { round_ps(bytes as f64 / slowest).saturating_sub(alone) } else { Time::MAX };
        let flow = Flow {
            msg,
            phase,
            rank,
            links,
            left: bytes as f64,
            rate: 0.0,
            weight,
            bound,
            updated: start,
            end: Time::MAX,
            start,
            through: false,
            alone,
            slow_link,
            wire,
            route_rate: slowest,
            held: NO_LINK,
            slowest_class,
            lost,
            scheduled: Time::MAX,
            version: 0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                let version = self.flows[id as usize].version;
                self.flows[id as usize] = Flow { version, ..flow };
                id
            }
            None => {
                self.flows.push(flow);
                self.seen_flow.push(0);
                (self.flows.len() - 1) as u32
            }
        };
        (id, start)
    }

    /// Flow `id`'s latency is paid at `now`: its bytes join its links.
    pub fn enter(&mut self, now: Time, id: u32) {
        let f = &self.flows[id as usize];
        let bytes = f.wire;
        for &l in &f.links {
            self.on_link[l as usize].push(id);
            self.stats.joined(l, now, bytes, self.on_link[l as usize].len());
        }
        self.reshare(now, id);
    }

    /// The end event of flow `id` (scheduled with `version`) comes at `now`: its bytes
    /// are through, it leaves its links and the flows it shared them with speed up.
    /// `None` for an end that has since moved.
    pub fn finish(&mut self, now: Time, id: u32, version: u16) -> Option<Through> {
        let f = &mut self.flows[id as usize];
        if f.through || f.version != version {
            return None;
        }
        if f.end != now {
            // The end moved since this event was scheduled: the earliest one pending
            // schedules the end as it is now (a later one pending is left to lapse).
            if f.scheduled == now {
                f.scheduled = f.end;
                if f.end != Time::MAX {
                    self.retimed.push(Retimed { flow: id, version, end: f.end });
                }
            }
            return None;
        }
        if self.by_class {
            self.held_back(id as usize, now);
        }
        for &l in &self.flows[id as usize].links {
            let on = &mut self.on_link[l as usize];
            let pos = on.iter().position(|&x| x == id).expect("a flow is on each of its links");
            on.swap_remove(pos);
            self.stats.left(l, now, on.is_empty());
        }
        let f = &mut self.flows[id as usize];
        f.end = Time::MAX;
        f.through = true;
        let wait = now.saturating_sub(f.start).saturating_sub(f.alone);
        let slow_link = f.slow_link.min(wait);
        let mut split = WaitSplit::default();
        if self.by_class {
            split_by_class(&f.lost, wait - slow_link, f.slowest_class, &mut self.scratch_split);
            self.scratch_split.iter().for_each(|&part| split.push(part));
        }
        let through = Through { msg: f.msg, phase: f.phase, link_wait: wait, slow_link, split };
        self.wait_of_rank[f.rank as usize] = self.wait_of_rank[f.rank as usize].saturating_add(wait);
        // Off its links now: the flows it shared them with are reshared.
        self.reshare(now, id);
        // Its slot is free (its pending events stale).
        let f = &mut self.flows[id as usize];
        f.version = f.version.wrapping_add(1);
        self.free.push(id);
        Some(through)
    }

    /// New rates for every flow that shares a link, directly or through others, with
    /// flow `from`'s links; flows whose end moves go to [`Fabric::retimed`].
    fn reshare(&mut self, now: Time, from: u32) {
        self.epoch = self.epoch.wrapping_add(1);
        let epoch = self.epoch;
        self.group_flows.clear();
        self.group_links.clear();
        for &l in &self.flows[from as usize].links {
            if self.seen_link[l as usize] != epoch {
                self.seen_link[l as usize] = epoch;
                self.group_links.push(l);
            }
        }
        let mut i = 0;
        while i < self.group_links.len() {
            let l = self.group_links[i] as usize;
            for &f in &self.on_link[l] {
                if self.seen_flow[f as usize] != epoch {
                    self.seen_flow[f as usize] = epoch;
                    self.group_flows.push(f);
                    for &m in &self.flows[f as usize].links {
                        if self.seen_link[m as usize] != epoch {
                            self.seen_link[m as usize] = epoch;
                            self.group_links.push(m);
                        }
                    }
                }
            }
            i += 1;
        }
        if self.group_flows.is_empty() {
            return;
        }
        for i in 0..self.group_flows.len() {
            let f = self.group_flows[i];
            if self.by_class {
                self.held_back(f as usize, now);
            }
            let f = &mut self.flows[f as usize];
            f.left = (f.left - f.rate * now.saturating_sub(f.updated) as f64).max(0.0);
            f.updated = now;
        }
        let wants: Vec<Want> = self
            .group_flows
            .iter()
            .map(|&f| {
                let f = &self.flows[f as usize];
                Want { links: &f.links, weight: f.weight, bound: f.bound }
            })
            .collect();
        let held = self.by_class.then_some(&mut self.held);
        self.solver.solve(&wants, &self.group_links, &self.capacity, &mut self.slot, &mut self.rates, held);
        drop(wants);
        for (k, &id) in self.group_flows.iter().enumerate() {
            let f = &mut self.flows[id as usize];
            f.rate = self.rates[k];
            if self.by_class {
                f.held = self.held[k];
            }
            let end = if f.left <= 0.0 {
                now
            } else if f.rate > 0.0 {
                now.saturating_add(round_ps(f.left / f.rate))
            } else {
                Time::MAX
            };
            if end != f.end {
                f.end = end;
                if end < f.scheduled {
                    f.scheduled = end;
                    self.retimed.push(Retimed { flow: id, version: f.version, end });
                }
            }
        }
    }

    /// Flow `f`'s time from its last update to `now` beyond what its bytes moved then
    /// would take alone on its route, counted to the class of the link holding it back.
    fn held_back(&mut self, f: usize, now: Time) {
        let f = &mut self.flows[f];
        let dt = now.saturating_sub(f.updated) as f64;
        if dt <= 0.0 || !(f.rate < f.route_rate && f.route_rate.is_finite()) {
            return;
        }
        let lost = dt * (1.0 - f.rate / f.route_rate);
        let class = if f.held == NO_LINK { f.slowest_class } else { self.net.links[f.held as usize].class };
        match f.lost.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.1 += lost,
            None => f.lost.push((class, lost)),
        }
    }

    /// The names of the classes of links, by class.
    pub fn class_names(&self) -> &[String] {
        &self.net.classes
    }

    /// What the links carried, at the end of the run.
    pub fn report(&self, end: Time) -> LinkReport {
        self.stats.report(&self.net, end, self.wait_of_rank.clone())
    }
}

/// `total` ps shared among the classes in proportion to the time each `lost`, in whole
/// ps adding up to `total` (the class that lost most takes the rounding), by class;
/// all to `fallback` where none lost any (a wait of rounding alone).
fn split_by_class(lost: &[(u16, f64)], total: Time, fallback: u16, out: &mut Vec<(u16, Time)>) {
    out.clear();
    if total == 0 {
        return;
    }
    let sum: f64 = lost.iter().map(|c| c.1).sum();
    let first_most = |&a: &usize, &b: &usize| lost[a].1.total_cmp(&lost[b].1).then(b.cmp(&a));
    let Some(most) = (0..lost.len()).max_by(first_most).filter(|_| sum > 0.0) else {
        out.push((fallback, total));
        return;
    };
    out.extend(lost.iter().map(|&(c, x)| (c, ((total as f64) * (x / sum)).floor().min(total as f64) as Time)));
    let given: Time = out.iter().map(|c| c.1).sum();
    out[most].1 += total.saturating_sub(given);
    out.retain(|c| c.1 > 0);
    out.sort_unstable_by_key(|c| c.0);
}

#[cfg(test)]
mod tests {
    use super::{split_by_class, WaitSplit};

    fn split(lost: &[(u16, f64)], total: u64) -> Vec<(u16, u64)> {
        let mut out = Vec::new();
        split_by_class(lost, total, 9, &mut out);
        out
    }

    #[test]
    fn a_wait_splits_in_proportion_in_whole_ps() {
        // 1000 ps lost 1 : 3 between classes 2 and 0; 7 ps among three equal ones:
        // 2 each, the rounding's 1 ps to the first that lost most.
        assert_eq!(split(&[(2, 10.0), (0, 30.0)], 1000), vec![(0, 750), (2, 250)]);
        assert_eq!(split(&[(1, 1.0), (0, 1.0), (2, 1.0)], 7), vec![(0, 2), (1, 3), (2, 2)]);
        assert_eq!(split(&[], 5), vec![(9, 5)]);
        assert_eq!(split(&[(1, 3.0)], 0), vec![]);
    }

    #[test]
    fn a_split_keeps_every_class_past_its_inline_ones() {
        let mut s = WaitSplit::default();
        (0..6).for_each(|c| s.push((c, 10 * c as u64 + 1)));
        assert_eq!(s.parts().collect::<Vec<_>>(), (0..6).map(|c| (c, 10 * c as u64 + 1)).collect::<Vec<_>>());
    }
}
