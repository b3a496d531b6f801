//! The semantic-groups scenarios' expectations are what make them pass: run
//! a scenario with the behaviour it shows switched off in the compiled
//! `Program` and the same expectations must fail.
//!
//! Behaviours the language cannot switch off (giving places up, waiting in
//! line, the A* grid's body clearance and its walking points at doors, a
//! group letting a walker by, the grid following marker events, a blocked
//! walker keeping the side it turns to) are switched in `Program::switches`.
//! The A* costs and estimate have no switch: the baffle and the ledge are
//! run here without A* (walking straight at the goal); their signature
//! claims, which side walkers go round, were shown to fail with diagonals
//! costing one cell (baffle) and with a Manhattan estimate (ledge), in
//! every one of seeds 1 to 10.

use crowd::ir::{Dist, Formation, Program};

mod scenario_support;
use scenario_support::{assert_fails, broken, compile, failures, failures_measured, walk_straight};

/// Every team of the program walks in formation `f`, whatever the free space.
fn fix_formation(program: &mut Program, f: Formation) {
    for p in &mut program.populations {
        p.formation = Some(f.clone());
    }
    for g in &mut program.groups {
        g.formation = Some(f.clone());
    }
}

#[test]
fn a_trio_kept_side_by_side_fails_the_door() {
    let failed = broken("scenarios/semantic_groups/door.crowd", |p| fix_formation(p, Formation::SideBySide));
    assert_fails(&failed, "formation of trio is v");
    assert_fails(&failed, "formation of trio is river");
}

#[test]
fn a_wide_v_laid_out_as_a_45_degree_one_fits_the_second_door_wide_v() {
    // At 70° the middle-to-wing distance sets the V's size; at 45° the wings do.
    let failed = broken("scenarios/semantic_groups/wide_v.crowd", |p| {
        p.params.semantic_groups.v_angle = std::f64::consts::FRAC_PI_4;
    });
    assert_fails(&failed, "formation of trio is river");
    let failed = broken("scenarios/semantic_groups/wide_v.crowd", |p| fix_formation(p, Formation::SideBySide));
    assert_fails(&failed, "formation of trio is v");
}

#[test]
fn groups_kept_side_by_side_are_not_in_a_v_pair() {
    // Side by side at one spacing, a pair's spread is the V's: only the
    // formation claims can tell.
    let failed = broken("scenarios/semantic_groups/v_pair.crowd", |p| fix_formation(p, Formation::SideBySide));
    assert_fails(&failed, "formation of pair is v");
    assert_fails(&failed, "formation of trio is v");
}

#[test]
fn walkers_that_do_not_turn_round_bodies_lock_on_one_line_head_on_line() {
    let failed = broken("scenarios/semantic_groups/head_on_line.crowd", |p| p.switches.turn_round_bodies = false);
    assert_fails(&failed, "east_walker reaches goal");
    assert_fails(&failed, "west_walker reaches goal");
    assert_fails(&failed, "of east_walker inside south_of_line");
}

#[test]
fn groups_kept_in_a_river_fail_the_corridor() {
    let failed = broken("scenarios/semantic_groups/corridor.crowd", |p| fix_formation(p, Formation::River));
    assert_fails(&failed, "is side_by_side at 24 s");
}

#[test]
fn a_stage_crowd_without_distance_enforcement_overlaps() {
    let failed = broken("scenarios/semantic_groups/stage_crowd.crowd", |program| {
        // Bodies keep at least the sum of their radii apart too: both must go.
        program.params.space_colonization.t_min = 0.0;
        for p in &mut program.populations {
            p.radius = Dist::Constant(0.0);
        }
    });
    assert_fails(&failed, "min distance");
}

#[test]
fn groups_kept_in_a_river_fail_following_on_a_lawn() {
    let failed = broken("scenarios/semantic_groups/following.crowd", |p| fix_formation(p, Formation::River));
    assert_fails(&failed, "formation of middle is side_by_side");
}

#[test]
fn groups_kept_in_a_river_fail_the_edges() {
    let failed = broken("scenarios/semantic_groups/edges.crowd", |p| fix_formation(p, Formation::River));
    for group in ["west", "east", "south", "north"] {
        assert_fails(&failed, &format!("formation of {group} is side_by_side"));
    }
}

#[test]
fn groups_kept_side_by_side_fail_the_narrow_edges() {
    let failed = broken("scenarios/semantic_groups/edges_narrow.crowd", |p| fix_formation(p, Formation::SideBySide));
    for group in ["west", "east", "south", "north"] {
        assert_fails(&failed, &format!("formation of {group} is v"));
    }
}

#[test]
fn a_trio_kept_side_by_side_fails_the_bystanders() {
    // Only the trio: the bystanders stand outside any group.
    let failed = broken("scenarios/semantic_groups/bystanders.crowd", |p| {
        p.groups.iter_mut().for_each(|g| g.formation = Some(Formation::SideBySide))
    });
    assert_fails(&failed, "formation of trio is v");
}

#[test]
fn groups_kept_side_by_side_do_not_narrow_round_the_ponds() {
    let failed = broken("scenarios/semantic_groups/ponds.crowd", |p| fix_formation(p, Formation::SideBySide));
    for group in ["right_side", "left_side"] {
        assert_fails(&failed, &format!("formation of {group} is v"));
    }
}

#[test]
fn paths_kept_on_the_grid_laid_before_the_erase_cross_the_ponds() {
    let failed = broken("scenarios/semantic_groups/ponds.crowd", |p| p.switches.astar_follows_markers = false);
    for pond in ["pond_s_core", "pond_n_core"] {
        assert_fails(&failed, &format!("of everyone inside {pond}"));
    }
}

#[test]
fn paths_kept_on_the_first_grid_cross_the_wet_paint() {
    let failed = broken("scenarios/semantic_groups/wet_paint.crowd", |p| p.switches.astar_follows_markers = false);
    assert_fails(&failed, "of everyone inside patch_core");
}

#[test]
fn walkers_without_astar_do_not_go_round_the_baffle() {
    let failed = broken("scenarios/semantic_groups/baffle.crowd", walk_straight);
    assert_fails(&failed, "northerners reaches goal within 35 s");
}

#[test]
fn walkers_without_astar_do_not_go_round_the_ledge() {
    let failed = broken("scenarios/semantic_groups/ledge.crowd", walk_straight);
    assert_fails(&failed, "walkers reaches goal within 32 s");
}

#[test]
fn guests_keeping_their_places_while_they_choose_freeze_capacity_demand() {
    let failed = broken("scenarios/semantic_groups/capacity_demand.crowd", |p| p.switches.give_up_places = false);
    assert_fails(&failed, "each of guests picks at least 3 goals by 300 s");
}

#[test]
fn groups_not_waiting_in_line_starve_in_capacity_demand() {
    let failed = broken("scenarios/semantic_groups/capacity_demand.crowd", |p| p.switches.wait_in_line = false);
    assert_fails(&failed, "each of guests picks at least 3 goals by 300 s");
}

#[test]
fn guests_keeping_their_places_while_they_choose_freeze_the_backyard() {
    let failed = broken("scenarios/semantic_groups/backyard.crowd", |p| p.switches.give_up_places = false);
    assert_fails(&failed, "each of guests picks at least 2 goals by 179 s");
}

#[test]
fn guests_keeping_their_places_while_they_choose_freeze_the_party() {
    let failed = broken("scenarios/semantic_groups/party.crowd", |p| p.switches.give_up_places = false);
    assert_fails(&failed, "each of guests picks at least 2 goals by 119 s");
}

#[test]
fn a_trio_walking_onto_walkers_carries_one_into_its_core() {
    let failed = broken("scenarios/semantic_groups/crossing_trio.crowd", |p| p.switches.groups_let_by = false);
    assert_fails(&failed, "nobody of passers inside group space of trio");
}

#[test]
fn paths_without_body_clearance_wait_at_the_narrow_slot() {
    let failed = broken("scenarios/semantic_groups/narrow_slot.crowd", |p| p.switches.astar_clearance = false);
    assert_fails(&failed, "at least 1 of trio inside opening");
}

#[test]
fn walking_points_nearest_the_cell_centres_miss_the_bathroom_door() {
    let failed = broken("scenarios/semantic_groups/bathroom_door.crowd", |p| p.switches.astar_door_points = false);
    assert_fails(&failed, "bathers reaches goal within 20 s");
    assert_fails(&failed, "cooks reaches goal within 20 s");
}

#[test]
fn walkers_turning_right_first_at_every_step_stay_stuck_at_the_bench() {
    // Seed 91: a guest beside two guests dwelling at the bench swung from
    // one side of them to the other, 7 cm a step, to the end of the run.
    let mut program = compile("scenarios/semantic_groups/capacity_demand.crowd");
    program.header.seed = 91;
    assert!(failures(&program).is_empty(), "the scenario holds at seed 91");
    program.switches.keep_turn_side = false;
    assert_fails(&failures(&program), "at most 0 of guests stuck");
}

#[test]
fn walkers_not_turning_round_bodies_are_held_up_at_the_head_on_corner() {
    let failed = broken("scenarios/semantic_groups/head_on_corner.crowd", |p| p.switches.turn_round_bodies = false);
    assert_fails(&failed, "everyone reaches goal");
}

#[test]
fn paths_not_snapped_to_a_usable_node_leave_readers_behind_the_screen_at_the_niche() {
    let failed = broken("scenarios/semantic_groups/niche.crowd", |p| p.switches.astar_snap_ends = false);
    assert_fails(&failed, "inside mouth");
}

#[test]
fn bodies_moved_as_points_overlap_the_walls_they_brush() {
    // The executor keeps a body's radius off every wall; moved as points
    // (radius 1 cm) and measured with their own radii, the bodies that pass
    // at contact overlap the walls.
    for rel in [
        "scenarios/semantic_groups/narrow_slot.crowd",
        "scenarios/semantic_groups/bathroom_door.crowd",
        "scenarios/semantic_groups/door.crowd",
        "scenarios/basics/pillars.crowd",
        "scenarios/space_colonization/pursuit_pillar.crowd",
    ] {
        let program = compile(rel);
        assert!(failures(&program).is_empty(), "{rel} holds");
        let mut points = program.clone();
        for p in &mut points.populations {
            p.radius = Dist::Constant(0.01);
        }
        let failed = failures_measured(&program, &points);
        assert_fails(&failed, "clearance of everyone >= 0 m");
    }
}
