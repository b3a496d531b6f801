//! `crowd metrics`: measure a recorded run (collisions, intrusions, goals,
//! paths, speed, density, groups, lanes, SteerBench-style totals).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::{load, print_out, write_atomic, Failure};
use crate::ir::{Program, Rect, Vec2};
use crate::trace::float::{format_f64, format_fixed};
use crate::trace::measure::report::{Measured, Metric, FRAME_COLUMNS};
use crate::trace::measure::{measure, Options, Trace, Value};
use crate::trace::meta::scenario_hash;
use crate::trace::meta_path;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// Aligned columns for people.
    Table,
    /// `metric,value,unit` rows (with `--per-frame`: one row per frame).
    Csv,
    /// One JSON object with the metrics (and, with `--per-frame`, the frames).
    Json,
}

#[derive(Args)]
pub struct MetricsArgs {
    /// The trace (CSV) to measure.
    trace: PathBuf,
    /// The scenario the trace was run from: adds obstacle intrusions, goals,
    /// formations and the scenario's body radii.
    #[arg(long, short, value_name = "FILE")]
    scenario: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Measurement area for classic density and speed (as PedPy computes
    /// them): `x0,y0,x1,y1` in metres.
    #[arg(long, value_name = "X0,Y0,X1,Y1", value_parser = parse_area)]
    area: Option<Rect>,
    /// Individual speed in the area over this many frames either side (PedPy's `frame_step`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    speed_step: u32,
    /// An agent has reached a point goal within this distance, m (default:
    /// the scenario's arrival radius plus 2 m).
    #[arg(long, value_name = "M", value_parser = parse_positive)]
    goal_reach: Option<f64>,
    /// Print the per-frame series instead of the summary (JSON: both).
    #[arg(long)]
    per_frame: bool,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "PATH")]
    out: Option<PathBuf>,
}

fn parse_positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of metres")),
    }
}

/// Parses `x0,y0,x1,y1` into a rectangle (corners in any order).
pub fn parse_area(s: &str) -> Result<Rect, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| format!("`{s}` is not four numbers x0,y0,x1,y1"))?;
    let [x0, y0, x1, y1] = v[..] else { return Err(format!("`{s}` is not four numbers x0,y0,x1,y1")) };
    let r = Rect { min: Vec2::new(x0.min(x1), y0.min(y1)), max: Vec2::new(x0.max(x1), y0.max(y1)) };
    if r.area() <= 0.0 {
        return Err(format!("the area `{s}` is empty"));
    }
    Ok(r)
}

pub fn metrics(args: MetricsArgs) -> ExitCode {
    match metrics_inner(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => f.exit(),
    }
}

/// Reads a trace, and the scenario when one is given; checks that they match.
/// A stale scenario (its hash differs from the one in the trace's metadata)
/// is a warning: the scenario may have been edited since the run.
pub(super) fn load_run(trace: &Path, scenario: Option<&Path>) -> Result<(Trace, Option<Program>), Failure> {
    let program = match scenario {
        None => None,
        Some(path) => {
            let (file, compiled) = load(path)?;
            warn_if_stale(trace, file.text.as_bytes());
            Some(compiled.program)
        }
    };
    let bytes = std::fs::read(trace).map_err(|e| Failure::io(format!("cannot read {}: {e}", trace.display())))?;
    let parsed = Trace::parse(&bytes).map_err(|e| Failure::io(format!("{}: {e}", trace.display())))?;
    if let Some(p) = &program {
        crate::trace::measure::report::check_against(&parsed, p)
            .map_err(|e| Failure::io(format!("{}: {e}", trace.display())))?;
    }
    Ok((parsed, program))
}

fn warn_if_stale(trace: &Path, scenario: &[u8]) {
    let Ok(meta) = std::fs::read(meta_path(trace)) else { return };
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(&meta) else { return };
    let Some(hash) = json.pointer("/scenario/hash").and_then(|h| h.as_str()) else { return };
    let now = scenario_hash(scenario);
    if hash != now {
        eprintln!(
            "warning: {} was written from a scenario with hash {hash}; this scenario's is {now} (edited since the run?)",
            trace.display()
        );
    }
}

fn metrics_inner(args: &MetricsArgs) -> Result<(), Failure> {
    let (trace, program) = load_run(&args.trace, args.scenario.as_deref())?;
    let opts = Options { area: args.area, speed_step: args.speed_step as usize, goal_reach: args.goal_reach };
    let measured =
        measure(&trace, program.as_ref(), &opts).map_err(|e| Failure::io(format!("{}: {e}", args.trace.display())))?;
    let text = match (args.format, args.per_frame) {
        (Format::Table, false) => table(&measured),
        (Format::Table, true) => frames_table(&measured),
        (Format::Csv, false) => csv(&measured.metrics),
        (Format::Csv, true) => frames_csv(&measured),
        (Format::Json, per_frame) => json(&measured, &args.trace, args.scenario.as_deref(), per_frame),
    };
    match &args.out {
        None => print_out(&text),
        Some(path) => {
            let inputs: Vec<&Path> = std::iter::once(args.trace.as_path()).chain(args.scenario.as_deref()).collect();
            super::not_an_input(path, &inputs)?;
            write_atomic(path, text.as_bytes())?
        }
    }
    Ok(())
}

fn cell(v: &Value) -> String {
    match v {
        Value::Number(x) => format_f64(*x),
        Value::Count(n) => n.to_string(),
        Value::Missing(_) => String::new(),
    }
}

/// Summary as a table: name, value (4 decimals), unit; a missing value says why.
pub fn table(m: &Measured) -> String {
    let width = m.metrics.iter().map(|x| x.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for x in &m.metrics {
        let value = match &x.value {
            Value::Number(v) => format_fixed(*v, 4),
            Value::Count(n) => n.to_string(),
            Value::Missing(why) => format!("n/a ({why})"),
        };
        let unit = if matches!(x.value, Value::Missing(_)) { "" } else { x.unit };
        out.push_str(format!("{:<width$}  {value} {unit}", x.name).trim_end());
        out.push('\n');
    }
    for n in &m.notes {
        out.push_str(&format!("# {n}\n"));
    }
    out
}

/// Summary as CSV: `metric,value,unit`, an empty value when missing.
pub fn csv(metrics: &[Metric]) -> String {
    let mut out = String::from("metric,value,unit\n");
    for x in metrics {
        out.push_str(&format!("{},{},{}\n", x.name, cell(&x.value), x.unit));
    }
    out
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(String::new, format_f64)
}

fn frames_csv(m: &Measured) -> String {
    let mut out = FRAME_COLUMNS.join(",");
    out.push('\n');
    for f in &m.frames {
        let cells: Vec<String> = f.values().iter().map(|v| opt(*v)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

fn frames_table(m: &Measured) -> String {
    let rows: Vec<Vec<String>> = m
        .frames
        .iter()
        .map(|f| f.values().iter().map(|v| v.map_or_else(|| "-".into(), trim_fixed)).collect())
        .collect();
    let widths: Vec<usize> = (0..FRAME_COLUMNS.len())
        .map(|c| rows.iter().map(|r| r[c].len()).chain([FRAME_COLUMNS[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |cells: &[String]| {
        let parts: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        parts.join("  ") + "\n"
    };
    let mut out = line(&FRAME_COLUMNS.map(String::from));
    for r in &rows {
        out.push_str(&line(r));
    }
    out
}

fn trim_fixed(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format_f64(x)
    } else {
        format_fixed(x, 4)
    }
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

fn json_num(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map_or_else(|| "null".into(), format_f64)
}

/// `{"trace": .., "scenario": .., "metrics": {name: value|null}, "units": {..},
/// "missing": {name: why}, "notes": [..], "frames": [..]}` with keys in a fixed order.
pub fn json(m: &Measured, trace: &Path, scenario: Option<&Path>, per_frame: bool) -> String {
    let mut out = String::from("{\n");
    out.push_str(&format!("  \"trace\": {},\n", json_str(&trace.display().to_string())));
    out.push_str(&format!(
        "  \"scenario\": {},\n",
        scenario.map_or_else(|| "null".into(), |s| json_str(&s.display().to_string()))
    ));
    let entries = |f: &dyn Fn(&Metric) -> Option<String>| -> String {
        let parts: Vec<String> =
            m.metrics.iter().filter_map(|x| f(x).map(|v| format!("    {}: {v}", json_str(x.name)))).collect();
        if parts.is_empty() {
            "{}".into()
        } else {
            format!("{{\n{}\n  }}", parts.join(",\n"))
        }
    };
    out.push_str(&format!("  \"metrics\": {},\n", entries(&|x| Some(json_num(x.value.as_f64())))));
    out.push_str(&format!("  \"units\": {},\n", entries(&|x| (!x.unit.is_empty()).then(|| json_str(x.unit)))));
    out.push_str(&format!(
        "  \"missing\": {},\n",
        entries(&|x| match x.value {
            Value::Missing(why) => Some(json_str(why)),
            _ => None,
        })
    ));
    let notes: Vec<String> = m.notes.iter().map(|n| json_str(n)).collect();
    out.push_str(&format!("  \"notes\": [{}]", notes.join(", ")));
    if per_frame {
        out.push_str(",\n  \"frames\": [\n");
        let rows: Vec<String> = m
            .frames
            .iter()
            .map(|f| {
                let cells: Vec<String> = FRAME_COLUMNS
                    .iter()
                    .zip(f.values())
                    .map(|(name, v)| format!("{}: {}", json_str(name), json_num(v)))
                    .collect();
                format!("    {{{}}}", cells.join(", "))
            })
            .collect();
        out.push_str(&rows.join(",\n"));
        out.push_str("\n  ]");
    }
    out.push_str("\n}\n");
    out
}
