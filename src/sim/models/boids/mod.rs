//! Boids with predators and prey (Durupınar 2007, §3.1): `flock`, `flee
//! SUBJECT` and `hunt SUBJECT [catch within D]`, alone or together in one
//! mode. Each boid carries its own velocity and integrates the forces of
//! `steer::boids` from what its visibility sphere holds (Eq 3.1): its
//! population's agents as flockmates, the fled subject's as predators, the
//! hunted subject's as prey. A predator strikes its prey when its move
//! brings it within the catch distance of where the prey stood; the prey
//! leaves the run and the catch is recorded (`flight.rs` is one boid's step).
//!
//! Invariants:
//! - a boid reads only the step's snapshot and writes only its own walker;
//!   neighbours are visited in the spatial index's fixed order;
//! - strikes are granted in the settle stage in predator id order, each prey
//!   caught at most once: with two predators on one prey the lower id wins.

mod flight;

use flight::Seen;
pub(crate) use flight::{Boid, How};

use crate::ir::{Action, Program};
use crate::sim::scene::Scene;
use crate::sim::stage::{Catch, Holds, Model, Own, Plan};
use crate::sim::workers::Workers;
use crate::steer::boids::Weights;

/// The run's boids state.
pub(crate) struct Boids {
    /// Some behaviour of the scenario uses the model.
    used: bool,
    /// By place in the agents' index, this step.
    seen: Vec<Seen>,
    /// The catches of the step, until the core takes them.
    caught: Vec<Catch>,
    /// By slot, this step: caught already.
    taken: Vec<bool>,
}

impl Model for Boids {
    type Walker = Boid;
    type How = How;

    fn new(scene: &Scene) -> Boids {
        let used = Self::agent_reach(scene.program).is_some();
        Boids { used, seen: Vec::new(), caught: Vec::new(), taken: Vec::new() }
    }

    fn how(action: &Action, mode: &[Action]) -> Option<How> {
        if !matches!(action, Action::Flock { .. } | Action::Flee { .. } | Action::Hunt { .. }) {
            return None;
        }
        let mut how = How { flock: None, flee: None, hunt: None };
        for a in mode {
            match *a {
                Action::Flock { separation, cohesion, alignment } => {
                    how.flock.get_or_insert(Weights { separation, cohesion, alignment });
                }
                Action::Flee { from } => {
                    how.flee.get_or_insert(from);
                }
                Action::Hunt { prey, catch_within } => {
                    how.hunt.get_or_insert((prey, catch_within));
                }
                _ => {}
            }
        }
        Some(how)
    }

    fn agent_reach(program: &Program) -> Option<f64> {
        let flies = program.behaviours.iter().any(|b| b.body.actions().any(|a| Self::how(a, &[]).is_some()));
        flies.then_some(program.params.boids.view_radius)
    }

    fn start(&mut self, scene: &Scene, i: usize, how: How, previous: Option<&Boid>) -> Boid {
        Boid::new(scene, i, how, previous)
    }

    fn perceive(&mut self, scene: &Scene) {
        if !self.used {
            return;
        }
        let agents = &scene.agents;
        self.seen.clear();
        (self.seen).extend((scene.grid.order().iter()).map(|&j| {
            let j = j as usize;
            Seen { pos: agents.pos[j], vel: agents.vel[j], population: agents.population[j], slot: j as u32 }
        }));
    }

    #[inline]
    fn plan(&self, scene: &Scene, me: Own<'_, Boid>) -> Plan {
        flight::step(scene, &self.seen, me.i, me.walker, me.draws)
    }

    fn settle<D: Holds<Boid> + Send>(&mut self, scene: &Scene, drives: &mut [D], settling: &[usize], _: &Workers) {
        if !scene.program.switches.catches {
            return;
        }
        self.taken.clear();
        self.taken.resize(drives.len(), false);
        // Only predators that struck settle; the lowest id takes a prey struck twice.
        for &i in settling {
            if let Some(j) = drives[i].walker().and_then(Boid::struck) {
                if !std::mem::replace(&mut self.taken[j], true) {
                    self.caught.push(Catch { predator: i, prey: j });
                }
            }
        }
    }

    fn catches(&mut self) -> Vec<Catch> {
        std::mem::take(&mut self.caught)
    }
}
