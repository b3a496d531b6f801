//! Population schedules, procedural groups, and behaviours: peak creation,
//! leaving after a time or through an exit, state machines with goal picks
//! and dwell times, rules with perception, and a group's followers seen and
//! sought apart from its leader.

mod sim_support;

use crowd::ir::*;
use crowd::trace::read::Table;
use sim_support::*;

fn alive_at(p: &Program, bytes: &[u8], t: f64) -> usize {
    let rec = recorded(p, bytes);
    rec.frame_at(t).unwrap().rows.len()
}

#[test]
fn a_peak_population_grows_linearly_to_its_peak() {
    let mut p = program(rect(0.0, 0.0, 40.0, 40.0), 12.0);
    p.world.regions = vec![region("door", Shape::Rect(rect(1.0, 1.0, 39.0, 39.0)))];
    let mut guests = population("guests", 30, Place::Region(RegionId(0)), None);
    guests.schedule = Schedule::Peak { count: 30, at: 10.0 };
    p.behaviours = vec![rule("idle", vec![Action::Dwell(Some(Dist::Constant(1000.0)))])];
    p.populations = vec![guests];
    let (bytes, outcome) = run(&p);
    assert_eq!(alive_at(&p, &bytes, 0.0), 0);
    assert_eq!(alive_at(&p, &bytes, 5.0), 15);
    assert_eq!(alive_at(&p, &bytes, 10.0), 30);
    assert_eq!(alive_at(&p, &bytes, 12.0), 30);
    assert_eq!(outcome.agents, 30);
    // Creation times are spread, a third of a second apart.
    assert!((outcome.log[1].born - outcome.log[0].born - 1.0 / 3.0).abs() < 0.05);
}

#[test]
fn agents_leave_a_fixed_time_after_they_appear() {
    let mut p = program(rect(0.0, 0.0, 40.0, 40.0), 10.0);
    p.world.regions = vec![region("hall", Shape::Rect(rect(1.0, 1.0, 39.0, 39.0)))];
    let mut visitors = population("visitors", 20, Place::Region(RegionId(0)), None);
    visitors.schedule = Schedule::Peak { count: 20, at: 4.0 };
    visitors.leave = Leave::After(3.0);
    p.behaviours = vec![rule("idle", vec![Action::Dwell(None)])];
    p.populations = vec![visitors];
    let (bytes, outcome) = run(&p);
    for a in &outcome.log {
        let removed = a.removed.expect("everyone leaves");
        assert!((removed - a.born - 3.0).abs() < 1e-9, "agent {} born {} removed {removed}", a.id, a.born);
    }
    assert_eq!(alive_at(&p, &bytes, 9.0), 0);
    // An id is never reused.
    let rec = recorded(&p, &bytes);
    let mut ids: Vec<u32> = rec.trace.id.clone();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 20);
}

#[test]
fn agents_leave_through_their_exit_from_the_given_time() {
    let mut p = program(rect(0.0, 0.0, 30.0, 10.0), 30.0);
    p.world.regions = vec![
        region("room", Shape::Rect(rect(1.0, 1.0, 10.0, 9.0))),
        region("gate", Shape::Segment { a: v(30.0, 4.0), b: v(30.0, 6.0) }),
    ];
    let mut guests = population("guests", 12, Place::Region(RegionId(0)), None);
    guests.leave = Leave::Via { region: RegionId(1), from: 5.0 };
    p.behaviours = vec![rule("idle", vec![Action::Dwell(Some(Dist::Constant(1000.0)))])];
    p.populations = vec![guests];
    let (bytes, outcome) = run(&p);
    assert_eq!(alive_at(&p, &bytes, 5.0), 12, "nobody leaves before 5 s");
    assert_eq!(alive_at(&p, &bytes, 29.0), 0, "everyone left through the gate");
    let table = Table::parse(&bytes).unwrap();
    let state = table.column("state").unwrap();
    assert!(table.rows.iter().any(|r| r[state] == "leaving"));
    for a in &outcome.log {
        assert!(a.arrived.is_some_and(|t| t > 5.0) && a.removed.is_some());
    }
}

#[test]
fn group_members_share_speed_and_number_and_start_together() {
    let mut p = program(rect(0.0, 0.0, 60.0, 60.0), 1.0);
    set_param(&mut p, "space_colonization", "t_min", 0.0001);
    p.world.regions = vec![region("field", Shape::Rect(rect(1.0, 1.0, 59.0, 59.0)))];
    let mut pairs = population("pairs", 40, Place::Region(RegionId(0)), Some(Goal::Point(v(30.0, 30.0))));
    pairs.group_sizes = vec![(2, 1.0)];
    pairs.speed = Dist::Uniform { min: 0.5, max: 2.0 };
    p.populations = vec![pairs];
    p.output.columns = vec![Column::Speed];
    let (bytes, _) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    let frame1: Vec<&Vec<String>> = table.rows.iter().filter(|r| r[c("frame")] == "1").collect();
    let frame0: Vec<&Vec<String>> = table.rows.iter().filter(|r| r[c("frame")] == "0").collect();
    assert_eq!(frame1.len(), 40);
    for k in (0..40).step_by(2) {
        let (a, b) = (frame1[k], frame1[k + 1]);
        assert_eq!(a[c("group")], b[c("group")], "members of one group");
        assert_ne!(a[c("group")], "", "a pair is a group");
        let (sa, sb): (f64, f64) = (a[c("speed")].parse().unwrap(), b[c("speed")].parse().unwrap());
        assert!((sa - sb).abs() < 1e-9, "one speed per group: {sa} {sb}");
        let pos = |r: &Vec<String>| v(r[c("x")].parse().unwrap(), r[c("y")].parse().unwrap());
        assert!(pos(frame0[k]).distance(pos(frame0[k + 1])) <= 1.0 + 1e-9, "members appear together");
    }
    let groups: std::collections::BTreeSet<&String> = frame1.iter().map(|r| &r[c("group")]).collect();
    assert_eq!(groups.len(), 20);
}

/// Guests pick an object providing what they want, walk there, dwell, and pick again.
fn party() -> Program {
    let mut p = program(rect(0.0, 0.0, 20.0, 12.0), 60.0);
    p.world.regions = vec![region("entry", Shape::Rect(rect(1.0, 1.0, 4.0, 11.0)))];
    p.resources = vec!["fun".into(), "food".into()];
    p.spaces = vec![Space {
        name: "house".into(),
        parent: None,
        shape: Shape::Rect(rect(0.0, 0.0, 20.0, 12.0)),
        doors: vec![],
        objects: vec![ObjectId(0), ObjectId(1), ObjectId(2)],
        provides: vec![ResourceId(0), ResourceId(1)],
    }];
    let object = |name: &str, at: Vec2, r: u32, capacity: Option<u32>| Object {
        name: name.into(),
        space: SpaceId(0),
        position: at,
        provides: vec![ResourceId(r)],
        capacity,
    };
    p.objects = vec![
        object("tv", v(18.0, 2.0), 0, None),
        object("sofa", v(15.0, 10.0), 0, Some(2)),
        object("buffet", v(10.0, 6.0), 1, None),
    ];
    p.behaviours = vec![Behaviour {
        name: "visitor".into(),
        vars: vec![],
        body: BehaviourBody::States(vec![
            State {
                name: "choose".into(),
                actions: vec![Action::PickGoal],
                transitions: vec![Transition { trigger: Trigger::Done, to: 1 }],
            },
            State {
                name: "walk".into(),
                actions: vec![Action::Seek { target: Target::OwnGoal, planner: straight() }],
                transitions: vec![Transition { trigger: Trigger::Arrival, to: 2 }],
            },
            State {
                name: "stay".into(),
                actions: vec![Action::Dwell(None)],
                transitions: vec![Transition { trigger: Trigger::Done, to: 0 }],
            },
        ]),
    }];
    let mut guests = population("guests", 8, Place::Region(RegionId(0)), None);
    guests.wants = vec![ResourceId(0), ResourceId(1)];
    guests.dwell = Dist::Uniform { min: 3.0, max: 6.0 };
    guests.group_sizes = vec![(1, 0.5), (2, 0.5)];
    p.populations = vec![guests];
    p.output.columns = vec![Column::Goal];
    p
}

#[test]
fn a_state_machine_picks_walks_dwells_and_picks_again() {
    let p = party();
    let (bytes, outcome) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    // Follow agent 0 through its states.
    let states: Vec<(String, String)> = table
        .rows
        .iter()
        .filter(|r| r[c("id")] == "0")
        .map(|r| (r[c("state")].clone(), r[c("goal")].clone()))
        .collect();
    let mut visits: Vec<&(String, String)> = states.iter().collect();
    visits.dedup();
    let stays = visits.iter().filter(|(s, _)| s == "stay").count();
    assert!(stays >= 3, "agent 0 stayed {stays} times: {visits:?}");
    assert!(visits.iter().all(|(s, g)| s == "choose" || ["tv", "sofa", "buffet"].contains(&g.as_str())), "{visits:?}");
    // Dwell times come from the population's uniform(3 s, 6 s): each stay lasts 3–6 s.
    let mut run_len = 0;
    let mut lengths = vec![];
    for (s, _) in &states {
        if s == "stay" {
            run_len += 1;
        } else if run_len > 0 {
            lengths.push(run_len);
            run_len = 0;
        }
    }
    for l in &lengths {
        let secs = *l as f64 / 24.0;
        assert!((2.9..=6.1).contains(&secs), "a stay of {secs} s");
    }
    assert!(outcome.log.iter().all(|a| a.arrived.is_some()), "everyone reached a goal");
}

#[test]
fn group_members_dwell_together_and_go_on_together() {
    let p = party();
    let (bytes, _) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    // Per frame and pair: do the two members head for different goals?
    let mut rows: Vec<&Vec<String>> = table.rows.iter().filter(|r| !r[c("group")].is_empty()).collect();
    rows.sort_by_key(|r| (r[c("frame")].parse::<u32>().unwrap(), r[c("group")].parse::<u32>().unwrap()));
    let (mut pairs, mut apart) = (0, 0);
    for w in rows.windows(2) {
        if w[0][c("frame")] == w[1][c("frame")] && w[0][c("group")] == w[1][c("group")] {
            pairs += 1;
            apart += usize::from(w[0][c("goal")] != w[1][c("goal")]);
        }
    }
    assert!(pairs > 1000, "{pairs} pair-frames");
    // One dwell per pair: they pick their next goal together (a member that
    // drew its own dwell would walk off alone for seconds at a time).
    assert!(apart * 100 <= pairs, "members of a pair head for different goals in {apart} of {pairs} frames");
}

#[test]
fn a_full_object_is_not_picked() {
    let mut p = party();
    // Only the sofa provides anything, for at most 2 agents at a time.
    p.objects[0].provides = vec![];
    p.objects[2].provides = vec![];
    p.populations[0].group_sizes = vec![(1, 1.0)];
    p.populations[0].dwell = Dist::Constant(1000.0);
    p.header.duration = 20.0;
    let (bytes, _) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    let last = table.rows.iter().map(|r| r[c("frame")].parse::<u32>().unwrap()).max().unwrap().to_string();
    let on_sofa = table.rows.iter().filter(|r| r[c("frame")] == last && r[c("goal")] == "sofa").count();
    let choosing = table.rows.iter().filter(|r| r[c("frame")] == last && r[c("state")] == "choose").count();
    assert_eq!((on_sofa, choosing), (2, 6));
}

#[test]
fn rules_switch_on_what_agents_see() {
    let mut p = program(rect(0.0, 0.0, 30.0, 10.0), 10.0);
    // The watcher walks east until the stranger (walking west towards it) is
    // within 4 m in front of it, then turns back.
    p.behaviours = vec![
        Behaviour {
            name: "watch".into(),
            vars: vec![],
            body: BehaviourBody::Rules(vec![
                Rule {
                    name: "retreat".into(),
                    priority: 10,
                    when: Some(Condition::Sees {
                        who: Subject::Population(PopulationId(1)),
                        radius: 4.0,
                        cone: Some(std::f64::consts::PI),
                    }),
                    actions: vec![Action::Seek { target: Target::Point(v(1.0, 5.0)), planner: straight() }],
                },
                Rule {
                    name: "advance".into(),
                    priority: 0,
                    when: None,
                    actions: vec![Action::Seek { target: Target::Point(v(29.0, 5.0)), planner: straight() }],
                },
            ]),
        },
        seek_goal(),
    ];
    let watcher = population("watcher", 1, Place::Point(v(5.0, 5.0)), None);
    let mut stranger = population("stranger", 1, Place::Point(v(25.0, 5.0)), Some(Goal::Point(v(1.0, 5.0))));
    stranger.behaviour = BehaviourId(1);
    p.populations = vec![watcher, stranger];
    let (bytes, _) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    let modes: Vec<&String> = table.rows.iter().filter(|r| r[c("id")] == "0").map(|r| &r[c("state")]).collect();
    let first_retreat = modes.iter().position(|m| *m == "retreat").expect("the watcher sees the stranger");
    assert!(modes[..first_retreat].iter().all(|m| *m == "advance"));
    // They start 20 m apart and close at 2.4 m/s: about 16 m to go before 4 m.
    let t = first_retreat as f64 / 24.0;
    assert!((6.0..7.2).contains(&t), "turned at {t} s");
}

/// A behaviour of a rule `alarm` that fires when the agent sees `who`
/// within 6 m, and a rule `calm` otherwise; both stand.
fn wary_of(name: &str, who: Subject) -> Behaviour {
    let stand = || vec![Action::Dwell(Some(Dist::Constant(100.0)))];
    Behaviour {
        name: name.into(),
        vars: vec![],
        body: BehaviourBody::Rules(vec![
            Rule {
                name: "alarm".into(),
                priority: 1,
                when: Some(Condition::Sees { who, radius: 6.0, cone: None }),
                actions: stand(),
            },
            Rule { name: "calm".into(), priority: 0, when: None, actions: stand() },
        ]),
    }
}

#[test]
fn the_followers_of_a_group_are_seen_and_sought_without_its_leader() {
    let mut p = program(rect(0.0, 0.0, 40.0, 20.0), 8.0);
    p.output.columns = vec![Column::Goal];
    let tour = GroupId(0);
    p.behaviours = vec![
        rule("stand", vec![Action::Dwell(Some(Dist::Constant(100.0)))]),
        wary_of("wary_of_followers", Subject::Followers(tour)),
        wary_of("wary_of_tour", Subject::Group(tour)),
        rule("chase", vec![Action::Seek { target: Target::Subject(Subject::Followers(tour)), planner: straight() }]),
    ];
    let agent = |name: &str, x: f64, y: f64, behaviour: u32| {
        let mut a = population(name, 1, Place::Point(v(x, y)), None);
        a.behaviour = BehaviourId(behaviour);
        a
    };
    p.populations = vec![
        agent("guide", 20.0, 10.0, 0),
        agent("visitor_a", 5.0, 16.0, 0),
        agent("visitor_b", 5.0, 4.0, 0),
        // 4 m from the guide, 19 m and more from the visitors.
        agent("by_the_guide", 24.0, 10.0, 1),
        // 3 m from visitor A.
        agent("by_a_visitor", 8.0, 16.0, 1),
        // 4.5 m from the guide, watching the whole tour.
        agent("watching_the_tour", 24.0, 12.0, 2),
        agent("chaser", 20.0, 16.0, 3),
    ];
    p.groups = vec![Group {
        name: "tour".into(),
        members: vec![PopulationId(1), PopulationId(2)],
        leader: Some(PopulationId(0)),
        followers: None,
        formation: None,
        group_map: None,
    }];
    let (bytes, _) = run(&p);
    let table = Table::parse(&bytes).unwrap();
    let c = |n: &str| table.column(n).unwrap();
    let last = table.rows.iter().map(|r| r[c("frame")].parse::<u32>().unwrap()).max().unwrap().to_string();
    let row = |pop: &str| table.rows.iter().find(|r| r[c("frame")] == last && r[c("population")] == pop).unwrap();
    assert_eq!(row("by_the_guide")[c("state")], "calm");
    assert_eq!(row("by_a_visitor")[c("state")], "alarm");
    assert_eq!(row("watching_the_tour")[c("state")], "alarm");
    // The chaser walks to the first follower, visitor A (15 m west of it),
    // not to the guide (6 m south).
    let chaser = row("chaser");
    assert_eq!(chaser[c("goal")], "followers of tour");
    let at = v(chaser[c("x")].parse().unwrap(), chaser[c("y")].parse().unwrap());
    assert!(at.distance(v(5.0, 16.0)) < 9.0 && at.distance(v(20.0, 10.0)) > 8.0, "the chaser is at {at:?}");
    // The measurements read the label back as the same two visitors.
    let rec = recorded(&p, &bytes);
    let targets = crowd::trace::measure::goals::targets(&rec.trace, Some(&p)).unwrap();
    let label = rec.trace.goals.iter().position(|g| g == "followers of tour").unwrap();
    let visitors: Vec<u32> = ["visitor_a", "visitor_b"]
        .iter()
        .map(|n| rec.trace.populations.iter().position(|p| p == n).unwrap() as u32)
        .collect();
    assert_eq!(targets.targets[label], crowd::trace::measure::goals::Target::Agent(visitors));
}
