//! The executor: simulation state, the step pipeline, random streams, and the
//! parallel map / sequential apply discipline.
//!
//! The pipeline's phases, in cycle order: spawn/despawn → perceive → decide →
//! plan → steer → resolve → integrate → record. [`Simulation::start`] runs
//! spawn/despawn and perceive at `t = 0`, decides for the new agents and
//! records frame 0 (the initial state). Each [`Simulation::step`] then runs
//! decide → plan → steer → resolve → integrate for every agent at `t` (one
//! parallel pass, see below), then spawn/despawn and perceive at `t + dt`
//! (deciding at once for agents that just appeared), and records when the
//! record rate says so. So a frame shows new agents where they appeared, each
//! agent's state is the one it walked the last step in, and an agent that
//! leaves disappears in the step it arrives.
//!
//! Determinism (see ARCHITECTURE.md):
//! - the parallel pass reads an immutable snapshot (positions at `t`, the
//!   spatial index, arrival flags) and writes one result per agent into that
//!   agent's slots. An agent's decision only needs the sequential apply when
//!   it can change (it arrived, or its behaviour has choices): such agents are
//!   skipped in the pass, applied afterwards in id order (entering modes,
//!   drawing dwell times, picking objects with limited capacity), then planned
//!   and moved; since an agent's move reads only the snapshot and its own
//!   decision, the result is the same as if everything ran in id order;
//! - every random draw comes from a stream keyed by (seed, purpose, entity,
//!   draw number) in [`rng`], never from a stream shared between agents;
//! - a non-finite position or velocity stops the run with an error naming the
//!   agent, the step and the phase; a NaN never reaches a trace.

mod agents;
mod decide;
pub mod error;
mod groups;
pub mod models;
mod motion;
mod paths;
pub mod sample;
mod spawn;
mod workers;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::ir::{BehaviourBody, Program, Subject, Vec2, NONE};
use crate::rng;
use crate::steer;
use crate::trace::{AgentLog, FrameView, Labels, Recorder};
use crate::world::grid::Grid;
use crate::world::markers::{self, Markers};
use crate::world::walkable::{interior_point, Walkable};

use agents::{Agents, Goal};
pub use error::SimError;
use sample::upper_bound;

/// Agents per chunk of the parallel pass: small enough that the threads end a
/// pass together, large enough that handing out chunks costs little.
const CHUNK: usize = 128;
/// The spatial index has at most this many cells per live agent (plus a floor).
const CELLS_PER_AGENT: u64 = 4;

/// Wall-clock time spent in each phase of the pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhaseTimes {
    /// Preparing the run: the walkable space, the markers and their index, planners' grids.
    pub setup: Duration,
    pub spawn: Duration,
    pub perceive: Duration,
    /// Decide, plan, steer, resolve and integrate, which run together agent by agent.
    pub act: Duration,
    /// The part of `act` that runs on one thread: the decisions that change
    /// shared tables and the reservation bookkeeping, in id order.
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
    pub times: PhaseTimes,
}

/// Per-population bookkeeping.
struct PopState {
    created: u32,
    /// The population's teams, by the index of their first member, in order.
    teams: Vec<u32>,
    next_team: usize,
    /// Trace group number for every member (an explicit group), or `NONE`.
    explicit_group: u32,
    /// Spawned around the first agent of `leader` within `within`.
    follows: Option<(u32, f64)>,
    leaving: bool,
}

/// A procedural group, or a solo agent's own one-member team.
#[derive(Clone, Debug)]
struct Team {
    population: u32,
    first: u32,
    size: u32,
    /// Trace group number, `NONE` for a solo agent.
    number: u32,
    /// Goal picks made for the team so far, and the latest.
    picks: u32,
    pick: Goal,
    /// Where the first member appeared.
    spawned_at: Vec2,
    /// How the team keeps formation, when it walks as a semantic group.
    keep: Option<groups::Keep>,
    /// Dwells drawn for the team so far, and when the latest ends, s.
    dwells: u32,
    dwell_end: f64,
}

/// What the parallel pass writes for a run of consecutive agents, one slot each.
struct Slots<'a> {
    arrived: &'a mut [bool],
    fired: &'a mut [u32],
    todo: &'a mut [bool],
    target: &'a mut [Vec2],
    active: &'a mut [bool],
    next: &'a mut [Vec2],
    vel: &'a mut [Vec2],
    ori: &'a mut [Vec2],
    key: &'a mut [u32],
    walk: &'a mut [paths::Walk],
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
        let (target, target_) = self.target.split_at_mut(k);
        let (active, active_) = self.active.split_at_mut(k);
        let (next, next_) = self.next.split_at_mut(k);
        let (vel, vel_) = self.vel.split_at_mut(k);
        let (ori, ori_) = self.ori.split_at_mut(k);
        let (key, key_) = self.key.split_at_mut(k);
        let (walk, walk_) = self.walk.split_at_mut(k);
        (
            Slots { arrived, fired, todo, target, active, next, vel, ori, key, walk },
            Slots {
                arrived: arrived_,
                fired: fired_,
                todo: todo_,
                target: target_,
                active: active_,
                next: next_,
                vel: vel_,
                ori: ori_,
                key: key_,
                walk: walk_,
            },
        )
    }
}

/// Per-step scratch arrays, grown once and reused.
#[derive(Default)]
struct Scratch {
    arrived: Vec<bool>,
    fired: Vec<u32>,
    todo: Vec<bool>,
    next: Vec<Vec2>,
    /// Grid cells of `next`, valid for the agents as they are after the pass.
    keys: Vec<u32>,
    keys_valid: bool,
    keep: Vec<bool>,
}

pub struct Simulation<'p> {
    program: &'p Program,
    seed: u64,
    dt: f64,
    /// `1/dt` when it is a whole number, so times print as exact decimals.
    steps_per_second: Option<f64>,
    total_steps: u64,
    record_every: u64,
    t_min: f64,
    arrival: f64,
    /// The largest body radius any population can draw, m.
    max_radius: f64,
    step: u64,
    frame: u64,
    started: bool,
    /// Where bodies may stand: the world minus its obstacles.
    space: Walkable,
    grid: Grid,
    agents: Agents,
    pops: Vec<PopState>,
    /// By population: its key in the random streams.
    pop_keys: Vec<u64>,
    /// Populations in spawning order: those placed around a leader last.
    spawn_order: Vec<usize>,
    teams: Vec<Team>,
    occupancy: Vec<u32>,
    /// Subjects whose first agent is a target, and that agent's slot this step.
    anchors: Vec<Subject>,
    anchor_slot: Vec<u32>,
    /// By group: which populations belong to it.
    group_members: Vec<Vec<bool>>,
    /// Aim points of regions.
    region_aims: Vec<Vec2>,
    /// Label offset of each behaviour's modes.
    mode_offset: Vec<u32>,
    /// By behaviour: the mode it is always in, when nothing can change it
    /// (a first rule without a condition, or a single state without transitions).
    fixed_mode: Vec<Option<u32>>,
    /// By behaviour: some mode picks goals (and may have to retry).
    picks_goals: Vec<bool>,
    leaving_label: u32,
    idle_label: u32,
    goal_points: Vec<Vec2>,
    next_id: u32,
    next_group_number: u32,
    log: Vec<AgentLog>,
    scratch: Scratch,
    workers: workers::Workers,
    times: PhaseTimes,
    agent_steps: u64,
    /// The world's markers and their spatial index (space colonization).
    markers: Markers,
    marker_grid: Grid,
    sc: paths::ScParams,
    /// The largest personal space any population can draw, m.
    max_personal: f64,
    /// By marker: the id of the agent holding it (crowd reservation), or `NONE`.
    held: Vec<u32>,
    /// By marker: the id of the surrounding agent whose tree claimed it, or `NONE`.
    claimed: Vec<u32>,
    uses_reservation: bool,
    uses_claims: bool,
    /// Subjects escaped from, and their agents' centroid this step.
    escape_subjects: Vec<Subject>,
    escape_centroids: Vec<Option<Vec2>>,
    /// Semantic groups: the A* node grid, group paths and formations.
    sg: groups::Sg,
}

/// `v / |v|`, or `None` for a zero (or degenerate) vector. Dividing (rather
/// than multiplying by the reciprocal) keeps axis-aligned headings exact.
fn unit(v: Vec2) -> Option<Vec2> {
    let len = v.length();
    let u = v / len;
    (len > 0.0 && u.is_finite()).then_some(u)
}

impl<'p> Simulation<'p> {
    /// Prepares a run of `program` with `seed`; refuses scenarios that need
    /// models the executor does not have.
    pub fn new(program: &'p Program, seed: u64) -> Result<Self, SimError> {
        runnable(program)?;
        let params = &program.params.space_colonization;
        let t_min = params.t_min;
        let sc = paths::ScParams {
            tree: crate::plan::tree::TreeParams {
                alpha: params.alpha,
                action_radius: params.action_radius,
                restriction: params.restriction,
            },
            recompute: params.recompute_distance,
            max_iterations: params.max_iterations as u32,
            w_max: params.w_max,
        };
        let max_personal = program.populations.iter().map(|p| upper_bound(&p.personal_space)).fold(0.0, f64::max);
        let markers = markers::generate(&program.world, seed);
        let (mut uses_reservation, mut uses_claims, mut uses_astar) = (false, false, false);
        for b in &program.behaviours {
            for a in decide::actions_of(&b.body) {
                match a {
                    crate::ir::Action::Seek { planner, .. } | crate::ir::Action::Pursue { planner, .. } => {
                        uses_reservation |= planner.reserve_markers;
                        uses_claims |= planner.disjoint_markers;
                        uses_astar |= planner.kind == crate::ir::PlannerKind::AStar;
                    }
                    crate::ir::Action::Surround { .. } => uses_claims = true,
                    _ => {}
                }
            }
        }
        // Cells as small as the smallest query radius: the queries visit few markers they then reject.
        let radius =
            if uses_reservation { sc.tree.alpha / 2.0 } else { sc.tree.action_radius.min(max_personal.max(0.1)) };
        let (markers, marker_grid) = markers.into_cell_order(radius.max(0.25));
        let escape_subjects = paths::escape_subjects(program);
        let arrival = program.params.motion.arrival_radius;
        let header = &program.header;
        let dt = header.dt;
        let sps = 1.0 / dt;
        let steps_per_second = ((sps - sps.round()).abs() <= 1e-9 * sps && sps.round() >= 1.0).then(|| sps.round());

        let max_radius = program.populations.iter().map(|p| upper_bound(&p.radius)).fold(0.0, f64::max);
        let max_step = program.populations.iter().map(|p| upper_bound(&p.speed)).fold(0.0, f64::max) * dt;
        let space = Walkable::new(&program.world, max_radius + max_step + t_min);
        let max_agents: u64 = program.populations.iter().map(|p| u64::from(p.max_count())).sum();
        let grid = Grid::new(program.world.bounds, t_min, (max_agents * CELLS_PER_AGENT).max(4096));
        let node_grid = uses_astar.then(|| {
            let cell = match program.behaviours.iter().flat_map(|b| decide::actions_of(&b.body)).find_map(|a| match a {
                crate::ir::Action::Seek { planner, .. } if planner.kind == crate::ir::PlannerKind::AStar => {
                    planner.grid
                }
                _ => None,
            }) {
                // `using astar grid X x Y` sets the grid's dimensions.
                Some((nx, ny)) => crate::plan::astar::NodeGrid::cell_for_dims(program.world.bounds, nx, ny),
                None => program.params.semantic_groups.astar_cell,
            };
            crate::plan::astar::NodeGrid::new(&space, Some(&markers), cell, max_radius)
        });
        let sg = groups::Sg::new(
            node_grid,
            program.world.bounds,
            crate::behave::groups::Layout::new(crate::behave::groups::SPACING, program.params.semantic_groups.v_angle),
            program.params.semantic_groups.social_distance,
            program.params.semantic_groups.core,
        );

        let n_groups = program.groups.len() as u32;
        let mut group_members = vec![vec![false; program.populations.len()]; program.groups.len()];
        let mut pops: Vec<PopState> = program
            .populations
            .iter()
            .map(|_| PopState {
                created: 0,
                teams: Vec::new(),
                next_team: 0,
                explicit_group: NONE,
                follows: None,
                leaving: false,
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
                pops[p].explicit_group = g as u32;
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
            modes += match &b.body {
                BehaviourBody::Rules(rules) => rules.len() as u32,
                BehaviourBody::States(states) => states.len() as u32,
            };
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
            .map(|b| decide::actions_of(&b.body).any(|a| matches!(a, crate::ir::Action::PickGoal)))
            .collect();
        // `labels` lists the executor's own modes after the behaviours'.
        let (leaving_label, idle_label) = (modes, modes + 1);
        let anchors = decide::anchor_subjects(program);
        let goal_points = decide::goal_points(program);

        let mut sim = Simulation {
            program,
            seed,
            dt,
            steps_per_second,
            total_steps: header.steps(),
            record_every: u64::from(header.record_every.max(1)),
            t_min,
            arrival,
            max_radius,
            step: 0,
            frame: 0,
            started: false,
            space,
            grid,
            agents: Agents::default(),
            pops,
            pop_keys: program.populations.iter().map(|p| rng::population_key(&p.name)).collect(),
            spawn_order,
            teams: Vec::new(),
            occupancy: vec![0; program.objects.len()],
            anchor_slot: vec![NONE; anchors.len()],
            anchors,
            group_members,
            region_aims: program.world.regions.iter().map(|r| interior_point(&r.shape)).collect(),
            mode_offset,
            fixed_mode,
            picks_goals,
            leaving_label,
            idle_label,
            goal_points,
            next_id: 0,
            next_group_number: n_groups,
            log: Vec::new(),
            scratch: Scratch::default(),
            workers: workers::Workers::default(),
            times: PhaseTimes::default(),
            agent_steps: 0,
            held: vec![NONE; if uses_reservation { markers.len() } else { 0 }],
            claimed: vec![NONE; if uses_claims { markers.len() } else { 0 }],
            markers,
            marker_grid,
            sc,
            max_personal,
            uses_reservation,
            uses_claims,
            escape_centroids: vec![None; escape_subjects.len()],
            escape_subjects,
            sg,
        };
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
        self.agents.len()
    }

    /// The random entity of population `p`'s `k`-th agent.
    fn entity(&self, p: u32, k: u32) -> rng::Entity {
        rng::Entity { population: self.pop_keys[p as usize], index: k }
    }

    /// The distance an agent walking at `speed` covers in one step, m
    /// (exact `speed / n` when the step is `1/n` s).
    pub(super) fn step_length(&self, speed: f64) -> f64 {
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
        self.agent_steps += self.agents.len() as u64;
        self.timed(|s| &mut s.times.act, |s| s.act(t))?;
        self.step += 1;
        let t = self.time(self.step);
        self.timed(|s| &mut s.times.spawn, |s| s.spawn_despawn(t))?;
        self.timed(|s| &mut s.times.perceive, |s| s.perceive())?;
        self.timed(|s| &mut s.times.act, |s| s.decide_new(t))?;
        if self.step % self.record_every == 0 {
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

    /// Phase 2: rebuild the spatial index and find each anchor subject's first agent.
    fn perceive(&mut self) -> Result<(), SimError> {
        if self.scratch.keys_valid && self.scratch.keys.len() == self.agents.len() {
            self.grid.rebuild_keyed(&self.agents.pos, &self.scratch.keys);
        } else {
            self.grid.rebuild(&self.agents.pos);
        }
        self.scratch.keys_valid = false;
        self.update_escape_centroids();
        for (a, subject) in self.anchors.iter().enumerate() {
            let pops = &self.agents.population;
            self.anchor_slot[a] = match *subject {
                Subject::Group(g) => {
                    let group = &self.program.groups[g.index()];
                    let leader = group.leader.map(|l| l.0);
                    let members = &self.group_members[g.index()];
                    match leader {
                        Some(l) => pops.iter().position(|&p| p == l),
                        None => pops.iter().position(|&p| members[p as usize]),
                    }
                }
                Subject::Population(p) => pops.iter().position(|&q| q == p.0),
                Subject::Everyone => (!pops.is_empty()).then_some(0),
            }
            .map_or(NONE, |i| i as u32);
        }
        Ok(())
    }

    pub(super) fn goal_label(&self, g: Goal) -> u32 {
        let regions = self.program.world.regions.len() as u32;
        let objects = self.program.objects.len() as u32;
        let anchors = self.anchors.len() as u32;
        match g {
            Goal::None => NONE,
            Goal::Region(r) => r.0,
            Goal::Object(o) => regions + o.0,
            Goal::Anchor(a) => regions + objects + a,
            Goal::Point(p) => self
                .goal_points
                .iter()
                .position(|q| q.x.to_bits() == p.x.to_bits() && q.y.to_bits() == p.y.to_bits())
                .map_or(NONE, |k| regions + objects + anchors + k as u32),
        }
    }

    /// Phases 3–7 (decide, plan, steer, resolve, integrate) for every agent at
    /// time `t`, in one parallel pass over the snapshot; agents whose decision
    /// changes are applied, planned and moved afterwards in id order.
    fn act(&mut self, t: f64) -> Result<(), SimError> {
        // NOTE: before the pass, which reads the group tables as part of the snapshot.
        let t0 = Instant::now();
        self.update_units();
        self.times.sequential += t0.elapsed();
        let n = self.agents.len();
        let mut s = std::mem::take(&mut self.scratch);
        s.arrived.resize(n, false);
        s.fired.resize(n, NONE);
        s.todo.resize(n, false);
        s.next.resize(n, Vec2::ZERO);
        s.keys.resize(n, 0);
        let mut target = std::mem::take(&mut self.agents.target);
        let mut active = std::mem::take(&mut self.agents.active);
        let mut vel = std::mem::take(&mut self.agents.vel);
        let mut ori = std::mem::take(&mut self.agents.ori);
        let mut walks = std::mem::take(&mut self.agents.walk);
        let bad = AtomicBool::new(false);
        let slots = Slots {
            arrived: &mut s.arrived,
            fired: &mut s.fired,
            todo: &mut s.todo,
            target: &mut target,
            active: &mut active,
            next: &mut s.next,
            vel: &mut vel,
            ori: &mut ori,
            key: &mut s.keys,
            walk: &mut walks,
        };
        self.workers.for_each(slots.chunks(CHUNK), |k, c| {
            for j in 0..c.arrived.len() {
                let i = k * CHUNK + j;
                // The agent's own last velocity, heading and plan are read
                // here, before this pass overwrites them.
                let d = self.decide_one(i, t, c.vel[j], c.ori[j], c.active[j]);
                (c.arrived[j], c.fired[j], c.todo[j]) = (d.arrived, d.fired, d.todo);
                if d.todo {
                    continue;
                }
                let plan = self.plan(i, &mut c.walk[j]);
                self.prepare_hold(i, &mut c.walk[j]);
                (c.target[j], c.active[j]) = (plan.target, plan.active);
                let m = self.move_agent(i, plan);
                c.next[j] = m.next;
                if !m.next.is_finite() {
                    bad.store(true, Ordering::Relaxed);
                    continue;
                }
                c.vel[j] = m.vel;
                if let Some(h) = m.heading {
                    c.ori[j] = h;
                }
                c.key[j] = self.grid.key_of(m.next);
            }
        });
        self.agents.target = target;
        self.agents.active = active;
        self.agents.vel = vel;
        self.agents.ori = ori;
        self.agents.walk = walks;
        let t0 = Instant::now();
        let result = self.apply_changed(t, &mut s);
        let result = result.and_then(|()| match bad.load(Ordering::Relaxed) {
            true => {
                let i = (0..n).find(|&i| !s.todo[i] && !s.next[i].is_finite()).unwrap_or(0);
                let (phase, what) = self.blame(i);
                Err(self.non_finite(i, phase, what))
            }
            false => Ok(()),
        });
        if result.is_ok() {
            std::mem::swap(&mut self.agents.pos, &mut s.next);
            self.settle_markers();
            self.agents.fresh.fill(false);
            s.keys_valid = true;
        }
        self.times.sequential += t0.elapsed();
        self.scratch = s;
        result
    }

    /// The sequential apply of [`Simulation::act`]: agents whose decision
    /// changes, in id order.
    fn apply_changed(&mut self, t: f64, s: &mut Scratch) -> Result<(), SimError> {
        for i in 0..self.agents.len() {
            if !s.todo[i] {
                continue;
            }
            self.apply_decision(i, s.arrived[i], s.fired[i], t)?;
            let mut walk = std::mem::take(&mut self.agents.walk[i]);
            let plan = self.plan(i, &mut walk);
            self.agents.walk[i] = walk;
            self.agents.target[i] = plan.target;
            self.agents.active[i] = plan.active;
            let m = self.move_agent(i, plan);
            if !m.next.is_finite() {
                let (phase, what) = self.blame(i);
                return Err(self.non_finite(i, phase, what));
            }
            s.next[i] = m.next;
            s.keys[i] = self.grid.key_of(m.next);
            self.agents.vel[i] = m.vel;
            if let Some(h) = m.heading {
                self.agents.ori[i] = h;
            }
        }
        Ok(())
    }

    fn non_finite(&self, i: usize, phase: &'static str, what: &'static str) -> SimError {
        SimError::NonFinite {
            agent: self.agents.id[i],
            population: self.program.populations[self.agents.population[i] as usize].name.clone(),
            step: self.step,
            t: self.time(self.step),
            phase,
            what,
        }
    }

    /// Phase 8: hand the current state to the recorder as one frame.
    fn record(&mut self, recorder: &mut dyn Recorder) -> Result<(), SimError> {
        let t0 = Instant::now();
        let a = &self.agents;
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
    let mut goals: Vec<String> = program.world.regions.iter().map(|r| r.name.clone()).collect();
    goals.extend(program.objects.iter().map(|o| o.name.clone()));
    goals.extend(decide::anchor_subjects(program).iter().map(|s| decide::subject_label(program, *s)));
    goals.extend(
        decide::goal_points(program)
            .iter()
            .map(|p| format!("({} {})", crate::trace::float::format_f64(p.x), crate::trace::float::format_f64(p.y))),
    );
    Labels { populations: program.populations.iter().map(|p| p.name.clone()).collect(), modes, goals }
}

/// Refuses, with one line per use, a scenario that needs models the
/// executor does not have; runs nothing.
pub fn runnable(program: &Program) -> Result<(), SimError> {
    let missing = models::unimplemented(program);
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
}

impl<'p> Run<'p> {
    pub fn new(program: &'p Program, seed: u64) -> Run<'p> {
        Run { program, seed, shares_pool: false }
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
