//! The space-colonization scenarios' expectations are what make them pass:
//! run a figure's scenario with one piece of the model switched off and the
//! claim that states that piece must fail (while the scenario itself holds).
//!
//! - Fig 2: tree paths replaced by a straight seek: the walker does not get
//!   round the wall to its goal.
//! - Fig 3: pursuit replaced by a seek of the target's start point: the
//!   follower does not reach the target.
//! - Fig 4: pursuers sharing markers: they do not split round the crate;
//!   and hunters that stand where their trees end: they stay on one side
//!   of the target.
//! - Fig 5 and `escape_corridor`: pursuing the followers instead of
//!   escaping them: the runner does not get away. Fig 5: a runner that
//!   walks on to the farthest node however its branch winds: it turns
//!   back towards the followers.
//! - Fig 6: each team forms the other's letter: neither fills its own
//!   (`w_max = 1` no longer breaks it: the letters fill on their denser
//!   markers alone).
//! - `shape_capacity_half`, `shape_capacity_90`: `w_max = 1`: the upright
//!   and the foot of the L do not hold their share of the formers.
//! - Fig 7: each troupe aligned to the other's mask, so its own is gone: the
//!   troupes do not settle on the mask lines.
//! - Fig 8: the trail sprayed no denser than the floor: the walkers do not
//!   follow it.
//! - Fig 10: `w_max = 1`: the performers do not gather in the star; and with
//!   the rows mask dropped from the second state, they do not line up.
//! - Fig 11: the target standing at its start instead of escaping: the pack
//!   closes in on it.
//! - `escape_corner`: a runner that only grows its tree again where its
//!   branches lead back towards the followers: it stands at the corner.
//! - Fig 13: neither marker reservation nor distance enforcement: the
//!   crossing flows collide; and walkers that do not keep right of people
//!   coming the other way: the flows do not pass on their own sides.
//! - Fig 13 at twice its density, walkers not keeping right: the flows
//!   meet head on and crawl past each other (a quarter of the trips within
//!   three times the free walk, and some walkers not across by 140 s).
//! - Fig 13 at five times its density, walkers not keeping right: the flows
//!   lock head on, nobody gets across and the flows do not keep to sides.
//! - `surround_open`: the pack pursuing with shared markers instead of
//!   surrounding: it closes in from one side; pursuers that stand where
//!   their trees end: three stand on one side; and, at seed 14, pursuers
//!   that walk on along a branch leading away from the target in sight:
//!   one loops out more than 21 m.
//! - `surround_crowded`: pursuers closing in to the target's heels whoever
//!   stands nearer it: they crowd in and push the target out of its place.
//! - `pursuit_pillar`: the hunter seeking where the target started instead
//!   of pursuing it: it does not stay on the target's heels.
//! - `pursuit_wall`: the hunter seeking where the target started: it does
//!   not reach the target; and a hunter whose way is cut and regrown at
//!   once each time the target moves on: it turns back under the wall.
//! - `lift_doors`: no distance enforcement (neither `t_min` nor bodies):
//!   the riders on one spot stay stacked there while they wait.
//! - `gather_room`: walkers counted as arrived as soon as they wait behind
//!   anyone who arrived: the room fills in a crust on one side.
//! - `round_standing`: a way around that only asks for free markers: the
//!   walker is offered a node behind a talker, refused it every time, and
//!   stands at its spawn.
//! - `erase_in_the_way`: trees that grow over ground an erase left without
//!   markers: walkers step into the hole.
//! - `round_block`: a tree that grows nothing at the block's face waited on
//!   until the growth cap: the walkers facing the block stand there and
//!   are not across in time.

use crowd::ir::{Action, BehaviourBody, Dist, Place, Planner, PlannerKind, Program, Target, Vec2};

mod scenario_support;
use scenario_support::{compile, failures, known};

/// The scenario `scenarios/space_colonization/<name>.crowd`, checked to hold
/// as it is (but for its known failures).
fn holding(name: &str) -> Program {
    let rel = format!("scenarios/space_colonization/{name}.crowd");
    let program = compile(&rel);
    let failed: Vec<String> = failures(&program).into_iter().filter(|f| !known(&rel, f)).collect();
    assert!(failed.is_empty(), "{name} itself holds: {failed:?}");
    program
}

/// Asserts that the expectation whose text contains `claim` fails.
fn assert_fails(program: &Program, claim: &str) {
    assert_each_fails(program, &[claim]);
}

/// Asserts that every expectation whose text contains one of `claims`
/// fails, from a single run.
fn assert_each_fails(program: &Program, claims: &[&str]) {
    let failed = failures(program);
    for claim in claims {
        assert!(
            failed.iter().any(|f| f.starts_with("FAILS: ") && f.contains(claim)),
            "`{claim}` still holds with the model switched off; failing: {failed:?}"
        );
    }
}

fn actions_mut(program: &mut Program) -> impl Iterator<Item = &mut Action> {
    program.behaviours.iter_mut().flat_map(|b| match &mut b.body {
        BehaviourBody::Rules(r) => r.iter_mut().flat_map(|r| r.actions.iter_mut()).collect::<Vec<_>>(),
        BehaviourBody::States(s) => s.iter_mut().flat_map(|s| s.actions.iter_mut()).collect::<Vec<_>>(),
    })
}

/// A planner of `kind` with none of the crowd extension's options.
fn planner(kind: PlannerKind) -> Planner {
    Planner {
        kind,
        reserve_markers: false,
        disjoint_markers: false,
        bias: None,
        grid: None,
        crowd_aware: false,
        pairwise_checks: false,
        params: Vec::new(),
    }
}

/// Where the single agent `name` starts.
fn start_of(program: &Program, name: &str) -> Vec2 {
    match program.populations.iter().find(|p| p.name == name).map(|p| &p.spawn) {
        Some(Place::Point(p)) => *p,
        other => panic!("{name} starts at a point: {other:?}"),
    }
}

/// Pursuit switched off: every pursuer seeks, by the same planner, the
/// point where the agent `target` started.
fn seek_where_the_target_started(program: &mut Program) {
    let start = start_of(program, "target");
    for a in actions_mut(program) {
        if let Action::Pursue { planner, .. } = a {
            *a = Action::Seek { target: Target::Point(start), planner: planner.clone() };
        }
    }
}

#[test]
fn a_straight_seek_does_not_get_round_the_wall_fig2() {
    let mut program = holding("fig02_around_the_wall");
    for a in actions_mut(&mut program) {
        if let Action::Seek { planner, .. } = a {
            planner.kind = PlannerKind::Straight;
        }
    }
    assert_fails(&program, "walker reaches goal");
}

#[test]
fn seeking_where_the_target_was_does_not_catch_it_fig3() {
    let mut program = holding("fig03_pursue");
    seek_where_the_target_started(&mut program);
    assert_fails(&program, "follower reaches goal");
}

#[test]
fn surround_without_disjoint_markers_fails_fig4() {
    let mut program = holding("fig04_surround");
    for a in actions_mut(&mut program) {
        if let Action::Pursue { planner, .. } = a {
            planner.disjoint_markers = false;
        }
    }
    assert_fails(&program, "_route");
}

/// Every escape becomes a pursuit of the followers' first agent.
fn pursue_instead_of_escaping(program: &mut Program) {
    for a in actions_mut(program) {
        if let Action::Escape { from } = a {
            *a = Action::Pursue { target: *from, planner: planner(PlannerKind::TreePaths) };
        }
    }
}

#[test]
fn escaping_towards_the_followers_fails_fig5() {
    let mut program = holding("fig05_escape");
    pursue_instead_of_escaping(&mut program);
    assert_fails(&program, "runner farther than 8 m from followers");
}

#[test]
fn a_runner_whose_branch_winds_back_fails_fig5() {
    let mut program = holding("fig05_escape");
    program.switches.escape_farther = false;
    assert_fails(&program, "runner farther than 8 m from followers during");
}

#[test]
fn a_runner_regrowing_its_tree_at_the_corner_stands_there_escape_corner() {
    let mut program = holding("escape_corner");
    program.switches.escape_round_corners = false;
    assert_each_fails(&program, &["runner moves at least 6 m", "runner farther than 10 m from followers"]);
}

#[test]
fn escaping_towards_the_followers_fails_escape_corridor() {
    let mut program = holding("escape_corridor");
    pursue_instead_of_escaping(&mut program);
    assert_each_fails(
        &program,
        &["runner farther than 2.5 m from followers during", "runner farther than 10 m from followers at 10 s"],
    );
}

#[test]
fn teams_forming_each_others_letter_fail_fig6() {
    // `w_max = 1` no longer breaks Fig 6: with every agent competing for
    // markers and formers moving on to roomier parts of their letter, 20-24
    // agents fill a letter on its denser markers alone (Eq 14's weight is
    // pinned by the crowded L below). Each team forms the other's letter.
    let mut program = holding("fig06_letters_vh");
    let shapes: Vec<_> = actions_mut(&mut program)
        .filter_map(|a| match a {
            Action::Form { shape } => Some(*shape),
            _ => None,
        })
        .collect();
    assert_eq!(shapes.len(), 2, "one form per team");
    for a in actions_mut(&mut program) {
        if let Action::Form { shape } = a {
            *shape = if *shape == shapes[0] { shapes[1] } else { shapes[0] };
        }
    }
    assert_each_fails(&program, &["of h_team inside letter_h", "of v_team inside letter_v"]);
}

#[test]
fn crowded_ls_whose_markers_weigh_like_the_floor_are_not_filled_shape_capacity() {
    // Half and 90% of the L's packing capacity: without Eq 14's weight the
    // formers settle around the L on the floor's markers as much as in it.
    for name in ["shape_capacity_half", "shape_capacity_90"] {
        let mut program = holding(name);
        program.params.space_colonization.w_max = 1.0;
        assert_each_fails(&program, &["of formers inside upright", "of formers inside foot"]);
    }
}

#[test]
fn troupes_without_their_masks_do_not_line_up_fig7() {
    // Each troupe aligns to the other's mask, which lies in the other room:
    // it moves by plain marker weights (Eqs 10-12), no mask in sight.
    let mut program = holding("fig07_alignment_masks");
    let masks = program.world.masks.len() as u32;
    assert_eq!(masks, 2, "a mask per troupe");
    for a in actions_mut(&mut program) {
        if let Action::Align { mask } = a {
            mask.0 = masks - 1 - mask.0;
        }
    }
    assert_each_fails(&program, &["of left_troupe inside checkers", "of right_troupe inside pillars"]);
}

#[test]
fn a_trail_no_denser_than_the_floor_is_not_followed_fig8() {
    let mut program = holding("fig08_sprayed_path");
    let floor = program.world.markers.base.expect("a floor of markers").density;
    let trail = &mut program.world.markers.overrides;
    assert_eq!(trail.len(), 1, "one sprayed trail");
    trail[0].density = Some(floor);
    assert_fails(&program, "of walkers inside trail");
}

#[test]
fn a_star_whose_markers_weigh_like_the_floor_is_not_formed_fig10() {
    let mut program = holding("fig10_star_formation_alignment");
    program.params.space_colonization.w_max = 1.0;
    assert_fails(&program, "of performers inside star");
}

#[test]
fn performers_without_the_rows_mask_do_not_line_up_fig10() {
    let mut program = holding("fig10_star_formation_alignment");
    for b in &mut program.behaviours {
        if let BehaviourBody::States(states) = &mut b.body {
            for s in states {
                s.actions.retain(|a| !matches!(a, Action::Align { .. }));
            }
        }
    }
    assert_fails(&program, "of performers inside rows_mask");
}

#[test]
fn a_target_that_stays_put_is_caught_fig11() {
    let mut program = holding("fig11_escape_four");
    let start = start_of(&program, "target");
    for a in actions_mut(&mut program) {
        if let Action::Escape { .. } = a {
            *a = Action::Seek { target: Target::Point(start), planner: planner(PlannerKind::Straight) };
        }
    }
    assert_each_fails(&program, &["target farther than 1 m from pack at 15 s", "target moves at least 10 m by 15 s"]);
}

#[test]
fn a_pack_that_does_not_give_chase_fails_fig11() {
    let mut program = holding("fig11_escape_four");
    for a in actions_mut(&mut program) {
        if let Action::Surround { .. } = a {
            *a = Action::Dwell(None);
        }
    }
    assert_fails(&program, "at most 1 of pack move less than 6 m by 15 s");
}

#[test]
fn a_crowd_without_reservation_or_enforcement_collides_fig13() {
    // Marker reservation is what keeps the crossing flows apart.
    let mut program = holding("fig13_crowd_lanes");
    for a in actions_mut(&mut program) {
        if let Action::Seek { planner, .. } = a {
            planner.reserve_markers = false;
        }
    }
    // Bodies keep at least the sum of their radii apart too: both must go.
    program.params.space_colonization.t_min = 0.0;
    for p in &mut program.populations {
        p.radius = Dist::Constant(0.0);
    }
    assert_fails(&program, "min distance");
}

#[test]
fn flows_that_do_not_keep_right_mix_fig13() {
    let mut program = holding("fig13_crowd_lanes");
    program.params.space_colonization.lane_lookahead = 0.0;
    assert_fails(&program, "of eastbound inside south");
}

#[test]
fn flows_that_do_not_keep_right_meet_head_on_and_crawl_fig13_lanes_2x() {
    let mut program = holding("fig13_lanes_2x");
    program.params.space_colonization.lane_lookahead = 0.0;
    assert_each_fails(&program, &["trips of everyone complete within 80 s", "reaches goal within 140 s"]);
}

#[test]
fn flows_that_do_not_keep_right_lock_fig13_lanes_5x() {
    let mut program = holding("fig13_lanes_5x");
    program.params.space_colonization.lane_lookahead = 0.0;
    // Not `lanes >= 0.9`: it scores the moving agents, and locked flows
    // stand (177 of 200 stuck); the few still moving walk in single files.
    assert_each_fails(
        &program,
        &["reaches goal within 150 s", "at most 0 of everyone stuck", "of eastbound inside south"],
    );
}

#[test]
fn flows_that_do_not_keep_right_mix_and_stall_fig13_lanes_8m() {
    let mut program = holding("fig13_lanes_8m");
    program.params.space_colonization.lane_lookahead = 0.0;
    assert_each_fails(&program, &["of eastbound inside south", "trips of everyone complete within 80 s"]);
}

#[test]
fn pursuers_sharing_markers_do_not_surround_surround_open() {
    let mut program = holding("surround_open");
    for a in actions_mut(&mut program) {
        if let Action::Surround { target } = a {
            *a = Action::Pursue { target: *target, planner: planner(PlannerKind::TreePaths) };
        }
    }
    assert_fails(&program, "pack surround target");
}

#[test]
fn pursuers_that_stand_where_their_trees_end_do_not_surround_surround_open() {
    let mut program = holding("surround_open");
    program.switches.surround_evenly = false;
    assert_fails(&program, "pack surround target");
}

#[test]
fn pursuers_closing_in_whoever_stands_before_them_shove_the_target_surround_crowded() {
    let mut program = holding("surround_crowded");
    program.switches.surround_wait_behind = false;
    assert_fails(&program, "target inside home");
}

#[test]
fn pursuers_walking_away_from_the_target_in_sight_loop_out_surround_open() {
    // At the scenario's seed the rule changes nothing; at seed 14, with
    // markers claimed by the first tree in id order, the last pursuer out of
    // the den finds the markers ahead claimed. (With claims to the nearest
    // tree no pursuer there is starved so: the rule changes no claim's
    // verdict at seeds 1-20 of the surround scenes.)
    let mut program = holding("surround_open");
    program.header.seed = 14;
    program.switches.claims_to_nearest_tree = false;
    let failed = failures(&program);
    assert!(failed.is_empty(), "surround_open holds at seed 14: {failed:?}");
    program.switches.pursue_closer = false;
    assert_each_fails(&program, &["pack within 21 m of target", "pack within 2 m of target at 35 s"]);
}

#[test]
fn hunters_whose_markers_go_to_the_first_tree_take_one_route_fig4() {
    // Seed 1: with markers claimed by the first tree in id order, no
    // hunter is on the south route at 12 s.
    let mut program = holding("fig04_surround");
    program.header.seed = 1;
    let failed = failures(&program);
    assert!(failed.is_empty(), "fig04_surround holds at seed 1: {failed:?}");
    program.switches.claims_to_nearest_tree = false;
    assert_fails(&program, "hunters inside south_route at 12 s");
}

#[test]
fn hunters_that_stand_where_their_trees_end_stay_on_one_side_fig4() {
    let mut program = holding("fig04_surround");
    program.switches.surround_evenly = false;
    assert_fails(&program, "hunters surround target");
}

#[test]
fn seeking_where_the_target_was_loses_it_pursuit_pillar() {
    let mut program = holding("pursuit_pillar");
    seek_where_the_target_started(&mut program);
    assert_fails(&program, "hunter within 1 m of target");
}

#[test]
fn seeking_where_the_target_was_loses_it_pursuit_wall() {
    let mut program = holding("pursuit_wall");
    seek_where_the_target_started(&mut program);
    assert_fails(&program, "hunter within 1 m of target");
}

#[test]
fn hunters_that_cut_their_way_at_once_turn_back_under_the_wall_pursuit_wall() {
    let mut program = holding("pursuit_wall");
    program.switches.pursuit_keeps_way = false;
    assert_fails(&program, "hunter inside under_wall during 15 s to 40 s");
}

#[test]
fn arriving_behind_anyone_who_arrived_leaves_a_crust_gather_room() {
    let mut program = holding("gather_room");
    program.switches.fill_from_aim = false;
    assert_each_fails(&program, &["of crowd inside heart at 90 s", "of crowd inside room at 115 s", "of crowd stuck"]);
}

#[test]
fn a_way_around_through_a_standing_body_is_refused_for_good_round_standing() {
    let mut program = holding("round_standing");
    program.switches.sidestep_round_standing = false;
    assert_each_fails(&program, &["walker reaches goal", "of everyone stuck"]);
}

#[test]
fn trees_that_grow_over_bare_ground_walk_into_the_hole_erase_in_the_way() {
    let mut program = holding("erase_in_the_way");
    program.switches.keep_off_bare_ground = false;
    assert_fails(&program, "of everyone inside hole during 8 s to 50 s");
}

#[test]
fn trees_started_again_at_the_edge_go_back_and_forth_erase_in_the_way_enforced() {
    let mut program = holding("erase_in_the_way_enforced");
    program.switches.dry_leaf_steps_on = false;
    assert_each_fails(&program, &["of everyone inside hole during 8 s to 50 s", "path ratio of everyone"]);
}

#[test]
fn a_tree_that_grows_nothing_at_the_face_is_waited_on_round_block() {
    let mut program = holding("round_block");
    program.switches.barren_is_dry = false;
    assert_fails(&program, "everyone reaches goal within 35 s");
}

#[test]
fn riders_without_distance_enforcement_stay_stacked_lift_doors() {
    let mut program = holding("lift_doors");
    program.params.space_colonization.t_min = 0.0;
    for p in &mut program.populations {
        p.radius = Dist::Constant(0.0);
    }
    assert_fails(&program, "nearest distance of riders");
}
