//! Traces for tools outside `crowd`: JuPedSim's SQLite (`sqlite.rs`), USD
//! for DCC tools (`usd.rs`), Parquet (`parquet.rs`).
//!
//! Every format is a [`Sink`]: a recorder fed the frames in order, then
//! finished. `crowd run --format` feeds it the run's frames as they are
//! made; `crowd export` replays a CSV trace into it ([`replay`]). What a
//! format needs beyond the frames — names, frame rate, bounds, the walkable
//! area — is the [`Scene`], made from the program or from the trace's
//! metadata. Files are written to a temporary name and renamed. Parquet is
//! the cargo feature `parquet` (on by default); a build without it refuses
//! the format ([`Format::unavailable`]).

#[cfg(feature = "parquet")]
pub mod parquet;
pub mod sqlite;
pub mod usd;

use std::io;
use std::path::Path;

use geo::MultiPolygon;

use crate::ir::{Column, Program, Rect, Vec2};
use crate::trace::frame::{FrameView, Labels, Recorder, NONE};
use crate::trace::measure::Trace;

/// The formats a trace can leave in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Sqlite,
    Usd,
    Parquet,
}

impl Format {
    /// The file extension a file of this format takes.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Sqlite => "sqlite",
            Format::Usd => "usda",
            Format::Parquet => "parquet",
        }
    }

    /// Why this build cannot write the format, if it cannot.
    pub fn unavailable(self) -> Option<&'static str> {
        match self {
            #[cfg(not(feature = "parquet"))]
            Format::Parquet => Some(
                "--format parquet: this crowd was built without Parquet support (the cargo feature `parquet`, on by default)",
            ),
            _ => None,
        }
    }
}

/// What an export needs besides the frames.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scenario's name.
    pub name: String,
    /// Recorded frames per second.
    pub frame_rate: f64,
    pub bounds: Rect,
    /// The walkable area (`world::outline`): its holes are the obstacles.
    pub walkable: MultiPolygon<f64>,
    /// Names behind the population, state and goal indices of the frames.
    pub labels: Labels,
    /// The trace's optional columns, in order.
    pub columns: Vec<Column>,
}

impl Scene {
    /// The scene of a run of `program`.
    pub fn of_program(program: &Program) -> Scene {
        Scene {
            name: program.name.clone(),
            frame_rate: program.header.frame_rate(),
            bounds: program.world.bounds,
            walkable: crate::world::outline::walkable_area(&program.world),
            labels: crate::sim::labels(program),
            columns: program.output.columns.clone(),
        }
    }

    /// The scene of a CSV trace read back, from its metadata (`meta.json`).
    /// Var columns are not read back, so they are left out.
    pub fn of_trace(trace: &Trace, meta: &serde_json::Value) -> Result<Scene, String> {
        let num = |p: &str| meta.pointer(p).and_then(serde_json::Value::as_f64).ok_or(format!("no {p}"));
        let frame_rate = num("/frame_rate")?;
        let bounds = Rect {
            min: Vec2::new(num("/bounds/min/0")?, num("/bounds/min/1")?),
            max: Vec2::new(num("/bounds/max/0")?, num("/bounds/max/1")?),
        };
        let wkt_text =
            meta.get("walkable_area_wkt").and_then(serde_json::Value::as_str).ok_or("no walkable_area_wkt")?;
        let walkable = walkable_from_wkt(wkt_text)?;
        let name = meta.pointer("/scenario/name").and_then(serde_json::Value::as_str).ok_or("no scenario name")?;
        let columns = ["speed", "goal", "formation", "radius"]
            .iter()
            .filter(|c| trace.has_column(c))
            .map(|c| match *c {
                "speed" => Column::Speed,
                "goal" => Column::Goal,
                "formation" => Column::Formation,
                _ => Column::Radius,
            })
            .collect();
        Ok(Scene {
            name: name.to_string(),
            frame_rate,
            bounds,
            walkable,
            labels: Labels {
                populations: trace.populations.clone(),
                modes: trace.states.clone(),
                goals: trace.goals.clone(),
            },
            columns,
        })
    }
}

/// Reads a walkable area's WKT (`POLYGON` or `MULTIPOLYGON`).
pub fn walkable_from_wkt(text: &str) -> Result<MultiPolygon<f64>, String> {
    use std::str::FromStr;
    let parsed = wkt::Wkt::<f64>::from_str(text).map_err(|e| format!("the walkable area is not WKT: {e}"))?;
    let geometry: geo::Geometry<f64> =
        parsed.try_into().map_err(|_| "the walkable area is not a polygon".to_string())?;
    match geometry {
        geo::Geometry::Polygon(p) => Ok(MultiPolygon(vec![p])),
        geo::Geometry::MultiPolygon(m) => Ok(m),
        _ => Err("the walkable area is not a polygon".into()),
    }
}

/// A format's writer: the frames, in order, then [`Sink::finish`].
pub trait Sink: Recorder {
    /// Writes what remains; the data rows written in all.
    fn finish(&mut self) -> io::Result<u64>;
}

/// Feeds a trace read back to `sink`, frame by frame (an empty frame for a
/// frame without rows); the caller finishes it.
pub fn replay(trace: &Trace, sink: &mut dyn Sink) -> io::Result<()> {
    let rows = trace.id.len();
    let zeros = vec![0.0; rows];
    let radius = trace.radius.as_deref().unwrap_or(&zeros);
    let formation = if trace.formation.len() == rows { trace.formation.clone() } else { vec![NONE; rows] };
    for (k, f) in trace.frames.iter().enumerate() {
        let r = f.rows.clone();
        let view = FrameView {
            frame: k as u64,
            t: f.t,
            id: &trace.id[r.clone()],
            pos: &trace.pos[r.clone()],
            vel: &trace.vel[r.clone()],
            ori: &trace.ori[r.clone()],
            population: &trace.population[r.clone()],
            group: &trace.group[r.clone()],
            mode: &trace.state[r.clone()],
            goal: &trace.goal[r.clone()],
            radius: &radius[r.clone()],
            formation: &formation[r],
            vars: &[],
            var_stride: 0,
        };
        sink.record(&view)?;
    }
    Ok(())
}

/// Writes a file of `format` (not CSV) at `path`, atomically: `feed` gives
/// the sink its frames; returns the data rows written.
pub fn write_file<E: From<io::Error>>(
    format: Format,
    path: &Path,
    scene: &Scene,
    feed: impl FnOnce(&mut dyn Sink) -> Result<(), E>,
) -> Result<u64, E> {
    let mut rows = 0;
    match format {
        Format::Sqlite => crate::trace::write_atomic_path(path, |tmp| -> Result<(), E> {
            let mut sink = sqlite::SqliteSink::create(tmp, scene)?;
            feed(&mut sink)?;
            rows = sink.finish()?;
            Ok(())
        })?,
        Format::Usd => crate::trace::write_atomic_with(path, |w| -> Result<(), E> {
            let mut sink = usd::UsdSink::new(w, scene);
            feed(&mut sink)?;
            rows = sink.finish()?;
            Ok(())
        })?,
        #[cfg(feature = "parquet")]
        Format::Parquet => crate::trace::write_atomic_with(path, |w| -> Result<(), E> {
            let mut sink = parquet::ParquetSink::new(w, scene)?;
            feed(&mut sink)?;
            rows = sink.finish()?;
            Ok(())
        })?,
        #[cfg(not(feature = "parquet"))]
        Format::Parquet => return Err(io::Error::other(format.unavailable().unwrap_or_default()).into()),
        Format::Csv => {
            return Err(io::Error::other("a CSV trace is written by trace::csv, not as an export").into());
        }
    }
    Ok(rows)
}
