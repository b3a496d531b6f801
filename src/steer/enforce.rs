//! Minimum-distance enforcement between agents (Treuille et al. 2006, as used
//! by Rodrigues et al. 2010).

use crate::hash::splitmix64;
use crate::ir::Vec2;
use crate::world::grid::Grid;

/// Below this distance two agents count as coincident, m.
const COINCIDENT: f64 = 1e-9;

/// Rodrigues et al. 2010, Eq. 8: `d_enf(p_i) = 1/#A_i Σ_{j∈A_i} …`, with
/// `A_i = { j | d_ij < t_min }`.
///
/// NOTE: the printed summand `(p_i − p_j)/2` would push *less* the closer two
/// agents are. We read it as Treuille's symmetric push: each member of a pair
/// closer than `t_min` moves half the overlap, `(t_min − d_ij)/2`, along
/// `(p_i − p_j)/d_ij`, so an isolated pair ends exactly `t_min` apart. The mean
/// over `A_i` is kept as printed. Coincident agents are separated along a
/// direction derived from their ids (see [`coincident_direction`]).
///
/// `points[j]` and `ids[j]` are the snapshot the grid was built from; `i` is
/// the agent's own index, skipped.
#[inline]
pub fn enforce(i: usize, points: &[Vec2], ids: &[u32], grid: &Grid, t_min: f64) -> Vec2 {
    let p = points[i];
    let t2 = t_min * t_min;
    let mut sum = Vec2::ZERO;
    let mut count = 0u32;
    grid.for_each_near(p, t_min, |j, q| {
        let j = j as usize;
        if j == i {
            return;
        }
        let d = p - q;
        let d2 = d.length_squared();
        if d2 >= t2 {
            return;
        }
        count += 1;
        if d2 > COINCIDENT * COINCIDENT {
            let dist = d2.sqrt();
            sum += d * ((t_min - dist) / (2.0 * dist));
        } else {
            sum += coincident_direction(ids[i], ids[j]) * (t_min / 2.0);
        }
    });
    if count == 0 {
        Vec2::ZERO
    } else {
        sum / f64::from(count)
    }
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

    #[test]
    fn an_isolated_pair_ends_t_min_apart() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.3, 5.0)];
        let g = setup(&pts);
        let a = pts[0] + enforce(0, &pts, &[0, 1], &g, 0.5);
        let b = pts[1] + enforce(1, &pts, &[0, 1], &g, 0.5);
        assert!((a.distance(b) - 0.5).abs() < 1e-12);
        assert!((a + b - pts[0] - pts[1]).length() < 1e-12, "symmetric");
    }

    #[test]
    fn coincident_agents_separate_in_opposite_directions() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.0, 5.0)];
        let g = setup(&pts);
        let a = enforce(0, &pts, &[3, 9], &g, 0.5);
        let b = enforce(1, &pts, &[3, 9], &g, 0.5);
        assert!((a + b).length() < 1e-12 && (a.length() - 0.25).abs() < 1e-12);
    }

    #[test]
    fn far_agents_do_not_push() {
        let pts = [Vec2::new(5.0, 5.0), Vec2::new(5.6, 5.0)];
        let g = setup(&pts);
        assert_eq!(enforce(0, &pts, &[0, 1], &g, 0.5), Vec2::ZERO);
    }
}
