//! The render pipeline (spec §12): simulations or recordings in, frames out to a [`FrameSink`].
//!
//! Memory stays flat however long the clip: every source holds only the snapshot it currently shows, the
//! frames stream into the sink one by one, and the only per-frame buffers are the camera observations
//! made since the previous frame.
//!
//! Speed on few cores: the live simulations advance in lockstep, one frame interval at a time, in
//! parallel (rayon), and a second thread encodes finished frames while the next ones are simulated and
//! drawn ([`crate::output::pipeline`], a bounded queue of frames).
//!
//! ```ignore
//! let sources = vec![MovieSource::scenario("biped", &scenario, &options)?];
//! let mut movie = Movie::new(sources, &MovieSettings { options, ..MovieSettings::default() })?;
//! let mut sink: Box<dyn FrameSink + Send> = Box::new(PngSequence::create("frames")?);
//! movie.run(&mut *sink, &mut |_| {})?;
//! sink.finish()?;
//! let metrics = movie.finish_runs()?;
//! ```

pub mod board;
pub mod showcase;

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use tiny_skia::Pixmap;

use crate::geom::Aabb;
use crate::output::pipeline::{run_pipeline, Overlap, PipelineError};
use crate::output::record::{JsonlReader, RecordError};
use crate::output::{FrameError, FrameSink};
use crate::render::{
    auto_layout, frame_count, frame_time, Camera, CellFrame, CellRect, CellView, FrameCursor, GridLayout, GridRenderer,
    RenderError, RenderOptions, Scene, FRAME_TIME_EPS,
};
use crate::scenario::{Limits, Scenario, ScenarioError};
use crate::sim::world::SimError;
use crate::snapshot::{BodyId, Flow, ListenerError, Snapshot, SnapshotDetail, SnapshotListener};
use crate::task::Simulation;
use crate::task::{Run, RunError, RunResult, Task};

/// Why a movie could not be made. Each message names the input involved.
#[derive(Debug, thiserror::Error)]
pub enum MovieError {
    // The cause is chained, not repeated: `{:#}` prints "scenario `x`: <cause>".
    #[error("scenario `{name}`")]
    Scenario {
        name: String,
        #[source]
        source: Box<ScenarioError>,
    },
    #[error("simulation `{name}`")]
    Simulation {
        name: String,
        #[source]
        source: SimError,
    },
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[cfg(feature = "video")]
    #[error(transparent)]
    Video(#[from] crate::output::video::VideoError),
    #[error("`{name}` delivered no snapshot; give a simulation that has not been run yet")]
    NoSnapshot { name: String },
    #[error("scenario `{name}`: a `force_deflection` sweep is many short runs, not one: it is not rendered; see its frames in `vsr2d cells-report`")]
    NotOneRun { name: String },
    #[error("nothing to render: give at least one scenario or recording")]
    NoSources,
    #[error(
        "layout {layout} has {capacity} cells but {cells} simulations (robots) are to be shown; give a larger \
         layout, or --shared-camera to show each multi-robot world in one cell"
    )]
    LayoutTooSmall { layout: GridLayout, capacity: usize, cells: usize },
    #[error("frame rate 0 is invalid; give a positive number of frames per second (e.g. 30)")]
    ZeroFps,
    #[error("this vsr2d was built without the `video` feature, so it cannot write mp4; write PNG frames instead")]
    VideoUnavailable,
    #[error("could not create a scratch directory for the benchmark video: {0}")]
    Scratch(#[source] std::io::Error),
    /// A frame asked of a movie that has already gone past it.
    #[error("frame {frame} was asked after the movie had gone past it")]
    FramePassed { frame: u64 },
    /// The caller asked to stop (e.g. Ctrl-C in Python) before frame `frame`.
    #[error("stopped before frame {frame}")]
    Stopped { frame: u64 },
}

impl MovieError {
    /// Whether the caller's input is at fault (a scenario, recording, layout, frame rate, or a build
    /// without video) rather than the run.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            MovieError::Scenario { .. }
                | MovieError::Record(_)
                | MovieError::Render(_)
                | MovieError::NoSources
                | MovieError::NotOneRun { .. }
                | MovieError::LayoutTooSmall { .. }
                | MovieError::ZeroFps
                | MovieError::VideoUnavailable
        )
    }
}

/// The snapshot content that the given layers draw (springs, ropes, welds need optional detail).
pub(crate) fn detail_for(options: &RenderOptions) -> SnapshotDetail {
    SnapshotDetail { springs: options.springs, ropes: options.ropes, welds: options.welds, controller: options.signals }
}

/// The first frame whose time reaches `t` (k/fps ≥ t − 1e−9): the frame that shows time `t`.
pub(crate) fn frame_index_at(t: f64, fps: u32) -> u64 {
    if !(t.is_finite() && t > 0.0) || fps == 0 {
        return 0;
    }
    let fps_f = f64::from(fps);
    if t * fps_f >= 1e15 {
        // Beyond any movie (and beyond exact frame arithmetic): "after the last frame".
        return u64::MAX;
    }
    let mut k = ((t - FRAME_TIME_EPS) * fps_f).ceil().max(0.0) as u64;
    while k > 0 && frame_time(k - 1, fps_f) >= t - FRAME_TIME_EPS {
        k -= 1;
    }
    while frame_time(k, fps_f) < t - FRAME_TIME_EPS {
        k += 1;
    }
    k
}

/// One input of a movie: a live simulation or a recording. A source with several robots shows one cell
/// per robot, each camera following its own robot; a single-robot source, and a source made of soft
/// cells only (the cells of a chain or a pair are one scene), shows one cell.
pub struct MovieSource {
    name: String,
    stream: Stream,
    /// (id, label) of the bodies, in creation order.
    bodies: Vec<(BodyId, String)>,
    /// Every body is a soft cell.
    cells_only: bool,
    /// Time of the last snapshot the source will deliver.
    end_t: f64,
    /// The optional content its snapshots carry (a recording carries what it was recorded with).
    detail: SnapshotDetail,
    /// Shown above the robot's label in its cell (`render --top`: rank, fitness and run).
    heading: Option<String>,
    /// The overlay's distance and speed line: not for a fold, whose own figures (each chain's error)
    /// are what its frames should show.
    progress: bool,
    /// The ground level, m, for a task that measures height (jumping): its cell gets a height ruler.
    heights: Option<f64>,
}

impl MovieSource {
    /// Builds `scenario` for rendering: its snapshot detail is extended with what `options` draws.
    pub fn scenario(name: impl Into<String>, scenario: &Scenario, options: &RenderOptions) -> Result<Self, MovieError> {
        Self::scene(name, scenario.resolve(&Limits::NONE), options)
    }

    /// [`MovieSource::scenario`] of a scenario already resolved (its limits checked where it was read):
    /// the scene's snapshot detail is extended with what `options` draws; a scenario that did not resolve
    /// is refused here, as `scenario` refuses it.
    pub fn scene(
        name: impl Into<String>,
        scene: Result<crate::scenario::Scene, ScenarioError>,
        options: &RenderOptions,
    ) -> Result<Self, MovieError> {
        let name = name.into();
        let sim = scene
            .and_then(|scene| scene.with_detail(detail_for(options)).build())
            .map_err(|source| MovieError::Scenario { name: name.clone(), source: Box::new(source) })?;
        Self::simulation(name, sim)
    }

    /// A built simulation, run to its `steps`. Its snapshots carry the detail it was built with. Started
    /// here (its t = 0 snapshot kept for the first frame); a `force_deflection` sweep is refused.
    pub fn simulation(name: impl Into<String>, sim: Simulation) -> Result<Self, MovieError> {
        let name = name.into();
        let world = sim.world();
        // Objects (boxes, walls) are scenery: drawn in their robots' cells, never given cells of their own.
        let bodies: Vec<_> = sim
            .labels()
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, l)| (BodyId(i), l))
            .filter(|(id, _)| !world.is_object(*id))
            .collect();
        let cells_only = bodies.iter().all(|(id, _)| world.is_cell(*id));
        let end_t = sim.steps() as f64 * world.settings().dt;
        let detail = world.settings().detail;
        let progress = !matches!(sim.task(), Task::Fold(_));
        let heights = match sim.task() {
            Task::Jumping { ground } => Some(*ground),
            _ => None,
        };
        let mut latest = Latest(None);
        let run = sim.start_with(&mut [&mut latest]).map_err(|e| match e {
            RunError::NotOneRun | RunError::ForceDeflection(_) => MovieError::NotOneRun { name: name.clone() },
            RunError::Sim(source) => MovieError::Simulation { name: name.clone(), source },
        })?;
        Ok(MovieSource {
            name,
            stream: Stream::Live { run: Box::new(run), first: latest.0 },
            bodies,
            cells_only,
            end_t,
            detail,
            heading: None,
            progress,
            heights,
        })
    }

    /// The source with `heading` shown in its cell's overlay above the robot's label.
    pub(crate) fn with_heading(self, heading: impl Into<String>) -> Self {
        MovieSource { heading: Some(heading.into()), ..self }
    }

    /// A JSON Lines recording (`vsr2d simulate --record`), cut after `until` seconds if given. The file is
    /// read once here to check every line and find its end, then streamed again while rendering.
    pub fn recording(path: impl AsRef<Path>, until: Option<f64>) -> Result<Self, MovieError> {
        let path = path.as_ref();
        let mut bodies = None;
        let mut cells_only = true;
        let mut detail = None;
        let mut end_t = f64::NEG_INFINITY;
        for snapshot in JsonlReader::open(path)? {
            let s = snapshot?;
            if until.is_some_and(|u| s.t > u + FRAME_TIME_EPS) {
                break;
            }
            if bodies.is_none() {
                cells_only = s.voxel_robots().next().is_none();
            }
            bodies.get_or_insert_with(|| {
                s.bodies.iter().filter(|b| b.as_object().is_none()).map(|b| (b.id(), b.label().to_string())).collect()
            });
            detail.get_or_insert_with(|| SnapshotDetail {
                springs: s.voxel_robots().all(|r| r.springs.is_some()),
                ropes: s.voxel_robots().all(|r| r.ropes.is_some()),
                welds: s.voxel_robots().all(|r| r.welds.is_some()),
                controller: s.voxel_robots().all(|r| r.controller.is_some()),
            });
            end_t = end_t.max(s.t);
        }
        let bodies = bodies.ok_or_else(|| RecordError::Empty { path: path.to_owned() })?;
        let reader = JsonlReader::open(path)?;
        Ok(MovieSource {
            name: path.display().to_string(),
            stream: Stream::Recorded { reader, until, done: false },
            bodies,
            cells_only,
            end_t,
            detail: detail.unwrap_or_default(),
            heading: None,
            progress: true,
            heights: None,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Simulated time of the source's last snapshot.
    pub fn end_time(&self) -> f64 {
        self.end_t
    }

    /// The layers of `options` this source cannot draw because its snapshots lack their content (a
    /// recording made without that detail), by the name of the `--detail` value that records it.
    pub(crate) fn missing_layers(&self, options: &RenderOptions) -> Vec<&'static str> {
        let wanted = detail_for(options);
        [
            ("springs", wanted.springs, self.detail.springs),
            ("ropes", wanted.ropes, self.detail.ropes),
            ("welds", wanted.welds, self.detail.welds),
            ("controller", wanted.controller, self.detail.controller),
        ]
        .into_iter()
        .filter(|(_, want, have)| *want && !*have)
        .map(|(name, _, _)| name)
        .collect()
    }

    /// How many grid cells the source fills.
    pub fn cell_count(&self) -> usize {
        if self.cells_only {
            1
        } else {
            self.bodies.len().max(1)
        }
    }
}

/// Where a source's snapshots come from.
enum Stream {
    /// Boxed: a simulation is large and a recording small.
    Live {
        /// Its monitor holds what `vsr2d simulate` would report of the run.
        run: Box<Run>,
        /// The t = 0 snapshot, until it is given.
        first: Option<Arc<Snapshot>>,
    },
    Recorded {
        reader: JsonlReader,
        until: Option<f64>,
        done: bool,
    },
    /// The snapshots a movie captured, given again without simulating, then the rest of the stream
    /// ([`Movie::into_sources`]).
    Replay(std::vec::IntoIter<Arc<Snapshot>>, Box<Stream>),
}

impl Stream {
    /// The next snapshot in time order, `None` at the end of the run or recording.
    fn next_snapshot(&mut self, name: &str) -> Result<Option<Arc<Snapshot>>, MovieError> {
        match self {
            Stream::Live { run, first } => {
                if let Some(s) = first.take() {
                    return Ok(Some(s));
                }
                if run.finished() {
                    return Ok(None);
                }
                let mut latest = Latest(None);
                // No listener here ever stops the run.
                run.step(&mut [&mut latest])
                    .map_err(|source| MovieError::Simulation { name: name.to_owned(), source })?;
                Ok(latest.0)
            }
            Stream::Recorded { reader, until, done } => {
                if *done {
                    return Ok(None);
                }
                match reader.next() {
                    Some(Ok(s)) if !until.is_some_and(|u| s.t > u + FRAME_TIME_EPS) => Ok(Some(Arc::new(s))),
                    Some(Err(e)) => {
                        *done = true;
                        Err(e.into())
                    }
                    Some(Ok(_)) | None => {
                        *done = true;
                        Ok(None)
                    }
                }
            }
            Stream::Replay(captured, rest) => match captured.next() {
                Some(s) => Ok(Some(s)),
                None => rest.next_snapshot(name),
            },
        }
    }
}

/// Keeps the snapshot just emitted.
struct Latest(Option<Arc<Snapshot>>);

impl SnapshotListener for Latest {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self.0 = Some(Arc::clone(snapshot));
        Ok(Flow::Continue)
    }
}

/// One cell's view of a source: which robots it frames, and the boxes seen since the last frame.
struct Track {
    cell: usize,
    bodies: Option<Vec<BodyId>>,
    label: String,
    /// `label` with the task's own figures so far under it (what the overlay shows).
    shown: String,
    /// (t, robots' box) of every snapshot pulled since the cameras were last fed.
    pending: Vec<(f64, Aabb)>,
}

/// A source in the pipeline, with the snapshot it shows.
struct Feed {
    name: String,
    /// [`MovieSource`]'s `progress` and `heights`.
    progress: bool,
    heights: Option<f64>,
    stream: Stream,
    cursor: FrameCursor<Arc<Snapshot>>,
    tracks: Vec<Track>,
    /// The rest of its [`MovieSource`], to give it back as a replay.
    bodies: Vec<(BodyId, String)>,
    cells_only: bool,
    end_t: f64,
    detail: SnapshotDetail,
    heading: Option<String>,
    /// Every snapshot delivered so far, when the movie captures them ([`Movie::capture_snapshots`]).
    captured: Option<Vec<Arc<Snapshot>>>,
}

/// Pulls snapshots for a [`FrameCursor`], noting each one's boxes for the cameras (so the 3 s follow
/// window sees every step, not only the rendered ones) and keeping the first error.
struct Pull<'a> {
    name: &'a str,
    stream: &'a mut Stream,
    tracks: &'a mut [Track],
    captured: &'a mut Option<Vec<Arc<Snapshot>>>,
    error: Option<MovieError>,
}

impl Iterator for Pull<'_> {
    type Item = Arc<Snapshot>;
    fn next(&mut self) -> Option<Arc<Snapshot>> {
        match self.stream.next_snapshot(self.name) {
            Ok(Some(s)) => {
                for track in self.tracks.iter_mut() {
                    track.pending.push((s.t, s.bodies_bbox(track.bodies.as_deref())));
                }
                if let Some(captured) = self.captured.as_mut() {
                    captured.push(Arc::clone(&s));
                }
                Some(s)
            }
            Ok(None) => None,
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

impl Feed {
    fn advance(&mut self, frame_t: f64) -> Result<(), MovieError> {
        let mut pull = Pull {
            name: &self.name,
            stream: &mut self.stream,
            tracks: &mut self.tracks,
            captured: &mut self.captured,
            error: None,
        };
        let shown = self.cursor.advance(frame_t, &mut pull).is_some();
        match pull.error {
            Some(e) => Err(e),
            None if !shown => Err(MovieError::NoSnapshot { name: self.name.clone() }),
            None => Ok(()),
        }
    }
}

/// How a movie looks.
#[derive(Debug, Clone, PartialEq)]
pub struct MovieSettings {
    /// Frame size in pixels (mp4 needs both even).
    pub width: u32,
    pub height: u32,
    /// Frames per simulated second.
    pub fps: u32,
    /// Grid of cells; `None` picks one with [`auto_layout`].
    pub layout: Option<GridLayout>,
    pub options: RenderOptions,
    /// A fixed world rectangle for every cell instead of the follow cameras.
    pub fixed_view: Option<Aabb>,
    /// One cell per source even when it has several robots: its camera frames them all (otherwise each
    /// robot gets its own cell, which follows it and shows the others it sees).
    pub shared_camera: bool,
}

impl Default for MovieSettings {
    fn default() -> Self {
        MovieSettings {
            width: 1280,
            height: 720,
            fps: 30,
            layout: None,
            options: RenderOptions::default(),
            fixed_view: None,
            shared_camera: false,
        }
    }
}

/// The result of one live simulation, named: what `vsr2d simulate` prints for it, with its `name`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunMetrics {
    pub name: String,
    #[serde(flatten)]
    pub result: RunResult,
}

/// One cell of a movie's grid.
#[derive(Debug, Clone, PartialEq)]
pub struct MovieCell {
    /// Index of the source it shows (in the order given to [`Movie::new`]).
    pub source: usize,
    pub source_name: String,
    pub label: String,
    pub rect: CellRect,
}

/// Frames of a grid of sources, in display order (spec §12 frame rule).
pub struct Movie {
    feeds: Vec<Feed>,
    /// (feed, track) of each cell, row-major.
    cells: Vec<(usize, usize)>,
    renderer: GridRenderer,
    fps: f64,
    frames: u64,
    /// The next frame to produce.
    next: u64,
    /// Robots and cells over all sources.
    bodies: usize,
}

impl Movie {
    /// Lays the sources out (one cell per robot of multi-robot sources) and prepares the renderer.
    pub fn new(sources: Vec<MovieSource>, settings: &MovieSettings) -> Result<Self, MovieError> {
        if sources.is_empty() {
            return Err(MovieError::NoSources);
        }
        if settings.fps == 0 {
            return Err(MovieError::ZeroFps);
        }
        let total: usize = sources.iter().map(|s| if settings.shared_camera { 1 } else { s.cell_count() }).sum();
        let layout = settings.layout.unwrap_or_else(|| auto_layout(total));
        if layout.cells() < total {
            return Err(MovieError::LayoutTooSmall { layout, capacity: layout.cells(), cells: total });
        }
        let mut renderer =
            GridRenderer::with_layout(settings.width, settings.height, layout, settings.options.clone())?;
        let fps = f64::from(settings.fps);
        let frames = frame_count(sources.iter().map(|s| s.end_t), fps);
        let bodies = sources.iter().map(|s| s.bodies.len()).sum();

        let mut cells = Vec::with_capacity(total);
        let mut feeds = Vec::with_capacity(sources.len());
        for (f, source) in sources.into_iter().enumerate() {
            let tracks: Vec<Track> = if source.cell_count() > 1 && !settings.shared_camera {
                let track = |(j, (id, label)): (usize, &(BodyId, String))| Track {
                    cell: cells.len() + j,
                    bodies: Some(vec![*id]),
                    label: label.clone(),
                    shown: label.clone(),
                    pending: Vec::new(),
                };
                source.bodies.iter().enumerate().map(track).collect()
            } else {
                let mut label = match source.bodies.first() {
                    Some((_, l)) if !source.cells_only || source.bodies.len() == 1 => l.clone(),
                    _ => source.name.clone(),
                };
                if let Some(heading) = &source.heading {
                    label = format!("{heading}\n{label}");
                }
                vec![Track { cell: cells.len(), bodies: None, shown: label.clone(), label, pending: Vec::new() }]
            };
            cells.extend((0..tracks.len()).map(|j| (f, j)));
            feeds.push(Feed {
                name: source.name,
                progress: source.progress,
                heights: source.heights,
                stream: source.stream,
                cursor: FrameCursor::new(),
                tracks,
                bodies: source.bodies,
                cells_only: source.cells_only,
                end_t: source.end_t,
                detail: source.detail,
                heading: source.heading,
                captured: None,
            });
        }
        if let Some(view) = settings.fixed_view {
            for i in 0..cells.len() {
                renderer.set_camera(i, Camera::fixed(view));
            }
        }
        Ok(Movie { feeds, cells, renderer, fps, frames, next: 0, bodies })
    }

    /// Number of frames of the whole movie.
    pub fn frame_count(&self) -> u64 {
        self.frames
    }

    /// The robots and cells shown, over all sources (what a frame's drawing cost grows with).
    pub(crate) fn body_count(&self) -> usize {
        self.bodies
    }

    pub fn layout(&self) -> GridLayout {
        self.renderer.layout()
    }

    /// Advances every source to frame `k`'s time (in parallel) and feeds the cameras what they saw.
    fn advance(&mut self, k: u64) -> Result<(), MovieError> {
        let t = frame_time(k, self.fps);
        self.feeds.par_iter_mut().map(|feed| feed.advance(t)).collect::<Result<(), MovieError>>()?;
        for feed in &mut self.feeds {
            let figures = match &feed.stream {
                // Only the task's own figures: the robots' metrics are not shown per frame.
                Stream::Live { run, .. } => run.task_metrics().map(|m| m.figures()),
                Stream::Recorded { .. } | Stream::Replay(..) => None,
            };
            for track in &mut feed.tracks {
                track.shown.clone_from(&track.label);
                if let Some(f) = &figures {
                    track.shown.push('\n');
                    track.shown.push_str(f);
                }
                if let Some(camera) = self.renderer.camera_mut(track.cell) {
                    track.pending.drain(..).for_each(|(t, bbox)| camera.observe(t, bbox));
                } else {
                    track.pending.clear();
                }
            }
        }
        self.next = k + 1;
        Ok(())
    }

    /// Simulates and renders the next frame; `None` after the last one.
    pub fn next_frame(&mut self) -> Result<Option<&Pixmap>, MovieError> {
        if self.next >= self.frames {
            return Ok(None);
        }
        self.render_frame(self.next)?;
        Ok(Some(self.renderer.pixmap()))
    }

    fn render_frame(&mut self, k: u64) -> Result<(), MovieError> {
        self.advance(k)?;
        let Movie { feeds, cells, renderer, .. } = self;
        let frames = Self::frames_of(feeds, cells);
        renderer.render(&frames)?;
        Ok(())
    }

    /// The cells' current snapshots (every feed has one after its first advance).
    fn frames_of<'a>(feeds: &'a [Feed], cells: &'a [(usize, usize)]) -> Vec<CellFrame<'a>> {
        cells
            .iter()
            .filter_map(|&(f, j)| {
                let (feed, track) = (&feeds[f], &feeds[f].tracks[j]);
                let mut frame = CellFrame::new(feed.cursor.current()?).label(&track.shown);
                if !feed.progress {
                    frame = frame.without_progress();
                }
                frame.heights = feed.heights;
                Some(match &track.bodies {
                    Some(ids) => frame.bodies(ids),
                    None => frame,
                })
            })
            .collect()
    }

    /// Renders the remaining frames into `sink`: frames are simulated and drawn on this thread while
    /// another pushes the finished ones into the sink (see [`crate::output::pipeline`]). Calls
    /// `progress` with the number of frames pushed so far. Returns the frames pushed; the caller
    /// finishes the sink.
    pub fn run(&mut self, sink: &mut (dyn FrameSink + Send), progress: &mut dyn FnMut(u64)) -> Result<u64, MovieError> {
        self.run_with(sink, Overlap::Threaded, &[], progress).map(|(n, _)| n)
    }

    /// [`Movie::run`] with drawing and encoding overlapped or not (the sink takes the same frames either
    /// way), also keeping the scenes of frames `keep` (each clamped to the last frame; in the order
    /// given): the stills and filmstrips of a run that writes a video too.
    pub(crate) fn run_with(
        &mut self,
        sink: &mut (dyn FrameSink + Send),
        overlap: Overlap,
        keep: &[u64],
        progress: &mut dyn FnMut(u64),
    ) -> Result<(u64, Vec<Scene>), MovieError> {
        let size = self.size();
        let last = self.frames.saturating_sub(1);
        let mut kept: std::collections::HashMap<u64, Scene> = std::collections::HashMap::new();
        let draw = |frame: &mut Pixmap| -> Result<bool, MovieError> {
            if self.next >= self.frames {
                return Ok(false);
            }
            let k = self.next;
            self.render_frame(k)?;
            if keep.iter().any(|&i| i.min(last) == k) {
                kept.insert(k, self.renderer.last_scene().clone());
            }
            self.renderer.swap_frame(frame);
            Ok(true)
        };
        let pushed = run_pipeline(sink, size, overlap, draw, progress).map_err(|e| match e {
            PipelineError::Draw(e) => e,
            PipelineError::Sink(e) => MovieError::Frame(e),
        })?;
        let scenes = keep
            .iter()
            .map(|&i| kept.get(&i.min(last)).cloned().ok_or(MovieError::FramePassed { frame: i }))
            .collect::<Result<_, _>>()?;
        Ok((pushed, scenes))
    }

    /// The scenes of frames `indices` (each clamped to the last frame; in the order given), walking the
    /// movie once from its current frame and drawing no other frame: the cameras move through the
    /// others as in the video, so each scene is that frame of the video. `keep_going` is asked before
    /// each frame (a long simulation stays cancellable).
    pub(crate) fn scenes_at(
        &mut self,
        indices: &[u64],
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Vec<Scene>, MovieError> {
        let last = self.frames.saturating_sub(1);
        let wanted: std::collections::BTreeSet<u64> = indices.iter().map(|&k| k.min(last)).collect();
        let mut got: std::collections::HashMap<u64, Scene> = std::collections::HashMap::new();
        if let Some(&max) = wanted.iter().next_back() {
            if let Some(&first) = wanted.iter().next().filter(|&&f| f < self.next) {
                return Err(MovieError::FramePassed { frame: first });
            }
            while self.next <= max {
                let i = self.next;
                if !keep_going() {
                    return Err(MovieError::Stopped { frame: i });
                }
                self.advance(i)?;
                if wanted.contains(&i) {
                    let Movie { feeds, cells, renderer, .. } = self;
                    let frames = Self::frames_of(feeds, cells);
                    got.insert(i, renderer.scene(&frames)?);
                } else {
                    self.move_cameras();
                }
            }
        }
        indices.iter().map(|&k| got.get(&k.min(last)).cloned().ok_or(MovieError::FramePassed { frame: k })).collect()
    }

    /// Renders only frame `k` (clamped to the last frame). Earlier frames are simulated and move the
    /// cameras exactly as in the video, without being drawn, so the still equals frame `k` of the video.
    pub fn still(&mut self, k: u64) -> Result<&Pixmap, MovieError> {
        self.still_while(k, &|| true)
    }

    /// [`Movie::still`] that asks `keep_going` before each frame it advances through, and stops with
    /// [`MovieError::Stopped`] when it says no (a long simulation up to a late frame stays cancellable).
    pub(crate) fn still_while(&mut self, k: u64, keep_going: &dyn Fn() -> bool) -> Result<&Pixmap, MovieError> {
        let k = k.min(self.frames.saturating_sub(1));
        while self.next < k {
            let i = self.next;
            if !keep_going() {
                return Err(MovieError::Stopped { frame: i });
            }
            self.advance(i)?;
            self.move_cameras();
        }
        self.render_frame(k)?;
        Ok(self.renderer.pixmap())
    }

    /// Walks the remaining frames without drawing them, handing `visit` each frame's index, the cells'
    /// snapshots and what each cell shows of them (camera view, overlay progress): exactly what the
    /// video's frames show, for the HTML viewer to draw itself. Returns the frames walked.
    pub fn replay(
        &mut self,
        visit: &mut dyn FnMut(u64, &[CellFrame<'_>], &[CellView]) -> Result<(), MovieError>,
    ) -> Result<u64, MovieError> {
        let mut walked = 0;
        let mut views = Vec::with_capacity(self.cells.len());
        while self.next < self.frames {
            let k = self.next;
            self.advance(k)?;
            let Movie { feeds, cells, renderer, .. } = self;
            let frames = Self::frames_of(feeds, cells);
            views.clear();
            views.extend(frames.iter().enumerate().filter_map(|(i, frame)| renderer.observe(i, frame)));
            visit(k, &frames, &views)?;
            walked += 1;
        }
        Ok(walked)
    }

    /// The union of cell `cell`'s follow-camera views at frames `indices`: one fixed view that shows its
    /// robots at each of them, so frames drawn through it show the robot move against the ground (a
    /// filmstrip of a walker). Replays the movie from its current frame; `None` if no frame was seen.
    pub(crate) fn framing_view(mut self, cell: usize, indices: &[u64]) -> Result<Option<Aabb>, MovieError> {
        let mut union: Option<Aabb> = None;
        self.replay(&mut |k, _, views| {
            if let (true, Some(v)) = (indices.contains(&k), views.get(cell)) {
                union = Some(union.map_or(v.view, |u| u.union(v.view)));
            }
            Ok(())
        })?;
        Ok(union)
    }

    /// Shows `labels[k]` in cell k's overlay instead of its run's or robot's name (figures: "(a) worm");
    /// a task's own figures stay under it. Returns false, changing nothing, unless there is exactly one
    /// label per cell.
    pub(crate) fn set_labels(&mut self, labels: &[String]) -> bool {
        if labels.len() != self.cells.len() {
            return false;
        }
        for (&(f, j), label) in self.cells.iter().zip(labels) {
            let track = &mut self.feeds[f].tracks[j];
            track.label.clone_from(label);
            track.shown.clone_from(label);
        }
        true
    }

    /// The cells of the grid, row-major: which source each shows, its label and its pixel rectangle.
    pub fn cells(&self) -> Vec<MovieCell> {
        self.cells
            .iter()
            .enumerate()
            .map(|(i, &(f, j))| MovieCell {
                source: f,
                source_name: self.feeds[f].name.clone(),
                label: self.feeds[f].tracks[j].label.clone(),
                rect: self.renderer.cell_rect(i).unwrap_or(CellRect { x: 0, y: 0, width: 0, height: 0 }),
            })
            .collect()
    }

    /// The frame size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.renderer.width(), self.renderer.height())
    }

    /// Frames per simulated second.
    pub fn fps(&self) -> f64 {
        self.fps
    }

    /// What [`GridRenderer::render`] does to the cameras, without drawing.
    fn move_cameras(&mut self) {
        let frames = Self::frames_of(&self.feeds, &self.cells);
        for (i, frame) in frames.iter().enumerate() {
            self.renderer.observe(i, frame);
        }
    }

    /// Runs every live simulation to its end (the last frame may come a little before it) and returns
    /// their metrics, in source order. Recordings have none; they are read to their end too while the
    /// movie captures its snapshots ([`Movie::capture_snapshots`]).
    pub fn finish_runs(&mut self) -> Result<Vec<RunMetrics>, MovieError> {
        self.finish_runs_while(&|| true)
    }

    /// [`Movie::finish_runs`] that asks `keep_going` before each snapshot and stops with
    /// [`MovieError::Stopped`] when it says no (Ctrl-C in Python).
    pub(crate) fn finish_runs_while(
        &mut self,
        keep_going: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<RunMetrics>, MovieError> {
        let frame = self.next;
        let metrics: Vec<Option<RunMetrics>> = self
            .feeds
            .par_iter_mut()
            .map(|feed| {
                let live = matches!(feed.stream, Stream::Live { .. });
                if !live && feed.captured.is_none() {
                    return Ok(None);
                }
                loop {
                    if !keep_going() {
                        return Err(MovieError::Stopped { frame });
                    }
                    let Some(s) = feed.stream.next_snapshot(&feed.name)? else { break };
                    if let Some(captured) = &mut feed.captured {
                        captured.push(s);
                    }
                }
                let Stream::Live { run, .. } = &feed.stream else { return Ok(None) };
                Ok(Some(RunMetrics { name: feed.name.clone(), result: run.result() }))
            })
            .collect::<Result<_, MovieError>>()?;
        Ok(metrics.into_iter().flatten().collect())
    }

    /// Keeps every snapshot the sources deliver from now on (call it before the first frame), so that
    /// [`Movie::into_sources`] gives the run again without simulating it: `render --html` fills its
    /// viewer page from the snapshots its video showed.
    pub fn capture_snapshots(&mut self) {
        for feed in &mut self.feeds {
            feed.captured.get_or_insert_with(Vec::new);
        }
    }

    /// The sources again, each delivering the snapshots captured since [`Movie::capture_snapshots`], then
    /// the rest of its stream: after [`Movie::finish_runs`], the whole run without simulating it; a
    /// movie that has drawn no frame gives its sources back as they came.
    pub fn into_sources(self) -> Vec<MovieSource> {
        self.feeds
            .into_iter()
            .map(|feed| MovieSource {
                name: feed.name,
                stream: Stream::Replay(feed.captured.unwrap_or_default().into_iter(), Box::new(feed.stream)),
                bodies: feed.bodies,
                cells_only: feed.cells_only,
                end_t: feed.end_t,
                detail: feed.detail,
                heading: feed.heading,
                progress: feed.progress,
                heights: feed.heights,
            })
            .collect()
    }

    /// The showcase (see [`crate::movie::showcase`]) as a movie, `seconds` long (default 20 s).
    pub fn showcase(settings: &MovieSettings, seconds: Option<f64>) -> Result<Self, MovieError> {
        let sources = showcase_sources(&settings.options, seconds)?;
        Movie::new(sources, settings)
    }
}

/// The showcase scenarios as sources, with their duration set to `seconds` if given.
pub fn showcase_sources(options: &RenderOptions, seconds: Option<f64>) -> Result<Vec<MovieSource>, MovieError> {
    let scenarios = crate::movie::showcase::scenarios()
        .map_err(|source| MovieError::Scenario { name: "showcase".into(), source: Box::new(source) })?;
    scenarios
        .into_iter()
        .map(|(name, mut scenario)| {
            if let Some(s) = seconds {
                scenario.world.duration = s;
            }
            MovieSource::scenario(name, &scenario, options)
        })
        .collect()
}

/// The encoder settings `vsr2d render` uses by default at a given size.
#[cfg(feature = "video")]
pub fn default_video_settings(width: u32, height: u32) -> crate::output::video::VideoSettings {
    crate::output::video::VideoSettings {
        threads: DEFAULT_X264_THREADS,
        ..crate::output::video::VideoSettings::new(width, height)
    }
}

/// x264 threads for `vsr2d render`: x264 is the slowest stage, and its frame threads overlap with
/// rendering. Files are reproducible for a fixed thread count, so this is a fixed number, not "auto".
pub const DEFAULT_X264_THREADS: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_index_at_follows_the_frame_rule() {
        assert_eq!(frame_index_at(0.0, 30), 0);
        assert_eq!(frame_index_at(10.0, 30), 300);
        assert_eq!(frame_index_at(10.01, 30), 301);
        assert_eq!(frame_index_at(1.0 / 3.0, 30), 10);
        assert_eq!(frame_index_at(-1.0, 30), 0);
        assert_eq!(frame_index_at(1e308, 30), u64::MAX);
    }

    #[test]
    fn live_sources_count_frames_by_the_spec_rule() {
        let options = RenderOptions::default();
        let sources = showcase_sources(&options, Some(1.0)).unwrap();
        let settings = MovieSettings { width: 64, height: 36, ..MovieSettings::default() };
        let movie = Movie::new(sources, &settings).unwrap();
        // Runs end at t = 1 s: frames 0..=30.
        assert_eq!(movie.frame_count(), 31);
        assert_eq!(movie.layout(), GridLayout { cols: 2, rows: 2 });
    }

    #[test]
    fn a_still_equals_the_same_frame_of_the_stream() {
        let settings = MovieSettings { width: 96, height: 54, ..MovieSettings::default() };
        let mut streamed = Movie::showcase(&settings, Some(0.5)).unwrap();
        let mut frames = Vec::new();
        while let Some(frame) = streamed.next_frame().unwrap() {
            frames.push(frame.clone());
        }
        assert_eq!(frames.len(), 16);
        let mut movie = Movie::showcase(&settings, Some(0.5)).unwrap();
        assert!(movie.still(9).unwrap().data() == frames[9].data(), "frame 9 rendered alone differs from the stream's");
    }

    /// A heading (`render --top`'s rank, fitness and run) goes above the robot's label in the cell's
    /// overlay: the cell's label says so, and the frame differs from the unheaded one only in the
    /// overlay's top-left corner.
    #[test]
    fn a_heading_is_drawn_above_the_robots_label() {
        let settings =
            MovieSettings { width: 320, height: 180, layout: Some(GridLayout::new(1, 1)), ..Default::default() };
        let first = || showcase_sources(&RenderOptions::default(), Some(0.2)).unwrap().remove(0);
        let robot = first().bodies[0].1.clone();
        let mut plain = Movie::new(vec![first()], &settings).unwrap();
        let mut headed = Movie::new(vec![first().with_heading("#1 fitness 0.5000 · run-a")], &settings).unwrap();
        assert_eq!(headed.cells()[0].label, format!("#1 fitness 0.5000 · run-a\n{robot}"));
        let (a, b) = (plain.still(3).unwrap().clone(), headed.still(3).unwrap().clone());
        let differing: Vec<(u32, u32)> = (0..a.height())
            .flat_map(|y| (0..a.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| a.pixel(x, y) != b.pixel(x, y))
            .collect();
        assert!(differing.len() > 100, "the heading is drawn: {} pixels differ", differing.len());
        assert!(differing.iter().all(|&(x, y)| x < 240 && y < 90), "only the overlay differs");
    }

    /// The bytes of the 0.5 s showcase at 96×54 written by `sink` into `dir`/`name`, drawn and encoded
    /// with `overlap`.
    fn showcase_bytes(
        dir: &Path,
        name: &str,
        overlap: Overlap,
        sink: impl FnOnce(&Path) -> Box<dyn FrameSink + Send>,
    ) -> Vec<u8> {
        let settings = MovieSettings { width: 96, height: 54, ..MovieSettings::default() };
        let mut movie = Movie::showcase(&settings, Some(0.5)).unwrap();
        let path = dir.join(name);
        let mut sink = sink(&path);
        assert_eq!(movie.run_with(&mut *sink, overlap, &[], &mut |_| {}).unwrap().0, 16);
        sink.finish().unwrap();
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn overlapped_drawing_and_encoding_write_the_same_bytes_as_serial() {
        let dir = tempfile::tempdir().unwrap();
        let gif = |path: &Path| -> Box<dyn FrameSink + Send> {
            Box::new(crate::output::gif::GifSink::create(path, 30).unwrap())
        };
        let serial = showcase_bytes(dir.path(), "serial.gif", Overlap::Serial, gif);
        let threaded = showcase_bytes(dir.path(), "threaded.gif", Overlap::Threaded, gif);
        assert!(serial.len() > 1000);
        assert!(serial == threaded, "the GIF differs when drawing and encoding overlap");
        #[cfg(feature = "video")]
        {
            let mp4 = |path: &Path| -> Box<dyn FrameSink + Send> {
                Box::new(crate::output::video::Mp4Encoder::new(path, default_video_settings(96, 54)).unwrap())
            };
            let serial = showcase_bytes(dir.path(), "serial.mp4", Overlap::Serial, mp4);
            let threaded = showcase_bytes(dir.path(), "threaded.mp4", Overlap::Threaded, mp4);
            assert!(serial == threaded, "the mp4 differs when drawing and encoding overlap");
        }
    }

    /// Takes `ok` frames, then fails.
    struct FailingSink {
        ok: u64,
        taken: u64,
    }

    impl FrameSink for FailingSink {
        fn push(&mut self, _: &Pixmap) -> Result<(), FrameError> {
            if self.taken == self.ok {
                return Err(FrameError::Io { path: "out.mp4".into(), source: std::io::Error::other("no space left") });
            }
            self.taken += 1;
            Ok(())
        }
        fn frame_count(&self) -> u64 {
            self.taken
        }
        fn finish(self: Box<Self>) -> Result<(), FrameError> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_encoder_stops_the_movie_with_its_error() {
        let settings = MovieSettings { width: 64, height: 36, ..MovieSettings::default() };
        let mut movie = Movie::showcase(&settings, Some(2.0)).unwrap();
        assert_eq!(movie.frame_count(), 61);
        let mut sink = FailingSink { ok: 3, taken: 0 };
        let err = movie.run(&mut sink, &mut |_| {}).unwrap_err();
        assert!(
            matches!(&err, MovieError::Frame(FrameError::Io { source, .. }) if source.to_string() == "no space left"),
            "{err:?}"
        );
        assert_eq!(sink.taken, 3);
        // Drawing stopped soon after: the failed frame, the queue and the frame being drawn.
        assert!(movie.next <= 4 + crate::output::pipeline::FRAME_QUEUE as u64 + 1, "drew {} frames", movie.next);
    }

    /// A movie that captured its snapshots gives its run again: the replayed sources draw the same frames,
    /// and a movie that has drawn nothing gives its sources back as they came.
    #[test]
    fn captured_sources_replay_the_same_frames() {
        let settings = MovieSettings { width: 96, height: 54, ..MovieSettings::default() };
        let frames_of = |movie: &mut Movie| {
            let mut frames = Vec::new();
            while let Some(frame) = movie.next_frame().unwrap() {
                frames.push(frame.data().to_vec());
            }
            frames
        };
        let mut live = Movie::showcase(&settings, Some(0.5)).unwrap();
        live.capture_snapshots();
        let drawn = frames_of(&mut live);
        assert_eq!(live.finish_runs().unwrap().len(), 4);
        let mut replayed = Movie::new(live.into_sources(), &settings).unwrap();
        assert!(frames_of(&mut replayed) == drawn, "the replay draws other frames");
        assert!(replayed.finish_runs().unwrap().is_empty(), "a replay simulates nothing");
        let untouched = Movie::showcase(&settings, Some(0.5)).unwrap();
        assert!(frames_of(&mut Movie::new(untouched.into_sources(), &settings).unwrap()) == drawn);
    }

    #[test]
    fn too_small_a_layout_is_refused() {
        let sources = showcase_sources(&RenderOptions::default(), Some(0.1)).unwrap();
        let settings = MovieSettings { layout: Some(GridLayout::new(3, 1)), ..MovieSettings::default() };
        assert!(matches!(
            Movie::new(sources, &settings),
            Err(MovieError::LayoutTooSmall { capacity: 3, cells: 4, .. })
        ));
    }
}
