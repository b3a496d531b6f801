//! Markers sprayed and erased during a run (Rodrigues et al. 2010, Fig 9,
//! Sec 6.1): the Fig 9 scenario's expectations hold because of its events,
//! and fail when the events are taken out of the compiled program.

use std::path::Path;

use crowd::diag::SourceFile;
use crowd::ir::{MarkerAction, Program};
use crowd::sim::labels;
use crowd::trace::csv::CsvWriter;
use crowd::trace::metrics::evaluate;
use crowd::trace::read::Recorded;

const FIG9: &str = "scenarios/space_colonization/fig09_spray_erase.crowd";

fn compile(rel: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).expect("scenario exists");
    crowd::compile(&SourceFile::new(rel, text)).unwrap_or_else(|d| panic!("{rel}: {d:?}")).program
}

fn trace(program: &Program) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut csv = CsvWriter::new(&mut bytes, &labels(program), &program.output.columns, None).expect("header");
    crowd::run(program, program.header.seed, &mut csv, &mut |_, _| {}).expect("runs");
    drop(csv);
    bytes
}

/// The expectations that fail, as text.
fn failures(program: &Program) -> Vec<String> {
    let bytes = trace(program);
    let rec = Recorded::parse(&bytes, program).expect("trace reads back");
    evaluate(program, &rec).into_iter().filter(|c| !c.verdict.holds()).map(|c| c.to_string()).collect()
}

#[test]
fn fig9_holds_with_its_marker_events() {
    let program = compile(FIG9);
    assert_eq!(program.world.markers.events.len(), 3);
    assert!(failures(&program).is_empty(), "{:?}", failures(&program));
}

#[test]
fn fig9_without_the_events_keeps_everyone_on_the_north_trail() {
    let mut program = compile(FIG9);
    program.world.markers.events.clear();
    let failed = failures(&program);
    assert!(failed.iter().any(|f| f.contains("late inside south")), "late walkers went south anyway: {failed:?}");
    assert!(failed.iter().any(|f| f.contains("late inside north")), "late walkers kept off the north: {failed:?}");
}

#[test]
fn fig9_erasing_alone_is_not_spraying() {
    // Without the south spray the late walkers find no trail there.
    let mut program = compile(FIG9);
    program.world.markers.events.retain(|e| !matches!(e.action, MarkerAction::Spray { density, .. } if density > 10.0));
    let failed = failures(&program);
    assert!(failed.iter().any(|f| f.contains("late inside south")), "{failed:?}");
}

#[test]
fn fig9_trace_is_the_same_on_any_thread_count() {
    let program = compile(FIG9);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(|| trace(&program));
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(|| trace(&program));
    assert!(one == two, "traces differ between 1 and 2 threads");
}
