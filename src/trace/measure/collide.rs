//! Collisions between agents and intrusions into obstacles, counted as events.
//!
//! Two bodies collide when their centres are closer than the sum of their
//! radii by more than [`OVERLAP_EPS`] (1 mm: bodies held at contact by
//! distance enforcement do not count). A pair's contact that starts in a frame
//! (the pair did not overlap in the previous frame, or one of them did not
//! exist yet) is one collision event, however long it lasts. Obstacle
//! intrusions are counted the same way per (agent, obstacle).

use crate::ir::{Obstacle, Rect, Vec2};
use crate::world::geometry::{bounding_box, contains, points_box, signed_distance};
use crate::world::grid::Grid;

use super::load::Trace;

/// Overlaps shallower than this are contact, not collision, m: distance
/// enforcement leaves bodies pressed together a few micrometres inside
/// `t_min`, which is touching, not colliding.
pub const OVERLAP_EPS: f64 = 1e-3;

/// The pairs of discs that overlap: `(i, j, depth)` with `i < j` (indices
/// into the slices) and `depth = r_i + r_j - |p_i - p_j|`, sorted by `(i, j)`.
pub fn overlapping_pairs(pos: &[Vec2], radius: &[f64]) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    if pos.len() < 2 {
        return out;
    }
    let max_r = radius.iter().copied().fold(0.0, f64::max);
    if max_r <= 0.0 {
        return out;
    }
    let mut grid = Grid::new(points_box(pos), 2.0 * max_r, (pos.len() as u64 * 4).max(64));
    grid.rebuild(pos);
    for (i, p) in pos.iter().enumerate() {
        let ri = radius[i];
        grid.for_each_candidate(*p, ri + max_r, |j| {
            let j = j as usize;
            if j <= i {
                return;
            }
            let depth = ri + radius[j] - p.distance(pos[j]);
            if depth > OVERLAP_EPS {
                out.push((i as u32, j as u32, depth));
            }
        });
    }
    out.sort_by_key(|&(i, j, _)| (i, j));
    out
}

/// Where and when something first happened.
#[derive(Clone, Debug, PartialEq)]
pub struct First {
    pub t: f64,
    pub frame: usize,
    pub a: u32,
    /// The other agent's id, or the obstacle's index.
    pub b: u32,
}

/// Agent-agent collisions over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collisions {
    /// Contacts that started (each pair's contact counts once while it lasts).
    pub events: u64,
    /// Distinct pairs that ever overlapped.
    pub pairs: u64,
    /// Σ over frames of the overlapping pairs.
    pub pair_frames: u64,
    /// The deepest overlap, m (0 without any).
    pub max_depth: f64,
    pub first: Option<First>,
    /// Per frame: overlapping pairs, and how many of them started there.
    pub per_frame: Vec<(u32, u32)>,
}

/// Collisions over every frame of `trace`; `radius` is per row.
pub fn collisions(trace: &Trace, radius: &[f64]) -> Collisions {
    collisions_among(trace, radius, &|_| true)
}

/// Collisions between the rows `keep` accepts (the agents of one
/// population, say), counted as [`collisions`] counts them all.
pub fn collisions_among(trace: &Trace, radius: &[f64], keep: &dyn Fn(usize) -> bool) -> Collisions {
    let mut out = Collisions::default();
    let mut previous: Vec<(u32, u32)> = Vec::new();
    let mut started: Vec<(u32, u32)> = Vec::new();
    let (mut rows, mut pos, mut rad) = (Vec::new(), Vec::new(), Vec::new());
    for (k, f) in trace.frames.iter().enumerate() {
        rows.clear();
        rows.extend(f.rows.clone().filter(|&r| keep(r)));
        pos.clear();
        pos.extend(rows.iter().map(|&r| trace.pos[r]));
        rad.clear();
        rad.extend(rows.iter().map(|&r| radius[r]));
        let pairs = overlapping_pairs(&pos, &rad);
        let mut now: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
        let mut new = 0u32;
        for &(i, j, depth) in &pairs {
            let key = (trace.id[rows[i as usize]], trace.id[rows[j as usize]]);
            out.max_depth = out.max_depth.max(depth);
            if previous.binary_search(&key).is_err() {
                new += 1;
                started.push(key);
                if out.first.is_none() {
                    out.first = Some(First { t: f.t, frame: k, a: key.0, b: key.1 });
                }
            }
            now.push(key);
        }
        // Ids increase with rows within a frame, so `now` is sorted.
        out.events += u64::from(new);
        out.pair_frames += now.len() as u64;
        out.per_frame.push((now.len() as u32, new));
        previous = now;
    }
    started.sort_unstable();
    started.dedup();
    out.pairs = started.len() as u64;
    out
}

/// Agent-obstacle intrusions over a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Intrusions {
    /// Body-obstacle overlaps that started (one per agent and obstacle while it lasts).
    pub events: u64,
    /// Σ over frames of the agents overlapping an obstacle.
    pub agent_frames: u64,
    /// Σ over frames of the agents whose centre is inside an obstacle (what
    /// the expectation `nobody inside obstacles` checks).
    pub centre_inside: u64,
    /// The deepest overlap, m.
    pub max_depth: f64,
    /// The smallest gap between a body's edge and an obstacle over the run,
    /// m (negative: the body overlaps it); `None` without obstacles or agents.
    pub min_clearance: Option<f64>,
    /// `b` is the obstacle's index.
    pub first: Option<First>,
    /// The first centre inside an obstacle.
    pub first_inside: Option<First>,
}

/// Obstacles with their bounding boxes, for the gaps of bodies to them.
pub struct Walls<'a> {
    obstacles: &'a [Obstacle],
    boxes: Vec<Rect>,
}

impl<'a> Walls<'a> {
    pub fn new(obstacles: &'a [Obstacle]) -> Walls<'a> {
        Walls { obstacles, boxes: obstacles.iter().map(|o| bounding_box(&o.shape)).collect() }
    }

    /// The gap between the edge of a body at `p` of radius `r` and obstacle
    /// `o` (negative: they overlap), unless the body is clear of it by at
    /// least `bound`: a box is never farther than its shape, so a body that
    /// far from the box can neither touch the shape nor come closer.
    pub fn gap_below(&self, o: usize, p: Vec2, r: f64, bound: Option<f64>) -> Option<f64> {
        let beyond_box = box_distance(&self.boxes[o], p) - r;
        if beyond_box > 0.0 && bound.is_some_and(|b| beyond_box >= b) {
            return None;
        }
        Some(signed_distance(&self.obstacles[o].shape, p) - r)
    }

    /// The smallest gap of the bodies at `rows` to obstacle `only` (or to
    /// every obstacle): `(gap, row, obstacle)`, `None` without rows or obstacles.
    pub fn closest(
        &self,
        pos: &[Vec2],
        radius: &[f64],
        rows: &[usize],
        only: Option<usize>,
    ) -> Option<(f64, usize, usize)> {
        let obstacles = match only {
            Some(o) => o..o + 1,
            None => 0..self.obstacles.len(),
        };
        let mut best: Option<(f64, usize, usize)> = None;
        for &r in rows {
            for o in obstacles.clone() {
                if let Some(gap) = self.gap_below(o, pos[r], radius[r], best.map(|b| b.0)) {
                    if best.is_none_or(|b| gap < b.0) {
                        best = Some((gap, r, o));
                    }
                }
            }
        }
        best
    }
}

/// Intrusions into `obstacles` over every frame; `radius` is per row.
pub fn intrusions(trace: &Trace, radius: &[f64], obstacles: &[Obstacle]) -> Intrusions {
    let mut out = Intrusions::default();
    let walls = Walls::new(obstacles);
    let mut previous: Vec<(u32, u32)> = Vec::new();
    for (k, f) in trace.frames.iter().enumerate() {
        let mut now: Vec<(u32, u32)> = Vec::new();
        for r in f.rows.clone() {
            let p = trace.pos[r];
            let mut overlapping = false;
            let mut inside = false;
            for (o, ob) in obstacles.iter().enumerate() {
                let Some(gap) = walls.gap_below(o, p, radius[r], out.min_clearance) else { continue };
                out.min_clearance = Some(out.min_clearance.map_or(gap, |c| c.min(gap)));
                if contains(&ob.shape, p) {
                    inside = true;
                    if out.first_inside.is_none() {
                        out.first_inside = Some(First { t: f.t, frame: k, a: trace.id[r], b: o as u32 });
                    }
                }
                let depth = -gap;
                if depth > OVERLAP_EPS {
                    overlapping = true;
                    out.max_depth = out.max_depth.max(depth);
                    let key = (trace.id[r], o as u32);
                    if previous.binary_search(&key).is_err() {
                        out.events += 1;
                        if out.first.is_none() {
                            out.first = Some(First { t: f.t, frame: k, a: key.0, b: key.1 });
                        }
                    }
                    now.push(key);
                }
            }
            out.agent_frames += u64::from(overlapping);
            out.centre_inside += u64::from(inside);
        }
        previous = now;
    }
    out
}

/// Distance from `p` to the rectangle (0 inside it).
fn box_distance(b: &Rect, p: Vec2) -> f64 {
    let d = (b.min - p).max(p - b.max).max(Vec2::ZERO);
    d.length()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniforms in `[0, 1)` by xorshift, for test scenes.
    fn uniform(mut s: u64) -> impl FnMut() -> f64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn overlaps_match_a_brute_force() {
        let mut next = uniform(99);
        let pos: Vec<Vec2> = (0..400).map(|_| Vec2::new(next() * 20.0, next() * 10.0)).collect();
        let radius: Vec<f64> = (0..400).map(|_| 0.1 + next() * 0.3).collect();
        let got: Vec<(u32, u32)> = overlapping_pairs(&pos, &radius).iter().map(|&(i, j, _)| (i, j)).collect();
        let mut want = Vec::new();
        for i in 0..pos.len() {
            for j in i + 1..pos.len() {
                if radius[i] + radius[j] - pos[i].distance(pos[j]) > OVERLAP_EPS {
                    want.push((i as u32, j as u32));
                }
            }
        }
        assert!(!want.is_empty());
        assert_eq!(got, want);
    }

    #[test]
    fn the_closest_gap_matches_a_brute_force() {
        use crate::ir::Shape;
        let mut next = uniform(7);
        let shapes = [
            Shape::Rect(Rect { min: Vec2::new(2.0, 2.0), max: Vec2::new(4.0, 3.0) }),
            Shape::Circle { center: Vec2::new(12.0, 6.0), radius: 1.5 },
            Shape::Polyline { points: vec![Vec2::new(6.0, 8.0), Vec2::new(9.0, 8.0), Vec2::new(9.0, 4.0)], width: 0.3 },
        ];
        let obstacles: Vec<Obstacle> =
            shapes.into_iter().enumerate().map(|(i, shape)| Obstacle { name: format!("o{i}"), shape }).collect();
        let walls = Walls::new(&obstacles);
        for _ in 0..200 {
            let pos: Vec<Vec2> = (0..30).map(|_| Vec2::new(next() * 16.0, next() * 10.0)).collect();
            let radius: Vec<f64> = (0..30).map(|_| 0.1 + next() * 0.3).collect();
            let rows: Vec<usize> = (0..30).collect();
            for only in [None, Some(1)] {
                let (gap, r, o) = walls.closest(&pos, &radius, &rows, only).expect("bodies and obstacles");
                let mut want = f64::INFINITY;
                for &k in &rows {
                    for (j, ob) in obstacles.iter().enumerate() {
                        if only.is_none_or(|x| x == j) {
                            want = want.min(signed_distance(&ob.shape, pos[k]) - radius[k]);
                        }
                    }
                }
                assert_eq!(gap, want);
                assert_eq!(gap, signed_distance(&obstacles[o].shape, pos[r]) - radius[r]);
            }
        }
    }
}
