//! Metrics on hand-made traces whose answers are known.

use crowd::ir::{Rect, Vec2};
use crowd::trace::measure::collide::collisions;
use crowd::trace::measure::report::{radii, Value};
use crowd::trace::measure::{measure, Options, Trace};

/// A trace from `(id, frame, x, y)` rows; one frame per second, velocities
/// and orientations derived by the reader.
fn trace(rows: &[(u32, u32, f64, f64)], extra: &str, cells: impl Fn(usize) -> String) -> Trace {
    let mut rows = rows.to_vec();
    rows.sort_by_key(|r| (r.1, r.0));
    let mut csv = format!("id,frame,t,x,y{extra}\n");
    for (k, (id, f, x, y)) in rows.iter().enumerate() {
        csv.push_str(&format!("{id},{f},{f},{x},{y}{}\n", cells(k)));
    }
    Trace::parse(csv.as_bytes()).unwrap()
}

fn plain(rows: &[(u32, u32, f64, f64)]) -> Trace {
    trace(rows, "", |_| String::new())
}

fn number(m: &crowd::trace::measure::Measured, name: &str) -> f64 {
    match m.get(name) {
        Some(Value::Number(x)) => *x,
        Some(Value::Count(n)) => *n as f64,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn two_agents_approaching_collide_exactly_once() {
    // Head-on along y = 0 at 1 m/s each; bodies of 0.25 m overlap below 0.5 m.
    // Centres: 4, 2, 0.4, 0.2 (still touching), then they stop touching.
    let xs = [(-2.0, 2.0), (-1.0, 1.0), (-0.2, 0.2), (-0.1, 0.1), (-1.0, 1.0), (-3.0, 3.0)];
    let rows: Vec<(u32, u32, f64, f64)> =
        xs.iter().enumerate().flat_map(|(f, (a, b))| [(0, f as u32, *a, 0.0), (1, f as u32, *b, 0.0)]).collect();
    let t = plain(&rows);
    let (r, note) = radii(&t, None);
    assert!(r.iter().all(|&x| x == 0.25), "default radius");
    assert!(note.contains("0.25"));
    let c = collisions(&t, &r);
    assert_eq!(c.events, 1, "one contact, one event");
    assert_eq!(c.pairs, 1);
    assert_eq!(c.pair_frames, 2);
    assert!((c.max_depth - 0.3).abs() < 1e-12);
    assert_eq!(c.first.as_ref().map(|f| (f.frame, f.a, f.b)), Some((2, 0, 1)));
    let per: Vec<u32> = c.per_frame.iter().map(|p| p.1).collect();
    assert_eq!(per, vec![0, 0, 1, 0, 0, 0]);
}

#[test]
fn a_second_contact_is_a_second_event_and_radii_come_from_the_trace() {
    // Touching, apart, touching again.
    let gaps = [0.4, 0.4, 2.0, 0.45, 0.45];
    let rows: Vec<(u32, u32, f64, f64)> =
        gaps.iter().enumerate().flat_map(|(f, g)| [(0, f as u32, 0.0, 0.0), (1, f as u32, *g, 0.0)]).collect();
    let t = plain(&rows);
    let (r, _) = radii(&t, None);
    assert_eq!(collisions(&t, &r).events, 2);
    // With a radius column of 0.2 m, 0.45 m apart is no collision, 0.4 m is (just) contact, not overlap.
    let t = trace(&rows, ",radius", |_| ",0.2".into());
    let (r, note) = radii(&t, None);
    assert!(note.contains("radius column"));
    let c = collisions(&t, &r);
    assert_eq!(c.events, 0, "bodies exactly in contact do not collide");
}

#[test]
fn a_straight_walk_has_path_ratio_one_and_no_turning() {
    let rows: Vec<(u32, u32, f64, f64)> = (0..11).map(|f| (7, f, 1.0 + f as f64, 3.0)).collect();
    let csv_goal = |_k: usize| ",(11 3)".to_string();
    let t = trace(&rows, ",goal", csv_goal);
    let m = measure(&t, None, &Options::default()).unwrap();
    assert_eq!(number(&m, "path_ratio_mean"), 1.0);
    assert_eq!(number(&m, "path_ratio_max"), 1.0);
    assert_eq!(number(&m, "path_length_mean"), 10.0);
    assert_eq!(number(&m, "goal_completion"), 1.0);
    // Within 2.3 m of (11, 3) from x = 8.7 on: frame 8 (x = 9).
    assert_eq!(number(&m, "travel_time_mean"), 8.0);
    assert_eq!(number(&m, "turning_rate"), 0.0);
    assert_eq!(number(&m, "reversals"), 0.0);
    assert_eq!(number(&m, "collision_events"), 0.0);
    // 1 m/s for 10 frames (the first frame has no velocity): ½ v² Δt summed.
    assert_eq!(number(&m, "kinetic_energy"), 5.0);
    assert_eq!(number(&m, "total_time"), 8.0);
    assert_eq!(number(&m, "steerbench_score"), 13.0);
    assert!(matches!(m.get("intrusion_events"), Some(Value::Missing(_))), "needs a scenario");
}

#[test]
fn two_lanes_score_one_and_mixed_lanes_score_low() {
    // Two lanes walking opposite ways, 1 m apart, 0.6 m between walkers.
    let mut rows = Vec::new();
    for f in 0..3u32 {
        for k in 0..10u32 {
            let s = f as f64;
            rows.push((k, f, k as f64 * 0.6 + s, 0.0));
            rows.push((100 + k, f, k as f64 * 0.6 - s, 1.0));
        }
    }
    let m = measure(&plain(&rows), None, &Options::default()).unwrap();
    assert_eq!(number(&m, "lane_order_last"), 1.0);
    // One lane, alternating directions.
    let mut rows = Vec::new();
    for f in 0..3u32 {
        for k in 0..20u32 {
            let dir = if k % 2 == 0 { 1.0 } else { -1.0 };
            rows.push((k, f, k as f64 * 0.6 + dir * f as f64 * 0.1, 0.0));
        }
    }
    let m = measure(&plain(&rows), None, &Options::default()).unwrap();
    assert!(number(&m, "lane_order_last") < 0.2);
}

#[test]
fn group_cohesion_is_the_distance_to_the_centroid() {
    let rows =
        [(0, 0, 0.0, 0.0), (1, 0, 2.0, 0.0), (2, 0, 9.0, 9.0), (0, 1, 0.0, 1.0), (1, 1, 4.0, 1.0), (2, 1, 9.0, 9.0)];
    // Agents 0 and 1 form group 5; agent 2 is on its own.
    let t = trace(&rows, ",group", |k| if k % 3 == 2 { ",".into() } else { ",5".into() });
    let m = measure(&t, None, &Options::default()).unwrap();
    assert_eq!(number(&m, "groups"), 1.0);
    assert_eq!(number(&m, "cohesion_mean"), 1.5);
    assert_eq!(number(&m, "cohesion_max"), 2.0);
}

#[test]
fn classic_density_and_speed_in_an_area() {
    // Three agents walking +x at 1, 2 and 3 m/s; the area is x in (0, 10), y in (-1, 1).
    let mut rows = Vec::new();
    for f in 0..5u32 {
        for (id, v) in [(0u32, 1.0), (1, 2.0), (2, 3.0)] {
            rows.push((id, f, 1.0 + v * f as f64, if id == 2 { 5.0 } else { 0.0 }));
        }
    }
    let area = Rect { min: Vec2::new(0.0, -1.0), max: Vec2::new(10.0, 1.0) };
    let opts = Options { area: Some(area), speed_step: 1, goal_reach: None };
    let m = measure(&plain(&rows), None, &opts).unwrap();
    // Agent 2 walks at y = 5, outside; agents 0 and 1 are inside in every frame.
    for f in &m.frames {
        assert_eq!(f.area_count, Some(2));
        assert_eq!(f.area_density, Some(0.1));
    }
    // Central differences exist in frames 1..=3: mean of 1 and 2 m/s.
    assert_eq!(m.frames[0].area_speed, None);
    assert_eq!(m.frames[2].area_speed, Some(1.5));
    assert_eq!(number(&m, "area_speed_mean"), 1.5);
}

#[test]
fn metrics_do_not_depend_on_anything_but_the_input() {
    let rows: Vec<(u32, u32, f64, f64)> = (0..50u32)
        .flat_map(|f| {
            (0..30u32).map(move |k| (k, f, (k as f64 * 1.7 + f as f64 * 0.3) % 20.0, (k as f64 * 0.37) % 5.0))
        })
        .collect();
    let t = plain(&rows);
    let a = measure(&t, None, &Options::default()).unwrap();
    let b = measure(&t, None, &Options::default()).unwrap();
    assert_eq!(a.metrics, b.metrics);
    assert_eq!(a.frames, b.frames);
}
