//! The scenario files the unit tests walk through: every shipped scenario
//! and fixture.

use std::path::{Path, PathBuf};

/// Every `.crowd` file under `dir`, sorted by path.
pub fn crowd_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "crowd") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}
