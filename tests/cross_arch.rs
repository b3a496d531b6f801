//! A trace is the same bytes on every CPU architecture: `crowd` built for
//! aarch64 and run under qemu-user reproduces every golden trace, each
//! x86_64's trace of its scenario (`golden_scenarios` holds x86_64 to them
//! in the same test run), byte for byte. On four threads, where x86_64's
//! run has the machine's two: the thread count is crossed with the
//! architecture. One pass under emulation takes about five minutes here.
//!
//! Needs a rustc with the aarch64 standard library, the aarch64 linker and
//! qemu-user (`tools::aarch64`; `.ci/run` installs Debian's). Without them
//! the test is ignored with the reason, except in CI (`CI` set), where it
//! fails.
//!
//! The binary is linked statically: dynamically linked, any aarch64
//! program that starts a thread (a C one too) spins for ever in its first
//! `pthread_create` under Debian 12's qemu-user here, 7.2 and 10.0 alike;
//! statically linked, it runs.

use std::path::Path;
use std::process::Command;

mod tools;
use tools::{aarch64, AARCH64};

/// Builds `crowd` for aarch64 into `target/aarch64` and returns its path.
fn build(tools: &tools::Aarch64) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = root.join("target/aarch64");
    let o = Command::new(env!("CARGO"))
        .args(["build", "--release", "--bin", "crowd", "--target", AARCH64, "--target-dir"])
        .arg(&target_dir)
        .env("RUSTC", &tools.rustc)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", &tools.linker)
        .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS", "-C target-feature=+crt-static")
        // The outer build's flags and wrappers are for the host.
        .env_remove("RUSTFLAGS")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO_BUILD_TARGET")
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(o.status.success(), "the aarch64 build failed:\n{}", String::from_utf8_lossy(&o.stderr));
    target_dir.join(AARCH64).join("release/crowd")
}

#[test]
#[cfg_attr(no_aarch64, ignore = "no aarch64 rustc, linker and qemu-user (see .ci/run); CI runs it")]
fn every_golden_trace_is_the_same_bytes_on_aarch64() {
    let Some(tools) = aarch64() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the aarch64 toolchain or qemu-user is missing in CI (.ci/run installs Debian's)"
        );
        eprintln!("skipped: no aarch64 rustc, linker and qemu-user");
        return;
    };
    let crowd = build(&tools);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new(&tools.qemu)
        .arg(&crowd)
        .args(["test", "scenarios"])
        // The size of the global pool every run of `crowd test` shares.
        .env("RAYON_NUM_THREADS", "4")
        .current_dir(root)
        .output()
        .expect("qemu-user runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let summary = out.lines().last().unwrap_or_default();
    eprintln!("aarch64: {summary}");
    let differ: Vec<&str> =
        out.lines().filter(|l| !l.starts_with("ok") && !l.trim_start().starts_with("holds")).collect();
    assert!(
        o.status.success(),
        "on aarch64 some scenario's trace or expectations differ:\n{}\n{}",
        differ.join("\n"),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(summary.ends_with(" passed, 0 failed"), "an unexpected summary: {summary}");
}
