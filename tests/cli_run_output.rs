//! `crowd run`: where the trace goes, its companions, and that the bytes do
//! not depend on the thread count or the destination.

use std::fs;
use std::path::{Path, PathBuf};

mod cli_support;
use cli_support::{crowd, temp_dir};

fn scenario(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/counter_flow.crowd");
    let dst = dir.join("flow.crowd");
    fs::copy(src, &dst).unwrap();
    dst
}

#[test]
fn the_default_path_threads_and_stdout_give_the_same_trace() {
    let dir = temp_dir("run-out");
    scenario(&dir);
    let o = crowd(&dir, &["run", "flow.crowd"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("out/flow.csv") && stderr.contains("out/flow.meta.json"),
        "says where the trace went: {stderr}"
    );
    let default = fs::read(dir.join("out/flow.csv")).unwrap();
    assert!(default.starts_with(b"id,frame,t,x,y,vx,vy,ori_x,ori_y,population,group,state\n"));

    for threads in ["1", "2", "8"] {
        let path = format!("t{threads}.csv");
        let o = crowd(&dir, &["run", "flow.crowd", "--threads", threads, "--out", &path]);
        assert!(o.status.success());
        assert!(fs::read(dir.join(&path)).unwrap() == default, "--threads {threads} changed the trace");
    }
    let o = crowd(&dir, &["run", "flow.crowd", "--out", "-"]);
    assert!(o.status.success());
    assert!(o.stdout == default, "standard output differs from the file");

    let meta: serde_json::Value = serde_json::from_slice(&fs::read(dir.join("out/flow.meta.json")).unwrap()).unwrap();
    assert_eq!(meta["seed"], 3);
    assert_eq!(meta["scenario"]["name"], "counter_flow");
    assert!(meta["scenario"]["hash"].as_str().unwrap().starts_with("fnv1a64:"));
    assert_eq!(meta["frame_rate"], 1.0);
    assert!(meta["walkable_area_wkt"].as_str().unwrap().starts_with("POLYGON ((0 0, 40 0, 40 8, 0 8, 0 0))"));
    assert_eq!(meta["parameters"]["space_colonization"]["t_min"], 0.5);
    let _ = fs::remove_dir_all(&dir);
}

/// `-o /dev/null` replaced the system's /dev/null with the trace (written
/// to a temporary name and renamed over it) and wrote `/dev/null.meta.json`
/// beside it. A pipe stands in for the device here.
#[cfg(unix)]
#[test]
fn a_trace_written_to_a_pipe_leaves_the_pipe_in_place_and_no_metadata() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("run-pipe");
    scenario(&dir);
    assert!(crowd(&dir, &["run", "flow.crowd", "--out", "file.csv"]).status.success());
    let made = std::process::Command::new("mkfifo").arg(dir.join("pipe.csv")).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) makes the pipe");
    // The reader waits in its open until a writer opens the pipe: it reports
    // through a channel, so that a pipe nobody wrote fails the test instead
    // of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    let pipe = dir.join("pipe.csv");
    std::thread::spawn(move || tx.send(fs::read(pipe).unwrap()));
    let o = crowd(&dir, &["run", "flow.crowd", "--out", "pipe.csv"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(fs::metadata(dir.join("pipe.csv")).unwrap().file_type().is_fifo(), "the pipe is still a pipe");
    let carried = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the trace went through the pipe");
    assert!(carried == fs::read(dir.join("file.csv")).unwrap(), "the pipe carries the trace");
    assert!(!dir.join("pipe.meta.json").exists(), "no metadata beside a pipe");
    assert!(stderr.contains("no metadata"), "says so: {stderr}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn seed_precision_and_stats() {
    let dir = temp_dir("run-opts");
    scenario(&dir);
    assert!(crowd(&dir, &["run", "flow.crowd", "--out", "a.csv"]).status.success());
    assert!(crowd(&dir, &["run", "flow.crowd", "--out", "b.csv", "--seed", "4"]).status.success());
    assert!(fs::read(dir.join("a.csv")).unwrap() != fs::read(dir.join("b.csv")).unwrap());

    let o = crowd(&dir, &["run", "flow.crowd", "--out", "p.csv", "--precision", "3", "--stats"]);
    assert!(o.status.success());
    let stats = String::from_utf8_lossy(&o.stderr);
    for word in ["agents:", "steps:", "wall time:", "simulation:", "writing:", "agent-steps per s:"] {
        assert!(stats.contains(word), "--stats prints {word}: {stats}");
    }
    let p = fs::read_to_string(dir.join("p.csv")).unwrap();
    let row = p.lines().nth(200).unwrap();
    let x = row.split(',').nth(3).unwrap();
    assert_eq!(x.split('.').nth(1).map(str::len), Some(3), "{row}");
    assert!(!p.split([',', '\n']).any(|f| f == "-0.000"), "no negative zero");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn an_unimplemented_model_fails_clearly_and_writes_nothing() {
    let dir = temp_dir("run-model");
    let text = fs::read_to_string(scenario(&dir))
        .unwrap()
        .replace("seek goal using straight", "seek goal using straight; wander");
    fs::write(dir.join("tree.crowd"), text).unwrap();
    let o = crowd(&dir, &["run", "tree.crowd"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("needs the wander model (wander in default of behaviour cross), which is not implemented yet"),
        "{stderr}"
    );
    assert!(!dir.join("out/tree.csv").exists());
    let _ = fs::remove_dir_all(&dir);
}
