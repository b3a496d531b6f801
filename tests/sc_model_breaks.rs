//! The space-colonization scenarios' expectations are what make them pass:
//! run a figure's scenario with one piece of the model switched off and the
//! same expectations must fail.

use std::path::Path;

use crowd::diag::SourceFile;
use crowd::ir::{Action, BehaviourBody, Program};
use crowd::sim::labels;
use crowd::trace::csv::CsvWriter;
use crowd::trace::metrics::evaluate;
use crowd::trace::read::Recorded;

fn compile(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("scenario exists");
    crowd::compile(&SourceFile::new(rel, text)).unwrap_or_else(|d| panic!("{rel}: {d:?}")).program
}

/// The expectations that fail, as text.
fn failures(program: &Program) -> Vec<String> {
    let mut bytes = Vec::new();
    let mut csv = CsvWriter::new(&mut bytes, &labels(program), &program.output.columns, None).expect("header");
    crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("runs");
    drop(csv);
    let rec = Recorded::parse(&bytes, program).expect("trace reads back");
    evaluate(program, &rec).into_iter().filter(|c| !c.verdict.holds()).map(|c| c.to_string()).collect()
}

fn actions_mut(program: &mut Program) -> impl Iterator<Item = &mut Action> {
    program.behaviours.iter_mut().flat_map(|b| match &mut b.body {
        BehaviourBody::Rules(r) => r.iter_mut().flat_map(|r| r.actions.iter_mut()).collect::<Vec<_>>(),
        BehaviourBody::States(s) => s.iter_mut().flat_map(|s| s.actions.iter_mut()).collect::<Vec<_>>(),
    })
}

#[test]
fn surround_without_disjoint_markers_fails_fig4() {
    let program = compile("scenarios/space_colonization/fig04_surround.crowd");
    assert!(failures(&program).is_empty(), "the scenario itself holds");
    let mut shared = program.clone();
    for a in actions_mut(&mut shared) {
        if let Action::Pursue { planner, .. } = a {
            planner.disjoint_markers = false;
        }
    }
    let failed = failures(&shared);
    assert!(failed.iter().any(|f| f.contains("_route")), "pursuers sharing markers still split: {failed:?}");
}

#[test]
fn escaping_towards_the_followers_fails_fig5() {
    // Seeking the followers' first agent instead of escaping them.
    let mut program = compile("scenarios/space_colonization/fig05_escape.crowd");
    for a in actions_mut(&mut program) {
        if let Action::Escape { from } = a {
            *a = Action::Pursue {
                target: *from,
                planner: crowd::ir::Planner {
                    kind: crowd::ir::PlannerKind::TreePaths,
                    reserve_markers: false,
                    disjoint_markers: false,
                    bias: None,
                    grid: None,
                    crowd_aware: false,
                    params: Vec::new(),
                },
            };
        }
    }
    assert!(!failures(&program).is_empty(), "the runner got away without escaping");
}

#[test]
fn a_crowd_without_reservation_or_enforcement_collides_fig13() {
    // Marker reservation is what keeps the crossing flows apart.
    let mut program = compile("scenarios/space_colonization/fig13_crowd_lanes.crowd");
    for a in actions_mut(&mut program) {
        if let Action::Seek { planner, .. } = a {
            planner.reserve_markers = false;
        }
    }
    // Bodies keep at least the sum of their radii apart too: both must go.
    program.params.space_colonization.t_min = 0.0;
    for p in &mut program.populations {
        p.radius = crowd::ir::Dist::Constant(0.0);
    }
    let failed = failures(&program);
    assert!(failed.iter().any(|f| f.contains("min distance")), "{failed:?}");
}
