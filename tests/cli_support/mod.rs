//! Running the built `crowd` binary from integration tests, in scratch folders.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test (named after it and the process).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("crowd-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `crowd ARGS` in `dir`.
pub fn crowd(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_crowd")).args(args).current_dir(dir).output().expect("crowd runs")
}

/// Every file under `dir`, at any depth (path relative to `dir`, bytes), sorted by path.
pub fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let files = walk(dir, |_| true);
    files.iter().map(|p| (p.strip_prefix(dir).unwrap().to_string_lossy().into_owned(), fs::read(p).unwrap())).collect()
}

/// Every `.crowd` file under `dir`, at any depth, sorted by path.
pub fn crowd_files(dir: &Path) -> Vec<PathBuf> {
    walk(dir, |p| p.extension().is_some_and(|x| x == "crowd"))
}

/// The files under `dir`, at any depth, that `keep` takes, sorted by path.
fn walk(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A scene whose names crowd on purpose: regions stacked on one spot, an
/// obstacle too small for its name, objects side by side.
pub const CROWDED_NAMES: &str = "scenario crowded { seed 1; duration 2 s; step 1/4 s }
world {
  bounds (0 m, 0 m) to (20 m, 10 m)
  region first_region_with_a_long_name rect (1 m, 1 m) to (5 m, 5 m)
  region second_region_here rect (1.2 m, 1.2 m) to (5 m, 5 m)
  region third rect (1.4 m, 1.4 m) to (4 m, 4 m)
  obstacle a_pillar_with_a_long_name circle (10 m, 5 m) radius 0.3 m
  obstacle another_pillar circle (11 m, 5 m) radius 0.3 m
}
space hall rect (0 m, 0 m) to (20 m, 10 m) {
  object lamp at (15 m, 5 m) provides light
  object desk at (15.5 m, 5 m) provides work
  object chair at (16 m, 5 m) provides rest
}
population p { count 3; spawn in third; goal (18 m, 8 m); behaviour go }
behaviour go { seek goal using straight }
";
