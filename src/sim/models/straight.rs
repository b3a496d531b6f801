//! The straight-line model: walk to the aim in a straight line at the
//! preferred speed (Rodrigues et al. 2010, Eq 9 without a path), kept apart
//! by distance enforcement (Eq 8, in the core's resolve stage).
//!
//! The smallest model, and the one that drives a mode no other model claims
//! (a dwell, a goal pick, `seek ... using straight`). A new model starts as a
//! copy of this file; see "Adding a model" in `docs/architecture.md`.

use crate::ir::{Action, PlannerKind};
use crate::sim::motion::plan_to_aim;
use crate::sim::scene::Scene;
use crate::sim::stage::{Model, Own, Plan};

/// No state for a run.
pub(crate) struct Straight;

impl Model for Straight {
    /// Nothing to remember between steps.
    type Walker = ();
    type How = ();

    fn new(_scene: &Scene) -> Straight {
        Straight
    }

    fn how(action: &Action, _mode: &[Action]) -> Option<()> {
        match action {
            Action::Seek { planner, .. } | Action::Pursue { planner, .. } => {
                (planner.kind == PlannerKind::Straight).then_some(())
            }
            _ => None,
        }
    }

    fn start(&mut self, _scene: &Scene, _i: usize, _how: (), _previous: Option<&()>) {}

    #[inline]
    fn plan(&self, scene: &Scene, me: Own<'_, ()>) -> Plan {
        plan_to_aim(scene, me.i)
    }
}
