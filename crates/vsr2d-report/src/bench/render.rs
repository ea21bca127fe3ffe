//! Rendering throughput: the showcase pipeline at a given size, drawing alone, the encoder's own rate
//! and the whole pipeline (drawing and encoding overlapped, as `vsr2d render` runs it).

use std::time::{Duration, Instant};

use serde::Serialize;
use tiny_skia::Pixmap;

use vsr2d::movie::{Movie, MovieError, MovieSettings};
use vsr2d::output::sinks::DiscardFrames;
use vsr2d::output::{FrameError, FrameSink};

/// Throughput of the showcase pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MovieBench {
    pub frames: u64,
    /// Wall time of the whole run (building and simulating the robots, drawing, encoding).
    pub wall_s: f64,
    /// Frames per wall second.
    pub fps: f64,
    /// Time the encoder took to take the frames and finish the file (its stage of the pipeline, on the
    /// encoding thread; x264's own threads included); `None` when the frames were discarded.
    pub encode_s: Option<f64>,
    /// Frames per second of encoder time: the rate the encoder sustains when drawing keeps up.
    pub encode_fps: Option<f64>,
}

/// Simulates and renders the 2×2 showcase for `seconds` at `width` × `height` (30 fps), discarding the
/// frames or, with `encode`, encoding them to an mp4 in a scratch directory with the default settings.
/// The time includes building and simulating the robots (a few percent of the total).
pub fn bench_render(width: u32, height: u32, seconds: f64, encode: bool) -> Result<MovieBench, MovieError> {
    let settings = MovieSettings { width, height, ..MovieSettings::default() };
    let start = Instant::now();
    let mut movie = Movie::showcase(&settings, Some(seconds))?;
    // Keeps the scratch directory alive until the video is finished.
    let (_scratch, sink) = bench_sink(width, height, encode)?;
    let mut sink = Box::new(Timed { sink, busy: Duration::ZERO });
    let frames = movie.run(&mut *sink, &mut |_| {})?;
    let encode_s = sink.finish_timed()?.as_secs_f64();
    let wall_s = start.elapsed().as_secs_f64();
    let rate = |s: f64| if s > 0.0 { frames as f64 / s } else { 0.0 };
    let encode_s = encode.then_some(encode_s);
    Ok(MovieBench { frames, wall_s, fps: rate(wall_s), encode_s, encode_fps: encode_s.map(rate) })
}

/// A sink that adds up the time spent in the inner sink's `push` and `finish`.
struct Timed {
    sink: Box<dyn FrameSink + Send>,
    busy: Duration,
}

impl Timed {
    /// Finishes the inner sink; returns the total time spent in it.
    fn finish_timed(self: Box<Self>) -> Result<Duration, FrameError> {
        let start = Instant::now();
        self.sink.finish()?;
        Ok(self.busy + start.elapsed())
    }
}

impl FrameSink for Timed {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        let start = Instant::now();
        let pushed = self.sink.push(frame);
        self.busy += start.elapsed();
        pushed
    }
    fn frame_count(&self) -> u64 {
        self.sink.frame_count()
    }
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        self.finish_timed().map(|_| ())
    }
}

type BenchSink = (Option<tempfile::TempDir>, Box<dyn FrameSink + Send>);

fn bench_sink(width: u32, height: u32, encode: bool) -> Result<BenchSink, MovieError> {
    if !encode {
        return Ok((None, Box::new(DiscardFrames::default())));
    }
    #[cfg(feature = "video")]
    {
        let dir = tempfile::tempdir().map_err(MovieError::Scratch)?;
        let encoder = vsr2d::output::video::Mp4Encoder::new(
            dir.path().join("bench.mp4"),
            vsr2d::movie::default_video_settings(width, height),
        )?;
        Ok((Some(dir), Box::new(encoder)))
    }
    #[cfg(not(feature = "video"))]
    {
        let _ = (width, height);
        Err(MovieError::VideoUnavailable)
    }
}
