//! P-Ray: a ray tracer over a scene spread across the ranks, as the Split-C P-Ray of
//! Martin et al. (ISCA'97) renders it: each rank traces its share of the pixels and
//! reads every scene object it does not hold with a blocking `get` (a round trip),
//! through a software cache of object records.
//!
//! **Scene**: N spheres in the unit cube, sphere i from draws 8i .. 8i+8 of stream 0 of
//! the seed (random access: each rank generates only its own): radius r₀·(0.5 + u) with
//! r₀ = 0.35/m (m = ⌈N^(1/3)⌉, so their volumes add up to about 22 % of the cube
//! whatever N), a centre inside the cube, a colour, and a mirror reflectivity up to 0.4
//! (about 40 % of the spheres reflect). Sphere i belongs to rank i mod P, which exposes
//! its spheres as records of [`RECORD_BYTES`] = 64 (centre, radius, colour,
//! reflectivity), the k-th at offset 64k. One point light outside the cube, a camera in
//! front of it.
//!
//! **Grid**: a uniform grid of G³ cells over the cube (G = m by default), each cell
//! listing, in id order, the spheres whose bounding box meets it. A ray walks the cells
//! it crosses (Amanatides–Woo), tests the spheres listed there (each once per ray), and
//! stops when its nearest hit lies inside the current cell, so it reads only spheres it
//! may hit. The grid holds ids, not geometry: each rank sends the cell range of each of
//! its spheres' bounding boxes (6 × 16 bits) in one allgather and every rank builds the
//! same grid. The allgather also tells a rank that every other rank has written its
//! window (each writes it before it joins), so no barrier is needed.
//!
//! **Rendering**: a primary ray per pixel centre; at a hit, a shadow ray to the light
//! (any hit stops it) when the surface faces the light, and one mirror bounce off a
//! reflective sphere (with its own shadow ray): colour = Σ weight·(1 − reflectivity)·
//! (ambient 0.15 + 0.85·lit)·sphere colour, plus the background where a ray leaves.
//! Pixels go out in spans of [`SPAN`] = 16 along a row, numbered row-major; span s
//! belongs to rank ⌊((s·A) mod S)·P / S⌋, S the number of spans and A the first integer
//! from ⌊0.618·S⌋ up prime to S ([`Config::span_owner`]): s ↦ s·A mod S permutes the
//! spans (a golden-ratio Weyl sequence, so neighbours land far apart), and ranks take
//! equal slices of the permuted order. Every rank gets ⌊S/P⌋ or ⌈S/P⌉ spans of mixed
//! cost from all over the image, whatever P. With more ranks than spans, some ranks
//! render nothing.
//!
//! **Software cache**: the spheres read, found through a table of N slot numbers
//! indexed by sphere id (ids are dense, so nothing is evicted), kept for the whole run: a hit costs no
//! message and no extra time, a miss is one 64-byte `get`. Every access to a remote
//! sphere counts `cache_hit` or `cache_miss`, so `cache_miss` equals `get`.
//! [`Config::cache`] = false (tests) reads on every access.
//!
//! **Phases**: `scene` (generate and expose this rank's spheres, allgather the bounds,
//! build the grid), `render`, `verify`.
//!
//! **Communication**: one allgather of 12·⌈N/P⌉ bytes per rank; one get (a 1-byte
//! request, a 64-byte reply) per distinct remote sphere a rank's rays test; the
//! verification's reduce of 16 bytes.
//!
//! **Cost model** (the suite's 1 ns per flop; round figures, assumptions rather than
//! measurements, scaled by the platform's CPU speed): a ray's setup and clipping to the
//! cube [`RAY_PS`] = 20 ns; a grid step (three compares, an add, loading the cell's
//! list) [`STEP_PS`] = 10 ns; a ray–sphere test (a dot product, a discriminant, a
//! square root; about 20 flops plus loading the record) [`TEST_PS`] = 30 ns; shading a
//! hit (point, normal, light direction, Lambert, reflection) [`SHADE_PS`] = 50 ns;
//! building the grid [`INDEX_PS`] = 10 ns per (sphere, cell) entry. Rendering charges
//! as it goes, with `compute` before each remote read (the cost of a stretch is known
//! only once it has run), so a run that measures compute still charges the model there.
//!
//! **Verification**: every rank compares each of its pixels, bit for bit, with a serial
//! render of the whole image by the same code over local spheres (computed once per
//! thread for the input; the image does not depend on P). A reduce brings each rank's
//! pixel count and a checksum of its pixels (Σ (index mod 2¹⁶ + 1) · 24-bit colour) to
//! rank 0, which compares them with W·H and the serial image's checksum: so every pixel
//! was rendered, once, and right.
//!
//! **Sizes** (image, spheres, grid): tiny 32×32, 64, 4³; small 256×256, 4096, 16³;
//! paper 1024×1024, 16384, 26³. The seeds at hand state no input for P-Ray; the paper
//! size is a megapixel image of a scene of 16 K objects, the scale of the seed's era.

use super::pray_trace::{Local, Remote, ABSENT};
use super::ready;
use crate::app::{App, Backend, Job, Size};
use netsens_core::program::collectives::{allgather, reduce};
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::Time;
use netsens_core::Result;
use std::cell::RefCell;
use std::rc::Rc;

use super::pray_scene::cube_root_up;
pub use super::pray_scene::{Grid, Sphere};
pub use super::pray_trace::{checksum_term, pixel, Mailbox, Scene, RAY_PS, SHADE_PS, STEP_PS, TEST_PS};

pub const APP: App = App {
    name: "pray",
    description: "ray tracer over spheres spread across the ranks; remote spheres read with blocking gets, cached",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per (sphere, cell) entry of the grid: 10 ns.
pub const INDEX_PS: Time = 10_000;

/// Bytes of a sphere's record.
pub const RECORD_BYTES: usize = 64;
/// Pixels per span of a row (the unit of the pixel distribution).
pub const SPAN: usize = 16;
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub width: usize,
    pub height: usize,
    pub spheres: usize,
    /// Grid cells per side.
    pub grid: usize,
    /// Keep the spheres read (false: read on every access; for tests).
    pub cache: bool,
    pub seed: u64,
}

impl Config {
    /// tiny: 32×32 pixels, 64 spheres; small: 256×256, 4096; paper: 1024×1024, 16384.
    pub fn preset(size: Size, seed: u64) -> Config {
        let (side, spheres) = match size {
            Size::Tiny => (32, 64),
            Size::Small => (256, 4096),
            Size::Paper => (1024, 16384),
        };
        Config { width: side, height: side, spheres, grid: cube_root_up(spheres), cache: true, seed }
    }

    /// The same scene and image, whatever the cache does.
    fn image_key(&self) -> Config {
        Config { cache: true, ..*self }
    }

    /// Spans in the image (row-major: span j of row y is span y·⌈W/16⌉ + j).
    fn spans(&self) -> usize {
        self.width.div_ceil(SPAN) * self.height
    }

    /// The multiplier A that scatters the S spans: the first integer from ⌊0.618·S⌋ up
    /// that is prime to S, so that s ↦ s·A mod S permutes them.
    fn multiplier(&self) -> u64 {
        let n = self.spans() as u64;
        let gcd = |mut a: u64, mut b: u64| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        ((n * 618 / 1000).max(1)..).find(|&a| gcd(a, n) == 1).expect("an integer prime to S")
    }

    /// The rank that renders span `s`: ⌊((s·A) mod S)·P / S⌋ for the S spans.
    pub fn span_owner(&self, s: usize, ranks: u32) -> u32 {
        let n = self.spans() as u128;
        let v = s as u128 * u128::from(self.multiplier()) % n;
        (v * u128::from(ranks) / n) as u32
    }

    /// The spans rank `me` renders, in row-major order: s = v·A⁻¹ mod S for the
    /// permuted positions v with ⌊v·P/S⌋ = me, that is ⌈me·S/P⌉ ≤ v < ⌈(me+1)·S/P⌉.
    pub fn spans_of(&self, me: u32, ranks: u32) -> Vec<usize> {
        let n = self.spans() as i128;
        // A⁻¹ mod S by the extended Euclidean algorithm.
        let (mut r0, mut r1, mut t0, mut t1) = (n, i128::from(self.multiplier()), 0i128, 1i128);
        while r1 != 0 {
            let q = r0 / r1;
            (r0, r1, t0, t1) = (r1, r0 - q * r1, t1, t0 - q * t1);
        }
        let inverse = t0.rem_euclid(n);
        let first = |r: u32| (i128::from(r) * n + i128::from(ranks) - 1) / i128::from(ranks);
        let mut spans: Vec<usize> = (first(me)..first(me + 1)).map(|v| (v * inverse % n) as usize).collect();
        spans.sort_unstable();
        spans
    }

    /// The pixels (row-major indices) rank `me` renders, in order.
    pub fn pixels_of(&self, me: u32, ranks: u32) -> Vec<usize> {
        let per_row = self.width.div_ceil(SPAN);
        let mut out = Vec::new();
        for s in self.spans_of(me, ranks) {
            let (y, j) = (s / per_row, s % per_row);
            out.extend(y * self.width + j * SPAN..y * self.width + ((j + 1) * SPAN).min(self.width));
        }
        out
    }
}

/// The serial render of the whole image, row-major.
fn serial(cfg: &Config) -> Vec<[f64; 3]> {
    let spheres: Vec<Sphere> = (0..cfg.spheres).map(|i| Sphere::generate(cfg, i)).collect();
    let bounds: Vec<[u16; 6]> = spheres.iter().map(|s| s.bounds(cfg.grid)).collect();
    let grid = Grid::build(cfg.grid, &bounds);
    let mut mail = Mailbox::new(cfg.spheres);
    (0..cfg.width * cfg.height).map(|i| ready(pixel(cfg, &grid, &mut Local(&spheres), &mut mail, i))).collect()
}

/// An image: the colour of every pixel, row-major.
type Image = Rc<Vec<[f64; 3]>>;

thread_local! {
    /// The last serial image computed on this thread, by input.
    static REFERENCE: RefCell<Option<(Config, Image)>> = const { RefCell::new(None) };
}

/// The serial image for `cfg`, computed once per thread.
pub fn reference(cfg: &Config) -> Image {
    let key = cfg.image_key();
    REFERENCE.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((k, image)) if *k == key => image.clone(),
            _ => {
                let image = Rc::new(serial(cfg));
                *cache = Some((key, image.clone()));
                image
            }
        }
    })
}

/// Compare a rank's pixels with the serial image, bit for bit.
fn verify_pixels(cfg: &Config, me: u32, pixels: &[usize], colours: &[[f64; 3]]) -> std::result::Result<(), String> {
    let want = reference(cfg);
    for (&i, c) in pixels.iter().zip(colours) {
        if c.map(f64::to_bits) != want[i].map(f64::to_bits) {
            return Err(format!(
                "pixel ({}, {}) rendered by rank {me} is {c:?}; the serial render has {:?}",
                i % cfg.width,
                i / cfg.width,
                want[i]
            ));
        }
    }
    Ok(())
}

/// The program.
pub async fn pray<R: Rank>(r: R, cfg: Config) -> std::result::Result<(), String> {
    let (world, ranks, me) = (r.world(), r.size(), r.rank());
    r.phase("scene");
    // This rank's spheres: ids me, me + P, me + 2P, …
    let per_rank = cfg.spheres.div_ceil(ranks as usize);
    let own: Vec<Sphere> =
        (me as usize..cfg.spheres).step_by(ranks as usize).map(|i| Sphere::generate(&cfg, i)).collect();
    r.expose(own.len() * RECORD_BYTES);
    r.window(|w| {
        for (k, s) in own.iter().enumerate() {
            w[k * RECORD_BYTES..(k + 1) * RECORD_BYTES].copy_from_slice(&s.encode());
        }
    });
    // Bounds of every rank's spheres, padded to the same count per rank.
    let mut mine: Vec<u16> = own.iter().flat_map(|s| s.bounds(cfg.grid)).collect();
    mine.resize(per_rank * 6, 0);
    let grid = {
        let everyone: Vec<u16> = decode(&allgather(&r, &world, encode(&mine)).await);
        let bounds: Vec<[u16; 6]> = (0..cfg.spheres)
            .map(|i| {
                let at = ((i % ranks as usize) * per_rank + i / ranks as usize) * 6;
                everyone[at..at + 6].try_into().expect("6 bounds")
            })
            .collect();
        Grid::build(cfg.grid, &bounds)
    };
    r.compute(INDEX_PS * grid.entries() as Time).await;

    r.phase("render");
    let pixels = cfg.pixels_of(me, ranks);
    let mut scene = Remote {
        r: &r,
        me,
        ranks,
        own: &own,
        cached: Vec::new(),
        slot: vec![ABSENT; cfg.spheres],
        enabled: cfg.cache,
        pending: 0,
    };
    let mut mail = Mailbox::new(cfg.spheres);
    let mut colours = Vec::with_capacity(pixels.len());
    for &i in &pixels {
        colours.push(pixel(&cfg, &grid, &mut scene, &mut mail, i).await);
    }
    scene.flush().await;

    r.phase("verify");
    verify_pixels(&cfg, me, &pixels, &colours)?;
    let sum = pixels.iter().zip(&colours).fold(0u64, |acc, (&i, &c)| acc.wrapping_add(checksum_term(i, c)));
    if let Some(total) = reduce(&r, &world, 0, &[pixels.len() as u64, sum], Op::Sum).await {
        let want = reference(&cfg);
        let expected = want.iter().enumerate().fold(0u64, |acc, (i, &c)| acc.wrapping_add(checksum_term(i, c)));
        let n = (cfg.width * cfg.height) as u64;
        if total != [n, expected] {
            return Err(format!(
                "the ranks rendered {} pixels with checksum {}; the image has {n} with checksum {expected}",
                total[0], total[1]
            ));
        }
    }
    Ok(())
}

pub(crate) fn run<B: Backend>(job: &Job<'_>, backend: B) -> Result<B::Output> {
    let cfg = Config::preset(job.size, job.seed);
    backend.run(job.platform, move |r| pray(r, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::pray_trace::BACKGROUND;

    #[test]
    fn every_pixel_has_one_owner() {
        let cfg = Config::preset(Size::Tiny, 0);
        for ranks in [1, 3, 8, 1024] {
            let mut all: Vec<usize> = (0..ranks).flat_map(|r| cfg.pixels_of(r, ranks)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..cfg.width * cfg.height).collect::<Vec<_>>(), "{ranks} ranks");
        }
        // 64 spans; A = 39 (⌊0.618·64⌋, odd): span s to ⌊(39·s mod 64)·P / 64⌋.
        assert_eq!([0, 1, 2, 3].map(|s| cfg.span_owner(s, 8)), [0, 4, 1, 6]);
        assert_eq!([1, 2, 5].map(|s| cfg.span_owner(s, 3)), [1, 0, 0]);
        // spans_of inverts span_owner.
        for ranks in [1, 3, 8, 100] {
            for me in 0..ranks {
                let mine: Vec<usize> = (0..64).filter(|&s| cfg.span_owner(s, ranks) == me).collect();
                assert_eq!(cfg.spans_of(me, ranks), mine, "rank {me} of {ranks}");
            }
        }
        // Every rank gets ⌊64/P⌋ or ⌈64/P⌉ spans.
        for ranks in [3, 8, 10] {
            let counts: Vec<usize> = (0..ranks).map(|r| cfg.pixels_of(r, ranks).len() / SPAN).collect();
            assert!(
                counts.iter().all(|&c| c == 64 / ranks as usize || c == 64usize.div_ceil(ranks as usize)),
                "{counts:?}"
            );
        }
    }

    #[test]
    fn the_grid_changes_no_pixel() {
        // One cell: every ray tests every sphere. The grid only skips spheres a ray
        // cannot hit first, so the image is the same.
        let cfg = Config::preset(Size::Tiny, 6);
        let one = Config { grid: 1, ..cfg };
        let (a, b) = (serial(&cfg), serial(&one));
        assert_eq!(a, b);
        // And the picture is not empty: at least a quarter of the pixels show a sphere
        // (the 64 spheres of tiny cover about a third of the view).
        let background = a.iter().filter(|c| **c == BACKGROUND).count();
        assert!(background < a.len() * 3 / 4, "{background} of {} pixels are background", a.len());
    }

    #[test]
    fn verification_catches_a_wrong_pixel() {
        let cfg = Config::preset(Size::Tiny, 7);
        let want = reference(&cfg);
        let pixels = cfg.pixels_of(1, 3);
        let mut colours: Vec<[f64; 3]> = pixels.iter().map(|&i| want[i]).collect();
        assert_eq!(verify_pixels(&cfg, 1, &pixels, &colours), Ok(()));
        colours[5][2] = f64::from_bits(colours[5][2].to_bits() ^ 1);
        let err = verify_pixels(&cfg, 1, &pixels, &colours).unwrap_err();
        let (x, y) = (pixels[5] % cfg.width, pixels[5] / cfg.width);
        assert!(err.starts_with(&format!("pixel ({x}, {y}) rendered by rank 1 is ")), "{err}");
    }
}
