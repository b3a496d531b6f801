//! Formation points of a coherent group (Silveira, Prestes, Nedel 2008,
//! "Formation Specification"): from a sketched point list or a predefined
//! shape, for any number of members.
//!
//! Points are relative to the formation's centre (the centroid of its
//! points, which the paper aligns with the group map's centre), x along the
//! walking direction and y to its left, m.

use super::groups::{slots, Layout};
use crate::ir::{Formation, FormationKind, Vec2};
use crate::math::{atan2, cos, sin};

/// The formation points of an `n`-member group, neighbours the layout's
/// spacing apart in the predefined shapes (side by side, V and river are
/// the slots of `behave::groups`); `None` for `auto`, which is not a shape.
pub fn points(formation: &Formation, n: usize, layout: &Layout) -> Option<Vec<Vec2>> {
    let s = layout.spacing();
    let pts = match formation {
        Formation::Auto => return None,
        Formation::SideBySide => slots(FormationKind::SideBySide, n, layout),
        Formation::River => slots(FormationKind::River, n, layout),
        Formation::V if layout.wedge() => wedge(n, layout),
        Formation::V => slots(FormationKind::V, n, layout),
        Formation::Square => lattice(n, s),
        Formation::Diamond => {
            // The square lattice turned by 45°: a point in front, one behind.
            let h = std::f64::consts::FRAC_1_SQRT_2;
            centred(lattice(n, s)).into_iter().map(|p| Vec2::new(h * (p.x - p.y), h * (p.x + p.y))).collect()
        }
        Formation::Sketch(list) => sample(list, n),
    };
    Some(centred(pts))
}

// Eq 5 as corrected: the formation's heading turns towards the planner's
// direction `d` by the angle between them spread over the `Δt = Δs / v_g`
// it takes to reach the next position; `share` is the step's part of that
// time, `v_g dt / Δs` (the text's `ϑ = φ v_g / Δt` is dimensionally off).
pub fn turn(heading: Vec2, d: Vec2, share: f64) -> Vec2 {
    let angle = atan2(heading.perp_dot(d), heading.dot(d));
    let step = angle * share.clamp(0.0, 1.0);
    Vec2::new(cos(step), sin(step)).rotate(heading)
}

/// The paper's sampling of a sketched list `L` for `n` members: with
/// `n ≤ |L|`, every `⌊|L|/n⌋`-th point from the first; with `n > |L|`, all of
/// `L` and then points extending it by its last segment's vector, "keeping
/// the intention of the user's drawing".
pub fn sample(list: &[Vec2], n: usize) -> Vec<Vec2> {
    let len = list.len();
    if len == 0 {
        return vec![Vec2::ZERO; n];
    }
    if n <= len {
        let step = len / n.max(1);
        return (0..n).map(|k| list[k * step]).collect();
    }
    let last = list[len - 1];
    let v = if len >= 2 { last - list[len - 2] } else { Vec2::ZERO };
    list.iter().copied().chain((1..=n - len).map(|k| last + v * k as f64)).collect()
}

/// A wedge: the first member at the point, then pairs of ranks behind it
/// on the left and right arms, each at the layout's V angle from the
/// walking direction, `spacing` apart along the arm.
fn wedge(n: usize, layout: &Layout) -> Vec<Vec2> {
    let (s, a) = (layout.spacing(), layout.v_angle());
    let arm = Vec2::new(-cos(a), sin(a)) * s;
    (0..n)
        .map(|k| {
            let rank = k.div_ceil(2) as f64;
            let side = if k % 2 == 1 { 1.0 } else { -1.0 };
            Vec2::new(arm.x * rank, arm.y * rank * side)
        })
        .collect()
}

/// Rows of `⌈√n⌉` side by side, front row first; the last row centred.
fn lattice(n: usize, s: f64) -> Vec<Vec2> {
    let mut k = 1;
    while k * k < n {
        k += 1;
    }
    (0..n)
        .map(|m| {
            let (row, col) = (m / k, m % k);
            let in_row = k.min(n - row * k);
            Vec2::new(-(row as f64) * s, ((in_row as f64 - 1.0) / 2.0 - col as f64) * s)
        })
        .collect()
}

fn centred(mut pts: Vec<Vec2>) -> Vec<Vec2> {
    if pts.is_empty() {
        return pts;
    }
    let c = pts.iter().copied().sum::<Vec2>() / pts.len() as f64;
    for p in &mut pts {
        *p -= c;
    }
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn fewer_members_take_every_floor_len_over_n_th_point() {
        let list: Vec<Vec2> = (0..7).map(|k| v(k as f64, 0.0)).collect();
        // ⌊7/3⌋ = 2: points 0, 2, 4.
        assert_eq!(sample(&list, 3), vec![v(0.0, 0.0), v(2.0, 0.0), v(4.0, 0.0)]);
        assert_eq!(sample(&list, 7), list);
    }

    #[test]
    fn more_members_extend_the_last_segment() {
        let list = vec![v(0.0, 0.0), v(-1.0, -1.0), v(-2.0, -1.5)];
        let s = sample(&list, 5);
        assert_eq!(&s[..3], &list[..]);
        assert_eq!(s[3], v(-3.0, -2.0));
        assert_eq!(s[4], v(-4.0, -2.5));
    }

    #[test]
    fn predefined_shapes_are_centred_and_spaced() {
        let layouts = [Layout::new(1.0, 0.6), Layout::on_map(1.0, std::f64::consts::FRAC_PI_4)];
        let shapes = [Formation::Square, Formation::Diamond, Formation::V, Formation::SideBySide, Formation::River];
        for (f, layout) in shapes.iter().flat_map(|f| layouts.iter().map(move |l| (f, l))) {
            for n in 1..12 {
                let p = points(f, n, layout).unwrap();
                assert_eq!(p.len(), n);
                let c = p.iter().copied().sum::<Vec2>() / n as f64;
                assert!(c.length() < 1e-12, "{f:?} {n}");
                for a in 0..n {
                    for b in 0..a {
                        assert!(p[a].distance(p[b]) > 1.0 - 1e-9, "{f:?} {n}: {a} and {b} too close");
                    }
                }
            }
        }
    }

    #[test]
    fn eq_5_turns_by_the_share_of_the_angle_and_no_further() {
        let east = v(1.0, 0.0);
        // A quarter turn spread over four steps: a quarter of it per step.
        let h = turn(east, v(0.0, 2.0), 0.25);
        let eighth = std::f64::consts::FRAC_PI_8;
        assert!((h - v(crate::math::cos(eighth), crate::math::sin(eighth))).length() < 1e-12, "{h}");
        // A share past the whole time still stops at the planner's direction,
        // and a turn to the right is clockwise.
        assert!((turn(east, v(0.0, -1.0), 3.0) - v(0.0, -1.0)).length() < 1e-12);
        // Formation points turn with the heading (the matrix of Eq 5).
        let pts = points(&Formation::Square, 4, &Layout::on_map(1.0, 0.7)).unwrap();
        let north = turn(east, v(0.0, 1.0), 1.0);
        let front = crate::behave::groups::to_world(Vec2::ZERO, north, pts[0]);
        assert!((front - v(-pts[0].y, pts[0].x)).length() < 1e-12, "{front}");
    }

    #[test]
    fn a_diamond_of_four_has_a_point_in_front_and_one_behind() {
        let p = points(&Formation::Diamond, 4, &Layout::new(1.0, 0.6)).unwrap();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let front = p.iter().fold(f64::MIN, |m, q| m.max(q.x));
        let back = p.iter().fold(f64::MAX, |m, q| m.min(q.x));
        assert!((front - h).abs() < 1e-12 && (back + h).abs() < 1e-12, "{p:?}");
    }
}
