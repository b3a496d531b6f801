//! Space-colonization motion in the executor (Rodrigues et al. 2010): tree
//! paths walked with Eq 9, direct motion (Eqs 10–12) for shape formation
//! (Eq 14) and alignment masks, the pursue / surround / escape variants, and
//! the crowd extension's marker reservation (Sec 6).
//!
//! Invariants:
//! - an agent's [`Walk`] is its own: the parallel pass grows and walks it
//!   reading only the snapshot (positions, the marker tables of the last
//!   sequential apply); the tables themselves (`held` for reservations,
//!   `claimed` for surround) change only in [`Simulation::settle_markers`],
//!   in id order;
//! - tree growth draws its uniforms from the agent's own stream, one stream
//!   per growth iteration.

use super::motion::Plan;
use super::Simulation;
use crate::ir::NONE;
use crate::ir::{Action, MaskId, Shape, ShapeId, Subject, Vec2};
use crate::plan::tree::{Field, Lure, Tree, TreeParams, NO_NODE};
use crate::rng::{stream, Entity, Purpose};
use crate::steer::direct;
use crate::world::geometry::{bounding_box, contains};
use crate::world::grid::Grid;
use crate::world::markers::Markers;

/// A crowd agent that has waited this long for a node's markers regrows its
/// path around the markers others hold, s.
const PATIENCE: f64 = 1.0;
/// The same when the blocker comes the other way or stands still, s.
const URGENT_PATIENCE: f64 = 0.25;
/// Ancestors kept behind the node an agent walks from: enough for the
/// Voronoi competition of Eq 1 near the agent, few enough to keep trees small.
const KEEP_BEHIND: u32 = 2;
/// Tries at drawing a point of a shape's convex hull.
const HULL_TRIES: u32 = 64;

/// How the current mode moves an agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Drive {
    /// Straight towards the aim (and everything the executor did before trees).
    Straight,
    /// A tree path towards the aim (seek, pursue), shared markers or disjoint
    /// ones (surround), with distance enforcement or marker reservation.
    Tree { reserve: bool, disjoint: bool },
    /// A tree path away from the centroid of a subject (Eq 13).
    Escape(u32),
    /// Walk a tree to a random point of the shape's convex hull, then direct
    /// motion with Eq 14's weights (and a mask's, when aligning too).
    Form { shape: ShapeId, mask: Option<MaskId> },
    /// Direct motion with an alignment mask's weights.
    Align(MaskId),
    /// An A* path over the node grid, in formation with the agent's group
    /// (semantic groups, see `sim::groups`).
    AStar,
}

/// Whether `p` lies on the segment `[a, b]` (to rounding): the rest of a
/// segment that was clear when its node was made is clear too.
fn on_segment(p: Vec2, a: Vec2, b: Vec2) -> bool {
    const ON: f64 = 1e-9;
    let ab = b - a;
    let len2 = ab.length_squared();
    len2 > 0.0 && (p - a).perp_dot(ab).abs() <= ON * len2 && (p - a).dot(ab) >= 0.0 && (p - a).dot(ab) <= len2
}

/// The two reservation passes after each step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    At,
    Next,
}

/// One agent's path state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    pub tree: Option<Tree>,
    /// The node the agent walks from (last reached) and the one it walks to.
    pub at: u32,
    pub next: u32,
    /// The lure point the tree was grown for.
    pub aimed: Vec2,
    /// A node got within `α` of the goal: growth stops.
    pub done: bool,
    /// Shape formation: the hull point, and whether direct motion took over.
    pub hull_goal: Vec2,
    pub direct: bool,
    /// Reservation: whether the agent holds the markers of `at` and of `next`.
    pub holds_at: bool,
    pub granted: bool,
    pub held_at: Vec<u32>,
    pub held_next: Vec<u32>,
    /// The markers of the node walked from and of the next node: what the
    /// agent asks for, step after step, until it holds them.
    pub at_markers: NodeMarkers,
    pub next_markers: NodeMarkers,
    /// Reached `next` in the last pass: its markers become `held_at`.
    pub moved_on: bool,
    /// Steps waited for a grant.
    pub waited: u32,
    /// Regrowing around the markers others hold.
    pub avoid: bool,
    /// The agent blocking the next node walks the other way or stands still.
    pub urgent: bool,
    /// The agent blocking the next node has arrived where it was going.
    pub behind_arrived: bool,
    /// Surround: markers this agent's tree claimed at the last apply.
    pub claimed: Vec<u32>,
    /// Growth iterations drawn so far over the agent's life: the number of its next growth stream.
    pub draws: u64,
    /// Hull points drawn so far (shape formation).
    pub hull_draws: u64,
    /// A* seeking: the agent's own path when it walks alone.
    pub route: super::groups::Route,
}

impl Walk {
    /// The node walked from, while its markers are not all held.
    fn unheld_at(&self) -> Option<Vec2> {
        let tree = self.tree.as_ref()?;
        (!self.holds_at && (self.at as usize) < tree.len()).then(|| tree.pos(self.at))
    }

    /// The next node, while its markers are not granted.
    fn ungranted_next(&self) -> Option<Vec2> {
        let tree = self.tree.as_ref()?;
        (!self.granted && self.next != NO_NODE && (self.next as usize) < tree.len()).then(|| tree.pos(self.next))
    }

    /// The node whose markers the agent asks for in a reservation pass: the
    /// node walked from, or once that is held, the next node.
    fn asks(&self, pass: Hold) -> Option<Vec2> {
        match pass {
            Hold::At => self.unheld_at(),
            Hold::Next if self.holds_at => self.ungranted_next(),
            Hold::Next => None,
        }
    }

    /// Branch death: everything ahead of the node walked from is cut, and the
    /// tree regrows from there.
    fn cut_ahead(&mut self) {
        if let Some(tree) = &mut self.tree {
            let at = self.at;
            tree.prune_at(at, NO_NODE, &mut [&mut self.at]);
            tree.iterations = 0;
        }
        self.next = NO_NODE;
        self.granted = false;
        self.done = false;
    }
}

/// The markers within reach of one node, kept while the node stays the same.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeMarkers {
    node: Option<Vec2>,
    ids: Vec<u32>,
}

impl NodeMarkers {
    /// The markers within `r` of `node`, in the index's query order.
    fn of(&mut self, markers: &Markers, grid: &Grid, node: Vec2, r: f64) -> &[u32] {
        if self.node != Some(node) {
            self.ids.clear();
            markers.within(grid, node, r, |m| self.ids.push(m));
            self.node = Some(node);
        }
        &self.ids
    }
}

/// The model constants the motion needs, read once per run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScParams {
    pub tree: TreeParams,
    pub recompute: f64,
    pub max_iterations: u32,
    pub w_max: f64,
}

/// The drive of a mode's actions: the first action that moves the agent decides.
pub(crate) fn drive_of(actions: &[Action], escape_subjects: &[Subject]) -> Drive {
    let mask = actions.iter().find_map(|a| match a {
        Action::Align { mask } => Some(*mask),
        _ => None,
    });
    for a in actions {
        match a {
            Action::Seek { planner, .. } | Action::Pursue { planner, .. }
                if planner.kind == crate::ir::PlannerKind::AStar =>
            {
                return Drive::AStar;
            }
            Action::Seek { planner, .. } | Action::Pursue { planner, .. }
                if planner.kind == crate::ir::PlannerKind::TreePaths =>
            {
                return Drive::Tree { reserve: planner.reserve_markers, disjoint: planner.disjoint_markers };
            }
            Action::Surround { .. } => return Drive::Tree { reserve: false, disjoint: true },
            Action::Escape { from } => {
                let k = escape_subjects.iter().position(|s| s == from).unwrap_or(0);
                return Drive::Escape(k as u32);
            }
            Action::Form { shape } => return Drive::Form { shape: *shape, mask },
            Action::Align { mask } => return Drive::Align(*mask),
            _ => {}
        }
    }
    Drive::Straight
}

/// Subjects some behaviour escapes from, in declaration order.
pub(crate) fn escape_subjects(program: &crate::ir::Program) -> Vec<Subject> {
    let mut out = Vec::new();
    for b in &program.behaviours {
        for a in super::decide::actions_of(&b.body) {
            if let Action::Escape { from } = a {
                if !out.contains(from) {
                    out.push(*from);
                }
            }
        }
    }
    out
}

/// The convex hull of a shape's outline, counter-clockwise (Andrew's monotone chain).
fn hull(shape: &Shape) -> Vec<Vec2> {
    let mut pts: Vec<Vec2> = match shape {
        Shape::Polygon(p) => p.clone(),
        Shape::Polyline { points, .. } => points.clone(),
        Shape::Segment { a, b } => vec![*a, *b],
        Shape::Rect(_) | Shape::Circle { .. } => return Vec::new(),
    };
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    let cross = |o: Vec2, a: Vec2, b: Vec2| (a - o).perp_dot(b - o);
    let mut lower: Vec<Vec2> = Vec::new();
    for &p in &pts {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<Vec2> = Vec::new();
    for &p in pts.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

impl Simulation<'_> {
    fn entity_of(&self, i: usize) -> Entity {
        let m = &self.agents.mind[i].member;
        Entity { population: self.pop_keys[m.population.index()], index: m.index }
    }

    /// Eq 14's automatic goal: a random point of the shape's convex hull,
    /// drawn from the agent's own stream.
    fn hull_point(&self, i: usize, shape: ShapeId, draw: u64) -> Vec2 {
        let s = &self.program.world.shapes[shape.index()].shape;
        let h = hull(s);
        let bb = bounding_box(s);
        let mut rng = stream(self.seed, Purpose::Formation, self.entity_of(i), draw);
        let mut last = (bb.min + bb.max) / 2.0;
        for _ in 0..HULL_TRIES {
            let p =
                Vec2::new(bb.min.x + rng.unit() * (bb.max.x - bb.min.x), bb.min.y + rng.unit() * (bb.max.y - bb.min.y));
            last = p;
            let inside = if h.len() >= 3 { contains(&Shape::Polygon(h.clone()), p) } else { contains(s, p) };
            if inside {
                return p;
            }
        }
        last
    }

    /// Starts agent `i`'s walk for a new mode (called in the sequential apply).
    pub(super) fn reset_walk(&mut self, i: usize, drive: Drive) {
        self.release_holds(i);
        let pos = self.agents.pos[i];
        let draws_so_far = self.agents.walk[i].draws;
        let mut walk = Walk { at: 0, next: NO_NODE, aimed: pos, draws: draws_so_far, ..Walk::default() };
        match drive {
            Drive::Straight | Drive::Align(_) | Drive::AStar => {}
            Drive::Tree { .. } | Drive::Escape(_) => walk.tree = Some(Tree::new(pos)),
            Drive::Form { shape, .. } => {
                walk.hull_draws = self.agents.walk[i].hull_draws;
                walk.hull_goal = self.hull_point(i, shape, walk.hull_draws);
                walk.hull_draws += 1;
                walk.tree = Some(Tree::new(pos));
            }
        }
        self.agents.drive[i] = drive;
        self.agents.walk[i] = walk;
    }

    /// Gives back every marker agent `i` holds or claims.
    pub(super) fn release_holds(&mut self, i: usize) {
        let id = self.agents.id[i];
        let walk = &mut self.agents.walk[i];
        for list in [&mut walk.held_at, &mut walk.held_next, &mut walk.claimed] {
            for m in list.drain(..) {
                for table in [&mut self.held, &mut self.claimed] {
                    if table.get(m as usize) == Some(&id) {
                        table[m as usize] = NONE;
                    }
                }
            }
        }
        walk.holds_at = false;
        walk.granted = false;
    }

    /// The lure of a tree-walking agent now, or `None` when it has nothing to walk to.
    fn lure(&self, i: usize, drive: Drive, walk: &Walk) -> Option<Lure> {
        match drive {
            Drive::Tree { .. } => self.aim_point(i, self.agents.aim[i]).map(Lure::Goal),
            Drive::Escape(k) => self.escape_centroids.get(k as usize).copied().flatten().map(Lure::Away),
            Drive::Form { .. } => Some(Lure::Goal(walk.hull_goal)),
            _ => None,
        }
    }

    /// Phase 4 for an agent that does not walk straight: grows and walks its
    /// tree, or computes its direct-motion direction.
    pub(super) fn plan_walk(&self, i: usize, walk: &mut Walk) -> Plan {
        let pos = self.agents.pos[i];
        let idle = Plan { target: pos, active: false, direct: None, enforce: true };
        let drive = self.agents.drive[i];
        if drive == Drive::AStar {
            return self.astar_plan(i, walk);
        }
        if let (true, Drive::Tree { reserve, .. }) = (self.agents.leaving[i], drive) {
            // A leaving agent keeps walking its tree (towards the exit, its aim now).
            return match self.aim_point(i, self.agents.aim[i]) {
                Some(p) => self.tree_plan(i, walk, Lure::Goal(p), reserve, false),
                None => idle,
            };
        }
        if self.agents.leaving[i] || self.agents.arrived[i] && !matches!(drive, Drive::Escape(_)) {
            return match self.aim_point(i, self.agents.aim[i]) {
                Some(p) if self.agents.leaving[i] => Plan { target: p, active: true, direct: None, enforce: true },
                _ => idle,
            };
        }
        match drive {
            Drive::Straight | Drive::AStar => idle,
            Drive::Align(mask) => self.direct_plan(i, None, Some(mask)),
            Drive::Form { shape, mask } => {
                if !walk.direct && self.shape_marker_near(i, shape) {
                    walk.direct = true;
                    walk.tree = None;
                }
                if !walk.direct && pos.distance(walk.hull_goal) <= self.step_length(self.agents.speed[i]) {
                    // NOTE: the hull of a concave shape (an H) holds points far from
                    // any of its markers; an agent that reaches one without seeing
                    // the shape draws another instead of standing there.
                    walk.hull_goal = self.hull_point(i, shape, walk.hull_draws);
                    walk.hull_draws += 1;
                    *walk = Walk {
                        tree: Some(Tree::new(pos)),
                        at: 0,
                        next: NO_NODE,
                        aimed: walk.hull_goal,
                        hull_goal: walk.hull_goal,
                        hull_draws: walk.hull_draws,
                        draws: walk.draws,
                        ..Walk::default()
                    };
                }
                if walk.direct {
                    self.direct_plan(i, Some(shape), mask)
                } else {
                    self.tree_plan(i, walk, Lure::Goal(walk.hull_goal), false, false)
                }
            }
            Drive::Tree { reserve, disjoint } => match self.lure(i, drive, walk) {
                Some(lure) => self.tree_plan(i, walk, lure, reserve, disjoint),
                None => idle,
            },
            Drive::Escape(_) => match self.lure(i, drive, walk) {
                Some(lure) => self.tree_plan(i, walk, lure, false, false),
                None => idle,
            },
        }
    }

    fn shape_marker_near(&self, i: usize, shape: ShapeId) -> bool {
        let mut near = false;
        self.markers.within(&self.marker_grid, self.agents.pos[i], self.agents.personal[i], |m| {
            near = near || self.markers.in_shape(m, shape);
        });
        near
    }

    /// Eqs. 10–12 with the weights of Eq 14 (shape) and Sec 5.3 (mask).
    fn direct_plan(&self, i: usize, shape: Option<ShapeId>, mask: Option<MaskId>) -> Plan {
        let p = self.agents.pos[i];
        let r = self.agents.personal[i];
        // NOTE: Sec 5.3 says mask markers have their weights "increased" to
        // dist(I, k) ≤ R, which is hardly more than the others' 1; the mask
        // only aligns anyone when it is what the agent follows, so while a
        // mask marker is in the personal space the other markers weigh 0.
        let mut sees_mask = false;
        // (marker, weight, on the mask)
        let mut weighted: Vec<(Vec2, f64, bool)> = Vec::new();
        self.markers.within(&self.marker_grid, p, r, |m| {
            let q = self.markers.positions[m as usize];
            let mut w = self.markers.weights[m as usize];
            if let Some(s) = shape {
                w = direct::shape_weight(self.markers.in_shape(m, s), self.sc.w_max);
            }
            let on_mask = mask.is_some_and(|k| self.markers.in_mask(m, k));
            if on_mask {
                w *= self.mask_weight(i, q);
                sees_mask = true;
            }
            weighted.push((q, w, on_mask));
        });
        let weights = weighted.into_iter().map(|(q, w, on_mask)| (q, if sees_mask && !on_mask { 0.0 } else { w }));
        let m_d = direct::motion_direction(p, weights);
        Plan { target: p, active: true, direct: Some(m_d), enforce: true }
    }

    /// Sec 5.3: a mask marker at `q` weighs `dist(I, k)`, summed over every
    /// agent that has it in its personal space for the closest of them.
    fn mask_weight(&self, i: usize, q: Vec2) -> f64 {
        let own = self.agents.pos[i].distance(q);
        let mut total = 0.0;
        let mut closest = true;
        self.grid.for_each_candidate(q, self.max_personal, |j| {
            let j = j as usize;
            let d = self.agents.pos[j].distance(q);
            if d <= self.agents.personal[j] {
                total += d;
                // Ties go to the lower id, so exactly one viewer gets the sum.
                closest &= j == i || d > own || d == own && j > i;
            }
        });
        direct::mask_weight(own, total, closest)
    }

    /// Grows agent `i`'s tree one iteration and walks it (Eq 9): the plan's
    /// target is the next path node, or the goal once the last node is reached.
    fn tree_plan(&self, i: usize, walk: &mut Walk, lure: Lure, reserve: bool, disjoint: bool) -> Plan {
        let pos = self.agents.pos[i];
        let id = self.agents.id[i];
        let beta = self.step_length(self.agents.speed[i]);
        let mut params = self.sc.tree;
        if reserve {
            params.action_radius = self.reserve_radius();
        }
        // Waiting behind an agent that has arrived counts as walking, blocked:
        // inside the goal region that is arriving too, so regions fill from their aim outwards.
        let still = Plan { target: pos, active: reserve && walk.behind_arrived, direct: None, enforce: !reserve };
        if walk.tree.as_ref().map_or(true, Tree::is_empty) {
            walk.tree = Some(Tree::new(pos));
        }
        let point = match lure {
            Lure::Goal(g) | Lure::Away(g) => g,
        };
        // Branch death (ii): the goal moved farther than R_d: regrow from where the agent walks from.
        if point.distance(walk.aimed) > self.sc.recompute {
            walk.cut_ahead();
            walk.aimed = point;
        }
        let tree = walk.tree.get_or_insert_with(|| Tree::new(pos));
        let head = if walk.next != NO_NODE { walk.next } else { walk.at };
        if let Lure::Goal(g) = lure {
            // Pursue: the target crossed the tree; keep the path to the crossing node only.
            if !walk.done {
                let r2 = params.action_radius * params.action_radius;
                let near = |n: &u32| tree.pos(*n).distance_squared(g) <= r2;
                // Most steps no node is near the target: only then is the subtree worth finding.
                let crossing = (head..tree.len() as u32).find(near).and_then(|first| {
                    let inside = tree.subtree(head);
                    (first..tree.len() as u32).find(|&n| inside[n as usize] && near(&n))
                });
                if let Some(n) = crossing {
                    let (mut at, mut next) = (walk.at, walk.next);
                    tree.prune_at(n, NO_NODE, &mut [&mut at, &mut next]);
                    (walk.at, walk.next) = (at, next);
                    walk.done = true;
                }
            }
        }
        if !walk.done && tree.iterations < self.sc.max_iterations {
            let held = &self.held;
            let claimed = &self.claimed;
            let avoid = walk.avoid;
            let usable = move |m: u32| {
                let m = m as usize;
                (!disjoint || claimed[m] == NONE || claimed[m] == id) && (!avoid || held[m] == NONE || held[m] == id)
            };
            let field = Field { index: &self.marker_grid, walk: &self.space, clearance: self.agents.radius[i], usable };
            let mut rng = stream(self.seed, Purpose::TreeGrowth, self.entity_of(i), walk.draws);
            walk.draws += 1;
            let head = if walk.next != NO_NODE { walk.next } else { walk.at };
            tree.grow(&field, &params, lure, head, &mut || rng.unit());
            if let Lure::Goal(g) = lure {
                let best = tree.best_in(head, lure);
                if tree.pos(best).distance(g) <= params.alpha {
                    walk.done = true;
                }
            }
        }
        // Reservation: move only while holding the markers of both ends of the segment.
        if reserve && walk.next != NO_NODE && !(walk.granted && walk.holds_at) {
            walk.waited += 1;
            // Patience varies by agent so that agents blocking each other do not all turn at once.
            let base = if walk.urgent { URGENT_PATIENCE } else { PATIENCE };
            let patience = base * (0.5 + (crate::hash::splitmix64(u64::from(id)) >> 11) as f64 / (1u64 << 53) as f64);
            if f64::from(walk.waited) * self.dt >= patience {
                walk.cut_ahead();
                walk.avoid = true;
                walk.waited = 0;
                let tree = walk.tree.get_or_insert_with(|| Tree::new(pos));
                if let Some(side) = self.sidestep(tree.pos(walk.at), point, params, id, self.agents.radius[i]) {
                    walk.next = tree.push_child(walk.at, side);
                }
            }
            return still;
        }
        walk.waited = 0;
        if walk.next == NO_NODE {
            if let Some(c) = tree.choose_branch(walk.at, lure) {
                let mut next = c;
                let at = walk.at;
                tree.prune_at(at, c, &mut [&mut walk.at, &mut next]);
                walk.next = next;
                walk.granted = false;
                walk.avoid = false;
                if reserve {
                    return still;
                }
            }
        }
        if walk.next == NO_NODE {
            // At a leaf: the goal is near (walk to it), or the tree is still growing, or it is stuck.
            return match lure {
                Lure::Goal(g) if walk.done => {
                    if reserve {
                        // The last leg is reserved like any segment: the goal becomes the next node.
                        if pos.distance(g) > beta && self.space.segment_clear(tree.pos(walk.at), g, 0.0) {
                            walk.next = tree.push_child(walk.at, g);
                            walk.granted = false;
                        }
                        return still;
                    }
                    Plan { target: g, active: true, direct: None, enforce: true }
                }
                _ => {
                    if tree.iterations >= self.sc.max_iterations || tree.len() == 1 && tree.iterations > 0 {
                        // Nothing left to grow into from here: start over where the agent stands.
                        *tree = Tree::new(pos);
                        walk.at = 0;
                        walk.aimed = point;
                    }
                    still
                }
            };
        }
        let node = tree.pos(walk.next);
        if pos.distance(node) <= beta {
            // Lands on the node this step: it becomes the node walked from.
            walk.at = walk.next;
            walk.next = NO_NODE;
            walk.moved_on = reserve;
            walk.granted = false;
            let at = walk.at;
            tree.forget_behind(at, KEEP_BEHIND, &mut [&mut walk.at]);
        } else if pos.distance(tree.pos(walk.at)) > beta
            && !on_segment(pos, tree.pos(walk.at), node)
            && !self.space.segment_clear(pos, node, self.agents.radius[i])
        {
            // Pushed off the path behind an obstacle: back to the node walked from.
            return Plan { target: tree.pos(walk.at), active: true, direct: None, enforce: !reserve };
        }
        Plan { target: node, active: true, direct: None, enforce: !reserve }
    }

    /// A blocked crowd agent's way around: the first node `α` away from `from`,
    /// turning from the goal direction in 30° steps (alternating sides, the
    /// first side by id), whose segment is clear and whose markers nobody else
    /// holds.
    ///
    /// NOTE: the paper has a blocked agent wait until the markers are freed;
    /// in head-on flows that deadlocks. Its own account of lanes is that
    /// people "change trajectory whenever they encounter an entity moving in
    /// the opposite direction", which is what this does after the wait.
    fn sidestep(&self, from: Vec2, goal: Vec2, params: TreeParams, id: u32, radius: f64) -> Option<Vec2> {
        const C30: f64 = 0.866_025_403_784_438_6;
        const TURNS: [(f64, f64); 4] = [(C30, 0.5), (0.5, C30), (0.0, 1.0), (-0.5, C30)];
        let dir = super::unit(goal - from)?;
        let first = if id % 2 == 0 { 1.0 } else { -1.0 };
        for (c, s) in TURNS {
            for side in [first, -first] {
                let s = s * side;
                let d = Vec2::new(dir.x * c - dir.y * s, dir.x * s + dir.y * c);
                let cand = from + d * params.alpha;
                if !self.space.segment_clear(from, cand, radius) {
                    continue;
                }
                let mut free = true;
                let mut any = false;
                self.markers.within(&self.marker_grid, cand, params.action_radius, |m| {
                    let h = self.held[m as usize];
                    any = true;
                    free &= h == NONE || h == id;
                });
                if free && any {
                    return Some(cand);
                }
            }
        }
        None
    }

    /// The sequential part of the markers' bookkeeping after each pass, in id
    /// order: reservations (release, then grant) and surround claims.
    pub(super) fn settle_markers(&mut self) {
        if !self.uses_reservation && !self.uses_claims {
            return;
        }
        let n = self.agents.len();
        if self.uses_reservation {
            for i in 0..n {
                let id = self.agents.id[i];
                let walk = &mut self.agents.walk[i];
                if walk.moved_on {
                    walk.moved_on = false;
                    for m in walk.held_at.drain(..) {
                        if self.held[m as usize] == id {
                            self.held[m as usize] = NONE;
                        }
                    }
                    walk.held_at = std::mem::take(&mut walk.held_next);
                }
            }
            // Every agent's own node first, so an agent that holds nothing yet is still seen.
            for pass in [Hold::At, Hold::Next] {
                // The few agents that ask are found first, and all their table
                // entries read, before any is served: the cache misses of
                // loops whose iterations do not wait on each other overlap.
                let asking: Vec<(usize, Vec2)> = (0..n)
                    .filter(|&i| matches!(self.agents.drive[i], Drive::Tree { reserve: true, .. }))
                    .filter_map(|i| Some((i, self.agents.walk[i].asks(pass)?)))
                    .collect();
                let mut seen = 0;
                for &(i, _) in &asking {
                    seen ^= self.touch_held(i, pass);
                }
                std::hint::black_box(seen);
                for &(i, node) in &asking {
                    self.hold(i, pass, node);
                }
            }
        }
        if self.uses_claims {
            for i in 0..n {
                let id = self.agents.id[i];
                for m in std::mem::take(&mut self.agents.walk[i].claimed) {
                    if self.claimed[m as usize] == id {
                        self.claimed[m as usize] = NONE;
                    }
                }
            }
            for i in 0..n {
                if !matches!(self.agents.drive[i], Drive::Tree { disjoint: true, .. }) {
                    continue;
                }
                let id = self.agents.id[i];
                let mut list = Vec::new();
                if let Some(tree) = &self.agents.walk[i].tree {
                    for node in tree.nodes() {
                        self.markers.within(&self.marker_grid, node.pos, self.sc.tree.action_radius, |m| {
                            if self.claimed[m as usize] == NONE {
                                self.claimed[m as usize] = id;
                                list.push(m);
                            }
                        });
                    }
                }
                self.agents.walk[i].claimed = list;
            }
        }
    }

    /// Looks up, during the parallel pass, the markers that the reservation
    /// passes will ask for agent `i`'s nodes (the lists are kept per node),
    /// so that the sequential passes only grant.
    pub(super) fn prepare_hold(&self, i: usize, walk: &mut Walk) {
        if !matches!(self.agents.drive[i], Drive::Tree { reserve: true, .. }) {
            return;
        }
        let r = self.reserve_radius();
        if let Some(node) = walk.unheld_at() {
            walk.at_markers.of(&self.markers, &self.marker_grid, node, r);
        }
        // Asked for once the node walked from is held, which the first pass may grant.
        if let Some(node) = walk.ungranted_next() {
            walk.next_markers.of(&self.markers, &self.marker_grid, node, r);
        }
    }

    /// The crowd extension's action radius (Sec 6: `A_r = α/2`, so a node's
    /// markers and its neighbours' cover the segments between them).
    fn reserve_radius(&self) -> f64 {
        self.sc.tree.alpha / 2.0
    }

    /// One reservation pass for agent `i`, which asks for the markers of
    /// `node` (see [`Walk::asks`]): those still free of the node it stands on,
    /// or all or none of the node it wants to walk to.
    fn hold(&mut self, i: usize, pass: Hold, node: Vec2) {
        let id = self.agents.id[i];
        let r = self.reserve_radius();
        let agents = &mut self.agents;
        let walk = &mut agents.walk[i];
        match pass {
            Hold::At => {
                // Where two agents appeared closer than a node's reach, the later one
                // holds what is free (so others see it) and waits for the rest.
                let near = walk.at_markers.of(&self.markers, &self.marker_grid, node, r);
                walk.holds_at = hold_free(&mut self.held, near, id, &mut walk.held_at);
            }
            Hold::Next => {
                let wanted = walk.next_markers.of(&self.markers, &self.marker_grid, node, r);
                match try_hold(&mut self.held, wanted, id) {
                    Ok(()) => {
                        walk.held_next.clear();
                        walk.held_next.extend_from_slice(wanted);
                        walk.granted = true;
                    }
                    Err(holder) => {
                        // Someone coming the other way, or standing still, is not worth waiting for.
                        let heading = agents.ori[i];
                        (walk.urgent, walk.behind_arrived) = match agents.id.binary_search(&holder) {
                            Ok(j) => (
                                agents.ori[j].dot(heading) < 0.0 || agents.vel[j].length_squared() == 0.0,
                                agents.arrived[j],
                            ),
                            Err(_) => (false, false),
                        };
                    }
                }
            }
        }
    }

    /// Reads the table entries of the first, middle and last markers agent
    /// `i` asks for in `pass` (listed in the parallel pass): a node's markers
    /// lie in a few runs of consecutive ids.
    fn touch_held(&self, i: usize, pass: Hold) -> u32 {
        let w = &self.agents.walk[i];
        let ids = match pass {
            Hold::At => &w.at_markers.ids,
            Hold::Next => &w.next_markers.ids,
        };
        let entry = |k: usize| ids.get(k).map_or(0, |&m| self.held[m as usize]);
        entry(0) ^ entry(ids.len() / 2) ^ entry(ids.len().wrapping_sub(1))
    }

    /// The centroid of each escaped-from subject's agents (perceive phase).
    pub(super) fn update_escape_centroids(&mut self) {
        for k in 0..self.escape_subjects.len() {
            let s = self.escape_subjects[k];
            let mut sum = Vec2::ZERO;
            let mut count = 0u32;
            for i in 0..self.agents.len() {
                if self.matches(s, self.agents.population[i]) {
                    sum += self.agents.pos[i];
                    count += 1;
                }
            }
            self.escape_centroids[k] = (count > 0).then(|| sum / f64::from(count));
        }
    }
}

/// Adds to `list` the markers of `near` that nobody else holds; whether that is all of them.
fn hold_free(held: &mut [u32], near: &[u32], id: u32, list: &mut Vec<u32>) -> bool {
    let mut all = true;
    for &m in near {
        match held[m as usize] {
            NONE => {
                held[m as usize] = id;
                list.push(m);
            }
            h => all &= h == id,
        }
    }
    all
}

/// Holds every marker of `wanted` for agent `id` when none is held by another.
/// `Err` names the holder of the first marker held by another agent.
fn try_hold(held: &mut [u32], wanted: &[u32], id: u32) -> Result<(), u32> {
    if let Some(&m) = wanted.iter().find(|&&m| held[m as usize] != NONE && held[m as usize] != id) {
        return Err(held[m as usize]);
    }
    for &m in wanted {
        held[m as usize] = id;
    }
    Ok(())
}
