//! What each link of a topology carried in a run: bytes, time busy (at least one
//! flow on it), the most flows at once; summed per class of links, and the busiest
//! links named.

use super::network::Network;
use crate::time::Time;
use serde::Serialize;

/// The busiest links a report names.
const BUSIEST: usize = 10;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkClassStats {
    pub class: String,
    /// Links of the class that carried at least one flow, and all of them.
    pub links_used: u64,
    pub links: u64,
    pub flows: u64,
    pub bytes: u64,
    /// Busy time summed over the class's links.
    pub busy_ps: Time,
    /// The busiest link of the class: its busy time over the run's end time.
    pub max_utilization: f64,
    pub peak_flows: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkStats {
    pub link: u32,
    pub class: String,
    pub flows: u64,
    pub bytes: u64,
    pub busy_ps: Time,
    /// busy_ps over the run's end time.
    pub utilization: f64,
    pub peak_flows: u64,
}

/// A run's link statistics (`links` in results).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkReport {
    pub classes: Vec<LinkClassStats>,
    /// The links busy longest, busiest first.
    pub busiest: Vec<LinkStats>,
    /// Per rank, the time the messages it received spent slowed by other flows on
    /// shared links (beyond their time alone), ps.
    pub link_wait_ps: Vec<Time>,
}

#[derive(Clone, Copy, Default)]
struct Counters {
    flows: u64,
    bytes: u64,
    busy: Time,
    since: Time,
    peak: u64,
}

pub(super) struct Recorder {
    links: Vec<Counters>,
}

impl Recorder {
    pub(super) fn new(links: usize) -> Recorder {
        Recorder { links: vec![Counters::default(); links] }
    }

    /// A flow of `bytes` joined link `l` at `now`; `on` flows are on it now.
    #[inline]
    pub(super) fn joined(&mut self, l: u32, now: Time, bytes: u64, on: usize) {
        let c = &mut self.links[l as usize];
        if on == 1 {
            c.since = now;
        }
        c.flows += 1;
        c.bytes = c.bytes.saturating_add(bytes);
        c.peak = c.peak.max(on as u64);
    }

    /// A flow left link `l` at `now`; `idle` if none is left on it.
    #[inline]
    pub(super) fn left(&mut self, l: u32, now: Time, idle: bool) {
        if idle {
            let c = &mut self.links[l as usize];
            c.busy = c.busy.saturating_add(now - c.since);
        }
    }

    pub(super) fn report(&self, net: &Network, end: Time, link_wait_ps: Vec<Time>) -> LinkReport {
        let share = |busy: Time| if end == 0 { 0.0 } else { busy as f64 / end as f64 };
        let mut classes: Vec<LinkClassStats> = net
            .classes
            .iter()
            .map(|c| LinkClassStats {
                class: c.clone(),
                links_used: 0,
                links: 0,
                flows: 0,
                bytes: 0,
                busy_ps: 0,
                max_utilization: 0.0,
                peak_flows: 0,
            })
            .collect();
        for (link, c) in net.links.iter().zip(&self.links) {
            let k = &mut classes[link.class as usize];
            k.links += 1;
            k.links_used += u64::from(c.flows > 0);
            k.flows += c.flows;
            k.bytes = k.bytes.saturating_add(c.bytes);
            k.busy_ps = k.busy_ps.saturating_add(c.busy);
            k.max_utilization = k.max_utilization.max(share(c.busy));
            k.peak_flows = k.peak_flows.max(c.peak);
        }
        let mut order: Vec<usize> = (0..self.links.len()).filter(|&l| self.links[l].flows > 0).collect();
        order.sort_by_key(|&l| (std::cmp::Reverse(self.links[l].busy), l));
        let busiest = order
            .into_iter()
            .take(BUSIEST)
            .map(|l| {
                let c = &self.links[l];
                LinkStats {
                    link: l as u32,
                    class: net.classes[net.links[l].class as usize].clone(),
                    flows: c.flows,
                    bytes: c.bytes,
                    busy_ps: c.busy,
                    utilization: share(c.busy),
                    peak_flows: c.peak,
                }
            })
            .collect();
        LinkReport { classes, busiest, link_wait_ps }
    }
}
