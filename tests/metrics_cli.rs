//! `crowd metrics`: formats, the scenario's obstacles and goals, and clear
//! errors for traces that cannot be measured.

use std::fs;
use std::path::Path;

mod cli_support;
use cli_support::{crowd, temp_dir};

const SCENARIO: &str = "scenario wall_walk {
  seed 1; duration 18 s; step 1/24 s; record every 24 steps
}
world {
  bounds (0 m, 0 m) to (20 m, 10 m)
  obstacle wall rect (9 m, 0.5 m) to (11 m, 6 m)
}
population walkers {
  count 1; spawn at (1 m, 8 m)
  speed 1 m/s; radius 0.25 m
  goal (19 m, 8 m); behaviour go
}
behaviour go { seek goal using straight }
";

/// One walker going straight through the wall at y = 3: x = 1, 2, ..., 19.
fn through_the_wall() -> String {
    let mut csv = String::from("id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n");
    for f in 0..19 {
        let v = if f == 0 { 0 } else { 1 };
        csv.push_str(&format!("0,{f},{f},{},3,{v},0,1,0,walkers,,default\n", 1 + f));
    }
    csv
}

fn setup(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    fs::write(dir.join("wall.crowd"), SCENARIO).unwrap();
    fs::write(dir.join("walk.csv"), through_the_wall()).unwrap();
    dir
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let o = crowd(dir, args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("valid JSON")
}

#[test]
fn obstacle_intrusions_need_the_scenario_and_count_once() {
    let dir = setup("metrics-wall");
    let with = json(&dir, &["metrics", "walk.csv", "--scenario", "wall.crowd", "--format", "json"]);
    let m = &with["metrics"];
    // The body (0.25 m) overlaps the wall from x = 8.75 to 11.25: frames with x = 9, 10, 11.
    assert_eq!(m["intrusion_events"], 1);
    assert_eq!(m["intrusion_agent_frames"], 3);
    assert_eq!(m["centre_inside_obstacle_frames"], 3);
    assert_eq!(m["max_intrusion"], 1.25);
    assert_eq!(m["outside_bounds_frames"], 0);
    // The scenario's goal (19, 8) is 5 m from the walk's end: never reached.
    assert_eq!(m["goal_completion"], 0.0);
    assert_eq!(m["path_ratio_mean"], 1.0);
    assert!(with["notes"].to_string().contains("first intrusion: agent 0 into wall at 8 s"));

    let without = json(&dir, &["metrics", "walk.csv", "--format", "json"]);
    assert_eq!(without["metrics"]["intrusion_events"], serde_json::Value::Null);
    assert_eq!(without["missing"]["intrusion_events"], "needs --scenario");
    assert_eq!(without["units"]["speed_mean"], "m/s");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn table_csv_and_per_frame_output() {
    let dir = setup("metrics-formats");
    let o = crowd(&dir, &["metrics", "walk.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = String::from_utf8(o.stdout).unwrap();
    assert!(table.lines().any(|l| l.starts_with("collision_events") && l.trim_end().ends_with('0')));
    assert!(table.contains("n/a (needs --scenario)"));
    assert!(table.contains("# radii: 0.25 m"));

    let o = crowd(&dir, &["metrics", "walk.csv", "--format", "csv"]);
    let csv = String::from_utf8(o.stdout).unwrap();
    assert!(csv.starts_with("metric,value,unit\nagents,1,\nframes,19,\n"));
    assert!(csv.contains("\nspeed_max,1,m/s\n"));

    let o = crowd(&dir, &["metrics", "walk.csv", "--format", "csv", "--per-frame", "--area", "0,0,5,5", "-o", "f.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let frames = fs::read_to_string(dir.join("f.csv")).unwrap();
    let mut lines = frames.lines();
    assert_eq!(
        lines.next(),
        Some("frame,t,alive,mean_speed,contacts,collisions,min_distance,density_mean,density_max,lane_order,cohesion,formation_error,area_count,area_density,area_speed")
    );
    assert_eq!(frames.lines().count(), 20);
    // Frame 2: x = 3, inside the 25 m² area, walking 1 m/s.
    assert_eq!(frames.lines().nth(3), Some("2,2,1,1,0,0,,0.3183098861837907,0.3183098861837907,,,,1,0.04,1"));

    // The same input gives the same bytes.
    let again = crowd(&dir, &["metrics", "walk.csv", "--format", "json", "--per-frame"]);
    let once = crowd(&dir, &["metrics", "walk.csv", "--format", "json", "--per-frame"]);
    assert_eq!(again.stdout, once.stdout);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_a_clear_error_not_a_panic() {
    let dir = setup("metrics-bad");
    let cases: Vec<(&str, &str, &str)> = vec![
        ("empty.csv", "", "empty"),
        ("header.csv", "id,frame,t,x,y\n", "no rows"),
        ("noy.csv", "id,frame,t,x\n0,0,0,1\n", "no `y` column"),
        ("nan.csv", "id,frame,t,x,y\n0,0,0,nan,1\n", "line 2"),
        ("order.csv", "id,frame,t,x,y\n0,1,1,0,0\n0,0,0,0,0\n", "comes after"),
        ("binary.csv", "\u{0}\u{1}\u{2}", "no `id` column"),
        ("huge.csv", "id,frame,t,x,y\n0,999999999,0,0,0\n", "implausibly large"),
        ("time.csv", "id,frame,t,x,y\n0,0,5,0,0\n0,1,5,1,0\n", "time does not increase"),
    ];
    for (name, text, want) in &cases {
        fs::write(dir.join(name), text).unwrap();
        let o = crowd(&dir, &["metrics", name]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{name}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{name}");
    }
    // A trace of another scenario.
    fs::write(
        dir.join("other.csv"),
        "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n0,0,0,1,1,0,0,1,0,guests,,walk\n",
    )
    .unwrap();
    let o = crowd(&dir, &["metrics", "other.csv", "--scenario", "wall.crowd"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does not match scenario wall_walk") && stderr(&o).contains("guests"),
        "{}",
        stderr(&o)
    );
    fs::write(
        dir.join("far.csv"),
        "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n0,0,0,500,1,0,0,1,0,walkers,,go\n",
    )
    .unwrap();
    let o = crowd(&dir, &["metrics", "far.csv", "--scenario", "wall.crowd"]);
    assert!(stderr(&o).contains("far outside the world"), "{}", stderr(&o));
    // A missing file and a bad area.
    let o = crowd(&dir, &["metrics", "missing.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read missing.csv"));
    let o = crowd(&dir, &["metrics", "walk.csv", "--area", "1,2,3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("x0,y0,x1,y1"));
    let o = crowd(&dir, &["metrics", "walk.csv", "--area", "1,1,1,5"]);
    assert!(stderr(&o).contains("empty"));
    let _ = fs::remove_dir_all(&dir);
}
