//! Continuum crowds run end to end: the same trace on one thread and two
//! (the groups' potentials are solved in parallel); potentials solved every
//! few steps still lead everyone home; one pushed out of its goal region
//! walks back in; continuum people walk round another model's agents, which
//! they splat into the density like their own.

use crowd::diag::SourceFile;
use crowd::ir::Program;
use crowd::trace::read::Recorded;

mod scenario_support;
use scenario_support::{compile, failures, trace};

fn program(text: &str) -> Program {
    crowd::compile(&SourceFile::new("t.crowd", text.to_string())).unwrap_or_else(|d| panic!("{d:?}")).program
}

/// Why a run of `p` is refused (it must be).
fn refusal(p: &Program) -> String {
    let mut sink = Vec::new();
    let mut csv =
        crowd::trace::csv::CsvWriter::new(&mut sink, &crowd::sim::labels(p), &p.output.columns, None).expect("header");
    crowd::run(p, 1, &mut csv, &mut |_, _| {}).expect_err("refused").to_string()
}

#[test]
fn the_continuum_scenarios_write_the_same_trace_on_one_thread_and_two() {
    for rel in ["scenarios/continuum/fig33_crossing.crowd", "scenarios/continuum/four_way.crowd"] {
        let mut p = compile(rel);
        p.header.duration = 40.0;
        let one = crowd::sim::with_threads(Some(1), || trace(&p)).expect("pool");
        let two = crowd::sim::with_threads(Some(2), || trace(&p)).expect("pool");
        assert!(one == two, "{rel}: the runs differ between 1 and 2 threads");
    }
}

#[test]
fn potentials_solved_every_tenth_step_still_lead_round_the_grove() {
    let mut p = compile("scenarios/continuum/fig32_trees.crowd");
    let every = trace(&p);
    p.params.continuum.update_every = 10.0;
    let sparse = trace(&p);
    assert!(every != sparse, "solving less often changed nothing");
    assert_eq!(failures(&p), Vec::<String>::new());
}

#[test]
fn a_person_pushed_out_of_its_goal_region_walks_back_in() {
    // At seed 3 a southbound person arrives at the edge of its region, is
    // pushed out by the crowd packed there, and used to stand for good
    // 0.9 m outside it, still counted arrived by the executor: the claim
    // failed, with one person stuck. Over seeds 1-20 the four claims failed
    // at 12 seeds; now at one (15).
    let mut p = compile("scenarios/continuum/four_way.crowd");
    p.header.seed = 3;
    assert_eq!(failures(&p), Vec::<String>::new());
}

#[test]
fn a_continuum_crowd_walks_round_agents_of_another_model() {
    // Four people standing still (straight walkers whose goal is where they
    // stand) across the way of a continuum crowd: splatted into the density,
    // their cells are slow and costly, and the crowd's potential leads round.
    let p = program(
        "scenario mixed { seed 3; duration 40 s; step 1/10 s }
         world {
           bounds (0 m, 0 m) to (40 m, 20 m)
           region start rect (2 m, 8 m) to (6 m, 12 m)
           region finish rect (34 m, 8 m) to (38 m, 12 m)
           region post rect (19 m, 9 m) to (21 m, 11 m)
         }
         population guards { count 12; spawn in post; goal region post; radius 0.25 m; behaviour stand }
         population walkers { count 30; spawn in start; goal region finish; radius 0.25 m; behaviour go }
         behaviour stand { seek goal }
         behaviour go { seek goal using continuum cell 1 m }
         expect {
           walkers reaches goal within 40 s
           min distance >= 0.49 m
         }",
    );
    assert_eq!(failures(&p), Vec::<String>::new());
    let bytes = trace(&p);
    let rec = Recorded::parse(&bytes, &p).expect("the trace reads back");
    // The walkers kept out of the post: none crossed the middle of the guards' 2 m square.
    let walkers = p.populations.iter().position(|q| q.name == "walkers").expect("walkers") as u32;
    let inside = (0..rec.population.len())
        .filter(|&r| rec.population[r] == walkers)
        .filter(|&r| (rec.trace.pos[r] - crowd::ir::Vec2::new(20.0, 10.0)).abs().max_element() < 0.75)
        .count();
    assert_eq!(inside, 0, "walkers crossed the guards' post");
}

#[test]
fn continuum_planners_on_two_grids_are_refused_before_the_first_step() {
    let p = program(
        "scenario two_grids { seed 1; duration 10 s; step 1/10 s }
         world {
           bounds (0 m, 0 m) to (40 m, 20 m)
           region a rect (2 m, 2 m) to (6 m, 6 m)
           region b rect (34 m, 14 m) to (38 m, 18 m)
         }
         population east { count 5; spawn in a; goal region b; behaviour coarse }
         population west { count 5; spawn in b; goal region a; behaviour fine }
         behaviour coarse { seek goal using continuum cell 2 m }
         behaviour fine { seek goal using continuum grid 80 x 40 }",
    );
    let err = refusal(&p);
    assert!(err.contains("grids of different cells (2 m, 0.5 m)") && err.contains("step 0"), "{err}");
}

#[test]
fn a_crowd_wide_parameter_set_on_one_action_is_refused_before_the_first_step() {
    let p = program(
        "scenario wide { seed 1; duration 10 s; step 1/10 s }
         world {
           bounds (0 m, 0 m) to (40 m, 20 m)
           region a rect (2 m, 2 m) to (6 m, 6 m)
           region b rect (34 m, 14 m) to (38 m, 18 m)
         }
         population east { count 5; spawn in a; goal region b; behaviour go }
         behaviour go { seek goal using continuum update_every 5 }",
    );
    let err = refusal(&p);
    assert!(err.contains("continuum.update_every is one value for the whole crowd"), "{err}");
}
