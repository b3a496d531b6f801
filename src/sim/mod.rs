//! The executor's core: time, the agents, the step pipeline and the
//! parallel map / sequential apply discipline. It names no model: motion
//! models plug in through the registry (`models`) and the stages of `stage`.
//!
//! The pipeline's phases, in cycle order: spawn/despawn → perceive → decide →
//! plan → steer → integrate → resolve → record. [`Simulation::start`] runs
//! spawn/despawn and perceive at `t = 0`, decides for the new agents and
//! records frame 0 (the initial state). Each [`Simulation::step`] then runs
//! the models' organise stage, then decide → plan → steer → integrate for
//! every agent at `t` (one parallel pass, see below), resolve over the moved
//! positions (parallel sweeps, `resolve`), the models' settle stage, then spawn/despawn and perceive at `t + dt`
//! (deciding at once for agents that just appeared), and records when the
//! record rate says so. So a frame shows new agents where they appeared, each
//! agent's state is the one it walked the last step in, and an agent that
//! leaves disappears in the step it arrives.
//!
//! Determinism (see `docs/architecture.md`):
//! - the parallel pass reads an immutable snapshot (the `Scene`:
//!   positions, velocities and headings at `t`, the spatial index, arrival
//!   flags) and writes one result per agent into that agent's slots; the
//!   only state it changes is each agent's own (its model's walker, its draw
//!   counts). An agent's decision only needs the sequential apply when it
//!   changes: such agents are skipped in the pass, applied afterwards in id
//!   order (entering modes, drawing dwell times, picking objects with limited
//!   capacity), then planned and moved; since an agent's move reads only the
//!   snapshot and its own decision, the result is the same as if everything
//!   ran in id order;
//! - every random draw comes from a stream keyed by (seed, purpose, entity,
//!   draw number) in [`crate::rng`], never from a stream shared between agents;
//! - a non-finite position or velocity stops the run with an error naming the
//!   agent, the step and the phase; a NaN never reaches a trace.

mod agents;
mod aims;
pub(crate) mod cache;
mod decide;
pub mod error;
mod models;
mod motion;
mod resolve;
pub mod sample;
mod scene;
pub(crate) mod spawn;
mod stage;
mod workers;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::ir::{BehaviourBody, Program, Vec2, NONE};
use crate::rng;
use crate::trace::{AgentLog, FrameView, Labels, Recorder};
use crate::world::geometry::bounding_box;
use crate::world::grid::Grid;
use crate::world::markers;
use crate::world::walkable::Walkable;

use agents::{retain, Goal};
pub use error::SimError;
use models::{Drive, Models};
use motion::Blame;
use sample::upper_bound;
use scene::{Clock, Scene};
use stage::Plan;
use workers::CHUNK;

/// The spatial index has at most this many cells per live agent (plus a floor).
const CELLS_PER_AGENT: u64 = 4;
/// The markers' index has cells no smaller than this, m.
const MIN_MARKER_CELL: f64 = 0.25;

/// Wall-clock time spent in each phase of the pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Preparing the run: the walkable space, the markers and their index, planners' grids.
    pub setup: Duration,
    pub spawn: Duration,
    pub perceive: Duration,
    /// The models' stages and decide, plan, steer, resolve and integrate, which run together agent by agent.
    pub act: Duration,
    /// The part of `act` that runs on one thread: the models' sequential
    /// stages, the decisions that change shared tables, in id order.
    pub sequential: Duration,
    pub record: Duration,
}

impl PhaseTimes {
    /// Everything but recording.
    pub fn simulation(&self) -> Duration {
        self.spawn + self.perceive + self.act
    }

    pub fn named(&self) -> [(&'static str, Duration); 5] {
        [
            ("spawn/despawn", self.spawn),
            ("perceive", self.perceive),
            ("decide+plan+steer+resolve+integrate", self.act),
            ("of which sequential", self.sequential),
            ("record", self.record),
        ]
    }
}

/// The result of a finished run (the trace went to the recorder).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub steps: u64,
    pub frames: u64,
    /// Agents created over the run.
    pub agents: u32,
    /// Σ over steps of the live agents moved.
    pub agent_steps: u64,
    /// Indexed by agent id.
    pub log: Vec<AgentLog>,
    /// Every catch of a predator, in the order they were made.
    pub catches: Vec<CatchRecord>,
    pub times: PhaseTimes,
}

/// A predator's catch (Durupınar §3.1): the step it was made in and the
/// agents' ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatchRecord {
    pub step: u64,
    pub predator: u32,
    pub prey: u32,
}

/// Per-population bookkeeping.
struct PopState {
    created: u32,
    /// The population's teams, by the index of their first member, in order.
    teams: Vec<u32>,
    next_team: usize,
    /// Spawned around the first agent of `leader` within `within`.
    follows: Option<(u32, f64)>,
    leaving: bool,
    /// `spawn in REGION chaotic`: the orbits and the stream they restart
    /// from, begun at the population's first placement and continued by
    /// every later one (a `peak` schedule's too).
    orbit: Option<(crate::world::chaos::Orbit, crate::rng::Stream)>,
}

/// Where the agents' moves of a step go, one slot per agent: the snapshot's
/// own arrays stay as they were until every agent has moved.
struct Moves<'a> {
    target: &'a mut [Vec2],
    active: &'a mut [bool],
    next: &'a mut [Vec2],
    vel: &'a mut [Vec2],
    ori: &'a mut [Vec2],
    /// Grid cells of `next`.
    key: &'a mut [u32],
    /// The plan asked for the models' settle stage.
    settles: &'a mut [bool],
    /// The plan takes part in distance enforcement.
    enforce: &'a mut [bool],
}

impl<'a> Moves<'a> {
    /// Writes the move of the agent in slot `j`, whose heading was `ori`;
    /// whether it is finite (a non-finite move writes its position and plan only).
    fn put(&mut self, j: usize, plan: Plan, m: &motion::Move, ori: Vec2, grid: &Grid) -> bool {
        (self.target[j], self.active[j], self.next[j]) = (plan.target, plan.active, m.next);
        self.settles[j] = plan.settles;
        self.enforce[j] = plan.enforce;
        if !m.next.is_finite() {
            return false;
        }
        self.vel[j] = m.vel;
        self.ori[j] = m.heading.unwrap_or(ori);
        self.key[j] = grid.key_of(m.next);
        true
    }

    fn split_at(self, k: usize) -> (Self, Self) {
        let (target, target_) = self.target.split_at_mut(k);
        let (active, active_) = self.active.split_at_mut(k);
        let (next, next_) = self.next.split_at_mut(k);
        let (vel, vel_) = self.vel.split_at_mut(k);
        let (ori, ori_) = self.ori.split_at_mut(k);
        let (key, key_) = self.key.split_at_mut(k);
        let (settles, settles_) = self.settles.split_at_mut(k);
        let (enforce, enforce_) = self.enforce.split_at_mut(k);
        (
            Moves { target, active, next, vel, ori, key, settles, enforce },
            Moves {
                target: target_,
                active: active_,
                next: next_,
                vel: vel_,
                ori: ori_,
                key: key_,
                settles: settles_,
                enforce: enforce_,
            },
        )
    }
}

/// What a parallel pass writes for a run of consecutive agents, one slot
/// each: its decision, its move, and its own state.
struct Slots<'a> {
    arrived: &'a mut [bool],
    fired: &'a mut [u32],
    todo: &'a mut [bool],
    deferred: &'a mut [bool],
    moves: Moves<'a>,
    drive: &'a mut [Drive],
    /// The agents' new var values, `stride` each.
    vars: &'a mut [f64],
    stride: usize,
}

impl<'a> Slots<'a> {
    /// Cuts the run into runs of `len` agents (the last may be shorter).
    fn chunks(mut self, len: usize) -> Vec<Slots<'a>> {
        let mut out = Vec::with_capacity(self.arrived.len().div_ceil(len));
        while self.arrived.len() > len {
            let (head, tail) = self.split_at(len);
            out.push(head);
            self = tail;
        }
        if !self.arrived.is_empty() {
            out.push(self);
        }
        out
    }

    fn split_at(self, k: usize) -> (Self, Self) {
        let (arrived, arrived_) = self.arrived.split_at_mut(k);
        let (fired, fired_) = self.fired.split_at_mut(k);
        let (todo, todo_) = self.todo.split_at_mut(k);
        let (deferred, deferred_) = self.deferred.split_at_mut(k);
        let (moves, moves_) = self.moves.split_at(k);
        let (drive, drive_) = self.drive.split_at_mut(k);
        let stride = self.stride;
        let (vars, vars_) = self.vars.split_at_mut(k * stride);
        (
            Slots { arrived, fired, todo, deferred, moves, drive, vars, stride },
            Slots {
                arrived: arrived_,
                fired: fired_,
                todo: todo_,
                deferred: deferred_,
                moves: moves_,
                drive: drive_,
                vars: vars_,
                stride,
            },
        )
    }
}

/// Which agents a parallel pass plans and moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Movers {
    /// Every agent is decided; those whose decision does not change move.
    Unchanged,
    /// The agents whose changed decision the apply left to a parallel pass.
    Deferred,
}

/// Per-step scratch arrays, grown once and reused.
#[derive(Default)]
struct Scratch {
    arrived: Vec<bool>,
    fired: Vec<u32>,
    todo: Vec<bool>,
    /// Applied, and left for the second pass to plan and move.
    deferred: Vec<bool>,
    /// The agents' positions, velocities, headings and targets after the
    /// passes: the snapshot's own arrays stay as they were until every agent moved.
    next: Vec<Vec2>,
    vel: Vec<Vec2>,
    ori: Vec<Vec2>,
    target: Vec<Vec2>,
    active: Vec<bool>,
    /// Grid cells of `next`, valid for the agents as they are after the pass.
    keys: Vec<u32>,
    keys_valid: bool,
    /// The agents whose plan asked for the settle stage, and their slots.
    settles: Vec<bool>,
    settling: Vec<usize>,
    keep: Vec<bool>,
    /// The agents that take part in distance enforcement.
    enforce: Vec<bool>,
    sweeps: resolve::Sweeps,
    /// The agents' var values after this step's update (see `decide`).
    vars: Vec<f64>,
}

impl Scratch {
    /// The slots of a parallel pass over every agent, with their drives.
    fn slots<'a>(&'a mut self, drive: &'a mut [Drive], stride: usize) -> Slots<'a> {
        let Scratch {
            arrived,
            fired,
            todo,
            deferred,
            next,
            vel,
            ori,
            target,
            active,
            keys,
            settles,
            enforce,
            vars,
            ..
        } = self;
        let moves = Moves { target, active, next, vel, ori, key: keys, settles, enforce };
        Slots { arrived, fired, todo, deferred, moves, drive, vars, stride }
    }

    /// Where the moves go, for the sequential apply (which reads the drives
    /// from the simulation, so none are lent here).
    fn moves(&mut self) -> Moves<'_> {
        self.slots(&mut [], 0).moves
    }
}

pub struct Simulation<'p> {
    scene: Scene<'p>,
    models: Models,
    /// By agent slot: its own state (its draws, the model that drives it).
    drives: Vec<Drive>,
    total_steps: u64,
    record_every: u64,
    step: u64,
    frame: u64,
    started: bool,
    pops: Vec<PopState>,
    /// Populations in spawning order: those placed around a leader last.
    spawn_order: Vec<usize>,
    occupancy: Vec<u32>,
    /// By object: the teams waiting for room there, first come first (see `try_pick`).
    claims: Vec<Vec<u32>>,
    /// Label offset of each behaviour's modes.
    mode_offset: Vec<u32>,
    /// By behaviour: the mode it is always in, when nothing can change it
    /// (a first rule without a condition, or a single state without transitions).
    fixed_mode: Vec<Option<u32>>,
    /// By behaviour: some mode picks goals (and may have to retry).
    picks_goals: Vec<bool>,
    leaving_label: u32,
    idle_label: u32,
    next_id: u32,
    next_group_number: u32,
    log: Vec<AgentLog>,
    catches: Vec<CatchRecord>,
    scratch: Scratch,
    workers: workers::Workers,
    times: PhaseTimes,
    agent_steps: u64,
    /// The markers' index cell (see [`Markers::into_cell_order`]).
    marker_cell: f64,
    /// The world's next marker event (`program.world.markers.events`).
    next_marker_event: usize,
    /// Bounding boxes of the world's obstacles, for `sees obstacle`.
    obstacle_boxes: Vec<crate::ir::Rect>,
}

impl<'p> Simulation<'p> {
    /// Prepares a run of `program` with `seed`; refuses scenarios that need
    /// models the executor does not have.
    pub fn new(program: &'p Program, seed: u64) -> Result<Self, SimError> {
        runnable(program)?;
        let min_distance = models::min_distance(program);
        // Cells as small as the smallest query radius: the queries visit few markers they then reject.
        let reach = Models::marker_reach(program).unwrap_or(MIN_MARKER_CELL);
        let marker_cell = reach.max(MIN_MARKER_CELL);
        let (markers, marker_grid) = markers::generate(&program.world, seed).into_cell_order(marker_cell);
        let header = &program.header;
        let clock = Clock::new(header.dt);
        let max_radius = program.populations.iter().map(|p| upper_bound(&p.radius)).fold(0.0, f64::max);
        let max_step = program.populations.iter().map(|p| upper_bound(&p.speed)).fold(0.0, f64::max) * header.dt;
        let space = Walkable::new(&program.world, max_radius + max_step + min_distance);
        let max_agents: u64 = program.populations.iter().map(|p| u64::from(p.max_count())).sum();
        // Cells as wide as the models' neighbour queries: a query then visits 3 × 3 of them.
        let agent_cell = Models::agent_reach(program).map_or(min_distance, |r| r.max(min_distance));
        let grid = Grid::new(program.world.bounds, agent_cell, (max_agents * CELLS_PER_AGENT).max(4096));

        let n_groups = program.groups.len() as u32;
        let mut group_members = vec![vec![false; program.populations.len()]; program.groups.len()];
        let mut explicit_group = vec![NONE; program.populations.len()];
        let mut pops: Vec<PopState> = program
            .populations
            .iter()
            .map(|_| PopState {
                created: 0,
                teams: Vec::new(),
                next_team: 0,
                follows: None,
                leaving: false,
                orbit: None,
            })
            .collect();
        for (p, pop) in program.populations.iter().enumerate() {
            if let crate::ir::Place::Around { leader, within } = pop.spawn {
                pops[p].follows = Some((leader.0, within));
            }
        }
        for (g, group) in program.groups.iter().enumerate() {
            let mut mark = |p: usize| {
                group_members[g][p] = true;
                explicit_group[p] = g as u32;
            };
            group.members.iter().for_each(|p| mark(p.index()));
            if let Some(l) = group.leader {
                mark(l.index());
            }
            if let Some(f) = &group.followers {
                mark(f.population.index());
                if let (Some(l), None) = (group.leader, pops[f.population.index()].follows) {
                    pops[f.population.index()].follows = Some((l.0, f.within));
                }
            }
        }

        let spawn_order = (0..pops.len())
            .filter(|&p| pops[p].follows.is_none())
            .chain((0..pops.len()).filter(|&p| pops[p].follows.is_some()))
            .collect();
        let mut mode_offset = Vec::with_capacity(program.behaviours.len());
        let mut modes = 0;
        for b in &program.behaviours {
            mode_offset.push(modes);
            modes += b.body.modes() as u32;
        }
        let fixed_mode = program
            .behaviours
            .iter()
            .map(|b| match &b.body {
                BehaviourBody::Rules(rules) => rules.first().filter(|r| r.when.is_none()).map(|_| 0),
                BehaviourBody::States(states) => (states.len() == 1 && states[0].transitions.is_empty()).then_some(0),
            })
            .collect();
        let picks_goals = program
            .behaviours
            .iter()
            .map(|b| b.body.actions().any(|a| matches!(a, crate::ir::Action::PickGoal)))
            .collect();
        // `labels` lists the executor's own modes after the behaviours'.
        let (leaving_label, idle_label) = (modes, modes + 1);

        let scene = Scene {
            program,
            seed,
            clock,
            step: 0,
            agents: agents::Agents::default(),
            grid,
            space,
            markers,
            marker_grid,
            aims: aims::Aims::new(program, group_members),
            teams: Vec::new(),
            pop_keys: program.populations.iter().map(|p| rng::population_key(&p.name)).collect(),
            explicit_group,
            min_distance,
            arrival: program.params.motion.arrival_radius,
            max_radius,
        };
        let mut sim = Simulation {
            models: Models::new(&scene),
            scene,
            drives: Vec::new(),
            total_steps: header.steps(),
            record_every: u64::from(header.record_every.max(1)),
            step: 0,
            frame: 0,
            started: false,
            pops,
            spawn_order,
            occupancy: vec![0; program.objects.len()],
            claims: vec![Vec::new(); program.objects.len()],
            mode_offset,
            fixed_mode,
            picks_goals,
            leaving_label,
            idle_label,
            next_id: 0,
            next_group_number: n_groups,
            log: Vec::new(),
            catches: Vec::new(),
            scratch: Scratch::default(),
            workers: workers::Workers::default(),
            times: PhaseTimes::default(),
            agent_steps: 0,
            marker_cell,
            next_marker_event: 0,
            obstacle_boxes: program.world.obstacles.iter().map(|o| bounding_box(&o.shape)).collect(),
        };
        sim.scene.agents.var_stride = program.behaviours.iter().map(|b| b.vars.len()).max().unwrap_or(0);
        sim.plan_teams();
        Ok(sim)
    }

    pub fn total_steps(&self) -> u64 {
        self.total_steps
    }

    pub fn steps_done(&self) -> u64 {
        self.step
    }

    pub fn finished(&self) -> bool {
        self.started && self.step >= self.total_steps
    }

    /// Live agents now.
    pub fn live(&self) -> usize {
        self.scene.agents.len()
    }

    /// Simulated time after `step` steps, s.
    pub fn time(&self, step: u64) -> f64 {
        self.scene.clock.time(step)
    }

    /// Creates the initial agents, decides their first modes and records frame 0.
    pub fn start(&mut self, recorder: &mut dyn Recorder) -> Result<(), SimError> {
        debug_assert!(!self.started);
        self.started = true;
        let t = self.time(0);
        self.timed(|s| &mut s.times.spawn, |s| s.spawn_despawn(t))?;
        self.timed(|s| &mut s.times.perceive, |s| s.perceive())?;
        self.timed(|s| &mut s.times.act, |s| s.decide_new(t))?;
        self.record(recorder)
    }

    /// Lets the pool's other threads sleep as soon as a pass leaves them
    /// without work, instead of keeping them awake for the next pass: for
    /// when several simulations run on one pool at once.
    pub fn share_pool(&mut self) {
        self.workers.share_pool();
    }

    /// Advances one step, recording a frame when the record rate says so.
    pub fn step(&mut self, recorder: &mut dyn Recorder) -> Result<(), SimError> {
        if !self.started {
            self.start(recorder)?;
        }
        let t = self.time(self.step);
        self.timed(|s| &mut s.times.act, |s| s.marker_events(t))?;
        self.agent_steps += self.scene.agents.len() as u64;
        self.timed(|s| &mut s.times.act, |s| s.act(t))?;
        self.step += 1;
        let t = self.time(self.step);
        self.timed(|s| &mut s.times.spawn, |s| s.spawn_despawn(t))?;
        self.timed(|s| &mut s.times.perceive, |s| s.perceive())?;
        self.timed(|s| &mut s.times.act, |s| s.decide_new(t))?;
        if self.step.is_multiple_of(self.record_every) {
            self.record(recorder)?;
        }
        Ok(())
    }

    /// What happened so far (the agent log moves out: call once, at the end).
    pub fn finish(&mut self) -> Outcome {
        Outcome {
            steps: self.step,
            frames: self.frame,
            agents: self.next_id,
            agent_steps: self.agent_steps,
            log: std::mem::take(&mut self.log),
            catches: std::mem::take(&mut self.catches),
            times: self.times,
        }
    }

    fn timed(
        &mut self,
        slot: impl Fn(&mut Self) -> &mut Duration,
        phase: impl FnOnce(&mut Self) -> Result<(), SimError>,
    ) -> Result<(), SimError> {
        let t0 = Instant::now();
        let r = phase(self);
        *slot(self) += t0.elapsed();
        r
    }

    /// Appends a new agent with the core's and the models' state of an agent
    /// before its first mode.
    fn push_agent(&mut self, a: agents::Newborn) {
        let b = self.scene.program.populations[a.mind.member.population.index()].behaviour.index();
        let vars = &self.scene.program.behaviours[b].vars;
        let agents = &mut self.scene.agents;
        agents.vars.extend((0..agents.var_stride).map(|k| vars.get(k).map_or(0.0, |v| v.start)));
        agents.push(a);
        self.drives.push(Drive::new());
    }

    /// Keeps the agents whose `keep` entry is true, in order.
    fn retain_agents(&mut self, keep: &[bool]) {
        self.scene.agents.retain(keep);
        retain(&mut self.drives, keep);
    }

    /// The agents the models caught this step leave the run, gone by `t`;
    /// each catch is recorded. Whether anyone left.
    fn remove_caught(&mut self, t: f64) -> bool {
        let caught = self.models.catches();
        if caught.is_empty() {
            return false;
        }
        let mut keep = vec![true; self.scene.agents.len()];
        for c in &caught {
            let (predator, prey) = (self.scene.agents.id[c.predator], self.scene.agents.id[c.prey]);
            self.catches.push(CatchRecord { step: self.step, predator, prey });
            keep[c.prey] = false;
        }
        let gone: Vec<usize> = (0..keep.len()).filter(|&i| !keep[i]).collect();
        self.remove_agents(&keep, &gone, t);
        true
    }

    /// Phase 3a, before the agents' pass at time `t`: the world's marker
    /// events due by then (within half a step), in order. Each makes the
    /// markers and their index again, and the models follow (see
    /// [`markers::Markers::apply_event`]).
    fn marker_events(&mut self, t: f64) -> Result<(), SimError> {
        let events = &self.scene.program.world.markers.events;
        let half = self.scene.clock.dt / 2.0;
        while self.next_marker_event < events.len() && events[self.next_marker_event].at <= t + half {
            let k = self.next_marker_event;
            self.next_marker_event += 1;
            let world = &self.scene.program.world;
            let old = std::mem::replace(&mut self.scene.markers, markers::Markers::none(world.bounds));
            let (markers, grid, change) = old.apply_event(world, self.scene.seed, k, self.marker_cell);
            self.scene.markers = markers;
            self.scene.marker_grid = grid;
            self.models.markers_changed(&self.scene, &mut self.drives, &change);
        }
        Ok(())
    }

    /// Phase 2: rebuild the spatial index, let the models perceive, and find
    /// each anchor subject's first agent.
    fn perceive(&mut self) -> Result<(), SimError> {
        let scene = &mut self.scene;
        if self.scratch.keys_valid && self.scratch.keys.len() == scene.agents.len() {
            scene.grid.rebuild_keyed(&scene.agents.pos, &self.scratch.keys);
        } else {
            scene.grid.rebuild(&scene.agents.pos);
        }
        self.scratch.keys_valid = false;
        self.models.perceive(&self.scene);
        self.scene.aims.locate(self.scene.program, &self.scene.agents);
        Ok(())
    }

    /// Phases 3–7 (decide, plan, steer, integrate) for every agent at time
    /// `t`, in one parallel pass over the snapshot, between the models'
    /// organise and settle stages; agents whose decision changes are
    /// applied, planned and moved after the pass, in id order; then resolve.
    fn act(&mut self, t: f64) -> Result<(), SimError> {
        let sequential = self.workers.sequential_since(Instant::now());
        // The organise stage writes the group tables the pass reads.
        self.scene.step = self.step;
        let mut formation = std::mem::take(&mut self.scene.agents.formation);
        formation.fill(NONE);
        self.models.organise(&self.scene, &self.drives, &self.workers, &mut formation);
        self.scene.agents.formation = formation;
        if let Some(message) = self.models.fault() {
            return Err(SimError::Model { step: self.step, t, message });
        }
        self.times.sequential += sequential.elapsed(&self.workers);

        let n = self.scene.agents.len();
        let mut s = std::mem::take(&mut self.scratch);
        s.arrived.resize(n, false);
        s.fired.resize(n, NONE);
        s.todo.resize(n, false);
        s.deferred.clear();
        s.deferred.resize(n, false);
        s.next.resize(n, Vec2::ZERO);
        s.vel.resize(n, Vec2::ZERO);
        s.ori.resize(n, Vec2::ZERO);
        s.target.resize(n, Vec2::ZERO);
        s.active.resize(n, false);
        s.keys.resize(n, 0);
        s.settles.resize(n, false);
        s.enforce.resize(n, false);
        s.vars.resize(n * self.scene.agents.var_stride, 0.0);
        let unfinished = self.pass(t, &mut s, Movers::Unchanged);
        // The step's var values, which the pass computed from the snapshot,
        // are what the decisions applied below read.
        std::mem::swap(&mut self.scene.agents.vars, &mut s.vars);
        let sequential = self.workers.sequential_since(Instant::now());
        let result = self.apply_changed(t, &mut s).and_then(|deferred| {
            // The deferred agents come before any that failed to apply: a
            // move of theirs that is not finite is the first failure.
            match deferred.then(|| self.pass(t, &mut s, Movers::Deferred)).flatten() {
                Some((i, blame)) => Err(self.non_finite(i, blame)),
                None => Ok(()),
            }
        });
        let result = result.and_then(|()| match unfinished {
            Some((i, blame)) => Err(self.non_finite(i, blame)),
            None => Ok(()),
        });
        if result.is_ok() {
            self.resolve(&mut s);
            let agents = &mut self.scene.agents;
            std::mem::swap(&mut agents.pos, &mut s.next);
            std::mem::swap(&mut agents.vel, &mut s.vel);
            std::mem::swap(&mut agents.ori, &mut s.ori);
            std::mem::swap(&mut agents.target, &mut s.target);
            std::mem::swap(&mut agents.active, &mut s.active);
            s.settling.clear();
            s.settling.extend((0..n).filter(|&i| s.settles[i]));
            self.models.settle(&self.scene, &mut self.drives, &s.settling, &self.workers);
            // The cell keys are by slot: a catch moves the slots.
            let caught = self.remove_caught(self.time(self.step + 1));
            self.note_progress(self.time(self.step + 1));
            self.scene.agents.fresh.fill(false);
            s.keys_valid = !caught;
        }
        self.times.sequential += sequential.elapsed(&self.workers);
        self.scratch = s;
        result
    }

    /// Notes, at `t`, how close each agent walking to an object came to it
    /// (`Mind::closest`): a walker that stopped getting closer stands as
    /// near as those already there let it (see `decide.rs`, arrival).
    fn note_progress(&mut self, t: f64) {
        let agents = &mut self.scene.agents;
        let (aim, arrived, pos, objects) = (&agents.aim, &agents.arrived, &agents.pos, &self.scene.program.objects);
        let len = workers::light_chunk(agents.mind.len());
        let chunks: Vec<_> = agents.stalled.chunks_mut(len).zip(agents.mind.chunks_mut(len)).collect();
        self.workers.for_each(chunks, |k, (stalled, minds)| {
            for (j, s) in stalled.iter_mut().enumerate() {
                let i = k * len + j;
                let Goal::Object(o) = aim[i] else {
                    *s = false;
                    continue;
                };
                if arrived[i] {
                    *s = false;
                    continue;
                }
                let m = &mut minds[j];
                let d = pos[i].distance(objects[o.index()].position);
                if d <= m.closest - agents::PROGRESS {
                    m.closest = d;
                    m.closer_at = t;
                }
                *s = t - m.closer_at >= agents::STALL_TIME - 1e-9;
            }
        });
    }

    /// Phase 8, resolve: distance enforcement over the moved positions; the velocities
    /// and grid cells of the agents it pushed follow their new positions.
    fn resolve(&mut self, s: &mut Scratch) {
        if !resolve::enforce(&self.scene, &self.workers, &mut s.next, &s.enforce, &mut s.sweeps) {
            return;
        }
        let (per_second, scene, next) = (self.scene.clock.per_second(), &self.scene, &s.next);
        let len = workers::light_chunk(next.len());
        let chunks: Vec<_> = s.vel.chunks_mut(len).zip(s.keys.chunks_mut(len)).collect();
        self.workers.for_each(chunks, |k, (vel, keys)| {
            for j in 0..vel.len() {
                let i = k * len + j;
                vel[j] = (next[i] - scene.agents.pos[i]) * per_second;
                keys[j] = scene.grid.key_of(next[i]);
            }
        });
    }

    /// A parallel pass over the snapshot: with [`Movers::Unchanged`], decides
    /// every agent and plans and moves those whose decision does not change;
    /// with [`Movers::Deferred`], plans and moves the agents the apply left.
    /// The first agent whose move was not finite, and which phase made it so.
    fn pass(&mut self, t: f64, s: &mut Scratch, movers: Movers) -> Option<(usize, Blame)> {
        let mut drives = std::mem::take(&mut self.drives);
        let unfinished: Mutex<Option<(usize, Blame)>> = Mutex::new(None);
        let stride = self.scene.agents.var_stride;
        self.workers.for_each(s.slots(&mut drives, stride).chunks(CHUNK), |k, mut c| {
            let scene = &self.scene;
            for j in 0..c.arrived.len() {
                let i = k * CHUNK + j;
                match movers {
                    Movers::Unchanged => {
                        let d = self.decide_one(i, t, &mut c.vars[j * stride..(j + 1) * stride]);
                        (c.arrived[j], c.fired[j], c.todo[j]) = (d.arrived, d.fired, d.todo);
                        if d.todo {
                            continue;
                        }
                    }
                    Movers::Deferred if !c.deferred[j] => continue,
                    Movers::Deferred => {}
                }
                // Two agents ahead the boxes, one ahead what they point to.
                if let Some(after) = c.drive.get(j + 2) {
                    after.prefetch();
                }
                if let Some(after) = c.drive.get(j + 1) {
                    self.models.prefetch(after);
                }
                let plan = self.models.plan(scene, i, &mut c.drive[j]);
                let m = motion::move_agent(scene, i, plan);
                if !c.moves.put(j, plan, &m, scene.agents.ori[i], &scene.grid) {
                    let blame = motion::blame(scene, i, plan);
                    if let Ok(mut first) = unfinished.lock() {
                        if first.is_none_or(|(f, _)| i < f) {
                            *first = Some((i, blame));
                        }
                    }
                }
            }
        });
        self.drives = drives;
        unfinished.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The sequential apply of [`Simulation::act`]: the agents whose decision
    /// changes, in id order. An agent whose model plans in order is planned
    /// and moved at once; the others are left to a parallel pass (whether
    /// any was). Stops at the first failure.
    fn apply_changed(&mut self, t: f64, s: &mut Scratch) -> Result<bool, SimError> {
        let mut deferred = false;
        for i in 0..self.scene.agents.len() {
            if !s.todo[i] {
                continue;
            }
            self.apply_decision(i, s.arrived[i], s.fired[i], t)?;
            if !self.models.plans_in_order(&self.drives[i]) {
                s.deferred[i] = true;
                deferred = true;
                continue;
            }
            let plan = self.models.plan(&self.scene, i, &mut self.drives[i]);
            let m = motion::move_agent(&self.scene, i, plan);
            if !s.moves().put(i, plan, &m, self.scene.agents.ori[i], &self.scene.grid) {
                return Err(self.non_finite(i, motion::blame(&self.scene, i, plan)));
            }
        }
        Ok(deferred)
    }

    fn non_finite(&self, i: usize, (phase, what): Blame) -> SimError {
        let agents = &self.scene.agents;
        SimError::NonFinite {
            agent: agents.id[i],
            population: self.scene.program.populations[agents.population[i] as usize].name.clone(),
            step: self.step,
            t: self.time(self.step),
            phase,
            what,
        }
    }

    /// Phase 8: hand the current state to the recorder as one frame.
    fn record(&mut self, recorder: &mut dyn Recorder) -> Result<(), SimError> {
        let t0 = Instant::now();
        let a = &self.scene.agents;
        let view = FrameView {
            frame: self.frame,
            t: self.time(self.step),
            id: &a.id,
            pos: &a.pos,
            vel: &a.vel,
            ori: &a.ori,
            population: &a.population,
            group: &a.group,
            mode: &a.mode_label,
            goal: &a.goal_label,
            radius: &a.radius,
            formation: &a.formation,
            vars: &a.vars,
            var_stride: a.var_stride,
        };
        let r = recorder.record(&view);
        self.frame += 1;
        self.times.record += t0.elapsed();
        r.map_err(SimError::Record)
    }
}

/// Display names behind a trace's index columns: the populations, the
/// behaviours' modes then the executor's own (`leaving`, `idle`), and the
/// goals. Known before a run starts, so a recorder can write them first.
pub fn labels(program: &Program) -> Labels {
    let mut modes = Vec::new();
    for b in &program.behaviours {
        match &b.body {
            BehaviourBody::Rules(rules) => modes.extend(rules.iter().map(|r| r.name.clone())),
            BehaviourBody::States(states) => modes.extend(states.iter().map(|s| s.name.clone())),
        }
    }
    modes.push("leaving".into());
    modes.push("idle".into());
    Labels {
        populations: program.populations.iter().map(|p| p.name.clone()).collect(),
        modes,
        goals: aims::labels(program),
    }
}

/// Refuses, with one line per use, a scenario that needs models the
/// executor does not have; runs nothing.
pub fn runnable(program: &Program) -> Result<(), SimError> {
    let missing = models::needs::unimplemented(program);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(SimError::NotImplemented(missing))
    }
}

/// A run to make: a program, a seed, and whether it shares the thread pool
/// with other runs.
#[derive(Clone, Copy, Debug)]
pub struct Run<'p> {
    pub program: &'p Program,
    pub seed: u64,
    /// Other runs use the pool at the same time (`crowd batch`): helper
    /// threads sleep as soon as a pass leaves them without work.
    pub shares_pool: bool,
    /// Set by someone else (an interrupt) to stop the run after its current step.
    pub stop: Option<&'p std::sync::atomic::AtomicBool>,
}

impl<'p> Run<'p> {
    pub fn new(program: &'p Program, seed: u64) -> Run<'p> {
        Run { program, seed, shares_pool: false, stop: None }
    }

    /// Runs to the end, handing frames to `recorder` (frame 0 is the initial
    /// state) and reporting `(steps done, total steps)` to `progress` after
    /// every step.
    pub fn go(self, recorder: &mut dyn Recorder, progress: &mut dyn FnMut(u64, u64)) -> Result<Outcome, SimError> {
        let t0 = Instant::now();
        let mut sim = Simulation::new(self.program, self.seed)?;
        sim.times.setup = t0.elapsed();
        if self.shares_pool {
            sim.share_pool();
        }
        sim.start(recorder)?;
        let total = sim.total_steps();
        while !sim.finished() {
            if self.stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                let step = sim.steps_done();
                return Err(SimError::Interrupted { step, t: sim.time(step) });
            }
            sim.step(recorder)?;
            progress(sim.steps_done(), total);
        }
        Ok(sim.finish())
    }
}

/// Runs `program` with `seed` to the end: [`Run::go`] on a run of its own.
pub fn run(
    program: &Program,
    seed: u64,
    recorder: &mut dyn Recorder,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Outcome, SimError> {
    Run::new(program, seed).go(recorder, progress)
}

/// Runs `f` on a pool of `threads` worker threads (`None`: rayon's global pool).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T, String> {
    match threads {
        None => Ok(f()),
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build()
            .map(|pool| pool.install(f))
            .map_err(|e| format!("cannot start {n} worker threads: {e}")),
    }
}
