//! The read-based applications with a software cache, `barnes` and `pray`: they verify
//! their answers, read exactly the remote records that a second, serial method finds
//! their walks need (once each with the cache, at every access without it), and slow
//! down when o rises.

mod common;
use common::{count, loggopsim, run, run_on};
use netsens_apps::app::Size;
use netsens_apps::suite::barnes::{self, Body, Cell, Tree};
use netsens_apps::suite::pray::{self, Mailbox, Scene, Sphere};
use netsens_apps::suite::ready;
use netsens_core::engine::RunOptions;
use netsens_core::profile::RunResult;
use netsens_core::program::run_program;
use netsens_core::time::Time;
use std::collections::HashSet;

const APPS: [&str; 2] = ["barnes", "pray"];

#[test]
fn both_verify_at_tiny() {
    for app in APPS {
        for ranks in [1, 2, 3, 8] {
            assert!(run(app, ranks).makespan_ps > 0, "{app} on {ranks} ranks");
        }
    }
}

#[test]
fn both_run_on_more_ranks_than_they_have_work_for() {
    // tiny barnes has 256 bodies and pray 64 spans: on 300 ranks some hold nothing.
    for app in APPS {
        run(app, 300);
    }
}

#[test]
fn both_slow_down_when_o_rises() {
    for app in APPS {
        let times: Vec<u64> = ["500ns", "1500ns", "5us"]
            .iter()
            .map(|o| run_on(&loggopsim(&[("o", o)]), app, 8).expect("the app runs").0.makespan_ps)
            .collect();
        assert!(times[0] < times[1] && times[1] < times[2], "{app}: {times:?}");
    }
}

#[test]
fn same_inputs_same_result() {
    for app in APPS {
        let p = loggopsim(&[]);
        assert_eq!(run_on(&p, app, 3).unwrap(), run_on(&p, app, 3).unwrap());
    }
}

/// Gets, cache hits and misses of every rank.
fn reads(r: &RunResult, ranks: u32) -> Vec<(u64, u64, u64)> {
    (0..ranks).map(|k| (count(r, k, "get"), count(r, k, "cache_hit"), count(r, k, "cache_miss"))).collect()
}

// --- barnes ---------------------------------------------------------------------------

fn run_barnes(cfg: barnes::Config, ranks: u32) -> RunResult {
    run_program(&loggopsim(&[]), ranks, &RunOptions::default(), move |r| barnes::barnes(r, cfg)).expect("barnes runs")
}

/// The remote records one rank's force walks visit in one step, found by a recursive
/// walk of the forest (not the program's stack and cache): the distinct ones, and
/// every visit.
#[derive(Default)]
struct Visits {
    distinct: HashSet<(u32, bool, u32)>,
    all: u64,
}

impl Visits {
    fn visit(&mut self, me: u32, owner: u32, cell: bool, index: u32) {
        if owner != me {
            self.distinct.insert((owner, cell, index));
            self.all += 1;
        }
    }

    /// Visit cell `c` of `owner`'s tree for a body at `pos` (body `index` of rank `me`).
    fn walk(&mut self, trees: &[Tree], me: u32, index: u32, pos: [f64; 3], owner: u32, c: u32) {
        self.visit(me, owner, true, c);
        let cell: Cell = trees[owner as usize].cells[c as usize];
        if cell.mass == 0.0 {
            return;
        }
        let d2: f64 = (0..3).map(|k| (cell.com[k] - pos[k]).powi(2)).sum();
        if d2 >= cell.rcrit2 {
            return;
        }
        for j in cell.first..cell.first + cell.count {
            if cell.leaf {
                if !(owner == me && j == index) {
                    self.visit(me, owner, false, j);
                }
            } else {
                self.walk(trees, me, index, pos, owner, j);
            }
        }
    }
}

/// Every rank's bodies where step `step` (0 or 1 of tiny's 2) computes their forces, in
/// tree order, and the rank's tree: step 0 starts from the initial distribution; the
/// last step's positions are those the serial reference records.
fn forest(cfg: &barnes::Config, ranks: u32, step: u32) -> (Vec<Vec<Body>>, Vec<Tree>) {
    assert_eq!(cfg.steps, 2);
    let problem = barnes::problem(cfg, ranks);
    let mut parts: Vec<Vec<Body>> = problem.initial.clone();
    if step == 1 {
        parts.iter_mut().flatten().for_each(|b| b.pos = problem.last_pos[b.id as usize]);
    }
    let trees = parts.iter_mut().map(|p| barnes::build(p, cfg.theta)).collect();
    (parts, trees)
}

/// Per rank, the distinct remote records and all remote visits of the force walks,
/// summed over the steps.
fn barnes_visits(cfg: &barnes::Config, ranks: u32) -> Vec<(u64, u64)> {
    let mut out = vec![(0, 0); ranks as usize];
    for step in 0..2 {
        let (parts, trees) = forest(cfg, ranks, step);
        for ((me, part), sum) in parts.iter().enumerate().zip(&mut out) {
            let me = me as u32;
            let mut v = Visits::default();
            for (i, b) in part.iter().enumerate() {
                for owner in 0..ranks {
                    v.walk(&trees, me, i as u32, b.pos, owner, 0);
                }
            }
            sum.0 += v.distinct.len() as u64;
            sum.1 += v.all;
        }
    }
    out
}

#[test]
fn barnes_reads_each_remote_record_it_needs_once_per_step() {
    for ranks in [3, 8] {
        let cfg = barnes::Config::preset(Size::Tiny, 0);
        let want = barnes_visits(&cfg, ranks);
        let r = run("barnes", ranks);
        for (k, (&(gets, hits, misses), &(distinct, all))) in reads(&r, ranks).iter().zip(&want).enumerate() {
            assert_eq!((gets, misses, hits + misses), (distinct, distinct, all), "rank {k} of {ranks}");
            assert!(hits > 10 * misses, "rank {k} of {ranks}: {hits} hits, {misses} misses");
        }
        // Without the cache every visit is a read.
        let r = run_barnes(barnes::Config { cache: false, ..cfg }, ranks);
        for (k, (&(gets, hits, misses), &(_, all))) in reads(&r, ranks).iter().zip(&want).enumerate() {
            assert_eq!((gets, hits, misses), (all, 0, all), "rank {k} of {ranks}, no cache");
        }
    }
}

#[test]
fn barnes_with_theta_zero_reads_every_remote_cell_and_body_once_per_step() {
    // θ = 0 opens every cell: in each step a rank reads each other rank's whole tree
    // once, every cell and every body: Σ over the others of (cells + bodies).
    let cfg = barnes::Config { theta: 0.0, ..barnes::Config::preset(Size::Tiny, 0) };
    let ranks = 3;
    let mut expected = vec![0u64; ranks as usize];
    for step in 0..2 {
        let (_, trees) = forest(&cfg, ranks, step);
        let sizes: Vec<u64> = trees.iter().map(|t| (t.cells.len() + t.bodies.len()) as u64).collect();
        let all: u64 = sizes.iter().sum();
        for (e, own) in expected.iter_mut().zip(&sizes) {
            *e += all - own;
        }
    }
    // 256 bodies over 3 ranks: 85, 85, 86 bodies, and at least one cell per 8 bodies.
    assert!(expected.iter().all(|&e| e >= 2 * (170 + 170 / 8)), "{expected:?}");
    let r = run_barnes(cfg, ranks);
    let gets: Vec<u64> = (0..ranks).map(|k| count(&r, k, "get")).collect();
    assert_eq!(gets, expected);
}

// --- pray -----------------------------------------------------------------------------

fn run_pray(cfg: pray::Config, ranks: u32) -> RunResult {
    run_program(&loggopsim(&[]), ranks, &RunOptions::default(), move |r| pray::pray(r, cfg)).expect("pray runs")
}

/// Every sphere in one process, recording which ones a rank's rays ask for.
struct Recording<'a> {
    spheres: &'a [Sphere],
    asked: Vec<u32>,
}

impl Scene for Recording<'_> {
    fn sphere(&mut self, id: u32) -> Option<Sphere> {
        self.asked.push(id);
        Some(self.spheres[id as usize])
    }

    async fn fetch(&mut self, _: u32) -> Sphere {
        unreachable!("every sphere is at hand")
    }

    fn charge(&mut self, _: Time) {}
}

/// Per rank: the distinct remote spheres its pixels' rays test, and every remote test,
/// by rendering its pixels serially.
fn pray_touches(cfg: &pray::Config, ranks: u32) -> Vec<(u64, u64)> {
    let spheres: Vec<Sphere> = (0..cfg.spheres).map(|i| Sphere::generate(cfg, i)).collect();
    let bounds: Vec<[u16; 6]> = spheres.iter().map(|s| s.bounds(cfg.grid)).collect();
    let grid = pray::Grid::build(cfg.grid, &bounds);
    (0..ranks)
        .map(|me| {
            let mut scene = Recording { spheres: &spheres, asked: Vec::new() };
            let mut mail = Mailbox::new(cfg.spheres);
            for i in cfg.pixels_of(me, ranks) {
                ready(pray::pixel(cfg, &grid, &mut scene, &mut mail, i));
            }
            let remote: Vec<u32> = scene.asked.into_iter().filter(|id| id % ranks != me).collect();
            let distinct: HashSet<u32> = remote.iter().copied().collect();
            (distinct.len() as u64, remote.len() as u64)
        })
        .collect()
}

#[test]
fn pray_reads_each_remote_sphere_its_rays_test_once() {
    for ranks in [3, 8] {
        let cfg = pray::Config::preset(Size::Tiny, 0);
        let want = pray_touches(&cfg, ranks);
        let r = run("pray", ranks);
        for (k, (&(gets, hits, misses), &(distinct, all))) in reads(&r, ranks).iter().zip(&want).enumerate() {
            assert_eq!((gets, misses, hits + misses), (distinct, distinct, all), "rank {k} of {ranks}");
            assert!(distinct > 0 && hits > misses, "rank {k} of {ranks}: {hits} hits, {misses} misses");
        }
        let r = run_pray(pray::Config { cache: false, ..cfg }, ranks);
        for (k, (&(gets, hits, misses), &(_, all))) in reads(&r, ranks).iter().zip(&want).enumerate() {
            assert_eq!((gets, hits, misses), (all, 0, all), "rank {k} of {ranks}, no cache");
        }
    }
}

#[test]
fn pray_with_one_grid_cell_reads_every_remote_sphere_once() {
    // A grid of one cell lists every sphere there, so the first ray of a rank that
    // enters the cube tests them all: each rank reads the 64 − (its own) spheres,
    // rank r owning ids r, r + P, …: ⌈(64 − r) / P⌉ of them.
    let cfg = pray::Config { grid: 1, ..pray::Config::preset(Size::Tiny, 0) };
    for ranks in [3u32, 8] {
        let r = run_pray(cfg, ranks);
        let gets: Vec<u64> = (0..ranks).map(|k| count(&r, k, "get")).collect();
        let expected: Vec<u64> = (0..ranks).map(|k| 64 - u64::from((64 - k).div_ceil(ranks))).collect();
        assert_eq!(gets, expected, "{ranks} ranks");
        // 3 ranks: 22, 21, 21 spheres of their own.
        if ranks == 3 {
            assert_eq!(gets, [42, 43, 43]);
        }
    }
}
