//! Reading a CSV trace back: raw rows for golden comparison, typed columns
//! for metrics.
//!
//! Invariant: a [`Recorded`] trace has its rows in (frame, id) order and one
//! [`FrameSpan`] per recorded frame, frames numbered from 0 without gaps
//! (a frame without agents has an empty span).

use std::ops::Range;

use crate::ir::{Program, Vec2};

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
    pub id: Vec<u32>,
    pub pos: Vec<Vec2>,
    pub vel: Vec<Vec2>,
    /// Population index in the program (`u32::MAX` for a name the program lacks).
    pub population: Vec<u32>,
    pub group: Vec<Option<u32>>,
}

impl Recorded {
    /// Reads a trace written for `program` (population names are looked up in it).
    pub fn parse(bytes: &[u8], program: &Program) -> Result<Recorded, String> {
        let table = Table::parse(bytes)?;
        let col = |name: &str| table.column(name).ok_or_else(|| format!("the trace has no `{name}` column"));
        let (c_id, c_frame, c_t) = (col("id")?, col("frame")?, col("t")?);
        let (c_x, c_y, c_vx, c_vy) = (col("x")?, col("y")?, col("vx")?, col("vy")?);
        let (c_pop, c_group) = (col("population")?, col("group")?);
        let mut out = Recorded::default();
        let h = &program.header;
        // Frames without agents have no rows: their time comes from the header.
        let frame_t = |k: u64| k as f64 * f64::from(h.record_every.max(1)) * h.dt;
        let expected_frames = h.steps() / u64::from(h.record_every.max(1)) + 1;
        for (k, row) in table.rows.iter().enumerate() {
            let line = k + 2;
            let field = |c: usize| row.get(c).map(String::as_str).unwrap_or("");
            let num = |c: usize| -> Result<f64, String> {
                field(c)
                    .parse::<f64>()
                    .map_err(|_| format!("line {line}: `{}` is not a number ({})", field(c), table.header[c]))
            };
            let int = |c: usize| -> Result<u64, String> {
                field(c)
                    .parse::<u64>()
                    .map_err(|_| format!("line {line}: `{}` is not a whole number ({})", field(c), table.header[c]))
            };
            let frame = int(c_frame)?;
            let t = num(c_t)?;
            while out.frames.len() as u64 <= frame {
                let start = out.id.len();
                out.frames.push(FrameSpan { t: frame_t(out.frames.len() as u64), rows: start..start });
            }
            if frame + 1 != out.frames.len() as u64 {
                return Err(format!("line {line}: frame {frame} comes after frame {}", out.frames.len() - 1));
            }
            let id = int(c_id)?;
            let id = u32::try_from(id).map_err(|_| format!("line {line}: id {id} is too large"))?;
            if out.frames[frame as usize].rows.end > out.frames[frame as usize].rows.start
                && out.id.last().is_some_and(|&last| last >= id)
            {
                return Err(format!("line {line}: id {id} is out of order within frame {frame}"));
            }
            out.id.push(id);
            out.pos.push(Vec2::new(num(c_x)?, num(c_y)?));
            out.vel.push(Vec2::new(num(c_vx)?, num(c_vy)?));
            let name = field(c_pop);
            out.population.push(program.populations.iter().position(|p| p.name == name).map_or(u32::MAX, |p| p as u32));
            out.group.push(match field(c_group) {
                "" => None,
                g => Some(g.parse::<u32>().map_err(|_| format!("line {line}: group `{g}` is not a whole number"))?),
            });
            let f = &mut out.frames[frame as usize];
            f.t = t;
            f.rows.end = out.id.len();
        }
        while (out.frames.len() as u64) < expected_frames {
            let end = out.id.len();
            out.frames.push(FrameSpan { t: frame_t(out.frames.len() as u64), rows: end..end });
        }
        Ok(out)
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
