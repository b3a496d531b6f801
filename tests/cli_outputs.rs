//! An output never replaces an input, whatever its path says; a golden stays
//! in its folder; a closed pipe ends `crowd test` quietly.

use std::fs;
use std::process::Command;

mod cli_support;
use cli_support::{crowd, temp_dir};

const SCENARIO: &str = "
scenario tiny { seed 1; duration 2 s; step 1/4 s }
world { bounds (0 m, 0 m) to (10 m, 10 m)  region start rect (1 m, 1 m) to (3 m, 3 m) }
population walkers { count 3; spawn in start; goal (8 m, 8 m); behaviour go }
behaviour go { seek goal using straight }
expect { nobody inside obstacles }
";

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn outputs_that_are_inputs_are_refused_and_the_inputs_stay() {
    let dir = temp_dir("outputs-over-inputs");
    fs::write(dir.join("s.crowd"), SCENARIO).unwrap();
    let refused = |args: &[&str], input: &str| {
        let before = fs::read(dir.join(input)).unwrap();
        let out = crowd(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("is an input of this command"), "{args:?}: {}", stderr(&out));
        assert_eq!(fs::read(dir.join(input)).unwrap(), before, "{args:?} changed {input}");
    };
    refused(&["run", "s.crowd", "--out", "s.crowd"], "s.crowd");
    assert!(crowd(&dir, &["run", "s.crowd", "--out", "t.csv"]).status.success());
    refused(&["metrics", "t.csv", "-o", "t.csv"], "t.csv");
    refused(&["metrics", "t.csv", "--scenario", "s.crowd", "-o", "s.crowd"], "s.crowd");
    refused(&["view", "s.crowd", "t.csv", "--out", "s.crowd"], "s.crowd");
    refused(&["view", "s.crowd", "t.csv", "--out", "t.csv"], "t.csv");
    // Another name for the same file is the same file.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("s.crowd"), dir.join("picture.svg")).unwrap();
        refused(&["render", "s.crowd", "t.csv", "--out", "picture.svg"], "s.crowd");
        fs::hard_link(dir.join("t.csv"), dir.join("again.html")).unwrap();
        refused(&["view", "s.crowd", "t.csv", "--out", "again.html"], "t.csv");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_blessed_golden_stays_inside_the_golden_folder() {
    let dir = temp_dir("bless-escape");
    fs::create_dir_all(dir.join("work/scenarios")).unwrap();
    fs::write(dir.join("x.crowd"), SCENARIO).unwrap();
    let out = crowd(&dir.join("work"), &["test", "--bless", "--golden", "golden", "scenarios/../../x.crowd"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.join("work/golden/x.csv").exists(), "the golden mirrors the file's name inside golden/");
    assert!(!dir.join("x.csv").exists(), "a golden was written outside golden/");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(unix)]
fn a_closed_pipe_ends_crowd_test_without_a_panic() {
    let dir = temp_dir("test-pipe");
    for k in 0..3 {
        fs::write(dir.join(format!("s{k}.crowd")), SCENARIO).unwrap();
    }
    let crowd = env!("CARGO_BIN_EXE_crowd");
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{crowd}' test s0.crowd s1.crowd s2.crowd 2>err.txt | head -c 1 >/dev/null"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = fs::read_to_string(dir.join("err.txt")).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(target_os = "linux")]
fn a_killed_writers_temporary_file_is_swept_by_the_next_run_into_the_same_place() {
    let dir = temp_dir("stale-temp");
    fs::write(dir.join("s.crowd"), SCENARIO).unwrap();
    // What a writer killed mid-run leaves: its process (an id no process has) is gone.
    let stale = dir.join(format!(".t.csv.tmp-{}-0", u32::MAX - 7));
    fs::write(&stale, "id,frame").unwrap();
    // Another target's temporary file is not this run's business.
    let other = dir.join(format!(".u.csv.tmp-{}-0", u32::MAX - 7));
    fs::write(&other, "id,frame").unwrap();
    assert!(crowd(&dir, &["run", "s.crowd", "--out", "t.csv"]).status.success());
    assert!(!stale.exists(), "the stale temporary file is still there");
    assert!(other.exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_over_another_replaces_its_metadata_with_its_own() {
    let dir = temp_dir("meta-beside");
    fs::write(dir.join("s.crowd"), SCENARIO).unwrap();
    assert!(crowd(&dir, &["run", "s.crowd", "--out", "t.csv"]).status.success());
    let meta = dir.join("t.meta.json");
    let old = fs::read_to_string(&meta).unwrap();
    assert!(old.contains("\"seed\": 1") || old.contains("\"seed\":1"), "{old}");
    let out = crowd(&dir, &["run", "s.crowd", "--seed", "2", "--out", "t.csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let new = fs::read_to_string(&meta).unwrap();
    assert!(new.contains("\"seed\": 2") || new.contains("\"seed\":2"), "{new}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn render_says_when_the_runs_metadata_cannot_be_read_for_its_markers() {
    let dir = temp_dir("render-meta");
    let with_markers = SCENARIO.replace(
        "region start rect (1 m, 1 m) to (3 m, 3 m) }",
        "region start rect (1 m, 1 m) to (3 m, 3 m)  markers jittered_grid density 4 per m2 }",
    );
    fs::write(dir.join("s.crowd"), with_markers).unwrap();
    let run = crowd(&dir, &["run", "s.crowd", "--out", "t.csv"]);
    assert!(run.status.success(), "{}", stderr(&run));
    fs::write(dir.join("t.meta.json"), "{ not json").unwrap();
    let out = crowd(&dir, &["render", "s.crowd", "t.csv", "--markers", "--out", "p.svg"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("has no readable seed"), "{}", stderr(&out));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(target_os = "linux")]
fn a_batch_sweeps_the_temporary_files_killed_runs_left_in_its_folder() {
    let dir = temp_dir("stale-temp-batch");
    fs::write(dir.join("s.crowd"), SCENARIO).unwrap();
    fs::create_dir_all(dir.join("runs")).unwrap();
    let stale = dir.join(format!("runs/.seed-2.csv.tmp-{}-0", u32::MAX - 7));
    fs::write(&stale, "id,frame").unwrap();
    let out = crowd(&dir, &["batch", "s.crowd", "--seeds", "1..2", "--out", "runs"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stale.exists(), "the stale temporary file is still there");
    fs::remove_dir_all(&dir).unwrap();
}
