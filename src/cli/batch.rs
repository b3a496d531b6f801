//! `crowd batch`: run one scenario over seeds and parameter values, in
//! parallel, whole or one shard at a time; merge a folder of shards; write
//! the sbatch script of a SLURM job array that runs the shards.
//!
//! The run list, the folder layout and the merge are `crate::batch`'s; here
//! are the arguments, the runs themselves, progress and exit codes (0 all
//! runs complete, 1 some failed or a merge found runs missing, 2 usage or
//! I/O, 130 interrupted).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Args;
use rayon::prelude::*;
use serde_json::Value as Json;

use super::run::{write_meta, MetaExtra};
use super::{Failure, INTERRUPTED_EXIT};
use crate::batch::folder::{self, Complete, Identity, PlanRecord, PLAN_FILE};
use crate::batch::manifest::{self, RunState, MANIFEST_FILE, SUMMARY_FILE};
use crate::batch::{slurm, Plan, PlanError, RunId, Seeds, Shard};
use crate::diag::render_all;
use crate::hash::Sha256Tee;
use crate::ir::Program;
use crate::sim::{self, Run, SimError};
use crate::trace::csv::CsvWriter;
use crate::trace::frame::Both;
use crate::trace::meta::CROWD_VERSION;
use crate::trace::metrics::Summary;
use crate::trace::{meta_path, write_atomic, write_atomic_with};

#[derive(Args)]
pub struct BatchArgs {
    /// The scenario file.
    #[arg(required_unless_present = "merge")]
    file: Option<PathBuf>,
    /// Seeds to run: `A..B` runs A to B, both included; a single number runs one seed.
    #[arg(long, value_name = "A..B", required_unless_present = "merge")]
    seeds: Option<Seeds>,
    /// Values to sweep: `MODEL.PARAMETER=V1,V2,…` (a parameter of the table,
    /// with its unit, e.g. `boids.max_speed=1 m/s,2 m/s`) or
    /// `population.NAME.count=N1,N2,…`. Repeatable: the runs are every
    /// combination of the values and the seeds. Each value is checked as the
    /// scenario's own before anything runs.
    #[arg(long = "set", value_name = "KEY=V1,V2,…")]
    set: Vec<String>,
    /// Runs at the same time (default: one per core). The files are the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    jobs: Option<u16>,
    /// Output folder: `seed-<n>.csv` and `seed-<n>.meta.json` per run (in a
    /// folder per parameter point when sweeping), `summary.csv`,
    /// `manifest.json`, and the plan `batch.json`.
    #[arg(long, value_name = "DIR", required_unless_present = "merge")]
    out: Option<PathBuf>,
    /// Run only shard I of N (0 ≤ I < N): the runs whose place in the run
    /// list is I modulo N. In a SLURM array task the task's index gives it.
    /// A shard writes runs only; `--merge` writes the summary and manifest.
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// Write the summary and manifest of the batch folder DIR from the runs
    /// in it (of every shard), without running anything.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["file", "seeds", "set", "shard", "emit_slurm", "out"])]
    merge: Option<PathBuf>,
    /// Write an sbatch script that runs this batch as a SLURM job array, one
    /// shard per task, and run nothing.
    #[arg(long, value_name = "SCRIPT")]
    emit_slurm: Option<PathBuf>,
    /// Array tasks of the script (default: one per run, at most 100).
    #[arg(long, value_name = "N", requires = "emit_slurm", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    tasks: Option<u64>,
    /// CPUs per array task; each task runs that many runs at a time.
    #[arg(long, value_name = "N", requires = "emit_slurm", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=1024))]
    cpus_per_task: u16,
    /// The time limit of each task, as sbatch takes it (e.g. `02:00:00`).
    #[arg(long, value_name = "TIME", requires = "emit_slurm")]
    time: Option<String>,
    /// The memory of each task, as sbatch takes it (e.g. `4G`).
    #[arg(long, value_name = "MEM", requires = "emit_slurm")]
    mem: Option<String>,
    /// The partition to submit to.
    #[arg(long, value_name = "NAME", requires = "emit_slurm")]
    partition: Option<String>,
    /// The account to charge.
    #[arg(long, value_name = "NAME", requires = "emit_slurm")]
    account: Option<String>,
    /// Refuse to run unless this `crowd` is the build with this id (what
    /// `--emit-slurm` puts in its script, so that no node runs another build).
    #[arg(long, value_name = "ID")]
    expect_build: Option<String>,
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
    let result = match &args.merge {
        Some(dir) => merge_only(dir),
        None => batch_inner(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

/// Reads the scenario and checks the run list: every `--set` key and value,
/// and each parameter point against the limits, before anything runs.
pub(crate) fn load_plan(path: &Path, sets: &[String], seeds: Seeds, limits: (f64, f64)) -> Result<Plan, Failure> {
    let (file, compiled) = super::load(path)?;
    let (tree, _) = crate::syntax::parse(&file.text);
    let mut usage = Vec::new();
    let mut settings = Vec::new();
    for s in sets {
        match crate::batch::overrides::setting(s, &tree) {
            Ok(s) => settings.push(s),
            Err(e) => usage.push(e),
        }
    }
    if !usage.is_empty() {
        return Err(Failure::io(usage.join("\nerror: ")));
    }
    let plan = Plan::new(file, &compiled.warnings, settings, seeds).map_err(|errors| {
        let plain = !super::stderr_is_terminal();
        let mut usage = Vec::new();
        for e in errors {
            match e {
                PlanError::Usage(m) => usage.push(m),
                PlanError::Value(variant, diags) => eprint!("{}", render_all(&diags, &variant, plain)),
            }
        }
        if usage.is_empty() {
            Failure::failed("a value of --set was refused; nothing ran")
        } else {
            Failure::io(usage.join("\nerror: "))
        }
    })?;
    for (variant, warnings) in &plan.warnings {
        eprint!("{}", render_all(warnings, variant, !super::stderr_is_terminal()));
    }
    for p in 0..plan.list.points() {
        let point = plan.list.point_of(p);
        let program = point_program(&plan, &point)?;
        let at = |f: Failure| {
            if plan.settings.is_empty() {
                f
            } else {
                Failure { code: f.code, message: format!("at {}: {}", plan.list.point_name(&point), f.message) }
            }
        };
        sim::runnable(&program).map_err(super::run::sim_failure).map_err(at)?;
        super::run::trace_fits(&program, limits.0).map_err(at)?;
        super::run::plans_fit(&program, limits.1).map_err(at)?;
    }
    Ok(plan)
}

/// The program of a parameter point; the plan has checked that it compiles.
fn point_program(plan: &Plan, point: &[usize]) -> Result<Program, Failure> {
    plan.program(point).map_err(|_| Failure::failed(format!("{} no longer compiles", plan.list.point_name(point))))
}

fn batch_inner(args: &BatchArgs) -> Result<(), Failure> {
    let (Some(path), Some(seeds), Some(out)) = (&args.file, args.seeds, &args.out) else {
        return Err(Failure::io("give a scenario, --seeds and --out, or --merge DIR"));
    };
    let plan = load_plan(path, &args.set, seeds, (args.max_trace_gb, args.max_plan_cells))?;
    // The scenario's name and summary columns do not depend on the values set.
    let first = point_program(&plan, &plan.list.point_of(0))?;
    let ours = Identity {
        name: first.name.clone(),
        hash: plan.hash(),
        version: CROWD_VERSION.into(),
        precision: args.precision.map(u64::from),
    };
    if let Some((doc, why)) = folder::foreign(out, &ours, &plan.file.name) {
        return Err(Failure::io(format!(
            "the folder {} holds another batch's runs: {} {why}\n  \
             help: choose another --out folder, or remove {} (or move it aside) to run this batch there",
            out.display(),
            doc.display(),
            out.display()
        )));
    }
    if let Some(script) = &args.emit_slurm {
        return emit_slurm(args, &plan, &first.name, script);
    }
    if let Some(want) = &args.expect_build {
        let have = slurm::build_id().map_err(|e| Failure::io(format!("cannot read this crowd's executable: {e}")))?;
        if *want != have {
            return Err(Failure::io(format!(
                "this crowd is build {have}, the batch was planned for build {want}: a batch does not mix builds \
                 (run the crowd that wrote the script, or write the script again)"
            )));
        }
    }
    let shard = match args.shard {
        Some(s) => s,
        None => Shard::from_slurm(|k| std::env::var(k).ok()).map_err(Failure::io)?.unwrap_or(Shard::ALL),
    };
    let columns = Summary::for_program(&first).columns();
    let record = PlanRecord {
        identity: ours,
        scenario_file: plan.file.name.clone(),
        scenario_sha256: crate::hash::sha256_hex(plan.file.text.as_bytes()),
        list: plan.list.clone(),
        columns,
    };
    fs::create_dir_all(out).map_err(|e| Failure::io(format!("cannot create {}: {e}", out.display())))?;
    write_plan(out, &record)?;

    let runs: Vec<RunId> = (0..plan.list.runs()).filter(|&i| shard.holds(i)).map(|i| plan.list.run(i)).collect();
    sweep_stale(&plan, out, &runs, shard);
    let progress = Progress::new(runs.len() as u64, shard);
    let results: Vec<(u64, RunState, bool)> = sim::with_threads(args.jobs.map(usize::from), || {
        runs.par_iter()
            .with_max_len(1)
            .map(|run| {
                let started = Instant::now();
                let (state, skipped) = one_run(&plan, &record, out, run, args.precision);
                progress.finished(&plan, run, &state, skipped, started.elapsed());
                (run.index, state, skipped)
            })
            .collect()
    })
    .map_err(Failure::io)?;
    progress.done();
    let stopped = super::interrupted().load(std::sync::atomic::Ordering::Relaxed);
    let skipped = results.iter().filter(|r| r.2).count();
    let failed = results.iter().filter(|r| matches!(r.1, RunState::Failed(_))).count();
    let complete = results.iter().filter(|r| matches!(r.1, RunState::Complete(_))).count();
    let ran = complete - skipped;
    if stopped {
        // Runs in flight stopped after their step and left no file; finished ones are complete.
        return Err(Failure {
            code: INTERRUPTED_EXIT,
            message: format!(
                "interrupted: {complete} of {} run(s) complete in {}, the others not written; the same command \
                 finishes the batch (complete runs are kept)",
                runs.len(),
                out.display()
            ),
        });
    }
    let tally = format!("{ran} run(s), {skipped} already complete, {failed} failed");
    if shard.count > 1 {
        eprintln!(
            "shard {shard}: {tally}; when every shard has finished, `crowd batch --merge {}` writes the summary",
            out.display()
        );
    } else {
        let known: Vec<RunState> = results.into_iter().map(|r| r.1).collect();
        let states = manifest::states(&record, out, &|i| known.get(i as usize).cloned());
        write_merged(out, &record, &states)?;
        eprintln!("{tally}; summary in {}", out.join(SUMMARY_FILE).display());
    }
    if failed > 0 {
        return Err(Failure::failed(format!(
            "{failed} of {} run(s) failed; their errors are in {}",
            runs.len(),
            if shard.count > 1 {
                "their seed-N.failed.json files".to_string()
            } else {
                out.join(SUMMARY_FILE).display().to_string()
            }
        )));
    }
    Ok(())
}

/// Writes `batch.json`, unless it already holds these bytes (the shards of
/// a job array all write it, at once, to a shared folder).
fn write_plan(out: &Path, record: &PlanRecord) -> Result<(), Failure> {
    let path = out.join(PLAN_FILE);
    let text = record.to_json();
    if fs::read(&path).is_ok_and(|b| b == text.as_bytes()) {
        return Ok(());
    }
    match write_atomic(&path, |w| w.write_all(text.as_bytes())) {
        Ok(()) => Ok(()),
        // Another shard renamed the same bytes into place first.
        Err(_) if fs::read(&path).is_ok_and(|b| b == text.as_bytes()) => Ok(()),
        Err(e) => Err(Failure::io(format!("cannot write {}: {e}", path.display()))),
    }
}

/// Removes what killed writers of this shard's runs left, folder by folder.
fn sweep_stale(plan: &Plan, out: &Path, runs: &[RunId], shard: Shard) {
    let mut by_folder: std::collections::BTreeMap<PathBuf, Vec<PathBuf>> = std::collections::BTreeMap::new();
    for run in runs {
        let csv = plan.list.trace(out, run);
        let folder = by_folder.entry(plan.list.folder(out, &run.point)).or_default();
        folder.push(meta_path(&csv));
        folder.push(folder::failure_path(&csv));
        folder.push(csv);
    }
    if shard.count == 1 {
        let top = by_folder.entry(out.to_path_buf()).or_default();
        top.push(out.join(SUMMARY_FILE));
        top.push(out.join(MANIFEST_FILE));
    }
    for targets in by_folder.values() {
        crate::trace::sweep_stale(targets);
    }
}

/// Runs one run unless its outputs are complete; a run that fails leaves its
/// error in `seed-N.failed.json`. Returns its state and whether it was skipped.
fn one_run(plan: &Plan, record: &PlanRecord, out: &Path, run: &RunId, precision: Option<u8>) -> (RunState, bool) {
    let csv_path = plan.list.trace(out, run);
    let overrides = record.overrides(run);
    if let Some(c) = folder::complete(&csv_path, &record.identity, run.seed, &overrides, &record.columns) {
        return (RunState::Complete(c), true);
    }
    let state = match simulate(plan, record, &csv_path, run, &overrides, precision) {
        Ok(c) => {
            let _ = fs::remove_file(folder::failure_path(&csv_path));
            RunState::Complete(c)
        }
        Err(f) if f.code == INTERRUPTED_EXIT => RunState::Missing,
        Err(f) => {
            let text = folder::failure_json(&record.identity, run.seed, &overrides, &f.message);
            let path = folder::failure_path(&csv_path);
            match write_atomic(&path, |w| w.write_all(text.as_bytes())) {
                Ok(()) => RunState::Failed(f.message),
                Err(e) => RunState::Failed(format!("{} (and cannot write {}: {e})", f.message, path.display())),
            }
        }
    };
    (state, false)
}

fn simulate(
    plan: &Plan,
    record: &PlanRecord,
    csv_path: &Path,
    run: &RunId,
    overrides: &Json,
    precision: Option<u8>,
) -> Result<Complete, Failure> {
    let program = point_program(plan, &run.point)?;
    let mut summary = Summary::for_program(&program);
    let mut result = None;
    write_atomic_with(csv_path, |w| -> Result<(), SimError> {
        let mut tee = Sha256Tee::new(w);
        let mut csv = CsvWriter::new(&mut tee, &sim::labels(&program), &program.output.columns, precision)?;
        // The batch's runs share the pool.
        let go = Run { shares_pool: true, stop: Some(super::interrupted()), ..Run::new(&program, run.seed) };
        let outcome = go.go(&mut Both(&mut csv, &mut summary), &mut |_, _| {})?;
        let rows = csv.rows();
        drop(csv);
        result = Some((outcome, rows, tee.hex()));
        Ok(())
    })
    .map_err(super::run::writing_failure(csv_path))?;
    let Some((outcome, rows, trace_sha256)) = result else { unreachable!("the writer ran") };
    let values = summary.values(&outcome.log, outcome.steps);
    let extra = MetaExtra {
        summary: Some(values.clone()),
        precision,
        overrides: (!record.list.keys.is_empty()).then(|| overrides.clone()),
    };
    let meta = write_meta(csv_path, &program, &plan.file, run.seed, (&outcome, rows), extra)?;
    Ok(Complete {
        values: values.into_iter().map(|(_, v)| v).collect(),
        rows,
        trace_sha256,
        meta_sha256: crate::hash::sha256_hex(meta.as_bytes()),
    })
}

/// Writes `summary.csv` and `manifest.json`.
fn write_merged(out: &Path, record: &PlanRecord, states: &[RunState]) -> Result<(), Failure> {
    super::write_atomic(&out.join(SUMMARY_FILE), manifest::summary_csv(record, states).as_bytes())?;
    super::write_atomic(&out.join(MANIFEST_FILE), manifest::manifest_json(record, states).as_bytes())
}

/// `crowd batch --merge DIR`.
fn merge_only(dir: &Path) -> Result<(), Failure> {
    let record = PlanRecord::read(dir).map_err(Failure::io)?;
    let states = manifest::states(&record, dir, &|_| None);
    let (missing, n) = manifest::missing(&record, &states, 10);
    if n > 0 {
        let more = if n > missing.len() { format!(", and {} more", n - missing.len()) } else { String::new() };
        return Err(Failure::failed(format!(
            "{n} of {} run(s) in {} are not complete: {}{more}; nothing was merged\n  \
             help: run their shards again (complete runs are kept), then merge",
            states.len(),
            dir.display(),
            missing.join("; ")
        )));
    }
    write_merged(dir, &record, &states)?;
    let failed = states.iter().filter(|s| matches!(s, RunState::Failed(_))).count();
    eprintln!(
        "merged {} run(s) ({failed} failed) into {} and {}",
        states.len(),
        dir.join(SUMMARY_FILE).display(),
        dir.join(MANIFEST_FILE).display()
    );
    if failed > 0 {
        return Err(Failure::failed(format!("{failed} run(s) failed; their errors are in the summary")));
    }
    Ok(())
}

/// `--emit-slurm SCRIPT`: the job array's script, and the folder its logs go to.
fn emit_slurm(args: &BatchArgs, plan: &Plan, name: &str, script: &Path) -> Result<(), Failure> {
    let (Some(file), Some(out)) = (&args.file, &args.out) else { unreachable!("checked by the caller") };
    let runs = plan.list.runs();
    let tasks = args.tasks.unwrap_or(runs.min(100)).min(runs);
    let workdir = std::env::current_dir().map_err(|e| Failure::io(format!("cannot tell the current folder: {e}")))?;
    let crowd =
        std::env::current_exe().map_err(|e| Failure::io(format!("cannot find this crowd's executable: {e}")))?;
    let build = slurm::build_id().map_err(|e| Failure::io(format!("cannot read this crowd's executable: {e}")))?;
    let mut passed = vec![
        file.display().to_string(),
        "--seeds".into(),
        format!("{}..{}", plan.list.seeds.first, plan.list.seeds.last),
    ];
    for s in &args.set {
        passed.push("--set".into());
        passed.push(s.clone());
    }
    passed.extend(["--out".into(), out.display().to_string()]);
    if let Some(p) = args.precision {
        passed.extend(["--precision".into(), p.to_string()]);
    }
    passed.extend(["--max-trace-gb".into(), args.max_trace_gb.to_string()]);
    passed.extend(["--max-plan-cells".into(), args.max_plan_cells.to_string()]);
    let job = slurm::Job {
        name,
        scenario: &plan.file.name,
        runs,
        workdir: &workdir,
        out,
        script,
        crowd: &crowd,
        build: &build,
        args: passed,
    };
    let resources = slurm::Resources {
        tasks,
        cpus_per_task: args.cpus_per_task,
        time: args.time.clone(),
        mem: args.mem.clone(),
        partition: args.partition.clone(),
        account: args.account.clone(),
    };
    super::not_an_input(script, &[file])?;
    let logs = slurm::logs(&job);
    fs::create_dir_all(&logs).map_err(|e| Failure::io(format!("cannot create {}: {e}", logs.display())))?;
    super::write_atomic(script, slurm::script(&job, &resources).as_bytes())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(script, fs::Permissions::from_mode(0o755));
    }
    eprintln!(
        "wrote {}: {runs} run(s) in a job array of {tasks} task(s), logs in {}\n  submit it with: sbatch {}\n  \
         then: crowd batch --merge {}",
        script.display(),
        logs.display(),
        slurm::quote(&script.display().to_string()),
        slurm::quote(&out.display().to_string())
    );
    Ok(())
}

/// What a batch shows while it runs: on a terminal, a bar with the runs
/// done, failed and skipped and the time left; elsewhere, a line per run.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    total: u64,
    state: Mutex<Tally>,
    start: Instant,
    shard: Shard,
}

#[derive(Default)]
struct Tally {
    done: u64,
    ran: u64,
    failed: u64,
    skipped: u64,
}

impl Progress {
    fn new(total: u64, shard: Shard) -> Progress {
        let bar = super::stderr_is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total);
            let style = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} runs {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar
        });
        Progress { bar, total, state: Mutex::new(Tally::default()), start: Instant::now(), shard }
    }

    fn finished(&self, plan: &Plan, run: &RunId, state: &RunState, skipped: bool, took: Duration) {
        let Ok(mut t) = self.state.lock() else { return };
        t.done += 1;
        match (state, skipped) {
            (_, true) => t.skipped += 1,
            (RunState::Failed(_), _) => t.failed += 1,
            (RunState::Complete(_), _) => t.ran += 1,
            (RunState::Missing, _) => {}
        }
        // The time left from the runs made so far; skipped runs cost nothing.
        let left = (t.ran + t.failed > 0 && t.done < self.total).then(|| {
            let per_run = self.start.elapsed().as_secs_f64() / (t.ran + t.failed) as f64;
            per_run * (self.total - t.done) as f64
        });
        let left = left.map_or_else(String::new, |s| format!(", about {} left", duration_text(s)));
        match &self.bar {
            Some(bar) => {
                bar.set_position(t.done);
                bar.set_message(format!("({} failed, {} skipped{left})", t.failed, t.skipped));
            }
            None => {
                let what = match (state, skipped) {
                    (_, true) => "already complete".to_string(),
                    (RunState::Complete(_), _) => format!("done in {:.1} s", took.as_secs_f64()),
                    (RunState::Failed(e), _) => format!("FAILED: {}", e.lines().next().unwrap_or("")),
                    (RunState::Missing, _) => "stopped".to_string(),
                };
                let shard = if self.shard.count > 1 { format!("shard {}: ", self.shard) } else { String::new() };
                eprintln!("{shard}[{}/{}] {}: {what}{left}", t.done, self.total, plan.list.describe(run));
            }
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn duration_text(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
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
