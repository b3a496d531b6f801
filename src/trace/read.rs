//! Reading a CSV trace back: raw rows for golden comparison, typed columns
//! for metrics.
//!
//! Invariant: a [`Recorded`] trace has its rows in (frame, id) order and one
//! [`FrameSpan`] per recorded frame, frames numbered from 0 without gaps
//! (a frame without agents has an empty span).

use std::ops::Range;

use super::frame::NONE;
use super::measure::Trace;
use crate::ir::Program;

/// A parsed CSV: the header and the data rows as text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn parse(bytes: &[u8]) -> Result<Table, String> {
        let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(bytes);
        let header =
            reader.headers().map_err(|e| format!("cannot read the header: {e}"))?.iter().map(String::from).collect();
        let mut rows = Vec::new();
        for (k, r) in reader.records().enumerate() {
            let r = r.map_err(|e| format!("cannot read row {}: {e}", k + 1))?;
            rows.push(r.iter().map(String::from).collect());
        }
        Ok(Table { header, rows })
    }

    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// One recorded frame's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameSpan {
    pub t: f64,
    pub rows: Range<usize>,
}

/// A trace as typed columns, for metrics.
#[derive(Clone, Debug, Default)]
pub struct Recorded {
    pub frames: Vec<FrameSpan>,
    /// Population index in the program (`u32::MAX` for a name the program lacks).
    pub population: Vec<u32>,
    pub group: Vec<Option<u32>>,
    /// The `formation` column, by row (`None`: empty, or no such column).
    pub formation: Vec<Option<crate::ir::FormationKind>>,
    /// The `goal` column, by row: an index into `goals` or `None` for an
    /// empty cell; `None` altogether when the trace has no such column.
    pub goal: Option<Vec<Option<u32>>>,
    /// The trace as read, rows in the same order: ids, positions,
    /// velocities, radii and goal names by row, and what the measurements
    /// of `crowd metrics` (trips, stuck agents, collisions) take, so claims
    /// about them are evaluated by the same code.
    pub trace: Trace,
}

impl Recorded {
    /// Reads a trace written for `program` (population names are looked up in
    /// it). The CSV is read by [`Trace`], the one trace reader.
    pub fn parse(bytes: &[u8], program: &Program) -> Result<Recorded, String> {
        let trace = Trace::parse_allowing_empty(bytes)?;
        for name in ["vx", "vy", "population", "group"] {
            if !trace.has_column(name) {
                return Err(format!("the trace has no `{name}` column"));
            }
        }
        Ok(Recorded::from_trace(trace, program))
    }

    /// The columns of `trace` that metrics need, populations as indices into
    /// `program` (`u32::MAX` for a name it lacks), and frames up to the end of
    /// the run `program` describes.
    pub fn from_trace(trace: Trace, program: &Program) -> Recorded {
        let h = &program.header;
        // Frames without agents have no rows: their time comes from the header.
        let frame_t = |k: u64| k as f64 * f64::from(h.record_every.max(1)) * h.dt;
        let expected_frames = h.steps() / u64::from(h.record_every.max(1)) + 1;
        let index: Vec<u32> = trace
            .populations
            .iter()
            .map(|name| program.populations.iter().position(|p| &p.name == name).map_or(u32::MAX, |p| p as u32))
            .collect();
        let mut frames: Vec<FrameSpan> = trace
            .frames
            .iter()
            .enumerate()
            .map(|(k, f)| FrameSpan {
                t: if f.rows.is_empty() { frame_t(k as u64) } else { f.t },
                rows: f.rows.clone(),
            })
            .collect();
        while (frames.len() as u64) < expected_frames {
            let end = trace.id.len();
            frames.push(FrameSpan { t: frame_t(frames.len() as u64), rows: end..end });
        }
        Recorded {
            frames,
            population: trace.population.iter().map(|&p| index[p as usize]).collect(),
            group: trace.group.iter().map(|&g| (g != NONE).then_some(g)).collect(),
            formation: trace.formation.iter().map(|&k| crate::ir::FormationKind::from_index(k)).collect(),
            goal: trace.has_column("goal").then(|| trace.goal.iter().map(|&g| (g != NONE).then_some(g)).collect()),
            trace,
        }
    }

    /// The last frame recorded at or before `t` (s), if the run got that far.
    pub fn frame_at(&self, t: f64) -> Option<&FrameSpan> {
        let last = self.frames.last()?;
        if t > last.t + 1e-9 {
            return None;
        }
        self.frames.iter().rev().find(|f| f.t <= t + 1e-9).or(self.frames.first())
    }
}
