//! Parquet: the trace's columns with their types, in the CSV header's names
//! and order (`trace::csv::BASE_COLUMNS`, then the scene's optional
//! columns), one row per agent per recorded frame.
//!
//! Owns the mapping from a frame's columns to typed Parquet columns: ids,
//! frames and groups as unsigned integers, numbers as doubles, labels as
//! dictionary-encoded UTF-8 strings, and a null wherever the CSV leaves a
//! cell empty (no group, no goal, no formation, a var the agent's behaviour
//! lacks). The scenario's name and frame rate go in the file's key-value
//! metadata (`crowd.scenario`, `crowd.frame_rate`).
//!
//! Rows are buffered a frame at a time and written as a row group once
//! about [`ROW_GROUP_ROWS`] have gathered, so memory stays bounded however
//! long the run. The same frames make the same bytes: the file holds no
//! time, and the writer's `created_by` names only the crate's version.

use std::io::{self, Write};
use std::sync::Arc;

use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::{ColumnPath, Type};

use super::{Scene, Sink};
use crate::ir::{Column, FormationKind};
use crate::trace::csv::BASE_COLUMNS;
use crate::trace::frame::{FrameView, Recorder, NONE};

/// Rows gathered before a row group is written (whole frames, so a group
/// may hold a frame's worth more): large groups read fast, and at ~100
/// bytes a buffered row this holds about 100 MB.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Label cells turned into strings at a time when a column is written, so
/// the strings of a whole row group are never held at once.
const TEXT_BATCH: usize = 1 << 16;

/// Writes the frames it is fed to `out` as rows, row group by row group;
/// [`Sink::finish`] writes the last group and the footer.
pub struct ParquetSink<'w> {
    writer: SerializedFileWriter<&'w mut (dyn Write + Send)>,
    columns: Vec<Buffered>,
    /// Rows in the columns' buffers, not yet written.
    buffered: usize,
    /// Rows gathered before a row group is written ([`ROW_GROUP_ROWS`]).
    group_rows: usize,
    rows: u64,
}

/// Where a column's cells come from in a frame.
enum Source {
    Id,
    Frame,
    T,
    X,
    Y,
    Vx,
    Vy,
    OriX,
    OriY,
    Population,
    Group,
    State,
    Speed,
    Goal,
    Formation,
    Radius,
    /// A var's slot in the frame's `vars`, by population (see [`Column::Var`]).
    Var(Vec<u32>),
}

/// A column's cells not yet written, as Parquet's physical types hold them.
enum Cells {
    /// Unsigned values, stored in the signed type of their width (the
    /// logical type says to read them back unsigned).
    U32(Vec<i32>),
    U64(Vec<i64>),
    F64(Vec<f64>),
    /// A nullable column: the values of the rows that have one, and every
    /// row's definition level (0 null, 1 a value).
    OptU32 {
        values: Vec<i32>,
        defs: Vec<i16>,
    },
    OptF64 {
        values: Vec<f64>,
        defs: Vec<i16>,
    },
    /// Labels as indices into `names`; [`NONE`] is a null (only in an
    /// optional column).
    Text {
        names: Vec<ByteArray>,
        cells: Vec<u32>,
        optional: bool,
    },
}

struct Buffered {
    source: Source,
    cells: Cells,
}

fn parquet_error(e: ParquetError) -> io::Error {
    io::Error::other(format!("Parquet: {e}"))
}

/// The CSV writes `-0` as `0`, so that a zero's sign never depends on how it
/// was computed; adding `+0.0` does the same to the stored double.
fn number(x: f64) -> f64 {
    x + 0.0
}

impl<'w> ParquetSink<'w> {
    /// Starts the file (its leading magic bytes) on `out`.
    pub fn new(out: &'w mut (dyn Write + Send), scene: &Scene) -> io::Result<ParquetSink<'w>> {
        let columns = columns(scene);
        let names: Vec<String> = BASE_COLUMNS
            .iter()
            .map(|s| s.to_string())
            .chain(scene.columns.iter().map(|c| c.header().to_string()))
            .collect();
        let fields = names
            .iter()
            .zip(&columns)
            .map(|(name, c)| c.field(name).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()
            .map_err(parquet_error)?;
        let schema = Type::group_type_builder("crowd_trace").with_fields(fields).build().map_err(parquet_error)?;
        let mut props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            // Dictionaries pay for the columns with few distinct values; the
            // positions and velocities would only overflow theirs and fall back.
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_key_value_metadata(Some(vec![
                KeyValue::new("crowd.scenario".into(), scene.name.clone()),
                KeyValue::new("crowd.frame_rate".into(), crate::trace::float::format_f64(scene.frame_rate)),
            ]));
        for (name, c) in names.iter().zip(&columns) {
            if c.few_distinct() {
                props = props.set_column_dictionary_enabled(ColumnPath::new(vec![name.clone()]), true);
            }
        }
        let writer =
            SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props.build())).map_err(parquet_error)?;
        Ok(ParquetSink { writer, columns, buffered: 0, group_rows: ROW_GROUP_ROWS, rows: 0 })
    }

    /// Writes the buffered rows as one row group.
    fn flush(&mut self) -> io::Result<()> {
        if self.buffered == 0 {
            return Ok(());
        }
        let mut group = self.writer.next_row_group().map_err(parquet_error)?;
        for c in &mut self.columns {
            let Some(mut column) = group.next_column().map_err(parquet_error)? else {
                unreachable!("the schema has a column per buffer")
            };
            c.cells.write(&mut column).map_err(parquet_error)?;
            column.close().map_err(parquet_error)?;
            c.cells.clear();
        }
        group.close().map_err(parquet_error)?;
        self.buffered = 0;
        Ok(())
    }
}

/// The buffers of the scene's columns, in the CSV header's order.
fn columns(scene: &Scene) -> Vec<Buffered> {
    let bytes = |v: &[String]| v.iter().map(|s| ByteArray::from(s.as_str())).collect::<Vec<_>>();
    let text = |names: Vec<ByteArray>, optional: bool| {
        let mut names = names;
        if !optional {
            names.push(ByteArray::from(""));
        }
        Cells::Text { names, cells: Vec::new(), optional }
    };
    let f64s = || Cells::F64(Vec::new());
    let labels = &scene.labels;
    let mut out = vec![
        (Source::Id, Cells::U32(Vec::new())),
        (Source::Frame, Cells::U64(Vec::new())),
        (Source::T, f64s()),
        (Source::X, f64s()),
        (Source::Y, f64s()),
        (Source::Vx, f64s()),
        (Source::Vy, f64s()),
        (Source::OriX, f64s()),
        (Source::OriY, f64s()),
        (Source::Population, text(bytes(&labels.populations), false)),
        (Source::Group, Cells::OptU32 { values: Vec::new(), defs: Vec::new() }),
        (Source::State, text(bytes(&labels.modes), false)),
    ];
    for c in &scene.columns {
        out.push(match c {
            Column::Speed => (Source::Speed, f64s()),
            Column::Goal => (Source::Goal, text(bytes(&labels.goals), true)),
            Column::Formation => {
                let names = FormationKind::ALL.iter().map(|k| ByteArray::from(k.name())).collect();
                (Source::Formation, text(names, true))
            }
            Column::Radius => (Source::Radius, f64s()),
            Column::Var { slots, .. } => {
                (Source::Var(slots.clone()), Cells::OptF64 { values: Vec::new(), defs: Vec::new() })
            }
        });
    }
    out.into_iter().map(|(source, cells)| Buffered { source, cells }).collect()
}

impl Buffered {
    /// The column's field in the schema.
    fn field(&self, name: &str) -> Result<Type, ParquetError> {
        let (physical, logical, repetition) = match &self.cells {
            Cells::U32(_) => (PhysicalType::INT32, Some(LogicalType::integer(32, false)), Repetition::REQUIRED),
            Cells::U64(_) => (PhysicalType::INT64, Some(LogicalType::integer(64, false)), Repetition::REQUIRED),
            Cells::F64(_) => (PhysicalType::DOUBLE, None, Repetition::REQUIRED),
            Cells::OptU32 { .. } => (PhysicalType::INT32, Some(LogicalType::integer(32, false)), Repetition::OPTIONAL),
            Cells::OptF64 { .. } => (PhysicalType::DOUBLE, None, Repetition::OPTIONAL),
            Cells::Text { optional, .. } => (
                PhysicalType::BYTE_ARRAY,
                Some(LogicalType::String),
                if *optional { Repetition::OPTIONAL } else { Repetition::REQUIRED },
            ),
        };
        Type::primitive_type_builder(name, physical).with_repetition(repetition).with_logical_type(logical).build()
    }

    /// Whether the column takes few values (labels, numbers shared by a
    /// frame or fixed for an agent), so a dictionary shrinks it.
    fn few_distinct(&self) -> bool {
        matches!(
            self.source,
            Source::Id
                | Source::Frame
                | Source::T
                | Source::Population
                | Source::Group
                | Source::State
                | Source::Goal
                | Source::Formation
                | Source::Radius
        )
    }

    /// Appends the frame's cells of this column.
    fn push(&mut self, f: &FrameView<'_>) {
        let n = f.len();
        match (&self.source, &mut self.cells) {
            (Source::Id, Cells::U32(v)) => v.extend(f.id.iter().map(|&i| i as i32)),
            (Source::Frame, Cells::U64(v)) => v.extend(std::iter::repeat_n(f.frame as i64, n)),
            (Source::T, Cells::F64(v)) => v.extend(std::iter::repeat_n(number(f.t), n)),
            (Source::X, Cells::F64(v)) => v.extend(f.pos.iter().map(|p| number(p.x))),
            (Source::Y, Cells::F64(v)) => v.extend(f.pos.iter().map(|p| number(p.y))),
            (Source::Vx, Cells::F64(v)) => v.extend(f.vel.iter().map(|p| number(p.x))),
            (Source::Vy, Cells::F64(v)) => v.extend(f.vel.iter().map(|p| number(p.y))),
            (Source::OriX, Cells::F64(v)) => v.extend(f.ori.iter().map(|p| number(p.x))),
            (Source::OriY, Cells::F64(v)) => v.extend(f.ori.iter().map(|p| number(p.y))),
            (Source::Speed, Cells::F64(v)) => v.extend(f.vel.iter().map(|p| number(p.length()))),
            (Source::Radius, Cells::F64(v)) => v.extend(f.radius.iter().map(|&r| number(r))),
            (Source::Group, Cells::OptU32 { values, defs }) => {
                for &g in f.group {
                    defs.push(i16::from(g != NONE));
                    if g != NONE {
                        values.push(g as i32);
                    }
                }
            }
            (
                Source::Population | Source::State | Source::Goal | Source::Formation,
                Cells::Text { names, cells, optional },
            ) => {
                let labels = match self.source {
                    Source::Population => f.population,
                    Source::State => f.mode,
                    Source::Goal => f.goal,
                    _ => f.formation,
                };
                // An unknown label (or none) is a null where the column may
                // hold one, else the empty string, the table's last name: the
                // CSV leaves such a cell empty.
                let known = names.len() - usize::from(!*optional);
                let other = if *optional { NONE } else { known as u32 };
                cells.extend(labels.iter().map(|&l| if (l as usize) < known { l } else { other }));
            }
            (Source::Var(slots), Cells::OptF64 { values, defs }) => {
                for i in 0..n {
                    let slot = slots.get(f.population[i] as usize).copied().unwrap_or(NONE);
                    defs.push(i16::from(slot != NONE));
                    if slot != NONE {
                        values.push(number(f.vars[i * f.var_stride + slot as usize]));
                    }
                }
            }
            _ => unreachable!("a column's cells are of its source's type"),
        }
    }
}

impl Cells {
    fn write(&self, column: &mut SerializedColumnWriter<'_>) -> Result<(), ParquetError> {
        match self {
            Cells::U32(v) => column.typed::<Int32Type>().write_batch(v, None, None).map(drop),
            Cells::U64(v) => column.typed::<Int64Type>().write_batch(v, None, None).map(drop),
            Cells::F64(v) => column.typed::<DoubleType>().write_batch(v, None, None).map(drop),
            Cells::OptU32 { values, defs } => {
                column.typed::<Int32Type>().write_batch(values, Some(defs), None).map(drop)
            }
            Cells::OptF64 { values, defs } => {
                column.typed::<DoubleType>().write_batch(values, Some(defs), None).map(drop)
            }
            Cells::Text { names, cells, optional } => {
                let writer = column.typed::<ByteArrayType>();
                let (mut values, mut defs) = (Vec::with_capacity(TEXT_BATCH), Vec::with_capacity(TEXT_BATCH));
                for chunk in cells.chunks(TEXT_BATCH) {
                    values.clear();
                    defs.clear();
                    for &c in chunk {
                        let name = names.get(c as usize);
                        defs.push(i16::from(name.is_some()));
                        values.extend(name.cloned());
                    }
                    writer.write_batch(&values, optional.then_some(&defs[..]), None)?;
                }
                Ok(())
            }
        }
    }

    fn clear(&mut self) {
        match self {
            Cells::U32(v) => v.clear(),
            Cells::U64(v) => v.clear(),
            Cells::F64(v) => v.clear(),
            Cells::OptU32 { values, defs } => {
                values.clear();
                defs.clear();
            }
            Cells::OptF64 { values, defs } => {
                values.clear();
                defs.clear();
            }
            Cells::Text { cells, .. } => cells.clear(),
        }
    }
}

impl Recorder for ParquetSink<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        for c in &mut self.columns {
            c.push(frame);
        }
        self.buffered += frame.len();
        self.rows += frame.len() as u64;
        if self.buffered >= self.group_rows {
            self.flush()?;
        }
        Ok(())
    }
}

impl Sink for ParquetSink<'_> {
    fn finish(&mut self) -> io::Result<u64> {
        self.flush()?;
        self.writer.finish().map_err(parquet_error)?;
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    use super::*;
    use crate::ir::{Rect, Vec2};
    use crate::trace::frame::{Frame, Labels};

    fn scene() -> Scene {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Scene {
            name: "test".into(),
            frame_rate: 2.5,
            bounds: Rect { min: Vec2::ZERO, max: Vec2::new(10.0, 10.0) },
            walkable: geo::MultiPolygon(vec![]),
            labels: Labels {
                populations: names(&["a", "b,c"]),
                modes: names(&["walk", "idle"]),
                goals: names(&["door", "(1 2)"]),
            },
            columns: vec![
                Column::Speed,
                Column::Goal,
                Column::Formation,
                Column::Radius,
                // The first population's only.
                Column::Var { name: "fear".into(), slots: vec![0, NONE] },
            ],
        }
    }

    /// `count` frames of three agents; the second has no group, goal nor
    /// formation, and is of the population without the var.
    fn frames(count: usize) -> Vec<Frame> {
        (0..count)
            .map(|f| {
                let k = f as f64;
                Frame {
                    frame: f as u64,
                    t: k / 2.5,
                    id: vec![1, 4, u32::MAX - 1],
                    pos: vec![Vec2::new(k, -0.0), Vec2::new(0.1 + 0.2, 1e-300), Vec2::new(-3.5, 7.0)],
                    vel: vec![Vec2::new(3.0, 4.0), Vec2::ZERO, Vec2::new(-1.0, 0.5)],
                    ori: vec![Vec2::X, Vec2::Y, Vec2::NEG_X],
                    population: vec![0, 1, 0],
                    group: vec![7, NONE, 7],
                    mode: vec![0, 1, 0],
                    goal: vec![1, NONE, 0],
                    radius: vec![0.25, 0.3, 0.2],
                    formation: vec![2, NONE, 0],
                    vars: vec![0.5, 9.0, k],
                    var_stride: 1,
                }
            })
            .collect()
    }

    /// The file the sink makes of `frames`, with row groups of `group_rows`.
    fn write(frames: &[Frame], group_rows: usize) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut sink = ParquetSink::new(&mut out, &scene()).unwrap();
            sink.group_rows = group_rows;
            for f in frames {
                sink.record(&f.view()).unwrap();
            }
            assert_eq!(sink.finish().unwrap(), 3 * frames.len() as u64);
        }
        out
    }

    #[test]
    fn the_rows_read_back() {
        let bytes = write(&frames(5), 4);
        let reader = SerializedFileReader::new(Bytes::from(bytes)).unwrap();
        let meta = reader.metadata().file_metadata();
        assert_eq!(meta.num_rows(), 15);
        // Whole frames in a group: two of three rows each, then one.
        let groups: Vec<i64> = reader.metadata().row_groups().iter().map(|g| g.num_rows()).collect();
        assert_eq!(groups, [6, 6, 3]);
        let kv: Vec<(&str, Option<&str>)> =
            meta.key_value_metadata().unwrap().iter().map(|kv| (kv.key.as_str(), kv.value.as_deref())).collect();
        assert_eq!(kv, [("crowd.scenario", Some("test")), ("crowd.frame_rate", Some("2.5"))]);
        let names: Vec<&str> = meta.schema_descr().columns().iter().map(|c| c.name()).collect();
        let mut header = BASE_COLUMNS.to_vec();
        header.extend(["speed", "goal", "formation", "radius", "fear"]);
        assert_eq!(names, header);

        let rows: Vec<_> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 15);
        let (first, second, third) = (&rows[12], &rows[13], &rows[14]);
        assert_eq!(first.get_uint(0).unwrap(), 1);
        assert_eq!(third.get_uint(0).unwrap(), u32::MAX - 1);
        assert_eq!(first.get_ulong(1).unwrap(), 4);
        assert_eq!(first.get_double(2).unwrap(), 4.0 / 2.5);
        assert_eq!(first.get_double(3).unwrap(), 4.0);
        // -0 is stored as 0, as the CSV writes it.
        assert_eq!(first.get_double(4).unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(second.get_double(3).unwrap(), 0.1 + 0.2);
        assert_eq!(second.get_double(4).unwrap(), 1e-300);
        assert_eq!(second.get_string(9).unwrap(), "b,c");
        assert_eq!(first.get_uint(10).unwrap(), 7);
        assert!(second.is_null(10).unwrap());
        assert_eq!(second.get_string(11).unwrap(), "idle");
        assert_eq!(first.get_double(12).unwrap(), 5.0);
        assert_eq!(first.get_string(13).unwrap(), "(1 2)");
        assert!(second.is_null(13).unwrap());
        assert_eq!(first.get_string(14).unwrap(), "river");
        assert_eq!(third.get_string(14).unwrap(), "side_by_side");
        assert!(second.is_null(14).unwrap());
        assert_eq!(second.get_double(15).unwrap(), 0.3);
        assert_eq!(first.get_double(16).unwrap(), 0.5);
        assert_eq!(third.get_double(16).unwrap(), 4.0);
        assert!(second.is_null(16).unwrap());
    }

    #[test]
    fn the_same_frames_make_the_same_bytes() {
        let frames = frames(7);
        assert!(write(&frames, 5) == write(&frames, 5));
    }

    #[test]
    fn no_frames_make_an_empty_table() {
        let reader = SerializedFileReader::new(Bytes::from(write(&[], 4))).unwrap();
        assert_eq!(reader.metadata().file_metadata().num_rows(), 0);
        assert_eq!(reader.metadata().num_row_groups(), 0);
    }
}
