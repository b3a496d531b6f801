//! Space colonization (Rodrigues et al. 2010): tree paths grown over the
//! markers and walked with Eq 9 (`walk.rs`), direct motion for shape
//! formation (Eqs 10–12 with Eq 14's weights) and alignment masks
//! (`direct.rs`), the pursue / surround / escape variants, and the crowd
//! extension's marker reservation (Sec 6, `reserve.rs`).
//!
//! Invariants:
//! - an agent's [`Walker`] is its own: the parallel pass grows and walks it
//!   reading only the snapshot (positions, the marker tables of the last
//!   sequential stage); the tables themselves (`held` for reservations,
//!   `claimed` for surround) change only in the sequential stages
//!   ([`Model::settle`], [`Model::stop`]), in id order;
//! - tree growth draws its uniforms from the agent's own stream, one stream
//!   per growth iteration, numbered over the agent's life.

mod direct;
mod reserve;
mod walk;

use crate::ir::limits;
use crate::ir::params::SpaceColonization as Params;
use crate::ir::{Action, MaskId, PlannerKind, Program, ShapeId, Subject, Vec2};
use crate::plan::tree::{Lure, Tree, TreeParams, NO_NODE};
use crate::rng::Draws;
use crate::sim::sample::upper_bound;
use crate::sim::scene::Scene;
use crate::sim::stage::{Holds, Model, Own, Plan};
use crate::sim::workers::Workers;
use crate::world::grid::Grid;
use crate::world::markers::Change;

use reserve::{Tables, Walks};
use walk::{Growth, Rules, Walk, ROOM_PERIOD};

/// How a mode moves an agent by space colonization.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum How {
    /// A tree path towards the aim (seek, pursue), shared markers or disjoint
    /// ones (surround), with distance enforcement or marker reservation.
    Tree { reserve: bool, disjoint: bool },
    /// A tree path away from the centroid of a subject (Eq 13).
    Escape(Subject),
    /// Walk a tree to a random point of the shape's convex hull, then direct
    /// motion with Eq 14's weights (and a mask's, when aligning too).
    Form { shape: ShapeId, mask: Option<MaskId> },
    /// Direct motion with an alignment mask's weights.
    Align(MaskId),
}

/// What an agent driven by space colonization carries.
#[derive(Clone, Debug)]
pub(crate) struct Walker {
    pub how: How,
    pub walk: Walk,
}

/// How trees grow, from the model's parameters.
fn growth(p: &Params) -> Growth {
    Growth {
        tree: TreeParams { alpha: p.alpha, action_radius: p.action_radius, restriction: p.restriction },
        recompute: p.recompute_distance,
        max_iterations: p.max_iterations as u32,
        lookahead: p.lane_lookahead,
    }
}

/// The run's space-colonization state.
pub(crate) struct SpaceColonization {
    growth: Growth,
    /// Eq 14: the weight of a target shape's markers.
    w_max: f64,
    /// The largest personal space any population can draw, m.
    max_personal: f64,
    /// Who holds and who claimed which marker.
    tables: Tables,
    reserves: bool,
    claims: bool,
    /// Subjects escaped from, and their agents' centroid this step.
    escapes: Vec<Subject>,
    centroids: Vec<Option<Vec2>>,
}

impl Model for SpaceColonization {
    type Walker = Walker;
    type How = How;

    fn new(scene: &Scene) -> SpaceColonization {
        let program = scene.program;
        let Uses { reserves, claims, escapes } = Uses::of(program);
        let params = &program.params.space_colonization;
        SpaceColonization {
            growth: growth(params),
            w_max: params.w_max,
            max_personal: max_personal(program),
            tables: Tables::new(scene.markers.len(), reserves, claims),
            reserves,
            claims,
            centroids: vec![None; escapes.len()],
            escapes,
        }
    }

    fn how(action: &Action, mode: &[Action]) -> Option<How> {
        let mask = mode.iter().find_map(|a| match a {
            Action::Align { mask } => Some(*mask),
            _ => None,
        });
        match action {
            Action::Seek { planner, .. } | Action::Pursue { planner, .. } if planner.kind == PlannerKind::TreePaths => {
                Some(How::Tree { reserve: planner.reserve_markers, disjoint: planner.disjoint_markers })
            }
            Action::Surround { .. } => Some(How::Tree { reserve: false, disjoint: true }),
            Action::Escape { from } => Some(How::Escape(*from)),
            Action::Form { shape } => Some(How::Form { shape: *shape, mask }),
            Action::Align { mask } => Some(How::Align(*mask)),
            _ => None,
        }
    }

    fn marker_reach(program: &Program) -> Option<f64> {
        let growth = growth(&program.params.space_colonization);
        let reserves = Uses::of(program).reserves;
        // The crowd extension asks for a node's markers within α/2; the
        // others for a node's (A_r) or a personal space's.
        Some(if reserves {
            growth.reserve_radius()
        } else {
            growth.tree.action_radius.min(max_personal(program).max(0.1))
        })
    }

    fn plans_in_order(&self) -> bool {
        // Trees grow around the markers others hold or claim, and an agent
        // changing mode gives its markers back.
        self.reserves || self.claims
    }

    fn leads_out(how: How) -> bool {
        matches!(how, How::Tree { .. })
    }

    fn start(&mut self, scene: &Scene, i: usize, how: How, previous: Option<&Walker>) -> Walker {
        let pos = scene.agents.pos[i];
        let mut walk = Walk { at: 0, next: NO_NODE, aimed: pos, ..Walk::default() };
        match how {
            How::Align(_) => {}
            How::Tree { .. } | How::Escape(_) => walk.tree = Some(Tree::new(pos)),
            How::Form { shape, .. } => {
                // A new formation walk goes on counting the last one's hull points.
                walk.hull_draws =
                    previous.filter(|w| matches!(w.how, How::Form { .. })).map_or(0, |w| w.walk.hull_draws);
                walk.hull_goal = direct::hull_point(scene, i, shape, walk.hull_draws);
                walk.hull_draws += 1;
                walk.tree = Some(Tree::new(pos));
            }
        }
        Walker { how, walk }
    }

    fn stop(&mut self, scene: &Scene, i: usize, walker: &mut Walker) {
        self.tables.release(scene.agents.id[i], &mut walker.walk);
    }

    fn markers_changed<D: Holds<Walker>>(&mut self, scene: &Scene, drives: &mut [D], change: &Change) {
        self.tables.remap(&change.remap, scene.markers.len());
        // A node stood on an erased marker when its action region held one.
        let reach = self.growth.tree.action_radius.max(self.growth.reserve_radius());
        let erased = (!change.erased.is_empty()).then(|| {
            let mut grid = Grid::new(scene.markers.bounds(), reach.max(0.25), limits::MAX_GRID_CELLS);
            grid.rebuild(&change.erased);
            grid
        });
        for d in drives.iter_mut() {
            if let Some(w) = d.walker_mut() {
                w.walk.markers_changed(&change.remap, erased.as_ref(), reach);
            }
        }
    }

    fn perceive(&mut self, scene: &Scene) {
        // Eq 13: an escaping agent's lure is the centroid of the agents it escapes.
        let agents = &scene.agents;
        for (k, &s) in self.escapes.iter().enumerate() {
            let mut sum = Vec2::ZERO;
            let mut count = 0u32;
            for i in 0..agents.len() {
                if scene.aims.matches(s, agents.population[i]) {
                    sum += agents.pos[i];
                    count += 1;
                }
            }
            self.centroids[k] = (count > 0).then(|| sum / f64::from(count));
        }
    }

    fn prefetch(&self, walker: &Walker) {
        walker.walk.prefetch_vectors();
    }

    fn plan(&self, scene: &Scene, me: Own<'_, Walker>) -> Plan {
        let i = me.i;
        let Walker { how, walk } = me.walker;
        let mut plan = self.plan_walk(scene, i, *how, walk, me.draws);
        if matches!(how, How::Tree { reserve: true, .. }) {
            plan.settles = reserve::prepare_hold(walk, scene, self.growth.reserve_radius());
        }
        plan
    }

    fn settle<D: Holds<Walker> + Send>(
        &mut self,
        scene: &Scene,
        drives: &mut [D],
        settling: &[usize],
        workers: &Workers,
    ) {
        if self.reserves {
            self.tables.settle_reservations(scene, drives, settling, self.growth.reserve_radius(), workers);
        }
        if self.claims {
            self.tables.settle_claims(scene, drives, self.growth.tree.action_radius);
        }
    }
}

/// What a scenario's behaviours ask of space colonization.
struct Uses {
    /// Some tree reserves markers (the crowd extension).
    reserves: bool,
    /// Some tree claims markers (surround).
    claims: bool,
    /// The subjects escaped from, in order of appearance.
    escapes: Vec<Subject>,
}

impl Uses {
    fn of(program: &Program) -> Uses {
        let mut uses = Uses { reserves: false, claims: false, escapes: Vec::new() };
        for a in program.behaviours.iter().flat_map(|b| b.body.actions()) {
            match SpaceColonization::how(a, &[]) {
                Some(How::Tree { reserve, disjoint }) => {
                    uses.reserves |= reserve;
                    uses.claims |= disjoint;
                }
                Some(How::Escape(from)) if !uses.escapes.contains(&from) => uses.escapes.push(from),
                _ => {}
            }
        }
        uses
    }
}

/// The largest personal space any population can draw, m.
fn max_personal(program: &Program) -> f64 {
    program.populations.iter().map(|p| upper_bound(&p.personal_space)).fold(0.0, f64::max)
}

impl SpaceColonization {
    /// Phase 4: grows and walks the agent's tree, or computes its direct-motion direction.
    fn plan_walk(&self, scene: &Scene, i: usize, how: How, walk: &mut Walk, draws: &mut Draws) -> Plan {
        let agents = &scene.agents;
        let pos = agents.pos[i];
        let idle = Plan::stand(pos);
        if let (true, How::Tree { reserve, .. }) = (agents.leaving[i], how) {
            // A leaving agent keeps walking its tree (towards the exit, its aim now).
            return match scene.aim_point(i, agents.aim[i]) {
                Some(p) => self.growth.plan(scene, i, walk, draws, Lure::Goal(p), self.rules(reserve, false)),
                None => idle,
            };
        }
        if let (true, How::Tree { reserve: false, disjoint: false }) = (agents.arrived[i], how) {
            if let Some(j) = scene.aims.agent(i, agents.aim[i]) {
                // NOTE: at a moving target (pursue) the paper says nothing of
                // arrival. A pursuer that stood until the target left and then
                // walked at its own speed went in fits and starts: it keeps to
                // the target's heels at the target's pace instead, and its
                // tree starts again where it stands for when the target draws away.
                // Its heels are `t_min` short of it: the pursuer does not push it.
                let g = agents.pos[j];
                walk.restart(pos, g);
                let heels = g + crate::math::unit(pos - g).unwrap_or(Vec2::ZERO) * scene.min_distance;
                let pace = (agents.vel[j].length() / agents.speed[i].max(f64::MIN_POSITIVE)).min(1.0);
                return Plan { pace, ..Plan::walk_to(heels) };
            }
        }
        // A surrounding pursuer that arrived keeps its place round the
        // target, and follows it when it moves.
        let surrounds = matches!(how, How::Tree { disjoint: true, .. }) && scene.program.switches.surround_evenly;
        if agents.leaving[i] || agents.arrived[i] && !matches!(how, How::Escape(_)) && !surrounds {
            return match scene.aim_point(i, agents.aim[i]) {
                Some(p) if agents.leaving[i] => Plan::walk_to(p),
                _ => idle,
            };
        }
        match how {
            How::Align(mask) => direct::direct_plan(scene, i, None, Some(mask), self.w_max, self.max_personal),
            How::Form { shape, mask } => {
                let view = direct::shape_view(scene, i, shape);
                walk.room_wait -= scene.clock.dt;
                let reached = match walk.stands {
                    true => walk.room_wait <= 0.0,
                    false => !walk.direct && pos.distance(walk.hull_goal) <= scene.stride(i),
                };
                // A walk to a roomier part of the shape ends within sight of
                // it, or where the crowd held the walker for a while.
                // A former that stands keeps its place until it looks again.
                let near_room = match walk.stands {
                    true => walk.room_wait <= 0.0,
                    false => !walk.room || pos.distance(walk.hull_goal) <= agents.personal[i] || walk.room_wait <= 0.0,
                };
                let roomier = if walk.direct && view.free && walk.room_wait <= 0.0 {
                    walk.room_wait = ROOM_PERIOD;
                    let q = direct::roomier_point(scene, i, shape, walk.hull_draws);
                    walk.hull_draws += 1;
                    q
                } else {
                    None
                };
                if let Some(q) = roomier {
                    // NOTE: Eqs 10–12 over the markers closest to each agent
                    // settle wherever each has its markers to itself, packed
                    // in the first part of the shape reached and sparse in
                    // the rest. "Fighting for space", a former that sees a
                    // part of its shape with half as much room again as where
                    // it stands walks there.
                    *walk = Walk::to_shape_point(pos, q, walk.hull_draws, true);
                } else if view.free && (walk.direct || near_room) {
                    if !walk.direct {
                        (walk.direct, walk.stands) = (true, false);
                        walk.tree = None;
                        walk.room_wait = ROOM_PERIOD;
                    }
                } else if view.free {
                    // On the way to a roomier part of the shape, or standing.
                } else if walk.direct {
                    // NOTE: a former pressed out of its markers holds its
                    // place for a while before it looks elsewhere: at a full
                    // shape's edge a step in wins a marker and the push back
                    // loses it, and looking at once had it walk off, or in
                    // and out, every other step for good.
                    *walk = Walk::pressing(pos, pos, walk.hull_draws);
                } else if reached || view.sees && (!walk.room || walk.room_wait <= 0.0) {
                    // NOTE: the paper's agents follow the shape markers in
                    // their personal space. When every one of those is closer
                    // to another agent (the part of the shape in sight is
                    // full) the agent walks on to a shape marker with room
                    // around it instead of pressing against the others.
                    // The hull of a concave shape (an H) also holds points
                    // far from any of its markers; an agent that reaches one
                    // without seeing the shape draws another hull point.
                    // Where no marker drawn has room for a body (the shape is
                    // full) the former stands at its edge and looks again
                    // later, instead of walking round it for good.
                    let room = view.sees || walk.direct || walk.room;
                    let drawn = if room { direct::room_point(scene, i, shape, walk.hull_draws) } else { None };
                    *walk = match drawn {
                        Some((room, _)) if room < direct::BODY_ROOM * scene.min_distance => {
                            let edge = direct::edge_point(scene, i, shape).unwrap_or(pos);
                            Walk::pressing(pos, edge, walk.hull_draws + 1)
                        }
                        Some((_, q)) => Walk::to_shape_point(pos, q, walk.hull_draws + 1, true),
                        None => {
                            let q = direct::hull_point(scene, i, shape, walk.hull_draws);
                            Walk::to_shape_point(pos, q, walk.hull_draws + 1, false)
                        }
                    };
                }
                if walk.stands {
                    // Pressing ends where a body stops the former, short of
                    // the edge or on it: it stands there.
                    let gap = pos.distance(walk.hull_goal);
                    let stride = scene.stride(i);
                    let step = pos + crate::math::unit(walk.hull_goal - pos).unwrap_or(Vec2::ZERO) * stride;
                    let blocked = gap <= stride
                        || gap > walk.gap - stride / 4.0
                        || direct::room_at(scene, i, step, scene.min_distance) < scene.min_distance;
                    walk.gap = if blocked { 0.0 } else { gap };
                    if walk.gap == 0.0 {
                        Plan::stand(pos)
                    } else {
                        Plan::walk_to(walk.hull_goal)
                    }
                } else if walk.direct {
                    direct::direct_plan(scene, i, Some(shape), mask, self.w_max, self.max_personal)
                } else {
                    let goal = Lure::Goal(walk.hull_goal);
                    self.growth.plan(scene, i, walk, draws, goal, self.rules(false, false))
                }
            }
            How::Tree { reserve, disjoint } => match scene.aim_point(i, agents.aim[i]) {
                Some(g) => self.growth.plan(scene, i, walk, draws, Lure::Goal(g), self.rules(reserve, disjoint)),
                None => idle,
            },
            How::Escape(from) => match self.centroid(from) {
                Some(c) => self.growth.plan(scene, i, walk, draws, Lure::Away(c), self.rules(false, false)),
                None => idle,
            },
        }
    }

    /// The centroid of the agents of subject `from` this step, if it has any.
    fn centroid(&self, from: Subject) -> Option<Vec2> {
        let k = self.escapes.iter().position(|s| *s == from)?;
        self.centroids[k]
    }

    /// How a tree walk goes this step, with the tables of the last settle.
    fn rules(&self, reserve: bool, disjoint: bool) -> Rules<'_> {
        Rules { reserve, disjoint, held: &self.tables.held, claimed: &self.tables.claimed }
    }
}

/// A drive as the markers' bookkeeping sees it.
impl<D: Holds<Walker>> Walks for D {
    fn walk(&mut self) -> Option<&mut Walk> {
        self.walker_mut().map(|w| &mut w.walk)
    }

    fn reserving(&mut self) -> Option<&mut Walk> {
        self.walker_mut().filter(|w| matches!(w.how, How::Tree { reserve: true, .. })).map(|w| &mut w.walk)
    }

    fn claiming(&mut self) -> Option<&mut Walk> {
        self.walker_mut().filter(|w| matches!(w.how, How::Tree { disjoint: true, .. })).map(|w| &mut w.walk)
    }
}
