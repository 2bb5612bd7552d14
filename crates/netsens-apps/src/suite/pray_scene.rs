//! P-Ray's scene (see [`super::pray`]): the spheres, each generated alone from its
//! id, their records as a rank's window holds them, and the uniform grid that lists
//! which spheres a cell's rays may meet.

use super::pray::Config;
use crate::data::unit_f64s_at;
use netsens_core::program::{decode, encode};

/// The smallest m with m³ ≥ n.
pub(crate) fn cube_root_up(n: usize) -> usize {
    (1..).find(|m| m * m * m >= n).expect("a cube root")
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

    pub(crate) fn encode(&self) -> Vec<u8> {
        let [x, y, z] = self.centre;
        let [r, g, b] = self.colour;
        encode(&[x, y, z, self.radius, r, g, b, self.reflect])
    }

    pub(crate) fn decode(bytes: &[u8]) -> Sphere {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Size;

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
}
