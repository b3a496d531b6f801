//! Bare ground: walkable space an erase has left without markers.
//!
//! Markers are the walkable space of tree paths (Rodrigues et al. 2010,
//! Sec 3: "represent empty space explicitly, using a set of markers"), and
//! the eraser of Fig 9 "narrows down the region where the agents can
//! walk". A marker covers the ground within `√2` times its layer's spacing:
//! no point of a jittered lattice's cell is farther than that from the
//! cell's marker, nor any point of a dart-thrown layer from its nearest
//! dart. Every walkable point is covered until markers are erased, so bare
//! ground is only looked for where erased markers stood, and a world
//! without erase events has none.
//!
//! The ground is kept as a grid of square cells over the erased markers'
//! box; a cell is bare when no marker covers its centre.

use crate::ir::{Rect, Vec2};
use crate::world::geometry::{intersection, points_box, segment_distance};
use crate::world::grid::Grid;
use crate::world::markers::Markers;
use crate::world::walkable::Walkable;
use fixedbitset::FixedBitSet;
use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

/// At most this many cells: coarser cells past it.
const MAX_CELLS: f64 = 4_000_000.0;

/// Cells no finer than this, m.
const MIN_CELL: f64 = 0.05;

/// The bare cells over the area where markers were erased.
#[derive(Clone, Debug, PartialEq)]
pub struct Bare {
    area: Rect,
    cell: f64,
    nx: usize,
    ny: usize,
    bare: FixedBitSet,
}

/// Whether a body of radius `r` walks from `a` to `b` clear of `walk`'s
/// obstacles and, where there is bare ground, off it.
pub fn way_clear(walk: &Walkable, bare: Option<&Bare>, a: Vec2, b: Vec2, r: f64) -> bool {
    walk.segment_clear(a, b, r) && bare.is_none_or(|g| g.segment_clear(a, b, r))
}

/// The finest and the farthest reach of `markers`' layers, m (infinite and
/// 0 without a layer).
fn reaches(markers: &Markers) -> (f64, f64) {
    let spacings = markers.spacings().iter().filter(|&&s| s > 0.0);
    spacings.fold((f64::INFINITY, 0.0), |(lo, hi), &s| (lo.min(s * SQRT_2), hi.max(s * SQRT_2)))
}

impl Bare {
    /// The bare ground after a marker event that left `markers` (indexed
    /// by `grid`) and erased markers at `erased`, with `before` the bare
    /// ground until then. Only ground within reach of an erased marker can
    /// have lost its cover, and a spray may have covered bare ground again,
    /// so both areas are looked at anew.
    pub fn after_event(markers: &Markers, grid: &Grid, before: Option<&Bare>, erased: &[Vec2]) -> Option<Bare> {
        let (_, far) = reaches(markers);
        let grown = (!erased.is_empty()).then(|| points_box(erased)).and_then(|b| {
            intersection(Rect { min: b.min - Vec2::splat(far), max: b.max + Vec2::splat(far) }, markers.bounds())
        });
        let area = match (before.map(Bare::area), grown) {
            (Some(a), Some(b)) => Some(Rect { min: a.min.min(b.min), max: a.max.max(b.max) }),
            (a, b) => a.or(b),
        };
        area.and_then(|area| Bare::of(markers, grid, area))
    }

    /// The bare ground of `markers` (indexed by `grid`) within `area`, where
    /// markers were erased; `None` when every point there is covered.
    pub fn of(markers: &Markers, grid: &Grid, area: Rect) -> Option<Bare> {
        let reach = |m: usize| markers.spacing(markers.layers[m]) * SQRT_2;
        let (fine, far) = reaches(markers);
        let (w, h) = (area.max.x - area.min.x, area.max.y - area.min.y);
        if !(w > 0.0 && h > 0.0) {
            return None;
        }
        // Half the finest reach: a hole a body fits in is seen.
        let cell = (fine / 2.0).max(MIN_CELL).max((w * h / MAX_CELLS).sqrt());
        let cell = if cell.is_finite() { cell } else { w.max(h) };
        let (nx, ny) = ((w / cell).ceil().max(1.0) as usize, (h / cell).ceil().max(1.0) as usize);
        let mut bare = FixedBitSet::with_capacity(nx * ny);
        let covered = |p: Vec2, r: f64| {
            let mut any = false;
            markers.within_at(grid, p, r, |m, q| any |= q.distance(p) <= reach(m as usize));
            any
        };
        for cy in 0..ny {
            for cx in 0..nx {
                let p = area.min + Vec2::new((cx as f64 + 0.5) * cell, (cy as f64 + 0.5) * cell);
                // The finest layer's reach first: in a dense field it finds a marker at once.
                let reached = fine.is_finite() && (covered(p, fine) || far > fine && covered(p, far));
                bare.set(cy * nx + cx, !reached);
            }
        }
        (bare.count_ones(..) > 0).then_some(Bare { area, cell, nx, ny, bare })
    }

    /// The area the cells cover.
    pub fn area(&self) -> Rect {
        self.area
    }

    /// Whether no marker covers `p`.
    pub fn is_bare(&self, p: Vec2) -> bool {
        self.cell_of(p).is_some_and(|(cx, cy)| self.bare[cy * self.nx + cx])
    }

    /// Whether a body of radius `r` walking from `a` to `b` keeps off bare
    /// ground: no bare cell lies within `r` of the segment, but for those
    /// within `r` of `a` (a body at the edge may walk along it). A walk that
    /// starts on bare ground may leave it however it goes.
    pub fn segment_clear(&self, a: Vec2, b: Vec2, r: f64) -> bool {
        if self.is_bare(a) {
            return true;
        }
        // A bare cell is a square: its centre within `r` plus half its
        // diagonal of the segment may reach it.
        let reach = r + self.cell * FRAC_1_SQRT_2;
        let (lo, hi) = (a.min(b) - Vec2::splat(reach), a.max(b) + Vec2::splat(reach));
        if hi.x < self.area.min.x || hi.y < self.area.min.y || lo.x > self.area.max.x || lo.y > self.area.max.y {
            return true;
        }
        let col = |x: f64| (((x - self.area.min.x) / self.cell).floor().max(0.0) as usize).min(self.nx - 1);
        let row = |y: f64| (((y - self.area.min.y) / self.cell).floor().max(0.0) as usize).min(self.ny - 1);
        for cy in row(lo.y)..=row(hi.y) {
            for cx in col(lo.x)..=col(hi.x) {
                if !self.bare[cy * self.nx + cx] {
                    continue;
                }
                let c = self.area.min + Vec2::new((cx as f64 + 0.5) * self.cell, (cy as f64 + 0.5) * self.cell);
                if segment_distance(a, b, c) < reach && c.distance(a) >= reach {
                    return false;
                }
            }
        }
        true
    }

    fn cell_of(&self, p: Vec2) -> Option<(usize, usize)> {
        let (x, y) = ((p.x - self.area.min.x) / self.cell, (p.y - self.area.min.y) / self.cell);
        (x >= 0.0 && y >= 0.0 && (x as usize) < self.nx && (y as usize) < self.ny).then_some((x as usize, y as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lattice(spacing: f64, w: f64, h: f64, hole: Rect) -> Markers {
        let mut points = Vec::new();
        let (nx, ny) = ((w / spacing) as usize, (h / spacing) as usize);
        for j in 0..ny {
            for i in 0..nx {
                let p = Vec2::new((i as f64 + 0.5) * spacing, (j as f64 + 0.5) * spacing);
                if !hole.contains(p) {
                    points.push(p);
                }
            }
        }
        Markers::layer_for_tests(Rect { min: Vec2::ZERO, max: Vec2::new(w, h) }, spacing, points)
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { min: Vec2::new(x0, y0), max: Vec2::new(x1, y1) }
    }

    #[test]
    fn a_hole_is_bare_and_the_ground_round_it_is_not() {
        let hole = rect(4.0, 4.0, 6.0, 6.0);
        let markers = lattice(0.2, 10.0, 10.0, hole);
        let grid = markers.index(0.5);
        let bare = Bare::of(&markers, &grid, rect(3.5, 3.5, 6.5, 6.5)).expect("the hole is bare");
        assert!(bare.is_bare(Vec2::new(5.0, 5.0)));
        assert!(!bare.is_bare(Vec2::new(3.7, 5.0)), "beside the hole's markers");
        // Straight through the hole: blocked; past it: clear; out of it: clear.
        assert!(!bare.segment_clear(Vec2::new(3.0, 5.0), Vec2::new(7.0, 5.0), 0.25));
        assert!(bare.segment_clear(Vec2::new(3.0, 3.0), Vec2::new(7.0, 3.0), 0.25));
        assert!(bare.segment_clear(Vec2::new(5.0, 5.0), Vec2::new(5.0, 8.0), 0.25));
        // A body at the edge walks along it, not into it.
        assert!(bare.segment_clear(Vec2::new(3.6, 4.0), Vec2::new(3.6, 6.0), 0.25));
        assert!(!bare.segment_clear(Vec2::new(3.6, 5.0), Vec2::new(4.6, 5.0), 0.25));
    }

    #[test]
    fn covered_ground_has_no_bare_cells() {
        let markers = lattice(0.2, 10.0, 10.0, rect(0.0, 0.0, 0.0, 0.0));
        let grid = markers.index(0.5);
        assert_eq!(Bare::of(&markers, &grid, rect(2.0, 2.0, 8.0, 8.0)), None);
    }
}
