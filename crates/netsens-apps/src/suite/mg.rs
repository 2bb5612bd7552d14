//! NPB MG: multigrid V-cycles for a 3-D Poisson problem (NAS Parallel Benchmarks,
//! Martin's thesis ch. 4).
//!
//! On a periodic n³ grid, the right-hand side v is +1 at 10 and −1 at 10 seeded
//! random points (stream 1 of the seed; NPB puts them at the largest and smallest of
//! a random field). Starting from u = 0, each of `iters` iterations runs one V-cycle
//! and recomputes the residual r = v − A u, with NPB's operators: A the 27-point
//! operator (−8/3, 0, 1/6, 1/12 for centre, faces, edges, corners), the smoother
//! u += S r (−3/8, 1/32, −1/64, 0), full-weighting restriction (1/2, 1/4, 1/8, 1/16)
//! and trilinear prolongation. The V-cycle (NPB's `mg3P`) restricts the residual
//! down to the coarsest level, smooths there, and on the way up prolongs, takes the
//! residual and smooths at every level. The answer is ‖r‖ = sqrt(Σ r² / n³) and
//! max |r| (NPB's `norm2u3`), taken after the first residual and after the last.
//!
//! **Decomposition**: P must be a power of two; it forms a px×py×pz process grid
//! (the factors of two dealt to x, y, z in turn: 8 → 2×2×2, 32 → 4×4×2) and rank
//! (cz·py + cy)·px + cx holds a block of every level. Levels halve the grid down to
//! the coarsest with at least 2 points per side and 1 per rank and side: fewer
//! levels at large rank counts (32³ on 1024 ranks: 2 levels).
//!
//! **Communication** (NPB 3.4's `mg.f90` over its timed region): after every
//! restriction, smoothing and residual its output's halo is exchanged (phase `halo`,
//! NPB's `comm3`), one axis after the other so that edges and corners come along:
//! along an axis with more than one process, one message to each of the two
//! neighbours (both the same rank when there are two), of the block's face — interior
//! points across the later axes, ghosts included across the earlier ones (8·my·mz,
//! 8·(mx+2)·mz, 8·(mx+2)·(my+2) bytes); along an axis with one process, a local
//! periodic copy. The prolongation needs no exchange: as NPB's `interp`, it fills the
//! fine ghosts from the coarse ghosts already exchanged. A V-cycle over L levels
//! exchanges 3L − 2 halos, the residual after it one more (NPB: 3L − 1 per
//! iteration), plus one after the first residual; each norm is two allreduces of one
//! f64 (max, then sum). Message sizes fall by 4 per level: Martin's exponential size
//! histogram. Where NPB would leave processes idle on the coarse levels (more
//! processes along an axis than points), netsens stops coarsening instead (below), so
//! only rank counts with P^(1/3) ≤ n/2 along every axis match NPB message for message
//! (8 ranks at every class; 32 ranks have one level fewer than NPB at class S).
//!
//! **Cost model**: one unit is a flop at [`PS_PER_FLOP`] = 1 ns (a sustained
//! 1 Gflop/s, the stencil example's figure; an assumption, not a measurement), scaled
//! by the platform's CPU speed. A 27-point stencil is [`STENCIL_FLOPS`] = 30 flops (4
//! multiplications, 26 additions), the residual and the smoother one more each (phases
//! `resid`, `smooth`), the restriction 30 per coarse point (`restrict`), the
//! prolongation [`INTERP_FLOPS`] = 8 per fine interior point (at most 8 products
//! summed; `prolong`), the norm 3 per point. Halo copies are not charged.
//!
//! **Verification**: the final ‖r‖ and max |r| equal those of the same computation on
//! the whole grid (the same operators at every point; only the norm's summation order
//! differs) within 10⁻⁹ relative, computed once per thread and cached by (n, levels,
//! iters, seed).

use crate::app::{App, Backend, Job, Size};
use crate::data::{stream, unit_f64};
use netsens_core::program::collectives::allreduce;
use netsens_core::program::{decode, encode, Communicator, Op, Rank, Tag};
use netsens_core::time::Time;
use netsens_core::{input_err, Result};
use std::cell::RefCell;

pub const APP: App = App {
    name: "mg",
    description: "NPB MG multigrid V-cycles on a 3-D grid: halo exchange with 6 neighbours at every level",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per flop: 1 ns, before CPU-speed scaling.
pub const PS_PER_FLOP: Time = 1000;
/// A 27-point stencil: 4 multiplications (one per class of neighbour) and 26 additions.
pub const STENCIL_FLOPS: u64 = 30;
/// Trilinear prolongation: at most 8 coarse values, weighted and summed, per fine point.
pub const INTERP_FLOPS: u64 = 8;
/// Relative tolerance of the norm against the serial reference.
pub const TOLERANCE: f64 = 1e-9;
/// Charges of each sign.
const CHARGES: usize = 10;
const CHARGES_STREAM: u64 = 1;

/// Coefficients (centre, faces, edges, corners) of NPB's operators.
const A: [f64; 4] = [-8.0 / 3.0, 0.0, 1.0 / 6.0, 1.0 / 12.0];
const SMOOTH: [f64; 4] = [-3.0 / 8.0, 1.0 / 32.0, -1.0 / 64.0, 0.0];
const RESTRICT: [f64; 4] = [0.5, 0.25, 0.125, 0.0625];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Grid side n (a power of two).
    pub n: usize,
    pub iters: u32,
    pub seed: u64,
}

impl Config {
    /// tiny: NPB class S (32³); small: class W (128³); paper: class A (256³); 4
    /// iterations each. The seed ran class B: the same grid (so the same messages),
    /// 20 iterations.
    pub fn preset(size: Size, seed: u64) -> Config {
        let n = match size {
            Size::Tiny => 32,
            Size::Small => 128,
            Size::Paper => 256,
        };
        Config { n, iters: 4, seed }
    }
}

/// The process grid: `dims[a]` processes along axis a (x, y, z).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Procs {
    pub dims: [usize; 3],
}

impl Procs {
    /// The factors of two of a power-of-two P dealt to x, y, z in turn.
    pub fn for_ranks(p: u32) -> Procs {
        let mut dims = [1; 3];
        (0..p.trailing_zeros() as usize).for_each(|i| dims[i % 3] *= 2);
        Procs { dims }
    }

    fn coords(&self, rank: u32) -> [usize; 3] {
        let r = rank as usize;
        [r % self.dims[0], r / self.dims[0] % self.dims[1], r / (self.dims[0] * self.dims[1])]
    }

    fn rank(&self, c: [usize; 3]) -> u32 {
        ((c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]) as u32
    }

    /// Grid sides of the levels, finest first: halving while at least
    /// max(2, processes along the longest process axis) points remain.
    pub fn levels(&self, n: usize) -> Vec<usize> {
        let min = self.dims.into_iter().max().unwrap_or(1).max(2);
        std::iter::successors(Some(n), |&s| (s / 2 >= min).then_some(s / 2)).collect()
    }
}

/// One rank's block of one level, with a ghost layer: (mx+2)·(my+2)·(mz+2) values,
/// x fastest. Interior indices run 1 ..= m along each axis.
#[derive(Clone, Debug, PartialEq)]
struct Block {
    m: [usize; 3],
    v: Vec<f64>,
}

impl Block {
    fn zeros(m: [usize; 3]) -> Block {
        Block { m, v: vec![0.0; (m[0] + 2) * (m[1] + 2) * (m[2] + 2)] }
    }

    fn strides(&self) -> [usize; 3] {
        [1, self.m[0] + 2, (self.m[0] + 2) * (self.m[1] + 2)]
    }

    fn at(&self, i: usize, j: usize, k: usize) -> usize {
        let s = self.strides();
        i + j * s[1] + k * s[2]
    }

    fn points(&self) -> u64 {
        (self.m[0] * self.m[1] * self.m[2]) as u64
    }

    /// Every interior index, x fastest.
    fn interior(&self) -> impl Iterator<Item = (usize, usize, usize)> {
        let m = self.m;
        (1..=m[2]).flat_map(move |k| (1..=m[1]).flat_map(move |j| (1..=m[0]).map(move |i| (i, j, k))))
    }

    /// Every index, ghosts included, x fastest.
    fn all(&self) -> impl Iterator<Item = (usize, usize, usize)> {
        let m = self.m;
        (0..m[2] + 2).flat_map(move |k| (0..m[1] + 2).flat_map(move |j| (0..m[0] + 2).map(move |i| (i, j, k))))
    }

    /// Indices of the plane at `at` along `axis`: across earlier axes with their
    /// ghosts (already exchanged), across later ones the interior only.
    fn plane(&self, axis: usize, at: usize) -> Vec<usize> {
        let range = |a: usize| if a < axis { 0..self.m[a] + 2 } else { 1..self.m[a] + 1 };
        let s = self.strides();
        let (b, c) = match axis {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        range(c).flat_map(|y| range(b).map(move |x| at * s[axis] + x * s[b] + y * s[c])).collect()
    }
}

/// Offsets of the 26 neighbours by class: faces, edges, corners.
struct Neighbourhood([Vec<isize>; 3]);

impl Neighbourhood {
    fn of(b: &Block) -> Neighbourhood {
        let s = b.strides().map(|s| s as isize);
        let mut classes = [Vec::new(), Vec::new(), Vec::new()];
        for dz in -1..=1isize {
            for dy in -1..=1isize {
                for dx in -1..=1isize {
                    let nonzero = [dx, dy, dz].iter().filter(|&&d| d != 0).count();
                    if nonzero > 0 {
                        classes[nonzero - 1].push(dx + dy * s[1] + dz * s[2]);
                    }
                }
            }
        }
        Neighbourhood(classes)
    }

    /// c0·centre + c1·Σ faces + c2·Σ edges + c3·Σ corners at index `p`.
    fn apply(&self, u: &[f64], p: usize, c: &[f64; 4]) -> f64 {
        let sum = |class: &[isize]| class.iter().map(|&d| u[(p as isize + d) as usize]).sum::<f64>();
        c[0] * u[p] + c[1] * sum(&self.0[0]) + c[2] * sum(&self.0[1]) + c[3] * sum(&self.0[2])
    }
}

/// r = rhs − A u (rhs = r itself when `None`).
fn resid(u: &Block, rhs: Option<&Block>, r: &mut Block) {
    let nb = Neighbourhood::of(u);
    for (i, j, k) in u.interior() {
        let p = u.at(i, j, k);
        let base = rhs.map_or(r.v[p], |v| v.v[p]);
        r.v[p] = base - nb.apply(&u.v, p, &A);
    }
}

/// u += S r.
fn smooth(r: &Block, u: &mut Block) {
    let nb = Neighbourhood::of(r);
    for (i, j, k) in r.interior() {
        let p = r.at(i, j, k);
        u.v[p] += nb.apply(&r.v, p, &SMOOTH);
    }
}

/// Coarse r at point c = full weighting of fine r around point 2c (block origins
/// are even, so local interior index i ↔ fine 2i − 1).
fn restrict(fine: &Block, coarse: &mut Block) {
    let nb = Neighbourhood::of(fine);
    for (i, j, k) in coarse.interior() {
        let p = coarse.at(i, j, k);
        coarse.v[p] = nb.apply(&fine.v, fine.at(2 * i - 1, 2 * j - 1, 2 * k - 1), &RESTRICT);
    }
}

/// Fine u (+)= trilinear interpolation of coarse u, ghosts included (from the coarse
/// ghosts, as NPB's `interp`): a fine point at an even global index takes its coarse
/// point, at an odd one the mean of the two around it. Local fine index i is global
/// origin + i − 1 and origins are even, so odd local indices fall on coarse points.
fn prolong(coarse: &Block, fine: &mut Block, add: bool) {
    let weights = |i: usize| -> Vec<(usize, f64)> {
        if i % 2 == 1 {
            vec![(i.div_ceil(2), 1.0)]
        } else {
            vec![(i / 2, 0.5), (i / 2 + 1, 0.5)]
        }
    };
    for (i, j, k) in fine.all() {
        let mut value = 0.0;
        for &(ck, wk) in &weights(k) {
            for &(cj, wj) in &weights(j) {
                for &(ci, wi) in &weights(i) {
                    value += wk * wj * wi * coarse.v[coarse.at(ci, cj, ck)];
                }
            }
        }
        let p = fine.at(i, j, k);
        fine.v[p] = if add { fine.v[p] + value } else { value };
    }
}

/// The right-hand side on the block at global origin `origin`: ±1 at the charges.
fn rhs(cfg: &Config, m: [usize; 3], origin: [usize; 3]) -> Block {
    let mut b = Block::zeros(m);
    let mut rng = stream(cfg.seed, CHARGES_STREAM);
    for c in 0..2 * CHARGES {
        let g = [0; 3].map(|_| (unit_f64(&mut rng) * cfg.n as f64) as usize);
        if (0..3).all(|a| (origin[a]..origin[a] + m[a]).contains(&g[a])) {
            let p = b.at(g[0] - origin[0] + 1, g[1] - origin[1] + 1, g[2] - origin[2] + 1);
            b.v[p] += if c < CHARGES { 1.0 } else { -1.0 };
        }
    }
    b
}

/// Fill the ghosts along `axis` from the block's own far side (one process on the axis).
fn wrap(b: &mut Block, axis: usize) {
    let m = b.m[axis];
    for (ghost, from) in [(0, m), (m + 1, 1)] {
        for (g, f) in b.plane(axis, ghost).into_iter().zip(b.plane(axis, from)) {
            b.v[g] = b.v[f];
        }
    }
}

/// Σ r² and max |r| over the interior, in index order.
fn sum_and_max(r: &Block) -> [f64; 2] {
    r.interior().map(|(i, j, k)| r.v[r.at(i, j, k)]).fold([0.0, 0.0], |[s, m], x| [s + x * x, m.max(x.abs())])
}

/// A rank's place in the process grid.
struct Layout {
    procs: Procs,
    /// Lower and upper neighbour along each axis.
    nb: [[u32; 2]; 3],
}

/// Exchange the halo of `b`, axis by axis (NPB's `comm3`).
async fn halo<R: Rank>(r: &R, comm: &Communicator, lay: &Layout, b: &mut Block) -> std::result::Result<(), String> {
    for axis in 0..3 {
        if lay.procs.dims[axis] == 1 {
            wrap(b, axis);
            continue;
        }
        let [lower, upper] = lay.nb[axis];
        let (down, up) = ((2 * axis) as Tag, (2 * axis + 1) as Tag);
        let m = b.m[axis];
        let face = |at: usize| encode(&b.plane(axis, at).iter().map(|&p| b.v[p]).collect::<Vec<f64>>());
        let reqs = vec![
            r.irecv(comm, upper as i32, down),
            r.irecv(comm, lower as i32, up),
            r.isend(comm, lower, down, face(1)),
            r.isend(comm, upper, up, face(m)),
        ];
        let got = r.wait_all(reqs).await;
        for (msg, ghost) in got.iter().zip([m + 1, 0]) {
            let idx = b.plane(axis, ghost);
            let values = decode::<f64>(&msg.data);
            if values.len() != idx.len() {
                return Err(format!(
                    "a halo from rank {} has {} values, expected {}",
                    msg.source,
                    values.len(),
                    idx.len()
                ));
            }
            idx.into_iter().zip(values).for_each(|(p, v)| b.v[p] = v);
        }
    }
    Ok(())
}

/// The serial computation on the whole grid with `levels` levels: the final ‖r‖ and
/// max |r|.
fn serial(cfg: &Config, levels: &[usize]) -> [f64; 2] {
    let wrap_all = |b: &mut Block| (0..3).for_each(|a| wrap(b, a));
    let v = rhs(cfg, [cfg.n; 3], [0; 3]);
    let mut u: Vec<Block> = levels.iter().map(|&s| Block::zeros([s; 3])).collect();
    let mut r = u.clone();
    resid(&u[0], Some(&v), &mut r[0]);
    wrap_all(&mut r[0]);
    let last = levels.len() - 1;
    for _ in 0..cfg.iters {
        for l in 1..=last {
            let (f, c) = r.split_at_mut(l);
            restrict(&f[l - 1], &mut c[0]);
            wrap_all(&mut r[l]);
        }
        u[last] = Block::zeros(u[last].m);
        smooth(&r[last], &mut u[last]);
        wrap_all(&mut u[last]);
        for l in (0..last).rev() {
            let (f, c) = u.split_at_mut(l + 1);
            prolong(&c[0], &mut f[l], l == 0);
            resid(&u[l], (l == 0).then_some(&v), &mut r[l]);
            wrap_all(&mut r[l]);
            smooth(&r[l], &mut u[l]);
            wrap_all(&mut u[l]);
        }
        resid(&u[0], Some(&v), &mut r[0]);
        wrap_all(&mut r[0]);
    }
    let [sum, max] = sum_and_max(&r[0]);
    [(sum / (cfg.n as f64).powi(3)).sqrt(), max]
}

thread_local! {
    /// The last serial reference computed on this thread, by (config, levels).
    static REFERENCE: RefCell<Option<(Config, usize, [f64; 2])>> = const { RefCell::new(None) };
}

fn reference(cfg: &Config, levels: &[usize]) -> [f64; 2] {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match *cache {
            Some((key, l, norm)) if key == *cfg && l == levels.len() => norm,
            _ => {
                let norm = serial(cfg, levels);
                *cache = Some((*cfg, levels.len(), norm));
                norm
            }
        }
    })
}

/// A final norm (`name`) against the reference's.
pub fn check(name: &str, got: f64, want: f64) -> std::result::Result<(), String> {
    let err = (got - want).abs();
    if err.is_nan() || err > TOLERANCE * want.abs() {
        return Err(format!("residual {name} {got:e} after the V-cycles; the serial reference has {want:e}"));
    }
    Ok(())
}

/// NPB's `norm2u3`: max |r| by one allreduce, then Σ r² by another; (‖r‖, max |r|).
async fn norms<R: Rank>(r: &R, comm: &Communicator, res: &Block, n: usize) -> [f64; 2] {
    r.phase("norm");
    let [sum, max] = r.work(PS_PER_FLOP * 3 * res.points(), || sum_and_max(res)).await;
    let max = allreduce(r, comm, &[max], Op::Max).await[0];
    let sum = allreduce(r, comm, &[sum], Op::Sum).await[0];
    [(sum / (n as f64).powi(3)).sqrt(), max]
}

/// The program.
pub async fn mg<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let procs = Procs::for_ranks(r.size());
    let c = procs.coords(r.rank());
    let step = |a: usize, d: isize| {
        let mut n = c;
        n[a] = (c[a] as isize + d).rem_euclid(procs.dims[a] as isize) as usize;
        procs.rank(n)
    };
    let lay = Layout { procs, nb: [0, 1, 2].map(|a| [step(a, -1), step(a, 1)]) };
    let levels = procs.levels(cfg.n);
    let size = |s: usize| [0, 1, 2].map(|a| s / procs.dims[a]);
    let m0 = size(cfg.n);
    let v = rhs(&cfg, m0, [0, 1, 2].map(|a| c[a] * m0[a]));
    let mut u: Vec<Block> = levels.iter().map(|&s| Block::zeros(size(s))).collect();
    let mut res = u.clone();
    let flops = |per_point: u64, b: &Block| PS_PER_FLOP * per_point * b.points();
    let last = levels.len() - 1;

    r.phase("resid");
    r.work(flops(STENCIL_FLOPS + 1, &u[0]), || resid(&u[0], Some(&v), &mut res[0])).await;
    r.phase("halo");
    halo(&r, &comm, &lay, &mut res[0]).await?;
    norms(&r, &comm, &res[0], cfg.n).await;
    for _ in 0..cfg.iters {
        for l in 1..=last {
            r.phase("restrict");
            let (f, c) = res.split_at_mut(l);
            r.work(flops(STENCIL_FLOPS, &c[0]), || restrict(&f[l - 1], &mut c[0])).await;
            r.phase("halo");
            halo(&r, &comm, &lay, &mut res[l]).await?;
        }
        r.phase("smooth");
        u[last] = Block::zeros(u[last].m);
        r.work(flops(STENCIL_FLOPS + 1, &u[last]), || smooth(&res[last], &mut u[last])).await;
        r.phase("halo");
        halo(&r, &comm, &lay, &mut u[last]).await?;
        for l in (0..last).rev() {
            r.phase("prolong");
            let (f, c) = u.split_at_mut(l + 1);
            r.work(flops(INTERP_FLOPS, &f[l]), || prolong(&c[0], &mut f[l], l == 0)).await;
            r.phase("resid");
            r.work(flops(STENCIL_FLOPS + 1, &u[l]), || resid(&u[l], (l == 0).then_some(&v), &mut res[l])).await;
            r.phase("halo");
            halo(&r, &comm, &lay, &mut res[l]).await?;
            r.phase("smooth");
            r.work(flops(STENCIL_FLOPS + 1, &u[l]), || smooth(&res[l], &mut u[l])).await;
            r.phase("halo");
            halo(&r, &comm, &lay, &mut u[l]).await?;
        }
        r.phase("resid");
        r.work(flops(STENCIL_FLOPS + 1, &u[0]), || resid(&u[0], Some(&v), &mut res[0])).await;
        r.phase("halo");
        halo(&r, &comm, &lay, &mut res[0]).await?;
    }
    let [l2, max] = norms(&r, &comm, &res[0], cfg.n).await;
    let [want_l2, want_max] = reference(&cfg, &levels);
    check("norm", l2, want_l2)?;
    check("max", max, want_max)
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    let max = (cfg.n / 2).pow(3);
    if !job.ranks.is_power_of_two() || job.ranks as usize > max {
        return Err(input_err!(
            "mg: {} ranks cannot split the {n}x{n}x{n} grid of size {} into blocks of whole coarse-level points; \
             accepted: powers of two from 1 to {max}",
            job.ranks,
            job.size,
            n = cfg.n
        ));
    }
    backend.run(job.platform, move |r| mg(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn process_grids_and_levels() {
        let dims = |p| Procs::for_ranks(p).dims;
        assert_eq!(
            [dims(1), dims(2), dims(8), dims(32), dims(1024)],
            [[1, 1, 1], [2, 1, 1], [2, 2, 2], [4, 4, 2], [16, 8, 8]]
        );
        assert_eq!(Procs::for_ranks(8).levels(32), [32, 16, 8, 4, 2]);
        assert_eq!(Procs::for_ranks(1024).levels(32), [32, 16]);
        let p = Procs::for_ranks(32);
        assert_eq!((0..32).map(|r| p.rank(p.coords(r))).collect::<Vec<_>>(), (0..32).collect::<Vec<_>>());
    }

    #[test]
    fn planes_include_earlier_ghosts() {
        let b = Block::zeros([2, 3, 4]);
        // Along x: the 3·4 interior points; along y: x with ghosts (4) × 4 z; along z: 4 × 5.
        assert_eq!([0, 1, 2].map(|a| b.plane(a, 1).len()), [12, 16, 20]);
        assert_eq!(b.plane(0, 2)[0], b.at(2, 1, 1));
    }

    #[test]
    fn prolongation_of_a_constant_is_the_constant() {
        let mut coarse = Block::zeros([2, 2, 2]);
        coarse.v.fill(3.0);
        let mut fine = Block::zeros([4, 4, 4]);
        prolong(&coarse, &mut fine, false);
        assert!(fine.all().all(|(i, j, k)| fine.v[fine.at(i, j, k)] == 3.0), "ghosts included");
    }

    #[test]
    fn the_v_cycles_reduce_the_residual() {
        let cfg = Config { n: 16, iters: 4, seed: 2 };
        let levels = Procs::for_ranks(1).levels(16);
        let none = serial(&Config { iters: 0, ..cfg }, &levels)[0];
        let solved = serial(&cfg, &levels)[0];
        assert!(solved < none / 10.0, "{solved} vs {none}");
    }

    #[test]
    fn verification_catches_a_wrong_norm() {
        assert_eq!(check("norm", 5.3e-6 * (1.0 + 1e-12), 5.3e-6), Ok(()));
        let err = check("norm", 5.3e-6 * (1.0 + 1e-7), 5.3e-6).unwrap_err();
        assert!(err.starts_with("residual norm 5.3000005"), "{err}");
        assert!(check("max", f64::NAN, 1.0).is_err());
    }
}
