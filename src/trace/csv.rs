//! The CSV trace writer: streams rows frame by frame to any `Write`.
//!
//! Invariants: the header is written once, first; a frame's rows are written
//! in the frame's (id) order, so rows are sorted by (frame, id) as long as
//! frames arrive in order; large frames are formatted in parallel chunks that
//! are written in chunk order, so the bytes never depend on the thread count.
//! [`record_in_background`] writes the same bytes from a second thread, which
//! takes frames in order from a queue; [`record_to`] uses it only when the
//! thread pool leaves a core for that thread.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, PoisonError};

use rayon::prelude::*;

use super::float::{append, write_f64};
use super::frame::{Frame, FrameView, Labels, Recorder, NONE};
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
    text: FrameText,
    rows: u64,
}

/// Turns frames into text, chunk by chunk, reusing its buffers.
struct FrameText {
    format: RowFormat,
    chunks: Vec<Vec<u8>>,
    prefix: Vec<u8>,
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
        Ok(CsvWriter { out, text: FrameText::new(labels, columns, precision), rows: 0 })
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
            append(buf, ints.format(frame.id[i]).as_bytes());
            append(buf, prefix);
            let (pos, vel, ori) = (frame.pos[i], frame.vel[i], frame.ori[i]);
            for v in [pos.x, pos.y, vel.x, vel.y, ori.x, ori.y] {
                write_f64(buf, v, p);
                buf.push(b',');
            }
            append(buf, label(&self.populations, frame.population[i]));
            buf.push(b',');
            if frame.group[i] != NONE {
                append(buf, ints.format(frame.group[i]).as_bytes());
            }
            buf.push(b',');
            append(buf, label(&self.modes, frame.mode[i]));
            for c in &self.columns {
                buf.push(b',');
                match c {
                    Column::Speed => {
                        write_f64(buf, vel.length(), p);
                    }
                    Column::Goal => append(buf, label(&self.goals, frame.goal[i])),
                    Column::Formation => {
                        if let Some(k) = crate::ir::FormationKind::from_index(frame.formation[i]) {
                            append(buf, k.name().as_bytes());
                        }
                    }
                    Column::Radius => write_f64(buf, frame.radius[i], p),
                    Column::Var { slots, .. } => {
                        let slot = slots.get(frame.population[i] as usize).copied().unwrap_or(NONE);
                        if slot != NONE {
                            write_f64(buf, frame.vars[i * frame.var_stride + slot as usize], p);
                        }
                    }
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

impl FrameText {
    fn new(labels: &Labels, columns: &[Column], precision: Option<u8>) -> FrameText {
        let escape_all = |v: &[String]| v.iter().map(|s| escape(s).into_bytes()).collect();
        FrameText {
            format: RowFormat {
                populations: escape_all(&labels.populations),
                modes: escape_all(&labels.modes),
                goals: escape_all(&labels.goals),
                columns: columns.to_vec(),
                precision,
            },
            chunks: Vec::new(),
            prefix: Vec::new(),
        }
    }

    /// The frame's rows as consecutive chunks of text, formatted in parallel
    /// on the current thread pool when the frame is large.
    fn format(&mut self, frame: &FrameView<'_>) -> &[Vec<u8>] {
        let n = frame.len();
        write_prefix(&mut self.prefix, frame, self.format.precision);
        let n_chunks = n.div_ceil(CHUNK_ROWS);
        if self.chunks.len() < n_chunks {
            self.chunks.resize_with(n_chunks, Vec::new);
        }
        let (this, prefix) = (&self.format, &self.prefix);
        let one = |(c, buf): (usize, &mut Vec<u8>)| {
            buf.clear();
            this.format_rows(buf, frame, prefix, c * CHUNK_ROWS..((c + 1) * CHUNK_ROWS).min(n));
        };
        if n_chunks > 1 {
            self.chunks[..n_chunks].par_iter_mut().enumerate().for_each(one);
        } else {
            self.chunks[..n_chunks].iter_mut().enumerate().for_each(one);
        }
        &self.chunks[..n_chunks]
    }
}

impl Recorder for CsvWriter<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        let chunks = self.text.format(frame);
        self.rows += frame.len() as u64;
        chunks.iter().try_for_each(|buf| self.out.write_all(buf))
    }
}

/// Frames queued for the background writer beyond the one it works on:
/// enough to absorb a slow write, few enough to bound the memory held.
const QUEUE: usize = 2;

/// One frame on its way to the background writer: an owned copy and its
/// chunks of text. Whoever claims a chunk (the writer, or the simulation's
/// thread while it would otherwise wait) formats it; the writer writes the
/// chunks in order. A chunk's text depends only on the frame and the chunk's
/// index, so the bytes do not depend on who formatted what.
#[derive(Default)]
struct Job {
    frame: Frame,
    prefix: Vec<u8>,
    /// Chunks handed out so far.
    next: AtomicUsize,
    chunks: Vec<(Mutex<Vec<u8>>, AtomicBool)>,
}

impl Job {
    /// Makes this job (owned again) carry `view`.
    fn load(&mut self, view: &FrameView<'_>, precision: Option<u8>) {
        self.frame.copy_from(view);
        write_prefix(&mut self.prefix, view, precision);
        let n_chunks = view.len().div_ceil(CHUNK_ROWS);
        self.chunks.truncate(n_chunks);
        self.chunks.resize_with(n_chunks, Default::default);
        for (_, done) in &mut self.chunks {
            *done.get_mut() = false;
        }
        *self.next.get_mut() = 0;
    }

    /// Claims and formats chunks until none is left, calling `after_each`
    /// with the index of each one formatted.
    fn help(&self, format: &RowFormat, mut after_each: impl FnMut(usize)) {
        loop {
            let c = self.next.fetch_add(1, Ordering::Relaxed);
            let Some((text, done)) = self.chunks.get(c) else { return };
            {
                let mut buf = text.lock().unwrap_or_else(PoisonError::into_inner);
                buf.clear();
                let rows = c * CHUNK_ROWS..((c + 1) * CHUNK_ROWS).min(self.frame.id.len());
                format.format_rows(&mut buf, &self.frame.view(), &self.prefix, rows);
            }
            done.store(true, Ordering::Release);
            after_each(c);
        }
    }
}

/// The recorder of [`record_in_background`].
struct Queue<'a> {
    format: &'a RowFormat,
    to_writer: mpsc::SyncSender<Arc<Job>>,
    /// Jobs sent, oldest first; a job the writer has dropped is free again.
    sent: VecDeque<Arc<Job>>,
}

impl Recorder for Queue<'_> {
    fn record(&mut self, view: &FrameView<'_>) -> io::Result<()> {
        let free = match self.sent.front() {
            Some(job) if Arc::strong_count(job) == 1 => self.sent.pop_front(),
            _ => None,
        };
        let mut job = free.unwrap_or_default();
        match Arc::get_mut(&mut job) {
            Some(j) => j.load(view, self.format.precision),
            None => unreachable!("a free job has one owner"),
        }
        let stopped = || io::Error::other("the trace writer stopped");
        let job = match self.to_writer.try_send(Arc::clone(&job)) {
            Ok(()) => job,
            Err(mpsc::TrySendError::Disconnected(_)) => return Err(stopped()),
            Err(mpsc::TrySendError::Full(_)) => {
                // The writer is behind: format what it has not started
                // rather than wait, oldest first, then this frame, on every
                // thread of the pool (the simulation is waiting anyway).
                let (sent, format) = (&self.sent, self.format);
                (0..rayon::current_num_threads()).into_par_iter().for_each(|_| {
                    for queued in sent.iter().chain([&job]) {
                        queued.help(format, |_| {});
                    }
                });
                self.to_writer.send(Arc::clone(&job)).map_err(|_| stopped())?;
                job
            }
        };
        self.sent.push_back(job);
        Ok(())
    }
}

/// The line start shared by a frame's rows: `,frame,t,` (after the id).
fn write_prefix(prefix: &mut Vec<u8>, frame: &FrameView<'_>, precision: Option<u8>) {
    prefix.clear();
    prefix.push(b',');
    prefix.extend_from_slice(itoa::Buffer::new().format(frame.frame).as_bytes());
    prefix.push(b',');
    write_f64(prefix, frame.t, precision);
    prefix.push(b',');
}

/// Runs `f` with the recorder that suits the current thread pool, and
/// returns `f`'s result and the rows written: [`record_in_background`] while
/// the pool leaves a core free for the writer, else a [`CsvWriter`], which
/// formats on the pool's threads. With no core to spare, a writer thread
/// takes a core from under the pool in the middle of a step, and every
/// thread of the step then waits for the one it displaced. The bytes are
/// the same either way.
pub fn record_to<T, E: From<io::Error>>(
    out: &mut (dyn Write + Send),
    labels: &Labels,
    columns: &[Column],
    precision: Option<u8>,
    f: impl FnOnce(&mut dyn Recorder) -> Result<T, E>,
) -> Result<(T, u64), E> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if rayon::current_num_threads() < cores {
        return record_in_background(out, labels, columns, precision, f);
    }
    let mut csv = CsvWriter::new(out, labels, columns, precision)?;
    let t = f(&mut csv)?;
    Ok((t, csv.rows()))
}

/// Runs `f` with a recorder that writes the same CSV as [`CsvWriter`] to
/// `out`, but formats and writes on a second thread while `f` goes on (the
/// simulation computes the next frames meanwhile); when that thread falls
/// behind, the recording thread formats for it. Returns `f`'s result and the
/// rows written; a write error is returned in place of `f`'s result.
pub fn record_in_background<T, E: From<io::Error>>(
    out: &mut (dyn Write + Send),
    labels: &Labels,
    columns: &[Column],
    precision: Option<u8>,
    f: impl FnOnce(&mut dyn Recorder) -> Result<T, E>,
) -> Result<(T, u64), E> {
    out.write_all(header(columns).as_bytes())?;
    out.write_all(b"\n")?;
    let format = FrameText::new(labels, columns, precision).format;
    let (to_writer, jobs) = mpsc::sync_channel::<Arc<Job>>(QUEUE);
    std::thread::scope(|scope| {
        let format = &format;
        let writer = scope.spawn(move || -> io::Result<u64> {
            let mut rows = 0;
            for job in jobs {
                let mut written = 0;
                let mut write_ready = |upto: usize| -> io::Result<()> {
                    while written <= upto {
                        let (text, done) = &job.chunks[written];
                        // A chunk claimed by the other thread is being formatted now.
                        while !done.load(Ordering::Acquire) {
                            std::thread::yield_now();
                        }
                        out.write_all(&text.lock().unwrap_or_else(PoisonError::into_inner))?;
                        written += 1;
                    }
                    Ok(())
                };
                let mut result = Ok(());
                job.help(format, |c| {
                    if result.is_ok() {
                        result = write_ready(c);
                    }
                });
                result?;
                if let Some(last) = job.chunks.len().checked_sub(1) {
                    write_ready(last)?;
                }
                rows += job.frame.id.len() as u64;
            }
            Ok(rows)
        });
        let result = f(&mut Queue { format, to_writer, sent: VecDeque::new() });
        let written = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match (result, written) {
            (_, Err(e)) => Err(E::from(e)),
            (Err(e), Ok(_)) => Err(e),
            (Ok(t), Ok(rows)) => Ok((t, rows)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Vec2;

    /// Frames of `n` rows with awkward numbers and labels.
    fn frames(n: usize, count: usize) -> Vec<Frame> {
        let mut s = 7u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        // Large enough to test long numbers, small enough that a speed (a vector's length) stays finite.
        let special = [0.0, -0.0, 1e-7, -2.5e20, 0.1 + 0.2, 3.0, 1e150, 5e-324];
        (0..count)
            .map(|f| {
                let mut num = || {
                    let r = next();
                    if r % 5 == 0 {
                        special[(r >> 8) as usize % special.len()]
                    } else {
                        (r >> 11) as f64 / (1u64 << 40) as f64 - 2000.0
                    }
                };
                let mut v2 = || Vec2::new(num(), num());
                let pos = (0..n).map(|_| v2()).collect();
                let vel = (0..n).map(|_| v2()).collect();
                let ori = (0..n).map(|_| v2()).collect();
                let radius = (0..n).map(|_| num()).collect();
                let vars = (0..n).map(|_| num()).collect();
                let small = |k: u32| (0..n as u32).map(|i| if i % 7 == 3 { NONE } else { (i * k) % 3 }).collect();
                Frame {
                    frame: f as u64,
                    t: f as f64 / 24.0,
                    id: (0..n as u32).map(|i| i * 2 + 1).collect(),
                    pos,
                    vel,
                    ori,
                    population: (0..n as u32).map(|i| i % 2).collect(),
                    group: small(5),
                    mode: small(1),
                    goal: small(2),
                    radius,
                    formation: small(4),
                    vars,
                    var_stride: 1,
                }
            })
            .collect()
    }

    fn labels() -> Labels {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        Labels {
            populations: names(&["a", "b,c"]),
            modes: names(&["walk", "say \"hi\"", "idle"]),
            goals: names(&["(1 2)", "door", "x"]),
        }
    }

    /// Every kind of column; the var is the first population's only.
    fn columns() -> Vec<Column> {
        let fear = Column::Var { name: "fear".into(), slots: vec![0, NONE] };
        vec![Column::Speed, Column::Goal, Column::Formation, Column::Radius, fear]
    }

    fn serial(frames: &[Frame], precision: Option<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut csv = CsvWriter::new(&mut out, &labels(), &columns(), precision).unwrap();
        for f in frames {
            csv.record(&f.view()).unwrap();
        }
        out
    }

    /// A sink that takes its time, so the queue fills up and the recording
    /// thread formats chunks too.
    struct Slow(Vec<u8>);

    impl Write for Slow {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            std::thread::sleep(std::time::Duration::from_micros(300));
            self.0.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn background_writer_writes_the_same_bytes() {
        for (n, count) in [(0, 3), (1, 2), (CHUNK_ROWS, 2), (3 * CHUNK_ROWS + 17, 9)] {
            let frames = frames(n, count);
            for precision in [None, Some(3)] {
                let expected = serial(&frames, precision);
                let mut out = Slow(Vec::new());
                let ((), rows) =
                    record_in_background(&mut out, &labels(), &columns(), precision, |rec| -> io::Result<()> {
                        frames.iter().try_for_each(|f| rec.record(&f.view()))
                    })
                    .unwrap();
                assert_eq!(rows, (n * count) as u64);
                assert!(out.0 == expected, "{n} rows x {count} frames, precision {precision:?}");
            }
        }
    }

    struct Failing(usize);

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("disk full"));
            }
            self.0 -= 1;
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn background_write_errors_reach_the_caller() {
        let frames = frames(2 * CHUNK_ROWS, 20);
        let mut out = Failing(5);
        let result = record_in_background(&mut out, &labels(), &[], None, |rec| -> io::Result<()> {
            frames.iter().try_for_each(|f| rec.record(&f.view()))
        });
        assert_eq!(result.map(|_| ()).unwrap_err().to_string(), "disk full");
    }
}
