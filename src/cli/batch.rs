//! `crowd batch`: run one scenario over a range of seeds in parallel.
//!
//! Each seed writes `DIR/seed-<n>.csv` and then `DIR/seed-<n>.meta.json`; the
//! metadata, written last, marks the run complete, so re-running skips seeds
//! whose run is complete (and takes their summary from the metadata).
//! `DIR/summary.csv` gets one row per seed, in seed order. Every file is the
//! same whatever `--jobs` is.
//!
//! A folder holds the runs of one batch: one scenario, as one text, made by
//! one `crowd` version with one `--precision`. A batch refuses a folder whose
//! metadata says otherwise before it runs anything, rather than skip runs of
//! something else as complete, or overwrite them and leave a folder of both.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use clap::Args;
use rayon::prelude::*;

use super::run::{sim_failure, write_meta, writing_failure};
use super::{load, Failure};
use crate::diag::SourceFile;
use crate::ir::Program;
use crate::sim::{self, Run, SimError};
use crate::trace::csv::CsvWriter;
use crate::trace::float::format_f64;
use crate::trace::frame::Both;
use crate::trace::meta::{scenario_hash, CROWD_VERSION};
use crate::trace::metrics::Summary;
use crate::trace::{meta_path, write_atomic, write_atomic_with};

/// Seeds `A..B`, both included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeds {
    first: u64,
    last: u64,
}

impl FromStr for Seeds {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let num = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("`{t}` is not a seed (a whole number ≥ 0)"));
        let (first, last) = match s.split_once("..") {
            Some((a, b)) => (num(a)?, num(b.strip_prefix('=').unwrap_or(b))?),
            None => (num(s)?, num(s)?),
        };
        if first > last {
            return Err(format!("the range {s} is empty: write the smaller seed first"));
        }
        Ok(Seeds { first, last })
    }
}

#[derive(Args)]
pub struct BatchArgs {
    /// The scenario file.
    file: PathBuf,
    /// Seeds to run: `A..B` runs A to B, both included; a single number runs one seed.
    #[arg(long, value_name = "A..B")]
    seeds: Seeds,
    /// Runs at the same time (default: one per core). The files are the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Output folder: `seed-<n>.csv` and `seed-<n>.meta.json` per seed, and `summary.csv`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write numbers with exactly N decimals instead of the shortest exact form.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=17))]
    precision: Option<u8>,
    /// The largest trace each run may write, GB (estimated before the batch:
    /// every declared agent in every recorded frame).
    #[arg(long, value_name = "GB", default_value_t = crate::ir::limits::DEFAULT_MAX_TRACE_GB)]
    max_trace_gb: f64,
    /// The most grid cells the planners of each run may visit in a step.
    #[arg(long, value_name = "CELLS", default_value_t = crate::ir::limits::DEFAULT_MAX_PLAN_CELLS)]
    max_plan_cells: f64,
}

pub fn batch(args: BatchArgs) -> ExitCode {
    match batch_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

fn batch_inner(args: &BatchArgs) -> Result<(), Failure> {
    let (file, compiled) = load(&args.file)?;
    let program = &compiled.program;
    // Refuse unimplemented models and oversized traces once, before any run.
    sim::runnable(program).map_err(sim_failure)?;
    super::run::trace_fits(program, args.max_trace_gb)?;
    super::run::plans_fit(program, args.max_plan_cells)?;
    let ours = Identity {
        name: program.name.clone(),
        hash: scenario_hash(file.text.as_bytes()),
        version: CROWD_VERSION.into(),
        precision: args.precision.map(u64::from),
    };
    check_folder(&args.out, &ours, &file.name)?;
    fs::create_dir_all(&args.out).map_err(|e| Failure::io(format!("cannot create {}: {e}", args.out.display())))?;
    let seeds: Vec<u64> = (args.seeds.first..=args.seeds.last).collect();
    let mut targets = vec![args.out.join("summary.csv")];
    for seed in &seeds {
        let csv = seed_trace(&args.out, *seed);
        targets.push(meta_path(&csv));
        targets.push(csv);
    }
    crate::trace::sweep_stale(&targets);
    let results: Vec<Result<(Vec<f64>, bool), Failure>> = sim::with_threads(args.jobs.map(usize::from), || {
        seeds
            .par_iter()
            .with_max_len(1)
            .map(|&seed| one_seed(program, &file, &ours, &args.out, seed, args.precision))
            .collect()
    })
    .map_err(Failure::io)?;
    if super::interrupted().load(std::sync::atomic::Ordering::Relaxed) {
        // Runs in flight stopped after their step and left no file; finished ones are complete.
        let done = results.iter().filter(|r| r.is_ok()).count();
        return Err(Failure {
            code: super::INTERRUPTED_EXIT,
            message: format!(
                "interrupted: {done} of {} run(s) complete in {}, the others not written; the same command \
                 finishes the batch (complete runs are kept)",
                seeds.len(),
                args.out.display()
            ),
        });
    }
    let mut summary = String::from("seed,");
    summary.push_str(&Summary::for_program(program).columns().join(","));
    summary.push('\n');
    let (mut ran, mut skipped) = (0, 0);
    let mut first_error = None;
    for (seed, r) in seeds.iter().zip(results) {
        match r {
            Ok((values, was_skipped)) => {
                if was_skipped {
                    skipped += 1;
                } else {
                    ran += 1;
                }
                summary.push_str(&seed.to_string());
                for v in values {
                    summary.push(',');
                    summary.push_str(&format_f64(v));
                }
                summary.push('\n');
            }
            Err(f) => {
                eprintln!("error: seed {seed}: {}", f.message);
                first_error.get_or_insert(f);
            }
        }
    }
    if let Some(f) = first_error {
        return Err(Failure { code: f.code, message: "some runs failed; summary.csv was not written".into() });
    }
    let path = args.out.join("summary.csv");
    write_atomic(&path, |w| w.write_all(summary.as_bytes()))
        .map_err(|e| Failure::io(format!("cannot write {}: {e}", path.display())))?;
    eprintln!("{ran} run(s), {skipped} already complete; summary in {}", path.display());
    Ok(())
}

/// What the metadata says a run is a run of: everything that decides its
/// files but the seed.
#[derive(Clone, Debug, PartialEq)]
struct Identity {
    name: String,
    hash: String,
    version: String,
    /// `--precision`, `None` for the shortest exact form.
    precision: Option<u64>,
}

impl Identity {
    /// `None` for a document that is not a run's metadata.
    fn of(meta: &serde_json::Value) -> Option<Identity> {
        let text = |pointer: &str| meta.pointer(pointer).and_then(serde_json::Value::as_str).map(String::from);
        Some(Identity {
            name: text("/scenario/name")?,
            hash: text("/scenario/hash")?,
            version: text("/crowd_version")?,
            precision: meta.get("precision_decimals").and_then(serde_json::Value::as_u64),
        })
    }
}

/// Refuses `dir` if the metadata of any run in it, in or out of the range of
/// seeds asked for, says it is a run of another batch. Metadata that cannot
/// be read says nothing: its seed is run again when asked for.
fn check_folder(dir: &Path, ours: &Identity, scenario_file: &str) -> Result<(), Failure> {
    // A folder that cannot be listed is created or reported as such next.
    let Ok(entries) = fs::read_dir(dir) else { return Ok(()) };
    let mut seeds: Vec<u64> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name();
            name.to_str()?.strip_prefix("seed-")?.strip_suffix(".meta.json")?.parse().ok()
        })
        .collect();
    // The lowest seed first, so that the same folder gives the same message.
    seeds.sort_unstable();
    for seed in seeds {
        let name = format!("seed-{seed}.meta.json");
        let found = fs::read(dir.join(&name))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
            .and_then(|meta| Identity::of(&meta));
        match found {
            Some(found) if found != *ours => {
                let why = mismatch(&found, ours, scenario_file);
                return Err(Failure::io(format!(
                    "the folder {} holds another batch's runs: {} {why}\n  \
                     help: choose another --out folder, or remove {} (or move it aside) to run this batch there",
                    dir.display(),
                    dir.join(&name).display(),
                    dir.display()
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// How the run `found` differs from this batch, the first difference only.
fn mismatch(found: &Identity, ours: &Identity, scenario_file: &str) -> String {
    let precision =
        |p: Option<u64>| p.map_or_else(|| "without --precision".into(), |p| format!("with --precision {p}"));
    if found.name != ours.name {
        format!("is a run of scenario `{}`, this batch runs scenario `{}` ({scenario_file})", found.name, ours.name)
    } else if found.hash != ours.hash {
        format!(
            "is a run of scenario `{}` as another text ({}); {scenario_file} is now {} (edited since the run?)",
            found.name, found.hash, ours.hash
        )
    } else if found.version != ours.version {
        format!("was made by crowd {}; this is crowd {}", found.version, ours.version)
    } else {
        format!("was written {}; this batch writes {}", precision(found.precision), precision(ours.precision))
    }
}

/// The trace of `seed`'s run in the batch folder `dir`.
fn seed_trace(dir: &Path, seed: u64) -> PathBuf {
    dir.join(format!("seed-{seed}.csv"))
}

/// Runs one seed unless its outputs are complete; returns its summary values
/// and whether it was skipped.
fn one_seed(
    program: &Program,
    file: &SourceFile,
    ours: &Identity,
    dir: &Path,
    seed: u64,
    precision: Option<u8>,
) -> Result<(Vec<f64>, bool), Failure> {
    let csv_path = seed_trace(dir, seed);
    let columns = Summary::for_program(program).columns();
    if let Some(values) = complete_run(&csv_path, ours, seed, &columns) {
        return Ok((values, true));
    }
    let mut summary = Summary::for_program(program);
    let mut result = None;
    write_atomic_with(&csv_path, |w| -> Result<(), SimError> {
        let mut csv = CsvWriter::new(w, &sim::labels(program), &program.output.columns, precision)?;
        // The seeds' runs share the pool.
        let run = Run { shares_pool: true, stop: Some(super::interrupted()), ..Run::new(program, seed) };
        let outcome = run.go(&mut Both(&mut csv, &mut summary), &mut |_, _| {})?;
        result = Some((outcome, csv.rows()));
        Ok(())
    })
    .map_err(writing_failure(&csv_path))?;
    let Some((outcome, rows)) = result else { unreachable!("the writer ran") };
    let values = summary.values(&outcome.log, outcome.steps);
    write_meta(&csv_path, program, file, seed, (&outcome, rows), Some(values.clone()), precision)?;
    Ok((values.into_iter().map(|(_, v)| v).collect(), false))
}

/// The summary values of the run at `csv_path` if it is a complete run of
/// this batch's `seed`: its metadata is this batch's and this seed's and
/// holds a value for each summary column, and its trace has the header and
/// the number of rows the metadata records.
fn complete_run(csv_path: &Path, ours: &Identity, seed: u64, columns: &[String]) -> Option<Vec<f64>> {
    let meta: serde_json::Value = serde_json::from_slice(&fs::read(meta_path(csv_path)).ok()?).ok()?;
    if Identity::of(&meta).as_ref() != Some(ours) || meta.get("seed")?.as_u64()? != seed {
        return None;
    }
    let summary = meta.get("summary")?;
    let values = columns.iter().map(|c| summary.get(c).and_then(serde_json::Value::as_f64)).collect::<Option<_>>()?;
    let header: Vec<&str> =
        meta.get("columns")?.as_array()?.iter().map(serde_json::Value::as_str).collect::<Option<_>>()?;
    let rows = meta.get("rows")?.as_u64()?;
    let (first, lines) = first_line_and_count(csv_path).ok()?;
    (first == header.join(",") && lines == rows + 1).then_some(values)
}

/// The first line of a file and its number of lines, read in blocks: a
/// batch's traces can be large, and each is read through on a re-run.
fn first_line_and_count(path: &Path) -> std::io::Result<(String, u64)> {
    let mut r = BufReader::with_capacity(1 << 16, fs::File::open(path)?);
    let mut first = Vec::new();
    r.read_until(b'\n', &mut first)?;
    let mut lines = u64::from(first.pop_if(|&mut b| b == b'\n').is_some());
    loop {
        let block = r.fill_buf()?;
        if block.is_empty() {
            break;
        }
        lines += block.iter().filter(|&&b| b == b'\n').count() as u64;
        let n = block.len();
        r.consume(n);
    }
    Ok((String::from_utf8_lossy(&first).into_owned(), lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_include_both_ends() {
        assert_eq!("1..3".parse::<Seeds>(), Ok(Seeds { first: 1, last: 3 }));
        assert_eq!("1..=3".parse::<Seeds>(), Ok(Seeds { first: 1, last: 3 }));
        assert_eq!("7".parse::<Seeds>(), Ok(Seeds { first: 7, last: 7 }));
        assert!("3..1".parse::<Seeds>().is_err());
        assert!("a..b".parse::<Seeds>().is_err());
    }
}
