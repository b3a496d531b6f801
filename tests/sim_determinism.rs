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

#[test]
fn different_seeds_give_different_traces() {
    let p = crossing();
    let (a, _) = run_with(&p, 1, None).unwrap();
    let (b, _) = run_with(&p, 2, None).unwrap();
    assert!(a != b);
    // The header and the agent count are the same; the positions are not.
    let (ra, rb) = (recorded(&p, &a), recorded(&p, &b));
    assert_eq!(ra.id.len(), rb.id.len());
    assert_ne!(ra.pos[0], rb.pos[0]);
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
