//! Walkable space: the world's bounds minus its obstacles, for bodies of a
//! given radius.
//!
//! Invariants:
//! - a body of radius `r` at `p` is *clear* when it lies inside the bounds by
//!   at least `r` and no obstacle is closer than `r` to `p` (segments and
//!   polylines count with their thickness);
//! - [`Walkable::project`] returns a clear position or, when overlapping
//!   obstacles leave no clear spot nearby, the previous (clear) position;
//! - obstacle look-ups go through a static grid built once, so a query costs
//!   the obstacles near the point, not all of them.

use std::borrow::Cow;

use crate::ir::{Rect, Shape, Vec2, World};
use crate::world::geometry::{
    blocks, bounding_box, closest_on_segment, contains, rect_signed_distance, segments_intersect, signed_distance,
};
use crate::world::grid::capped_cells;

/// Push-out passes before giving up on a spot squeezed between obstacles.
const PROJECT_PASSES: usize = 4;
/// Tolerance for "touching" an obstacle after a push-out, m.
const TOUCH: f64 = 1e-9;
/// The obstacle index has at most this many cells: 128 a side in a square
/// world, and as fine in a long one, where a cap per side would give cells
/// spanning several corridors' walls.
const INDEX_CELLS: u64 = 128 * 128;

#[derive(Clone, Debug)]
pub struct Walkable {
    bounds: Rect,
    obstacles: Vec<Shape>,
    /// Obstacle index: a coarse grid, each cell listing the obstacles whose
    /// bounding box, grown by `reach`, overlaps it.
    min: Vec2,
    inv_cell: f64,
    nx: u32,
    ny: u32,
    start: Vec<u32>,
    ids: Vec<u32>,
    /// How far from an obstacle the index answers for, m.
    reach: f64,
}

impl Walkable {
    /// `reach` bounds how far from an obstacle a query can matter: the largest
    /// body radius plus the longest step.
    pub fn new(world: &World, reach: f64) -> Walkable {
        Walkable::index(world.bounds, world.obstacles.iter().map(|o| o.shape.clone()).collect(), reach)
    }

    /// The same space indexed to answer at least `reach` from obstacles
    /// (itself when its index already does).
    pub fn reaching(&self, reach: f64) -> Cow<'_, Walkable> {
        if reach <= self.reach {
            return Cow::Borrowed(self);
        }
        Cow::Owned(Walkable::index(self.bounds, self.obstacles.clone(), reach))
    }

    fn index(bounds: Rect, obstacles: Vec<Shape>, reach: f64) -> Walkable {
        let (cell, nx, ny) = capped_cells(bounds, reach.max(0.5), INDEX_CELLS);
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); nx as usize * ny as usize];
        if !obstacles.is_empty() {
            let clamp = |v: f64, n: u32| ((v.floor().max(0.0)) as u32).min(n - 1);
            for (i, shape) in obstacles.iter().enumerate() {
                let bb = bounding_box(shape);
                let (x0, x1) = (
                    clamp((bb.min.x - reach - bounds.min.x) / cell, nx),
                    clamp((bb.max.x + reach - bounds.min.x) / cell, nx),
                );
                let (y0, y1) = (
                    clamp((bb.min.y - reach - bounds.min.y) / cell, ny),
                    clamp((bb.max.y + reach - bounds.min.y) / cell, ny),
                );
                for cy in y0..=y1 {
                    for cx in x0..=x1 {
                        lists[(cy * nx + cx) as usize].push(i as u32);
                    }
                }
            }
        }
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut ids = Vec::new();
        start.push(0);
        for l in &lists {
            ids.extend_from_slice(l);
            start.push(ids.len() as u32);
        }
        Walkable { bounds, obstacles, min: bounds.min, inv_cell: 1.0 / cell, nx, ny, start, ids, reach: reach.max(0.0) }
    }

    pub fn bounds(&self) -> Rect {
        self.bounds
    }

    pub fn obstacles(&self) -> &[Shape] {
        &self.obstacles
    }

    /// The index cell of `p`, clamped to the index.
    #[inline]
    fn cell(&self, p: Vec2) -> (u32, u32) {
        // `as` truncates and saturates: `floor` clamped to the index, without a call.
        let cx = (((p.x - self.min.x) * self.inv_cell) as u32).min(self.nx - 1);
        let cy = (((p.y - self.min.y) * self.inv_cell) as u32).min(self.ny - 1);
        (cx, cy)
    }

    /// Obstacles listed in cell `(cx, cy)` of the index.
    #[inline]
    fn listed(&self, cx: u32, cy: u32) -> &[u32] {
        let c = (cy * self.nx + cx) as usize;
        &self.ids[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// Obstacles that may matter at `p` (within `reach` of it).
    #[inline]
    pub fn near(&self, p: Vec2) -> &[u32] {
        let (cx, cy) = self.cell(p);
        self.listed(cx, cy)
    }

    /// Whether a disc of radius `r` at `p` lies inside the bounds.
    fn inside_bounds(&self, p: Vec2, r: f64) -> bool {
        let b = self.bounds;
        p.x >= b.min.x + r - TOUCH
            && p.x <= b.max.x - r + TOUCH
            && p.y >= b.min.y + r - TOUCH
            && p.y <= b.max.y - r + TOUCH
    }

    /// The distance from `p` to the nearest obstacle or bound, at most
    /// `cap` (and at most the index's reach, beyond which it cannot tell).
    pub fn clearance(&self, p: Vec2, cap: f64) -> f64 {
        let b = self.bounds;
        let edges = (p.x - b.min.x).min(b.max.x - p.x).min(p.y - b.min.y).min(b.max.y - p.y);
        let near = self.near(p).iter().map(|&i| match &self.obstacles[i as usize] {
            // The common case, without building an outline.
            Shape::Rect(r) => rect_signed_distance(r, p),
            shape => signed_distance(shape, p),
        });
        near.fold(edges.min(cap).min(self.reach), f64::min)
    }

    /// Whether a body of radius `r` fits at `p`.
    pub fn is_clear(&self, p: Vec2, r: f64) -> bool {
        self.inside_bounds(p, r) && self.near(p).iter().all(|&i| !overlaps(&self.obstacles[i as usize], p, r))
    }

    /// Whether a body of radius `r` can move in a straight line from `a` to
    /// `b`: the disc swept along the segment stays inside the bounds and off
    /// every obstacle, exactly (not at sampled points), with the tolerance of
    /// [`Walkable::is_clear`].
    pub fn segment_clear(&self, a: Vec2, b: Vec2, r: f64) -> bool {
        // The bounds are convex: the swept disc is inside when both end discs are.
        if !self.inside_bounds(a, r) || !self.inside_bounds(b, r) {
            return false;
        }
        if self.obstacles.is_empty() {
            return true;
        }
        // An obstacle within `r` of the segment is listed in a cell the
        // segment crosses when `r` is within the index's reach, and in any
        // case in a cell of the segment's box grown by `r`.
        let ((x0, y0), (x1, y1)) = (self.cell(a.min(b) - r), self.cell(a.max(b) + r));
        let mut seen = [u32::MAX; 8];
        for cy in y0..=y1 {
            for cx in x0..=x1 {
                for &i in self.listed(cx, cy) {
                    // Most segments meet a handful of obstacles: skip the ones tested already.
                    if seen.contains(&i) {
                        continue;
                    }
                    seen[i as usize % seen.len()] = i;
                    if blocks(&self.obstacles[i as usize], a, b, r - TOUCH) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The obstacle whose interior contains the point `p`, if any (the lowest index).
    pub fn obstacle_at(&self, p: Vec2) -> Option<usize> {
        self.near(p).iter().map(|&i| i as usize).find(|&i| contains(&self.obstacles[i], p))
    }

    /// Moves a body of radius `r` that went from `prev` to `p` back into
    /// walkable space: out of obstacles along the nearest boundary point (so it
    /// slides along walls) and into the bounds.
    pub fn project(&self, p: Vec2, prev: Vec2, r: f64) -> Vec2 {
        let mut p = self.clamp_to_bounds(p, r);
        if self.obstacles.is_empty() {
            return p;
        }
        for _ in 0..PROJECT_PASSES {
            let mut moved = false;
            for &i in self.near(p) {
                if let Some(q) = push_out(&self.obstacles[i as usize], p, prev, r) {
                    p = q;
                    moved = true;
                }
            }
            p = self.clamp_to_bounds(p, r);
            if !moved {
                return p;
            }
        }
        if self.is_clear(p, r) {
            p
        } else {
            // Squeezed between obstacles: stay where the body last fitted.
            prev
        }
    }

    fn clamp_to_bounds(&self, p: Vec2, r: f64) -> Vec2 {
        let b = self.bounds;
        let axis = |v: f64, lo: f64, hi: f64| if lo <= hi { v.clamp(lo, hi) } else { (lo + hi) / 2.0 };
        Vec2::new(axis(p.x, b.min.x + r, b.max.x - r), axis(p.y, b.min.y + r, b.max.y - r))
    }
}

/// Whether a body of radius `r` at `p` overlaps the shape.
pub fn overlaps(shape: &Shape, p: Vec2, r: f64) -> bool {
    push_out(shape, p, p, r).is_some()
}

/// Where a body of radius `r` at `p` (arriving from `prev`) must go to stop
/// overlapping the shape, or `None` when it does not overlap.
pub fn push_out(shape: &Shape, p: Vec2, prev: Vec2, r: f64) -> Option<Vec2> {
    match shape {
        Shape::Rect(rect) => push_out_rect(rect, p, r),
        Shape::Circle { center, radius } => {
            let d = p - *center;
            let reach = radius + r;
            let len2 = d.length_squared();
            if len2 >= (reach - TOUCH) * (reach - TOUCH) {
                return None;
            }
            let len = len2.sqrt();
            let dir = if len > 0.0 { d / len } else { away(prev - *center) };
            Some(*center + dir * reach)
        }
        Shape::Polygon(points) => push_out_polygon(points, p, r),
        Shape::Polyline { points, width } => {
            let half = width / 2.0;
            let (q, a, b) = nearest_on_polyline(points, p)?;
            push_out_line(q, a, b, p, prev, half + r, false)
        }
        Shape::Segment { a, b } => {
            let q = closest_on_segment(*a, *b, p);
            let crossed = prev != p && segments_intersect(prev, p, *a, *b) && side(*a, *b, prev) != 0.0;
            push_out_line(q, *a, *b, p, prev, r, crossed)
        }
    }
}

fn push_out_rect(rect: &Rect, p: Vec2, r: f64) -> Option<Vec2> {
    let q = p.clamp(rect.min, rect.max);
    let d = p - q;
    let len2 = d.length_squared();
    if len2 > 0.0 {
        if len2 >= (r - TOUCH) * (r - TOUCH) {
            return None;
        }
        return Some(q + d / len2.sqrt() * r);
    }
    // Inside (or on the edge): leave through the nearest side; ties go to the
    // first of left, right, bottom, top.
    let sides = [p.x - rect.min.x, rect.max.x - p.x, p.y - rect.min.y, rect.max.y - p.y];
    let mut best = 0;
    for i in 1..4 {
        if sides[i] < sides[best] {
            best = i;
        }
    }
    Some(match best {
        0 => Vec2::new(rect.min.x - r, p.y),
        1 => Vec2::new(rect.max.x + r, p.y),
        2 => Vec2::new(p.x, rect.min.y - r),
        _ => Vec2::new(p.x, rect.max.y + r),
    })
}

fn push_out_polygon(points: &[Vec2], p: Vec2, r: f64) -> Option<Vec2> {
    let n = points.len();
    let mut best = (f64::INFINITY, p, 0usize);
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        let q = closest_on_segment(a, b, p);
        let d2 = q.distance_squared(p);
        if d2 < best.0 {
            best = (d2, q, i);
        }
    }
    let (d2, q, edge) = best;
    let inside = contains(&Shape::Polygon(points.to_vec()), p);
    if !inside && d2 >= (r - TOUCH) * (r - TOUCH) {
        return None;
    }
    let d = d2.sqrt();
    let dir = if d > 0.0 {
        if inside {
            (q - p) / d
        } else {
            (p - q) / d
        }
    } else {
        // On the boundary: the edge's outward normal (counter-clockwise polygon).
        let (a, b) = (points[edge], points[(edge + 1) % n]);
        let t = (b - a).normalize_or_zero();
        Vec2::new(t.y, -t.x)
    };
    Some(q + dir * r)
}

/// Nearest point of a polyline's centre line and the segment it lies on.
fn nearest_on_polyline(points: &[Vec2], p: Vec2) -> Option<(Vec2, Vec2, Vec2)> {
    let mut best: Option<(f64, Vec2, Vec2, Vec2)> = None;
    for w in points.windows(2) {
        let q = closest_on_segment(w[0], w[1], p);
        let d2 = q.distance_squared(p);
        if best.is_none_or(|b| d2 < b.0) {
            best = Some((d2, q, w[0], w[1]));
        }
    }
    best.map(|(_, q, a, b)| (q, a, b))
}

/// Pushes `p` to distance `clear` from the point `q` of segment `ab`; a body
/// that `crossed` the segment is sent back to the side it came from.
fn push_out_line(q: Vec2, a: Vec2, b: Vec2, p: Vec2, prev: Vec2, clear: f64, crossed: bool) -> Option<Vec2> {
    let d = p - q;
    let len2 = d.length_squared();
    if !crossed && len2 >= (clear - TOUCH) * (clear - TOUCH) {
        return None;
    }
    let len = len2.sqrt();
    let dir = if crossed || len == 0.0 {
        let t = (b - a).normalize_or_zero();
        let n = Vec2::new(-t.y, t.x);
        let s = side(a, b, prev);
        if s < 0.0 {
            -n
        } else if s > 0.0 || t != Vec2::ZERO {
            n
        } else {
            away(prev - q)
        }
    } else {
        d / len
    };
    Some(q + dir * clear)
}

fn side(a: Vec2, b: Vec2, p: Vec2) -> f64 {
    (b - a).perp_dot(p - a)
}

/// A unit direction along `v`, or +x when `v` is zero.
fn away(v: Vec2) -> Vec2 {
    let n = v.normalize_or_zero();
    if n == Vec2::ZERO {
        Vec2::X
    } else {
        n
    }
}

/// A point inside the shape, to aim at: the centre for rectangles and
/// circles, the area centroid of a polygon when it lies inside (else the
/// middle of the polygon's chord through it), the middle of a polyline or segment.
pub fn interior_point(shape: &Shape) -> Vec2 {
    match shape {
        Shape::Rect(r) => (r.min + r.max) / 2.0,
        Shape::Circle { center, .. } => *center,
        Shape::Polygon(points) => polygon_interior_point(points),
        Shape::Polyline { points, .. } => {
            let mid = points.len() / 2;
            if points.len() % 2 == 1 {
                points[mid]
            } else {
                (points[mid - 1] + points[mid]) / 2.0
            }
        }
        Shape::Segment { a, b } => (*a + *b) / 2.0,
    }
}

fn polygon_interior_point(points: &[Vec2]) -> Vec2 {
    let n = points.len();
    let (mut a2, mut cx, mut cy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (p, q) = (points[i], points[(i + 1) % n]);
        let c = p.x * q.y - q.x * p.y;
        a2 += c;
        cx += (p.x + q.x) * c;
        cy += (p.y + q.y) * c;
    }
    let centroid = Vec2::new(cx / (3.0 * a2), cy / (3.0 * a2));
    let shape = Shape::Polygon(points.to_vec());
    if contains(&shape, centroid) {
        return centroid;
    }
    // The horizontal line through the centroid crosses the polygon: the middle
    // of its first inside stretch is inside.
    let y = centroid.y;
    let mut xs: Vec<f64> = (0..n)
        .filter_map(|i| {
            let (p, q) = (points[i], points[(i + 1) % n]);
            ((p.y > y) != (q.y > y)).then(|| p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y))
        })
        .collect();
    xs.sort_by(f64::total_cmp);
    match xs.as_slice() {
        [a, b, ..] => Vec2::new((a + b) / 2.0, y),
        _ => points[0],
    }
}

/// The region membership test used for arrival: inside the area, or for a
/// shape without area (a segment), within `near` of it.
pub fn reached(shape: &Shape, p: Vec2, near: f64) -> bool {
    match shape {
        Shape::Segment { a, b } => closest_on_segment(*a, *b, p).distance_squared(p) <= near * near,
        _ => contains(shape, p),
    }
}

/// A uniformly distributed candidate point of the shape from two uniform
/// numbers in `[0, 1)`: over the bounding box for areas (the caller rejects
/// points outside), along the segment for segments.
pub fn candidate_point(shape: &Shape, u: f64, v: f64) -> Vec2 {
    match shape {
        Shape::Segment { a, b } => *a + (*b - *a) * u,
        _ => {
            let bb = bounding_box(shape);
            Vec2::new(bb.min.x + (bb.max.x - bb.min.x) * u, bb.min.y + (bb.max.y - bb.min.y) * v)
        }
    }
}

/// Whether a candidate from [`candidate_point`] belongs to the shape.
pub fn accepts(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Segment { .. } => true,
        _ => contains(shape, p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    fn world(obstacles: Vec<Shape>) -> World {
        World::bare(Rect { min: v(0.0, 0.0), max: v(20.0, 10.0) }, obstacles)
    }

    #[test]
    fn a_long_world_is_indexed_as_finely_as_a_square_one() {
        // Corridors 10 m tall, separated by walls 0.2 m thick.
        let corridors = |w: f64, h: f64| {
            let walls = (1..(h / 10.0) as usize)
                .map(|k| Shape::Rect(Rect { min: v(0.0, k as f64 * 10.0 - 0.1), max: v(w, k as f64 * 10.0 + 0.1) }))
                .collect();
            Walkable::new(&World::bare(Rect { min: v(0.0, 0.0), max: v(w, h) }, walls), 0.5)
        };
        // 200 corridors of 40 m: a cap per side gave cells of 15.6 m, spanning two walls.
        let long = corridors(40.0, 2000.0);
        let cells = u64::from(long.nx) * u64::from(long.ny);
        assert!(1.0 / long.inv_cell < 2.3 && cells <= INDEX_CELLS, "{} m, {cells} cells", 1.0 / long.inv_cell);
        assert_eq!(long.near(v(20.0, 1009.0)), &[100], "only the wall at 1010 m is within reach");
        let square = 1.0 / corridors(200.0, 200.0).inv_cell;
        assert!((square - 200.0 / 128.0).abs() < 1e-12, "{square} m");
    }

    #[test]
    fn clearance_is_the_distance_to_the_nearest_wall_up_to_the_reach() {
        let rect = Rect { min: v(8.0, 2.0), max: v(12.0, 6.0) };
        let shapes = [Shape::Rect(rect), Shape::Circle { center: v(4.0, 8.0), radius: 1.0 }];
        let walk = Walkable::new(&world(shapes.to_vec()), 3.0);
        // The rectangle's own formula agrees with the general one, inside and out.
        for (x, y) in [(7.0, 4.0), (13.5, 7.5), (9.0, 3.0), (10.0, 4.0), (12.0, 6.0), (11.9, 2.2)] {
            let d = rect_signed_distance(&rect, v(x, y));
            assert!((d - signed_distance(&shapes[0], v(x, y))).abs() < 1e-12, "({x}, {y}): {d}");
        }
        assert!((walk.clearance(v(7.0, 4.0), 10.0) - 1.0).abs() < 1e-12);
        assert!((walk.clearance(v(10.0, 4.0), 10.0) + 2.0).abs() < 1e-12);
        assert!((walk.clearance(v(4.0, 6.5), 10.0) - 0.5).abs() < 1e-12);
        // The bounds count; beyond the cap and the reach, all is alike.
        assert!((walk.clearance(v(0.25, 4.0), 10.0) - 0.25).abs() < 1e-12);
        assert_eq!(walk.clearance(v(16.0, 3.0), 10.0), 3.0);
        assert_eq!(walk.clearance(v(16.0, 3.0), 1.5), 1.5);
        assert_eq!(walk.reaching(9.0).clearance(v(16.0, 3.0), 10.0), 3.0, "the bound is 3 m away");
    }

    #[test]
    fn projection_leaves_every_shape_and_slides() {
        let shapes = vec![
            Shape::Rect(Rect { min: v(4.0, 4.0), max: v(6.0, 6.0) }),
            Shape::Circle { center: v(10.0, 5.0), radius: 1.0 },
            Shape::Polygon(vec![v(14.0, 2.0), v(17.0, 2.0), v(15.5, 5.0)]),
            Shape::Polyline { points: vec![v(1.0, 8.0), v(5.0, 8.0), v(8.0, 9.0)], width: 0.4 },
            Shape::Segment { a: v(12.0, 7.0), b: v(16.0, 7.0) },
        ];
        let w = Walkable::new(&world(shapes), 1.0);
        let r = 0.25;
        for (p, prev) in [
            (v(4.1, 5.0), v(3.9, 5.0)),
            (v(5.0, 5.0), v(5.0, 5.0)),
            (v(9.5, 5.0), v(8.5, 5.0)),
            (v(10.0, 5.0), v(8.0, 5.0)),
            (v(15.5, 3.0), v(15.5, 1.0)),
            (v(3.0, 8.1), v(3.0, 7.5)),
            (v(14.0, 7.05), v(14.0, 6.5)),
            (v(14.0, 7.1), v(14.0, 6.95)),
            (v(-1.0, 11.0), v(0.5, 9.5)),
        ] {
            let q = w.project(p, prev, r);
            assert!(w.is_clear(q, r), "{p} from {prev} -> {q}");
        }
        // Walking into the left face of the square slides along it.
        let q = w.project(v(3.9, 4.6), v(3.7, 4.5), r);
        assert!((q.x - 3.75).abs() < 1e-12 && (q.y - 4.6).abs() < 1e-12, "{q}");
        // Crossing the thin wall is undone: the body stays on its side.
        let q = w.project(v(14.0, 7.1), v(14.0, 6.95), r);
        assert!(q.y < 7.0, "{q}");
    }

    #[test]
    fn concave_polygon_interior_point_is_inside() {
        let u = vec![
            v(0.0, 0.0),
            v(3.0, 0.0),
            v(3.0, 3.0),
            v(2.0, 3.0),
            v(2.0, 1.0),
            v(1.0, 1.0),
            v(1.0, 3.0),
            v(0.0, 3.0),
        ];
        let p = interior_point(&Shape::Polygon(u.clone()));
        assert!(contains(&Shape::Polygon(u), p), "{p}");
    }

    #[test]
    fn segments_are_tested_exactly_not_at_samples() {
        // A wall of no thickness, a corner grazed between any two sample points
        // a tenth of a metre apart, and a circle beyond the index's reach.
        let shapes = vec![
            Shape::Segment { a: v(5.0, 2.0), b: v(5.0, 8.0) },
            Shape::Rect(Rect { min: v(12.0, 5.0), max: v(14.0, 7.0) }),
            Shape::Circle { center: v(17.0, 5.0), radius: 0.5 },
        ];
        let w = Walkable::new(&world(shapes), 0.3);
        assert!(!w.segment_clear(v(4.0, 5.0), v(6.0, 5.0), 0.0), "through a wall of no thickness");
        assert!(w.segment_clear(v(4.0, 1.0), v(6.0, 1.0), 0.0), "below the wall's end");
        assert!(!w.segment_clear(v(4.0, 1.5), v(6.0, 1.5), 0.6), "within 0.6 m of the wall's end");
        // A segment 0.098 m long across the diagonal of the corner (12, 5):
        // its ends are clear, its middle passes `d` from the corner.
        let (out, along) = (v(-1.0, -1.0) / 2f64.sqrt(), v(1.0, -1.0) / 2f64.sqrt());
        let across = |d: f64| (v(12.0, 5.0) + out * d - along * 0.049, v(12.0, 5.0) + out * d + along * 0.049);
        let (a, b) = across(0.249);
        assert!(w.is_clear(a, 0.25) && w.is_clear(b, 0.25));
        assert!(!w.segment_clear(a, b, 0.25), "grazing the corner");
        let (a, b) = across(0.251);
        assert!(w.segment_clear(a, b, 0.25), "just clear of it");
        // Clearance larger than the index's reach: the circle is still seen.
        assert!(!w.segment_clear(v(16.0, 6.2), v(18.0, 6.2), 1.0));
        assert!(w.segment_clear(v(16.0, 6.6), v(18.0, 6.6), 1.0));
        // The bounds, with the body's radius.
        assert!(!w.segment_clear(v(1.0, 1.0), v(1.0, 0.2), 0.25));
        assert!(w.segment_clear(v(1.0, 1.0), v(1.0, 0.25), 0.25));
    }
}
