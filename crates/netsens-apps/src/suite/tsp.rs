//! `tsp`: the travelling salesperson problem by branch and bound (Plaat, Bal and
//! Hofman 1998). Cities at seeded random points of a 1000 × 1000 square, integer
//! Euclidean distances; tours start at city 0. A job is a partial tour of `prefix`
//! cities; a worker searches every completion depth first, pruning a partial tour once
//! its length plus a lower bound for the rest (the shortest edge once per city still to
//! visit, and once more to return) reaches the cutoff. The cutoff is fixed (the
//! nearest-neighbour tour's length plus one), as in the seed, so the search, the nodes
//! it visits and the best tour do not depend on which worker runs which job.
//!
//! **Communication**: workers ask a job queue for a job (4 B) and get one (the
//! prefix, 4 B a city) or an empty reply that ends their work.
//! - `original`: one central queue on rank 0, which serves and does not search; the
//!   other P − 1 ranks work. A run sends 2·(J + P − 1) queue messages for J jobs: each
//!   worker asks once per job it gets and once more.
//! - `optimized`: a queue on every cluster's first rank, serving the other ranks of
//!   its cluster, seeded with a block of the jobs. A queue that runs dry steals half of
//!   another cluster's queue (one request, one reply), trying each other cluster at
//!   most once, in order; when it has tried them all it is finished and tells every
//!   other queue so (one message each, so a queue knows when no more thefts can come).
//!   A cluster of one rank has no workers, so its queue starts empty and finished.
//!   Over the wide area there are only thefts and the finish notices: at most
//!   3·C·(C − 1) messages, 36 at 4 × 8, against the original's 2·(J_w + 24) for the
//!   J_w jobs the 24 ranks outside cluster 0 take.
//!
//! Finally the workers' best tours (min) and node counts (sum) are reduced to rank 0,
//! which **checks** them against a serial search of every job: each job taken once.
//!
//! A job's search does not depend on timing (the cutoff is fixed), so its result is
//! kept per thread for the map (`searched`): the check, and every later run of the same
//! map (a sweep's other points: the `paper` search visits 4.74·10⁹ nodes), reuse it.

use super::wan::{block, Clusters};
use crate::app::{App, Backend, Job, Size, Variant};
use crate::data;
use netsens_core::program::collectives::reduce;
use netsens_core::program::{decode, encode, Op, Rank, Tag, ANY_SOURCE, ANY_TAG};
use netsens_core::time::{Time, PS};
use netsens_core::Result;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

pub const APP: App = App {
    name: "tsp",
    description: "travelling salesperson by branch and bound with a fixed cutoff; workers fetch jobs from a queue",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// One search node: extend a tour, bound it, test it. From the seed's Table 1 (one
/// cluster of 32: 5.9 s at a speedup of 31.1, so 183.5 s serial): the `paper` search
/// visits 4.74·10⁹ nodes, 38.7 ns each in Orca on DAS's 200 MHz Pentium Pro.
const NODE_PS: Time = 38_700 * PS;

const TAG_ASK: Tag = 1;
const TAG_JOB: Tag = 2;
const TAG_STEAL: Tag = 3;
const TAG_STOLEN: Tag = 4;
const TAG_FINISHED: Tag = 5;

#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub cities: usize,
    /// Cities in a job's partial tour, city 0 included.
    pub prefix: usize,
    pub seed: u64,
    pub variant: Variant,
}

impl Config {
    pub fn preset(size: Size, seed: u64, variant: Variant) -> Config {
        let (cities, prefix) = match size {
            Size::Tiny => (9, 3),
            Size::Small => (11, 4),
            Size::Paper => (16, 6),
        };
        Config { cities, prefix, seed, variant }
    }
}

/// Distances between every pair of cities.
pub struct Map {
    dist: Vec<Vec<u32>>,
    min_edge: u32,
    cutoff: u32,
}

impl Map {
    pub fn new(cfg: &Config) -> Map {
        let mut rng = data::stream(cfg.seed, 0);
        let at: Vec<(f64, f64)> =
            (0..cfg.cities).map(|_| (1000.0 * data::unit_f64(&mut rng), 1000.0 * data::unit_f64(&mut rng))).collect();
        let dist: Vec<Vec<u32>> =
            at.iter().map(|a| at.iter().map(|b| (a.0 - b.0).hypot(a.1 - b.1).round() as u32).collect()).collect();
        let min_edge = (0..cfg.cities)
            .flat_map(|i| (0..cfg.cities).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| dist[i][j])
            .min()
            .unwrap_or(0);
        // The nearest-neighbour tour from city 0.
        let (mut tour_len, mut at_city, mut seen) = (0, 0, vec![false; cfg.cities]);
        seen[0] = true;
        for _ in 1..cfg.cities {
            let next = (0..cfg.cities).filter(|&c| !seen[c]).min_by_key(|&c| dist[at_city][c]).unwrap();
            tour_len += dist[at_city][next];
            seen[next] = true;
            at_city = next;
        }
        tour_len += dist[at_city][0];
        Map { dist, min_edge, cutoff: tour_len + 1 }
    }

    /// (best tour length, nodes visited) over the completions of `prefix`.
    pub fn search(&self, prefix: &[u32]) -> (u32, u64) {
        let n = self.dist.len();
        assert!(n <= 64, "{n} cities: a tour's visited set is a 64-bit mask");
        let seen = prefix.iter().fold(0u64, |m, &c| m | 1 << c);
        let len: u32 = prefix.windows(2).map(|w| self.dist[w[0] as usize][w[1] as usize]).sum();
        let (mut best, mut nodes) = (u32::MAX, 0);
        let unvisited = !seen & (u64::MAX >> (64 - n)) & !1;
        self.dfs(*prefix.last().unwrap() as usize, len, unvisited, &mut best, &mut nodes);
        (best, nodes)
    }

    /// The search below `at` with `unvisited` (a mask of cities, never city 0) left
    /// to visit. The cutoff is fixed, so the nodes visited do not depend on the order;
    /// the cities are taken in increasing order all the same.
    fn dfs(&self, at: usize, len: u32, unvisited: u64, best: &mut u32, nodes: &mut u64) {
        *nodes += 1;
        let left = unvisited.count_ones();
        if len + (left + 1) * self.min_edge >= self.cutoff {
            return;
        }
        let row = &self.dist[at];
        if left == 0 {
            *best = (*best).min(len + row[0]);
            return;
        }
        let mut rest = unvisited;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.dfs(c, len + row[c], unvisited & !(1 << c), best, nodes);
        }
    }
}

/// The searches done on this thread, for the map of (cities, prefix, seed).
struct Searches {
    map: (usize, usize, u64),
    /// (best, nodes) by job, the job's cities packed 5 bits each.
    done: HashMap<u64, (u32, u64)>,
}

thread_local! {
    static SEARCHES: RefCell<Option<Searches>> = const { RefCell::new(None) };
}

/// `map.search(job)`, done once per job and map on this thread.
fn searched(cfg: &Config, map: &Map, job: &[u32]) -> (u32, u64) {
    debug_assert!(cfg.cities <= 32 && job.len() <= 12, "a job packs into 64 bits");
    let key = (cfg.cities, cfg.prefix, cfg.seed);
    let code = job.iter().fold(0u64, |k, &c| (k << 5) | u64::from(c));
    SEARCHES.with(|cell| {
        let mut cell = cell.borrow_mut();
        if cell.as_ref().is_none_or(|s| s.map != key) {
            *cell = Some(Searches { map: key, done: HashMap::new() });
        }
        let done = &mut cell.as_mut().expect("set above").done;
        *done.entry(code).or_insert_with(|| map.search(job))
    })
}

/// Every job: the partial tours of `prefix` distinct cities starting at city 0.
pub fn jobs(cfg: &Config) -> Vec<Vec<u32>> {
    let mut out = vec![vec![0u32]];
    for _ in 1..cfg.prefix {
        out = out
            .into_iter()
            .flat_map(|t| {
                let next: Vec<u32> = (1..cfg.cities as u32).filter(|c| !t.contains(c)).collect();
                next.into_iter().map(move |c| [t.clone(), vec![c]].concat())
            })
            .collect();
    }
    out
}

/// A queue: serves `workers` from `queue`, steals from `peers` (other queues) in
/// order when dry, and returns once its workers are sent home and every peer is
/// finished.
async fn serve<R: Rank>(r: &R, prefix: usize, workers: usize, peers: &[u32], mut queue: VecDeque<Vec<u32>>) {
    let w = r.world();
    let (mut idle, mut sends) = (Vec::new(), Vec::new());
    let (mut next_peer, mut stealing, mut finished) = (0, false, workers == 0);
    let (mut sent_home, mut peers_finished) = (0, 0);
    if finished {
        queue.clear();
        sends.extend(peers.iter().map(|&q| r.isend(&w, q, TAG_FINISHED, Vec::new())));
    }
    while sent_home < workers || peers_finished < peers.len() {
        let m = r.recv(&w, ANY_SOURCE, ANY_TAG).await;
        match m.tag {
            TAG_ASK => idle.push(m.source),
            TAG_STEAL => {
                let take = queue.len().div_ceil(2);
                let stolen: Vec<u32> = queue.drain(queue.len() - take..).flatten().collect();
                sends.push(r.isend(&w, m.source, TAG_STOLEN, encode(&stolen)));
            }
            TAG_STOLEN => {
                stealing = false;
                let got: Vec<u32> = decode(&m.data);
                queue.extend(got.chunks(prefix).map(|c| c.to_vec()));
                if got.is_empty() {
                    next_peer += 1;
                }
            }
            TAG_FINISHED => peers_finished += 1,
            t => unreachable!("queue got tag {t}"),
        }
        while !idle.is_empty() && (!queue.is_empty() || finished) {
            let job = queue.pop_front().unwrap_or_default();
            sent_home += usize::from(job.is_empty());
            sends.push(r.isend(&w, idle.pop().unwrap(), TAG_JOB, encode(&job)));
        }
        if queue.is_empty() && !stealing && !finished {
            if next_peer < peers.len() {
                stealing = true;
                sends.push(r.isend(&w, peers[next_peer], TAG_STEAL, Vec::new()));
            } else {
                finished = true;
                sends.extend(peers.iter().map(|&q| r.isend(&w, q, TAG_FINISHED, Vec::new())));
                for to in idle.drain(..) {
                    sent_home += 1;
                    sends.push(r.isend(&w, to, TAG_JOB, Vec::new()));
                }
            }
        }
    }
    r.wait_all(sends).await;
}

/// A worker: asks `queue` for jobs until it gets none; (best, nodes) of its jobs.
async fn work<R: Rank>(r: &R, cfg: &Config, map: &Map, queue: u32) -> (u32, u64) {
    let w = r.world();
    let (mut best, mut nodes) = (u32::MAX, 0);
    loop {
        r.send(&w, queue, TAG_ASK, Vec::new()).await;
        let job: Vec<u32> = decode(&r.recv(&w, queue as i32, TAG_JOB).await.data);
        if job.is_empty() {
            return (best, nodes);
        }
        r.count("job");
        let (b, n) = searched(cfg, map, &job);
        r.compute(NODE_PS * n as Time).await;
        (best, nodes) = (best.min(b), nodes + n);
    }
}

/// The program.
pub async fn tsp<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (me, p, w) = (r.rank(), r.size(), r.world());
    let map = Map::new(&cfg);
    // Made only by the ranks that need them (the queues, rank 0's check): at `paper`,
    // 360 360 partial tours made by every rank were most of a run's own time.
    let all = std::cell::OnceCell::new();
    let all = || all.get_or_init(|| jobs(&cfg));
    r.phase("search");
    // Queues (their rank, their workers), by variant.
    let queues: Vec<(u32, Vec<u32>)> = match cfg.variant {
        _ if p == 1 => Vec::new(),
        Variant::Original | Variant::OriginalMessages => vec![(0, (1..p).collect())],
        Variant::Optimized => {
            let cl = Clusters::of(&r);
            (0..cl.count()).map(|c| (cl.coordinator(c), cl.members(c).skip(1).collect())).collect()
        }
    };
    let (best, nodes) = if p == 1 {
        let results: Vec<(u32, u64)> = all().iter().map(|j| searched(&cfg, &map, j)).collect();
        let nodes = results.iter().map(|x| x.1).sum::<u64>();
        r.compute(NODE_PS * nodes as Time).await;
        (results.iter().map(|x| x.0).min().unwrap_or(u32::MAX), nodes)
    } else if let Some(i) = queues.iter().position(|q| q.0 == me) {
        // Jobs go to the queues that have workers, a block each.
        let staffed: Vec<usize> = (0..queues.len()).filter(|&k| !queues[k].1.is_empty()).collect();
        let seeded = staffed
            .iter()
            .position(|&k| k == i)
            .map(|s| all()[block(all().len(), staffed.len() as u32, s as u32)].to_vec())
            .unwrap_or_default();
        let peers: Vec<u32> = queues.iter().filter(|q| q.0 != me).map(|q| q.0).collect();
        serve(&r, cfg.prefix, queues[i].1.len(), &peers, seeded.into()).await;
        (u32::MAX, 0)
    } else {
        let queue = queues.iter().find(|q| q.1.contains(&me)).expect("a queue serves every worker").0;
        work(&r, &cfg, &map, queue).await
    };
    r.phase("check");
    let best = reduce(&r, &w, 0, &[best], Op::Min).await;
    let nodes = reduce(&r, &w, 0, &[nodes], Op::Sum).await;
    if let (Some(best), Some(nodes)) = (best, nodes) {
        let serial: Vec<(u32, u64)> = all().iter().map(|j| searched(&cfg, &map, j)).collect();
        let want = (serial.iter().map(|x| x.0).min().unwrap_or(u32::MAX), serial.iter().map(|x| x.1).sum::<u64>());
        if (best[0], nodes[0]) != want {
            return Err(format!("best tour {} in {} nodes; a serial search gives {want:?}", best[0], nodes[0]));
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed, job.variant);
    backend.run(job.platform, move |r| tsp(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every completion of `prefix` back to city 0, tried one by one.
    fn brute_force(map: &Map, prefix: &[u32]) -> u32 {
        let n = map.dist.len() as u32;
        fn go(map: &Map, tour: &mut Vec<u32>, n: u32) -> u32 {
            let at = *tour.last().unwrap() as usize;
            if tour.len() == n as usize {
                return map.dist[at][0];
            }
            let mut best = u32::MAX;
            for c in 1..n {
                if !tour.contains(&c) {
                    tour.push(c);
                    best = best.min(map.dist[at][c as usize] + go(map, tour, n));
                    tour.pop();
                }
            }
            best
        }
        let len: u32 = prefix.windows(2).map(|w| map.dist[w[0] as usize][w[1] as usize]).sum();
        len + go(map, &mut prefix.to_vec(), n)
    }

    #[test]
    fn the_search_finds_every_completion_under_the_cutoff() {
        let cfg = Config::preset(Size::Tiny, 3, Variant::Optimized);
        let map = Map::new(&cfg);
        let mut found = 0;
        for job in jobs(&cfg) {
            let (best, nodes) = map.search(&job);
            let shortest = brute_force(&map, &job);
            // The search prunes at the nearest-neighbour tour (its bound never cuts a
            // shorter one): a tour below it is found exactly; past it, none shorter.
            if shortest < map.cutoff {
                assert_eq!(best, shortest, "job {job:?}");
                found += 1;
            } else {
                assert!(best >= shortest, "job {job:?}: {best} < {shortest}");
            }
            assert!(nodes >= 1);
        }
        assert!(found > 0, "some job beats the nearest-neighbour tour");
    }
}
