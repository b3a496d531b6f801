//! Semantic groups (Hocevar et al. 2012): A* paths over the node grid laid on
//! the markers (`route.rs`), groups walking together in side-by-side, V or
//! river formation chosen each step from the free space ahead, and the
//! reserved core of each group space (`units.rs`).
//!
//! Invariants:
//! - the node grid is built at the start and again after each marker event
//!   (open floor left without markers is bare, see `plan/astar.rs`); a path is planned
//!   when the goal it was planned for changes, or the grid was rebuilt: a
//!   solo walker's in the parallel pass, into its own [`Route`]; a group's
//!   in the organise stage, into its team's;
//! - the organise stage is the only writer of the group tables, which the
//!   agents' pass only reads;
//! - no randomness: formations, slots and detours are functions of the
//!   snapshot, ties broken by index.

mod route;
mod units;

use crate::behave::groups::{Floor, Layout, SPACING};
use crate::ir::{Action, Behaviour, Formation, PlannerKind, Vec2, NONE};
use crate::plan::astar::NodeGrid;
use crate::sim::scene::Scene;
use crate::sim::stage::{Holds, Model, Own, Plan};
use crate::sim::workers::Workers;
use crate::world::markers::Change;

pub(crate) use route::Route;
use units::{Keep, Units};

/// The run's semantic-groups state.
pub(crate) struct SemanticGroups {
    /// The A* node grid, when some behaviour walks by A*.
    grid: Option<NodeGrid>,
    units: Units,
}

/// The A* node grid of cell side `cell` over the scene's markers, keeping
/// the widest body clear of obstacles (see `Program::switches`).
fn node_grid(scene: &Scene, cell: f64) -> NodeGrid {
    let switches = &scene.program.switches;
    let clearance = if switches.astar_clearance { scene.max_radius } else { 0.0 };
    let mut grid = if switches.astar_door_points {
        NodeGrid::new(&scene.space, Some(&scene.markers), cell, clearance)
    } else {
        NodeGrid::centred(&scene.space, Some(&scene.markers), cell, clearance)
    };
    grid.snap_ends = switches.astar_snap_ends;
    grid
}

impl Floor for NodeGrid {
    fn holds(&self, a: Vec2, b: Vec2) -> bool {
        self.over_markers(a, b)
    }
}

/// Whether `action` seeks by A* (the planner this model walks).
fn seeks_by_astar(action: &Action) -> bool {
    matches!(action, Action::Seek { planner, .. } if planner.kind == PlannerKind::AStar)
}

impl Model for SemanticGroups {
    /// A solo walker's own path (a group's is its team's).
    type Walker = Route;
    type How = ();

    fn new(scene: &Scene) -> SemanticGroups {
        let program = scene.program;
        let params = &program.params.semantic_groups;
        let actions = || program.behaviours.iter().flat_map(|b| b.body.actions());
        let grid = actions().any(|a| Self::how(a, &[]).is_some()).then(|| {
            let cell = match actions().find_map(|a| match a {
                Action::Seek { planner, .. } if planner.kind == PlannerKind::AStar => planner.grid,
                _ => None,
            }) {
                // `using astar grid X x Y` sets the grid's dimensions.
                Some((nx, ny)) => NodeGrid::cell_for_dims(program.world.bounds, nx, ny),
                None => params.astar_cell,
            };
            node_grid(scene, cell)
        });
        // A population's teams keep its own formation, else its explicit group's.
        let keep = program
            .populations
            .iter()
            .zip(&scene.explicit_group)
            .map(|(p, &g)| {
                let declared = match &p.formation {
                    Some(f) => Some(f),
                    None if g != NONE => program.groups[g as usize].formation.as_ref(),
                    None => None,
                };
                declared.and_then(Keep::of)
            })
            .collect();
        let layout = Layout::new(SPACING, params.v_angle);
        SemanticGroups { grid, units: Units::new(scene, layout, params.social_distance, params.core, keep) }
    }

    /// Markers sprayed or erased: nodes become usable or unusable where
    /// they did, and every path is planned afresh on the new grid ("when
    /// markers are removed, agents immediately adjust their paths",
    /// Rodrigues et al. 2010, Sec 6.1, on whose markers the grid is laid).
    fn markers_changed<D: Holds<Route>>(&mut self, scene: &Scene, drives: &mut [D], _change: &Change) {
        let Some(cell) = self.grid.as_ref().map(NodeGrid::cell_size) else { return };
        if !scene.program.switches.astar_follows_markers {
            return;
        }
        // The cell the start's grid settled on (grown over a large world) lays the same grid.
        self.grid = Some(node_grid(scene, cell));
        for d in drives.iter_mut() {
            if let Some(route) = d.walker_mut() {
                *route = Route::default();
            }
        }
        self.units.forget_routes();
    }

    fn how(action: &Action, _mode: &[Action]) -> Option<()> {
        match action {
            Action::Seek { planner, .. } | Action::Pursue { planner, .. } => {
                (planner.kind == PlannerKind::AStar).then_some(())
            }
            _ => None,
        }
    }

    fn takes_leavers(behaviour: &Behaviour) -> Option<()> {
        // Who walks by A* leaves by A* (and a group in formation), not straight into a wall.
        Self::walks(behaviour).then_some(())
    }

    fn start(&mut self, _scene: &Scene, _i: usize, _how: (), _previous: Option<&Route>) -> Route {
        Route::default()
    }

    fn organise<D: Holds<Route> + Sync>(
        &mut self,
        scene: &Scene,
        drives: &[D],
        workers: &Workers,
        formation: &mut [u32],
    ) {
        if self.grid.is_some() {
            let walks = |i: usize| drives[i].walker().is_some();
            self.units.organise(scene, self.grid.as_ref(), walks, workers, formation);
        }
    }

    /// Phase 4 for an agent seeking with A*: its slot when its group walks
    /// together, else its own path; either way detoured around other groups' cores.
    fn plan(&self, scene: &Scene, me: Own<'_, Route>) -> Plan {
        let i = me.i;
        let agents = &scene.agents;
        let pos = agents.pos[i];
        if agents.arrived[i] && !agents.leaving[i] {
            return Plan::stand(pos);
        }
        let Some(goal) = scene.aim_point(i, agents.aim[i]) else { return Plan::stand(pos) };
        let slot = self.units.slot(i, pos, goal);
        let radius = agents.radius[i];
        // A slot behind a corner, or off the markers, is walked to along the member's own path.
        let in_sight = |q: Vec2| self.grid.as_ref().is_none_or(|g| g.walkable(pos, q, radius));
        let target = if slot.grouped && !slot.own_path && in_sight(slot.target) {
            slot.target
        } else {
            me.walker.follow(self.grid.as_ref(), pos, goal, radius).0
        };
        let step = scene.clock.step_length(agents.speed[i] * slot.pace);
        let own = if slot.grouped { slot.unit } else { NONE };
        let target = self.units.detour(agents.mind[i].member.team, pos, target, step, own);
        let target = self.units.sidestep(scene, i, target, step, own, &mut me.walker.side);
        Plan { pace: slot.pace, ..Plan::walk_to(target) }
    }
}

impl SemanticGroups {
    /// Whether the model keeps a declared formation: any but a shape.
    pub fn keeps(formation: &Formation) -> bool {
        Keep::of(formation).is_some()
    }

    /// Whether `behaviour` seeks by A* anywhere: its groups keep formation.
    pub fn walks(behaviour: &Behaviour) -> bool {
        behaviour.body.actions().any(seeks_by_astar)
    }
}
