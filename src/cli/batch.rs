//! `crowd batch`: run one scenario over a range of seeds in parallel.
//!
//! Each seed writes `DIR/seed-<n>.csv` and then `DIR/seed-<n>.meta.json`; the
//! metadata, written last, marks the run complete, so re-running skips seeds
//! whose two files exist (and takes their summary from the metadata).
//! `DIR/summary.csv` gets one row per seed, in seed order. Every file is the
//! same whatever `--jobs` is.

use std::fs;
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
    // Refuse unimplemented models once, before any run.
    sim::runnable(program).map_err(sim_failure)?;
    fs::create_dir_all(&args.out).map_err(|e| Failure::io(format!("cannot create {}: {e}", args.out.display())))?;
    let seeds: Vec<u64> = (args.seeds.first..=args.seeds.last).collect();
    let results: Vec<Result<(Vec<f64>, bool), Failure>> = sim::with_threads(args.jobs.map(usize::from), || {
        seeds
            .par_iter()
            .with_max_len(1)
            .map(|&seed| one_seed(program, &file, &args.out, seed, args.precision))
            .collect()
    })
    .map_err(Failure::io)?;
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

/// Runs one seed unless its outputs are complete; returns its summary values
/// and whether it was skipped.
fn one_seed(
    program: &Program,
    file: &SourceFile,
    dir: &Path,
    seed: u64,
    precision: Option<u8>,
) -> Result<(Vec<f64>, bool), Failure> {
    let csv_path = dir.join(format!("seed-{seed}.csv"));
    if csv_path.is_file() {
        let columns = Summary::for_program(program).columns();
        if let Some(values) =
            fs::read_to_string(meta_path(&csv_path)).ok().and_then(|m| summary_from_meta(&m, &columns))
        {
            return Ok((values, true));
        }
    }
    let mut summary = Summary::for_program(program);
    let mut result = None;
    write_atomic_with(&csv_path, |w| -> Result<(), SimError> {
        let mut csv = CsvWriter::new(w, &sim::labels(program), &program.output.columns, precision)?;
        // The seeds' runs share the pool.
        let run = Run { shares_pool: true, ..Run::new(program, seed) };
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

fn summary_from_meta(text: &str, columns: &[String]) -> Option<Vec<f64>> {
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let s = doc.get("summary")?;
    columns.iter().map(|c| s.get(c).and_then(serde_json::Value::as_f64)).collect()
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
