//! `crowd export`: a CSV trace, with its metadata beside it, as JuPedSim's
//! SQLite, a USD stage or Parquet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{Failure, OutputFormat};
use crate::export::{self, Scene};
use crate::trace::meta_path;

#[derive(Args)]
pub struct ExportArgs {
    /// The CSV trace (its `.meta.json` must be beside it).
    trace: PathBuf,
    /// The format to write.
    #[arg(long, value_enum)]
    format: OutputFormat,
    /// Where to write (default: the trace's path with the format's extension).
    #[arg(long, short, value_name = "PATH")]
    out: Option<PathBuf>,
}

pub fn export(args: ExportArgs) -> ExitCode {
    match export_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

fn export_inner(args: &ExportArgs) -> Result<(), Failure> {
    let format = args.format.format();
    if format == export::Format::Csv {
        return Err(Failure::io("the trace is CSV already: choose --format sqlite, usd or parquet"));
    }
    if let Some(why) = format.unavailable() {
        return Err(Failure::io(why));
    }
    let out = args.out.clone().unwrap_or_else(|| args.trace.with_extension(format.extension()));
    let meta = meta_path(&args.trace);
    super::not_an_input(&out, &[&args.trace, &meta])?;
    let (trace, _) = super::metrics::load_run(&args.trace, None)?;
    let meta_text = std::fs::read(&meta)
        .map_err(|e| Failure::io(format!("cannot read {} (the trace's metadata): {e}", meta.display())))?;
    let meta_json: serde_json::Value = serde_json::from_slice(&meta_text)
        .map_err(|e| Failure::io(format!("{} is not the trace's metadata: {e}", meta.display())))?;
    let scene = Scene::of_trace(&trace, &meta_json)
        .map_err(|e| Failure::io(format!("{} is not the trace's metadata: {e}", meta.display())))?;
    let rows = export::write_file(format, &out, &scene, |sink| export::replay(&trace, sink))
        .map_err(|e| Failure::io(format!("cannot write {}: {e}", out.display())))?;
    eprintln!("wrote {} ({} frames, {rows} rows)", out.display(), trace.frames.len());
    Ok(())
}

/// Where `crowd run --format F` writes by default: `out/NAME.<extension>`.
pub(crate) fn default_path(scenario: &Path, format: export::Format) -> PathBuf {
    super::default_trace_path(scenario).with_extension(format.extension())
}
