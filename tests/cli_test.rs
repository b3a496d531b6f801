//! `crowd test`'s status lines and exit codes: `ok` (0), `FAIL` (1) and
//! `NOGOLD` (3: expectations hold, no golden trace to compare with); and
//! `--seeds`, which reports in how many seeds each expectation holds.

use std::fs;
use std::path::Path;
use std::process::Output;

mod cli_support;
use cli_support::{crowd, temp_dir};

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// One walker crossing an empty room; `claim` is its one expectation.
fn walker(claim: &str) -> String {
    format!(
        "scenario walk {{ seed 1; duration 20 s; step 1/4 s; record every 4 steps }}
world {{ bounds (0 m, 0 m) to (20 m, 10 m) }}
agent walker at (2 m, 5 m) {{ goal (18 m, 5 m); behaviour go }}
behaviour go {{ seek goal }}
expect {{ {claim} }}
"
    )
}

fn write(dir: &Path, name: &str, text: &str) {
    fs::create_dir_all(dir.join("scenarios")).unwrap();
    fs::write(dir.join("scenarios").join(name), text).unwrap();
}

#[test]
fn holding_expectations_without_a_golden_are_nogold_and_exit_3() {
    let dir = temp_dir("test-nogold");
    write(&dir, "walk.crowd", &walker("count of walker is 1 at 10 s"));
    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(3), "{t}");
    assert!(t.contains("NOGOLD scenarios/walk.crowd"), "{t}");
    assert!(t.contains("expectations hold, no golden at golden/walk.csv"), "{t}");
    assert!(!t.contains("FAIL"), "{t}");
    assert!(t.contains("0 passed, 1 without a golden, 0 failed"), "{t}");

    // Blessed, the same scenario passes.
    assert!(crowd(&dir, &["test", "scenarios", "--golden", "golden", "--bless"]).status.success());
    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("ok     scenarios/walk.crowd"), "{}", text(&o));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_failure_outranks_a_missing_golden() {
    let dir = temp_dir("test-nogold-fail");
    write(&dir, "a_walk.crowd", &walker("count of walker is 1 at 10 s"));
    write(&dir, "b_wrong.crowd", &walker("count of walker is 2 at 10 s"));
    let o = crowd(&dir, &["test", "scenarios", "--golden", "golden"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("NOGOLD scenarios/a_walk.crowd"), "{t}");
    assert!(t.contains("FAIL   scenarios/b_wrong.crowd"), "{t}");
    assert!(t.contains("FAILS: count of walker is 2 at 10 s"), "{t}");
    assert!(t.contains("no golden trace at golden/b_wrong.csv"), "{t}");
    assert!(t.contains("0 passed, 1 without a golden, 1 failed"), "{t}");
    let _ = fs::remove_dir_all(&dir);
}

/// A walker placed at random in a room; `claims` are its expectations.
fn placed(claims: &str) -> String {
    format!(
        "scenario placed {{ seed 1; duration 4 s; step 1/4 s; record every 4 steps }}
world {{
  bounds (0 m, 0 m) to (20 m, 10 m)
  region room rect (1 m, 1 m) to (19 m, 9 m)
  region west rect (0 m, 0 m) to (10 m, 10 m)
}}
population walkers {{ count 1; spawn in room; behaviour stay }}
behaviour stay {{ dwell 10 s }}
expect {{
{claims}
}}
"
    )
}

#[test]
fn seeds_report_in_how_many_seeds_each_expectation_holds() {
    let dir = temp_dir("test-seeds");
    let claims = "  count of walkers is 1 at 2 s\n  at least 1 of walkers inside west at 2 s";
    write(&dir, "placed.crowd", &placed(claims));
    let o = crowd(&dir, &["test", "scenarios", "--seeds", "1..20"]);
    let t = text(&o);
    // Where the walker stands depends on the seed: half the room is west.
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL   scenarios/placed.crowd"), "{t}");
    assert!(t.contains("holds at 20 of 20 seeds: count of walkers is 1 at 2 s"), "{t}");
    let line = t.lines().find(|l| l.contains("FAILS at ")).expect("a failing claim");
    assert!(line.contains("of 20 seeds (") && line.ends_with("at least 1 of walkers inside west at 2 s"), "{t}");
    assert!(t.contains("0 passed, 1 failed"), "{t}");
    // No golden is compared, and none is written.
    assert!(!dir.join("golden").exists());

    write(&dir, "placed.crowd", &placed("  count of walkers is 1 at 2 s"));
    let o = crowd(&dir, &["test", "scenarios", "--seeds", "3..5"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("holds at 3 of 3 seeds"), "{}", text(&o));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn seeds_refuse_blessing_and_too_many_runs() {
    let dir = temp_dir("test-seeds-refused");
    write(&dir, "placed.crowd", &placed("  count of walkers is 1 at 2 s"));
    let o = crowd(&dir, &["test", "scenarios", "--seeds", "1..3", "--bless"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = crowd(&dir, &["test", "scenarios", "--seeds", "1..20000"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("20000 seeds, more than 10000"), "{}", text(&o));
    let _ = fs::remove_dir_all(&dir);
}
