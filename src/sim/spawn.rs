//! Phase 1, spawn/despawn: population schedules create agents and remove
//! those whose time is up or who reached their exit.
//!
//! Invariants:
//! - runs sequentially, populations in declaration order (populations that
//!   follow a leader last, so the leader exists), agents in index order, so
//!   ids are handed out in a fixed order;
//! - agent `k` of a population draws its body, speed and spawn point from
//!   streams keyed by (the population's name, `k`) (speed by its group's
//!   first member), so adding or reordering other populations never changes
//!   them (except where their bodies take the room: a new body keeps apart
//!   from those already placed when it can); a chaotic population's agents
//!   take their places from its own orbits, chained in creation order and
//!   started from its own stream;
//! - procedural groups are spawned whole: a group's members appear in the same
//!   step, around its first member.

use super::agents::{Goal, Membership, Mind, Newborn, Team};
use super::sample::{choose, sample};
use super::{SimError, Simulation};
use crate::ir::{self, Leave, Place, PopulationId, RegionId, Schedule, Vec2, NONE};
use crate::math;
use crate::rng::{stream, Purpose, Stream};
use crate::world::chaos::Orbit;
use crate::world::grid::Buckets;
use crate::world::walkable::{accepts, candidate_point, reached};

use crate::trace::AgentLog;

/// Spawn-point candidates tried before the run is stopped.
const SPAWN_ATTEMPTS: u32 = 10_000;
/// The first candidates must keep clear of obstacles and of the agents
/// already there (by `max(t_min, r_i + r_j)`)...
const APART_ATTEMPTS: u32 = 1_000;
/// ...the next ones of obstacles only (a crowded area fills up, and distance
/// enforcement separates the bodies); later ones may be nudged out of
/// obstacles (a gate on the world's edge has no clear point of its own).
const STRICT_ATTEMPTS: u32 = 2_000;
/// Iterates of a chaotic orbit tried before the run is stopped: with walkable
/// room in the region (checked), a chaotic orbit finds it long before.
const CHAOTIC_ITERATES: u32 = 10_000;
/// A group's members appear within this distance of its first member, m,
/// or, where that leaves no room between bodies, within
/// [`Simulation::group_room`].
const GROUP_SPREAD: f64 = 1.0;
/// Attempts to place a member near its group (the first half apart from
/// other agents; then, for a group with more room, as many apart in that)
/// before falling back to the population's place.
const NEAR_ATTEMPTS: u32 = 200;
/// Slack on time comparisons, s.
const TIME_EPS: f64 = 1e-9;

impl Simulation<'_> {
    /// Draws every population's procedural group sizes, once, from the
    /// population's own stream.
    pub(super) fn plan_teams(&mut self) {
        for (p, pop) in self.scene.program.populations.iter().enumerate() {
            let count = pop.max_count();
            let mut firsts = Vec::new();
            let explicit = self.scene.explicit_group[p];
            let solo = explicit != NONE || pop.group_sizes.iter().all(|(s, _)| *s <= 1);
            if explicit != NONE && self.scene.program.groups[explicit as usize].formation.is_some() {
                // An explicit group that keeps formation walks as one team
                // (`models` refuses it unless the population is the whole group).
                firsts.push(0);
            } else if solo {
                firsts.extend(0..count);
            } else {
                let mut rng = stream(self.scene.seed, Purpose::GroupSizes, self.scene.entity_of(p as u32, 0), 0);
                let mut k = 0;
                while k < count {
                    firsts.push(k);
                    let size = pop.group_sizes[choose(pop.group_sizes.iter().map(|(_, w)| *w), &mut rng)].0;
                    k = k.saturating_add(size.max(1));
                }
            }
            self.pops[p].teams = firsts;
        }
    }

    /// How many agents of `pop` exist by time `t` (created so far, not alive).
    fn scheduled(pop: &ir::Population, t: f64) -> u32 {
        match pop.schedule {
            Schedule::Fixed { count } => count,
            Schedule::Peak { count, at } => {
                if at <= 0.0 || t >= at {
                    count
                } else {
                    // Hocevar et al.: agents are created linearly from the first frame to the peak.
                    ((f64::from(count) * t / at + TIME_EPS).floor() as u32).min(count)
                }
            }
        }
    }

    /// Phase 1: removals, then the start of leaving, then creations.
    pub(super) fn spawn_despawn(&mut self, t: f64) -> Result<(), SimError> {
        let program = self.scene.program;
        if program.populations.iter().any(|p| p.leave != Leave::Never) {
            self.despawn(t);
            for (p, pop) in program.populations.iter().enumerate() {
                if let Leave::Via { region, from } = pop.leave {
                    if !self.pops[p].leaving && t >= from - TIME_EPS {
                        self.pops[p].leaving = true;
                        for i in 0..self.scene.agents.len() {
                            if self.scene.agents.population[i] == p as u32 {
                                self.start_leaving(i, region);
                            }
                        }
                    }
                }
            }
        }
        let due = |s: &Self, p: usize| {
            s.pops[p].created < Self::scheduled(&program.populations[p], t)
                && s.pops[p].next_team < s.pops[p].teams.len()
        };
        if !(0..program.populations.len()).any(|p| due(self, p)) {
            return Ok(());
        }
        // The bodies already there, so that new ones appear apart from them.
        let mut placed = Buckets::new(
            program.world.bounds,
            self.spawn_gap(self.scene.max_radius),
            (self.scene.agents.len() as u64 + 1024) * 4,
        );
        for i in 0..self.scene.agents.len() {
            placed.insert(self.scene.agents.pos[i], self.scene.agents.radius[i]);
        }
        let order = std::mem::take(&mut self.spawn_order);
        let result = order.iter().try_for_each(|&p| {
            while due(self, p) {
                self.spawn_team(p, t, &mut placed)?;
            }
            Ok(())
        });
        self.spawn_order = order;
        result
    }

    fn despawn(&mut self, t: f64) {
        let n = self.scene.agents.len();
        let mut keep = std::mem::take(&mut self.scratch.keep);
        keep.clear();
        keep.resize(n, true);
        let mut gone_agents = Vec::new();
        for (i, k) in keep.iter_mut().enumerate() {
            let m = &self.scene.agents.mind[i];
            let pop = &self.scene.program.populations[m.member.population.index()];
            let gone = match pop.leave {
                Leave::Never => false,
                Leave::After(d) => t - m.born >= d - TIME_EPS,
                Leave::Via { region, .. } => {
                    self.scene.agents.leaving[i] && {
                        let p = self.scene.agents.pos[i];
                        reached(&self.scene.program.world.regions[region.index()].shape, p, self.scene.arrival)
                            || p.distance(self.scene.aims.region(region)) <= self.scene.arrival
                    }
                }
            };
            if gone {
                *k = false;
                gone_agents.push(i);
                let log = &mut self.log[self.scene.agents.id[i] as usize];
                if self.scene.agents.leaving[i] && log.arrived.is_none() {
                    log.arrived = Some(t);
                }
            }
        }
        if !gone_agents.is_empty() {
            self.remove_agents(&keep, &gone_agents, t);
        }
        self.scratch.keep = keep;
    }

    /// Takes the agents at the slots `gone` (increasing; `keep` is false
    /// exactly there) out of the run at `t`: their removal logged, the
    /// places and claims they held given back, their models told.
    pub(super) fn remove_agents(&mut self, keep: &[bool], gone: &[usize], t: f64) {
        for &i in gone {
            self.log[self.scene.agents.id[i] as usize].removed = Some(t);
            let m = &self.scene.agents.mind[i];
            if let (true, Goal::Object(o)) = (m.holds, m.goal) {
                self.occupancy[o.index()] -= 1;
            }
        }
        for &i in gone {
            self.drop_claim(self.scene.agents.mind[i].member.team as usize);
        }
        for &i in gone {
            self.models.stop(&self.scene, i, &mut self.drives[i]);
        }
        self.retain_agents(keep);
        self.scratch.keys_valid = false;
    }

    fn start_leaving(&mut self, i: usize, region: ir::RegionId) {
        // Who leaves gives up its place, and the team its wait for one.
        if self.scene.program.switches.give_up_places {
            self.release(i);
        }
        self.drop_claim(self.scene.agents.mind[i].member.team as usize);
        let agents = &mut self.scene.agents;
        agents.mind[i].aim_is_own_goal = false;
        agents.leaving[i] = true;
        agents.settled[i] = true;
        agents.aim[i] = Goal::Region(region);
        agents.arrived[i] = false;
        agents.mode_label[i] = self.leaving_label;
        let (id, population) = (agents.id[i] as usize, agents.population[i] as usize);
        self.log[id].sought = true;
        self.refresh_goal_label(i);
        let program = self.scene.program;
        let behaviour = &program.behaviours[program.populations[population].behaviour.index()];
        self.models.leave(&self.scene, i, behaviour, &mut self.drives[i]);
    }

    /// The distance a new body of radius `r` keeps from the others when it can.
    fn spawn_gap(&self, r: f64) -> f64 {
        gap(self.scene.min_distance, r)
    }

    fn spawn_team(&mut self, p: usize, t: f64, placed: &mut Buckets) -> Result<(), SimError> {
        let pop = &self.pops[p];
        let j = pop.next_team;
        let first = pop.teams[j];
        let count = self.scene.program.populations[p].max_count();
        let end = pop.teams.get(j + 1).copied().unwrap_or(count).min(count);
        let size = end - first;
        let explicit = self.scene.explicit_group[p];
        let number = if explicit != NONE {
            explicit
        } else if size >= 2 {
            self.next_group_number += 1;
            self.next_group_number - 1
        } else {
            NONE
        };
        let team = self.scene.teams.len() as u32;
        self.scene.teams.push(Team {
            population: p as u32,
            first,
            size,
            number,
            picks: 0,
            pick: Goal::None,
            spawned_at: Vec2::ZERO,
            dwells: 0,
            dwell_end: 0.0,
            waits: 0,
            wait_end: f64::NEG_INFINITY,
            claim: NONE,
        });
        for k in first..end {
            self.spawn_agent(p, k, team, t, placed)?;
        }
        self.pops[p].created = end;
        self.pops[p].next_team += 1;
        Ok(())
    }

    fn spawn_agent(&mut self, p: usize, k: u32, team: u32, t: f64, placed: &mut Buckets) -> Result<(), SimError> {
        let program = self.scene.program;
        let pop = &program.populations[p];
        let e = self.scene.entity_of(p as u32, k);
        let mut body = stream(self.scene.seed, Purpose::Body, e, 0);
        let radius = sample(&pop.radius, &mut body);
        let personal = sample(&pop.personal_space, &mut body);
        let first = self.scene.teams[team as usize].first;
        let speed =
            sample(&pop.speed, &mut stream(self.scene.seed, Purpose::Speed, self.scene.entity_of(p as u32, first), 0));
        for (what, value) in [("speed", speed), ("radius", radius), ("personal space", personal)] {
            if !value.is_finite() {
                return Err(SimError::NonFinite {
                    agent: self.next_id,
                    population: pop.name.clone(),
                    step: self.step,
                    t,
                    phase: "spawn",
                    what,
                });
            }
        }

        let mut rng = stream(self.scene.seed, Purpose::Spawn, e, 0);
        let leader_at = self.pops[p].follows.and_then(|(leader, within)| {
            let slot = self.scene.agents.population.iter().position(|&q| q == leader)?;
            Some((self.scene.agents.pos[slot], within))
        });
        let near = match leader_at {
            Some((at, within)) => self.near_point(at, (within, within), radius, &mut rng, placed),
            None if k != first => {
                let t = &self.scene.teams[team as usize];
                let room = self.group_room(t.size, radius);
                self.near_point(t.spawned_at, (GROUP_SPREAD, room), radius, &mut rng, placed)
            }
            None => None,
        };
        let pos = match (near, &pop.spawn) {
            (Some(q), _) => q,
            (None, &Place::Chaotic { region, r }) if program.switches.chaotic_placement => {
                self.chaotic_point(p, region, r, radius)?
            }
            (None, _) => self.place(pop, radius, &mut rng, placed)?,
        };
        placed.insert(pos, radius);
        if k == first {
            self.scene.teams[team as usize].spawned_at = pos;
        }

        let id = self.next_id;
        self.next_id += 1;
        self.scratch.keys_valid = false;
        let leaving = self.pops[p].leaving;
        self.push_agent(Newborn {
            id,
            group: self.scene.teams[team as usize].number,
            pos,
            speed,
            radius,
            personal,
            mind: Mind {
                member: Membership { population: PopulationId(p as u32), index: k, team },
                born: t,
                mode: NONE,
                since: t,
                dwell_end: None,
                goal: Goal::None,
                aim_is_own_goal: false,
                picked: false,
                picks: 0,
                holds: false,
                closest: f64::INFINITY,
                closer_at: t,
            },
        });
        self.log.push(AgentLog { id, population: p as u32, born: t, removed: None, arrived: None, sought: false });
        let i = self.scene.agents.len() - 1;
        self.scene.agents.mode_label[i] = self.idle_label;
        let goal = match &pop.goal {
            None => None,
            Some(ir::Goal::Point(q)) => Some(Goal::Point(*q)),
            Some(ir::Goal::Region(r)) => Some(Goal::Region(*r)),
            Some(ir::Goal::Object(o)) => Some(Goal::Object(*o)),
            Some(ir::Goal::Agent(q)) => Some(Goal::Anchor(self.scene.aims.anchor(ir::Subject::Population(*q)))),
            Some(ir::Goal::Resource(r)) => {
                // A goal among the objects providing it, picked like `pick goal`.
                self.try_pick(i, std::slice::from_ref(r), t)?;
                None
            }
        };
        if let Some(g) = goal {
            self.set_goal(i, g);
        }
        if leaving {
            if let Leave::Via { region, .. } = pop.leave {
                self.start_leaving(i, region);
            }
        }
        Ok(())
    }

    /// Whether a body of radius `r` at `q` keeps its distance from those placed.
    fn apart(&self, q: Vec2, r: f64, placed: &Buckets) -> bool {
        !placed.any_closer(q, self.spawn_gap(self.scene.max_radius.max(r)), |rq| self.scene.min_distance.max(r + rq))
    }

    /// The disc a group of `size` bodies of radius about `r` has room in
    /// round its first member: each member gets `π·gap²`, four times the
    /// area its body keeps clear, where random points keep bodies apart
    /// (hard discs jam at about twice that cover). Nine members within
    /// 1 m were placed overlapping (`fig04_formations`, seeds 14, 17 and
    /// 18: 0.32 m apart at 0 s, against 0.5 m).
    fn group_room(&self, size: u32, r: f64) -> f64 {
        GROUP_SPREAD.max(self.spawn_gap(r) * f64::from(size).sqrt())
    }

    /// A clear point near `center`, uniformly over a disc: apart from the
    /// others within `near`, else apart within `room` (≥ `near`), else
    /// anywhere clear within `near`.
    fn near_point(
        &self,
        center: Vec2,
        (near, room): (f64, f64),
        radius: f64,
        rng: &mut Stream,
        placed: &Buckets,
    ) -> Option<Vec2> {
        let half = NEAR_ATTEMPTS / 2;
        let widened = if room > near { half } else { 0 };
        (0..NEAR_ATTEMPTS + widened).find_map(|attempt| {
            let (within, apart) = match attempt {
                a if a < half => (near, true),
                a if a < half + widened => (room, true),
                _ => (near, false),
            };
            let r = within * rng.unit().sqrt();
            let a = std::f64::consts::TAU * rng.unit();
            let q = center + Vec2::new(math::cos(a), math::sin(a)) * r;
            let ok = self.scene.space.is_clear(q, radius) && (!apart || self.apart(q, radius, placed));
            ok.then_some(q)
        })
    }

    /// The next point of population `p`'s chaotic orbits on walkable space
    /// in the region. No spacing between bodies: the map decides where they
    /// start, and distance enforcement separates overlapping ones.
    fn chaotic_point(&mut self, p: usize, region: RegionId, r: f64, radius: f64) -> Result<Vec2, SimError> {
        let shape = &self.scene.program.world.regions[region.index()].shape;
        let (orbit, rng) = self.pops[p].orbit.get_or_insert_with(|| {
            let mut rng = stream(self.scene.seed, Purpose::Chaos, self.scene.entity_of(p as u32, 0), 0);
            (Orbit::start(r, &mut rng), rng)
        });
        for _ in 0..CHAOTIC_ITERATES {
            let (x, y) = orbit.next(rng);
            let q = candidate_point(shape, x, y);
            if accepts(shape, q) && self.scene.space.is_clear(q, radius) {
                return Ok(q);
            }
        }
        let program = self.scene.program;
        Err(SimError::Spawn {
            population: program.populations[p].name.clone(),
            place: format!("region {} along its chaotic orbits (r = {r})", program.world.regions[region.index()].name),
            attempts: CHAOTIC_ITERATES,
        })
    }

    /// A clear point of the population's spawn place.
    fn place(&self, pop: &ir::Population, radius: f64, rng: &mut Stream, placed: &Buckets) -> Result<Vec2, SimError> {
        match &pop.spawn {
            Place::Point(q) => {
                let q =
                    if self.scene.space.is_clear(*q, radius) { *q } else { self.scene.space.project(*q, *q, radius) };
                if self.scene.space.is_clear(q, radius) {
                    Ok(q)
                } else {
                    Err(SimError::Spawn {
                        population: pop.name.clone(),
                        place: format!("the point ({}, {})", q.x, q.y),
                        attempts: 1,
                    })
                }
            }
            Place::Around { leader, within } => Err(SimError::Spawn {
                population: pop.name.clone(),
                place: format!(
                    "{} m around population {}, which has no agent yet or no clear point near it",
                    within,
                    self.scene.program.populations[leader.index()].name
                ),
                attempts: NEAR_ATTEMPTS,
            }),
            Place::Region(r) | Place::Chaotic { region: r, .. } => {
                let region = &self.scene.program.world.regions[r.index()];
                for attempt in 0..SPAWN_ATTEMPTS {
                    let q = candidate_point(&region.shape, rng.unit(), rng.unit());
                    if !accepts(&region.shape, q) {
                        continue;
                    }
                    if self.scene.space.is_clear(q, radius)
                        && (attempt >= APART_ATTEMPTS || self.apart(q, radius, placed))
                    {
                        return Ok(q);
                    }
                    if attempt >= STRICT_ATTEMPTS {
                        let nudged = self.scene.space.project(q, q, radius);
                        if nudged.distance(q) <= 2.0 * radius && self.scene.space.is_clear(nudged, radius) {
                            return Ok(nudged);
                        }
                    }
                }
                Err(SimError::Spawn {
                    population: pop.name.clone(),
                    place: format!("region {}", region.name),
                    attempts: SPAWN_ATTEMPTS,
                })
            }
        }
    }
}

/// The distance a new body of radius `radius` keeps from the others when it
/// can, given the models' minimum distance.
fn gap(min_distance: f64, radius: f64) -> f64 {
    min_distance.max(2.0 * radius)
}

/// How far apart `spawn in` places the bodies it creates: the spacing of
/// the largest body.
pub fn spawn_spacing(program: &crate::ir::Program) -> f64 {
    let max_radius = program.populations.iter().map(|p| super::sample::upper_bound(&p.radius)).fold(0.0, f64::max);
    gap(super::models::min_distance(program), max_radius)
}
