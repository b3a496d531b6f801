//! The agents' core state, one array per attribute (structure of arrays),
//! and the teams they belong to. What a model keeps for an agent it drives
//! is the model's own (see `models`).
//!
//! Invariants: every array has one entry per live agent; agents are in
//! increasing id order (new agents get the next id and are appended, removal
//! keeps the order), so a frame is already sorted for the trace.

use crate::ir::{ObjectId, PopulationId, RegionId, Vec2, NONE};

/// A goal an agent holds (its own goal, or what it currently seeks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Goal {
    None,
    Point(Vec2),
    Region(RegionId),
    Object(ObjectId),
    /// The anchor agent of a subject (index into the run's anchor table).
    Anchor(u32),
}

/// Population-level bookkeeping about where an agent belongs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Membership {
    /// Population index and the agent's index within it (its random entity).
    pub population: PopulationId,
    pub index: u32,
    /// Index of the agent's (procedural or solo) team in the run's team table.
    pub team: u32,
}

/// Behaviour state: cold data, touched by `decide` and `plan` only.
#[derive(Clone, Debug)]
pub(crate) struct Mind {
    pub member: Membership,
    pub born: f64,
    /// Current state or rule of the behaviour; `NONE` before the first decision.
    pub mode: u32,
    /// Simulated time the mode was entered, s.
    pub since: f64,
    /// End of the current dwell, s.
    pub dwell_end: Option<f64>,
    /// The agent's own goal.
    pub goal: Goal,
    /// The current mode seeks the agent's own goal (re-aim when it changes).
    pub aim_is_own_goal: bool,
    /// The current mode's goal pick is done.
    pub picked: bool,
    /// Goal picks this agent has taken part in (its team's pick counter when in sync).
    pub picks: u32,
    /// It takes a place at its goal object (counted in the object's occupancy).
    pub holds: bool,
    /// Walking to an object: the closest it came to the object so far, m
    /// (infinite until its first step there).
    pub closest: f64,
    /// When it last came [`PROGRESS`] closer to the object it walks to, s.
    pub closer_at: f64,
}

/// A walker to an object makes progress when it comes this much closer to it, m.
pub(crate) const PROGRESS: f64 = 0.1;
/// A walker to an object that came no [`PROGRESS`] closer to it for this
/// long is stalled; within `arrival_radius` + `decide::CHAIN_REACH` of it, it
/// has arrived: those standing there let it no nearer, s.
pub(crate) const STALL_TIME: f64 = 3.0;

/// How many entries an agent's memory holds: a push onto a full memory
/// forgets the oldest.
pub(crate) const MEMORY_DEPTH: usize = 16;

/// An entry of an agent's memory: an interrupted rule's activity, or a goal
/// put aside by `push goal` (`rule` is then `NONE`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Recall {
    pub rule: u32,
    pub goal: Goal,
    /// The rule had made its goal pick.
    pub picked: bool,
    /// What was left of the rule's dwell, s.
    pub dwell_left: Option<f64>,
}

/// An agent's memory (Durupınar's goal queue): a stack of fixed depth kept
/// as a ring, so forgetting the oldest entry moves nothing.
#[derive(Clone, Debug)]
pub(crate) struct Memory {
    entries: [Recall; MEMORY_DEPTH],
    /// The oldest entry's place in `entries`, and how many there are.
    first: usize,
    len: usize,
}

impl Memory {
    pub fn new() -> Memory {
        let blank = Recall { rule: NONE, goal: Goal::None, picked: false, dwell_left: None };
        Memory { entries: [blank; MEMORY_DEPTH], first: 0, len: 0 }
    }

    /// Whether it holds a goal `push goal` put there.
    pub fn holds_goal(&self) -> bool {
        (0..self.len).any(|k| self.at(k).rule == NONE)
    }

    /// The entry `k` places from the oldest.
    fn at(&self, k: usize) -> &Recall {
        &self.entries[(self.first + k) % MEMORY_DEPTH]
    }

    /// Puts `r` on top; on a full memory the oldest entry is forgotten.
    pub fn push(&mut self, r: Recall) {
        if self.len == MEMORY_DEPTH {
            self.first = (self.first + 1) % MEMORY_DEPTH;
            self.len -= 1;
        }
        self.entries[(self.first + self.len) % MEMORY_DEPTH] = r;
        self.len += 1;
    }

    /// Takes off the topmost goal `push goal` put there; the entries of
    /// interrupted rules above it keep their order.
    pub fn pop_goal(&mut self) -> Option<Recall> {
        let k = (0..self.len).rev().find(|&k| self.at(k).rule == NONE)?;
        let r = *self.at(k);
        for j in k..self.len - 1 {
            self.entries[(self.first + j) % MEMORY_DEPTH] = *self.at(j + 1);
        }
        self.len -= 1;
        Some(r)
    }

    /// Takes off the topmost entry of rule `rule` and every entry above it;
    /// returns that entry, or `None` (nothing removed) when there is none.
    pub fn recall(&mut self, rule: u32) -> Option<Recall> {
        let k = (0..self.len).rev().find(|&k| self.at(k).rule == rule)?;
        let r = *self.at(k);
        self.len = k;
        Some(r)
    }
}

/// A procedural group, or a solo agent's own one-member team.
#[derive(Clone, Debug)]
pub(crate) struct Team {
    pub population: u32,
    pub first: u32,
    pub size: u32,
    /// Trace group number, `NONE` for a solo agent.
    pub number: u32,
    /// Goal picks made for the team so far, and the latest.
    pub picks: u32,
    pub pick: Goal,
    /// Where the first member appeared.
    pub spawned_at: Vec2,
    /// Dwells drawn for the team so far, and when the latest ends, s.
    pub dwells: u32,
    pub dwell_end: f64,
    /// Waits drawn for the team so far (no object had room for it), and
    /// when the latest ends, s: it picks again from then on.
    pub waits: u32,
    pub wait_end: f64,
    /// The object the team waits for room at, or `NONE`.
    pub claim: u32,
}

#[derive(Default)]
pub(crate) struct Agents {
    pub id: Vec<u32>,
    pub population: Vec<u32>,
    /// Trace group number or `NONE`.
    pub group: Vec<u32>,
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    pub ori: Vec<Vec2>,
    /// Preferred speed, m/s.
    pub speed: Vec<f64>,
    pub radius: Vec<f64>,
    pub personal: Vec<f64>,
    pub mode_label: Vec<u32>,
    pub goal_label: Vec<u32>,
    /// The formation the agent walked in over the last step (trace label), or `NONE`.
    pub formation: Vec<u32>,
    /// Where the agent walks this step (valid when `active`).
    pub target: Vec<Vec2>,
    pub active: Vec<bool>,
    /// What the current mode seeks.
    pub aim: Vec<Goal>,
    /// The aim was reached (latched for fixed aims, re-checked for agents).
    pub arrived: Vec<bool>,
    /// Walking to the population's exit: the behaviour no longer applies.
    pub leaving: Vec<bool>,
    /// Nothing but an arrival can change the agent's decision (it is leaving,
    /// or in the only mode its behaviour can be in), so `decide` skips it.
    pub settled: Vec<bool>,
    /// Walking to an object, it came no closer to it for [`STALL_TIME`]
    /// (apart from [`Mind`]: written every step for everyone, and a mind is
    /// a cache line).
    pub stalled: Vec<bool>,
    /// Appeared this step and already decided at its creation time: the next
    /// pass moves it without deciding again.
    pub fresh: Vec<bool>,
    pub mind: Vec<Mind>,
    /// The agents' memories, made on the first push (most agents never have one).
    pub memory: Vec<Option<Box<Memory>>>,
    /// The values of the agents' vars, `var_stride` per agent in slot order
    /// (the most vars any behaviour has; 0 when none has any).
    pub vars: Vec<f64>,
    pub var_stride: usize,
}

/// The attributes of a new agent.
pub(crate) struct Newborn {
    pub id: u32,
    pub group: u32,
    pub pos: Vec2,
    pub speed: f64,
    pub radius: f64,
    pub personal: f64,
    pub mind: Mind,
}

impl Agents {
    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn push(&mut self, a: Newborn) {
        debug_assert!(self.id.last().is_none_or(|&last| last < a.id));
        self.id.push(a.id);
        self.population.push(a.mind.member.population.0);
        self.group.push(a.group);
        self.pos.push(a.pos);
        self.vel.push(Vec2::ZERO);
        self.ori.push(Vec2::X);
        self.speed.push(a.speed);
        self.radius.push(a.radius);
        self.personal.push(a.personal);
        self.mode_label.push(NONE);
        self.goal_label.push(NONE);
        self.formation.push(NONE);
        self.target.push(a.pos);
        self.active.push(false);
        self.aim.push(Goal::None);
        self.arrived.push(false);
        self.leaving.push(false);
        self.settled.push(false);
        self.stalled.push(false);
        self.fresh.push(true);
        self.mind.push(a.mind);
        self.memory.push(None);
    }

    /// The values of agent `i`'s vars.
    #[inline]
    pub fn vars_of(&self, i: usize) -> &[f64] {
        &self.vars[i * self.var_stride..(i + 1) * self.var_stride]
    }

    /// Keeps the agents whose `keep` entry is true, in order.
    pub fn retain(&mut self, keep: &[bool]) {
        retain(&mut self.id, keep);
        retain(&mut self.population, keep);
        retain(&mut self.group, keep);
        retain(&mut self.pos, keep);
        retain(&mut self.vel, keep);
        retain(&mut self.ori, keep);
        retain(&mut self.speed, keep);
        retain(&mut self.radius, keep);
        retain(&mut self.personal, keep);
        retain(&mut self.mode_label, keep);
        retain(&mut self.goal_label, keep);
        retain(&mut self.formation, keep);
        retain(&mut self.target, keep);
        retain(&mut self.active, keep);
        retain(&mut self.aim, keep);
        retain(&mut self.arrived, keep);
        retain(&mut self.leaving, keep);
        retain(&mut self.settled, keep);
        retain(&mut self.stalled, keep);
        retain(&mut self.fresh, keep);
        retain(&mut self.mind, keep);
        retain(&mut self.memory, keep);
        let w = self.var_stride;
        if w > 0 {
            let mut kept = 0;
            for (i, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
                self.vars.copy_within(i * w..(i + 1) * w, kept * w);
                kept += 1;
            }
            self.vars.truncate(kept * w);
        }
    }
}

/// Keeps the entries of `v` whose `keep` entry is true, in order.
pub(crate) fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(x: f64) -> Recall {
        Recall { rule: NONE, goal: Goal::Point(Vec2::new(x, 0.0)), picked: false, dwell_left: None }
    }

    fn rule(r: u32) -> Recall {
        Recall { rule: r, goal: Goal::None, picked: true, dwell_left: Some(1.0) }
    }

    #[test]
    fn a_full_memory_forgets_its_oldest_entry() {
        let mut m = Memory::new();
        for k in 0..MEMORY_DEPTH + 3 {
            m.push(goal(k as f64));
        }
        let mut popped = vec![];
        while let Some(r) = m.pop_goal() {
            popped.push(r.goal);
        }
        let kept: Vec<Goal> = (3..MEMORY_DEPTH + 3).rev().map(|k| goal(k as f64).goal).collect();
        assert_eq!(popped, kept);
    }

    #[test]
    fn recalling_a_rule_drops_what_lies_above_its_entry_and_popping_a_goal_skips_rules() {
        let mut m = Memory::new();
        m.push(goal(1.0));
        m.push(rule(4));
        m.push(goal(2.0));
        m.push(rule(7));
        assert_eq!(m.pop_goal(), Some(goal(2.0)));
        assert_eq!(m.recall(9), None);
        assert_eq!(m.recall(4), Some(rule(4)));
        assert!(m.holds_goal());
        assert_eq!(m.recall(7), None);
        assert_eq!(m.pop_goal(), Some(goal(1.0)));
        assert!(!m.holds_goal());
        assert_eq!(m.pop_goal(), None);
    }
}
