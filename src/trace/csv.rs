//! The CSV trace writer: streams rows frame by frame to any `Write`.
//!
//! Invariants: the header is written once, first; a frame's rows are written
//! in the frame's (id) order, so rows are sorted by (frame, id) as long as
//! frames arrive in order; large frames are formatted in parallel chunks that
//! are written in chunk order, so the bytes never depend on the thread count.

use std::io::{self, Write};

use rayon::prelude::*;

use super::float::write_f64;
use super::frame::{FrameView, Labels, Recorder, NONE};
use crate::ir::Column;

/// The fixed leading columns of every trace.
pub const BASE_COLUMNS: [&str; 12] =
    ["id", "frame", "t", "x", "y", "vx", "vy", "ori_x", "ori_y", "population", "group", "state"];

/// Rows formatted by one parallel task.
const CHUNK_ROWS: usize = 1024;

/// The header row (without the line break) for these optional columns.
pub fn header(columns: &[Column]) -> String {
    let mut names: Vec<&str> = BASE_COLUMNS.to_vec();
    names.extend(columns.iter().map(|c| c.header()));
    names.join(",")
}

pub struct CsvWriter<'w> {
    out: &'w mut dyn Write,
    format: RowFormat,
    chunks: Vec<Vec<u8>>,
    rows: u64,
}

/// Everything needed to turn a frame's rows into text (shared by the formatting tasks).
struct RowFormat {
    populations: Vec<Vec<u8>>,
    modes: Vec<Vec<u8>>,
    goals: Vec<Vec<u8>>,
    columns: Vec<Column>,
    precision: Option<u8>,
}

impl<'w> CsvWriter<'w> {
    /// Writes the header and returns a writer for the frames.
    pub fn new(out: &'w mut dyn Write, labels: &Labels, columns: &[Column], precision: Option<u8>) -> io::Result<Self> {
        out.write_all(header(columns).as_bytes())?;
        out.write_all(b"\n")?;
        let escape_all = |v: &[String]| v.iter().map(|s| escape(s).into_bytes()).collect();
        Ok(CsvWriter {
            out,
            format: RowFormat {
                populations: escape_all(&labels.populations),
                modes: escape_all(&labels.modes),
                goals: escape_all(&labels.goals),
                columns: columns.to_vec(),
                precision,
            },
            chunks: Vec::new(),
            rows: 0,
        })
    }

    /// Data rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }
}

impl RowFormat {
    fn format_rows(&self, buf: &mut Vec<u8>, frame: &FrameView<'_>, prefix: &[u8], range: std::ops::Range<usize>) {
        let p = self.precision;
        let mut ints = itoa::Buffer::new();
        buf.reserve(range.len() * 160);
        for i in range {
            buf.extend_from_slice(ints.format(frame.id[i]).as_bytes());
            buf.extend_from_slice(prefix);
            let (pos, vel, ori) = (frame.pos[i], frame.vel[i], frame.ori[i]);
            for v in [pos.x, pos.y, vel.x, vel.y, ori.x, ori.y] {
                write_f64(buf, v, p);
                buf.push(b',');
            }
            buf.extend_from_slice(label(&self.populations, frame.population[i]));
            buf.push(b',');
            if frame.group[i] != NONE {
                buf.extend_from_slice(ints.format(frame.group[i]).as_bytes());
            }
            buf.push(b',');
            buf.extend_from_slice(label(&self.modes, frame.mode[i]));
            for c in &self.columns {
                buf.push(b',');
                match c {
                    Column::Speed => {
                        write_f64(buf, vel.length(), p);
                    }
                    Column::Goal => buf.extend_from_slice(label(&self.goals, frame.goal[i])),
                    Column::Formation => {
                        let names = super::frame::FORMATION_NAMES;
                        if let Some(name) = names.get(frame.formation[i] as usize) {
                            buf.extend_from_slice(name.as_bytes());
                        }
                    }
                    Column::Radius => write_f64(buf, frame.radius[i], p),
                }
            }
            buf.push(b'\n');
        }
    }
}

fn label(table: &[Vec<u8>], i: u32) -> &[u8] {
    if i == NONE {
        return b"";
    }
    table.get(i as usize).map_or(b"", Vec::as_slice)
}

/// RFC 4180 quoting for a text field, only when it needs it.
pub fn escape(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl Recorder for CsvWriter<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        let n = frame.len();
        let mut prefix = vec![b','];
        prefix.extend_from_slice(itoa::Buffer::new().format(frame.frame).as_bytes());
        prefix.push(b',');
        write_f64(&mut prefix, frame.t, self.format.precision);
        prefix.push(b',');
        let n_chunks = n.div_ceil(CHUNK_ROWS);
        let mut chunks = std::mem::take(&mut self.chunks);
        if chunks.len() < n_chunks {
            chunks.resize_with(n_chunks, Vec::new);
        }
        let this = &self.format;
        if n_chunks <= 1 {
            if let Some(buf) = chunks.first_mut() {
                buf.clear();
                this.format_rows(buf, frame, &prefix, 0..n);
            }
        } else {
            chunks[..n_chunks].par_iter_mut().enumerate().for_each(|(c, buf)| {
                buf.clear();
                this.format_rows(buf, frame, &prefix, c * CHUNK_ROWS..((c + 1) * CHUNK_ROWS).min(n));
            });
        }
        let result = chunks[..n_chunks].iter().try_for_each(|buf| self.out.write_all(buf));
        self.chunks = chunks;
        self.rows += n as u64;
        result
    }
}
