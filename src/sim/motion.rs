//! Phases 5 and 7 for one agent, whatever model planned it: steer and
//! integrate (resolve runs over every agent at once after them: `sim/resolve.rs`).
//!
//! Invariants: every function here reads the snapshot (positions at the
//! start of the step, the spatial index, the agent's own plan) and returns a
//! value; none mutates anything, so agents can be processed in any order, on
//! any thread, with the same results.

use super::scene::Scene;
use super::stage::Plan;
use crate::ir::Vec2;
use crate::math::unit;
use crate::steer;

/// An agent's move over one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Move {
    pub next: Vec2,
    pub vel: Vec2,
    /// The new heading, when the agent tried to walk.
    pub heading: Option<Vec2>,
}

/// The plan of agent `i` when it walks straight to its aim, if it has one
/// and has not reached it.
#[inline]
pub(crate) fn plan_to_aim(scene: &Scene, i: usize) -> Plan {
    match scene.aim_point(i, scene.agents.aim[i]) {
        Some(p) if !scene.agents.arrived[i] => Plan::walk_to(p),
        _ => Plan::stand(scene.agents.pos[i]),
    }
}

/// Phase 5 for agent `i`: its own displacement towards its target.
#[inline]
fn steer(scene: &Scene, i: usize, plan: Plan) -> Vec2 {
    if let Some(m_d) = plan.direct {
        // Eq. 12's β m_d/|m_d| (a step short of β where the plan says so).
        steer::direct::step(m_d, scene.stride(i) * plan.pace)
    } else if plan.active {
        let speed = scene.agents.speed[i] * plan.pace;
        steer::seek::goal_step(scene.agents.pos[i], plan.target, scene.clock.step_length(speed))
    } else {
        Vec2::ZERO
    }
}

/// Phase 7 for agent `i`: the new position, kept inside walkable space.
/// Eq 9's `d_enf` is added after every agent has moved (`sim/resolve.rs`).
#[inline]
fn integrate(scene: &Scene, i: usize, desired: Vec2, inside: bool) -> Vec2 {
    let p = scene.agents.pos[i];
    // Rodrigues et al. 2010, Eq. 9: p(t+1) = p(t) + β d/|d|.
    let moved = p + desired;
    if moved.is_finite() && !inside {
        scene.space.project(moved, p, scene.agents.radius[i])
    } else {
        moved
    }
}

/// Phases 5–7 for agent `i` with its plan.
#[inline]
pub(super) fn move_agent(scene: &Scene, i: usize, plan: Plan) -> Move {
    let desired = steer(scene, i, plan);
    let next = integrate(scene, i, desired, plan.inside);
    // Finite positions and a positive time step give finite velocities.
    Move { next, vel: (next - scene.agents.pos[i]) * scene.clock.per_second(), heading: unit(desired) }
}

/// The phase that made a move non-finite, and what it made so.
pub(super) type Blame = (&'static str, &'static str);

/// Which phase made agent `i`'s move with `plan` non-finite, and what.
pub(super) fn blame(scene: &Scene, i: usize, plan: Plan) -> Blame {
    if !steer(scene, i, plan).is_finite() {
        ("steer", "displacement")
    } else {
        ("integrate", "position")
    }
}
