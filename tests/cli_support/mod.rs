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
