//! The BVP planner's potential (Silveira, Prestes, Nedel 2008, Eqs 1–3,
//! `src/plan/bvp.rs`): sweeps and wall time to relax open maps of 20², 64²,
//! 128² and 256² cells (a wall around them, three obstacles, one goal cell),
//! by the paper's lexicographic Gauss-Seidel (the baseline) and by red-black
//! SOR, in the same run:
//!
//! - cold: from the paper's start (`p = 0.9` up to 25², 0.97 above) to a
//!   relative residual of 1e-6;
//! - warm: the relaxed map slid by one cell over the world (`slide`, walls
//!   set again), relaxed again to 1e-6, against the same slid map cold;
//! - true error: sweeps until `max |q − q_ref| < 1e-3`, `q_ref` the map
//!   relaxed by SOR to 1e-10 (counted in steps of 1/64 of the sweeps done so far,
//!   so within 2%). 1e-10 bounds the reference's own error by `R² · 1e-10`
//!   (`src/plan/bvp.rs`), under 1e-5 on 256²; SOR's rounding keeps the
//!   relative residual of a 256² map above about 5e-12.
//!
//! The bar: SOR takes at most 1/4 of Gauss-Seidel's sweeps at 64² and
//! 1/10 at 128², and its sweeps grow about linearly with the side. Last, the
//! largest map relaxed by SOR with its rows split over a pool of 1 and of 2
//! threads, interleaved in pairs (`support/pairs.rs`): the same bits, and the
//! speed-up within each pair.
//!
//! `cargo bench --bench bvp` (optionally `CROWD_BENCH_RUNS=N`, default 3,
//! the best time of N counts; `CROWD_BENCH_PAIRS=N`, default 5;
//! `CROWD_BENCH_GS_CAP=N`, default 40000: Gauss-Seidel stops there and
//! the row says so).

use std::time::{Duration, Instant};

use crowd::plan::bvp::{Bias, Cell, Method, Potential, Relax, Relaxed};

#[path = "support/pairs.rs"]
mod pairs;
#[path = "support/settings.rs"]
mod settings;

use pairs::{median, Pairs};
use settings::setting;

const SIZES: [usize; 4] = [20, 64, 128, 256];
const TOLERANCE: f64 = 1e-6;
const TRUE_ERROR: f64 = 1e-3;
const REFERENCE: f64 = 1e-10;
const METHODS: [Method; 2] = [Method::GaussSeidel, Method::RedBlackSor];

/// The `n × n` map whose south row is row `y0` of the world: the map's edge
/// is wall (as a group map's border), the world holds three obstacles and a
/// goal cell, all scaled with `n`.
fn window(n: usize, y0: usize) -> Potential {
    let p0 = if n <= 25 { 0.9 } else { 0.97 };
    let obstacle = |x: usize, y: usize| {
        let inside = |x0: usize, x1: usize, y0: usize, y1: usize| (x0..=x1).contains(&x) && (y0..=y1).contains(&y);
        inside(n / 5, n / 5 + n / 10, n / 4, n / 2)
            || inside(n / 2, n / 2 + n / 8, n / 5, n / 5 + n / 10)
            || inside(n / 3, 2 * n / 3, 2 * n / 3, 2 * n / 3 + n / 20)
    };
    let goal = (4 * n / 5, 3 * n / 5);
    let mut g = Potential::new(n, n, p0);
    for j in 0..n {
        for i in 0..n {
            let (x, y) = (i, j + y0);
            if i == 0 || j == 0 || i == n - 1 || j == n - 1 || obstacle(x, y) {
                g.set(i, j, Cell::Wall);
            } else if (x, y) == goal {
                g.set(i, j, Cell::Goal);
            }
        }
    }
    g
}

/// Sets on `g` every wall and goal of `like` (after a slide, which frees all).
fn set_like(g: &mut Potential, like: &Potential) {
    for j in 0..like.ny() {
        for i in 0..like.nx() {
            if like.cell(i, j) != Cell::Free {
                g.set(i, j, like.cell(i, j));
            }
        }
    }
}

fn relax(method: Method, tolerance: f64, max_sweeps: u32) -> Relax {
    Relax { method, tolerance, max_sweeps, parallel: false }
}

/// The best time of `runs` relaxations of copies of `g`, and what the last did.
fn timed(g: &Potential, r: Relax, runs: usize) -> (Duration, Relaxed, Potential) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let mut h = g.clone();
        let t0 = Instant::now();
        let done = h.relax(Bias::NONE, r);
        best = best.min(t0.elapsed());
        last = Some((done, h));
    }
    let (done, h) = last.expect("one run");
    (best, done, h)
}

fn max_error(g: &Potential, reference: &Potential) -> f64 {
    let mut worst: f64 = 0.0;
    for j in 0..g.ny() {
        for i in 0..g.nx() {
            worst = worst.max((g.q(i, j) - reference.q(i, j)).abs());
        }
    }
    worst
}

/// Sweeps from `g` until the largest error against `reference` is below
/// `TRUE_ERROR` (to within 2%), or `None` past `cap`.
fn sweeps_to_true_error(g: &Potential, reference: &Potential, method: Method, cap: u32) -> Option<u32> {
    let mut g = g.clone();
    let mut done = 0;
    while max_error(&g, reference) >= TRUE_ERROR {
        if done >= cap {
            return None;
        }
        let step = (done / 64).max(1);
        done += g.relax(Bias::NONE, relax(method, 0.0, step)).sweeps;
    }
    Some(done)
}

struct Row {
    cold: Relaxed,
    cold_time: Duration,
    warm: Relaxed,
    warm_time: Duration,
    slid_cold: Relaxed,
    to_true_error: Option<u32>,
}

fn name(method: Method) -> &'static str {
    match method {
        Method::GaussSeidel => "Gauss-Seidel",
        Method::RedBlackSor => "red-black SOR",
    }
}

fn sweeps(r: &Relaxed) -> String {
    if r.converged {
        r.sweeps.to_string()
    } else {
        format!(">{}", r.sweeps)
    }
}

fn main() {
    let began = Instant::now();
    let runs: usize = setting("RUNS", 3);
    let n_pairs: usize = setting("PAIRS", 5);
    let gs_cap: u32 = setting("GS_CAP", 40_000);
    println!(
        "relative residual {TOLERANCE:e}, true error {TRUE_ERROR:e}; best of {runs} (one run where Gauss-Seidel \
         takes over a second); Gauss-Seidel capped at {gs_cap} sweeps"
    );
    println!(
        "{:>5} {:>14} {:>8} {:>10} {:>8} {:>10} {:>8} {:>12} {:>10}",
        "map", "method", "cold", "cold ms", "warm", "warm ms", "slid", "to err 1e-3", "ns/cell"
    );
    let mut rows: Vec<(usize, Method, Row)> = Vec::new();
    for n in SIZES {
        let map = window(n, 0);
        let slid_map = window(n, 1);
        let (_, done, reference) = timed(&map, relax(Method::RedBlackSor, REFERENCE, 1_000_000), 1);
        assert!(done.converged, "the {n}² reference: {done:?}");
        for method in METHODS {
            let cap = if method == Method::GaussSeidel { gs_cap } else { 1_000_000 };
            let r = relax(method, TOLERANCE, cap);
            let (probe, _, _) = timed(&map, relax(method, TOLERANCE, 20), 1);
            let slow = probe.as_secs_f64() * f64::from(cap) / 20.0 > 1.0;
            let runs = if slow { 1 } else { runs };
            let (cold_time, cold, relaxed) = timed(&map, r, runs);
            let mut warm_start = relaxed.clone();
            warm_start.slide(0, 1);
            set_like(&mut warm_start, &slid_map);
            let (warm_time, warm, _) = timed(&warm_start, r, runs);
            let (_, slid_cold, _) = timed(&slid_map, r, 1);
            let to_true_error = sweeps_to_true_error(&map, &reference, method, cap);
            let row = Row { cold, cold_time, warm, warm_time, slid_cold, to_true_error };
            let ns_per_cell = row.cold_time.as_secs_f64() * 1e9 / (f64::from(row.cold.sweeps.max(1)) * (n * n) as f64);
            println!(
                "{:>5} {:>14} {:>8} {:>10.2} {:>8} {:>10.2} {:>8} {:>12} {:>10.2}",
                format!("{n}²"),
                name(method),
                sweeps(&row.cold),
                row.cold_time.as_secs_f64() * 1e3,
                sweeps(&row.warm),
                row.warm_time.as_secs_f64() * 1e3,
                sweeps(&row.slid_cold),
                row.to_true_error.map_or(format!(">{cap}"), |s| format!("~{s}")),
                ns_per_cell,
            );
            rows.push((n, method, row));
        }
    }
    println!("(slid: the slid map relaxed cold, for the warm start's gain; ns/cell: cold time per sweep and cell)");

    let row = |n: usize, m: Method| &rows.iter().find(|(k, method, _)| *k == n && *method == m).expect("measured").2;
    println!();
    println!("{:>5} {:>22} {:>24} {:>16}", "map", "SOR/GS sweeps (1e-6)", "SOR/GS sweeps (err 1e-3)", "SOR/GS time");
    for n in SIZES {
        let (gs, sor) = (row(n, Method::GaussSeidel), row(n, Method::RedBlackSor));
        let capped = if gs.cold.converged { "" } else { " (GS capped)" };
        let true_ratio = match (gs.to_true_error, sor.to_true_error) {
            (Some(g), Some(s)) => format!("{:.3}", f64::from(s) / f64::from(g)),
            _ => "GS capped".to_string(),
        };
        println!(
            "{:>5} {:>22} {:>24} {:>16}",
            format!("{n}²"),
            format!("{:.3}{capped}", f64::from(sor.cold.sweeps) / f64::from(gs.cold.sweeps)),
            true_ratio,
            format!("{:.3}", sor.cold_time.as_secs_f64() / gs.cold_time.as_secs_f64()),
        );
    }
    for (n, bar) in [(64, 4.0), (128, 10.0)] {
        let (gs, sor) = (row(n, Method::GaussSeidel), row(n, Method::RedBlackSor));
        let ratio = f64::from(sor.cold.sweeps) / f64::from(gs.cold.sweeps);
        let holds = gs.cold.converged && ratio <= 1.0 / bar;
        println!(
            "bar at {n}²: SOR ≤ 1/{bar} of Gauss-Seidel's sweeps: {ratio:.3} → {}",
            if holds { "holds" } else { "FAILS" }
        );
    }
    for m in METHODS {
        let growth: Vec<String> = SIZES
            .windows(2)
            .map(|w| {
                let (a, b) = (row(w[0], m), row(w[1], m));
                let flag = if b.cold.converged { "" } else { " (capped)" };
                let per_side = f64::from(b.cold.sweeps) / f64::from(a.cold.sweeps) / (w[1] as f64 / w[0] as f64);
                format!("{}²→{}²: ×{:.2} per ×side{flag}", w[0], w[1], per_side)
            })
            .collect();
        println!("{} sweeps / side growth (1 = linear): {}", name(m), growth.join(", "));
    }

    let n = SIZES[SIZES.len() - 1];
    let map = window(n, 0);
    let r = Relax { parallel: true, ..relax(Method::RedBlackSor, TOLERANCE, 1_000_000) };
    let pools: Vec<rayon::ThreadPool> =
        (1..=2).map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("a thread pool")).collect();
    let mut results: [Option<Potential>; 2] = [None, None];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let pairs = Pairs::run(n_pairs, |threads| {
        let (took, done, g) = pools[threads - 1].install(|| timed(&map, r, 1));
        times[threads - 1].push(took.as_secs_f64() * 1e3);
        results[threads - 1] = Some(g);
        f64::from(done.sweeps) / took.as_secs_f64()
    });
    let [one, two] = results.map(|g| g.expect("ran"));
    let same = (0..n).all(|j| (0..n).all(|i| one.q(i, j).to_bits() == two.q(i, j).to_bits()));
    let (mid, lo, hi) = pairs.speed_up();
    println!();
    println!(
        "{n}² red-black SOR, rows over the pool: {:.2} ms on 1 thread, {:.2} ms on 2 (medians of {n_pairs} pairs); \
         speed-up {mid:.2}x (pairs {lo:.2}-{hi:.2}); identical potentials: {}",
        median(&times[0]),
        median(&times[1]),
        if same { "yes" } else { "NO" }
    );
    println!("(the bench took {:.0} s)", began.elapsed().as_secs_f64());
}
