//! Direct motion without a goal (Rodrigues et al. 2010, Sec 4.2, Eqs 10–12)
//! with the marker weights of shape formation (Eq 14) and alignment masks
//! (Sec 5.3), and the convex-hull goal that brings a former to its shape.

use crate::ir::{MaskId, Shape, ShapeId, Vec2};
use crate::rng::{stream, Purpose};
use crate::sim::scene::Scene;
use crate::sim::stage::Plan;
use crate::steer::direct;
use crate::world::geometry::{bounding_box, contains};

/// Tries at drawing a point of a shape's convex hull.
const HULL_TRIES: u32 = 64;

/// Tries at drawing a shape marker with room around it.
const ROOM_TRIES: u32 = 16;
/// A former moves on to a part of its shape at most this crowded, relative
/// to where it stands: half as much room again.
const ROOM_SHARE: f64 = 2.0 / 3.0;
/// Room for a body at a shape marker, in `t_min`: the formers inside stand
/// at the centres of their markers, short of `t_min` apart in a full
/// shape, and make room as they centre again.
pub(super) const BODY_ROOM: f64 = 0.7;
/// How far a former looks for a roomier part of its shape, in personal
/// spaces: twice as far as the crowding it compares.
const ROOM_REACH: f64 = 4.0;

/// What agent `i` sees of `shape` in its personal space: whether any of its
/// markers lies there, and whether one of those is free (closer to `i` than
/// to any other agent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ShapeView {
    pub sees: bool,
    pub free: bool,
}

/// What agent `i` sees of `shape`'s markers in its personal space.
pub(super) fn shape_view(scene: &Scene, i: usize, shape: ShapeId) -> ShapeView {
    let p = scene.agents.pos[i];
    let mut rivals: Option<Vec<Vec2>> = None;
    let mut view = ShapeView { sees: false, free: false };
    scene.markers.within(&scene.marker_grid, p, scene.agents.personal[i], |m| {
        if view.free || !scene.markers.in_shape(m, shape) {
            return;
        }
        view.sees = true;
        let rivals = rivals.get_or_insert_with(|| rivals_of(scene, i));
        view.free = !closer_to_a_rival(scene.markers.positions[m as usize], p, rivals);
    });
    view
}

/// The marker of `shape` closest to agent `i` in its personal space, if any.
pub(super) fn edge_point(scene: &Scene, i: usize, shape: ShapeId) -> Option<Vec2> {
    let p = scene.agents.pos[i];
    let mut best: Option<(f64, Vec2)> = None;
    scene.markers.within(&scene.marker_grid, p, scene.agents.personal[i], |m| {
        let q = scene.markers.positions[m as usize];
        let d = q.distance_squared(p);
        if scene.markers.in_shape(m, shape) && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, q));
        }
    });
    best.map(|(_, q)| q)
}

/// The room at `q` for agent `i`: the distance to the closest other agent,
/// capped at `cap`.
pub(super) fn room_at(scene: &Scene, i: usize, q: Vec2, cap: f64) -> f64 {
    let mut room = cap;
    scene.grid.for_each_near(q, cap, |j, a| {
        if j as usize != i {
            room = room.min(a.distance(q));
        }
    });
    room
}

/// Shape formation, when agent `i`'s personal space holds no free marker of
/// the shape: a marker of the shape with room around it, the one farthest
/// from any other agent of [`ROOM_TRIES`] drawn from `i`'s own stream (the
/// first drawn on ties), with that distance (capped at twice the personal
/// space); `None` when the shape has no markers.
pub(super) fn room_point(scene: &Scene, i: usize, shape: ShapeId, draw: u64) -> Option<(f64, Vec2)> {
    let ids = scene.markers.shape_markers(shape);
    if ids.is_empty() {
        return None;
    }
    let n = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    let reach = 2.0 * scene.agents.personal[i].max(scene.min_distance);
    let mut rng = stream(scene.seed, Purpose::Formation, scene.entity(i), draw);
    let mut best: Option<(f64, Vec2)> = None;
    for _ in 0..ROOM_TRIES {
        let q = scene.markers.positions[ids[rng.below(n) as usize] as usize];
        let room = room_at(scene, i, q, reach);
        if best.is_none_or(|(r, _)| room > r) {
            best = Some((room, q));
        }
    }
    best
}

/// Shape formation, for agent `i` inside the shape: one shape marker within
/// [`ROOM_REACH`] personal spaces, drawn from `i`'s own stream, when it is
/// less than [`ROOM_SHARE`] as crowded as where `i` stands. Crowding is
/// agents per shape marker within twice the personal space (`i` counted
/// where it stands and at the marker).
pub(super) fn roomier_point(scene: &Scene, i: usize, shape: ShapeId, draw: u64) -> Option<Vec2> {
    let p = scene.agents.pos[i];
    if !contains(&scene.program.world.shapes[shape.index()].shape, p) {
        return None;
    }
    let mut near: Vec<u32> = Vec::new();
    scene.markers.within(&scene.marker_grid, p, ROOM_REACH * scene.agents.personal[i], |m| {
        if scene.markers.in_shape(m, shape) {
            near.push(m);
        }
    });
    let n = u32::try_from(near.len()).ok().filter(|&n| n > 0)?;
    let mut rng = stream(scene.seed, Purpose::Formation, scene.entity(i), draw);
    let q = scene.markers.positions[near[rng.below(n) as usize] as usize];
    let here = crowding(scene, i, p, shape)?;
    let there = crowding(scene, i, q, shape)?;
    (there < ROOM_SHARE * here).then_some(q)
}

/// Agents within twice agent `i`'s personal space of `p`
/// (`i` itself counted once) per marker of `shape` there; `None` without
/// such markers.
fn crowding(scene: &Scene, i: usize, p: Vec2, shape: ShapeId) -> Option<f64> {
    let r = 2.0 * scene.agents.personal[i];
    let mut markers = 0u32;
    scene.markers.within(&scene.marker_grid, p, r, |m| {
        markers += u32::from(scene.markers.in_shape(m, shape));
    });
    let mut agents = 1u32;
    scene.grid.for_each_near(p, r, |j, q| {
        agents += u32::from(j as usize != i && q.distance_squared(p) <= r * r);
    });
    (markers > 0).then(|| f64::from(agents) / f64::from(markers))
}

/// Eqs. 10–12 with the weights of Eq 14 (shape, `w_max` inside it) and
/// Sec 5.3 (mask; `reach`: the largest personal space of any agent).
pub(super) fn direct_plan(
    scene: &Scene,
    i: usize,
    shape: Option<ShapeId>,
    mask: Option<MaskId>,
    w_max: f64,
    reach: f64,
) -> Plan {
    let markers = &scene.markers;
    let p = scene.agents.pos[i];
    let r = scene.agents.personal[i];
    // NOTE: Sec 5.3 says mask markers have their weights "increased" to
    // dist(I, k) ≤ R, which is hardly more than the others' 1; the mask
    // only aligns anyone when it is what the agent follows, so while a
    // mask marker is in the personal space the other markers weigh 0.
    let mut sees_mask = false;
    // Shape formation: the agents that may be closer to a marker than this one.
    let mut rivals: Vec<Vec2> = Vec::new();
    if shape.is_some() {
        rivals = rivals_of(scene, i);
    }
    // (marker, weight, on the mask)
    let mut weighted: Vec<(Vec2, f64, bool)> = Vec::new();
    markers.within(&scene.marker_grid, p, r, |m| {
        let q = markers.positions[m as usize];
        if closer_to_a_rival(q, p, &rivals) {
            return;
        }
        let mut w = markers.weights[m as usize];
        if let Some(s) = shape {
            w = direct::shape_weight(markers.in_shape(m, s), w_max);
        }
        let on_mask = mask.is_some_and(|k| markers.in_mask(m, k));
        if on_mask {
            w *= mask_weight(scene, i, q, reach);
            sees_mask = true;
        }
        weighted.push((q, w, on_mask));
    });
    let weights = weighted.into_iter().map(|(q, w, on_mask)| (q, if sees_mask && !on_mask { 0.0 } else { w }));
    let (m_d, total) = direct::motion_direction(p, weights);
    // Forming a shape or lining up on a mask, an agent walks to the weighted
    // centre of its markers and stops there, instead of stepping β past it
    // and back every step.
    let pace = if total > 0.0 { ((m_d / total).length() / scene.stride(i)).min(1.0) } else { 1.0 };
    Plan { direct: Some(m_d), pace, ..Plan::walk_to(p) }
}

/// The positions of the agents that may be closer than agent `i` to a
/// marker in its personal space.
fn rivals_of(scene: &Scene, i: usize) -> Vec<Vec2> {
    let mut rivals = Vec::new();
    scene.grid.for_each_near(scene.agents.pos[i], 2.0 * scene.agents.personal[i], |j, q| {
        if j as usize != i {
            rivals.push(q);
        }
    });
    rivals
}

/// Shape formation: whether the marker at `q` is closer to another agent
/// (at one of `rivals`) than to the agent at `p`, which then does not count
/// it (ties count for both). Every agent is a rival, inside the shape or
/// not: agents at its edge yield markers to those pressing in.
///
/// NOTE: Eqs 10–12 count every marker in the personal space, so agents that
/// reach a shape together pull towards the same markers and pile up where
/// they entered it (one clump at the foot of the V, its arms empty). Like
/// the tree nodes of Eq 1, and as in the markers' crowd models that follow
/// this paper, a marker here pulls only the agent closest to it: agents
/// pressed together find markers only on their free sides and spread over
/// the whole shape, "fighting for space" (Fig 6(c)).
fn closer_to_a_rival(q: Vec2, p: Vec2, rivals: &[Vec2]) -> bool {
    let own = q.distance_squared(p);
    rivals.iter().any(|r| r.distance_squared(q) < own)
}

/// Sec 5.3: a mask marker at `q` weighs `dist(I, k)`, summed over every
/// agent that has it in its personal space for the closest of them.
fn mask_weight(scene: &Scene, i: usize, q: Vec2, reach: f64) -> f64 {
    let agents = &scene.agents;
    let own = agents.pos[i].distance(q);
    let mut total = 0.0;
    let mut closest = true;
    scene.grid.for_each_candidate(q, reach, |j| {
        let j = j as usize;
        let d = agents.pos[j].distance(q);
        if d <= agents.personal[j] {
            total += d;
            // Ties go to the lower id, so exactly one viewer gets the sum.
            closest &= j == i || d > own || d == own && j > i;
        }
    });
    direct::mask_weight(own, total, closest)
}

/// Eq 14's automatic goal: a random point of the shape's convex hull,
/// drawn from agent `i`'s own stream.
pub(super) fn hull_point(scene: &Scene, i: usize, shape: ShapeId, draw: u64) -> Vec2 {
    let s = &scene.program.world.shapes[shape.index()].shape;
    let h = hull(s);
    let hull_shape = (h.len() >= 3).then_some(Shape::Polygon(h));
    let bb = bounding_box(s);
    let mut rng = stream(scene.seed, Purpose::Formation, scene.entity(i), draw);
    let mut last = (bb.min + bb.max) / 2.0;
    for _ in 0..HULL_TRIES {
        let p = Vec2::new(bb.min.x + rng.unit() * (bb.max.x - bb.min.x), bb.min.y + rng.unit() * (bb.max.y - bb.min.y));
        last = p;
        if contains(hull_shape.as_ref().unwrap_or(s), p) {
            return p;
        }
    }
    last
}

/// The convex hull of a shape's outline, counter-clockwise, without the
/// closing point (`geo`'s quickhull); empty for rectangles and circles,
/// which are their own hulls.
fn hull(shape: &Shape) -> Vec<Vec2> {
    use geo::ConvexHull;
    let pts: &[Vec2] = match shape {
        Shape::Polygon(p) => p,
        Shape::Polyline { points, .. } => points,
        Shape::Segment { a, b } => &[*a, *b],
        Shape::Rect(_) | Shape::Circle { .. } => return Vec::new(),
    };
    let points: geo::MultiPoint<f64> = pts.iter().map(|p| geo::Point::new(p.x, p.y)).collect();
    let mut ring: Vec<Vec2> = points.convex_hull().exterior().coords().map(|c| Vec2::new(c.x, c.y)).collect();
    ring.pop();
    ring
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hull_of_an_l_spans_its_notch() {
        let v = Vec2::new;
        let l = Shape::Polygon(vec![v(0.0, 0.0), v(2.0, 0.0), v(2.0, 1.0), v(1.0, 1.0), v(1.0, 3.0), v(0.0, 3.0)]);
        let h = hull(&l);
        assert_eq!(h.len(), 5, "{h:?}");
        assert!(!h.contains(&v(1.0, 1.0)));
        let hull_shape = Shape::Polygon(h);
        // In the notch: inside the hull, outside the L.
        assert!(contains(&hull_shape, v(1.5, 1.5)) && !contains(&l, v(1.5, 1.5)));
        assert!(!contains(&hull_shape, v(1.8, 2.5)));
        // A rectangle is its own hull.
        assert!(hull(&Shape::Rect(crate::ir::Rect { min: v(0.0, 0.0), max: v(1.0, 1.0) })).is_empty());
    }
}
