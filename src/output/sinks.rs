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
            keep_copy(&mut self.last, frame);
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

/// Gap between the frames of a filmstrip, in pixels (white).
const FILMSTRIP_GAP: u32 = 8;

/// Writes chosen frames side by side in one PNG, in the order given (the paper's Figure 9 style). An index
/// beyond the end shows the last frame. Holds only the chosen frames.
#[derive(Debug)]
pub struct Filmstrip {
    path: PathBuf,
    indices: Vec<u64>,
    kept: Vec<(u64, Pixmap)>,
    last: Option<Pixmap>,
    frames: u64,
}

impl Filmstrip {
    pub fn new(path: impl Into<PathBuf>, indices: Vec<u64>) -> Self {
        Filmstrip { path: path.into(), indices, kept: Vec::new(), last: None, frames: 0 }
    }

    /// The frames side by side, `FILMSTRIP_GAP` pixels of white between them.
    pub fn compose(frames: &[&Pixmap]) -> Option<Pixmap> {
        Self::compose_rows(frames, frames.len())
    }

    /// The frames in rows of `columns` (the last row may be shorter), left to right then top to
    /// bottom, `FILMSTRIP_GAP` pixels of white between them: a filmstrip that fits a page's width.
    pub fn compose_rows(frames: &[&Pixmap], columns: usize) -> Option<Pixmap> {
        let (w, h) = (frames.first()?.width(), frames.first()?.height());
        let cols = columns.clamp(1, frames.len()) as u32;
        let rows = frames.len().div_ceil(cols as usize) as u32;
        let mut strip = Pixmap::new(cols * w + (cols - 1) * FILMSTRIP_GAP, rows * h + (rows - 1) * FILMSTRIP_GAP)?;
        strip.fill(tiny_skia::Color::WHITE);
        for (i, f) in frames.iter().enumerate() {
            let (col, row) = (i as u32 % cols, i as u32 / cols);
            strip.draw_pixmap(
                (col * (w + FILMSTRIP_GAP)) as i32,
                (row * (h + FILMSTRIP_GAP)) as i32,
                f.as_ref(),
                &tiny_skia::PixmapPaint::default(),
                tiny_skia::Transform::identity(),
                None,
            );
        }
        Some(strip)
    }
}

impl FrameSink for Filmstrip {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        if self.indices.contains(&self.frames) {
            self.kept.push((self.frames, frame.clone()));
        }
        keep_copy(&mut self.last, frame);
        self.frames += 1;
        Ok(())
    }
    fn frame_count(&self) -> u64 {
        self.frames
    }
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        let Some(last) = &self.last else {
            return Err(FrameError::Encode {
                path: self.path.clone(),
                source: Box::new(std::io::Error::other("no frames were rendered, so there is no filmstrip")),
            });
        };
        let frames: Vec<&Pixmap> =
            self.indices.iter().map(|k| self.kept.iter().find(|(i, _)| i == k).map_or(last, |(_, p)| p)).collect();
        let strip = Filmstrip::compose(&frames).ok_or_else(|| FrameError::Encode {
            path: self.path.clone(),
            source: Box::new(std::io::Error::other("the filmstrip would be empty or too large")),
        })?;
        write_png(&strip, &self.path)
    }
}

/// Keeps a copy of `frame` in `slot`, reusing its buffer when the size matches (no allocation per frame).
fn keep_copy(slot: &mut Option<Pixmap>, frame: &Pixmap) {
    match slot.as_mut() {
        Some(l) if l.width() == frame.width() && l.height() == frame.height() => {
            l.data_mut().copy_from_slice(frame.data())
        }
        _ => *slot = Some(frame.clone()),
    }
}
