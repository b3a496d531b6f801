//! The behaviour-and-flocks scenarios' expectations are what make them
//! pass: run a scenario with the behaviour it shows switched off in the
//! compiled `Program` and the same expectations must fail.

use crowd::ir::Action;

mod scenario_support;
use scenario_support::{assert_fails, broken, each_action};

const PREDATOR_PREY: &str = "scenarios/behaviour_flocks/predator_prey.crowd";

#[test]
fn a_flock_without_cohesion_drifts_apart_before_the_hawk_comes() {
    let failed = broken(PREDATOR_PREY, |p| {
        each_action(p, |a| {
            if let Action::Flock { cohesion, .. } = a {
                *cohesion = 0.0;
            }
        })
    });
    assert_fails(&failed, "nearest distance of flock <= 3 m during 5 s to 30 s");
    assert_fails(&failed, "spread of flock <= 30 m during 5 s to 30 s");
}

#[test]
fn prey_that_do_not_avoid_the_hawk_neither_scatter_nor_escape() {
    let failed = broken(PREDATOR_PREY, |p| p.params.boids.avoid_weight = 0.0);
    assert_fails(&failed, "spread of flock >= 40 m at 60 s");
    assert_fails(&failed, "count of flock >= 185 at 60 s");
}

#[test]
fn a_hawk_that_never_catches_leaves_the_flock_whole() {
    let failed = broken(PREDATOR_PREY, |p| p.switches.catches = false);
    assert_fails(&failed, "count of flock <= 199 at 40 s");
}

#[test]
fn birds_placed_uniformly_show_neither_orbit() {
    let failed = broken("scenarios/behaviour_flocks/chaotic_placement.crowd", |p| {
        p.switches.chaotic_placement = false;
    });
    assert_fails(&failed, "at most 1% of starlings inside west_edge at 0 s");
    assert_fails(&failed, "at least 10% of sparrows inside east_edge at 0 s");
}

const VILLAGE_WOLF: &str = "scenarios/behaviour_flocks/village_wolf.crowd";

#[test]
fn villagers_who_never_grow_afraid_walk_into_the_wolf() {
    let failed = broken(VILLAGE_WOLF, |p| {
        for b in &mut p.behaviours {
            for var in &mut b.vars {
                var.rises.iter_mut().for_each(|r| r.rate = 0.0);
            }
        }
    });
    assert_fails(&failed, "villagers farther than 1 m from wolf during 0 s to 90 s");
}

#[test]
fn villagers_without_a_memory_pick_new_errands_after_fleeing() {
    let failed = broken(VILLAGE_WOLF, |p| p.switches.goal_memory = false);
    assert_fails(&failed, "each of villagers picks at most 1 goals by 90 s");
}
