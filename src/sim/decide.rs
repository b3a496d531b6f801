//! Phase 3, decide: arrival, behaviour rules and state machines, dwell times
//! and goal picks.
//!
//! Invariants:
//! - what only reads the snapshot (has an agent arrived, which rule applies)
//!   is computed in parallel, one result per agent, from the previous step's
//!   state; everything that changes state (entering a mode, drawing a dwell
//!   time, picking an object with limited capacity) is applied sequentially
//!   in id order, so capacity contention is settled by id;
//! - a mode is entered at most once per state per step: a chain of immediate
//!   transitions stops after visiting as many states as the behaviour has;
//! - an agent's vars move one step in the parallel pass, from the snapshot
//!   (their rises' conditions read the values the step started with), into a
//!   scratch array swapped in before the apply: the rule chosen in the pass
//!   and the transitions taken in the apply read the same new values;
//! - only the apply writes an agent's memory: a rule interrupted by one of
//!   higher priority is remembered there and resumed on its next entry.
//!
//! Arrival: an agent has arrived when it is within `motion.arrival_radius` of
//! its aim point. So that a crowd seeking one point does not jostle forever
//! (distance enforcement keeps them `t_min` apart), an agent also arrives when
//! it touches (is closer than `t_min` to) an agent that has already arrived at
//! the same aim, within [`CHAIN_REACH`] of the aim point; and when it is pressed
//! against something (its last step was shorter than [`BLOCKED_FRACTION`] of
//! its step length) within [`BLOCKED_REACH`] of the aim point: an object
//! standing against a wall cannot be reached closer. A walker to an object
//! also arrives when it came no `agents::PROGRESS` nearer to it for
//! `agents::STALL_TIME` within `arrival_radius` + [`CHAIN_REACH`] of it
//! (`Agents::stalled`): the people standing there let it no nearer, though it
//! may still be shuffling (the one-step test misses a walker sidestepping
//! back and forth). A region's aim point is inside it; an agent arrives in a
//! region once inside it and then by the same three rules (anywhere
//! inside), so a region fills from its aim point outwards instead of
//! jamming at its edge; a door (a segment) is reached
//! within `arrival_radius`. Following another agent, arrival means being
//! within `t_min + arrival_radius` of it (they cannot get closer).

use super::agents::{Goal, Memory, Mind, Recall};
use super::models::Models;
use super::motion;
use super::sample::sample;
use super::stage::Decision;
use super::{SimError, Simulation};
use crate::ir::{Action, BehaviourBody, Condition, Program, ResourceId, Shape, Target, Trigger, Vec2, NONE};
use crate::math::{self, unit};
use crate::rng::{stream, Purpose};
use crate::world::geometry::Sight;
use crate::world::walkable::reached;

/// How far from its aim point an agent may be and still arrive by touching
/// an arrived agent with the same aim, m.
pub const CHAIN_REACH: f64 = 2.0;
/// How far from its aim point a blocked agent may be and still arrive, m.
pub const BLOCKED_REACH: f64 = 1.0;
/// A walking agent whose last step was shorter than this fraction of its step length is blocked.
pub const BLOCKED_FRACTION: f64 = 0.1;
/// Slack on time comparisons, s.
const TIME_EPS: f64 = 1e-9;

/// Whether the agent's mode asks for a goal pick it has not made yet (one
/// that found every candidate full is tried again).
fn pick_pending(m: &Mind, body: &BehaviourBody) -> bool {
    !m.picked && body.mode_actions(m.mode).iter().any(|a| matches!(a, Action::PickGoal))
}

impl<'p> Simulation<'p> {
    /// Phase 3 for agent `i` at time `t`, read-only: has it arrived, which
    /// rule applies, and does its decision need the sequential apply (from
    /// its own velocity, heading and plan of the last step).
    /// `vars` receives the agent's var values for this step, which its
    /// decision reads.
    pub(super) fn decide_one(&self, i: usize, t: f64, vars: &mut [f64]) -> Decision {
        let agents = &self.scene.agents;
        let was = agents.arrived[i];
        if agents.fresh[i] {
            // Decided when it appeared, at this same time, with its vars' start values.
            vars.copy_from_slice(agents.vars_of(i));
            return Decision { arrived: was, fired: NONE, todo: false };
        }
        if !vars.is_empty() {
            self.update_vars(i, t, vars);
        }
        let arrived = self.arrived_now(i, t, agents.vel[i], agents.active[i]);
        let fired = self.fired_rule(i, t, agents.ori[i], vars);
        Decision { arrived, fired, todo: self.changes(i, t, arrived, fired, vars) }
    }

    /// Agent `i`'s vars one step on, from the snapshot (the rises' conditions
    /// read the values the step started with):
    /// `x ← clamp(x + dt·(Σ rise·[condition] − decay), 0, max)`.
    fn update_vars(&self, i: usize, t: f64, out: &mut [f64]) {
        let agents = &self.scene.agents;
        let old = agents.vars_of(i);
        let b = self.scene.program.populations[agents.mind[i].member.population.index()].behaviour.index();
        let vars = &self.scene.program.behaviours[b].vars;
        let dt = self.scene.clock.dt;
        for (k, x) in out.iter_mut().enumerate() {
            *x = match vars.get(k) {
                Some(v) => {
                    let mut rise = 0.0;
                    for r in &v.rises {
                        if self.holds(i, &r.when, t, agents.ori[i], old) {
                            rise += r.rate;
                        }
                    }
                    (old[k] + dt * (rise - v.decay)).clamp(0.0, v.max)
                }
                None => 0.0,
            };
        }
    }

    /// Whether applying the decision (`arrived`, `fired`) of agent `i` at `t`
    /// changes anything, read-only: what [`Simulation::apply_decision`] would
    /// do, short of doing it. Only such agents wait for the sequential apply;
    /// for the others it would change nothing, so skipping it gives the same
    /// state whichever agents the pass ran first.
    fn changes(&self, i: usize, t: f64, arrived: bool, fired: u32, vars: &[f64]) -> bool {
        let agents = &self.scene.agents;
        if arrived != agents.arrived[i] {
            return true;
        }
        if agents.settled[i] {
            return false;
        }
        let m = &agents.mind[i];
        let body = &self.scene.program.behaviours
            [self.scene.program.populations[m.member.population.index()].behaviour.index()]
        .body;
        let enters = match body {
            BehaviourBody::Rules(_) => fired != m.mode,
            BehaviourBody::States(states) => {
                m.mode == NONE || {
                    let state = &states[m.mode as usize];
                    state.transitions.iter().any(|tr| self.triggered(i, &tr.trigger, &state.actions, t, arrived, vars))
                }
            }
        };
        // A pick still to make is retried once the team's wait is over; a
        // mode seeking a goal the agent lacks is an error the apply reports.
        enters || pick_pending(m, body) && self.may_pick(i, t) || m.aim_is_own_goal && m.goal == Goal::None
    }

    /// Phase 3 for the agents that appeared at time `t` (all of them at the
    /// start), in a random order; they face where they will walk.
    ///
    /// NOTE: those who appear together reach the objects together, and the
    /// first to decide takes the room. In id order the groups of the
    /// highest ids found every object full at the start and lined up last
    /// (`capacity_demand`, seeds 1–40: trios of agents 0–7 picked 4.06
    /// goals in 5 minutes on average, trios of agents 16–23 3.49).
    pub(super) fn decide_new(&mut self, t: f64) -> Result<(), SimError> {
        let seed = self.scene.seed;
        let mut fresh: Vec<(u64, usize)> = (0..self.scene.agents.len())
            .filter(|&i| self.scene.agents.fresh[i])
            .map(|i| (stream(seed, Purpose::Arrival, self.scene.entity(i), 0).next_u64(), i))
            .collect();
        fresh.sort_unstable();
        for (_, i) in fresh {
            let arrived = self.arrived_now(i, t, self.scene.agents.vel[i], self.scene.agents.active[i]);
            let fired = self.fired_rule(i, t, self.scene.agents.ori[i], self.scene.agents.vars_of(i));
            self.apply_decision(i, arrived, fired, t)?;
            // Paths grow in the pass that moves the agent; here only the heading matters.
            let plan = motion::plan_to_aim(&self.scene, i);
            self.scene.agents.target[i] = plan.target;
            self.scene.agents.active[i] = plan.active;
            if let (true, Some(d)) = (plan.active, unit(plan.target - self.scene.agents.pos[i])) {
                self.scene.agents.ori[i] = d;
            }
        }
        Ok(())
    }

    /// Recomputes whether nothing but an arrival can change agent `i`'s
    /// decision: it is leaving, or sits in the one mode its behaviour can be in.
    fn refresh_settled(&mut self, i: usize) {
        let m = &self.scene.agents.mind[i];
        let b = self.scene.program.populations[m.member.population.index()].behaviour.index();
        self.scene.agents.settled[i] =
            self.scene.agents.leaving[i] || (self.fixed_mode[b] == Some(m.mode) && !self.picks_goals[b]);
    }

    /// Recomputes the goal column of agent `i`: what it seeks, else its own goal.
    pub(super) fn refresh_goal_label(&mut self, i: usize) {
        let aim = self.scene.agents.aim[i];
        let shown = if aim == Goal::None { self.scene.agents.mind[i].goal } else { aim };
        self.scene.agents.goal_label[i] = self.scene.aims.label(self.scene.program, shown);
    }

    /// Whether agent `i` is at what it seeks (read-only).
    fn arrived_now(&self, i: usize, t: f64, vel: Vec2, walking: bool) -> bool {
        if self.scene.agents.leaving[i] {
            return false;
        }
        let p = self.scene.agents.pos[i];
        let aim = self.scene.agents.aim[i];
        if let Goal::Anchor(_) = aim {
            let reach = self.scene.min_distance + self.scene.arrival;
            return self.scene.aim_point(i, aim).is_some_and(|q| p.distance_squared(q) <= reach * reach);
        }
        if aim == Goal::None {
            return false;
        }
        let region = match aim {
            Goal::Region(r) => Some(&self.scene.program.world.regions[r.index()].shape),
            _ => None,
        };
        // Outside its region nobody is there, not even one who arrived and
        // was pushed out: it walks back in.
        if region.is_some_and(|shape| !reached(shape, p, self.scene.arrival)) {
            return false;
        }
        if self.scene.agents.arrived[i] {
            return true;
        }
        let Some(q) = self.scene.aim_point(i, aim) else { return false };
        // Squared distances: no square root for the many agents far from their aim.
        let d2 = p.distance_squared(q);
        // A door has no inside to walk into.
        if matches!(region, Some(Shape::Segment { .. })) {
            return true;
        }
        if d2 <= self.scene.arrival * self.scene.arrival {
            return true;
        }
        let blocked = self.scene.arrival + BLOCKED_REACH;
        let near_enough = matches!(aim, Goal::Region(_)) || d2 <= blocked * blocked;
        if near_enough && walking {
            let moved = vel.length() * self.scene.clock.dt;
            // A newborn has not tried to move yet.
            let tried = self.scene.agents.mind[i].born < t;
            if tried && moved < BLOCKED_FRACTION * self.scene.clock.step_length(self.scene.agents.speed[i]) {
                return true;
            }
        }
        let chain = self.scene.arrival + CHAIN_REACH;
        if !matches!(aim, Goal::Region(_)) && d2 > chain * chain {
            return false;
        }
        // Stalled by those standing at an object: as near as it gets.
        if matches!(aim, Goal::Object(_)) && walking && self.scene.agents.stalled[i] {
            return true;
        }
        let mut touching = false;
        let t2 = self.scene.min_distance * self.scene.min_distance;
        self.scene.grid.for_each_candidate(p, self.scene.min_distance, |j| {
            let j = j as usize;
            if !touching && j != i {
                touching = self.scene.agents.arrived[j]
                    && self.scene.agents.aim[j] == aim
                    && self.scene.agents.pos[j].distance_squared(p) < t2;
            }
        });
        touching
    }

    /// The rule that applies to agent `i` now, for rule-based behaviours (read-only).
    fn fired_rule(&self, i: usize, t: f64, heading: Vec2, vars: &[f64]) -> u32 {
        if self.scene.agents.leaving[i] {
            return NONE;
        }
        // The population from its own column: an agent's mind is a cache line or more away.
        let b = self.scene.program.populations[self.scene.agents.population[i] as usize].behaviour;
        if let Some(fixed) = self.fixed_mode[b.index()] {
            return fixed;
        }
        match &self.scene.program.behaviours[b.index()].body {
            BehaviourBody::Rules(rules) => rules
                .iter()
                .position(|r| r.when.as_ref().is_none_or(|c| self.holds(i, c, t, heading, vars)))
                .map_or(NONE, |r| r as u32),
            BehaviourBody::States(_) => NONE,
        }
    }

    /// Whether a condition holds for agent `i` facing `heading`, whose vars
    /// are `vars` (read-only).
    fn holds(&self, i: usize, c: &Condition, t: f64, heading: Vec2, vars: &[f64]) -> bool {
        match c {
            Condition::TimeAfter(x) => t >= x - TIME_EPS,
            Condition::Var { var, op, value } => op.holds(vars[*var as usize], *value),
            Condition::RemembersGoal => self.scene.agents.memory[i].as_ref().is_some_and(|m| m.holds_goal()),
            Condition::Not(c) => !self.holds(i, c, t, heading, vars),
            Condition::All(cs) => cs.iter().all(|c| self.holds(i, c, t, heading, vars)),
            Condition::SeesRegion { region, radius, cone } => {
                let sight = Sight::new(self.scene.agents.pos[i], *radius, heading, *cone);
                sight.sees(&self.scene.program.world.regions[region.index()].shape)
            }
            Condition::SeesObstacle { obstacle, radius, cone } => {
                let sight = Sight::new(self.scene.agents.pos[i], *radius, heading, *cone);
                let obstacles = &self.scene.program.world.obstacles;
                match obstacle {
                    Some(o) => sight.sees(&obstacles[o.index()].shape),
                    None => obstacles
                        .iter()
                        .zip(&self.obstacle_boxes)
                        .any(|(o, bounds)| !sight.misses_box(bounds) && sight.sees(&o.shape)),
                }
            }
            Condition::Sees { who, radius, cone } => {
                let p = self.scene.agents.pos[i];
                let min_cos = cone.map(|c| math::cos(c / 2.0));
                let mut seen = false;
                self.scene.grid.for_each_candidate(p, *radius, |j| {
                    let j = j as usize;
                    if seen || j == i || !self.scene.aims.matches(*who, self.scene.agents.population[j]) {
                        return;
                    }
                    let d = self.scene.agents.pos[j] - p;
                    let len2 = d.length_squared();
                    if len2 > radius * radius {
                        return;
                    }
                    seen = match min_cos {
                        None => true,
                        Some(mc) => len2 == 0.0 || heading.dot(d) >= mc * len2.sqrt(),
                    };
                });
                seen
            }
        }
    }

    pub(super) fn apply_decision(&mut self, i: usize, arrived: bool, fired: u32, t: f64) -> Result<(), SimError> {
        let program: &'p Program = self.scene.program;
        if arrived && !self.scene.agents.arrived[i] {
            let log = &mut self.log[self.scene.agents.id[i] as usize];
            log.arrived.get_or_insert(t);
        }
        self.scene.agents.arrived[i] = arrived;
        if self.scene.agents.leaving[i] {
            return Ok(());
        }
        let m = &self.scene.agents.mind[i];
        let pop = &program.populations[m.member.population.index()];
        let b = pop.behaviour.index();
        if self.fixed_mode[b] == Some(m.mode) && !self.picks_goals[b] {
            // Nothing else can change: the mode was entered and checked before.
            return Ok(());
        }
        let body = &program.behaviours[b].body;
        match body {
            BehaviourBody::Rules(rules) => {
                if fired != m.mode {
                    // A rule of higher priority interrupts: the agent remembers
                    // what it was doing, to resume it when it comes back.
                    let interrupts = m.mode != NONE
                        && fired != NONE
                        && rules[fired as usize].priority > rules[m.mode as usize].priority;
                    if interrupts && program.switches.goal_memory {
                        let left = m.dwell_end.map(|e| (e - t).max(0.0));
                        let r = Recall { rule: m.mode, goal: m.goal, picked: m.picked, dwell_left: left };
                        self.remember(i, r);
                    }
                    self.enter(i, fired, t)?;
                }
            }
            BehaviourBody::States(states) => {
                if m.mode == NONE {
                    self.enter(i, 0, t)?;
                }
                for _ in 0..states.len() {
                    let state = &states[self.scene.agents.mind[i].mode as usize];
                    let arrived = self.scene.agents.arrived[i];
                    let vars = self.scene.agents.vars_of(i);
                    let next = state
                        .transitions
                        .iter()
                        .find(|tr| self.triggered(i, &tr.trigger, &state.actions, t, arrived, vars));
                    match next {
                        Some(tr) => self.enter(i, tr.to, t)?,
                        None => break,
                    }
                }
            }
        }
        let pick_pending = pick_pending(&self.scene.agents.mind[i], body);
        if pick_pending && self.try_pick(i, &pop.wants, t)? {
            self.scene.agents.mind[i].picked = true;
        }
        // A goal given as a resource is picked at spawn; while no object
        // providing it has room, the agent waits and asks again.
        let resource_pending = match pop.goal {
            Some(crate::ir::Goal::Resource(r)) if self.scene.agents.mind[i].goal == Goal::None => {
                !self.try_pick(i, std::slice::from_ref(&r), t)?
            }
            _ => false,
        };
        let m = &self.scene.agents.mind[i];
        if m.aim_is_own_goal && m.goal == Goal::None && !pick_pending && !resource_pending {
            return Err(SimError::NoGoal {
                agent: self.scene.agents.id[i],
                population: pop.name.clone(),
                step: self.step,
                t,
            });
        }
        Ok(())
    }

    /// Whether `trigger` fires for agent `i` at `t`, when `arrived` says
    /// whether it is at its aim (read-only).
    fn triggered(&self, i: usize, trigger: &Trigger, actions: &[Action], t: f64, arrived: bool, vars: &[f64]) -> bool {
        let m = &self.scene.agents.mind[i];
        match trigger {
            Trigger::Arrival => arrived,
            Trigger::Done => actions.iter().all(|a| match a {
                Action::Seek { .. } | Action::Pursue { .. } | Action::Surround { .. } => arrived,
                Action::Dwell(_) => m.dwell_end.is_some_and(|e| t >= e - TIME_EPS),
                Action::PickGoal => m.picked,
                Action::PushGoal(_) | Action::PopGoal => true,
                _ => false,
            }),
            Trigger::After(d) => t - m.since >= d - TIME_EPS,
            Trigger::Condition(c) => self.holds(i, c, t, self.scene.agents.ori[i], vars),
        }
    }

    /// Puts `r` on top of agent `i`'s memory.
    fn remember(&mut self, i: usize, r: Recall) {
        self.scene.agents.memory[i].get_or_insert_with(|| Box::new(Memory::new())).push(r);
    }

    /// Enters mode `mode` (a state or rule index, or `NONE`: idle). A rule
    /// the agent's memory holds an entry for is resumed from it: its goal,
    /// goal pick and what was left of its dwell come back, and its goal
    /// pick, dwell draw and pushes and pops of goals are not made again.
    fn enter(&mut self, i: usize, mode: u32, t: f64) -> Result<(), SimError> {
        let program: &'p Program = self.scene.program;
        let b = program.populations[self.scene.agents.mind[i].member.population.index()].behaviour.index();
        let resumed = match (&program.behaviours[b].body, self.scene.agents.memory[i].as_mut()) {
            (BehaviourBody::Rules(_), Some(memory)) if mode != NONE && program.switches.goal_memory => {
                memory.recall(mode)
            }
            _ => None,
        };
        let m = &mut self.scene.agents.mind[i];
        let pop = &program.populations[m.member.population.index()];
        m.mode = mode;
        m.since = t;
        m.closest = f64::INFINITY;
        m.closer_at = t;
        m.picked = false;
        m.dwell_end = None;
        m.aim_is_own_goal = false;
        self.scene.agents.arrived[i] = false;
        self.scene.agents.stalled[i] = false;
        self.scene.agents.aim[i] = Goal::None;
        self.scene.agents.mode_label[i] = if mode == NONE { self.idle_label } else { self.mode_offset[b] + mode };
        if let Some(r) = resumed {
            if r.goal != self.scene.agents.mind[i].goal {
                self.set_goal(i, r.goal);
            }
        }
        for action in program.behaviours[b].body.mode_actions(mode) {
            match (action, resumed) {
                (Action::Dwell(_), Some(Recall { dwell_left: Some(left), .. })) => {
                    self.scene.agents.mind[i].dwell_end = Some(t + left);
                    continue;
                }
                (Action::PickGoal, Some(r)) => {
                    self.scene.agents.mind[i].picked = r.picked;
                    continue;
                }
                (Action::PushGoal(_) | Action::PopGoal, Some(_)) => continue,
                _ => {}
            }
            match action {
                Action::PushGoal(target) => {
                    let g = self.goal_of(i, target)?;
                    let r =
                        Recall { rule: NONE, goal: self.scene.agents.mind[i].goal, picked: false, dwell_left: None };
                    self.remember(i, r);
                    self.set_goal(i, g);
                }
                Action::PopGoal if program.switches.goal_memory => {
                    if let Some(r) = self.scene.agents.memory[i].as_mut().and_then(|m| m.pop_goal()) {
                        self.set_goal(i, r.goal);
                    }
                }
                Action::Seek { target, .. } => self.aim_at(i, target)?,
                Action::Pursue { target, .. } | Action::Surround { target } => {
                    self.scene.agents.aim[i] = Goal::Anchor(self.scene.aims.anchor(*target));
                }
                Action::Dwell(d) => {
                    let dist = d.as_ref().unwrap_or(&pop.dwell);
                    let team_ix = self.scene.agents.mind[i].member.team as usize;
                    let team = &self.scene.teams[team_ix];
                    if team.size > 1 {
                        self.enter_team_dwell(i, team_ix, dist, t);
                        continue;
                    }
                    let draw = self.drives[i].draws.next(Purpose::Dwell);
                    let mut rng = stream(self.scene.seed, Purpose::Dwell, self.scene.entity(i), draw);
                    self.scene.agents.mind[i].dwell_end = Some(t + sample(dist, &mut rng));
                }
                Action::PickGoal => {
                    let picked = self.try_pick(i, &pop.wants, t)?;
                    self.scene.agents.mind[i].picked = picked;
                }
                // Moves, not decisions: the models' (see `models`).
                _ => {}
            }
        }
        let how = Models::how_of(program.behaviours[b].body.mode_actions(mode));
        self.models.engage(&self.scene, i, how, &mut self.drives[i]);
        if self.scene.agents.aim[i] != Goal::None {
            self.log[self.scene.agents.id[i] as usize].sought = true;
        }
        self.refresh_settled(i);
        self.refresh_goal_label(i);
        Ok(())
    }

    /// A dwell of a group: one draw for the whole team, from the stream of
    /// its first member, so the members leave together (Hocevar et al.:
    /// grouped agents share goal and speed, and go on together). The first
    /// member to dwell draws; the others end when the team's dwell ends (at
    /// once, when it already has).
    fn enter_team_dwell(&mut self, i: usize, team_ix: usize, dist: &crate::ir::Dist, t: f64) {
        let (population, first, dwells, end) = {
            let team = &self.scene.teams[team_ix];
            (team.population, team.first, team.dwells, team.dwell_end)
        };
        if self.drives[i].draws.count(Purpose::Dwell) < dwells {
            self.drives[i].draws.set(Purpose::Dwell, dwells);
            self.scene.agents.mind[i].dwell_end = Some(end.max(t));
            return;
        }
        let e = self.scene.entity_of(population, first);
        let end = t + sample(dist, &mut stream(self.scene.seed, Purpose::Dwell, e, u64::from(dwells)));
        let team = &mut self.scene.teams[team_ix];
        team.dwells += 1;
        team.dwell_end = end;
        self.drives[i].draws.set(Purpose::Dwell, team.dwells);
        self.scene.agents.mind[i].dwell_end = Some(end);
    }

    fn aim_at(&mut self, i: usize, target: &Target) -> Result<(), SimError> {
        if let Target::OwnGoal = target {
            self.scene.agents.mind[i].aim_is_own_goal = true;
        }
        self.scene.agents.aim[i] = self.goal_of(i, target)?;
        Ok(())
    }

    /// What `target` is for agent `i` now (a resource: one of the objects
    /// providing it, at random).
    fn goal_of(&mut self, i: usize, target: &Target) -> Result<Goal, SimError> {
        Ok(match target {
            Target::OwnGoal => self.scene.agents.mind[i].goal,
            Target::Object(o) => Goal::Object(*o),
            Target::Point(p) => Goal::Point(*p),
            Target::Region(r) => Goal::Region(*r),
            Target::Resource(r) => {
                let providers = self.providers(std::slice::from_ref(r));
                if providers.is_empty() {
                    return Err(self.nothing_provides(i, std::slice::from_ref(r)));
                }
                let draw = self.drives[i].draws.next(Purpose::Target);
                let k =
                    stream(self.scene.seed, Purpose::Target, self.scene.entity(i), draw).below(providers.len() as u32);
                Goal::Object(providers[k as usize])
            }
            Target::Subject(s) => Goal::Anchor(self.scene.aims.anchor(*s)),
        })
    }

    /// Objects providing any of `wants` (any object at all when `wants` is empty), in order.
    fn providers(&self, wants: &[ResourceId]) -> Vec<crate::ir::ObjectId> {
        self.scene
            .program
            .objects
            .iter()
            .enumerate()
            .filter(|(_, o)| wants.is_empty() || o.provides.iter().any(|r| wants.contains(r)))
            .map(|(k, _)| crate::ir::ObjectId(k as u32))
            .collect()
    }

    fn nothing_provides(&self, i: usize, wants: &[ResourceId]) -> SimError {
        let names: Vec<&str> = wants.iter().map(|r| self.scene.program.resources[r.index()].as_str()).collect();
        SimError::NothingProvides {
            agent: self.scene.agents.id[i],
            population: self.scene.program.populations[self.scene.agents.population[i] as usize].name.clone(),
            wants: if names.is_empty() { "anything".into() } else { names.join(" or ") },
        }
    }

    /// Changes agent `i`'s own goal, keeping object occupancy counts.
    pub(super) fn set_goal(&mut self, i: usize, g: Goal) {
        self.release(i);
        let m = &mut self.scene.agents.mind[i];
        if let Goal::Object(o) = g {
            self.occupancy[o.index()] += 1;
            m.holds = true;
        }
        m.goal = g;
        if m.aim_is_own_goal {
            self.scene.agents.aim[i] = g;
            self.scene.agents.arrived[i] = false;
            m.closest = f64::INFINITY;
            self.scene.agents.stalled[i] = false;
        }
        if g != Goal::None {
            self.log[self.scene.agents.id[i] as usize].sought |= m.aim_is_own_goal;
        }
        self.refresh_goal_label(i);
    }

    /// Gives up agent `i`'s place at its goal object, if it holds one: it is
    /// done there (it is choosing again, or leaving), though it keeps the
    /// goal until it picks another.
    pub(super) fn release(&mut self, i: usize) {
        let m = &mut self.scene.agents.mind[i];
        if let (true, Goal::Object(o)) = (m.holds, m.goal) {
            self.occupancy[o.index()] -= 1;
        }
        m.holds = false;
    }

    /// Ends team `team_ix`'s wait for room at an object, if it waits for one.
    pub(super) fn drop_claim(&mut self, team_ix: usize) {
        let team = &mut self.scene.teams[team_ix];
        if team.claim != NONE {
            self.claims[team.claim as usize].retain(|&w| w as usize != team_ix);
            team.claim = NONE;
        }
    }

    /// Whether agent `i` may try a goal pick at `t` (read-only): its team
    /// picked since it last did, waits for room at an object (checked every
    /// step), or its random wait is over.
    fn may_pick(&self, i: usize, t: f64) -> bool {
        let m = &self.scene.agents.mind[i];
        let team = &self.scene.teams[m.member.team as usize];
        m.picks < team.picks || team.claim != NONE || t >= team.wait_end - TIME_EPS
    }

    /// Whether object `o` has room for team `team_ix` of `size` members:
    /// for a team waiting there, when it is first in line and the places
    /// held leave room for it; for any other, when they leave room for it
    /// after every team waiting there.
    fn has_room(&self, o: usize, size: u32, team_ix: usize) -> bool {
        self.scene.program.objects[o].capacity.is_none_or(|c| {
            let line = &self.claims[o];
            let ahead = match line.iter().position(|&w| w as usize == team_ix) {
                Some(0) => 0,
                Some(_) => return false,
                None => line.iter().map(|&w| self.scene.teams[w as usize].size).sum(),
            };
            self.occupancy[o] + ahead + size <= c
        })
    }

    /// Picks a goal for agent `i` at `t` among the objects providing `wants`
    /// (Hocevar et al.: goals at random among what the environment provides).
    /// The members of a group share their picks: the first member to pick
    /// draws for the group, the others adopt the group's latest pick.
    ///
    /// Capacities (see docs/semantic-groups.md): an object is only picked
    /// while it has room for the whole group, after the groups waiting
    /// there; picking again gives up the place the agent held. When no object
    /// has room, the group waits, where it stands, in line at one of the
    /// objects that could hold it (at random), and takes the first object
    /// with room for it: its own when its turn comes (the occupants leave
    /// when their dwell ends, so every wait ends), or another that frees
    /// first. A group that no object could ever hold waits a random time
    /// drawn from its dwell (the paper's "stays there for a random time until
    /// a new goal is randomly selected") and tries again. Returns whether a
    /// goal was set.
    pub(super) fn try_pick(&mut self, i: usize, wants: &[ResourceId], t: f64) -> Result<bool, SimError> {
        let team_ix = self.scene.agents.mind[i].member.team as usize;
        let (picks, pick, size, population, first, claim) = {
            let t = &self.scene.teams[team_ix];
            (t.picks, t.pick, t.size, t.population, t.first, t.claim)
        };
        if self.scene.agents.mind[i].picks < picks {
            self.scene.agents.mind[i].picks = picks;
            self.set_goal(i, pick);
            return Ok(true);
        }
        let mut candidates = self.providers(wants);
        if candidates.is_empty() {
            return Err(self.nothing_provides(i, wants));
        }
        if self.scene.program.switches.give_up_places {
            self.release(i);
        }
        if claim == NONE && t < self.scene.teams[team_ix].wait_end - TIME_EPS {
            return Ok(false);
        }
        if let Goal::Object(current) = self.scene.agents.mind[i].goal {
            if candidates.len() > 1 {
                candidates.retain(|&o| o != current);
            }
        }
        let e = self.scene.entity_of(population, first);
        let chosen = if claim != NONE && self.has_room(claim as usize, size, team_ix) {
            crate::ir::ObjectId(claim)
        } else {
            let room: Vec<_> = candidates.iter().copied().filter(|o| self.has_room(o.index(), size, team_ix)).collect();
            if room.is_empty() {
                if claim == NONE && self.scene.program.switches.wait_in_line {
                    self.wait_for_room(team_ix, &candidates, e, t);
                }
                return Ok(false);
            }
            let k = stream(self.scene.seed, Purpose::PickGoal, e, u64::from(picks)).below(room.len() as u32);
            room[k as usize]
        };
        self.drop_claim(team_ix);
        let g = Goal::Object(chosen);
        let team = &mut self.scene.teams[team_ix];
        team.picks += 1;
        team.pick = g;
        self.scene.agents.mind[i].picks = team.picks;
        self.set_goal(i, g);
        Ok(true)
    }

    /// Team `team_ix`, finding no room among `candidates`, lines up at one
    /// of them that could hold it, where the fewest places must free before
    /// its turn (ties at random, drawn from entity `e`'s streams); when none
    /// could, it waits a random time from its dwell.
    fn wait_for_room(&mut self, team_ix: usize, candidates: &[crate::ir::ObjectId], e: crate::rng::Entity, t: f64) {
        let team = &self.scene.teams[team_ix];
        let (size, population, waits) = (team.size, team.population as usize, team.waits);
        let objects = &self.scene.program.objects;
        // How many places must free before the group's turn there (`None`: it never fits).
        let behind = |o: &crate::ir::ObjectId| {
            let c = objects[o.index()].capacity?;
            let queued: u32 = self.claims[o.index()].iter().map(|&w| self.scene.teams[w as usize].size).sum();
            (size <= c).then(|| (self.occupancy[o.index()] + queued + size).saturating_sub(c))
        };
        let shortest = candidates.iter().filter_map(behind).min();
        let could: Vec<_> = candidates.iter().filter(|o| shortest.is_some() && behind(o) == shortest).collect();
        let mut rng = stream(self.scene.seed, Purpose::Wait, e, u64::from(waits));
        let team = &mut self.scene.teams[team_ix];
        team.waits += 1;
        if could.is_empty() {
            team.wait_end = t + sample(&self.scene.program.populations[population].dwell, &mut rng);
        } else {
            let o = could[rng.below(could.len() as u32) as usize];
            team.claim = o.0;
            self.claims[o.index()].push(team_ix as u32);
        }
    }
}
