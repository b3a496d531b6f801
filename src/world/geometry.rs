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

/// Area of the shape, m² (polylines: length × width, ignoring overlaps at joints).
pub fn area(shape: &Shape) -> f64 {
    match shape {
        Shape::Rect(r) => r.area(),
        Shape::Circle { radius, .. } => std::f64::consts::PI * radius * radius,
        Shape::Polygon(points) => signed_area2(points).abs() / 2.0,
        Shape::Polyline { points, width } => points.windows(2).map(|w| w[0].distance(w[1])).sum::<f64>() * width,
        Shape::Segment { .. } => 0.0,
    }
}

/// Axis-aligned bounding box.
pub fn bounding_box(shape: &Shape) -> Rect {
    let from_points = |points: &[Vec2], pad: f64| {
        let mut min = Vec2::splat(f64::INFINITY);
        let mut max = Vec2::splat(f64::NEG_INFINITY);
        for p in points {
            min = min.min(*p);
            max = max.max(*p);
        }
        Rect { min: min - pad, max: max + pad }
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
