//! `crowd metrics`, `crowd render` and `crowd view` refuse a broken trace with
//! the file and the line at fault (exit 2, no panic), and still read a
//! well-formed one.

use std::fs;
use std::path::Path;
use std::process::Output;

mod cli_support;
use cli_support::{crowd, temp_dir};

const SCENARIO: &str = "scenario corridor {
  seed 1; duration 6 s; step 1/10 s; record every 10 steps
}
world { bounds (0 m, 0 m) to (20 m, 10 m) }
population walkers {
  count 2; spawn at (1 m, 5 m)
  speed 1 m/s; radius 0.25 m
  goal (19 m, 5 m); behaviour go
}
behaviour go { seek goal using straight }
";

const HEADER: &str = "id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state,formation";

/// Two walkers side by side, 1 m/s along x, one row each per second:
/// line 1 is the header, frame `f` is on lines `2 + 2f` and `3 + 2f`.
fn rows() -> Vec<String> {
    let mut lines = vec![HEADER.to_string()];
    for f in 0..6 {
        for id in 0..2 {
            let v = if f == 0 { 0 } else { 1 };
            lines.push(format!("{id},{f},{f},{},{},{v},0,1,0,walkers,0,go,side_by_side", 1 + f, 4 + 2 * id));
        }
    }
    lines
}

/// The trace with line `n` (1-based) replaced.
fn with_line(n: usize, line: &str) -> String {
    let mut lines = rows();
    lines[n - 1] = line.to_string();
    lines.join("\n") + "\n"
}

/// Runs the three readers on `trace` in `dir`.
fn readers(dir: &Path, trace: &str) -> Vec<(&'static str, Output)> {
    vec![
        ("metrics", crowd(dir, &["metrics", trace])),
        ("metrics --scenario", crowd(dir, &["metrics", trace, "--scenario", "c.crowd"])),
        ("render", crowd(dir, &["render", "c.crowd", trace, "-o", "c.svg"])),
        ("view", crowd(dir, &["view", "c.crowd", trace, "-o", "c.html"])),
    ]
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn broken_rows_are_refused_with_the_file_and_line() {
    let dir = temp_dir("broken-traces");
    fs::write(dir.join("c.crowd"), SCENARIO).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        // Refused since the reader checks each row's field count.
        (
            "missing.csv",
            with_line(5, "1,1,1,2,6,1,0,1,0,walkers,0,go"),
            "line 5: expected 13 fields, as in the header, found 12",
        ),
        (
            "extra.csv",
            with_line(4, "0,1,1,2,4,1,0,1,0,walkers,0,go,side_by_side,7"),
            "line 4: expected 13 fields, as in the header, found 14",
        ),
        ("quote.csv", with_line(6, "0,2,2,3,4,1,0,1,0,\"walkers,0,go,side_by_side"), "line 6: expected 13 fields"),
        // Refused by the checks added with them.
        ("time.csv", with_line(6, "0,2,0.5,3,4,1,0,1,0,walkers,0,go,side_by_side"), "line 6: frame 2 has t = 0.5"),
        (
            "population.csv",
            with_line(3, "1,0,0,1,6,0,0,1,0,,0,go,side_by_side"),
            "line 3: the `population` cell is empty",
        ),
        (
            "formation.csv",
            with_line(7, "1,2,2,3,6,1,0,1,0,walkers,0,go,vee"),
            "line 7: `vee` in column `formation` is not a formation",
        ),
        ("twice.csv", with_line(1, &format!("{HEADER},x")), "column `x` twice (columns 4 and 14)"),
        // Refused before: kept here so that all three commands are seen to refuse them.
        ("number.csv", with_line(8, "0,3,3,four,4,1,0,1,0,walkers,0,go,side_by_side"), "line 8: `four` in column `x`"),
        ("id.csv", with_line(9, "a1,3,3,4,6,1,0,1,0,walkers,0,go,side_by_side"), "line 9: `a1` in column `id`"),
        (
            "order.csv",
            with_line(10, "0,1,4,5,4,1,0,1,0,walkers,0,go,side_by_side"),
            "line 10: frame 1 comes after frame 3",
        ),
        ("header.csv", with_line(1, &HEADER.replace(",y,", ",q,")), "no `y` column"),
    ];
    for (name, text, want) in &cases {
        fs::write(dir.join(name), text).unwrap();
        for (command, o) in readers(&dir, name) {
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{command} {name}: {err}");
            assert!(err.contains(&format!("error: {name}: ")), "{command} {name} names the file: {err}");
            assert!(err.contains(want), "{command} {name}: wanted `{want}` in {err}");
            assert!(!err.contains("panicked"), "{command} {name}: {err}");
        }
    }
    assert!(!dir.join("c.svg").exists() && !dir.join("c.html").exists(), "nothing drawn from a broken trace");

    fs::write(dir.join("good.csv"), rows().join("\n") + "\n").unwrap();
    for (command, o) in readers(&dir, "good.csv") {
        assert!(o.status.success(), "{command}: {}", stderr(&o));
    }
    assert!(fs::read_to_string(dir.join("c.svg")).unwrap().contains("<polyline"));
    assert!(fs::read_to_string(dir.join("c.html")).unwrap().contains("<html"));
    let _ = fs::remove_dir_all(&dir);
}
