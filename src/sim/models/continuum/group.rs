//! One group of continuum crowds (Treuille et al. §4.3–4.4): the people who
//! share a goal and a setting, the potential the eikonal equation gives
//! them over their setting's unit costs, and the velocity field down it.
//!
//! Invariants:
//! - a group reads the shared fields and costs and writes only itself, so
//!   groups solve in parallel with the same results on any thread count;
//! - the potential is finite wherever the goal can be walked to and +∞
//!   (velocity 0) only where it cannot; no value is ever NaN;
//! - the goal's cells are marked again only when the goal's point moves.

use super::costs::{neighbours, Costs, NORMALS};
use super::fields::Fields;
use crate::ir::params::Continuum as Params;
use crate::ir::{Program, Vec2};
use crate::plan::eikonal::{self, Marcher, Order, EAST, NORTH, SOUTH, WEST};
use crate::sim::agents::Goal;
use crate::sim::aims::cell_in_goal;
use crate::world::lattice::Lattice;
use fixedbitset::FixedBitSet;

/// What makes two groups one: the goal, and the setting (the continuum
/// parameters in force) by its index in the model's table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key {
    pub goal: Goal,
    pub setting: u32,
}

pub(super) struct Group {
    pub key: Key,
    /// This step: the goal's aim point and the group's members.
    pub point: Vec2,
    pub members: u32,
    /// The point the goal's cells were marked for.
    marked: Option<Vec2>,
    goals: Vec<u32>,
    /// By cell, one bit each: in the goal. People read it for the cell
    /// they stand in, and a bit set stays in cache where a `bool` a cell does not.
    goal_cell: FixedBitSet,
    /// By cell: the potential `φ` (§4.3).
    pub phi: Vec<f64>,
    /// By cell: the velocity `v = −f ∇φ/‖∇φ‖` (§4.4), m/s.
    pub vel: Vec<Vec2>,
    /// By cell, one bit each: `φ` is finite (the goal can be reached from it).
    /// People read it for every corner they interpolate from, and a bit set
    /// stays in cache where `φ` does not.
    reach: FixedBitSet,
    marcher: Marcher,
}

impl Group {
    pub fn new(key: Key) -> Group {
        Group {
            key,
            point: Vec2::ZERO,
            members: 0,
            marked: None,
            goals: Vec::new(),
            goal_cell: FixedBitSet::new(),
            phi: Vec::new(),
            vel: Vec::new(),
            reach: FixedBitSet::new(),
            marcher: Marcher::default(),
        }
    }

    /// One step of the group's fields over its setting's costs: the
    /// potential when `solve` (or when it has none yet), then the velocities.
    pub fn update(&mut self, program: &Program, fields: &Fields, p: &Params, costs: &Costs, solve: bool) {
        let l = fields.lattice;
        let n = l.cells();
        if solve || self.phi.len() != n {
            if self.marked != Some(self.point) {
                self.mark_goal(program, &l, fields);
                self.marked = Some(self.point);
            }
            let grid = eikonal::Grid { nx: l.nx, ny: l.ny, h: l.cell };
            self.marcher.order = if p.order >= 2.0 { Order::Second } else { Order::First };
            self.marcher.solve(grid, &costs.cost, &self.goals, &mut self.phi);
            self.reach.clear();
            self.reach.grow(n);
            for (k, phi) in self.phi.iter().enumerate() {
                self.reach.set(k, phi.is_finite());
            }
        }
        self.vel.resize(n, Vec2::ZERO);
        for j in 0..l.ny {
            for i in 0..l.nx {
                self.vel[i + j * l.nx] = self.cell_velocity(fields, costs, i, j);
            }
        }
    }

    /// The goal's cells (a goal smaller than a cell: the cell holding its point).
    fn mark_goal(&mut self, program: &Program, l: &Lattice, fields: &Fields) {
        self.goal_cell.clear();
        self.goal_cell.grow(l.cells());
        self.goals.clear();
        for j in 0..l.ny {
            for i in 0..l.nx {
                let k = i + j * l.nx;
                if !fields.wall[k] && cell_in_goal(program, self.key.goal, self.point, l.centre(i, j), l.cell) {
                    self.goal_cell.insert(k);
                    self.goals.push(k as u32);
                }
            }
        }
        if self.goals.is_empty() {
            if let Some((i, j)) = l.cell_of(self.point) {
                self.goal_cell.insert(i + j * l.nx);
                self.goals.push((i + j * l.nx) as u32);
            }
        }
    }

    /// §4.4 at cell `(i, j)`: `−f ∇φ/‖∇φ‖`, each axis of `∇φ` taken towards its
    /// lower neighbour (the upwind difference of the eikonal update), each
    /// axis's speed the speed of the face it leaves by. Zero in the goal, in
    /// walls and where the goal cannot be reached.
    fn cell_velocity(&self, fields: &Fields, costs: &Costs, i: usize, j: usize) -> Vec2 {
        let l = &fields.lattice;
        let k = i + j * l.nx;
        let phi = self.phi[k];
        if !phi.is_finite() || self.goal_cell.contains(k) {
            return Vec2::ZERO;
        }
        let near = neighbours(l, i, j);
        let at = |d: usize| near[d].map_or(f64::INFINITY, |m| self.phi[m]);
        // Per axis: the face to leave by and the fall of φ across it (none:
        // neither neighbour is lower; a missing one reads +∞, never lower).
        let axis = |plus: usize, minus: usize| {
            let (a, b) = (at(plus), at(minus));
            match (a < phi && a < b, b < phi && b < a) {
                (true, _) => Some((plus, phi - a)),
                (_, true) => Some((minus, phi - b)),
                _ => None,
            }
        };
        let (x, y) = (axis(EAST, WEST), axis(NORTH, SOUTH));
        let fall = |a: Option<(usize, f64)>| a.map_or(0.0, |(_, g)| g);
        let norm = (fall(x) * fall(x) + fall(y) * fall(y)).sqrt();
        if norm <= 0.0 || !norm.is_finite() {
            return Vec2::ZERO;
        }
        let along =
            |a: Option<(usize, f64)>| a.map_or(Vec2::ZERO, |(d, g)| NORMALS[d] * (g / norm * costs.speed[k][d]));
        along(x) + along(y)
    }

    /// The velocity at `p`, interpolated bilinearly between the centres of
    /// the cells around it that lead to the goal (walls and cells cut off
    /// from it left out); `None` when none does.
    pub fn velocity_at(&self, l: &Lattice, p: Vec2) -> Option<Vec2> {
        let ([a, b, c, d], fx, fy) = l.around(p);
        let corners = [(a, (1.0 - fx) * (1.0 - fy)), (b, fx * (1.0 - fy)), (d, (1.0 - fx) * fy), (c, fx * fy)];
        let (mut v, mut total) = (Vec2::ZERO, 0.0);
        for (k, w) in corners {
            if self.reach.contains(k) && w > 0.0 {
                v += self.vel[k] * w;
                total += w;
            }
        }
        (total > 0.0).then(|| v / total)
    }

    /// Whether `p` lies in a cell of the goal.
    pub fn in_goal(&self, l: &Lattice, p: Vec2) -> bool {
        l.cell_of(p).is_some_and(|(i, j)| self.goal_cell.contains(i + j * l.nx))
    }
}
