//! `crowd batch`: one trace and metadata per seed, a summary, the same files
//! for any number of jobs, and complete runs skipped on a re-run.

use std::fs;
use std::path::Path;

mod cli_support;
use cli_support::{crowd, temp_dir};

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| (e.file_name().to_string_lossy().into_owned(), fs::read(e.path()).unwrap()))
        .collect();
    out.sort();
    out
}

#[test]
fn batch_files_do_not_depend_on_jobs_and_reruns_skip_complete_seeds() {
    let dir = temp_dir("batch");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/pillars.crowd");
    fs::copy(src, dir.join("p.crowd")).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--jobs", "1", "--out", "one"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--jobs", "3", "--out", "three"]);
    assert!(o.status.success());
    let (one, three) = (files(&dir.join("one")), files(&dir.join("three")));
    let names: Vec<&str> = one.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "batch.json",
            "manifest.json",
            "seed-1.csv",
            "seed-1.meta.json",
            "seed-2.csv",
            "seed-2.meta.json",
            "seed-3.csv",
            "seed-3.meta.json",
            "summary.csv"
        ]
    );
    assert!(one == three, "--jobs changed the output");
    assert!(one[2].1 != one[4].1, "seeds differ");

    let summary = String::from_utf8(one[8].1.clone()).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    // Groups by size after the totals; pillars has no resources, so no visit columns.
    assert_eq!(
        lines[0],
        "seed,agents,steps,max_alive,mean_speed,min_distance,goal_completion,groups_1,groups_2,groups_3,groups_over_3,error"
    );
    assert_eq!(lines.len(), 4);
    assert!(lines[1].starts_with("1,40,960,40,"), "{}", lines[1]);

    // A re-run skips the complete seeds and writes the same summary.
    fs::remove_file(dir.join("one/seed-2.meta.json")).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--out", "one"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("1 run(s), 2 already complete"), "{stderr}");
    assert!(files(&dir.join("one")) == three);
    let _ = fs::remove_dir_all(&dir);
}

fn copy_scenario(dir: &Path, name: &str, to: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/basics/{name}.crowd"));
    fs::copy(src, dir.join(to)).unwrap();
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_folder_of_another_scenarios_runs_is_refused_not_counted_complete() {
    let dir = temp_dir("batch-other");
    copy_scenario(&dir, "party", "party.crowd");
    copy_scenario(&dir, "pillars", "pillars.crowd");
    let o = crowd(&dir, &["batch", "party.crowd", "--seeds", "1..2", "--out", "runs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let party = files(&dir.join("runs"));

    // The same seeds, and seeds party never ran: either would leave a folder of both.
    for seeds in ["1..2", "3..4"] {
        let o = crowd(&dir, &["batch", "pillars.crowd", "--seeds", seeds, "--out", "runs"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("the folder runs holds another batch's runs: runs/seed-1.meta.json is a run of scenario `party`, this batch runs scenario `pillars` (pillars.crowd)"),
            "{err}"
        );
        assert!(err.contains("help: choose another --out folder, or remove runs"), "{err}");
        assert!(!err.contains("already complete"), "{err}");
        assert!(files(&dir.join("runs")) == party, "the folder was left as it was");
    }

    let o = crowd(&dir, &["batch", "pillars.crowd", "--seeds", "1..2", "--out", "pillars"]);
    assert!(stderr(&o).contains("2 run(s), 0 already complete"), "{}", stderr(&o));
    let summary = fs::read_to_string(dir.join("pillars/summary.csv")).unwrap();
    assert!(summary.lines().skip(1).all(|l| l.split(',').nth(1) == Some("40")), "pillars' 40 agents: {summary}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_edited_scenarios_runs_are_refused_not_reused() {
    let dir = temp_dir("batch-edited");
    copy_scenario(&dir, "pillars", "p.crowd");
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..2", "--out", "runs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = files(&dir.join("runs"));

    let text = fs::read_to_string(dir.join("p.crowd")).unwrap();
    fs::write(dir.join("p.crowd"), text.replace("count 40", "count 20")).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..2", "--out", "runs"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("runs/seed-1.meta.json is a run of scenario `pillars` as another text (fnv1a64:"), "{err}");
    assert!(err.contains("p.crowd is now fnv1a64:") && err.contains("(edited since the run?)"), "{err}");
    assert!(files(&dir.join("runs")) == before, "the old runs were left as they were");

    // Removed as the help says, the folder gets the edited scenario's runs.
    fs::remove_dir_all(dir.join("runs")).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..2", "--out", "runs"]);
    assert!(stderr(&o).contains("2 run(s), 0 already complete"), "{}", stderr(&o));
    let summary = fs::read_to_string(dir.join("runs/summary.csv")).unwrap();
    assert!(summary.lines().nth(1).unwrap().starts_with("1,20,"), "{summary}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn runs_of_another_version_or_precision_are_refused_and_damaged_runs_redone() {
    let dir = temp_dir("batch-damaged");
    copy_scenario(&dir, "pillars", "p.crowd");
    for out in ["runs", "reference"] {
        let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--out", out]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let reference = files(&dir.join("reference"));

    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--out", "runs", "--precision", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("seed-1.meta.json was written without --precision; this batch writes with --precision 3"),
        "{}",
        stderr(&o)
    );

    // Seed 2's metadata says seed 1, and seed 3's trace lost its last row:
    // neither is a complete run of its seed.
    fs::copy(dir.join("runs/seed-1.meta.json"), dir.join("runs/seed-2.meta.json")).unwrap();
    let trace = fs::read_to_string(dir.join("runs/seed-3.csv")).unwrap();
    let cut = trace.trim_end().rfind('\n').unwrap() + 1;
    fs::write(dir.join("runs/seed-3.csv"), &trace[..cut]).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--out", "runs"]);
    assert!(stderr(&o).contains("2 run(s), 1 already complete"), "{}", stderr(&o));
    assert!(files(&dir.join("runs")) == reference);

    let meta = fs::read_to_string(dir.join("runs/seed-3.meta.json")).unwrap();
    let version = format!("\"crowd_version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(meta.contains(&version));
    fs::write(dir.join("runs/seed-3.meta.json"), meta.replace(&version, "\"crowd_version\": \"0.0.1\"")).unwrap();
    let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..2", "--out", "runs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "seed-3.meta.json was made by crowd 0.0.1; this is crowd {}",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        stderr(&o)
    );
    let _ = fs::remove_dir_all(&dir);
}
