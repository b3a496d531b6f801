//! A plain uniform-grid boids step, the baseline for the `sim` bench: written
//! as a C++ programmer would write it, straightforward but not careless, so
//! that crowd's rate can be stated as a ratio of it measured in the same run.
//!
//! It is self-contained on purpose (it does not use crowd's grid), so that the
//! baseline does not move when crowd's own code is tuned: arrays of f64
//! positions and velocities, a counting-sort grid of 2 m cells rebuilt every
//! step, and Reynolds' three rules over the 3 × 3 cells around each agent:
//! separation from neighbours within 0.5 m, alignment with and cohesion
//! towards those within 2 m, plus a pull towards the agent's goal at its
//! preferred speed; speeds are clamped to [1.0, 1.4] m/s.
//!
//! The agents and layout are those of `scenarios/bench/straight_10k.crowd`
//! (`run`), or of `scenarios/bench/boids_100k.crowd`, ten times as tall with
//! ten times the agents (`run_scaled`):
//! a 300 m × 60 m world, 5,000 agents spawned in (50..150 m, 0..60 m) heading
//! for (300 m, 30 m) and 5,000 in (100..200 m, 0..60 m) heading for (0 m, 30 m),
//! preferred speeds uniform in [1.0, 1.4] m/s; dt = 1/24 s. A step computes
//! every new velocity from the snapshot (rayon over agents on 2 threads, a
//! plain loop on 1), then moves everyone.

use std::time::Instant;

use crowd::sim;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use rayon::prelude::*;

const WORLD_W: f64 = 300.0;
const WORLD_H: f64 = 60.0;
const PER_BAND: usize = 5000;
const CELL: f64 = 2.0;
const NEIGHBOUR_RADIUS: f64 = 2.0;
const SEPARATION_RADIUS: f64 = 0.5;
const MIN_SPEED: f64 = 1.0;
const MAX_SPEED: f64 = 1.4;
const DT: f64 = 1.0 / 24.0;
/// Weights of the rules, as accelerations: separation per 1/m of summed
/// inverse distance, alignment per m/s of velocity difference, cohesion per m
/// of offset to the neighbours' centre, the goal per m/s short of the
/// preferred velocity.
const W_SEPARATION: f64 = 0.5;
const W_ALIGNMENT: f64 = 0.5;
const W_COHESION: f64 = 0.1;
const W_GOAL: f64 = 2.0;

/// What one run measured, and what shows that the flock really walked.
pub struct Run {
    pub agent_steps: u64,
    pub secs: f64,
    /// Share of agents that ended closer to their goal than they started.
    pub progressed: f64,
    /// Mean speed at the end, m/s.
    pub mean_speed: f64,
}

/// Everything a step reads: the state at `t` and the grid over it.
struct Snapshot {
    px: Vec<f64>,
    py: Vec<f64>,
    vx: Vec<f64>,
    vy: Vec<f64>,
    gx: Vec<f64>,
    gy: Vec<f64>,
    speed: Vec<f64>,
    nx: usize,
    ny: usize,
    /// `items[start[c]..start[c + 1]]` are the agents in cell `c`.
    start: Vec<u32>,
    items: Vec<u32>,
    cell_of: Vec<u32>,
}

struct Flock {
    s: Snapshot,
    nvx: Vec<f64>,
    nvy: Vec<f64>,
}

impl Snapshot {
    #[inline]
    fn cell_x(&self, x: f64) -> usize {
        // Negative and NaN saturate to 0; agents past the edge share the border cells.
        ((x * (1.0 / CELL)) as usize).min(self.nx - 1)
    }

    #[inline]
    fn cell_y(&self, y: f64) -> usize {
        ((y * (1.0 / CELL)) as usize).min(self.ny - 1)
    }

    fn rebuild_grid(&mut self) {
        let n = self.px.len();
        self.start.fill(0);
        for i in 0..n {
            let c = self.cell_y(self.py[i]) * self.nx + self.cell_x(self.px[i]);
            self.cell_of[i] = c as u32;
            self.start[c + 1] += 1;
        }
        for c in 1..self.start.len() {
            self.start[c] += self.start[c - 1];
        }
        // Fill each cell from its start, advancing a cursor per cell.
        let mut cursor = self.start.clone();
        for i in 0..n {
            let c = self.cell_of[i] as usize;
            self.items[cursor[c] as usize] = i as u32;
            cursor[c] += 1;
        }
    }

    /// Agent `i`'s velocity after this step.
    #[inline]
    fn steer(&self, i: usize) -> (f64, f64) {
        let (x, y, vx, vy) = (self.px[i], self.py[i], self.vx[i], self.vy[i]);
        let (cx, cy) = (self.cell_x(x), self.cell_y(y));
        let (mut sep_x, mut sep_y) = (0.0, 0.0);
        let (mut ali_x, mut ali_y) = (0.0, 0.0);
        let (mut coh_x, mut coh_y) = (0.0, 0.0);
        let mut count = 0u32;
        for gy in cy.saturating_sub(1)..=(cy + 1).min(self.ny - 1) {
            for gx in cx.saturating_sub(1)..=(cx + 1).min(self.nx - 1) {
                let c = gy * self.nx + gx;
                for &j in &self.items[self.start[c] as usize..self.start[c + 1] as usize] {
                    let j = j as usize;
                    if j == i {
                        continue;
                    }
                    let dx = self.px[j] - x;
                    let dy = self.py[j] - y;
                    let d2 = dx * dx + dy * dy;
                    if d2 >= NEIGHBOUR_RADIUS * NEIGHBOUR_RADIUS {
                        continue;
                    }
                    ali_x += self.vx[j];
                    ali_y += self.vy[j];
                    coh_x += dx;
                    coh_y += dy;
                    count += 1;
                    if d2 < SEPARATION_RADIUS * SEPARATION_RADIUS && d2 > 0.0 {
                        sep_x -= dx / d2;
                        sep_y -= dy / d2;
                    }
                }
            }
        }
        let (gdx, gdy) = (self.gx[i] - x, self.gy[i] - y);
        let g = (gdx * gdx + gdy * gdy).sqrt().max(1e-9);
        let (want_x, want_y) = (gdx / g * self.speed[i], gdy / g * self.speed[i]);
        let mut ax = W_SEPARATION * sep_x + W_GOAL * (want_x - vx);
        let mut ay = W_SEPARATION * sep_y + W_GOAL * (want_y - vy);
        if count > 0 {
            let k = 1.0 / f64::from(count);
            ax += W_ALIGNMENT * (ali_x * k - vx) + W_COHESION * coh_x * k;
            ay += W_ALIGNMENT * (ali_y * k - vy) + W_COHESION * coh_y * k;
        }
        let (mut nx, mut ny) = (vx + ax * DT, vy + ay * DT);
        let s = (nx * nx + ny * ny).sqrt();
        if s < 1e-9 {
            return (want_x, want_y);
        }
        let clamped = s.clamp(MIN_SPEED, MAX_SPEED);
        nx *= clamped / s;
        ny *= clamped / s;
        (nx, ny)
    }
}

impl Flock {
    /// The layout, `scale` times as tall with `scale` times the agents.
    fn new(seed: u64, scale: usize) -> Flock {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let (per_band, height) = (PER_BAND * scale, WORLD_H * scale as f64);
        let n = 2 * per_band;
        let nx = (WORLD_W / CELL).ceil() as usize;
        let ny = (height / CELL).ceil() as usize;
        let mut s = Snapshot {
            px: Vec::with_capacity(n),
            py: Vec::with_capacity(n),
            vx: Vec::with_capacity(n),
            vy: Vec::with_capacity(n),
            gx: Vec::with_capacity(n),
            gy: Vec::with_capacity(n),
            speed: Vec::with_capacity(n),
            nx,
            ny,
            start: vec![0; nx * ny + 1],
            items: vec![0; n],
            cell_of: vec![0; n],
        };
        for (x0, goal_x) in [(50.0, WORLD_W), (100.0, 0.0)] {
            for _ in 0..per_band {
                let (x, y) = (x0 + 100.0 * unit(), height * unit());
                let speed = MIN_SPEED + (MAX_SPEED - MIN_SPEED) * unit();
                let (dx, dy) = (goal_x - x, height / 2.0 - y);
                let d = (dx * dx + dy * dy).sqrt();
                s.px.push(x);
                s.py.push(y);
                s.vx.push(dx / d * speed);
                s.vy.push(dy / d * speed);
                s.gx.push(goal_x);
                s.gy.push(height / 2.0);
                s.speed.push(speed);
            }
        }
        Flock { s, nvx: vec![0.0; n], nvy: vec![0.0; n] }
    }

    fn step(&mut self, parallel: bool) {
        self.s.rebuild_grid();
        let s = &self.s;
        if parallel {
            self.nvx.par_iter_mut().zip(self.nvy.par_iter_mut()).enumerate().for_each(|(i, (vx, vy))| {
                (*vx, *vy) = s.steer(i);
            });
        } else {
            for i in 0..s.px.len() {
                (self.nvx[i], self.nvy[i]) = s.steer(i);
            }
        }
        std::mem::swap(&mut self.s.vx, &mut self.nvx);
        std::mem::swap(&mut self.s.vy, &mut self.nvy);
        let s = &mut self.s;
        for i in 0..s.px.len() {
            s.px[i] += s.vx[i] * DT;
            s.py[i] += s.vy[i] * DT;
        }
    }

    fn goal_distance(&self, i: usize) -> f64 {
        let s = &self.s;
        let (dx, dy) = (s.gx[i] - s.px[i], s.gy[i] - s.py[i]);
        (dx * dx + dy * dy).sqrt()
    }
}

/// Runs the flock for `steps` steps on `threads` threads. Only the steps are
/// timed, not the setup.
#[allow(dead_code)] // each bench uses one of the two
pub fn run(steps: u64, threads: usize) -> Run {
    run_scaled(steps, threads, 1)
}

/// [`run`] on the layout `scale` times as tall, with `scale` times the agents.
#[allow(dead_code)]
pub fn run_scaled(steps: u64, threads: usize, scale: usize) -> Run {
    sim::with_threads(Some(threads), || {
        let mut flock = Flock::new(1, scale);
        let n = flock.s.px.len();
        let start: Vec<f64> = (0..n).map(|i| flock.goal_distance(i)).collect();
        let t0 = Instant::now();
        for _ in 0..steps {
            flock.step(threads > 1);
        }
        let secs = t0.elapsed().as_secs_f64();
        let progressed = (0..n).filter(|&i| flock.goal_distance(i) < start[i]).count();
        let s = &flock.s;
        let speed: f64 = (0..n).map(|i| (s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i]).sqrt()).sum();
        Run {
            agent_steps: n as u64 * steps,
            secs,
            progressed: progressed as f64 / n as f64,
            mean_speed: speed / n as f64,
        }
    })
    .expect("a thread pool")
}
