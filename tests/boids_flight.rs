//! Boids run end to end: the same trace on one thread and two; every catch
//! recorded, its prey gone from the next frame on; a boid flying at a wall
//! bounces off it (Durupınar §3.1: position and velocity correction).

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::sim::labels;
use crowd::trace::csv::CsvWriter;
use crowd::trace::read::Recorded;

mod scenario_support;
use scenario_support::compile;

fn program(text: &str) -> Program {
    crowd::compile(&SourceFile::new("t.crowd", text.to_string())).unwrap_or_else(|d| panic!("{d:?}")).program
}

/// The trace and the run's catches as (step, predator, prey).
fn run(program: &Program) -> (Vec<u8>, Vec<(u64, u32, u32)>) {
    let mut bytes = Vec::new();
    let outcome = {
        let mut csv = CsvWriter::new(&mut bytes, &labels(program), &program.output.columns, None).expect("header");
        crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("runs")
    };
    (bytes, outcome.catches.iter().map(|c| (c.step, c.predator, c.prey)).collect())
}

#[test]
fn the_flock_scenarios_write_the_same_trace_on_one_thread_and_two() {
    for rel in ["scenarios/behaviour_flocks/predator_prey.crowd", "scenarios/behaviour_flocks/chaotic_placement.crowd"]
    {
        let p = compile(rel);
        let one = crowd::sim::with_threads(Some(1), || run(&p)).expect("pool");
        let two = crowd::sim::with_threads(Some(2), || run(&p)).expect("pool");
        assert!(one == two, "{rel}: the runs differ between 1 and 2 threads");
    }
}

#[test]
fn every_catch_is_recorded_and_its_prey_is_gone_from_the_next_frame() {
    let p = program(
        "scenario hunt { seed 3; duration 20 s; step 1/10 s }
         world { bounds (0 m, 0 m) to (30 m, 30 m) region pen rect (10 m, 10 m) to (20 m, 20 m) }
         population mice { count 30; spawn in pen; speed 1 m/s; radius 0.1 m; behaviour scurry }
         agent cat at (2 m, 2 m) { speed 3 m/s; radius 0.2 m; behaviour stalk }
         behaviour scurry { flee cat }
         behaviour stalk { hunt mice catch within 0.4 m }",
    );
    let (bytes, catches) = run(&p);
    assert!(catches.len() >= 3, "a cat three times as fast catches mice: {catches:?}");
    let rec = Recorded::parse(&bytes, &p).expect("reads back");
    let trace = &rec.trace;
    for &(step, predator, prey) in &catches {
        assert_eq!(predator, 30, "the cat is agent 30");
        // Every step is recorded: frame n is after n steps; the catch happens in step `step`.
        let last = (0..trace.id.len()).filter(|&r| trace.id[r] == prey).map(|r| trace.frame[r]).max();
        assert_eq!(last, Some(step as u32), "mouse {prey}, caught in step {step}, last appears in frame {last:?}");
    }
    let mut prey: Vec<u32> = catches.iter().map(|c| c.2).collect();
    prey.sort_unstable();
    prey.dedup();
    assert_eq!(prey.len(), catches.len(), "no mouse is caught twice");
}

#[test]
fn a_boid_flying_at_a_wall_bounces_back() {
    let p = program(
        "scenario wall { seed 1; duration 6 s; step 1/10 s }
         world { bounds (0 m, 0 m) to (20 m, 10 m) obstacle wall rect (12 m, 0 m) to (13 m, 10 m) }
         agent swift at (5 m, 5 m) { speed 2 m/s; radius 0.2 m; goal (19 m, 5 m); behaviour dart }
         agent other at (1 m, 9 m) { speed 1 m/s; behaviour sit }
         behaviour dart {
           state go { seek goal; after 2 s go fly }
           state fly { flock }
         }
         behaviour sit { dwell 10 s }",
    );
    let (bytes, _) = run(&p);
    let rec = Recorded::parse(&bytes, &p).expect("reads back");
    let t = &rec.trace;
    let xs: Vec<(f64, f64)> = (0..t.id.len()).filter(|&r| t.id[r] == 0).map(|r| (t.pos[r].x, t.vel[r].x)).collect();
    // It walks east at 2 m/s, takes wing keeping that velocity, meets the wall
    // (its body's edge at 11.8 m) and flies back west.
    assert!(xs.iter().all(|&(x, _)| x <= 11.8 + 1e-9), "never inside the wall: {xs:?}");
    let turned = xs.iter().position(|&(_, vx)| vx < -1.0).expect("it turns back");
    assert!(xs[turned..].iter().all(|&(_, vx)| vx < 0.0), "and flies west from then on: {xs:?}");
    assert!(xs.last().expect("frames").0 < 9.0, "it ends well away from the wall: {xs:?}");
}
