//! The potential field of continuum crowds: the eikonal equation
//! `‖∇φ‖ = C` (Treuille, Cooper, Popović 2006, Eq 5) solved on a grid of
//! square cells by fast marching (§4.3).
//!
//! `φ(x)` is the least cost of a path from `x` to the goal, integrating the
//! unit cost `C` (per metre) along it. Each cell has four costs, one per face:
//! `C_{M→i}` is the cost of leaving cell `M` towards its neighbour `i`. The
//! upwind finite difference of §4.3 takes one neighbour per axis, `m_x` among
//! west/east and `m_y` among south/north, and solves
//! `((φ_M − φ_{m_x}) / C_{M→m_x})² + ((φ_M − φ_{m_y}) / C_{M→m_y})² = 1`
//! for the larger root, or the one-sided `φ_M = φ_m + C_{M→m}` when the root
//! would lie below a neighbour it uses ([`update`]). Costs here are already
//! multiplied by the cell side `h`.
//!
//! NOTE: the paper picks, per axis, the neighbour with the smaller
//! `φ_i + C_{M→i}`. With anisotropic costs that pick is not monotone: a
//! neighbour of higher `φ` but lower face cost can replace one of lower `φ`
//! and *raise* `φ_M` (west at `φ = 0` through cost 1 with south at `0`
//! through 1 gives `0.707`; an east neighbour at `0.8` through 0.1 is the
//! paper's pick, `0.8 + 0.1 > 0.707`, and gives `0.852`). The value then
//! depends on when that neighbour became known, so marching and sweeping
//! disagree. We take instead the least update over the four quadrants
//! `(m_x, m_y)`: monotone in every neighbour and never below the
//! neighbours it uses, so fast marching finds the one fixed point of the
//! scheme, the one Gauss–Seidel sweeps find. Where one neighbour of an
//! axis has both the smaller `φ` and the smaller cost (always, for costs
//! equal on both faces of an axis), only it can win, and the rule is the
//! paper's.
//!
//! Invariants:
//! - `φ` is 0 on goals (a seed's given value for [`Marcher::solve_from`]),
//!   finite exactly where a path of finite cost reaches a goal, `+∞`
//!   elsewhere, and never NaN;
//! - a face cost that is NaN or negative counts as `+∞` (the move is
//!   impossible): no input makes `φ` decrease along a path;
//! - cells are accepted smallest `(φ, cell index)` first, and every value is
//!   computed from accepted cells only, so `φ` depends on the costs and the
//!   set of goals, not on their order or repetitions;
//! - after the first solve of a size, a solve allocates nothing.

use super::cell_heap::{cell, CellHeap, Key, ACCEPTED, VACANT};

/// Face directions of a cell, in this order, indexing `[f64; 4]` cost arrays.
pub const EAST: usize = 0;
pub const NORTH: usize = 1;
pub const WEST: usize = 2;
pub const SOUTH: usize = 3;

const INF: f64 = f64::INFINITY;

/// A grid of `nx × ny` square cells of side `h` (m), row-major: cell
/// `k = i + j·nx`, `i` along x (east), `j` along y (north).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    pub nx: usize,
    pub ny: usize,
    pub h: f64,
}

/// A trial value's key in the heap: `φ`'s total-order bits, then the cell
/// index, so equal values are taken by cell index whatever the insertion order.
fn entry(phi: f64, k: usize) -> Key {
    (u128::from(ordered(phi)) << 64) | k as u128
}

/// The value a key carries: [`ordered`] undone, the same bits.
#[inline(always)]
fn value(e: Key) -> f64 {
    let o = (e >> 64) as u64;
    f64::from_bits(if o >> 63 == 1 { o & !(1 << 63) } else { !o })
}

/// `φ`'s bits ordered as `f64::total_cmp` orders the values.
fn ordered(phi: f64) -> u64 {
    let b = phi.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Reusable buffers (heap, states); grown once, reused across solves so a
/// step allocates nothing.
#[derive(Default)]
pub struct Marcher {
    /// Trial cells, smallest `(φ, cell)` first, each once with its least
    /// trial value so far; and which cells are accepted.
    heap: CellHeap,
    /// The order of the differences of the next solves.
    pub order: Order,
}

/// The order of the upwind differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// §4.3's first-order differences, `(φ − φ₁)/C`.
    #[default]
    First,
    /// Second-order one-sided differences, `(3φ − 4φ₁ + φ₂)/(2C)`, along
    /// an axis whose two upwind cells are accepted with `φ₂ < φ₁`; first
    /// order elsewhere (Sethian 1999, §4 of *Fast marching methods*).
    Second,
}

impl Marcher {
    /// A marcher with differences of `order`.
    pub fn with_order(order: Order) -> Self {
        Marcher { order, ..Marcher::default() }
    }

    /// Solves the eikonal equation `‖∇φ‖ = C` (Eq 5) by fast marching.
    ///
    /// `cost[k][d]`: unit cost (per metre) of moving out of cell `k` through
    /// face `d`; `+∞` (or NaN, or negative) makes that move impossible; a
    /// cell whose four costs are `+∞` is a wall. `goals`: cells with `φ = 0`
    /// (duplicates allowed, out-of-range ignored; a goal is 0 even if it is
    /// a wall). Writes `φ` for every cell into `phi` (resized to `nx·ny`):
    /// 0 on goals, `+∞` where unreachable, never NaN.
    pub fn solve(&mut self, grid: Grid, cost: &[[f64; 4]], goals: &[u32], phi: &mut Vec<f64>) {
        self.march(grid, cost, goals.iter().map(|&g| (g, 0.0)), phi);
    }

    /// Like [`Marcher::solve`], from `seeds`: `(cell, φ)` pairs accepted as
    /// known (a cell seeded twice keeps the smaller value; out-of-range
    /// cells and non-finite values are ignored).
    pub fn solve_from(&mut self, grid: Grid, cost: &[[f64; 4]], seeds: &[(u32, f64)], phi: &mut Vec<f64>) {
        self.march(grid, cost, seeds.iter().copied(), phi);
    }

    fn march(
        &mut self,
        grid: Grid,
        cost: &[[f64; 4]],
        seeds: impl Iterator<Item = (u32, f64)> + Clone,
        phi: &mut Vec<f64>,
    ) {
        let n = grid.nx * grid.ny;
        assert!(grid.h > 0.0 && grid.h.is_finite(), "cell side {} is not positive and finite", grid.h);
        assert_eq!(cost.len(), n, "one cost array per cell");
        phi.clear();
        phi.resize(n, INF);
        self.heap.reset(n);
        let seeds = seeds.filter(|&(k, v)| (k as usize) < n && v.is_finite());
        // `phi` holds accepted values only: a cell not accepted yet reads `+∞`.
        for (k, v) in seeds.clone() {
            phi[k as usize] = phi[k as usize].min(v);
            self.heap.accept(k as usize);
        }
        let mut front = Front { grid, cost, phi, heap: &mut self.heap, order: self.order };
        // Every seed is accepted before any trial value is computed, so their order does not matter.
        for (k, _) in seeds {
            let k = k as usize;
            front.relax_around(k % grid.nx, k / grid.nx);
        }
        while let Some(e) = front.heap.pop() {
            let k = cell(e);
            if let Some(top) = front.heap.peek_cell() {
                front.fetch_around(top);
            }
            // The heap's reset refused n ≥ 2³², so k and nx fit u32: one 32-bit division for both.
            let (i, j) = ((k as u32 % grid.nx as u32) as usize, (k as u32 / grid.nx as u32) as usize);
            front.phi[k] = value(e);
            front.relax_around(i, j);
        }
    }
}

/// The march in progress: accepted values in `phi`, trial values in `heap`.
struct Front<'a> {
    grid: Grid,
    cost: &'a [[f64; 4]],
    phi: &'a mut [f64],
    heap: &'a mut CellHeap,
    order: Order,
}

impl Front<'_> {
    /// Asks the memory for the costs of the neighbours of cell `k`, the cell
    /// most likely accepted next, while this one is relaxed: on a front that
    /// moves along x each lies a row away from the last one read, out of
    /// cache. A hint only: nothing is read, no value can change.
    #[inline(always)]
    fn fetch_around(&self, k: usize) {
        let nx = self.grid.nx;
        for m in [k.wrapping_sub(1), k + 1, k.wrapping_sub(nx), k + nx] {
            if let Some(c) = self.cost.get(m) {
                prefetch(c);
            }
        }
    }

    /// Tries the newly accepted cell `(i, j)` on each neighbour not accepted yet.
    #[inline(always)]
    fn relax_around(&mut self, i: usize, j: usize) {
        let Grid { nx, ny, .. } = self.grid;
        let k = i + j * nx;
        let pk = self.phi[k];
        let (x_lo, x_hi, y_lo, y_hi) = (i > 0, i + 1 < nx, j > 0, j + 1 < ny);
        if x_hi {
            self.relax(pk, (i + 1, j), WEST, (y_lo, y_hi));
        }
        if y_hi {
            self.relax(pk, (i, j + 1), SOUTH, (x_lo, x_hi));
        }
        if x_lo {
            self.relax(pk, (i - 1, j), EAST, (y_lo, y_hi));
        }
        if y_lo {
            self.relax(pk, (i, j - 1), NORTH, (x_lo, x_hi));
        }
    }

    /// Lowers the trial value of cell `(i, j)`, which reaches the accepted
    /// value `pk` through its face `face`, to the least update of the
    /// quadrants with `pk`: alone, or with each accepted neighbour on the
    /// other axis (`lo`, `hi`: whether its lower and upper one exist). A
    /// quadrant of two accepted neighbours was tried when the later of them
    /// was accepted, so a trial value is always the least update over the
    /// quadrants of the accepted neighbours.
    #[inline(always)]
    fn relax(&mut self, pk: f64, (i, j): (usize, usize), face: usize, (lo, hi): (bool, bool)) {
        let Grid { nx, h, .. } = self.grid;
        let m = i + j * nx;
        let at = self.heap.slot(m);
        if at == ACCEPTED {
            return;
        }
        let c = &self.cost[m];
        let Some(from) = self.upwind(pk, (i, j), face, h * c[face]) else {
            return;
        };
        // The other axis: south/north of a move along x, west/east of a move along y.
        let (step, lo_face, hi_face) = if face == WEST || face == EAST { (nx, SOUTH, NORTH) } else { (1, WEST, EAST) };
        let mut v = from.0 + from.1;
        if lo {
            if let Some(other) = self.upwind(self.phi[m - step], (i, j), lo_face, h * c[lo_face]) {
                v = v.min(two_sided(from, other));
            }
        }
        if hi {
            if let Some(other) = self.upwind(self.phi[m + step], (i, j), hi_face, h * c[hi_face]) {
                v = v.min(two_sided(from, other));
            }
        }
        let trial = if at == VACANT { INF } else { value(self.heap.key(at)) };
        if v < trial {
            self.heap.lower(at, entry(v, m));
        }
    }
}

impl Front<'_> {
    /// The neighbour of cell `(i, j)` through `face`, of value `p1` behind a
    /// face of cost `c`, as a `(value, cost)` pair of [`two_sided`]'s
    /// quadratic. At second order, with the next cell on that side accepted
    /// lower, `φ₂ < φ₁`: `(3φ − 4φ₁ + φ₂)/(2c) = (φ − (4φ₁ − φ₂)/3) / (2c/3)`,
    /// the same quadratic in a shifted value and a scaled cost.
    #[inline(always)]
    fn upwind(&self, p1: f64, (i, j): (usize, usize), face: usize, c: f64) -> Option<(f64, f64)> {
        let first = candidate(p1, c)?;
        if self.order == Order::First {
            return Some(first);
        }
        let Grid { nx, ny, .. } = self.grid;
        let m = i + j * nx;
        let beyond = match face {
            EAST if i + 2 < nx => m + 2,
            WEST if i >= 2 => m - 2,
            NORTH if j + 2 < ny => m + 2 * nx,
            SOUTH if j >= 2 => m - 2 * nx,
            _ => return Some(first),
        };
        let p2 = self.phi[beyond];
        let shifted = ((4.0 * p1 - p2) / 3.0, 2.0 * c / 3.0);
        Some(if p2 < p1 && shifted.0 + shifted.1 < INF { shifted } else { first })
    }
}

/// Brings the cache line of `at` towards the core, without waiting for it.
#[inline(always)]
fn prefetch<T>(at: &T) {
    // SAFETY: SSE is part of every x86-64 target, and a prefetch reads
    // nothing: it cannot fault or change a value, whatever the address.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((at as *const T).cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A neighbour usable in an update: accepted (finite `φ`) and reachable
/// through a face of cost `c = h·C ≥ 0` with a finite sum.
#[inline(always)]
fn candidate(phi: f64, c: f64) -> Option<(f64, f64)> {
    (c >= 0.0 && phi + c < INF).then_some((phi, c))
}

/// Treuille's upwind update of one cell from its known neighbours (§4.3).
///
/// `x`: `Some((φ_mx, C_mx))`, the chosen west/east neighbour's value and the
/// cost of the face towards it, already multiplied by `h`; `None` if no x
/// neighbour is known. Likewise `y`. Returns the larger root of
/// `((φ − φx)/Cx)² + ((φ − φy)/Cy)² = 1` when it is at least `max(φx, φy)`
/// (upwind), otherwise the one-sided `min(φx + Cx, φy + Cy)`; `+∞` when no
/// neighbour is usable. A neighbour with a non-finite `φ`, a cost that is
/// not `≥ 0`, or a non-finite `φ + C` is not usable. Never NaN; the result
/// lies in `[min(φx, φy), min(φx + Cx, φy + Cy)]` over the usable ones.
pub fn update(x: Option<(f64, f64)>, y: Option<(f64, f64)>) -> f64 {
    let usable = |s: Option<(f64, f64)>| s.and_then(|(p, c)| if p.is_finite() { candidate(p, c) } else { None });
    solve_local(usable(x), usable(y))
}

/// [`update`] for usable neighbours only.
#[inline(always)]
fn solve_local(x: Option<(f64, f64)>, y: Option<(f64, f64)>) -> f64 {
    match (x, y) {
        (None, None) => INF,
        (Some((p, c)), None) | (None, Some((p, c))) => p + c,
        (Some(x), Some(y)) => two_sided(x, y),
    }
}

/// §4.3's quadratic with both axes, or the one-sided update where its root
/// would not be upwind of both neighbours.
#[inline(always)]
fn two_sided((a, ca): (f64, f64), (b, cb): (f64, f64)) -> f64 {
    // Order the neighbours, `a ≤ b`, the cheaper first on a tie: the same bits whichever comes first.
    let ((a, ca), (b, cb)) = if a < b || (a == b && ca <= cb) { ((a, ca), (b, cb)) } else { ((b, cb), (a, ca)) };
    let d = b - a;
    // The root is ≥ b iff φ = b leaves ((b − a)/ca)² ≤ 1; otherwise `b` is downwind and
    // a + ca ≤ b + cb is the one-sided update. From here on ca > d ≥ 0.
    if d >= ca {
        return a + ca;
    }
    // The larger root, φ = a + ca (d·ca + cb·√(ca² + cb² − d²)) / (ca² + cb²).
    let root = if ca.max(cb) < 1e150 && ca > 1e-150 {
        let q = ca * ca + cb * cb;
        a + ca * (d * ca + cb * (q - d * d).sqrt()) / q
    } else {
        // Scaled by the larger cost so the squares neither overflow nor vanish.
        let s = ca.max(cb);
        let (u, v, e) = (ca / s, cb / s, d / s);
        let q = u * u + v * v;
        a + s * (e * u * u + u * v * (q - e * e).sqrt()) / q
    };
    // In exact arithmetic b ≤ root ≤ min(a + ca, b + cb) here; rounding may step an ulp out.
    root.max(b).min((a + ca).min(b + cb))
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: f64 = std::f64::consts::FRAC_1_SQRT_2;

    #[test]
    fn one_neighbour_adds_its_face_cost() {
        assert_eq!(update(Some((1.0, 2.0)), None), 3.0);
        assert_eq!(update(None, Some((1.5, 0.5))), 2.0);
        assert_eq!(update(None, None), INF);
    }

    #[test]
    fn two_equal_neighbours_give_the_diagonal() {
        assert!((update(Some((0.0, 1.0)), Some((0.0, 1.0))) - S).abs() < 1e-15);
        assert!((update(Some((3.0, 2.0)), Some((3.0, 2.0))) - (3.0 + 2.0 * S)).abs() < 1e-15);
    }

    #[test]
    fn a_linear_field_of_unit_gradient_is_reproduced() {
        // φ = x cos θ + y sin θ: the neighbours at −x and −y are cos θ and sin θ below.
        for k in 1..40 {
            let t = f64::from(k) * std::f64::consts::FRAC_PI_2 / 40.0;
            let (c, s) = (libm::cos(t), libm::sin(t));
            let phi = 10.0 + 3.0 * c + 7.0 * s;
            let got = update(Some((phi - c, 1.0)), Some((phi - s, 1.0)));
            assert!((got - phi).abs() < 1e-13, "θ = {t}: {got} against {phi}");
        }
    }

    #[test]
    fn the_update_is_symmetric_to_the_bit() {
        let pairs =
            [((0.0, 1.0), (0.0, 0.3)), ((1.0, 0.7), (1.2, 2.0)), ((2.0, 1e-3), (2.0, 5.0)), ((0.1, 1.0), (0.1, 1.0))];
        for (x, y) in pairs {
            assert_eq!(update(Some(x), Some(y)).to_bits(), update(Some(y), Some(x)).to_bits(), "{x:?} {y:?}");
        }
    }

    #[test]
    fn a_neighbour_downwind_of_the_root_is_left_out() {
        // From `a` alone φ = 1, below `b = 5`: the quadratic's root would not be upwind of `b`.
        assert_eq!(update(Some((0.0, 1.0)), Some((5.0, 1.0))), 1.0);
        assert_eq!(update(Some((5.0, 1.0)), Some((0.0, 1.0))), 1.0);
        // On the switch (b − a = ca) both forms give b.
        assert_eq!(update(Some((0.0, 1.0)), Some((1.0, 1.0))), 1.0);
        let near = update(Some((0.0, 1.0)), Some((1.0 - 1e-12, 1.0)));
        assert!((near - 1.0).abs() < 1e-11 && near >= 1.0 - 1e-12);
    }

    #[test]
    fn unusable_neighbours_count_as_absent() {
        for bad in
            [(f64::NAN, 1.0), (INF, 1.0), (-INF, 1.0), (0.0, INF), (0.0, f64::NAN), (0.0, -1.0), (f64::MAX, f64::MAX)]
        {
            assert_eq!(update(Some(bad), Some((2.0, 1.0))), 3.0, "{bad:?}");
            assert_eq!(update(Some((2.0, 1.0)), Some(bad)), 3.0, "{bad:?}");
            assert_eq!(update(Some(bad), None), INF, "{bad:?}");
        }
    }

    #[test]
    fn extreme_scales_neither_overflow_nor_vanish() {
        for scale in [1e-300, 1e-200, 1e-160, 1e160, 1e200, 1e300] {
            let got = update(Some((0.0, scale)), Some((0.0, scale)));
            assert!((got / scale - S).abs() < 1e-15, "{scale}: {got}");
        }
        // A zero cost: the neighbour's own value, whichever side.
        assert_eq!(update(Some((2.0, 0.0)), Some((1.5, 1.0))), 2.0);
        assert_eq!(update(Some((2.0, 0.0)), Some((0.5, 1.0))), 1.5);
        assert_eq!(update(Some((2.0, 0.0)), Some((2.0, 0.0))), 2.0);
    }

    #[test]
    fn the_least_quadrant_wins_where_the_papers_pick_would_raise_the_value() {
        // The module doc's example, cell (1, 0) of 3 × 2: west 0 through 1, north 0 through 1,
        // east 0.8 through 0.1. The paper picks east (0.8 + 0.1 < 0 + 1) and gets 0.852;
        // the west-north quadrant gives 0.707.
        let mut cost = vec![[1.0; 4]; 6];
        cost[1][EAST] = 0.1;
        let papers = update(Some((0.8, 0.1)), Some((0.0, 1.0)));
        assert!((papers - 0.8523).abs() < 1e-4, "{papers}");
        let mut phi = Vec::new();
        Marcher::default().solve_from(Grid { nx: 3, ny: 2, h: 1.0 }, &cost, &[(0, 0.0), (2, 0.8), (4, 0.0)], &mut phi);
        assert!((phi[1] - S).abs() < 1e-15, "{}", phi[1]);
    }

    #[test]
    fn heap_keys_order_as_total_cmp_then_cell() {
        assert!(entry(1.0, 7 + 2 * 10) < entry(1.0, 3 * 10) && entry(1.0, 6 + 3 * 10) < entry(1.0, 7 + 3 * 10));
        let v = [-INF, -1.0, -0.0, 0.0, 1e-300, 1.0, 2.5, INF];
        for w in v.windows(2) {
            assert!(ordered(w[0]) < ordered(w[1]), "{w:?}");
            assert!(entry(w[0], 95) < entry(w[1], 0), "{w:?}");
        }
        for x in v {
            assert_eq!(value(entry(x, 42)).to_bits(), x.to_bits(), "{x}");
            assert_eq!(cell(entry(x, 42)), 42);
        }
    }
}
