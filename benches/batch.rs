//! Batch throughput: 200 short runs (`scenarios/basics/pillars.crowd`, 40
//! agents, 960 steps) as one `crowd batch --jobs 2`, against the baseline of
//! the same 200 runs made one by one with `crowd run --threads 1`, and
//! against `crowd batch --jobs 1`, interleaved in pairs (`support/pairs.rs`).
//!
//! `cargo bench --bench batch` (`CROWD_BENCH_RUNS=N`, default 200;
//! `CROWD_BENCH_PAIRS=N`, default 3). The bars, on 2 cores: a batch on 2
//! jobs makes runs at least 1.6× as fast as one by one, and at least 1.6×
//! as fast as on 1 job (both cores busy). It panics past a bar.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "support/pairs.rs"]
#[allow(dead_code)]
mod pairs;
#[path = "support/settings.rs"]
mod settings;

use pairs::{median, ratio};
use settings::setting;

const BAR: f64 = 1.6;

fn crowd(dir: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_crowd")).args(args).current_dir(dir).output().expect("crowd runs");
    assert!(o.status.success(), "crowd {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// Runs per second of `make(dir)` for `runs` runs, in a fresh folder.
fn rate(root: &Path, name: &str, runs: u64, make: impl Fn(&Path)) -> f64 {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root.join("p.crowd"), dir.join("p.crowd")).unwrap();
    let start = Instant::now();
    make(&dir);
    runs as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let runs: u64 = setting("RUNS", 200);
    let pairs: usize = setting("PAIRS", 3);
    let root: PathBuf = std::env::temp_dir().join(format!("crowd-bench-batch-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/basics/pillars.crowd");
    std::fs::copy(scenario, root.join("p.crowd")).unwrap();
    let seeds = format!("1..{runs}");

    let (mut two, mut one, mut alone) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs.max(1) {
        two.push(rate(&root, "two", runs, |d| {
            crowd(d, &["batch", "p.crowd", "--seeds", &seeds, "--jobs", "2", "--out", "runs"])
        }));
        one.push(rate(&root, "one", runs, |d| {
            crowd(d, &["batch", "p.crowd", "--seeds", &seeds, "--jobs", "1", "--out", "runs"])
        }));
        alone.push(rate(&root, "alone", runs, |d| {
            for seed in 1..=runs {
                let out = format!("seed-{seed}.csv");
                crowd(d, &["run", "p.crowd", "--seed", &seed.to_string(), "--threads", "1", "--out", &out]);
            }
        }));
    }
    let _ = std::fs::remove_dir_all(&root);

    println!("{runs} runs of pillars (40 agents, 960 steps), {pairs} pairs, medians:");
    println!("  batch --jobs 2        {:7.1} runs/s", median(&two));
    println!("  batch --jobs 1        {:7.1} runs/s", median(&one));
    println!("  one by one (baseline) {:7.1} runs/s", median(&alone));
    let (vs_alone, lo_a, hi_a) = ratio(&two, &alone);
    let (vs_one, lo_o, hi_o) = ratio(&two, &one);
    println!("  --jobs 2 / one by one {vs_alone:.2}x (pairs {lo_a:.2}-{hi_a:.2})");
    println!("  --jobs 2 / --jobs 1   {vs_one:.2}x (pairs {lo_o:.2}-{hi_o:.2})");
    let mut failures = Vec::new();
    if vs_alone < BAR {
        failures.push(format!("a batch on 2 jobs is {vs_alone:.2}x as fast as runs one by one, under {BAR}x"));
    }
    if vs_one < BAR {
        failures.push(format!("a batch on 2 jobs is {vs_one:.2}x as fast as on 1, under {BAR}x"));
    }
    assert!(failures.is_empty(), "{}", failures.join("; "));
}
