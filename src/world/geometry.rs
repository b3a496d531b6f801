//! Planar geometry on IR shapes: containment, distances, areas, polygon sanity.

use crate::ir::{Rect, Shape, Vec2};

/// Twice the signed area of a polygon (positive when counter-clockwise).
pub fn signed_area2(points: &[Vec2]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum()
}

/// Orientation of the triangle (a, b, c): >0 counter-clockwise, <0 clockwise, 0 collinear.
fn orient(a: Vec2, b: Vec2, c: Vec2) -> f64 {
    (b - a).perp_dot(c - a)
}

fn on_segment(a: Vec2, b: Vec2, p: Vec2) -> bool {
    p.x >= a.x.min(b.x) && p.x <= a.x.max(b.x) && p.y >= a.y.min(b.y) && p.y <= a.y.max(b.y)
}

/// Whether the closed segments `ab` and `cd` share a point.
pub fn segments_intersect(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> bool {
    let (o1, o2, o3, o4) = (orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b));
    if ((o1 > 0.0 && o2 < 0.0) || (o1 < 0.0 && o2 > 0.0)) && ((o3 > 0.0 && o4 < 0.0) || (o3 < 0.0 && o4 > 0.0)) {
        return true;
    }
    (o1 == 0.0 && on_segment(a, b, c))
        || (o2 == 0.0 && on_segment(a, b, d))
        || (o3 == 0.0 && on_segment(c, d, a))
        || (o4 == 0.0 && on_segment(c, d, b))
}

/// The first pair of non-adjacent edges `(i, j)` of a closed polygon that
/// touch, if any. Edges are bucketed on a grid of about one cell per edge
/// over the polygon's box, and only edges sharing a cell are tested: about
/// linear for the polygons people draw or generate (100,000 vertices took
/// 26 s when every pair was tested), quadratic only when most edges cross
/// most cells.
pub fn self_intersection(points: &[Vec2]) -> Option<(usize, usize)> {
    let n = points.len();
    if n < 4 {
        return None;
    }
    let edge = |i: usize| (points[i], points[(i + 1) % n]);
    let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let side = (n as f64).sqrt().ceil().max(1.0) as usize;
    let size = (hi - lo) / side as f64;
    let cell = |v: f64, lo: f64, size: f64| {
        if size > 0.0 && v.is_finite() {
            (((v - lo) / size).floor().max(0.0) as usize).min(side - 1)
        } else {
            0
        }
    };
    let mut cells: Vec<Vec<u32>> = vec![Vec::new(); side * side];
    for i in 0..n {
        let (a, b) = edge(i);
        let (x0, x1) = (cell(a.x.min(b.x), lo.x, size.x), cell(a.x.max(b.x), lo.x, size.x));
        let (y0, y1) = (cell(a.y.min(b.y), lo.y, size.y), cell(a.y.max(b.y), lo.y, size.y));
        for y in y0..=y1 {
            for x in x0..=x1 {
                cells[y * side + x].push(i as u32);
            }
        }
    }
    let mut first: Option<(usize, usize)> = None;
    for list in &cells {
        for (k, &i) in list.iter().enumerate() {
            for &j in &list[k + 1..] {
                let (i, j) = (i as usize, j as usize);
                let adjacent = j == i + 1 || (i == 0 && j == n - 1);
                if adjacent || first.is_some_and(|f| f <= (i, j)) {
                    continue;
                }
                let ((a, b), (c, d)) = (edge(i), edge(j));
                if segments_intersect(a, b, c, d) {
                    first = Some((i, j));
                }
            }
        }
    }
    first
}

/// Even-odd point-in-polygon test.
pub fn polygon_contains(points: &[Vec2], p: Vec2) -> bool {
    let n = points.len();
    let mut inside = false;
    let mut j = n - 1;
    for i in 0..n {
        let (a, b) = (points[i], points[j]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

/// Distance from `p` to the segment `ab`.
pub fn segment_distance(a: Vec2, b: Vec2, p: Vec2) -> f64 {
    closest_on_segment(a, b, p).distance(p)
}

/// The point of segment `ab` closest to `p`.
pub fn closest_on_segment(a: Vec2, b: Vec2, p: Vec2) -> Vec2 {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 == 0.0 {
        return a;
    }
    let t = ((p - a).dot(ab) / len2).clamp(0.0, 1.0);
    a + ab * t
}

/// Whether `p` lies in the shape (segments contain nothing).
pub fn contains(shape: &Shape, p: Vec2) -> bool {
    match shape {
        Shape::Rect(r) => r.contains(p),
        Shape::Circle { center, radius } => center.distance_squared(p) <= radius * radius,
        Shape::Polygon(points) => polygon_contains(points, p),
        Shape::Polyline { points, width } => points.windows(2).any(|w| segment_distance(w[0], w[1], p) <= width / 2.0),
        Shape::Segment { .. } => false,
    }
}

/// Length of the polyline through `points`, m.
pub fn polyline_length(points: &[Vec2]) -> f64 {
    points.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// Area of the shape, m² (polylines: length × width, ignoring overlaps at joints).
pub fn area(shape: &Shape) -> f64 {
    match shape {
        Shape::Rect(r) => r.area(),
        Shape::Circle { radius, .. } => std::f64::consts::PI * radius * radius,
        Shape::Polygon(points) => signed_area2(points).abs() / 2.0,
        Shape::Polyline { points, width } => polyline_length(points) * width,
        Shape::Segment { .. } => 0.0,
    }
}

/// The smallest rectangle holding every point (inverted for no points).
pub fn points_box(points: &[Vec2]) -> Rect {
    let mut r = Rect { min: Vec2::splat(f64::INFINITY), max: Vec2::splat(f64::NEG_INFINITY) };
    for p in points {
        r.min = r.min.min(*p);
        r.max = r.max.max(*p);
    }
    r
}

/// The overlap of two rectangles, `None` when it has no area.
pub fn intersection(a: Rect, b: Rect) -> Option<Rect> {
    let r = Rect { min: a.min.max(b.min), max: a.max.min(b.max) };
    (r.min.x < r.max.x && r.min.y < r.max.y).then_some(r)
}

/// Axis-aligned bounding box.
pub fn bounding_box(shape: &Shape) -> Rect {
    let from_points = |points: &[Vec2], pad: f64| {
        let r = points_box(points);
        Rect { min: r.min - pad, max: r.max + pad }
    };
    match shape {
        Shape::Rect(r) => *r,
        Shape::Circle { center, radius } => Rect { min: *center - *radius, max: *center + *radius },
        Shape::Polygon(points) => from_points(points, 0.0),
        Shape::Polyline { points, width } => from_points(points, width / 2.0),
        Shape::Segment { a, b } => from_points(&[*a, *b], 0.0),
    }
}

/// The outline points of a shape, used to test that one shape lies within another.
pub fn outline(shape: &Shape) -> Vec<Vec2> {
    match shape {
        Shape::Rect(r) => vec![r.min, Vec2::new(r.max.x, r.min.y), r.max, Vec2::new(r.min.x, r.max.y)],
        Shape::Circle { center, radius } => (0..16)
            .map(|k| {
                let a = k as f64 * std::f64::consts::TAU / 16.0;
                *center + Vec2::new(crate::math::cos(a), crate::math::sin(a)) * *radius
            })
            .collect(),
        Shape::Polygon(points) => points.clone(),
        // A thick line reaches width/2 beyond its centre line in every direction.
        Shape::Polyline { points, width } => points
            .iter()
            .flat_map(|p| {
                (0..8).map(move |k| {
                    let a = k as f64 * std::f64::consts::TAU / 8.0;
                    *p + Vec2::new(crate::math::cos(a), crate::math::sin(a)) * (width / 2.0)
                })
            })
            .collect(),
        Shape::Segment { a, b } => vec![*a, *b],
    }
}

/// Whether every outline point of `inner` lies in `outer` (boundaries included).
pub fn within(inner: &Shape, outer: &Shape) -> bool {
    const EPS: f64 = 1e-9;
    outline(inner).into_iter().all(|p| contains(outer, p) || outline_distance(outer, p) <= EPS)
}

/// Distance from `p` to the boundary of the shape.
pub fn outline_distance(shape: &Shape, p: Vec2) -> f64 {
    match shape {
        Shape::Circle { center, radius } => (center.distance(p) - radius).abs(),
        Shape::Polyline { points, width } => points
            .windows(2)
            .map(|w| (segment_distance(w[0], w[1], p) - width / 2.0).abs())
            .fold(f64::INFINITY, f64::min),
        _ => {
            let pts = outline(shape);
            let n = pts.len();
            (0..n).map(|i| segment_distance(pts[i], pts[(i + 1) % n], p)).fold(f64::INFINITY, f64::min)
        }
    }
}

/// Signed distance from `p` to the shape: negative inside, positive outside.
pub fn signed_distance(shape: &Shape, p: Vec2) -> f64 {
    let d = match shape {
        Shape::Segment { a, b } => return segment_distance(*a, *b, p),
        _ => outline_distance(shape, p),
    };
    if contains(shape, p) {
        -d
    } else {
        d
    }
}

/// [`signed_distance`] to a rectangle, without building its outline (equal
/// to round-off; kept apart so that the markers placed with the general one
/// stay bit for bit where they are).
pub fn rect_signed_distance(r: &Rect, p: Vec2) -> f64 {
    let out = (r.min - p).max(p - r.max);
    if out.x <= 0.0 && out.y <= 0.0 {
        out.x.max(out.y)
    } else {
        out.max(Vec2::ZERO).length()
    }
}

/// Distance from the segment `a`–`b` to the shape, 0 when they meet
/// (segments and polylines count with their thickness, closed shapes with
/// their interior).
pub fn segment_to_shape(a: Vec2, b: Vec2, shape: &Shape) -> f64 {
    let to_edges = |pts: &[Vec2], closed: bool| {
        let n = pts.len();
        let edges = if closed { n } else { n.saturating_sub(1) };
        (0..edges).map(|i| segment_to_segment(a, b, pts[i], pts[(i + 1) % n])).fold(f64::INFINITY, f64::min)
    };
    match shape {
        Shape::Rect(r) => {
            if r.contains(a) {
                return 0.0;
            }
            let pts = [r.min, Vec2::new(r.max.x, r.min.y), r.max, Vec2::new(r.min.x, r.max.y)];
            to_edges(&pts, true)
        }
        Shape::Polygon(pts) => {
            if contains(shape, a) {
                return 0.0;
            }
            to_edges(pts, true)
        }
        Shape::Circle { center, radius } => (segment_distance(a, b, *center) - radius).max(0.0),
        Shape::Polyline { points, width } => {
            let d = if points.len() == 1 { segment_distance(a, b, points[0]) } else { to_edges(points, false) };
            (d - width / 2.0).max(0.0)
        }
        Shape::Segment { a: c, b: d } => segment_to_segment(a, b, *c, *d),
    }
}

/// Whether a disc of radius `r` swept along `a`–`b` touches the shape.
pub fn blocks(shape: &Shape, a: Vec2, b: Vec2, r: f64) -> bool {
    let d = segment_to_shape(a, b, shape);
    d < r || d <= 0.0
}

/// What an agent sees: the points within `radius` of `apex` and, with a
/// cone, within its half-angle of the heading.
#[derive(Clone, Copy, Debug)]
pub struct Sight {
    pub apex: Vec2,
    pub radius: f64,
    pub cone: Option<Cone>,
}

/// A view cone narrower than a full turn.
#[derive(Clone, Copy, Debug)]
pub struct Cone {
    /// A unit vector.
    pub heading: Vec2,
    /// The cosine of the half-angle.
    pub min_cos: f64,
    /// The cone's two edges, unit vectors.
    pub edges: [Vec2; 2],
}

impl Sight {
    /// `angle` is the full angle of the cone; 2π (or none) sees all around.
    pub fn new(apex: Vec2, radius: f64, heading: Vec2, angle: Option<f64>) -> Sight {
        let cone = angle.filter(|a| *a < std::f64::consts::TAU).map(|a| {
            let (c, s) = (crate::math::cos(a / 2.0), crate::math::sin(a / 2.0));
            Cone { heading, min_cos: c, edges: [heading.rotate(Vec2::new(c, s)), heading.rotate(Vec2::new(c, -s))] }
        });
        Sight { apex, radius, cone }
    }

    /// Whether point `q` is within reach and in the cone (the apex is).
    fn sees_point(&self, q: Vec2) -> bool {
        let d = q - self.apex;
        let len2 = d.length_squared();
        if len2 > self.radius * self.radius {
            return false;
        }
        match self.cone {
            None => true,
            Some(c) => len2 == 0.0 || c.heading.dot(d) >= c.min_cos * len2.sqrt(),
        }
    }

    /// Whether the box lies out of reach (a quick rejection).
    pub fn misses_box(&self, r: &Rect) -> bool {
        let q = self.apex.clamp(r.min, r.max);
        q.distance_squared(self.apex) > self.radius * self.radius
    }

    /// Whether some point of the shape is seen. Exact: the apex is in the
    /// shape; or, for each convex piece of its outline (the shape itself when
    /// convex, a polygon's edges, a polyline's thick segments), the piece's
    /// point nearest the apex is seen; or an edge of the cone crosses the
    /// shape. (A convex piece the edges miss lies, within reach, wholly
    /// inside the cone or wholly outside it, and its nearest point tells which.)
    pub fn sees(&self, shape: &Shape) -> bool {
        if self.misses_box(&bounding_box(shape)) {
            return false;
        }
        let p = self.apex;
        if contains(shape, p) {
            return true;
        }
        let toward = |c: Vec2, reach: f64| match crate::math::unit(p - c) {
            Some(u) => c + u * reach,
            None => c,
        };
        let nearest_seen = match shape {
            Shape::Rect(r) => self.sees_point(p.clamp(r.min, r.max)),
            Shape::Circle { center, radius } => self.sees_point(toward(*center, *radius)),
            Shape::Polygon(points) => {
                let n = points.len();
                (0..n).any(|k| self.sees_point(closest_on_segment(points[k], points[(k + 1) % n], p)))
            }
            Shape::Polyline { points, width } => {
                points.windows(2).any(|w| self.sees_point(toward(closest_on_segment(w[0], w[1], p), width / 2.0)))
            }
            Shape::Segment { a, b } => self.sees_point(closest_on_segment(*a, *b, p)),
        };
        nearest_seen
            || self
                .cone
                .is_some_and(|c| c.edges.iter().any(|e| segment_to_shape(p, p + *e * self.radius, shape) <= 0.0))
    }
}

fn segment_to_segment(a: Vec2, b: Vec2, c: Vec2, d: Vec2) -> f64 {
    if segments_intersect(a, b, c, d) {
        return 0.0;
    }
    segment_distance(c, d, a)
        .min(segment_distance(c, d, b))
        .min(segment_distance(a, b, c))
        .min(segment_distance(a, b, d))
}

#[cfg(test)]
mod tests {
    /// Every pair tested, the first that touches: what [`self_intersection`] must agree with.
    fn first_crossing_by_every_pair(points: &[Vec2]) -> Option<(usize, usize)> {
        let n = points.len();
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter(|&(i, j)| !(j == i + 1 || (i == 0 && j == n - 1)))
            .find(|&(i, j)| segments_intersect(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n]))
    }

    #[test]
    fn the_bucketed_self_intersection_finds_the_first_pair_that_every_pair_finds() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(39);
        let mut unit = || f64::from(rng.next_u32() % 1000) / 100.0;
        for n in [3, 4, 5, 8, 13, 40, 120] {
            for _ in 0..40 {
                let points: Vec<Vec2> = (0..n).map(|_| Vec2::new(unit(), unit())).collect();
                assert_eq!(self_intersection(&points), first_crossing_by_every_pair(&points), "{points:?}");
            }
        }
        // A clean circle of many vertices, and one with a spike across it.
        let circle: Vec<Vec2> = (0..2000)
            .map(|k| {
                let a = f64::from(k) * std::f64::consts::TAU / 2000.0;
                Vec2::new(crate::math::cos(a), crate::math::sin(a))
            })
            .collect();
        assert_eq!(self_intersection(&circle), None);
        let mut spiked = circle.clone();
        spiked[500] = Vec2::new(0.0, -2.0);
        assert_eq!(self_intersection(&spiked), first_crossing_by_every_pair(&spiked));
        assert!(self_intersection(&spiked).is_some());
    }

    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn bow_tie_self_intersects_square_does_not() {
        let square = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)];
        let bow_tie = [v(0.0, 0.0), v(1.0, 1.0), v(1.0, 0.0), v(0.0, 1.0)];
        assert_eq!(self_intersection(&square), None);
        assert_eq!(self_intersection(&bow_tie), Some((0, 2)));
    }

    #[test]
    fn containment_and_area() {
        let tri = Shape::Polygon(vec![v(0.0, 0.0), v(4.0, 0.0), v(0.0, 3.0)]);
        assert!(contains(&tri, v(1.0, 1.0)));
        assert!(!contains(&tri, v(3.0, 3.0)));
        assert_eq!(area(&tri), 6.0);
        assert!(signed_distance(&tri, v(1.0, 1.0)) < 0.0);
        assert_eq!(signed_distance(&tri, v(-1.0, 0.0)), 1.0);
    }

    fn square(x0: f64, y0: f64, x1: f64, y1: f64) -> Shape {
        Shape::Rect(Rect { min: v(x0, y0), max: v(x1, y1) })
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// An agent at the origin looking east with a 90° cone, 10 m of sight.
    fn east_90() -> Sight {
        Sight::new(v(0.0, 0.0), 10.0, v(1.0, 0.0), Some(std::f64::consts::FRAC_PI_2))
    }

    #[test]
    fn a_shape_the_agent_stands_in_is_seen_whatever_it_faces() {
        let around = square(-1.0, -1.0, 1.0, 1.0);
        assert!(Sight::new(v(0.0, 0.0), 0.1, v(-1.0, 0.0), Some(0.1)).sees(&around));
    }

    #[test]
    fn a_shape_in_reach_but_behind_is_not_seen_in_a_cone_and_is_all_around() {
        // Nearest point (-3, 0): 3 m away, straight behind.
        let behind = Shape::Circle { center: v(-5.0, 0.0), radius: 2.0 };
        assert!(!east_90().sees(&behind));
        assert!(Sight::new(v(0.0, 0.0), 10.0, v(1.0, 0.0), None).sees(&behind));
        assert!(Sight::new(v(0.0, 0.0), 10.0, v(1.0, 0.0), Some(std::f64::consts::TAU)).sees(&behind));
        // Out of reach ahead: nearest point 12 m away.
        assert!(!east_90().sees(&square(12.0, -1.0, 13.0, 1.0)));
        assert!(east_90().sees(&square(9.0, -1.0, 13.0, 1.0)));
    }

    #[test]
    fn a_shape_whose_nearest_point_is_outside_the_cone_is_seen_where_a_cone_edge_crosses_it() {
        // A wall north of the agent, from (-6, 4) to (6, 4): its nearest point
        // (0, 4) is 90° off the heading, but the cone's left edge (45°) meets
        // it at (4, 4), 5.66 m away.
        let wall = Shape::Polyline { points: vec![v(-6.0, 4.0), v(6.0, 4.0)], width: 0.2 };
        assert!(!Sight::new(v(0.0, 0.0), 4.0, v(1.0, 0.0), Some(std::f64::consts::FRAC_PI_2)).sees(&wall));
        assert!(east_90().sees(&wall));
        // The same wall, too short to reach the edge: not seen.
        let stub = Shape::Polyline { points: vec![v(-6.0, 4.0), v(2.0, 4.0)], width: 0.2 };
        assert!(!east_90().sees(&stub));
    }

    #[test]
    fn a_non_convex_shape_entering_the_cone_only_through_its_arc_is_seen() {
        // A hooked band 1 m wide: its nearest part (south of the agent, 3 m
        // away) is out of the cone; it runs round beyond 10 m and back in to
        // (9, 0), ahead. Neither cone edge meets it.
        let hook = Shape::Polygon(vec![
            v(-0.5, -3.0),
            v(0.5, -3.0),
            v(0.5, -11.5),
            v(11.5, -11.5),
            v(11.5, -0.5),
            v(9.0, -0.5),
            v(9.0, 0.5),
            v(12.5, 0.5),
            v(12.5, -12.5),
            v(-0.5, -12.5),
        ]);
        let s = east_90();
        for e in s.cone.expect("a cone").edges {
            assert!(segment_to_shape(v(0.0, 0.0), e * 10.0, &hook) > 0.0);
        }
        assert!(s.sees(&hook));
        assert!(!Sight::new(v(0.0, 0.0), 8.5, v(1.0, 0.0), Some(std::f64::consts::FRAC_PI_2)).sees(&hook));
        // The same as a thick line.
        let line = Shape::Polyline {
            points: vec![v(0.0, -3.0), v(0.0, -12.0), v(12.0, -12.0), v(12.0, 0.0), v(9.0, 0.0)],
            width: 0.2,
        };
        assert!(s.sees(&line));
        assert!(!Sight::new(v(0.0, 0.0), 8.5, v(1.0, 0.0), Some(std::f64::consts::FRAC_PI_2)).sees(&line));
    }

    #[test]
    fn segment_to_shape_distances() {
        let (a, b) = (v(0.0, 0.0), v(4.0, 0.0));
        assert!(close(segment_to_shape(a, b, &square(1.0, 1.0, 2.0, 2.0)), 1.0));
        assert_eq!(segment_to_shape(a, b, &square(1.0, -1.0, 2.0, 2.0)), 0.0);
        assert_eq!(segment_to_shape(v(1.5, 1.5), v(1.6, 1.6), &square(1.0, 1.0, 2.0, 2.0)), 0.0);
        assert!(close(segment_to_shape(a, b, &Shape::Circle { center: v(2.0, 3.0), radius: 1.0 }), 2.0));
        let line = Shape::Polyline { points: vec![v(5.0, -1.0), v(5.0, 1.0)], width: 0.4 };
        assert!(close(segment_to_shape(a, b, &line), 0.8));
        assert_eq!(segment_to_shape(a, b, &Shape::Segment { a: v(2.0, -1.0), b: v(2.0, 1.0) }), 0.0);
        let tri = Shape::Polygon(vec![v(1.0, 2.0), v(3.0, 2.0), v(2.0, 4.0)]);
        assert!(close(segment_to_shape(a, b, &tri), 2.0));
    }
}
