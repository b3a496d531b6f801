//! The potential of a boundary-value-problem planner: the biased Laplace
//! equation `∇²p + ε v·∇p = 0` (Silveira, Prestes, Nedel 2008, Eqs 1–4, after
//! Trevisan et al. 2006) on a grid of square cells, with Dirichlet conditions
//! (walls `p = 1`, goal `p = 0`), relaxed by Gauss-Seidel (the paper's
//! method) or by red-black successive over-relaxation.
//!
//! Invariants:
//! - the grid stores `q = 1 − p` (goal 1, walls 0). Eq 3 is linear and
//!   constants solve it, so `q` obeys the same update; but far from the goal
//!   `p` rounds to exactly 1.0 (about 12 corridor widths in f64) and its
//!   gradient vanishes, while `q` keeps full relative precision down to the
//!   subnormals;
//! - outside the grid is wall;
//! - free cells that cannot reach a goal through stencil weights above zero
//!   are held at `q = 0`, their exact value, so convergence is decided by the
//!   cells that matter;
//! - convergence is a relative residual: every reachable free cell's Eq 3
//!   value differs from its own by at most `tolerance` times the larger of
//!   the two. It bounds the absolute residual by `tolerance`, hence (for
//!   `ε = 0`, by the discrete maximum principle with the comparison function
//!   `|x − c|²/4`) the true error by `R² · tolerance`, `R` the radius of the
//!   grid in cells; and it keeps the descent direction meaningful where `q`
//!   is tiny, where an absolute rule would stop before the goal's influence
//!   arrived;
//! - a red-black sweep updates cells of one colour from the other colour
//!   only, so splitting its rows over threads gives the same bits as one
//!   thread; the residual is a maximum, exact in any order.

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
#[derive(Clone, Debug)]
pub struct Potential {
    nx: usize,
    ny: usize,
    cells: Vec<Cell>,
    /// `1 − p`, row-major (`i + j nx`).
    q: Vec<f64>,
    /// What a free cell starts from, as `q`.
    start: f64,
    scratch: Vec<f64>,
}

impl Potential {
    /// All free, starting at potential `p0` (the paper: 0.9 on small maps, near 1 on large ones).
    pub fn new(nx: usize, ny: usize, p0: f64) -> Potential {
        let start = 1.0 - p0;
        Potential { nx, ny, cells: vec![Cell::Free; nx * ny], q: vec![start; nx * ny], start, scratch: Vec::new() }
    }

    pub fn nx(&self) -> usize {
        self.nx
    }

    pub fn ny(&self) -> usize {
        self.ny
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> usize {
        i + j * self.nx
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
        let mut q = vec![self.start; self.q.len()];
        for j in 0..ny {
            for i in 0..nx {
                let (si, sj) = (i + di, j + dj);
                if (0..nx).contains(&si) && (0..ny).contains(&sj) {
                    let s = (si + sj * nx) as usize;
                    if self.cells[s] == Cell::Free {
                        q[(i + j * nx) as usize] = self.q[s];
                    }
                }
            }
        }
        self.q = q;
        self.cells.fill(Cell::Free);
    }

    /// `p` at cell `(i, j)`.
    pub fn p(&self, i: usize, j: usize) -> f64 {
        1.0 - self.q[self.at(i, j)]
    }

    /// `1 − p` at cell `(i, j)`: full precision far from the goal.
    pub fn q(&self, i: usize, j: usize) -> f64 {
        self.q[self.at(i, j)]
    }

    /// `q` of the neighbour at `(i + di, j + dj)`; outside the grid is wall.
    #[inline]
    fn q_off(&self, i: usize, j: usize, di: isize, dj: isize) -> f64 {
        let (a, b) = (i as isize + di, j as isize + dj);
        if a < 0 || b < 0 || a >= self.nx as isize || b >= self.ny as isize {
            0.0
        } else {
            self.q[a as usize + b as usize * self.nx]
        }
    }

    // Eq 4: the descent direction −∇p = ∇q by central differences, per cell.
    pub fn descent(&self, i: usize, j: usize) -> Vec2 {
        Vec2::new(
            (self.q_off(i, j, 1, 0) - self.q_off(i, j, -1, 0)) / 2.0,
            (self.q_off(i, j, 0, 1) - self.q_off(i, j, 0, -1)) / 2.0,
        )
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
        let mut residual = self.residual(&w, relax.parallel);
        let (mut sweeps, mut before) = (0, residual);
        while residual > relax.tolerance && sweeps < relax.max_sweeps {
            match relax.method {
                Method::GaussSeidel => self.lexicographic_sweep(&w),
                Method::RedBlackSor => {
                    self.colour_sweep(&w, omega, 0, relax.parallel);
                    self.colour_sweep(&w, omega, 1, relax.parallel);
                }
            }
            sweeps += 1;
            residual = self.residual(&w, relax.parallel);
            // The box's factor overshoots a narrow domain's optimum; well past
            // it, rounding is amplified faster than SOR damps it, and where
            // q is many orders below 1 (a long corridor) the relative
            // residual stalls. A healthy SOR is done by 2 (nx + ny) sweeps:
            // after that, halve the over-relaxation while 8 sweeps gain less
            // than 10%.
            if sweeps % STALL_WINDOW == 0 {
                if sweeps >= 2 * (self.nx + self.ny) as u32 && residual > 0.9 * before {
                    omega = 1.0 + (omega - 1.0) / 2.0;
                }
                before = residual;
            }
        }
        Relaxed { sweeps, residual, converged: residual <= relax.tolerance }
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
        let (nx, ny) = (self.nx as isize, self.ny as isize);
        let mut reached = vec![false; self.cells.len()];
        let mut stack: Vec<usize> = (0..self.cells.len()).filter(|&k| self.cells[k] == Cell::Goal).collect();
        for &k in &stack {
            reached[k] = true;
        }
        while let Some(k) = stack.pop() {
            let (i, j) = ((k % self.nx) as isize, (k / self.nx) as isize);
            for (d, (di, dj)) in STEPS.iter().enumerate() {
                // The neighbour on the other side depends on this cell through the opposite weight.
                let (a, b) = (i - di, j - dj);
                if a < 0 || b < 0 || a >= nx || b >= ny || w[d] <= 0.0 {
                    continue;
                }
                let n = (a + b * nx) as usize;
                if !reached[n] && matches!(self.cells[n], Cell::Free | Cell::Cut) {
                    reached[n] = true;
                    stack.push(n);
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

    // Eq 3, in q: the stencil's weighted mean of the four neighbours.
    #[inline]
    fn stencil(&self, w: &[f64; 4], i: usize, j: usize) -> f64 {
        w[0] * self.q_off(i, j, -1, 0)
            + w[1] * self.q_off(i, j, 1, 0)
            + w[2] * self.q_off(i, j, 0, -1)
            + w[3] * self.q_off(i, j, 0, 1)
    }

    fn lexicographic_sweep(&mut self, w: &[f64; 4]) {
        for j in 0..self.ny {
            for i in 0..self.nx {
                let k = self.at(i, j);
                if self.cells[k] == Cell::Free {
                    self.q[k] = self.stencil(w, i, j);
                }
            }
        }
    }

    /// Over-relaxes the free cells with `(i + j) % 2 == colour`.
    fn colour_sweep(&mut self, w: &[f64; 4], omega: f64, colour: usize, parallel: bool) {
        let nx = self.nx;
        let update = |this: &Potential, i: usize, j: usize| -> f64 {
            let k = this.at(i, j);
            let q = this.q[k];
            q + omega * (this.stencil(w, i, j) - q)
        };
        if parallel {
            // Cells of one colour read only the other colour: compute them
            // all from the grid as it is, then write them back.
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.resize(self.q.len(), 0.0);
            let this = &*self;
            scratch.par_chunks_mut(nx).enumerate().for_each(|(j, row)| {
                for i in ((j + colour) % 2..nx).step_by(2) {
                    if this.cells[i + j * nx] == Cell::Free {
                        row[i] = update(this, i, j);
                    }
                }
            });
            let cells = &self.cells;
            self.q.par_chunks_mut(nx).zip(scratch.par_chunks(nx)).enumerate().for_each(|(j, (row, new))| {
                for i in ((j + colour) % 2..nx).step_by(2) {
                    if cells[i + j * nx] == Cell::Free {
                        row[i] = new[i];
                    }
                }
            });
            self.scratch = scratch;
        } else {
            for j in 0..self.ny {
                for i in ((j + colour) % 2..nx).step_by(2) {
                    if self.cells[i + j * nx] == Cell::Free {
                        let v = update(self, i, j);
                        self.q[i + j * nx] = v;
                    }
                }
            }
        }
    }

    /// The largest relative residual over the free cells.
    pub fn residual_of(&self, bias: Bias) -> f64 {
        self.residual(&bias.weights(), false)
    }

    fn residual(&self, w: &[f64; 4], parallel: bool) -> f64 {
        let row = |j: usize| -> f64 {
            let mut worst: f64 = 0.0;
            for i in 0..self.nx {
                if self.cells[self.at(i, j)] == Cell::Free {
                    let (g, q) = (self.stencil(w, i, j), self.q[self.at(i, j)]);
                    let r = (g - q).abs();
                    if r > 0.0 {
                        worst = worst.max(r / g.abs().max(q.abs()));
                    }
                }
            }
            worst
        };
        if parallel {
            (0..self.ny).into_par_iter().map(row).reduce(|| 0.0, f64::max)
        } else {
            (0..self.ny).map(row).fold(0.0, f64::max)
        }
    }
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
