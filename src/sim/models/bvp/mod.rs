//! BVP potential fields and coherent groups (Silveira, Prestes, Nedel 2008):
//! a character descends a biased Laplace potential over the world
//! (`field.rs`, `seek ... using bvp`); a group with a group map moves as a
//! whole on a sliding map whose potential is relaxed every step, its members
//! pulled towards their formation points (`group_map.rs`, and the member's
//! step in `steer::coherent`).
//!
//! Invariants:
//! - the organise stage is the only writer of the potentials and of the
//!   members' places, which the agents' pass only reads;
//! - a world potential is made once per goal and setting, when an agent
//!   first seeks that goal, and kept for the run;
//! - no randomness: maps, formations and assignments are functions of the
//!   snapshot, ties broken by index.

mod field;
mod group_map;

use crate::behave::groups::Layout;
use crate::ir::{Action, MapVia, Planner, PlannerKind, Program, Vec2, NONE};
use crate::plan::astar::NodeGrid;
use crate::plan::bvp::Bias;
use crate::sim::agents::Goal;
use crate::sim::scene::Scene;
use crate::sim::stage::{Holds, Model, Own, Plan};
use crate::sim::workers::Workers;
use crate::steer::coherent::{self, Heading, Sense};

use field::{Aim, Key, WorldField};
use group_map::{GroupMap, Guide, Place, Run};

/// The most cells a whole-world potential may have (1024 x 1024: about 5 s
/// of relaxation on one core).
const MAX_WORLD_CELLS: u64 = 1 << 20;

/// The run's BVP state.
pub(crate) struct Bvp {
    /// Some behaviour of the scenario seeks with the BVP planner.
    used: bool,
    fields: Vec<WorldField>,
    maps: Vec<GroupMap>,
    /// The node grid of the maps led `via astar`, at the finest such map's cell.
    astar: Option<NodeGrid>,
    /// By slot, this step: the group map an agent walks on (`NONE`: none), and its place there.
    map_of: Vec<u32>,
    places: Vec<Option<Place>>,
    fault: Option<String>,
}

/// What an agent walking by BVP carries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Walker {
    setting: Setting,
    heading: Heading,
}

/// The parameters in force for one agent's action: the scenario's, with
/// the action's own overrides.
#[derive(Clone, Copy, Debug)]
struct Setting {
    params: crate::ir::params::Bvp,
    bias: Bias,
    /// The world potential's cell size, m.
    cell: f64,
}

impl Setting {
    fn key(&self, goal: Goal) -> Key {
        let p = &self.params;
        Key {
            goal,
            bias: self.bias,
            initial: p.initial,
            tolerance: p.tolerance,
            max_sweeps: p.max_iterations as u32,
            cell: self.cell,
        }
    }
}

impl Bvp {
    /// The world potential `key` names, if made.
    fn field(&self, key: &Key) -> Option<&WorldField> {
        self.fields.iter().find(|f| f.key == *key)
    }

    /// The setting of agent `i`'s current mode's `seek ... using bvp`.
    fn setting(scene: &Scene, i: usize) -> Setting {
        let program = scene.program;
        let m = &scene.agents.mind[i];
        let b = program.populations[m.member.population.index()].behaviour;
        let planner = program.behaviours[b.index()].body.mode_actions(m.mode).iter().find_map(|a| match a {
            Action::Seek { planner, .. } if planner.kind == PlannerKind::Bvp => Some(planner),
            _ => None,
        });
        let (p, cell) = Self::in_force(program, planner);
        let bias = Bias::new(p.epsilon, planner.and_then(|p| p.bias).unwrap_or(Vec2::ZERO));
        Setting { params: p, bias, cell }
    }

    /// The bvp parameters in force for `planner` (the scenario's, with the
    /// action's own overrides), and its world potential's cell size.
    fn in_force(program: &Program, planner: Option<&Planner>) -> (crate::ir::params::Bvp, f64) {
        let (params, grid) = super::in_force::in_force(program, "bvp", planner);
        (params.bvp, grid.unwrap_or(params.bvp.cell))
    }

    /// Why a world potential some action asks for has too many cells to
    /// relax, before any is made: red-black SOR takes about as many sweeps
    /// as the grid has cells along a side, so the work grows like cells^1.5
    /// (10 million cells took 6 minutes on one core).
    fn too_fine(program: &Program) -> Option<String> {
        let bounds = program.world.bounds;
        program.behaviours.iter().flat_map(|b| b.body.actions()).find_map(|a| {
            let Action::Seek { planner, .. } = a else { return None };
            if planner.kind != PlannerKind::Bvp {
                return None;
            }
            let (_, cell) = Self::in_force(program, Some(planner));
            let (nx, ny) = match planner.grid {
                Some((nx, ny)) => (nx as u64, ny as u64),
                None => {
                    let l = field::Lattice::over(bounds, cell);
                    (l.nx as u64, l.ny as u64)
                }
            };
            (nx * ny > MAX_WORLD_CELLS).then(|| {
                format!(
                    "the BVP potential over the world would have {nx} x {ny} = {} cells of {cell} m, more than \
                     {MAX_WORLD_CELLS}: raise bvp.cell or give the planner a coarser grid",
                    nx * ny
                )
            })
        })
    }

    /// Makes the world potentials the driven agents' aims need.
    fn make_fields<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &[D]) -> Result<(), String> {
        for (i, d) in drives.iter().enumerate() {
            let Some(w) = d.walker() else { continue };
            // A member of a map led by another planner needs no world potential.
            let g = scene.explicit_group[scene.agents.mind[i].member.population.index()];
            let map = scene.program.groups.get(g as usize).and_then(|g| g.group_map.as_ref());
            if map.is_some_and(|m| m.via != MapVia::Planner(PlannerKind::Bvp)) {
                continue;
            }
            let aim = scene.agents.aim[i];
            if matches!(aim, Goal::None | Goal::Anchor(_)) {
                continue;
            }
            let key = w.setting.key(aim);
            if self.field(&key).is_none() {
                let Some(point) = scene.aim_point(i, aim) else { continue };
                self.fields.push(WorldField::new(scene, key, point)?);
            }
        }
        Ok(())
    }

    /// One step of every group map with members walking by BVP.
    fn move_maps<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &[D]) -> Result<(), String> {
        let program = scene.program;
        for (m, map) in self.maps.iter_mut().enumerate() {
            let slots: Vec<usize> = (0..drives.len())
                .filter(|&i| drives[i].walker().is_some())
                .filter(|&i| {
                    let p = scene.agents.mind[i].member.population.index();
                    scene.explicit_group[p] as usize == map.group
                })
                .collect();
            let Some(&lead) = slots.first() else { continue };
            let Some(w) = drives[lead].walker() else { continue };
            let aim = scene.agents.aim[lead];
            let Some(point) = scene.aim_point(lead, aim) else { continue };
            let p = &w.setting.params;
            let run = Run {
                bias: w.setting.bias,
                mu: p.mu,
                tolerance: p.tolerance,
                max_sweeps: p.max_iterations as u32,
                speed: p.map_speed,
                layout: Layout::on_map(p.spacing, program.params.semantic_groups.v_angle),
            };
            let world = self.fields.iter().find(|f| f.key == w.setting.key(aim));
            let guide = match (&map.via, world, &self.astar) {
                (MapVia::Planner(PlannerKind::AStar), _, Some(grid)) => Guide::Route(grid),
                (MapVia::Planner(PlannerKind::Bvp), Some(world), _) => Guide::World(world),
                (MapVia::Sketch(_), ..) => Guide::Sketch,
                _ => Guide::Straight,
            };
            map.update(scene, &slots, Aim { goal: aim, point }, guide, &run, &mut self.places)?;
            for &i in &slots {
                self.map_of[i] = m as u32;
            }
        }
        Ok(())
    }
}

impl Model for Bvp {
    type Walker = Walker;
    type How = ();

    fn new(scene: &Scene) -> Bvp {
        let program = scene.program;
        let initial = program.params.bvp.initial;
        let maps = (program.groups.iter().enumerate())
            .filter_map(|(g, group)| group.group_map.as_ref().map(|spec| (g, spec, group.formation.clone())))
            .map(|(g, spec, formation)| GroupMap::new(g, spec, formation, initial))
            .collect();
        let by_astar = |m: &&crate::ir::GroupMap| m.via == MapVia::Planner(PlannerKind::AStar);
        let cell = (program.groups.iter().filter_map(|g| g.group_map.as_ref().filter(by_astar)))
            .map(|m| m.cell)
            .reduce(f64::min);
        let astar = cell.map(|cell| NodeGrid::new(&scene.space, None, cell, scene.max_radius));
        let fault = Self::too_fine(program);
        let used = program.behaviours.iter().any(|b| b.body.actions().any(|a| Self::how(a, &[]).is_some()));
        Bvp { used, fields: Vec::new(), maps, astar, map_of: Vec::new(), places: Vec::new(), fault }
    }

    fn how(action: &Action, _mode: &[Action]) -> Option<()> {
        match action {
            Action::Seek { planner, .. } => (planner.kind == PlannerKind::Bvp).then_some(()),
            _ => None,
        }
    }

    fn start(&mut self, scene: &Scene, i: usize, _how: (), previous: Option<&Walker>) -> Walker {
        Walker { setting: Self::setting(scene, i), heading: previous.map_or_else(Heading::default, |w| w.heading) }
    }

    fn organise<D: Holds<Walker> + Sync>(
        &mut self,
        scene: &Scene,
        drives: &[D],
        _workers: &Workers,
        _formation: &mut [u32],
    ) {
        if !self.used {
            return;
        }
        let n = scene.agents.len();
        self.map_of.clear();
        self.map_of.resize(n, NONE);
        self.places.clear();
        self.places.resize(n, None);
        if self.fault.is_some() || !drives.iter().any(|d| d.walker().is_some()) {
            return;
        }
        if let Err(e) = self.make_fields(scene, drives).and_then(|()| self.move_maps(scene, drives)) {
            self.fault = Some(e);
        }
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// Phase 4: a member's step on its group map (`Δr = v_max [μE + (1 − μ)αF]`),
    /// or a single character's descent of the world potential (`Δr = v_max E`).
    fn plan(&self, scene: &Scene, me: Own<'_, Walker>) -> Plan {
        let i = me.i;
        let agents = &scene.agents;
        let pos = agents.pos[i];
        let aim = agents.aim[i];
        let map = self.map_of.get(i).filter(|&&m| m != NONE).map(|&m| &self.maps[m as usize]);
        // A member keeps its place until its whole map has arrived.
        if map.is_none() && agents.arrived[i] && !agents.leaving[i] {
            return Plan::stand(pos);
        }
        let Some(goal) = scene.aim_point(i, aim) else { return Plan::stand(pos) };
        let world = || self.field(&me.walker.setting.key(aim)).and_then(|f| f.descent(pos));
        let params = &me.walker.setting.params;
        let sense = match (map, self.places.get(i).copied().flatten()) {
            (Some(map), Some(place)) => Sense {
                descent: if map.arrived {
                    Vec2::ZERO
                } else {
                    map.descent(pos).or_else(world).unwrap_or(map.centre() - pos)
                },
                to_point: place.point.map(|p| p - pos),
                mu: if map.arrived { 0.0 } else { place.mu },
                eta: params.eta,
            },
            _ => Sense { descent: world().unwrap_or(goal - pos), to_point: None, mu: 1.0, eta: params.eta },
        };
        let (d, heading) = coherent::step(me.walker.heading, sense);
        me.walker.heading = heading;
        Plan::walk_to(pos + d * scene.stride(i))
    }
}
