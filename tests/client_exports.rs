//! Every shipped scenario's trace (the benchmarks' 100,000 agents too) read back by the clients its exports are
//! for, none of them written here: PedPy (the CSV, the SQLite file and the
//! metadata's walkable area), JuPedSim's own reader (the SQLite file) and
//! usd-core (the USD stage); PedPy's density and speed in an area, from the
//! CSV and from the SQLite file, equal `crowd metrics --area`
//! (`tests/clients/exports.py` says what is compared).
//!
//! Needs a Python with pedpy, jupedsim and usd-core (`CROWD_PYTHON`, else
//! `python3`; `.ci/run` makes a virtual environment). Without them the test
//! is ignored, except under `CI`, where it fails.

use std::fs;
use std::path::Path;
use std::process::Command;

mod cli_support;
mod tools;
use cli_support::{crowd, crowd_files, temp_dir};

fn ok(o: &std::process::Output, what: &str) {
    assert!(o.status.success(), "{what}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
#[cfg_attr(no_clients, ignore = "no Python with pedpy, jupedsim and usd-core (set CROWD_PYTHON); CI runs it")]
fn pedpy_jupedsim_and_usd_read_every_scenarios_exports_as_the_csv_says() {
    assert!(tools::clients_available(), "no Python with pedpy, jupedsim and usd-core: .ci/run makes one");
    let files = crowd_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios"));
    let dir = temp_dir("client-exports");
    let mut cases = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().with_extension("");
        let name = rel.to_string_lossy().replace(['/', '\\'], "-");
        let csv = format!("{name}.csv");
        ok(&crowd(&dir, &["run", &file.to_string_lossy(), "--out", &csv]), &name);
        let meta: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join(format!("{name}.meta.json"))).unwrap()).unwrap();
        let sqlite = format!("{name}.sqlite");
        ok(&crowd(&dir, &["export", &csv, "--format", "sqlite", "-o", &sqlite]), &name);
        let usd = format!("{name}.usda");
        ok(&crowd(&dir, &["export", &csv, "--format", "usd", "-o", &usd]), &name);
        // The middle half of the world, where the scenes' crowds pass.
        let b = |i: usize, j: usize| meta["bounds"][["min", "max"][i]][j].as_f64().unwrap();
        let (w, h) = (b(1, 0) - b(0, 0), b(1, 1) - b(0, 1));
        let area = [b(0, 0) + w / 4.0, b(0, 1) + h / 4.0, b(1, 0) - w / 4.0, b(1, 1) - h / 4.0];
        let spec = area.map(|v| v.to_string()).join(",");
        let frames = format!("{name}-area.csv");
        let args =
            ["metrics", &csv, "--area", &spec, "--speed-step", "1", "--per-frame", "--format", "csv", "-o", &frames];
        ok(&crowd(&dir, &args), &name);
        cases.push(serde_json::json!({
            "name": name, "csv": csv, "meta": format!("{name}.meta.json"), "sqlite": sqlite, "usd": usd,
            "area": area, "step": 1, "crowd_frames": frames,
        }));
    }
    fs::write(dir.join("cases.json"), serde_json::to_string(&cases).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/exports.py");
    let o =
        Command::new(tools::python()).arg(script).arg("cases.json").current_dir(&dir).output().expect("python runs");
    let out = String::from_utf8_lossy(&o.stdout);
    eprintln!("{out}");
    assert!(o.status.success(), "the clients read something else:\n{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(&format!("{0} of {0} runs read back as written", files.len())), "{out}");
    let _ = fs::remove_dir_all(&dir);
}
