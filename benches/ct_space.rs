//! The leader-follower planner's CT-space search (Li, Jeng, Chang 2002, §5.4
//! and Table 1, `src/plan/ct_space.rs`): planning time with the
//! straightforward pairwise collision checks against the extended CT-space,
//! on five 128 × 128 bitmaps (0.4 m cells, a 51.2 m square, by default) with two crowds
//! of six followers, as in the paper's table:
//!
//! - crowd 1 is planned first, crowd 2's leader standing at its start;
//! - crowd 2 is planned against crowd 1's path, with crowd 1's depths along
//!   it (`depths`), its own depth the open-space one (`open_depth`);
//! - as the model plans crowd-aware leaders: leader clearance
//!   `√((2 · 0.3)² + cell²)` plus the own crowd's half-disc radius `D`, the
//!   other crowd `D` wider (six followers 1 m apart: `D` = 1.95 m).
//!
//! A case's time is the two `plan` calls (NF1 and the depths are the same for
//! both checks, timed apart). The bench stops, naming the case, when a path is
//! illegal, when the two checks give different paths, when an extended plan
//! takes 50 ms or more, or when the average ratio is under 5 (the paper saw
//! about 14: 5720 ms → 396 ms).
//!
//! `cargo bench --bench ct_space` (optionally `CROWD_BENCH_RUNS=N`, default 5:
//! the best time of N counts; `CROWD_BENCH_WORLD=M`, default 51.2: the side of
//! the world in metres, the cases scaled to it; `CROWD_BENCH_SPACING=M`,
//! default 1: the followers' spacing; `CROWD_BENCH_FOLLOWERS=N`, default 6).

use std::time::{Duration, Instant};

use crowd::ir::{Rect, Shape, Vec2, World};
use crowd::plan::ct_space::{
    depths, distance_map, half_disc_radius, legal, nf1, open_depth, plan, Bitmap, Check, Found, Mover, Request,
    TimedPath,
};
use crowd::world::walkable::Walkable;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

#[path = "support/settings.rs"]
mod settings;

use settings::setting;

const SIDE: u32 = 128;
/// The side the cases are drawn for, m; `CROWD_BENCH_WORLD` scales them.
const DRAWN: f64 = 51.2;
const RADIUS: f64 = 0.3;
/// The paper's Table 1: crowds of six (`CROWD_BENCH_FOLLOWERS` changes it).
const FOLLOWERS: u32 = 6;
const RATIO_BAR: f64 = 5.0;
const EXTENDED_BAR_MS: f64 = 50.0;

/// A test case: obstacles, and where each crowd starts and goes.
struct Case {
    name: &'static str,
    obstacles: Vec<Shape>,
    one: (Vec2, Vec2),
    two: (Vec2, Vec2),
}

fn v(x: f64, y: f64) -> Vec2 {
    Vec2::new(x, y)
}

fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Shape {
    Shape::Rect(Rect { min: v(x0, y0), max: v(x1, y1) })
}

/// The five cases, drawn on a `DRAWN` square and scaled to a `world` one.
fn cases(world: f64) -> Vec<Case> {
    const WORLD: f64 = DRAWN;
    let mid = WORLD / 2.0;
    let mut rng = ChaCha8Rng::seed_from_u64(2002);
    let mut uniform = |lo: f64, hi: f64| lo + (hi - lo) * (rng.next_u32() as f64 / f64::from(u32::MAX));
    let scattered: Vec<Shape> = (0..60)
        .map(|_| {
            let (x, y) = (uniform(6.0, WORLD - 8.0), uniform(6.0, WORLD - 8.0));
            rect(x, y, x + uniform(0.8, 3.5), y + uniform(0.8, 3.5))
        })
        .collect();
    let mut drawn = vec![
        // Fig 11: two crowds crossing an open field.
        Case {
            name: "open crossing",
            obstacles: vec![],
            one: (v(4.0, mid), v(47.0, mid)),
            two: (v(mid, 4.0), v(mid, 47.0)),
        },
        // Fig 4: a wall with one gap, the crowds going through it in opposite directions.
        Case {
            name: "narrow passage",
            obstacles: vec![rect(mid - 0.6, 0.0, mid + 0.6, mid - 1.0), rect(mid - 0.6, mid + 1.0, mid + 0.6, WORLD)],
            one: (v(8.0, mid + 6.0), v(44.0, mid - 6.0)),
            two: (v(44.0, mid + 4.0), v(8.0, mid - 4.0)),
        },
        // Crossing among scattered obstacles.
        Case {
            name: "scattered",
            obstacles: scattered,
            one: (v(3.0, mid), v(48.0, mid)),
            two: (v(mid, 3.0), v(mid, 48.0)),
        },
        // A U open towards crowd 1, its goal behind the bottom; crowd 2 comes the other way around it.
        Case {
            name: "U",
            obstacles: vec![rect(20.0, 16.0, 32.0, 17.2), rect(20.0, 34.0, 32.0, 35.2), rect(30.8, 16.0, 32.0, 35.2)],
            one: (v(6.0, mid), v(40.0, mid)),
            // Standing, crowd 2 with its crowd must leave room at crowd 1's goal.
            two: (v(49.0, mid - 2.0), v(4.0, mid - 2.0)),
        },
        // A long wall with its only gap at the far end: both crowds detour through it, one each way.
        Case {
            name: "long detour",
            obstacles: vec![rect(0.0, mid - 0.6, 46.0, mid + 0.6)],
            one: (v(5.0, 10.0), v(5.0, 42.0)),
            two: (v(10.0, 44.0), v(10.0, 6.0)),
        },
    ];
    let k = world / DRAWN;
    for case in &mut drawn {
        for shape in &mut case.obstacles {
            if let Shape::Rect(r) = shape {
                *r = Rect { min: r.min * k, max: r.max * k };
            }
        }
        case.one = (case.one.0 * k, case.one.1 * k);
        case.two = (case.two.0 * k, case.two.1 * k);
    }
    drawn
}

/// What one check made of a case.
struct Run {
    time: [Duration; 2],
    found: [Found; 2],
}

/// Plans both crowds of a case with `check`, the best time of `runs` for each.
fn run(
    map: &Bitmap,
    potentials: &[Vec<u32>; 2],
    movers: &[Vec<Mover>; 2],
    reqs: &[Request; 2],
    check: Check,
    runs: usize,
) -> Run {
    let mut time = [Duration::MAX; 2];
    let mut found: [Option<Found>; 2] = [None, None];
    for _ in 0..runs.max(1) {
        for k in 0..2 {
            let t0 = Instant::now();
            let result = plan(map, &potentials[k], &movers[k], &reqs[k], check);
            time[k] = time[k].min(t0.elapsed());
            found[k] = Some(result.unwrap_or_else(|e| panic!("crowd {} found no path with {check:?}: {e:?}", k + 1)));
        }
    }
    Run { time, found: found.map(|f| f.expect("one run")) }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let began = Instant::now();
    let runs: usize = setting("RUNS", 5);
    let world: f64 = setting("WORLD", DRAWN);
    let spacing: f64 = setting("SPACING", 1.0);
    let followers: u32 = setting("FOLLOWERS", FOLLOWERS);
    let cell = world / f64::from(SIDE);
    // As the model plans a crowd-aware leader: two radii widened for walking
    // between cell centres, plus the own crowd's half disc; the other crowd's
    // half disc is its mover's width.
    let width = half_disc_radius(followers, spacing);
    let clearance = (4.0 * RADIUS * RADIUS + cell * cell).sqrt() + width;
    let own = open_depth(followers, spacing, cell);
    println!(
        "{SIDE}² bitmap, {cell} m cells; two crowds of {followers}, spacing {spacing} m, clearance {clearance} m, \
         own depth l_c = {own} ticks; best of {runs}"
    );
    println!(
        "{:>15} {:>12} {:>12} {:>7} {:>8} {:>11} {:>9} {:>6} {:>9} {:>8} {:>8}",
        "case",
        "pairwise ms",
        "extended ms",
        "ratio",
        "crowd 2",
        "expansions",
        "ticks 1,2",
        "held",
        "depth l_o",
        "nf1 ms",
        "dm+l ms"
    );
    let mut ratios = Vec::new();
    let mut totals = [0.0f64; 2];
    let mut failures = Vec::new();
    let all = cases(world);
    for case in &all {
        let bounds = Rect { min: v(0.0, 0.0), max: v(world, world) };
        let space = Walkable::new(&World::bare(bounds, case.obstacles.clone()), RADIUS + cell);
        let map = Bitmap::new(&space, SIDE, SIDE, RADIUS);
        let at = |p: Vec2| map.nearest_free(p).unwrap_or_else(|| panic!("{}: no free cell", case.name));
        let (s1, g1, s2, g2) = (at(case.one.0), at(case.one.1), at(case.two.0), at(case.two.1));
        let reqs = [
            Request { start: s1, goal: g1, t0: 0, depth: own, clearance },
            Request { start: s2, goal: g2, t0: 0, depth: own, clearance },
        ];
        let t = Instant::now();
        let potentials = [nf1(&map, g1), nf1(&map, g2)];
        let nf1_ms = ms(t.elapsed()) / 2.0;
        // Crowd 1 against crowd 2's leader standing at its start.
        let standing = vec![Mover { path: TimedPath::stationary(s2, 0), depth: vec![], width }];
        let probe = plan(&map, &potentials[0], &standing, &reqs[0], Check::Extended)
            .unwrap_or_else(|e| panic!("{}: crowd 1 found no path: {e:?}", case.name));
        let t = Instant::now();
        let dm = distance_map(&map);
        let crowd_one = depths(&map, &dm, &probe.path, followers, spacing);
        let depth_ms = ms(t.elapsed());
        let l_o = crowd_one.iter().copied().max().unwrap_or(0);
        let movers = [standing, vec![Mover { path: probe.path.clone(), depth: crowd_one, width }]];
        // How much crowd 1 holds crowd 2 up: its first arrival, alone and against crowd 1.
        let alone = plan(&map, &potentials[1], &[], &reqs[1], Check::Extended).expect("crowd 2 alone");
        let arrival = |p: &TimedPath| p.cells.iter().position(|&c| c == g2).expect("ends at the goal");
        let pairwise = run(&map, &potentials, &movers, &reqs, Check::Pairwise, runs);
        let extended = run(&map, &potentials, &movers, &reqs, Check::Extended, runs);
        for k in 0..2 {
            let path = &extended.found[k].path;
            if pairwise.found[k] != extended.found[k] {
                failures.push(format!("{}: the checks give different plans for crowd {}", case.name, k + 1));
            }
            if let Err(e) = legal(&map, &movers[k], &reqs[k], path) {
                failures.push(format!("{}: crowd {}'s plan is illegal: {e}", case.name, k + 1));
            }
            if ms(extended.time[k]) >= EXTENDED_BAR_MS {
                failures.push(format!(
                    "{}: crowd {}'s extended plan took {:.1} ms (bar {EXTENDED_BAR_MS} ms)",
                    case.name,
                    k + 1,
                    ms(extended.time[k])
                ));
            }
        }
        let (p, e) = (ms(pairwise.time[0] + pairwise.time[1]), ms(extended.time[0] + extended.time[1]));
        ratios.push(p / e);
        totals[0] += p;
        totals[1] += e;
        let expansions = extended.found[0].expansions + extended.found[1].expansions;
        let ticks = format!("{},{}", extended.found[0].path.finish(), extended.found[1].path.finish());
        let held = arrival(&extended.found[1].path) - arrival(&alone.path);
        println!(
            "{:>15} {:>12.3} {:>12.3} {:>7.2} {:>8.2} {:>11} {:>9} {:>6} {:>9} {:>8.3} {:>8.3}",
            case.name,
            p,
            e,
            p / e,
            ms(pairwise.time[1]) / ms(extended.time[1]),
            expansions,
            ticks,
            held,
            l_o,
            nf1_ms,
            depth_ms
        );
    }
    let n = all.len() as f64;
    let average = ratios.iter().sum::<f64>() / n;
    println!(
        "{:>15} {:>12.3} {:>12.3} {:>7.2}   (ratio of the averages {:.2})",
        "average",
        totals[0] / n,
        totals[1] / n,
        average,
        totals[0] / totals[1]
    );
    println!(
        "(crowd 2: the ratio for crowd 2's plan alone; ticks: each crowd's finish; held: ticks crowd 1 delays crowd 2's first arrival; l_o: crowd 1's largest \
         depth; nf1: one potential; dm+l: crowd 1's depths)"
    );
    println!("(the bench took {:.1} s)", began.elapsed().as_secs_f64());
    if average < RATIO_BAR {
        failures.push(format!("the average ratio is {average:.2}, under the bar of {RATIO_BAR}"));
    }
    if !failures.is_empty() {
        panic!("the CT-space bench fails:\n  {}", failures.join("\n  "));
    }
}
