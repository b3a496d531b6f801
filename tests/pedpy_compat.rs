//! The trace is compatible with PedPy, the pedestrian-dynamics analysis
//! library: PedPy loads a `crowd` trace (with pandas and with its Pathfinder
//! CSV loader), and its classic density and mean individual speed in a
//! measurement area agree with `crowd metrics --area` frame by frame.
//!
//! Needs `python3` with `pedpy` (`pip install pedpy`). Without them the test
//! is skipped with a note, except in CI (`CI` set), where it fails.

use std::fs;
use std::path::Path;
use std::process::Command;

mod cli_support;
mod tools;
use cli_support::{crowd, temp_dir};
use tools::pedpy_available;

/// Runs a scenario, measures it in `area` with `crowd metrics`, and lets the
/// script compare PedPy's numbers with crowd's.
fn compare(dir: &Path, scenario: &str, area: &str, step: u32) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("scenarios/basics/{scenario}.crowd"));
    fs::copy(src, dir.join(format!("{scenario}.crowd"))).unwrap();
    let trace = format!("{scenario}.csv");
    let o = crowd(dir, &["run", &format!("{scenario}.crowd"), "--out", &trace]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frames = format!("{scenario}-frames.csv");
    let step_arg = step.to_string();
    let o = crowd(
        dir,
        &[
            "metrics",
            &trace,
            "--area",
            area,
            "--speed-step",
            &step_arg,
            "--per-frame",
            "--format",
            "csv",
            "-o",
            &frames,
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join(format!("{scenario}.meta.json"))).unwrap()).unwrap();
    let fps = meta["frame_rate"].as_f64().expect("the metadata has the frame rate");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/pedpy_compare.py");
    let o = Command::new(tools::python())
        .arg(script)
        .args([&trace, &fps.to_string(), area, &step_arg, &frames])
        .current_dir(dir)
        .output()
        .expect("python3 runs");
    let out = String::from_utf8_lossy(&o.stdout);
    eprintln!("{scenario}: {out}");
    assert!(o.status.success(), "{scenario}: PedPy and crowd disagree:\n{out}\n{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
#[cfg_attr(no_pedpy, ignore = "python3 with pedpy is not installed (pip install pedpy); CI runs it")]
fn pedpy_reads_the_trace_and_agrees_on_density_and_speed() {
    if !pedpy_available() {
        assert!(std::env::var_os("CI").is_none(), "PedPy is missing in CI (.ci/run installs it with pip)");
        eprintln!("skipped: python3 with pedpy is not available (pip install pedpy)");
        return;
    }
    let dir = temp_dir("pedpy");
    // A counter-flow through the middle of the corridor, one frame per second.
    compare(&dir, "counter_flow", "15,1,25,7", 1);
    // Two frames per second, a window of two frames either side.
    compare(&dir, "pillars", "16,4,26,16", 2);
    // Agents that appear and leave during the run.
    compare(&dir, "party", "5,3,30,12", 1);
    let _ = fs::remove_dir_all(&dir);
}
