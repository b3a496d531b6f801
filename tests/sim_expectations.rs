//! Expectations are evaluated over the recorded frames: each kind can hold
//! and can fail, and a kind that cannot be evaluated yet fails loudly.

mod sim_support;

use crowd::ir::*;
use crowd::trace::metrics::{evaluate, Verdict};
use sim_support::*;

fn expect(text: &str, kind: ExpectationKind) -> Expectation {
    Expectation { text: text.into(), kind }
}

/// Two crowds crossing a room with a box in the middle.
fn scene() -> Program {
    let mut p = program(rect(0.0, 0.0, 30.0, 10.0), 30.0);
    p.header.record_every = 12;
    p.world.regions = vec![
        region("west", Shape::Rect(rect(0.5, 0.5, 6.0, 9.5))),
        region("east", Shape::Rect(rect(24.0, 0.5, 29.5, 9.5))),
    ];
    p.world.obstacles = vec![Obstacle { name: "box".into(), shape: Shape::Rect(rect(14.0, 8.0, 16.0, 10.0)) }];
    p.populations = vec![
        population("eastward", 20, Place::Region(RegionId(0)), Some(Goal::Region(RegionId(1)))),
        population("westward", 20, Place::Region(RegionId(1)), Some(Goal::Region(RegionId(0)))),
    ];
    p
}

fn verdicts(p: &Program) -> Vec<Verdict> {
    let (bytes, _) = run(p);
    let rec = recorded(p, &bytes);
    evaluate(p, &rec).into_iter().map(|c| c.verdict).collect()
}

fn holds(v: &Verdict) -> bool {
    matches!(v, Verdict::Holds(_))
}

#[test]
fn every_kind_can_hold_and_can_fail() {
    let east = Subject::Population(PopulationId(0));
    let all = Subject::Everyone;
    let mut p = scene();
    p.expectations = vec![
        expect("apart 0.05", ExpectationKind::MinDistance { among: all, distance: 0.05, at: None }),
        expect("apart 0.6", ExpectationKind::MinDistance { among: all, distance: 0.6, at: None }),
        expect("out of the box", ExpectationKind::NeverInside { who: all, obstacle: None }),
        expect(
            "east in east at 28 s",
            ExpectationKind::Inside {
                who: east,
                comparison: Comparison::AtLeast,
                amount: Amount::Share(0.75),
                area: AreaRef::Region(RegionId(1)),
                at: When::At(28.0),
            },
        ),
        expect(
            "east in east at 1 s",
            ExpectationKind::Inside {
                who: east,
                comparison: Comparison::AtLeast,
                amount: Amount::Share(0.9),
                area: AreaRef::Region(RegionId(1)),
                at: When::At(1.0),
            },
        ),
        expect("40 alive", ExpectationKind::CountIs { who: all, count: 40, tolerance: 0, at: When::At(10.0) }),
        expect("30 alive", ExpectationKind::CountIs { who: all, count: 30, tolerance: 5, at: When::At(10.0) }),
        expect("after the end", ExpectationKind::CountIs { who: all, count: 40, tolerance: 0, at: When::At(100.0) }),
        expect(
            "east away from west",
            ExpectationKind::AwayFrom {
                who: east,
                from: Subject::Population(PopulationId(1)),
                distance: 10.0,
                at: When::At(0.0),
            },
        ),
        expect(
            "east away from west later",
            ExpectationKind::AwayFrom {
                who: east,
                from: Subject::Population(PopulationId(1)),
                distance: 10.0,
                at: When::At(12.0),
            },
        ),
        expect(
            "formation",
            ExpectationKind::FormationIs { group: east, formation: FormationKind::River, at: When::At(5.0) },
        ),
    ];
    let v = verdicts(&p);
    let got: Vec<bool> = v.iter().map(holds).collect();
    assert_eq!(got, [true, false, true, true, false, true, false, false, true, false, false], "{v:#?}");
    // Formations are read from the trace's formation column, which this scene does not write.
    assert!(matches!(&v[10], Verdict::Fails(d) if d.contains("no `formation` column")), "{:?}", v[10]);
    assert!(matches!(&v[7], Verdict::Fails(d) if d.contains("the run ends at 30 s")), "{:?}", v[7]);
}

#[test]
fn reaching_a_goal_is_measured_from_the_trace() {
    // A few walkers with the room to themselves all get there.
    let mut p = scene();
    p.populations.truncate(1);
    p.populations[0].schedule = Schedule::Fixed { count: 5 };
    let east = Subject::Population(PopulationId(0));
    p.expectations = vec![
        expect("reach by 29 s", ExpectationKind::ReachesGoal { who: east, by: Some(29.0) }),
        expect("reach by 2 s", ExpectationKind::ReachesGoal { who: east, by: Some(2.0) }),
    ];
    let v = verdicts(&p);
    assert!(holds(&v[0]), "{:?}", v[0]);
    assert!(matches!(&v[1], Verdict::Fails(d) if d.starts_with("5 of 5 agent(s) did not arrive by 2 s")), "{:?}", v[1]);
}

#[test]
fn lanes_and_surround_are_measured() {
    let mut p = scene();
    p.header.duration = 12.0;
    p.expectations = vec![
        expect(
            "lanes",
            ExpectationKind::Lanes { width: 0.6, among: Subject::Everyone, threshold: 0.5, at: When::At(8.0) },
        ),
        expect(
            "impossible lanes",
            ExpectationKind::Lanes { width: 0.6, among: Subject::Everyone, threshold: 1.01, at: When::At(8.0) },
        ),
        // Everyone around the box's centre covers little of the circle at the start.
        expect(
            "spread",
            ExpectationKind::Surrounds {
                who: Subject::Population(PopulationId(0)),
                target: Subject::Population(PopulationId(1)),
                spread: 6.0,
                at: When::At(0.0),
            },
        ),
    ];
    let v = verdicts(&p);
    assert!(holds(&v[0]), "{:?}", v[0]);
    assert!(!holds(&v[1]), "{:?}", v[1]);
    assert!(!holds(&v[2]), "{:?}", v[2]);
}

#[test]
fn a_min_distance_over_a_window_leaves_out_the_frames_outside_it() {
    // Two bodies placed on one spot, parted by distance enforcement in the first step.
    let mut p = scene();
    let spot = Vec2::new(15.0, 5.0);
    p.populations = vec![population("pair", 2, Place::Point(spot), Some(Goal::Point(spot)))];
    let pair = Subject::Population(PopulationId(0));
    let apart = |at| ExpectationKind::MinDistance { among: pair, distance: 0.45, at };
    p.expectations = vec![
        expect("over the run", apart(None)),
        expect("from 1 s", apart(Some(When::During(1.0, 30.0)))),
        expect("at the start", apart(Some(When::At(0.0)))),
        expect("most of the run", apart(Some(When::Share { share: 0.9, from: 0.0, to: 30.0 }))),
    ];
    let v = verdicts(&p);
    assert!(matches!(&v[0], Verdict::Fails(d) if d.contains("closest: 0 m")), "{:?}", v[0]);
    assert!(holds(&v[1]), "{:?}", v[1]);
    assert!(matches!(&v[2], Verdict::Fails(d) if d.contains("closest: 0 m") && d.contains("at 0 s")), "{:?}", v[2]);
    assert!(holds(&v[3]), "{:?}", v[3]);
}

#[test]
fn a_clearance_claim_measures_from_the_body_edge_to_the_nearest_obstacle() {
    // One walker straight along y = 5 m, past the box whose near side is y = 8 m:
    // its centre passes 3 m from the box, its edge 3 m less its radius.
    let mut p = scene();
    p.populations =
        vec![population("walker", 1, Place::Point(Vec2::new(2.0, 5.0)), Some(Goal::Point(Vec2::new(28.0, 5.0))))];
    let r = 0.25;
    let walker = Subject::Population(PopulationId(0));
    let box_ = Some(ObstacleId(0));
    let clear = |distance, obstacle, at| ExpectationKind::Clearance { who: walker, obstacle, distance, at };
    p.expectations = vec![
        expect("edge clear", clear(3.0 - r - 0.01, None, None)),
        expect("centre clear", clear(3.0 - 0.01, None, None)),
        expect("at the start", clear(3.0, box_, Some(When::At(0.0)))),
        expect("while passing", clear(3.0, box_, Some(When::During(0.0, 30.0)))),
    ];
    let v = verdicts(&p);
    assert!(holds(&v[0]), "{:?}", v[0]);
    assert!(matches!(&v[1], Verdict::Fails(d) if d.contains("from box")), "{:?}", v[1]);
    assert!(holds(&v[2]), "{:?}", v[2]);
    assert!(matches!(&v[3], Verdict::Fails(d) if d.contains("first fails")), "{:?}", v[3]);
}
