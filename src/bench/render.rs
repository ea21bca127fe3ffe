//! Rendering throughput: the showcase pipeline at a given size, with or without encoding.

use std::time::Instant;

use serde::Serialize;

use crate::movie::{Movie, MovieError, MovieSettings};
use crate::output::sinks::DiscardFrames;
use crate::output::FrameSink;

/// Throughput of the showcase pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MovieBench {
    pub frames: u64,
    pub wall_s: f64,
    pub fps: f64,
}

/// Simulates and renders the 2×2 showcase for `seconds` at `width` × `height` (30 fps), discarding the
/// frames or, with `encode`, encoding them to an mp4 in a scratch directory with the default settings.
/// The time includes building and simulating the robots (a few percent of the total).
pub fn bench_render(width: u32, height: u32, seconds: f64, encode: bool) -> Result<MovieBench, MovieError> {
    let settings = MovieSettings { width, height, ..MovieSettings::default() };
    let start = Instant::now();
    let mut movie = Movie::showcase(&settings, Some(seconds))?;
    // Keeps the scratch directory alive until the video is finished.
    let (_scratch, mut sink) = bench_sink(width, height, encode)?;
    let frames = movie.run(&mut *sink, &mut |_| {})?;
    sink.finish()?;
    let wall_s = start.elapsed().as_secs_f64();
    Ok(MovieBench { frames, wall_s, fps: if wall_s > 0.0 { frames as f64 / wall_s } else { 0.0 } })
}

type BenchSink = (Option<tempfile::TempDir>, Box<dyn FrameSink + Send>);

fn bench_sink(width: u32, height: u32, encode: bool) -> Result<BenchSink, MovieError> {
    if !encode {
        return Ok((None, Box::new(DiscardFrames::default())));
    }
    #[cfg(feature = "video")]
    {
        let dir = tempfile::tempdir().map_err(MovieError::Scratch)?;
        let encoder = crate::output::video::Mp4Encoder::new(
            dir.path().join("bench.mp4"),
            crate::movie::default_video_settings(width, height),
        )?;
        Ok((Some(dir), Box::new(encoder)))
    }
    #[cfg(not(feature = "video"))]
    {
        let _ = (width, height);
        Err(MovieError::VideoUnavailable)
    }
}
