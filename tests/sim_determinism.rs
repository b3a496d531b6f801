//! The determinism contract: same seed, same bytes, whatever the thread count;
//! different seeds differ; an agent's draws do not depend on other populations.

mod sim_support;

use crowd::ir::*;
use sim_support::*;

/// Two crowds crossing, spawned uniformly in regions, with random speeds and
/// radii and procedural groups: enough interaction to expose any ordering bug.
fn crossing() -> Program {
    let mut p = program(rect(0.0, 0.0, 40.0, 20.0), 8.0);
    p.world.regions = vec![
        region("west", Shape::Rect(rect(1.0, 1.0, 12.0, 19.0))),
        region("east", Shape::Rect(rect(28.0, 1.0, 39.0, 19.0))),
    ];
    p.world.obstacles =
        vec![Obstacle { name: "pillar".into(), shape: Shape::Circle { center: v(20.0, 10.0), radius: 2.0 } }];
    let mut a = population("eastward", 300, Place::Region(RegionId(0)), Some(Goal::Point(v(39.0, 10.0))));
    a.speed = Dist::Uniform { min: 1.0, max: 1.6 };
    a.radius = Dist::Normal { mean: 0.25, sd: 0.03, min: 0.18, max: 0.32 };
    a.group_sizes = vec![(1, 0.5), (2, 0.3), (3, 0.2)];
    let mut b = population("westward", 300, Place::Region(RegionId(1)), Some(Goal::Region(RegionId(0))));
    b.speed = Dist::Normal { mean: 1.3, sd: 0.2, min: 0.6, max: 2.0 };
    p.populations = vec![a, b];
    p.output.columns = vec![Column::Speed, Column::Goal, Column::Radius];
    p
}

#[test]
fn same_seed_gives_identical_bytes() {
    let p = crossing();
    let (a, _) = run(&p);
    let (b, _) = run(&p);
    assert!(a.len() > 100_000, "a substantial trace");
    assert!(a == b, "two runs with the same seed differ");
}

#[test]
fn thread_count_does_not_change_a_byte() {
    let p = crossing();
    let (one, _) = run_with(&p, 7, Some(1)).unwrap();
    for threads in [2, 8] {
        let (many, _) = run_with(&p, 7, Some(threads)).unwrap();
        assert!(one == many, "--threads {threads} gives a different trace than --threads 1");
    }
}

/// Agents that change model as they change mode (shape formation, a dwell,
/// tree paths with and without reservation, pursuit by rules with sight, A*
/// groups that leave): every stage of every model, and the hand-over between
/// them, in one run.
const MODE_SWITCHES: &str = r#"scenario modes {
  seed 5; duration 60 s; step 1/24 s; record every 4 steps
}
world {
  bounds (0 m, 0 m) to (40 m, 26 m)
  region pen rect (2 m, 1 m) to (12 m, 4 m)
  region far rect (30 m, 18 m) to (38 m, 24 m)
  region gate rect (36 m, 1 m) to (39 m, 4 m)
  obstacle wall rect (18 m, 6 m) to (19 m, 20 m)
  shape blob polygon (6 m, 10 m), (12 m, 10 m), (12 m, 16 m), (6 m, 16 m)
  markers dart_throwing density 8 per m2
  markers in blob density 20 per m2 weight 10
}
population walkers {
  count 12
  spawn in pen
  radius 25 cm
  leave via gate from 45 s
  behaviour shuffle
}
population chasers {
  count 6
  spawn in far
  behaviour chase
}
population movers {
  count 10
  spawn in far
  groups 1: 30%, 2: 40%, 3: 30%
  formation auto
  leave via gate from 40 s
  behaviour mover
}
behaviour shuffle {
  state gather { form blob; after 8 s go rest }
  state rest { dwell 2 s; when done go cross }
  state cross { seek region far using tree_paths; on arrival go again; after 15 s go again }
  state again { form blob; after 6 s go cross2 }
  state cross2 { seek region far using tree_paths reserve markers; after 10 s go again }
}
behaviour chase {
  rule hunt priority 5 when sees walkers within 10 m { pursue walkers using tree_paths }
  rule idle { seek region far using straight }
}
behaviour mover {
  state a { seek region pen using astar; on arrival go b }
  state b { dwell 3 s; when done go c }
  state c { seek region far using tree_paths; on arrival go a }
}
"#;

#[test]
fn agents_changing_model_do_not_depend_on_the_thread_count() {
    let file = crowd::SourceFile::new("mode_switches.crowd", MODE_SWITCHES.to_string());
    let p = crowd::compile(&file).unwrap_or_else(|d| panic!("the scenario compiles: {d:?}")).program;
    let (one, outcome) = run_with(&p, 5, Some(1)).unwrap();
    assert!(outcome.log.iter().filter(|a| a.removed.is_some()).count() > 0, "some agents walk out");
    for threads in [2, 8] {
        let (many, _) = run_with(&p, 5, Some(threads)).unwrap();
        assert!(one == many, "--threads {threads} gives a different trace than --threads 1");
    }
}

#[test]
fn different_seeds_give_different_traces() {
    let p = crossing();
    let (a, _) = run_with(&p, 1, None).unwrap();
    let (b, _) = run_with(&p, 2, None).unwrap();
    assert!(a != b);
    // The header and the agent count are the same; the positions are not.
    let (ra, rb) = (recorded(&p, &a), recorded(&p, &b));
    assert_eq!(ra.trace.id.len(), rb.trace.id.len());
    assert_ne!(ra.trace.pos[0], rb.trace.pos[0]);
}

/// Frame-0 position and radius, and frame-1 speed, of population `name`'s agents, in order.
fn draws_of(p: &Program, bytes: &[u8], name: &str) -> Vec<(Vec2, String, String)> {
    let table = crowd::trace::read::Table::parse(bytes).unwrap();
    let col = |c: &str| table.column(c).unwrap();
    let (cf, cp, cx, cy, cr, cs, cid) =
        (col("frame"), col("population"), col("x"), col("y"), col("radius"), col("speed"), col("id"));
    let rows = |f: &'static str| table.rows.iter().filter(move |r| r[cf] == f && r[cp] == name);
    let speeds: Vec<(String, String)> = rows("1").map(|r| (r[cid].clone(), r[cs].clone())).collect();
    let _ = p;
    rows("0")
        .map(|r| {
            let speed = speeds.iter().find(|(id, _)| *id == r[cid]).map(|(_, s)| s.clone()).unwrap_or_default();
            (v(r[cx].parse().unwrap(), r[cy].parse().unwrap()), r[cr].clone(), speed)
        })
        .collect()
}

#[test]
fn an_unrelated_population_does_not_change_existing_draws() {
    let mut p = program(rect(0.0, 0.0, 100.0, 100.0), 1.0 / 24.0);
    // Interactions are switched off so that frame 1's speed is the drawn speed.
    set_param(&mut p, "space_colonization", "t_min", 0.0001);
    p.world.regions = vec![
        region("field", Shape::Rect(rect(1.0, 1.0, 40.0, 40.0))),
        region("far", Shape::Rect(rect(60.0, 60.0, 99.0, 99.0))),
    ];
    let mut walkers = population("walkers", 40, Place::Region(RegionId(0)), Some(Goal::Point(v(50.0, 20.0))));
    walkers.speed = Dist::Uniform { min: 0.8, max: 1.6 };
    walkers.radius = Dist::Uniform { min: 0.2, max: 0.3 };
    walkers.group_sizes = vec![(1, 0.6), (2, 0.4)];
    p.populations = vec![walkers];
    p.output.columns = vec![Column::Radius, Column::Speed];
    let (before, _) = run(&p);

    // A new population declared first: every existing agent gets a new id.
    let mut q = p.clone();
    let mut others = population("others", 25, Place::Region(RegionId(1)), Some(Goal::Point(v(80.0, 61.0))));
    others.speed = Dist::Uniform { min: 0.5, max: 2.0 };
    others.radius = Dist::Uniform { min: 0.15, max: 0.35 };
    q.populations.insert(0, others);
    for pop in &mut q.populations {
        pop.behaviour = BehaviourId(0);
    }
    let (after, _) = run(&q);

    let a = draws_of(&p, &before, "walkers");
    let b = draws_of(&q, &after, "walkers");
    assert_eq!(a.len(), 40);
    assert_eq!(a, b, "adding a population changed the walkers' spawn points, radii or speeds");
    assert!(a.iter().any(|(_, _, s)| s != &a[0].2), "speeds are drawn, not constant");
}
