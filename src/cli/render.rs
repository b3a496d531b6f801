//! `crowd render`: a picture of a run, SVG or PNG by the output's extension.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::metrics::load_run;
use super::{write_atomic, Failure};
use crate::ir::{Program, Vec2};
use crate::render::{png, svg, ColourBy};
use crate::trace::meta_path;

#[derive(Args)]
pub struct RenderArgs {
    /// The scenario the trace was run from.
    file: PathBuf,
    /// The trace (CSV).
    trace: PathBuf,
    /// The picture to write: `.svg`, or `.png` (the SVG rasterised).
    #[arg(long, short, value_name = "OUT.svg|OUT.png")]
    out: PathBuf,
    /// Paths from this time on, s.
    #[arg(long, value_name = "T", value_parser = parse_time, conflicts_with = "frame")]
    from: Option<f64>,
    /// Paths up to this time, s.
    #[arg(long, value_name = "T", value_parser = parse_time, conflicts_with = "frame")]
    to: Option<f64>,
    /// Draw one frame: agents as discs with their heading, and a short trail.
    #[arg(long, value_name = "N")]
    frame: Option<usize>,
    /// Colour paths and agents by population, group, state or speed.
    #[arg(long, value_enum, default_value_t = ColourBy::Population)]
    colour: ColourBy,
    /// Picture width, px.
    #[arg(long, value_name = "PX", default_value_t = svg::DEFAULT_WIDTH, value_parser = clap::value_parser!(u32).range(200..=20_000))]
    width: u32,
    /// Draw the scenario's markers (as the run made them: the seed comes from
    /// the trace's metadata, else the scenario).
    #[arg(long)]
    markers: bool,
    /// With --frame: the trail drawn behind each agent, s (0: none).
    #[arg(long, value_name = "S", default_value_t = svg::DEFAULT_TRAIL, value_parser = parse_time)]
    trail: f64,
}

/// The run's markers: generated for the seed in the trace's metadata (the
/// scenario's seed without one).
fn markers(program: &Program, trace: &Path) -> Vec<Vec2> {
    if program.world.markers.base.is_none() {
        eprintln!("warning: scenario {} declares no markers", program.name);
        return Vec::new();
    }
    let meta = meta_path(trace);
    // Without metadata the scenario's seed is the run's; broken metadata may
    // hide another seed, and markers drawn for the wrong one would mislead.
    let seed = match std::fs::read(&meta) {
        Err(_) => program.header.seed,
        Ok(bytes) => match serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|m| m["seed"].as_u64()) {
            Some(seed) => seed,
            None => {
                eprintln!(
                    "warning: {} has no readable seed; the markers are drawn for the scenario's seed {}",
                    meta.display(),
                    program.header.seed
                );
                program.header.seed
            }
        },
    };
    crate::world::markers::generate(&program.world, seed).positions
}

pub(super) fn parse_time(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('s').trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a time in seconds")),
    }
}

pub fn render(args: RenderArgs) -> ExitCode {
    match render_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

fn render_inner(args: &RenderArgs) -> Result<(), Failure> {
    let ext = args.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let as_png = match ext.as_deref() {
        Some("png") => true,
        Some("svg") => false,
        _ => return Err(Failure::io(format!("{}: the picture must end in .svg or .png", args.out.display()))),
    };
    let (trace, program) = load_run(&args.trace, Some(&args.file))?;
    let Some(program) = program else { unreachable!("a scenario was given") };
    let label = args.trace.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let markers = if args.markers { markers(&program, &args.trace) } else { Vec::new() };
    let opts = svg::Options {
        from: args.from,
        to: args.to,
        frame: args.frame,
        colour: args.colour,
        width: args.width,
        trail: args.trail,
        label,
        markers,
    };
    let text =
        svg::render(&program, &trace, &opts).map_err(|e| Failure::io(format!("{}: {e}", args.trace.display())))?;
    super::not_an_input(&args.out, &[&args.file, &args.trace])?;
    if as_png {
        let (bytes, has_font) = png::rasterise(&text).map_err(Failure::io)?;
        if !has_font {
            eprintln!("warning: no font found, the PNG has no text (set CROWD_FONT to a .ttf file)");
        }
        write_atomic(&args.out, &bytes)?;
    } else {
        write_atomic(&args.out, text.as_bytes())?;
    }
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
