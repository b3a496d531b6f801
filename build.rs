//! Marks the tests whose outside tool is missing as ignored, so that a local
//! `cargo test` lists them as ignored with the reason instead of passing
//! them in silence. Under CI (`CI` set) nothing is ignored: a missing tool
//! fails its test there, and `.ci/run` installs every one.

#[path = "tests/tools/mod.rs"]
mod tools;
use tools::{
    aarch64, chromium, clients_available, pedpy_available, pyarrow_available, pygls_available, slurm_available,
    textmate_available,
};

fn main() {
    println!("cargo:rustc-check-cfg=cfg(no_pedpy)");
    println!("cargo:rustc-check-cfg=cfg(no_chromium)");
    println!("cargo:rustc-check-cfg=cfg(no_slurm)");
    println!("cargo:rustc-check-cfg=cfg(no_clients)");
    println!("cargo:rustc-check-cfg=cfg(no_textmate)");
    println!("cargo:rustc-check-cfg=cfg(no_pyarrow)");
    println!("cargo:rustc-check-cfg=cfg(no_pygls)");
    println!("cargo:rustc-check-cfg=cfg(no_aarch64)");
    for var in ["CI", "CROWD_CHROMIUM", "CROWD_PYTHON", "CROWD_AARCH64_RUSTC", "PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=tests/tools/mod.rs");
    println!("cargo:rerun-if-changed=editors/vscode/node_modules");
    if std::env::var_os("CI").is_some() {
        return;
    }
    if !pedpy_available() {
        println!("cargo:rustc-cfg=no_pedpy");
    }
    if chromium().is_none() {
        println!("cargo:rustc-cfg=no_chromium");
    }
    if !clients_available() {
        println!("cargo:rustc-cfg=no_clients");
    }
    if !textmate_available() {
        println!("cargo:rustc-cfg=no_textmate");
    }
    if !slurm_available() {
        println!("cargo:rustc-cfg=no_slurm");
    }
    if !pyarrow_available() {
        println!("cargo:rustc-cfg=no_pyarrow");
    }
    if !pygls_available() {
        println!("cargo:rustc-cfg=no_pygls");
    }
    if aarch64().is_none() {
        println!("cargo:rustc-cfg=no_aarch64");
    }
}
