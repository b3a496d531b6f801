//! Markers sprayed and erased during a run (Rodrigues et al. 2010, Fig 9,
//! Sec 6.1): the Fig 9 scenario's expectations hold because of its events,
//! and fail when the events are taken out of the compiled program.

use crowd::ir::MarkerAction;

mod scenario_support;
use scenario_support::{compile, failures, trace};

const FIG9: &str = "scenarios/space_colonization/fig09_spray_erase.crowd";

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
