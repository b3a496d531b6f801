//! What walking costs (Treuille et al. §4.2), for every group of one
//! setting: the speed of each face of each cell, from the ground's slope
//! and the crowd's density and flow, and the unit cost of crossing it. The
//! goal plays no part here, so the groups of one setting share one field.
//!
//! Invariants:
//! - a face towards a wall or out of the grid has speed 0 and cost +∞;
//!   every other face's cost is finite, so a potential is finite wherever
//!   its goal can be walked to;
//! - no value is ever NaN: speeds are clamped into [0, f_max] and costs
//!   divide by a speed floored above 0;
//! - rows are made in parallel, each cell from the shared fields alone.

use super::fields::Fields;
use crate::ir::params::Continuum as Params;
use crate::ir::Vec2;
use crate::plan::eikonal::{EAST, NORTH, SOUTH, WEST};
use crate::sim::workers::Workers;
use crate::world::lattice::Lattice;

/// The unit vectors `n_θ` of the four faces, in [`crate::plan::eikonal`]'s order.
pub(super) const NORMALS: [Vec2; 4] =
    [Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0), Vec2::new(-1.0, 0.0), Vec2::new(0.0, -1.0)];
/// The speed a face's cost divides by is at least this fraction of `f_max`:
/// a face into a standing crowd (flow speed 0) costs a hundred times a free
/// one instead of +∞, so the people behind the crowd still have a way to
/// their goal, and a gradient, while they wait.
const MIN_COST_SPEED: f64 = 0.01;
/// Grid rows per chunk of the parallel pass.
const ROWS: usize = 16;

/// The speeds and unit costs of one setting's faces.
#[derive(Default)]
pub(super) struct Costs {
    /// The mean preferred speed of everyone walking with the setting this step, m/s.
    pub f_max: f64,
    /// Everyone walking with the setting this step.
    pub members: u32,
    /// By cell and face: the unit cost `C` (per metre).
    pub cost: Vec<[f64; 4]>,
    /// By cell and face: the speed `f` (m/s) of moving through it, 0 out of
    /// the grid (a wall's faces too have one: a goal may lie in a wall).
    pub speed: Vec<[f64; 4]>,
}

impl Costs {
    /// This step's speeds and unit costs, row by row in parallel.
    pub fn update(&mut self, fields: &Fields, p: &Params, workers: &Workers) {
        let l = fields.lattice;
        self.cost.resize(l.cells(), [f64::INFINITY; 4]);
        self.speed.resize(l.cells(), [0.0; 4]);
        let f_max = self.f_max;
        let floor = MIN_COST_SPEED * f_max;
        let rows = self.cost.chunks_mut(ROWS * l.nx).zip(self.speed.chunks_mut(ROWS * l.nx));
        workers.for_each(rows.collect(), |c, (cost, speed)| {
            for (r, (cost, speed)) in cost.chunks_mut(l.nx).zip(speed.chunks_mut(l.nx)).enumerate() {
                let j = c * ROWS + r;
                for (i, (faces, speeds)) in cost.iter_mut().zip(speed.iter_mut()).enumerate() {
                    let k = i + j * l.nx;
                    for (d, m) in neighbours(&l, i, j).into_iter().enumerate() {
                        speeds[d] = m.map_or(0.0, |m| face_speed(fields, p, f_max, m, d));
                        faces[d] = match m {
                            Some(m) if !fields.wall[m] && !fields.wall[k] => {
                                unit_cost(p, speeds[d].max(floor), fields.discomfort[m])
                            }
                            _ => f64::INFINITY,
                        };
                    }
                }
            }
        });
    }
}

/// §4.2: the speed `f(M → θ)` of moving through face `d` into cell `m`,
/// read at the cell it leads to: the topographical speed `f_T` where that
/// cell is sparser than `ρ_min`, the flow speed `f_v = v̄ · n_θ` where it is
/// denser than `ρ_max`, interpolated between. The flow speed is clamped
/// into `[0, f_T]`: a crowd can slow people down, never carry them
/// backwards nor faster than they walk.
pub(super) fn face_speed(fields: &Fields, p: &Params, f_max: f64, m: usize, d: usize) -> f64 {
    let f_t = topographical_speed(p, f_max, fields.gradient[m].dot(NORMALS[d]));
    let f_v = fields.mean_vel[m].dot(NORMALS[d]).clamp(0.0, f_t);
    let rho = fields.density[m];
    let t = if p.density_max > p.density_min {
        ((rho - p.density_min) / (p.density_max - p.density_min)).clamp(0.0, 1.0)
    } else if rho >= p.density_max {
        1.0
    } else {
        0.0
    };
    f_t + t * (f_v - f_t)
}

/// §4.2: the topographical speed `f_T = f_max + (s − s_min)/(s_max − s_min) (f_min − f_max)`
/// up a slope `s = ∇h · n_θ`, clamped between `f_max` (flat ground and
/// downhill: `s_min = 0`) and `f_min = slope_speed · f_max` (at `s_max`).
pub(super) fn topographical_speed(p: &Params, f_max: f64, s: f64) -> f64 {
    let t = (s / p.slope_max).clamp(0.0, 1.0);
    f_max + t * (p.slope_speed * f_max - f_max)
}

/// §4.2: the unit cost `C = (α f + β + γ g) / f` of a face of speed `f`
/// into a cell of discomfort `g` (α: path length, β: time, γ: discomfort).
pub(super) fn unit_cost(p: &Params, f: f64, g: f64) -> f64 {
    (p.path_weight * f + p.time_weight + p.discomfort_weight * g) / f
}

/// The cells through the faces of cell `(i, j)`, in [`crate::plan::eikonal`]'s
/// order, where the grid has them.
#[inline]
pub(super) fn neighbours(l: &Lattice, i: usize, j: usize) -> [Option<usize>; 4] {
    let k = i + j * l.nx;
    let mut near = [None; 4];
    near[EAST] = (i + 1 < l.nx).then(|| k + 1);
    near[NORTH] = (j + 1 < l.ny).then(|| k + l.nx);
    near[WEST] = (i > 0).then(|| k - 1);
    near[SOUTH] = (j > 0).then(|| k - l.nx);
    near
}

#[cfg(test)]
mod tests {
    use super::super::fields::tests::open;
    use super::*;

    #[test]
    fn flow_speed_slows_people_down_but_never_turns_them_back() {
        let l = Lattice { min: Vec2::ZERO, cell: 1.0, nx: 3, ny: 3 };
        let mut fields = open(l);
        let p = Params::default();
        let f_max = 1.3;
        // The centre cell packed beyond density_max, its crowd walking every which way.
        for k in 0..64 {
            let a = k as f64 * std::f64::consts::TAU / 64.0;
            for speed in [0.0, 0.5, 1.3, 4.0] {
                fields.density[4] = p.density_max + 1.0;
                fields.mean_vel[4] = Vec2::new(crate::math::cos(a), crate::math::sin(a)) * speed;
                for (d, n) in NORMALS.iter().enumerate() {
                    let f = face_speed(&fields, &p, f_max, 4, d);
                    assert!((0.0..=f_max).contains(&f), "face {d}, flow {:?}: {f}", fields.mean_vel[4]);
                    // Packed, people walk at the flow's speed along the face.
                    let along = fields.mean_vel[4].dot(*n).clamp(0.0, f_max);
                    assert!((f - along).abs() < 1e-12, "face {d}: {f} against the flow's {along}");
                }
            }
        }
        // Sparse: the flow does not matter.
        fields.density[4] = p.density_min / 2.0;
        fields.mean_vel[4] = Vec2::new(-3.0, 0.0);
        assert_eq!(face_speed(&fields, &p, f_max, 4, EAST), f_max);
    }

    #[test]
    fn slopes_slow_people_walking_up_them_only() {
        let p = Params::default();
        assert_eq!(topographical_speed(&p, 1.0, 0.0), 1.0);
        assert_eq!(topographical_speed(&p, 1.0, -0.5), 1.0);
        assert!((topographical_speed(&p, 1.0, p.slope_max) - p.slope_speed).abs() < 1e-15);
        assert!((topographical_speed(&p, 1.0, 2.0 * p.slope_max) - p.slope_speed).abs() < 1e-15);
        let half = topographical_speed(&p, 1.0, p.slope_max / 2.0);
        assert!((half - (1.0 + p.slope_speed) / 2.0).abs() < 1e-15);
    }

    #[test]
    fn walls_and_the_grid_s_edge_cost_infinity_everything_else_a_finite_amount() {
        let l = Lattice { min: Vec2::ZERO, cell: 1.0, nx: 4, ny: 3 };
        let mut fields = open(l);
        fields.wall[5] = true;
        // A standing crowd everywhere: the flow speed is 0 on every face.
        fields.density.iter_mut().for_each(|d| *d = 5.0);
        let mut costs = Costs { f_max: 1.2, members: 1, ..Costs::default() };
        let workers = crate::sim::workers::Workers::default();
        costs.update(&fields, &Params::default(), &workers);
        for j in 0..l.ny {
            for i in 0..l.nx {
                let k = i + j * l.nx;
                for (d, m) in neighbours(&l, i, j).into_iter().enumerate() {
                    let c = costs.cost[k][d];
                    match m {
                        Some(m) if k != 5 && m != 5 => assert!(c.is_finite() && c > 0.0, "{k} → {m}: {c}"),
                        _ => assert_eq!(c, f64::INFINITY, "cell {k} face {d}"),
                    }
                }
            }
        }
    }
}
