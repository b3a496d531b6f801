//! Distances to the nearest other agent, found on a uniform grid by squares
//! that double until one holds a point (never over all pairs: a frame may
//! hold 100,000 agents).

use crate::ir::{Rect, Vec2};
use crate::world::geometry::points_box;
use crate::world::grid::Grid;

/// Points on a uniform grid, for searches of the nearest one.
pub struct Spacing<'a> {
    pts: &'a [Vec2],
    grid: Grid,
    /// The points' bounding box, found once: a search past it has seen them all.
    bounds: Rect,
}

impl<'a> Spacing<'a> {
    /// `pts` on a grid with cells of about `cell`.
    pub fn new(pts: &'a [Vec2], cell: f64) -> Spacing<'a> {
        let bounds = points_box(pts);
        let mut grid = Grid::new(bounds, cell, (pts.len() as u64 * 4).max(64));
        grid.rebuild(pts);
        Spacing { pts, grid, bounds }
    }

    /// The distance from `p` to the nearest point other than `skip`,
    /// searching squares that double from `start`; `None` when there is none.
    pub fn nearest(&self, p: Vec2, skip: Option<usize>, start: f64) -> Option<f64> {
        let b = self.bounds;
        // Past this every point has been a candidate.
        let limit = p.distance(b.min).max(p.distance(b.max)) + b.min.distance(b.max);
        let mut r = start.max(self.grid.cell_size());
        loop {
            let mut best: Option<f64> = None;
            self.grid.for_each_candidate(p, r, |j| {
                let j = j as usize;
                let d = p.distance(self.pts[j]);
                if Some(j) != skip && d <= r && best.is_none_or(|b| d < b) {
                    best = Some(d);
                }
            });
            if best.is_some() || r > limit {
                return best;
            }
            r *= 2.0;
        }
    }
}

/// The mean over `pts` of each point's distance to its nearest other point
/// (summed in order, so the same points give the same bits); `None` for
/// fewer than two points.
pub fn mean_nearest(pts: &[Vec2]) -> Option<f64> {
    if pts.len() < 2 {
        return None;
    }
    let b = points_box(pts);
    let n = pts.len() as f64;
    // About one point's share of the box a cell (of its diagonal when the
    // points lie on a line): most searches end in the first 3 × 3 cells.
    let cell = ((b.max.x - b.min.x) * (b.max.y - b.min.y) / n).sqrt().max(b.min.distance(b.max) / n);
    let spacing = Spacing::new(pts, cell);
    let mut sum = 0.0;
    for (i, p) in pts.iter().enumerate() {
        sum += spacing.nearest(*p, Some(i), cell)?;
    }
    Some(sum / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same mean over all pairs, for small sets.
    fn brute(pts: &[Vec2]) -> f64 {
        let near = |i: usize| {
            (0..pts.len()).filter(|&j| j != i).map(|j| pts[i].distance(pts[j])).fold(f64::INFINITY, f64::min)
        };
        (0..pts.len()).map(near).sum::<f64>() / pts.len() as f64
    }

    #[test]
    fn matches_all_pairs() {
        let mut s = 12345u64;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for n in [2, 3, 10, 257] {
            // A dense clump and a few far away: the doubling search must reach them.
            let pts: Vec<Vec2> = (0..n)
                .map(|k| if k % 50 == 7 { Vec2::new(900.0 * next(), 40.0) } else { Vec2::new(next(), 3.0 * next()) })
                .collect();
            let got = mean_nearest(&pts).expect("two points");
            assert!((got - brute(&pts)).abs() < 1e-12, "{n}: {got} vs {}", brute(&pts));
        }
        let line: Vec<Vec2> = (0..20).map(|k| Vec2::new(f64::from(k) * 0.5, 2.0)).collect();
        assert_eq!(mean_nearest(&line), Some(0.5));
        assert_eq!(mean_nearest(&[Vec2::ONE, Vec2::ONE]), Some(0.0));
        assert_eq!(mean_nearest(&[Vec2::ONE]), None);
    }

    #[test]
    fn a_hundred_thousand_points_on_a_lattice() {
        // 0.5 m apart in rows and columns: every nearest neighbour is 0.5 m
        // away (as exactly as the coordinates are).
        let pts: Vec<Vec2> =
            (0..100_000).map(|k| Vec2::new(f64::from(k % 400) * 0.5, f64::from(k / 400) * 0.5)).collect();
        let got = mean_nearest(&pts).expect("points");
        assert!((got - 0.5).abs() < 1e-12, "{got}");
    }
}
