//! Marker generation throughput: 100 m × 100 m at 60 markers per m² (the
//! density the space colonization paper evaluates, Section 6.1), about
//! 600,000 markers, by dart throwing and by jittered grid, measured in the
//! same run so that their ratio holds on a shared machine.
//!
//! `cargo bench --bench markers` (optionally `CROWD_BENCH_RUNS=N`, default 5).
//! Each method runs `N` times, interleaved; the best run counts. Also prints
//! the achieved densities against the request, on the open square and on a
//! square with obstacles.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crowd::ir::{MarkerLayer, MarkerMethod, Markers as MarkerDecl, Rect, Shape, Vec2, World};
use crowd::world::geometry::area;
use crowd::world::markers::{generate, Markers};

#[path = "support/settings.rs"]
mod settings;

use settings::setting;

const SIDE: f64 = 100.0;
const DENSITY: f64 = 60.0;
const SEED: u64 = 7;

fn world(method: MarkerMethod, obstacles: Vec<Shape>) -> World {
    World {
        markers: MarkerDecl {
            base: Some(MarkerLayer { method, density: DENSITY }),
            overrides: vec![],
            estimated_count: (SIDE * SIDE * DENSITY) as u64,
            events: vec![],
        },
        ..World::bare(Rect { min: Vec2::ZERO, max: Vec2::splat(SIDE) }, obstacles)
    }
}

/// A few rooms' worth of obstacles that do not overlap: pillars, boxes and walls.
fn obstacles() -> Vec<Shape> {
    let mut o = vec![];
    for i in 0..5 {
        for j in 0..5 {
            let c = Vec2::new(10.0 + 20.0 * i as f64, 10.0 + 20.0 * j as f64);
            o.push(match (i + j) % 3 {
                0 => Shape::Circle { center: c, radius: 3.0 },
                1 => Shape::Rect(Rect { min: c - Vec2::new(4.0, 2.0), max: c + Vec2::new(4.0, 2.0) }),
                _ => Shape::Polygon(vec![c + Vec2::new(-3.0, -3.0), c + Vec2::new(3.0, -3.0), c + Vec2::new(0.0, 4.0)]),
            });
        }
    }
    o.push(Shape::Polyline { points: vec![Vec2::new(0.0, 50.0), Vec2::new(45.0, 50.0)], width: 0.3 });
    o.push(Shape::Polyline { points: vec![Vec2::new(55.0, 50.0), Vec2::new(100.0, 50.0)], width: 0.3 });
    o
}

fn time(w: &World) -> (Duration, Markers) {
    let t0 = Instant::now();
    let m = generate(black_box(w), SEED);
    (t0.elapsed(), m)
}

fn main() {
    let runs: usize = setting("RUNS", 5).max(1);
    let dart = world(MarkerMethod::DartThrowing, vec![]);
    let jitter = world(MarkerMethod::JitteredGrid, vec![]);
    println!(
        "{SIDE} m × {SIDE} m at {DENSITY} markers/m², {} threads, best of {runs} runs",
        rayon::current_num_threads()
    );
    let (mut best_dart, mut best_jitter) = (Duration::MAX, Duration::MAX);
    let (mut n_dart, mut n_jitter) = (0, 0);
    for _ in 0..runs {
        let (t, m) = time(&dart);
        best_dart = best_dart.min(t);
        n_dart = m.len();
        let (t, m) = time(&jitter);
        best_jitter = best_jitter.min(t);
        n_jitter = m.len();
    }
    println!("{:>14} {:>9} {:>10} {:>13} {:>9}", "method", "markers", "time ms", "markers/s", "density");
    for (name, n, t) in [("dart_throwing", n_dart, best_dart), ("jittered_grid", n_jitter, best_jitter)] {
        println!(
            "{name:>14} {n:>9} {:>10.1} {:>13.3e} {:>9.2}",
            t.as_secs_f64() * 1e3,
            n as f64 / t.as_secs_f64(),
            n as f64 / (SIDE * SIDE)
        );
    }
    println!("dart / jittered time: {:.2}", best_dart.as_secs_f64() / best_jitter.as_secs_f64());

    // Achieved density over walkable space with obstacles (no timing).
    let shapes = obstacles();
    let walkable = SIDE * SIDE - shapes.iter().map(area).sum::<f64>();
    for method in [MarkerMethod::DartThrowing, MarkerMethod::JitteredGrid] {
        let m = generate(&world(method, shapes.clone()), SEED);
        let d = m.len() as f64 / walkable;
        println!(
            "with obstacles, {method:?}: {} markers over {walkable:.1} m², {d:.2} per m² ({:+.2}% of the request)",
            m.len(),
            (d / DENSITY - 1.0) * 100.0
        );
    }
}
