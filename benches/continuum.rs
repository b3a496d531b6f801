//! Continuum crowds (Treuille, Cooper, Popović 2006), in two parts.
//!
//! The solver part: cells
//! per second of the eikonal solver (`src/plan/eikonal.rs`, fast marching)
//! on 256² and 512² grids of anisotropic face costs (seeded, in [0.5, 5], a
//! few wall blocks, four goal cells), against a plain Dijkstra over the same
//! 4-connected grid (edge weight `h·cost[k][d]`, a four-ary heap of
//! `(value, cell)` keys with lazy deletion, `dary_heap`), in the same run. Marching's
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
//!
//! The crowd part (`crowd_bench`): agent-steps per second of
//! `scenarios/bench/continuum_100k.crowd` (100,000 people in 4 groups on a
//! 256² grid, every potential solved every step) without recording, on 1
//! and 2 threads in interleaved pairs (`CROWD_BENCH_STEPS=N`, default 50;
//! the first `WARM_STEPS` are not timed: the uniform spawn overlaps bodies
//! that the first steps push apart); the peak memory per person of a fresh
//! process; the trace, every step recorded, on 1 and 2 threads. The bars:
//! at least 2 million agent-steps a second on 1 thread, at least 1.6× that
//! on 2, the same trace; the bench fails otherwise.

use dary_heap::QuaternaryHeap;
use std::cmp::Reverse;
use std::time::Instant;

use crowd::diag::SourceFile;
use crowd::hash::Fnv1a64;
use crowd::ir::Program;
use crowd::plan::eikonal::{Grid, Marcher, Order, EAST, NORTH, SOUTH, WEST};
use crowd::sim;
use crowd::trace::csv::CsvWriter;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

#[path = "support/memory.rs"]
mod memory;
#[path = "support/pairs.rs"]
mod pairs;
#[path = "support/settings.rs"]
mod settings;

use memory::{peak_memory, peak_of, MEMORY_OF};
use pairs::{median, ratio, Pairs};
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
    heap: QuaternaryHeap<Reverse<u128>>,
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
        let (mut fmm, mut dij, mut second) = (Vec::new(), Vec::new(), Vec::new());
        let mut marcher2 = Marcher::with_order(Order::Second);
        let mut phi2 = Vec::new();
        for _ in 0..n_pairs.max(1) {
            fmm.push(time(runs, || marcher.solve(grid, &cost, &goals, &mut phi)));
            dij.push(time(runs, || dijkstra.solve(grid, &cost, &goals, &mut dist)));
            second.push(time(runs, || marcher2.solve(grid, &cost, &goals, &mut phi2)));
        }
        let (r, lo, hi) = ratio(&fmm, &dij);
        // The second order, `parameters continuum { order 2 }`: reported, no bar.
        let (r2, lo2, hi2) = ratio(&second, &dij);
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
        println!("{:>8} second order: {r2:.2}x Dijkstra's time ({lo2:.2}-{hi2:.2})", "");
        if r > RATIO_BAR {
            failed.push(format!(
                "{n}²: marching takes {r:.2}x Dijkstra's time (pairs {lo:.2}-{hi:.2}), above {RATIO_BAR}x"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("; "));
}

const CROWD: &str = "scenarios/bench/continuum_100k.crowd";
/// Steps run before the timing starts.
const WARM_STEPS: u64 = 10;
const CROWD_RATE_BAR: f64 = 2.0e6;
const SPEED_UP_BAR: f64 = 1.6;

/// Agent-steps per second of the steps after the first [`WARM_STEPS`], without recording.
fn crowd_rate(program: &Program, threads: usize) -> f64 {
    let run = |steps: u64| {
        let mut p = program.clone();
        p.header.duration = steps as f64 * p.header.dt;
        sim::with_threads(Some(threads), || {
            let mut sink = std::io::sink();
            let mut csv = CsvWriter::new(&mut sink, &sim::labels(&p), &p.output.columns, None).expect("a sink");
            let t0 = Instant::now();
            let outcome = crowd::run(&p, p.header.seed, &mut csv, &mut |_, _| {}).expect("the scenario runs");
            (outcome.agent_steps, (t0.elapsed() - outcome.times.setup).as_secs_f64())
        })
        .expect("a thread pool")
    };
    let steps = (program.header.duration / program.header.dt).round() as u64;
    let (warm_work, warm_secs) = run(WARM_STEPS);
    let (work, secs) = run(WARM_STEPS + steps);
    (work - warm_work) as f64 / (secs - warm_secs)
}

/// The digest and length of the trace of a run recording every step.
fn crowd_trace(program: &Program, threads: usize) -> (u64, u64) {
    sim::with_threads(Some(threads), || {
        let mut digest = Fnv1a64::default();
        {
            let mut csv =
                CsvWriter::new(&mut digest, &sim::labels(program), &program.output.columns, None).expect("a digest");
            crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("the scenario runs");
        }
        (digest.finish(), digest.len())
    })
    .expect("a thread pool")
}

fn crowd_program(steps: u64) -> Program {
    let text = std::fs::read_to_string(CROWD).expect("run from the crate root");
    let compiled =
        crowd::compile(&SourceFile::new(CROWD, text)).unwrap_or_else(|d| panic!("{CROWD} does not compile: {d:?}"));
    let mut program = compiled.program;
    program.header.duration = steps as f64 * program.header.dt;
    program.header.record_every = u32::MAX;
    program
}

fn crowd_bench() {
    let began = Instant::now();
    let steps: u64 = setting("STEPS", 50);
    let n_pairs: usize = setting("PAIRS", 5);
    let program = crowd_program(steps);
    let agents: u32 = program.populations.iter().map(|p| p.max_count()).sum();
    println!(
        "{CROWD}: {agents} people, 4 groups, 256² cells, potentials every step; {steps} steps timed after \
         {WARM_STEPS}, {n_pairs} interleaved 1/2-thread pairs, medians"
    );
    let rates = Pairs::run(n_pairs, |threads| crowd_rate(&program, threads));
    let (one, two) = (median(&rates.one), median(&rates.two));
    let (s, lo, hi) = rates.speed_up();
    println!(
        "agent-steps per second: {one:.3e} on 1 thread, {two:.3e} on 2 threads, speed-up {s:.2}x ({lo:.2}-{hi:.2})"
    );

    let nothing = peak_of("nothing");
    let per = peak_of("crowd").saturating_sub(nothing) as f64 / f64::from(agents);
    println!("peak memory per person (a fresh process's peak over one that only compiles the scenario): {per:.0} B");

    let mut short = program.clone();
    short.header.duration = 20.0 * short.header.dt;
    short.header.record_every = 1;
    let (a, len) = crowd_trace(&short, 1);
    let (b, _) = crowd_trace(&short, 2);
    let same = a == b;
    println!(
        "trace over 20 steps, every step: {len} bytes, FNV-1a {a:016x}; 1 and 2 threads {}",
        if same { "identical" } else { "DIFFER" }
    );
    println!("(the crowd part took {:.1} s)", began.elapsed().as_secs_f64());

    let mut failures = Vec::new();
    if one < CROWD_RATE_BAR {
        failures.push(format!("{one:.3e} agent-steps per second on 1 thread, under the bar of {CROWD_RATE_BAR:.1e}"));
    }
    if s < SPEED_UP_BAR {
        failures.push(format!("a speed-up of {s:.2}x on 2 threads, under the bar of {SPEED_UP_BAR}x"));
    }
    if !same {
        failures.push("the traces on 1 and 2 threads differ".to_string());
    }
    assert!(failures.is_empty(), "the continuum crowd bench fails:\n  {}", failures.join("\n  "));
}

fn main() {
    if let Ok(what) = std::env::var(MEMORY_OF) {
        if what == "crowd" {
            let mut p = crowd_program(WARM_STEPS);
            p.header.record_every = u32::MAX;
            crowd_rate(&p, 1);
        } else {
            drop(crowd_program(1));
        }
        println!("{}", peak_memory());
        return;
    }
    solver_bench();
    crowd_bench();
}
