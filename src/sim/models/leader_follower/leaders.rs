//! The leaders' plans (Li et al. §3 and §5): the world as a C-space bitmap,
//! an NF1 potential per goal, and one timed path per leader in CT-space,
//! planned one leader at a time in the order their goals arrive, against
//! the timed paths of the others (and, crowd-aware, their crowds' depths).

use crate::ir::{Action, PlannerKind, Program, Vec2};
use crate::plan::ct_space::{self, Bitmap, Check, Mover, Request, TimedPath, UNREACHABLE};
use crate::sim::agents::Goal;
use crate::sim::scene::Scene;

/// The paper's bitmap: 128 x 128 cells (§6).
pub(super) const PAPER_GRID: (u32, u32) = (128, 128);
/// The most (cell, tick) states one search may visit: its visited bits and
/// occupancy layers then take at most 64 MB.
const MAX_STATES: u64 = 1 << 28;

/// A leader's plan: where it goes and its timed path there.
#[derive(Clone, Debug)]
pub(super) struct Course {
    /// The leader's agent id.
    pub id: u32,
    pub goal: Goal,
    pub point: Vec2,
    pub path: TimedPath,
    /// Its crowd's longitudinal depth at each tick of the path (§5.2).
    pub depths: Vec<u32>,
}

/// One leader as the planner sees it this step.
#[derive(Clone, Copy, Debug)]
pub(super) struct Leader {
    pub slot: usize,
    pub crowd_aware: bool,
    pub pairwise: bool,
    /// Its followers alive now.
    pub followers: u32,
}

/// The CT-space of a run.
pub(super) struct Planner {
    pub map: Bitmap,
    /// The L1 distance map `DM` (Fig 3b).
    dm: Vec<u32>,
    /// NF1 potentials, by goal cell, made when a leader first heads there.
    potentials: Vec<(u32, Vec<u32>)>,
    /// Seconds per tick: the time to cross a cell at `max_speed` (the slope bound).
    pub tick: f64,
    /// The leaders' plans, by agent id.
    pub courses: Vec<Course>,
}

impl Planner {
    /// The bitmap the scenario's CT-space planners ask for: obstacles grown
    /// by the widest body (§3.1).
    pub fn new(scene: &Scene) -> Planner {
        let (nx, ny) = grid(scene.program).unwrap_or(PAPER_GRID);
        let map = Bitmap::new(&scene.space, nx, ny, scene.max_radius);
        let dm = ct_space::distance_map(&map);
        let tick = map.cell / scene.program.params.ct_space.max_speed;
        Planner { map, dm, potentials: Vec::new(), tick, courses: Vec::new() }
    }

    /// The plan of the leader with agent id `id`.
    pub fn course(&self, id: u32) -> Option<&Course> {
        self.courses.binary_search_by_key(&id, |c| c.id).ok().map(|k| &self.courses[k])
    }

    /// Forgets the plans of leaders no longer alive or no longer leading.
    pub fn keep(&mut self, alive: impl Fn(u32) -> bool) {
        self.courses.retain(|c| alive(c.id));
    }

    /// The index of the NF1 potential of `goal` in `potentials`, made if new.
    fn potential(&mut self, goal: u32) -> usize {
        match self.potentials.iter().position(|(g, _)| *g == goal) {
            Some(k) => k,
            None => {
                self.potentials.push((goal, ct_space::nf1(&self.map, goal)));
                self.potentials.len() - 1
            }
        }
    }

    /// Plans `me` to `goal` at `point`, against the other `leaders` (§3.2;
    /// crowd-aware, the extended CT-space of §5.4).
    pub fn plan(
        &mut self,
        scene: &Scene,
        me: Leader,
        leaders: &[Leader],
        goal: Goal,
        point: Vec2,
    ) -> Result<(), String> {
        let params = &scene.program.params.ct_space;
        let agents = &scene.agents;
        let i = me.slot;
        let name = &scene.program.populations[agents.mind[i].member.population.index()].name;
        let fail = |why: String| {
            format!("no path for leader {name} (agent {}) planned at step {}: {why}", agents.id[i], scene.step)
        };
        let t0 = (scene.clock.time(scene.step) / self.tick).ceil() as u32;
        let start = self.map.nearest_free(agents.pos[i]).ok_or_else(|| fail("the bitmap has no free cell".into()))?;
        let end = self.map.nearest_free(point).ok_or_else(|| fail("the bitmap has no free cell".into()))?;
        let movers: Vec<Mover> = if scene.program.switches.leaders_in_ct_space {
            leaders.iter().filter(|l| l.slot != i).map(|l| self.mover(scene, *l, t0, me.crowd_aware)).collect()
        } else {
            Vec::new()
        };
        let request = Request {
            start,
            goal: end,
            t0,
            depth: if me.crowd_aware { ct_space::open_depth(me.followers, params.spacing, self.map.cell) } else { 0 },
            // Crowd-aware, the own crowd's region must not meet theirs either.
            clearance: clearance(scene.max_radius, self.map.cell)
                + if me.crowd_aware { ct_space::half_disc_radius(me.followers, params.spacing) } else { 0.0 },
        };
        let states = ct_space::states(&self.map, &movers, &request);
        if states > MAX_STATES {
            return Err(fail(format!(
                "the search could visit {states} (cell, tick) states, more than {MAX_STATES}: give the planner a coarser grid"
            )));
        }
        let check = if me.pairwise { Check::Pairwise } else { Check::Extended };
        let k = self.potential(end);
        let potential = &self.potentials[k].1;
        if potential[start as usize] == UNREACHABLE {
            return Err(fail("its goal cannot be reached from where it stands, even with nobody else about".into()));
        }
        let found = ct_space::plan(&self.map, potential, &movers, &request, check).map_err(|no| {
            fail(format!(
                "the search gave up after {} expansions, every configuration up to tick {} visited \
                 (the other leaders block every way; plan them in another order, or widen the passage)",
                no.expansions, no.horizon
            ))
        })?;
        debug_assert_eq!(ct_space::legal(&self.map, &movers, &request, &found.path), Ok(()), "leader {name}");
        let depths = ct_space::depths(&self.map, &self.dm, &found.path, me.followers, params.spacing);
        let course = Course { id: agents.id[i], goal, point, path: found.path, depths };
        match self.courses.binary_search_by_key(&course.id, |c| c.id) {
            Ok(k) => self.courses[k] = course,
            Err(k) => self.courses.insert(k, course),
        }
        Ok(())
    }

    /// Another leader as a dynamic obstacle: its plan, or where it stands
    /// ("known as a function of time, including when it is static").
    /// Crowd-aware, its crowd: trailing it by its depth, as wide as its
    /// crowd region's half disc.
    fn mover(&self, scene: &Scene, l: Leader, t0: u32, crowd_aware: bool) -> Mover {
        let spacing = scene.program.params.ct_space.spacing;
        let width = if crowd_aware { ct_space::half_disc_radius(l.followers, spacing) } else { 0.0 };
        match self.course(scene.agents.id[l.slot]) {
            Some(c) => {
                Mover { path: c.path.clone(), depth: if crowd_aware { c.depths.clone() } else { Vec::new() }, width }
            }
            None => {
                let cell = self.map.nearest_free(scene.agents.pos[l.slot]).unwrap_or(0);
                Mover { path: TimedPath::stationary(cell, t0), depth: Vec::new(), width }
            }
        }
    }

    /// Where a leader walking `course` should be at time `t`: along its
    /// timed path between cell centres, then at its goal point.
    pub fn place(&self, course: &Course, t: f64) -> Vec2 {
        let u = t / self.tick;
        if u >= f64::from(course.path.finish()) {
            return course.point;
        }
        let k = u.floor().max(0.0) as u32;
        let a = self.map.centre(course.path.at(k));
        let b = self.map.centre(course.path.at(k + 1));
        a + (b - a) * (u - f64::from(k)).clamp(0.0, 1.0)
    }
}

/// The grid the scenario's CT-space planners share (the first one given).
pub(super) fn grid(program: &Program) -> Option<(u32, u32)> {
    grids(program).find_map(|grid| grid)
}

/// Every `seek ... using ct_space`'s grid (`None`: the paper's).
pub(super) fn grids(program: &Program) -> impl Iterator<Item = Option<(u32, u32)>> + '_ {
    program.behaviours.iter().flat_map(|b| b.body.actions()).filter_map(|a| match a {
        Action::Seek { planner, .. } if planner.kind == PlannerKind::CtSpace => Some(planner.grid),
        _ => None,
    })
}

/// The distance kept between two leaders' cells at every tick: two body
/// radii, widened so that walking between cell centres (one cell per tick
/// each, never swapping) they stay two radii apart between ticks too.
fn clearance(radius: f64, cell: f64) -> f64 {
    let d = 2.0 * radius;
    (d * d + cell * cell).sqrt()
}
