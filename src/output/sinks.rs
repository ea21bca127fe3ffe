//! Frame sinks that combine or select: discard (benchmarks), one still PNG, several sinks at once.

use std::path::PathBuf;

use tiny_skia::Pixmap;

use super::png::write_png;
use super::{FrameError, FrameSink};

/// A sink that keeps nothing: rendering throughput without encoding.
#[derive(Debug, Default)]
pub struct DiscardFrames {
    frames: u64,
}

impl FrameSink for DiscardFrames {
    fn push(&mut self, _frame: &Pixmap) -> Result<(), FrameError> {
        self.frames += 1;
        Ok(())
    }
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        Ok(())
    }
}

/// Writes one frame of the stream as a PNG: frame `index`, or the last frame if `index` is `None` or
/// beyond the end. Holds at most one frame.
#[derive(Debug)]
pub struct StillPng {
    path: PathBuf,
    index: Option<u64>,
    frames: u64,
    last: Option<Pixmap>,
    written: bool,
}

impl StillPng {
    pub fn new(path: impl Into<PathBuf>, index: Option<u64>) -> Self {
        StillPng { path: path.into(), index, frames: 0, last: None, written: false }
    }
}

impl FrameSink for StillPng {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        if self.index == Some(self.frames) {
            write_png(frame, &self.path)?;
            self.written = true;
            self.last = None;
        } else if !self.written {
            match self.last.as_mut() {
                Some(l) if l.width() == frame.width() && l.height() == frame.height() => {
                    l.data_mut().copy_from_slice(frame.data())
                }
                _ => self.last = Some(frame.clone()),
            }
        }
        self.frames += 1;
        Ok(())
    }
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        match (&self.last, self.written) {
            (Some(last), false) => write_png(last, &self.path),
            _ => Ok(()),
        }
    }
}

/// Sends every frame to several sinks (e.g. an mp4 and a PNG sequence in one pass).
#[derive(Default)]
pub struct Tee {
    sinks: Vec<Box<dyn FrameSink + Send>>,
    frames: u64,
}

impl Tee {
    pub fn new(sinks: Vec<Box<dyn FrameSink + Send>>) -> Self {
        Tee { sinks, frames: 0 }
    }
}

impl FrameSink for Tee {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        for sink in &mut self.sinks {
            sink.push(frame)?;
        }
        self.frames += 1;
        Ok(())
    }
    fn frame_count(&self) -> u64 {
        self.frames
    }
    /// Finishes every sink, even after one fails, and reports the first failure.
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        let mut first = Ok(());
        for sink in self.sinks {
            let result = sink.finish();
            if first.is_ok() {
                first = result;
            }
        }
        first
    }
}
