//! The leader-follower scenarios' expectations are what make them pass: run
//! a scenario with the behaviour it shows switched off in the compiled
//! `Program` and the same expectations must fail.

use crowd::ir::{Action, Program};

mod scenario_support;
use scenario_support::{assert_fails, broken, each_action};

/// Leaders plan around static obstacles only, each on its own NF1 path.
fn leaders_blind_to_each_other(program: &mut Program) {
    program.switches.leaders_in_ct_space = false;
}

#[test]
fn leaders_blind_to_each_other_meet_head_on_in_the_passage() {
    let failed = broken("scenarios/leader_follower/fig04_narrow_passage.crowd", leaders_blind_to_each_other);
    assert_fails(&failed, "leader_two reaches goal within 50 s");
}

#[test]
fn four_leaders_blind_to_each_other_collide_in_the_middle() {
    let failed = broken("scenarios/leader_follower/fig05_four_leaders.crowd", leaders_blind_to_each_other);
    assert_fails(&failed, "min distance among leaders >= 0.55 m");
}

#[test]
fn followers_attracted_by_the_guide_alone_stay_in_the_cup() {
    let failed = broken("scenarios/leader_follower/fig06_u_trap.crowd", |p| p.switches.trace_attraction = false);
    assert_fails(&failed, "followers of tour within 4 m of guide at 58 s");
}

#[test]
fn followers_who_never_switch_to_evacuation_stay_gathered() {
    let failed = broken("scenarios/leader_follower/fig08_evacuation.crowd", |p| {
        each_action(p, |a| {
            if let Action::Evacuate { .. } = a {
                *a = Action::Follow { leader: None };
            }
        });
    });
    assert_fails(&failed, "followers of crowd farther than 6 m from warden at 40 s");
}

#[test]
fn leaders_planning_for_themselves_alone_lead_their_crowds_through_each_other() {
    let failed = broken("scenarios/leader_follower/fig11_two_crowds.crowd", |p| {
        each_action(p, |a| {
            if let Action::Seek { planner, .. } = a {
                planner.crowd_aware = false;
            }
        });
    });
    assert_fails(&failed, "followers of green farther than 1 m from followers of blue");
}
