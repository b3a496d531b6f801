//! A uniform grid of `u32` ids over a rectangle: the spatial index for
//! neighbour queries (agents each step, markers later).
//!
//! Invariants:
//! - rebuilt from scratch by a counting sort, in O(items + cells), with no
//!   allocation once its buffers have grown;
//! - within a cell, ids are in increasing order (the sort is stable and ids are
//!   the input indices), so every query visits candidates in a fixed order;
//! - points outside the rectangle are clamped into the border cells, so a
//!   query never misses an item (it may see extra candidates: callers filter
//!   by distance);
//! - the cell is never smaller than asked for, and the cell count is capped,
//!   so a huge world with few items does not allocate a huge table.

use rayon::prelude::*;

use crate::ir::{Rect, Vec2};

/// Above this many items, cell keys are computed and sorted in parallel.
pub(crate) const PARALLEL_KEYS: usize = 8192;

/// The cell and the cells per side of a grid over `area`: cells at least
/// `min_cell` wide and at most `max_cells` of them, the cell grown to
/// respect the cap whatever the area's shape.
pub(crate) fn capped_cells(area: Rect, min_cell: f64, max_cells: u64) -> (f64, u32, u32) {
    let w = (area.max.x - area.min.x).max(1e-9);
    let h = (area.max.y - area.min.y).max(1e-9);
    let mut cell = if min_cell.is_finite() && min_cell > 0.0 { min_cell } else { 1.0 };
    let max_cells = max_cells.max(1) as f64;
    if (w / cell).ceil() * (h / cell).ceil() > max_cells {
        cell = cell.max((w * h / max_cells).sqrt());
        // Rounding up both sides may still overshoot slightly: grow until it fits.
        while (w / cell).ceil() * (h / cell).ceil() > max_cells {
            cell *= 1.01;
        }
    }
    let nx = ((w / cell).ceil() as u32).max(1);
    let ny = ((h / cell).ceil() as u32).max(1);
    (cell, nx, ny)
}

#[derive(Clone, Debug)]
pub struct Grid {
    min: Vec2,
    cell: f64,
    inv_cell: f64,
    nx: u32,
    ny: u32,
    /// `start[c]..start[c + 1]` is cell `c`'s range in `items`.
    start: Vec<u32>,
    items: Vec<u32>,
    /// `points[items[k]]`, stored in cell order so a query reads memory in sequence.
    sorted: Vec<Vec2>,
    keys: Vec<u32>,
    /// `items[k] == k` for every `k` (see [`Grid::renumber_in_order`]): queries
    /// need not read `items`, which for millions of markers is one cache miss
    /// fewer per row of cells.
    in_order: bool,
}

impl Grid {
    /// A grid over `area` with cells at least `min_cell` wide and at most
    /// `max_cells` cells (the cell grows to respect the cap).
    pub fn new(area: Rect, min_cell: f64, max_cells: u64) -> Grid {
        let (cell, nx, ny) = capped_cells(area, min_cell, max_cells);
        let cells = nx as usize * ny as usize;
        Grid {
            min: area.min,
            cell,
            inv_cell: 1.0 / cell,
            nx,
            ny,
            start: vec![0; cells + 1],
            items: Vec::new(),
            sorted: Vec::new(),
            keys: Vec::new(),
            in_order: false,
        }
    }

    pub fn cell_size(&self) -> f64 {
        self.cell
    }

    pub fn dims(&self) -> (u32, u32) {
        (self.nx, self.ny)
    }

    #[inline]
    fn col(&self, x: f64) -> u32 {
        // `as` truncates towards zero and saturates (NaN gives 0), which is
        // `floor` clamped to the grid for every value that matters; it also
        // avoids a call to `floor`, which is not an instruction on baseline x86-64.
        (((x - self.min.x) * self.inv_cell) as u32).min(self.nx - 1)
    }

    #[inline]
    fn row(&self, y: f64) -> u32 {
        (((y - self.min.y) * self.inv_cell) as u32).min(self.ny - 1)
    }

    #[inline]
    fn key(&self, x: f64, y: f64) -> u32 {
        self.row(y) * self.nx + self.col(x)
    }

    /// The cell of point `p` (for callers that compute keys alongside other
    /// per-point work and hand them to [`Grid::rebuild_keyed`]).
    #[inline]
    pub fn key_of(&self, p: Vec2) -> u32 {
        self.key(p.x, p.y)
    }

    /// Indexes points `0..points.len()`, whose cells [`Grid::key_of`] gave as `keys`.
    pub fn rebuild_keyed(&mut self, points: &[Vec2], keys: &[u32]) {
        debug_assert_eq!(points.len(), keys.len());
        self.sort(points, keys);
    }

    /// Indexes points `0..points.len()`.
    pub fn rebuild(&mut self, points: &[Vec2]) {
        let n = points.len();
        let mut keys = std::mem::take(&mut self.keys);
        keys.resize(n, 0);
        if n >= PARALLEL_KEYS {
            let this = &*self;
            keys.par_chunks_mut(4096).enumerate().for_each(|(c, chunk)| {
                let base = c * 4096;
                for (j, k) in chunk.iter_mut().enumerate() {
                    let p = points[base + j];
                    *k = this.key(p.x, p.y);
                }
            });
        } else {
            for (k, p) in keys.iter_mut().zip(points) {
                *k = self.key(p.x, p.y);
            }
        }
        self.sort(points, &keys);
        self.keys = keys;
    }

    fn sort(&mut self, points: &[Vec2], keys: &[u32]) {
        let n = points.len();
        let cells = self.start.len() - 1;
        self.in_order = false;
        self.items.resize(n, 0);
        self.sorted.resize(n, Vec2::ZERO);
        self.start[cells] = n as u32;
        let bands = if n >= PARALLEL_KEYS { rayon::current_num_threads().min(cells) } else { 1 };
        if bands <= 1 {
            count(0, keys, &mut self.start[..cells]);
            place(0, 0, points, keys, &mut self.start[..cells], &mut self.items, &mut self.sorted);
            return;
        }
        // The same sort cut into bands of cells, one per thread: each band
        // reads every key and handles the items of its own cells, into its
        // own share of the outputs, so each cell holds the same items in the
        // same order as on one thread.
        let width = cells.div_ceil(bands);
        self.start[..cells].par_chunks_mut(width).enumerate().for_each(|(b, ends)| count(b * width, keys, ends));
        let (mut ends, mut items, mut sorted) = (&mut self.start[..cells], &mut self.items[..], &mut self.sorted[..]);
        let (mut shares, mut first_place) = (Vec::with_capacity(bands), 0);
        for b in 0..cells.div_ceil(width) {
            let (e, e_rest) = ends.split_at_mut(width.min(ends.len()));
            let len = e.last().map_or(0, |&end| end as usize);
            let (i, i_rest) = items.split_at_mut(len);
            let (p, p_rest) = sorted.split_at_mut(len);
            shares.push((b * width, first_place, e, i, p));
            (ends, items, sorted, first_place) = (e_rest, i_rest, p_rest, first_place + len);
        }
        shares.into_par_iter().for_each(|(first_cell, first_place, ends, items, sorted)| {
            place(first_cell, first_place, points, keys, ends, items, sorted);
        });
    }

    /// Every indexed id, in cell order (ids increasing within a cell).
    pub fn order(&self) -> &[u32] {
        &self.items
    }

    /// The point at `place` in [`Grid::order`], as the index holds it.
    #[inline]
    pub fn point_at(&self, place: usize) -> Vec2 {
        self.sorted[place]
    }

    /// Moves the point at `place` to `p` without changing its cell: a query
    /// then sees `p`, but finds it only if its square, widened by how far
    /// points moved since the rebuild, reaches the cell it was indexed in.
    #[inline]
    pub fn move_point(&mut self, place: usize, p: Vec2) {
        self.sorted[place] = p;
    }

    /// Renames every indexed item to its place in [`Grid::order`], for a
    /// caller that renumbered its points that way: the index then holds
    /// point `k` at place `k`, as a rebuild over the renumbered points would.
    pub fn renumber_in_order(&mut self) {
        for (k, id) in self.items.iter_mut().enumerate() {
            *id = k as u32;
        }
        self.in_order = true;
    }

    /// Ids in cell `(cx, cy)`.
    #[inline]
    pub fn cell_items(&self, cx: u32, cy: u32) -> &[u32] {
        let c = (cy * self.nx + cx) as usize;
        &self.items[self.start[c] as usize..self.start[c + 1] as usize]
    }

    /// The places in `items` and `sorted` of cells `x0..=x1` of row `cy`.
    #[inline]
    fn row_span(&self, cy: u32, x0: u32, x1: u32) -> (usize, usize) {
        let row = (cy * self.nx) as usize;
        (self.start[row + x0 as usize] as usize, self.start[row + x1 as usize + 1] as usize)
    }

    /// Calls `f(id, point)` for every indexed point whose cell overlaps the
    /// square of half-side `r` around `p`, row by row (ids increasing within a cell).
    #[inline]
    pub fn for_each_near(&self, p: Vec2, r: f64, mut f: impl FnMut(u32, Vec2)) {
        self.for_each_placed(p, r, |_, id, q| f(id, q));
    }

    /// [`Grid::for_each_near`], with each point's place in [`Grid::order`]:
    /// a caller keeping per-point data in that order reads it in sequence.
    #[inline]
    pub fn for_each_placed(&self, p: Vec2, r: f64, mut f: impl FnMut(usize, u32, Vec2)) {
        let (x0, x1) = (self.col(p.x - r), self.col(p.x + r));
        let (y0, y1) = (self.row(p.y - r), self.row(p.y + r));
        // The rows' bounds and first points are read before any row is
        // visited, so that their cache misses overlap instead of queueing
        // one row after another (a large index is mostly out of cache).
        const EARLY: usize = 4;
        let mut spans = [(0usize, 0usize); EARLY];
        let mut first = 0.0;
        for (span, cy) in spans.iter_mut().zip(y0..=y1) {
            *span = self.row_span(cy, x0, x1);
        }
        for &(a, b) in spans.iter().take((y1 - y0 + 1) as usize) {
            if a < b {
                first += self.sorted[a].x;
            }
        }
        std::hint::black_box(first);
        for (k, cy) in (y0..=y1).enumerate() {
            let (a, b) = spans.get(k).copied().unwrap_or_else(|| self.row_span(cy, x0, x1));
            let items = if self.in_order { &[][..] } else { &self.items[a..b] };
            for (k, &q) in self.sorted[a..b].iter().enumerate() {
                let id = if self.in_order { (a + k) as u32 } else { items[k] };
                f(a + k, id, q);
            }
        }
    }

    /// The places in [`Grid::order`] of the points whose cell overlaps the
    /// square of half-side `r` around `p`: one range per row of cells, in
    /// row order, for a caller that keeps per-point data in that order.
    #[inline]
    pub fn rows_near(&self, p: Vec2, r: f64) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (x0, x1) = (self.col(p.x - r), self.col(p.x + r));
        let (y0, y1) = (self.row(p.y - r), self.row(p.y + r));
        (y0..=y1).map(move |cy| self.row_span(cy, x0, x1))
    }

    /// Calls `f` with every id whose cell overlaps the square of half-side `r`
    /// around `p`: a superset of the ids within distance `r`, row by row.
    #[inline]
    pub fn for_each_candidate(&self, p: Vec2, r: f64, mut f: impl FnMut(u32)) {
        let (x0, x1) = (self.col(p.x - r), self.col(p.x + r));
        let (y0, y1) = (self.row(p.y - r), self.row(p.y + r));
        for cy in y0..=y1 {
            // Cells of one row are contiguous in `items`.
            let (a, b) = self.row_span(cy, x0, x1);
            for &id in &self.items[a..b] {
                f(id);
            }
        }
    }
}

/// Counting sort, first half, over the cells from `first_cell` on that
/// `ends` covers: each cell's items counted, then the counts turned into
/// the cells' ends within those cells' share of the outputs.
fn count(first_cell: usize, keys: &[u32], ends: &mut [u32]) {
    ends.fill(0);
    for &k in keys {
        if let Some(c) = (k as usize).checked_sub(first_cell).filter(|&c| c < ends.len()) {
            ends[c] += 1;
        }
    }
    let mut end = 0;
    for c in ends.iter_mut() {
        end += *c;
        *c = end;
    }
}

/// Counting sort, second half: the items of the cells [`count`] covered,
/// placed from the last to the first, each at its cell's end moved down by
/// one, which keeps ids increasing within a cell and leaves `ends` as the
/// cells' starts; those are then offset by `first_place`, where this share
/// of the outputs begins.
fn place(
    first_cell: usize,
    first_place: usize,
    points: &[Vec2],
    keys: &[u32],
    ends: &mut [u32],
    items: &mut [u32],
    sorted: &mut [Vec2],
) {
    for i in (0..points.len()).rev() {
        let Some(c) = (keys[i] as usize).checked_sub(first_cell).filter(|&c| c < ends.len()) else {
            continue;
        };
        ends[c] -= 1;
        items[ends[c] as usize] = i as u32;
        sorted[ends[c] as usize] = points[i];
    }
    ends.iter_mut().for_each(|e| *e += first_place as u32);
}

/// A grid of discs that grows one insertion at a time (the counting-sort
/// [`Grid`] is rebuilt whole). Used while agents are placed, to keep new
/// bodies off the ones already there.
#[derive(Clone, Debug)]
pub struct Buckets {
    min: Vec2,
    inv_cell: f64,
    nx: u32,
    ny: u32,
    cells: Vec<Vec<(Vec2, f64)>>,
}

impl Buckets {
    /// Buckets over `area`, at least `min_cell` wide, at most `max_cells` of them.
    pub fn new(area: Rect, min_cell: f64, max_cells: u64) -> Buckets {
        let g = Grid::new(area, min_cell, max_cells);
        let (nx, ny) = g.dims();
        Buckets {
            min: area.min,
            inv_cell: 1.0 / g.cell_size(),
            nx,
            ny,
            cells: vec![Vec::new(); nx as usize * ny as usize],
        }
    }

    fn cell(&self, v: f64, origin: f64, n: u32) -> u32 {
        (((v - origin) * self.inv_cell) as u32).min(n - 1)
    }

    pub fn insert(&mut self, p: Vec2, radius: f64) {
        let c = (self.cell(p.y, self.min.y, self.ny) * self.nx + self.cell(p.x, self.min.x, self.nx)) as usize;
        self.cells[c].push((p, radius));
    }

    /// Whether any disc `(q, rq)` with `|p - q| < gap(rq)` lies within `reach` of `p`.
    pub fn any_closer(&self, p: Vec2, reach: f64, gap: impl Fn(f64) -> f64) -> bool {
        let (x0, x1) = (self.cell(p.x - reach, self.min.x, self.nx), self.cell(p.x + reach, self.min.x, self.nx));
        let (y0, y1) = (self.cell(p.y - reach, self.min.y, self.ny), self.cell(p.y + reach, self.min.y, self.ny));
        (y0..=y1).any(|cy| {
            (x0..=x1).any(|cx| {
                self.cells[(cy * self.nx + cx) as usize].iter().any(|&(q, rq)| {
                    let g = gap(rq);
                    p.distance_squared(q) < g * g
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform draws in [0, 1) from a xorshift stream seeded with `s`.
    fn uniform(mut s: u64) -> impl FnMut() -> f64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn brute(pts: &[Vec2], p: Vec2, r: f64) -> Vec<u32> {
        (0..pts.len() as u32).filter(|&i| pts[i as usize].distance(p) <= r).collect()
    }

    #[test]
    fn queries_find_everything_a_brute_force_finds() {
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(10.0, 7.0) };
        let mut g = Grid::new(area, 0.5, 1 << 20);
        let mut next = uniform(12345);
        // Some points outside the area on purpose.
        let pts: Vec<Vec2> = (0..2000).map(|_| Vec2::new(next() * 12.0 - 1.0, next() * 9.0 - 1.0)).collect();
        g.rebuild(&pts);
        for q in 0..200 {
            let p = pts[q];
            for r in [0.3, 0.5, 1.7] {
                let mut found = Vec::new();
                g.for_each_candidate(p, r, |id| {
                    if pts[id as usize].distance(p) <= r {
                        found.push(id);
                    }
                });
                found.sort_unstable();
                assert_eq!(found, brute(&pts, p, r));
            }
        }
    }

    #[test]
    fn rows_and_places_find_everything_a_brute_force_finds() {
        // Cells as wide as the query, as the boids' index is cut; query points
        // on cell corners and edges, where an off-by-one would lose a row.
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(20.0, 14.0) };
        let mut g = Grid::new(area, 2.0, 1 << 20);
        let mut next = uniform(987654321);
        let mut pts: Vec<Vec2> = (0..3000).map(|_| Vec2::new(next() * 20.0, next() * 14.0)).collect();
        pts.extend((0..=10).flat_map(|i| (0..=7).map(move |j| Vec2::new(2.0 * i as f64, 2.0 * j as f64))));
        g.rebuild(&pts);
        for (q, &p) in pts.iter().enumerate().step_by(7) {
            for r in [0.5, 1.999, 2.0] {
                let mut by_rows = Vec::new();
                for (a, b) in g.rows_near(p, r) {
                    by_rows.extend(g.order()[a..b].iter().copied().filter(|&id| pts[id as usize].distance(p) <= r));
                }
                let mut by_places = Vec::new();
                g.for_each_placed(p, r, |k, id, at| {
                    assert_eq!((g.order()[k], at), (id, pts[id as usize]), "place {k} of query {q}");
                    if at.distance(p) <= r {
                        by_places.push(id);
                    }
                });
                by_rows.sort_unstable();
                by_places.sort_unstable();
                let want = brute(&pts, p, r);
                assert_eq!(by_rows, want, "rows of query {q}, r = {r}");
                assert_eq!(by_places, want, "places of query {q}, r = {r}");
            }
        }
    }

    #[test]
    fn cell_count_is_capped() {
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(10_000.0, 10_000.0) };
        let g = Grid::new(area, 0.5, 1 << 16);
        let (nx, ny) = g.dims();
        assert!(u64::from(nx) * u64::from(ny) <= 1 << 16);
        assert!(g.cell_size() >= 0.5);
    }

    #[test]
    fn ids_within_a_cell_are_sorted() {
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(1.0, 1.0) };
        let mut g = Grid::new(area, 1.0, 16);
        g.rebuild(&[Vec2::new(0.5, 0.5), Vec2::new(0.1, 0.2), Vec2::new(0.9, 0.3)]);
        assert_eq!(g.cell_items(0, 0), &[0, 1, 2]);
    }

    #[test]
    fn points_renumbered_in_cell_order_are_found_by_their_new_ids() {
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(4.0, 4.0) };
        let pts: Vec<Vec2> =
            (0..300u32).map(|k| Vec2::new(f64::from(k * 37 % 400) / 100.0, f64::from(k * 91 % 400) / 100.0)).collect();
        let mut g = Grid::new(area, 0.5, 1 << 10);
        g.rebuild(&pts);
        let renumbered: Vec<Vec2> = g.order().iter().map(|&k| pts[k as usize]).collect();
        g.renumber_in_order();
        let near = |g: &Grid| {
            let mut v = Vec::new();
            g.for_each_near(Vec2::new(2.1, 1.3), 0.8, |id, q| v.push((id, q)));
            v
        };
        let found = near(&g);
        assert!(!found.is_empty());
        assert!(found.iter().all(|&(id, q)| renumbered[id as usize] == q));
        // A rebuild over the renumbered points gives the same index.
        let mut fresh = Grid::new(area, 0.5, 1 << 10);
        fresh.rebuild(&renumbered);
        assert_eq!(near(&fresh), found);
    }

    #[test]
    fn the_sort_in_bands_is_the_sort_on_one_thread() {
        // Enough points for the banded sort, many sharing cells, some outside.
        let area = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(50.0, 30.0) };
        let mut next = uniform(99);
        let pts: Vec<Vec2> =
            (0..3 * PARALLEL_KEYS).map(|_| Vec2::new(next() * 54.0 - 2.0, next() * 34.0 - 2.0)).collect();
        let sorted = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            let mut g = Grid::new(area, 0.5, 1 << 20);
            pool.install(|| g.rebuild(&pts));
            (g.start, g.items, g.sorted)
        };
        let one = sorted(1);
        for threads in [2, 3, 8] {
            assert!(sorted(threads) == one, "{threads} threads");
        }
    }
}
