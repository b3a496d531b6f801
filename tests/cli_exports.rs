//! `crowd export` and `crowd run --format`: the same file either way, written
//! atomically, and a bad request is a clear error that leaves nothing behind.

use std::fs;
use std::path::Path;

mod cli_support;
use cli_support::{crowd, temp_dir};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pillars(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/pillars.crowd");
    fs::copy(src, dir.join("p.crowd")).unwrap();
}

#[test]
fn a_run_written_as_a_format_is_its_csv_exported() {
    let dir = temp_dir("exports-same");
    pillars(&dir);
    let o = crowd(&dir, &["run", "p.crowd", "--out", "t.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (format, ext) in [("sqlite", "sqlite"), ("usd", "usda")] {
        let direct = format!("direct.{ext}");
        let o = crowd(&dir, &["run", "p.crowd", "--format", format, "--out", &direct]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(dir.join("direct.meta.json").exists(), "the metadata goes beside it");
        let exported = format!("exported.{ext}");
        let o = crowd(&dir, &["export", "t.csv", "--format", format, "-o", &exported]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains(&format!("wrote {exported} (81 frames, 3240 rows)")), "{}", stderr(&o));
        assert!(fs::read(dir.join(&direct)).unwrap() == fs::read(dir.join(&exported)).unwrap(), "{format}");
    }
    // Without -o, beside the trace with the format's extension.
    let o = crowd(&dir, &["export", "t.csv", "--format", "usd"]);
    assert!(o.status.success() && dir.join("t.usda").exists(), "{}", stderr(&o));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_requests_are_clear_errors_and_leave_no_file() {
    let dir = temp_dir("exports-bad");
    pillars(&dir);
    let o = crowd(&dir, &["run", "p.crowd", "--out", "t.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before: Vec<_> = fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();

    let o = crowd(&dir, &["export", "t.csv", "--format", "fbx"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'fbx'") && stderr(&o).contains("sqlite, usd, parquet"),
        "{}",
        stderr(&o)
    );

    let o = crowd(&dir, &["export", "t.csv", "--format", "sqlite", "-o", "/proc/t.sqlite"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write /proc/t.sqlite"), "{}", stderr(&o));

    fs::create_dir(dir.join("locked")).unwrap();
    let o = crowd(&dir, &["export", "t.csv", "--format", "sqlite", "-o", "locked"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write locked"), "{}", stderr(&o));

    for (args, says) in [
        (vec!["export", "t.csv", "--format", "usd", "-o", "t.csv"], "t.csv is an input of this command"),
        (vec!["export", "t.csv", "--format", "usd", "-o", "t.meta.json"], "is an input of this command"),
        (vec!["export", "t.csv", "--format", "csv"], "the trace is CSV already"),
        (vec!["export", "missing.csv", "--format", "usd"], "cannot read missing.csv"),
        (vec!["run", "p.crowd", "--format", "usd", "-o", "-"], "--format usda: standard output"),
        (vec!["run", "p.crowd", "--format", "sqlite", "--precision", "3"], "--precision is for CSV traces"),
    ] {
        let o = crowd(&dir, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    // A stage held in memory until written is refused before the run when too large.
    let big = fs::read_to_string(dir.join("p.crowd"))
        .unwrap()
        .replace("count 40", "count 100000")
        .replace("record every 12 steps", "record every 1 steps");
    fs::write(dir.join("big.crowd"), big).unwrap();
    let o = crowd(&dir, &["run", "big.crowd", "--format", "usd", "-o", "big.usda"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "a USD stage holds every sample until it is written: about 4.6 GB for 100000 agents in 961 frames"
        ),
        "{}",
        stderr(&o)
    );
    fs::remove_file(dir.join("big.crowd")).unwrap();

    fs::write(dir.join("u.csv"), fs::read(dir.join("t.csv")).unwrap()).unwrap();
    let o = crowd(&dir, &["export", "u.csv", "--format", "sqlite"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot read u.meta.json (the trace's metadata)"), "{}", stderr(&o));

    fs::remove_file(dir.join("u.csv")).unwrap();
    let mut after: Vec<_> = fs::read_dir(&dir).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
    after.retain(|n| n != "locked");
    let mut before = before;
    before.sort();
    after.sort();
    assert_eq!(before, after, "no export, temporary or partial file was left");
    let _ = fs::remove_dir_all(&dir);
}
