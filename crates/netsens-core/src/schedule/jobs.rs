//! Several jobs on one machine at once (multi-tenant runs): their schedules side by
//! side as one, job j's ranks numbered after those of the jobs before it. The jobs
//! never exchange messages; on a platform with a `[topology]` they share its links,
//! and each job's ranks (and so their hosts, through `placement`) are a block of the run.

use super::{OpKind, Schedule, ScheduleBuilder, ANY};
use crate::error::{Error, Result};
use crate::fabric::job_hosts::{job_hosts, JobHosts};
use crate::platform::topology::Placement;
use crate::platform::Platform;

/// One schedule running `jobs` side by side; also returns the first rank of each job.
pub fn side_by_side(jobs: &[&Schedule]) -> Result<(Schedule, Vec<u32>)> {
    let mut first = Vec::with_capacity(jobs.len());
    let mut ranks = 0u32;
    for s in jobs {
        first.push(ranks);
        ranks = ranks
            .checked_add(s.num_ranks)
            .ok_or_else(|| Error::Input("the jobs together have more than 2^32 − 1 ranks".into()))?;
    }
    let mut b = ScheduleBuilder::new(ranks);
    let ops: usize = jobs.iter().map(|s| s.num_ops()).sum();
    let edges: usize = jobs.iter().map(|s| s.num_edges()).sum();
    b.reserve(ops, edges);
    for (s, &shift) in jobs.iter().zip(&first) {
        let base = b.num_ops() as u32;
        for id in 0..s.num_ops() as u32 {
            let mut d = s.op(id);
            d.rank += shift;
            // Calc's peer is unused; a receive from any source stays so.
            if d.kind != OpKind::Calc && d.peer != ANY {
                d.peer += shift as i32;
            }
            b.push(d);
        }
        for id in 0..s.num_ops() as u32 {
            for (to, start) in s.dependents(id) {
                if start {
                    b.irequires(base + to, base + id);
                } else {
                    b.requires(base + to, base + id);
                }
            }
        }
        b.seal();
    }
    Ok((b.build()?, first))
}

/// `platform` with its `[topology]` placing each of the jobs (of `ranks[j]` ranks, side
/// by side) on its own hosts, and those hosts per job, one per node. A job is a whole
/// number of nodes: two jobs never share a node (nor its CPU and memory).
pub fn place_jobs(platform: &Platform, ranks: &[u32], asked: &[JobHosts]) -> Result<(Platform, Vec<Vec<u32>>)> {
    let Some(t) = &platform.topology else {
        return Err(Error::Input(format!(
            "jobs: platform \"{}\" has no [topology]; jobs share a network only on a topology",
            platform.name
        )));
    };
    let rpn = platform.shape.ranks_per_node.max(1);
    let mut nodes = Vec::with_capacity(ranks.len());
    for (j, &r) in ranks.iter().enumerate() {
        if r % rpn != 0 {
            return Err(Error::Input(format!(
                "job {}: {r} ranks are not whole nodes of {rpn} ranks (ranks_per_node); jobs cannot share a node",
                j + 1
            )));
        }
        nodes.push(r / rpn);
    }
    let hosts = job_hosts(t, &nodes, asked)?;
    let mut placed = platform.clone();
    let mut topology = t.clone();
    topology.placement = Placement::List(hosts.concat());
    placed.topology = Some(topology);
    Ok((placed, hosts))
}
