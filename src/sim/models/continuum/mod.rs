//! Continuum crowds (Treuille, Cooper, Popović 2006, as Durupınar 2007 §3.2
//! uses them): `seek GOAL using continuum`. Every step the crowd becomes a
//! density field (`fields.rs`); for each setting (the continuum parameters
//! in force) the speeds and unit costs of every face (`costs.rs`); for each
//! group — the people sharing a goal and a setting — a potential from the
//! eikonal equation solved by fast marching, and the velocity field down it
//! (`group.rs`);
//! each person walks the velocity read at its position, scaled by its own
//! preferred speed. The core's resolve stage then enforces the minimum
//! distance between people.
//!
//! Invariants:
//! - one grid for every group (the density is shared): the scenario's
//!   continuum planners must agree on it, else the run stops before its
//!   first step;
//! - everyone in the world splats, whatever model drives them, so a
//!   continuum crowd walks around the other models' agents;
//! - the organise stage is the only writer of the fields; groups are listed
//!   in the order their first member was met in slot order, and solved in
//!   parallel, each writing only itself;
//! - potentials are solved every `update_every` steps; speeds, costs and
//!   velocities every step.

mod costs;
mod fields;
mod group;

use costs::Costs;
use fields::Fields;
use group::{Group, Key};

use crate::ir::params::Continuum as Params;
use crate::ir::{Action, Behaviour, Planner, PlannerKind, Program, Vec2, NONE};
use crate::sim::agents::Goal;
use crate::sim::scene::Scene;
use crate::sim::stage::{Holds, Model, Own, Plan};
use crate::sim::workers::{light_chunk, Workers};
use crate::world::lattice::Lattice;

/// The most cells the grid may have (2048 x 2048): each group keeps about
/// 100 bytes a cell.
const MAX_CELLS: usize = 1 << 22;
/// Parameters of the fields the whole crowd shares, read from the
/// scenario's `parameters continuum` block: an action cannot set them.
const CROWD_WIDE: [&str; 4] = ["density_exponent", "predictive_horizon", "predictive_weight", "update_every"];

/// The run's continuum crowds state.
pub(crate) struct Continuum {
    /// The settings in force, one per distinct set of parameters, in program order.
    settings: Vec<Params>,
    /// The grid, when some behaviour walks by continuum and its planners agree on one.
    lattice: Option<Lattice>,
    fields: Option<Fields>,
    /// By setting: its faces' speeds and costs, and who walks with it this step.
    costs: Vec<Costs>,
    groups: Vec<Group>,
    /// By slot, this step: the group an agent walks with, or `NONE`.
    group_of: Vec<u32>,
    /// By slot, this step: what its group's fields say where it stands.
    reading: Vec<Reading>,
    /// Steps organised so far.
    steps: u64,
    fault: Option<String>,
}

/// What a group's fields say where a person stands. Everyone's is read in
/// one tight pass once the fields are made, not in the plan stage: each
/// read misses the cache, and a loop that does nothing else keeps many of
/// them in flight at once.
#[derive(Clone, Copy, Debug, Default)]
enum Reading {
    /// The goal cannot be reached from here: stand.
    #[default]
    Stuck,
    /// In the goal (or the potential is switched off): on to the goal's point.
    InGoal,
    /// The velocity field, interpolated at the person's position.
    Walk(Vec2),
}

/// What a person walking by continuum carries: its setting, by index.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Walker {
    setting: u32,
}

impl Continuum {
    /// The continuum parameters in force for `planner` (the scenario's, with
    /// the action's own overrides), and its grid's cell size.
    fn in_force(program: &Program, planner: Option<&Planner>) -> (Params, f64) {
        let (params, grid) = super::in_force::in_force(program, "continuum", planner);
        (params.continuum, grid.unwrap_or(params.continuum.cell))
    }

    /// The planner of `action` when it is a `seek ... using continuum`.
    fn planner_of(action: &Action) -> Option<&Planner> {
        match action {
            Action::Seek { planner, .. } if planner.kind == PlannerKind::Continuum => Some(planner),
            _ => None,
        }
    }

    /// Every continuum planner of the program, in order.
    fn planners(program: &Program) -> impl Iterator<Item = &Planner> {
        program.behaviours.iter().flat_map(|b| b.body.actions()).filter_map(Self::planner_of)
    }

    /// The setting of agent `i`: its mode's continuum planner's, else its
    /// behaviour's first (a leaver walks out with it), else the scenario's.
    fn setting_of(&self, scene: &Scene, i: usize) -> u32 {
        let program = scene.program;
        let m = &scene.agents.mind[i];
        let b = &program.behaviours[program.populations[m.member.population.index()].behaviour.index()];
        let of_mode = (m.mode != NONE).then(|| b.body.mode_actions(m.mode).iter().find_map(Self::planner_of)).flatten();
        let planner = of_mode.or_else(|| b.body.actions().find_map(Self::planner_of));
        let (params, _) = Self::in_force(program, planner);
        self.settings.iter().position(|s| *s == params).unwrap_or(0) as u32
    }

    /// Who walks with which group this step, each group's goal point and
    /// size, and each setting's walkers and their mean preferred speed.
    fn gather<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &[D]) {
        let n = scene.agents.len();
        self.group_of.clear();
        self.group_of.resize(n, NONE);
        for g in &mut self.groups {
            g.members = 0;
        }
        for c in &mut self.costs {
            (c.members, c.f_max) = (0, 0.0);
        }
        // With one setting every walker's is 0, and the boxed walkers, all
        // over the heap, need not be read: a cache miss each.
        let one_setting = self.settings.len() == 1;
        for (i, d) in drives.iter().enumerate() {
            let Some(w) = d.walker() else { continue };
            let goal = scene.agents.aim[i];
            let Some(point) = (goal != Goal::None).then(|| scene.aim_point(i, goal)).flatten() else { continue };
            let setting = if one_setting { 0 } else { w.setting };
            let key = Key { goal, setting };
            let g = match self.groups.iter().position(|g| g.key == key) {
                Some(g) => g,
                None => {
                    self.groups.push(Group::new(key));
                    self.groups.len() - 1
                }
            };
            let group = &mut self.groups[g];
            group.point = point;
            group.members += 1;
            let costs = &mut self.costs[setting as usize];
            costs.members += 1;
            costs.f_max += scene.agents.speed[i];
            self.group_of[i] = g as u32;
        }
        for c in &mut self.costs {
            if c.members > 0 {
                c.f_max /= f64::from(c.members);
            }
        }
    }

    /// Everyone's [`Reading`] of its group's fields this step, by slot.
    fn read_fields(&mut self, scene: &Scene, lattice: &Lattice, workers: &Workers) {
        let n = self.group_of.len();
        self.reading.clear();
        self.reading.resize(n, Reading::Stuck);
        let (groups, group_of, pos) = (&self.groups, &self.group_of, &scene.agents.pos);
        let potential = scene.program.switches.continuum_potential;
        let chunk = light_chunk(n);
        workers.for_each(self.reading.chunks_mut(chunk).collect(), |c, out| {
            for (j, r) in out.iter_mut().enumerate() {
                let i = c * chunk + j;
                let Some(group) = groups.get(group_of[i] as usize) else { continue };
                *r = if group.in_goal(lattice, pos[i]) || !potential {
                    Reading::InGoal
                } else {
                    group.velocity_at(lattice, pos[i]).map_or(Reading::Stuck, Reading::Walk)
                };
            }
        });
    }
}

impl Model for Continuum {
    type Walker = Walker;
    type How = ();

    fn new(scene: &Scene) -> Continuum {
        let program = scene.program;
        let mut settings = vec![Self::in_force(program, None).0];
        let mut cells: Vec<f64> = Vec::new();
        for planner in Self::planners(program) {
            let (params, cell) = Self::in_force(program, Some(planner));
            if !settings.contains(&params) {
                settings.push(params);
            }
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
        let mut fault = Self::planners(program).flat_map(|p| &p.params).find_map(|(name, _)| {
            CROWD_WIDE.contains(&name.as_str()).then(|| {
                format!(
                    "continuum.{name} is one value for the whole crowd (its fields are shared): set it in a \
                     `parameters continuum` block, not on a `seek ... using continuum`"
                )
            })
        });
        let lattice = match cells[..] {
            [] => None,
            [cell] => {
                let l = Lattice::over(program.world.bounds, cell);
                if l.cells() > MAX_CELLS {
                    fault = fault.or(Some(format!(
                        "the continuum grid would have {} x {} = {} cells of {cell} m, more than {MAX_CELLS}: \
                         raise continuum.cell or give the planners a coarser grid",
                        l.nx,
                        l.ny,
                        l.cells()
                    )));
                }
                Some(l)
            }
            _ => {
                fault = fault.or(Some(format!(
                    "the continuum planners ask for grids of different cells ({} m): the density is one field, \
                     so give every `seek ... using continuum` the same `grid X x Y` or `cell`",
                    cells.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" m, ")
                )));
                None
            }
        };
        Continuum {
            costs: settings.iter().map(|_| Costs::default()).collect(),
            settings,
            lattice,
            fields: None,
            groups: Vec::new(),
            group_of: Vec::new(),
            reading: Vec::new(),
            steps: 0,
            fault,
        }
    }

    fn how(action: &Action, _mode: &[Action]) -> Option<()> {
        Self::planner_of(action).map(|_| ())
    }

    fn takes_leavers(behaviour: &Behaviour) -> Option<()> {
        // Who walks by the potential leaves by it, round the obstacles.
        behaviour.body.actions().find_map(Self::planner_of).map(|_| ())
    }

    fn start(&mut self, scene: &Scene, i: usize, _how: (), _previous: Option<&Walker>) -> Walker {
        Walker { setting: self.setting_of(scene, i) }
    }

    fn organise<D: Holds<Walker> + Sync>(
        &mut self,
        scene: &Scene,
        drives: &[D],
        workers: &Workers,
        _formation: &mut [u32],
    ) {
        let Some(lattice) = self.lattice else { return };
        if self.fault.is_some() || !drives.iter().any(|d| d.walker().is_some()) {
            return;
        }
        self.gather(scene, drives);
        let fields = self.fields.get_or_insert_with(|| Fields::new(scene, lattice));
        let base = &self.settings[0];
        fields.splat(&scene.agents.pos, &scene.agents.vel, base.density_exponent, workers);
        fields.predict(&scene.agents.pos, &scene.agents.vel, base.predictive_weight, base.predictive_horizon);
        let every = base.update_every.round().max(1.0) as u64;
        let solve = self.steps.is_multiple_of(every);
        self.steps += 1;
        let (fields, settings, program) = (&*fields, &self.settings, scene.program);
        for (c, p) in self.costs.iter_mut().zip(settings).filter(|(c, _)| c.members > 0) {
            c.update(fields, p, workers);
        }
        let costs = &self.costs;
        let work: Vec<&mut Group> = self.groups.iter_mut().filter(|g| g.members > 0).collect();
        workers.for_each(work, |_, g| {
            let s = g.key.setting as usize;
            g.update(program, fields, &settings[s], &costs[s], solve);
        });
        self.read_fields(scene, &lattice, workers);
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    /// §4.4 at the person: in the goal, where the potential is flat, on to
    /// the goal's point until it arrives, as every model's walkers do
    /// (`sim::decide`); elsewhere the group's velocity read at its position,
    /// scaled from its setting's `f_max` to its own preferred speed.
    fn plan(&self, scene: &Scene, me: Own<'_, Walker>) -> Plan {
        let i = me.i;
        let agents = &scene.agents;
        let pos = agents.pos[i];
        let g = self.group_of.get(i).copied().unwrap_or(NONE);
        let Some(group) = self.groups.get(g as usize) else {
            return Plan::stand(pos);
        };
        if agents.arrived[i] && !agents.leaving[i] {
            return Plan::stand(pos);
        }
        let v = match self.reading[i] {
            Reading::InGoal => return Plan::walk_to(group.point),
            Reading::Stuck => return Plan::stand(pos),
            Reading::Walk(v) => v,
        };
        let own = agents.speed[i];
        let f_max = self.costs[group.key.setting as usize].f_max;
        let v = if f_max > 0.0 { v * (own / f_max) } else { Vec2::ZERO };
        let speed = v.length();
        if !(speed > 0.0 && own > 0.0) {
            return Plan::stand(pos);
        }
        Plan { direct: Some(v), pace: (speed / own).min(1.0), ..Plan::walk_to(pos + v) }
    }
}
