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
/// touch, if any. Quadratic in the vertex count: polygons are hand-written.
pub fn self_intersection(points: &[Vec2]) -> Option<(usize, usize)> {
    let n = points.len();
    for i in 0..n {
        for j in i + 1..n {
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            if adjacent {
                continue;
            }
            let (a, b) = (points[i], points[(i + 1) % n]);
            let (c, d) = (points[j], points[(j + 1) % n]);
            if segments_intersect(a, b, c, d) {
                return Some((i, j));
            }
        }
    }
    None
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

#[cfg(test)]
mod tests {
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
}
