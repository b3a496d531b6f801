//! Square cells laid over the world from a corner: the grids of the
//! potential-field models (BVP, continuum crowds).
//!
//! Invariants: cells are row-major, cell `(i, j)` has index `i + j·nx`, its
//! outer corner at `min + (i, j)·cell`; a point on a cell's lower or left
//! edge belongs to it.

use crate::ir::{Rect, Vec2};

/// Square cells laid from a corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    /// The outer corner of cell `(0, 0)`.
    pub min: Vec2,
    pub cell: f64,
    pub nx: usize,
    pub ny: usize,
}

impl Lattice {
    /// The lattice of `bounds` at cell size `cell` (the last row and column may overhang).
    pub fn over(bounds: Rect, cell: f64) -> Lattice {
        let size = bounds.max - bounds.min;
        let nx = ((size.x / cell).ceil() as usize).max(1);
        let ny = ((size.y / cell).ceil() as usize).max(1);
        Lattice { min: bounds.min, cell, nx, ny }
    }

    /// The centre of cell `(i, j)`.
    pub fn centre(&self, i: usize, j: usize) -> Vec2 {
        self.min + Vec2::new((i as f64 + 0.5) * self.cell, (j as f64 + 0.5) * self.cell)
    }

    /// The cell holding `p`, if any.
    pub fn cell_of(&self, p: Vec2) -> Option<(usize, usize)> {
        let (x, y) = ((p.x - self.min.x) / self.cell, (p.y - self.min.y) / self.cell);
        let inside = x >= 0.0 && y >= 0.0 && x < self.nx as f64 && y < self.ny as f64;
        inside.then_some((x as usize, y as usize))
    }

    /// The four cells whose centres surround `p` — `(i, j)` below and left
    /// of it, then anticlockwise `(i + 1, j)`, `(i + 1, j + 1)`, `(i, j + 1)`
    /// — and `p`'s offset `(Δx, Δy)` from the first's centre, in cells. Beyond
    /// the outer centres the edge cells stand in for the missing ones.
    pub fn around(&self, p: Vec2) -> ([usize; 4], f64, f64) {
        let x = ((p.x - self.min.x) / self.cell - 0.5).clamp(0.0, (self.nx - 1) as f64);
        let y = ((p.y - self.min.y) / self.cell - 0.5).clamp(0.0, (self.ny - 1) as f64);
        // Both are clamped to ≥ 0 (or NaN, which `as` makes 0 and `floor`
        // keeps NaN: `dx` is NaN either way), where truncation is `floor`
        // without its call (not an instruction on baseline x86-64).
        let (i, j) = (x as usize, y as usize);
        let (dx, dy) = (x - i as f64, y - j as f64);
        let (i1, j1) = ((i + 1).min(self.nx - 1), (j + 1).min(self.ny - 1));
        ([i + j * self.nx, i1 + j * self.nx, i1 + j1 * self.nx, i + j1 * self.nx], dx, dy)
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }
}
