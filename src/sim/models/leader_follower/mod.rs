//! Leader-follower crowds planned in configuration-time space (Li, Jeng,
//! Chang): a leader (`seek ... using ct_space`) walks a timed path planned
//! around static obstacles and the other leaders' paths (`leaders.rs`, over
//! `plan::ct_space`); its followers (`follow`, `evacuate`) steer by
//! flocking forces and its attraction (`followers.rs`, `steer::follow`),
//! heading for the latest point of its trace they can see when it is out of
//! sight (`trail.rs`).
//!
//! Invariants:
//! - the organise stage is the only writer of the plans, the traces and the
//!   table of who follows whom; the agents' pass only reads them;
//! - leaders are planned one at a time, in slot (id) order within a step,
//!   each against the plans made before it: the order their goals arrive;
//! - a follower's only randomness is its deadlock directions, drawn from
//!   its own stream.

mod followers;
mod leaders;
mod trail;

pub(crate) use followers::Follower;

use crate::ir::{Action, PlannerKind, RegionId, Subject, NONE};
use crate::sim::agents::Goal;
use crate::sim::scene::Scene;
use crate::sim::stage::{Holds, Model, Own, Plan};
use crate::sim::workers::Workers;

use followers::Lead;
use leaders::{Leader, Planner};
use trail::Trail;

/// How a mode engages the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum How {
    /// `seek ... using ct_space [crowd_aware] [pairwise_checks]`.
    Lead { crowd_aware: bool, pairwise: bool },
    /// `follow leader` (`None`) or `follow SUBJECT`.
    Follow(Option<Subject>),
    /// `evacuate [via REGION]`: the flocking forces flipped (§4.3).
    Evacuate(Option<RegionId>),
}

/// What an agent the model drives carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Walker {
    Leader { crowd_aware: bool, pairwise: bool },
    Follower { whom: Option<Subject>, follower: Follower },
}

/// The run's leader-follower state.
pub(crate) struct LeaderFollower {
    /// Some behaviour of the scenario uses the model.
    used: bool,
    /// Made when the first leader plans.
    planner: Option<Planner>,
    /// The traces of the agents someone follows, by agent id.
    trails: Vec<(u32, Trail)>,
    /// By population, this step: the slot of its first live agent, or `NONE`.
    first: Vec<u32>,
    fault: Option<String>,
}

impl LeaderFollower {
    /// The slot of the agent a follower in slot `i` follows, if alive.
    fn leader_of(&self, scene: &Scene, i: usize, whom: Option<Subject>) -> Option<usize> {
        let program = scene.program;
        let population = match whom {
            None => {
                let g = scene.explicit_group[scene.agents.mind[i].member.population.index()];
                program.groups.get(g as usize)?.leader?
            }
            Some(Subject::Population(p)) => p,
            Some(Subject::Group(g)) => {
                let group = &program.groups[g.index()];
                group.leader.or_else(|| group.members.first().copied())?
            }
            Some(_) => return None,
        };
        let slot = *self.first.get(population.index())?;
        (slot != NONE && slot as usize != i).then_some(slot as usize)
    }

    fn trail(&self, id: u32) -> Option<&Trail> {
        self.trails.binary_search_by_key(&id, |(k, _)| *k).ok().map(|k| &self.trails[k].1)
    }

    /// The leaders this step, with their followers, in slot order.
    fn leaders<D: Holds<Walker>>(&self, scene: &Scene, drives: &[D]) -> Vec<Leader> {
        let mut followers = vec![0u32; drives.len()];
        for (i, d) in drives.iter().enumerate() {
            if let Some(Walker::Follower { whom, .. }) = d.walker() {
                if let Some(l) = self.leader_of(scene, i, *whom) {
                    followers[l] += 1;
                }
            }
        }
        (drives.iter().enumerate())
            .filter_map(|(slot, d)| match d.walker() {
                Some(&Walker::Leader { crowd_aware, pairwise }) => {
                    Some(Leader { slot, crowd_aware, pairwise, followers: followers[slot] })
                }
                _ => None,
            })
            .collect()
    }

    /// Plans every leader whose goal is new, in slot order (§3.2).
    fn plan_leaders<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &[D]) -> Result<(), String> {
        let leaders = self.leaders(scene, drives);
        if leaders.is_empty() {
            return Ok(());
        }
        let planner = self.planner.get_or_insert_with(|| Planner::new(scene));
        let ids = &scene.agents.id;
        planner.keep(|id| leaders.iter().any(|l| ids[l.slot] == id));
        for &me in &leaders {
            let aim = scene.agents.aim[me.slot];
            if matches!(aim, Goal::None | Goal::Anchor(_)) {
                continue;
            }
            let Some(point) = scene.aim_point(me.slot, aim) else { continue };
            let planned = planner.course(ids[me.slot]).is_some_and(|c| c.goal == aim && c.point == point);
            if !planned {
                planner.plan(scene, me, &leaders, aim, point)?;
            }
        }
        Ok(())
    }

    /// Keeps the trace of every agent someone follows.
    fn walk_trails<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &[D]) {
        let mut led: Vec<usize> = (drives.iter().enumerate())
            .filter_map(|(i, d)| match d.walker() {
                Some(Walker::Follower { whom, .. }) => self.leader_of(scene, i, *whom),
                _ => None,
            })
            .collect();
        led.sort_unstable();
        led.dedup();
        for l in led {
            let id = scene.agents.id[l];
            let k = match self.trails.binary_search_by_key(&id, |(k, _)| *k) {
                Ok(k) => k,
                Err(k) => {
                    self.trails.insert(k, (id, Trail::default()));
                    k
                }
            };
            self.trails[k].1.walk(scene.agents.pos[l]);
        }
    }

    /// A leader's step: to where its timed path is at the end of the step.
    fn lead(&self, scene: &Scene, i: usize) -> Plan {
        let agents = &scene.agents;
        let pos = agents.pos[i];
        let course = self.planner.as_ref().and_then(|p| p.course(agents.id[i]).map(|c| (p, c)));
        let Some((planner, course)) = course else { return Plan::stand(pos) };
        if agents.arrived[i] && !agents.leaving[i] {
            return Plan::stand(pos);
        }
        let t = scene.clock.time(scene.step + 1);
        let target = planner.place(course, t);
        let stride = scene.stride(i);
        let gap = pos.distance(target);
        if gap <= 1e-12 {
            return Plan::stand(pos);
        }
        // The plan sets the pace, up to the CT-space's speed bound.
        let bound = scene.clock.step_length(scene.program.params.ct_space.max_speed);
        Plan { pace: gap.min(bound) / stride, ..Plan::walk_to(target) }
    }
}

impl Model for LeaderFollower {
    type Walker = Walker;
    type How = How;

    fn new(scene: &Scene) -> LeaderFollower {
        let program = scene.program;
        let used = program.behaviours.iter().flat_map(|b| b.body.actions()).any(|a| Self::how(a, &[]).is_some());
        let grids: Vec<_> = leaders::grids(program).collect();
        // Leaders plan against each other in one CT-space, so on one bitmap.
        let fault = grids.windows(2).any(|w| w[0] != w[1]).then(|| {
            "the leaders would plan on different bitmaps: give every `seek ... using ct_space` the same `grid X x Y`"
                .to_string()
        });
        LeaderFollower { used, planner: None, trails: Vec::new(), first: Vec::new(), fault }
    }

    fn how(action: &Action, _mode: &[Action]) -> Option<How> {
        match action {
            Action::Seek { planner, .. } if planner.kind == PlannerKind::CtSpace => {
                Some(How::Lead { crowd_aware: planner.crowd_aware, pairwise: planner.pairwise_checks })
            }
            Action::Follow { leader } => Some(How::Follow(*leader)),
            Action::Evacuate { via } => Some(How::Evacuate(*via)),
            _ => None,
        }
    }

    fn start(&mut self, _scene: &Scene, _i: usize, how: How, previous: Option<&Walker>) -> Walker {
        let before = match previous {
            Some(Walker::Follower { follower, .. }) => Some(follower),
            _ => None,
        };
        match how {
            How::Lead { crowd_aware, pairwise } => Walker::Leader { crowd_aware, pairwise },
            How::Follow(whom) => Walker::Follower { whom, follower: Follower::new(1.0, None, before) },
            How::Evacuate(via) => Walker::Follower { whom: None, follower: Follower::new(-1.0, via, before) },
        }
    }

    fn organise<D: Holds<Walker> + Sync>(
        &mut self,
        scene: &Scene,
        drives: &[D],
        _workers: &Workers,
        _formation: &mut [u32],
    ) {
        if !self.used || self.fault.is_some() {
            return;
        }
        // Followers who start this step, after this stage, find their leader here too.
        self.first.clear();
        self.first.resize(scene.program.populations.len(), NONE);
        for (i, &p) in scene.agents.population.iter().enumerate().rev() {
            self.first[p as usize] = i as u32;
        }
        self.walk_trails(scene, drives);
        if let Err(e) = self.plan_leaders(scene, drives) {
            self.fault = Some(e);
        }
    }

    fn fault(&self) -> Option<&str> {
        self.fault.as_deref()
    }

    fn plan(&self, scene: &Scene, me: Own<'_, Walker>) -> Plan {
        let i = me.i;
        match me.walker {
            Walker::Leader { .. } => self.lead(scene, i),
            Walker::Follower { whom, follower } => {
                let leader = self.leader_of(scene, i, *whom);
                let lead = Lead {
                    leader,
                    trail: leader.and_then(|l| self.trail(scene.agents.id[l])),
                    params: &scene.program.params.ct_space,
                    trace_attraction: scene.program.switches.trace_attraction,
                };
                followers::step(scene, i, follower, me.draws, &lead)
            }
        }
    }
}
