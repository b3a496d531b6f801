//! The whole-world BVP potential towards one goal (Silveira et al. Eqs 1–4
//! over the world, as Dapper et al. use it for single characters): the
//! global planner of a group map, and the planner of `seek ... using bvp`.
//!
//! Invariants: the world's obstacles, grown by the widest body, are walls;
//! the goal's cells are the cells of the goal's shape (or the cell of its
//! point); the potential is relaxed once, when a goal is first walked to
//! (the world does not move), to the relative residual of `bvp.tolerance`.

use crate::ir::{Program, Vec2};
use crate::plan::bvp::{Bias, Cell, Method, Potential, Relax};
use crate::sim::agents::Goal;
pub(super) use crate::sim::aims::cell_holds as holds;
use crate::sim::aims::cell_in_goal;
use crate::sim::scene::Scene;
pub(super) use crate::world::lattice::Lattice;

/// What a group or a character walks to: its goal, and the goal's point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Aim {
    pub goal: Goal,
    pub point: Vec2,
}

/// What makes two world potentials the same.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key {
    pub goal: Goal,
    pub bias: Bias,
    pub initial: f64,
    pub tolerance: f64,
    pub max_sweeps: u32,
    pub cell: f64,
}

pub(super) struct WorldField {
    pub key: Key,
    pub lattice: Lattice,
    pub potential: Potential,
}

/// Whether cell centre `c` lies in the aim's goal (a point goal: the cell holding it).
pub(super) fn in_goal(program: &Program, aim: Aim, c: Vec2, cell: f64) -> bool {
    cell_in_goal(program, aim.goal, aim.point, c, cell)
}

impl WorldField {
    /// The potential of `key` over the world, or why it could not be made.
    pub fn new(scene: &Scene, key: Key, point: Vec2) -> Result<WorldField, String> {
        let lattice = Lattice::over(scene.program.world.bounds, key.cell);
        let mut potential = Potential::new(lattice.nx, lattice.ny, key.initial);
        let mut goals = 0;
        for j in 0..lattice.ny {
            for i in 0..lattice.nx {
                let c = lattice.centre(i, j);
                if in_goal(scene.program, Aim { goal: key.goal, point }, c, key.cell) {
                    potential.set(i, j, Cell::Goal);
                    goals += 1;
                } else if !scene.space.is_clear(c, scene.max_radius) {
                    potential.set(i, j, Cell::Wall);
                }
            }
        }
        if goals == 0 {
            // A goal smaller than a cell: the cell holding its point.
            let Some((i, j)) = lattice.cell_of(point) else {
                return Err(format!("the goal at ({}, {}) is outside the world", point.x, point.y));
            };
            potential.set(i, j, Cell::Goal);
        }
        let parallel = lattice.nx * lattice.ny >= 64 * 64;
        let relax =
            Relax { method: Method::RedBlackSor, tolerance: key.tolerance, max_sweeps: key.max_sweeps, parallel };
        let done = potential.relax(key.bias, relax);
        if !done.converged {
            return Err(format!(
                "the BVP potential over the world ({} x {} cells of {} m) reached a relative residual of {:.3e} \
                 after {} sweeps, short of bvp.tolerance {:.3e}: raise bvp.max_iterations or bvp.tolerance, \
                 or coarsen the grid",
                lattice.nx, lattice.ny, key.cell, done.residual, done.sweeps, key.tolerance
            ));
        }
        Ok(WorldField { key, lattice, potential })
    }

    /// Eq 4 at `p`, interpolated bilinearly between the cells' central
    /// differences: the descent towards the goal (any length), smooth across
    /// the cells of a coarse world grid. `None` outside the world.
    pub fn descent(&self, p: Vec2) -> Option<Vec2> {
        self.lattice.cell_of(p)?;
        Some(self.bilinear(p, |i, j| self.potential.descent(i, j)))
    }

    /// `1 − p` at `p`, interpolated bilinearly between cell centres (0 outside
    /// the world): a coarse world potential still ranks nearby points.
    pub fn q(&self, p: Vec2) -> f64 {
        match self.lattice.cell_of(p) {
            Some(_) => self.bilinear(p, |i, j| Vec2::splat(self.potential.q(i, j))).x,
            None => 0.0,
        }
    }

    /// `value` of the four cells around `p`, weighted by nearness (cells
    /// beyond the edge repeat the edge's).
    fn bilinear(&self, p: Vec2, value: impl Fn(usize, usize) -> Vec2) -> Vec2 {
        let l = &self.lattice;
        let (x, y) = ((p.x - l.min.x) / l.cell - 0.5, (p.y - l.min.y) / l.cell - 0.5);
        let (i0, j0) = (x.floor(), y.floor());
        let (fx, fy) = (x - i0, y - j0);
        let at = |i: f64, j: f64| {
            let (i, j) = (i.clamp(0.0, l.nx as f64 - 1.0) as usize, j.clamp(0.0, l.ny as f64 - 1.0) as usize);
            value(i, j)
        };
        let low = at(i0, j0) * (1.0 - fx) + at(i0 + 1.0, j0) * fx;
        let high = at(i0, j0 + 1.0) * (1.0 - fx) + at(i0 + 1.0, j0 + 1.0) * fx;
        low * (1.0 - fy) + high * fy
    }
}
