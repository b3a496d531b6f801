//! The command line: arguments in, a library call, a formatted result out.
//!
//! Exit codes: 0 success, 1 a failed check / run / test, 2 usage or I/O errors,
//! 3 `crowd test` with nothing failed but a scenario without a golden trace.

mod batch;
mod check;
mod export;
mod fmt;
mod lsp;
mod metrics;
mod render;
mod run;
mod test;
mod view;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::diag::{render_all, SourceFile};
use crate::Compiled;

#[derive(Parser)]
#[command(name = "crowd", version, about = "Compile, check and run .crowd crowd-simulation scenarios")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The largest scenario file read, in MB: a larger one (or a device such
    /// as /dev/zero) is refused before it fills the memory.
    #[arg(long, global = true, default_value_t = DEFAULT_MAX_INPUT_MB, value_name = "MB")]
    max_input_mb: u64,
}

/// The default of `--max-input-mb`: a 100,000-vertex polygon takes 3 MB.
const DEFAULT_MAX_INPUT_MB: u64 = 64;

/// `--max-input-mb` in bytes, set once from the command line.
static MAX_INPUT_BYTES: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MAX_INPUT_MB * 1024 * 1024);

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum DiagFormat {
    /// Rendered diagnostics for people.
    Human,
    /// One JSON object per diagnostic per line.
    Json,
}

/// The formats a trace can be written in.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OutputFormat {
    /// The CSV trace (the default of `crowd run`).
    Csv,
    /// JuPedSim's SQLite trajectory file (version 2), for PedPy and JuPedSim.
    Sqlite,
    /// A USD stage (`.usda`) for Blender, Houdini, Unreal, Omniverse.
    Usd,
    /// Parquet: the trace's columns with their types.
    Parquet,
}

impl OutputFormat {
    pub fn format(self) -> crate::export::Format {
        match self {
            OutputFormat::Csv => crate::export::Format::Csv,
            OutputFormat::Sqlite => crate::export::Format::Sqlite,
            OutputFormat::Usd => crate::export::Format::Usd,
            OutputFormat::Parquet => crate::export::Format::Parquet,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Check scenario files and report every problem.
    Check(check::CheckArgs),
    /// Rewrite scenario files in the canonical layout (`--check`: list those that are not).
    Fmt(fmt::FmtArgs),
    /// Print the lowered IR of a scenario in a stable text form.
    Ir(check::IrArgs),
    /// Run a scenario and write its trace.
    Run(run::RunArgs),
    /// Run scenarios, evaluate their expectations and compare with golden traces.
    Test(test::TestArgs),
    /// Run a scenario over a range of seeds in parallel.
    Batch(batch::BatchArgs),
    /// Draw a run: the world and the agents' paths, or one frame (SVG or PNG).
    Render(render::RenderArgs),
    /// Write a self-contained HTML player for a run.
    View(view::ViewArgs),
    /// Measure a run: collisions, intrusions, goals, paths, speed, density, groups, lanes.
    Metrics(metrics::MetricsArgs),
    /// Write a CSV trace as JuPedSim SQLite, a USD stage or Parquet.
    Export(export::ExportArgs),
    /// Serve editors over the Language Server Protocol on stdin and stdout.
    Lsp(lsp::LspArgs),
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    MAX_INPUT_BYTES.store(cli.max_input_mb.saturating_mul(1024 * 1024), std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Command::Check(args) => check::check(args),
        Command::Fmt(args) => fmt::fmt(args),
        Command::Ir(args) => check::ir(args),
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::test(args),
        Command::Batch(args) => batch::batch(args),
        Command::Render(args) => render::render(args),
        Command::View(args) => view::view(args),
        Command::Metrics(args) => metrics::metrics(args),
        Command::Export(args) => export::export(args),
        Command::Lsp(args) => lsp::lsp(args),
    }
}

/// The exit code of a command stopped by an interrupt (128 + SIGINT, as shells report it).
pub const INTERRUPTED_EXIT: u8 = 130;

/// Set when the user interrupts (Ctrl-C): runs stop after their current step,
/// their temporary files are removed and nothing takes a final name.
pub fn interrupted() -> &'static std::sync::atomic::AtomicBool {
    static FLAG: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        // Without a handler (another one is installed), Ctrl-C ends the process as usual.
        let _ = ctrlc::set_handler(|| FLAG.store(true, std::sync::atomic::Ordering::Relaxed));
    });
    &FLAG
}

/// A failure outside the user's scenario text: a usage or I/O error (exit 2),
/// or a scenario that does not compile or run (exit 1).
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn io(message: impl Into<String>) -> Self {
        Failure { code: 2, message: message.into() }
    }
    pub fn failed(message: impl Into<String>) -> Self {
        Failure { code: 1, message: message.into() }
    }
    pub fn exit(self) -> ExitCode {
        if !self.message.is_empty() {
            eprintln!("error: {}", self.message);
        }
        ExitCode::from(self.code)
    }
}

/// Reads a scenario file.
pub fn read_source(path: &Path) -> Result<SourceFile, Failure> {
    use std::io::Read;
    let limit = MAX_INPUT_BYTES.load(std::sync::atomic::Ordering::Relaxed);
    let cannot = |e: std::io::Error| Failure::io(format!("cannot read {}: {e}", path.display()));
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(limit.saturating_add(1)).read_to_end(&mut bytes)).map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(Failure::io(format!(
            "{} is larger than {} MB, the most a scenario may be (--max-input-mb raises it)",
            path.display(),
            limit / (1024 * 1024)
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::failed(format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(SourceFile::new(path.display().to_string(), text))
}

/// Prints to stdout; a closed pipe (`crowd ir f | head`) is not an error worth a panic.
pub fn print_out(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

/// Reads and compiles a scenario; prints warnings; errors become a failure
/// (exit 1) after all diagnostics are printed.
pub fn load(path: &Path) -> Result<(SourceFile, Compiled), Failure> {
    let file = read_source(path)?;
    let plain = !stderr_is_terminal();
    match crate::compile(&file) {
        Ok(compiled) => {
            if !compiled.warnings.is_empty() {
                eprint!("{}", render_all(&compiled.warnings, &file, plain));
            }
            Ok((file, compiled))
        }
        Err(diags) => {
            eprint!("{}", render_all(&diags, &file, plain));
            Err(Failure::failed(String::new()))
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a
/// rename, so a failed or interrupted write never leaves a partial file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    crate::trace::write_atomic(path, |w| std::io::Write::write_all(w, bytes))
        .map_err(|e| Failure::io(format!("cannot write {}: {e}", path.display())))
}

/// Refuses an output that is one of the command's inputs (the same file,
/// whatever the path says): a trace written over its scenario, metrics over
/// their trace. Outputs are written by rename, so the input would be gone.
pub fn not_an_input(out: &Path, inputs: &[&Path]) -> Result<(), Failure> {
    let Ok(target) = std::fs::metadata(out) else { return Ok(()) };
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|m| same_file(&m, &target)) {
            return Err(Failure::io(format!(
                "{} is an input of this command ({}): write the output elsewhere",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    // Without inode numbers: same length and modification time is the best guess, and errs on refusing.
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

pub(crate) fn default_trace_path(scenario: &Path) -> PathBuf {
    let stem = scenario.file_stem().map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    PathBuf::from("out").join(format!("{stem}.csv"))
}
