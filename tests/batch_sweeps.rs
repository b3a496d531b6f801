//! `crowd batch` beyond seeds: sweeps of parameter values and counts, shards
//! whose union is one batch, merging, failing runs, a killed batch resumed,
//! and the SLURM script run as an array would run it.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

mod cli_support;
use cli_support::{crowd, temp_dir, tree};

fn scenario(dir: &Path, name: &str, to: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios").join(name);
    fs::copy(src, dir.join(to)).unwrap();
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn names(t: &[(String, Vec<u8>)]) -> Vec<&str> {
    t.iter().map(|(n, _)| n.as_str()).collect()
}

const SWEEP: [&str; 6] = ["batch", "p.crowd", "--seeds", "1..10", "--set", "population.walkers.count=10,20,30"];

#[test]
fn a_sweep_of_three_values_and_ten_seeds_is_thirty_runs_whose_rows_carry_the_values() {
    let dir = temp_dir("sweep");
    scenario(&dir, "basics/pillars.crowd", "p.crowd");
    let o = crowd(&dir, &[&SWEEP[..], &["--out", "runs"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("30 run(s), 0 already complete, 0 failed"), "{err}");
    // Not on a terminal: a line per finished run.
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with('[') && l.contains("] seed ")).collect();
    assert_eq!(lines.len(), 30, "{err}");
    assert!(
        lines.iter().any(|l| l.starts_with("[30/30] seed ") && l.contains(" at population.walkers.count=")),
        "{err}"
    );

    let summary = fs::read_to_string(dir.join("runs/summary.csv")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert!(lines[0].starts_with("population.walkers.count,seed,agents,"), "{}", lines[0]);
    assert!(lines[0].ends_with(",error"));
    assert_eq!(lines.len(), 31);
    // The first --set varies slowest, seeds fastest; each run has the agents its value says.
    for (k, line) in lines[1..].iter().enumerate() {
        let count = [10, 20, 30][k / 10];
        let seed = 1 + k % 10;
        assert!(line.starts_with(&format!("{count},{seed},{count},")), "row {k}: {line}");
        assert!(line.ends_with(','), "no error: {line}");
    }
    for count in [10, 20, 30] {
        let folder = dir.join(format!("runs/population.walkers.count={count}"));
        let meta = fs::read_to_string(folder.join("seed-4.meta.json")).unwrap();
        assert!(meta.contains(&format!("\"population.walkers.count\": {count}")), "{meta}");
    }

    // `crowd run --set` with a run's values makes that run's trace.
    let o = crowd(&dir, &["run", "p.crowd", "--seed", "4", "--set", "population.walkers.count=20", "--out", "one.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        fs::read(dir.join("one.csv")).unwrap()
            == fs::read(dir.join("runs/population.walkers.count=20/seed-4.csv")).unwrap()
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_value_is_a_diagnostic_at_the_value_before_anything_runs() {
    let dir = temp_dir("sweep-bad");
    scenario(&dir, "basics/pillars.crowd", "p.crowd");
    let o = crowd(
        &dir,
        &["batch", "p.crowd", "--seeds", "1..3", "--set", "space_colonization.R=1 m,2 s,900 m", "--out", "runs"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Both bad values, each shown where it went in the scenario, with the checker's help.
    assert!(err.contains("p.crowd with --set space_colonization.R=2 s"), "{err}");
    assert!(err.contains("wrong unit: expected a length, found a time"), "{err}");
    assert!(err.contains("p.crowd with --set space_colonization.R=900 m"), "{err}");
    assert!(err.contains("`R` is the"), "{err}");
    assert!(err.contains("nothing ran"), "{err}");
    assert!(!dir.join("runs").exists(), "nothing was written");

    for (set, says) in [
        ("space_colonization.Rr=1 m", "unknown parameter `Rr` of model space_colonization; did you mean `R`?"),
        ("population.walker.count=3", "no population `walker`; did you mean `walkers`?"),
        ("population.walkers.count=10,10", "`10` and `10` are the same value"),
        ("space_colonization.R=1 m,100 cm", "`1 m` and `100 cm` are the same value (1)"),
        ("space_colonization.R", "has no value"),
    ] {
        let o = crowd(&dir, &["batch", "p.crowd", "--seeds", "1..3", "--set", set, "--out", "runs"]);
        assert_eq!(o.status.code(), Some(2), "{set}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{set}: {}", stderr(&o));
        assert!(!dir.join("runs").exists());
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn shards_make_the_files_of_one_batch_and_a_merge_its_summary_and_manifest() {
    let dir = temp_dir("shards");
    scenario(&dir, "basics/pillars.crowd", "p.crowd");
    let args = ["batch", "p.crowd", "--seeds", "1..5", "--set", "population.walkers.count=10,20"];
    let o = crowd(&dir, &[&args[..], &["--out", "whole", "--jobs", "2"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    for i in 0..3 {
        let shard = format!("{i}/3");
        let o = crowd(&dir, &[&args[..], &["--out", "sharded", "--jobs", "1", "--shard", &shard]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("shard {shard}: ")), "{}", stderr(&o));
        assert!(!dir.join("sharded/summary.csv").exists(), "a shard writes no summary");
    }
    let o = crowd(&dir, &["batch", "--merge", "sharded"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (whole, sharded) = (tree(&dir.join("whole")), tree(&dir.join("sharded")));
    assert_eq!(names(&whole), names(&sharded));
    assert!(whole == sharded, "the shards' files differ from one batch's");
    assert_eq!(whole.len(), 3 + 2 * 5 * 2, "batch.json, summary, manifest and 20 files of runs");

    // The manifest lists every run with its values and the SHA-256 of its files.
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("whole/manifest.json")).unwrap()).unwrap();
    let runs = manifest["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    assert_eq!(runs[7]["seed"], 3);
    assert_eq!(runs[7]["set"]["population.walkers.count"], 20);
    assert_eq!(runs[7]["trace"], "population.walkers.count=20/seed-3.csv");
    let trace = fs::read(dir.join("whole/population.walkers.count=20/seed-3.csv")).unwrap();
    assert_eq!(runs[7]["trace_sha256"], sha256(&trace));
    assert_eq!(manifest["complete"], 10);

    // Inside a SLURM array task, the task gives the shard.
    let o = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args([&args[..], &["--out", "slurm"]].concat())
        .env("SLURM_ARRAY_TASK_ID", "11")
        .env("SLURM_ARRAY_TASK_MIN", "10")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(stderr(&o).contains("shard 1/3: 3 run(s)"), "{}", stderr(&o));

    // A merge of a folder with runs missing says which, and writes nothing.
    let o = crowd(&dir, &["batch", "--merge", "slurm"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("7 of 10 run(s) in slurm are not complete: seed 1 at population.walkers.count=10;"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("slurm/summary.csv").exists() && !dir.join("slurm/manifest.json").exists());
    let _ = fs::remove_dir_all(&dir);
}

/// SHA-256 by the system's `sha256sum`, a digest this crate did not compute.
fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().split_whitespace().next().unwrap().to_string()
}

#[test]
fn a_failing_run_is_listed_with_its_error_and_the_others_complete() {
    let dir = temp_dir("sweep-fail");
    scenario(&dir, "bvp_formations/fig04_formations.crowd", "f.crowd");
    // One sweep of the relaxation cannot converge: its runs fail, the others must not.
    let o =
        crowd(&dir, &["batch", "f.crowd", "--seeds", "1..2", "--set", "bvp.max_iterations=1,10000", "--out", "runs"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("2 run(s), 0 already complete, 2 failed"), "{err}");
    assert!(err.contains("2 of 4 run(s) failed; their errors are in runs/summary.csv"), "{err}");
    let summary = fs::read_to_string(dir.join("runs/summary.csv")).unwrap();
    let rows: Vec<&str> = summary.lines().skip(1).collect();
    assert_eq!(rows.len(), 4);
    for row in &rows[..2] {
        assert!(row.starts_with("1,") && row.contains(",,,\"at step 0 (t = 0 s): the BVP potential"), "{row}");
        assert!(row.contains("raise bvp.max_iterations"), "{row}");
    }
    for row in &rows[2..] {
        assert!(row.starts_with("10000,") && row.ends_with(','), "{row}");
    }
    assert!(dir.join("runs/bvp.max_iterations=1/seed-1.failed.json").exists());
    let manifest = fs::read_to_string(dir.join("runs/manifest.json")).unwrap();
    assert!(manifest.contains("\"failed\": 2") && manifest.contains("\"status\": \"failed\""), "{manifest}");

    // Merging the folder again lists the same failures.
    let before = fs::read(dir.join("runs/summary.csv")).unwrap();
    let o = crowd(&dir, &["batch", "--merge", "runs"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(fs::read(dir.join("runs/summary.csv")).unwrap() == before);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
#[cfg(unix)]
fn a_killed_batch_run_again_redoes_only_the_missing_runs_and_ends_with_the_same_bytes() {
    let dir = temp_dir("sweep-kill");
    scenario(&dir, "basics/pillars.crowd", "p.crowd");
    let args = ["batch", "p.crowd", "--seeds", "1..6", "--set", "population.walkers.count=30,40", "--jobs", "1"];
    let o = crowd(&dir, &[&args[..], &["--out", "whole"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));

    let mut child = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args([&args[..], &["--out", "killed"]].concat())
        .current_dir(&dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Counted while the batch writes: names only, the folders may not exist yet.
    let metas = |d: &Path| {
        let folders = fs::read_dir(d).into_iter().flatten().filter_map(Result::ok).map(|e| e.path());
        let files = folders.flat_map(|f| fs::read_dir(f).into_iter().flatten().filter_map(Result::ok));
        files.filter(|e| e.file_name().to_string_lossy().ends_with(".meta.json")).count()
    };
    let start = Instant::now();
    while metas(&dir.join("killed")) < 3 {
        assert!(start.elapsed() < Duration::from_secs(60), "the batch wrote no runs");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = metas(&dir.join("killed"));
    assert!(kept < 12, "killed before the end ({kept} runs complete)");

    let o = crowd(&dir, &[&args[..], &["--out", "killed"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let said = format!("{} run(s), {kept} already complete, 0 failed", 12 - kept);
    assert!(stderr(&o).contains(&said), "{said}: {}", stderr(&o));
    let (whole, resumed) = (tree(&dir.join("whole")), tree(&dir.join("killed")));
    assert_eq!(names(&whole), names(&resumed), "no temporary file is left");
    assert!(whole == resumed);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
#[cfg(unix)]
fn the_slurm_script_runs_each_task_as_its_shard_on_this_build_only() {
    let dir = temp_dir("sweep-slurm-script");
    scenario(&dir, "basics/pillars.crowd", "p.crowd");
    let args = ["batch", "p.crowd", "--seeds", "1..3", "--set", "population.walkers.count=10,20"];
    let o = crowd(
        &dir,
        &[&args[..], &["--out", "runs", "--emit-slurm", "job.sh", "--tasks", "4", "--time", "00:05:00"]].concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("6 run(s) in a job array of 4 task(s)"), "{}", stderr(&o));
    assert!(!dir.join("runs").exists(), "writing the script runs nothing");
    let script = fs::read_to_string(dir.join("job.sh")).unwrap();
    let here = dir.canonicalize().unwrap();
    for line in [
        "#SBATCH --array=0-3\n".to_string(),
        "#SBATCH --cpus-per-task=1\n".to_string(),
        "#SBATCH --time=00:05:00\n".to_string(),
        format!("#SBATCH --chdir={}\n", here.display()),
        format!("#SBATCH --output={}\n", here.join("job-logs/%A_%a.out").display()),
    ] {
        assert!(script.contains(&line), "{line} in:\n{script}");
    }
    assert!(script.contains("--set population.walkers.count=10,20 --out runs"), "{script}");
    assert!(dir.join("job-logs").is_dir(), "sbatch does not make the log folder");

    // Run as the array's four tasks would be, then merged: one batch's files.
    for task in 0..4 {
        let o = Command::new("bash")
            .arg("job.sh")
            .env("SLURM_ARRAY_TASK_ID", task.to_string())
            .env("SLURM_ARRAY_TASK_MIN", "0")
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "task {task}: {}", stderr(&o));
    }
    let o = crowd(&dir, &["batch", "--merge", "runs"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = crowd(&dir, &[&args[..], &["--out", "whole"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(tree(&dir.join("runs")) == tree(&dir.join("whole")));

    // Another build is refused before it runs anything.
    let o = crowd(&dir, &[&args[..], &["--out", "other", "--expect-build", "0.0.0+0000000000000000"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("the batch was planned for build 0.0.0+0000000000000000"), "{}", stderr(&o));
    assert!(!dir.join("other").exists());
    let _ = fs::remove_dir_all(&dir);
}
