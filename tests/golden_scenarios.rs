//! Every scenario under `scenarios/` (benchmarks excluded) still holds its
//! expectations and still writes its golden trace byte for byte.

use std::process::Command;

#[test]
fn scenarios_match_their_goldens() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args(["test", "scenarios", "--golden", "golden"])
        .current_dir(root)
        .output()
        .expect("crowd runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "`crowd test` failed; if the change is intended, run `cargo run -- test --bless` and review the diff\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    assert!(!stdout.contains("straight_10k"), "benchmarks are skipped: {stdout}");
}
