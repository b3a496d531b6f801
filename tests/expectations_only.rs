//! Every scenario's expectations hold on their own, with no golden trace to
//! lean on: what `cargo mutants` runs (`.cargo/mutants.toml`; the tests
//! table of `docs/architecture.md`), so that a mutation of the model code counts as caught
//! only when a scenario's claims notice it. Ignored in a plain `cargo test`:
//! `golden_scenarios` already checks the same claims and the traces.

use std::process::Command;

mod cli_support;
use cli_support::temp_dir;

#[test]
#[ignore = "the mutation-testing entry; golden_scenarios covers it in a plain run"]
fn every_scenario_holds_its_expectations_without_goldens() {
    let root = env!("CARGO_MANIFEST_DIR");
    let empty = temp_dir("expectations-only");
    let out = Command::new(env!("CARGO_BIN_EXE_crowd"))
        .args(["test", "scenarios", "--golden"])
        .arg(&empty)
        .current_dir(root)
        .output()
        .expect("crowd runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failing: Vec<&str> = stdout.lines().filter(|l| l.trim_start().starts_with("FAILS:")).collect();
    // 3: every expectation holds and no scenario has a golden to compare with.
    assert!(out.status.code() == Some(3) && failing.is_empty(), "{}\n{stdout}", failing.join("\n"));
}
