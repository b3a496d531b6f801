//! Minimum-distance enforcement between agents (Treuille et al. 2006, as used
//! by Rodrigues et al. 2010, Eq. 8).

use crate::hash::splitmix64;
use crate::ir::Vec2;
use crate::world::grid::Grid;

/// Below this distance two agents count as coincident, m.
const COINCIDENT: f64 = 1e-9;

/// The bodies distance enforcement keeps apart, by slot (their positions
/// are the grid's).
#[derive(Clone, Copy)]
pub struct Bodies<'a> {
    pub radius: &'a [f64],
    /// Takes part in the enforcement.
    pub movable: &'a [bool],
    pub ids: &'a [u32],
}

/// Agent `i`'s share of one sweep of Eq. 8 over positions after the move,
/// `(push, shortfall)`: for every neighbour closer than the pair's distance
/// `max(t_min, r_i + r_j)`, its half of the shortfall along `(p_i − p_j)/d_ij`;
/// and the largest shortfall among them (0 when none is too close).
///
/// NOTE: Eq. 8 averages the pushes over `A_i`, which dilutes each of them by
/// the number of neighbours, so a dense crowd keeps overlapping. Enforcing
/// the minimum distance, as Treuille et al. do, we sum them (each pair is
/// pushed as if alone) and repeat the sweep until no pair is too close
/// (`sim/resolve.rs`). A neighbour that does not take part (`movable[j]`
/// false: it keeps its distance its own way) stands like a wall, and agent `i`
/// takes the whole shortfall. Agent `i` is at `p`; `grid` holds every
/// body where it is now, filed under a cell it may since have left:
/// `reach` is the largest pair distance widened by twice the farthest any
/// body moved since the grid was built, so every neighbour too close is
/// found.
#[inline]
pub fn separation(i: usize, p: Vec2, bodies: &Bodies, grid: &Grid, t_min: f64, reach: f64) -> (Vec2, f64) {
    let Bodies { radius, movable, ids } = *bodies;
    let mut push = Vec2::ZERO;
    let mut worst = 0.0f64;
    grid.for_each_near(p, reach, |j, q| {
        let j = j as usize;
        let d = p - q;
        let d2 = d.length_squared();
        // Beyond reach no pair is too close: the radii need not be read.
        if j == i || d2 >= reach * reach {
            return;
        }
        let need = t_min.max(radius[i] + radius[j]);
        if d2 >= need * need {
            return;
        }
        let share = if movable[j] { 0.5 } else { 1.0 };
        if d2 > COINCIDENT * COINCIDENT {
            let dist = d2.sqrt();
            worst = worst.max(need - dist);
            push += d * ((need - dist) * share / dist);
        } else {
            worst = worst.max(need);
            push += coincident_direction(ids[i], ids[j]) * (need * share);
        }
    });
    (push, worst)
}

/// The direction agent `a` leaves a coincident agent `b` along: one of eight
/// compass directions picked from the pair's ids, opposite for the two members.
pub fn coincident_direction(a: u32, b: u32) -> Vec2 {
    const S: f64 = std::f64::consts::FRAC_1_SQRT_2;
    const DIRS: [(f64, f64); 8] =
        [(1.0, 0.0), (S, S), (0.0, 1.0), (-S, S), (-1.0, 0.0), (-S, -S), (0.0, -1.0), (S, -S)];
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let (x, y) = DIRS[(splitmix64((u64::from(lo) << 32) | u64::from(hi)) & 7) as usize];
    let u = Vec2::new(x, y);
    if a < b {
        u
    } else {
        -u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Rect;

    fn setup(points: &[Vec2]) -> Grid {
        let mut g = Grid::new(Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(10.0, 10.0) }, 0.5, 1 << 16);
        g.rebuild(points);
        g
    }

    fn push(i: usize, pts: &[Vec2], movable: &[bool], ids: &[u32]) -> (Vec2, f64) {
        let radius = vec![0.2; pts.len()];
        let bodies = Bodies { radius: &radius, movable, ids };
        separation(i, pts[i], &bodies, &setup(pts), 0.5, 0.5)
    }

    #[test]
    fn an_isolated_pair_ends_t_min_apart() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.3, 5.0)];
        let (a, worst) = push(0, &pts, &[true, true], &[0, 1]);
        let (b, _) = push(1, &pts, &[true, true], &[0, 1]);
        assert!(((pts[0] + a).distance(pts[1] + b) - 0.5).abs() < 1e-12);
        assert!((a + b).length() < 1e-12, "symmetric");
        assert!((worst - 0.2).abs() < 1e-12);
    }

    #[test]
    fn every_neighbour_pushes_in_full() {
        // Pressed from the left by two bodies: both halves add up, none is diluted.
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(4.6, 5.1), Vec2::new(4.6, 4.9)];
        let (a, _) = push(0, &pts, &[true; 3], &[0, 1, 2]);
        let one = |q: Vec2| {
            let d = pts[0] - q;
            d * ((0.5 - d.length()) / 2.0 / d.length())
        };
        assert!((a - one(pts[1]) - one(pts[2])).length() < 1e-12);
    }

    #[test]
    fn a_body_that_keeps_its_own_distance_stands_like_a_wall() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.3, 5.0)];
        let (a, _) = push(0, &pts, &[true, false], &[0, 1]);
        assert!((pts[0] + a).distance(pts[1]) - 0.5 < 1e-12 && (a.x + 0.2).abs() < 1e-12);
    }

    #[test]
    fn large_bodies_keep_the_sum_of_their_radii() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.6, 5.0)];
        let radius = [0.4, 0.4];
        let bodies = Bodies { radius: &radius, movable: &[true, true], ids: &[0, 1] };
        let (a, worst) = separation(0, pts[0], &bodies, &setup(&pts), 0.5, 0.8);
        assert!((worst - 0.2).abs() < 1e-12 && (a.x + 0.1).abs() < 1e-12);
    }

    #[test]
    fn coincident_agents_separate_in_opposite_directions() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.0, 5.0)];
        let (a, _) = push(0, &pts, &[true, true], &[3, 9]);
        let (b, _) = push(1, &pts, &[true, true], &[3, 9]);
        assert!((a + b).length() < 1e-12 && (a.length() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn far_agents_do_not_push() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.6, 5.0)];
        assert_eq!(push(0, &pts, &[true, true], &[0, 1]), (Vec2::ZERO, 0.0));
    }
}
