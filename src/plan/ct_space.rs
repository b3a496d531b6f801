//! The planning core of the leader-follower model (Li, Jeng, Chang 2002,
//! §3 and §5): each crowd's leader is planned in turn in configuration-time
//! space (CT-space) against the timed paths of the crowds planned before it,
//! by a best-first search on the NF1 potential (Latombe 1991), with every
//! crowd's estimated depth along its leader's trace (§5.2) copied forward in
//! time for the others and backward in time for the crowd under planning
//! (§5.3–5.4).
//!
//! Invariants:
//! - the world is a bitmap of square cells, row-major from `origin`, the
//!   south-west corner (y grows north); obstacles are grown by the avatar
//!   radius when the bitmap is built, so a leader is a point in it (§3.1);
//! - time is in ticks, one tick being the time to cross one cell at the speed
//!   bound. In a tick a leader waits or moves to one of its 4 neighbours: that
//!   is the slope bound of §3.2 (time only goes forward, `|Δx| ≤ v_max Δt`) on
//!   the grid; a diagonal would cover √2 cells in one tick;
//! - mover `j` blocks cell `c` at tick `t` iff some tick `u ≤ t` has
//!   `t ≤ u + depth_j(u)` and the centres of `c` and of its leader's cell at
//!   `u` are closer than the clearance plus the mover's width (the enlarged
//!   circle of §5.4, as wide as its crowd, copied forward by the crowd's
//!   depth). Before its path starts a mover stood at
//!   its first cell with depth 0; after its end it stays at its last cell (τ*);
//! - a state `(c, t)` after `t0` is legal iff `c` is free and no mover blocks
//!   `c` at any tick of `[t, t + l_c]`, `l_c` the planned crowd's own depth
//!   (the backward copy). The start state is legal: the leader is there.
//!   Swapping cells with a mover in one tick is a conflict too;
//! - from `T_static` (every mover's finish plus its largest depth, the latest,
//!   plus `l_c`) no blocking changes, so states at or after it collapse onto
//!   one per cell: a search visits at most `cells · (T_static − t0 + 1)` states
//!   and ends, with a path or without one, on every input;
//! - the open set is ordered by `(nf1[c], |c − goal|², t, c)`, a total
//!   order, and nothing
//!   on the way to a result iterates a hash map: a plan depends only on its
//!   inputs. [`Check::Pairwise`] and [`Check::Extended`] decide legality with
//!   the same distance test, on cell offsets, so they return the same path;
//! - a found path's detours that end next to where they began (a step into a
//!   passage and back out) become waits where the waits are legal: the same
//!   arrival, legal still, and what a person would do;
//! - a crowd's depth is the stretch of its leader's trace, in moves (ticks at
//!   the speed bound), that its estimated region covers (§5.2): at least back
//!   to the last half disc the sweep needed, and in open space, where the
//!   first half disc holds everyone, the trace along that disc's axis. A
//!   wait does not lengthen it: the crowd behind a waiting leader stays put.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::f64::consts::PI;

use crate::ir::Vec2;
use crate::plan::astar::NodeGrid;
use crate::world::walkable::Walkable;

/// The world as a bitmap of square cells in C-space (Li et al. §3.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Bitmap {
    pub nx: u32,
    pub ny: u32,
    /// The side of a cell, m.
    pub cell: f64,
    /// The south-west corner of cell 0.
    pub origin: Vec2,
    free: Vec<bool>,
}

impl Bitmap {
    /// Cells of `NodeGrid::cell_for_dims(space.bounds(), nx, ny)` from the
    /// bounds' min corner, covering the bounds (at most `nx × ny` of them); a
    /// cell is free iff a disc of `radius` at its centre is clear: obstacles
    /// (and the bounds) grown by the avatar radius.
    pub fn new(space: &Walkable, nx: u32, ny: u32, radius: f64) -> Bitmap {
        let bounds = space.bounds();
        let (nx, ny) = (nx.max(1), ny.max(1));
        let mut cell = NodeGrid::cell_for_dims(bounds, nx, ny);
        if !(cell.is_finite() && cell > 0.0) {
            cell = 1.0;
        }
        // w / (w / nx) may round to just above nx: the count never exceeds what was asked.
        let count = |extent: f64, most: u32| ((extent / cell).ceil() as u32).clamp(1, most);
        let (nx, ny) = (count(bounds.max.x - bounds.min.x, nx), count(bounds.max.y - bounds.min.y, ny));
        let mut map = Bitmap { nx, ny, cell, origin: bounds.min, free: vec![false; nx as usize * ny as usize] };
        for c in 0..map.len() as u32 {
            map.free[c as usize] = space.is_clear(map.centre(c), radius);
        }
        map
    }

    /// For tests and benches: rows from north (first string) to south, `'#'`
    /// blocked, anything else free; the origin at (0, 0).
    pub fn from_rows(rows: &[&str], cell: f64) -> Bitmap {
        let ny = rows.len();
        let nx = rows.first().map_or(0, |r| r.chars().count());
        assert!(nx > 0 && ny > 0, "a bitmap needs at least one cell");
        let mut free = vec![false; nx * ny];
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.chars().count(), nx, "row {i} of the bitmap is not {nx} cells long");
            let y = ny - 1 - i;
            for (x, ch) in row.chars().enumerate() {
                free[y * nx + x] = ch != '#';
            }
        }
        Bitmap { nx: nx as u32, ny: ny as u32, cell, origin: Vec2::ZERO, free }
    }

    pub fn len(&self) -> usize {
        self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }

    pub fn is_free(&self, c: u32) -> bool {
        self.free[c as usize]
    }

    pub fn free_cells(&self) -> u32 {
        self.free.iter().filter(|&&f| f).count() as u32
    }

    pub fn index(&self, x: u32, y: u32) -> u32 {
        y * self.nx + x
    }

    pub fn coords(&self, c: u32) -> (u32, u32) {
        (c % self.nx, c / self.nx)
    }

    /// [`Bitmap::coords`] signed, for offsets.
    #[inline]
    fn xy(&self, c: u32) -> (i64, i64) {
        let (x, y) = self.coords(c);
        (i64::from(x), i64::from(y))
    }

    /// The cell holding `p`; `None` outside the bitmap (or NaN). The far edges belong to the last cells.
    pub fn cell_of(&self, p: Vec2) -> Option<u32> {
        let fx = (p.x - self.origin.x) / self.cell;
        let fy = (p.y - self.origin.y) / self.cell;
        if !(fx >= 0.0 && fy >= 0.0 && fx <= f64::from(self.nx) && fy <= f64::from(self.ny)) {
            return None;
        }
        Some(self.index((fx as u32).min(self.nx - 1), (fy as u32).min(self.ny - 1)))
    }

    pub fn centre(&self, c: u32) -> Vec2 {
        let (x, y) = self.coords(c);
        self.origin + Vec2::new(f64::from(x) + 0.5, f64::from(y) + 0.5) * self.cell
    }

    /// The free cell nearest `p` (ties by index), for starts and goals that
    /// fall on grown obstacles; `None` when no cell is free or `p` is not finite.
    pub fn nearest_free(&self, p: Vec2) -> Option<u32> {
        if !p.is_finite() {
            return None;
        }
        (0..self.len() as u32)
            .filter(|&c| self.is_free(c))
            .map(|c| (self.centre(c).distance_squared(p), c))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
            .map(|(_, c)| c)
    }

    /// Whether the straight segment between two points crosses only free
    /// cells (for the model's line-of-sight tests); false when an end lies
    /// outside the bitmap. A segment through a corner of four cells counts
    /// the two beside it as crossed.
    pub fn segment_free(&self, a: Vec2, b: Vec2) -> bool {
        let (Some(from), Some(to)) = (self.cell_of(a), self.cell_of(b)) else {
            return false;
        };
        let (mut x, mut y) = self.coords(from);
        let (x1, y1) = self.coords(to);
        let fa = (a - self.origin) / self.cell;
        let d = (b - a) / self.cell;
        // Amanatides & Woo: the segment parameter at the next vertical and
        // horizontal cell boundary, and its step from one boundary to the next.
        let axis = |pos: f64, cell: u32, delta: f64| -> (i64, f64, f64) {
            if delta > 0.0 {
                (1, (f64::from(cell) + 1.0 - pos) / delta, 1.0 / delta)
            } else if delta < 0.0 {
                (-1, (pos - f64::from(cell)) / -delta, -1.0 / delta)
            } else {
                (0, f64::INFINITY, f64::INFINITY)
            }
        };
        let (sx, mut tx, dx) = axis(fa.x, x, d.x);
        let (sy, mut ty, dy) = axis(fa.y, y, d.y);
        let inside = |x: i64, y: i64| x >= 0 && y >= 0 && x < i64::from(self.nx) && y < i64::from(self.ny);
        let free_at = |x: i64, y: i64| !inside(x, y) || self.is_free(self.index(x as u32, y as u32));
        // Every step moves one cell nearer the end on one axis: this many at most.
        for _ in 0..=(self.nx + self.ny + 2) {
            if !self.is_free(self.index(x, y)) {
                return false;
            }
            if (x, y) == (x1, y1) {
                return true;
            }
            let (nx, ny) = (i64::from(x) + sx, i64::from(y) + sy);
            if tx < ty {
                tx += dx;
                if !inside(nx, i64::from(y)) {
                    return true;
                }
                x = nx as u32;
            } else if ty < tx {
                ty += dy;
                if !inside(i64::from(x), ny) {
                    return true;
                }
                y = ny as u32;
            } else {
                // Through a corner: both cells beside it are touched.
                if !free_at(nx, i64::from(y)) || !free_at(i64::from(x), ny) {
                    return false;
                }
                tx += dx;
                ty += dy;
                if !inside(nx, ny) {
                    return true;
                }
                (x, y) = (nx as u32, ny as u32);
            }
        }
        true
    }

    /// The 4-neighbours of `c` in increasing index: south, west, east, north.
    fn neighbours(&self, c: u32) -> impl Iterator<Item = u32> {
        let (x, y) = self.coords(c);
        [
            (y > 0).then(|| c - self.nx),
            (x > 0).then(|| c - 1),
            (x + 1 < self.nx).then(|| c + 1),
            (y + 1 < self.ny).then(|| c + self.nx),
        ]
        .into_iter()
        .flatten()
    }
}

/// A cell no wavefront reaches.
pub const UNREACHABLE: u32 = u32::MAX;

/// NF1 (Latombe 1991, §4.2.1): the 4-connected wavefront distance, in cells,
/// from `goal` over free cells; [`UNREACHABLE`] elsewhere (never 0), and
/// everywhere when the goal is not free.
pub fn nf1(map: &Bitmap, goal: u32) -> Vec<u32> {
    let mut d = vec![UNREACHABLE; map.len()];
    if (goal as usize) >= map.len() || !map.is_free(goal) {
        return d;
    }
    d[goal as usize] = 0;
    let mut wave = VecDeque::from([goal]);
    while let Some(c) = wave.pop_front() {
        for n in map.neighbours(c) {
            if map.is_free(n) && d[n as usize] == UNREACHABLE {
                d[n as usize] = d[c as usize] + 1;
                wave.push_back(n);
            }
        }
    }
    d
}

/// The L1 distance map DM (Li et al. Fig 3b): for each cell, the L1
/// distance in cells to the nearest blocked cell or to outside the bitmap
/// (blocked cells 0).
pub fn distance_map(map: &Bitmap) -> Vec<u32> {
    let (nx, ny) = (map.nx as usize, map.ny as usize);
    let mut d = vec![0u32; map.len()];
    // Rosenfeld & Pfaltz's two passes, exact for the city-block metric; the
    // cells beyond the edge are sources at distance 0.
    for y in 0..ny {
        for x in 0..nx {
            let k = y * nx + x;
            if map.free[k] {
                let west = if x > 0 { d[k - 1] } else { 0 };
                let south = if y > 0 { d[k - nx] } else { 0 };
                d[k] = west.min(south) + 1;
            }
        }
    }
    for y in (0..ny).rev() {
        for x in (0..nx).rev() {
            let k = y * nx + x;
            if map.free[k] {
                let east = if x + 1 < nx { d[k + 1] } else { 0 };
                let north = if y + 1 < ny { d[k + nx] } else { 0 };
                d[k] = d[k].min(east.min(north) + 1);
            }
        }
    }
    d
}

/// A leader's timed path in CT-space: `cells[k]` at tick `start + k`; before
/// `start` at `cells[0]`; after its end at its last cell forever (τ* of §3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedPath {
    pub start: u32,
    pub cells: Vec<u32>,
}

impl TimedPath {
    pub fn at(&self, t: u32) -> u32 {
        let k = (t.saturating_sub(self.start) as usize).min(self.cells.len().saturating_sub(1));
        *self.cells.get(k).expect("a timed path has at least one cell")
    }

    /// The tick at which the path reaches its last cell.
    pub fn finish(&self) -> u32 {
        self.start.saturating_add((self.cells.len() as u32).saturating_sub(1))
    }

    /// Standing at `cell` from tick `t` on (and before it).
    pub fn stationary(cell: u32, t: u32) -> TimedPath {
        TimedPath { start: t, cells: vec![cell] }
    }
}

/// Another crowd already planned: its leader's timed path, and its crowd's
/// longitudinal depth in ticks at each tick of the path (index `k` ↔ tick
/// `start + k`; past the end, the last value; empty = 0 everywhere).
#[derive(Clone, Debug, PartialEq)]
pub struct Mover {
    pub path: TimedPath,
    pub depth: Vec<u32>,
    /// How much wider than its leader's enlarged circle the crowd is, m
    /// (the half-disc radius `D` of its crowd region, §5.2; 0 for a leader alone).
    pub width: f64,
}

impl Mover {
    /// The crowd's depth at tick `u`: 0 before the path starts (it stood still).
    pub fn depth_at(&self, u: u32) -> u32 {
        if u < self.path.start {
            return 0;
        }
        let k = (u - self.path.start) as usize;
        self.depth.get(k).or(self.depth.last()).copied().unwrap_or(0)
    }

    /// The largest depth the crowd ever has.
    pub fn max_depth(&self) -> u32 {
        self.depth.iter().copied().max().unwrap_or(0)
    }

    /// The tick from which this mover's blocking no longer changes: its
    /// finish plus its largest depth (the last forward copy has run out).
    pub fn settled(&self) -> u32 {
        self.path.finish().saturating_add(self.max_depth())
    }

    /// Whether this crowd blocks cell `c` at tick `t` for a leader kept
    /// `clearance` from its own (§5.4: its enlarged circle copied forward by
    /// its depth), by the definition, one tick of its path after the other.
    pub fn blocks(&self, map: &Bitmap, c: u32, t: u32, clearance: f64) -> bool {
        let (own, clearance) = (map.xy(c), Clearance::new(map, clearance + self.width));
        (t.saturating_sub(self.max_depth())..=t)
            .any(|u| t - u <= self.depth_at(u) && clearance.near(own, map.xy(self.path.at(u))))
    }
}

/// How a visited configuration is checked against the movers (Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// The straightforward method: per state, every tick of the own depth
    /// against every tick of every mover's depth, `(m − 1) · l_c · l_o`
    /// distance checks (§5.4).
    Pairwise,
    /// The extended CT-space: the movers' enlarged circles stamped once into
    /// bits over (cell, tick), forward by their depth and backward by the
    /// own, so a state is one look-up (§5.4).
    Extended,
}

/// What to plan.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Request {
    pub start: u32,
    pub goal: u32,
    pub t0: u32,
    /// The own crowd's depth `l_c` in ticks (0: leader only).
    pub depth: u32,
    /// Leader–leader clearance, m (2r: the enlarged circle of §5.4).
    pub clearance: f64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub path: TimedPath,
    /// States taken from the open set.
    pub expansions: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoPath {
    pub expansions: u64,
    /// `T_static` plus the free cells: once the world is static a path needs
    /// at most that many more steps (gdalle/MultiAgentPathFinding.jl PR #32),
    /// and every state up to it was searched.
    pub horizon: u32,
}

/// `T_static`: the tick from which no state's legality changes any more,
/// every mover's [`Mover::settled`] tick, the latest, plus the own depth;
/// `t0` when that is earlier or there are no movers.
pub fn t_static(movers: &[Mover], req: &Request) -> u32 {
    match movers.iter().map(Mover::settled).max() {
        Some(settled) => settled.saturating_add(req.depth).max(req.t0),
        None => req.t0,
    }
}

/// The number of (cell, tick) states the search of `req` may visit, to
/// refuse before the work: `cells · (T_static − t0 + 2)`.
pub fn states(map: &Bitmap, movers: &[Mover], req: &Request) -> u64 {
    (u64::from(t_static(movers, req) - req.t0) + 2) * map.len() as u64
}

/// The one distance test of both checks and of [`legal`]: whether the
/// centres of two cells are closer than the clearance, `|Δ|² = (dx² + dy²)
/// cell²` from their offset in cells, so it is the same test at every place
/// of the bitmap.
#[derive(Clone, Copy, Debug)]
struct Clearance {
    cell2: f64,
    /// The clearance squared, m².
    reach: f64,
}

impl Clearance {
    fn new(map: &Bitmap, clearance: f64) -> Clearance {
        Clearance { cell2: map.cell * map.cell, reach: clearance * clearance }
    }

    #[inline]
    fn near(self, (ax, ay): (i64, i64), (bx, by): (i64, i64)) -> bool {
        let (dx, dy) = (ax - bx, ay - by);
        ((dx * dx + dy * dy) as f64) * self.cell2 < self.reach
    }
}

/// A mover as the search reads it: its leader's cells along the path, as coordinates.
struct Track<'a> {
    mover: &'a Mover,
    xy: Vec<(i64, i64)>,
    max_depth: u32,
    /// The request's clearance widened by the mover's crowd.
    clearance: Clearance,
}

impl Track<'_> {
    #[inline]
    fn xy(&self, u: u32) -> (i64, i64) {
        let k = (u.saturating_sub(self.mover.path.start) as usize).min(self.xy.len() - 1);
        self.xy[k]
    }
}

/// The movers and the request, with what both checks share.
struct Space<'a> {
    map: &'a Bitmap,
    req: &'a Request,
    tracks: Vec<Track<'a>>,
    t_static: u32,
    /// The latest finish of the movers (§3.2: the goal time is at least that).
    last_finish: u32,
    /// The first tick from which the goal cell stays clear of the movers up to
    /// `T_static`, hence forever; `None` when it never does.
    goal_from: Option<u32>,
    clearance: Clearance,
}

impl<'a> Space<'a> {
    fn new(map: &'a Bitmap, movers: &'a [Mover], req: &'a Request) -> Space<'a> {
        let tracks: Vec<Track> = movers
            .iter()
            .map(|m| {
                assert!(!m.path.cells.is_empty(), "a mover's path has no cells");
                Track {
                    mover: m,
                    xy: m.path.cells.iter().map(|&c| map.xy(c)).collect(),
                    max_depth: m.max_depth(),
                    clearance: Clearance::new(map, req.clearance + m.width),
                }
            })
            .collect();
        let mut space = Space {
            map,
            req,
            tracks,
            t_static: t_static(movers, req),
            last_finish: movers.iter().map(|m| m.path.finish()).max().unwrap_or(0),
            goal_from: None,
            clearance: Clearance::new(map, req.clearance),
        };
        space.goal_from = space.goal_clear_from();
        space
    }

    /// The ticks `u` of a mover's path whose forward copy can reach a tick of `t0..=T_static`.
    fn ticks(&self, track: &Track) -> std::ops::RangeInclusive<u32> {
        self.req.t0.saturating_sub(track.max_depth)..=self.t_static
    }

    /// The goal cell is blocked at tick `s` while a near circle's forward copy
    /// `[u, u + depth(u)]` holds `s`: the last such tick up to `T_static` decides.
    fn goal_clear_from(&self) -> Option<u32> {
        let goal = self.map.xy(self.req.goal);
        let mut last = None;
        for track in &self.tracks {
            for u in self.ticks(track) {
                if track.clearance.near(goal, track.xy(u)) {
                    let until = u.saturating_add(track.mover.depth_at(u)).min(self.t_static);
                    if until >= self.req.t0 {
                        last = last.max(Some(until));
                    }
                }
            }
        }
        match last {
            None => Some(self.req.t0),
            Some(s) if s >= self.t_static => None,
            Some(s) => Some(s + 1),
        }
    }

    /// Whether `(goal, t)` ends a plan: the goal time is at least every
    /// mover's finish (§3.2), and the goal stays clear from then on.
    fn is_goal(&self, c: u32, t: u32) -> bool {
        c == self.req.goal && t >= self.last_finish && self.goal_from.is_some_and(|g| t >= g)
    }

    /// The straightforward check (§5.4): no mover blocks `c` at any tick of
    /// `[t, t + l_c]`, one avatar pair and one tick at a time.
    fn clear_pairwise(&self, c: u32, t: u32) -> bool {
        let own = self.map.xy(c);
        (t..=t.saturating_add(self.req.depth)).all(|s| {
            !self.tracks.iter().any(|track| {
                (s.saturating_sub(track.max_depth)..=s)
                    .any(|u| s - u <= track.mover.depth_at(u) && track.clearance.near(own, track.xy(u)))
            })
        })
    }

    /// Whether a move from `a` to `b` between ticks `t` and `t + 1` swaps
    /// cells with a mover's leader. When the two cells are within the
    /// clearance the vertex check already forbids it.
    fn swaps(&self, a: u32, b: u32, t: u32) -> bool {
        a != b
            && !self.clearance.near(self.map.xy(b), self.map.xy(a))
            && self.tracks.iter().any(|track| track.mover.path.at(t) == b && track.mover.path.at(t + 1) == a)
    }
}

/// One bit per state `(c, t)`, `t` in `t0..=T_static` (later ticks share the
/// last): each cell's ticks side by side, `stride` bits a cell. A search and
/// the movers' circles cover a narrow band of cells over many ticks, so
/// this touches a few pages where a bitmap per tick would touch a fresh one
/// every tick or two.
///
/// The words live in a buffer kept from plan to plan on the thread (as large
/// as the largest plan so far), all zero between plans: the words written
/// are listed and cleared at the end, so a plan neither clears nor faults in
/// more memory than it uses.
struct States {
    t0: u32,
    t_static: u32,
    stride: usize,
    bits: Vec<u64>,
    /// The words made non-zero, to clear.
    dirty: Vec<usize>,
}

impl States {
    /// The words of `bits` must all be zero.
    fn new((mut bits, dirty): (Vec<u64>, Vec<usize>), cells: usize, t0: u32, t_static: u32) -> States {
        let stride = ((t_static - t0) as usize + 1).div_ceil(64) * 64;
        let words = stride.checked_mul(cells).expect("the CT-space search does not fit in memory") / 64;
        if bits.len() < words {
            bits.resize(words, 0);
        }
        States { t0, t_static, stride, bits, dirty }
    }

    #[inline]
    fn key(&self, c: u32, t: u32) -> usize {
        c as usize * self.stride + (t.min(self.t_static) - self.t0) as usize
    }

    #[inline]
    fn get(&self, c: u32, t: u32) -> bool {
        let k = self.key(c, t);
        self.bits[k / 64] >> (k % 64) & 1 == 1
    }

    #[inline]
    fn or(&mut self, w: usize, mask: u64) {
        let word = &mut self.bits[w];
        if *word == 0 {
            self.dirty.push(w);
        }
        *word |= mask;
    }

    #[inline]
    fn set(&mut self, c: u32, t: u32) {
        let k = self.key(c, t);
        self.or(k / 64, 1 << (k % 64));
    }

    /// Sets `(c, t)` for every `t` of `lo..=hi` (within `t0..=T_static`).
    fn set_ticks(&mut self, c: u32, lo: u32, hi: u32) {
        let (a, b) = (self.key(c, lo), self.key(c, hi) + 1);
        let (first, last) = (a / 64, (b - 1) / 64);
        for w in first..=last {
            let from = if w == first { a % 64 } else { 0 };
            let to = if w == last { (b - 1) % 64 + 1 } else { 64 };
            let span = to - from;
            self.or(w, if span == 64 { u64::MAX } else { ((1u64 << span) - 1) << from });
        }
    }

    /// The buffer back, all zero again.
    fn release(mut self) -> (Vec<u64>, Vec<usize>) {
        for &w in &self.dirty {
            self.bits[w] = 0;
        }
        self.dirty.clear();
        (self.bits, self.dirty)
    }
}

/// The open set's entries, smallest first: `(nf1, squared distance to the
/// goal in cells, tick, cell, node)`. Among cells of equal NF1 the one
/// nearest the goal as the crow flies comes first, so an open stretch is
/// crossed by the staircase nearest the straight line, not along two sides
/// of its box.
type Open = BinaryHeap<Reverse<(u32, u64, u32, u32, u32)>>;

/// What a plan reuses from the last on its thread (see [`States`]).
#[derive(Default)]
struct Scratch {
    visited: (Vec<u64>, Vec<usize>),
    blocked: (Vec<u64>, Vec<usize>),
    nodes: Vec<(u32, u32)>,
    open: Open,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// The extended CT-space (§5.4): the states some mover's crowd blocks
/// within the own depth.
///
/// Each mover's enlarged circle at tick `u` is copied forward over
/// `[u, u + depth(u)]` (its crowd, §5.3) and backward by the own depth `l_c`
/// (ours, §5.4): a state `(c, t)` is blocked iff `t` lies in
/// `[u − l_c, u + depth(u)]` for a circle holding `c`, the legality predicate
/// of the module in one interval, stamped as a run of bits. The ticks a
/// cell stays inside a mover's circle make one run, stamped once: a step
/// of the circle changes only its edge, so a path costs its length times
/// the circle's width, not times its area ("efficient implementation of
/// duplicating obstacle regions", §6).
fn stamp(space: &Space, out: &mut States) {
    let map = space.map;
    let (t0, t_static) = (space.req.t0, space.t_static);
    let l_c = space.req.depth;
    // By cell: the first tick of the run of ticks its circle covers it, if one is open.
    let mut first = vec![u32::MAX; map.len()];
    let mut open: Vec<u32> = Vec::new();
    let at = |(x, y): (i64, i64), (dx, dy): (i64, i64)| {
        let (x, y) = (x + dx, y + dy);
        (x >= 0 && y >= 0 && x < i64::from(map.nx) && y < i64::from(map.ny)).then(|| map.index(x as u32, y as u32))
    };
    for track in &space.tracks {
        let circle = Circle::new(track.clearance);
        let ticks = space.ticks(track);
        let from = *ticks.start();
        // A run of ticks `a..=b` holding a cell blocks it over `[a − l_c, max (u + depth(u))]`.
        let reach = RangeMax::new(ticks.clone().map(|u| u.saturating_add(track.mover.depth_at(u))).collect());
        let mut flush = |cell: u32, a: u32, b: u32| {
            let (lo, hi) = (a.saturating_sub(l_c).max(t0), reach.max(a - from, b - from).min(t_static));
            if lo <= hi {
                out.set_ticks(cell, lo, hi);
            }
        };
        let mut here: Option<(i64, i64)> = None;
        let last = *ticks.end();
        for u in ticks {
            let xy = map.xy(track.mover.path.at(u));
            if here == Some(xy) {
                continue;
            }
            // Only the circle's edge changes on a step: cells it leaves close their run, cells it enters open one.
            let (leaving, entering) = match here {
                Some(old) => circle.step(old, xy),
                None => (&[][..], &circle.offsets[..]),
            };
            if let Some(old) = here {
                let moved = leaving.iter().filter_map(|&d| at(old, d));
                if leaving.len() == circle.offsets.len() {
                    // A jump: every cell of the old circle that is not in the new one closes.
                    for cell in moved.filter(|&c| !circle.holds(map.xy(c), xy)) {
                        flush(cell, first[cell as usize], u - 1);
                        first[cell as usize] = u32::MAX;
                    }
                } else {
                    for cell in moved {
                        flush(cell, first[cell as usize], u - 1);
                        first[cell as usize] = u32::MAX;
                    }
                }
            }
            for cell in entering.iter().filter_map(|&d| at(xy, d)) {
                if first[cell as usize] == u32::MAX {
                    first[cell as usize] = u;
                    open.push(cell);
                }
            }
            here = Some(xy);
        }
        for cell in open.drain(..) {
            if first[cell as usize] != u32::MAX {
                flush(cell, first[cell as usize], last);
                first[cell as usize] = u32::MAX;
            }
        }
    }
}

/// A cell's offset from a circle's centre, in cells.
type Offset = (i64, i64);

/// A leader's enlarged circle as cell offsets, and how its edge changes on a step.
struct Circle {
    clearance: Clearance,
    offsets: Vec<Offset>,
    /// By step direction (south, west, east, north): the offsets, from the
    /// old centre, that the step leaves, and from the new one, that it enters.
    edges: [(Vec<Offset>, Vec<Offset>); 4],
}

impl Circle {
    fn new(clearance: Clearance) -> Circle {
        let r = if clearance.reach > 0.0 { (clearance.reach / clearance.cell2).sqrt() as i64 + 1 } else { 0 };
        let offsets: Vec<(i64, i64)> =
            (-r..=r).flat_map(|dy| (-r..=r).map(move |dx| (dx, dy))).filter(|&d| clearance.near(d, (0, 0))).collect();
        let edges = [(0, -1), (-1, 0), (1, 0), (0, 1)].map(|(sx, sy): (i64, i64)| {
            let inside = |(dx, dy): (i64, i64)| clearance.near((dx, dy), (0, 0));
            let leaves = offsets.iter().copied().filter(|&(dx, dy)| !inside((dx - sx, dy - sy))).collect();
            let enters = offsets.iter().copied().filter(|&(dx, dy)| !inside((dx + sx, dy + sy))).collect();
            (leaves, enters)
        });
        Circle { clearance, offsets, edges }
    }

    /// Whether the circle centred at `centre` holds the cell at `xy`.
    fn holds(&self, xy: (i64, i64), centre: (i64, i64)) -> bool {
        self.clearance.near(xy, centre)
    }

    /// The offsets a move from `old` to `new` leaves (from `old`) and enters
    /// (from `new`): the edges for a step, the whole circle for a jump.
    fn step(&self, old: Offset, new: Offset) -> (&[Offset], &[Offset]) {
        let k = match (new.0 - old.0, new.1 - old.1) {
            (0, -1) => 0,
            (-1, 0) => 1,
            (1, 0) => 2,
            (0, 1) => 3,
            _ => return (&self.offsets, &self.offsets),
        };
        (&self.edges[k].0, &self.edges[k].1)
    }
}

/// Range maxima over a fixed list, each in O(1) after an O(n log n) table.
struct RangeMax {
    levels: Vec<Vec<u32>>,
}

impl RangeMax {
    fn new(values: Vec<u32>) -> RangeMax {
        let mut levels = vec![values];
        let mut width = 1;
        while 2 * width <= levels[0].len() {
            let prev = &levels[levels.len() - 1];
            let next = (0..prev.len() - width).map(|i| prev[i].max(prev[i + width])).collect();
            levels.push(next);
            width *= 2;
        }
        RangeMax { levels }
    }

    /// The largest value of `a..=b`.
    fn max(&self, a: u32, b: u32) -> u32 {
        let (a, b) = (a as usize, b as usize);
        let k = (usize::BITS - 1 - (b - a + 1).leading_zeros()) as usize;
        self.levels[k][a].max(self.levels[k][b + 1 - (1 << k)])
    }
}

/// Plans the leader of `req` from `req.start` at `t0` to `req.goal` against
/// the `movers` (§3.2, §5.3): Latombe's best-first planning on `nf1` (the
/// NF1 potential of `req.goal`), in CT-space. `NoPath` once every state the
/// search can reach is visited, at most [`states`] of them; memory grows with
/// that number too, so a caller with an unbounded mover refuses first.
pub fn plan(map: &Bitmap, nf1: &[u32], movers: &[Mover], req: &Request, check: Check) -> Result<Found, NoPath> {
    assert_eq!(nf1.len(), map.len(), "the NF1 potential is not of this bitmap");
    assert!((req.start as usize) < map.len() && (req.goal as usize) < map.len(), "start or goal outside the bitmap");
    let space = Space::new(map, movers, req);
    // Taken, not borrowed: a plan that panics leaves a fresh scratch behind, not a dirty one.
    let mut scratch = SCRATCH.with_borrow_mut(std::mem::take);
    let (t0, t_static) = (req.t0, space.t_static);
    let mut blocked = match check {
        Check::Pairwise => None,
        Check::Extended => {
            let mut b = States::new(std::mem::take(&mut scratch.blocked), map.len(), t0, t_static);
            stamp(&space, &mut b);
            Some(b)
        }
    };
    let mut visited = States::new(std::mem::take(&mut scratch.visited), map.len(), t0, t_static);
    scratch.nodes.clear();
    scratch.open.clear();
    let result = search(&space, nf1, blocked.as_ref(), &mut visited, &mut scratch.nodes, &mut scratch.open);
    scratch.visited = visited.release();
    if let Some(b) = blocked.take() {
        scratch.blocked = b.release();
    }
    SCRATCH.with_borrow_mut(|s| *s = scratch);
    result
}

/// The best-first search proper; `blocked` is the extended CT-space, or
/// `None` to check pairwise.
fn search(
    space: &Space,
    nf1: &[u32],
    blocked: Option<&States>,
    visited: &mut States,
    nodes: &mut Vec<(u32, u32)>,
    open: &mut Open,
) -> Result<Found, NoPath> {
    let (map, req) = (space.map, space.req);
    let clear = |c: u32, t: u32| match blocked {
        None => space.clear_pairwise(c, t),
        Some(b) => !b.get(c, t),
    };
    // Every state put in the open set: its cell and its parent's entry.
    nodes.push((req.start, u32::MAX));
    let path_to = |nodes: &[(u32, u32)], mut k: u32| {
        let mut cells = Vec::new();
        while k != u32::MAX {
            cells.push(nodes[k as usize].0);
            k = nodes[k as usize].1;
        }
        cells.reverse();
        TimedPath { start: req.t0, cells }
    };
    visited.set(req.start, req.t0);
    if space.is_goal(req.start, req.t0) {
        return Ok(Found { path: path_to(nodes, 0), expansions: 0 });
    }
    let (gx, gy) = map.xy(req.goal);
    let d2 = |c: u32| {
        let (x, y) = map.xy(c);
        ((x - gx) * (x - gx) + (y - gy) * (y - gy)) as u64
    };
    open.push(Reverse((nf1[req.start as usize], d2(req.start), req.t0, req.start, 0)));
    let mut expansions = 0u64;
    while let Some(Reverse((_, _, t, c, k))) = open.pop() {
        expansions += 1;
        let Some(next) = t.checked_add(1) else { continue };
        for n in std::iter::once(c).chain(map.neighbours(c)) {
            // Unreachable in NF1: blocked, or cut off from the goal for good.
            let h = nf1[n as usize];
            if h == UNREACHABLE || visited.get(n, next) {
                continue;
            }
            // A state's legality is its own, whatever move leads to it; a swap is the move's.
            if !clear(n, next) {
                visited.set(n, next);
                continue;
            }
            if space.swaps(c, n, t) {
                continue;
            }
            visited.set(n, next);
            nodes.push((n, k));
            let entry = nodes.len() as u32 - 1;
            if space.is_goal(n, next) {
                let mut path = path_to(nodes, entry);
                unloop(map, &mut path, clear, |a, b, t| space.swaps(a, b, t));
                return Ok(Found { path, expansions });
            }
            open.push(Reverse((h, d2(n), next, n, entry)));
        }
    }
    Err(NoPath { expansions, horizon: space.t_static.saturating_add(map.free_cells()) })
}

/// Replaces every detour of `path` that ends next to where it began (a
/// step into a passage and back out, a step aside and back) by a wait
/// there, where `clear` lets the leader stand all the while and the step
/// after the wait swaps with nobody (`swaps`). Best-first search takes the
/// first way it finds, and before a passage another leader holds that is
/// often in and back out rather than a wait, which a person would not do.
/// The ticks outside the detours keep their cells, the waits are legal
/// states and the moves stay single steps, so the plan stays legal and
/// arrives when it did.
fn unloop(map: &Bitmap, path: &mut TimedPath, clear: impl Fn(u32, u32) -> bool, swaps: impl Fn(u32, u32, u32) -> bool) {
    let cells = &mut path.cells;
    // Every visit, by cell then index, to find returns without a scan.
    let mut visits: Vec<(u32, usize)> = cells.iter().enumerate().map(|(k, &c)| (c, k)).collect();
    visits.sort_unstable();
    let later = |c: u32, after: usize| {
        let from = visits.partition_point(|&v| v < (c, after));
        let to = visits.partition_point(|&v| v.0 <= c);
        &visits[from..to]
    };
    let mut i = 0;
    while i < cells.len() {
        let c = cells[i];
        let last =
            std::iter::once(c).chain(map.neighbours(c)).filter_map(|n| later(n, i + 2).last()).map(|v| v.1).max();
        let Some(last) = last else {
            i += 1;
            continue;
        };
        // It can wait at `c` up to the first tick `c` is not clear.
        let limit = (i + 1..last).find(|&k| !clear(c, path.start + k as u32)).unwrap_or(last);
        let end = std::iter::once(c)
            .chain(map.neighbours(c))
            .flat_map(|n| {
                later(n, i + 2).iter().rev().find(|v| v.1 <= limit && !swaps(c, n, path.start + v.1 as u32 - 1))
            })
            .map(|v| v.1)
            .max();
        match end {
            // A detour goes somewhere else on the way, not just on to its end early.
            Some(j) if cells[i + 1..j].iter().any(|&x| x != c && x != cells[j]) => {
                cells[i + 1..j].fill(c);
                i = j;
            }
            _ => i += 1,
        }
    }
}

/// Every rule a plan must keep, each checked from its definition; `Err`
/// names the first broken one with its tick and cell.
pub fn legal(map: &Bitmap, movers: &[Mover], req: &Request, path: &TimedPath) -> Result<(), String> {
    let (&first, &last) = match (path.cells.first(), path.cells.last()) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err("the path has no cells".into()),
    };
    if path.start != req.t0 || first != req.start {
        return Err(format!("starts at cell {first}, tick {}, not at cell {}, tick {}", path.start, req.start, req.t0));
    }
    if let Some(&c) = path.cells.iter().find(|&&c| c as usize >= map.len()) {
        return Err(format!("cell {c} is outside the bitmap"));
    }
    for (k, w) in path.cells.windows(2).enumerate() {
        let t = path.start + k as u32;
        let ((ax, ay), (bx, by)) = (map.coords(w[0]), map.coords(w[1]));
        if ax.abs_diff(bx) + ay.abs_diff(by) > 1 {
            return Err(format!("tick {t}: cell {} to cell {} is neither a wait nor a 4-neighbour move", w[0], w[1]));
        }
    }
    for (k, &c) in path.cells.iter().enumerate().skip(1) {
        let t = path.start + k as u32;
        if !map.is_free(c) {
            return Err(format!("tick {t}, cell {c}: blocked in the bitmap"));
        }
        for s in t..=t.saturating_add(req.depth) {
            if let Some(j) = movers.iter().position(|m| m.blocks(map, c, s, req.clearance)) {
                return Err(format!("tick {t}, cell {c}: mover {j} blocks it at tick {s} (own depth {})", req.depth));
            }
        }
    }
    for (k, w) in path.cells.windows(2).enumerate() {
        let t = path.start + k as u32;
        let swap = |m: &Mover| w[0] != w[1] && m.path.at(t) == w[1] && m.path.at(t + 1) == w[0];
        if let Some(j) = movers.iter().position(swap) {
            return Err(format!("tick {t}: cell {} to cell {} swaps with mover {j}", w[0], w[1]));
        }
    }
    let finish = path.finish();
    if let Some((j, m)) = movers.iter().enumerate().find(|(_, m)| m.path.finish() > finish) {
        return Err(format!("finishes at tick {finish}, before mover {j} (tick {})", m.path.finish()));
    }
    if last != req.goal {
        return Err(format!("ends at cell {last}, not at the goal {}", req.goal));
    }
    for s in finish..=t_static(movers, req).max(finish) {
        if let Some(j) = movers.iter().position(|m| m.blocks(map, last, s, req.clearance)) {
            return Err(format!("tick {s}, cell {last}: the goal is blocked by mover {j} after the finish"));
        }
    }
    Ok(())
}

/// `D_i(n_f)` (Li et al. Fig 10): the radius of a half disc of area
/// `n_f · spacing²`, m.
pub fn half_disc_radius(followers: u32, spacing: f64) -> f64 {
    // π D² / 2 = n_f s²
    (2.0 * f64::from(followers) / PI).sqrt() * spacing.max(0.0)
}

/// A crowd's estimated region (§5.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    /// Sorted.
    pub cells: Vec<u32>,
    /// The longitudinal depth, in ticks.
    pub depth: u32,
}

/// One distinct cell of a leader's trace, from the newest back.
#[derive(Clone, Copy, Debug)]
struct Trace {
    cell: u32,
    /// The move that led into it (out of it, for the first cell of the path),
    /// in cells; `None` when the leader never moved.
    heading: Option<(i64, i64)>,
    /// Moves from this cell to the leader's.
    back: u32,
}

/// The distinct cells of `path` up to tick `t`, newest first; a wait adds none.
fn trace_back(map: &Bitmap, path: &TimedPath, t: u32) -> Vec<Trace> {
    let end = (t.saturating_sub(path.start) as usize).min(path.cells.len().saturating_sub(1));
    let mut runs: Vec<u32> = Vec::new();
    for &c in path.cells[..=end].iter().rev() {
        if runs.last() != Some(&c) {
            runs.push(c);
        }
    }
    let step = |from: u32, to: u32| {
        let ((ax, ay), (bx, by)) = (map.coords(from), map.coords(to));
        (i64::from(bx) - i64::from(ax), i64::from(by) - i64::from(ay))
    };
    (0..runs.len())
        .map(|i| {
            let heading = if i + 1 < runs.len() {
                Some(step(runs[i + 1], runs[i]))
            } else if i > 0 {
                Some(step(runs[i], runs[i - 1]))
            } else {
                None
            };
            Trace { cell: runs[i], heading, back: i as u32 }
        })
        .collect()
}

/// Adds to `out` the free cells whose centres lie within `r` cells of the
/// centre of `at` and not ahead of it along `heading` (the whole disc without one).
fn half_disc(map: &Bitmap, at: u32, heading: Option<(i64, i64)>, r: f64, out: &mut Vec<u32>) {
    let (px, py) = map.coords(at);
    let (px, py) = (i64::from(px), i64::from(py));
    let reach = r.floor() as i64;
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            let (x, y) = (px + dx, py + dy);
            let behind = heading.is_none_or(|(mx, my)| dx * mx + dy * my <= 0);
            let inside = x >= 0 && y >= 0 && x < i64::from(map.nx) && y < i64::from(map.ny);
            if behind && inside && ((dx * dx + dy * dy) as f64) <= r * r {
                let c = map.index(x as u32, y as u32);
                if map.is_free(c) {
                    out.push(c);
                }
            }
        }
    }
}

/// Crowd shape estimation (§5.2) for a leader at tick `t` of `path`: half
/// discs of radius `D` (each limited to DM at its centre, in metres) behind
/// the leader (opposite its last move), swept back along the path's distinct
/// cells until the region holds `n_f · spacing²` of area.
///
/// The depth is the length, in moves (ticks at the speed bound), of the
/// stretch of the trace behind the leader that the region covers: at least
/// back to the earliest swept cell, and in open space, where the first half
/// disc holds everyone, the trace along its axis (the path segment other
/// crowds must not cut through). A wait does not lengthen it.
pub fn crowd_region(map: &Bitmap, dm: &[u32], path: &TimedPath, t: u32, followers: u32, spacing: f64) -> Region {
    let need = f64::from(followers) * spacing * spacing;
    let area = map.cell * map.cell;
    let d = half_disc_radius(followers, spacing) / map.cell;
    let trace = trace_back(map, path, t);
    let mut cells: Vec<u32> = Vec::new();
    let mut swept = 0;
    for step in &trace {
        if cells.len() as f64 * area >= need {
            break;
        }
        // The limit of §5.2: no wider than the distance to the nearest obstacle.
        half_disc(map, step.cell, step.heading, d.min(f64::from(dm[step.cell as usize])), &mut cells);
        cells.sort_unstable();
        cells.dedup();
        swept = step.back;
    }
    let covered = trace.iter().take_while(|s| cells.binary_search(&s.cell).is_ok()).last().map_or(0, |s| s.back);
    Region { cells, depth: swept.max(covered) }
}

/// The depth of a path at every tick of it (for a [`Mover`]).
pub fn depths(map: &Bitmap, dm: &[u32], path: &TimedPath, followers: u32, spacing: f64) -> Vec<u32> {
    (0..path.cells.len() as u32)
        .map(|k| crowd_region(map, dm, path, path.start + k, followers, spacing).depth)
        .collect()
}

/// `l_c` for the crowd under planning (§5.3: a fixed value proportional to
/// the followers, its past trace being unknown during the search): the depth,
/// in ticks, of [`crowd_region`] in open space along a straight line.
pub fn open_depth(followers: u32, spacing: f64, cell: f64) -> u32 {
    if !(cell.is_finite() && cell > 0.0) {
        return 0;
    }
    let d = half_disc_radius(followers, spacing) / cell;
    if !d.is_finite() {
        return 0;
    }
    // A straight trace east along the middle row of an open bitmap wide
    // enough that DM never limits D; longer until the region is full.
    let margin = d.ceil() as u32 + 2;
    let mut len = 2 * margin + 8;
    loop {
        let (nx, ny) = (len + 2 * margin, 2 * margin + 1);
        let map = Bitmap { nx, ny, cell, origin: Vec2::ZERO, free: vec![true; nx as usize * ny as usize] };
        let dm = distance_map(&map);
        let path = TimedPath { start: 0, cells: (0..len).map(|k| map.index(margin + k, margin)).collect() };
        let region = crowd_region(&map, &dm, &path, len - 1, followers, spacing);
        if region.cells.len() as f64 * cell * cell >= f64::from(followers) * spacing * spacing || len > 1 << 20 {
            return region.depth;
        }
        len *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Rect, Shape, World};
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn open(nx: usize, ny: usize) -> Bitmap {
        let row = ".".repeat(nx);
        Bitmap::from_rows(&vec![row.as_str(); ny], 1.0)
    }

    /// A slow reference for NF1: relax every free cell from its neighbours until nothing changes.
    fn relaxed_distance(map: &Bitmap, goal: u32) -> Vec<u32> {
        let mut d = vec![UNREACHABLE; map.len()];
        if map.is_free(goal) {
            d[goal as usize] = 0;
        }
        loop {
            let mut changed = false;
            for c in 0..map.len() as u32 {
                if !map.is_free(c) {
                    continue;
                }
                let best = map.neighbours(c).filter(|&n| d[n as usize] != UNREACHABLE).map(|n| d[n as usize] + 1).min();
                if let Some(b) = best {
                    if b < d[c as usize] {
                        d[c as usize] = b;
                        changed = true;
                    }
                }
            }
            if !changed {
                return d;
            }
        }
    }

    fn random_map(rng: &mut ChaCha8Rng, nx: usize, ny: usize, blocked_percent: u32) -> Bitmap {
        let rows: Vec<String> = (0..ny)
            .map(|_| (0..nx).map(|_| if rng.next_u32() % 100 < blocked_percent { '#' } else { '.' }).collect())
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        Bitmap::from_rows(&rows, 1.0)
    }

    fn pick_free(rng: &mut ChaCha8Rng, map: &Bitmap) -> Option<u32> {
        let free: Vec<u32> = (0..map.len() as u32).filter(|&c| map.is_free(c)).collect();
        (!free.is_empty()).then(|| free[rng.next_u32() as usize % free.len()])
    }

    fn request(start: u32, goal: u32, t0: u32, depth: u32, clearance: f64) -> Request {
        Request { start, goal, t0, depth, clearance }
    }

    /// Plans with both checks, asserts they agree, the plan is legal and the
    /// search stayed within its bound; returns the result.
    fn plan_both(map: &Bitmap, movers: &[Mover], req: &Request) -> Result<Found, NoPath> {
        let potential = nf1(map, req.goal);
        let pairwise = plan(map, &potential, movers, req, Check::Pairwise);
        let extended = plan(map, &potential, movers, req, Check::Extended);
        assert_eq!(pairwise, extended, "the two checks disagree on {req:?}");
        let bound = states(map, movers, req);
        match &extended {
            Ok(found) => {
                if let Err(e) = legal(map, movers, req, &found.path) {
                    panic!("an illegal plan for {req:?}: {e}\n{:?}", found.path);
                }
                assert!(found.expansions <= bound, "{} expansions, bound {bound}", found.expansions);
            }
            Err(none) => {
                assert!(none.expansions <= bound, "{} expansions, bound {bound}", none.expansions);
                assert_eq!(none.horizon, t_static(movers, req) + map.free_cells());
            }
        }
        extended
    }

    #[test]
    fn nf1_on_an_empty_map_is_the_l1_distance() {
        let map = open(9, 7);
        let goal = map.index(6, 2);
        let d = nf1(&map, goal);
        for c in 0..map.len() as u32 {
            let (x, y) = map.coords(c);
            assert_eq!(d[c as usize], x.abs_diff(6) + y.abs_diff(2), "cell ({x}, {y})");
        }
    }

    #[test]
    fn nf1_is_the_wavefront_distance_with_obstacles_and_has_no_local_minima() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut unreachable_seen = 0;
        for _ in 0..60 {
            let (nx, ny) = (4 + rng.next_u32() as usize % 12, 3 + rng.next_u32() as usize % 10);
            let map = random_map(&mut rng, nx, ny, 30);
            let Some(goal) = pick_free(&mut rng, &map) else { continue };
            let d = nf1(&map, goal);
            assert_eq!(d, relaxed_distance(&map, goal));
            for c in 0..map.len() as u32 {
                let v = d[c as usize];
                if c == goal {
                    assert_eq!(v, 0);
                } else if v == UNREACHABLE {
                    unreachable_seen += 1;
                } else {
                    assert!(v > 0, "only the goal is 0");
                    assert!(map.neighbours(c).any(|n| d[n as usize] == v - 1), "cell {c} is a local minimum");
                }
                if !map.is_free(c) {
                    assert_eq!(v, UNREACHABLE, "a blocked cell is unreachable, never 0");
                }
            }
        }
        assert!(unreachable_seen > 0, "the maps had unreachable cells");
        // A blocked goal: nothing is reachable.
        let map = Bitmap::from_rows(&["..", ".#"], 1.0);
        assert!(nf1(&map, map.index(1, 0)).iter().all(|&v| v == UNREACHABLE));
    }

    #[test]
    fn the_l1_distance_map_by_hand() {
        let map = Bitmap::from_rows(&["......", "......", "...#..", "......", "......"], 1.0);
        let dm = distance_map(&map);
        #[rustfmt::skip]
        let want: [[u32; 6]; 5] = [
            [1, 1, 1, 1, 1, 1],
            [1, 2, 2, 1, 2, 1],
            [1, 2, 1, 0, 1, 1],
            [1, 2, 2, 1, 2, 1],
            [1, 1, 1, 1, 1, 1],
        ];
        for (i, row) in want.iter().enumerate() {
            let y = 4 - i as u32;
            for (x, &w) in row.iter().enumerate() {
                assert_eq!(dm[map.index(x as u32, y) as usize], w, "cell ({x}, {y})");
            }
        }
        // Deep inside an open map the distance to the edge counts.
        let dm = distance_map(&open(9, 9));
        assert_eq!(dm[open(9, 9).index(4, 4) as usize], 5);
    }

    #[test]
    fn bitmap_rows_cells_and_points() {
        let map = Bitmap::from_rows(&["#..", "...", "..#", "..."], 0.5);
        assert_eq!((map.nx, map.ny, map.len(), map.free_cells()), (3, 4, 12, 10));
        assert!(!map.is_free(map.index(0, 3)) && !map.is_free(map.index(2, 1)));
        assert_eq!(map.coords(map.index(2, 3)), (2, 3));
        assert_eq!(map.centre(map.index(1, 2)), Vec2::new(0.75, 1.25));
        assert_eq!(map.cell_of(Vec2::new(0.75, 1.25)), Some(map.index(1, 2)));
        assert_eq!(map.cell_of(Vec2::new(1.5, 2.0)), Some(map.index(2, 3)), "the far edges belong to the last cells");
        assert_eq!(map.cell_of(Vec2::new(-0.1, 1.0)), None);
        assert_eq!(map.cell_of(Vec2::new(f64::NAN, 1.0)), None);
        // On the blocked corner: the nearest free centres are (0.25, 1.25) and (0.75, 1.75); the lower index wins.
        assert_eq!(map.nearest_free(Vec2::new(0.25, 1.75)), Some(map.index(0, 2)));
        assert_eq!(map.nearest_free(Vec2::new(1.3, 0.7)), Some(map.index(2, 0)));
    }

    #[test]
    fn a_bitmap_of_a_world_grows_obstacles_by_the_radius() {
        let bounds = Rect { min: Vec2::new(0.0, 0.0), max: Vec2::new(10.0, 5.0) };
        let wall = Shape::Rect(Rect { min: Vec2::new(4.0, 0.0), max: Vec2::new(5.0, 3.0) });
        let space = Walkable::new(&World::bare(bounds, vec![wall]), 1.0);
        let map = Bitmap::new(&space, 20, 20, 0.3);
        // 0.5 m cells: 20 across, only 10 up the 5 m.
        assert_eq!((map.nx, map.ny, map.cell), (20, 10, 0.5));
        let at = |x: f64, y: f64| map.is_free(map.cell_of(Vec2::new(x, y)).unwrap());
        assert!(!at(4.5, 1.0), "inside the wall");
        assert!(!at(3.75, 1.0) && !at(5.25, 1.0), "a centre 0.25 m from the wall: within the radius");
        assert!(at(3.25, 1.0) && at(4.5, 3.75), "0.75 m clear");
        assert!(!at(4.5, 3.25), "0.25 m above the wall");
        assert!(!at(0.25, 0.25) && at(0.75, 0.75), "the bounds are grown too");
    }

    #[test]
    fn segments_cross_only_free_cells() {
        let map = Bitmap::from_rows(&[".....", "..#..", ".....", "....."], 1.0);
        let p = |x: f64, y: f64| Vec2::new(x, y);
        assert!(map.segment_free(p(0.5, 0.5), p(4.5, 0.5)));
        assert!(!map.segment_free(p(0.5, 2.5), p(4.5, 2.5)), "through the blocked cell");
        assert!(map.segment_free(p(0.5, 3.5), p(4.5, 3.5)));
        assert!(!map.segment_free(p(2.5, 0.5), p(2.5, 3.9)));
        assert!(map.segment_free(p(0.2, 0.2), p(4.8, 1.9)), "a shallow diagonal below it");
        assert!(!map.segment_free(p(1.0, 1.0), p(3.0, 3.0)), "exactly through a corner of the blocked cell");
        assert!(!map.segment_free(p(0.5, 0.5), p(5.5, 0.5)), "an end outside");
        assert!(!map.segment_free(p(2.5, 2.5), p(2.5, 2.5)), "a point in a blocked cell");
        // Along a diagonal of free cells in both directions.
        for (a, b) in [(p(0.5, 0.5), p(1.5, 3.5)), (p(4.5, 3.5), p(3.5, 0.5))] {
            assert!(map.segment_free(a, b) && map.segment_free(b, a));
        }
    }

    #[test]
    fn the_half_disc_radius_holds_the_followers() {
        let d = half_disc_radius(6, 1.0);
        assert!((PI * d * d / 2.0 - 6.0).abs() < 1e-12);
        assert!((half_disc_radius(6, 0.5) - d / 2.0).abs() < 1e-15);
        assert_eq!(half_disc_radius(0, 1.0), 0.0);
        assert!(half_disc_radius(24, 1.0) > half_disc_radius(6, 1.0));
    }

    /// A leader walking east along row `y` from `x0` to `x1`, one cell a tick from tick 0.
    fn east(map: &Bitmap, y: u32, x0: u32, x1: u32) -> TimedPath {
        TimedPath { start: 0, cells: (x0..=x1).map(|x| map.index(x, y)).collect() }
    }

    #[test]
    fn in_open_space_the_region_is_a_half_disc_behind_the_leader() {
        let map = open(40, 21);
        let dm = distance_map(&map);
        let path = east(&map, 10, 2, 30);
        let t = path.finish();
        let (followers, spacing) = (6, 1.0);
        let region = crowd_region(&map, &dm, &path, t, followers, spacing);
        let d = half_disc_radius(followers, spacing);
        let leader = map.centre(path.at(t));
        assert!(region.cells.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        assert!(region.cells.len() as f64 >= 6.0, "it holds the followers");
        for &c in &region.cells {
            let q = map.centre(c);
            assert!(q.x <= leader.x && q.distance(leader) <= d, "cell {c} at {q} is not in the half disc behind");
        }
        // One half disc was enough, and its axis covers the trace within D behind.
        assert_eq!(region.depth, d.floor() as u32);
        assert_eq!(open_depth(followers, spacing, 1.0), region.depth);
        // Before the leader ever moved: a full disc around it, depth 0.
        let still = crowd_region(&map, &dm, &TimedPath::stationary(map.index(20, 10), 0), 5, followers, spacing);
        assert!(still.cells.iter().any(|&c| map.coords(c).0 > 20) && still.cells.iter().any(|&c| map.coords(c).0 < 20));
        assert_eq!(still.depth, 0);
        // No followers: no region.
        assert_eq!(crowd_region(&map, &dm, &path, t, 0, spacing), Region { cells: vec![], depth: 0 });
    }

    #[test]
    fn near_a_wall_the_radius_is_limited_and_the_region_sweeps_further_back() {
        // A corridor three cells wide: DM is at most 2 in it.
        let mut rows = vec!["#".repeat(60)];
        rows.extend((0..3).map(|_| format!("#{}#", ".".repeat(58))));
        rows.push("#".repeat(60));
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let corridor = Bitmap::from_rows(&rows, 1.0);
        let dm = distance_map(&corridor);
        let path = east(&corridor, 2, 1, 50);
        let t = path.finish();
        let (followers, spacing) = (12, 1.0);
        let region = crowd_region(&corridor, &dm, &path, t, followers, spacing);
        let wide =
            crowd_region(&open(80, 41), &distance_map(&open(80, 41)), &east(&open(80, 41), 20, 1, 50), t, 12, 1.0);
        assert!(region.cells.len() >= 12 && wide.cells.len() >= 12);
        assert!(region.cells.iter().all(|&c| corridor.is_free(c)));
        assert!(region.depth > wide.depth + 1, "corridor {} vs open {}", region.depth, wide.depth);
        // Twelve cells in a corridor three wide: about four columns behind the leader.
        let leader_x = corridor.coords(path.at(t)).0;
        let back = region.cells.iter().map(|&c| leader_x - corridor.coords(c).0).max().unwrap();
        assert!((3..=5).contains(&back), "reaches {back} columns back");
        // The depth grows with the followers, in the corridor and in the open.
        for (map, path) in [(&corridor, &path), (&open(80, 41), &east(&open(80, 41), 20, 1, 60))] {
            let dm = distance_map(map);
            let by: Vec<u32> =
                [2, 6, 12, 24, 48].iter().map(|&n| crowd_region(map, &dm, path, path.finish(), n, 1.0).depth).collect();
            assert!(by.windows(2).all(|w| w[0] <= w[1]) && by[4] > by[0], "{by:?}");
        }
        let open_by: Vec<u32> = [1, 6, 24, 96].iter().map(|&n| open_depth(n, 1.0, 0.4)).collect();
        assert!(open_by.windows(2).all(|w| w[0] < w[1]), "{open_by:?}");
        assert_eq!(open_depth(0, 1.0, 0.4), 0);
    }

    #[test]
    fn depths_follow_the_path_and_ignore_waits() {
        let map = open(30, 15);
        let dm = distance_map(&map);
        let mut path = east(&map, 7, 2, 20);
        // Wait five ticks in the middle.
        let mid = path.cells[8];
        path.cells.splice(8..8, [mid; 5]);
        let d = depths(&map, &dm, &path, 6, 1.0);
        assert_eq!(d.len(), path.cells.len());
        assert_eq!(d[0], 0, "it has not moved yet");
        let full = open_depth(6, 1.0, 1.0);
        assert_eq!(*d.last().unwrap(), full);
        // During the wait the depth stays what it was on arrival.
        assert!(d[8..=13].iter().all(|&x| x == d[8]), "{d:?}");
    }

    #[test]
    fn timed_paths_and_movers_by_hand() {
        let path = TimedPath { start: 3, cells: vec![5, 6, 7] };
        assert_eq!([path.at(0), path.at(3), path.at(4), path.at(5), path.at(99)], [5, 5, 6, 7, 7]);
        assert_eq!(path.finish(), 5);
        assert_eq!(TimedPath::stationary(9, 4).finish(), 4);
        let m = Mover { path, depth: vec![1, 2, 3], width: 0.0 };
        assert_eq!([m.depth_at(2), m.depth_at(3), m.depth_at(5), m.depth_at(50)], [0, 1, 3, 3]);
        assert_eq!(Mover { depth: vec![], ..m.clone() }.depth_at(4), 0);
        // On a 1 m map with clearance 1.2: its own cell and the four neighbours.
        let map = open(10, 2);
        let m =
            Mover { path: TimedPath { start: 3, cells: vec![2, 3, 4, 5, 6, 7, 8] }, depth: vec![0, 2, 0], width: 0.0 };
        assert!(m.blocks(&map, 2, 0, 1.2) && m.blocks(&map, 12, 0, 1.2) && !m.blocks(&map, 13, 0, 1.2));
        // At cell 3 at tick 4 with depth 2: the circle stays until tick 6.
        assert!(m.blocks(&map, 3, 6, 1.2) && !m.blocks(&map, 3, 7, 1.2));
        assert!(m.blocks(&map, 2, 6, 1.2), "within the clearance of cell 3");
        // Cell 1 only while the leader stood at cell 2 with depth 0.
        assert!(m.blocks(&map, 1, 3, 1.2) && !m.blocks(&map, 1, 4, 1.2));
    }

    /// Movers for a random instance: each planned in turn against the earlier
    /// ones (as the model does), with its depths along its path.
    fn random_movers(rng: &mut ChaCha8Rng, map: &Bitmap, count: usize, clearance: f64) -> Vec<Mover> {
        let dm = distance_map(map);
        let mut movers: Vec<Mover> = Vec::new();
        for _ in 0..count {
            let (Some(start), Some(goal)) = (pick_free(rng, map), pick_free(rng, map)) else { break };
            let followers = rng.next_u32() % 5;
            let t0 = rng.next_u32() % 4;
            let req = request(start, goal, t0, open_depth(followers, 1.0, map.cell), clearance);
            // The others stand at their starts while one is planned (the bench's order).
            if let Ok(found) = plan(map, &nf1(map, goal), &movers, &req, Check::Extended) {
                let depth = depths(map, &dm, &found.path, followers, 1.0);
                movers.push(Mover { path: found.path, depth, width: 0.0 });
            }
        }
        movers
    }

    #[test]
    fn both_checks_give_the_same_legal_plans_on_random_instances() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut found, mut refused, mut waited) = (0, 0, 0);
        for case in 0..150 {
            let (nx, ny) = (6 + rng.next_u32() as usize % 9, 5 + rng.next_u32() as usize % 8);
            let map = random_map(&mut rng, nx, ny, 18);
            let clearance = [0.9, 1.5, 2.1][case % 3];
            let count = 1 + rng.next_u32() as usize % 3;
            let movers = random_movers(&mut rng, &map, count, clearance);
            let (Some(start), Some(goal)) = (pick_free(&mut rng, &map), pick_free(&mut rng, &map)) else { continue };
            let req = request(start, goal, rng.next_u32() % 3, rng.next_u32() % 4, clearance);
            match plan_both(&map, &movers, &req) {
                Ok(f) => {
                    found += 1;
                    waited += usize::from(f.path.cells.windows(2).any(|w| w[0] == w[1]));
                    let last = movers.iter().map(|m| m.path.finish()).max().unwrap_or(0);
                    assert!(f.path.finish() >= last, "the goal time is at least every mover's finish");
                }
                Err(_) => refused += 1,
            }
        }
        assert!(found > 60 && refused > 5 && waited > 10, "found {found}, refused {refused}, waited {waited}");
    }

    #[test]
    fn random_walkers_that_ignore_everyone_are_avoided_alike() {
        // Movers that wander through walls and each other: the predicate is all that counts.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut found = 0;
        for _ in 0..60 {
            let map = random_map(&mut rng, 10, 8, 12);
            let movers: Vec<Mover> = (0..1 + rng.next_u32() % 3)
                .map(|_| {
                    let mut c = rng.next_u32() % map.len() as u32;
                    let cells: Vec<u32> = (0..5 + rng.next_u32() % 20)
                        .map(|_| {
                            let ns: Vec<u32> = std::iter::once(c).chain(map.neighbours(c)).collect();
                            c = ns[rng.next_u32() as usize % ns.len()];
                            c
                        })
                        .collect();
                    let depth = (0..cells.len()).map(|_| rng.next_u32() % 4).collect();
                    Mover { path: TimedPath { start: rng.next_u32() % 5, cells }, depth, width: 0.0 }
                })
                .collect();
            let (Some(start), Some(goal)) = (pick_free(&mut rng, &map), pick_free(&mut rng, &map)) else { continue };
            let clearance = if rng.next_u32() % 2 == 0 { 0.9 } else { 1.5 };
            found +=
                usize::from(plan_both(&map, &movers, &request(start, goal, 2, rng.next_u32() % 3, clearance)).is_ok());
        }
        assert!(found > 20, "found {found}");
    }

    #[test]
    fn a_walled_off_goal_has_no_path_within_the_bound() {
        let map = Bitmap::from_rows(&["......#..", "......#..", "......###", "........."], 1.0);
        let (start, goal) = (map.index(0, 0), map.index(8, 3));
        let mover = Mover { path: east(&map, 0, 0, 5), depth: vec![2; 6], width: 0.0 };
        let req = request(start, goal, 0, 2, 1.5);
        let none = plan_both(&map, std::slice::from_ref(&mover), &req).unwrap_err();
        // NF1 knows the goal is cut off: not a single state is taken.
        assert_eq!(none.expansions, 1);
        assert_eq!(none.horizon, t_static(std::slice::from_ref(&mover), &req) + map.free_cells());
    }

    #[test]
    fn a_goal_a_mover_finished_on_has_no_path_within_the_bound() {
        let map = open(8, 6);
        let goal = map.index(5, 3);
        let mover = Mover {
            path: TimedPath { start: 0, cells: vec![map.index(2, 3), map.index(3, 3), map.index(4, 3), goal] },
            depth: vec![],
            width: 0.0,
        };
        let req = request(map.index(0, 0), goal, 0, 1, 1.5);
        let bound = states(&map, std::slice::from_ref(&mover), &req);
        let none = plan_both(&map, std::slice::from_ref(&mover), &req).unwrap_err();
        assert!(none.expansions > 0 && none.expansions <= bound, "{} of {bound}", none.expansions);
        // Every free state the leader can reach was tried before giving up.
        assert!(none.expansions >= u64::from(map.free_cells()) - 5, "{}", none.expansions);
    }

    #[test]
    fn a_leader_waits_for_a_mover_through_a_narrow_passage() {
        // Li et al. Fig 4: leader 1 comes through the gap first; leader 2,
        // going the other way, waits until it is through.
        let rows =
            ["...........", "...........", "...........", "#####.#####", "...........", "...........", "..........."];
        let map = Bitmap::from_rows(&rows, 1.0);
        let gap = map.index(5, 3);
        let (one_start, one_goal) = (map.index(5, 4), map.index(10, 0));
        let (two_start, two_goal) = (map.index(5, 0), map.index(0, 6));
        let clearance = 1.5;
        // Leader 2 stands at its start while leader 1 is planned.
        let stand = Mover { path: TimedPath::stationary(two_start, 0), depth: vec![], width: 0.0 };
        let one =
            plan_both(&map, std::slice::from_ref(&stand), &request(one_start, one_goal, 0, 0, clearance)).unwrap();
        let one = one.path;
        assert!(one.cells.contains(&gap));
        let movers = [Mover { path: one.clone(), depth: vec![], width: 0.0 }];
        let two = plan_both(&map, &movers, &request(two_start, two_goal, 0, 0, clearance)).unwrap().path;
        let through = two.cells.iter().position(|&c| c == gap).expect("leader 2 goes through the gap");
        let one_left = one.cells.iter().rposition(|&c| c == gap).unwrap();
        assert!(through > one_left, "leader 2 is in the gap at tick {through}, leader 1 left it at {one_left}");
        assert!(
            two.cells[..through].windows(2).any(|w| w[0] == w[1]),
            "leader 2 waits before the gap: {:?}",
            two.cells
        );
        let alone = plan_both(&map, &[], &request(two_start, two_goal, 0, 0, clearance)).unwrap().path;
        assert!(two.finish() > alone.finish(), "{} vs {} alone", two.finish(), alone.finish());
        assert!(two.finish() > one.finish(), "no wait at the goal was needed: the wait is the passage's");
    }

    #[test]
    fn a_detour_that_comes_back_next_to_where_it_began_becomes_a_wait() {
        let map = open(6, 1);
        let mut path = TimedPath { start: 10, cells: vec![0, 1, 2, 1, 0, 1, 2, 3] };
        unloop(&map, &mut path, |_, _| true, |_, _, _| false);
        assert_eq!(path.cells, [0, 0, 0, 0, 0, 1, 2, 3]);
        // Cell 0 taken at tick 13: it waits at 0 while it can, then at 1.
        let mut path = TimedPath { start: 10, cells: vec![0, 1, 2, 1, 0, 1, 2, 3] };
        unloop(&map, &mut path, |c, t| !(c == 0 && t == 13), |_, _, _| false);
        assert_eq!(path.cells, [0, 0, 0, 1, 1, 1, 2, 3]);
        // Going on early and waiting at the end is no detour.
        let mut path = TimedPath { start: 0, cells: vec![0, 1, 2, 2, 2, 2] };
        unloop(&map, &mut path, |_, _| true, |_, _, _| false);
        assert_eq!(path.cells, [0, 1, 2, 2, 2, 2]);
    }

    #[test]
    fn the_goal_time_is_at_least_every_movers_finish() {
        let map = open(12, 8);
        // A mover far away that walks for 20 ticks; the leader's own trip is 3 moves.
        let far: Vec<u32> = (0..21).map(|k| map.index(k % 11, 7 - (k / 11))).collect();
        let movers = [Mover { path: TimedPath { start: 0, cells: far }, depth: vec![1], width: 0.0 }];
        let req = request(map.index(0, 0), map.index(3, 0), 0, 1, 1.5);
        let found = plan_both(&map, &movers, &req).unwrap();
        assert_eq!(found.path.finish(), 20, "it waits at the goal until the mover is done: {:?}", found.path.cells);
        assert_eq!(found.path.cells[3..], [map.index(3, 0); 18]);
        // Alone, it is there in 3 ticks; standing on the goal already, at once.
        assert_eq!(plan_both(&map, &[], &req).unwrap().path.finish(), 3);
        let there = plan_both(&map, &[], &request(req.goal, req.goal, 4, 0, 1.5)).unwrap();
        assert_eq!((there.path, there.expansions), (TimedPath::stationary(req.goal, 4), 0));
    }

    #[test]
    fn the_own_depth_keeps_the_leader_further_from_a_crossing_crowd() {
        // A mover coming down column 7 from tick 6: alone, the leader dashes
        // across its way first; with a crowd behind it (own depth 6) it may
        // not stand where the mover will be within 6 ticks, and must let it pass.
        let map = open(15, 15);
        let cross: Vec<u32> = (0..15).map(|y| map.index(7, 14 - y)).collect();
        let movers = [Mover { path: TimedPath { start: 6, cells: cross }, depth: vec![2; 15], width: 0.0 }];
        let (start, goal) = (map.index(0, 8), map.index(14, 8));
        let alone = plan_both(&map, &movers, &request(start, goal, 0, 0, 1.5)).unwrap().path;
        let crowd = plan_both(&map, &movers, &request(start, goal, 0, 6, 1.5)).unwrap().path;
        assert_ne!(alone, crowd);
        let cross_at = |p: &TimedPath| p.cells.iter().position(|&c| map.coords(c).0 == 7).unwrap();
        assert!(cross_at(&crowd) > cross_at(&alone) + 6, "{:?} vs {:?}", crowd.cells, alone.cells);
        // The leader-only plan cuts through the crowd's future: illegal with the depth.
        assert!(legal(&map, &movers, &request(start, goal, 0, 6, 1.5), &alone).is_err());
    }

    #[test]
    fn the_checker_names_what_a_plan_breaks() {
        let map = Bitmap::from_rows(&[".....", "..#..", "....."], 1.0);
        let req = request(map.index(0, 0), map.index(4, 0), 0, 0, 0.9);
        let ok = TimedPath { start: 0, cells: (0..5).map(|x| map.index(x, 0)).collect() };
        assert_eq!(legal(&map, &[], &req, &ok), Ok(()));
        let err = |p: &TimedPath, movers: &[Mover]| legal(&map, movers, &req, p).unwrap_err();
        let jump =
            TimedPath { start: 0, cells: vec![map.index(0, 0), map.index(2, 0), map.index(3, 0), map.index(4, 0)] };
        assert!(err(&jump, &[]).contains("neither a wait"));
        let late = TimedPath { start: 1, ..ok.clone() };
        assert!(err(&late, &[]).contains("starts at"));
        let wall =
            TimedPath { start: 0, cells: vec![map.index(0, 0), map.index(1, 0), map.index(1, 1), map.index(2, 1)] };
        assert!(err(&wall, &[]).contains("blocked in the bitmap"));
        let short = TimedPath { start: 0, cells: ok.cells[..4].to_vec() };
        assert!(err(&short, &[]).contains("not at the goal"));
        // A mover coming the other way along the row: they swap between ticks 1 and 2 (clearance < a cell).
        let cells = vec![map.index(3, 0), map.index(2, 0), map.index(1, 0), map.index(1, 1)];
        let back = Mover { path: TimedPath { start: 0, cells }, depth: vec![], width: 0.0 };
        assert!(
            err(&ok, std::slice::from_ref(&back)).contains("swaps with mover 0"),
            "{}",
            err(&ok, std::slice::from_ref(&back))
        );
        // One standing on the row: a vertex conflict.
        let stand = Mover { path: TimedPath::stationary(map.index(3, 0), 0), depth: vec![], width: 0.0 };
        assert!(err(&ok, std::slice::from_ref(&stand)).contains("tick 3, cell 3: mover 0 blocks it"));
        // One that finishes after the plan.
        let slow = Mover { path: TimedPath { start: 0, cells: vec![map.index(0, 2); 9] }, depth: vec![], width: 0.0 };
        assert!(err(&ok, std::slice::from_ref(&slow)).contains("before mover 0"));
        // The planner avoids the swap: both checks, legal.
        let found = plan_both(&map, std::slice::from_ref(&back), &req).unwrap();
        assert_ne!(found.path, ok);
    }

    #[test]
    fn a_plan_does_not_depend_on_the_plans_before_it_on_its_thread() {
        let mut rng = ChaCha8Rng::seed_from_u64(23);
        let instances: Vec<(Bitmap, Vec<Mover>, Request)> = (0..30)
            .map(|k| {
                let (nx, ny) = (5 + k % 11, 4 + (k * 7) % 9);
                let map = random_map(&mut rng, nx, ny, 15);
                let movers = random_movers(&mut rng, &map, 2, 1.5);
                let (start, goal) = (pick_free(&mut rng, &map).unwrap_or(0), pick_free(&mut rng, &map).unwrap_or(0));
                let req = request(start, goal, k as u32 % 3, k as u32 % 4, 1.5);
                (map, movers, req)
            })
            .collect();
        let run = |(map, movers, req): &(Bitmap, Vec<Mover>, Request), check| {
            plan(map, &nf1(map, req.goal), movers, req, check)
        };
        // Each on a fresh thread, then all in a row on this one, in both orders of the checks.
        let fresh: Vec<_> = instances
            .iter()
            .map(|i| std::thread::scope(|s| s.spawn(|| run(i, Check::Extended)).join().unwrap()))
            .collect();
        for check in [Check::Extended, Check::Pairwise, Check::Extended] {
            for (i, want) in instances.iter().zip(&fresh) {
                assert_eq!(&run(i, check), want);
            }
        }
    }
}
