//! Tree paths: space colonization adapted to path planning (Rodrigues et al.
//! 2010, Sec 4.1, Eqs 1–7, and the escape variant of Eq 13).
//!
//! A tree grows from the agent's position through the markers of walkable
//! space. Each iteration (i) associates every marker within the action radius
//! `A_r` of a growing node with the closest node of the tree (Eq 1), then
//! (ii) lets each node with markers try to grow children: the node closest to
//! the goal always does, the others with probability `P(n)` (Eqs 2–3); a child
//! lies `α` away along the weighted marker direction (Eqs 4–7). A child's
//! segment takes the parent's markers within the restriction distance of it,
//! so the parent's next child grows from the rest (bifurcations).
//!
//! Invariants:
//! - `S(n)` is a function of the nodes, the markers and which markers are
//!   usable: pruning frees markers at once. The sets of the last growth are
//!   kept only as a cache (`Memo`) that gives the same sets, in the same
//!   order, as querying the marker index again;
//! - a node found without markers is skipped until a node that could have
//!   taken them (a child, or a node within `2 A_r`) is pruned: markers other
//!   agents release meanwhile are not looked for (growth sees the field as
//!   it was when the node ran dry);
//! - children always have larger indices than their parents, and nodes are
//!   visited in index order, so growth depends only on the tree, the markers,
//!   the lure and the uniform draws handed in;
//! - a child is only created where its segment is clear of obstacles.

use crate::ir::Vec2;
use crate::world::bare::{way_clear, Bare};
use crate::world::geometry::segment_distance;
use crate::world::grid::Grid;
use crate::world::walkable::Walkable;

/// No node (a root's parent).
pub const NO_NODE: u32 = u32::MAX;

/// The constants of tree growth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeParams {
    /// `α`: distance from a node to its child (Eq 4), m.
    pub alpha: f64,
    /// `A_r`: the action radius of a node (Eq 1), m.
    pub action_radius: f64,
    /// A child's segment takes the parent's markers closer than this to it, m.
    pub restriction: f64,
}

/// What the tree grows for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lure {
    /// A goal `g` (Eqs 2, 5–7).
    Goal(Vec2),
    /// Away from a point `c` (escape, Eq 13): branches grow where they get
    /// farther from `c`, weighted towards the direction away from it.
    Away(Vec2),
}

impl Lure {
    /// The direction `x` of Eq 7 at node position `n`: towards the goal, or away from `c`.
    fn heading(self, n: Vec2) -> Vec2 {
        match self {
            Lure::Goal(g) => g - n,
            Lure::Away(c) => n - c,
        }
    }

    /// How good a node position is: lower is better (distance to the goal, or
    /// minus the distance from `c`).
    pub fn score(self, n: Vec2) -> f64 {
        match self {
            Lure::Goal(g) => n.distance(g),
            Lure::Away(c) => -n.distance(c),
        }
    }
}

/// The world a tree grows in: the markers (through their spatial index,
/// which holds their positions), obstacles and which markers this tree may
/// use at all.
pub struct Field<'a, U: Fn(u32) -> bool> {
    /// The markers' index (see `Markers::index`).
    pub index: &'a Grid,
    pub walk: &'a Walkable,
    /// Ground erases left without markers: segments keep off it as off obstacles.
    pub bare: Option<&'a Bare>,
    /// The walker's body radius: segments keep this far from obstacles.
    pub clearance: f64,
    /// Markers another agent holds or claims are not usable (surround, crowds).
    pub usable: U,
    /// A step of α blocked by an obstacle stops at the markers' weighted mean
    /// instead (for a walker whose tree found nothing to grow into).
    pub shorten: bool,
}

impl<U: Fn(u32) -> bool> Field<'_, U> {
    /// Whether a body walks from `a` to `b` clear of obstacles and off bare ground.
    fn clear(&self, a: Vec2, b: Vec2) -> bool {
        way_clear(self.walk, self.bare, a, b, self.clearance)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    pub pos: Vec2,
    pub parent: u32,
    /// The node had no markers at its last growth attempt: it is skipped
    /// until a node that could have taken them is pruned (see the invariants).
    exhausted: bool,
}

/// One agent's tree path.
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    nodes: Vec<Node>,
    /// Growth iterations run since the tree was (re)rooted.
    pub iterations: u32,
    /// The action radius of the last growth: how far a pruned node may have
    /// held markers that a dry node could take back.
    reach: f64,
    /// The marker sets of the last growth, for the next one.
    memo: Memo,
}

/// For every node that could grow in the last iteration, the markers within
/// `A_r` that no node took (Eq 1), usable or not, as they were before it
/// added children. As long as no node that could take markers from it is
/// removed, a node's next `S(n)` is that set minus what the nodes born since
/// take, less the markers not usable now: finding them among these few
/// points spares the marker index a query, whose rows are mostly out of
/// cache. The points keep the index's order, so the sums over them (Eqs 5–6)
/// come out the same.
#[derive(Clone, Debug, Default, PartialEq)]
struct Memo {
    /// Nodes in the tree when the sets were taken (renumbered by removals).
    nodes: u32,
    action_radius: f64,
    restriction: f64,
    markers: Found,
}

/// Marker sets, node after node: each marker's id and position.
#[derive(Clone, Debug, Default, PartialEq)]
struct Found {
    ids: Vec<u32>,
    points: Vec<Vec2>,
    /// `(node, start, end)`: the node's markers are `ids[start..end]`, by increasing node.
    sets: Vec<(u32, usize, usize)>,
}

impl Found {
    fn clear(&mut self) {
        self.ids.clear();
        self.points.clear();
        self.sets.clear();
    }

    fn push(&mut self, m: u32, q: Vec2) {
        self.ids.push(m);
        self.points.push(q);
    }

    fn truncate(&mut self, len: usize) {
        self.ids.truncate(len);
        self.points.truncate(len);
    }
}

/// Buffers a growth iteration reuses, one set per thread.
#[derive(Default)]
struct Scratch {
    /// `S(n)` of every growing node, node after node.
    points: Vec<Vec2>,
    /// `(node, start, end)`: the node's markers are `points[start..end]`.
    sets: Vec<(u32, usize, usize)>,
    /// The sets before the usable test: the next memo.
    found: Found,
    rivals: Vec<u32>,
    weights: Vec<f64>,
    inside: Vec<bool>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Rodrigues et al. 2010, Eq. 7: `f(x, y) = (1 + cos θ) / (1 + |y|)`, 0 when `|x||y| = 0`.
#[inline]
pub fn f(x: Vec2, y: Vec2) -> f64 {
    let xy = x.length() * y.length();
    if xy > 0.0 {
        (1.0 + x.dot(y) / xy) / (1.0 + y.length())
    } else {
        0.0
    }
}

/// Eqs. 5–6: `d(n) = Σ w_k (m_k − n)` with `w_k = f(x, m_k − n) / Σ_l f(x, m_l − n)`;
/// `None` when every weight is zero.
pub fn growth_direction(n: Vec2, x: Vec2, markers: impl Iterator<Item = Vec2>) -> Option<Vec2> {
    let markers: Vec<Vec2> = markers.collect();
    weighted_direction(n, x, &markers, f, &mut Vec::new())
}

/// Eqs. 5–6 with any weight function in place of Eq 7's `f`; `weights` is scratch.
#[inline]
fn weighted_direction(
    n: Vec2,
    x: Vec2,
    markers: &[Vec2],
    f: fn(Vec2, Vec2) -> f64,
    weights: &mut Vec<f64>,
) -> Option<Vec2> {
    weights.clear();
    weights.extend(markers.iter().map(|&m| f(x, m - n)));
    let total: f64 = weights.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return None;
    }
    let d = markers.iter().zip(weights.iter()).fold(Vec2::ZERO, |d, (&m, &w)| d + (m - n) * (w / total));
    (d.length_squared() > 0.0).then_some(d)
}

/// Where a node at `pos` whose step of α along `d` is blocked stops
/// instead: α exceeds the action radius, so the step can overshoot the
/// markers that drew it, which lie in free space. At their weighted mean
/// `pos + d` when it is in sight, else at the most strongly weighted
/// marker in sight (ties: the first).
fn short_of<U: Fn(u32) -> bool>(
    field: &Field<'_, U>,
    pos: Vec2,
    d: Vec2,
    markers: &[Vec2],
    weights: &[f64],
) -> Option<Vec2> {
    let clear = |q: Vec2| field.clear(pos, q);
    if clear(pos + d) {
        return Some(pos + d);
    }
    let seen = (0..markers.len()).filter(|&k| clear(markers[k]));
    seen.max_by(|&a, &b| weights[a].total_cmp(&weights[b]).then(b.cmp(&a))).map(|k| markers[k])
}

/// Eq. 4: `n' = n + α d/|d|`.
pub fn child_position(n: Vec2, d: Vec2, alpha: f64) -> Vec2 {
    n + d * (alpha / d.length())
}

/// Eq. 2: `P(n) = |n_g − g| / |n − g|` (1 for `n_g` itself).
pub fn p_grow(n: Vec2, n_g: Vec2, g: Vec2) -> f64 {
    let far = n.distance(g);
    if far > 0.0 {
        (n_g.distance(g) / far).min(1.0)
    } else {
        1.0
    }
}

/// Eq. 13: `P_e(n) = |n − c| / |n_e − c|`, `n_e` the node farthest from `c`.
pub fn p_escape(n: Vec2, n_e: Vec2, c: Vec2) -> f64 {
    let far = n_e.distance(c);
    if far > 0.0 {
        (n.distance(c) / far).min(1.0)
    } else {
        1.0
    }
}

impl Tree {
    pub fn new(root: Vec2) -> Tree {
        Tree {
            nodes: vec![Node { pos: root, parent: NO_NODE, exhausted: false }],
            iterations: 0,
            reach: 0.0,
            memo: Memo::default(),
        }
    }

    /// The tree cut back to a single root at `root`, as [`Tree::new`] makes
    /// it, keeping its buffers: a pursuer closing in is rerooted every step.
    pub fn reroot(&mut self, root: Vec2) {
        self.nodes.clear();
        self.nodes.push(Node { pos: root, parent: NO_NODE, exhausted: false });
        self.iterations = 0;
        self.reach = 0.0;
        let Memo { nodes, action_radius, restriction, markers } = &mut self.memo;
        (*nodes, *action_radius, *restriction) = (0, 0.0, 0.0);
        markers.clear();
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn pos(&self, n: u32) -> Vec2 {
        self.nodes[n as usize].pos
    }

    pub fn parent(&self, n: u32) -> u32 {
        self.nodes[n as usize].parent
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Children of `n`, in creation order.
    pub fn children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        (n as usize + 1..self.nodes.len()).filter(move |&c| self.nodes[c].parent == n).map(|c| c as u32)
    }

    /// Which nodes lie in the subtree of `top`, in one pass (parents come before children).
    pub fn subtree(&self, top: u32) -> Vec<bool> {
        let mut inside = Vec::new();
        self.subtree_into(top, &mut inside);
        inside
    }

    fn subtree_into(&self, top: u32, inside: &mut Vec<bool>) {
        inside.clear();
        inside.resize(self.nodes.len(), false);
        for k in top as usize..self.nodes.len() {
            let parent = self.nodes[k].parent;
            inside[k] = k == top as usize || (parent != NO_NODE && parent >= top && inside[parent as usize]);
        }
    }

    /// `S(n)` (Eq 1) before the usable test: markers within `A_r` of `n`,
    /// closer to `n` than to any other node, and not taken by the segment of
    /// one of `n`'s children, appended to `out` in index order.
    fn markers_of(&self, n: u32, index: &Grid, p: &TreeParams, rivals: &mut Vec<u32>, out: &mut Found) {
        let pos = self.pos(n);
        let reach = p.action_radius;
        self.rivals_of(n, 0, reach, rivals);
        let r2 = reach * reach;
        index.for_each_near(pos, reach, |m, q| {
            let d2 = q.distance_squared(pos);
            if d2 <= r2 && !self.taken(n, pos, q, d2, rivals, p) {
                out.push(m, q);
            }
        });
    }

    /// [`Tree::markers_of`] for a node whose set was `ids`, `points` when the
    /// tree had `since` nodes: those that none of the nodes born since takes.
    fn markers_left(
        &self,
        n: u32,
        (ids, points): (&[u32], &[Vec2]),
        since: u32,
        p: &TreeParams,
        rivals: &mut Vec<u32>,
        out: &mut Found,
    ) {
        self.rivals_of(n, since, p.action_radius, rivals);
        let pos = self.pos(n);
        for (&m, &q) in ids.iter().zip(points) {
            if !self.taken(n, pos, q, q.distance_squared(pos), rivals, p) {
                out.push(m, q);
            }
        }
    }

    /// The nodes from index `from` on that may take markers from `n`: only
    /// nodes within 2 `A_r` can be closer to one of them; `n`'s children take
    /// markers by their segments however far they lie.
    fn rivals_of(&self, n: u32, from: u32, reach: f64, rivals: &mut Vec<u32>) {
        let pos = self.pos(n);
        rivals.clear();
        rivals.extend((from..self.nodes.len() as u32).filter(|&k| {
            k != n && (self.nodes[k as usize].parent == n || self.pos(k).distance_squared(pos) < 4.0 * reach * reach)
        }));
    }

    /// Whether one of `rivals` takes marker `q` (at squared distance `d2`
    /// from `n`, which stands at `pos`): it is closer (Eq 1; a tie goes to
    /// the lower index), or it is a child of `n` whose segment passes within
    /// the restriction distance.
    fn taken(&self, n: u32, pos: Vec2, q: Vec2, d2: f64, rivals: &[u32], p: &TreeParams) -> bool {
        rivals.iter().any(|&k| {
            let node = &self.nodes[k as usize];
            let closer = q.distance_squared(node.pos);
            closer < d2
                || (closer == d2 && k < n)
                || (node.parent == n && segment_distance(pos, node.pos, q) <= p.restriction)
        })
    }

    /// One growth iteration over the live subtree rooted at `top`; `draw`
    /// returns uniforms in `[0, 1)` for the tests of Eq 3. Returns the number
    /// of children created.
    pub fn grow<U: Fn(u32) -> bool>(
        &mut self,
        field: &Field<'_, U>,
        p: &TreeParams,
        lure: Lure,
        top: u32,
        draw: &mut dyn FnMut() -> f64,
    ) -> usize {
        self.grow_weighted(field, p, lure, top, draw, f)
    }

    fn grow_weighted<U: Fn(u32) -> bool>(
        &mut self,
        field: &Field<'_, U>,
        p: &TreeParams,
        lure: Lure,
        top: u32,
        draw: &mut dyn FnMut() -> f64,
        weight: fn(Vec2, Vec2) -> f64,
    ) -> usize {
        self.iterations += 1;
        self.reach = p.action_radius;
        SCRATCH.with_borrow_mut(|s| {
            // (i) Markers processing: S(n) for every growing node, as ranges of `s.points`.
            s.points.clear();
            s.sets.clear();
            s.found.clear();
            self.subtree_into(top, &mut s.inside);
            let memo = &self.memo;
            let memo_holds = memo.action_radius == p.action_radius && memo.restriction == p.restriction;
            let last_sets = if memo_holds { &memo.markers.sets[..] } else { &[] };
            let mut last = last_sets.iter().peekable();
            for n in top..self.nodes.len() as u32 {
                if self.nodes[n as usize].exhausted || !s.inside[n as usize] {
                    continue;
                }
                let found = s.found.ids.len();
                while last.next_if(|&&(m, ..)| m < n).is_some() {}
                match last.next_if(|&&(m, ..)| m == n) {
                    Some(&(_, a, b)) => {
                        let set = (&memo.markers.ids[a..b], &memo.markers.points[a..b]);
                        self.markers_left(n, set, memo.nodes, p, &mut s.rivals, &mut s.found)
                    }
                    None => self.markers_of(n, field.index, p, &mut s.rivals, &mut s.found),
                }
                let start = s.points.len();
                for k in found..s.found.ids.len() {
                    if (field.usable)(s.found.ids[k]) {
                        s.points.push(s.found.points[k]);
                    }
                }
                if s.points.len() == start {
                    self.nodes[n as usize].exhausted = true;
                    s.found.truncate(found);
                } else {
                    s.sets.push((n, start, s.points.len()));
                    s.found.sets.push((n, found, s.found.ids.len()));
                }
            }
            self.memo.nodes = self.nodes.len() as u32;
            (self.memo.action_radius, self.memo.restriction) = (p.action_radius, p.restriction);
            std::mem::swap(&mut self.memo.markers, &mut s.found);
            if s.sets.is_empty() {
                return 0;
            }
            // The reference node: n_g closest to the goal (Eq 2), or n_e farthest
            // from c (Eq 13), among the nodes that can grow.
            let reference = self.best_of(s.sets.iter().map(|&(n, ..)| n), lure).unwrap_or(top);
            let ref_pos = self.pos(reference);
            // (ii) Addition of new nodes; children join the tree at the end.
            let first_born = self.nodes.len();
            for &(n, start, mut end) in &s.sets {
                let pos = self.pos(n);
                let chance = match lure {
                    Lure::Goal(g) => p_grow(pos, ref_pos, g),
                    Lure::Away(c) => p_escape(pos, ref_pos, c),
                };
                let x = lure.heading(pos);
                while end > start {
                    // Eq. 3: a child when P(n) ≥ ξ; the reference node always passes.
                    if n != reference && chance < draw() {
                        break;
                    }
                    let Some(d) = weighted_direction(pos, x, &s.points[start..end], weight, &mut s.weights) else {
                        break;
                    };
                    let child = child_position(pos, d, p.alpha);
                    let node = if field.clear(pos, child) {
                        Some(child)
                    } else if field.shorten {
                        short_of(field, pos, d, &s.points[start..end], &s.weights)
                    } else {
                        None
                    };
                    if let Some(q) = node {
                        self.nodes.push(Node { pos: q, parent: n, exhausted: false });
                    }
                    // The segment takes the markers near it, whether or not it can be walked.
                    let before = end;
                    let mut kept = start;
                    for k in start..end {
                        let q = s.points[k];
                        if segment_distance(pos, child, q) > p.restriction {
                            s.points[kept] = q;
                            kept += 1;
                        }
                    }
                    end = kept;
                    // Markers balanced around n but all beyond the restriction
                    // distance would give the same child forever.
                    if end == before {
                        break;
                    }
                }
            }
            self.nodes.len() - first_born
        })
    }

    /// The markers changed during the run (sprayed or erased): the
    /// remembered sets name markers by ids that are gone, and a dry node may
    /// have markers now, so every set is dropped and every node may grow
    /// again; the next growth queries the index for all of them.
    pub fn forget_markers(&mut self) {
        self.memo = Memo::default();
        for node in &mut self.nodes {
            node.exhausted = false;
        }
    }

    /// Adds a child of `parent` at `pos` (a sidestep the executor chose), returning its index.
    pub fn push_child(&mut self, parent: u32, pos: Vec2) -> u32 {
        self.nodes.push(Node { pos, parent, exhausted: false });
        self.nodes.len() as u32 - 1
    }

    /// The node of `nodes` with the best lure score (ties: the lower index).
    fn best_of(&self, nodes: impl Iterator<Item = u32>, lure: Lure) -> Option<u32> {
        nodes
            .map(|n| (lure.score(self.pos(n)), n))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, n)| n)
    }

    /// The live node with the best lure score (ties: the lower index) in the subtree of `top`.
    pub fn best_in(&self, top: u32, lure: Lure) -> u32 {
        // Called every step: the subtree goes in the growth's buffer, not a new one.
        SCRATCH.with_borrow_mut(|s| {
            self.subtree_into(top, &mut s.inside);
            self.best_of((top..self.nodes.len() as u32).filter(|&n| s.inside[n as usize]), lure).unwrap_or(top)
        })
    }

    /// The child of `n` whose branch brings the agent closest to the goal
    /// (best lure score anywhere in its subtree); ties: the older child.
    pub fn choose_branch(&self, n: u32, lure: Lure) -> Option<u32> {
        let len = self.nodes.len();
        // Children have larger indices: one backward pass gives subtree bests.
        let mut best = vec![f64::INFINITY; len];
        for k in (n as usize..len).rev() {
            let own = lure.score(self.nodes[k].pos);
            if own < best[k] {
                best[k] = own;
            }
            let parent = self.nodes[k].parent;
            if parent != NO_NODE && (parent as usize) >= n as usize && best[k] < best[parent as usize] {
                best[parent as usize] = best[k];
            }
        }
        self.children(n).min_by(|&a, &b| best[a as usize].total_cmp(&best[b as usize]).then(a.cmp(&b)))
    }

    /// Removes every node outside `keep` (and its ancestors), renumbering the
    /// rest in order; the indices in `track` are renumbered too (`NO_NODE`
    /// when their node is gone). Freed markers become available again.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool, track: &mut [&mut u32]) {
        let mut remap = vec![NO_NODE; self.nodes.len()];
        let mut kept = Vec::with_capacity(self.nodes.len());
        let mut gone = Vec::new();
        for k in 0..self.nodes.len() {
            let node = self.nodes[k];
            let parent_kept = node.parent == NO_NODE || remap[node.parent as usize] != NO_NODE;
            if parent_kept && keep(k as u32) {
                remap[k] = kept.len() as u32;
                let parent = if node.parent == NO_NODE { NO_NODE } else { remap[node.parent as usize] };
                kept.push(Node { parent, ..node });
            } else {
                gone.push(node);
            }
        }
        // A node gets markers back only from a pruned child or a pruned node
        // near enough to have been closer to them (Eq 1): a dry node wakes,
        // and a remembered set is out of date.
        let near = 4.0 * self.reach * self.reach;
        let freed = |k: usize, node: &Node| {
            gone.iter().any(|g| {
                (g.parent != NO_NODE && remap[g.parent as usize] == k as u32)
                    || g.pos.distance_squared(node.pos) <= near
            })
        };
        for (k, node) in kept.iter_mut().enumerate() {
            if node.exhausted {
                node.exhausted = !freed(k, node);
            }
        }
        let memo = &mut self.memo;
        memo.nodes = remap[..(memo.nodes as usize).min(remap.len())].iter().filter(|&&k| k != NO_NODE).count() as u32;
        memo.markers.sets.retain_mut(|(n, ..)| {
            *n = remap[*n as usize];
            *n != NO_NODE && !freed(*n as usize, &kept[*n as usize])
        });
        self.nodes = kept;
        for t in track.iter_mut() {
            **t = if **t == NO_NODE { NO_NODE } else { remap[**t as usize] };
        }
    }

    /// Keeps the path from the root to `n` and the subtree of `keep_below`
    /// (a child of `n`, or `NO_NODE`): the unchosen branches die.
    pub fn prune_at(&mut self, n: u32, keep_below: u32, track: &mut [&mut u32]) {
        let mut on_path = vec![false; self.nodes.len()];
        let mut k = n;
        while k != NO_NODE {
            on_path[k as usize] = true;
            k = self.nodes[k as usize].parent;
        }
        let below = if keep_below == NO_NODE { vec![false; self.nodes.len()] } else { self.subtree(keep_below) };
        self.retain(|k| on_path[k as usize] || below[k as usize], track);
    }

    /// Drops the nodes more than `depth` levels above `n` that only lead to it,
    /// re-rooting the tree, so a long walk keeps the tree small.
    pub fn forget_behind(&mut self, n: u32, depth: u32, track: &mut [&mut u32]) {
        let mut root = n;
        for _ in 0..depth {
            match self.nodes[root as usize].parent {
                NO_NODE => return,
                parent => root = parent,
            }
        }
        if root == 0 {
            return;
        }
        self.nodes[root as usize].parent = NO_NODE;
        let kept = self.subtree(root);
        self.retain(|k| kept[k as usize], track);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Rect, Shape, World};

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn f_of_eq7_by_hand() {
        // Aligned, |y| = 1: (1 + 1) / 2.
        assert!((f(v(1.0, 0.0), v(1.0, 0.0)) - 1.0).abs() < 1e-15);
        // Perpendicular, |y| = 3: 1 / 4.
        assert!((f(v(0.0, 2.0), v(3.0, 0.0)) - 0.25).abs() < 1e-15);
        // Opposite: 0; zero vectors: 0.
        assert_eq!(f(v(1.0, 0.0), v(-2.0, 0.0)), 0.0);
        assert_eq!(f(Vec2::ZERO, v(1.0, 0.0)), 0.0);
        // 60°, |y| = 1: (1 + 1/2) / 2.
        let y = v(0.5, 0.75f64.sqrt());
        assert!((f(v(5.0, 0.0), y) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn weights_of_eq6_pull_towards_the_goal() {
        // Markers at (1,0) and (0,1), goal along +x: f = 1 and 1/2, w = 2/3 and 1/3.
        let d = growth_direction(Vec2::ZERO, v(10.0, 0.0), [v(1.0, 0.0), v(0.0, 1.0)].into_iter()).unwrap();
        assert!((d - v(2.0 / 3.0, 1.0 / 3.0)).length() < 1e-12);
        // Only a marker behind: no direction.
        assert!(growth_direction(Vec2::ZERO, v(1.0, 0.0), [v(-1.0, 0.0)].into_iter()).is_none());
        assert!((child_position(Vec2::ZERO, v(3.0, 4.0), 2.0) - v(1.2, 1.6)).length() < 1e-15);
    }

    #[test]
    fn eq2_and_eq13_by_hand() {
        let g = v(10.0, 0.0);
        assert_eq!(p_grow(v(6.0, 0.0), v(6.0, 0.0), g), 1.0);
        assert!((p_grow(v(2.0, 0.0), v(6.0, 0.0), g) - 0.5).abs() < 1e-15);
        let c = Vec2::ZERO;
        assert_eq!(p_escape(v(8.0, 0.0), v(8.0, 0.0), c), 1.0);
        assert!((p_escape(v(0.0, 2.0), v(8.0, 0.0), c) - 0.25).abs() < 1e-15);
    }

    fn field_world(w: f64, h: f64, spacing: f64) -> (Grid, Walkable) {
        let bounds = Rect { min: v(0.0, 0.0), max: v(w, h) };
        let mut pts = Vec::new();
        let mut y = spacing / 2.0;
        while y < h {
            let mut x = spacing / 2.0;
            while x < w {
                pts.push(v(x, y));
                x += spacing;
            }
            y += spacing;
        }
        let mut grid = Grid::new(bounds, 1.2, 1 << 20);
        grid.rebuild(&pts);
        (grid, Walkable::new(&World::bare(bounds, vec![]), 1.0))
    }

    /// Grows from (3, 10) towards (27, 10) for at most 49 iterations (the
    /// paper's bound) and returns the tree.
    fn grow_open_room(weight: fn(Vec2, Vec2) -> f64) -> Tree {
        let (grid, walk) = field_world(30.0, 20.0, 0.35);
        let usable = |_: u32| true;
        let field = Field { index: &grid, walk: &walk, bare: None, clearance: 0.25, usable: &usable, shorten: false };
        let p = TreeParams { alpha: 2.0, action_radius: 1.2, restriction: 1.0 };
        let g = v(27.0, 10.0);
        let mut tree = Tree::new(v(3.0, 10.0));
        let mut k = 0u64;
        let mut draw = || {
            k += 1;
            (crate::hash::splitmix64(k) >> 11) as f64 / (1u64 << 53) as f64
        };
        while tree.pos(tree.best_in(0, Lure::Goal(g))).distance(g) > 2.0 && tree.iterations < 49 {
            tree.grow_weighted(&field, &p, Lure::Goal(g), 0, &mut draw, weight);
        }
        tree
    }

    /// Every node after each of 40 growths towards (27, 10) from (3, 4), with
    /// a pruning, a sidestep and a re-rooting on the way, and a different
    /// fifth of the markers unusable at each growth; `remember` lets the
    /// growth reuse the last marker sets.
    fn growth_history(remember: bool) -> Vec<Vec<Node>> {
        let (grid, walk) = field_world(30.0, 20.0, 0.35);
        let round = std::cell::Cell::new(0u32);
        let usable = |m: u32| !(m + round.get()).is_multiple_of(5);
        let field = Field { index: &grid, walk: &walk, bare: None, clearance: 0.25, usable: &usable, shorten: false };
        let p = TreeParams { alpha: 1.0, action_radius: 0.6, restriction: 0.5 };
        let lure = Lure::Goal(v(27.0, 10.0));
        let mut tree = Tree::new(v(3.0, 4.0));
        let mut k = 0u64;
        let mut draw = || {
            k += 1;
            (crate::hash::splitmix64(k) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut history = Vec::new();
        for i in 0..40 {
            round.set(i);
            if !remember {
                tree.memo = Memo::default();
            }
            tree.grow(&field, &p, lure, 0, &mut draw);
            if i == 15 {
                let best = tree.best_in(0, lure);
                tree.prune_at(best, NO_NODE, &mut []);
            }
            if i == 25 {
                let at = tree.len() as u32 - 1;
                tree.push_child(at, tree.pos(at) + v(0.0, 0.3));
            }
            if i == 30 {
                let best = tree.best_in(0, lure);
                tree.forget_behind(best, 3, &mut []);
            }
            history.push(tree.nodes.clone());
        }
        history
    }

    #[test]
    fn reusing_the_last_marker_sets_grows_the_same_tree() {
        let fresh = growth_history(false);
        let reused = growth_history(true);
        assert!(fresh.last().is_some_and(|n| n.len() > 30), "the tree grew: {:?}", fresh.last().map(Vec::len));
        for (i, (a, b)) in fresh.iter().zip(&reused).enumerate() {
            assert_eq!(a, b, "after growth {i}");
        }
    }

    #[test]
    fn a_starved_step_that_would_overshoot_into_an_obstacle_stops_at_the_markers() {
        // A few markers north-east of a bench's corner, the goal east-south-east
        // beyond it: the step of α = 2 m (more than the action radius) along
        // their pull lands in the bench, and the markers near the segment are
        // used up, so the tree never grows (fig09_spray_erase, seed 4: a
        // walker stood there for good). Starved, it stops where they are.
        let bounds = Rect { min: v(0.0, 0.0), max: v(40.0, 20.0) };
        let bench = Shape::Rect(Rect { min: v(18.0, 8.0), max: v(22.0, 12.0) });
        let walk = Walkable::new(&World::bare(bounds, vec![bench]), 1.0);
        let mut grid = Grid::new(bounds, 1.2, 1 << 20);
        grid.rebuild(&[v(18.3, 12.6), v(18.0, 12.9), v(17.4, 12.5), v(18.4, 13.5)]);
        let usable = |_: u32| true;
        let p = TreeParams { alpha: 2.0, action_radius: 1.2, restriction: 1.0 };
        let (root, lure) = (v(17.73, 13.31), Lure::Goal(v(37.5, 10.0)));
        let grow = |shorten: bool| {
            let field = Field { index: &grid, walk: &walk, bare: None, clearance: 0.25, usable: &usable, shorten };
            let mut tree = Tree::new(root);
            tree.grow(&field, &p, lure, 0, &mut || 0.0);
            tree
        };
        assert_eq!(grow(false).len(), 1, "the full step is blocked");
        let tree = grow(true);
        assert_eq!(tree.len(), 2);
        let child = tree.pos(1);
        assert!(child.distance(root) < 1.2 && walk.segment_clear(root, child, 0.25), "{child:?}");
    }

    #[test]
    fn grows_to_a_goal_in_open_space_and_branches() {
        let g = v(27.0, 10.0);
        let tree = grow_open_room(f);
        assert!(tree.pos(tree.best_in(0, Lure::Goal(g))).distance(g) <= 2.0, "{} iterations", tree.iterations);
        assert!(tree.iterations <= 13, "24 m at α = 2 m takes about 12 iterations, took {}", tree.iterations);
        assert!(tree.nodes.iter().any(|n| tree.children(n.parent).count() >= 2), "no bifurcation");
    }

    #[test]
    fn a_weight_that_ignores_the_goal_does_not_get_there() {
        // Eq 7 without its cosine term: nearer markers weigh more, whatever their direction.
        fn blind(_: Vec2, y: Vec2) -> f64 {
            1.0 / (1.0 + y.length())
        }
        let paper = grow_open_room(f);
        let wrong = grow_open_room(blind);
        // Without the goal term the tree floods the room instead of heading for the goal.
        assert!(wrong.iterations > paper.iterations + 2, "{} vs {} iterations", wrong.iterations, paper.iterations);
        assert!(wrong.len() > paper.len(), "{} vs {} nodes", wrong.len(), paper.len());
    }

    #[test]
    fn pruning_keeps_the_chosen_branch_and_renumbers() {
        let mut t = Tree::new(v(0.0, 0.0));
        for (pos, parent) in [(v(1.0, 0.0), 0), (v(0.0, 1.0), 0), (v(2.0, 0.0), 1), (v(0.0, 2.0), 2)] {
            t.nodes.push(Node { pos, parent, exhausted: false });
        }
        let g = Lure::Goal(v(5.0, 0.0));
        assert_eq!(t.choose_branch(0, g), Some(1));
        let mut at = 0;
        let mut next = 3;
        t.prune_at(0, 1, &mut [&mut at, &mut next]);
        assert_eq!(t.len(), 3);
        assert_eq!((at, next), (0, 2));
        assert_eq!(t.pos(next), v(2.0, 0.0));
    }

    #[test]
    fn pruning_wakes_only_the_dry_nodes_that_could_take_the_freed_markers() {
        let mut t = Tree::new(v(0.0, 0.0));
        t.reach = 0.5;
        // 1: the pruned node's parent; 3: far away; 4: within 2 A_r of the pruned node.
        for (pos, parent) in [(v(1.0, 0.0), 0), (v(1.8, 0.0), 1), (v(10.0, 0.0), 0), (v(2.4, 0.0), 3)] {
            t.nodes.push(Node { pos, parent, exhausted: true });
        }
        t.nodes[0].exhausted = true;
        t.retain(|k| k != 2, &mut []);
        let dry: Vec<bool> = t.nodes.iter().map(|n| n.exhausted).collect();
        assert_eq!(dry, [true, false, true, false]);
    }
}
