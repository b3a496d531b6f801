//! `spawn in REGION chaotic [r R]`: agents placed along logistic-map orbits
//! (Durupınar 2007, §3.1). The same seed gives the same layout; two chaotic
//! `r` give different layouts; no start is ever NaN or off the walkable part
//! of its region; a `peak` schedule continues the orbit a `count` would
//! walk; with the behaviour switched off a chaotic population is placed as
//! `spawn in REGION` places it.

use crowd::ir::{Program, Vec2};
use crowd::world::geometry::contains;
use crowd::SourceFile;

mod sim_support;
use sim_support::{recorded, run, run_with};

fn compile(text: &str) -> Program {
    match crowd::compile(&SourceFile::new("chaos.crowd", text.to_string())) {
        Ok(c) => c.program,
        Err(d) => panic!("the scenario does not compile: {d:#?}"),
    }
}

/// `count` agents of population `birds` that stand still in an empty 30 m square.
fn flock(spawn: &str, count: &str) -> String {
    format!(
        "scenario flock {{ seed 11; duration 1 s; step 1/2 s }}
world {{ bounds (0 m, 0 m) to (30 m, 30 m); region pen rect (0 m, 0 m) to (30 m, 30 m) }}
population birds {{ {count}; spawn in pen {spawn}; radius 0.05 m; behaviour stay }}
behaviour stay {{ dwell 10 s }}
"
    )
}

/// Where each agent was first recorded, by id.
fn starts(program: &Program, bytes: &[u8]) -> Vec<Vec2> {
    starts_of(program, bytes).into_iter().map(|(p, _)| p).collect()
}

/// Where each agent was first recorded, and its population, by id.
fn starts_of(program: &Program, bytes: &[u8]) -> Vec<(Vec2, u32)> {
    let rec = recorded(program, bytes);
    let mut out: Vec<Option<(Vec2, u32)>> = vec![];
    for (r, &id) in rec.trace.id.iter().enumerate() {
        let id = id as usize;
        if out.len() <= id {
            out.resize(id + 1, None);
        }
        out[id].get_or_insert((rec.trace.pos[r], rec.population[r]));
    }
    out.into_iter().map(|p| p.expect("every id was recorded")).collect()
}

/// The share of the points in the lower-left corner of the 30 m square
/// whose sides are a quarter of the square's (x and y both below 7.5 m).
fn corner_share(points: &[Vec2]) -> f64 {
    points.iter().filter(|p| p.x < 7.5 && p.y < 7.5).count() as f64 / points.len() as f64
}

#[test]
fn the_same_r_and_seed_give_the_same_layout() {
    let program = compile(&flock("chaotic r 3.9", "count 500"));
    let (a, _) = run(&program);
    let (b, _) = run_with(&program, program.header.seed, Some(1)).expect("the run");
    let (c, _) = run_with(&program, program.header.seed, Some(2)).expect("the run");
    assert!(a == b && b == c, "the same seed gave different traces");
    let (d, _) = run_with(&program, 12, None).expect("the run");
    assert_ne!(starts(&program, &a), starts(&program, &d), "another seed gave the same layout");
}

#[test]
fn two_chaotic_r_give_different_layouts() {
    // At r = 4 the orbit's invariant density, 1 / (π √(x (1 − x))), puts a
    // third of each axis below 1/4 (a ninth of the square in the corner);
    // at r = 3.7 the orbit never goes below r² (4 − r) / 16 ≈ 0.257 after
    // its first iterate: the corner stays empty. Uniform placement: 1/16.
    let share = |spawn: &str| {
        let program = compile(&flock(spawn, "count 200"));
        corner_share(&starts(&program, &run(&program).0))
    };
    let (four, three_seven, uniform) = (share("chaotic r 4"), share("chaotic r 3.7"), share(""));
    println!("corner share of 200 agents: r = 4: {four}, r = 3.7: {three_seven}, uniform: {uniform}");
    assert!(four > 0.08, "r = 4: {four} of the agents in the corner");
    assert!(three_seven <= 0.01, "r = 3.7: {three_seven} of the agents in the corner");
    assert!(three_seven < uniform && uniform < four, "uniform: {uniform}, r = 4: {four}, r = 3.7: {three_seven}");
}

#[test]
fn starts_are_on_the_walkable_part_of_the_region() {
    for r in ["3.6", "3.9", "4"] {
        let text = format!(
            "scenario flock {{ seed 5; duration 4 s; step 1/2 s }}
world {{
  bounds (0 m, 0 m) to (30 m, 30 m)
  region disc circle (15 m, 15 m) radius 12 m
  region wedge polygon (1 m, 1 m), (29 m, 1 m), (1 m, 20 m)
  obstacle rock circle (12 m, 14 m) radius 4 m
  obstacle wall rect (0 m, 0 m) to (30 m, 3 m)
}}
population round {{ count 1500; spawn in disc chaotic r {r}; radius 0.2 m; behaviour stay }}
population pointed {{ peak 1500 agents at 3 s; spawn in wedge chaotic r {r}; radius 0.2 m; behaviour stay }}
behaviour stay {{ dwell 10 s }}
"
        );
        let program = compile(&text);
        let all = starts_of(&program, &run(&program).0);
        let world = &program.world;
        // Population `i` spawns in region `i`.
        for (id, (p, population)) in all.iter().enumerate() {
            let region = &world.regions[*population as usize].shape;
            assert!(p.is_finite(), "r = {r}: agent {id} starts at {p}");
            assert!(contains(region, *p), "r = {r}: agent {id} starts at {p}, outside its region");
            for o in &world.obstacles {
                assert!(!contains(&o.shape, *p), "r = {r}: agent {id} starts at {p}, inside {}", o.name);
            }
        }
        assert_eq!(all.len(), 3000);
    }
}

#[test]
fn a_peak_schedule_continues_the_orbit_a_count_walks() {
    let at_once = compile(&flock("chaotic r 3.95", "count 60"));
    let over_time = compile(&flock("chaotic r 3.95", "peak 60 agents at 1 s"));
    let a = starts(&at_once, &run(&at_once).0);
    let b = starts(&over_time, &run(&over_time).0);
    assert_eq!(a, b, "agents created over time left the orbit");
}

#[test]
fn switched_off_chaotic_placement_is_uniform_placement() {
    let mut program = compile(&flock("chaotic r 4", "count 300"));
    let (chaotic, _) = run(&program);
    program.switches.chaotic_placement = false;
    let (off, _) = run(&program);
    let plain = compile(&flock("", "count 300"));
    let (uniform, _) = run(&plain);
    assert_eq!(off, uniform, "switched off, chaotic placement is not `spawn in`");
    assert_ne!(chaotic, uniform);
}

#[test]
fn an_orbit_that_never_finds_room_stops_the_run_naming_the_population() {
    // At r = 2.4 every orbit converges to 0.583 of the box: a rock there
    // leaves the first agents room, and no one after them.
    let text = "scenario stuck { seed 2; duration 1 s; step 1/2 s }
world {
  bounds (0 m, 0 m) to (10 m, 10 m)
  region pen rect (0 m, 0 m) to (10 m, 10 m)
  obstacle rock circle (5.833 m, 5.833 m) radius 1 m
}
population birds { count 50; spawn in pen chaotic r 2.4; behaviour stay }
behaviour stay { dwell 10 s }
";
    let program = compile(text);
    let err = run_with(&program, 2, None).expect_err("the run cannot place everyone").to_string();
    assert!(err.contains("population birds") && err.contains("chaotic"), "{err}");
}
