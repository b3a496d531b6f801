//! Marks the tests whose outside tool is missing as ignored, so that a local
//! `cargo test` lists them as ignored with the reason instead of passing
//! them in silence. Under CI (`CI` set) nothing is ignored: a missing tool
//! fails its test there, and `.ci/run` installs every one.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(no_pedpy)");
    println!("cargo:rustc-check-cfg=cfg(no_chromium)");
    for var in ["CI", "CROWD_CHROMIUM", "PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CI").is_some() {
        return;
    }
    let pedpy = Command::new("python3")
        .args(["-c", "import pedpy, pandas, shapely"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pedpy {
        println!("cargo:rustc-cfg=no_pedpy");
    }
    if chromium().is_none() {
        println!("cargo:rustc-cfg=no_chromium");
    }
}

/// The browser the player tests use (`tests/view_player.rs` looks the same way).
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROWD_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}
