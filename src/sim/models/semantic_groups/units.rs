//! Groups walking together this step (Hocevar et al. 2012, Sec 3.2–3.3):
//! which members form a group, its group space (Eqs 1–2), its path, the
//! formation the free space ahead allows, and each member's slot.
//!
//! Invariants: units are gathered in order of their lowest member slot; each
//! unit is then planned on its own from the snapshot (in parallel) and the
//! plans are applied in unit order, so no unit sees another's plan of the
//! same step.

use super::route::{Route, Side};
use crate::behave::groups::{self as bg, Ahead, Disc, Floor, FreeSpace, GroupSpace, Layout};
use crate::ir::{Formation, FormationKind, Vec2, NONE};
use crate::math::unit;
use crate::plan::astar::NodeGrid;
use crate::sim::scene::Scene;
use crate::sim::workers::Workers;
use crate::steer::seek::goal_step;
use crate::world::grid::Grid;

/// How far ahead of the group centre its members aim, m: about one stride
/// and a half, so the centre keeps walking while the slots turn with the path.
const LEAD: f64 = 1.0;
/// Units planned per chunk of the parallel map: A* searches make some units
/// far dearer than others, so chunks stay small.
const UNITS_PER_CHUNK: usize = 4;
/// The least speed, as a share of their own, of someone a group stands for.
const PASSING: f64 = 0.25;
/// How long a group stands to let one person by before it walks on, s: a
/// walker crosses a group's front in about a second; someone the group's
/// own bodies hold in place would never go.
const LET_BY_PATIENCE: f64 = 2.0;
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

/// How a team keeps formation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Keep {
    /// Chosen each step by the regions of interest.
    Auto,
    Fixed(FormationKind),
}

impl Keep {
    /// The model's reading of a declared formation (`None`: a shape, which
    /// it does not model and the registry refuses).
    pub fn of(f: &Formation) -> Option<Keep> {
        match f {
            Formation::Auto => Some(Keep::Auto),
            Formation::SideBySide => Some(Keep::Fixed(FormationKind::SideBySide)),
            Formation::V => Some(Keep::Fixed(FormationKind::V)),
            Formation::River => Some(Keep::Fixed(FormationKind::River)),
            Formation::Square | Formation::Diamond | Formation::Sketch(_) => None,
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

/// The groups walking together this step, and how groups form.
pub(crate) struct Units {
    layout: Layout,
    /// Hall's social distance: members closer than this walk together, m.
    social: f64,
    /// The reserved core of a group space, as a fraction of its radius.
    core: f64,
    /// By population: how its teams keep formation, if they do.
    keep: Vec<Option<Keep>>,
    /// By team: the group's path.
    routes: Vec<Route>,
    /// By team: whom the group last stood for (an agent slot), and for how long, s.
    let_by: Vec<(u32, f64)>,
    units: Vec<Unit>,
    /// By agent slot, this step: its unit or `NONE`, its target and speed factor.
    unit_of: Vec<u32>,
    target: Vec<Vec2>,
    speed: Vec<f64>,
    /// By agent slot: it walks its own path (a river's front member).
    own_path: Vec<bool>,
    /// The units' centres, indexed for the core test.
    cores: Grid,
    max_core: f64,
    /// The largest group space this step, m.
    max_space: f64,
}

/// What the agents' pass reads of its group for one member.
pub(crate) struct Slot {
    /// The member's unit walks to the goal the member seeks: its slot leads.
    pub grouped: bool,
    /// Its unit, or `NONE`.
    pub unit: u32,
    pub target: Vec2,
    /// Its formation-keeping speed factor (1 for everyone else).
    pub pace: f64,
    /// It walks its own path (a river's front member).
    pub own_path: bool,
}

/// One unit's plan for the step, made from the snapshot.
struct UnitPlan {
    /// The team's path, walked on by the unit's centre.
    route: Route,
    kind: FormationKind,
    /// Whom the group's next step would walk its core onto (an agent slot), or `NONE`.
    onto: u32,
    /// `(member slot, target, speed factor, walks its own path)`.
    members: Vec<(u32, Vec2, f64, bool)>,
}

impl Units {
    /// Every group plans its path afresh (the node grid changed).
    pub fn forget_routes(&mut self) {
        self.routes.iter_mut().for_each(|r| *r = Route::default());
    }

    /// `keep`: by population, how its teams keep formation.
    pub fn new(scene: &Scene, layout: Layout, social: f64, core: f64, keep: Vec<Option<Keep>>) -> Units {
        Units {
            layout,
            social,
            core,
            keep,
            routes: Vec::new(),
            let_by: Vec::new(),
            units: Vec::new(),
            unit_of: Vec::new(),
            target: Vec::new(),
            speed: Vec::new(),
            own_path: Vec::new(),
            cores: Grid::new(scene.program.world.bounds, 2.0, 4096),
            max_core: 0.0,
            max_space: 0.0,
        }
    }

    /// The sequential stage before the agents' pass: which teams walk
    /// together, their group spaces, paths, formations and each member's
    /// target, planned unit by unit in parallel and applied in unit order.
    /// `walks(i)`: agent `i` walks by A*.
    pub fn organise(
        &mut self,
        scene: &Scene,
        grid: Option<&NodeGrid>,
        walks: impl Fn(usize) -> bool,
        workers: &Workers,
        formation: &mut [u32],
    ) {
        let agents = &scene.agents;
        let n = agents.len();
        let mut units = std::mem::take(&mut self.units);
        units.clear();
        self.unit_of.clear();
        self.unit_of.resize(n, NONE);
        self.target.clear();
        self.target.resize(n, Vec2::ZERO);
        self.speed.clear();
        self.speed.resize(n, 1.0);
        self.own_path.clear();
        self.own_path.resize(n, false);
        if self.routes.len() < scene.teams.len() {
            self.routes.resize_with(scene.teams.len(), Route::default);
            self.let_by.resize(scene.teams.len(), (NONE, 0.0));
        }
        let mut team_unit = vec![NONE; scene.teams.len()];
        for i in 0..n {
            if !walks(i) || agents.arrived[i] {
                continue;
            }
            let team = agents.mind[i].member.team as usize;
            let t = &scene.teams[team];
            if self.keep[t.population as usize].is_none() || t.size < 2 {
                continue;
            }
            let Some(aim) = scene.aim_point(i, agents.aim[i]) else { continue };
            match team_unit[team] {
                NONE => {
                    team_unit[team] = units.len() as u32;
                    let space = GroupSpace { centre: Vec2::ZERO, radius: 0.0, farthest: 0 };
                    units.push(Unit { team: team as u32, members: vec![i as u32], aim, space });
                }
                u => {
                    let unit = &mut units[u as usize];
                    if unit.aim == aim {
                        unit.members.push(i as u32);
                    }
                }
            }
        }
        // Hocevar et al., section 3.2: members form a group while within Hall's social distance.
        let (mut pos, mut radii) = (Vec::new(), Vec::new());
        units.retain_mut(|u| {
            pos.clear();
            pos.extend(u.members.iter().map(|&i| agents.pos[i as usize]));
            radii.clear();
            radii.extend(u.members.iter().map(|&i| agents.radius[i as usize]));
            match bg::group_space(&pos, &radii) {
                Some(space) if u.members.len() >= 2 && bg::forms_group(&pos, self.social) => {
                    u.space = space;
                    true
                }
                _ => false,
            }
        });
        let centres: Vec<Vec2> = units.iter().map(|u| u.space.centre).collect();
        self.cores.rebuild(&centres);
        self.max_core = units.iter().map(|u| u.space.core_radius(self.core)).fold(0.0, f64::max);
        self.max_space = units.iter().map(|u| u.space.radius).fold(0.0, f64::max);
        for (k, u) in units.iter().enumerate() {
            for &i in &u.members {
                self.unit_of[i as usize] = k as u32;
            }
        }
        // Each unit's plan takes its team's route along and brings it back.
        let mut work: Vec<(usize, Route, Option<UnitPlan>)> = units
            .iter()
            .enumerate()
            .map(|(k, u)| (k, std::mem::take(&mut self.routes[u.team as usize]), None))
            .collect();
        {
            let this = &*self;
            let units = &units;
            workers.for_each(work.chunks_mut(UNITS_PER_CHUNK).collect(), |_, chunk| {
                for (k, route, plan) in chunk.iter_mut() {
                    *plan = Some(this.plan_unit(scene, grid, units, *k, std::mem::take(route)));
                }
            });
        }
        for (k, _, plan) in work {
            let Some(plan) = plan else { continue };
            let team = units[k].team as usize;
            self.routes[team] = plan.route;
            self.let_by[team] = match (plan.onto, self.let_by[team]) {
                (NONE, _) => (NONE, 0.0),
                (who, (before, waited)) if who == before => (who, waited + scene.clock.dt),
                (who, _) => (who, scene.clock.dt),
            };
            for (i, target, speed, own) in plan.members {
                self.target[i as usize] = target;
                self.speed[i as usize] = speed;
                self.own_path[i as usize] = own;
            }
            for &i in &units[k].members {
                formation[i as usize] = plan.kind.index();
            }
        }
        self.units = units;
    }

    /// One group's path, formation and member targets, from the snapshot.
    fn plan_unit(
        &self,
        scene: &Scene,
        grid: Option<&NodeGrid>,
        units: &[Unit],
        k: usize,
        mut route: Route,
    ) -> UnitPlan {
        let agents = &scene.agents;
        let u = &units[k];
        let c = u.space.centre;
        let members = &u.members;
        let nm = members.len();
        let radius = members.iter().map(|&i| agents.radius[i as usize]).fold(0.0, f64::max);
        let (wp, remaining) = route.follow(grid, c, u.aim, radius);
        let first = members[0] as usize;
        let heading = unit(wp - c).or_else(|| unit(u.aim - c)).unwrap_or(agents.ori[first]);
        let speed = agents.speed[first];
        let layout = self.layout;
        let population = scene.teams[u.team as usize].population as usize;
        let (kind, shift) = match self.keep[population] {
            Some(Keep::Fixed(kind)) => (kind, 0.0),
            _ => {
                let depth = bg::roi_depth(u.space.radius, speed, remaining);
                let ahead = Ahead { centre: c, heading, depth };
                let reach = depth + u.space.radius + 2.0 * scene.max_radius + layout.spacing() * nm as f64;
                // How far someone walking at `vel` goes on along the heading
                // while the group walks the ROI (at its last step's velocity).
                let walk_time = if speed > 0.0 { depth / speed } else { 0.0 };
                let away = |vel: Vec2| (vel.dot(heading) * walk_time).max(0.0);
                let mut others = Vec::new();
                scene.grid.for_each_candidate(c, reach, |j| {
                    let j = j as usize;
                    if self.unit_of[j] != k as u32 {
                        let (centre, radius) = (agents.pos[j], agents.radius[j]);
                        others.push(Disc { centre, radius, away: away(agents.vel[j]) });
                    }
                });
                // Other groups' cores; whether the ROI is free does not depend on their order.
                self.cores.for_each_candidate(c, reach + self.max_space, |o| {
                    let v = &units[o as usize];
                    if o as usize != k && v.space.centre.distance(c) <= reach + v.space.radius {
                        let vel = v.members.iter().fold(Vec2::ZERO, |s, &i| s + agents.vel[i as usize])
                            * (1.0 / v.members.len() as f64);
                        let radius = v.space.core_radius(self.core);
                        others.push(Disc { centre: v.space.centre, radius, away: away(vel) });
                    }
                });
                let floor = grid.map(|g| g as &dyn Floor);
                let free = FreeSpace { walk: Some(&scene.space), others: &others, floor };
                bg::choose_placed(nm, &layout, radius, &ahead, &free)
            }
        };
        let pos: Vec<Vec2> = members.iter().map(|&i| agents.pos[i as usize]).collect();
        // The point the slots are laid around: a stride ahead, or the goal itself on the last stretch.
        // Shifted to where the formation's ROI found room beside the centre line.
        let lead = if remaining <= LEAD { u.aim } else { c + heading * LEAD + heading.perp() * shift };
        let mut out = Vec::with_capacity(nm);
        match kind {
            FormationKind::SideBySide | FormationKind::V => {
                let local = bg::slots(kind, nm, &layout);
                let world: Vec<Vec2> = local.iter().map(|s| bg::to_world(lead, heading, *s)).collect();
                let assign = bg::assign_slots(&pos, &world);
                for (m, &i) in members.iter().enumerate() {
                    let Some(&s) = assign.get(m).filter(|&&s| s < world.len()) else { continue };
                    let speed = match kind {
                        // Hocevar et al., section 3.3: faster above 90° between C→agent and C→goal, slower below.
                        FormationKind::SideBySide => bg::side_by_side_speed_factor(c, pos[m], wp, layout.spacing()),
                        _ => bg::slot_speed_factor(c, heading, pos[m], local[s], layout.spacing()),
                    };
                    out.push((i, world[s], speed, false));
                }
            }
            FormationKind::River => {
                // Emergent single file: the front member walks the path, each
                // other member follows the one ahead of it at one spacing.
                let order = bg::river_order(&pos, heading);
                for (rank, &m) in order.iter().enumerate() {
                    let target = if rank == 0 {
                        u.aim
                    } else {
                        let ahead = pos[order[rank - 1]];
                        match unit(ahead - pos[m]) {
                            Some(d) => ahead - d * layout.spacing(),
                            None => pos[m],
                        }
                    };
                    out.push((members[m], target, 1.0, rank == 0));
                }
            }
        }
        // Hocevar et al. keep other groups' agents out of the core; a group
        // that walks onto someone would put them in it. It stands to let them
        // by, for a while: someone its own bodies hold in place never goes.
        let onto = if scene.program.switches.groups_let_by { self.walks_onto(scene, u, heading, speed) } else { NONE };
        let (before, waited) = self.let_by[u.team as usize];
        if onto != NONE && (onto != before || waited < LET_BY_PATIENCE) {
            for (_, _, pace, _) in &mut out {
                *pace = 0.0;
            }
        }
        UnitPlan { route, kind, onto, members: out }
    }

    /// Whom group `u`'s next step would bring its reserved core over: of
    /// those of another team who walk past alone, are not inside it yet and
    /// whose body the next core would overlap, the nearest to it (ties: the
    /// lower slot); `NONE` if nobody. Outsiders may not step into a core
    /// either ([`Units::detour`]). Someone standing (at an object, waiting)
    /// is not waited for.
    fn walks_onto(&self, scene: &Scene, u: &Unit, heading: Vec2, speed: f64) -> u32 {
        let agents = &scene.agents;
        let core = u.space.core_radius(self.core);
        if core <= 0.0 {
            return NONE;
        }
        let (now, next) = (u.space.centre, u.space.centre + heading * scene.clock.step_length(speed));
        let mut onto = (NONE, f64::INFINITY);
        scene.grid.for_each_candidate(next, core + scene.max_radius, |j| {
            let (i, p) = (j as usize, agents.pos[j as usize]);
            // Passing means walking: not standing in a line, nor pressed still.
            let passing = agents.active[i] && agents.vel[i].length() >= PASSING * agents.speed[i];
            // The group's own members, and groups meeting groups (they pass
            // by their own cores' detours), are not waited for.
            if agents.mind[i].member.team == u.team || !passing || self.unit_of[i] != NONE {
                return;
            }
            let (reach, to_next, to_now) = (core + agents.radius[i], p.distance_squared(next), p.distance_squared(now));
            if to_next < reach * reach && to_next < to_now && to_now >= core * core && (to_next, j) < (onto.1, onto.0) {
                onto = (j, to_next);
            }
        });
        onto.0
    }

    /// What the agents' pass reads of agent `i`'s group, when it seeks `goal`.
    pub fn slot(&self, i: usize, pos: Vec2, goal: Vec2) -> Slot {
        let unit = self.unit_of.get(i).copied().unwrap_or(NONE);
        Slot {
            grouped: unit != NONE && self.units.get(unit as usize).is_some_and(|u| u.aim == goal),
            unit,
            target: self.target.get(i).copied().unwrap_or(pos),
            pace: self.speed.get(i).copied().unwrap_or(1.0),
            own_path: self.own_path.get(i).copied().unwrap_or(false),
        }
    }

    /// Hocevar et al., section 3.3: "we keep a small region inside group
    /// space where the markers cannot be used for agents from a different
    /// group". A step that would end deeper inside another group's core turns
    /// (right first) until it does not; with no such turn the agent waits.
    /// `team`: the agent's team; `own`: its unit, or `NONE`.
    pub fn detour(&self, team: u32, pos: Vec2, target: Vec2, step: f64, own: u32) -> Vec2 {
        if self.units.is_empty() {
            return target;
        }
        detoured(pos, target, step, Side::Right, |q| self.deeper_in_core(team, own, pos, q)).map_or(pos, |(q, _)| q)
    }

    /// Whether a step from `pos` to `q` ends deeper inside the core of a
    /// group other than `own` and of another team than `team`.
    fn deeper_in_core(&self, team: u32, own: u32, pos: Vec2, q: Vec2) -> bool {
        let mut hit = false;
        self.cores.for_each_candidate(q, self.max_core, |u| {
            let unit = &self.units[u as usize];
            if hit || u == own || unit.team == team {
                return;
            }
            let c = unit.space.centre;
            // Walking out of a core is always allowed.
            hit = unit.space.in_core(q, self.core) && q.distance_squared(c) < pos.distance_squared(c);
        });
        hit
    }

    /// A step that would walk into another agent's body turns (right first,
    /// as [`Units::detour`]) until it does not: two walkers meeting head on
    /// at a corner both keep to their right and pass, where distance
    /// enforcement alone would hold them pressed together for ever. With no
    /// such turn the step is kept, and enforcement settles it. A turn that
    /// walks no deeper into a core ([`Units::detour`]) is taken first.
    ///
    /// `side`: the side the walker last turned to, tried first while its
    /// way stays blocked. A walker trying its right first at every step may
    /// turn left, then right, then left round the same bodies, swinging from
    /// one side of them to the other without passing.
    pub fn sidestep(&self, scene: &Scene, i: usize, target: Vec2, step: f64, own: u32, side: &mut Side) -> Vec2 {
        let agents = &scene.agents;
        let (pos, team) = (agents.pos[i], agents.mind[i].member.team);
        let reach = agents.radius[i] + scene.max_radius;
        let straight = pos + goal_step(pos, target, step);
        let stalled = agents.stalled[i];
        let bodies = scene.program.switches.turn_round_bodies;
        let blocked = |q: Vec2| {
            let mut hit = false;
            let in_the_way = |j: u32| {
                let j = j as usize;
                // Someone standing (at an object, or waiting for one) makes
                // way for a walker that got no nearer to its object for a
                // while: enforcement pushes both, and the walker gets through.
                if hit || j == i || agents.mind[j].member.team == team || (stalled && !agents.active[j]) {
                    return;
                }
                let p = agents.pos[j];
                let touch = agents.radius[i] + agents.radius[j];
                // Walking away from a body it touches is always allowed.
                hit = q.distance_squared(p) < touch * touch && q.distance_squared(p) < pos.distance_squared(p);
            };
            // Switched off (the model-break test), only walls turn a step.
            if bodies {
                scene.grid.for_each_candidate(q, reach + step, in_the_way);
            }
            // A turn into a wall or an obstacle is no way round either: the
            // walker would stand pressed against it, as would the one it met.
            hit || (q != straight && !scene.space.is_clear(q, agents.radius[i]))
        };
        // A turn that keeps out of cores first; for a group's member, else
        // any: two groups meeting head on would stand pressed together.
        let outside = |q: Vec2| blocked(q) || (q != straight && self.deeper_in_core(team, own, pos, q));
        let turned = match detoured(pos, target, step, *side, outside) {
            None if own != NONE => detoured(pos, target, step, *side, blocked),
            turned => turned,
        };
        let Some((q, next)) = turned else { return target };
        if scene.program.switches.keep_turn_side {
            *side = next;
        }
        q
    }
}

/// Where a step of `step` from `pos` towards `target` may go, and the side
/// to try first at the next blocked step: the target when the straight step
/// is not `blocked` (then the right), else the first of the [`DETOURS`]
/// turns of the step that is not, those of side `first` first (then that
/// turn's side); `None` when every turn is.
fn detoured(pos: Vec2, target: Vec2, step: f64, first: Side, blocked: impl Fn(Vec2) -> bool) -> Option<(Vec2, Side)> {
    let d = goal_step(pos, target, step);
    if d == Vec2::ZERO || !blocked(pos + d) {
        return Some((target, Side::Right));
    }
    let (right, left) = DETOURS.split_at(3);
    let order = match first {
        Side::Right => [(right, Side::Right), (left, Side::Left)],
        Side::Left => [(left, Side::Left), (right, Side::Right)],
    };
    order
        .into_iter()
        .flat_map(|(turns, side)| {
            turns.iter().map(move |&(c, s)| (pos + Vec2::new(d.x * c - d.y * s, d.x * s + d.y * c), side))
        })
        .find(|&(q, _)| !blocked(q))
}
