//! Where what agents seek is: a region's aim point, an object, a fixed
//! point, or the first agent of a subject (an anchor, found again every
//! step); who belongs to a subject; and the trace's goal labels.
//!
//! Invariants: anchors and goal points are listed once, in order of
//! appearance in the program, so their labels are the same in every run.

use super::agents::{Agents, Goal};
use crate::ir::{Program, Subject, Target, Vec2, NONE};
use crate::trace::float::format_f64;
use crate::world::walkable::{interior_point, reached};

pub(crate) struct Aims {
    /// Subjects whose first agent can be walked to, and that agent's slot this step.
    anchors: Vec<Subject>,
    slot: Vec<u32>,
    /// Aim points of regions: a point inside each.
    regions: Vec<Vec2>,
    /// Every fixed goal point, for the labels.
    points: Vec<Vec2>,
    /// By group: which populations belong to it.
    members: Vec<Vec<bool>>,
    /// By group: its leader's population, or `NONE`.
    leaders: Vec<u32>,
}

impl Aims {
    /// `members`: by group, which populations belong to it.
    pub fn new(program: &Program, members: Vec<Vec<bool>>) -> Aims {
        let anchors = anchor_subjects(program);
        Aims {
            slot: vec![NONE; anchors.len()],
            anchors,
            regions: program.world.regions.iter().map(|r| interior_point(&r.shape)).collect(),
            points: goal_points(program),
            members,
            leaders: program.groups.iter().map(|g| g.leader.map_or(NONE, |l| l.0)).collect(),
        }
    }

    /// The anchor of subject `s`, or `NONE`.
    pub fn anchor(&self, s: Subject) -> u32 {
        self.anchors.iter().position(|a| *a == s).map_or(NONE, |i| i as u32)
    }

    /// Whether population `population` belongs to subject `s`.
    #[inline]
    pub fn matches(&self, s: Subject, population: u32) -> bool {
        match s {
            Subject::Everyone => true,
            Subject::Population(p) => p.0 == population,
            Subject::Group(g) => self.members[g.index()][population as usize],
            Subject::Followers(g) => self.follows(g.index(), population),
        }
    }

    /// Whether population `population` is of group `g` and not its leader.
    fn follows(&self, g: usize, population: u32) -> bool {
        self.leaders[g] != NONE && self.leaders[g] != population && self.members[g][population as usize]
    }

    /// Finds each anchor subject's first agent (perceive phase).
    pub fn locate(&mut self, program: &Program, agents: &Agents) {
        for (a, subject) in self.anchors.iter().enumerate() {
            let pops = &agents.population;
            self.slot[a] = match *subject {
                Subject::Group(g) => {
                    let group = &program.groups[g.index()];
                    let leader = group.leader.map(|l| l.0);
                    let members = &self.members[g.index()];
                    match leader {
                        Some(l) => pops.iter().position(|&p| p == l),
                        None => pops.iter().position(|&p| members[p as usize]),
                    }
                }
                Subject::Followers(g) => pops.iter().position(|&p| self.follows(g.index(), p)),
                Subject::Population(p) => pops.iter().position(|&q| q == p.0),
                Subject::Everyone => (!pops.is_empty()).then_some(0),
            }
            .map_or(NONE, |i| i as u32);
        }
    }

    /// Where aim `g` is now, for the agent in slot `i`; `None` when there is nothing to walk to.
    #[inline]
    pub fn point(&self, program: &Program, agents: &Agents, i: usize, g: Goal) -> Option<Vec2> {
        match g {
            Goal::None => None,
            Goal::Point(p) => Some(p),
            Goal::Region(r) => Some(self.regions[r.index()]),
            Goal::Object(o) => Some(program.objects[o.index()].position),
            Goal::Anchor(a) => {
                let slot = self.slot[a as usize];
                (slot != NONE && slot as usize != i).then(|| agents.pos[slot as usize])
            }
        }
    }

    /// The slot of the agent that aim `g` walks to, for the agent in slot
    /// `i`, when `g` is an anchor (a moving target).
    #[inline]
    pub fn agent(&self, i: usize, g: Goal) -> Option<usize> {
        match g {
            Goal::Anchor(a) => {
                let slot = self.slot[a as usize];
                (slot != NONE && slot as usize != i).then_some(slot as usize)
            }
            _ => None,
        }
    }

    /// The aim point of region `r`.
    pub fn region(&self, r: crate::ir::RegionId) -> Vec2 {
        self.regions[r.index()]
    }

    /// The goal column's label for `g` (see [`labels`]).
    pub fn label(&self, program: &Program, g: Goal) -> u32 {
        let regions = program.world.regions.len() as u32;
        let objects = program.objects.len() as u32;
        let anchors = self.anchors.len() as u32;
        match g {
            Goal::None => NONE,
            Goal::Region(r) => r.0,
            Goal::Object(o) => regions + o.0,
            Goal::Anchor(a) => regions + objects + a,
            Goal::Point(p) => self
                .points
                .iter()
                .position(|q| q.x.to_bits() == p.x.to_bits() && q.y.to_bits() == p.y.to_bits())
                .map_or(NONE, |k| regions + objects + anchors + k as u32),
        }
    }
}

/// The goal labels, in the order [`Aims::label`] numbers them: regions,
/// objects, anchor subjects, fixed points.
pub(crate) fn labels(program: &Program) -> Vec<String> {
    let mut goals: Vec<String> = program.world.regions.iter().map(|r| r.name.clone()).collect();
    goals.extend(program.objects.iter().map(|o| o.name.clone()));
    goals.extend(anchor_subjects(program).iter().map(|s| s.name(program)));
    goals.extend(goal_points(program).iter().map(|p| format!("({} {})", format_f64(p.x), format_f64(p.y))));
    goals
}

/// The subjects whose first agent can be walked to, in a fixed order.
fn anchor_subjects(program: &Program) -> Vec<Subject> {
    let mut out: Vec<Subject> = Vec::new();
    let mut add = |s: Subject| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for p in &program.populations {
        if let Some(crate::ir::Goal::Agent(q)) = p.goal {
            add(Subject::Population(q));
        }
    }
    for b in &program.behaviours {
        for a in b.body.actions() {
            match a {
                crate::ir::Action::Seek { target: Target::Subject(s), .. }
                | crate::ir::Action::PushGoal(Target::Subject(s))
                | crate::ir::Action::Pursue { target: s, .. }
                | crate::ir::Action::Surround { target: s } => add(*s),
                _ => {}
            }
        }
    }
    out
}

/// Every fixed goal point of the scenario, in order of appearance, without repeats.
fn goal_points(program: &Program) -> Vec<Vec2> {
    let mut out: Vec<Vec2> = Vec::new();
    let mut add = |p: Vec2| {
        if !out.iter().any(|q| q.x.to_bits() == p.x.to_bits() && q.y.to_bits() == p.y.to_bits()) {
            out.push(p);
        }
    };
    for p in &program.populations {
        if let Some(crate::ir::Goal::Point(q)) = p.goal {
            add(q);
        }
    }
    for b in &program.behaviours {
        for a in b.body.actions() {
            if let crate::ir::Action::Seek { target: Target::Point(q), .. }
            | crate::ir::Action::PushGoal(Target::Point(q)) = a
            {
                add(*q);
            }
        }
    }
    out
}

/// Whether the cell of side `cell` centred at `c` lies in goal `goal`, whose
/// aim point is `point`: a region's cells are those whose centre is within
/// half a cell of it; any other goal's, the cell holding its point.
pub(crate) fn cell_in_goal(program: &Program, goal: Goal, point: Vec2, c: Vec2, cell: f64) -> bool {
    match goal {
        Goal::Region(r) => reached(&program.world.regions[r.index()].shape, c, cell / 2.0),
        _ => cell_holds(c, point, cell),
    }
}

/// Whether the cell of side `cell` centred at `c` holds `point`.
pub(crate) fn cell_holds(c: Vec2, point: Vec2, cell: f64) -> bool {
    (point - c).abs().max_element() <= cell / 2.0
}
