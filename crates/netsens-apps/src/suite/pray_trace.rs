//! P-Ray's tracer (see [`super::pray`]): a pixel's rays walked through the grid, each
//! sphere they meet tested once, over local spheres (the serial reference) or through
//! remote reads and the software cache (a run).

use super::pray::{Config, RECORD_BYTES};
use super::pray_scene::{Grid, Sphere};
use netsens_core::program::Rank;
use netsens_core::time::Time;

/// Charge per ray (setup, clipping to the cube): 20 ns, before CPU-speed scaling.
pub const RAY_PS: Time = 20_000;
/// Charge per grid cell a ray visits: 10 ns.
pub const STEP_PS: Time = 10_000;
/// Charge per ray–sphere test: 30 ns.
pub const TEST_PS: Time = 30_000;
/// Charge per hit shaded: 50 ns.
pub const SHADE_PS: Time = 50_000;
/// A sphere id's slot in the cache when it has not been read.
pub(crate) const ABSENT: u32 = u32::MAX;
/// Mirror bounces after the primary ray.
const BOUNCES: u32 = 1;
const AMBIENT: f64 = 0.15;
pub(crate) const BACKGROUND: [f64; 3] = [0.1, 0.12, 0.2];
const EYE: [f64; 3] = [0.5, 0.5, -1.5];
/// Width and height of the view at the cube's front face.
const VIEW: f64 = 1.2;
const LIGHT: [f64; 3] = [2.0, 3.0, -2.0];
/// Hits nearer than this along a ray are ignored (a surface does not shadow itself).
const T_MIN: f64 = 1e-9;
/// Secondary rays start this far off the surface, along its normal.
const LIFT: f64 = 1e-7;

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

pub(crate) fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(crate) fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}

pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

pub(crate) fn normalize(a: [f64; 3]) -> [f64; 3] {
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
pub(crate) async fn cast<S: Scene>(
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
pub(crate) struct Local<'a>(pub(crate) &'a [Sphere]);

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
pub(crate) struct Remote<'a, R: Rank> {
    pub(crate) r: &'a R,
    pub(crate) me: u32,
    pub(crate) ranks: u32,
    /// This rank's spheres: id = k·P + me for the k-th.
    pub(crate) own: &'a [Sphere],
    /// The spheres read, and where each id's is among them (`ABSENT`: not read).
    pub(crate) cached: Vec<Sphere>,
    pub(crate) slot: Vec<u32>,
    pub(crate) enabled: bool,
    /// Computation done but not charged yet.
    pub(crate) pending: Time,
}

impl<R: Rank> Remote<'_, R> {
    pub(crate) async fn flush(&mut self) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::ready;

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
