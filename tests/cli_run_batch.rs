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
    assert!(one[0].1 != one[2].1, "seeds differ");

    let summary = String::from_utf8(one[6].1.clone()).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    // Groups by size after the totals; pillars has no resources, so no visit columns.
    assert_eq!(
        lines[0],
        "seed,agents,steps,max_alive,mean_speed,min_distance,goal_completion,groups_1,groups_2,groups_3,groups_over_3"
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
