//! The HTML player: one self-contained file (no network, no server) with the
//! world and the trace embedded, played on a canvas by the script in
//! `player.html`.
//!
//! The trace is embedded compactly, as little-endian typed arrays in base64:
//! per agent its id, population, group and radius; per row its agent slot
//! (u16, or u32 above 65,535 agents), its position quantised to u16 over the
//! picture's extent (sub-millimetre for worlds up to 65 m, 1 cm at 650 m),
//! its heading in 256 steps, its speed in 256 steps of the run's top speed
//! and its state. Frames are spans of rows (rows sorted by frame, then id, as
//! in the trace), so a frame is drawn straight from the arrays.
//!
//! Beside the trace go what the page draws but cannot work out cheaply:
//! spawn and goal marks (`places.rs`) and, per kept frame, the series of its
//! chart (agents alive, their mean speed and their mean local density), so
//! the numbers are the ones `crowd metrics` reports for those frames.

use base64::Engine;
use serde_json::{json, Value};

use crate::ir::NONE;
use crate::ir::{Program, Shape, Vec2};
use crate::math;
use crate::trace::measure::report::radii;
use crate::trace::measure::Trace;

use super::colour::{colours, NEUTRAL, PALETTE, RAMP};
use super::places::marks;
use super::ColourBy;
use crate::trace::measure::motion::{local_density, DENSITY_RADIUS};

/// The player's page, with `__CROWD_TITLE__` and `__CROWD_DATA__` to fill in.
pub const TEMPLATE: &str = include_str!("player.html");

#[derive(Clone, Debug)]
pub struct Options {
    pub from: Option<f64>,
    pub to: Option<f64>,
    /// Keep every n-th frame (long runs make large files).
    pub every: usize,
    /// Shown in the title (e.g. the trace's file name).
    pub label: String,
    /// The colouring the player starts with.
    pub colour: ColourBy,
}

impl Default for Options {
    fn default() -> Self {
        Options { from: None, to: None, every: 1, label: String::new(), colour: ColourBy::Population }
    }
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn shape_json(s: &Shape) -> Value {
    match s {
        Shape::Rect(r) => json!({"k": "rect", "p": [r.min.x, r.min.y, r.max.x, r.max.y]}),
        Shape::Circle { center, radius } => json!({"k": "circle", "p": [center.x, center.y, radius]}),
        Shape::Polygon(points) => json!({"k": "poly", "p": flat(points)}),
        Shape::Polyline { points, width } => json!({"k": "line", "p": flat(points), "w": width}),
        Shape::Segment { a, b } => json!({"k": "seg", "p": [a.x, a.y, b.x, b.y]}),
    }
}

fn flat(points: &[Vec2]) -> Vec<f64> {
    points.iter().flat_map(|p| [p.x, p.y]).collect()
}

fn world_json(program: &Program) -> Value {
    let w = &program.world;
    let named = |name: &str, s: &Shape| json!({"name": name, "s": shape_json(s)});
    json!({
        "obstacles": w.obstacles.iter().map(|o| named(&o.name, &o.shape)).collect::<Vec<_>>(),
        "regions": w.regions.iter().map(|r| named(&r.name, &r.shape)).collect::<Vec<_>>(),
        "shapes": w.shapes.iter().map(|t| named(&t.name, &t.shape)).collect::<Vec<_>>(),
        "spaces": program.spaces.iter().map(|s| json!({
            "name": s.name,
            "s": shape_json(&s.shape),
            "doors": s.doors.iter().map(|d| [d.a.x, d.a.y, d.b.x, d.b.y]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "objects": program.objects.iter().map(|o| json!({
            "name": o.name,
            "x": o.position.x,
            "y": o.position.y,
            "provides": o.provides.iter().map(|r| program.resources[r.index()].clone()).collect::<Vec<_>>().join(", "),
        })).collect::<Vec<_>>(),
    })
}

fn marks_json(program: &Program) -> Value {
    let marks: Vec<Value> = marks(program)
        .iter()
        .map(|m| json!({"k": m.kind.name(), "x": m.at.x, "y": m.at.y, "slot": m.slot, "title": m.title()}))
        .collect();
    Value::Array(marks)
}

/// Three decimals: the chart needs no more, and the page stays small.
fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Per kept frame: agents alive, their mean speed (m/s) and the mean of each
/// one's local density (agents within [`DENSITY_RADIUS`] over that disc's
/// area, 1/m²), as `crowd metrics` writes them to `frames.csv`.
fn chart_json(trace: &Trace, frames: &[usize]) -> Value {
    let (mut alive, mut speed, mut density) = (Vec::new(), Vec::new(), Vec::new());
    for &f in frames {
        let rows = trace.frame_rows(f);
        let n = rows.len();
        alive.push(n);
        let mean = |xs: &mut dyn Iterator<Item = f64>| if n == 0 { 0.0 } else { round3(xs.sum::<f64>() / n as f64) };
        speed.push(mean(&mut trace.vel[rows.clone()].iter().map(|v| v.length())));
        density.push(mean(&mut local_density(&trace.pos[rows]).into_iter()));
    }
    json!({"alive": alive, "speed": speed, "density": density, "densityRadius": DENSITY_RADIUS})
}

/// The frames kept: within the time range, every `every`-th.
fn kept_frames(trace: &Trace, opts: &Options) -> Result<Vec<usize>, String> {
    let (from, to) = (opts.from.unwrap_or(f64::NEG_INFINITY), opts.to.unwrap_or(f64::INFINITY));
    if from > to {
        return Err(format!("--from {from} s is after --to {to} s"));
    }
    let every = opts.every.max(1);
    let kept: Vec<usize> = (0..trace.frames.len())
        .filter(|&k| trace.frames[k].t >= from - 1e-9 && trace.frames[k].t <= to + 1e-9)
        .collect();
    let kept: Vec<usize> = kept.iter().copied().step_by(every).collect();
    if kept.is_empty() {
        return Err(format!("no recorded frame between {from} s and {to} s"));
    }
    Ok(kept)
}

/// The player's data, as JSON.
pub fn data(program: &Program, trace: &Trace, opts: &Options) -> Result<Value, String> {
    let frames = kept_frames(trace, opts)?;
    // Agents: the trace's tracks, in id order; a row's slot is its track index.
    let n_agents = trace.tracks.len();
    let (radius, _) = radii(trace, Some(program));
    let mut ids = Vec::with_capacity(n_agents * 4);
    let mut pops = Vec::with_capacity(n_agents * 2);
    let mut groups = Vec::with_capacity(n_agents * 4);
    let mut rads = Vec::with_capacity(n_agents * 4);
    for k in 0..n_agents {
        let first = trace.tracks.rows(k)[0] as usize;
        ids.extend_from_slice(&trace.tracks.id[k].to_le_bytes());
        pops.extend_from_slice(&(trace.population[first] as u16).to_le_bytes());
        let g = trace.group[first];
        groups.extend_from_slice(&(if g == NONE { -1i32 } else { g.min(i32::MAX as u32) as i32 }).to_le_bytes());
        rads.extend_from_slice(&(radius[first] as f32).to_le_bytes());
    }
    // Quantisation over the world and every position.
    let mut lo = program.world.bounds.min;
    let mut hi = program.world.bounds.max;
    for p in &trace.pos {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let extent = (hi - lo).max_element().max(1e-3);
    let step = extent / 65535.0;
    let top_speed = trace.vel.iter().map(|v| v.length()).fold(0.0, f64::max).max(1e-6);
    let wide = n_agents > usize::from(u16::MAX);
    let mut start: Vec<u8> = Vec::with_capacity((frames.len() + 1) * 4);
    let (mut slot, mut xs, mut ys, mut heading, mut speed, mut state) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut count = 0u32;
    let mut times = Vec::with_capacity(frames.len());
    for &f in &frames {
        start.extend_from_slice(&count.to_le_bytes());
        times.push(trace.frames[f].t);
        for r in trace.frame_rows(f) {
            let k = trace.tracks.find(trace.id[r]).unwrap_or(0);
            if wide {
                slot.extend_from_slice(&(k as u32).to_le_bytes());
            } else {
                slot.extend_from_slice(&(k as u16).to_le_bytes());
            }
            let q = |v: f64, o: f64| (((v - o) / step).round().clamp(0.0, 65535.0) as u16).to_le_bytes();
            xs.extend_from_slice(&q(trace.pos[r].x, lo.x));
            ys.extend_from_slice(&q(trace.pos[r].y, lo.y));
            let o = trace.ori[r];
            let a = math::atan2(o.y, o.x).rem_euclid(std::f64::consts::TAU);
            heading.push(((a / std::f64::consts::TAU * 256.0).round() as u32 % 256) as u8);
            speed.push((trace.vel[r].length() / top_speed * 255.0).round().clamp(0.0, 255.0) as u8);
            let s = trace.state[r];
            state.extend_from_slice(
                &(if s == NONE { u16::MAX } else { s.min(u32::from(u16::MAX) - 1) as u16 }).to_le_bytes(),
            );
            count += 1;
        }
    }
    start.extend_from_slice(&count.to_le_bytes());
    let pop_colours = colours(trace, program, ColourBy::Population);
    // The colour of each trace population, by its index in the trace.
    let mut by_pop = vec![NEUTRAL.to_string(); trace.populations.len()];
    for (r, &p) in trace.population.iter().enumerate() {
        by_pop[p as usize].clone_from(&pop_colours.table[pop_colours.row[r] as usize]);
    }
    let b = program.world.bounds;
    let title =
        if opts.label.is_empty() { program.name.clone() } else { format!("{} · {}", program.name, opts.label) };
    Ok(json!({
        "name": program.name,
        "title": title,
        "bounds": [b.min.x, b.min.y, b.max.x, b.max.y],
        "world": world_json(program),
        "marks": marks_json(program),
        "chart": chart_json(trace, &frames),
        "frames": frames.len(),
        "frameNumbers": frames,
        "times": times,
        "interval": trace.interval * opts.every.max(1) as f64,
        "populations": trace.populations,
        "popColours": by_pop,
        "states": trace.states,
        "palette": PALETTE,
        "ramp": RAMP,
        "neutral": NEUTRAL,
        "colour": match opts.colour {
            ColourBy::Population => "population",
            ColourBy::Group => "group",
            ColourBy::State => "state",
            ColourBy::Speed => "speed",
        },
        "topSpeed": top_speed,
        "q": {"x0": lo.x, "y0": lo.y, "step": step},
        "agents": {
            "n": n_agents,
            "id": b64(&ids),
            "pop": b64(&pops),
            "group": b64(&groups),
            "radius": b64(&rads),
        },
        "rows": {
            "n": count,
            "start": b64(&start),
            "slotBytes": if wide { 4 } else { 2 },
            "slot": b64(&slot),
            "x": b64(&xs),
            "y": b64(&ys),
            "heading": b64(&heading),
            "speed": b64(&speed),
            "state": b64(&state),
        },
    }))
}

fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The player page for a run.
pub fn html(program: &Program, trace: &Trace, opts: &Options) -> Result<String, String> {
    let data = data(program, trace, opts)?;
    // Inside a script element nothing may read as a tag: `<` only occurs in
    // JSON strings, where `\u003c` means the same.
    let json = data.to_string().replace('<', "\\u003c");
    let title = data["title"].as_str().unwrap_or("crowd").to_string();
    let (head, rest) = TEMPLATE.split_once("__CROWD_TITLE__").ok_or("the player template has no title slot")?;
    let (middle, tail) = rest.split_once("__CROWD_DATA__").ok_or("the player template has no data slot")?;
    let mut out = String::with_capacity(TEMPLATE.len() + json.len() + title.len());
    out.push_str(head);
    out.push_str(&html_text(&title));
    out.push_str(middle);
    out.push_str(&json);
    out.push_str(tail);
    Ok(out)
}
