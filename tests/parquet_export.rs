//! `crowd run --format parquet` and `crowd export --format parquet` write
//! the CSV trace's table: pyarrow reads the file back and every column
//! equals the CSV's of the same run, read with pandas
//! (`tests/clients/parquet_check.py`), with its types and its nulls.
//!
//! Needs Python (`CROWD_PYTHON`, else `python3`) with `pyarrow` and
//! `pandas`. Without them the test is ignored, except in CI (`CI` set),
//! where it fails. A build without the cargo feature `parquet` must refuse
//! the format, saying why.

// Without the feature only the refusal is tested.
#![cfg_attr(not(feature = "parquet"), allow(dead_code, unused_imports))]

use std::fs;
use std::path::Path;
use std::process::Command;

mod cli_support;
mod tools;
use cli_support::{crowd, temp_dir};
use tools::{pyarrow_available, python};

/// A var column, empty for the wolf, whose behaviour has no such var; a
/// goal only for the wolf; radii.
const FEAR: &str = "scenario fear { seed 2; duration 60 s; step 1/10 s }
world {
  bounds (0 m, 0 m) to (60 m, 30 m)
  region pasture rect (5 m, 5 m) to (25 m, 25 m)
  region fold rect (1 m, 12 m) to (4 m, 18 m)
}
population sheep { count 20; spawn in pasture; behaviour graze }
agent wolf at (58 m, 15 m) { goal (30 m, 15 m); behaviour prowl }
behaviour graze {
  var fear {
    rise 2 per s when sees wolf within 12 m cone 200 deg
    decay 0.25 per s
    max 1
  }
  rule bolt priority 10 when fear > 0.5 { seek region fold }
  rule graze { dwell 60 s }
}
behaviour prowl { seek goal }
output { columns speed, goal, radius, fear }
";

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Lets the script compare the Parquet file `parquet` with the trace `csv`
/// (its metadata beside it), both in `dir`.
fn check(dir: &Path, csv: &str, parquet: &str) {
    let meta: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join(csv.replace(".csv", ".meta.json"))).unwrap()).unwrap();
    let fps = meta["frame_rate"].as_f64().expect("the metadata has the frame rate");
    let name =
        meta.pointer("/scenario/name").and_then(serde_json::Value::as_str).expect("the metadata names the scenario");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/parquet_check.py");
    let o = Command::new(python())
        .arg(script)
        .args([csv, parquet, name, &fps.to_string()])
        .current_dir(dir)
        .output()
        .expect("Python runs");
    let out = String::from_utf8_lossy(&o.stdout);
    eprintln!("{parquet}: {out}");
    assert!(o.status.success(), "{parquet} differs from {csv}:\n{out}\n{}", String::from_utf8_lossy(&o.stderr));
}

/// Runs `stem.crowd` in `dir` as CSV and as Parquet and compares them, and
/// checks that a second run writes the same bytes; with `export`, also that
/// `crowd export` of the CSV writes the run's file, byte for byte (var
/// columns are not read back from a CSV: not for a scenario with one).
fn compare(dir: &Path, stem: &str, export: bool) {
    let scenario = format!("{stem}.crowd");
    let csv = format!("{stem}.csv");
    // Other stems than the CSV's, so that the CSV's metadata stays its own.
    let (parquet, again) = (format!("{stem}-run.parquet"), format!("{stem}-again.parquet"));
    ok(&crowd(dir, &["run", &scenario, "--format", "csv", "--out", &csv]));
    ok(&crowd(dir, &["run", &scenario, "--format", "parquet", "--out", &parquet]));
    check(dir, &csv, &parquet);
    let bytes = fs::read(dir.join(&parquet)).unwrap();
    ok(&crowd(dir, &["run", &scenario, "--format", "parquet", "--out", &again]));
    assert!(fs::read(dir.join(&again)).unwrap() == bytes, "{stem}: a second run wrote other bytes");
    if export {
        let exported = format!("{stem}-export.parquet");
        ok(&crowd(dir, &["export", &csv, "--format", "parquet", "-o", &exported]));
        check(dir, &csv, &exported);
        assert!(fs::read(dir.join(&exported)).unwrap() == bytes, "{stem}: the export is not the run's file");
    }
}

#[test]
#[cfg(feature = "parquet")]
#[cfg_attr(no_pyarrow, ignore = "Python with pyarrow and pandas is not installed (or set CROWD_PYTHON); CI runs it")]
fn parquet_trace_equals_the_csv_trace() {
    if !pyarrow_available() {
        assert!(std::env::var_os("CI").is_none(), "pyarrow is missing in CI (.ci/run installs it with pip)");
        eprintln!("skipped: Python with pyarrow and pandas is not available");
        return;
    }
    let dir = temp_dir("parquet");
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    fs::copy(scenarios.join("basics/party.crowd"), dir.join("party.crowd")).unwrap();
    fs::copy(scenarios.join("semantic_groups/party.crowd"), dir.join("groups.crowd")).unwrap();
    fs::write(dir.join("fear.crowd"), FEAR).unwrap();
    // Agents arriving and leaving, groups of one (no group) to three, goals.
    compare(&dir, "party", true);
    // Formations, and walking alone (none).
    compare(&dir, "groups", true);
    // A var, goals, speeds and radii.
    compare(&dir, "fear", false);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
#[cfg(not(feature = "parquet"))]
fn without_the_feature_parquet_is_refused() {
    let dir = temp_dir("no-parquet");
    let party = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/party.crowd");
    fs::copy(party, dir.join("party.crowd")).unwrap();
    let o = crowd(&dir, &["run", "party.crowd", "--format", "parquet", "--out", "party.parquet"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("without Parquet"), "{err}");
    assert!(!dir.join("party.parquet").exists());
    ok(&crowd(&dir, &["run", "party.crowd", "--out", "party.csv"]));
    let o = crowd(&dir, &["export", "party.csv", "--format", "parquet"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("without Parquet"));
    let _ = fs::remove_dir_all(&dir);
}
