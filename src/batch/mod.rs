//! Batches: one scenario run over seeds and parameter values, on one machine
//! or split into shards across a cluster's job array, and merged into one
//! summary and manifest.
//!
//! The run list is the product of the values of each `--set` (the first
//! `--set` varies slowest, each one's values in the order given) and the
//! seeds (fastest, ascending). A run's files go to the folder of its
//! parameter point, `DIR/KEY=VALUE,KEY=VALUE/seed-N.csv` (values in SI
//! units, as the metadata records them), or to `DIR/seed-N.csv` in a batch
//! without `--set`. Shard `I` of `N` takes the runs whose index is `I`
//! modulo `N`. Nothing about a run's files depends on which shard, machine
//! or job count made it, so the files of all shards are those of one
//! unsharded batch, and so are the merged `summary.csv` and `manifest.json`.

pub mod folder;
pub mod manifest;
pub mod overrides;
pub mod shard;
pub mod slurm;

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, SourceFile};
use crate::ir::Program;
use crate::syntax::ast;
use crate::trace::float::format_f64;
use crate::trace::meta::scenario_hash;
pub use overrides::{Setting, Target};
pub use shard::Shard;

/// The most runs one batch may list: the run list is held in memory, and a
/// batch of more is a mistake in `--seeds` more often than a plan.
pub const MAX_RUNS: u64 = 10_000_000;

/// The most parameter points one batch may list: each is compiled before
/// anything runs.
pub const MAX_POINTS: u64 = 100_000;

/// Seeds `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeds {
    pub first: u64,
    pub last: u64,
}

impl Seeds {
    pub fn count(&self) -> u64 {
        (self.last - self.first).saturating_add(1)
    }
}

impl std::str::FromStr for Seeds {
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

/// One value of a setting: as written, and as the metadata, folder names
/// and summary record it (SI units, shortest exact form).
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub written: String,
    pub canonical: String,
    pub number: f64,
}

/// The run list: seeds and, per setting, its key and checked values. It is
/// all a merge needs, and what `batch.json` records.
#[derive(Clone, Debug, PartialEq)]
pub struct RunList {
    pub seeds: Seeds,
    /// Per setting, in `--set` order: its key and values (canonical text, number).
    pub keys: Vec<String>,
    pub values: Vec<Vec<(String, f64)>>,
}

/// One run of the list.
#[derive(Clone, Debug, PartialEq)]
pub struct RunId {
    /// Its place in the run list.
    pub index: u64,
    /// Per setting, the index of its value.
    pub point: Vec<usize>,
    pub seed: u64,
}

impl RunList {
    pub fn points(&self) -> u64 {
        self.values.iter().map(|v| v.len() as u64).product()
    }

    pub fn runs(&self) -> u64 {
        self.points() * self.seeds.count()
    }

    /// Per setting, the value index of parameter point `p`: the first setting varies slowest.
    pub fn point_of(&self, mut p: u64) -> Vec<usize> {
        let mut point = vec![0; self.values.len()];
        for (k, values) in self.values.iter().enumerate().rev() {
            let n = values.len() as u64;
            point[k] = (p % n) as usize;
            p /= n;
        }
        point
    }

    /// The run at `index` of the list.
    pub fn run(&self, index: u64) -> RunId {
        let seeds = self.seeds.count();
        RunId { index, point: self.point_of(index / seeds), seed: self.seeds.first + index % seeds }
    }

    /// `(key, canonical value, number)` of each setting at `point`, in `--set` order.
    pub fn assignments(&self, point: &[usize]) -> Vec<(&str, &str, f64)> {
        (self.keys.iter().zip(&self.values).zip(point))
            .map(|((k, values), &v)| (k.as_str(), values[v].0.as_str(), values[v].1))
            .collect()
    }

    /// The folder of the runs at `point`, inside the batch folder `dir`.
    pub fn folder(&self, dir: &Path, point: &[usize]) -> PathBuf {
        if self.keys.is_empty() {
            return dir.to_path_buf();
        }
        dir.join(self.point_name(point))
    }

    /// `KEY=VALUE,KEY=VALUE`: the name of a parameter point's folder.
    pub fn point_name(&self, point: &[usize]) -> String {
        let parts: Vec<String> = self.assignments(point).into_iter().map(|(k, v, _)| format!("{k}={v}")).collect();
        parts.join(",")
    }

    /// The trace of `run` in the batch folder `dir`.
    pub fn trace(&self, dir: &Path, run: &RunId) -> PathBuf {
        self.folder(dir, &run.point).join(format!("seed-{}.csv", run.seed))
    }

    /// How a person names `run`: `seed 3`, or `seed 3 at boids.max_speed=3`.
    pub fn describe(&self, run: &RunId) -> String {
        if self.keys.is_empty() {
            format!("seed {}", run.seed)
        } else {
            format!("seed {} at {}", run.seed, self.point_name(&run.point))
        }
    }
}

/// A batch's scenario and its run list, every value checked.
pub struct Plan {
    pub file: SourceFile,
    pub tree: ast::File,
    pub settings: Vec<Setting>,
    /// Per setting, its values checked, in the order given.
    pub values: Vec<Vec<Value>>,
    pub list: RunList,
    /// Warnings a value brings that the scenario alone does not have (a
    /// count that makes a planner's work heavy), with the text that has them.
    pub warnings: Vec<(SourceFile, Vec<Diagnostic>)>,
}

/// Why a plan cannot be made: a usage mistake, or a value the checker refused.
pub enum PlanError {
    Usage(String),
    /// The file a value made (to render the diagnostics against) and its diagnostics.
    Value(Box<SourceFile>, Vec<Diagnostic>),
}

impl Plan {
    /// Checks each setting's values one at a time, then every combination,
    /// compiled as a scenario is; nothing is kept of the programs. A value's
    /// warnings are reported unless the file itself has them
    /// (`own_warnings`, from the compile that loaded it).
    pub fn new(
        file: SourceFile,
        own_warnings: &[Diagnostic],
        settings: Vec<Setting>,
        seeds: Seeds,
    ) -> Result<Plan, Vec<PlanError>> {
        let (tree, _) = crate::syntax::parse(&file.text);
        let mut errors = Vec::new();
        for (k, s) in settings.iter().enumerate() {
            if settings[..k].iter().any(|t| t.target == s.target) {
                errors.push(PlanError::Usage(format!("`--set {}` is given twice: give all its values in one", s.key)));
            }
        }
        let points: u64 = settings.iter().map(|s| s.values.len() as u64).fold(1, u64::saturating_mul);
        let runs = points.saturating_mul(seeds.count());
        if points > MAX_POINTS || runs > MAX_RUNS {
            errors.push(PlanError::Usage(format!(
                "the batch lists {runs} runs at {points} parameter points, more than a batch may ({MAX_RUNS} runs, \
                 {MAX_POINTS} points): split it into several batches"
            )));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let keys = settings.iter().map(|s| s.key.clone()).collect();
        let list = RunList { seeds, keys, values: Vec::new() };
        let own: Vec<&str> = own_warnings.iter().map(|w| w.message.as_str()).collect();
        let mut plan = Plan { file, tree, settings, values: Vec::new(), list, warnings: Vec::new() };
        for s in &plan.settings {
            let mut checked: Vec<Value> = Vec::new();
            for v in &s.values {
                match plan.compile_with(&[(s, v.as_str())]) {
                    Ok((program, variant, warnings)) => {
                        let new: Vec<Diagnostic> =
                            warnings.into_iter().filter(|w| !own.contains(&w.message.as_str())).collect();
                        if !new.is_empty() {
                            plan.warnings.push((variant, new));
                        }
                        let v = value_of(s, v, &program);
                        if let Some(same) = checked.iter().find(|w| w.canonical == v.canonical) {
                            errors.push(PlanError::Usage(format!(
                                "`--set {}`: `{}` and `{}` are the same value ({}): give each value once",
                                s.key, same.written, v.written, v.canonical
                            )));
                        }
                        checked.push(v);
                    }
                    Err(e) => errors.push(e),
                }
            }
            plan.list.values.push(checked.iter().map(|v| (v.canonical.clone(), v.number)).collect());
            plan.values.push(checked);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        // Values fine one at a time can still be refused together (a limit on counts and sizes).
        if plan.settings.len() > 1 {
            for p in 0..points {
                if let Err(e) = plan.program(&plan.list.point_of(p)) {
                    errors.push(e);
                }
            }
        }
        if errors.is_empty() {
            Ok(plan)
        } else {
            Err(errors)
        }
    }

    /// The scenario's hash (of the file as written, without the overrides).
    pub fn hash(&self) -> String {
        scenario_hash(self.file.text.as_bytes())
    }

    /// The program of a parameter point: the scenario with its values applied, compiled.
    pub fn program(&self, point: &[usize]) -> Result<Program, PlanError> {
        let assignments: Vec<(&Setting, &str)> = (self.settings.iter().enumerate().zip(point))
            .map(|((k, s), &v)| (s, self.values[k][v].written.as_str()))
            .collect();
        self.compile_with(&assignments).map(|(program, _, _)| program)
    }

    /// The program of the scenario with `assignments` applied, the text it
    /// was compiled from and its warnings.
    fn compile_with(
        &self,
        assignments: &[(&Setting, &str)],
    ) -> Result<(Program, SourceFile, Vec<Diagnostic>), PlanError> {
        let variant = overrides::apply(&self.file, &self.tree, assignments);
        match crate::compile(&variant) {
            Ok(c) => Ok((c.program, variant, c.warnings)),
            Err(diags) => Err(PlanError::Value(Box::new(variant), diags)),
        }
    }
}

/// A checked value: for a parameter, the value in force in the compiled
/// program (SI); for a count, the whole number.
fn value_of(setting: &Setting, written: &str, program: &Program) -> Value {
    let number = match &setting.target {
        Target::Param { model, name } => (program.params.values().into_iter())
            .find(|(m, n, _)| m == model && n == name)
            .map_or(f64::NAN, |(_, _, v)| v),
        Target::Count { .. } => written.trim().parse::<u64>().map_or(f64::NAN, |n| n as f64),
    };
    Value { written: written.to_string(), canonical: format_f64(number), number }
}
