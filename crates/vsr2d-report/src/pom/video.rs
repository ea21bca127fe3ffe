//! `pom.mp4` and the three-view stills: the run's q(t), resampled at the video's frame rate, drawn by
//! [`vsr2d::render::lattice`] and sent through the same drawing/encoding pipeline as every other video of
//! vsr2d ([`vsr2d::output::pipeline`]: drawn on the calling thread, encoded on a second one).
//! Without the `video` feature the mp4 is skipped with a message; the stills are always written.

use std::path::Path;

use tiny_skia::Pixmap;

use vsr2d::output::pipeline::{run_pipeline, Overlap, PipelineError};
use vsr2d::output::{FrameError, FrameSink};
use vsr2d::pom::spec::RenderSpec;
use vsr2d::pom::PomRun;
use vsr2d::render::lattice::{LatticeOptions, LatticeRenderer, LatticeState};
use vsr2d::render::RenderError;

/// The video file's name in the report directory.
pub const VIDEO_FILE: &str = "pom.mp4";

/// What became of the video.
#[derive(Debug, Clone, PartialEq)]
pub enum VideoOutcome {
    /// Written: the frames the encoder took, the video's size and rate, its codec.
    Written { frames: u64, width: u32, height: u32, fps: f64, codec: String },
    /// Not written, and why (no `video` feature, or `--no-video`).
    Skipped(String),
}

/// Why the video or a still could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum VideoFailure {
    #[error("cannot draw the lattice: {0}")]
    Render(#[from] RenderError),
    #[error("cannot write {VIDEO_FILE}: {0}")]
    Frames(#[from] FrameError),
}

/// q at time t, linear between the run's samples (clamped to the ends).
pub fn q_at(run: &PomRun, t: f64) -> Vec<f64> {
    let s = &run.solution;
    let i = s.times.partition_point(|&x| x <= t);
    if i == 0 {
        return s.q.first().cloned().unwrap_or_else(|| vec![0.0; run.model.cols()]);
    }
    if i >= s.times.len() {
        return s.q.last().cloned().unwrap_or_else(|| vec![0.0; run.model.cols()]);
    }
    let (t0, t1) = (s.times[i - 1], s.times[i]);
    let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
    s.q[i - 1].iter().zip(&s.q[i]).map(|(a, b)| a + u * (b - a)).collect()
}

/// A renderer for the run at the spec's size and exaggeration.
pub fn renderer(run: &PomRun, render: &RenderSpec, title: &str) -> Result<LatticeRenderer, RenderError> {
    let options = LatticeOptions {
        views: render.views.clone(),
        exaggerate: render.exaggerate,
        color_range: None,
        title: title.to_string(),
    };
    LatticeRenderer::new(&run.model, render.size[0], render.size[1], options)
}

/// The frame at time t.
pub fn state_at(run: &PomRun, t: f64) -> LatticeState {
    LatticeState::from_q(&run.model, t, &q_at(run, t))
}

/// Frame times: k / fps over the run's time span (one frame for a single sample).
pub fn frame_times(run: &PomRun, fps: u32) -> Vec<f64> {
    let t0 = run.solution.times.first().copied().unwrap_or(0.0);
    (0..frame_count(run, fps)).map(|k| t0 + k as f64 / f64::from(fps.max(1))).collect()
}

/// How many frames [`frame_times`] gives, computed without them (what the render limit is checked on).
pub fn frame_count(run: &PomRun, fps: u32) -> u64 {
    let s = &run.solution;
    let (Some(&t0), Some(&t1)) = (s.times.first(), s.times.last()) else { return 0 };
    // `as` saturates: a span of 10³⁰⁰ s counts u64::MAX frames, which the limit refuses.
    ((t1 - t0) * f64::from(fps.max(1)) + 1e-9).floor() as u64 + 1
}

/// Sends every frame into `sink`, drawing the next frame while the sink takes the previous one.
pub fn render_frames(
    run: &PomRun,
    render: &RenderSpec,
    title: &str,
    sink: &mut (dyn FrameSink + Send),
) -> Result<u64, VideoFailure> {
    let mut r = renderer(run, render, title)?;
    let mut times = frame_times(run, render.fps).into_iter();
    let draw = |frame: &mut Pixmap| -> Result<bool, VideoFailure> {
        let Some(t) = times.next() else { return Ok(false) };
        r.render(&run.model, &state_at(run, t));
        r.swap_frame(frame);
        Ok(true)
    };
    let size = (render.size[0], render.size[1]);
    run_pipeline(sink, size, Overlap::Threaded, draw, &mut |_| {}).map_err(|e| match e {
        PipelineError::Draw(e) => e,
        PipelineError::Sink(e) => VideoFailure::Frames(e),
    })
}

/// Writes `dir/pom.mp4` (H.264). The outcome gives what the encoder accepted and wrote (frames, size,
/// rate), not a probe of the file: reading an mp4 back needs FFmpeg's mov demuxer, which the portable
/// wheel's minimal FFmpeg leaves out (the tests probe the file, `tests/integration/pom.rs`).
#[cfg(feature = "video")]
pub fn write_video(dir: &Path, run: &PomRun, render: &RenderSpec, title: &str) -> Result<VideoOutcome, VideoFailure> {
    use vsr2d::output::video::{Mp4Encoder, VideoSettings};
    let path = dir.join(VIDEO_FILE);
    let settings = VideoSettings { fps: render.fps, ..VideoSettings::new(render.size[0], render.size[1]) };
    let mut sink: Box<Mp4Encoder> = Box::new(Mp4Encoder::new(&path, settings.clone()).map_err(FrameError::from)?);
    render_frames(run, render, title, sink.as_mut())?;
    let frames = sink.frame_count();
    FrameSink::finish(sink)?;
    Ok(VideoOutcome::Written {
        frames,
        width: settings.width,
        height: settings.height,
        fps: f64::from(settings.fps),
        codec: "h264".into(),
    })
}

/// Without the `video` feature there is no encoder: say so.
#[cfg(not(feature = "video"))]
pub fn write_video(
    _dir: &Path,
    _run: &PomRun,
    _render: &RenderSpec,
    _title: &str,
) -> Result<VideoOutcome, VideoFailure> {
    Ok(VideoOutcome::Skipped(format!(
        "{VIDEO_FILE} not written: this vsr2d was built without the `video` feature (rebuild with default features \
         and the FFmpeg libraries to get it); the three-view stills below show the key moments"
    )))
}
