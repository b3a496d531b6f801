//! `crowd render`: a picture of a run, SVG or PNG, or an animated GIF of it,
//! by the output's extension.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::metrics::load_run;
use super::{write_atomic, Failure};
use crate::ir::{Program, Vec2};
use crate::render::{gif, png, svg, ColourBy};
use crate::trace::meta_path;

#[derive(Args)]
pub struct RenderArgs {
    /// The scenario the trace was run from.
    file: PathBuf,
    /// The trace (CSV).
    trace: PathBuf,
    /// The picture to write: `.svg`, `.png` (the SVG rasterised), or `.gif`
    /// (every frame from --from to --to, animated).
    #[arg(long, short, value_name = "OUT.svg|OUT.png|OUT.gif")]
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
    /// Picture width, px [default: 1200; 640 for a GIF].
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(200..=20_000))]
    width: Option<u32>,
    /// Draw the scenario's markers (as the run made them: the seed comes from
    /// the trace's metadata, else the scenario).
    #[arg(long)]
    markers: bool,
    /// With --frame: the trail drawn behind each agent, s (0: none).
    #[arg(long, value_name = "S", default_value_t = svg::DEFAULT_TRAIL, value_parser = parse_time)]
    trail: f64,
    /// A GIF: keep every N-th frame.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    every: u32,
    /// A GIF: frames shown a second, at most 50 [default: real time].
    #[arg(long, value_name = "F", value_parser = parse_fps)]
    fps: Option<f64>,
}

fn parse_fps(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= gif::MAX_FPS => Ok(v),
        _ => Err(format!("`{s}` is not a frame rate between 0 and {}", gif::MAX_FPS)),
    }
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

/// What `--out` asks for, by its extension.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Svg,
    Png,
    Gif,
}

fn render_inner(args: &RenderArgs) -> Result<(), Failure> {
    let ext = args.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let kind = match ext.as_deref() {
        Some("png") => Kind::Png,
        Some("svg") => Kind::Svg,
        Some("gif") => Kind::Gif,
        _ => return Err(Failure::io(format!("{}: the picture must end in .svg, .png or .gif", args.out.display()))),
    };
    if kind == Kind::Gif && args.frame.is_some() {
        return Err(Failure::io("a GIF shows the frames from --from to --to; --frame draws one picture (.svg, .png)"));
    }
    if kind != Kind::Gif && (args.every != 1 || args.fps.is_some()) {
        return Err(Failure::io(format!("--every and --fps are for a GIF; {} is a still picture", args.out.display())));
    }
    let (trace, program) = load_run(&args.trace, Some(&args.file))?;
    let Some(program) = program else { unreachable!("a scenario was given") };
    let label = args.trace.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let markers = if args.markers { markers(&program, &args.trace) } else { Vec::new() };
    let default_width = if kind == Kind::Gif { gif::DEFAULT_WIDTH } else { svg::DEFAULT_WIDTH };
    let opts = svg::Options {
        from: args.from,
        to: args.to,
        frame: args.frame,
        colour: args.colour,
        width: args.width.unwrap_or(default_width),
        trail: args.trail,
        label,
        markers,
    };
    let failed = |e: String| Failure::io(format!("{}: {e}", args.trace.display()));
    if kind == Kind::Gif {
        let opts = gif::Options { picture: opts, every: args.every as usize, fps: args.fps };
        let plan = gif::plan(&program, &trace, &opts).map_err(failed)?;
        super::not_an_input(&args.out, &[&args.file, &args.trace])?;
        let raster = png::Rasteriser::new();
        if !raster.has_font() {
            eprintln!("warning: no font found, the GIF has no text (set CROWD_FONT to a .ttf file)");
        }
        let bar = progress_bar(plan.frames.len() as u64);
        let bytes =
            gif::encode(&program, &trace, &opts, &plan, &raster, |k| bar.set_position(k as u64)).map_err(failed)?;
        bar.finish_and_clear();
        write_atomic(&args.out, &bytes)?;
        eprintln!(
            "wrote {} ({} frames of {} × {} px, {} kB)",
            args.out.display(),
            plan.frames.len(),
            plan.width,
            plan.height,
            bytes.len().div_ceil(1024)
        );
        return Ok(());
    }
    let text = svg::render(&program, &trace, &opts).map_err(failed)?;
    super::not_an_input(&args.out, &[&args.file, &args.trace])?;
    if kind == Kind::Png {
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

/// A bar on a terminal; hidden when standard error is not one.
fn progress_bar(frames: u64) -> indicatif::ProgressBar {
    if !super::stderr_is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(frames);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} frames {eta}") {
        bar.set_style(style);
    }
    bar
}
