//! The native part of the `vsr2d` Python package: thin bindings over the vsr2d library (no simulation
//! logic here). Scenarios, metrics and snapshots cross as Python dicts through their serde types;
//! observations, actions and frames as numpy arrays. The GIL is released while Rust simulates or
//! renders.

mod fixtures;
mod guard;
mod representation;

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pythonize::{depythonize, pythonize};

use vsr2d::controller::SensorLayout;
use vsr2d::evolve::Experiment;
use vsr2d::output::{FrameSink, VideoFormat};
use vsr2d::render::{CellFrame, GridLayout, GridRenderer, RenderOptions};
use vsr2d::render_job::{
    Encoding, Hooks, JobError, JobReport, Look, OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind,
    Sources,
};
use vsr2d::scenario::{Limits, Scenario, Scene};
use vsr2d::snapshot::Snapshot;
use vsr2d::snapshot::SnapshotDetail;
use vsr2d::stepping::{PerVoxel, StepError, SteppedSimulation};

pyo3::create_exception!(
    _vsr2d,
    ScenarioError,
    PyValueError,
    "A scenario (or experiment) that cannot be used; `path` is the JSON path of the problem (\"\" for the whole \
     scenario) and `message` says what is wrong and how to fix it."
);

/// A Python exception for a scenario error, with its JSON path as an attribute.
fn scenario_error(py: Python<'_>, e: &vsr2d::scenario::ScenarioError) -> PyErr {
    invalid(py, e.path(), e.to_string())
}

fn invalid(py: Python<'_>, path: String, message: String) -> PyErr {
    let err = ScenarioError::new_err(message.clone());
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail.
    let _ = value.setattr("path", path);
    let _ = value.setattr("message", message);
    err
}

/// The JSON text of a scenario given as a dict, a JSON string, or a path (str or os.PathLike).
fn json_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() {
        guard::check_nesting(obj)?;
        let value: serde_json::Value = depythonize(obj)?;
        return serde_json::to_string(&value).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    if obj.is_instance_of::<PyString>() {
        let s: String = obj.extract()?;
        if s.trim_start().starts_with('{') {
            return Ok(s);
        }
    }
    let path: PathBuf = obj.extract().map_err(|_| {
        PyValueError::new_err("a scenario is a dict, a JSON string or the path of a JSON file (str or pathlib.Path)")
    })?;
    Ok(std::fs::read_to_string(&path)?)
}

/// Parses and validates a scenario. Its cost is checked where it is resolved for a run ([`resolve`], the
/// render job, `evaluate_many`'s records), so that its cells are planned once.
fn scenario(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Scenario> {
    let text = json_text(obj)?;
    Scenario::from_json(&text).map_err(|e| scenario_error(py, &e))
}

/// `s` resolved for a run, refused as a ScenarioError over the resource limits (unless `allow_large`);
/// any other problem is the run's, reported when it is built.
fn resolve(py: Python<'_>, s: &Scenario, allow_large: bool) -> PyResult<Result<Scene, vsr2d::scenario::ScenarioError>> {
    s.resolve_within(&guard::limits(allow_large)).map_err(|e| scenario_error(py, &e))
}

/// A serde value as Python data shaped like its JSON (fixed-size arrays as lists, not tuples), so it
/// compares equal to what `json.loads` makes of the command line's output.
fn to_py<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(pythonize(py, &value)?)
}

fn eval_error(e: vsr2d::batch::EvalError) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// Runs a scenario to the end; returns its result, `{"robots": [...]}` (with `"cells"` when it has soft
/// cells and the task's own metrics under the task's name: `"jumping"`, `"fold"`, …), with the same
/// numbers, bit for bit, as `vsr2d simulate`. Raises ScenarioError for a scenario that cannot be used, RuntimeError for a run
/// that fails (unstable).
#[pyfunction]
#[pyo3(signature = (scenario, *, allow_large = false))]
fn evaluate<'py>(py: Python<'py>, scenario: &Bound<'py, PyAny>, allow_large: bool) -> PyResult<Bound<'py, PyAny>> {
    let s = self::scenario(py, scenario)?;
    let scene = resolve(py, &s, allow_large)?;
    let output = guard::interruptible(py, |cancel| guard::evaluate(scene, cancel))?.map_err(eval_error)?;
    to_py(py, &output)
}

/// Evaluates many scenarios in parallel (`jobs` threads, default: one per core); returns one dict per
/// scenario, in order: the metrics, or `{"error": message, "path": JSON path or None}`.
#[pyfunction]
#[pyo3(signature = (scenarios, *, jobs = None, allow_large = false))]
fn evaluate_many<'py>(
    py: Python<'py>,
    scenarios: &Bound<'py, PyAny>,
    jobs: Option<usize>,
    allow_large: bool,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    // Parse under the GIL (the items are Python objects), resolve and simulate without it.
    let limits = guard::limits(allow_large);
    let parsed: Vec<Result<Scenario, (Option<String>, String)>> = scenarios
        .try_iter()?
        .map(|item| {
            let item = item?;
            Ok(self::scenario(py, &item).map_err(|e| {
                let value = e.value(py);
                let path = value.getattr("path").ok().and_then(|p| p.extract::<String>().ok());
                (path, value.to_string())
            }))
        })
        .collect::<PyResult<_>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(guard::check_jobs(jobs)?)
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start {jobs:?} worker threads: {e}")))?;
    let results: Vec<serde_json::Value> = guard::interruptible(py, |cancel| {
        use rayon::prelude::*;
        pool.install(|| {
            parsed
                .par_iter()
                .map(|p| match p {
                    Ok(s) => vsr2d::batch::evaluate_record_within(s, &limits, &|| !cancel.load(Ordering::Relaxed)),
                    Err((path, message)) => vsr2d::batch::error_record(message, path.as_deref()),
                })
                .collect()
        })
    })?;
    results.iter().map(|r| Ok(pythonize(py, r)?)).collect()
}

/// The JSON Schema of scenario files (what `vsr2d schema` prints).
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let value =
        serde_json::to_value(schemars::schema_for!(Scenario)).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(pythonize(py, &value)?)
}

fn render_error(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// An RGB numpy array (H, W, 3) of a rendered frame (opaque, so alpha is dropped).
fn rgb_array<'py>(py: Python<'py>, pixmap: &tiny_skia::Pixmap) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let (w, h) = (pixmap.width() as usize, pixmap.height() as usize);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for p in pixmap.pixels() {
        let c = p.demultiply();
        rgb.extend_from_slice(&[c.red(), c.green(), c.blue()]);
    }
    PyArray1::from_vec(py, rgb).reshape([h, w, 3])
}

/// Renders one snapshot (a dict as `Simulation.snapshot()` returns or a recording holds) into an RGB
/// array of shape (height, width, 3), the camera framing every body.
#[pyfunction]
#[pyo3(signature = (snapshot, *, width = 640, height = 360, label = None))]
fn render_frame<'py>(
    py: Python<'py>,
    snapshot: &Bound<'py, PyAny>,
    width: u32,
    height: u32,
    label: Option<String>,
) -> PyResult<Bound<'py, PyArray3<u8>>> {
    guard::check_frame(width, height)?;
    guard::check_nesting(snapshot)?;
    let snapshot: Snapshot = depythonize(snapshot)?;
    let pixmap = py
        .detach(|| {
            let mut r = GridRenderer::new(width, height, 1, 1, RenderOptions::default())?;
            let mut frame = CellFrame::new(&snapshot);
            if let Some(l) = &label {
                frame = frame.label(l);
            }
            r.render(&[frame]).map(|p| p.clone())
        })
        .map_err(render_error)?;
    rgb_array(py, &pixmap)
}

/// A render job's error as the Python exception: `ValueError` for bad input (with the message the
/// command line prints), `RuntimeError` for a run that failed.
fn job_error(e: JobError) -> PyErr {
    let message = describe(&e);
    if e.is_input() {
        PyValueError::new_err(message)
    } else {
        PyRuntimeError::new_err(message)
    }
}

/// `value` parsed by `parse`, its error as a `ValueError`.
fn parsed<T>(value: Option<String>, parse: fn(&str) -> Result<T, String>) -> PyResult<Option<T>> {
    value.map(|v| parse(&v).map_err(PyValueError::new_err)).transpose()
}

/// `layout="ROWSxCOLS"`.
fn grid_layout(layout: Option<String>) -> PyResult<Option<GridLayout>> {
    layout.map(|l| l.parse::<GridLayout>().map_err(|e| PyValueError::new_err(format!("layout {l:?}: {e}")))).transpose()
}

/// `fixed_camera=(x0, y0, x1, y1)`, checked as the command line's `--fixed-camera x0,y0,x1,y1`.
fn camera(rect: Option<(f64, f64, f64, f64)>) -> PyResult<Option<vsr2d::geom::Aabb>> {
    rect.map(|(x0, y0, x1, y1)| {
        vsr2d::render_job::parse_camera(&format!("{x0},{y0},{x1},{y1}")).map_err(PyValueError::new_err)
    })
    .transpose()
}

/// One run or a list of them.
fn items<'py>(runs: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if runs.is_instance_of::<PyList>() || runs.is_instance_of::<pyo3::types::PyTuple>() {
        runs.try_iter()?.collect()
    } else {
        Ok(vec![runs.clone()])
    }
}

/// The runs of a job, named `{what}[i]`: a `.jsonl` path is a recording, anything else a scenario (dict,
/// JSON text or path), read here.
fn run_inputs(py: Python<'_>, items: &[Bound<'_, PyAny>], what: &str) -> PyResult<Vec<RunInput>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let given_as = format!("{what}[{i}]");
            let file = item.extract::<PathBuf>().ok();
            if let Some(path) = file.as_ref().filter(|p| vsr2d::render_job::is_recording(p)) {
                return Ok(RunInput { given_as, kind: RunKind::Recording(path.clone()) });
            }
            let scenario = Box::new(self::scenario(py, item)?);
            Ok(RunInput { kind: RunKind::Scenario { name: given_as.clone(), scenario, file }, given_as })
        })
        .collect()
}

/// Preflights `job` (every check, before anything is simulated) and runs it with the GIL released,
/// Ctrl-C stopping it between frames (no unfinished file is published).
fn run_job(py: Python<'_>, job: RenderJob) -> PyResult<JobReport> {
    // The job checks the cost of the scenarios read here (once, as it resolves them). One over the limits
    // as given is refused as reading it is, a ScenarioError with the JSON path; one the job's duration
    // makes too costly, as the job refuses it.
    let as_given = job.settings.duration.is_none();
    let plan = py.detach(|| job.preflight()).map_err(|e| match e {
        JobError::Scenario { source, .. } if as_given => scenario_error(py, &source),
        e => job_error(e),
    })?;
    guard::interruptible(py, |cancel| {
        plan.run(&mut Hooks { progress: &mut |_, _| {}, keep_going: &|| !cancel.load(Ordering::Relaxed) })
    })?
    .map_err(job_error)
}

/// Simulates and renders runs side by side, as `vsr2d render` does (the same job, the same bytes), and
/// returns each simulated scenario's metrics.
///
/// - `scenarios`: one or a list, each a scenario (dict, JSON text or path) or the path of a `.jsonl`
///   recording (`vsr2d simulate --record`; the command line's `--from`). None: the bundled showcase.
///   With `top=K`: run directories of `vsr2d evolve` (or directories holding runs), of which the K best
///   individuals are drawn.
/// - `out`: by its extension a video (`.mp4`, `.gif`) or one frame (`.png`, `.svg`, `.pdf`: the frame at
///   simulated time `at`, default the last).
/// - `filmstrip`: a picture (`.png`, `.svg`, `.pdf`) of the frames at `times` (default: the start, the
///   quarters and the end) side by side, `size` the whole picture; written alone (no `out`, `frames`, `html`).
/// - `frames`: a directory for every frame as `frame_NNNNNN.png` (`replace_frames=True` deletes frames
///   already there); `html`: the interactive viewer page of the same run (`title`, default its file name).
/// - `archive`, `front`: a MAP-Elites run's archive on its descriptor grid, an NSGA-II run's front.
/// - `size=(W, H)` pixels, `fps` (videos; default 30, not for an SVG or PDF alone), `duration` seconds
///   (overrides the scenarios', cuts recordings), `layout="ROWSxCOLS"`, `shared_camera`,
///   `fixed_camera=(x0, y0, x1, y1)` metres.
/// - The look: `style` ("screen" or "paper"), `color_by` (a sensor id, e.g. "velocity_magnitude"),
///   layers left out with `no_overlay`, `no_key`, `no_grid`, `no_ticks`, added with `masses`, `springs`,
///   `ropes`, `welds`, `sensor_values`, `velocity`, `touching`, `signals` or `all_layers`; `label` (a str,
///   or a list of one str per cell) shown in the overlay in place of the run's name; `font_scale` (0.5 to 4)
///   on every text size and the boxes around the text.
/// - The mp4 encoder: `preset`, `crf`, `tune`, `threads` (as `vsr2d render --help` describes).
///
/// Bad values and combinations raise `ValueError` with the command line's message, before anything is
/// simulated; `allow_large=True` lifts the resource limits.
#[pyfunction]
#[pyo3(signature = (
    scenarios = None, out = None, *, size = (640, 360), fps = None, duration = None, layout = None, at = None,
    filmstrip = None, times = None, frames = None, replace_frames = false, html = None, title = None, top = None,
    archive = None, front = None, style = None, color_by = None, no_overlay = false, no_key = false,
    no_grid = false, no_ticks = false, masses = false, springs = false, ropes = false, welds = false,
    sensor_values = false, velocity = false, touching = false, signals = false, all_layers = false,
    shared_camera = false, fixed_camera = None, preset = None, crf = None, tune = None, threads = None,
    label = None, font_scale = None, allow_large = false
))]
#[allow(clippy::too_many_arguments)]
fn render<'py>(
    py: Python<'py>,
    scenarios: Option<&Bound<'py, PyAny>>,
    out: Option<PathBuf>,
    size: (u32, u32),
    fps: Option<u32>,
    duration: Option<f64>,
    layout: Option<String>,
    at: Option<f64>,
    filmstrip: Option<PathBuf>,
    times: Option<Vec<f64>>,
    frames: Option<PathBuf>,
    replace_frames: bool,
    html: Option<PathBuf>,
    title: Option<String>,
    top: Option<usize>,
    archive: Option<PathBuf>,
    front: Option<PathBuf>,
    style: Option<String>,
    color_by: Option<String>,
    no_overlay: bool,
    no_key: bool,
    no_grid: bool,
    no_ticks: bool,
    masses: bool,
    springs: bool,
    ropes: bool,
    welds: bool,
    sensor_values: bool,
    velocity: bool,
    touching: bool,
    signals: bool,
    all_layers: bool,
    shared_camera: bool,
    fixed_camera: Option<(f64, f64, f64, f64)>,
    preset: Option<String>,
    crf: Option<u8>,
    tune: Option<String>,
    threads: Option<u32>,
    label: Option<&Bound<'py, PyAny>>,
    font_scale: Option<f32>,
    allow_large: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let items = scenarios.map(items).transpose()?.unwrap_or_default();
    // One label (a str) or one per cell (a list of str), as `--label` once or repeated.
    let labels: Vec<String> = match label {
        None => Vec::new(),
        Some(l) => match l.extract::<String>() {
            Ok(one) => vec![one],
            Err(_) => l
                .extract::<Vec<String>>()
                .map_err(|_| PyValueError::new_err("label: give a str, or a list of str with one label per cell"))?,
        },
    };
    let given = [top.is_some(), archive.is_some(), front.is_some()].iter().filter(|g| **g).count();
    if given > 1 {
        return Err(PyValueError::new_err("give one of top, archive and front"));
    }
    let sources = if let Some(k) = top {
        if !(1..=1024).contains(&k) {
            return Err(PyValueError::new_err(format!("top = {k}: give 1 … 1024 individuals")));
        }
        let dirs = items.iter().map(|i| i.extract::<PathBuf>()).collect::<PyResult<Vec<_>>>().map_err(|_| {
            PyValueError::new_err("with top, scenarios are the run directories of `vsr2d evolve` (paths)")
        })?;
        Sources::Top { dirs, k }
    } else if let Some(dir) = archive.or(front.clone()) {
        if !items.is_empty() {
            return Err(PyValueError::new_err("archive and front draw a run directory: give no scenarios"));
        }
        if front.is_some() {
            Sources::Front(dir)
        } else {
            Sources::Archive(dir)
        }
    } else if items.is_empty() {
        Sources::Showcase
    } else {
        Sources::Runs(run_inputs(py, &items, "scenarios")?)
    };
    let (mut video, mut still) = (None, None);
    if let Some(out) = out {
        let ext = out.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match (VideoFormat::of(&out), ext.as_deref()) {
            (Some(_), _) => video = Some(OutputFile::new(out, "out")),
            (None, Some("png" | "svg" | "pdf")) => still = Some(OutputFile::new(out, "out")),
            (None, _) => {
                return Err(PyValueError::new_err(format!(
                    "{}: unknown output format; the extension chooses it: {} or {} (one frame)",
                    out.display(),
                    VideoFormat::CHOICES,
                    vsr2d::output::figure::FigureFormat::CHOICES
                )))
            }
        }
    }
    let look = Look {
        style: parsed(style, vsr2d::render_job::parse_style)?,
        color_by: parsed(color_by, vsr2d::render_job::parse_sensor)?,
        masses,
        springs,
        ropes,
        welds,
        sensor_values,
        velocity,
        touching,
        signals,
        all_layers,
        no_overlay,
        no_key,
        no_grid,
        no_ticks,
        labelled: !labels.is_empty(),
        font_scale,
    };
    let defaults = Encoding::default();
    let job = RenderJob {
        sources,
        settings: RenderSettings {
            size,
            fps,
            duration,
            layout: grid_layout(layout)?,
            options: look.options(),
            fixed_camera: camera(fixed_camera)?,
            shared_camera,
            detail: SnapshotDetail::default(),
            at,
            times: times.unwrap_or_default(),
            encoding: Encoding {
                preset: preset.unwrap_or(defaults.preset),
                crf: crf.unwrap_or(defaults.crf),
                tune: tune.unwrap_or(defaults.tune),
                threads: threads.unwrap_or(defaults.threads),
            },
            title,
            labels,
        },
        outputs: Outputs {
            video,
            frames: frames.map(|d| OutputFile::new(d, "frames")),
            replace_frames,
            still,
            filmstrip: filmstrip.map(|f| OutputFile::new(f, "filmstrip")),
            html: html.map(|f| OutputFile::new(f, "html")),
            metrics: true,
        },
        limits: guard::limits(allow_large),
    };
    let report = run_job(py, job)?;
    to_py(py, &report.metrics)
}

/// Writes scenarios or recordings as one self-contained interactive HTML page (`vsr2d view`, see
/// docs/viewer.md): `runs` is one run or a list, each a scenario (dict, JSON text or path, simulated here
/// with every optional snapshot detail) or the path of a `.jsonl` recording. `size`, `fps`, `layout`,
/// `duration`, `color_by`, `shared_camera`, `fixed_camera` and `title` (default: the page's file name) as
/// for `render`. Returns what the page holds (frames, fps, numbers, bytes).
#[pyfunction]
#[pyo3(signature = (
    runs, out, *, size = (1280, 720), fps = 30, layout = None, duration = None, color_by = None,
    shared_camera = false, fixed_camera = None, title = None, allow_large = false
))]
#[allow(clippy::too_many_arguments)]
fn view<'py>(
    py: Python<'py>,
    runs: &Bound<'py, PyAny>,
    out: PathBuf,
    size: (u32, u32),
    fps: u32,
    layout: Option<String>,
    duration: Option<f64>,
    color_by: Option<String>,
    shared_camera: bool,
    fixed_camera: Option<(f64, f64, f64, f64)>,
    title: Option<String>,
    allow_large: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let items = items(runs)?;
    let look = Look { color_by: parsed(color_by, vsr2d::render_job::parse_sensor)?, ..Look::default() };
    let job = RenderJob {
        sources: Sources::Runs(run_inputs(py, &items, "runs")?),
        settings: RenderSettings {
            size,
            fps: Some(fps),
            duration,
            layout: grid_layout(layout)?,
            options: look.options(),
            fixed_camera: camera(fixed_camera)?,
            shared_camera,
            detail: vsr2d::snapshot::SnapshotDetail::ALL,
            title,
            ..RenderSettings::default()
        },
        outputs: Outputs { html: Some(OutputFile::new(out, "out")), ..Outputs::default() },
        limits: guard::limits(allow_large),
    };
    let report = run_job(py, job)?;
    to_py(py, &report.page)
}

/// Writes frames (numpy uint8 arrays of shape (H, W, 3) or (H, W, 4), all the same size, e.g. from
/// `Simulation.render()` or a Gymnasium env) to `out`: `.mp4` (H.264) or `.gif`, at `fps` frames per
/// second. The file appears under its name only when complete. Returns the number of frames.
#[pyfunction]
#[pyo3(signature = (frames, out, *, fps = 30))]
fn write_video(py: Python<'_>, frames: &Bound<'_, PyAny>, out: PathBuf, fps: u32) -> PyResult<u64> {
    let mut pixmaps = Vec::new();
    for (i, frame) in frames.try_iter()?.enumerate() {
        let frame = frame?;
        let array = frame.cast::<PyArray3<u8>>().map_err(|_| {
            PyValueError::new_err(format!("frames[{i}] must be a numpy uint8 array of shape (H, W, 3) or (H, W, 4)"))
        })?;
        let readonly = array.try_readonly()?;
        let shape = readonly.shape().to_vec();
        let (h, w, c) = (shape[0], shape[1], shape[2]);
        let mut pixmap = tiny_skia::Pixmap::new(w as u32, h as u32)
            .filter(|_| c == 3 || c == 4)
            .ok_or_else(|| PyValueError::new_err(format!("frames[{i}] has shape {shape:?}; expected (H, W, 3|4)")))?;
        let data = readonly.as_array();
        for (k, px) in pixmap.data_mut().chunks_exact_mut(4).enumerate() {
            let (y, x) = (k / w, k % w);
            // Frames are opaque: premultiplied RGBA equals straight RGBA.
            px.copy_from_slice(&[data[[y, x, 0]], data[[y, x, 1]], data[[y, x, 2]], 255]);
        }
        pixmaps.push(pixmap);
    }
    let format = VideoFormat::of(&out).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{}: unknown video format; the extension chooses it: {}",
            out.display(),
            VideoFormat::CHOICES
        ))
    })?;
    let first = pixmaps.first().ok_or_else(|| PyValueError::new_err("no frames to write"))?;
    let (width, height) = (first.width(), first.height());
    vsr2d::output::check_output_writable(&out).map_err(|e| PyValueError::new_err(e.to_string()))?;
    guard::interruptible(py, |cancel| -> Result<u64, String> {
        // Cancellable: Ctrl-C fails the next frame, and the unfinished file is never published.
        let mut sink = guard::Cancellable { inner: video_sink(format, &out, width, height, fps)?, cancel };
        for p in &pixmaps {
            sink.push(p).map_err(|e| e.to_string())?;
        }
        let n = sink.frame_count();
        sink.inner.finish().map_err(|e| e.to_string())?;
        Ok(n)
    })?
    .map_err(PyRuntimeError::new_err)
}

/// The sink writing `format` to `out`.
fn video_sink(
    format: VideoFormat,
    out: &std::path::Path,
    width: u32,
    height: u32,
    fps: u32,
) -> Result<Box<dyn FrameSink + Send>, String> {
    match format {
        #[cfg(feature = "video")]
        VideoFormat::Mp4 => {
            let mut video = vsr2d::movie::default_video_settings(width, height);
            video.fps = fps;
            Ok(Box::new(vsr2d::output::video::Mp4Encoder::new(out, video).map_err(|e| e.to_string())?))
        }
        #[cfg(not(feature = "video"))]
        VideoFormat::Mp4 => {
            let _ = (width, height);
            Err("this build of vsr2d has no mp4 support (the `video` feature); write a .gif".into())
        }
        VideoFormat::Gif => Ok(Box::new(vsr2d::output::gif::GifSink::create(out, fps).map_err(|e| e.to_string())?)),
    }
}

fn evolve_error(e: vsr2d::evolve::EvolveError) -> PyErr {
    if e.is_input() || matches!(e, vsr2d::evolve::EvolveError::Tell { .. }) {
        PyValueError::new_err(e.to_string())
    } else {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// An evolutionary run of any built-in algorithm (the experiment's `"algorithm"`: `ga`, `cma_es`,
/// `nsga2`, `map_elites`), driven one generation at a time so that anything can evaluate its scenarios
/// (`vsr2d.evolve(..., map=...)`, a Ray cluster, a `concurrent.futures` executor).
/// `Evolution(experiment, out_dir)` starts the run in `out_dir`, or resumes its checkpoint; `ask()`
/// returns the scenarios to simulate (JSON strings, the cache's canonical text); `tell(results)` takes
/// one result per scenario, in order, as `evaluate_many` returns them (a result dict, or
/// `{"error": message}` for a failed run), and records the generation. The run directory is the same,
/// byte for byte, as `vsr2d evolve` writes, whoever evaluated.
#[pyclass(module = "vsr2d._vsr2d")]
struct Evolution {
    /// In a mutex so the class is `Sync` as pyo3 requires (an optimizer is only `Send`); the methods
    /// that change it take `&mut self`, so it is never contended.
    inner: Mutex<vsr2d::evolve::Evolution>,
    out_dir: PathBuf,
}

impl Evolution {
    fn run(&self) -> std::sync::MutexGuard<'_, vsr2d::evolve::Evolution> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn run_mut(&mut self) -> &mut vsr2d::evolve::Evolution {
        self.inner.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[pymethods]
impl Evolution {
    #[new]
    #[pyo3(signature = (experiment, out_dir, *, allow_large = false))]
    fn new(py: Python<'_>, experiment: &Bound<'_, PyAny>, out_dir: PathBuf, allow_large: bool) -> PyResult<Self> {
        let text = json_text(experiment)?;
        let parsed = Experiment::from_json(&text).map_err(|e| representation::experiment_error(py, e))?;
        vsr2d::evolve::limits::check_limits(&parsed, &guard::limits(allow_large))
            .map_err(|e| invalid(py, String::new(), e.to_string()))?;
        // Evolution::open claims (and creates) the directory, refusing a file there with its path.
        let inner = vsr2d::evolve::Evolution::open(parsed, &text, &out_dir).map_err(evolve_error)?;
        Ok(Evolution { inner: Mutex::new(inner), out_dir })
    }

    /// The next generation's scenarios to simulate (JSON strings), in order: the distinct ones the
    /// fitness cache does not hold. Asking again before `tell` gives the same list.
    fn ask(&mut self) -> PyResult<Vec<String>> {
        Ok(self.run_mut().ask().map_err(evolve_error)?.iter().map(|a| a.json.clone()).collect())
    }

    /// Records the asked generation from `results` (one per asked scenario, in order: dicts or JSON
    /// strings as `evaluate_many` returns them); returns the generation's summary
    /// (`generation`, `n_gen`, `best`, `evaluations`, `cache_hits`). Every record is checked first: a
    /// result (a dict with `robots`) or an error record (`{"error": message}`); anything else raises
    /// ValueError naming its index, records nothing and leaves the generation asked.
    fn tell<'py>(&mut self, py: Python<'py>, results: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        if results.is_instance_of::<PyString>() || results.is_instance_of::<PyDict>() {
            return Err(PyValueError::new_err(
                "tell takes a list of records, one per asked scenario (what evaluate_many returns for ask())",
            ));
        }
        let records: Vec<serde_json::Value> = results
            .try_iter()
            .map_err(|_| PyValueError::new_err("tell takes a list of records, one per asked scenario"))?
            .enumerate()
            .map(|(i, item)| representation::record(py, &item?, &format!("results[{i}]")))
            .collect::<PyResult<_>>()?;
        let done = self.run_mut().tell(records).map_err(evolve_error)?;
        let d = PyDict::new(py);
        d.set_item("generation", done.generation)?;
        d.set_item("n_gen", done.n_gen)?;
        d.set_item("best", done.best)?;
        d.set_item("evaluations", done.evaluations)?;
        d.set_item("cache_hits", done.cache_hits)?;
        Ok(d)
    }

    /// The last recorded generation (None before generation 0 is recorded).
    #[getter]
    fn generation(&self) -> Option<u32> {
        self.run().generation()
    }

    /// The experiment's number of generations.
    #[getter]
    fn n_gen(&self) -> u32 {
        self.run().experiment().algorithm().generations()
    }

    /// Whether the last generation is recorded (`final_population.jsonl` is written).
    #[getter]
    fn finished(&self) -> bool {
        self.run().finished()
    }

    #[getter]
    fn out_dir(&self) -> PathBuf {
        self.out_dir.clone()
    }

    /// The log so far: one dict per recorded generation, as `log.jsonl` holds it and the typed reader
    /// of the run directory reads it: the run's counts (`gen`, `evaluations`, `simulations`,
    /// `cache_hits`, `invalid`), `best`, `median`, `worst`, `coverage`, `qd_score`, `hypervolume` and
    /// `objectives` (None where the algorithm does not log them), and the algorithm's own fields
    /// (`best_genome`, `diversity`, `sigma`, `front_size`, ...).
    fn log<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let (_, generations) = vsr2d::evolve::reader::read_log(&self.out_dir.join(vsr2d::evolve::reader::LOG))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        generations.iter().map(|g| to_py(py, g)).collect()
    }

    /// The experiment's algorithm: `ga`, `cma_es`, `nsga2` or `map_elites`.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.run().experiment().algorithm().name()
    }

    /// The run's representation (a `vsr2d.Representation`: decode a genome, read descriptors).
    #[getter]
    fn representation(&self) -> representation::Representation {
        let run = self.run();
        representation::Representation::of(run.experiment().clone(), run.mapper().clone())
    }

    /// The genomes of the generation asked and not yet told, in the algorithm's order, as a 2-D numpy
    /// array (genomes × genes); None when nothing is asked. Each scenario of `ask()` is the decoding of
    /// one or more of them (the rest are in the fitness cache).
    fn asked_genomes<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let run = self.run();
        let Some(genomes) = run.asked_genomes() else { return Ok(None) };
        let cols = run.mapper().genome_size();
        let flat: Vec<f64> = genomes.iter().flatten().copied().collect();
        Ok(Some(PyArray1::from_vec(py, flat).reshape([genomes.len(), cols])?))
    }
}

/// A scenario driven step by step from Python: every robot's controller is replaced by the control
/// values given to `step`.
///
/// `sensors` (a dict in the MLP controller's `sensors` format) sets what each robot observes; by
/// default its MLP (or distributed) controller's layout, or every sensor's current reading per voxel.
///
/// `per_voxel` (a dict `{"signals": 1, "directional": True}`) drives the robots one voxel at a time,
/// as a distributed controller does: observations are arrays of shape (voxels, inputs), each row a
/// voxel's features then the signals its N, E, S, W neighbours sent at the previous step; `step`
/// takes actions of shape (voxels, outputs), each row a voxel's actuation then the signals it sends
/// (N, E, S, W when directional). One policy applied to every row is a shared per-voxel controller.
#[pyclass(module = "vsr2d._vsr2d")]
struct Simulation {
    inner: Mutex<Stepped>,
}

struct Stepped {
    sim: SteppedSimulation,
    /// Kept across frames so the camera follows smoothly and the overlay measures progress.
    renderer: Option<GridRenderer>,
}

impl Simulation {
    fn lock(&self) -> std::sync::MutexGuard<'_, Stepped> {
        guard::lock(&self.inner)
    }
}

/// The observation: 1-D (features of every robot, then t), or 2-D (voxels × inputs) driven per voxel.
fn observation<'py>(py: Python<'py>, sim: &SteppedSimulation) -> PyResult<Bound<'py, PyAny>> {
    match (sim.voxel_observation_shape(), sim.voxel_observation()) {
        (Some((rows, cols)), Some(values)) => Ok(PyArray1::from_vec(py, values).reshape([rows, cols])?.into_any()),
        _ => Ok(PyArray1::from_vec(py, sim.observation()).into_any()),
    }
}

/// A numpy array of complex numbers, by its dtype: numpy casts one to real numbers with only a warning,
/// dropping the imaginary parts, so actions refuse it instead.
fn complex_dtype(obj: &Bound<'_, PyAny>) -> Option<String> {
    let dtype = obj.getattr("dtype").ok()?;
    let kind: String = dtype.getattr("kind").ok()?.extract().ok()?;
    (kind == "c").then(|| dtype.to_string())
}

/// Per-voxel actions: a 2-D numpy array or nested sequences of `shape` (voxels × outputs), flattened
/// row by row. Any other shape is refused, a transposed one too (read in memory order it would run).
fn voxel_values(obj: &Bound<'_, PyAny>, shape: (usize, usize)) -> PyResult<Vec<f64>> {
    let refuse = |got: String| {
        let (voxels, outputs) = shape;
        let hint = if got == format!("({outputs}, {voxels})") { "; transposed? pass actions.T" } else { "" };
        PyValueError::new_err(format!(
            "driven per voxel, actions must have shape ({voxels}, {outputs}): one row per voxel, its actuation \
             then the signals it sends; got {got}{hint}"
        ))
    };
    if let Some(dtype) = complex_dtype(obj) {
        return Err(refuse(format!("complex numbers (dtype {dtype}); pass actions.real")));
    }
    if let Ok(array) = obj.cast::<PyArray2<f64>>() {
        if let Ok(readonly) = array.try_readonly() {
            let view = readonly.as_array();
            if view.dim() != shape {
                return Err(refuse(format!("({}, {})", view.dim().0, view.dim().1)));
            }
            return Ok(view.iter().copied().collect());
        }
    }
    if let Ok(flat) = obj.extract::<Vec<f64>>() {
        let hint = if flat.len() == shape.0 * shape.1 {
            format!("; reshape it to ({}, {})", shape.0, shape.1)
        } else {
            String::new()
        };
        return Err(refuse(format!("a 1-D sequence of {} numbers{hint}", flat.len())));
    }
    let rows: Vec<Vec<f64>> = obj.extract().map_err(|_| refuse("no 2-D array of numbers".into()))?;
    let cols: Vec<usize> = rows.iter().map(Vec::len).collect();
    if rows.len() != shape.0 || cols.iter().any(|&c| c != shape.1) {
        let width = if cols.windows(2).all(|w| w[0] == w[1]) {
            cols.first().map_or("0".to_string(), usize::to_string)
        } else {
            "rows of different lengths".to_string()
        };
        return Err(refuse(format!("({}, {width})", rows.len())));
    }
    Ok(rows.into_iter().flatten().collect())
}

fn info<'py>(py: Python<'py>, sim: &SteppedSimulation, unstable: Option<String>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("t", sim.time())?;
    d.set_item("step", sim.step_index())?;
    d.set_item("steps", sim.total_steps())?;
    d.set_item("x", sim.centres_x())?;
    d.set_item("finished", sim.is_finished())?;
    d.set_item("unstable", unstable)?;
    Ok(d)
}

/// Control values from a numpy array or any sequence of numbers (`expected` of them: the count is
/// checked by the caller; the error says it, so a wrongly shaped array is fixed in one go).
fn values(obj: &Bound<'_, PyAny>, expected: usize) -> PyResult<Vec<f64>> {
    if let Ok(array) = obj.cast::<PyArray1<f64>>() {
        if let Ok(readonly) = array.try_readonly() {
            if let Ok(slice) = readonly.as_slice() {
                return Ok(slice.to_vec());
            }
        }
    }
    let complex = complex_dtype(obj);
    let extracted = if complex.is_some() { None } else { obj.extract::<Vec<f64>>().ok() };
    extracted.ok_or_else(|| {
        let got = match complex {
            Some(dtype) => format!("complex numbers (dtype {dtype}); pass actions.real"),
            None => obj.getattr("shape").map_or_else(|_| obj.get_type().to_string(), |s| format!("shape {s}")),
        };
        PyValueError::new_err(format!(
            "actions must be a 1-D array or sequence of {expected} control values (one number per voxel of each \
             robot, robots in order); got {got}"
        ))
    })
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (scenario, *, sensors = None, per_voxel = None, allow_large = false))]
    fn new(
        py: Python<'_>,
        scenario: &Bound<'_, PyAny>,
        sensors: Option<&Bound<'_, PyAny>>,
        per_voxel: Option<&Bound<'_, PyAny>>,
        allow_large: bool,
    ) -> PyResult<Self> {
        let s = self::scenario(py, scenario)?;
        let scene = resolve(py, &s, allow_large)?;
        let layout: Option<SensorLayout> = sensors
            .map(|d| depythonize(d).map_err(|e| invalid(py, "sensors".into(), format!("`sensors`: {e}"))))
            .transpose()?;
        let per_voxel = per_voxel.map(|d| per_voxel_setting(py, d)).transpose()?;
        let sim = SteppedSimulation::with_scene(s, scene, layout, per_voxel).map_err(|e| scenario_error(py, &e))?;
        Ok(Simulation { inner: Mutex::new(Stepped { sim, renderer: None }) })
    }

    /// Starts again at t = 0 and returns the first observation. `seed` replaces the seed of a random
    /// terrain (uneven, hilly, steppy: a new terrain per episode).
    #[pyo3(signature = (*, seed = None))]
    fn reset<'py>(&self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
        let mut inner = self.lock();
        inner.sim.reset(seed).map_err(|e| scenario_error(py, &e))?;
        inner.renderer = None;
        observation(py, &inner.sim)
    }

    /// Sets one control value per voxel of each robot (clipped to [-1, 1]) and advances to the next
    /// control step. Returns (observation, info); an unstable simulation ends the run with
    /// info["unstable"] saying why. Driven per voxel, `actions` has one row per voxel: its actuation,
    /// then the signals it sends.
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyDict>)> {
        let mut inner = self.lock();
        let shape = inner.sim.voxel_action_shape();
        let per_voxel = shape.is_some();
        let actions = match shape {
            Some(shape) => voxel_values(actions, shape)?,
            None => values(actions, inner.sim.action_sizes().iter().sum())?,
        };
        let sim = &mut inner.sim;
        let result = py.detach(|| if per_voxel { sim.step_voxels(&actions) } else { sim.step(&actions) });
        let unstable = match result {
            Ok(_) => None,
            Err(StepError::Sim(e)) => Some(e.to_string()),
            Err(e @ StepError::Finished { .. }) => return Err(PyRuntimeError::new_err(e.to_string())),
            Err(e) => return Err(PyValueError::new_err(e.to_string())),
        };
        Ok((observation(py, &inner.sim)?, info(py, &inner.sim, unstable)?))
    }

    /// The current observation: every robot's sensor features, then t (driven per voxel: voxels ×
    /// inputs, see the class).
    fn observation<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        observation(py, &self.lock().sim)
    }

    /// Driven per voxel: (voxels, inputs) of an observation; None otherwise.
    #[getter]
    fn voxel_observation_shape(&self) -> Option<(usize, usize)> {
        self.lock().sim.voxel_observation_shape()
    }

    /// Driven per voxel: (voxels, outputs) of an action; None otherwise.
    #[getter]
    fn voxel_action_shape(&self) -> Option<(usize, usize)> {
        self.lock().sim.voxel_action_shape()
    }

    /// The task's metrics so far, as `vsr2d simulate` prints them at the end.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.lock().sim.metrics())
    }

    /// The current state as plain data (the format of `vsr2d simulate --record` lines).
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let snapshot = self.lock().sim.snapshot();
        to_py(py, &snapshot)
    }

    /// The current state drawn as an RGB array (height, width, 3); the camera follows the robots
    /// across calls and the overlay shows the distance travelled since the reset.
    #[pyo3(signature = (*, width = 640, height = 360))]
    fn render<'py>(&self, py: Python<'py>, width: u32, height: u32) -> PyResult<Bound<'py, PyArray3<u8>>> {
        guard::check_frame(width, height)?;
        let mut inner = self.lock();
        let snapshot = inner.sim.snapshot();
        let stale = inner.renderer.as_ref().is_none_or(|r| (r.width(), r.height()) != (width, height));
        if stale {
            inner.renderer =
                Some(GridRenderer::new(width, height, 1, 1, RenderOptions::default()).map_err(render_error)?);
        }
        let label = inner.sim.labels().join(", ");
        let renderer = inner.renderer.as_mut().expect("created above");
        let pixmap = py.detach(|| renderer.render(&[CellFrame::new(&snapshot).label(&label)]).map(|p| p.clone()));
        rgb_array(py, &pixmap.map_err(render_error)?)
    }

    /// Control values per robot (one per voxel), in robot order.
    #[getter]
    fn action_sizes(&self) -> Vec<usize> {
        self.lock().sim.action_sizes()
    }

    /// The total number of control values `step` takes.
    #[getter]
    fn action_size(&self) -> usize {
        self.lock().sim.action_sizes().iter().sum()
    }

    /// The length of an observation (features of every robot, then t).
    #[getter]
    fn observation_size(&self) -> usize {
        self.lock().sim.observation_size()
    }

    /// (low, high): the smallest and largest value of each element of a (1-D) observation, from what
    /// each sensor can report (±inf where a sensor is unbounded), t in [0, the scenario's length].
    #[getter]
    fn observation_bounds<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>) {
        let (low, high) = self.lock().sim.observation_bounds();
        (PyArray1::from_vec(py, low), PyArray1::from_vec(py, high))
    }

    /// The x of every robot's centre, m.
    #[getter]
    fn x(&self) -> Vec<f64> {
        self.lock().sim.centres_x()
    }

    #[getter]
    fn time(&self) -> f64 {
        self.lock().sim.time()
    }

    /// Physics steps done since the reset.
    #[getter]
    fn step_index(&self) -> u64 {
        self.lock().sim.step_index()
    }

    /// The scenario's length in physics steps.
    #[getter]
    fn total_steps(&self) -> u64 {
        self.lock().sim.total_steps()
    }

    #[getter]
    fn finished(&self) -> bool {
        self.lock().sim.is_finished()
    }

    /// The scenario's task (`locomotion`, `jumping`, `carrying`, …).
    #[getter]
    fn task(&self) -> &'static str {
        self.lock().sim.task_name()
    }

    #[getter]
    fn labels(&self) -> Vec<String> {
        self.lock().sim.labels().to_vec()
    }

    /// The scenario as a dict (after validation, with every default filled in).
    #[getter]
    fn scenario<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, self.lock().sim.scenario())
    }
}

/// `{"signals": n, "directional": bool}` (both optional: 1 and True).
fn per_voxel_setting(py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<PerVoxel> {
    let max = vsr2d::controller::distributed::MAX_SIGNALS;
    let bad = |path: &str, what: String| {
        invalid(
            py,
            path.into(),
            format!("`{path}` {what}; give per_voxel={{\"signals\": 0 … {max}, \"directional\": True or False}}"),
        )
    };
    let dict = d.cast::<PyDict>().map_err(|_| bad("per_voxel", "is not a dict".into()))?;
    let mut setting = PerVoxel { signals: 1, directional: true };
    for (key, value) in dict.iter() {
        let key: String = key.extract().map_err(|_| bad("per_voxel", "has a key that is not a string".into()))?;
        match key.as_str() {
            "signals" => {
                setting.signals = value.extract::<usize>().ok().filter(|n| *n <= max).ok_or_else(|| {
                    bad("per_voxel.signals", format!("is {value}: not a whole number from 0 to {max}"))
                })?;
            }
            "directional" => {
                setting.directional = value
                    .extract::<bool>()
                    .map_err(|_| bad("per_voxel.directional", format!("is {value}: not a bool")))?;
            }
            other => return Err(bad("per_voxel", format!("has the unknown key {other:?}"))),
        }
    }
    Ok(setting)
}

fn check_error(py: Python<'_>, e: vsr2d::check::CheckError) -> PyErr {
    match e.manifest_path() {
        Some(path) => invalid(py, path.to_string(), e.to_string()),
        None if e.is_input() => PyValueError::new_err(describe(&e)),
        None => PyRuntimeError::new_err(describe(&e)),
    }
}

/// The error and its causes on one line (as the command line prints them).
fn describe(e: &dyn std::error::Error) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

/// Compares two PNG images as `vsr2d compare` and `vsr2d check` do: a pixel differs when a channel
/// differs by more than `tolerance`; they match when at most `budget` pixels differ (a count, or a
/// percentage string such as "0.5%"). Writes the expected | actual | difference composite to `composite`
/// when they do not match. Returns a dict: `match`, `differing`, `budget`, `max_channel_delta`, `rms`,
/// `bbox` ([x0, y0, x1, y1] or None), `expected_size`, `actual_size`, `summary`.
#[pyfunction]
#[pyo3(signature = (expected, actual, tolerance = 2, budget = None, composite = None))]
fn compare<'py>(
    py: Python<'py>,
    expected: PathBuf,
    actual: PathBuf,
    tolerance: u8,
    budget: Option<&Bound<'py, PyAny>>,
    composite: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    use vsr2d::render::compare::Budget;
    let budget: Budget = match budget {
        None => Budget::Pixels(0),
        Some(b) if b.is_instance_of::<PyString>() => b.extract::<String>()?.parse().map_err(PyValueError::new_err)?,
        Some(b) => Budget::Pixels(b.extract::<usize>().map_err(|_| {
            PyValueError::new_err("budget must be a pixel count (12) or a percentage string (\"0.5%\")")
        })?),
    };
    let open = |p: &PathBuf| {
        vsr2d::render::compare::read_image(p)
            .map_err(|e| PyValueError::new_err(format!("cannot read image {}: {e}", p.display())))
    };
    let (e, a) = (open(&expected)?, open(&actual)?);
    if let Some(path) = &composite {
        vsr2d::output::check_distinct(&[("composite", path)], &[("expected", &expected), ("actual", &actual)])
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    let c = py.detach(|| vsr2d::render::compare::compare(&e, &a, tolerance));
    let pixels = budget.pixels(&e);
    if let (Some(path), false) = (&composite, c.within(pixels)) {
        let image = vsr2d::render::compare::composite(&e, &a, &c, &[c.summary(pixels)]);
        vsr2d::output::png::write_rgba_image(path, &image)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot write {}: {e}", path.display())))?;
    }
    let value = serde_json::json!({
        "match": c.within(pixels),
        "differing": c.differing,
        "budget": pixels,
        "max_channel_delta": c.max_channel_delta,
        "rms": c.rms,
        "bbox": c.bbox.map(|(x0, y0, x1, y1)| [x0, y0, x1, y1]),
        "expected_size": [c.expected_size.0, c.expected_size.1],
        "actual_size": [c.actual_size.0, c.actual_size.1],
        "summary": c.summary(pixels),
    });
    to_py(py, &value)
}

/// `vsr2d check` from Python (what `vsr2d.testing` calls): the manifest's JSON text, its path (for
/// messages and the input checks) and the directory its relative paths start from. Returns the report
/// as a dict (`exit_code`, `cases`); writes the same artefacts, JUnit file and summary as the command.
#[pyfunction]
#[pyo3(signature = (manifest_json, manifest_path, base_dir, baseline, *, update = false, out = None, junit = None, summary = None, jobs = None, allow_large = false))]
#[allow(clippy::too_many_arguments)]
fn check<'py>(
    py: Python<'py>,
    manifest_json: String,
    manifest_path: PathBuf,
    base_dir: PathBuf,
    baseline: PathBuf,
    update: bool,
    out: Option<PathBuf>,
    junit: Option<PathBuf>,
    summary: Option<PathBuf>,
    jobs: Option<usize>,
    allow_large: bool,
) -> PyResult<Bound<'py, PyAny>> {
    use vsr2d::check::{self, CheckOptions, Plan};
    let limits = if allow_large { Limits::NONE } else { Limits::DEFAULT };
    let plan = Plan::from_json(&manifest_json, &manifest_path, &base_dir, &limits).map_err(|e| check_error(py, e))?;
    let options = CheckOptions { baseline, update, out: out.clone(), jobs, limits };
    let mut files: Vec<(&'static str, &std::path::Path)> = Vec::new();
    files.extend(junit.iter().map(|p| ("junit", p.as_path())));
    files.extend(summary.iter().map(|p| ("summary", p.as_path())));
    check::check_outputs(&plan, &options, &files).map_err(|e| check_error(py, e))?;
    let report = py.detach(|| check::run(&plan, &options)).map_err(|e| check_error(py, e))?;
    let suite = manifest_path.display().to_string();
    check::report::write_files(&report, &suite, junit.as_deref(), summary.as_deref(), out.as_deref())
        .map_err(|e| check_error(py, e))?;
    to_py(py, &report.to_json())
}

/// What this build is: its version and what it makes mp4 files with (the H.264 encoder, and the linked
/// libavcodec's version and licence, as `vsr2d --version` prints them).
#[pyfunction]
fn build_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let info = PyDict::new(py);
    info.set_item("version", env!("CARGO_PKG_VERSION"))?;
    #[cfg(feature = "video")]
    info.set_item("mp4", vsr2d::output::video::encoder_description())?;
    #[cfg(not(feature = "video"))]
    info.set_item("mp4", "mp4: not in this build (built without the `video` feature)")?;
    Ok(info)
}

#[pymodule]
fn _vsr2d(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_many, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(render, m)?)?;
    m.add_function(wrap_pyfunction!(view, m)?)?;
    m.add_function(wrap_pyfunction!(render_frame, m)?)?;
    m.add_class::<Evolution>()?;
    m.add_class::<representation::Representation>()?;
    m.add_function(wrap_pyfunction!(write_video, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(fixtures::task_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    Ok(())
}
