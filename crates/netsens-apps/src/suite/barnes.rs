//! Barnes: Barnes–Hut n-body simulation on a shared octree that is spread over the
//! ranks, as the Split-C Barnes of Martin et al. (ISCA'97) runs it: a rank computes the
//! forces on its own bodies by walking the whole tree, and reads every cell and body it
//! needs from another rank with a blocking `get` (a round trip), through a software
//! cache so that each is read at most once per time step.
//!
//! **Bodies**: a Plummer sphere of N bodies of mass 1/N in standard units (Aarseth,
//! Hénon and Wielen 1974, as SPLASH's Barnes generates it), drawn in order from stream
//! 0 of the seed with square roots only (a radius from the maximum of three uniform
//! draws, directions by rejection from the cube), so the input is bit-identical on
//! every machine. Gravitational constant 1, softening ε = 0.05, time step dt = 0.025
//! (SPLASH's values), each step a kick then a drift (symplectic Euler).
//!
//! **Distribution**: the bodies in Morton (Z-curve) order of their bounding cube, cut
//! into P equal blocks (⌊rN/P⌋ .. ⌊(r+1)N/P⌋ for rank r): each rank holds a compact
//! piece of space, as costzones would give it. Every rank derives the cut alike from
//! the generated input (as if reading a partitioned input file); it is not charged.
//! Bodies stay with their rank for the whole run. Any rank count works; with more ranks
//! than bodies some ranks hold none.
//!
//! **Tree**: the global octree is the forest of the ranks' octrees, each over one
//! rank's bodies in that rank's own bounding cube: a cell with more than [`LEAF`] = 8
//! bodies (SPLASH-2's leaves hold several) is split into its non-empty octants, at most
//! 21 levels deep. A rank rebuilds its tree every step and lays it out in its window:
//! its bodies in tree order ([`BODY_BYTES`] = 32 each: position and mass), then its
//! cells in breadth-first order ([`CELL_BYTES`] = 56 each: centre of mass, mass, the
//! opening radius², and the range of its children or, for a leaf, of its bodies). The
//! root is cell 0, and every rank knows how many bodies each rank holds, so a remote
//! cell or body is one fixed-size `get` at a known offset.
//!
//! **Forces**: for each of its bodies a rank walks the trees of ranks r, r+1, …, r−1
//! (its own first), depth first, children in order. A cell whose centre of mass is at
//! distance d ≥ r_crit from the body interacts as a point mass; otherwise its children
//! are visited, or, for a leaf, each of its bodies interacts. r_crit = s/θ + δ (s the
//! cell's side, δ the distance from its geometric centre to its centre of mass: Barnes'
//! "bmax" criterion, which keeps the error bounded when the mass sits off centre), with
//! θ = 0.7; θ = 0 opens every cell (the direct sum, in tree order).
//!
//! **Software cache**: a rank keeps every remote cell and body it has read, in a table
//! per owner indexed by cell or body number (they are dense, so nothing is evicted),
//! until the end of the step, when the trees are rebuilt. A hit costs no message and no
//! extra time; a miss is one `get`. Every remote access counts `cache_hit` or
//! `cache_miss`, so `cache_miss` equals `get`. [`Config::cache`] = false (tests) reads
//! on every access.
//!
//! **Step** (phases): `build` (sort, build the tree, write it into the window), a
//! barrier (every tree is published before anyone reads), `force`, a barrier (every
//! read of this step's trees is done before anyone rebuilds), `update` (kick, drift).
//!
//! **Communication**: per step and rank, one get (a 1-byte request, a 56- or 32-byte
//! reply) per distinct remote cell or body its walks visit, and two barriers; nothing
//! else. Far ranks' trees are read only near their roots, near ones down to bodies.
//!
//! **Cost model** (the suite's 1 ns per flop; round figures, assumptions rather than
//! measurements, scaled by the platform's CPU speed): an interaction (body with body or
//! with a cell's centre of mass: a difference, a squared distance with softening, a
//! square root and a division, three multiply-adds; about 20 flops plus loading the
//! record) costs [`INTERACT_PS`] = 30 ns; visiting a cell (the opening test, about 8
//! flops and a branch) [`OPEN_PS`] = 10 ns; building a tree of n bodies n·([`KEY_PS`] =
//! 20 ns for its Morton key + ⌈log2 n⌉·[`SORT_PS`] = 5 ns of sorting) plus [`CELL_PS`]
//! = 40 ns per cell (centre of mass and opening radius); the update (kick and drift)
//! [`UPDATE_PS`] = 10 ns per body (12 flops). The force walk charges its cost as it
//! goes, with `compute` before each remote read (the cost of a stretch is known only
//! once it has run), so a run that measures compute still charges the model for the
//! walk.
//!
//! **Verification**: a serial run of the same simulation (the same forest, walked by
//! the same code over local data; computed once per thread for (input, P)) must give
//! every body's acceleration in the last step, and its final position and velocity, bit
//! for bit. And for a sample of 64 bodies spread over the input, the acceleration must
//! be within [`Config::tolerance`] of a direct O(N²) sum over all bodies at the same
//! positions: θ²/10, 4.9 % at θ = 0.7 (the errors of the monopole approximation with
//! the bmax criterion, measured over 128 bodies of the small input on 32 ranks: median
//! 0.5 %, largest 2.0 % at θ = 0.7; 0.2 % and 1.0 % at θ = 0.5; 1.2 % and 4.3 % at
//! θ = 1).
//!
//! **Sizes** (bodies, steps; θ = 0.7 throughout): tiny 256, 2; small 4096, 2; paper
//! 32768, 2. The seeds at hand state no input for Barnes; 32 K bodies lies between
//! SPLASH-2's base input (16 K) and the 64 K of the wide-area suite's Barnes–Hut, at
//! two steps so that a run with its serial reference stays near ten seconds.

use super::barnes_walk::{accel, interact, Local, Mirror, Remote};
use super::ready;
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::barrier;
use netsens_core::program::Rank;
use netsens_core::time::Time;
use netsens_core::Result;
use std::cell::RefCell;
use std::rc::Rc;

pub use super::barnes_tree::{
    body_offset, build, build_cost, cell_offset, generate, partition, Body, Cell, Point, Tree, BODY_BYTES, CELL_BYTES,
    CELL_PS, KEY_PS, LEAF, SORT_PS,
};
use super::barnes_tree::{dot, sub};
pub use super::barnes_walk::{Forest, INTERACT_PS, OPEN_PS};

pub const APP: App = App {
    name: "barnes",
    description: "Barnes-Hut n-body on an octree spread over the ranks; remote cells and bodies read with blocking gets through a software cache",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per body updated (kick and drift): 10 ns.
pub const UPDATE_PS: Time = 10_000;

/// Bodies whose acceleration is checked against the direct sum.
pub const SAMPLES: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub bodies: usize,
    pub steps: u32,
    /// Opening angle θ (0 ≤ θ ≤ 1).
    pub theta: f64,
    /// Softening length ε.
    pub eps: f64,
    /// Time step.
    pub dt: f64,
    /// Keep what was read (false: read on every access; for tests).
    pub cache: bool,
    pub seed: u64,
}

impl Config {
    /// tiny: 256 bodies; small: 4096; paper: 32768; two steps each, θ = 0.7.
    pub fn preset(size: Size, seed: u64) -> Config {
        let bodies = match size {
            Size::Tiny => 256,
            Size::Small => 4096,
            Size::Paper => 32768,
        };
        Config { bodies, steps: 2, theta: 0.7, eps: 0.05, dt: 0.025, cache: true, seed }
    }

    /// The largest relative error of one acceleration against the direct sum: θ²/10
    /// (4.9 % at θ = 0.7), and rounding only (1e-9) at θ = 0.
    pub fn tolerance(&self) -> f64 {
        if self.theta == 0.0 {
            1e-9
        } else {
            0.1 * self.theta * self.theta
        }
    }

    /// The same input and simulation, whatever the cache does.
    fn problem_key(&self) -> Config {
        Config { cache: true, ..*self }
    }
}

/// One step of `bodies` with their accelerations: kick, then drift.
fn update(bodies: &mut [Body], accs: &[[f64; 3]], dt: f64) {
    for (b, a) in bodies.iter_mut().zip(accs) {
        for ((v, x), a) in b.vel.iter_mut().zip(&mut b.pos).zip(a) {
            *v += a * dt;
            *x += *v * dt;
        }
    }
}

// ---- the serial reference --------------------------------------------------------

/// The initial distribution and the serial run, by body id.
pub struct Problem {
    pub initial: Vec<Vec<Body>>,
    /// Every body at the end.
    pub last: Vec<Body>,
    /// Positions at the last force computation.
    pub last_pos: Vec<[f64; 3]>,
    /// Accelerations of the last step.
    pub last_acc: Vec<[f64; 3]>,
}

fn serial(cfg: &Config, ranks: u32) -> Problem {
    let initial = partition(cfg, ranks);
    let mut parts = initial.clone();
    let n = cfg.bodies;
    let (mut last_pos, mut last_acc) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
    let mut stack = Vec::new();
    for _ in 0..cfg.steps {
        let trees: Vec<Tree> = parts.iter_mut().map(|p| build(p, cfg.theta)).collect();
        for (owner, part) in parts.iter_mut().enumerate() {
            let accs: Vec<[f64; 3]> = part
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut f = Local(&trees);
                    ready(accel(&mut f, ranks, owner as u32, i as u32, b.pos, cfg.eps * cfg.eps, &mut stack))
                })
                .collect();
            for (b, a) in part.iter().zip(&accs) {
                last_pos[b.id as usize] = b.pos;
                last_acc[b.id as usize] = *a;
            }
            update(part, &accs, cfg.dt);
        }
    }
    let mut last: Vec<Body> = parts.into_iter().flatten().collect();
    last.sort_by_key(|b| b.id);
    Problem { initial, last, last_pos, last_acc }
}

type Cached = ((Config, u32), Rc<Problem>);

thread_local! {
    /// The last problem computed on this thread, by (config, ranks).
    static PROBLEM: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

/// The input and serial run for `cfg` on `ranks` ranks, computed once per thread.
pub fn problem(cfg: &Config, ranks: u32) -> Rc<Problem> {
    let key = (cfg.problem_key(), ranks);
    PROBLEM.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((k, p)) if *k == key => p.clone(),
            _ => {
                let p = Rc::new(serial(cfg, ranks));
                *cache = Some((key, p.clone()));
                p
            }
        }
    })
}

/// The acceleration of body `id` by direct summation over `pos` (all bodies).
pub fn direct(cfg: &Config, pos: &[[f64; 3]], id: usize) -> [f64; 3] {
    let mass = 1.0 / cfg.bodies as f64;
    let mut acc = [0.0; 3];
    for (j, p) in pos.iter().enumerate() {
        if j != id {
            interact(&mut acc, sub(*p, pos[id]), mass, cfg.eps * cfg.eps);
        }
    }
    acc
}

/// Relative error of `got` against `want`.
fn relative_error(got: [f64; 3], want: [f64; 3]) -> f64 {
    let d = sub(got, want);
    (dot(d, d) / dot(want, want)).sqrt()
}

/// Check a rank's bodies (after the last step) and their last accelerations.
fn verify(
    cfg: &Config,
    want: &Problem,
    me: u32,
    bodies: &[Body],
    accs: &[[f64; 3]],
) -> std::result::Result<(), String> {
    let bits = |v: [f64; 3]| v.map(f64::to_bits);
    for (b, a) in bodies.iter().zip(accs) {
        let id = b.id as usize;
        let (w, wa) = (want.last[id], want.last_acc[id]);
        if bits(*a) != bits(wa) {
            return Err(format!(
                "body {id} (rank {me}) has acceleration {a:?} in step {}; the serial run has {wa:?}",
                cfg.steps
            ));
        }
        if bits(b.pos) != bits(w.pos) || bits(b.vel) != bits(w.vel) {
            return Err(format!(
                "body {id} (rank {me}) ends at {:?} with velocity {:?}; the serial run has {:?}, {:?}",
                b.pos, b.vel, w.pos, w.vel
            ));
        }
    }
    let stride = (cfg.bodies / SAMPLES).max(1);
    for (b, a) in bodies.iter().zip(accs).filter(|(b, _)| (b.id as usize).is_multiple_of(stride)) {
        let exact = direct(cfg, &want.last_pos, b.id as usize);
        let err = relative_error(*a, exact);
        if err.is_nan() || err > cfg.tolerance() {
            return Err(format!(
                "body {} (rank {me}): the tree gives acceleration {a:?}, the direct sum {exact:?}: relative error {err:.3e} > {:.1e} (θ = {})",
                b.id,
                cfg.tolerance(),
                cfg.theta
            ));
        }
    }
    Ok(())
}

// ---- the program -----------------------------------------------------------------

/// The program.
pub async fn barnes<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (world, ranks, me) = (r.world(), r.size(), r.rank());
    let want = problem(&cfg, ranks);
    let sizes: Vec<usize> = want.initial.iter().map(Vec::len).collect();
    let mut bodies = want.initial[me as usize].clone();
    let n = bodies.len();
    let (mut accs, mut stack) = (Vec::with_capacity(n), Vec::new());
    for _ in 0..cfg.steps {
        r.phase("build");
        let tree = r.work(build_cost(n, 0), || build(&mut bodies, cfg.theta)).await;
        r.compute(build_cost(0, tree.cells.len())).await;
        r.expose(tree.bytes());
        r.window(|w| tree.write(w));
        barrier(&r, &world).await;
        r.phase("force");
        let mut forest = Remote {
            r: &r,
            me,
            tree: &tree,
            sizes: &sizes,
            cache: (0..ranks).map(|_| Mirror::default()).collect(),
            enabled: cfg.cache,
            pending: 0,
        };
        accs.clear();
        for (i, b) in bodies.iter().enumerate() {
            accs.push(accel(&mut forest, ranks, me, i as u32, b.pos, cfg.eps * cfg.eps, &mut stack).await);
        }
        forest.flush().await;
        barrier(&r, &world).await;
        r.phase("update");
        r.work(UPDATE_PS * n as Time, || update(&mut bodies, &accs, cfg.dt)).await;
    }
    r.phase("verify");
    verify(&cfg, &want, me, &bodies, &accs)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| barnes(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_zero_is_the_direct_sum() {
        let cfg = Config { theta: 0.0, ..Config::preset(Size::Tiny, 2) };
        let p = problem(&cfg, 3);
        let pos: Vec<[f64; 3]> = p.last_pos.clone();
        for id in [0, 17, 255] {
            assert!(relative_error(p.last_acc[id], direct(&cfg, &pos, id)) < 1e-12);
        }
    }

    #[test]
    fn verification_catches_a_wrong_acceleration() {
        let cfg = Config::preset(Size::Tiny, 5);
        let p = problem(&cfg, 2);
        let mut mine: Vec<Body> = p.last.iter().filter(|b| b.id % 2 == 0).copied().collect();
        let mut accs: Vec<[f64; 3]> = mine.iter().map(|b| p.last_acc[b.id as usize]).collect();
        assert_eq!(verify(&cfg, &p, 0, &mine, &accs), Ok(()));
        accs[3][1] *= 1.0 + 1e-15;
        let err = verify(&cfg, &p, 0, &mine, &accs).unwrap_err();
        assert!(err.starts_with(&format!("body {} (rank 0) has acceleration", mine[3].id)), "{err}");
        accs[3] = p.last_acc[mine[3].id as usize];
        mine[0].vel[0] += 1e-9;
        assert!(verify(&cfg, &p, 0, &mine, &accs).unwrap_err().contains("ends at"));
    }
}
