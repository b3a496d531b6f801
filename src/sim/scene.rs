//! What every stage reads: the agents' core state, their spatial index, the
//! walkable space and the markers, where goals are, the teams and the clock.
//!
//! Invariants: the core writes the scene only in its sequential phases; a
//! model receives `&Scene`, so in a parallel stage that borrow is the step's
//! snapshot: nothing changes it while the stage runs, whichever thread reads it.

use super::agents::{Agents, Goal, Team};
use super::aims::Aims;
use crate::ir::{Program, Vec2};
use crate::rng::Entity;
use crate::world::grid::Grid;
use crate::world::markers::Markers;
use crate::world::walkable::Walkable;

/// Simulated time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock {
    /// The time step, s.
    pub dt: f64,
    /// `1/dt` when it is a whole number, so times print as exact decimals.
    pub steps_per_second: Option<f64>,
}

impl Clock {
    pub fn new(dt: f64) -> Clock {
        let sps = 1.0 / dt;
        let steps_per_second = ((sps - sps.round()).abs() <= 1e-9 * sps && sps.round() >= 1.0).then(|| sps.round());
        Clock { dt, steps_per_second }
    }

    /// The distance an agent walking at `speed` covers in one step, m
    /// (exact `speed / n` when the step is `1/n` s).
    #[inline]
    pub fn step_length(&self, speed: f64) -> f64 {
        match self.steps_per_second {
            Some(n) => speed / n,
            None => speed * self.dt,
        }
    }

    /// Simulated time after `step` steps, s.
    pub fn time(&self, step: u64) -> f64 {
        match self.steps_per_second {
            Some(n) => step as f64 / n,
            None => step as f64 * self.dt,
        }
    }

    /// Steps per second, for velocities.
    #[inline]
    pub fn per_second(&self) -> f64 {
        self.steps_per_second.unwrap_or(1.0 / self.dt)
    }
}

pub(crate) struct Scene<'p> {
    pub program: &'p Program,
    pub seed: u64,
    pub clock: Clock,
    /// The step being taken (its start time is `clock.time(step)`).
    pub step: u64,
    pub agents: Agents,
    /// The agents' spatial index, built from `agents.pos` when perceiving.
    pub grid: Grid,
    /// Where bodies may stand: the world minus its obstacles.
    pub space: Walkable,
    /// The world's markers, in the cell order of their index.
    pub markers: Markers,
    pub marker_grid: Grid,
    pub aims: Aims,
    pub teams: Vec<Team>,
    /// By population: its key in the random streams.
    pub pop_keys: Vec<u64>,
    /// By population: the explicit group it belongs to, or `NONE`.
    pub explicit_group: Vec<u32>,
    /// The distance the resolve stage keeps between agents (Eq 8's `t_min`), m.
    pub min_distance: f64,
    /// An agent has arrived within this distance of its aim point, m.
    pub arrival: f64,
    /// The largest body radius any population can draw, m.
    pub max_radius: f64,
}

impl Scene<'_> {
    /// Where aim `g` is now, for the agent in slot `i`; `None` when there is nothing to walk to.
    #[inline]
    pub fn aim_point(&self, i: usize, g: Goal) -> Option<Vec2> {
        self.aims.point(self.program, &self.agents, i, g)
    }

    /// The random entity of the agent in slot `i`.
    pub fn entity(&self, i: usize) -> Entity {
        let m = &self.agents.mind[i].member;
        Entity { population: self.pop_keys[m.population.index()], index: m.index }
    }

    /// The random entity of population `p`'s `k`-th agent.
    pub fn entity_of(&self, p: u32, k: u32) -> Entity {
        Entity { population: self.pop_keys[p as usize], index: k }
    }

    /// The distance agent `i` covers in one step at its preferred speed, m.
    #[inline]
    pub fn stride(&self, i: usize) -> f64 {
        self.clock.step_length(self.agents.speed[i])
    }
}
