//! The study's pictures of robots: a filmstrip of the overall best individual (paper Fig. 9 style:
//! frames side by side at fixed times) and an mp4 grid with one cell per configuration's best individual,
//! both drawn by the movie renderer `vsr2d render` uses.

use std::path::Path;

use tiny_skia::Pixmap;

use crate::movie::{frame_index_at, Movie, MovieError, MovieSettings, MovieSource};
use crate::output::sinks::Filmstrip;
use crate::output::FrameError;
use crate::render::RenderOptions;
use crate::scenario::Scenario;

/// Frame rate of the filmstrip's timeline and of the video.
pub const FPS: u32 = 30;
/// Size of one filmstrip frame: three in a row fill a report page (1 200 px wide) at full size, so
/// the overlay's text is read at its own size.
pub(crate) const FRAME_W: u32 = 392;
pub(crate) const FRAME_H: u32 = 280;
/// Filmstrip frames per row.
pub const FILMSTRIP_COLUMNS: usize = 3;
/// Size of the video.
pub(crate) const VIDEO_W: u32 = 1280;
pub(crate) const VIDEO_H: u32 = 720;
/// The video shows at most this many simulated seconds (spec §9: 20 s).
pub const VIDEO_SECONDS: f64 = 20.0;

/// One cell of a grid of robots drawn from run directories (`render --top`, `--archive`, `--front`):
/// its name (the source's, in the metrics printed), the heading shown above the robot's label, and
/// the scenario.
#[derive(Debug, Clone)]
pub struct RunCell {
    pub name: String,
    pub heading: Option<String>,
    pub scenario: Scenario,
}

impl RunCell {
    /// The cell as a movie source, its duration cut to `duration` if given.
    pub fn source(mut self, options: &RenderOptions, duration: Option<f64>) -> Result<MovieSource, MovieError> {
        if let Some(d) = duration {
            self.scenario.world.duration = d;
        }
        let source = MovieSource::scenario(self.name, &self.scenario, options)?;
        Ok(match self.heading {
            Some(h) => source.with_heading(h),
            None => source,
        })
    }
}

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    #[error("cannot draw {what}: {source}")]
    Movie { what: String, source: MovieError },
    #[error("cannot write {what}: {source}")]
    Frames { what: String, source: FrameError },
    #[error("cannot compose the filmstrip (no frame, or too large)")]
    Compose,
    #[error("cannot make the viewer page: {0}")]
    Viewer(String),
    #[error("cannot lay out {what}: {source}")]
    Board { what: String, source: crate::movie::board::BoardError },
}

/// The filmstrip's times: t = 10, 11, 12, 13, 14 s (spec §9) when the run lasts 15 s or more, else five
/// times evenly inside the run (d/6 … 5d/6).
pub fn filmstrip_times(duration: f64) -> Vec<f64> {
    if duration >= 15.0 {
        (10..15).map(f64::from).collect()
    } else {
        (1..6).map(|i| duration * f64::from(i) / 6.0).collect()
    }
}

/// The frames of `scenario` shown at `times`, in rows of [`FILMSTRIP_COLUMNS`], through one fixed
/// camera that frames the robot at every one of the times: the robot is seen to move (a follow camera
/// would keep it in the middle of every frame).
pub fn filmstrip(label: &str, scenario: &Scenario, times: &[f64]) -> Result<Pixmap, MediaError> {
    filmstrip_camera(label, scenario, times, false, true)
}

/// [`filmstrip`], with one camera framing every body of the scenario when `shared_camera` (otherwise
/// each body gets its own panel), fixed over the times when `fixed_camera` (otherwise following).
pub fn filmstrip_camera(
    label: &str,
    scenario: &Scenario,
    times: &[f64],
    shared_camera: bool,
    fixed_camera: bool,
) -> Result<Pixmap, MediaError> {
    let what = || "the filmstrip".to_string();
    let movie_error = |source| MediaError::Movie { what: what(), source };
    let mut scenario = scenario.clone();
    let last = times.iter().copied().fold(0.0, f64::max);
    // Simulate only as far as the last frame (plus one frame).
    scenario.world.duration = scenario.world.duration.min(last + 1.0 / f64::from(FPS));
    let options = RenderOptions::default();
    let source = || MovieSource::scenario(label, &scenario, &options).map_err(movie_error);
    let mut settings = MovieSettings {
        width: FRAME_W,
        height: FRAME_H,
        fps: FPS,
        options: options.clone(),
        shared_camera,
        ..MovieSettings::default()
    };
    let indices: Vec<u64> = times.iter().map(|t| frame_index_at(*t, FPS)).collect();
    if fixed_camera {
        let follow = Movie::new(vec![source()?], &settings).map_err(movie_error)?;
        settings.fixed_view = follow.framing_view(0, &indices).map_err(movie_error)?;
    }
    let mut movie = Movie::new(vec![source()?], &settings).map_err(movie_error)?;
    let mut frames = Vec::with_capacity(times.len());
    for &k in &indices {
        frames.push(movie.still(k).map_err(movie_error)?.clone());
    }
    let refs: Vec<&Pixmap> = frames.iter().collect();
    Filmstrip::compose_rows(&refs, FILMSTRIP_COLUMNS).ok_or(MediaError::Compose)
}

/// The frame at `at` seconds of `cells` placed on `board` (cells in the board's order), e.g. an
/// archive's elites on its descriptor grid.
pub fn board_still(
    what: &str,
    cells: Vec<RunCell>,
    board: crate::movie::board::BoardSpec,
    at: f64,
) -> Result<Pixmap, MediaError> {
    let movie_error = |source| MediaError::Movie { what: what.to_string(), source };
    let board = crate::movie::board::Board::new(board)
        .map_err(|source| MediaError::Board { what: what.to_string(), source })?;
    // No overlay text: cells this small show the robots, the board's axes say where they are.
    let options = board.cell_options(&RenderOptions { text: false, ..RenderOptions::default() });
    // Simulate only as far as the frame (plus one frame).
    let duration = at + 1.0 / f64::from(FPS);
    let sources = cells
        .into_iter()
        .map(|c| c.source(&options, Some(duration)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(movie_error)?;
    let (width, height) = board.movie_size();
    let settings = MovieSettings {
        width,
        height,
        fps: FPS,
        layout: Some(board.movie_layout()),
        options,
        ..MovieSettings::default()
    };
    let mut movie = Movie::new(sources, &settings).map_err(movie_error)?;
    let frame = movie.still(frame_index_at(at, FPS)).map_err(movie_error)?;
    Ok(board.composed(frame))
}

/// What became of the video.
#[derive(Debug, Clone, PartialEq)]
pub enum VideoOutcome {
    Written { frames: u64, width: u32, height: u32, seconds: f64 },
    Skipped(String),
}

/// The interactive HTML viewer (docs/viewer.md) of `cells` ((label, scenario) each), one cell each as in
/// the grid video, at most [`VIDEO_SECONDS`] long: the page's text.
pub fn grid_viewer(title: &str, cells: &[(String, Scenario)]) -> Result<crate::view::Page, MediaError> {
    let what = || "the viewer page".to_string();
    let options = RenderOptions::default();
    let mut sources = Vec::with_capacity(cells.len());
    for (label, scenario) in cells {
        let mut s = scenario.clone();
        s.world.duration = s.world.duration.min(VIDEO_SECONDS);
        s.world.snapshot = crate::snapshot::SnapshotDetail::ALL;
        sources.push(
            MovieSource::scenario(label.clone(), &s, &options)
                .map_err(|source| MediaError::Movie { what: what(), source })?,
        );
    }
    let settings = crate::view::ViewSettings {
        movie: MovieSettings { width: VIDEO_W, height: VIDEO_H, fps: FPS, options, ..MovieSettings::default() },
        title: title.to_string(),
        ..crate::view::ViewSettings::default()
    };
    crate::view::build_page(sources, &settings).map_err(|e| match e {
        crate::view::ViewError::Movie(source) => MediaError::Movie { what: what(), source },
        other => MediaError::Viewer(other.to_string()),
    })
}

/// Writes the grid video of `cells` ((label, scenario) each) to `path`, at most [`VIDEO_SECONDS`] long.
pub fn grid_video(path: &Path, cells: &[(String, Scenario)]) -> Result<VideoOutcome, MediaError> {
    grid_video_camera(path, cells, false, VIDEO_SECONDS)
}

/// Writes the grid video of run cells (each with its heading, e.g. a front member's objectives) to
/// `path`, at most [`VIDEO_SECONDS`] long.
pub fn run_cells_video(path: &Path, cells: Vec<RunCell>) -> Result<VideoOutcome, MediaError> {
    let options = RenderOptions { signals: true, ..RenderOptions::default() };
    let seconds = cells.iter().map(|c| c.scenario.world.duration.min(VIDEO_SECONDS)).fold(0.0, f64::max);
    let sources = cells
        .into_iter()
        .map(|c| {
            let d = c.scenario.world.duration.min(VIDEO_SECONDS);
            c.source(&options, Some(d))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| MediaError::Movie { what: "the grid video".into(), source })?;
    encode_grid(path, sources, options, false, seconds)
}

/// [`grid_video`], with one camera per cell framing all of its scenario's bodies when `shared_camera`,
/// at most `max_seconds` simulated seconds long (a demonstration shows its whole run).
pub fn grid_video_camera(
    path: &Path,
    cells: &[(String, Scenario)],
    shared_camera: bool,
    max_seconds: f64,
) -> Result<VideoOutcome, MediaError> {
    let what = || "the grid video".to_string();
    // Distributed controllers show their signals (other controllers have none to draw).
    let options = RenderOptions { signals: true, ..RenderOptions::default() };
    let mut sources = Vec::with_capacity(cells.len());
    let mut seconds: f64 = 0.0;
    for (label, scenario) in cells {
        let mut s = scenario.clone();
        s.world.duration = s.world.duration.min(max_seconds);
        seconds = seconds.max(s.world.duration);
        sources.push(
            MovieSource::scenario(label.clone(), &s, &options)
                .map_err(|source| MediaError::Movie { what: what(), source })?,
        );
    }
    encode_grid(path, sources, options, shared_camera, seconds)
}

/// Encodes the grid movie of `sources` into the mp4 `path`.
#[cfg(feature = "video")]
fn encode_grid(
    path: &Path,
    sources: Vec<MovieSource>,
    options: RenderOptions,
    shared_camera: bool,
    seconds: f64,
) -> Result<VideoOutcome, MediaError> {
    use crate::output::FrameSink;
    let what = || "the grid video".to_string();
    let settings =
        MovieSettings { width: VIDEO_W, height: VIDEO_H, fps: FPS, options, shared_camera, ..MovieSettings::default() };
    let mut movie = Movie::new(sources, &settings).map_err(|source| MediaError::Movie { what: what(), source })?;
    let encoder = crate::output::video::Mp4Encoder::new(path, crate::movie::default_video_settings(VIDEO_W, VIDEO_H))
        .map_err(|e| MediaError::Frames { what: what(), source: FrameError::from(e) })?;
    let mut sink: Box<dyn FrameSink + Send> = Box::new(encoder);
    let frames = movie.run(&mut *sink, &mut |_| {}).map_err(|source| MediaError::Movie { what: what(), source })?;
    sink.finish().map_err(|source| MediaError::Frames { what: what(), source })?;
    Ok(VideoOutcome::Written { frames, width: VIDEO_W, height: VIDEO_H, seconds })
}

/// Without the `video` feature there is no encoder.
#[cfg(not(feature = "video"))]
fn encode_grid(
    _path: &Path,
    _sources: Vec<MovieSource>,
    _options: RenderOptions,
    _shared_camera: bool,
    _seconds: f64,
) -> Result<VideoOutcome, MediaError> {
    Ok(VideoOutcome::Skipped(
        "no video: this vsr2d was built without the `video` feature (rebuild with default features and the FFmpeg \
         libraries); render a run's best with `vsr2d render DIR/<config>/run-<k>/best.json -o best.gif`"
            .into(),
    ))
}
