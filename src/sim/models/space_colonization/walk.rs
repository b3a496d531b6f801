//! Tree paths walked (Rodrigues et al. 2010, Eqs 1–7 and 9, with the branch
//! deaths of Sec 4.1 and the pursue crossing of Fig 3), and a blocked crowd
//! agent's way around (Sec 6).

use crate::ir::{Vec2, NONE};
use crate::math::{self, unit};
use crate::plan::tree::{Field, Lure, Tree, TreeParams, NO_NODE};
use crate::rng::{stream, Draws, Purpose};
use crate::sim::cache;
use crate::sim::scene::Scene;
use crate::sim::stage::Plan;
use crate::world::bare::{self, Bare};
use crate::world::geometry::{polyline_length, segment_distance};
use crate::world::grid::Grid;
use crate::world::markers::Markers;
use std::f64::consts::{PI, TAU};

/// Shape formation: how often a former in direct motion looks at one other
/// part of its shape for more room, s.
pub(super) const ROOM_PERIOD: f64 = 2.0;

/// A crowd agent that has waited this long for a node's markers regrows its
/// path around the markers others hold, s.
const PATIENCE: f64 = 1.0;
/// The same when the blocker comes the other way or stands still, s.
const URGENT_PATIENCE: f64 = 0.25;
/// A walking agent that has come no closer to its next node for this long
/// (another body stands on it, or pushes back) regrows from where it stands, s.
const STALL_PATIENCE: f64 = 1.0;
/// A surrounding pursuer whose tree has found no marker of its own for this
/// long grows over the others' markers until it lands on a node, s: the
/// paper is silent, and a pursuer hemmed in by its pack's claims would
/// otherwise stand for the rest of the run.
const STARVED_PATIENCE: f64 = 0.5;
/// A crowd agent whose tree has added no node for this long counts its tree
/// as dry, as one that cannot grow a node from where it stands, s.
const BARREN_PATIENCE: f64 = 1.0;
/// Coming closer by less than this fraction of a step is no progress.
const PROGRESS: f64 = 0.1;
/// Ancestors kept behind the node an agent walks from: enough for the
/// Voronoi competition of Eq 1 near the agent, few enough to keep trees small.
const KEEP_BEHIND: u32 = 2;

/// How trees grow and are walked: Eqs 1–7's constants, the regrowing
/// distance and the growth cap, read once per run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Growth {
    pub tree: TreeParams,
    /// `R_d`: the goal moved this far from where the tree was aimed: regrow.
    pub recompute: f64,
    pub max_iterations: u32,
    /// The crowd extension: how far ahead a walker sees people coming the
    /// other way and keeps right of them (0: never), m.
    pub lookahead: f64,
}

impl Growth {
    /// The crowd extension's action radius (Sec 6: `A_r = α/2`, so a node's
    /// markers and its neighbours' cover the segments between them).
    pub fn reserve_radius(&self) -> f64 {
        self.tree.alpha / 2.0
    }
}

/// How an agent walks its tree this step, and what the others hold: the
/// marker tables of the last settle.
#[derive(Clone, Copy)]
pub(crate) struct Rules<'a> {
    /// The crowd extension: reserve markers instead of distance enforcement.
    pub reserve: bool,
    /// Surround: grow over markers no other pursuer's tree claimed.
    pub disjoint: bool,
    /// By marker: the agent holding it, or `NONE`.
    pub held: &'a [u32],
    /// By marker: the agent whose tree claimed it, or `NONE`.
    pub claimed: &'a [u32],
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
    /// Hull points drawn so far by this formation walk.
    pub hull_draws: u64,
    /// Shape formation: `hull_goal` is a shape marker with room around it,
    /// drawn when the shape markers in sight were all another's.
    pub room: bool,
    /// Shape formation: no shape marker drawn had room for a body; the
    /// former presses on the shape's edge at `hull_goal` until a body stops
    /// it, then stands, until `room_wait` runs out.
    pub stands: bool,
    /// Pressing: the distance to the edge after the last step (0 once standing).
    pub gap: f64,
    /// Direct motion: time until the former next looks for a roomier part
    /// of its shape, s.
    pub room_wait: f64,
    /// Reservation: whether the agent holds the markers of `at` and of `next`.
    pub holds_at: bool,
    pub granted: bool,
    pub held_at: Held,
    pub held_next: Held,
    /// The markers of the node walked from and of the next node: what the
    /// agent asks for, step after step, until it holds them.
    pub at_markers: NodeMarkers,
    pub next_markers: NodeMarkers,
    /// Reached `next` in the last pass: its markers become `held_at`.
    pub moved_on: bool,
    /// Walked past the middle of its segment in the last pass: the markers
    /// of the node walked from no longer cover the way ahead, and go back.
    pub left_at: bool,
    /// Walks its segment, holding all of the node walked from: the markers
    /// its body has passed go back in the next pass.
    pub passing: bool,
    /// Steps waited for a grant.
    pub waited: u32,
    /// Regrowing around the markers others hold.
    pub avoid: bool,
    /// The agent blocking the next node walks the other way or stands still.
    pub urgent: bool,
    /// The agent blocking the next node has arrived where it was going, and
    /// stands nearer the aim.
    pub behind_arrived: bool,
    /// Surround: markers this agent's tree claimed at the last settle. A
    /// later tree with a nearer node may have taken some of them since:
    /// `Tables::claimed` says whose each one is, and every give-back checks it.
    pub claimed: Vec<u32>,
    /// Pursue: the tree regrown for the target's new place, rooted at the
    /// next node, growing while the agent walks on along its way.
    pub fresh: Option<Tree>,
    /// How the walk to the next node goes.
    pub progress: Progress,
    /// Steps its tree could not grow a single node.
    pub starved_steps: u32,
    /// Growth iterations in a row that added no node to the tree.
    pub barren: u32,
    /// The side (1 left, -1 right) a walker keeping its distance last
    /// stepped to from a dry leaf.
    pub dry_side: Option<f64>,
    /// Escaping: where the tree last started again because its best branch
    /// led back towards the followers.
    pub turned_back_at: Option<Vec2>,
}

/// The node last walked to, the closest the agent came to it, and the steps
/// since it last came closer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Progress {
    toward: Vec2,
    closest: f64,
    stalled: u32,
}

impl Walk {
    /// A hint: the vectors a plan reads first are brought into cache.
    pub fn prefetch_vectors(&self) {
        if let Some(tree) = &self.tree {
            cache::prefetch_slice(tree.nodes());
        }
        cache::prefetch_slice(&self.at_markers.ids);
        cache::prefetch_slice(&self.next_markers.ids);
    }

    /// The node walked from, while its markers are not all held.
    pub fn unheld_at(&self) -> Option<Vec2> {
        let tree = self.tree.as_ref()?;
        (!self.holds_at && (self.at as usize) < tree.len()).then(|| tree.pos(self.at))
    }

    /// The next node, while its markers are not granted.
    pub fn ungranted_next(&self) -> Option<Vec2> {
        let tree = self.tree.as_ref()?;
        (!self.granted && self.next != NO_NODE && (self.next as usize) < tree.len()).then(|| tree.pos(self.next))
    }

    /// The markers changed (a marker event): the marker ids it keeps follow
    /// `remap` (old id to new, `NONE` when erased), the cached node markers
    /// and the tree's sets are dropped, and when a node ahead of the one
    /// walked from has an erased marker within `reach` (`erased`: their
    /// index), everything ahead is cut so the tree regrows at once over the
    /// markers there are now ("when markers are removed, agents immediately
    /// adjust their paths", Sec 6.1). Whether the tree was cut.
    pub fn markers_changed(&mut self, remap: &[u32], erased: Option<&Grid>, reach: f64) -> bool {
        let rename = |m: &mut u32| {
            *m = remap.get(*m as usize).copied().unwrap_or(NONE);
            *m != NONE
        };
        self.held_at.retain(|m, _| rename(m));
        self.held_next.retain(|m, _| rename(m));
        self.claimed.retain_mut(rename);
        self.at_markers = NodeMarkers::default();
        self.next_markers = NodeMarkers::default();
        let Some(tree) = &mut self.tree else { return false };
        tree.forget_markers();
        let (Some(erased), true) = (erased, (self.at as usize) < tree.len()) else { return false };
        let ahead = tree.subtree(self.at);
        let r2 = reach * reach;
        let hit = (self.at as usize + 1..tree.len()).any(|n| {
            let p = tree.pos(n as u32);
            let mut near = false;
            erased.for_each_near(p, reach, |_, q| near |= q.distance_squared(p) <= r2);
            ahead[n] && near
        });
        if hit {
            self.cut_ahead();
        }
        hit
    }

    /// Shape formation: a fresh walk on a new tree from `pos` to the shape
    /// point `goal`, with `draws` points drawn so far; `room`: a walk to a
    /// part of the shape with room, which gives up after [`ROOM_PERIOD`].
    pub fn to_shape_point(pos: Vec2, goal: Vec2, draws: u64, room: bool) -> Walk {
        Walk {
            tree: Some(Tree::new(pos)),
            at: 0,
            next: NO_NODE,
            aimed: goal,
            hull_goal: goal,
            hull_draws: draws,
            room,
            room_wait: ROOM_PERIOD,
            ..Walk::default()
        }
    }

    /// Shape formation: pressing from `pos` on the shape's edge at `edge`,
    /// with `draws` points drawn so far, until [`ROOM_PERIOD`] has passed.
    pub fn pressing(pos: Vec2, edge: Vec2, draws: u64) -> Walk {
        Walk { stands: true, gap: f64::INFINITY, ..Walk::to_shape_point(pos, edge, draws, true) }
    }

    /// A new tree where the agent stands, aimed at `point`.
    pub fn restart(&mut self, pos: Vec2, point: Vec2) {
        match &mut self.tree {
            Some(tree) => tree.reroot(pos),
            None => self.tree = Some(Tree::new(pos)),
        }
        (self.at, self.next, self.done, self.aimed) = (0, NO_NODE, false, point);
        self.fresh = None;
        self.barren = 0;
    }

    /// Escaping, a runner whose regrown tree again leads only back towards
    /// the followers: a step away from them, as near straight away as is
    /// clear, on free markers, and farther from them; `None` the first time
    /// at a spot (the tree starts again there) or when no such step is free.
    ///
    /// NOTE: at an obstacle's corner every marker the runner's tree can
    /// reach lies on the followers' side, so the tree regrown there grew
    /// the same branches back, step after step: a runner pressed to a
    /// boulder's corner stood 4 s while the pack closed in, with the way
    /// round the boulder's far side open (`fig11_escape_four`, seed 19).
    /// The paper is silent; the runner steps round the corner.
    fn cornered(
        &mut self,
        scene: &Scene,
        i: usize,
        from: Vec2,
        lure: Lure,
        params: TreeParams,
        held: &[u32],
    ) -> Option<Vec2> {
        let Lure::Away(c) = lure else { return None };
        if self.turned_back_at.replace(from) != Some(from) || !scene.program.switches.escape_round_corners {
            return None;
        }
        let away = from + (from - c);
        let step = sidestep(scene, i, held, from, away, params, Turns::AheadFirst)
            .filter(|&step| lure.score(step) <= lure.score(from))?;
        self.turned_back_at = None;
        Some(step)
    }

    /// Branch death for a pursuer on its way: everything beyond the node it
    /// walks to is cut, and the tree regrows from there.
    fn cut_beyond_next(&mut self) {
        if let Some(tree) = &mut self.tree {
            let next = self.next;
            tree.prune_at(next, NO_NODE, &mut [&mut self.at, &mut self.next]);
            tree.iterations = 0;
        }
        self.done = false;
    }

    /// Pursue, once the regrown tree reached the target `g` at its node
    /// `best` (or ran out of iterations, `ended`): its way replaces the kept
    /// one when it is the shorter, both measured from its root along their
    /// nodes and then straight to `g`; the kept way counts only when its
    /// best node has `g` in sight of a body of `radius`.
    fn settle_regrown(&mut self, scene: &Scene, lure: Lure, g: Vec2, best: u32, ended: bool, radius: f64) {
        let (Some(tree), Some(fresh)) = (&self.tree, self.fresh.take()) else { return };
        let way = way_of(&fresh, best);
        let fresh_len = if ended { f64::INFINITY } else { way_length(&way, g) };
        let root = fresh.pos(0);
        let head = if self.next != NO_NODE { self.next } else { self.at };
        let kept = tree.best_in(head, lure);
        let kept_way = way_of(tree, kept);
        let from_root = kept_way.iter().position(|&q| q == root).map(|k| &kept_way[k..]);
        let kept_len = match from_root {
            Some(w) if scene.space.segment_clear(tree.pos(kept), g, radius) => way_length(w, g),
            _ => f64::INFINITY,
        };
        if fresh_len < kept_len {
            self.graft(root, &way);
        }
    }

    /// The regrown way in place of the kept one, from the node at `root`:
    /// the next node, or the node walked from once the agent reached it. A
    /// walk that has gone on past `root` keeps its way.
    fn graft(&mut self, root: Vec2, way: &[Vec2]) {
        let Some(tree) = &self.tree else { return };
        let mut k = if self.next != NO_NODE && tree.pos(self.next) == root {
            self.cut_beyond_next();
            self.next
        } else if tree.pos(self.at) == root {
            self.cut_ahead();
            self.at
        } else {
            return;
        };
        let Some(tree) = &mut self.tree else { return };
        for &q in way.iter().skip(1) {
            k = tree.push_child(k, q);
            if self.next == NO_NODE {
                self.next = k;
            }
        }
        self.done = true;
    }

    /// Branch death: everything ahead of the node walked from is cut, and the
    /// tree regrows from there.
    fn cut_ahead(&mut self) {
        if let Some(tree) = &mut self.tree {
            let at = self.at;
            tree.prune_at(at, NO_NODE, &mut [&mut self.at]);
            tree.iterations = 0;
        }
        self.barren = 0;
        self.next = NO_NODE;
        self.granted = false;
        self.done = false;
    }

    /// Branch death, and one new branch from the node walked from to `to`,
    /// which becomes the next node.
    fn branch_to(&mut self, to: Vec2) {
        self.cut_ahead();
        self.next = self.tree.as_mut().map_or(NO_NODE, |t| t.push_child(self.at, to));
    }
}

/// The markers within reach of one node, kept while the node stays the same.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeMarkers {
    node: Option<Vec2>,
    pub ids: Vec<u32>,
    /// Where each of `ids` lies, read with it from the index.
    pub points: Vec<Vec2>,
}

impl NodeMarkers {
    /// The markers within `r` of `node`, in the index's query order.
    pub fn of(&mut self, markers: &Markers, grid: &Grid, node: Vec2, r: f64) -> &[u32] {
        if self.node != Some(node) {
            self.ids.clear();
            self.points.clear();
            markers.within_at(grid, node, r, |m, q| {
                self.ids.push(m);
                self.points.push(q);
            });
            self.node = Some(node);
        }
        &self.ids
    }
}

/// Markers an agent holds, with where they lie: the pass that gives back
/// those its body has passed reads them here, in a row, rather than from
/// the marker table, most of which is out of cache by then.
#[derive(Clone, Debug, Default)]
pub(crate) struct Held {
    pub ids: Vec<u32>,
    points: Vec<Vec2>,
}

impl Held {
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn push(&mut self, m: u32, q: Vec2) {
        self.ids.push(m);
        self.points.push(q);
    }

    /// Becomes a copy of `markers`' list.
    pub fn copy_from(&mut self, markers: &NodeMarkers) {
        self.ids.clone_from(&markers.ids);
        self.points.clone_from(&markers.points);
    }

    /// Keeps the markers for which `keep(id, point)` holds, in order; `keep`
    /// may rename the id it keeps.
    pub fn retain(&mut self, mut keep: impl FnMut(&mut u32, Vec2) -> bool) {
        let mut kept = 0;
        for k in 0..self.ids.len() {
            let (mut m, q) = (self.ids[k], self.points[k]);
            if keep(&mut m, q) {
                (self.ids[kept], self.points[kept]) = (m, q);
                kept += 1;
            }
        }
        self.ids.truncate(kept);
        self.points.truncate(kept);
    }

    /// Empties the list, handing out its ids.
    pub fn drain(&mut self) -> std::vec::Drain<'_, u32> {
        self.points.clear();
        self.ids.drain(..)
    }
}

/// Whether `p` lies on the segment `[a, b]` (to rounding): the rest of a
/// segment that was clear when its node was made is clear too.
fn on_segment(p: Vec2, a: Vec2, b: Vec2) -> bool {
    const ON: f64 = 1e-9;
    let ab = b - a;
    let len2 = ab.length_squared();
    len2 > 0.0 && (p - a).perp_dot(ab).abs() <= ON * len2 && (p - a).dot(ab) >= 0.0 && (p - a).dot(ab) <= len2
}

impl Growth {
    /// Grows agent `i`'s tree one iteration and walks it (Eq 9): the plan's
    /// target is the next path node, or the goal once the last node is reached.
    pub fn plan(&self, scene: &Scene, i: usize, walk: &mut Walk, draws: &mut Draws, lure: Lure, rules: Rules) -> Plan {
        let Rules { reserve, disjoint, held, claimed } = rules;
        let agents = &scene.agents;
        let pos = agents.pos[i];
        let id = agents.id[i];
        let beta = scene.stride(i);
        let mut params = self.tree;
        if reserve {
            params.action_radius = self.reserve_radius();
        }
        // Switched off (the model-break test), any wait behind someone who arrived is arriving.
        let fill_from_aim = scene.program.switches.fill_from_aim;
        let still =
            Plan { active: !fill_from_aim && reserve && walk.behind_arrived, enforce: !reserve, ..Plan::stand(pos) };
        if walk.tree.as_ref().is_none_or(Tree::is_empty) {
            walk.tree = Some(Tree::new(pos));
        }
        let point = match lure {
            Lure::Goal(g) | Lure::Away(g) => g,
        };
        if let (true, true, Lure::Goal(g)) = (disjoint, scene.program.switches.surround_evenly, lure) {
            if let Some(plan) = close_in(scene, i, g, params) {
                walk.restart(pos, g);
                return plan;
            }
        }
        // Branch death (ii): the goal moved farther than R_d: regrow.
        if point.distance(walk.aimed) > self.recompute {
            match lure {
                // NOTE: a pursuer on its last leg regrows where it stands. The node it
                // walked from may lie behind it, a last leg or more back (it
                // walks straight to a target within α of its last node, and
                // stands while it has arrived): regrown from there, it turned
                // back to that node and fell metres behind a target it was
                // at the heels of (`pursuit_pillar`).
                Lure::Goal(_) if !reserve && !disjoint && walk.next == NO_NODE => walk.restart(pos, point),
                // On its way, a pursuer keeps the node it walks to: a tree
                // regrown where it stood could take the other side of an
                // obstacle each time, back and forth (fig03_pursue). And it
                // walks on along its way while the regrown tree grows from
                // that node: cut there at once, the regrown tree's first
                // branch round a long wall was the one along it towards the
                // target, and a hunter two metres short of the wall's far
                // end turned back under the whole wall (`pursuit_wall`).
                Lure::Goal(_) if !reserve && !disjoint => {
                    if scene.program.switches.pursuit_keeps_way {
                        walk.fresh = walk.tree.as_ref().map(|t| Tree::new(t.pos(walk.next)));
                        walk.done = false;
                    } else {
                        walk.cut_beyond_next();
                    }
                    walk.aimed = point;
                }
                _ => {
                    walk.cut_ahead();
                    walk.aimed = point;
                }
            }
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
                    walk.fresh = None;
                }
            }
        }
        let grows = !walk.done && tree.iterations < self.max_iterations;
        if grows || walk.fresh.is_some() {
            let avoid = walk.avoid;
            let own = disjoint && walk.starved_steps as f64 * scene.clock.dt < STARVED_PATIENCE;
            let usable = move |m: u32| {
                let m = m as usize;
                (!own || claimed[m] == NONE || claimed[m] == id) && (!avoid || held[m] == NONE || held[m] == id)
            };
            // A walker whose fresh tree found nothing to grow into last step may
            // stop short of an obstacle (fig09_spray_erase: markers thinned by
            // an erase pulled every full step into the bench, for good).
            let shorten = walk.starved_steps > 0 && !reserve;
            let field = Field {
                index: &scene.marker_grid,
                walk: &scene.space,
                bare: bare_ground(scene),
                clearance: agents.radius[i],
                usable,
                shorten,
            };
            let mut rng = stream(scene.seed, Purpose::TreeGrowth, scene.entity(i), draws.next(Purpose::TreeGrowth));
            let head = if walk.next != NO_NODE { walk.next } else { walk.at };
            if grows {
                let born = tree.grow(&field, &params, lure, head, &mut || rng.unit());
                walk.barren = if born == 0 { walk.barren + 1 } else { 0 };
                if let Lure::Goal(g) = lure {
                    let best = tree.best_in(head, lure);
                    if tree.pos(best).distance(g) <= params.alpha {
                        walk.done = true;
                    }
                }
            }
            if let (Some(fresh), Lure::Goal(g)) = (&mut walk.fresh, lure) {
                fresh.grow(&field, &params, lure, 0, &mut || rng.unit());
                let best = fresh.best_in(0, lure);
                let ended = fresh.iterations >= self.max_iterations;
                if ended || fresh.pos(best).distance(g) <= params.alpha {
                    walk.settle_regrown(scene, lure, g, best, ended, agents.radius[i]);
                }
            }
        }
        // Reservation: move only once the next node's markers are held (the
        // node walked from is held, or partly held while others stand on the rest).
        if reserve && walk.next != NO_NODE && !walk.granted {
            walk.waited += 1;
            // Patience varies by agent so that agents blocking each other do not all turn at once.
            let base = if walk.urgent { URGENT_PATIENCE } else { PATIENCE };
            let patience = base * (0.5 + (crate::hash::splitmix64(u64::from(id)) >> 11) as f64 / (1u64 << 53) as f64);
            if f64::from(walk.waited) * scene.clock.dt >= patience {
                walk.cut_ahead();
                walk.avoid = true;
                walk.waited = 0;
                let tree = walk.tree.get_or_insert_with(|| Tree::new(pos));
                let turns = if walk.urgent && self.lookahead > 0.0 { Turns::KeepRight } else { Turns::EitherSide };
                match sidestep(scene, i, held, tree.pos(walk.at), point, params, turns) {
                    Some(side) => walk.next = tree.push_child(walk.at, side),
                    // NOTE: boxed in behind someone who has arrived counts as
                    // walking, blocked: inside the goal region that is arriving
                    // too. Only boxed in: counted as soon as it waited there,
                    // a crowd gathering in a room stood in a crust along the
                    // side it came from, the rest of the room empty and the
                    // later comers shut out (`gather_room`); a walker that can
                    // still step round those who arrived walks on, so a region
                    // fills from its aim outwards on every side.
                    None if walk.behind_arrived => return Plan { active: true, ..still },
                    None => {}
                }
            }
            return still;
        }
        walk.waited = 0;
        if walk.next == NO_NODE && self.choose_next(scene, i, walk, lure, params, rules) && reserve {
            return still;
        }
        let tree = walk.tree.get_or_insert_with(|| Tree::new(pos));
        if walk.next == NO_NODE {
            // At a leaf: the goal is near (walk to it), or the tree is still growing, or it is stuck.
            return match lure {
                Lure::Goal(g) if walk.done => {
                    if reserve {
                        // The last leg is reserved like any segment: the goal becomes the next node.
                        if pos.distance(g) > beta && way_clear(scene, tree.pos(walk.at), g, 0.0) {
                            walk.next = tree.push_child(walk.at, g);
                            walk.granted = false;
                        }
                        return still;
                    }
                    if disjoint && !approach_is_own(scene, claimed, id, pos, g, params.action_radius) {
                        // Surround: the last leg would close in through another
                        // pursuer's markers, from its side: grow on round the target.
                        walk.cut_ahead();
                        return Plan::walk_to(walk.tree.as_ref().map_or(pos, |t| t.pos(walk.at)));
                    }
                    Plan::walk_to(g)
                }
                _ => {
                    // No branch leaves the node the agent stands on: growing
                    // since the last cut has found nothing to grow into from
                    // here. A reserving agent keeps its tree while it waits
                    // (the markers it grows around are held, not gone), but
                    // only for a while.
                    //
                    // NOTE: a tree whose every node faces an obstacle between
                    // it and the goal draws each child of Eqs 4-7 into the
                    // obstacle and grows nothing, iteration after iteration,
                    // though a tree of more than one node is never found dry:
                    // a reserving walker alone stood 19 s in all at a 5 x 5 m
                    // block across its way (three waits of 4-8 s, each until
                    // the growth cap), and walked round it in none of seeds
                    // 1-10 within 35 s (`round_block`).
                    let barren = scene.program.switches.barren_is_dry
                        && f64::from(walk.barren) * scene.clock.dt >= BARREN_PATIENCE;
                    let dry = if reserve { tree.len() == 1 || barren } else { true };
                    // NOTE: a tree started again on the spot, at the edge of an
                    // erased patch, grew two or three nodes along its edge, to
                    // one side or the other as its draws fell, and was dry
                    // again: a walker keeping its distance went back and forth
                    // along the edge for 8 s, stepped 0.08 m into the patch,
                    // and at 6 of seeds 1-20 was not across by 40 s
                    // (`erase_in_the_way_enforced`). Stepping for the goal
                    // takes the same side each time (see `sidestep`). An
                    // escaping runner (away from its lure) and a surrounding
                    // pursuer start again instead.
                    let steps_on = reserve
                        || matches!(lure, Lure::Goal(_)) && !disjoint && scene.program.switches.dry_leaf_steps_on;
                    if steps_on && dry && tree.iterations > 0 {
                        // NOTE: beside a wall the markers of Eqs 5–6 can draw every
                        // child into it; the tree regrown on the same spot draws
                        // the same child, and the walker stood for good, holding up
                        // everyone behind it (counterflow at 100 per direction,
                        // seeds 1–20: 104 standing in an empty corridor at the
                        // end). The paper is silent; it steps for its goal, or as
                        // near that way as is clear and free, and its tree grows
                        // again from there.
                        let from = tree.pos(walk.at);
                        let turns = walk.dry_side.map_or(Turns::AheadFirst, Turns::AheadThen);
                        if let Some(step) = sidestep(scene, i, held, from, point, params, turns) {
                            if !reserve {
                                let side = (point - from).perp_dot(step - from);
                                if side != 0.0 {
                                    walk.dry_side = Some(side.signum());
                                }
                            }
                            walk.next = tree.push_child(walk.at, step);
                            walk.granted = false;
                            (tree.iterations, walk.barren) = (0, 0);
                            return still;
                        }
                    }
                    if tree.iterations >= self.max_iterations || dry && tree.iterations > 0 {
                        // Start over where the agent stands.
                        walk.starved_steps += 1;
                        walk.restart(pos, point);
                    }
                    still
                }
            };
        }
        let node = tree.pos(walk.next);
        if reserve && !walk.held_at.is_empty() && pos.distance(tree.pos(walk.at)) >= self.reserve_radius() {
            // Past the middle of the segment: with A_r = α/2 the next node's
            // markers cover the rest of the way (Sec 6), so the agent
            // behind may have the node walked from.
            walk.left_at = true;
        } else if reserve && walk.granted && walk.holds_at && !walk.held_at.is_empty() {
            walk.passing = true;
        }
        if pos.distance(node) <= beta {
            // Lands on the node this step: it becomes the node walked from.
            walk.starved_steps = 0;
            walk.at = walk.next;
            walk.next = NO_NODE;
            walk.moved_on = reserve;
            walk.granted = false;
            let at = walk.at;
            tree.forget_behind(at, KEEP_BEHIND, &mut [&mut walk.at]);
        } else if pos.distance(tree.pos(walk.at)) > beta
            && !on_segment(pos, tree.pos(walk.at), node)
            && !scene.space.segment_clear(pos, node, agents.radius[i])
        {
            // Pushed off the path behind an obstacle: back to the node walked from.
            return Plan { enforce: !reserve, ..Plan::walk_to(tree.pos(walk.at)) };
        }
        if !reserve && walk.progress.stalls(node, pos.distance(node), beta, scene.clock.dt) {
            // Blocked short of the node: a path from here goes round what blocks it.
            walk.restart(pos, point);
            return still;
        }
        Plan { enforce: !reserve, ..Plan::walk_to(node) }
    }

    /// At the node walked from: the branch to walk next (the one that brings
    /// the agent closest to the lure, the others pruned), or for a crowd
    /// walker who sees someone come the other way on it, a node to the
    /// right. Whether a next node was set; none when the branch goes the
    /// wrong way and the tree starts again.
    fn choose_next(
        &self,
        scene: &Scene,
        i: usize,
        walk: &mut Walk,
        lure: Lure,
        params: TreeParams,
        rules: Rules,
    ) -> bool {
        let Rules { reserve, disjoint, held, .. } = rules;
        let agents = &scene.agents;
        let Some(tree) = walk.tree.as_mut() else { return false };
        let Some(c) = tree.choose_branch(walk.at, lure) else { return false };
        let from = tree.pos(walk.at);
        let point = match lure {
            Lure::Goal(g) | Lure::Away(g) => g,
        };
        // NOTE: a path node is "accepted in tree path when it brings the
        // agent closer to its goal"; escaping, farther from `c` (Eq 13).
        // A tree grows on all round while the agent walks it, and its
        // best branch may wind the wrong way first: runners turned back
        // towards the followers they fled (`fig05_escape`: within 8 m of
        // them again after 10 s at 7 of seeds 1–20), and a surrounding
        // pursuer whose tree the others' claims starved walked out more
        // than 21 m from a target in plain sight (`surround_open`, seeds
        // 14 and 17). From a node whose next goes the wrong way the tree
        // starts again where the agent stands; a pursuer counts as
        // starved, so its growth soon takes the others' markers too.
        // Round an obstacle (the target out of sight) a pursuer walks on.
        let switches = &scene.program.switches;
        let ruled = match lure {
            Lure::Away(_) => switches.escape_farther,
            Lure::Goal(g) => disjoint && switches.pursue_closer && scene.space.segment_clear(from, g, agents.radius[i]),
        };
        if ruled && lure.score(tree.pos(c)) > lure.score(from) {
            if let Some(step) = walk.cornered(scene, i, from, lure, params, held) {
                walk.branch_to(step);
                return true;
            }
            walk.starved_steps += u32::from(disjoint);
            walk.restart(agents.pos[i], point);
            return false;
        }
        walk.turned_back_at = None;
        let lane =
            unit(tree.pos(c) - from).filter(|&d| reserve && oncoming(scene, i, from, d, self.lookahead, params.alpha));
        if let Some(side) = lane.and_then(|_| sidestep(scene, i, held, from, point, params, Turns::KeepRight)) {
            // Someone comes the other way on this lane: keep right of them.
            walk.branch_to(side);
            return true;
        }
        let mut next = c;
        let at = walk.at;
        tree.prune_at(at, c, &mut [&mut walk.at, &mut next]);
        walk.next = next;
        walk.granted = false;
        walk.avoid = false;
        true
    }
}

/// The positions from the root of `tree` to node `n`.
fn way_of(tree: &Tree, n: u32) -> Vec<Vec2> {
    let mut way = Vec::new();
    let mut k = n;
    while k != NO_NODE {
        way.push(tree.pos(k));
        k = tree.parent(k);
    }
    way.reverse();
    way
}

/// The length of `way`, then straight on to `g`.
fn way_length(way: &[Vec2], g: Vec2) -> f64 {
    polyline_length(way) + way.last().map_or(0.0, |q| q.distance(g))
}

impl Progress {
    /// Whether the agent, `d` from the node it walks to, has come no closer
    /// to it for [`STALL_PATIENCE`].
    fn stalls(&mut self, node: Vec2, d: f64, beta: f64, dt: f64) -> bool {
        if node != self.toward || d < self.closest - PROGRESS * beta {
            (self.toward, self.closest, self.stalled) = (node, d, 0);
            return false;
        }
        self.stalled += 1;
        if f64::from(self.stalled) * dt < STALL_PATIENCE {
            return false;
        }
        // The next walk, to whatever node, starts its own count.
        (self.closest, self.stalled) = (f64::INFINITY, 0);
        true
    }
}

/// Surround: whether the side of goal `g` that agent `id` at `pos` closes in
/// from is its own: no marker within `A_r/2` of the point `A_r` short of the
/// goal, on the way from `pos`, is claimed by another pursuer's tree.
///
/// NOTE: the paper's disjoint marker sets keep the pursuers' paths apart
/// but say nothing of the last leg, which walks straight to the target; in
/// open space every pursuer then closes in from the side it came from. Held
/// to its own markers to the end, a pursuer that finds the near side taken
/// grows round to a free one.
fn approach_is_own(scene: &Scene, claimed: &[u32], id: u32, pos: Vec2, g: Vec2, action_radius: f64) -> bool {
    let Some(dir) = unit(pos - g) else { return true };
    let side = g + dir * action_radius.min(pos.distance(g));
    let mut own = true;
    scene.markers.within(&scene.marker_grid, side, action_radius / 2.0, |m| {
        let c = claimed[m as usize];
        own &= c == NONE || c == id;
    });
    own
}

/// Ground an erase left without markers, when trees keep off it.
fn bare_ground<'a>(scene: &'a Scene) -> Option<&'a Bare> {
    scene.markers.bare().filter(|_| scene.program.switches.keep_off_bare_ground)
}

/// Whether a body of radius `r` walks from `a` to `b` clear of obstacles
/// and, where trees keep off it, of bare ground.
fn way_clear(scene: &Scene, a: Vec2, b: Vec2, r: f64) -> bool {
    bare::way_clear(&scene.space, bare_ground(scene), a, b, r)
}

/// cos 30°: the turns of a way round are 30° apart.
const C30: f64 = 0.866_025_403_784_438_6;

/// `(cos, sin)` of 0°, 30°, … 120°: the turns a way around tries.
const TURNS: [(f64, f64); 5] = [(1.0, 0.0), (C30, 0.5), (0.5, C30), (0.0, 1.0), (-0.5, C30)];

/// `dir` turned by the angle whose `(cos, sin)` is `turn`: counter-clockwise
/// for `side` 1, clockwise for -1.
fn turned(dir: Vec2, (c, s): (f64, f64), side: f64) -> Vec2 {
    let s = s * side;
    Vec2::new(dir.x * c - dir.y * s, dir.x * s + dir.y * c)
}

/// Surround, within `A_r` of target `g` (`A_r + α` once the target has
/// arrived): agent `i` spaces itself evenly round `g` among the others as
/// near. While the gaps to its nearest neighbours round `g` on either side
/// differ by more than [`EVEN`], it walks round `g` at its distance towards
/// the wider gap, by a quarter of the difference (at most 30°), so that
/// neighbours who both move meet half-way; with the gaps even, it closes in
/// straight to `t_min` of `g` while no one nearer `g` stands within `A_r`
/// of it, and stands otherwise. `None` farther out or when the way is not
/// clear: its tree takes it on.
///
/// NOTE: the paper's disjoint marker sets make the pursuers fight for
/// space on their way; near a target where pursuers already stand, their
/// trees claim every marker within `A_r` of it, so the markers no longer
/// tell one side from another. Held to the markers there, a pursuer whose
/// side was taken cut its tree, was done again at its first node on the
/// same side, and stood (`surround_open`, seed 4: three pursuers on the
/// west side, one 1.16 m out for the last 22 s). Walking round only until
/// no nearer pursuer stood within `A_r` left two hunters 100° apart
/// (`fig04_surround`), not on opposite sides.
fn close_in(scene: &Scene, i: usize, g: Vec2, params: TreeParams) -> Option<Plan> {
    let agents = &scene.agents;
    let (pos, id, radius) = (agents.pos[i], agents.id[i], agents.radius[i]);
    let (r, a_r) = (pos.distance(g), params.action_radius);
    // Round a target that has arrived where it went, the last leg starts a
    // node farther out: the trees of those already round it hold every
    // marker within `A_r`. A target on the move is left to the trees.
    let arrived = scene.aims.agent(i, agents.aim[i]).is_some_and(|j| agents.arrived[j]);
    let zone = if arrived { a_r + params.alpha } else { a_r };
    if r > zone {
        return None;
    }
    let dir = unit(pos - g)?;
    let (mut ccw, mut cw, mut taken) = (TAU, TAU, false);
    scene.grid.for_each_near(g, zone, |j, q| {
        let (j, u) = (j as usize, q - g);
        let rq = u.length();
        if j == i || rq == 0.0 || rq > zone {
            return;
        }
        let a = math::atan2(dir.perp_dot(u), dir.dot(u));
        let a = if a < 0.0 { a + TAU } else { a };
        (ccw, cw) = (ccw.min(a), cw.min(TAU - a));
        let nearer = rq < r || (rq == r && agents.id[j] < id);
        taken |= nearer && q.distance(pos) < a_r;
    });
    let uneven = ccw - cw;
    // Its heels are `t_min` short of the target: a pursuer does not push it.
    let heels = scene.min_distance;
    let next = if uneven.abs() > EVEN {
        g + turned(dir, sin_cos((uneven / 4.0).clamp(-TURN, TURN)), 1.0) * r
    } else if !(taken && scene.program.switches.surround_wait_behind) && r > heels {
        g + dir * heels
    } else {
        return Some(Plan::stand(pos));
    };
    scene.space.segment_clear(pos, next, radius).then(|| Plan::walk_to(next))
}

/// How uneven the gaps beside a surrounding pursuer may be before it walks
/// round: a few steps' turn at `A_r`, so that it does not dither.
const EVEN: f64 = 10.0 * PI / 180.0;

/// The largest turn of one step round a target: 30°.
const TURN: f64 = PI / 6.0;

/// `(cos, sin)` of `angle`.
fn sin_cos(angle: f64) -> (f64, f64) {
    (math::cos(angle), math::sin(angle))
}

/// Whether someone walks towards agent `i` (headings more than 120° apart)
/// within `look` ahead of `from` along `dir` and less than `half_width` to
/// either side of that line.
fn oncoming(scene: &Scene, i: usize, from: Vec2, dir: Vec2, look: f64, half_width: f64) -> bool {
    if look <= 0.0 {
        return false;
    }
    let agents = &scene.agents;
    let mut seen = false;
    scene.grid.for_each_near(from, look, |j, q| {
        let rel = q - from;
        let ahead = rel.dot(dir);
        seen |= j as usize != i
            && ahead > 0.0
            && ahead <= look
            && rel.perp_dot(dir).abs() < half_width
            && agents.ori[j as usize].dot(dir) < -0.5;
    });
    seen
}

/// Which ways a crowd agent's way around turns from its goal direction.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Turns {
    /// To the right, and to the left only where a wall leaves no right turn.
    KeepRight,
    /// To both sides alternately, the first side by id.
    EitherSide,
    /// Straight for the goal first, then as `EitherSide`.
    AheadFirst,
    /// Straight for the goal first, then to the given side (1 left, -1
    /// right) at each turn, then to the other.
    AheadThen(f64),
}

/// A blocked crowd agent's way around: the first node `α` away from `from`,
/// turning from the goal direction in 30° steps as `way` says, whose
/// segment is clear and whose markers nobody else holds (and, where markers
/// are reserved, with no standing body in the way: the grant refuses such
/// a node).
///
/// NOTE: the paper has a blocked agent wait until the markers are freed;
/// in head-on flows that deadlocks. Its own account of lanes is that
/// people "change trajectory whenever they encounter an entity moving in
/// the opposite direction", which is what this does; keeping to one side
/// (the right, as pedestrians in most countries do) is what makes the two
/// flows' changes agree instead of meeting again.
fn sidestep(
    scene: &Scene,
    i: usize,
    held: &[u32],
    from: Vec2,
    goal: Vec2,
    params: TreeParams,
    way: Turns,
) -> Option<Vec2> {
    let (id, radius) = (scene.agents.id[i], scene.agents.radius[i]);
    // 30° to 120° either side of the goal direction.
    let turns = &TURNS[1..];
    let dir = unit(goal - from)?;
    // `side` 1 turns left (counter-clockwise), -1 right.
    let step = |t: (f64, f64), side: f64| from + turned(dir, t, side) * params.alpha;
    let walkable = |cand: Vec2| way_clear(scene, from, cand, radius);
    let free = |cand: Vec2| {
        let (mut free, mut any) = (true, false);
        scene.markers.within(&scene.marker_grid, cand, params.action_radius, |m| {
            // Nobody holds markers where nobody reserves them (`held` empty).
            let h = held.get(m as usize).copied().unwrap_or(NONE);
            any = true;
            free &= h == NONE || h == id;
        });
        free && any
    };
    let first = if id.is_multiple_of(2) { 1.0 } else { -1.0 };
    let both = turns.iter().flat_map(|&t| [(t, first), (t, -first)]);
    let order: Vec<((f64, f64), f64)> = match way {
        Turns::KeepRight => {
            let walled = turns.iter().all(|&t| !walkable(step(t, -1.0)));
            let side = if walled { 1.0 } else { -1.0 };
            turns.iter().map(|&t| (t, side)).collect()
        }
        Turns::EitherSide => both.collect(),
        Turns::AheadFirst => std::iter::once((TURNS[0], 1.0)).chain(both).collect(),
        Turns::AheadThen(side) => std::iter::once((TURNS[0], 1.0))
            .chain(turns.iter().map(|&t| (t, side)))
            .chain(turns.iter().map(|&t| (t, -side)))
            .collect(),
    };
    // NOTE: the grant refuses a node with a standing body on the way to it.
    // Offered as a way around all the same, it was refused every time: a
    // walker with two people standing across its way stood at its spawn
    // for the whole run (`round_standing`, seeds 1-20).
    let clear_of_standing = scene.program.switches.sidestep_round_standing && !held.is_empty();
    let unblocked = |cand: Vec2| !clear_of_standing || standing_in_the_way(scene, i, from, cand).is_none();
    order.into_iter().map(|(t, side)| step(t, side)).find(|&cand| walkable(cand) && free(cand) && unblocked(cand))
}

/// The id of a standing body closer than the two radii to agent `i`'s way
/// from `from` to `node`, and ahead of it. Bodies placed closer than two
/// node reaches hold parts of each other's nodes, so the markers alone do
/// not keep such a body off the way; a walking body holds the nodes of its
/// own segment.
pub(super) fn standing_in_the_way(scene: &Scene, i: usize, from: Vec2, node: Vec2) -> Option<u32> {
    let agents = &scene.agents;
    let way = node - from;
    let mut found = None;
    scene.grid.for_each_near(from, way.length() + agents.radius[i] + scene.max_radius, |j, _| {
        let j = j as usize;
        let q = agents.pos[j];
        if found.is_none()
            && j != i
            && agents.vel[j] == Vec2::ZERO
            && (q - from).dot(way) > 0.0
            && segment_distance(from, node, q) < agents.radius[i] + agents.radius[j]
        {
            found = Some(agents.id[j]);
        }
    });
    found
}
