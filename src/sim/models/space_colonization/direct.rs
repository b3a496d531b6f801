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

/// Whether a marker of `shape` lies in agent `i`'s personal space.
pub(super) fn shape_marker_near(scene: &Scene, i: usize, shape: ShapeId) -> bool {
    let mut near = false;
    scene.markers.within(&scene.marker_grid, scene.agents.pos[i], scene.agents.personal[i], |m| {
        near = near || scene.markers.in_shape(m, shape);
    });
    near
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
    if let Some(s) = shape {
        let outline = &scene.program.world.shapes[s.index()].shape;
        if contains(outline, p) {
            scene.grid.for_each_near(p, 2.0 * r, |j, q| {
                if j as usize != i && contains(outline, q) {
                    rivals.push(q);
                }
            });
        }
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
    let (m_d, total) = weights.fold((Vec2::ZERO, 0.0), |(m, t), (q, w)| (m + (q - p) * w, t + w));
    // Forming a shape, an agent walks to the weighted centre of its markers
    // and stops there, instead of stepping β past it and back every step.
    let pace = match shape {
        Some(_) if total > 0.0 => ((m_d / total).length() / scene.stride(i)).min(1.0),
        _ => 1.0,
    };
    Plan { direct: Some(m_d), pace, ..Plan::walk_to(p) }
}

/// Shape formation: whether the marker at `q` is closer to another agent
/// (at one of `rivals`) than to the agent at `p`, which then does not count
/// it (ties count for both). Rivals are agents inside the shape, counted by
/// agents inside it: one still outside follows every marker it sees in.
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
