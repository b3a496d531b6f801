//! `crowd view`: a self-contained HTML player for a run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::metrics::load_run;
use super::render::parse_time;
use super::{write_atomic, Failure};
use crate::render::{view, ColourBy};

#[derive(Args)]
pub struct ViewArgs {
    /// The scenario the trace was run from.
    file: PathBuf,
    /// The trace (CSV).
    trace: PathBuf,
    /// The page to write (open it in a browser; `#frame=N` in the address
    /// opens frame N, `#play` starts playing).
    #[arg(long, short, value_name = "OUT.html")]
    out: PathBuf,
    /// Keep frames from this time on, s.
    #[arg(long, value_name = "T", value_parser = parse_time)]
    from: Option<f64>,
    /// Keep frames up to this time, s.
    #[arg(long, value_name = "T", value_parser = parse_time)]
    to: Option<f64>,
    /// Keep every N-th frame (smaller files for long runs).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    every: u32,
    /// The colouring the player starts with.
    #[arg(long, value_enum, default_value_t = ColourBy::Population)]
    colour: ColourBy,
}

pub fn view(args: ViewArgs) -> ExitCode {
    match view_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

fn view_inner(args: &ViewArgs) -> Result<(), Failure> {
    let (trace, program) = load_run(&args.trace, Some(&args.file))?;
    let Some(program) = program else { unreachable!("a scenario was given") };
    let label = args.trace.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let opts = view::Options { from: args.from, to: args.to, every: args.every as usize, label, colour: args.colour };
    let html =
        view::html(&program, &trace, &opts).map_err(|e| Failure::io(format!("{}: {e}", args.trace.display())))?;
    super::not_an_input(&args.out, &[&args.file, &args.trace])?;
    write_atomic(&args.out, html.as_bytes())?;
    eprintln!("wrote {} ({} kB)", args.out.display(), html.len().div_ceil(1024));
    Ok(())
}
