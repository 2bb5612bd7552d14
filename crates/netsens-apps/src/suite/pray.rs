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

use super::ready;
use crate::data::unit_f64s_at;
use crate::registry::{App, Backend, Job, Size};
use netsens_core::program::collectives::{allgather, reduce};
use netsens_core::program::{decode, encode, Op, Rank};
use netsens_core::time::Time;
use netsens_core::Result;
use std::cell::RefCell;
use std::rc::Rc;

pub const APP: App = App {
    name: "pray",
    description: "ray tracer over spheres spread across the ranks; remote spheres read with blocking gets, cached",
    sizes: &Size::ALL,
    verifies: true,
    hidden: false,
};

/// Charge per ray (setup, clipping to the cube): 20 ns, before CPU-speed scaling.
pub const RAY_PS: Time = 20_000;
/// Charge per grid cell a ray visits: 10 ns.
pub const STEP_PS: Time = 10_000;
/// Charge per ray–sphere test: 30 ns.
pub const TEST_PS: Time = 30_000;
/// Charge per hit shaded: 50 ns.
pub const SHADE_PS: Time = 50_000;
/// Charge per (sphere, cell) entry of the grid: 10 ns.
pub const INDEX_PS: Time = 10_000;

/// A sphere id's slot in the cache when it has not been read.
const ABSENT: u32 = u32::MAX;
/// Bytes of a sphere's record.
pub const RECORD_BYTES: usize = 64;
/// Pixels per span of a row (the unit of the pixel distribution).
pub const SPAN: usize = 16;
/// Mirror bounces after the primary ray.
const BOUNCES: u32 = 1;
const AMBIENT: f64 = 0.15;
const BACKGROUND: [f64; 3] = [0.1, 0.12, 0.2];
const EYE: [f64; 3] = [0.5, 0.5, -1.5];
/// Width and height of the view at the cube's front face.
const VIEW: f64 = 1.2;
const LIGHT: [f64; 3] = [2.0, 3.0, -2.0];
/// Hits nearer than this along a ray are ignored (a surface does not shadow itself).
const T_MIN: f64 = 1e-9;
/// Secondary rays start this far off the surface, along its normal.
const LIFT: f64 = 1e-7;

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

/// The smallest m with m³ ≥ n.
fn cube_root_up(n: usize) -> usize {
    (1..).find(|m| m * m * m >= n).expect("a cube root")
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

/// A sphere of the scene.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sphere {
    pub centre: [f64; 3],
    pub radius: f64,
    pub colour: [f64; 3],
    pub reflect: f64,
}

impl Sphere {
    /// Sphere `id` of the scene.
    pub fn generate(cfg: &Config, id: usize) -> Sphere {
        let u = unit_f64s_at(cfg.seed, 0, id as u64 * 8, 8);
        let radius = 0.35 / cube_root_up(cfg.spheres) as f64 * (0.5 + u[3]);
        Sphere {
            centre: [0, 1, 2].map(|k| radius + (1.0 - 2.0 * radius) * u[k]),
            radius,
            colour: [4, 5, 6].map(|k| 0.2 + 0.8 * u[k]),
            reflect: (u[7] - 0.6).max(0.0),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let [x, y, z] = self.centre;
        let [r, g, b] = self.colour;
        encode(&[x, y, z, self.radius, r, g, b, self.reflect])
    }

    fn decode(bytes: &[u8]) -> Sphere {
        let v: Vec<f64> = decode(bytes);
        Sphere { centre: [v[0], v[1], v[2]], radius: v[3], colour: [v[4], v[5], v[6]], reflect: v[7] }
    }

    /// The grid cells its bounding box meets: low and high cell on each axis.
    pub fn bounds(&self, g: usize) -> [u16; 6] {
        let cell = |v: f64| ((v * g as f64).floor().max(0.0) as usize).min(g - 1) as u16;
        let lo = self.centre.map(|c| cell(c - self.radius));
        let hi = self.centre.map(|c| cell(c + self.radius));
        [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]]
    }
}

/// The uniform grid: for every cell, the ids of the spheres whose box meets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub g: usize,
    start: Vec<u32>,
    ids: Vec<u32>,
}

impl Grid {
    /// The grid of the spheres with cell ranges `bounds` (by id).
    pub fn build(g: usize, bounds: &[[u16; 6]]) -> Grid {
        let cells_of = |b: [u16; 6]| {
            let r = move |k: usize| b[k] as usize..=b[k + 3] as usize;
            r(0).flat_map(move |x| r(1).flat_map(move |y| r(2).map(move |z| (x * g + y) * g + z)))
        };
        let mut start = vec![0u32; g * g * g + 1];
        for b in bounds {
            cells_of(*b).for_each(|c| start[c + 1] += 1);
        }
        for c in 0..g * g * g {
            start[c + 1] += start[c];
        }
        let mut fill = start.clone();
        let mut ids = vec![0u32; start[g * g * g] as usize];
        for (id, b) in bounds.iter().enumerate() {
            for c in cells_of(*b) {
                ids[fill[c] as usize] = id as u32;
                fill[c] += 1;
            }
        }
        Grid { g, start, ids }
    }

    /// The spheres listed in cell `c`.
    pub fn cell(&self, c: usize) -> &[u32] {
        &self.ids[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// (sphere, cell) entries.
    pub fn entries(&self) -> usize {
        self.ids.len()
    }
}

/// The spheres as the tracer sees them: at hand (this rank's own, or cached) or fetched.
#[allow(async_fn_in_trait)]
pub trait Scene {
    /// Sphere `id`, if at hand.
    fn sphere(&mut self, id: u32) -> Option<Sphere>;
    /// Read sphere `id` (it is not at hand).
    async fn fetch(&mut self, id: u32) -> Sphere;
    /// Charge `cost` of computation done.
    fn charge(&mut self, cost: Time);
}

/// Marks the spheres a ray has tested (a stamp per sphere and ray).
pub struct Mailbox {
    seen: Vec<u32>,
    stamp: u32,
}

impl Mailbox {
    pub fn new(spheres: usize) -> Mailbox {
        Mailbox { seen: vec![0; spheres], stamp: 0 }
    }

    fn next_ray(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    /// Whether this ray has tested `id` already; marks it tested.
    fn visit(&mut self, id: u32) -> bool {
        std::mem::replace(&mut self.seen[id as usize], self.stamp) == self.stamp
    }
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalize(a: [f64; 3]) -> [f64; 3] {
    scale(a, 1.0 / dot(a, a).sqrt())
}

/// The nearest t in (t_min, t_max) where the ray (origin `o`, unit direction `d`) meets `s`.
fn hit(o: [f64; 3], d: [f64; 3], s: &Sphere, t_max: f64) -> Option<f64> {
    let oc = sub(o, s.centre);
    let b = dot(oc, d);
    let disc = b * b - (dot(oc, oc) - s.radius * s.radius);
    if disc < 0.0 {
        return None;
    }
    let root = disc.sqrt();
    [-b - root, -b + root].into_iter().find(|&t| t > T_MIN && t < t_max)
}

/// Where the ray (origin `o`, unit direction `d`) first meets a sphere before `t_max`:
/// the nearest hit, or with `any` the first one found.
async fn cast<S: Scene>(
    grid: &Grid,
    scene: &mut S,
    mail: &mut Mailbox,
    o: [f64; 3],
    d: [f64; 3],
    t_max: f64,
    any: bool,
) -> Option<(f64, Sphere)> {
    scene.charge(RAY_PS);
    // Clip to the cube.
    let (mut t0, mut t1) = (0.0f64, t_max);
    for k in 0..3 {
        if d[k] == 0.0 {
            if !(0.0..=1.0).contains(&o[k]) {
                return None;
            }
        } else {
            let (a, b) = ((0.0 - o[k]) / d[k], (1.0 - o[k]) / d[k]);
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    if t0 > t1 {
        return None;
    }
    let g = grid.g as i64;
    let gf = grid.g as f64;
    let p = add(o, scale(d, t0));
    let mut cell = p.map(|v| ((v * gf).floor() as i64).clamp(0, g - 1));
    let step = d.map(|v| if v > 0.0 { 1 } else { -1 });
    let delta = d.map(|v| if v == 0.0 { f64::INFINITY } else { 1.0 / (gf * v.abs()) });
    let mut next = [0.0; 3];
    for k in 0..3 {
        next[k] = if d[k] == 0.0 {
            f64::INFINITY
        } else {
            let boundary = (cell[k] + i64::from(step[k] > 0)) as f64 / gf;
            (boundary - o[k]) / d[k]
        };
    }
    mail.next_ray();
    let mut best: Option<(f64, Sphere)> = None;
    loop {
        scene.charge(STEP_PS);
        let c = ((cell[0] * g + cell[1]) * g + cell[2]) as usize;
        for &id in grid.cell(c) {
            if mail.visit(id) {
                continue;
            }
            let s = match scene.sphere(id) {
                Some(s) => s,
                None => scene.fetch(id).await,
            };
            scene.charge(TEST_PS);
            let limit = best.map_or(t1, |b| b.0);
            if let Some(t) = hit(o, d, &s, limit) {
                best = Some((t, s));
                if any {
                    return best;
                }
            }
        }
        let k = if next[0] <= next[1] && next[0] <= next[2] {
            0
        } else if next[1] <= next[2] {
            1
        } else {
            2
        };
        let exit = next[k];
        if best.is_some_and(|b| b.0 <= exit) || exit > t1 {
            return best;
        }
        cell[k] += step[k];
        if !(0..g).contains(&cell[k]) {
            return best;
        }
        next[k] += delta[k];
    }
}

/// The primary ray of pixel (x, y): origin and unit direction.
fn primary(cfg: &Config, x: usize, y: usize) -> ([f64; 3], [f64; 3]) {
    let u = ((x as f64 + 0.5) / cfg.width as f64 - 0.5) * VIEW;
    let v = ((y as f64 + 0.5) / cfg.height as f64 - 0.5) * VIEW;
    (EYE, normalize(sub([0.5 + u, 0.5 - v, 0.0], EYE)))
}

/// The colour of pixel `index` (row-major).
pub async fn pixel<S: Scene>(cfg: &Config, grid: &Grid, scene: &mut S, mail: &mut Mailbox, index: usize) -> [f64; 3] {
    let (mut o, mut d) = primary(cfg, index % cfg.width, index / cfg.width);
    let mut colour = [0.0; 3];
    let mut weight = 1.0;
    for bounce in 0..=BOUNCES {
        let Some((t, s)) = cast(grid, scene, mail, o, d, f64::INFINITY, false).await else {
            colour = add(colour, scale(BACKGROUND, weight));
            break;
        };
        scene.charge(SHADE_PS);
        let p = add(o, scale(d, t));
        let n = scale(sub(p, s.centre), 1.0 / s.radius);
        let lifted = add(p, scale(n, LIFT));
        let to_light = sub(LIGHT, lifted);
        let dist = dot(to_light, to_light).sqrt();
        let l = scale(to_light, 1.0 / dist);
        let facing = dot(n, l);
        let lit =
            if facing > 0.0 && cast(grid, scene, mail, lifted, l, dist, true).await.is_none() { facing } else { 0.0 };
        let local = weight * (1.0 - s.reflect) * (AMBIENT + (1.0 - AMBIENT) * lit);
        colour = add(colour, scale(s.colour, local));
        if s.reflect == 0.0 || bounce == BOUNCES {
            break;
        }
        weight *= s.reflect;
        o = lifted;
        d = normalize(sub(d, scale(n, 2.0 * dot(d, n))));
    }
    colour
}

/// A pixel's term of the image checksum: (index mod 2¹⁶ + 1) × its 24-bit colour.
pub fn checksum_term(index: usize, c: [f64; 3]) -> u64 {
    let q = c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u64);
    ((index as u64 & 0xffff) + 1) * (q[0] << 16 | q[1] << 8 | q[2])
}

/// All spheres in one process (the serial reference).
struct Local<'a>(&'a [Sphere]);

impl Scene for Local<'_> {
    fn sphere(&mut self, id: u32) -> Option<Sphere> {
        Some(self.0[id as usize])
    }

    async fn fetch(&mut self, _: u32) -> Sphere {
        unreachable!("every sphere is at hand")
    }

    fn charge(&mut self, _: Time) {}
}

/// A rank's view in a run: its own spheres, the others' through gets and the cache.
struct Remote<'a, R: Rank> {
    r: &'a R,
    me: u32,
    ranks: u32,
    /// This rank's spheres: id = k·P + me for the k-th.
    own: &'a [Sphere],
    /// The spheres read, and where each id's is among them (`ABSENT`: not read).
    cached: Vec<Sphere>,
    slot: Vec<u32>,
    enabled: bool,
    /// Computation done but not charged yet.
    pending: Time,
}

impl<R: Rank> Remote<'_, R> {
    async fn flush(&mut self) {
        if self.pending > 0 {
            let cost = std::mem::take(&mut self.pending);
            self.r.compute(cost).await;
        }
    }
}

impl<R: Rank> Scene for Remote<'_, R> {
    fn sphere(&mut self, id: u32) -> Option<Sphere> {
        if id % self.ranks == self.me {
            return Some(self.own[(id / self.ranks) as usize]);
        }
        let slot = self.slot[id as usize];
        if slot == ABSENT {
            return None;
        }
        self.r.count("cache_hit");
        Some(self.cached[slot as usize])
    }

    async fn fetch(&mut self, id: u32) -> Sphere {
        let (owner, k) = (id % self.ranks, (id / self.ranks) as usize);
        self.r.count("cache_miss");
        self.flush().await;
        let s = Sphere::decode(&self.r.get(owner, k * RECORD_BYTES, RECORD_BYTES).await);
        if self.enabled {
            self.slot[id as usize] = self.cached.len() as u32;
            self.cached.push(s);
        }
        s
    }

    fn charge(&mut self, cost: Time) {
        self.pending += cost;
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
    fn spheres_lie_in_the_cube_and_round_trip() {
        let cfg = Config::preset(Size::Small, 4);
        for i in 0..cfg.spheres {
            let s = Sphere::generate(&cfg, i);
            assert!(s.centre.iter().all(|&c| c - s.radius >= 0.0 && c + s.radius <= 1.0));
            assert!((0.0..=0.4).contains(&s.reflect));
            assert_eq!(Sphere::decode(&s.encode()), s);
        }
    }

    #[test]
    fn the_grid_lists_each_sphere_in_its_box() {
        let b = [[0, 0, 0, 1, 0, 0], [1, 1, 1, 1, 1, 1]];
        let grid = Grid::build(2, &b);
        // Cells (x, y, z) → (x·2 + y)·2 + z: sphere 0 in (0,0,0) and (1,0,0) = 0 and 4.
        assert_eq!(grid.cell(0), [0]);
        assert_eq!(grid.cell(4), [0]);
        assert_eq!(grid.cell(7), [1]);
        assert_eq!(grid.entries(), 3);
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

    #[test]
    fn a_ray_along_an_axis_hits_the_nearest_sphere() {
        let spheres = [
            Sphere { centre: [0.5, 0.5, 0.8], radius: 0.1, ..Sphere::default() },
            Sphere { centre: [0.5, 0.5, 0.3], radius: 0.1, ..Sphere::default() },
        ];
        let bounds: Vec<[u16; 6]> = spheres.iter().map(|s| s.bounds(4)).collect();
        let grid = Grid::build(4, &bounds);
        let mut mail = Mailbox::new(2);
        let got = ready(cast(&grid, &mut Local(&spheres), &mut mail, [0.5, 0.5, -1.0], [0.0, 0.0, 1.0], 10.0, false));
        let (t, s) = got.expect("a hit");
        assert_eq!(s, spheres[1]);
        assert!((t - 1.2).abs() < 1e-12, "{t}");
    }
}
