//! Every scenario under `scenarios/` (benchmarks excluded) still writes its
//! golden trace byte for byte and still holds its expectations, apart from
//! the claims listed in [`KNOWN_FAILURES`].

use std::process::Command;

mod scenario_support;
use scenario_support::KNOWN_FAILURES;

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
    let mut scenario = "";
    let mut wrong = Vec::new();
    let mut failing = Vec::new();
    for line in stdout.lines() {
        if let Some(path) = line.strip_prefix("FAIL   ").or(line.strip_prefix("ok     ")) {
            scenario = path;
        } else if let Some(rest) = line.trim_start().strip_prefix("FAILS: ") {
            let claim = rest.split(" (").next().unwrap_or(rest);
            failing.push((scenario, claim));
            if !KNOWN_FAILURES.contains(&(scenario, claim)) {
                wrong.push(format!("{scenario}: {rest}"));
            }
        } else if line.starts_with("NOGOLD") || line.trim_start().starts_with("trace differs") {
            wrong.push(format!("{scenario}: {line}"));
        }
    }
    for known in KNOWN_FAILURES {
        if !failing.contains(&known) {
            wrong.push(format!("{}: `{}` holds now: remove it from KNOWN_FAILURES", known.0, known.1));
        }
    }
    assert!(
        wrong.is_empty() && !stdout.contains("cannot"),
        "`crowd test` failed; if a trace change is intended, run `cargo run -- test --bless` and review the diff\n{}\n\n{stdout}\n{stderr}",
        wrong.join("\n")
    );
    assert!(!stdout.contains("straight_10k"), "benchmarks are skipped: {stdout}");
}
