//! Which host each node of a run sits on (`[topology] placement`).

use super::network::Network;
use crate::error::Result;
use crate::platform::topology::{Placement, Topology};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The host of each of `nodes` nodes, or the error naming `topology.placement`.
pub fn place(t: &Topology, net: &Network, nodes: u32) -> Result<Vec<u32>> {
    if nodes > net.hosts {
        return Err(t.error(
            "kind",
            format!("the topology has {} hosts but the run needs {nodes} (one per node of ranks)", net.hosts),
        ));
    }
    let n = nodes as usize;
    Ok(match &t.placement {
        Placement::Linear => (0..nodes).collect(),
        Placement::RoundRobin => {
            // Hosts grouped by first-hop switch, in switch order; deal one per group in turn.
            let mut groups: Vec<Vec<u32>> = Vec::new();
            let mut order: Vec<u32> = (0..net.hosts).collect();
            order.sort_by_key(|&h| (net.attach[h as usize], h));
            for h in order {
                match groups.last_mut() {
                    Some(g) if net.attach[g[0] as usize] == net.attach[h as usize] => g.push(h),
                    _ => groups.push(vec![h]),
                }
            }
            let deepest = groups.iter().map(Vec::len).max().unwrap_or(0);
            (0..deepest).flat_map(|i| groups.iter().filter_map(move |g| g.get(i).copied())).take(n).collect()
        }
        Placement::Random(seed) => {
            let mut hosts: Vec<u32> = (0..net.hosts).collect();
            hosts.shuffle(&mut ChaCha8Rng::seed_from_u64(*seed));
            hosts.truncate(n);
            hosts
        }
        Placement::List(list) => {
            if list.len() < n {
                return Err(t.error("placement", format!("{} hosts listed for {nodes} nodes", list.len())));
            }
            let mut used = vec![false; net.hosts as usize];
            for (i, &h) in list.iter().take(n).enumerate() {
                if h >= net.hosts {
                    return Err(t.error(
                        &format!("placement[{i}]"),
                        format!("host {h} does not exist (the topology has hosts 0..{})", net.hosts - 1),
                    ));
                }
                if std::mem::replace(&mut used[h as usize], true) {
                    return Err(t.error(&format!("placement[{i}]"), format!("host {h} is listed twice")));
                }
            }
            list[..n].to_vec()
        }
    })
}
