//! `crowd test`: run scenarios, evaluate their expectations and compare their
//! traces with golden snapshots.
//!
//! A scenario `…/scenarios/a/b.crowd` has its golden at `<golden>/a/b.csv`:
//! the path below the last folder named `scenarios` (or below the folder the
//! scenario was found in) mirrored under the golden folder.
//!
//! Each scenario gets one status line: `ok` (expectations hold, trace matches
//! its golden), `NOGOLD` (expectations hold, but there is no golden to compare
//! with: nothing failed, yet the trace is unchecked) or `FAIL`.
//!
//! Exit codes: 0 every scenario `ok`; 1 at least one `FAIL`; 3 no `FAIL` but
//! at least one `NOGOLD` (create the goldens with `--bless`); 2 usage or I/O
//! errors, as for every command.
//!
//! With `--seeds A..B` each scenario runs at every one of those seeds
//! instead of its own, and each expectation reports in how many of them it
//! held: a claim that holds at the scenario's seed alone sits at the edge of
//! its tolerance. Goldens are not compared (they are of the scenario's own
//! seed); a scenario is `ok` when every expectation held at every seed.

use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::run::sim_failure;
use super::{load, print_out, Failure};
use crate::batch::Seeds;
use crate::ir::Program;
use crate::sim;
use crate::trace::csv::CsvWriter;
use crate::trace::golden::compare;
use crate::trace::metrics::evaluate;
use crate::trace::read::Recorded;
use crate::trace::write_atomic;
use crate::Compiled;

#[derive(Args)]
pub struct TestArgs {
    /// Scenario files or folders, searched recursively in sorted order
    /// (default: `scenarios/`). Folders named `bench` are skipped while
    /// searching; name one explicitly to test it.
    paths: Vec<PathBuf>,
    /// The folder of golden traces, mirroring the scenarios folder.
    #[arg(long, default_value = "golden", value_name = "DIR")]
    golden: PathBuf,
    /// Write missing or changed goldens (only for scenarios whose expectations
    /// all hold) and list what changed.
    #[arg(long)]
    bless: bool,
    /// Run each scenario at every seed `A..B` (both included) instead of its
    /// own, without goldens, and report in how many each expectation held.
    #[arg(long, value_name = "A..B", conflicts_with = "bless")]
    seeds: Option<Seeds>,
}

/// The most seeds `--seeds` runs each scenario at: more is a typing mistake
/// more often than a plan, and each is a whole run.
const MAX_SEEDS: u64 = 10_000;

/// A scenario found on disk and the relative path its golden mirrors.
struct Found {
    path: PathBuf,
    rel: PathBuf,
}

pub fn test(args: TestArgs) -> ExitCode {
    let found = match discover(&args.paths) {
        Ok(f) => f,
        Err(f) => return f.exit(),
    };
    if found.is_empty() {
        return Failure::io("no scenario files (*.crowd) found").exit();
    }
    if let Some(seeds) = args.seeds.filter(|s| s.count() > MAX_SEEDS) {
        let n = seeds.count();
        return Failure::io(format!("--seeds lists {n} seeds, more than {MAX_SEEDS} runs of each scenario")).exit();
    }
    let (mut passed, mut unchecked, mut failed) = (0u32, 0u32, 0u32);
    for s in &found {
        let golden = args.golden.join(&s.rel).with_extension("csv");
        let outcome = match args.seeds {
            Some(seeds) => test_seeds(&s.path, seeds),
            None => test_one(&s.path, &golden, args.bless),
        };
        let (status, details) = match outcome {
            Ok(Passed { notes, golden: true }) => {
                passed += 1;
                ("ok    ", notes)
            }
            Ok(Passed { notes, golden: false }) => {
                unchecked += 1;
                ("NOGOLD", notes)
            }
            Err(d) => {
                failed += 1;
                ("FAIL  ", d)
            }
        };
        print_out(&format!("{status} {}\n", s.path.display()));
        for d in details {
            for (k, line) in d.lines().enumerate() {
                print_out(&format!("{}{line}\n", if k == 0 { "       " } else { "         " }));
            }
        }
    }
    if unchecked == 0 {
        print_out(&format!("{passed} passed, {failed} failed\n"));
    } else {
        print_out(&format!("{passed} passed, {unchecked} without a golden, {failed} failed\n"));
    }
    exit_code(failed, unchecked)
}

/// See the module documentation: a failure outranks a missing golden.
fn exit_code(failed: u32, unchecked: u32) -> ExitCode {
    if failed > 0 {
        ExitCode::from(1)
    } else if unchecked > 0 {
        ExitCode::from(NO_GOLDEN)
    } else {
        ExitCode::SUCCESS
    }
}

/// The exit code when nothing failed but some scenario has no golden trace.
const NO_GOLDEN: u8 = 3;

/// A scenario whose expectations all hold: its notes, and whether a golden
/// trace was there to compare with (or was just blessed).
struct Passed {
    notes: Vec<String>,
    golden: bool,
}

/// Runs one scenario; `Ok` when nothing failed, `Err` with the reasons otherwise.
fn test_one(path: &Path, golden: &Path, bless: bool) -> Result<Passed, Vec<String>> {
    let compiled = compile(path)?;
    let program = &compiled.program;
    let bytes = trace_of(program, program.header.seed)?;

    let mut notes = Vec::new();
    let mut problems = Vec::new();
    match Recorded::parse(&bytes, program) {
        Err(e) => problems.push(format!("cannot read the trace back: {e}")),
        Ok(rec) => {
            for c in evaluate(program, &rec) {
                if !c.verdict.holds() {
                    problems.push(c.to_string());
                }
                notes.push(c.to_string());
            }
        }
    }
    let expectations_hold = problems.is_empty();
    let expected = fs::read(golden).ok();
    let mut has_golden = true;
    let mismatch = match &expected {
        None => Some(None),
        Some(e) => compare(e, &bytes).map(Some),
    };
    match (mismatch, bless) {
        (None, _) => notes.push(format!("trace matches {}", golden.display())),
        (Some(m), true) if expectations_hold => {
            let what = match &m {
                None => "new".to_string(),
                Some(m) => format!("changed: {m}"),
            };
            match write_atomic(golden, |w| w.write_all(&bytes)) {
                Ok(()) => notes.push(format!("blessed {} ({what})", golden.display())),
                Err(e) => problems.push(format!("cannot write {}: {e}", golden.display())),
            }
        }
        (Some(m), true) => problems.push(format!(
            "not blessed {}: its expectations do not hold{}",
            golden.display(),
            match m {
                None => String::new(),
                Some(m) => format!(" (the trace also differs: {m})"),
            }
        )),
        // Expectations that fail say so above; a missing golden is only
        // news when nothing else is wrong.
        (Some(None), false) if expectations_hold => {
            has_golden = false;
            notes.push(format!(
                "expectations hold, no golden at {}: check the run, then create it with `crowd test --bless`",
                golden.display()
            ));
        }
        (Some(None), false) => {
            notes.push(format!("no golden trace at {}", golden.display()));
        }
        (Some(Some(m)), false) => problems.push(format!(
            "trace differs from {}:\n{m}\n(if the change is intended, re-bless with `crowd test --bless`)",
            golden.display()
        )),
    }
    if problems.is_empty() {
        Ok(Passed { notes, golden: has_golden })
    } else {
        // Every expectation's verdict, then what else went wrong.
        notes.retain(|n| !n.starts_with("trace matches"));
        let verdicts = notes.iter().filter(|n| !problems.contains(n)).cloned();
        Err(problems
            .iter()
            .filter(|p| notes.contains(p))
            .cloned()
            .chain(verdicts)
            .chain(problems.iter().filter(|p| !notes.contains(p)).cloned())
            .collect())
    }
}

/// The scenario at `path`, compiled (its warnings shown), or why not.
fn compile(path: &Path) -> Result<Compiled, Vec<String>> {
    let (_, compiled) =
        load(path).map_err(|f| vec![if f.message.is_empty() { "does not compile".into() } else { f.message }])?;
    Ok(compiled)
}

/// The trace of `program` run at `seed`, as `crowd run` writes it.
fn trace_of(program: &Program, seed: u64) -> Result<Vec<u8>, Vec<String>> {
    let mut bytes = Vec::new();
    // Claims are evaluated over the trace alone: the executor's own log is not consulted.
    (|| {
        let mut csv = CsvWriter::new(&mut bytes, &sim::labels(program), &program.output.columns, None)?;
        crate::run(program, seed, &mut csv, &mut |_, _| {})
    })()
    .map_err(|e: sim::SimError| vec![format!("seed {seed}: {}", sim_failure(e).message)])?;
    Ok(bytes)
}

/// Runs one scenario at every seed of `seeds`: `Ok` when every expectation
/// held at every seed, else `Err`; either way a line per expectation with
/// the seeds it held in, the first few it failed in and the first failure.
fn test_seeds(path: &Path, seeds: Seeds) -> Result<Passed, Vec<String>> {
    let compiled = compile(path)?;
    let program = &compiled.program;
    // Per expectation: the seeds it failed at, and its first failure.
    let mut failed: Vec<(Vec<u64>, Option<String>)> = vec![(Vec::new(), None); program.expectations.len()];
    for seed in seeds.first..=seeds.last {
        let bytes = trace_of(program, seed)?;
        let rec = Recorded::parse(&bytes, program)
            .map_err(|e| vec![format!("seed {seed}: cannot read the trace back: {e}")])?;
        for (c, (at, first)) in evaluate(program, &rec).into_iter().zip(&mut failed) {
            if !c.verdict.holds() {
                at.push(seed);
                first.get_or_insert_with(|| format!("at seed {seed}: {c}"));
            }
        }
    }
    const LISTED: usize = 8;
    let n = seeds.count();
    let lines: Vec<String> = program
        .expectations
        .iter()
        .zip(&failed)
        .map(|(e, (at, first))| {
            let held = n - at.len() as u64;
            match first {
                None => format!("holds at {held} of {n} seeds: {}", e.text),
                Some(first) => {
                    let mut list: Vec<String> = at.iter().take(LISTED).map(u64::to_string).collect();
                    if at.len() > LISTED {
                        list.push("…".into());
                    }
                    format!("FAILS at {} of {n} seeds ({}): {}\n{first}", at.len(), list.join(", "), e.text)
                }
            }
        })
        .collect();
    if failed.iter().all(|(at, _)| at.is_empty()) {
        Ok(Passed { notes: lines, golden: true })
    } else {
        Err(lines)
    }
}

/// The scenario files under the given paths, in sorted order, with the
/// relative path each golden mirrors.
fn discover(paths: &[PathBuf]) -> Result<Vec<Found>, Failure> {
    let default = [PathBuf::from("scenarios")];
    let roots = if paths.is_empty() { &default[..] } else { paths };
    let mut out = Vec::new();
    for root in roots {
        let meta = fs::metadata(root).map_err(|e| Failure::io(format!("cannot read {}: {e}", root.display())))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            walk(root, &mut files)?;
            files.sort();
            for f in files {
                let rel = below_scenarios(&f)
                    .unwrap_or_else(|| f.strip_prefix(root).map_or_else(|_| f.clone(), Path::to_path_buf));
                out.push(Found { path: f, rel });
            }
        } else {
            let rel = below_scenarios(root).unwrap_or_else(|| PathBuf::from(root.file_name().unwrap_or_default()));
            out.push(Found { path: root.clone(), rel });
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let entries = fs::read_dir(dir).map_err(|e| Failure::io(format!("cannot read {}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "bench") {
                continue;
            }
            walk(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "crowd") {
            out.push(p);
        }
    }
    Ok(())
}

/// The part of `path` below its last `scenarios` folder.
fn below_scenarios(path: &Path) -> Option<PathBuf> {
    let comps: Vec<Component> = path.components().collect();
    let at = comps.iter().rposition(|c| c.as_os_str() == "scenarios")?;
    // Only plain names below it: `scenarios/../../x.crowd` must not lead a golden out of its folder.
    let rest = &comps[at + 1..];
    let plain = !rest.is_empty() && rest.iter().all(|c| matches!(c, Component::Normal(_)));
    plain.then(|| rest.iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goldens_mirror_the_scenarios_folder() {
        assert_eq!(below_scenarios(Path::new("scenarios/a/b.crowd")), Some(PathBuf::from("a/b.crowd")));
        assert_eq!(below_scenarios(Path::new("/tmp/x/scenarios/b.crowd")), Some(PathBuf::from("b.crowd")));
        assert_eq!(below_scenarios(Path::new("other/b.crowd")), None);
        assert_eq!(below_scenarios(Path::new("scenarios/../../x.crowd")), None);
        assert_eq!(below_scenarios(Path::new("scenarios/a/../b.crowd")), None);
    }
}
