//! Continuum crowds (Treuille, Cooper, Popović 2006). The solver part: cells
//! per second of the eikonal solver (`src/plan/eikonal.rs`, fast marching)
//! on 256² and 512² grids of anisotropic face costs (seeded, in [0.5, 5], a
//! few wall blocks, four goal cells), against a plain Dijkstra over the same
//! 4-connected grid (edge weight `h·cost[k][d]`, the same binary heap of
//! `(value, cell)` keys with lazy deletion), in the same run. Marching's
//! potential may cut between the axes but is never above the grid-path
//! distance, and the two reach the same cells: the bench checks both.
//! `main` runs one function per part of the model; the solver's is
//! `solver_bench`.
//!
//! `cargo bench --bench continuum` (optionally `CROWD_BENCH_PAIRS=N`,
//! default 7: N interleaved marching/Dijkstra pairs, each timing several
//! warm solves; the ratio is taken within each pair, because a shared
//! machine's speed drifts). The bar: marching takes at most twice
//! Dijkstra's time (the median ratio); the bench fails otherwise.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use crowd::plan::eikonal::{Grid, Marcher, EAST, NORTH, SOUTH, WEST};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

// Only the ratio and median helpers are used here.
#[allow(dead_code)]
#[path = "support/pairs.rs"]
mod pairs;
#[path = "support/settings.rs"]
mod settings;

use pairs::{median, ratio};
use settings::setting;

const SIZES: [usize; 2] = [256, 512];
const RATIO_BAR: f64 = 2.0;
const INF: f64 = f64::INFINITY;

fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An `n × n` field: each face's cost drawn in [0.5, 5], eight wall blocks
/// of up to a tenth of the side, and four goal cells off the walls.
fn field(n: usize, seed: u64) -> (Grid, Vec<[f64; 4]>, Vec<u32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut cost: Vec<[f64; 4]> = (0..n * n).map(|_| [0.0; 4].map(|_: f64| 0.5 + 4.5 * uniform(&mut rng))).collect();
    for _ in 0..8 {
        let (w, h) =
            (1 + (uniform(&mut rng) * (n / 10) as f64) as usize, 1 + (uniform(&mut rng) * (n / 10) as f64) as usize);
        let (i0, j0) = ((uniform(&mut rng) * (n - w) as f64) as usize, (uniform(&mut rng) * (n - h) as f64) as usize);
        for j in j0..j0 + h {
            for i in i0..i0 + w {
                cost[i + j * n] = [INF; 4];
            }
        }
    }
    let mut goals = Vec::new();
    while goals.len() < 4 {
        let k = (uniform(&mut rng) * (n * n) as f64) as usize;
        if cost[k][0] < INF {
            goals.push(k as u32);
        }
    }
    (Grid { nx: n, ny: n, h: 0.5 }, cost, goals)
}

/// The marcher's heap key: the value's bits ordered as `f64::total_cmp`
/// orders the values, then `j`, then `i`.
fn key(v: f64, i: usize, j: usize) -> u128 {
    let b = v.to_bits();
    let ordered = if b >> 63 == 1 { !b } else { b | 1 << 63 };
    (u128::from(ordered) << 64) | (j as u128) << 32 | i as u128
}

/// Dijkstra's shortest paths to the goals over the grid's 4-connected graph,
/// moving out of cell `k` through face `d` for `h·cost[k][d]`.
#[derive(Default)]
struct Dijkstra {
    heap: BinaryHeap<Reverse<u128>>,
    done: Vec<bool>,
}

impl Dijkstra {
    fn solve(&mut self, grid: Grid, cost: &[[f64; 4]], goals: &[u32], dist: &mut Vec<f64>) {
        let Grid { nx, ny, h } = grid;
        dist.clear();
        dist.resize(nx * ny, INF);
        self.done.clear();
        self.done.resize(nx * ny, false);
        self.heap.clear();
        for &g in goals {
            let g = g as usize;
            dist[g] = 0.0;
            self.heap.push(Reverse(key(0.0, g % nx, g / nx)));
        }
        while let Some(Reverse(e)) = self.heap.pop() {
            let (i, j) = (e as u32 as usize, (e >> 32) as u32 as usize);
            let k = i + j * nx;
            if self.done[k] {
                continue;
            }
            self.done[k] = true;
            let d = dist[k];
            // Cell `(i, j)` reaches `k` through its face `face`.
            let mut relax = |i: usize, j: usize, face: usize| {
                let m = i + j * nx;
                let v = d + h * cost[m][face];
                if v < dist[m] {
                    dist[m] = v;
                    self.heap.push(Reverse(key(v, i, j)));
                }
            };
            if i + 1 < nx {
                relax(i + 1, j, WEST);
            }
            if j + 1 < ny {
                relax(i, j + 1, SOUTH);
            }
            if i > 0 {
                relax(i - 1, j, EAST);
            }
            if j > 0 {
                relax(i, j - 1, NORTH);
            }
        }
    }
}

/// Seconds per solve, the mean of `runs` warm solves.
fn time(runs: usize, mut solve: impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..runs {
        solve();
    }
    t0.elapsed().as_secs_f64() / runs as f64
}

/// The eikonal solver against Dijkstra on the same grids; panics past the bar.
fn solver_bench() {
    let n_pairs: usize = setting("PAIRS", 7);
    println!("eikonal solver: fast marching against Dijkstra on the same grid, {n_pairs} interleaved pairs, medians");
    println!(
        "{:>8} {:>12} {:>14} {:>14} {:>22}",
        "grid", "marching ms", "marching Mc/s", "Dijkstra Mc/s", "marching / Dijkstra"
    );
    let mut failed = Vec::new();
    for n in SIZES {
        let (grid, cost, goals) = field(n, n as u64);
        let cells = (n * n) as f64;
        let runs = (4 << 20) / (n * n);
        let (mut marcher, mut phi) = (Marcher::default(), Vec::new());
        let (mut dijkstra, mut dist) = (Dijkstra::default(), Vec::new());
        // Warm both, and check them against each other: marching may cut corners
        // between the axes, so it is never above the grid-path distance.
        marcher.solve(grid, &cost, &goals, &mut phi);
        dijkstra.solve(grid, &cost, &goals, &mut dist);
        let mut reachable = 0usize;
        let mut shorter = 0.0;
        for (p, d) in phi.iter().zip(&dist) {
            assert_eq!(p.is_finite(), d.is_finite(), "the same cells reachable");
            assert!(p <= d, "marching {p} above Dijkstra's {d}");
            if *d > 0.0 && d.is_finite() {
                reachable += 1;
                shorter += p / d;
            }
        }
        let (mut fmm, mut dij) = (Vec::new(), Vec::new());
        for _ in 0..n_pairs.max(1) {
            fmm.push(time(runs, || marcher.solve(grid, &cost, &goals, &mut phi)));
            dij.push(time(runs, || dijkstra.solve(grid, &cost, &goals, &mut dist)));
        }
        let (r, lo, hi) = ratio(&fmm, &dij);
        println!(
            "{:>8} {:>12.2} {:>14.1} {:>14.1} {:>12.2}x ({lo:.2}-{hi:.2})",
            format!("{n}²"),
            1e3 * median(&fmm),
            cells / median(&fmm) / 1e6,
            cells / median(&dij) / 1e6,
            r
        );
        println!(
            "{:>8} {reachable} reachable cells; marching's potential is {:.3} of Dijkstra's distance on average",
            "",
            shorter / reachable as f64
        );
        if r > RATIO_BAR {
            failed.push(format!(
                "{n}²: marching takes {r:.2}x Dijkstra's time (pairs {lo:.2}-{hi:.2}), above {RATIO_BAR}x"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("; "));
}

fn main() {
    solver_bench();
}
