//! `bh`: Barnes–Hut n-body in the BSP style of Blackston and Suel (Plaat, Bal and
//! Hofman 1998). N bodies of mass 1/N at seeded random points of the unit cube,
//! ordered along a Morton curve and split into blocks, one per rank, so that a rank's
//! bodies are near each other. A time step: the ranks exchange the boxes their bodies
//! lie in, each builds an octree of its bodies (`bh_tree`), cuts from it the locally
//! essential tree every other box needs and sends it in one exchange phase, then
//! computes the forces on its bodies by walking a tree of its own bodies and the
//! pieces it received (the locally essential tree), with no stalls, and moves them.
//!
//! **Communication**, per step, with C clusters of k ranks (C = 1 on a flat machine):
//! - `original`: the Blackston–Suel exchange without combining. Every rank sends its
//!   box to every other rank, then its essential tree for that rank's box, one
//!   message per item (a cell or body: 32 B; the first also carries the count, and an
//!   empty piece is one message of the count): P·(P − 1) box messages and one per item.
//! - `original-messages`: direct exchange with each piece combined into one message:
//!   2·P·(P − 1) messages, of which 2·P·(P − k) cross the wide area.
//! - `optimized`: combining at the BSP and the cluster level, with the wide-area
//!   pieces overlapped with the forces. Inside a cluster as the original. Between
//!   clusters, the first rank of each cluster (its coordinator) sends the union of its
//!   cluster's boxes to every other coordinator, which forwards the C − 1 boxes it
//!   gets to its members in one message. Each rank cuts its tree once per other
//!   cluster, for that cluster's box, and sends the C − 1 pieces to its coordinator in
//!   one message; the coordinator sends each other cluster one message with its
//!   cluster's pieces, and the receiving coordinator forwards it to its members as it
//!   arrives, while they compute the forces of their own cluster's bodies. Messages:
//!   boxes C·k·(k − 1) + C·(C − 1) + C·(k − 1), trees C·k·(k − 1) + C·(k − 1) +
//!   C·(C − 1) + C·(C − 1)·(k − 1) (the terms with C − 1 or k − 1 vanish on a flat
//!   machine, where both variants send the same messages and compute the same
//!   forces). Over the wide area: 2·C·(C − 1).
//!
//! So at 4 × 8 a step crosses the wide area 2·32·24 = 1536 times in `original-messages` and
//! 2·4·3 = 24 in the optimized, a factor of k² = 64; the bytes fall less, since a
//! cluster's piece serves eight boxes at once.
//!
//! **Check**, at the first step: every body's forces account for the whole mass
//! exactly once (own tree walk plus the pieces received), and for a sample of each
//! rank's bodies the acceleration is within 5 % of the direct sum over all N bodies
//! (a second method; with θ = 0.5 the largest error seen at tiny and small is 2.7 %).

use super::bh_tree::{interact, BBox, Item, Steps, Tree, Vec3};
use super::wan::{block, Clusters, OP_PS};
use crate::app::{App, Backend, Job, Size, Variant};
use crate::data;
use netsens_core::program::{decode, encode, Communicator, Rank, Request, Tag};
use netsens_core::time::Time;
use netsens_core::Result;

pub const APP: App = App {
    name: "bh",
    description: "Barnes-Hut n-body (BSP, Blackston-Suel); one exchange of locally essential trees per step",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// One interaction: a distance, a reciprocal square root, three multiply-adds.
const INTERACTION_PS: Time = 20 * OP_PS;
/// One cell visited in a walk or a cut.
const VISIT_PS: Time = 10 * OP_PS;
const DT: f64 = 1e-3;
/// Bodies checked against the direct sum, per rank.
const SAMPLE: usize = 16;
/// Relative error of a checked acceleration.
const TOLERANCE: f64 = 0.05;
/// Bodies whose forces the optimized variant computes between looks at the wide area.
const CHUNK: usize = 16;

const TAG_BOX: Tag = 1;
const TAG_CLUSTER_BOX: Tag = 2;
const TAG_CLUSTER_BOXES: Tag = 3;
const TAG_TREE: Tag = 4;
const TAG_GATHER: Tag = 5;
const TAG_WAN: Tag = 6;
const TAG_FORWARD: Tag = 7;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub bodies: usize,
    pub steps: usize,
    pub seed: u64,
    pub variant: Variant,
}

impl Config {
    pub fn preset(size: Size, seed: u64, variant: Variant) -> Config {
        let bodies = match size {
            Size::Tiny => 256,
            Size::Small => 4096,
            Size::Paper => 65536,
        };
        Config { bodies, steps: 2, seed, variant }
    }
}

/// Interleave the top 21 bits of three unit coordinates.
fn morton(p: &Vec3) -> u64 {
    let q = p.map(|x| ((x.clamp(0.0, 1.0) * (1u64 << 21) as f64) as u64).min((1 << 21) - 1));
    (0..21).fold(0, |key, bit| (0..3).fold(key, |key, k| key | ((q[k] >> bit & 1) << (3 * bit + k))))
}

/// Every body's initial position, in Morton order (rank q owns `block(n, p, q)`).
pub fn initial(cfg: &Config) -> Vec<Vec3> {
    let v = data::unit_f64s_at(cfg.seed, 0, 0, 3 * cfg.bodies);
    let mut at: Vec<Vec3> = v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    // Each key computed once (63 bit steps): recomputed at every comparison, this sort
    // was most of a run's own time at `paper` (every rank sorts all N bodies).
    at.sort_by_cached_key(morton);
    at
}

fn items(cfg: &Config, at: &[Vec3]) -> Vec<Item> {
    at.iter().map(|&at| Item { mass: 1.0 / cfg.bodies as f64, at }).collect()
}

/// What one rank knows of the boxes: each rank's of its own cluster (the original:
/// of every rank), and each other cluster's (the optimized).
struct Boxes {
    ranks: Vec<Option<BBox>>,
    clusters: Vec<Option<BBox>>,
}

/// The forces on `at` from `tree`, added to `acc`; the mass they stand for, to `mass`.
fn forces(tree: &Tree, at: &[Vec3], acc: &mut [Vec3], mass: &mut [f64]) -> Steps {
    let mut steps = Steps::default();
    for ((p, a), m) in at.iter().zip(acc.iter_mut()).zip(mass.iter_mut()) {
        steps.add(tree.accel(p, a, m));
    }
    steps
}

/// A tree over `items` (bodies and pieces received), its building charged.
async fn grow<R: Rank>(r: &R, items: Vec<Item>) -> Tree {
    let n_log = (items.len() as f64).log2().max(1.0) as Time;
    r.work(VISIT_PS * n_log * items.len() as Time, || Tree::build(items)).await
}

fn cost(steps: Steps) -> Time {
    INTERACTION_PS * steps.interactions as Time + VISIT_PS * steps.visits as Time
}

/// Exchange boxes: every rank learns what [`Boxes`] says it needs.
async fn exchange_boxes<R: Rank>(r: &R, w: &Communicator, cl: &Clusters, variant: Variant, mine: BBox) -> Boxes {
    let (me, p) = (r.rank(), r.size());
    let home = cl.of_rank(me);
    let direct: Vec<u32> = match variant {
        Variant::Original | Variant::OriginalMessages => (0..p).filter(|&q| q != me).collect(),
        Variant::Optimized => cl.members(home).filter(|&q| q != me).collect(),
    };
    let sends: Vec<Request> = direct.iter().map(|&q| r.isend(w, q, TAG_BOX, encode(&mine.flat()))).collect();
    let recvs: Vec<Request> = direct.iter().map(|&q| r.irecv(w, q as i32, TAG_BOX)).collect();
    let mut boxes = Boxes { ranks: vec![None; p as usize], clusters: vec![None; cl.count() as usize] };
    boxes.ranks[me as usize] = Some(mine);
    for (&q, m) in direct.iter().zip(r.wait_all(recvs).await) {
        boxes.ranks[q as usize] = Some(BBox::unflat(&decode::<f64>(&m.data)));
    }
    r.wait_all(sends).await;
    if variant != Variant::Optimized || cl.count() == 1 {
        return boxes;
    }
    let head = cl.coordinator(home);
    let others: Vec<u32> = (0..cl.count()).filter(|&c| c != home).collect();
    let flat: Vec<f64> = if me == head {
        let union = cl.members(home).fold(mine, |b, q| b.union(&boxes.ranks[q as usize].expect("a member's box")));
        let sends: Vec<Request> =
            others.iter().map(|&c| r.isend(w, cl.coordinator(c), TAG_CLUSTER_BOX, encode(&union.flat()))).collect();
        let recvs = others.iter().map(|&c| r.irecv(w, cl.coordinator(c) as i32, TAG_CLUSTER_BOX)).collect();
        let flat: Vec<f64> = r.wait_all(recvs).await.iter().flat_map(|m| decode::<f64>(&m.data)).collect();
        let fwd: Vec<Request> =
            cl.members(home).filter(|&q| q != me).map(|q| r.isend(w, q, TAG_CLUSTER_BOXES, encode(&flat))).collect();
        r.wait_all(sends.into_iter().chain(fwd).collect()).await;
        flat
    } else {
        decode(&r.recv(w, head as i32, TAG_CLUSTER_BOXES).await.data)
    };
    for (&c, b) in others.iter().zip(flat.chunks(6)) {
        boxes.clusters[c as usize] = Some(BBox::unflat(b));
    }
    boxes
}

/// The program.
pub async fn bh<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, w) = (r.rank(), r.size(), r.world());
    let cl = Clusters::of(&r);
    let home = cl.of_rank(me);
    let all = initial(&cfg);
    let mine = block(cfg.bodies, p, me);
    let mut at: Vec<Vec3> = all[mine.clone()].to_vec();
    let mut vel = vec![[0.0; 3]; at.len()];
    let optimized = cfg.variant == Variant::Optimized && cl.count() > 1;
    let locals: Vec<u32> =
        if optimized { cl.members(home).filter(|&q| q != me).collect() } else { (0..p).filter(|&q| q != me).collect() };
    let head = cl.coordinator(home);
    let others: Vec<u32> = if optimized { (0..cl.count()).filter(|&c| c != home).collect() } else { Vec::new() };
    for step in 0..cfg.steps {
        r.phase("boxes");
        let boxes = exchange_boxes(&r, &w, &cl, cfg.variant, BBox::of(at.iter().copied())).await;
        r.phase("trees");
        let tree = grow(&r, items(&cfg, &at)).await;
        let cut = |b: &Option<BBox>| tree.essential(&b.expect("a box"));
        let (local_pieces, steps): (Vec<Vec<Item>>, Vec<Steps>) =
            locals.iter().map(|&q| cut(&boxes.ranks[q as usize])).unzip();
        let (far_pieces, far_steps): (Vec<Vec<Item>>, Vec<Steps>) =
            others.iter().map(|&c| cut(&boxes.clusters[c as usize])).unzip();
        let visits: u64 = steps.iter().chain(&far_steps).map(|s| s.visits).sum();
        r.compute(VISIT_PS * visits as Time).await;
        r.phase("exchange");
        let uncombined = cfg.variant == Variant::Original && p > 1;
        let mut sends: Vec<Request> = if uncombined {
            // A message per item; the first also carries the count.
            let mut sends = Vec::new();
            for (&q, items) in locals.iter().zip(&local_pieces) {
                sends.push(r.isend(&w, q, TAG_TREE, encode(&first_item(items))));
                sends.extend(items.iter().skip(1).map(|i| r.isend(&w, q, TAG_TREE, encode(&Item::flat(&[*i])))));
            }
            sends
        } else {
            locals
                .iter()
                .zip(&local_pieces)
                .map(|(&q, items)| r.isend(&w, q, TAG_TREE, encode(&Item::flat(items))))
                .collect()
        };
        let local_recvs: Vec<Request> =
            if uncombined { Vec::new() } else { locals.iter().map(|&q| r.irecv(&w, q as i32, TAG_TREE)).collect() };
        // The wide-area pieces: the coordinator gathers its members' (each a count and
        // the items, per other cluster), sends each cluster its share, and receives.
        let mut far_recvs: Vec<Request> = Vec::new();
        if optimized && me != head {
            let mut combined = Vec::new();
            for items in &far_pieces {
                combined.push(items.len() as f64);
                combined.extend(Item::flat(items));
            }
            sends.push(r.isend(&w, head, TAG_GATHER, encode(&combined)));
            far_recvs = others.iter().map(|_| r.irecv(&w, head as i32, TAG_FORWARD)).collect();
        } else if optimized {
            far_recvs = others.iter().map(|&c| r.irecv(&w, cl.coordinator(c) as i32, TAG_WAN)).collect();
            let members: Vec<u32> = cl.members(home).filter(|&q| q != me).collect();
            let gathers = members.iter().map(|&q| r.irecv(&w, q as i32, TAG_GATHER)).collect();
            let mut to_cluster: Vec<Vec<f64>> = far_pieces.iter().map(|items| Item::flat(items)).collect();
            for m in r.wait_all(gathers).await {
                let v = decode::<f64>(&m.data);
                let mut at_ = 0;
                for out in to_cluster.iter_mut() {
                    let n = v[at_] as usize;
                    out.extend_from_slice(&v[at_ + 1..at_ + 1 + 4 * n]);
                    at_ += 1 + 4 * n;
                }
            }
            for (&c, flat) in others.iter().zip(to_cluster) {
                sends.push(r.isend(&w, cl.coordinator(c), TAG_WAN, encode(&flat)));
            }
        }
        let mut acc = vec![[0.0; 3]; at.len()];
        let mut mass = vec![0.0; at.len()];
        let mut near = tree.bodies().to_vec();
        for m in r.wait_all(local_recvs).await {
            near.extend(Item::unflat(&decode::<f64>(&m.data)));
        }
        if uncombined {
            let firsts: Vec<Request> = locals.iter().map(|&q| r.irecv(&w, q as i32, TAG_TREE)).collect();
            let mut rest = Vec::new();
            for (&q, m) in locals.iter().zip(r.wait_all(firsts).await) {
                let v = decode::<f64>(&m.data);
                near.extend(Item::unflat(&v[1..]));
                rest.extend((1..v[0] as usize).map(|_| r.irecv(&w, q as i32, TAG_TREE)));
            }
            for m in r.wait_all(rest).await {
                near.extend(Item::unflat(&decode::<f64>(&m.data)));
            }
        }
        r.phase("forces");
        // The locally essential tree: own bodies and the pieces of the own cluster
        // (the original: of every rank); the other clusters' pieces in a tree of
        // their own, as they arrive later.
        let near = grow(&r, near).await;
        // Forces of the own cluster first, in chunks; between chunks a coordinator
        // forwards every wide-area piece that has arrived to its members.
        let members: Vec<u32> =
            if optimized && me == head { cl.members(home).filter(|&q| q != me).collect() } else { Vec::new() };
        let forward = |data: &[u8], sends: &mut Vec<Request>| {
            sends.extend(members.iter().map(|&q| r.isend(&w, q, TAG_FORWARD, data.to_vec())));
        };
        let mut far_recvs: Vec<Option<Request>> = far_recvs.into_iter().map(Some).collect();
        let mut far_data: Vec<Vec<u8>> = Vec::new();
        let mut start = 0;
        while start < at.len() {
            let end = (start + CHUNK).min(at.len());
            let s = forces(&near, &at[start..end], &mut acc[start..end], &mut mass[start..end]);
            r.compute(cost(s)).await;
            start = end;
            for slot in far_recvs.iter_mut().filter(|_| !members.is_empty()) {
                if let Some(req) = slot.take_if(|req| r.test(req)) {
                    let data = r.wait(req).await.data;
                    forward(&data, &mut sends);
                    far_data.push(data);
                }
            }
        }
        for req in far_recvs.into_iter().flatten() {
            let data = r.wait(req).await.data;
            forward(&data, &mut sends);
            far_data.push(data);
        }
        if !far_data.is_empty() {
            let far = grow(&r, far_data.iter().flat_map(|d| Item::unflat(&decode::<f64>(d))).collect()).await;
            let s = forces(&far, &at, &mut acc, &mut mass);
            r.compute(cost(s)).await;
        }
        if step == 0 {
            r.phase("check");
            check(&cfg, &all, mine.start, &at, &acc, &mass)?;
        }
        r.phase("move");
        r.work(OP_PS * 12 * at.len() as Time, || {
            for ((x, v), a) in at.iter_mut().zip(vel.iter_mut()).zip(&acc) {
                (0..3).for_each(|k| {
                    v[k] += DT * a[k];
                    x[k] += DT * v[k];
                });
            }
        })
        .await;
        r.wait_all(sends).await;
    }
    Ok(())
}

/// The first message of an uncombined piece: its item count, then its first item.
fn first_item(items: &[Item]) -> Vec<f64> {
    let mut v = vec![items.len() as f64];
    v.extend(Item::flat(&items[..items.len().min(1)]));
    v
}

/// The first step's forces: the whole mass seen once by every body, and a sample
/// within [`TOLERANCE`] of the direct sum over `all`.
fn check(
    cfg: &Config,
    all: &[Vec3],
    first: usize,
    at: &[Vec3],
    acc: &[Vec3],
    mass: &[f64],
) -> std::result::Result<(), String> {
    for (i, m) in mass.iter().enumerate() {
        if (m - 1.0).abs() > 1e-9 {
            return Err(format!("body {}: its forces stand for mass {m}, not 1", first + i));
        }
    }
    let all = items(cfg, all);
    for i in (0..at.len()).step_by(at.len().div_ceil(SAMPLE).max(1)) {
        let mut direct = [0.0; 3];
        all.iter().for_each(|b| interact(&at[i], b, &mut direct));
        let err: f64 = (0..3).map(|k| (acc[i][k] - direct[k]).powi(2)).sum::<f64>().sqrt();
        let norm: f64 = direct.iter().map(|x| x * x).sum::<f64>().sqrt();
        if err > TOLERANCE * norm {
            return Err(format!("body {}: acceleration {:?}, the direct sum gives {direct:?}", first + i, acc[i]));
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed, job.variant);
    backend.run(job.platform, move |r| bh(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_interleaves_x_first() {
        // The top bit of each coordinate: x → bit 60, y → 61, z → 62.
        assert_eq!(morton(&[0.75, 0.0, 0.0]), 1 << 60 | 1 << 57);
        assert_eq!(morton(&[0.0, 0.5, 0.0]), 1 << 61);
        assert_eq!(morton(&[0.0, 0.0, 0.5]), 1 << 62);
    }
}
