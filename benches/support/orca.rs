//! An ORCA baseline for `crowd_scale`: RVO2's algorithm, through `dodgy_2d`
//! (a Rust port of RVO2's `Agent::computeNewVelocity`), on the layout of the
//! bench's scenario, so that crowd's rate is stated as a ratio of ORCA's
//! measured in the same run on the same machine.
//!
//! Layout, as `scenario()` in `crowd_scale.rs`: `corridors` stacked 40 m × 10 m
//! corridors; in each, 25 agents start in the west 5 m × 8 m region bound for
//! the centre of the east one and 25 the other way, at a preferred 1.2 m/s,
//! and an agent leaves in the step it enters its goal region (`leave via`).
//! Bodies are 0.25 m discs; dt = 1/24 s. Parameters are those of RVO2's
//! examples scaled to people: neighbour distance 5 m, at most 10 neighbours,
//! time horizons of 2 s for agents and for obstacles, maximum speed 1.5 m/s.
//!
//! Walls are ORCA obstacles: each corridor is a closed box listed clockwise
//! (RVO2's way of keeping agents inside an area), its faces where the
//! scenario's 0.2 m walls and the world's bounds are. As RVO2 does, an agent
//! considers obstacles only within 2 s × 1.5 m/s + 0.25 m; within that reach
//! of any wall it is handed its corridor's box. It takes neighbours only from
//! its own corridor: nobody behind a wall can be met, and RVO2's query, which
//! does not test visibility, would spend neighbour slots on them.
//!
//! Neighbours come from `crowd::world::grid::Grid`, rebuilt every step,
//! keeping the 10 nearest within 5 m, nearest first, as RVO2's
//! `insertAgentNeighbor` does. A step computes every agent's new velocity
//! from the snapshot (rayon over agents on 2 threads, a plain loop on 1),
//! then moves everyone.
//!
//! `dodgy_2d` computes in f32, as RVO2 does. Positions are kept in f64 and
//! handed to it relative to the agent's corridor, so that f32 still resolves
//! millimetres 20 km up the stack of 2,000 corridors at 100,000 agents.

use std::borrow::Cow;
use std::time::Instant;

use crowd::ir::{Rect, Vec2};
use crowd::sim;
use crowd::world::grid::Grid;
use dodgy_2d::{Agent, AvoidanceOptions, Obstacle, Vec2 as Vec2f};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

const LENGTH: f64 = 40.0;
const WIDTH: f64 = 10.0;
/// Half the thickness of a wall between two corridors.
const HALF_WALL: f64 = 0.1;
const PER_SIDE: usize = 25;
const RADIUS: f64 = 0.25;
const PREFERRED_SPEED: f64 = 1.2;
const MAX_SPEED: f32 = 1.5;
const NEIGHBOUR_DISTANCE: f64 = 5.0;
const MAX_NEIGHBOURS: usize = 10;
const TIME_HORIZON: f32 = 2.0;
const OBSTACLE_TIME_HORIZON: f32 = 2.0;
/// RVO2's obstacle range: how far an agent can get within the obstacle horizon, plus its body.
const OBSTACLE_RANGE: f64 = OBSTACLE_TIME_HORIZON as f64 * MAX_SPEED as f64 + RADIUS;
const DT: f64 = 1.0 / 24.0;

const OPTIONS: AvoidanceOptions = AvoidanceOptions {
    obstacle_margin: RADIUS as f32,
    time_horizon: TIME_HORIZON,
    obstacle_time_horizon: OBSTACLE_TIME_HORIZON,
};

/// What one run measured, and what shows that it really simulated a crossing.
pub struct Run {
    pub agent_steps: u64,
    pub secs: f64,
    /// Share of agents that ended (or left) closer to their goal than they started.
    pub progressed: f64,
    /// Mean speed towards the goal over each agent's time in the run, as a
    /// share of the preferred speed.
    pub efficiency: f64,
    /// The smallest distance between two agents' centres at any step (2 × radius is touching).
    pub min_distance: f64,
    /// Share of agent-steps whose nearest neighbour was closer than 99% of 2 × radius.
    pub overlapping: f64,
    /// The smallest distance from an agent's centre to a wall at any step (radius is touching).
    pub min_clearance: f64,
}

struct Walker {
    /// Position (relative to the corridor's corner) and velocity, as ORCA sees them.
    agent: Agent,
    corridor: u32,
    origin: Vec2,
    goal: Vec2,
    goal_region: Rect,
    /// Index into the run's per-agent start distances.
    id: u32,
}

struct Crossing {
    /// World positions, for the grid.
    pos: Vec<Vec2>,
    walkers: Vec<Walker>,
    corridors: u32,
    /// The box of a corridor at the bottom, in the middle, at the top, or of a lone corridor.
    boxes: [Obstacle; 4],
    grid: Grid,
    next: Vec<(Vec2f, f64)>,
}

/// The corridor's box: `bottom` and `top` are its faces above its corner.
fn corridor_box(bottom: f64, top: f64) -> Obstacle {
    // Clockwise, so the solid side faces out and agents are kept in.
    let v = |x: f64, y: f64| Vec2f::new(x as f32, y as f32);
    Obstacle::Closed { vertices: vec![v(0.0, bottom), v(0.0, top), v(LENGTH, top), v(LENGTH, bottom)] }
}

fn faces(corridor: u32, corridors: u32) -> (f64, f64) {
    let bottom = if corridor == 0 { 0.0 } else { HALF_WALL };
    let top = if corridor + 1 == corridors { WIDTH } else { WIDTH - HALF_WALL };
    (bottom, top)
}

fn box_index(corridor: u32, corridors: u32) -> usize {
    usize::from(corridor == 0) + 2 * usize::from(corridor + 1 == corridors)
}

impl Crossing {
    fn new(corridors: usize, seed: u64) -> Crossing {
        let corridors = corridors.max(1) as u32;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let mut pos = Vec::new();
        let mut walkers = Vec::new();
        for k in 0..corridors {
            let origin = Vec2::new(0.0, f64::from(k) * WIDTH);
            let west = Rect { min: origin + Vec2::new(1.0, 1.0), max: origin + Vec2::new(6.0, 9.0) };
            let east = Rect { min: origin + Vec2::new(34.0, 1.0), max: origin + Vec2::new(39.0, 9.0) };
            for (from, to) in [(west, east), (east, west)] {
                // A jittered 5 × 5 lattice of 1 m × 1.6 m cells: seeded, and no two bodies overlap.
                for c in 0..PER_SIDE {
                    let (col, row) = ((c % 5) as f64, (c / 5) as f64);
                    let p = from.min + Vec2::new(0.5 + col + 0.4 * (unit() - 0.5), 0.8 + 1.6 * row + (unit() - 0.5));
                    pos.push(p);
                    walkers.push(Walker {
                        agent: Agent {
                            position: (p - origin).as_vec2(),
                            velocity: Vec2f::ZERO,
                            radius: RADIUS as f32,
                            avoidance_responsibility: 1.0,
                        },
                        corridor: k,
                        origin,
                        goal: (to.min + to.max) / 2.0,
                        goal_region: to,
                        id: walkers.len() as u32,
                    });
                }
            }
        }
        let area = Rect { min: Vec2::ZERO, max: Vec2::new(LENGTH, f64::from(corridors) * WIDTH) };
        // One corridor of each kind, in `box_index` order.
        let boxes = [(1, 3), (0, 3), (2, 3), (0, 1)].map(|(k, n)| {
            let (bottom, top) = faces(k, n);
            corridor_box(bottom, top)
        });
        Crossing {
            pos,
            walkers,
            corridors,
            boxes,
            grid: Grid::new(area, NEIGHBOUR_DISTANCE / 2.0, 1 << 22),
            next: Vec::new(),
        }
    }

    /// Agent `i`'s new velocity, and the squared distance to its nearest
    /// neighbour (infinite without one). `near` and `neighbours` are scratch.
    fn new_velocity<'a>(
        &'a self,
        i: usize,
        near: &mut Vec<(f64, u32)>,
        neighbours: &mut Vec<Cow<'a, Agent>>,
    ) -> (Vec2f, f64) {
        let p = self.pos[i];
        let me = &self.walkers[i];
        near.clear();
        let mut range_sq = NEIGHBOUR_DISTANCE * NEIGHBOUR_DISTANCE;
        self.grid.for_each_near(p, NEIGHBOUR_DISTANCE, |id, q| {
            let d2 = p.distance_squared(q);
            // Walls keep everyone inside their corridor, so `q` tells which one it is in.
            if d2 >= range_sq || id as usize == i || (q.y * (1.0 / WIDTH)) as u32 != me.corridor {
                return;
            }
            // RVO2's insertAgentNeighbor: an insertion sort that, once full,
            // drops the farthest and narrows the range to the new farthest.
            if near.len() < MAX_NEIGHBOURS {
                near.push((d2, id));
            }
            let mut k = near.len() - 1;
            while k > 0 && d2 < near[k - 1].0 {
                near[k] = near[k - 1];
                k -= 1;
            }
            near[k] = (d2, id);
            if near.len() == MAX_NEIGHBOURS {
                range_sq = near[MAX_NEIGHBOURS - 1].0;
            }
        });
        neighbours.clear();
        neighbours.extend(near.iter().map(|&(_, id)| Cow::Borrowed(&self.walkers[id as usize].agent)));
        let local = p - me.origin;
        let (bottom, top) = faces(me.corridor, self.corridors);
        let near_wall = local.x < OBSTACLE_RANGE
            || LENGTH - local.x < OBSTACLE_RANGE
            || local.y - bottom < OBSTACLE_RANGE
            || top - local.y < OBSTACLE_RANGE;
        let walls = [Cow::Borrowed(&self.boxes[box_index(me.corridor, self.corridors)])];
        let obstacles: &[Cow<Obstacle>] = if near_wall { &walls } else { &[] };
        let preferred = ((me.goal - p).normalize_or_zero() * PREFERRED_SPEED).as_vec2();
        let v = me.agent.compute_avoiding_velocity(neighbours, obstacles, preferred, MAX_SPEED, DT as f32, &OPTIONS);
        (v, near.first().map_or(f64::INFINITY, |n| n.0))
    }

    /// One step: new velocities from the snapshot, then moves. Returns the
    /// smallest squared distance between neighbours in the snapshot, the
    /// number of agents overlapping their nearest neighbour by more than 1%,
    /// and the smallest distance from a centre to a wall after the move.
    fn step(&mut self, parallel: bool) -> (f64, usize, f64) {
        let n = self.pos.len();
        self.grid.rebuild(&self.pos);
        let mut next = std::mem::take(&mut self.next);
        let this = &*self;
        if parallel {
            (0..n)
                .into_par_iter()
                .map_init(|| (Vec::new(), Vec::new()), |(near, neighbours), i| this.new_velocity(i, near, neighbours))
                .collect_into_vec(&mut next);
        } else {
            let (mut near, mut neighbours) = (Vec::new(), Vec::new());
            next.clear();
            next.extend((0..n).map(|i| this.new_velocity(i, &mut near, &mut neighbours)));
        }
        // ORCA holds agents in contact to within f32 rounding: count only real overlaps.
        let touching = (0.99 * 2.0 * RADIUS) * (0.99 * 2.0 * RADIUS);
        let mut min_d2 = f64::INFINITY;
        let mut overlapping = 0;
        let mut clearance = f64::INFINITY;
        for ((w, p), &(v, d2)) in self.walkers.iter_mut().zip(&mut self.pos).zip(&next) {
            min_d2 = min_d2.min(d2);
            overlapping += usize::from(d2 < touching);
            *p += v.as_dvec2() * DT;
            w.agent.velocity = v;
            w.agent.position = (*p - w.origin).as_vec2();
            let (bottom, top) = faces(w.corridor, self.corridors);
            let local = *p - w.origin;
            clearance = clearance.min(local.x).min(LENGTH - local.x).min(local.y - bottom).min(top - local.y);
        }
        self.next = next;
        (min_d2, overlapping, clearance)
    }

    /// Removes the agents that entered their goal region, handing each to `left`.
    fn depart(&mut self, mut left: impl FnMut(&Walker, Vec2)) {
        for i in (0..self.pos.len()).rev() {
            if self.walkers[i].goal_region.contains(self.pos[i]) {
                left(&self.walkers[i], self.pos[i]);
                self.walkers.swap_remove(i);
                self.pos.swap_remove(i);
            }
        }
    }
}

/// Runs ORCA on `corridors` corridors for `steps` steps on `threads` threads.
/// Only the steps are timed, not the setup.
pub fn run(corridors: usize, steps: u64, threads: usize) -> Run {
    sim::with_threads(Some(threads), || {
        let mut c = Crossing::new(corridors, 1);
        let start: Vec<f64> = c.walkers.iter().zip(&c.pos).map(|(w, &p)| p.distance(w.goal)).collect();
        let mut progress = vec![0.0; start.len()];
        let mut present = vec![0u64; start.len()];
        let mut agent_steps = 0u64;
        let (mut min_d2, mut overlapping, mut min_clearance) = (f64::INFINITY, 0u64, f64::INFINITY);
        let t0 = Instant::now();
        for s in 0..steps {
            if c.pos.is_empty() {
                break;
            }
            agent_steps += c.pos.len() as u64;
            let (d2, over, clearance) = c.step(threads > 1);
            min_d2 = min_d2.min(d2);
            overlapping += over as u64;
            min_clearance = min_clearance.min(clearance);
            c.depart(|w, p| {
                progress[w.id as usize] = start[w.id as usize] - p.distance(w.goal);
                present[w.id as usize] = s + 1;
            });
        }
        let secs = t0.elapsed().as_secs_f64();
        for (w, &p) in c.walkers.iter().zip(&c.pos) {
            progress[w.id as usize] = start[w.id as usize] - p.distance(w.goal);
            present[w.id as usize] = steps;
        }
        let n = start.len() as f64;
        let efficiency = progress
            .iter()
            .zip(&present)
            .map(|(&d, &s)| if s == 0 { 0.0 } else { d / (s as f64 * DT * PREFERRED_SPEED) })
            .sum::<f64>()
            / n;
        Run {
            agent_steps,
            secs,
            progressed: progress.iter().filter(|&&d| d > 0.0).count() as f64 / n,
            efficiency,
            min_distance: min_d2.sqrt(),
            overlapping: overlapping as f64 / agent_steps.max(1) as f64,
            min_clearance,
        }
    })
    .expect("a thread pool")
}
