//! A `crowd run` killed mid-run leaves either no trace or the previous
//! complete one at the output path, never a partial file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crowd-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A scenario that runs for many seconds.
const LONG: &str = "
scenario long { seed 1; duration 600 s; step 1/24 s; record every 1 steps }
world { bounds (0 m, 0 m) to (100 m, 40 m)  region a rect (1 m, 1 m) to (40 m, 39 m)  region b rect (60 m, 1 m) to (99 m, 39 m) }
population east { count 1500; spawn in a; goal region b; behaviour go }
population west { count 1500; spawn in b; goal region a; behaviour go }
behaviour go { seek goal using straight }
";

/// Whether a temporary file (a write under way) is in `folder`.
fn writing(folder: &Path) -> bool {
    fs::read_dir(folder)
        .map(|d| d.filter_map(Result::ok).any(|e| e.file_name().to_string_lossy().contains(".tmp-")))
        .unwrap_or(false)
}

/// Starts `crowd ARGS` in `dir` and returns once it has been writing into
/// `folder` for a moment.
fn start_writing(dir: &Path, args: &[&str], folder: &Path, stderr: Stdio) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("crowd starts");
    let start = Instant::now();
    while !writing(folder) && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(writing(folder), "{args:?} never started writing");
    std::thread::sleep(Duration::from_millis(300));
    child
}

/// Sends SIGINT to `child` and waits for it: its exit code, its stderr, and how long it took to stop.
#[cfg(unix)]
fn interrupt(child: std::process::Child) -> (Option<i32>, String, Duration) {
    let sent = Instant::now();
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), sent.elapsed())
}

/// Starts a run, waits until it is writing, kills it (SIGKILL on Unix) and waits for it.
fn run_and_kill(dir: &Path, out: &str) {
    let mut child = start_writing(dir, &["run", "long.crowd", "--out", out], dir, Stdio::null());
    assert!(child.try_wait().unwrap().is_none(), "the run finished before it could be killed");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_killed_run_leaves_no_partial_trace() {
    let dir = temp_dir("kill");
    fs::write(dir.join("long.crowd"), LONG).unwrap();

    run_and_kill(&dir, "trace.csv");
    assert!(!dir.join("trace.csv").exists(), "a partial trace was left at the output path");
    assert!(!dir.join("trace.meta.json").exists());

    // With a previous complete trace in place, it survives untouched.
    let short = LONG.replace("duration 600 s", "duration 1 s");
    fs::write(dir.join("short.crowd"), short).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args(["run", "short.crowd", "--out", "trace.csv"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let previous = fs::read(dir.join("trace.csv")).unwrap();
    run_and_kill(&dir, "trace.csv");
    assert!(fs::read(dir.join("trace.csv")).unwrap() == previous, "the previous trace was damaged");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
#[cfg(unix)]
fn an_interrupted_run_stops_within_a_second_says_where_and_leaves_no_file() {
    let dir = temp_dir("interrupt");
    fs::write(dir.join("long.crowd"), LONG).unwrap();
    let child = start_writing(&dir, &["run", "long.crowd", "--out", "trace.csv"], &dir, Stdio::piped());
    let (code, err, stopped) = interrupt(child);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("interrupted at step"), "{err}");
    assert!(stopped < Duration::from_secs(1), "took {stopped:?} to stop");
    assert!(!dir.join("trace.csv").exists() && !dir.join("trace.meta.json").exists());
    assert!(!writing(&dir), "a temporary file was left behind");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[cfg(unix)]
fn an_interrupted_batch_stops_within_a_second_and_keeps_only_complete_runs() {
    let dir = temp_dir("interrupt-batch");
    fs::write(dir.join("long.crowd"), LONG).unwrap();
    let runs = dir.join("runs");
    let args = ["batch", "long.crowd", "--seeds", "1..4", "--jobs", "2", "--out", "runs"];
    let child = start_writing(&dir, &args, &runs, Stdio::piped());
    let (code, err, stopped) = interrupt(child);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("interrupted: 0 of 4 run(s) complete"), "{err}");
    assert!(stopped < Duration::from_secs(1), "took {stopped:?} to stop");
    let left: Vec<String> = fs::read_dir(&runs)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    // The plan stays: it is what the batch is, written before any run.
    assert!(left == ["batch.json"], "left behind: {left:?}");
    fs::remove_dir_all(&dir).unwrap();
}
