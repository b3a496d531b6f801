//! Phases 4–7 for one agent: plan, steer, resolve, integrate.
//!
//! Invariants: every function here reads the snapshot (positions at the
//! start of the step, the spatial index, the agent's own state) and returns a
//! value; none mutates anything, so agents can be processed in any order, on
//! any thread, with the same results.

use super::agents::Goal;
use super::paths::{Drive, Walk};
use super::{steer, unit, Simulation};
use crate::ir::Vec2;

/// Where an agent goes this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Plan {
    pub target: Vec2,
    /// It walks (it has something to walk to and has not arrived).
    pub active: bool,
    /// Direct motion (Eqs 10–12): the direction `m_d` replaces the target.
    pub direct: Option<Vec2>,
    /// Distance enforcement applies (Eq 8); the crowd extension reserves markers instead.
    pub enforce: bool,
}

/// An agent's move over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Move {
    pub next: Vec2,
    pub vel: Vec2,
    /// The new heading, when the agent tried to walk.
    pub heading: Option<Vec2>,
}

impl Simulation<'_> {
    /// Where aim `g` is now, for the agent in slot `i`; `None` when there is nothing to walk to.
    pub(super) fn aim_point(&self, i: usize, g: Goal) -> Option<Vec2> {
        match g {
            Goal::None => None,
            Goal::Point(p) => Some(p),
            Goal::Region(r) => Some(self.region_aims[r.index()]),
            Goal::Object(o) => Some(self.program.objects[o.index()].position),
            Goal::Anchor(a) => {
                let slot = self.anchor_slot[a as usize];
                (slot != crate::ir::NONE && slot as usize != i).then(|| self.agents.pos[slot as usize])
            }
        }
    }

    /// Phase 4 for agent `i`: the straight planner walks to the aim itself;
    /// the other drives grow and walk the agent's own path state.
    #[inline]
    pub(super) fn plan(&self, i: usize, walk: &mut Walk) -> Plan {
        if self.agents.drive[i] != Drive::Straight {
            return self.plan_walk(i, walk);
        }
        self.plan_straight(i)
    }

    /// The straight planner's plan: walk to the aim.
    #[inline]
    pub(super) fn plan_straight(&self, i: usize) -> Plan {
        match self.aim_point(i, self.agents.aim[i]) {
            Some(p) if !self.agents.arrived[i] => Plan { target: p, active: true, direct: None, enforce: true },
            _ => Plan { target: self.agents.pos[i], active: false, direct: None, enforce: true },
        }
    }

    /// Phase 5 for agent `i`: its own displacement towards its target.
    #[inline]
    pub(super) fn steer(&self, i: usize, plan: Plan) -> Vec2 {
        if let Some(m_d) = plan.direct {
            // Eq. 12's β m_d/|m_d|.
            steer::direct::step(m_d, self.step_length(self.agents.speed[i]))
        } else if plan.active {
            // A group member's formation-keeping factor (1 for everyone else).
            let speed = self.agents.speed[i] * self.speed_factor(i);
            steer::seek::goal_step(self.agents.pos[i], plan.target, self.step_length(speed))
        } else {
            Vec2::ZERO
        }
    }

    /// Phase 6 for agent `i`: minimum-distance enforcement against its neighbours.
    #[inline]
    pub(super) fn resolve(&self, i: usize, plan: Plan) -> Vec2 {
        if !plan.enforce {
            return Vec2::ZERO;
        }
        steer::enforce::enforce(i, &self.agents.pos, &self.agents.id, &self.grid, self.t_min)
    }

    /// Phase 7 for agent `i`: the new position, kept inside walkable space.
    #[inline]
    pub(super) fn integrate(&self, i: usize, desired: Vec2, push: Vec2) -> Vec2 {
        let p = self.agents.pos[i];
        // Rodrigues et al. 2010, Eq. 9: p(t+1) = p(t) + β d/|d| + d_enf(p(t)).
        let moved = p + desired + push;
        if moved.is_finite() {
            self.space.project(moved, p, self.agents.radius[i])
        } else {
            moved
        }
    }

    /// Phases 5–7 for agent `i` with its plan.
    #[inline]
    pub(super) fn move_agent(&self, i: usize, plan: Plan) -> Move {
        let desired = self.steer(i, plan);
        let push = self.resolve(i, plan);
        let next = self.integrate(i, desired, push);
        // Finite positions and a positive time step give finite velocities.
        let per_second = self.steps_per_second.unwrap_or(1.0 / self.dt);
        Move { next, vel: (next - self.agents.pos[i]) * per_second, heading: unit(desired) }
    }

    /// Which phase made agent `i`'s move non-finite, and what.
    pub(super) fn blame(&self, i: usize) -> (&'static str, &'static str) {
        let plan = Plan { target: self.agents.target[i], active: self.agents.active[i], direct: None, enforce: true };
        if !self.steer(i, plan).is_finite() {
            ("steer", "displacement")
        } else if !self.resolve(i, plan).is_finite() {
            ("resolve", "distance-enforcement push")
        } else {
            ("integrate", "position")
        }
    }
}
