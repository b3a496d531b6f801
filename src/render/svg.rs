//! The SVG picture of a run: the world, then either every agent's path over
//! a time range (start ○, end ●) or one frame's agents as discs with a
//! heading tick and a short trail; a title, and a legend with a scale bar.

use std::fmt::Write;

use crate::ir::{Program, Vec2};
use crate::trace::measure::report::radii;
use crate::trace::measure::Trace;

use super::colour::{colours, Colours};
use super::labels::PxBox;
use super::legend::{self, Entry};
use super::{n1, places, world, xml, ColourBy, Frame};

/// Space around the picture, px.
const MARGIN: f64 = 16.0;
const TITLE: f64 = 30.0;
/// Default picture width, px.
pub const DEFAULT_WIDTH: u32 = 1200;
/// Default trail behind agents in a frame picture, s.
pub const DEFAULT_TRAIL: f64 = 4.0;
/// Fonts tried in order; resvg falls back to the first family it has.
pub const FONTS: &str = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

#[derive(Clone, Debug)]
pub struct Options {
    /// Paths from this time on, s.
    pub from: Option<f64>,
    /// Paths up to this time, s.
    pub to: Option<f64>,
    /// Draw this one frame instead of paths.
    pub frame: Option<usize>,
    pub colour: ColourBy,
    /// Picture width, px.
    pub width: u32,
    /// Frame pictures: trail length behind each agent, s (0: none).
    pub trail: f64,
    /// Shown in the title after the scenario's name (e.g. the trace's file name).
    pub label: String,
    /// Markers to draw under the agents (space colonization's discretised
    /// walkable space), m.
    pub markers: Vec<Vec2>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            from: None,
            to: None,
            frame: None,
            colour: ColourBy::Population,
            width: DEFAULT_WIDTH,
            trail: DEFAULT_TRAIL,
            label: String::new(),
            markers: Vec::new(),
        }
    }
}

/// The frames `[first, last]` a picture covers.
pub fn frame_range(trace: &Trace, opts: &Options) -> Result<(usize, usize), String> {
    let last = trace.frames.len() - 1;
    if let Some(k) = opts.frame {
        if k > last {
            return Err(format!("frame {k} is past the trace's last frame, {last}"));
        }
        return Ok((k, k));
    }
    let (from, to) = (opts.from.unwrap_or(f64::NEG_INFINITY), opts.to.unwrap_or(f64::INFINITY));
    if from > to {
        return Err(format!("--from {from} s is after --to {to} s"));
    }
    let a = trace.frame_at_or_after(from);
    let b = trace.frame_at_or_before(to);
    match b {
        Some(b) if a <= b && a <= last => Ok((a, b)),
        _ => Err(format!(
            "no recorded frame between {from} s and {to} s (the trace runs from {} s to {} s)",
            trace.frames[0].t, trace.frames[last].t
        )),
    }
}

/// A picture: its SVG text and size, px.
#[derive(Clone, Debug)]
pub struct Picture {
    pub svg: String,
    pub width: u32,
    pub height: u32,
}

/// The picture, as SVG text.
pub fn render(program: &Program, trace: &Trace, opts: &Options) -> Result<String, String> {
    picture(program, trace, opts).map(|p| p.svg)
}

/// The picture and its size. Its height depends only on the scenario, the
/// trace's colour legend and the options, never on the frame drawn, so the
/// frames of an animation share it.
pub fn picture(program: &Program, trace: &Trace, opts: &Options) -> Result<Picture, String> {
    let (f0, f1) = frame_range(trace, opts)?;
    let width = f64::from(opts.width.clamp(200, 20_000));
    let b = program.world.bounds;
    let map = Frame::new(b, width - 2.0 * MARGIN, Vec2::new(MARGIN, MARGIN + TITLE));
    let colours = colours(trace, program, opts.colour);
    let marks = places::marks(program);
    let mut body = String::new();
    world::draw(&mut body, &map, program);
    draw_markers(&mut body, &map, &opts.markers);
    let stats = if opts.frame.is_some() {
        draw_frame(&mut body, &map, trace, program, &colours, f0, opts.trail)
    } else {
        let per_segment = matches!(opts.colour, ColourBy::State | ColourBy::Speed);
        draw_paths(&mut body, &map, trace, &colours, per_segment, (f0, f1))
    };
    // Names may stand a little outside the world, not over the title or the legend.
    let names_area = PxBox::new(MARGIN / 2.0, map.origin.y - 8.0, width - MARGIN, map.height() + 16.0);
    world::draw_labels(&mut body, &map, program, &marks, names_area);
    // Title.
    let (t0, t1) = (trace.frames[f0].t, trace.frames[f1].t);
    let what = if opts.frame.is_some() {
        format!("frame {f0}, t = {} s, {} agents", fmt_t(t0), stats)
    } else {
        format!("t = {}–{} s, {} agents", fmt_t(t0), fmt_t(t1), stats)
    };
    // No-break spaces: SVG collapses a leading plain space.
    let label = if opts.label.is_empty() { String::new() } else { format!("\u{a0}· {}", opts.label) };
    let mut head = String::new();
    let _ = writeln!(
        head,
        "<text x=\"{}\" y=\"{}\" font-size=\"15\" font-weight=\"bold\" fill=\"#222222\">{}<tspan font-weight=\"normal\" fill=\"#555555\">{}\u{a0}· {}</tspan></text>",
        n1(MARGIN),
        n1(MARGIN + 16.0),
        xml(&program.name),
        xml(&label),
        xml(&what)
    );
    // Legend: the agents' colours and marks, then the world's symbols and the scale.
    let mut agents: Vec<Entry> = colours.legend.iter().map(|(c, t)| Entry::Swatch(c.clone(), t.clone())).collect();
    if opts.frame.is_some() {
        agents.push(Entry::Disc);
        if opts.trail > 0.0 {
            agents.push(Entry::Trail(format!("trail: last {} s", fmt_t(opts.trail))));
        }
    } else {
        agents.push(Entry::Start);
        agents.push(Entry::End);
    }
    let mut things = legend::world_entries(program, &marks, !opts.markers.is_empty());
    let metres = legend::scale_length(map.scale, legend::SCALE_PX);
    things.push(Entry::Scale(metres, metres * map.scale));
    let (legend, bottom) = legend::draw(&[agents, things], MARGIN, map.origin.y + map.height() + 12.0, width - MARGIN);
    let height = (bottom + MARGIN).ceil();
    let mut svg = String::with_capacity(body.len() + legend.len() + 1024);
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{FONTS}\">",
        w = width,
        h = height
    );
    let _ = writeln!(svg, "<rect width=\"{width}\" height=\"{height}\" fill=\"#f4f4f1\"/>");
    svg.push_str(&head);
    svg.push_str(&body);
    svg.push_str(&legend);
    svg.push_str("</svg>\n");
    Ok(Picture { svg, width: width as u32, height: height as u32 })
}

fn fmt_t(t: f64) -> String {
    let s = format!("{t:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Pixel polyline of some rows, dropping points that round to the previous one.
fn pixel_points(map: &Frame, trace: &Trace, rows: impl Iterator<Item = usize>) -> Vec<(String, String)> {
    let mut pts: Vec<(String, String)> = Vec::new();
    for r in rows {
        let p = trace.pos[r];
        let q = (n1(map.x(p.x)), n1(map.y(p.y)));
        if pts.last() != Some(&q) {
            pts.push(q);
        }
    }
    pts
}

fn join(pts: &[(String, String)]) -> String {
    let parts: Vec<String> = pts.iter().map(|(x, y)| format!("{x},{y}")).collect();
    parts.join(" ")
}

/// Rows of track `k` within frames `[f0, f1]`.
fn rows_in(trace: &Trace, k: usize, f0: usize, f1: usize) -> Vec<usize> {
    trace
        .tracks
        .rows(k)
        .iter()
        .map(|&r| r as usize)
        .filter(|&r| (f0..=f1).contains(&(trace.frame[r] as usize)))
        .collect()
}

/// Polylines of `rows`, split where the colour changes (colour of a segment: its end row's).
fn coloured_runs(colours: &Colours, rows: &[usize]) -> Vec<(u16, Vec<usize>)> {
    let mut runs: Vec<(u16, Vec<usize>)> = Vec::new();
    for w in rows.windows(2) {
        let c = colours.row[w[1]];
        match runs.last_mut() {
            Some((rc, run)) if *rc == c => run.push(w[1]),
            _ => runs.push((c, vec![w[0], w[1]])),
        }
    }
    runs
}

fn draw_paths(
    out: &mut String,
    map: &Frame,
    trace: &Trace,
    colours: &Colours,
    per_segment: bool,
    (f0, f1): (usize, usize),
) -> usize {
    let tracks: Vec<(usize, Vec<usize>)> =
        (0..trace.tracks.len()).map(|k| (k, rows_in(trace, k, f0, f1))).filter(|(_, r)| !r.is_empty()).collect();
    let n = tracks.len();
    let opacity = if n > 2000 {
        0.35
    } else if n > 300 {
        0.6
    } else {
        0.85
    };
    let stroke = (0.1 * map.scale).clamp(1.2, 3.0);
    let _ = writeln!(
        out,
        "<g id=\"paths\" fill=\"none\" stroke-width=\"{}\" stroke-linejoin=\"round\" stroke-linecap=\"round\" stroke-opacity=\"{opacity}\">",
        n1(stroke)
    );
    for (_, rows) in &tracks {
        let runs: Vec<(u16, Vec<usize>)> =
            if per_segment { coloured_runs(colours, rows) } else { vec![(colours.row[rows[0]], rows.clone())] };
        for (c, run) in runs {
            let pts = pixel_points(map, trace, run.into_iter());
            if pts.len() >= 2 {
                let _ = writeln!(out, "<polyline points=\"{}\" stroke=\"{}\"/>", join(&pts), colours.table[c as usize]);
            }
        }
    }
    // Start and end marks shrink as agents multiply, so they do not bury the paths.
    let (r, w) = if n > 2000 {
        (1.2, 0.5)
    } else if n > 300 {
        (2.0, 1.0)
    } else {
        (3.0, 1.5)
    };
    let _ = writeln!(out, "</g>\n<g id=\"ends\" stroke-width=\"{w}\">");
    for (_, rows) in &tracks {
        let (a, b) = (rows[0], rows[rows.len() - 1]);
        let c = &colours.table[colours.row[a] as usize];
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{r}\" fill=\"#ffffff\" stroke=\"{c}\"/>",
            n1(map.x(trace.pos[a].x)),
            n1(map.y(trace.pos[a].y))
        );
        let c = &colours.table[colours.row[b] as usize];
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{r}\" fill=\"{c}\" stroke=\"#222222\"/>",
            n1(map.x(trace.pos[b].x)),
            n1(map.y(trace.pos[b].y))
        );
    }
    out.push_str("</g>\n");
    n
}

/// Markers as small grey dots, one path.
fn draw_markers(out: &mut String, map: &Frame, markers: &[Vec2]) {
    if markers.is_empty() {
        return;
    }
    let r = (0.04 * map.scale).clamp(0.6, 1.5);
    let (r1, d1) = (n1(r), n1(2.0 * r));
    let mut d = String::with_capacity(markers.len() * 40);
    for p in markers {
        let _ = write!(d, "M{},{}a{r1},{r1} 0 1,0 {d1},0a{r1},{r1} 0 1,0 -{d1},0", n1(map.x(p.x) - r), n1(map.y(p.y)));
    }
    let _ = writeln!(out, "<path id=\"markers\" d=\"{d}\" fill=\"{}\"/>", world::MARKER_FILL);
}

fn draw_frame(
    out: &mut String,
    map: &Frame,
    trace: &Trace,
    program: &Program,
    colours: &Colours,
    frame: usize,
    trail: f64,
) -> usize {
    let t = trace.frames[frame].t;
    let rows = trace.frame_rows(frame);
    if trail > 0.0 {
        let first = trace.frame_at_or_after(t - trail).min(frame);
        out.push_str(
            "<g id=\"trails\" fill=\"none\" stroke-width=\"1.5\" stroke-opacity=\"0.45\" stroke-linejoin=\"round\">\n",
        );
        for r in rows.clone() {
            let Some(k) = trace.tracks.find(trace.id[r]) else { continue };
            let run = rows_in(trace, k, first, frame);
            let pts = pixel_points(map, trace, run.into_iter());
            if pts.len() >= 2 {
                let _ = writeln!(
                    out,
                    "<polyline points=\"{}\" stroke=\"{}\"/>",
                    join(&pts),
                    colours.table[colours.row[r] as usize]
                );
            }
        }
        out.push_str("</g>\n");
    }
    let (radius, _) = radii(trace, Some(program));
    out.push_str("<g id=\"agents\" stroke=\"#222222\" stroke-width=\"0.8\">\n");
    for r in rows.clone() {
        let p = trace.pos[r];
        let rp = (radius[r] * map.scale).max(2.0);
        let (x, y) = (map.x(p.x), map.y(p.y));
        let o = trace.ori[r].normalize_or_zero();
        let _ = writeln!(
            out,
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#111111\" stroke-width=\"{}\"/>",
            n1(x),
            n1(y),
            n1(rp),
            colours.table[colours.row[r] as usize],
            n1(x),
            n1(y),
            n1(x + o.x * rp),
            n1(y - o.y * rp),
            n1((rp / 4.0).clamp(0.8, 3.0))
        );
    }
    out.push_str("</g>\n");
    rows.len()
}
