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

#[test]
fn an_erase_leaves_its_area_bare_until_a_spray_covers_it() {
    use crowd::ir::{MarkerEvent, Vec2};
    use crowd::world::markers::generate;
    let mut program = compile("scenarios/space_colonization/erase_in_the_way.crowd");
    let MarkerAction::Erase { area: Some(area) } = program.world.markers.events[0].action else {
        panic!("the scene erases a region");
    };
    program
        .world
        .markers
        .events
        .push(MarkerEvent { at: 7.0, action: MarkerAction::Spray { area, density: 30.0, weight: None } });
    let (markers, _) = generate(&program.world, 1).into_cell_order(0.5);
    assert!(markers.bare().is_none(), "a world is covered before anything is erased");
    let (markers, _, _) = markers.apply_event(&program.world, 1, 0, 0.5);
    let bare = markers.bare().expect("the erased patch is bare");
    assert!(bare.is_bare(Vec2::new(14.5, 6.0)), "the patch's middle");
    assert!(!bare.is_bare(Vec2::new(11.5, 6.0)) && !bare.is_bare(Vec2::new(17.5, 6.0)), "the floor beside it");
    let (markers, _, _) = markers.apply_event(&program.world, 1, 1, 0.5);
    assert!(markers.bare().is_none(), "sprayed again, the patch is covered");
}
