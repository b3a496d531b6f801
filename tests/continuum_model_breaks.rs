//! The continuum scenarios' expectations are what make them pass: run a
//! scenario with the behaviour it shows switched off in the compiled
//! `Program` and the same expectations must fail.

mod scenario_support;
use scenario_support::{assert_fails, broken};

const TREES: &str = "scenarios/continuum/fig32_trees.crowd";

#[test]
fn people_who_walk_straight_pile_up_against_the_grove() {
    let failed = broken(TREES, |p| p.switches.continuum_potential = false);
    assert_fails(&failed, "walkers reaches goal within 90 s");
}

#[test]
fn without_discomfort_people_walk_over_the_flower_bed() {
    let failed = broken(TREES, |p| p.params.continuum.discomfort_weight = 0.0);
    assert_fails(&failed, "at most 2% of walkers inside flowerbed during 0 s to 120 s");
}

/// People walk at their free speed whatever the crowd around them does.
fn without_flow_speed(p: &mut crowd::ir::Program) {
    p.params.continuum.density_min = 10.0;
    p.params.continuum.density_max = 10.0;
}

#[test]
fn without_the_flow_speed_two_crossing_groups_weave_single_files() {
    let failed = broken("scenarios/continuum/fig33_crossing.crowd", without_flow_speed);
    assert_fails(&failed, "lanes width 3 m among everyone >= 0.5 during 28 s to 42 s");
}

#[test]
fn people_who_walk_straight_across_the_square_stop_at_the_monument() {
    let failed = broken("scenarios/continuum/four_way.crowd", |p| p.switches.continuum_potential = false);
    for who in ["eastbound", "westbound", "northbound", "southbound"] {
        assert_fails(&failed, &format!("{who} reaches goal within 90 s"));
    }
}

#[test]
fn people_who_walk_straight_at_the_yard_never_find_the_doors() {
    let failed = broken("scenarios/continuum/hall_evacuation.crowd", |p| p.switches.continuum_potential = false);
    assert_fails(&failed, "count of crowd <= 0 at 17 min");
}

#[test]
fn people_for_whom_slopes_cost_nothing_walk_over_the_hill() {
    let failed = broken("scenarios/continuum/hillside.crowd", |p| p.params.continuum.slope_speed = 1.0);
    assert_fails(&failed, "at most 0 of walkers inside hilltop during 0 s to 90 s");
}
