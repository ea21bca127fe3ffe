//! One render job: what `vsr2d render`, `vsr2d view` and Python's `vsr2d.render` and `vsr2d.view` do,
//! described once as plain data ([`RenderJob`]: sources, settings, outputs) and carried out once.
//!
//! [`RenderJob::preflight`] makes every check before anything is simulated: the settings' values, the
//! outputs (formats by extension, writable, distinct from the inputs and from each other, the encoder's
//! settings), the combinations that make no sense, the sources (read and built, not run) and the cost
//! limit. It returns a [`Plan`], whose [`Plan::run`] simulates once and writes every output: the video or
//! frames streamed, the still and the filmstrip from the same frames, the HTML viewer page after them from
//! the snapshots the run delivered (captured, not simulated again).
//!
//! Sits above [`crate::run_media`], whose run-directory pictures `render --top`, `--archive` and `--front` draw.
//!
//! ```ignore
//! let job = RenderJob { sources: Sources::Showcase, settings, outputs, limits: Limits::DEFAULT };
//! let plan = job.preflight()?;
//! let report = plan.run(&mut Hooks::default())?;
//! ```

use std::path::{Path, PathBuf};

use crate::geom::{Aabb, Vec2};
use crate::limits::Limits;
use crate::model::voxel::sensors::SensorKind;
use crate::movie::board::Board;
use crate::movie::{frame_index_at, showcase_sources, Movie, MovieError, MovieSettings, MovieSource, RunMetrics};
use crate::output::figure::{write_figure, FigureFormat};
use crate::output::gif::GifSink;
use crate::output::pipeline::Overlap;
use crate::output::png::{write_png, PngSequence};
use crate::output::sinks::Tee;
use crate::output::{check_output_writable, FrameError, FrameSink, OutputError, VideoFormat};
use crate::render::scene::{Scene, FILMSTRIP_GAP_PX};
use crate::render::{GridLayout, Rasterizer, RenderOptions, Style};
use crate::run_media::{self, RunCell, RunPictureError};
use crate::scenario::{Scenario, ScenarioError};
use crate::snapshot::SnapshotDetail;
use crate::view::{PageStats, ViewError, ViewSettings};

/// The frames per second of a video when none is given.
pub const DEFAULT_FPS: u32 = 30;
/// The frames of a filmstrip when no times are given: the start, the quarters and the end of the run.
pub(crate) const DEFAULT_FILMSTRIP_FRAMES: u32 = 5;

/// What a job draws.
#[derive(Debug, Clone)]
pub enum Sources {
    /// The bundled showcase (worm, biped, tripod, two-material).
    Showcase,
    /// Scenarios (simulated here) and recordings, one grid cell each (one per robot for multi-robot runs).
    Runs(Vec<RunInput>),
    /// The `k` best individuals of the `vsr2d evolve` runs under `dirs`.
    Top { dirs: Vec<PathBuf>, k: usize },
    /// A MAP-Elites run's archive, laid out on its descriptor grid.
    Archive(PathBuf),
    /// An NSGA-II run's Pareto front, in order along the front.
    Front(PathBuf),
}

/// One run of [`Sources::Runs`], with how its front end names it (`SCENARIO`, `--from`, `INPUT`,
/// `scenarios[0]`) in messages about outputs that would replace it.
#[derive(Debug, Clone)]
pub struct RunInput {
    pub given_as: String,
    pub kind: RunKind,
}

#[derive(Debug, Clone)]
pub enum RunKind {
    /// A scenario file, read when the job is preflighted; `-` reads stdin.
    ScenarioFile(PathBuf),
    /// A scenario already read (Python), shown as `name`; `file` is where it was read from, if anywhere.
    /// Its cost is checked here, with the job's duration.
    Scenario { name: String, scenario: Box<Scenario>, file: Option<PathBuf> },
    /// A recording of `vsr2d simulate --record`.
    Recording(PathBuf),
}

impl RunInput {
    /// The file this run reads, if any.
    fn file(&self) -> Option<&Path> {
        match &self.kind {
            RunKind::ScenarioFile(p) | RunKind::Recording(p) => Some(p),
            RunKind::Scenario { file, .. } => file.as_deref(),
        }
    }
}

/// The x264 settings of an mp4 output.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoding {
    pub preset: String,
    pub crf: u8,
    pub tune: String,
    /// The same value gives byte-identical files; 0 = auto.
    pub threads: u32,
}

impl Default for Encoding {
    fn default() -> Self {
        Encoding {
            preset: crate::output::DEFAULT_X264_PRESET.into(),
            crf: crate::output::DEFAULT_X264_CRF,
            tune: crate::output::DEFAULT_X264_TUNE.into(),
            threads: crate::movie::DEFAULT_X264_THREADS,
        }
    }
}

/// How a job draws.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSettings {
    /// The picture's size in pixels: each frame of a video, a still, or the whole filmstrip.
    pub size: (u32, u32),
    /// Frames per simulated second; `None`: [`DEFAULT_FPS`] (a picture alone takes none).
    pub fps: Option<u32>,
    /// Overrides the scenarios' duration and cuts recordings, in seconds.
    pub duration: Option<f64>,
    /// Grid of cells; `None` picks one.
    pub layout: Option<GridLayout>,
    pub options: RenderOptions,
    /// This world rectangle in every cell instead of the follow cameras.
    pub fixed_camera: Option<Aabb>,
    /// One cell per source even when it has several robots.
    pub shared_camera: bool,
    /// Snapshot detail simulated scenarios record beyond what `options` draws (`vsr2d view --detail`).
    pub detail: SnapshotDetail,
    /// Simulated time of the still; `None`: the last frame.
    pub at: Option<f64>,
    /// Simulated times of the filmstrip's frames; empty: the start, the quarters and the end.
    pub times: Vec<f64>,
    pub encoding: Encoding,
    /// The viewer page's title; `None`: the page's file name.
    pub title: Option<String>,
    /// Shown in the overlay in place of each cell's run or robot name, one per cell in order (figure
    /// panels: "(a) worm"); empty: the names.
    pub labels: Vec<String>,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            size: (1280, 720),
            fps: None,
            duration: None,
            layout: None,
            options: RenderOptions::default(),
            fixed_camera: None,
            shared_camera: false,
            detail: SnapshotDetail::default(),
            at: None,
            times: Vec::new(),
            encoding: Encoding::default(),
            title: None,
            labels: Vec::new(),
        }
    }
}

/// The look and layers of a render, as the command line and Python give them: a style, the fill's
/// sensor, layers to add and layers to leave out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Look {
    pub style: Option<Style>,
    pub color_by: Option<SensorKind>,
    pub masses: bool,
    pub springs: bool,
    pub ropes: bool,
    pub welds: bool,
    pub sensor_values: bool,
    pub velocity: bool,
    pub touching: bool,
    pub signals: bool,
    /// Every optional layer above.
    pub all_layers: bool,
    pub no_overlay: bool,
    pub no_key: bool,
    pub no_grid: bool,
    pub no_ticks: bool,
    /// Labels are given (`--label`): the overlay that shows them is on even in the paper style, which
    /// leaves it out otherwise.
    pub labelled: bool,
    /// Every text size times this; `None`: 1.
    pub font_scale: Option<f32>,
}

impl Look {
    /// The render options: the style's, with the layers added and left out.
    pub fn options(&self) -> RenderOptions {
        let mut o = match self.style {
            Some(Style::Paper) => RenderOptions::paper(),
            Some(Style::Screen) | None => RenderOptions::default(),
        };
        if self.all_layers {
            let all = RenderOptions::all_layers();
            (o.masses, o.springs, o.ropes, o.welds) = (all.masses, all.springs, all.ropes, all.welds);
            (o.sensor_values, o.velocity_arrows, o.touching_markers, o.signals) =
                (all.sensor_values, all.velocity_arrows, all.touching_markers, all.signals);
        }
        o.masses |= self.masses;
        o.springs |= self.springs;
        o.ropes |= self.ropes;
        o.welds |= self.welds;
        o.sensor_values |= self.sensor_values;
        o.velocity_arrows |= self.velocity;
        o.touching_markers |= self.touching;
        o.signals |= self.signals;
        if let Some(kind) = self.color_by {
            o.color_by = kind;
        }
        o.text = (o.text || self.labelled) && !self.no_overlay;
        if let Some(scale) = self.font_scale {
            o.font_scale = scale;
        }
        o.legend &= !self.no_key;
        o.materials &= !self.no_key;
        o.world_grid &= !self.no_grid;
        o.ground_ticks &= !self.no_ticks;
        o
    }
}

/// The font scales a render takes (`--font-scale`): half size to four times.
pub(crate) const FONT_SCALE_RANGE: std::ops::RangeInclusive<f32> = 0.5..=4.0;

/// A style by its name: `screen` or `paper`.
pub fn parse_style(text: &str) -> Result<Style, String> {
    match text {
        "screen" => Ok(Style::Screen),
        "paper" => Ok(Style::Paper),
        _ => Err(format!("unknown style {text:?}; use screen or paper")),
    }
}

/// A sensor by its id (`area_ratio`, `velocity_magnitude`, …): what colours the voxels.
pub fn parse_sensor(text: &str) -> Result<SensorKind, String> {
    SensorKind::from_id(text).ok_or_else(|| {
        let ids: Vec<&str> = SensorKind::ALL.iter().map(|k| k.id()).collect();
        format!("unknown sensor {text:?}; use one of {}", ids.join(", "))
    })
}

/// A camera rectangle `x0,y0,x1,y1` in metres.
pub fn parse_camera(text: &str) -> Result<Aabb, String> {
    let err = || format!("camera rectangle {text:?} must be x0,y0,x1,y1 in metres with x0 < x1 and y0 < y1");
    let v: Vec<f64> = text.split(',').map(|p| p.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| err())?;
    match v[..] {
        [x0, y0, x1, y1] if v.iter().all(|c| c.is_finite()) && x0 < x1 && y0 < y1 => {
            Ok(Aabb { min: Vec2::new(x0, y0), max: Vec2::new(x1, y1) })
        }
        _ => Err(err()),
    }
}

/// An output file and the option that named it (`-o`, `--png`, `out`), for messages.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputFile {
    pub path: PathBuf,
    pub flag: String,
}

impl OutputFile {
    pub fn new(path: impl Into<PathBuf>, flag: impl Into<String>) -> Self {
        OutputFile { path: path.into(), flag: flag.into() }
    }
}

/// What a job writes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outputs {
    /// A video: `.mp4` (H.264) or `.gif`, by the extension.
    pub video: Option<OutputFile>,
    /// Every frame as DIR/frame_NNNNNN.png.
    pub frames: Option<OutputFile>,
    /// Delete the frames already in the frames directory first.
    pub replace_frames: bool,
    /// One frame (`at`): `.png`, `.svg` or `.pdf`, by the extension.
    pub still: Option<OutputFile>,
    /// Frames side by side (`times`): `.png`, `.svg` or `.pdf`.
    pub filmstrip: Option<OutputFile>,
    /// The interactive HTML viewer page.
    pub html: Option<OutputFile>,
    /// The runs' metrics (what `vsr2d simulate` reports): every simulation is run to its end for them.
    pub metrics: bool,
}

/// A render job: sources, settings, outputs, and the resource limits it is held to.
#[derive(Debug, Clone)]
pub struct RenderJob {
    pub sources: Sources,
    pub settings: RenderSettings,
    pub outputs: Outputs,
    pub limits: Limits,
}

/// Why a job was refused or failed. [`JobError::is_input`] tells the caller's mistakes from the run's.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A bad value or combination of settings and outputs.
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("cannot read scenario {shown}")]
    ReadScenario {
        shown: String,
        #[source]
        source: std::io::Error,
    },
    #[error("scenario {path}")]
    Scenario {
        path: String,
        #[source]
        source: Box<ScenarioError>,
    },
    #[error(transparent)]
    Movie(#[from] MovieError),
    #[error(transparent)]
    Runs(#[from] RunPictureError),
    #[error(transparent)]
    Board(#[from] crate::movie::board::BoardError),
    /// Frames that could not be written (a PNG directory that holds frames is the caller's to fix).
    #[error(transparent)]
    Frames(FrameError),
    #[error(transparent)]
    Write(#[from] FrameError),
    #[cfg(feature = "video")]
    #[error(transparent)]
    Video(#[from] crate::output::video::VideoError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error("cannot write {}: {source}", path.display())]
    Page {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl JobError {
    /// Whether the caller's input (a setting, an output, a scenario or recording) is at fault rather
    /// than the run.
    pub fn is_input(&self) -> bool {
        match self {
            JobError::Refused(_)
            | JobError::Output(_)
            | JobError::ReadScenario { .. }
            | JobError::Scenario { .. }
            | JobError::Board(_)
            | JobError::Frames(_) => true,
            JobError::Movie(e) => e.is_input(),
            JobError::Runs(e) => e.is_input(),
            #[cfg(feature = "video")]
            JobError::Video(e) => e.is_input(),
            JobError::View(e) => e.is_input(),
            JobError::Write(_) | JobError::Page { .. } => false,
        }
    }
}

fn refused(message: impl Into<String>) -> JobError {
    JobError::Refused(message.into())
}

/// What a job's run reports to its caller as it goes.
pub struct Hooks<'a> {
    /// Frames pushed so far, of the total.
    pub progress: &'a mut dyn FnMut(u64, u64),
    /// Asked before each frame: `false` stops the run (Ctrl-C in Python) with [`MovieError::Stopped`] or a
    /// failed frame; an unfinished file is never published.
    pub keep_going: &'a (dyn Fn() -> bool + Sync),
}

/// What a finished job did.
#[derive(Debug, Clone)]
pub struct JobReport {
    /// Each live simulation's result, in source order.
    pub metrics: Vec<RunMetrics>,
    /// Frames drawn (every frame for a video or frames, only their frames for pictures alone).
    pub frames_drawn: u64,
    pub total_frames: u64,
    pub fps: u32,
    /// The size of a frame (of a filmstrip: of each of its frames).
    pub frame_size: (u32, u32),
    /// The grid shown (an archive's: its bins).
    pub layout: GridLayout,
    /// What the viewer page holds, if one was written.
    pub page: Option<PageStats>,
}

/// The formats the outputs were checked to have.
#[derive(Debug, Clone, Copy)]
struct Formats {
    video: Option<VideoFormat>,
    still: Option<FigureFormat>,
    filmstrip: Option<FigureFormat>,
}

/// A preflighted job: every check made, the sources built (nothing simulated yet); [`Plan::run`] runs it.
pub struct Plan {
    job: RenderJob,
    formats: Formats,
    /// The size of one frame (a filmstrip's frames share its width).
    frame_size: (u32, u32),
    fps: u32,
    movie: Movie,
    movie_settings: MovieSettings,
    board: Option<Board>,
    /// The frames kept as scenes: the still's, then the filmstrip's.
    keep: Vec<u64>,
    notes: Vec<String>,
}

impl RenderJob {
    /// Every check, before anything is simulated: values, outputs, combinations, the sources (read and
    /// built) and the cost limit. Notes for the user (a recording without a layer's detail, a still
    /// after the last frame) are in [`Plan::notes`].
    pub fn preflight(self) -> Result<Plan, JobError> {
        let formats = self.check_outputs()?;
        let frame_size = self.frame_size()?;
        let fps = self.settings.fps.unwrap_or(DEFAULT_FPS);
        let mut notes = Vec::new();
        let (sources, board) = self.load_sources(frame_size, &mut notes)?;
        let options = &self.settings.options;
        // A board (--archive) draws a movie of its cells alone and places them on its grid.
        let movie_settings = MovieSettings {
            width: board.as_ref().map_or(frame_size.0, |b| b.movie_size().0),
            height: board.as_ref().map_or(frame_size.1, |b| b.movie_size().1),
            fps,
            layout: board.as_ref().map(Board::movie_layout).or(self.settings.layout),
            options: board.as_ref().map_or(options.clone(), |b| b.cell_options(options)),
            fixed_view: self.settings.fixed_camera,
            shared_camera: self.settings.shared_camera,
        };
        let mut movie = Movie::new(sources, &movie_settings)?;
        if !self.settings.labels.is_empty() && !movie.set_labels(&self.settings.labels) {
            let (given, cells) = (self.settings.labels.len(), movie.cells().len());
            return Err(refused(format!(
                "{given} --label given for {cells} cell{}: give one per cell, in order",
                if cells == 1 { "" } else { "s" }
            )));
        }
        let o = &self.outputs;
        let pictures = o.video.is_some() || o.frames.is_some() || o.still.is_some() || o.filmstrip.is_some();
        if o.html.is_some() && (pictures || o.metrics) {
            // The viewer page is filled from the snapshots the run delivers, not from a second run.
            movie.capture_snapshots();
        }
        let total = movie.frame_count();
        let last = total.saturating_sub(1);
        let still_index = self.settings.at.map(|t| frame_index_at(t, fps));
        if let (Some(k), Some(at)) = (still_index, self.settings.at) {
            if k >= total {
                notes.push(format!(
                    "note: --at {at} s is after the last frame (t = {:.2} s); the picture shows the last frame",
                    last as f64 / f64::from(fps)
                ));
            }
        }
        let mut keep: Vec<u64> = Vec::new();
        if self.outputs.still.is_some() {
            keep.push(still_index.unwrap_or(u64::MAX));
        }
        if self.outputs.filmstrip.is_some() {
            if self.settings.times.is_empty() {
                let n = u64::from(DEFAULT_FILMSTRIP_FRAMES);
                keep.extend((0..n).map(|q| last * q / (n - 1)));
            } else {
                keep.extend(self.settings.times.iter().map(|t| frame_index_at(*t, fps).min(last)));
            }
        }
        let streams = self.outputs.video.is_some() || self.outputs.frames.is_some();
        let drawn = if streams { total } else { keep.len() as u64 };
        self.limits.check_render(drawn, frame_size.0, frame_size.1, movie.body_count() as u64).map_err(|e| {
            refused(format!(
                "the render of {} frames of {}×{} pixels showing {} bodies (robots and cells) {} (--duration, --fps, \
                 --size; fewer scenarios, --from recordings or --top K)",
                crate::geom::compact(total as f64),
                frame_size.0,
                frame_size.1,
                movie.body_count(),
                e.to_string().replacen("`frames`: ", "", 1)
            ))
        })?;
        Ok(Plan { job: self, formats, frame_size, fps, movie, movie_settings, board, keep, notes })
    }

    /// The values, the outputs and their combinations.
    fn check_outputs(&self) -> Result<Formats, JobError> {
        let (s, o) = (&self.settings, &self.outputs);
        if let Some(at) = s.at {
            if !(at.is_finite() && at >= 0.0) {
                return Err(refused(format!("--at {at} is invalid: give a simulated time in seconds ≥ 0")));
            }
        }
        if let Some(d) = s.duration {
            if !(d.is_finite() && (0.0..=crate::scenario::MAX_DURATION).contains(&d)) {
                return Err(refused(format!(
                    "--duration {} is invalid: give a number of seconds in [0, 1e6]",
                    crate::geom::compact(d)
                )));
            }
        }
        let scale = s.options.font_scale;
        if !FONT_SCALE_RANGE.contains(&scale) {
            return Err(refused(format!(
                "--font-scale {scale} is invalid: give a factor from {} to {} (1 keeps the style's text sizes)",
                FONT_SCALE_RANGE.start(),
                FONT_SCALE_RANGE.end()
            )));
        }
        if !s.labels.is_empty() && !s.options.text {
            return Err(refused(
                "--label is shown in the overlay, which --no-overlay leaves out: leave out one of them",
            ));
        }
        if s.fps == Some(0) {
            return Err(refused("--fps 0 is invalid; give a positive number of frames per second (e.g. 30)"));
        }
        let (w, h) = s.size;
        let max = crate::limits::MAX_FRAME_SIDE;
        if w == 0 || h == 0 || w > max || h > max {
            return Err(refused(format!("--size {w}x{h} is invalid: give 1 … {max} pixels each way")));
        }
        // No output may replace an input or another output (`-o same.mp4 --html same.mp4`), checked
        // first: whatever else is wrong with such an output, replacing an input is the worse mistake.
        let named: Vec<(&str, &Path)> = [&o.video, &o.still, &o.filmstrip, &o.html]
            .into_iter()
            .flatten()
            .map(|f| (f.flag.as_str(), f.path.as_path()))
            .collect();
        let inputs: Vec<(&str, &Path)> = match &self.sources {
            Sources::Runs(runs) => runs.iter().filter_map(|r| r.file().map(|p| (r.given_as.as_str(), p))).collect(),
            Sources::Showcase | Sources::Top { .. } | Sources::Archive(_) | Sources::Front(_) => Vec::new(),
        };
        crate::output::check_distinct(&named, &inputs)?;
        if named.is_empty() && o.frames.is_none() {
            return Err(refused("nothing to write: give a video, frames, a still, a filmstrip or an HTML page"));
        }
        let video = o
            .video
            .as_ref()
            .map(|f| {
                VideoFormat::of(&f.path).ok_or_else(|| {
                    refused(format!(
                        "`{}`: unknown video format; the output's extension chooses it: {}. For single frames use \
                         --png FILE.png, --frames DIR or --filmstrip FILE.png",
                        f.path.display(),
                        VideoFormat::CHOICES
                    ))
                })
            })
            .transpose()?;
        let figure = |f: &OutputFile| {
            FigureFormat::of(&f.path).ok_or_else(|| {
                refused(format!(
                    "{} `{}`: unknown picture format; the extension chooses it: {}",
                    f.flag,
                    f.path.display(),
                    FigureFormat::CHOICES
                ))
            })
        };
        let still = o.still.as_ref().map(figure).transpose()?;
        let filmstrip = o.filmstrip.as_ref().map(figure).transpose()?;
        if let Some(page) = &o.html {
            // The page is HTML whatever its name: `x.mp4` would be a page named like a video.
            if let Some(ext) = page.path.extension().and_then(|e| e.to_str()) {
                if !["html", "htm"].contains(&ext.to_ascii_lowercase().as_str()) {
                    return Err(refused(format!(
                        "{} {} would be an HTML page named .{ext}: give a name ending in .html (for a video, use \
                         `vsr2d render -o {}`)",
                        page.flag,
                        page.path.display(),
                        page.path.display()
                    )));
                }
            }
        }
        let vector = [still, filmstrip].into_iter().flatten().any(FigureFormat::is_vector);
        if vector && matches!(self.sources, Sources::Archive(_)) {
            return Err(refused("--archive draws its grid and axes as pixels: write its picture as .png"));
        }
        if vector && s.fps.is_some() && o.video.is_none() && o.frames.is_none() {
            return Err(refused(
                "--fps is a video's frame rate, and an SVG or PDF picture has none: leave it out (a still shows the \
                 time --at, a filmstrip the times --times)",
            ));
        }
        if s.at.is_some() && o.still.is_none() {
            return Err(refused("--at is the time of the still (--png): give one, or leave --at out"));
        }
        if !s.times.is_empty() && o.filmstrip.is_none() {
            return Err(refused(
                "--times are the times of the filmstrip's frames: give --filmstrip, or leave --times out",
            ));
        }
        if o.filmstrip.is_some() && (o.video.is_some() || o.frames.is_some() || o.still.is_some() || o.html.is_some()) {
            return Err(refused(
                "a filmstrip is written by a command of its own: leave out the video, --frames, --png and --html",
            ));
        }
        if o.html.is_some() && matches!(self.sources, Sources::Archive(_)) {
            return Err(refused("--archive places its cells on a board, which the HTML viewer does not show"));
        }
        if o.filmstrip.is_some() {
            self.frame_size()?;
        }
        if let Some(t) = s.times.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
            return Err(refused(format!("--times {t} is invalid: give simulated times in seconds ≥ 0")));
        }
        if let (Some(file), Some(format)) = (&o.video, video) {
            self.check_video(&file.path, format)?;
        }
        for file in [&o.still, &o.filmstrip, &o.html].into_iter().flatten() {
            check_output_writable(&file.path)?;
        }
        if let Some(dir) = &o.frames {
            crate::output::check_dir_creatable(&dir.path)?;
        }
        Ok(Formats { video, still, filmstrip })
    }

    /// The video's encoder settings (mp4) or its file (GIF), before anything is simulated.
    fn check_video(&self, path: &Path, format: VideoFormat) -> Result<(), JobError> {
        match format {
            #[cfg(feature = "video")]
            VideoFormat::Mp4 => {
                let settings = self.video_settings(self.frame_size()?);
                crate::output::video::preflight(path, &settings)?;
            }
            #[cfg(not(feature = "video"))]
            VideoFormat::Mp4 => {
                let _ = path;
                return Err(MovieError::VideoUnavailable.into());
            }
            VideoFormat::Gif => check_output_writable(path)?,
        }
        Ok(())
    }

    #[cfg(feature = "video")]
    fn video_settings(&self, (width, height): (u32, u32)) -> crate::output::video::VideoSettings {
        let e = &self.settings.encoding;
        crate::output::video::VideoSettings {
            width,
            height,
            fps: self.settings.fps.unwrap_or(DEFAULT_FPS),
            preset: e.preset.clone(),
            crf: e.crf,
            tune: e.tune.clone(),
            threads: e.threads,
        }
    }

    /// The size of one frame: the picture's, or a filmstrip's share of its width (frames 8 px apart).
    fn frame_size(&self) -> Result<(u32, u32), JobError> {
        let (width, height) = self.settings.size;
        if self.outputs.filmstrip.is_none() {
            return Ok((width, height));
        }
        let frames =
            if self.settings.times.is_empty() { DEFAULT_FILMSTRIP_FRAMES } else { self.settings.times.len() as u32 };
        let gaps = (frames - 1).saturating_mul(FILMSTRIP_GAP_PX);
        let frame_width = width.saturating_sub(gaps) / frames.max(1);
        if frame_width == 0 {
            return Err(refused(format!(
                "--size {width}x{height} is too narrow for a filmstrip of {frames} frames {FILMSTRIP_GAP_PX} px apart; \
                 give a wider --size"
            )));
        }
        Ok((frame_width, height))
    }

    /// The movie's sources, and the board that places them (--archive).
    fn load_sources(
        &self,
        size: (u32, u32),
        notes: &mut Vec<String>,
    ) -> Result<(Vec<MovieSource>, Option<Board>), JobError> {
        let options = &self.settings.options;
        let duration = self.settings.duration;
        let cells = |cells: Vec<RunCell>| -> Result<Vec<MovieSource>, JobError> {
            cells.into_iter().map(|c| c.source(options, duration).map_err(JobError::from)).collect()
        };
        let runs = match &self.sources {
            Sources::Showcase => return Ok((showcase_sources(options, duration)?, None)),
            Sources::Top { dirs, k } => return Ok((cells(run_media::top::top_individuals(dirs, *k)?)?, None)),
            Sources::Archive(dir) => {
                let run = run_media::open_run(dir)?;
                let grid = run_media::archive::archive_grid(&run, size.0, size.1)?;
                let board = Board::new(grid.board)?;
                return Ok((cells(grid.cells)?, Some(board)));
            }
            Sources::Front(dir) => {
                let run = run_media::open_run(dir)?;
                return Ok((cells(run_media::front::front_row(&run)?)?, None));
            }
            Sources::Runs(runs) => runs,
        };
        if runs.iter().filter(|r| matches!(&r.kind, RunKind::ScenarioFile(p) if is_stdin(p))).count() > 1 {
            return Err(refused("`-` (a scenario from stdin) can be given only once"));
        }
        let mut sources = Vec::with_capacity(runs.len());
        for run in runs {
            let source = match &run.kind {
                RunKind::ScenarioFile(path) => {
                    let scenario = self.read_scenario(path)?;
                    let name = if is_stdin(path) { "stdin".to_string() } else { path.display().to_string() };
                    self.scenario_source(name, &scenario, path.display().to_string())?
                }
                RunKind::Scenario { name, scenario, .. } => {
                    let mut scenario = (**scenario).clone();
                    if let Some(d) = duration {
                        scenario.world.duration = d;
                    }
                    self.scenario_source(name.clone(), &scenario, name.clone())?
                }
                RunKind::Recording(path) => {
                    let source = MovieSource::recording(path, duration)?;
                    let missing = source.missing_layers(options);
                    if !missing.is_empty() {
                        notes.push(format!(
                            "warning: {} has no {} to draw; record them with `vsr2d simulate SCENARIO --record {} \
                             --detail {}`",
                            path.display(),
                            missing.join(", "),
                            path.display(),
                            missing.join(",")
                        ));
                    }
                    source
                }
            };
            sources.push(source);
        }
        Ok((sources, None))
    }

    /// A scenario as a source, with the job's extra snapshot detail: resolved once, refused as
    /// `scenario {shown}` when it costs more than the job's limits, and as the source `name` for any other
    /// problem.
    fn scenario_source(&self, name: String, scenario: &Scenario, shown: String) -> Result<MovieSource, JobError> {
        let scene = scenario
            .resolve_within(&self.limits)
            .map_err(|source| JobError::Scenario { path: shown, source: Box::new(source) })?;
        let scene = scene.map(|scene| scene.with_detail(self.settings.detail));
        Ok(MovieSource::scene(name, scene, &self.settings.options)?)
    }

    /// Reads and validates a scenario file (`-`: stdin), with the job's duration (its cost is checked when
    /// it is resolved, in [`RenderJob::scenario_source`]).
    fn read_scenario(&self, path: &Path) -> Result<Scenario, JobError> {
        let read = if is_stdin(path) {
            crate::scenario::read_bounded(std::io::stdin().lock(), "scenario")
        } else {
            std::fs::File::open(path).and_then(|f| crate::scenario::read_bounded(f, "scenario"))
        };
        let shown = if is_stdin(path) { "from stdin".to_string() } else { path.display().to_string() };
        let text = read.map_err(|source| JobError::ReadScenario { shown, source })?;
        let invalid = |source| JobError::Scenario { path: path.display().to_string(), source: Box::new(source) };
        let mut scenario = Scenario::from_json(&text).map_err(invalid)?;
        if let Some(d) = self.settings.duration {
            scenario.world.duration = d;
        }
        Ok(scenario)
    }
}

/// Whether a scenario path names stdin.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether an input path names a recording (`*.jsonl`) rather than a scenario.
pub fn is_recording(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

/// A frame sink that fails once `keep_going` says no, so a video stops at the next frame (the
/// unfinished file is deleted when the sink drops).
struct Cancellable<'a> {
    inner: Box<dyn FrameSink + Send + 'a>,
    keep_going: &'a (dyn Fn() -> bool + Sync),
}

impl FrameSink for Cancellable<'_> {
    fn push(&mut self, frame: &tiny_skia::Pixmap) -> Result<(), FrameError> {
        if !(self.keep_going)() {
            return Err(FrameError::Io {
                path: "(interrupted)".into(),
                source: std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted"),
            });
        }
        self.inner.push(frame)
    }

    fn frame_count(&self) -> u64 {
        self.inner.frame_count()
    }

    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        self.inner.finish()
    }
}

impl Plan {
    /// What the user should read before the run starts (warnings and notes, one line each).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The job as preflighted.
    pub fn job(&self) -> &RenderJob {
        &self.job
    }

    /// Frames of the whole movie.
    pub fn total_frames(&self) -> u64 {
        self.movie.frame_count()
    }

    /// Simulates once and writes every output.
    pub fn run(mut self, hooks: &mut Hooks<'_>) -> Result<JobReport, JobError> {
        let total = self.movie.frame_count();
        let outputs = &self.job.outputs;
        let mut sinks: Vec<Box<dyn FrameSink + Send>> = Vec::new();
        if let (Some(file), Some(format)) = (&outputs.video, self.formats.video) {
            sinks.push(self.job.video_sink(&file.path, format, self.frame_size)?);
        }
        if let Some(dir) = &outputs.frames {
            let sequence =
                if outputs.replace_frames { PngSequence::replace(&dir.path) } else { PngSequence::create(&dir.path) };
            sinks.push(Box::new(sequence.map_err(JobError::Frames)?));
        }
        let keep_going = hooks.keep_going;
        let (frames_drawn, scenes) = if sinks.is_empty() {
            // Only pictures (or only the HTML page): draw just their frames; the others only move the cameras.
            let scenes = self.movie.scenes_at(&self.keep, keep_going)?;
            (scenes.len() as u64, scenes)
        } else {
            let mut sink: Box<dyn FrameSink + Send> =
                if sinks.len() == 1 { sinks.pop().expect("one sink") } else { Box::new(Tee::new(sinks)) };
            if let Some(board) = self.board.clone() {
                sink = Box::new(board.sink(sink));
            }
            let mut sink: Box<dyn FrameSink + Send + '_> = Box::new(Cancellable { inner: sink, keep_going });
            let progress = &mut *hooks.progress;
            let (pushed, scenes) =
                self.movie.run_with(&mut *sink, Overlap::Threaded, &self.keep, &mut |n| progress(n, total))?;
            sink.finish()?;
            (pushed, scenes)
        };
        let mut scenes = scenes.into_iter();
        if let (Some(file), Some(format)) = (&outputs.still, self.formats.still) {
            let scene = scenes.next().ok_or(MovieError::FramePassed { frame: self.keep[0] })?;
            match &self.board {
                Some(board) => {
                    let pixmap = Rasterizer::new().render(&scene).ok_or_else(|| {
                        refused(format!("a {}×{} picture cannot be drawn", scene.width, scene.height))
                    })?;
                    write_png(&board.composed(&pixmap), &file.path)?;
                }
                None => write_figure(&scene, &file.path, format)?,
            }
        }
        if let (Some(file), Some(format)) = (&outputs.filmstrip, self.formats.filmstrip) {
            let frames: Vec<Scene> = scenes.collect();
            let strip = Scene::filmstrip(&frames, self.job.settings.size.0)
                .ok_or_else(|| refused("the filmstrip would be empty or too large"))?;
            write_figure(&strip, &file.path, format)?;
        }
        let metrics = if outputs.metrics { self.movie.finish_runs_while(keep_going)? } else { Vec::new() };
        let layout = self.board.as_ref().map_or(self.movie.layout(), |b| GridLayout::new(b.spec().cols, b.spec().rows));
        let page = match &outputs.html {
            Some(file) => {
                let title = self.job.settings.title.clone().unwrap_or_else(|| {
                    file.path.file_stem().map_or_else(|| "vsr2d".into(), |s| s.to_string_lossy().into_owned())
                });
                let view = ViewSettings { movie: self.movie_settings.clone(), title, ..ViewSettings::default() };
                // The run's snapshots again (captured), or, for a page alone, the sources as they came.
                let page = crate::view::build_page_while(self.movie.into_sources(), &view, keep_going)?;
                crate::output::atomic::write(&file.path, page.html.as_bytes())
                    .map_err(|source| JobError::Page { path: file.path.clone(), source })?;
                Some(page.stats)
            }
            None => None,
        };
        Ok(JobReport {
            metrics,
            frames_drawn,
            total_frames: total,
            fps: self.fps,
            frame_size: self.frame_size,
            layout,
            page,
        })
    }
}

impl RenderJob {
    /// The sink that writes the video: the one choice of encoder by format.
    fn video_sink(
        &self,
        path: &Path,
        format: VideoFormat,
        size: (u32, u32),
    ) -> Result<Box<dyn FrameSink + Send>, JobError> {
        match format {
            #[cfg(feature = "video")]
            VideoFormat::Mp4 => Ok(Box::new(crate::output::video::Mp4Encoder::new(path, self.video_settings(size))?)),
            #[cfg(not(feature = "video"))]
            VideoFormat::Mp4 => {
                let _ = (path, size);
                Err(MovieError::VideoUnavailable.into())
            }
            VideoFormat::Gif => {
                let _ = size;
                Ok(Box::new(GifSink::create(path, self.settings.fps.unwrap_or(DEFAULT_FPS))?))
            }
        }
    }
}
