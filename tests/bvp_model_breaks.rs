//! The BVP scenarios' expectations are what make them pass: run a scenario
//! with the behaviour it shows switched off in the compiled `Program` and the
//! same expectations must fail.

use crowd::ir::{MapVia, PlannerKind, Program};

mod scenario_support;
use scenario_support::{assert_fails, broken, walk_straight};

/// `μ = 1` everywhere: the environment term alone, no formation force.
fn without_formation_force(program: &mut Program) {
    program.params.bvp.mu = 1.0;
}

#[test]
fn formations_without_the_formation_force_fall_apart() {
    let failed = broken("scenarios/bvp_formations/fig04_formations.crowd", without_formation_force);
    assert_fails(&failed, "formation error of diamond_squad <= 0.375 m");
    assert_fails(&failed, "formation error of square_squad <= 0.375 m");
    assert_fails(&failed, "formation error of v_squad <= 0.375 m");
}

#[test]
fn a_squad_without_the_formation_force_never_forms_again_past_the_gap() {
    let failed = broken("scenarios/bvp_formations/fig05_narrow_passage.crowd", without_formation_force);
    assert_fails(&failed, "formation error of squad <= 0.375 m for at least 90% of 30 s to 45 s");
}

#[test]
fn swapped_map_sizes_swap_who_splits() {
    let failed = broken("scenarios/bvp_formations/fig06_split_or_stay.crowd", |p| {
        let (a, b) = (p.groups[0].group_map.clone(), p.groups[1].group_map.clone());
        p.groups[0].group_map = b;
        p.groups[1].group_map = a;
    });
    assert_fails(&failed, "spread of together <= 2.6 m");
    assert_fails(&failed, "spread of splitting >= 3.5 m");
}

#[test]
fn groups_that_do_not_see_each_other_on_their_maps_walk_into_each_other() {
    let failed = broken("scenarios/bvp_formations/fig08_groups_crossing.crowd", |p| {
        p.switches.characters_on_maps = false;
    });
    assert_fails(&failed, "west_column farther than 0.55 m from east_line");
}

#[test]
fn a_patrol_without_the_formation_force_drifts_apart_among_the_trunks() {
    let failed = broken("scenarios/bvp_formations/fig07_many_obstacles.crowd", without_formation_force);
    assert_fails(&failed, "formation error of patrol <= 0.375 m");
}

#[test]
fn walkers_without_the_potential_never_leave_the_first_leg() {
    let failed = broken("scenarios/bvp_formations/single_long_corridor.crowd", walk_straight);
    assert_fails(&failed, "at least 100% of walkers inside goal at 115 s");
}

#[test]
fn a_map_led_straight_at_the_goal_presses_into_the_wall() {
    let failed = broken("scenarios/bvp_formations/map_via_astar.crowd", |p| {
        p.groups[0].group_map.as_mut().expect("a group map").via = MapVia::Planner(PlannerKind::Straight);
    });
    assert_fails(&failed, "at least 100% of squad inside goal at 88 s");
}

#[test]
fn a_map_led_straight_instead_of_along_its_sketch_never_passes_the_lookout() {
    let failed = broken("scenarios/bvp_formations/map_via_sketch.crowd", |p| {
        p.groups[0].group_map.as_mut().expect("a group map").via = MapVia::Planner(PlannerKind::Straight);
    });
    assert_fails(&failed, "at least 100% of patrol inside lookout");
}
