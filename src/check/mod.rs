//! `vsr2d check` (and `vsr2d.testing` in Python): golden images and golden numbers of a repository's
//! robots against committed baselines, with the conventions of image-regression tools.
//!
//! manifest → per case: simulate and render through the render pipeline ([`crate::movie`]) → compare
//! each picture with `BASELINE/<file>.png` ([`crate::render::compare`], the test suite's comparison)
//! and the result's numbers with `BASELINE/<case>.json` → on failure, artefacts in `--out` (expected,
//! actual, difference, one composite) → a JUnit file and a Markdown summary ([`report`]).
//!
//! A missing baseline fails (exit 2) unless `update`; only `update` writes under the baseline directory,
//! each file atomically, and only the files that changed beyond their tolerance (a passing baseline
//! stays byte-identical, so `--update` makes no churn in version control).

pub mod manifest;
pub mod report;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use image::RgbaImage;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::geom::{Aabb, Vec2};
use crate::movie::{frame_index_at, Movie, MovieError, MovieSettings, MovieSource};
use crate::output::atomic;
use crate::output::sinks::Filmstrip;
use crate::render::compare::{compare, composite, Comparison};
use crate::render::{pixmap_to_rgba_image, RenderOptions};
use crate::scenario::{Limits, Scenario, ScenarioError, Scene};

pub use manifest::{CameraChoice, Case, CaseSettings, Manifest, Pictures};

/// The version written into baselines and compared with theirs.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why a check could not be made (a failed comparison is no error: it is in the [`CheckReport`]).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("manifest `{path}`: {message}")]
    Manifest { path: String, message: String },
    #[error("cannot read {what} `{path}`: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    // Boxed: these errors are large, and every result of the module carries a `CheckError`.
    #[error("case `{case}`: scenario `{path}`")]
    Scenario {
        case: String,
        path: PathBuf,
        #[source]
        source: Box<ScenarioError>,
    },
    #[error("case `{case}`")]
    Movie {
        case: String,
        #[source]
        source: Box<MovieError>,
    },
    #[error("case `{case}`: field `{field}`: {message}")]
    Field { case: String, field: String, message: String },
    #[error("baseline `{path}` is not a PNG image ({source}); delete it and run with --update to make it again")]
    BadBaseline {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
    #[error("baseline `{path}` is not a vsr2d baseline ({message}); delete it and run with --update to make it again")]
    BadBaselineJson { path: PathBuf, message: String },
    #[error(
        "{what} `{path}` is inside the baseline directory `{baseline}`, where only --update writes: give a path \
         outside it (e.g. `check-out`)"
    )]
    InsideBaseline { what: &'static str, path: PathBuf, baseline: PathBuf },
    #[error("the baseline directory `{0}` does not exist: create it (mkdir -p), or give --update to create it")]
    NoBaselineDir(PathBuf),
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    #[error("cannot write `{path}`: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode `{path}`: {source}")]
    Encode {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
}

impl CheckError {
    /// Whether the input is at fault (manifest, scenario, baseline, paths): exit code 2.
    pub fn is_input(&self) -> bool {
        match self {
            CheckError::Movie { source, .. } => source.is_input(),
            CheckError::Write { .. } | CheckError::Encode { .. } => false,
            _ => true,
        }
    }

    /// The JSON path of a manifest problem, for callers that report it apart (Python).
    pub fn manifest_path(&self) -> Option<&str> {
        match self {
            CheckError::Manifest { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// How a check runs.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The baseline directory.
    pub baseline: PathBuf,
    /// Write missing baselines and refresh those beyond tolerance instead of failing.
    pub update: bool,
    /// Where the artefacts of failed cases go (created if missing); `None`: nowhere.
    pub out: Option<PathBuf>,
    /// Cases run at once (`None`: one per core).
    pub jobs: Option<usize>,
    pub limits: Limits,
}

/// A manifest read from a file, its cases' inputs loaded and checked.
#[derive(Debug)]
pub struct Plan {
    pub manifest_path: PathBuf,
    pub cases: Vec<PlannedCase>,
}

#[derive(Debug)]
pub struct PlannedCase {
    pub case: Case,
    pub settings: CaseSettings,
    /// (path as resolved against the manifest's directory, the scenario).
    pub scenarios: Vec<(PathBuf, Scenario)>,
    /// The scenarios resolved for the case's run when they were loaded (their cost checked then), one
    /// each: the run takes them instead of resolving (planning cells) again.
    scenes: Vec<Resolved>,
    pub recordings: Vec<PathBuf>,
}

/// A scenario resolved at load, until the case's run takes it; or why it did not resolve, which the run
/// reports as it would have when resolving it then.
struct Resolved(Mutex<Option<Result<Scene, ScenarioError>>>);

impl Resolved {
    /// The scene resolved at load; resolved again from `scenario` if a run already took it (a plan run
    /// twice).
    fn take(&self, scenario: &Scenario) -> Result<Scene, ScenarioError> {
        let taken = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        taken.unwrap_or_else(|| scenario.resolve(&Limits::NONE))
    }
}

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolved")
    }
}

impl Plan {
    /// Reads `manifest` and every scenario it names (relative to the manifest's directory), applying
    /// each case's duration and the resource limits. Nothing runs yet.
    pub fn load(manifest: &Path, limits: &Limits) -> Result<Plan, CheckError> {
        let text = read_text(manifest, "manifest")?;
        let dir = match manifest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Plan::from_json(&text, manifest, &dir, limits)
    }

    /// [`Plan::load`] of manifest text whose relative paths start at `dir`.
    pub fn from_json(text: &str, manifest_path: &Path, dir: &Path, limits: &Limits) -> Result<Plan, CheckError> {
        let (manifest, settings) = Manifest::from_json(text)?;
        let mut cases = Vec::with_capacity(manifest.cases.len());
        for (case, settings) in manifest.cases.into_iter().zip(settings) {
            let mut scenarios = Vec::with_capacity(case.scenarios.len());
            let mut scenes = Vec::with_capacity(case.scenarios.len());
            for p in &case.scenarios {
                let path = dir.join(p);
                let err = |source| CheckError::Scenario {
                    case: case.name.clone(),
                    path: path.clone(),
                    source: Box::new(source),
                };
                let mut scenario = Scenario::from_json(&read_text(&path, "scenario")?).map_err(err)?;
                if let Some(d) = case.duration {
                    scenario.world.duration = d;
                }
                scenes.push(Resolved(Mutex::new(Some(scenario.resolve_within(limits).map_err(err)?))));
                scenarios.push((path, scenario));
            }
            let recordings: Vec<PathBuf> = case.recordings.iter().map(|p| dir.join(p)).collect();
            for r in &recordings {
                std::fs::metadata(r).map_err(|source| CheckError::Read {
                    what: "recording",
                    path: r.clone(),
                    source,
                })?;
            }
            cases.push(PlannedCase { case, settings, scenarios, scenes, recordings });
        }
        Ok(Plan { manifest_path: manifest_path.to_path_buf(), cases })
    }

    /// Every input file, for [`crate::output::check_distinct`].
    pub fn inputs(&self) -> Vec<(&'static str, &Path)> {
        let mut v: Vec<(&'static str, &Path)> = vec![("MANIFEST", self.manifest_path.as_path())];
        for c in &self.cases {
            v.extend(c.scenarios.iter().map(|(p, _)| ("a scenario", p.as_path())));
            v.extend(c.recordings.iter().map(|p| ("a recording", p.as_path())));
        }
        v
    }
}

fn read_text(path: &Path, what: &'static str) -> Result<String, CheckError> {
    std::fs::File::open(path).and_then(|f| crate::scenario::read_bounded(f, what)).map_err(|source| CheckError::Read {
        what,
        path: path.to_path_buf(),
        source,
    })
}

/// What a case's baseline JSON holds besides the pictures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct BaselineRecord {
    /// The vsr2d version that made the baseline.
    pub vsr2d_version: String,
    /// The material presets of its scenarios (`default`, `legacy-1.0`).
    pub presets: Vec<String>,
    /// Its picture files, in the case's order.
    pub images: Vec<String>,
    /// The run's result as `vsr2d simulate` prints it (several scenarios: `{"runs": [...]}` as
    /// `vsr2d render` prints); `null` for recordings.
    pub result: Value,
}

/// One picture's comparison.
#[derive(Debug, Clone)]
pub struct ImageReport {
    pub file: String,
    /// Pixels allowed to differ.
    pub budget: usize,
    pub rms_limit: Option<f64>,
    /// `None` when there is no baseline picture.
    pub comparison: Option<Comparison>,
    pub passed: bool,
}

impl ImageReport {
    /// "412 pixels differ (budget 0), max channel delta 187, RMS 3.1".
    pub fn counts(&self) -> String {
        match &self.comparison {
            None => "no baseline".into(),
            Some(c) => {
                let mut s = format!(
                    "{} pixels differ (budget {}), max channel delta {}, RMS {:.2}",
                    c.differing, self.budget, c.max_channel_delta, c.rms
                );
                if let Some(limit) = self.rms_limit {
                    s.push_str(&format!(" (limit {limit})"));
                }
                if let Some((x0, y0, x1, y1)) = c.bbox {
                    s.push_str(&format!(", within x {x0}..={x1}, y {y0}..={y1}"));
                }
                if c.expected_size != c.actual_size {
                    let ((ew, eh), (aw, ah)) = (c.expected_size, c.actual_size);
                    s.push_str(&format!("; sizes differ: expected {ew}x{eh}, actual {aw}x{ah}"));
                }
                s
            }
        }
    }
}

/// One number's check.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldReport {
    /// As the manifest names it.
    pub field: String,
    /// Where it is in the result.
    pub pointer: String,
    /// `None` when the baseline result has no such number.
    pub expected: Option<f64>,
    pub actual: f64,
    pub abs: f64,
    pub rel: f64,
    pub passed: bool,
}

impl FieldReport {
    /// "abs 0.01 + rel 0.001" (or "exact").
    pub fn tolerance(&self) -> String {
        match (self.abs, self.rel) {
            (0.0, 0.0) => "exact".into(),
            (a, 0.0) => format!("abs {a}"),
            (0.0, r) => format!("rel {r}"),
            (a, r) => format!("abs {a} + rel {r}"),
        }
    }
}

/// The outcome of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    /// No baseline and no `update`: a failure of its own kind (exit 2).
    MissingBaseline,
    /// `update` wrote or refreshed baseline files.
    Updated,
}

#[derive(Debug, Clone)]
pub struct CaseReport {
    pub name: String,
    pub status: Status,
    pub images: Vec<ImageReport>,
    pub fields: Vec<FieldReport>,
    /// Things to know that are not failures (another vsr2d version made the baseline).
    pub notes: Vec<String>,
    /// Baseline files written by `update`, with why.
    pub updated: Vec<String>,
    /// Artefacts written to `out`.
    pub artefacts: Vec<PathBuf>,
    pub seconds: f64,
}

impl CaseReport {
    /// The failure in one line: each failing picture's counts, each number out of tolerance.
    pub fn failure_message(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if self.status == Status::MissingBaseline {
            parts.push("no baseline: run `vsr2d check --update` and commit the files it writes".into());
        }
        for i in self.images.iter().filter(|i| !i.passed && i.comparison.is_some()) {
            parts.push(format!("{}: {}", i.file, i.counts()));
        }
        for f in self.fields.iter().filter(|f| !f.passed) {
            parts.push(match f.expected {
                Some(e) => format!("{}: {} instead of {} ({})", f.field, f.actual, e, f.tolerance()),
                None => format!("{}: {} but the baseline has no such number", f.field, f.actual),
            });
        }
        parts.join("; ")
    }
}

/// The outcome of a whole check.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub cases: Vec<CaseReport>,
    pub seconds: f64,
}

impl CheckReport {
    /// 0 all pass (or were updated), 1 a comparison failed, 2 a baseline is missing.
    pub fn exit_code(&self) -> u8 {
        if self.cases.iter().any(|c| c.status == Status::MissingBaseline) {
            2
        } else if self.cases.iter().any(|c| c.status == Status::Fail) {
            1
        } else {
            0
        }
    }
}

impl CheckReport {
    /// The report as JSON (what Python's `vsr2d.check` returns): `exit_code`, and per case its `name`,
    /// `status`, failure `message`, `images` (counts), `fields`, `notes`, `updated` and `artefacts`.
    pub fn to_json(&self) -> Value {
        let cases: Vec<Value> = self
            .cases
            .iter()
            .map(|c| {
                let images: Vec<Value> = c
                    .images
                    .iter()
                    .map(|i| {
                        let cmp = i.comparison.as_ref();
                        serde_json::json!({
                            "file": i.file,
                            "passed": i.passed,
                            "budget": i.budget,
                            "differing": cmp.map(|c| c.differing),
                            "max_channel_delta": cmp.map(|c| c.max_channel_delta),
                            "rms": cmp.map(|c| c.rms),
                            "bbox": cmp.and_then(|c| c.bbox).map(|(x0, y0, x1, y1)| [x0, y0, x1, y1]),
                            "counts": i.counts(),
                        })
                    })
                    .collect();
                serde_json::json!({
                    "name": c.name,
                    "status": c.status,
                    "message": c.failure_message(),
                    "images": images,
                    "fields": c.fields,
                    "notes": c.notes,
                    "updated": c.updated,
                    "artefacts": c.artefacts,
                    "seconds": c.seconds,
                })
            })
            .collect();
        serde_json::json!({ "exit_code": self.exit_code(), "cases": cases, "seconds": self.seconds })
    }
}

/// `path` resolved (links, `..`) as far as it exists, the rest appended: where it would be.
fn resolved_lenient(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(p) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(p, |acc: PathBuf, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Refuses outputs under the baseline directory (only `update` writes there) and outputs that name
/// inputs or one another; and a missing baseline directory without `update`.
pub fn check_outputs(plan: &Plan, options: &CheckOptions, files: &[(&'static str, &Path)]) -> Result<(), CheckError> {
    let baseline = resolved_lenient(&options.baseline);
    let dirs = options.out.iter().map(|p| ("--out", p.as_path()));
    for (what, path) in dirs.chain(files.iter().copied()) {
        if resolved_lenient(path).starts_with(&baseline) {
            return Err(CheckError::InsideBaseline {
                what,
                path: path.to_path_buf(),
                baseline: options.baseline.clone(),
            });
        }
    }
    crate::output::check_distinct(files, &plan.inputs())?;
    if !options.update && !options.baseline.is_dir() {
        return Err(CheckError::NoBaselineDir(options.baseline.clone()));
    }
    Ok(())
}

/// Runs every case (in parallel), compares, writes artefacts to `out` and, with `update`, baselines.
pub fn run(plan: &Plan, options: &CheckOptions) -> Result<CheckReport, CheckError> {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.unwrap_or(0))
        .build()
        .map_err(|e| CheckError::Write { path: PathBuf::from("(threads)"), source: std::io::Error::other(e) })?;
    if options.update {
        std::fs::create_dir_all(&options.baseline)
            .map_err(|source| CheckError::Write { path: options.baseline.clone(), source })?;
    }
    let cases = pool.install(|| plan.cases.par_iter().map(|c| run_case(c, options)).collect::<Result<Vec<_>, _>>())?;
    Ok(CheckReport { cases, seconds: started.elapsed().as_secs_f64() })
}

/// What a case rendered and computed.
struct Rendered {
    images: Vec<(String, RgbaImage)>,
    result: Value,
    presets: Vec<String>,
}

fn movie_err(case: &PlannedCase) -> impl Fn(MovieError) -> CheckError + '_ {
    move |source| CheckError::Movie { case: case.case.name.clone(), source: Box::new(source) }
}

/// The case's sources: its scenarios run for `duration` (`None`: the case's run, of the scenes resolved at
/// load), then its recordings.
fn sources(c: &PlannedCase, options: &RenderOptions, duration: Option<f64>) -> Result<Vec<MovieSource>, CheckError> {
    let mut v = Vec::new();
    for ((path, scenario), resolved) in c.scenarios.iter().zip(&c.scenes) {
        let name = path.display().to_string();
        let source = match duration {
            Some(d) => {
                let mut s = scenario.clone();
                s.world.duration = d;
                MovieSource::scenario(name, &s, options)
            }
            None => MovieSource::scene(name, resolved.take(scenario), options),
        };
        v.push(source.map_err(movie_err(c))?);
    }
    for path in &c.recordings {
        v.push(MovieSource::recording(path, duration.or(c.case.duration)).map_err(movie_err(c))?);
    }
    Ok(v)
}

/// Enlargement of the first frame's view for the default fixed camera: room for the robot to move
/// about one body length either way while the view stays the same from run to run.
const FIXED_VIEW_SCALE: f64 = 2.0;

/// The default fixed camera: the first frame's follow view (which depends on the start positions only,
/// not on how the robots move), over all cells, enlarged about its centre.
fn first_frame_view(c: &PlannedCase, settings: &MovieSettings) -> Result<Aabb, CheckError> {
    let movie = Movie::new(sources(c, &settings.options, Some(0.0))?, settings).map_err(movie_err(c))?;
    let cells = movie.cells().len();
    let mut union: Option<Aabb> = None;
    for cell in 0..cells {
        let movie = Movie::new(sources(c, &settings.options, Some(0.0))?, settings).map_err(movie_err(c))?;
        if let Some(v) = movie.framing_view(cell, &[0]).map_err(movie_err(c))? {
            union = Some(union.map_or(v, |u| u.union(v)));
        }
    }
    let view = union.unwrap_or(Aabb { min: Vec2::new(-5.0, -5.0), max: Vec2::new(5.0, 5.0) });
    let half = Vec2::new(view.width(), view.height()) * (FIXED_VIEW_SCALE * 0.5);
    Ok(Aabb { min: view.center() - half, max: view.center() + half })
}

fn render_case(c: &PlannedCase, limits: &Limits) -> Result<Rendered, CheckError> {
    let options = RenderOptions { progress: c.case.progress, ..RenderOptions::default() };
    let (width, height) = c.settings.size;
    let mut settings = MovieSettings {
        width,
        height,
        fps: c.case.fps,
        layout: c.settings.layout,
        options: options.clone(),
        fixed_view: None,
        shared_camera: c.case.shared_camera,
    };
    settings.fixed_view = match c.settings.camera {
        CameraChoice::Follow => None,
        CameraChoice::View(v) => Some(v),
        CameraChoice::Fixed => Some(first_frame_view(c, &settings)?),
    };
    let mut movie = Movie::new(sources(c, &options, None)?, &settings).map_err(movie_err(c))?;
    let last = movie.frame_count().saturating_sub(1);
    let wanted: Vec<u64> = match &c.settings.pictures {
        Pictures::Stills(times) => {
            times.iter().map(|t| t.map_or(last, |t| frame_index_at(t, c.case.fps).min(last))).collect()
        }
        Pictures::Filmstrip(times) => times.iter().map(|t| frame_index_at(*t, c.case.fps).min(last)).collect(),
    };
    let frames_drawn = wanted.len() as u64;
    limits.check_render(frames_drawn, width, height, movie.body_count() as u64).map_err(|e| CheckError::Manifest {
        path: format!("cases[name = {:?}]", c.case.name),
        message: format!("{e} (a smaller `size`, a shorter `duration` or a lower `fps`)"),
    })?;
    // Stills in time order (a movie only moves forward), each the very frame `vsr2d render` shows.
    let mut order: Vec<u64> = wanted.clone();
    order.sort_unstable();
    order.dedup();
    let mut drawn: Vec<(u64, tiny_skia::Pixmap)> = Vec::with_capacity(order.len());
    for k in order {
        drawn.push((k, movie.still(k).map_err(movie_err(c))?.clone()));
    }
    let frame = |k: u64| &drawn.iter().find(|(i, _)| *i == k).expect("every wanted frame was drawn").1;
    let files = c.case.image_files(&c.settings.pictures);
    let images = match &c.settings.pictures {
        Pictures::Stills(_) => {
            files.into_iter().zip(&wanted).map(|(f, k)| (f, pixmap_to_rgba_image(frame(*k)))).collect()
        }
        Pictures::Filmstrip(_) => {
            let frames: Vec<&tiny_skia::Pixmap> = wanted.iter().map(|k| frame(*k)).collect();
            let strip = Filmstrip::compose(&frames).ok_or_else(|| CheckError::Manifest {
                path: format!("cases[name = {:?}].filmstrip", c.case.name),
                message: "the filmstrip would be too large: fewer times or a smaller `size`".into(),
            })?;
            vec![(files[0].clone(), pixmap_to_rgba_image(&strip))]
        }
    };
    let runs = movie.finish_runs().map_err(movie_err(c))?;
    let result = match runs.len() {
        0 => Value::Null,
        1 => serde_json::to_value(&runs[0].result).unwrap_or(Value::Null),
        _ => serde_json::json!({ "runs": runs }),
    };
    let mut presets: Vec<String> = c
        .scenarios
        .iter()
        .flat_map(|(_, s)| {
            std::iter::once(s.world.compat.name().to_string()).chain(
                s.robots
                    .iter()
                    .flat_map(|r| r.materials.iter().flatten())
                    .filter_map(|(_, m)| m.preset.map(|p| p.name().to_string())),
            )
        })
        .collect();
    presets.sort();
    presets.dedup();
    Ok(Rendered { images, result, presets })
}

/// The number a field names in `result`: a JSON pointer, or a key found exactly once anywhere in it.
fn locate(result: &Value, field: &str) -> Result<String, String> {
    if field.starts_with('/') {
        return match result.pointer(field) {
            Some(v) if v.is_number() => Ok(field.to_string()),
            Some(v) => Err(format!("the result holds {v} there, not a number")),
            None => Err("the result has nothing at this JSON pointer; `vsr2d simulate SCENARIO` prints it".into()),
        };
    }
    fn walk(v: &Value, at: String, key: &str, found: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let here = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                    if k == key && child.is_number() {
                        found.push(here.clone());
                    }
                    walk(child, here, key, found);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| walk(c, format!("{at}/{i}"), key, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(result, String::new(), field, &mut found);
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err("no number of the result has this name; give a JSON pointer (e.g. `/robots/0/distance`); \
                  `vsr2d schema --result` lists the result's fields"
            .into()),
        _ => Err(format!("the result has it {} times ({}): give a JSON pointer to one", found.len(), found.join(", "))),
    }
}

fn read_baseline_png(path: &Path) -> Result<Option<RgbaImage>, CheckError> {
    match std::fs::read(path) {
        Ok(bytes) => image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
            .map(|i| Some(i.to_rgba8()))
            .map_err(|source| CheckError::BadBaseline { path: path.to_path_buf(), source }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(CheckError::Read { what: "baseline", path: path.to_path_buf(), source }),
    }
}

fn read_baseline_record(path: &Path) -> Result<Option<BaselineRecord>, CheckError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| CheckError::BadBaselineJson { path: path.to_path_buf(), message: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(CheckError::Read { what: "baseline", path: path.to_path_buf(), source }),
    }
}

fn png_bytes(image: &RgbaImage, path: &Path) -> Result<Vec<u8>, CheckError> {
    let mut bytes = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .map_err(|source| CheckError::Encode { path: path.to_path_buf(), source })?;
    Ok(bytes)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CheckError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| CheckError::Write { path: dir.to_path_buf(), source })?;
    }
    atomic::write(path, bytes).map_err(|source| CheckError::Write { path: path.to_path_buf(), source })
}

fn run_case(c: &PlannedCase, options: &CheckOptions) -> Result<CaseReport, CheckError> {
    let started = Instant::now();
    let rendered = render_case(c, &options.limits)?;
    let name = &c.case.name;
    let record_path = options.baseline.join(format!("{name}.json"));
    let record = read_baseline_record(&record_path)?;
    let mut missing = record.is_none();
    let mut notes = Vec::new();
    if let Some(r) = &record {
        if r.vsr2d_version != VERSION {
            notes.push(format!("baseline made by vsr2d {}, checked by {VERSION}", r.vsr2d_version));
        }
        if r.presets != rendered.presets {
            notes.push(format!("baseline presets {:?}, now {:?}", r.presets, rendered.presets));
        }
    }

    // Pictures.
    let tolerance = &c.case.tolerance;
    let mut images = Vec::new();
    let mut expected_images = Vec::new();
    for (file, actual) in &rendered.images {
        let expected = read_baseline_png(&options.baseline.join(file))?;
        let budget = c.settings.budget.pixels(expected.as_ref().unwrap_or(actual));
        let comparison = expected.as_ref().map(|e| compare(e, actual, tolerance.channel));
        let passed = comparison
            .as_ref()
            .is_some_and(|cmp| cmp.within(budget) && tolerance.rms.is_none_or(|limit| cmp.rms <= limit));
        missing |= expected.is_none();
        images.push(ImageReport { file: file.clone(), budget, rms_limit: tolerance.rms, comparison, passed });
        expected_images.push(expected);
    }

    // Numbers.
    let mut fields = Vec::new();
    for f in &c.case.fields {
        let field_err = |message| CheckError::Field { case: name.clone(), field: f.field.clone(), message };
        let pointer = locate(&rendered.result, &f.field).map_err(field_err)?;
        let actual = rendered.result.pointer(&pointer).and_then(Value::as_f64).unwrap_or(f64::NAN);
        let expected = record.as_ref().and_then(|r| r.result.pointer(&pointer)).and_then(Value::as_f64);
        let (abs, rel) = (f.abs.unwrap_or(0.0), f.rel.unwrap_or(0.0));
        let passed = expected.is_some_and(|e| (actual - e).abs() <= abs + rel * e.abs());
        fields.push(FieldReport { field: f.field.clone(), pointer, expected, actual, abs, rel, passed });
    }
    let all_pass = images.iter().all(|i| i.passed) && fields.iter().all(|f| f.passed);

    let mut updated = Vec::new();
    let mut artefacts = Vec::new();
    let status = if options.update {
        for (img, (file, actual)) in images.iter().zip(&rendered.images) {
            if !img.passed {
                let path = options.baseline.join(file);
                write(&path, &png_bytes(actual, &path)?)?;
                updated.push(match &img.comparison {
                    None => format!("{file}: created"),
                    Some(_) => format!("{file}: replaced ({})", img.counts()),
                });
            }
        }
        let changed_fields: Vec<String> = fields
            .iter()
            .filter(|f| !f.passed)
            .map(|f| match f.expected {
                Some(e) => format!("{} {e} → {}", f.field, f.actual),
                None => format!("{} → {}", f.field, f.actual),
            })
            .collect();
        let image_files: Vec<String> = rendered.images.iter().map(|(f, _)| f.clone()).collect();
        let stale = record.as_ref().is_none_or(|r| {
            r.images != image_files
                || r.presets != rendered.presets
                || !changed_fields.is_empty()
                || !updated.is_empty()
        });
        if stale {
            let new = BaselineRecord {
                vsr2d_version: VERSION.into(),
                presets: rendered.presets.clone(),
                images: image_files,
                result: rendered.result.clone(),
            };
            let mut text = serde_json::to_string_pretty(&new).unwrap_or_default();
            text.push('\n');
            write(&record_path, text.as_bytes())?;
            updated.push(if record.is_none() {
                format!("{name}.json: created")
            } else if changed_fields.is_empty() {
                format!("{name}.json: rewritten")
            } else {
                format!("{name}.json: {}", changed_fields.join(", "))
            });
        }
        if updated.is_empty() {
            Status::Pass
        } else {
            Status::Updated
        }
    } else if missing {
        Status::MissingBaseline
    } else if all_pass {
        Status::Pass
    } else {
        Status::Fail
    };

    // Artefacts of a failure: per picture expected / actual / diff and one composite; the numbers table.
    if let (Some(out), Status::Fail | Status::MissingBaseline) = (&options.out, status) {
        for ((img, (file, actual)), expected) in images.iter().zip(&rendered.images).zip(&expected_images) {
            let stem = file.trim_end_matches(".png");
            let dir = out.join(stem);
            let mut put = |path: PathBuf, image: &RgbaImage| -> Result<(), CheckError> {
                write(&path, &png_bytes(image, &path)?)?;
                artefacts.push(path);
                Ok(())
            };
            if img.passed {
                continue;
            }
            put(dir.join("actual.png"), actual)?;
            if let (Some(expected), Some(cmp)) = (expected, &img.comparison) {
                put(dir.join("expected.png"), expected)?;
                put(dir.join("diff.png"), &cmp.diff)?;
                let lines = vec![format!("{name} · {file}"), img.counts()];
                put(out.join(format!("{stem}-compare.png")), &composite(expected, actual, cmp, &lines))?;
            }
        }
        if !fields.is_empty() {
            let path = out.join(name).join("numbers.md");
            write(&path, report::numbers_table(&fields).as_bytes())?;
            artefacts.push(path);
        }
    }
    Ok(CaseReport {
        name: name.clone(),
        status,
        images,
        fields,
        notes,
        updated,
        artefacts,
        seconds: started.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_pointer_or_by_a_unique_name() {
        let r = serde_json::json!({"robots": [{"distance": 1.5, "label": "a"}], "jumping": {"max_height": 2}});
        assert_eq!(locate(&r, "distance").unwrap(), "/robots/0/distance");
        assert_eq!(locate(&r, "max_height").unwrap(), "/jumping/max_height");
        assert_eq!(locate(&r, "/robots/0/distance").unwrap(), "/robots/0/distance");
        assert!(locate(&r, "/robots/0/label").unwrap_err().contains("not a number"));
        assert!(locate(&r, "speed").unwrap_err().contains("JSON pointer"));
        let two = serde_json::json!({"robots": [{"distance": 1.0}, {"distance": 2.0}]});
        assert!(locate(&two, "distance").unwrap_err().contains("2 times"));
    }

    /// A case's run plans the cells of its scenario once (issue 51): loading the plan checked the limits
    /// (planning them), then the run built the scenario (planning them again).
    #[test]
    fn a_case_plans_its_cells_once() {
        let manifest = r#"{"cases": [{"name": "fold-E", "scenarios": ["cells-fold-E.json"], "duration": 0.2,
            "camera": "follow", "size": "64x36"}]}"#;
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios"));
        let plans = crate::scenario::cell_plan::plans;
        // Reading the scenario validates its cells by planning them.
        let before = plans();
        Scenario::from_json(&std::fs::read_to_string(dir.join("cells-fold-E.json")).unwrap()).unwrap();
        let reading = plans() - before;
        let before = plans();
        let plan = Plan::from_json(manifest, Path::new("manifest.json"), dir, &Limits::DEFAULT).unwrap();
        let rendered = render_case(&plan.cases[0], &Limits::DEFAULT).unwrap();
        assert_eq!(rendered.images.len(), 1);
        assert_eq!(plans() - before, reading + 1, "cell plans in loading (reading) and running a case");
    }
}
