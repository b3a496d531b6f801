//! Leaders planned in CT-space, run end to end: a leader with no way to its
//! goal stops the run with an error naming it and the step, promptly; and
//! the leader-follower scenarios write the same trace on one thread and two.

use std::time::Instant;

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::sim::labels;
use crowd::trace::csv::CsvWriter;

mod scenario_support;
use scenario_support::compile;

fn program(text: &str) -> Program {
    crowd::compile(&SourceFile::new("t.crowd", text.to_string())).unwrap_or_else(|d| panic!("{d:?}")).program
}

/// The run's error, as the command line prints it.
fn error(program: &Program) -> String {
    let mut bytes = Vec::new();
    let mut csv = CsvWriter::new(&mut bytes, &labels(program), &program.output.columns, None).expect("header");
    match crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}) {
        Ok(_) => panic!("the run went through"),
        Err(e) => e.to_string(),
    }
}

const WORLD: &str = "
scenario stuck { seed 1; duration 20 s; step 1/4 s }
world {
  bounds (0 m, 0 m) to (20 m, 10 m)
  obstacle wall rect (9 m, 0 m) to (10 m, 10 m)
}
";

#[test]
fn a_goal_behind_a_wall_is_no_path_for_the_leader_at_its_step() {
    let p = program(&format!(
        "{WORLD}agent scout at (2 m, 5 m) {{ goal (18 m, 5 m); behaviour lead }}
behaviour lead {{ seek goal using ct_space grid 40 x 20 }}"
    ));
    let e = error(&p);
    assert!(e.contains("no path for leader scout (agent 0) planned at step 0"), "{e}");
    assert!(e.contains("cannot be reached"), "{e}");
}

#[test]
fn a_goal_another_leader_stands_on_for_good_is_no_path_within_the_bound() {
    // The sentry is planned first and stays at its goal for ever; the scout's
    // goal is the sentry's: the search must run out of states and say so.
    let p = program(&format!(
        "{WORLD}agent sentry at (3 m, 2 m) {{ goal (4 m, 5 m); behaviour lead }}
agent scout at (2 m, 8 m) {{ goal (4 m, 5 m); behaviour lead }}
behaviour lead {{ seek goal using ct_space grid 40 x 20 }}"
    ));
    let began = Instant::now();
    let e = error(&p);
    assert!(e.contains("no path for leader scout (agent 1) planned at step 0"), "{e}");
    assert!(e.contains("expansions") && e.contains("up to tick"), "{e}");
    // Bounded: a few thousand states, not a hang (a generous bound for a debug build).
    assert!(began.elapsed().as_secs() < 60, "{:?}", began.elapsed());
}

#[test]
fn leaders_on_different_bitmaps_are_refused() {
    let p = program(&format!(
        "{WORLD}agent a at (2 m, 2 m) {{ goal (4 m, 2 m); behaviour one }}
agent b at (2 m, 8 m) {{ goal (4 m, 8 m); behaviour two }}
behaviour one {{ seek goal using ct_space grid 40 x 20 }}
behaviour two {{ seek goal using ct_space grid 80 x 40 }}"
    ));
    let e = error(&p);
    assert!(e.contains("different bitmaps"), "{e}");
}

#[test]
fn the_leader_follower_scenarios_write_the_same_trace_on_one_thread_and_two() {
    for rel in ["scenarios/leader_follower/fig08_evacuation.crowd", "scenarios/leader_follower/fig11_two_crowds.crowd"]
    {
        let p = compile(rel);
        let one = crowd::sim::with_threads(Some(1), || scenario_support::trace(&p)).expect("pool");
        let two = crowd::sim::with_threads(Some(2), || scenario_support::trace(&p)).expect("pool");
        assert!(one == two, "{rel}: the traces differ between 1 and 2 threads");
    }
}
