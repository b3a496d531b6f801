//! The crowd as fields over the grid, shared by every group (Treuille,
//! Cooper, Popović 2006, §4.1): where walls are, the regions' discomfort, the
//! density every person splats, and the crowd's mean velocity.
//!
//! Invariants:
//! - each person's splat weights sum to 1 (a weight that would fall beyond
//!   the grid's edge goes to the edge cell), so the density field holds
//!   exactly the number of people: mass is conserved;
//! - each cell sums the people splatted into it in slot order, so the
//!   sums are the same on any thread count.

use crate::ir::Vec2;
use crate::sim::scene::Scene;
use crate::sim::workers::{light_parts, Workers};
use crate::world::lattice::Lattice;

pub(super) struct Fields {
    pub lattice: Lattice,
    /// By cell: the widest body does not fit at its centre.
    pub wall: Vec<bool>,
    /// By cell: the regions' discomfort.
    regions: Vec<f64>,
    /// By cell: the ground's gradient `∇h`, the sum of the slopes of the regions holding its centre.
    pub gradient: Vec<Vec2>,
    /// By cell: the step's discomfort `g`, the regions' plus the predictive.
    pub discomfort: Vec<f64>,
    /// By cell: people per m² (§4.1).
    pub density: Vec<f64>,
    /// By cell: the density-weighted mean velocity `v̄` (§4.1), m/s.
    pub mean_vel: Vec<Vec2>,
}

impl Fields {
    pub fn new(scene: &Scene, lattice: Lattice) -> Fields {
        let n = lattice.cells();
        let mut wall = vec![false; n];
        let mut regions = vec![0.0; n];
        let mut gradient = vec![Vec2::ZERO; n];
        let marked = |r: &&crate::ir::Region| r.discomfort > 0.0 || r.slope.is_some();
        for j in 0..lattice.ny {
            for i in 0..lattice.nx {
                let c = lattice.centre(i, j);
                let k = i + j * lattice.nx;
                wall[k] = !scene.space.is_clear(c, scene.max_radius);
                for r in scene.program.world.regions.iter().filter(marked) {
                    if crate::world::geometry::contains(&r.shape, c) {
                        regions[k] += r.discomfort;
                        gradient[k] += r.slope.unwrap_or(Vec2::ZERO);
                    }
                }
            }
        }
        Fields {
            lattice,
            wall,
            discomfort: regions.clone(),
            regions,
            gradient,
            density: vec![0.0; n],
            mean_vel: vec![Vec2::ZERO; n],
        }
    }

    /// §4.1: every person's density into the four cells around it, and
    /// their velocities weighted the same way. The grid is cut into bands of
    /// rows, splatted in parallel: each band adds the shares of its own
    /// cells, person by person in slot order, so every cell's sum is the
    /// same on any thread count.
    pub fn splat(&mut self, pos: &[Vec2], vel: &[Vec2], lambda: f64, workers: &Workers) {
        let l = self.lattice;
        let band = l.ny.div_ceil(light_parts(pos.len())) * l.nx;
        let area = l.cell * l.cell;
        let bands: Vec<_> = self.density.chunks_mut(band).zip(self.mean_vel.chunks_mut(band)).collect();
        workers.for_each(bands, |b, (density, mean_vel)| {
            let cells = b * band..b * band + density.len();
            density.fill(0.0);
            mean_vel.fill(Vec2::ZERO);
            for (&p, &v) in pos.iter().zip(vel) {
                let around = l.around(p);
                // Corners A and B share a row, as do C and D.
                if !cells.contains(&around.0[0]) && !cells.contains(&around.0[2]) {
                    continue;
                }
                for (k, w) in shares(around, lambda) {
                    if cells.contains(&k) {
                        density[k - cells.start] += w;
                        mean_vel[k - cells.start] += v * w;
                    }
                }
            }
            for (d, v) in density.iter_mut().zip(mean_vel) {
                if *d > 0.0 {
                    *v /= *d;
                }
                *d /= area;
            }
        });
    }

    /// The step's discomfort: the regions', plus, when `weight` > 0, each
    /// person's predictive discomfort along the next `horizon` seconds of its
    /// walk, falling linearly to 0 (§4.1: people avoid where others are
    /// about to be).
    pub fn predict(&mut self, pos: &[Vec2], vel: &[Vec2], weight: f64, horizon: f64) {
        self.discomfort.copy_from_slice(&self.regions);
        if weight <= 0.0 || horizon <= 0.0 {
            return;
        }
        let l = self.lattice;
        for (&p, &v) in pos.iter().zip(vel) {
            let speed = v.length();
            if speed <= 0.0 || !speed.is_finite() {
                continue;
            }
            // One sample per cell crossed, at most 64: a bound on the work per person.
            let samples = ((speed * horizon / l.cell).ceil() as usize).clamp(1, 64);
            for s in 1..=samples {
                let t = horizon * s as f64 / samples as f64;
                let Some((i, j)) = l.cell_of(p + v * t) else { break };
                self.discomfort[i + j * l.nx] += weight * (1.0 - t / horizon);
            }
        }
    }
}

/// §4.1: the four cells around a person (`A` the one whose centre is below
/// and left of it, then `B`, `C`, `D` anticlockwise, with its offset
/// `(Δx, Δy)` from `A`'s centre, as [`Lattice::around`] gives them) and
/// each one's share of it, `min(1 − Δx, 1 − Δy)^λ`, `min(Δx, 1 − Δy)^λ`,
/// `min(Δx, Δy)^λ`, `min(1 − Δx, Δy)^λ`, scaled to sum to 1 (the paper's
/// weights sum to between 1 and 2, so a person standing where four cells
/// meet would count twice).
fn shares((cells, dx, dy): ([usize; 4], f64, f64), lambda: f64) -> [(usize, f64); 4] {
    let power = |w: f64| if lambda == 1.0 { w } else { crate::math::pow(w, lambda) };
    let w = [power((1.0 - dx).min(1.0 - dy)), power(dx.min(1.0 - dy)), power(dx.min(dy)), power((1.0 - dx).min(dy))];
    let sum: f64 = w.iter().sum();
    std::array::from_fn(|k| (cells[k], w[k] / sum))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn a_person_s_weights_sum_to_one_wherever_it_stands() {
        let l = Lattice { min: Vec2::new(-3.0, 2.0), cell: 0.7, nx: 9, ny: 5 };
        for a in 0..40 {
            for b in 0..40 {
                let p = Vec2::new(-3.5 + a as f64 * 0.2, 1.5 + b as f64 * 0.12);
                for lambda in [0.5, 1.0, 3.0] {
                    let w = shares(l.around(p), lambda);
                    let sum: f64 = w.iter().map(|(_, w)| w).sum();
                    assert!((sum - 1.0).abs() < 1e-12, "{p:?} λ {lambda}: {sum}");
                    assert!(w.iter().all(|&(k, w)| k < l.cells() && w >= 0.0));
                }
            }
        }
    }

    /// Fields over `l` with no walls, no discomfort and flat ground.
    pub(in super::super) fn open(l: Lattice) -> Fields {
        let n = l.cells();
        Fields {
            lattice: l,
            wall: vec![false; n],
            regions: vec![0.0; n],
            gradient: vec![Vec2::ZERO; n],
            discomfort: vec![0.0; n],
            density: vec![0.0; n],
            mean_vel: vec![Vec2::ZERO; n],
        }
    }

    #[test]
    fn splatting_conserves_the_crowd_and_its_momentum() {
        let l = Lattice { min: Vec2::new(0.0, 0.0), cell: 0.8, nx: 30, ny: 20 };
        let mut fields = open(l);
        // People anywhere, some beyond the grid's edge, with a golden-ratio spread.
        let n = 1000;
        let pos: Vec<Vec2> = (0..n)
            .map(|k| {
                let (a, b) = ((k as f64 * 0.618_033_988_75).fract(), (k as f64 * 0.754_877_666_2).fract());
                Vec2::new(-2.0 + a * 28.0, -1.0 + b * 18.0)
            })
            .collect();
        let vel: Vec<Vec2> = (0..n).map(|k| Vec2::new(1.0 + (k % 7) as f64 * 0.1, -0.5)).collect();
        for lambda in [0.5, 1.0, 2.5] {
            fields.splat(&pos, &vel, lambda, &Workers::default());
            let area = l.cell * l.cell;
            let people: f64 = fields.density.iter().map(|d| d * area).sum();
            assert!((people - n as f64).abs() < 1e-9, "λ {lambda}: {people} people");
            let momentum: Vec2 = fields.density.iter().zip(&fields.mean_vel).map(|(d, v)| *v * (d * area)).sum();
            let expected: Vec2 = vel.iter().copied().sum();
            assert!((momentum - expected).length() < 1e-9, "λ {lambda}: {momentum:?} against {expected:?}");
        }
    }

    #[test]
    fn the_splat_is_the_same_on_any_thread_count() {
        let l = Lattice { min: Vec2::new(0.0, 0.0), cell: 0.5, nx: 37, ny: 23 };
        // Enough people to be cut into bands.
        let pos: Vec<Vec2> = (0..20_000)
            .map(|k| Vec2::new(-1.0 + (k as f64 * 0.618_033_988_75).fract() * 21.0, (k as f64 * 0.7548).fract() * 13.0))
            .collect();
        let vel: Vec<Vec2> = (0..20_000).map(|k| Vec2::new((k % 11) as f64 * 0.1, 0.3)).collect();
        let splat = |threads: usize| {
            let mut fields = open(l);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            pool.install(|| fields.splat(&pos, &vel, 1.5, &Workers::default()));
            (fields.density, fields.mean_vel)
        };
        let one = splat(1);
        for threads in [2, 3, 8] {
            assert!(splat(threads) == one, "{threads} threads");
        }
    }

    #[test]
    fn predictive_discomfort_lies_along_the_walk_ahead_fading_with_time() {
        let l = Lattice { min: Vec2::ZERO, cell: 1.0, nx: 10, ny: 3 };
        let mut fields = open(l);
        // Walking east at 2 m/s from the middle of cell (1, 1), a 2 s horizon.
        fields.predict(&[Vec2::new(1.5, 1.5)], &[Vec2::new(2.0, 0.0)], 3.0, 2.0);
        let row: Vec<f64> = (0..10).map(|i| fields.discomfort[i + 10]).collect();
        assert_eq!(row[0..2], [0.0, 0.0], "nothing behind or under the walker: {row:?}");
        assert!(row[2..6].windows(2).all(|w| w[0] > w[1]), "fading ahead: {row:?}");
        assert!(row[2] <= 3.0 && row[5] == 0.0 && row[6..].iter().all(|&g| g == 0.0), "{row:?}");
        assert!((0..10).all(|i| fields.discomfort[i] == 0.0 && fields.discomfort[i + 20] == 0.0));
        // Off (the default), the discomfort is the regions' alone.
        fields.predict(&[Vec2::new(1.5, 1.5)], &[Vec2::new(2.0, 0.0)], 0.0, 2.0);
        assert!(fields.discomfort.iter().all(|&g| g == 0.0));
    }

    #[test]
    fn a_person_at_a_cell_centre_belongs_to_that_cell_alone() {
        let l = Lattice { min: Vec2::ZERO, cell: 1.0, nx: 4, ny: 4 };
        let w = shares(l.around(Vec2::new(1.5, 2.5)), 1.0);
        assert_eq!(w[0], (1 + 2 * 4, 1.0));
        assert!(w[1..].iter().all(|&(_, w)| w == 0.0));
    }
}
