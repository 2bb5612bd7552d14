//! NPB FT: a 3-D PDE solved in Fourier space (NAS Parallel Benchmarks, Martin's
//! thesis ch. 4).
//!
//! A complex nx×ny×nz grid of seeded random values (real and imaginary parts in
//! [0, 1), stream 0 of the seed, indexed by grid point) is transformed once by a
//! forward 3-D FFT; then each of `iters` time steps multiplies it by the decay factor
//! `exp(−4απ²|k|²)` (α = 10⁻⁶, k the wave number of each axis in [−n/2, n/2)),
//! transforms a copy back and takes NPB's checksum: the sum of the 1024 points
//! (j mod nx, 3j mod ny, 5j mod nz), j = 1 … 1024, divided by nx·ny·nz.
//!
//! **Decomposition** (NPB's 1-D layout): rank r holds the z-planes `span(nz, P, r)`
//! (x contiguous) for the x and y transforms, and the x-slab `span(nx, P, r)` (z
//! contiguous) for the z transform; a transpose moves the grid between the two. Any
//! P ≥ 1 works; with more ranks than planes some slabs are empty (those ranks only
//! pass 0-byte blocks).
//!
//! **Communication** (NPB 3.4's `ft.f90` with its 1-D layout, which it uses whenever
//! P ≤ nz, over its timed region): each transpose (phase `transpose`) is one
//! alltoallv in which rank s sends rank d its planes' points in d's x-slab:
//! |z_s|·ny·|x_d| complex values of 16 bytes, N³/P² points when P divides nx and nz
//! (NPB's `mpi_alltoall` of `ntdivnp/np` double complex). One transpose forward, one
//! per time step back; per step the checksum (one double complex, 16 bytes) is reduced
//! to rank 0 (NPB's `MPI_Reduce`), which checks it. NPB's untimed warm-up transform
//! and its setup broadcasts are left out, as its timing leaves them out.
//!
//! **Cost model**: one unit is a flop at [`PS_PER_FLOP`] = 1 ns (a sustained
//! 1 Gflop/s, the stencil example's figure: an assumption for a simple radix-2 code on
//! one core, not a measurement), scaled by the platform's CPU speed. A radix-2
//! butterfly is [`FLOPS_PER_BUTTERFLY`] = 10 flops (a complex multiply and a complex
//! add and subtract) and a length-n transform (n/2)·log2 n butterflies (phase `fft`);
//! moving one complex value into or out of a message buffer counts as 1 flop; the
//! decay (phase `evolve`) is 2 flops per point and the copy before the inverse
//! transform 1; the checksum (phase `checksum`) 2 flops per point summed.
//!
//! **Verification**: the per-step checksums equal those of the same computation on
//! the whole grid (the same 1-D transforms in the same order, so every point is
//! bit-identical; only the checksum's summation order differs) within 10⁻⁹ relative.
//! The serial reference is computed once per thread, keyed by (grid, steps, seed).

use super::fft_kernel::{fft, Plan, C};
use crate::app::{App, Backend, Job, Size};
use crate::data::unit_f64s_at;
use crate::examples::stencil::span;
use netsens_core::program::collectives::{alltoallv, reduce};
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::Time;
use netsens_core::Result;
use std::cell::RefCell;
use std::f64::consts::PI;
use std::rc::Rc;

pub const APP: App = App {
    name: "ft",
    description: "NPB FT 3-D FFT PDE solver: slab decomposition, alltoall transposes (few, very large messages)",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per flop: 1 ns, before CPU-speed scaling.
pub const PS_PER_FLOP: Time = 1000;
/// A radix-2 butterfly: a complex multiply (6 flops) and a complex add and subtract (4).
pub const FLOPS_PER_BUTTERFLY: u64 = 10;
/// NPB's diffusion constant.
const ALPHA: f64 = 1e-6;
/// NPB's checksum sums this many points.
const CHECKSUM_POINTS: usize = 1024;
/// Relative tolerance of the checksums against the serial reference.
pub const TOLERANCE: f64 = 1e-9;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    pub iters: u32,
    pub seed: u64,
}

impl Config {
    /// NPB's classes: tiny = S (64³), small = W (128×128×32), paper = A
    /// (256×256×128); 6 steps each, as NPB. The seed ran class B (512×256×256: its
    /// 0.5 MB messages at 32 ranks); class A keeps a run and its reference under 0.5 GB.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (nx, ny, nz) = match size {
            Size::Tiny => (64, 64, 64),
            Size::Small => (128, 128, 32),
            Size::Paper => (256, 256, 128),
        };
        Config { nx, ny, nz, iters: 6, seed }
    }

    fn points(&self) -> usize {
        self.nx * self.ny * self.nz
    }
}

/// Butterflies of `lines` transforms of length n.
fn butterflies(lines: usize, n: usize) -> u64 {
    (lines * n / 2 * n.trailing_zeros() as usize) as u64
}

/// The three transforms' plans.
struct Plans {
    x: Plan,
    y: Plan,
    z: Plan,
}

/// x then y transforms (inverse: y then x) of every z-plane of `a` (x contiguous).
fn ffts_xy(a: &mut [C], cfg: &Config, plans: &Plans, inverse: bool) {
    let (nx, ny) = (cfg.nx, cfg.ny);
    let along_x = |a: &mut [C]| a.chunks_exact_mut(nx).for_each(|row| fft(row, &plans.x, inverse));
    let along_y = |a: &mut [C]| {
        let mut line = vec![[0.0; 2]; ny];
        for plane in a.chunks_exact_mut(nx * ny) {
            for x in 0..nx {
                (0..ny).for_each(|y| line[y] = plane[y * nx + x]);
                fft(&mut line, &plans.y, inverse);
                (0..ny).for_each(|y| plane[y * nx + x] = line[y]);
            }
        }
    };
    if inverse {
        along_y(a);
        along_x(a);
    } else {
        along_x(a);
        along_y(a);
    }
}

/// z transforms of an x-slab (z contiguous).
fn ffts_z(b: &mut [C], cfg: &Config, plans: &Plans, inverse: bool) {
    b.chunks_exact_mut(cfg.nz).for_each(|col| fft(col, &plans.z, inverse));
}

/// From z-planes `zs` (x contiguous), the points of x-slab `xd`, in (z, y, x) order.
fn pack_planes(a: &[C], cfg: &Config, zs: (usize, usize), xd: (usize, usize)) -> Vec<C> {
    let mut out = Vec::with_capacity((zs.1 - zs.0) * cfg.ny * (xd.1 - xd.0));
    for row in a.chunks_exact(cfg.nx) {
        out.extend_from_slice(&row[xd.0..xd.1]);
    }
    out
}

/// Into x-slab `xs` (z contiguous), the points of z-planes `zd` sent by [`pack_planes`].
fn unpack_planes(b: &mut [C], cfg: &Config, xs: (usize, usize), zd: (usize, usize), data: &[C]) {
    let (ny, nz, w) = (cfg.ny, cfg.nz, xs.1 - xs.0);
    for (i, &v) in data.iter().enumerate() {
        let (x, y, z) = (i % w, i / w % ny, zd.0 + i / (w * ny));
        b[(x * ny + y) * nz + z] = v;
    }
}

/// From x-slab `xs` (z contiguous), the points of z-planes `zd`, in (x, y, z) order.
fn pack_slab(b: &[C], cfg: &Config, zd: (usize, usize)) -> Vec<C> {
    b.chunks_exact(cfg.nz).flat_map(|col| col[zd.0..zd.1].iter().copied()).collect()
}

/// Into z-planes `zs` (x contiguous), the points of x-slab `xd` sent by [`pack_slab`].
fn unpack_slab(a: &mut [C], cfg: &Config, zs: (usize, usize), xd: (usize, usize), data: &[C]) {
    let (nx, ny, h) = (cfg.nx, cfg.ny, zs.1 - zs.0);
    for (i, &v) in data.iter().enumerate() {
        let (z, y, x) = (i % h, i / h % ny, xd.0 + i / (h * ny));
        a[(z * ny + y) * nx + x] = v;
    }
}

/// The initial values of z-planes `zs`.
fn initial(cfg: &Config, zs: (usize, usize)) -> Vec<C> {
    let plane = cfg.nx * cfg.ny;
    let v = unit_f64s_at(cfg.seed, 0, 2 * (zs.0 * plane) as u64, 2 * (zs.1 - zs.0) * plane);
    v.chunks_exact(2).map(|c| [c[0], c[1]]).collect()
}

/// The decay factor of every point of x-slab `xs` (z contiguous).
fn decay(cfg: &Config, xs: (usize, usize)) -> Vec<f64> {
    let k2 = |i: usize, n: usize| {
        let k = if i < n / 2 { i as f64 } else { i as f64 - n as f64 };
        k * k
    };
    let mut out = Vec::with_capacity((xs.1 - xs.0) * cfg.ny * cfg.nz);
    for x in xs.0..xs.1 {
        for y in 0..cfg.ny {
            for z in 0..cfg.nz {
                out.push((-4.0 * ALPHA * PI * PI * (k2(x, cfg.nx) + k2(y, cfg.ny) + k2(z, cfg.nz))).exp());
            }
        }
    }
    out
}

/// The checksum points held by z-planes `zs`, summed in order of j.
fn checksum_part(a: &[C], cfg: &Config, zs: (usize, usize)) -> C {
    let mut sum = [0.0; 2];
    for j in 1..=CHECKSUM_POINTS {
        let (x, y, z) = (j % cfg.nx, 3 * j % cfg.ny, 5 * j % cfg.nz);
        if (zs.0..zs.1).contains(&z) {
            let v = a[((z - zs.0) * cfg.ny + y) * cfg.nx + x];
            sum = [sum[0] + v[0], sum[1] + v[1]];
        }
    }
    sum
}

fn checksum_points(cfg: &Config, zs: (usize, usize)) -> usize {
    (1..=CHECKSUM_POINTS).filter(|j| (zs.0..zs.1).contains(&(5 * j % cfg.nz))).count()
}

/// The checksums of the computation on the whole grid, step by step.
fn serial(cfg: &Config) -> Vec<C> {
    let plans = Plans { x: Plan::new(cfg.nx), y: Plan::new(cfg.ny), z: Plan::new(cfg.nz) };
    let (all_z, all_x) = ((0, cfg.nz), (0, cfg.nx));
    let mut a = initial(cfg, all_z);
    ffts_xy(&mut a, cfg, &plans, false);
    let mut b = vec![[0.0; 2]; cfg.points()];
    unpack_planes(&mut b, cfg, all_x, all_z, &pack_planes(&a, cfg, all_z, all_x));
    ffts_z(&mut b, cfg, &plans, false);
    let factor = decay(cfg, all_x);
    let scale = 1.0 / cfg.points() as f64;
    let mut sums = Vec::new();
    for _ in 0..cfg.iters {
        b.iter_mut().zip(&factor).for_each(|(v, f)| *v = [v[0] * f, v[1] * f]);
        let mut c = b.clone();
        ffts_z(&mut c, cfg, &plans, true);
        unpack_slab(&mut a, cfg, all_z, all_x, &pack_slab(&c, cfg, all_z));
        ffts_xy(&mut a, cfg, &plans, true);
        let s = checksum_part(&a, cfg, all_z);
        sums.push([s[0] * scale, s[1] * scale]);
    }
    sums
}

thread_local! {
    /// The last serial reference computed on this thread.
    static REFERENCE: RefCell<Option<(Config, Rc<Vec<C>>)>> = const { RefCell::new(None) };
}

fn reference(cfg: &Config) -> Rc<Vec<C>> {
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((key, sums)) if key == cfg => sums.clone(),
            _ => {
                let sums = Rc::new(serial(cfg));
                *cache = Some((*cfg, sums.clone()));
                sums
            }
        }
    })
}

/// Checksum of step `step` (0-based) against the reference's.
pub fn check(step: usize, got: C, want: C) -> std::result::Result<(), String> {
    let err = (got[0] - want[0]).hypot(got[1] - want[1]);
    if err.is_nan() || err > TOLERANCE * want[0].hypot(want[1]) {
        return Err(format!(
            "checksum of step {} is ({:e}, {:e}); the serial reference has ({:e}, {:e})",
            step + 1,
            got[0],
            got[1],
            want[0],
            want[1]
        ));
    }
    Ok(())
}

fn to_bytes(v: &[C]) -> Vec<u8> {
    encode(v.as_flattened())
}

fn from_bytes(bytes: &[u8]) -> Vec<C> {
    decode::<f64>(bytes).chunks_exact(2).map(|c| [c[0], c[1]]).collect()
}

/// The program.
pub async fn ft<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let comm = r.world();
    let (p, me) = (r.size(), r.rank());
    let zs: Vec<(usize, usize)> = (0..p).map(|i| span(cfg.nz, p, i)).collect();
    let xs: Vec<(usize, usize)> = (0..p).map(|i| span(cfg.nx, p, i)).collect();
    let (my_z, my_x) = (zs[me as usize], xs[me as usize]);
    let (nzl, nxl) = (my_z.1 - my_z.0, my_x.1 - my_x.0);
    let plans = Plans { x: Plan::new(cfg.nx), y: Plan::new(cfg.ny), z: Plan::new(cfg.nz) };
    let flops = |n: u64| PS_PER_FLOP * n as Time;
    let bf = FLOPS_PER_BUTTERFLY;
    let cost_xy = flops(bf * (butterflies(nzl * cfg.ny, cfg.nx) + butterflies(nzl * cfg.nx, cfg.ny)));
    let cost_z = flops(bf * butterflies(nxl * cfg.ny, cfg.nz));
    let (planes_points, slab_points) = ((nzl * cfg.nx * cfg.ny) as u64, (nxl * cfg.ny * cfg.nz) as u64);

    let mut a = initial(&cfg, my_z);
    let mut b = vec![[0.0; 2]; nxl * cfg.ny * cfg.nz];
    r.phase("fft");
    r.work(cost_xy, || ffts_xy(&mut a, &cfg, &plans, false)).await;
    r.phase("transpose");
    let blocks = r
        .work(flops(planes_points), || xs.iter().map(|&xd| to_bytes(&pack_planes(&a, &cfg, my_z, xd))).collect())
        .await;
    let got = alltoallv(&r, &comm, blocks).await;
    r.work(flops(slab_points), || {
        got.iter().zip(&zs).for_each(|(m, &zd)| unpack_planes(&mut b, &cfg, my_x, zd, &from_bytes(m)))
    })
    .await;
    r.phase("fft");
    r.work(cost_z, || ffts_z(&mut b, &cfg, &plans, false)).await;

    let factor = decay(&cfg, my_x);
    let want = reference(&cfg);
    let scale = 1.0 / cfg.points() as f64;
    for (step, &expected) in want.iter().enumerate() {
        r.phase("evolve");
        let mut c = r
            .work(flops(3 * slab_points), || {
                b.iter_mut().zip(&factor).for_each(|(v, f)| *v = [v[0] * f, v[1] * f]);
                b.clone()
            })
            .await;
        r.phase("fft");
        r.work(cost_z, || ffts_z(&mut c, &cfg, &plans, true)).await;
        r.phase("transpose");
        let blocks =
            r.work(flops(slab_points), || zs.iter().map(|&zd| to_bytes(&pack_slab(&c, &cfg, zd))).collect()).await;
        let got = alltoallv(&r, &comm, blocks).await;
        r.work(flops(planes_points), || {
            got.iter().zip(&xs).for_each(|(m, &xd)| unpack_slab(&mut a, &cfg, my_z, xd, &from_bytes(m)))
        })
        .await;
        r.phase("fft");
        r.work(cost_xy, || ffts_xy(&mut a, &cfg, &plans, true)).await;
        r.phase("checksum");
        let part = r.work(flops(2 * checksum_points(&cfg, my_z) as u64), || checksum_part(&a, &cfg, my_z)).await;
        if let Some(sum) = reduce(&r, &comm, 0, &part, Op::Sum).await {
            check(step, [sum[0] * scale, sum[1] * scale], expected)?;
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| ft(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::fft_kernel::mul;

    /// The discrete Fourier transform by its definition.
    fn dft(a: &[C], inverse: bool) -> Vec<C> {
        let n = a.len();
        let sign = if inverse { 2.0 } else { -2.0 };
        (0..n)
            .map(|k| {
                a.iter().enumerate().fold([0.0; 2], |s, (j, &v)| {
                    let (im, re) = (sign * PI * (j * k) as f64 / n as f64).sin_cos();
                    let t = mul(v, [re, im]);
                    [s[0] + t[0], s[1] + t[1]]
                })
            })
            .collect()
    }

    #[test]
    fn fft_matches_the_definition_and_inverts() {
        let a: Vec<C> = (0..16).map(|i| [(i as f64 * 0.7).sin(), (i as f64 * 0.3).cos()]).collect();
        let plan = Plan::new(16);
        let mut f = a.clone();
        fft(&mut f, &plan, false);
        for (x, y) in f.iter().zip(dft(&a, false)) {
            assert!((x[0] - y[0]).abs() < 1e-12 && (x[1] - y[1]).abs() < 1e-12);
        }
        fft(&mut f, &plan, true);
        for (x, y) in f.iter().zip(&a) {
            assert!((x[0] / 16.0 - y[0]).abs() < 1e-14 && (x[1] / 16.0 - y[1]).abs() < 1e-14);
        }
    }

    #[test]
    fn transposes_move_every_point_and_back() {
        // A 4×2×4 grid over 2 ranks, planes to slabs and back by hand-made blocks.
        let cfg = Config { nx: 4, ny: 2, nz: 4, iters: 0, seed: 1 };
        let grid = initial(&cfg, (0, 4));
        let halves = [(0, 2), (2, 4)];
        let planes: Vec<&[C]> = grid.chunks(16).collect();
        let mut slabs = vec![vec![[0.0; 2]; 16]; 2];
        for (d, slab) in slabs.iter_mut().enumerate() {
            for (s, plane) in planes.iter().enumerate() {
                unpack_planes(slab, &cfg, halves[d], halves[s], &pack_planes(plane, &cfg, halves[s], halves[d]));
            }
        }
        // Point (x=3, y=1, z=2) sits in slab 1 at ((3−2)·2 + 1)·4 + 2.
        assert_eq!(slabs[1][(2 + 1) * 4 + 2], grid[(2 * 2 + 1) * 4 + 3]);
        let mut back = vec![vec![[0.0; 2]; 16]; 2];
        for (d, plane) in back.iter_mut().enumerate() {
            for (s, slab) in slabs.iter().enumerate() {
                unpack_slab(plane, &cfg, halves[d], halves[s], &pack_slab(slab, &cfg, halves[d]));
            }
        }
        assert_eq!(back.concat(), grid);
    }

    #[test]
    fn verification_catches_a_wrong_checksum() {
        let want = [512.25, -3.5];
        assert_eq!(check(0, [512.25 + 1e-8, -3.5], want), Ok(()));
        let err = check(2, [512.25 * (1.0 + 1e-6), -3.5], want).unwrap_err();
        assert!(err.starts_with("checksum of step 3 is (5.122"), "{err}");
        assert!(check(0, [f64::NAN, 0.0], want).is_err());
    }

    #[test]
    fn the_decay_changes_the_checksum_every_step() {
        let sums = serial(&Config { nx: 8, ny: 4, nz: 8, iters: 2, seed: 9 });
        assert_eq!(sums.len(), 2);
        assert_ne!(sums[0], sums[1]);
    }
}
