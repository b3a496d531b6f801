//! Semantic groups in the executor (Hocevar et al. 2012): A* paths over the
//! node grid laid on the markers, groups walking together in side-by-side,
//! V or river formation chosen each step from the free space ahead, and the
//! reserved core of each group space.
//!
//! Invariants:
//! - the node grid is built once per run; a path is planned when the goal it
//!   was planned for changes: a solo walker's in the parallel pass, into its
//!   own [`Route`]; a group's in the sequential pre-pass, into its team's;
//! - [`Simulation::update_units`] runs sequentially before the parallel pass,
//!   teams in order of their lowest live member id, members in id order; it
//!   is the only writer of the group tables, which the pass only reads;
//! - no randomness: formations, slots and detours are functions of the
//!   snapshot, ties broken by index.

use super::motion::Plan;
use super::paths::{Drive, Walk};
use super::{unit, Simulation};
use crate::behave::groups::{self as bg, Ahead, Disc, FreeSpace, GroupSpace, Layout};
use crate::ir::NONE;
use crate::ir::{Formation, FormationKind, Vec2};
use crate::plan::astar::{find_path, NodeGrid, Search};
use crate::steer::seek::goal_step;
use crate::world::grid::Grid;

/// How far ahead of the group centre its members aim, m: about one stride
/// and a half, so the centre keeps walking while the slots turn with the path.
const LEAD: f64 = 1.0;
/// A waypoint counts as passed within this distance, m.
const WAYPOINT_REACH: f64 = 0.4;
/// Turns tried, in order, when a step would enter another group's core:
/// (cos, sin) of −30°, −60°, −90°, +30°, +60°, +90°. Right first, so that two
/// groups meeting head on both keep to their right and pass.
const DETOURS: [(f64, f64); 6] = [
    (0.866_025_403_784_438_6, -0.5),
    (0.5, -0.866_025_403_784_438_6),
    (0.0, -1.0),
    (0.866_025_403_784_438_6, 0.5),
    (0.5, 0.866_025_403_784_438_6),
    (0.0, 1.0),
];

/// An A* path being walked.
#[derive(Clone, Debug, Default)]
pub(crate) struct Route {
    pub points: Vec<Vec2>,
    /// Index of the waypoint walked to.
    pub leg: usize,
    /// The goal point the path was planned for.
    pub goal: Option<Vec2>,
}

/// How a team keeps formation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Keep {
    /// Chosen each step by the regions of interest.
    Auto,
    Fixed(FormationKind),
}

impl Keep {
    /// The executor's reading of a declared formation (`None`: no formation,
    /// or a shape the executor does not model, refused in `models`).
    pub fn of(f: &Formation) -> Option<Keep> {
        match f {
            Formation::Auto => Some(Keep::Auto),
            Formation::SideBySide => Some(Keep::Fixed(FormationKind::SideBySide)),
            Formation::V => Some(Keep::Fixed(FormationKind::V)),
            Formation::River => Some(Keep::Fixed(FormationKind::River)),
            Formation::Points { .. } => None,
        }
    }
}

/// A group walking together this step.
#[derive(Clone, Debug)]
pub(crate) struct Unit {
    pub team: u32,
    /// Agent slots, in id order.
    pub members: Vec<u32>,
    pub aim: Vec2,
    pub space: GroupSpace,
}

/// The run's semantic-groups state.
pub(crate) struct Sg {
    /// Some behaviour seeks with A*: the rest of this state is in use.
    pub enabled: bool,
    pub grid: Option<NodeGrid>,
    pub layout: Layout,
    pub social: f64,
    pub core: f64,
    /// By team: the group's path.
    pub routes: Vec<Route>,
    pub units: Vec<Unit>,
    /// By agent slot, this step: its unit or `NONE`, its target and speed factor.
    pub unit_of: Vec<u32>,
    pub target: Vec<Vec2>,
    pub speed: Vec<f64>,
    /// By agent slot: it walks its own path (a river's front member).
    pub own_path: Vec<bool>,
    /// The units' centres, indexed for the core test.
    pub cores: Grid,
    pub max_core: f64,
}

impl Sg {
    /// `grid`: the A* node grid, when some behaviour seeks with A*.
    pub fn new(grid: Option<NodeGrid>, bounds: crate::ir::Rect, layout: Layout, social: f64, core: f64) -> Sg {
        Sg {
            enabled: grid.is_some(),
            grid,
            layout,
            social,
            core,
            routes: Vec::new(),
            units: Vec::new(),
            unit_of: Vec::new(),
            target: Vec::new(),
            speed: Vec::new(),
            own_path: Vec::new(),
            cores: Grid::new(bounds, 2.0, 4096),
            max_core: 0.0,
        }
    }
}

/// Walks `route` from `pos` towards `goal`, planning it first when it was
/// planned for another goal: the waypoint to walk to now and the path
/// distance left to the goal, m.
fn follow(grid: Option<&NodeGrid>, route: &mut Route, pos: Vec2, goal: Vec2, clearance: f64) -> (Vec2, f64) {
    let same = route.goal.is_some_and(|g| g.x.to_bits() == goal.x.to_bits() && g.y.to_bits() == goal.y.to_bits());
    if !same {
        let search = Search { smooth: true, clearance };
        let mut points = grid.and_then(|g| find_path(g, pos, goal, search)).map_or_else(Vec::new, |p| p.points);
        // A goal outside the usable nodes (an object against a wall) is still
        // walked to from the nearest node: the arrival rules stop the walker.
        if points.last() != Some(&goal) {
            points.push(goal);
        }
        *route = Route { points, leg: 0, goal: Some(goal) };
    }
    let last = route.points.len() - 1;
    while route.leg < last {
        let here = route.points[route.leg];
        let next = route.points[route.leg + 1];
        let passed = pos.distance(here) <= WAYPOINT_REACH;
        // Pushed past a corner: the next waypoint is already in sight.
        let seen = grid.is_some_and(|g| g.line_of_sight(pos, next, clearance));
        if passed || seen {
            route.leg += 1;
        } else {
            break;
        }
    }
    let wp = route.points[route.leg];
    let mut remaining = pos.distance(wp);
    for w in route.points[route.leg..].windows(2) {
        remaining += w[0].distance(w[1]);
    }
    (wp, remaining)
}

impl Simulation<'_> {
    /// The sequential pre-pass of each step: which teams walk together, their
    /// group spaces (Eqs 1–2), paths, formations and each member's target.
    pub(super) fn update_units(&mut self) {
        if !self.sg.enabled {
            return;
        }
        let n = self.agents.len();
        let mut sg = std::mem::take(&mut self.sg.units);
        sg.clear();
        self.sg.unit_of.clear();
        self.sg.unit_of.resize(n, NONE);
        self.sg.target.clear();
        self.sg.target.resize(n, Vec2::ZERO);
        self.sg.speed.clear();
        self.sg.speed.resize(n, 1.0);
        self.sg.own_path.clear();
        self.sg.own_path.resize(n, false);
        if self.sg.routes.len() < self.teams.len() {
            self.sg.routes.resize_with(self.teams.len(), Route::default);
        }
        let mut team_unit = vec![NONE; self.teams.len()];
        for i in 0..n {
            self.agents.formation[i] = NONE;
            let team = self.agents.mind[i].member.team as usize;
            if self.teams[team].keep.is_none() || self.teams[team].size < 2 {
                continue;
            }
            if self.agents.drive[i] != Drive::AStar || self.agents.arrived[i] {
                continue;
            }
            let Some(aim) = self.aim_point(i, self.agents.aim[i]) else { continue };
            match team_unit[team] {
                NONE => {
                    team_unit[team] = sg.len() as u32;
                    let space = GroupSpace { centre: Vec2::ZERO, radius: 0.0, farthest: 0 };
                    sg.push(Unit { team: team as u32, members: vec![i as u32], aim, space });
                }
                u => {
                    let unit = &mut sg[u as usize];
                    if unit.aim == aim {
                        unit.members.push(i as u32);
                    }
                }
            }
        }
        // Hocevar et al., section 3.2: members form a group while within Hall's social distance.
        sg.retain_mut(|u| {
            let pos: Vec<Vec2> = u.members.iter().map(|&i| self.agents.pos[i as usize]).collect();
            let radii: Vec<f64> = u.members.iter().map(|&i| self.agents.radius[i as usize]).collect();
            match bg::group_space(&pos, &radii) {
                Some(space) if u.members.len() >= 2 && bg::forms_group(&pos, self.sg.social) => {
                    u.space = space;
                    true
                }
                _ => false,
            }
        });
        let centres: Vec<Vec2> = sg.iter().map(|u| u.space.centre).collect();
        self.sg.cores.rebuild(&centres);
        self.sg.max_core = sg.iter().map(|u| u.space.core_radius(self.sg.core)).fold(0.0, f64::max);
        for (k, u) in sg.iter().enumerate() {
            for &i in &u.members {
                self.sg.unit_of[i as usize] = k as u32;
            }
        }
        for k in 0..sg.len() {
            self.walk_unit(&sg, k);
        }
        self.sg.units = sg;
    }

    /// One group's path, formation and member targets.
    fn walk_unit(&mut self, units: &[Unit], k: usize) {
        let u = &units[k];
        let c = u.space.centre;
        let members = &u.members;
        let nm = members.len();
        let radius = members.iter().map(|&i| self.agents.radius[i as usize]).fold(0.0, f64::max);
        let team = u.team as usize;
        let mut route = std::mem::take(&mut self.sg.routes[team]);
        let (wp, remaining) = follow(self.sg.grid.as_ref(), &mut route, c, u.aim, radius);
        self.sg.routes[team] = route;
        let first = members[0] as usize;
        let heading = unit(wp - c).or_else(|| unit(u.aim - c)).unwrap_or(self.agents.ori[first]);
        let speed = self.agents.speed[first];
        let layout = self.sg.layout;
        let kind = match self.teams[team].keep {
            Some(Keep::Fixed(kind)) => kind,
            _ => {
                let depth = bg::roi_depth(u.space.radius, speed, remaining);
                let ahead = Ahead { centre: c, heading, depth };
                let reach = depth + u.space.radius + 2.0 * self.max_radius + layout.spacing() * nm as f64;
                let mut others = Vec::new();
                self.grid.for_each_candidate(c, reach, |j| {
                    if self.sg.unit_of[j as usize] != k as u32 {
                        others
                            .push(Disc { centre: self.agents.pos[j as usize], radius: self.agents.radius[j as usize] });
                    }
                });
                for (o, v) in units.iter().enumerate() {
                    if o != k && v.space.centre.distance(c) <= reach + v.space.radius {
                        others.push(Disc { centre: v.space.centre, radius: v.space.core_radius(self.sg.core) });
                    }
                }
                let free = FreeSpace { walk: Some(&self.space), others: &others };
                bg::choose_formation(nm, &layout, radius, &ahead, &free)
            }
        };
        let pos: Vec<Vec2> = members.iter().map(|&i| self.agents.pos[i as usize]).collect();
        // The point the slots are laid around: a stride ahead, or the goal itself on the last stretch.
        let lead = if remaining <= LEAD { u.aim } else { c + heading * LEAD };
        match kind {
            FormationKind::SideBySide | FormationKind::V => {
                let local = bg::slots(kind, nm, &layout);
                let world: Vec<Vec2> = local.iter().map(|s| bg::to_world(lead, heading, *s)).collect();
                let assign = bg::assign_slots(&pos, &world);
                for (m, &i) in members.iter().enumerate() {
                    let Some(&s) = assign.get(m).filter(|&&s| s < world.len()) else { continue };
                    self.sg.target[i as usize] = world[s];
                    self.sg.speed[i as usize] = match kind {
                        // Hocevar et al., section 3.3: faster above 90° between C→agent and C→goal, slower below.
                        FormationKind::SideBySide => bg::side_by_side_speed_factor(c, pos[m], wp, layout.spacing()),
                        _ => bg::slot_speed_factor(c, heading, pos[m], local[s], layout.spacing()),
                    };
                }
            }
            FormationKind::River => {
                // Emergent single file: the front member walks the path, each
                // other member follows the one ahead of it at one spacing.
                let order = bg::river_order(&pos, heading);
                for (rank, &m) in order.iter().enumerate() {
                    let i = members[m] as usize;
                    self.sg.own_path[i] = rank == 0;
                    self.sg.target[i] = if rank == 0 {
                        u.aim
                    } else {
                        let ahead = pos[order[rank - 1]];
                        match unit(ahead - pos[m]) {
                            Some(d) => ahead - d * layout.spacing(),
                            None => pos[m],
                        }
                    };
                }
            }
        }
        for &i in members {
            self.agents.formation[i as usize] = kind.index();
        }
    }

    /// Phase 4 for an agent seeking with A*: its slot when its group walks
    /// together, else its own path; either way detoured around other groups' cores.
    pub(super) fn astar_plan(&self, i: usize, walk: &mut Walk) -> Plan {
        let pos = self.agents.pos[i];
        let idle = Plan { target: pos, active: false, direct: None, enforce: true };
        if self.agents.arrived[i] && !self.agents.leaving[i] {
            return idle;
        }
        let Some(goal) = self.aim_point(i, self.agents.aim[i]) else { return idle };
        let own = self.sg.unit_of.get(i).copied().unwrap_or(NONE);
        let grouped = own != NONE && self.sg.units.get(own as usize).is_some_and(|u| u.aim == goal);
        let radius = self.agents.radius[i];
        let slot = self.sg.target.get(i).copied().unwrap_or(pos);
        // A slot behind a corner is walked to along the member's own path.
        let in_sight = |q: Vec2| self.sg.grid.as_ref().map_or(true, |g| g.line_of_sight(pos, q, radius));
        let target = if grouped && !self.sg.own_path[i] && in_sight(slot) {
            slot
        } else {
            follow(self.sg.grid.as_ref(), &mut walk.route, pos, goal, radius).0
        };
        let step = self.step_length(self.agents.speed[i] * self.speed_factor(i));
        let target = self.detour(i, pos, target, step, if grouped { own } else { NONE });
        Plan { target, active: true, direct: None, enforce: true }
    }

    /// Agent `i`'s formation-keeping speed multiplier this step.
    #[inline]
    pub(super) fn speed_factor(&self, i: usize) -> f64 {
        self.sg.speed.get(i).copied().unwrap_or(1.0)
    }

    /// Hocevar et al., section 3.3: "we keep a small region inside group
    /// space where the markers cannot be used for agents from a different
    /// group". A step that would end deeper inside another group's core turns
    /// (right first) until it does not; with no such turn the agent waits.
    fn detour(&self, i: usize, pos: Vec2, target: Vec2, step: f64, own: u32) -> Vec2 {
        if self.sg.units.is_empty() {
            return target;
        }
        let team = self.agents.mind[i].member.team;
        let blocked = |q: Vec2| {
            let mut hit = false;
            self.sg.cores.for_each_candidate(q, self.sg.max_core, |u| {
                let unit = &self.sg.units[u as usize];
                if hit || u == own || unit.team == team {
                    return;
                }
                let c = unit.space.centre;
                // Walking out of a core is always allowed.
                hit = unit.space.in_core(q, self.sg.core) && q.distance_squared(c) < pos.distance_squared(c);
            });
            hit
        };
        let d = goal_step(pos, target, step);
        if d == Vec2::ZERO || !blocked(pos + d) {
            return target;
        }
        for (c, s) in DETOURS {
            let r = Vec2::new(d.x * c - d.y * s, d.x * s + d.y * c);
            if !blocked(pos + r) {
                return pos + r;
            }
        }
        pos
    }
}
