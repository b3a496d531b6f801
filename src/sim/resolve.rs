//! Phase 8, resolve: minimum-distance enforcement over the moved positions.
//!
//! Invariants: each sweep computes the pushes of the agents it visits from
//! the same positions (Jacobi), in parallel, and applies them afterwards, so
//! the result depends neither on the order of the visits nor on the thread;
//! an agent's push is summed over its neighbours in the order the sweeps'
//! grid files them, so its last bits depend on when that grid was rebuilt
//! (a function of the positions alone, the same on every run); a sweep visits
//! the agents the previous one moved, or pushed while still too close, and
//! their neighbours (the others' pushes are what they were: zero, or lost to
//! rounding); sweeps after the first are over-relaxed
//! ([`OMEGA`]); the sweeps stop when no pair of taking-part agents
//! is closer than its distance by more than [`TOLERANCE`], or after
//! [`MAX_SWEEPS`]; obstacles and bounds win over other bodies (each pushed
//! position is projected back into walkable space).

use std::sync::atomic::{AtomicU32, Ordering};

use super::scene::Scene;
use super::workers::{Workers, CHUNK};
use crate::ir::Vec2;
use crate::steer::enforce::{separation, Bodies};
use crate::world::grid::Grid;

/// A shortfall below this fraction of `t_min` counts as enforced (0.5 mm
/// for half-metre bodies: below what `crowd metrics` counts as a collision).
const TOLERANCE: f64 = 1e-3;
/// Over-relaxation of the sweeps after the first (successive over-relaxation
/// converges for `0 < ω < 2`): in a packed crowd each sweep moves a push one
/// body further, and plain sweeps need several times as many to settle it.
/// The first sweep is not over-relaxed, so an isolated pair ends exactly its
/// distance apart instead of bouncing off.
const OMEGA: f64 = 1.9;
/// Sweeps per step at most: what a jam leaves is taken up in the next step.
const MAX_SWEEPS: u32 = 64;

/// Sweep buffers, grown once and reused.
#[derive(Default)]
pub(super) struct Sweeps {
    /// The places in the grid's order of the agents a sweep visits, their
    /// pushes and shortfalls, and where the pushes take them.
    visit: Vec<usize>,
    push: Vec<Vec2>,
    worst: Vec<f64>,
    to: Vec<Vec2>,
    /// By place: the sweep that last listed it in `visit`.
    listed: Vec<AtomicU32>,
    /// Where the last sweep pushed its agents to (read in sweep order, not
    /// by slot: a slot's position is a cache miss in a large crowd).
    pushed: Vec<Vec2>,
    /// Per chunk of `pushed`: the places found near them.
    found: Vec<Vec<usize>>,
    /// Indexes the positions being pushed (the scene's grid indexes the
    /// snapshot); its points are kept where the sweeps put them.
    grid: Option<Grid>,
}

/// Pushes the agents of `next` whose `takes_part` entry is true apart until
/// every pair is at least `max(t_min, r_i + r_j)` apart. Whether any moved.
///
/// The sweeps visit agents in the grid's cell order and read positions from
/// the grid, so neighbours are read in sequence; the pushes do not depend
/// on the order.
pub(super) fn enforce(
    scene: &Scene,
    workers: &Workers,
    next: &mut [Vec2],
    takes_part: &[bool],
    buf: &mut Sweeps,
) -> bool {
    let n = next.len();
    let t_min = scene.min_distance;
    let reach = t_min.max(2.0 * scene.max_radius);
    // A shortfall up to this counts as enforced: the sweeps stop on it, and a
    // body short by no more brings nobody into the next sweep.
    let enforced = TOLERANCE * t_min;
    let Sweeps { visit, push, worst, to, listed, pushed, found, grid } = buf;
    if takes_part.iter().filter(|&&t| t).nth(1).is_none() {
        return false;
    }
    let grid = grid.get_or_insert_with(|| scene.grid.clone());
    grid.rebuild(next);
    visit.clear();
    visit.extend((0..n).filter(|&k| takes_part[grid.order()[k] as usize]));
    listed.clear();
    listed.resize_with(n, AtomicU32::default);
    // How far any point may be from where the grid put it.
    let mut drift = 0.0;
    let mut moved = false;
    for sweep in 1..=MAX_SWEEPS {
        let omega = if sweep == 1 { 1.0 } else { OMEGA };
        // Grown, never cut: every entry a sweep reads it writes first, and
        // zeroing the first sweep's 100,000 of them each step is not free.
        let m = visit.len();
        if push.len() < m {
            push.resize(m, Vec2::ZERO);
            worst.resize(m, 0.0);
            to.resize(m, Vec2::ZERO);
        }
        let (push, worst, to) = (&mut push[..m], &mut worst[..m], &mut to[..m]);
        let (index, visiting): (&Grid, &[usize]) = (grid, visit);
        let bodies = Bodies { radius: &scene.agents.radius, movable: takes_part, ids: &scene.agents.id };
        let chunks: Vec<_> = push.chunks_mut(CHUNK).zip(worst.chunks_mut(CHUNK)).zip(to.chunks_mut(CHUNK)).collect();
        workers.for_each(chunks, |k, ((push, worst), to)| {
            for j in 0..push.len() {
                let at = visiting[k * CHUNK + j];
                let (i, p) = (index.order()[at] as usize, index.point_at(at));
                (push[j], worst[j]) = separation(i, p, &bodies, index, t_min, reach + 2.0 * drift);
                if push[j] != Vec2::ZERO {
                    to[j] = scene.space.project(p + push[j] * omega, p, scene.agents.radius[i]);
                }
            }
        });
        if worst.iter().all(|&w| w <= enforced) {
            break;
        }
        moved = true;
        let mut largest: f64 = 0.0;
        pushed.clear();
        for (k, &at) in visit.iter().enumerate() {
            // A push lost to rounding moves nobody, and its neighbours' pushes
            // stay what they were: unless still too close, it brings none in.
            if push[k] != Vec2::ZERO && (to[k] != grid.point_at(at) || worst[k] > enforced) {
                let i = grid.order()[at] as usize;
                largest = largest.max(to[k].distance(grid.point_at(at)));
                next[i] = to[k];
                grid.move_point(at, to[k]);
                pushed.push(to[k]);
            }
        }
        drift += largest;
        if drift > 0.25 * grid.cell_size() {
            grid.rebuild(next);
            drift = 0.0;
        }
        // The next sweep visits the pushed agents and whoever they may now
        // touch. A chunk lists a place unless some chunk marked it this sweep
        // already; two chunks racing may both list it (a plain load and
        // store, not a locked swap for every neighbour found), and the dedup
        // after the sort leaves it once.
        let (index, near) = (&*grid, reach + 2.0 * drift);
        found.resize_with(pushed.len().div_ceil(CHUNK), Vec::new);
        let chunks: Vec<_> = pushed.chunks(CHUNK).zip(found.iter_mut()).collect();
        workers.for_each(chunks, |_, (pushed, found)| {
            found.clear();
            for &p in pushed {
                index.for_each_placed(p, near, |at, j, _| {
                    let mark = &listed[at];
                    if takes_part[j as usize] && mark.load(Ordering::Relaxed) != sweep {
                        mark.store(sweep, Ordering::Relaxed);
                        found.push(at);
                    }
                });
            }
        });
        visit.clear();
        for f in found.iter() {
            visit.extend_from_slice(f);
        }
        // Cell order, so each sweep's chunks are the same whatever found them first.
        visit.sort_unstable();
        visit.dedup();
    }
    moved
}
