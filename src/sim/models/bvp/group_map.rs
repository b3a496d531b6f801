//! The group map of a coherent group (Silveira et al., "Group Map" and
//! "Moving Groups"): `γx × γy` cells that slide with the group along its
//! global path, with the map's border, the world's obstacles and every
//! character inside it as walls, an intermediate goal on the border where
//! the global planner leads, and the formation points turning with the
//! group's direction (Eq 5 as corrected).
//!
//! Invariants:
//! - the map's cells lie on the world's lattice of the map's cell size, so
//!   it slides by whole cells and the previous potential is the next
//!   relaxation's start (the paper's Fig 11);
//! - the map waits while the group's centroid lags behind it by more than a
//!   quarter of the map, so members walking at `v_max > v_g` stay inside;
//! - member `k` of the formation order keeps formation point `k` until the
//!   members change, then points are resampled for the new count and
//!   assigned by least total squared distance.

use super::field::{holds, Aim, Lattice, WorldField};
use crate::behave::formations;
use crate::behave::groups::{to_world, Layout};
use crate::ir::{Formation, GroupMap as MapSpec, MapVia, Vec2};
use crate::math::unit;
use crate::plan::astar::{find_path, NodeGrid, Search};
use crate::plan::bvp::{Bias, Cell, Method, Potential, Relax};
use crate::sim::scene::Scene;

/// How many cells from an obstacle the grid's force outweighs the
/// formation's: `μ_β1 = 1`, `μ_β2` halfway to `bvp.mu`, then `bvp.mu`
/// (the paper's Fig 2 draws two such regions).
const ZONE: usize = 2;

/// What leads a group map: the global planner.
pub(super) enum Guide<'a> {
    /// The world's BVP potential: the map's goal is the border's highest cells.
    World(&'a WorldField),
    /// A straight line to the goal.
    Straight,
    /// A* over a node grid, smoothed; the map's goal is where the route leaves it.
    Route(&'a NodeGrid),
    /// The map's own sketched path, then the goal; the same.
    Sketch,
}

/// What a member reads from its group map in the agents' pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Place {
    /// Its formation point in the world, when the group has a formation.
    pub point: Option<Vec2>,
    /// `μ_βi` of its cell.
    pub mu: f64,
}

/// The settings a group map runs with (its lead member's).
#[derive(Clone, Copy, Debug)]
pub(super) struct Run {
    pub bias: Bias,
    pub mu: f64,
    pub tolerance: f64,
    pub max_sweeps: u32,
    /// `v_g`, m/s.
    pub speed: f64,
    pub layout: Layout,
}

pub(super) struct GroupMap {
    pub group: usize,
    /// The global planner that leads it.
    pub via: MapVia,
    lattice: Lattice,
    potential: Potential,
    /// Where the map is: its centre, and the direction the formation faces.
    centre: Vec2,
    heading: Vec2,
    started: bool,
    placed: bool,
    /// The A* route the map follows (`via astar`), the goal point it was
    /// planned for, and its next corner.
    route: Vec<Vec2>,
    route_for: Option<Vec2>,
    next: usize,
    /// The centroid of the intermediate goal's cells at the last projection.
    goal: Option<Vec2>,
    /// The map reached the group's goal: it stops, and members settle on their points.
    pub arrived: bool,
    formation: Option<Formation>,
    /// Agent ids in formation order, and their points in the map's frame.
    order: Vec<u32>,
    points: Vec<Vec2>,
    /// Per cell: another character stands there (counts members too).
    occupied: Vec<u16>,
    /// Per cell: a wall of the world or the map's border.
    walls: Vec<bool>,
}

impl GroupMap {
    pub fn new(group: usize, spec: &MapSpec, formation: Option<Formation>, initial: f64) -> GroupMap {
        let (nx, ny) = (spec.cells_x as usize, spec.cells_y as usize);
        GroupMap {
            group,
            via: spec.via.clone(),
            lattice: Lattice { min: Vec2::ZERO, cell: spec.cell, nx, ny },
            potential: Potential::new(nx, ny, initial),
            centre: Vec2::ZERO,
            heading: Vec2::X,
            started: false,
            placed: false,
            route: Vec::new(),
            route_for: None,
            next: 0,
            goal: None,
            arrived: false,
            formation,
            order: Vec::new(),
            points: Vec::new(),
            occupied: vec![0; nx * ny],
            walls: vec![false; nx * ny],
        }
    }

    /// One step of the map for members `slots` (ascending) seeking `aim`
    /// along `world`: slide, project, relax, turn the formation. Writes each
    /// member's place into `places`.
    pub fn update(
        &mut self,
        scene: &Scene,
        slots: &[usize],
        aim: Aim,
        guide: Guide<'_>,
        run: &Run,
        places: &mut [Option<Place>],
    ) -> Result<(), String> {
        let agents = &scene.agents;
        let point = aim.point;
        let centroid = slots.iter().map(|&i| agents.pos[i]).sum::<Vec2>() / slots.len() as f64;
        if !self.started {
            self.centre = centroid;
        }
        self.follow(&guide, self.centre, point);
        if !self.started {
            self.heading = self.global(&guide, self.centre, point).unwrap_or(Vec2::X);
            self.started = true;
        }
        let reach = scene.arrival.max(self.lattice.cell);
        self.arrived = self.arrived || self.centre.distance(point) <= reach;
        let dt = scene.clock.dt;
        if !self.arrived {
            // The map slides towards the intermediate goal it last had: where
            // the global planner leads, or round what blocks the border there.
            let towards = self.goal.and_then(|g| unit(g - self.centre));
            if let Some(d) = towards.or_else(|| self.global(&guide, self.centre, point)) {
                let extent = self.lattice.nx.min(self.lattice.ny) as f64 * self.lattice.cell;
                if (self.centre - centroid).dot(d) < extent / 4.0 {
                    self.centre += d * (run.speed * dt).min(self.centre.distance(point));
                }
                self.heading = formations::turn(self.heading, d, run.speed * dt / self.lattice.cell);
            }
        }
        self.place(scene);
        self.project(scene, aim, &guide);
        let relax = Relax {
            method: Method::RedBlackSor,
            tolerance: run.tolerance,
            max_sweeps: run.max_sweeps,
            parallel: false,
        };
        let done = self.potential.relax(run.bias, relax);
        if !done.converged {
            return Err(format!(
                "the group map of group {} reached a relative residual of {:.3e} after {} sweeps, short of \
                 bvp.tolerance {:.3e}: raise bvp.max_iterations or bvp.tolerance",
                scene.program.groups[self.group].name, done.residual, done.sweeps, run.tolerance
            ));
        }
        self.assign(scene, slots, &run.layout);
        for &i in slots {
            let k = self.order.iter().position(|&id| id == agents.id[i]);
            let point = k.and_then(|k| self.points.get(k)).map(|&p| to_world(self.centre, self.heading, p));
            places[i] = Some(Place { point, mu: self.mu(agents.pos[i], run.mu) });
        }
        Ok(())
    }

    /// Lays the map on the world's lattice around its centre, sliding the
    /// previous potential along.
    fn place(&mut self, scene: &Scene) {
        let l = &mut self.lattice;
        let b = scene.program.world.bounds.min;
        let cell = l.cell;
        let corner = |c: f64, o: f64, n: usize| ((c - o) / cell - n as f64 / 2.0).round();
        let (ci, cj) = (corner(self.centre.x, b.x, l.nx), corner(self.centre.y, b.y, l.ny));
        let min = b + Vec2::new(ci * cell, cj * cell);
        // The first placement slides nothing: every cell starts afresh.
        let (di, dj) = match self.placed {
            true => (((min.x - l.min.x) / cell).round() as i64, ((min.y - l.min.y) / cell).round() as i64),
            false => (0, 0),
        };
        self.potential.slide(di, dj);
        l.min = min;
        self.placed = true;
    }

    /// Walls, characters and the intermediate goal, projected into the map.
    fn project(&mut self, scene: &Scene, aim: Aim, guide: &Guide<'_>) {
        let (nx, ny) = (self.lattice.nx, self.lattice.ny);
        let radius = scene.max_radius;
        for j in 0..ny {
            for i in 0..nx {
                let border = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
                let wall = border || !scene.space.is_clear(self.lattice.centre(i, j), radius);
                self.walls[i + j * nx] = wall;
                if wall {
                    self.potential.set(i, j, Cell::Wall);
                }
            }
        }
        self.occupied.fill(0);
        let half = Vec2::new(nx as f64, ny as f64) * (self.lattice.cell / 2.0);
        let mid = self.lattice.min + half;
        let characters = scene.program.switches.characters_on_maps;
        scene.grid.for_each_candidate(mid, half.max_element(), |a| {
            if !characters {
                return;
            }
            if let Some((i, j)) = self.lattice.cell_of(scene.agents.pos[a as usize]) {
                self.occupied[i + j * nx] += 1;
                self.potential.set(i, j, Cell::Wall);
            }
        });
        self.goal = None;
        if self.arrived {
            return;
        }
        // The goal itself once inside the map, else where the global planner
        // leads: the free border cells nearest the goal along its potential.
        let cell = self.lattice.cell;
        let mut inner = false;
        for j in 1..ny - 1 {
            for i in 1..nx - 1 {
                let c = self.lattice.centre(i, j);
                // The goal's own point, where the map stops: a goal region's
                // other cells would hold members at its edge.
                if !self.walls[i + j * nx] && holds(c, aim.point, cell) {
                    if self.occupied[i + j * nx] == 0 {
                        self.potential.set(i, j, Cell::Goal);
                    }
                    inner = true;
                }
            }
        }
        if inner {
            return;
        }
        let exit = self.exit(aim.point);
        let lead = |c: Vec2| match guide {
            Guide::World(w) => w.q(c),
            Guide::Straight | Guide::Route(_) | Guide::Sketch => -c.distance(exit),
        };
        let border: Vec<(usize, usize)> = (0..nx)
            .map(|i| (i, 0))
            .chain((1..ny).map(|j| (nx - 1, j)))
            .chain((0..nx - 1).rev().map(|i| (i, ny - 1)))
            .chain((1..ny - 1).rev().map(|j| (0, j)))
            .collect();
        let blocked = |&(i, j): &(usize, usize)| {
            !scene.space.is_clear(self.lattice.centre(i, j), radius) || self.occupied[i + j * nx] > 0
        };
        let best = (0..border.len()).filter(|&k| !blocked(&border[k])).fold(None::<(usize, f64)>, |b, k| {
            let v = lead(self.lattice.centre(border[k].0, border[k].1));
            match b {
                Some((_, bv)) if bv >= v => b,
                _ => Some((k, v)),
            }
        });
        if let Some((k, _)) = best {
            let n = border.len();
            let (mut sum, mut count) = (Vec2::ZERO, 0.0);
            for d in [n - 1, 0, 1] {
                let (i, j) = border[(k + d) % n];
                if !blocked(&(i, j)) {
                    self.potential.set(i, j, Cell::Goal);
                    sum += self.lattice.centre(i, j);
                    count += 1.0;
                }
            }
            self.goal = Some(sum / count);
        }
    }

    /// Resamples and assigns the formation points when the members changed.
    fn assign(&mut self, scene: &Scene, slots: &[usize], layout: &Layout) {
        let agents = &scene.agents;
        let ids: Vec<u32> = slots.iter().map(|&i| agents.id[i]).collect();
        let same = ids.len() == self.order.len() && ids.iter().all(|id| self.order.contains(id));
        if same {
            return;
        }
        let Some(points) = self.formation.as_ref().and_then(|f| formations::points(f, slots.len(), layout)) else {
            self.order = ids;
            self.points.clear();
            return;
        };
        let world: Vec<Vec2> = points.iter().map(|&p| to_world(self.centre, self.heading, p)).collect();
        let at: Vec<Vec2> = slots.iter().map(|&i| agents.pos[i]).collect();
        let mut order = vec![u32::MAX; points.len()];
        for (m, k) in least_squares(&at, &world).into_iter().enumerate() {
            order[k] = ids[m];
        }
        self.order = order;
        self.points = points;
    }

    /// `μ_βi` at `p`: `i` cells (Chebyshev) from the nearest wall or the
    /// border; a cell next to another character is in `β1` (the paper: "its
    /// neighbor cells are set as a cell on β1 region").
    fn mu(&self, p: Vec2, mu: f64) -> f64 {
        let Some((ci, cj)) = self.lattice.cell_of(p) else { return 1.0 };
        let (nx, ny) = (self.lattice.nx as i64, self.lattice.ny as i64);
        let ring = |r: i64| (-r..=r).flat_map(move |a| [(a, -r), (a, r), (-r, a), (r, a)]);
        let cell = |(di, dj): (i64, i64)| {
            let (i, j) = (ci as i64 + di, cj as i64 + dj);
            let inside = i >= 0 && j >= 0 && i < nx && j < ny;
            inside.then(|| (i + j * nx) as usize)
        };
        let wall_at = |r: i64| ring(r).any(|d| cell(d).is_none_or(|k| self.walls[k]));
        let mut nearest = (1..=ZONE as i64).find(|&r| wall_at(r)).unwrap_or(ZONE as i64 + 1);
        // Another character in the member's own cell, or next to it.
        let own = self.occupied[ci + cj * self.lattice.nx] > 1;
        if own || ring(1).any(|d| cell(d).is_some_and(|k| self.occupied[k] > 0)) {
            nearest = 1;
        }
        mu + (1.0 - mu) * (1.0 - (nearest as f64 - 1.0) / ZONE as f64).max(0.0)
    }

    /// Eq 4 on the map at `p`: the descent, or `None` outside its inner cells.
    pub fn descent(&self, p: Vec2) -> Option<Vec2> {
        let (i, j) = self.lattice.cell_of(p)?;
        let inner = i > 0 && j > 0 && i + 1 < self.lattice.nx && j + 1 < self.lattice.ny;
        inner.then(|| self.potential.descent(i, j))
    }

    /// Where the map is.
    pub fn centre(&self) -> Vec2 {
        self.centre
    }

    /// The global planner's direction at `p` towards `point`: down the
    /// world's potential, straight, or to the route's next corner (the route
    /// is kept by [`GroupMap::follow`] first).
    fn global(&self, guide: &Guide<'_>, p: Vec2, point: Vec2) -> Option<Vec2> {
        let lead = match guide {
            Guide::World(w) => w.descent(p).and_then(unit),
            Guide::Straight => None,
            Guide::Route(_) | Guide::Sketch => self.route.get(self.next).and_then(|&q| unit(q - p)),
        };
        lead.or_else(|| unit(point - p))
    }

    /// For a map led along a route: plans it from `p` when the goal's point
    /// changes (by A*, or the sketch and then the goal), and walks on past
    /// every corner already on the map (the map steers round what it holds;
    /// the route matters beyond it).
    fn follow(&mut self, guide: &Guide<'_>, p: Vec2, point: Vec2) {
        if matches!(guide, Guide::World(_) | Guide::Straight) {
            return;
        }
        if self.route_for != Some(point) {
            self.route = match (guide, &self.via) {
                (Guide::Route(grid), _) => {
                    let search = Search { smooth: true, clearance: grid.clearance() };
                    find_path(grid, p, point, search).map_or_else(Vec::new, |r| r.points)
                }
                (_, MapVia::Sketch(path)) => path.iter().copied().chain([point]).collect(),
                _ => vec![point],
            };
            self.route_for = Some(point);
            self.next = 0;
        }
        while self.next + 1 < self.route.len() && self.inner(self.route[self.next]) {
            self.next += 1;
        }
    }

    /// Whether `q` lies in the map's inner cells (not on its border).
    fn inner(&self, q: Vec2) -> bool {
        let l = &self.lattice;
        l.cell_of(q).is_some_and(|(i, j)| i > 0 && j > 0 && i + 1 < l.nx && j + 1 < l.ny)
    }

    /// Where the global path leaves the map: the first corner of the route
    /// ahead outside the map's inner cells, else the goal's point.
    fn exit(&self, point: Vec2) -> Vec2 {
        self.route.iter().skip(self.next).copied().find(|&q| !self.inner(q)).unwrap_or(point)
    }
}

/// Which point each member takes (`result[m]`), with the least total squared
/// distance: the Hungarian algorithm on costs in mm², so ties fall the same
/// way on every machine.
fn least_squares(members: &[Vec2], points: &[Vec2]) -> Vec<usize> {
    let cost = |m: usize, k: usize| (members[m].distance_squared(points[k]) * 1e6).round() as i64;
    let weights = pathfinding::matrix::Matrix::from_fn(members.len(), points.len(), |(m, k)| cost(m, k));
    pathfinding::kuhn_munkres::kuhn_munkres_min(&weights).1
}
