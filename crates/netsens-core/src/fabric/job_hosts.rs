//! Which hosts each job of a multi-job run holds: a job names its hosts, or takes the
//! next free ones in the order of the topology's `placement` (so a placement policy
//! deals the machine to the jobs in turn). Jobs never share a host.

use super::network::Network;
use super::placement;
use crate::error::Result;
use crate::input_err;
use crate::platform::topology::{Placement, Topology};

/// Where one job runs.
#[derive(Clone, Debug, PartialEq)]
pub enum JobHosts {
    /// The next hosts, in placement order, that no other job holds.
    Next,
    /// These hosts, node i of the job on the i-th.
    List(Vec<u32>),
}

/// Every host of `net` in the order `t`'s placement fills them.
fn order(t: &Topology, net: &Network) -> Result<Vec<u32>> {
    let mut first = match &t.placement {
        Placement::List(list) => placement::place(t, net, list.len().min(net.hosts as usize) as u32)?,
        _ => placement::place(t, net, net.hosts)?,
    };
    let mut listed = vec![false; net.hosts as usize];
    for &h in &first {
        listed[h as usize] = true;
    }
    first.extend((0..net.hosts).filter(|&h| !listed[h as usize]));
    Ok(first)
}

/// The hosts of each job (`nodes[j]` nodes, placed by `asked[j]`); jobs are numbered
/// from 1 in errors. Listed hosts are taken first, then the others fill in order.
pub fn job_hosts(t: &Topology, nodes: &[u32], asked: &[JobHosts]) -> Result<Vec<Vec<u32>>> {
    let net = Network::build(t)?;
    let mut owner: Vec<Option<usize>> = vec![None; net.hosts as usize];
    let mut hosts: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    for (j, (&n, how)) in nodes.iter().zip(asked).enumerate() {
        let JobHosts::List(list) = how else { continue };
        if list.len() < n as usize {
            return Err(input_err!("job {}: its {n} nodes need {n} hosts; {} listed", j + 1, list.len()));
        }
        for &h in list.iter().take(n as usize) {
            if h >= net.hosts {
                return Err(input_err!(
                    "job {}: host {h} does not exist (the topology has hosts 0..{})",
                    j + 1,
                    net.hosts - 1
                ));
            }
            match owner[h as usize] {
                Some(k) if k == j => return Err(input_err!("job {}: host {h} is listed twice", j + 1)),
                Some(k) => {
                    return Err(input_err!("job {}: host {h} is also job {}'s; jobs cannot share a host", j + 1, k + 1))
                }
                None => owner[h as usize] = Some(j),
            }
            hosts[j].push(h);
        }
    }
    let mut free = order(t, &net)?.into_iter().filter(|&h| owner[h as usize].is_none());
    for (j, (&n, how)) in nodes.iter().zip(asked).enumerate() {
        if *how != JobHosts::Next {
            continue;
        }
        hosts[j].extend(free.by_ref().take(n as usize));
        if hosts[j].len() < n as usize {
            let total: u32 = nodes.iter().sum();
            return Err(input_err!(
                "job {}: no free host left for its {n} nodes (the jobs need {total} hosts; the topology has {})",
                j + 1,
                net.hosts
            ));
        }
    }
    Ok(hosts)
}
