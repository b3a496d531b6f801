//! A follower's steering forces (Li, Jeng, Chang §4.1): separation from
//! everyone in view, cohesion and alignment with its own group, repulsion
//! from obstacles and attraction to its leader, "normalised and then
//! re-weighted before they are composed".
//!
//! "Normalised" is read as scaled into [0, 1] by the force's own range (a
//! neighbour at the edge of the view pushes nothing, one at contact pushes
//! fully), not stretched to unit length: a follower standing among its group
//! at the right distance from its leader then feels nothing and stands,
//! where unit forces would keep it walking at full speed for ever.

use crate::ir::Vec2;
use crate::math::unit;

/// The five forces on a follower, each of length at most 1 (the attraction excepted).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Forces {
    pub separation: Vec2,
    pub cohesion: Vec2,
    pub alignment: Vec2,
    pub obstacle: Vec2,
    pub attraction: Vec2,
}

/// The weights the forces are composed with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub separation: f64,
    pub cohesion: f64,
    pub alignment: f64,
    pub obstacle: f64,
    pub attraction: f64,
}

/// `v` shortened to length 1 when longer.
fn at_most_one(v: Vec2) -> Vec2 {
    let len = v.length();
    if len > 1.0 {
        v / len
    } else {
        v
    }
}

/// One neighbour's part of the separation: within `view`, away from it with `1 − d/view`.
pub fn push(p: Vec2, q: Vec2, view: f64) -> Vec2 {
    unit(p - q).map_or(Vec2::ZERO, |away| away * (1.0 - p.distance(q) / view).max(0.0))
}

/// Separation: the neighbours' pushes summed, at most 1.
pub fn separation(pushes: Vec2) -> Vec2 {
    at_most_one(pushes)
}

/// Cohesion: towards the centroid of the group's neighbours in view.
pub fn cohesion(p: Vec2, centroid: Option<Vec2>, view: f64) -> Vec2 {
    centroid.map_or(Vec2::ZERO, |c| at_most_one((c - p) / view))
}

/// Alignment: the group's neighbours' mean velocity, against the follower's speed.
pub fn alignment(mean_velocity: Option<Vec2>, speed: f64) -> Vec2 {
    mean_velocity.map_or(Vec2::ZERO, |v| at_most_one(v / speed))
}

/// Obstacle repulsion from a push `out` of an obstacle within `reach` of the
/// body: full at contact, nothing at `reach`.
pub fn repulsion(out: Vec2, reach: f64) -> Vec2 {
    at_most_one(out / reach)
}

/// The leader's attraction, "proportional to the distance" `d` (along the
/// path to the source, §4.2), with its full weight at `d0`.
pub fn attraction(p: Vec2, source: Vec2, d: f64, d0: f64) -> Vec2 {
    unit(source - p).map_or(Vec2::ZERO, |u| u * (d / d0))
}

/// The composed force; `sign` −1 flips the flocking forces (cohesion,
/// alignment, attraction) for evacuation (§4.3). Separation and obstacle
/// repulsion keep their sign: flipped, they would pull people into each
/// other and into walls, which is no evacuation.
pub fn compose(f: &Forces, w: &Weights, sign: f64) -> Vec2 {
    f.separation * w.separation
        + f.obstacle * w.obstacle
        + (f.cohesion * w.cohesion + f.alignment * w.alignment + f.attraction * w.attraction) * sign
}

/// The sliding force (§4.1): against an obstacle whose outward normal is
/// `normal`, the part of `force` into it is dropped; when what is left is
/// small (the attraction and the repulsion cancel), the follower slides
/// along the boundary the way `pull` (towards its leader) points.
pub fn slide(force: Vec2, normal: Vec2, pull: Vec2) -> Vec2 {
    let into = force.dot(normal);
    if into >= 0.0 {
        return force;
    }
    let along = force - normal * into;
    let tangent = Vec2::new(-normal.y, normal.x);
    let side = if pull.dot(tangent) >= 0.0 { tangent } else { -tangent };
    if along.length() >= 0.25 * force.length() {
        along
    } else {
        along + side * pull.length().clamp(0.0, 1.0).max(0.25)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f64 = 1e-12;

    #[test]
    fn separation_fades_to_nothing_at_the_edge_of_the_view() {
        let p = Vec2::ZERO;
        assert!(separation(push(p, Vec2::new(4.0, 0.0), 4.0)).length() < EPS);
        let s = separation(push(p, Vec2::new(1.0, 0.0), 4.0));
        assert!((s - Vec2::new(-0.75, 0.0)).length() < EPS);
        // Many neighbours on one side push at most fully.
        let crowd = (0..10).map(|k| Vec2::new(0.5, 0.01 * f64::from(k)));
        assert!(separation(crowd.fold(Vec2::ZERO, |sum, q| sum + push(p, q, 4.0))).length() <= 1.0 + EPS);
    }

    #[test]
    fn attraction_grows_with_the_path_distance() {
        let a = attraction(Vec2::ZERO, Vec2::new(3.0, 0.0), 3.0, 2.0);
        assert!((a - Vec2::new(1.5, 0.0)).length() < EPS);
        // Around a corner the distance is d1 + d2, longer than the straight line.
        let b = attraction(Vec2::ZERO, Vec2::new(3.0, 0.0), 7.0, 2.0);
        assert!((b.length() - 3.5).abs() < EPS);
    }

    #[test]
    fn evacuation_flips_the_flocking_forces_only() {
        let f = Forces {
            separation: Vec2::X,
            cohesion: Vec2::Y,
            alignment: Vec2::Y,
            obstacle: Vec2::X,
            attraction: Vec2::Y,
        };
        let w = Weights { separation: 1.0, cohesion: 1.0, alignment: 1.0, obstacle: 1.0, attraction: 1.0 };
        assert_eq!(compose(&f, &w, 1.0), Vec2::new(2.0, 3.0));
        assert_eq!(compose(&f, &w, -1.0), Vec2::new(2.0, -3.0));
    }

    #[test]
    fn a_follower_pushed_into_a_wall_slides_towards_its_leader() {
        let normal = Vec2::Y; // the wall is below
                              // Straight into the wall: nothing is left but the slide, towards the pull.
        let s = slide(Vec2::new(0.0, -1.0), normal, Vec2::new(1.0, -1.0));
        assert!(s.y.abs() < EPS && s.x > 0.0);
        let s = slide(Vec2::new(0.0, -1.0), normal, Vec2::new(-1.0, -1.0));
        assert!(s.y.abs() < EPS && s.x < 0.0);
        // Glancing: the part along the wall is kept.
        assert_eq!(slide(Vec2::new(1.0, -0.5), normal, Vec2::X), Vec2::new(1.0, 0.0));
        // Away from the wall: unchanged.
        assert_eq!(slide(Vec2::new(0.3, 0.5), normal, Vec2::X), Vec2::new(0.3, 0.5));
    }
}
