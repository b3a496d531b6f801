//! The potential of a boundary-value-problem planner: the biased Laplace
//! equation `∇²p + ε v·∇p = 0` (Silveira, Prestes, Nedel 2008, Eqs 1–4, after
//! Trevisan et al. 2006) on a grid of square cells, with Dirichlet conditions
//! (walls `p = 1`, goal `p = 0`), relaxed by Gauss-Seidel (the paper's
//! method) or by red-black successive over-relaxation.
//!
//! Invariants:
//! - the grid stores `q = 1 − p` (goal 1, walls 0). Eq 3 is linear and
//!   constants solve it, so `q` obeys the same update; but far from the goal
//!   `p` rounds to exactly 1.0 (in a corridor, beyond about 12 widths from
//!   wall to wall in f64) and its gradient vanishes, while `q` keeps full
//!   relative precision down to the subnormals;
//! - outside the grid is wall;
//! - free cells that cannot reach a goal through stencil weights above zero
//!   are held at `q = 0`, their exact value, so convergence is decided by the
//!   cells that matter;
//! - convergence is a relative residual: every reachable free cell's Eq 3
//!   value differs from its own by at most `tolerance` times the larger of
//!   the two. It keeps the descent direction meaningful where `q` is tiny,
//!   where an absolute rule would stop before the goal's influence arrived;
//!   and it bounds the absolute residual by `tolerance`, hence, by the
//!   discrete maximum principle, the true error: by `R² · tolerance` for
//!   `ε = 0` (comparison function `|x − c|²/4`, `R` the half-diagonal of the
//!   grid with the wall ring around it, in cells), and by
//!   `4 D · tolerance / |ε|` otherwise (comparison function `sign(ε) x·v`,
//!   whose Eq 3 mean exceeds its value by `|ε|/4`; `D` the extent of that
//!   grid along `v`). `tests/bvp_solver.rs` checks both against a direct
//!   solve; the error found is a thousand times smaller or less. Rounding
//!   stalls red-black SOR's relative residual at about 1e-13 on 64² maps,
//!   1e-12 on 128² and 5e-12 on 256² (ω nears 2): ask for 1e-10 or more;
//! - a red-black sweep updates cells of one colour from the other colour
//!   only, so splitting its rows over threads gives the same bits as one
//!   thread; the convergence test is a conjunction and the residual a
//!   maximum, exact in any order.

use rayon::prelude::*;

use crate::ir::Vec2;
use crate::math::{cos, unit};

/// Sweeps over which a relaxation must gain, past its expected length.
const STALL_WINDOW: u32 = 8;

/// What a cell of the grid is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Relaxed.
    Free,
    /// An obstacle (or the map's border): `p = 1`.
    Wall,
    /// The target: `p = 0`.
    Goal,
    /// Free but cut off from every goal: `p = 1` exactly (set by relaxing).
    Cut,
}

/// The bias of Eq 1: `ε` and the unit vector `v`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bias {
    pub epsilon: f64,
    pub v: Vec2,
}

impl Bias {
    /// No bias: Laplace's equation.
    pub const NONE: Bias = Bias { epsilon: 0.0, v: Vec2::ZERO };

    /// `ε` along `v` (made a unit vector: with `|v| ≤ 1` every stencil weight
    /// is ≥ 0 for `ε ∈ [−2, 2]`, the discrete maximum principle).
    pub fn new(epsilon: f64, v: Vec2) -> Bias {
        Bias { epsilon, v: unit(v).unwrap_or(Vec2::ZERO) }
    }

    /// The weights of the west, east, south and north neighbours in Eq 3:
    /// `1/4 ∓ ε v_x / 8`, `1/4 ∓ ε v_y / 8`.
    fn weights(self) -> [f64; 4] {
        let (bx, by) = (self.epsilon * self.v.x / 8.0, self.epsilon * self.v.y / 8.0);
        [0.25 - bx, 0.25 + bx, 0.25 - by, 0.25 + by]
    }
}

/// How to relax.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// The paper's: one lexicographic Gauss-Seidel sweep after another.
    GaussSeidel,
    /// Red-black ordering, over-relaxed by the optimal factor of the grid's
    /// box (`ω = 2 / (1 + √(1 − ρ²))`, `ρ` the box's Jacobi spectral radius):
    /// sweeps grow like the grid's side instead of its square.
    RedBlackSor,
}

/// When to stop relaxing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Relax {
    pub method: Method,
    /// The relative residual to reach (see the module's invariants).
    pub tolerance: f64,
    pub max_sweeps: u32,
    /// Split the rows of each sweep over the thread pool (same result).
    pub parallel: bool,
}

/// What a relaxation did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Relaxed {
    pub sweeps: u32,
    /// The relative residual at the end.
    pub residual: f64,
    pub converged: bool,
}

/// A potential over `nx × ny` cells.
///
/// Stored with a ring of wall cells around the grid, so every cell a sweep
/// updates has its four neighbours in the arrays and the inner loops test
/// nothing for the grid's edge; and with the even rows of that padded grid
/// first, then the odd ones: the neighbours of a row's cells are in the row
/// itself and in the two rows of the other parity beside it, so a sweep can
/// write the rows of one parity in place, on many threads, while it reads
/// the others.
#[derive(Clone, Debug)]
pub struct Potential {
    nx: usize,
    ny: usize,
    /// The length of a padded row, `nx + 2`.
    stride: usize,
    /// How many padded rows are even: where the odd ones start, in rows.
    evens: usize,
    /// Every cell of the padded grid, in the order above.
    cells: Vec<Cell>,
    /// `1 − p` of every cell of the padded grid, in the order above.
    q: Vec<f64>,
    /// What a free cell starts from, as `q`.
    start: f64,
}

impl Potential {
    /// All free, starting at potential `p0` (the paper: 0.9 on small maps, near 1 on large ones).
    pub fn new(nx: usize, ny: usize, p0: f64) -> Potential {
        let start = 1.0 - p0;
        let (stride, rows) = (nx + 2, ny + 2);
        let len = stride * rows;
        let mut g = Potential {
            nx,
            ny,
            stride,
            evens: rows.div_ceil(2),
            cells: vec![Cell::Wall; len],
            q: vec![0.0; len],
            start,
        };
        for j in 0..ny {
            for i in 0..nx {
                let k = g.at(i, j);
                g.cells[k] = Cell::Free;
                g.q[k] = start;
            }
        }
        g
    }

    pub fn nx(&self) -> usize {
        self.nx
    }

    pub fn ny(&self) -> usize {
        self.ny
    }

    /// Where padded row `r` starts (rows 0 and `ny + 1` are the wall ring).
    #[inline]
    fn row_start(&self, r: usize) -> usize {
        ((r % 2) * self.evens + r / 2) * self.stride
    }

    /// Where cell `(i, j)` of the grid is stored.
    #[inline]
    fn at(&self, i: usize, j: usize) -> usize {
        assert!(i < self.nx && j < self.ny, "cell ({i}, {j}) is outside the {} × {} grid", self.nx, self.ny);
        self.row_start(j + 1) + i + 1
    }

    pub fn cell(&self, i: usize, j: usize) -> Cell {
        self.cells[self.at(i, j)]
    }

    /// Makes cell `(i, j)` a wall, a goal or free; a cell freed starts afresh.
    pub fn set(&mut self, i: usize, j: usize, cell: Cell) {
        let k = self.at(i, j);
        let was = self.cells[k];
        self.cells[k] = cell;
        self.q[k] = match cell {
            Cell::Wall | Cell::Cut => 0.0,
            Cell::Goal => 1.0,
            Cell::Free if was == Cell::Free => self.q[k],
            Cell::Free => self.start,
        };
    }

    /// The same grid moved by `(di, dj)` cells (cell `(i, j)` of the result is
    /// cell `(i + di, j + dj)` of this one): every cell free, keeping the
    /// potential of cells that were free as the next relaxation's start (the
    /// paper's warm start of a sliding group map, Fig 11).
    pub fn slide(&mut self, di: i64, dj: i64) {
        let (nx, ny) = (self.nx as i64, self.ny as i64);
        let mut q = vec![0.0; self.q.len()];
        for j in 0..self.ny {
            for i in 0..self.nx {
                let (si, sj) = (i as i64 + di, j as i64 + dj);
                let from = ((0..nx).contains(&si) && (0..ny).contains(&sj)).then(|| self.at(si as usize, sj as usize));
                q[self.at(i, j)] = match from {
                    Some(s) if self.cells[s] == Cell::Free => self.q[s],
                    _ => self.start,
                };
            }
        }
        self.q = q;
        for j in 0..self.ny {
            for i in 0..self.nx {
                let k = self.at(i, j);
                self.cells[k] = Cell::Free;
            }
        }
    }

    /// `p` at cell `(i, j)`.
    pub fn p(&self, i: usize, j: usize) -> f64 {
        1.0 - self.q[self.at(i, j)]
    }

    /// `1 − p` at cell `(i, j)`: full precision far from the goal.
    pub fn q(&self, i: usize, j: usize) -> f64 {
        self.q[self.at(i, j)]
    }

    // Eq 4: the descent direction −∇p = ∇q by central differences, per cell.
    pub fn descent(&self, i: usize, j: usize) -> Vec2 {
        let k = self.at(i, j);
        let (south, north) = (self.row_start(j) + i + 1, self.row_start(j + 2) + i + 1);
        Vec2::new((self.q[k + 1] - self.q[k - 1]) / 2.0, (self.q[north] - self.q[south]) / 2.0)
    }

    /// Relaxes the free cells towards the solution of Eq 1 under `bias`.
    pub fn relax(&mut self, bias: Bias, relax: Relax) -> Relaxed {
        let w = bias.weights();
        self.cut_off(&w);
        let omega: f64 = match relax.method {
            Method::GaussSeidel => 1.0,
            Method::RedBlackSor => self.omega(&w),
        };
        let mut omega = omega;
        let (mut sweeps, mut before) = (0, f64::INFINITY);
        let converged = loop {
            if self.within(&w, relax.tolerance, relax.parallel) {
                break true;
            }
            if sweeps == relax.max_sweeps {
                break false;
            }
            match relax.method {
                Method::GaussSeidel => self.lexicographic_sweep(&w),
                Method::RedBlackSor => {
                    self.colour_sweep(&w, omega, 0, relax.parallel);
                    self.colour_sweep(&w, omega, 1, relax.parallel);
                }
            }
            sweeps += 1;
            // The box's factor overshoots a narrow domain's optimum; well past
            // it, rounding is amplified faster than SOR damps it, and where
            // q is many orders below 1 (a long corridor) the relative
            // residual stalls. A healthy SOR is done by 2 (nx + ny) sweeps:
            // after that, halve the over-relaxation while 8 sweeps gain less
            // than 10%.
            // The residual is taken only from the window before the first
            // that may halve: most relaxations end long before it.
            let due = 2 * (self.nx + self.ny) as u32;
            if relax.method == Method::RedBlackSor && sweeps % STALL_WINDOW == 0 && sweeps + STALL_WINDOW >= due {
                let residual = self.residual(&w, relax.parallel);
                if sweeps >= due && residual > 0.9 * before {
                    omega = 1.0 + (omega - 1.0) / 2.0;
                }
                before = residual;
            }
        };
        Relaxed { sweeps, residual: self.residual(&w, relax.parallel), converged }
    }

    /// Young's optimal over-relaxation for the grid's box. With weights
    /// `w ≥ 0` the Jacobi matrix is similar (by a diagonal scaling) to a
    /// symmetric one whose spectral radius is
    /// `2√(w_w w_e) cos(π/(nx+1)) + 2√(w_s w_n) cos(π/(ny+1))`: a bias
    /// lowers it, and over-relaxing by Laplace's factor would overshoot.
    fn omega(&self, w: &[f64; 4]) -> f64 {
        use std::f64::consts::PI;
        let rho = 2.0 * (w[0] * w[1]).sqrt() * cos(PI / (self.nx + 1) as f64)
            + 2.0 * (w[2] * w[3]).sqrt() * cos(PI / (self.ny + 1) as f64);
        2.0 / (1.0 + (1.0 - rho * rho).max(0.0).sqrt())
    }

    /// Marks the free cells no goal reaches through weights above zero as
    /// [`Cell::Cut`] (and cut cells a goal reaches again as free).
    fn cut_off(&mut self, w: &[f64; 4]) {
        // A cell depends on its west neighbour with weight w[0], and so on.
        const STEPS: [(isize, isize); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
        let mut reached = vec![false; self.cells.len()];
        // Padded coordinates (column, row): the ring is wall, so a step from
        // a cell of the grid stays in the arrays and never enters the ring.
        let mut stack = Vec::new();
        for r in 1..=self.ny {
            for c in 1..=self.nx {
                let k = self.row_start(r) + c;
                if self.cells[k] == Cell::Goal {
                    reached[k] = true;
                    stack.push((c, r));
                }
            }
        }
        while let Some((c, r)) = stack.pop() {
            for (d, (dc, dr)) in STEPS.iter().enumerate() {
                if w[d] <= 0.0 {
                    continue;
                }
                // The neighbour on the other side depends on this cell through weight d.
                let (a, b) = (c.wrapping_add_signed(-dc), r.wrapping_add_signed(-dr));
                let n = self.row_start(b) + a;
                if !reached[n] && matches!(self.cells[n], Cell::Free | Cell::Cut) {
                    reached[n] = true;
                    stack.push((a, b));
                }
            }
        }
        for ((cell, q), reached) in self.cells.iter_mut().zip(&mut self.q).zip(reached) {
            match *cell {
                Cell::Free if !reached => {
                    *cell = Cell::Cut;
                    *q = 0.0;
                }
                Cell::Cut if reached => {
                    *cell = Cell::Free;
                    *q = self.start;
                }
                _ => {}
            }
        }
    }

    /// The rows of parity `parity` (to write) and the others (to read), each
    /// holding its padded row `r` at `(r / 2) · stride`.
    fn by_parity(&mut self, parity: usize) -> (&mut [f64], &[f64], &[Cell]) {
        let split = self.evens * self.stride;
        let (even, odd) = self.q.split_at_mut(split);
        let (even_cells, odd_cells) = self.cells.split_at(split);
        match parity {
            0 => (even, odd, even_cells),
            _ => (odd, even, odd_cells),
        }
    }

    fn lexicographic_sweep(&mut self, w: &[f64; 4]) {
        let s = self.stride;
        for r in 1..=self.ny {
            let (mine, other, cells) = self.by_parity(r % 2);
            let (below, above) = beside(other, r, s);
            gauss_seidel_row(w, &cells[r / 2 * s..][..s], &mut mine[r / 2 * s..][..s], below, above);
        }
    }

    /// Over-relaxes the free cells with `(i + j) % 2 == colour`.
    fn colour_sweep(&mut self, w: &[f64; 4], omega: f64, colour: usize, parallel: bool) {
        let (s, ny) = (self.stride, self.ny);
        // Cells of one colour read only the other colour, so the rows can be
        // updated in any order, on any number of threads, with the same bits.
        for parity in 0..2 {
            let (mine, other, cells) = self.by_parity(parity);
            let update = |(t, row): (usize, &mut [f64])| {
                let r = 2 * t + parity;
                if r == 0 || r > ny {
                    return; // the wall ring
                }
                let (below, above) = beside(other, r, s);
                // Padding moves both coordinates by one: (c + r) % 2 is still the colour.
                let first = 1 + (1 + r + colour) % 2;
                sor_row(w, omega, &cells[t * s..][..s], row, below, above, first);
            };
            if parallel {
                mine.par_chunks_mut(s).enumerate().for_each(update);
            } else {
                mine.chunks_mut(s).enumerate().for_each(update);
            }
        }
    }

    /// Padded row `r`'s cells and `q`, and `q` of rows `r − 1` and `r + 1`.
    fn row(&self, r: usize) -> (&[Cell], &[f64], &[f64], &[f64]) {
        let (s, k) = (self.stride, self.row_start(r));
        let (below, above) = (self.row_start(r - 1), self.row_start(r + 1));
        (&self.cells[k..][..s], &self.q[k..][..s], &self.q[below..][..s], &self.q[above..][..s])
    }

    /// Whether every free cell's Eq 3 value and its own differ by at most
    /// `tolerance` times the larger of the two (the module's rule). It stops
    /// at the first cell that does not: between sweeps only the answer
    /// matters, and most sweeps find one long before the end of the grid.
    fn within(&self, w: &[f64; 4], tolerance: f64, parallel: bool) -> bool {
        let row = |r: usize| -> bool {
            let (cells, q, below, above) = self.row(r);
            row_within(w, tolerance, cells, q, below, above)
        };
        if parallel {
            (1..=self.ny).into_par_iter().all(row)
        } else {
            (1..=self.ny).all(row)
        }
    }

    fn residual(&self, w: &[f64; 4], parallel: bool) -> f64 {
        let row = |r: usize| -> f64 {
            let (cells, q, below, above) = self.row(r);
            relative_residual_row(w, cells, q, below, above)
        };
        if parallel {
            (1..=self.ny).into_par_iter().map(row).reduce(|| 0.0, f64::max)
        } else {
            (1..=self.ny).map(row).fold(0.0, f64::max)
        }
    }
}

/// Padded rows `r − 1` and `r + 1` among the rows of the other parity than
/// `r` (see `Potential::by_parity`), where they are consecutive.
#[inline]
fn beside(other: &[f64], r: usize, stride: usize) -> (&[f64], &[f64]) {
    let below = (r - 1) / 2 * stride;
    (&other[below..][..stride], &other[below + stride..][..stride])
}

// Eq 3, in q: the stencil's weighted mean of the four neighbours. The west
// term is added last: in a Gauss-Seidel sweep it is the value just written,
// and the other three are summed while it is computed (half the latency of
// the sweep's chain from cell to cell).
#[inline(always)]
fn eq3(w: &[f64; 4], west: f64, east: f64, south: f64, north: f64) -> f64 {
    (w[1] * east + w[2] * south + w[3] * north) + w[0] * west
}

/// One padded row of a lexicographic Gauss-Seidel sweep: `below` is already
/// swept, `above` not yet.
#[inline]
fn gauss_seidel_row(w: &[f64; 4], cells: &[Cell], row: &mut [f64], below: &[f64], above: &[f64]) {
    let n = row.len();
    let (cells, below, above) = (&cells[..n], &below[..n], &above[..n]);
    // The west neighbour is the value just written: carried in a register.
    let mut west = row[0];
    for i in 1..n - 1 {
        if cells[i] == Cell::Free {
            row[i] = eq3(w, west, row[i + 1], below[i], above[i]);
        }
        west = row[i];
    }
}

/// Over-relaxes the free cells of one padded row at columns `first`,
/// `first + 2`, …: they read only cells of the other colour.
#[inline]
fn sor_row(w: &[f64; 4], omega: f64, cells: &[Cell], row: &mut [f64], below: &[f64], above: &[f64], first: usize) {
    let n = row.len();
    let (cells, below, above) = (&cells[..n], &below[..n], &above[..n]);
    for i in (first..n - 1).step_by(2) {
        if cells[i] == Cell::Free {
            let q = row[i];
            row[i] = q + omega * (eq3(w, row[i - 1], row[i + 1], below[i], above[i]) - q);
        }
    }
}

/// Whether `|Eq 3 − q| ≤ tolerance · max(|Eq 3|, |q|)` at every free cell of one padded row.
#[inline]
fn row_within(w: &[f64; 4], tolerance: f64, cells: &[Cell], row: &[f64], below: &[f64], above: &[f64]) -> bool {
    let n = row.len();
    let (cells, below, above) = (&cells[..n], &below[..n], &above[..n]);
    (1..n - 1).all(|i| {
        cells[i] != Cell::Free || {
            let (g, q) = (eq3(w, row[i - 1], row[i + 1], below[i], above[i]), row[i]);
            (g - q).abs() <= tolerance * g.abs().max(q.abs())
        }
    })
}

/// The largest `|Eq 3 − q| / max(|Eq 3|, |q|)` over the free cells of one padded row.
#[inline]
fn relative_residual_row(w: &[f64; 4], cells: &[Cell], row: &[f64], below: &[f64], above: &[f64]) -> f64 {
    let n = row.len();
    let (cells, below, above) = (&cells[..n], &below[..n], &above[..n]);
    let mut worst: f64 = 0.0;
    for i in 1..n - 1 {
        if cells[i] == Cell::Free {
            let (g, q) = (eq3(w, row[i - 1], row[i + 1], below[i], above[i]), row[i]);
            let r = (g - q).abs();
            if r > 0.0 {
                worst = worst.max(r / g.abs().max(q.abs()));
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relax(method: Method) -> Relax {
        Relax { method, tolerance: 1e-10, max_sweeps: 100_000, parallel: false }
    }

    #[test]
    fn one_update_of_eq_3_by_hand() {
        // p = 1/4 (p_w + p_e + p_s + p_n) + ε/8 ((p_e − p_w) v_x + (p_n − p_s) v_y)
        let mut g = Potential::new(3, 3, 0.5);
        g.set(0, 1, Cell::Goal); // west: p 0
        g.set(2, 1, Cell::Wall); // east: p 1
        g.set(1, 0, Cell::Wall); // south: p 1
        g.set(1, 2, Cell::Wall); // north: p 1 (q of (1, 1) is the only free value read)
        let bias = Bias::new(1.0, Vec2::new(1.0, 0.0));
        g.lexicographic_sweep(&bias.weights());
        let p = 0.25 * (0.0 + 1.0 + 1.0 + 1.0) + 1.0 / 8.0 * ((1.0 - 0.0) * 1.0 + (1.0 - 1.0) * 0.0);
        assert!((g.p(1, 1) - p).abs() < 1e-15, "{} vs {p}", g.p(1, 1));
    }

    #[test]
    fn the_descent_is_the_central_difference_of_eq_4() {
        let mut g = Potential::new(3, 3, 0.5);
        g.set(0, 1, Cell::Goal);
        g.set(2, 1, Cell::Wall);
        g.set(1, 0, Cell::Wall);
        let d = g.descent(1, 1);
        // −∇p: ((p_w − p_e)/2, (p_s − p_n)/2) = ((0 − 1)/2, (1 − 0.5)/2) → towards the goal, away from the wall.
        assert_eq!(d, Vec2::new(-0.5, 0.25));
    }

    #[test]
    fn outside_the_grid_is_wall() {
        // A free cell between a goal and the grid's edge: Eq 3 and Eq 4 read q = 0 beyond the edge.
        let mut g = Potential::new(2, 1, 0.5);
        g.set(0, 0, Cell::Goal);
        assert!(g.relax(Bias::NONE, relax(Method::GaussSeidel)).converged);
        assert_eq!(g.q(1, 0), 0.25);
        assert_eq!(g.descent(1, 0), Vec2::new(-0.5, 0.0));
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn a_cell_beyond_the_edge_is_refused() {
        Potential::new(3, 2, 0.5).cell(3, 0);
    }

    #[test]
    fn gauss_seidel_and_red_black_reach_the_same_potential() {
        let mut a = Potential::new(12, 9, 0.9);
        a.set(10, 4, Cell::Goal);
        for j in 2..7 {
            a.set(5, j, Cell::Wall);
        }
        let mut b = a.clone();
        let bias = Bias::new(0.7, Vec2::new(1.0, 1.0));
        assert!(a.relax(bias, relax(Method::GaussSeidel)).converged);
        assert!(b.relax(bias, relax(Method::RedBlackSor)).converged);
        for j in 0..9 {
            for i in 0..12 {
                assert!((a.q(i, j) - b.q(i, j)).abs() < 1e-8, "({i}, {j})");
            }
        }
    }

    #[test]
    fn cells_cut_off_from_the_goal_stay_at_one() {
        let mut g = Potential::new(7, 3, 0.5);
        g.set(0, 1, Cell::Goal);
        for j in 0..3 {
            g.set(3, j, Cell::Wall);
        }
        assert!(g.relax(Bias::NONE, relax(Method::RedBlackSor)).converged);
        assert_eq!(g.cell(5, 1), Cell::Cut);
        assert_eq!(g.p(5, 1), 1.0);
        assert!(g.p(1, 1) < 1.0);
    }

    #[test]
    fn threads_do_not_change_a_bit() {
        let mut a = Potential::new(40, 33, 0.9);
        a.set(30, 20, Cell::Goal);
        for i in 5..25 {
            a.set(i, 15, Cell::Wall);
        }
        let mut b = a.clone();
        let bias = Bias::new(-1.3, Vec2::new(0.2, 1.0));
        let r = Relax { tolerance: 1e-9, ..relax(Method::RedBlackSor) };
        let ra = a.relax(bias, r);
        let rb = b.relax(bias, Relax { parallel: true, ..r });
        assert!(ra.converged);
        assert_eq!(ra, rb);
        assert!(a.q.iter().zip(&b.q).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

#[cfg(test)]
mod corridor {
    use super::*;

    #[test]
    fn over_relaxation_backs_off_where_a_winding_corridor_stalls_it() {
        // Three legs of 40 cells, 4 wide: q at the far end is about 6e-34,
        // where the box's factor (1.79, optimal near 1.4 here) stalls.
        let (nx, ny) = (44, 20);
        let mut sor = Potential::new(nx, ny, 0.9);
        for i in 0..40 {
            for j in 4..8 {
                sor.set(i, j, Cell::Wall);
            }
        }
        for i in 4..44 {
            for j in 12..16 {
                sor.set(i, j, Cell::Wall);
                sor.set(i, j + 4, if i >= 36 { Cell::Goal } else { Cell::Free });
            }
        }
        let mut gs = sor.clone();
        let relax = Relax { method: Method::RedBlackSor, tolerance: 1e-6, max_sweeps: 10_000, parallel: false };
        let done = sor.relax(Bias::NONE, relax);
        assert!(done.converged && done.sweeps < 1000, "{done:?}");
        assert!(gs.relax(Bias::NONE, Relax { method: Method::GaussSeidel, ..relax }).converged);
        let (a, b) = (sor.q(0, 0), gs.q(0, 0));
        assert!(a > 0.0 && (a - b).abs() < 1e-4 * b, "{a:e} vs {b:e}");
    }
}
