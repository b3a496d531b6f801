//! `crowd run`: run one scenario and write its trace and metadata.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Args;

use super::{default_trace_path, load, Failure};
use crate::diag::SourceFile;
use crate::export::{self, Format, Scene};
use crate::ir::Program;
use crate::sim::{self, Outcome, SimError};
use crate::trace::csv::record_to;
use crate::trace::meta::{meta_json, RunInfo};
use crate::trace::{meta_path, write_atomic, write_atomic_with};

/// Runs shorter than this show no progress bar.
const QUIET_FOR: Duration = Duration::from_millis(500);

#[derive(Args)]
pub struct RunArgs {
    /// The scenario file.
    file: PathBuf,
    /// Seed of the run (default: the scenario's `seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Set a value: `MODEL.PARAMETER=VALUE` (with its unit, e.g.
    /// `boids.max_speed=3 m/s`) or `population.NAME.count=N`; checked as the
    /// scenario's own. Repeatable. The run is the one `crowd batch --set`
    /// makes with these values.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Record every N steps instead of the scenario's `record every` (1:
    /// every step, for analysis at the full time resolution).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    record_every: Option<u32>,
    /// Where to write the trace, or `-` for standard output. Default:
    /// `out/<scenario name>.csv` (the scenario file's name without `.crowd`), with
    /// the run's metadata beside it in `out/<scenario name>.meta.json`.
    #[arg(long, short, value_name = "PATH")]
    out: Option<PathBuf>,
    /// The trace's format: CSV, or JuPedSim's SQLite, a USD stage or Parquet
    /// (written from the run's frames; the metadata goes beside it in every case).
    #[arg(long, value_enum, default_value = "csv")]
    format: super::OutputFormat,
    /// Worker threads (default: one per core). The trace is the same for any number.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Print run statistics: agents, steps, wall time, simulation and writing
    /// time apart, and agent-steps per second.
    #[arg(long)]
    stats: bool,
    /// Write numbers with exactly N decimals instead of the shortest exact form.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=17))]
    precision: Option<u8>,
    /// The largest trace the run may write, GB (estimated before the run:
    /// every declared agent in every recorded frame).
    #[arg(long, value_name = "GB", default_value_t = crate::ir::limits::DEFAULT_MAX_TRACE_GB)]
    max_trace_gb: f64,
    /// The most grid cells the planners may visit in a step (estimated before
    /// the run: each grid planner's cells times the agents that run it).
    #[arg(long, value_name = "CELLS", default_value_t = crate::ir::limits::DEFAULT_MAX_PLAN_CELLS)]
    max_plan_cells: f64,
}

/// Refuses a run whose trace could outgrow `max_gb`, before it starts.
pub(crate) fn trace_fits(program: &Program, max_gb: f64) -> Result<(), Failure> {
    let (bytes, agents, frames) =
        crate::ir::limits::trace_bytes(&program.header, &program.populations, program.output.columns.len());
    if bytes / 1e9 > max_gb {
        return Err(Failure::failed(format!(
            "the trace could grow to about {:.0} GB ({agents} agents in {frames:.0} recorded frames), more than \
             --max-trace-gb {max_gb}: record fewer frames, or raise the limit",
            bytes / 1e9
        )));
    }
    Ok(())
}

/// Refuses a run whose USD stage would hold more than the limit before it is written.
fn usd_fits(program: &Program) -> Result<(), Failure> {
    use crate::ir::limits::{trace_bytes, MAX_USD_HELD_GB, USD_SAMPLE_BYTES};
    let (_, agents, frames) = trace_bytes(&program.header, &program.populations, 0);
    let held = agents as f64 * frames * USD_SAMPLE_BYTES / 1e9;
    if held > MAX_USD_HELD_GB {
        return Err(Failure::failed(format!(
            "a USD stage holds every sample until it is written: about {held:.1} GB for {agents} agents in {frames:.0} \
             frames, more than {MAX_USD_HELD_GB} GB: record fewer frames (--record-every) or fewer agents"
        )));
    }
    Ok(())
}

/// Refuses a run whose grid planners could visit more than `max` cells a step, before it starts.
pub(crate) fn plans_fit(program: &Program, max: f64) -> Result<(), Failure> {
    match crate::ir::limits::plan_work(program) {
        Some(w) if w.cells_per_step() > max => Err(Failure::failed(format!(
            "the planners could visit about {:.1e} grid cells a step ({} {} of behaviour {} on a grid of {:.0} \
             cells), more than --max-plan-cells {max:.0e}: use a coarser grid or fewer agents, or raise the limit",
            w.cells_per_step(),
            w.searches,
            w.by,
            program.behaviours[w.behaviour].name,
            w.cells
        ))),
        _ => Ok(()),
    }
}

pub fn run(args: RunArgs) -> ExitCode {
    match run_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

/// A run's result and what it cost.
struct Report {
    outcome: Outcome,
    rows: u64,
    wall: Duration,
    finish: Duration,
}

pub(crate) fn sim_failure(e: SimError) -> Failure {
    match e {
        SimError::Record(io) => Failure::io(format!("cannot write the trace: {io}")),
        SimError::Interrupted { .. } => Failure { code: super::INTERRUPTED_EXIT, message: e.to_string() },
        other => Failure::failed(other.to_string()),
    }
}

/// [`sim_failure`] for a run writing its trace to `path`: a write error names the file.
pub(crate) fn writing_failure(path: &Path) -> impl Fn(SimError) -> Failure + '_ {
    move |e| match e {
        SimError::Record(io) => Failure::io(format!("cannot write {}: {io}", path.display())),
        other => sim_failure(other),
    }
}

/// What a run's metadata holds beyond the run itself.
#[derive(Default)]
pub(crate) struct MetaExtra {
    /// Per-run summary metrics (`crowd batch`).
    pub summary: Option<Vec<(String, f64)>>,
    pub precision: Option<u8>,
    /// The values `--set` gave.
    pub overrides: Option<serde_json::Value>,
}

/// Writes the metadata of a run whose trace went to `trace`, beside it
/// (`trace.csv` → `trace.meta.json`), atomically; returns what it wrote. A
/// trace written in place to a device or a pipe (`-o /dev/null`) has no
/// folder of files for it: nothing is written then.
pub(crate) fn write_meta(
    trace: &Path,
    program: &Program,
    file: &SourceFile,
    seed: u64,
    (outcome, rows): (&Outcome, u64),
    extra: MetaExtra,
) -> Result<String, Failure> {
    let info = RunInfo {
        scenario_file: &file.name,
        scenario_bytes: file.text.as_bytes(),
        seed,
        steps: outcome.steps,
        frames: outcome.frames,
        rows,
        agents: outcome.agents,
        catches: outcome.catches.iter().map(|c| (c.step, c.predator, c.prey)).collect(),
        summary: extra.summary,
        precision: extra.precision,
        overrides: extra.overrides,
    };
    let meta = meta_path(trace);
    let text = meta_json(program, &info);
    if !crate::trace::is_special(trace) {
        write_atomic(&meta, |w| w.write_all(text.as_bytes()))
            .map_err(|e| Failure::io(format!("cannot write {}: {e}", meta.display())))?;
    }
    Ok(text)
}

/// Removes the metadata of the run a new trace at `out` replaces, before the
/// trace takes its name: a failure to write the new metadata (a full disk)
/// then leaves none rather than a wrong one. A device or a pipe has none.
fn remove_meta(out: &Path) -> Result<(), SimError> {
    if crate::trace::is_special(out) {
        return Ok(());
    }
    match std::fs::remove_file(meta_path(out)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(SimError::Record(e)),
        _ => Ok(()),
    }
}

fn run_inner(args: &RunArgs) -> Result<(), Failure> {
    if let Some(why) = args.format.format().unavailable() {
        return Err(Failure::io(why));
    }
    let (file, program, overrides) = if args.set.is_empty() {
        let (file, compiled) = load(&args.file)?;
        (file, compiled.program, None)
    } else {
        if let Some(s) = args.set.iter().find(|s| s.contains(',')) {
            return Err(Failure::io(format!(
                "`--set {s}`: a run takes one value per key (`crowd batch` sweeps several)"
            )));
        }
        let seeds = crate::batch::Seeds { first: 0, last: 0 };
        let plan = super::batch::load_plan(&args.file, &args.set, seeds, (args.max_trace_gb, args.max_plan_cells))?;
        let point = plan.list.point_of(0);
        let program = plan.program(&point).map_err(|_| Failure::failed("the values set no longer compile"))?;
        let overrides = crate::batch::folder::overrides_json(&plan.list.assignments(&point));
        (plan.file, program, Some(overrides))
    };
    let mut program = program;
    if let Some(n) = args.record_every {
        program.header.record_every = n;
    }
    let program = &program;
    let seed = args.seed.unwrap_or(program.header.seed);
    trace_fits(program, args.max_trace_gb)?;
    plans_fit(program, args.max_plan_cells)?;
    let format = args.format.format();
    if format == Format::Usd {
        usd_fits(program)?;
    }
    let out = args.out.clone().unwrap_or_else(|| match format {
        Format::Csv => default_trace_path(&args.file),
        _ => super::export::default_path(&args.file, format),
    });
    let to_stdout = out.as_os_str() == "-";
    // A device or a pipe (`-o /dev/null`) takes the trace in place, and has
    // no folder of files for the metadata to sit in.
    let special = !to_stdout && crate::trace::is_special(&out);
    if format != Format::Csv && (to_stdout || args.precision.is_some()) {
        return Err(Failure::io(format!(
            "--format {}: {} is for CSV traces",
            format.extension(),
            if to_stdout { "standard output (`-o -`)" } else { "--precision" }
        )));
    }
    if !to_stdout {
        super::not_an_input(&out, &[&args.file])?;
        if !special {
            super::not_an_input(&meta_path(&out), &[&args.file])?;
            crate::trace::sweep_stale(&[out.clone(), meta_path(&out)]);
        }
    }
    let threads = args.threads.map(usize::from);
    let report = sim::with_threads(threads, || -> Result<Report, Failure> {
        let start = Instant::now();
        sim::runnable(program).map_err(sim_failure)?;
        if format != Format::Csv {
            let scene = Scene::of_program(program);
            let mut outcome = None;
            let mut finish_from = Instant::now();
            let rows = export::write_file(format, &out, &scene, |sink| -> Result<(), SimError> {
                let mut progress = Progress::new(program.header.steps());
                let run = sim::Run { stop: Some(super::interrupted()), ..sim::Run::new(program, seed) };
                outcome = Some(run.go(sink, &mut |done, _| progress.tick(done))?);
                progress.done();
                finish_from = Instant::now();
                remove_meta(&out)
            })
            .map_err(writing_failure(&out))?;
            // A sink may do most of its writing when finished (Parquet
            // encodes its last row group then): that is writing too.
            let finish = finish_from.elapsed();
            let Some(outcome) = outcome else { unreachable!("the sink was fed") };
            let extra = MetaExtra { overrides: overrides.clone(), ..MetaExtra::default() };
            write_meta(&out, program, &file, seed, (&outcome, rows), extra)?;
            return Ok(Report { outcome, rows, wall: start.elapsed(), finish });
        }
        if to_stdout {
            // Not a lock: the trace is written from another thread.
            let mut w = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout());
            let (outcome, rows, drain) = simulate(program, seed, &mut w, args.precision).map_err(sim_failure)?;
            let t = Instant::now();
            w.flush().map_err(|e| Failure::io(format!("cannot write the trace: {e}")))?;
            Ok(Report { outcome, rows, wall: start.elapsed(), finish: drain + t.elapsed() })
        } else {
            let mut result = None;
            let mut finish_from = Instant::now();
            let mut drain = Duration::ZERO;
            write_atomic_with(&out, |w| -> Result<(), SimError> {
                let (outcome, rows, d) = simulate(program, seed, w, args.precision)?;
                finish_from = Instant::now();
                drain = d;
                result = Some((outcome, rows));
                remove_meta(&out)
            })
            .map_err(writing_failure(&out))?;
            let finish = drain + finish_from.elapsed();
            let Some((outcome, rows)) = result else { unreachable!("the writer ran") };
            let extra = MetaExtra { precision: args.precision, overrides: overrides.clone(), ..MetaExtra::default() };
            write_meta(&out, program, &file, seed, (&outcome, rows), extra)?;
            Ok(Report { outcome, rows, wall: start.elapsed(), finish })
        }
    })
    .map_err(Failure::io)??;
    if to_stdout {
        eprintln!("wrote the trace to standard output ({} frames, {} rows)", report.outcome.frames, report.rows);
    } else if special {
        eprintln!(
            "wrote the trace to {} ({} frames, {} rows), in place: it is not a file, so no metadata is written",
            out.display(),
            report.outcome.frames,
            report.rows
        );
    } else {
        eprintln!(
            "wrote {} ({} frames, {} rows) and {}",
            out.display(),
            report.outcome.frames,
            report.rows,
            meta_path(&out).display()
        );
    }
    if args.stats {
        print_stats(program, &report, threads);
    }
    Ok(())
}

/// Runs the simulation to the end, streaming the trace to `w` (from a
/// background thread when a core is free for it, see [`record_to`]); returns
/// the outcome, the number of rows written and how long the writing took to
/// finish once the simulation had.
fn simulate(
    program: &Program,
    seed: u64,
    w: &mut (dyn Write + Send),
    precision: Option<u8>,
) -> Result<(Outcome, u64, Duration), SimError> {
    let mut ended = None;
    let (outcome, rows) = record_to(w, &sim::labels(program), &program.output.columns, precision, |csv| {
        let mut progress = Progress::new(program.header.steps());
        let run = sim::Run { stop: Some(super::interrupted()), ..sim::Run::new(program, seed) };
        let outcome = run.go(csv, &mut |done, _| progress.tick(done))?;
        progress.done();
        ended = Some(Instant::now());
        Ok::<_, SimError>(outcome)
    })?;
    Ok((outcome, rows, ended.map_or(Duration::ZERO, |t| t.elapsed())))
}

/// A progress bar on stderr, only for a terminal and only once the run has
/// taken longer than a moment.
struct Progress {
    total: u64,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
}

impl Progress {
    fn new(total: u64) -> Progress {
        Progress { total, start: Instant::now(), bar: None, enabled: std::io::stderr().is_terminal() }
    }

    fn tick(&mut self, done: u64) {
        if !self.enabled || !done.is_multiple_of(16) {
            return;
        }
        if self.bar.is_none() && self.start.elapsed() >= QUIET_FOR && done < self.total {
            let bar = indicatif::ProgressBar::new(self.total);
            if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} steps, {eta} left") {
                bar.set_style(style);
            }
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    fn done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn print_stats(program: &Program, r: &Report, threads: Option<usize>) {
    let o = &r.outcome;
    let sim_time = o.times.simulation();
    let writing = o.times.record + r.finish;
    let per_second = |d: Duration| if d.as_secs_f64() > 0.0 { o.agent_steps as f64 / d.as_secs_f64() } else { 0.0 };
    eprintln!("agents:            {} created", o.agents);
    eprintln!("steps:             {} ({} frames, {} rows)", o.steps, o.frames, r.rows);
    eprintln!("simulated time:    {} s", o.steps as f64 * program.header.dt);
    eprintln!(
        "threads:           {}",
        threads.map_or_else(|| rayon::current_num_threads().to_string(), |n| n.to_string())
    );
    eprintln!("wall time:         {}", secs(r.wall));
    eprintln!("  simulation:      {}", secs(sim_time));
    eprintln!("  writing:         {}", secs(writing));
    eprintln!("agent-steps:       {}", o.agent_steps);
    eprintln!("agent-steps per s: {:.0} (simulation only), {:.0} (wall)", per_second(sim_time), per_second(r.wall));
    let phases: Vec<String> = o.times.named().iter().map(|(n, d)| format!("{n} {:.3}", d.as_secs_f64())).collect();
    eprintln!("phases (s):        {}", phases.join(", "));
}
