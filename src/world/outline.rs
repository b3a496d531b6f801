//! The walkable area as valid polygons, for tools outside `crowd`: the
//! bounds less the union of every obstacle with an area. Touching and
//! overlapping obstacles merge into one hole, and obstacles across the
//! bounds' edge notch the outer ring, so the result is valid OGC geometry
//! (PedPy's `WalkableArea`, shapely's `is_valid`, JuPedSim's geometry).
//!
//! Circles are 64-gons inscribed in them; a thick polyline is the union of
//! its segments' capsules (the points within half its width of a segment,
//! as `world::geometry` measures it), caps as 64-gons; segments have no area
//! and are left out. The boolean operations are `geo`'s.

use geo::{BooleanOps, Coord, LineString, MultiPolygon, Orient, Polygon};

use crate::ir::{Shape, Vec2, World};
use crate::math;
use crate::trace::float::format_f64;

/// Segments of a circle's polygon.
pub const CIRCLE_SEGMENTS: u32 = 64;

/// The walkable area: one polygon, or several where obstacles cut the world
/// apart, exteriors counter-clockwise and holes clockwise.
pub fn walkable_area(world: &World) -> MultiPolygon<f64> {
    let b = world.bounds;
    let outer = polygon(&[b.min, Vec2::new(b.max.x, b.min.y), b.max, Vec2::new(b.min.x, b.max.y)]);
    let pieces: Vec<Polygon<f64>> = world.obstacles.iter().flat_map(|o| obstacle_polygons(&o.shape)).collect();
    if pieces.is_empty() {
        return MultiPolygon(vec![outer]).orient(geo::orient::Direction::Default);
    }
    let blocked = geo::unary_union(&pieces);
    MultiPolygon(vec![outer]).difference(&blocked).orient(geo::orient::Direction::Default)
}

/// An obstacle as polygons (overlapping ones, for a polyline), none for a segment.
pub fn obstacle_polygons(shape: &Shape) -> Vec<Polygon<f64>> {
    match shape {
        Shape::Rect(r) => vec![polygon(&[r.min, Vec2::new(r.max.x, r.min.y), r.max, Vec2::new(r.min.x, r.max.y)])],
        Shape::Circle { center, radius } => vec![circle(*center, *radius)],
        Shape::Polygon(points) => vec![polygon(points)],
        Shape::Polyline { points, width } => {
            let half = width / 2.0;
            let mut out: Vec<Polygon<f64>> = points.iter().map(|&p| circle(p, half)).collect();
            for w in points.windows(2) {
                let n = (w[1] - w[0]).normalize_or_zero().perp() * half;
                if n != Vec2::ZERO {
                    out.push(polygon(&[w[0] + n, w[1] + n, w[1] - n, w[0] - n]));
                }
            }
            out
        }
        Shape::Segment { .. } => Vec::new(),
    }
}

fn circle(center: Vec2, radius: f64) -> Polygon<f64> {
    let points: Vec<Vec2> = (0..CIRCLE_SEGMENTS)
        .map(|k| {
            let a = f64::from(k) * std::f64::consts::TAU / f64::from(CIRCLE_SEGMENTS);
            center + Vec2::new(math::cos(a), math::sin(a)) * radius
        })
        .collect();
    polygon(&points)
}

/// A polygon counter-clockwise: the boolean operations count a clockwise
/// ring as a hole, so a rectangle listed the other way round would vanish
/// from a union.
pub fn polygon(points: &[Vec2]) -> Polygon<f64> {
    let ring: Vec<Coord<f64>> = points.iter().map(|p| Coord { x: p.x, y: p.y }).collect();
    Polygon::new(LineString::from(ring), Vec::new()).orient(geo::orient::Direction::Default)
}

/// WKT of the area: a `POLYGON` when it is one piece, else a `MULTIPOLYGON`;
/// numbers in their shortest exact form.
pub fn wkt(area: &MultiPolygon<f64>) -> String {
    let ring = |l: &LineString<f64>| {
        let coords: Vec<String> = l.0.iter().map(|c| format!("{} {}", format_f64(c.x), format_f64(c.y))).collect();
        format!("({})", coords.join(", "))
    };
    let body = |p: &Polygon<f64>| {
        let mut rings = vec![ring(p.exterior())];
        rings.extend(p.interiors().iter().map(ring));
        format!("({})", rings.join(", "))
    };
    match &area.0[..] {
        [] => "POLYGON EMPTY".to_string(),
        [one] => format!("POLYGON {}", body(one)),
        many => format!("MULTIPOLYGON ({})", many.iter().map(body).collect::<Vec<_>>().join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Markers, Obstacle, Rect};
    use geo::{Area, Validation};

    fn world(obstacles: Vec<Shape>) -> World {
        World {
            bounds: Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(30.0, 20.0) },
            obstacles: obstacles
                .into_iter()
                .enumerate()
                .map(|(k, shape)| Obstacle { name: format!("o{k}"), shape })
                .collect(),
            regions: vec![],
            markers: Markers { base: None, overrides: vec![], estimated_count: 0, events: vec![] },
            shapes: vec![],
            masks: vec![],
        }
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Shape {
        Shape::Rect(Rect { min: Vec2::new(x0, y0), max: Vec2::new(x1, y1) })
    }

    #[test]
    fn one_obstacle_is_one_hole() {
        let area = walkable_area(&world(vec![rect(12.0, 4.0, 14.0, 16.0)]));
        assert!(area.is_valid());
        assert_eq!(area.unsigned_area(), 600.0 - 24.0);
        assert_eq!(wkt(&area), "POLYGON ((0 20, 0 0, 30 0, 30 20, 0 20), (12 4, 12 16, 14 16, 14 4, 12 4))");
    }

    #[test]
    fn touching_and_overlapping_obstacles_merge_and_the_edge_notches_the_outline() {
        let area = walkable_area(&world(vec![
            rect(5.0, 5.0, 10.0, 10.0),
            rect(10.0, 5.0, 12.0, 8.0),
            rect(11.0, 7.0, 13.0, 9.0),
            rect(25.0, -2.0, 27.0, 3.0),
            Shape::Circle { center: Vec2::new(20.0, 15.0), radius: 2.0 },
            Shape::Circle { center: Vec2::new(21.0, 15.0), radius: 2.0 },
        ]));
        assert!(area.is_valid(), "{}", wkt(&area));
        assert_eq!(area.0.len(), 1);
        assert_eq!(area.0[0].interiors().len(), 2, "the rects merge, the circles merge: {}", wkt(&area));
    }

    #[test]
    fn a_wall_across_the_world_leaves_two_pieces_and_a_polyline_is_its_capsules() {
        let wall = Shape::Polyline { points: vec![Vec2::new(15.0, -1.0), Vec2::new(15.0, 21.0)], width: 1.0 };
        let area = walkable_area(&world(vec![wall]));
        assert!(area.is_valid());
        assert_eq!(area.0.len(), 2, "{}", wkt(&area));
        assert!(wkt(&area).starts_with("MULTIPOLYGON"));
        assert!((area.unsigned_area() - (600.0 - 20.0)).abs() < 1e-9, "{}", area.unsigned_area());
        let bent = Shape::Polyline {
            points: vec![Vec2::new(5.0, 5.0), Vec2::new(10.0, 5.0), Vec2::new(10.0, 6.0)],
            width: 2.0,
        };
        assert!(walkable_area(&world(vec![bent])).is_valid());
    }
}
