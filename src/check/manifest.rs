//! The `vsr2d check` manifest: the cases to render and the numbers to check, read with JSON-path errors
//! (the scenario reader's, [`crate::scenario::from_json_located`]) and validated before anything runs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Deserialize;

use crate::geom::{Aabb, Vec2};
use crate::render::compare::Budget;
use crate::render::GridLayout;

use super::CheckError;

/// How the error messages point at the manifest's schema.
pub(crate) const SCHEMA_COMMAND: &str = "`vsr2d schema --manifest`";

/// A `vsr2d check` manifest: the golden-image and golden-number cases of a repository.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The cases, each checked against `BASELINE/<name>.png` (or `<name>@<t>s.png` per time of `at`) and
    /// `BASELINE/<name>.json`.
    pub cases: Vec<Case>,
}

/// One case: what to simulate, what to render of it, and how close it must stay to its baseline.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Unique name, also the baseline files' name: letters, digits, `_`, `-` and `.`, not starting with `.`.
    pub name: String,
    /// Scenario files (relative to the manifest), one grid cell each (one per robot for multi-robot
    /// scenarios), as `vsr2d render` shows them.
    #[serde(default)]
    pub scenarios: Vec<PathBuf>,
    /// Recordings of `vsr2d simulate --record` (relative to the manifest), one cell per robot. They have
    /// no result, so `fields` needs scenarios.
    #[serde(default)]
    pub recordings: Vec<PathBuf>,
    /// Override the scenarios' duration (and cut recordings), in seconds: keep checks short.
    pub duration: Option<f64>,
    /// Simulated times of the still frames to check, one image each (default: the last frame).
    #[serde(default)]
    pub at: Vec<f64>,
    /// Instead of stills: one filmstrip image of the frames at these simulated times, side by side.
    pub filmstrip: Option<Vec<f64>>,
    /// Image size as WIDTHxHEIGHT (default 320x180); small images make fast checks and small baselines.
    #[serde(default = "default_size")]
    pub size: String,
    /// Frames per simulated second, which decides which frame shows a time (default 30).
    #[serde(default = "default_fps")]
    pub fps: u32,
    /// `"fixed"` (default): twice the world rectangle the first frame shows, for the whole run; `"follow"`:
    /// the follow camera of `vsr2d render`; or a world rectangle `[x0, y0, x1, y1]` in metres. A follow
    /// camera moves with the robot, so a small change of its motion moves every grid line and tick and
    /// the whole frame differs; a fixed camera confines the difference to the robot.
    #[serde(default)]
    #[schemars(with = "serde_json::Value")]
    pub camera: Option<serde_json::Value>,
    /// Grid as ROWSxCOLS (default: near-square).
    pub layout: Option<String>,
    /// One cell per scenario even when it has several robots.
    #[serde(default)]
    pub shared_camera: bool,
    /// The overlay's distance-and-speed line (default false: its digits change with any change of the
    /// motion, and `fields` checks those numbers better).
    #[serde(default)]
    pub progress: bool,
    /// How much the pictures may differ.
    #[serde(default)]
    pub tolerance: Tolerance,
    /// Numbers of the run's result (what `vsr2d simulate` prints) to check against the baseline's.
    #[serde(default)]
    pub fields: Vec<FieldCheck>,
}

/// How much a picture may differ from its baseline.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// A pixel differs when one of its channels differs by more than this, 0–255 (default 2).
    #[serde(default = "default_channel")]
    pub channel: u8,
    /// How many pixels may differ: a count (12) or a percentage of the image ("0.5%") (default 0).
    #[serde(default)]
    #[schemars(with = "serde_json::Value")]
    pub pixels: Option<serde_json::Value>,
    /// Largest root mean square of the channel differences (0–255) over the whole image (default: none).
    pub rms: Option<f64>,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance { channel: default_channel(), pixels: None, rms: None }
    }
}

/// One number of the result and how far it may move.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldCheck {
    /// A JSON pointer into the result (`/robots/0/distance`) or a field name found exactly once in it
    /// (`distance` in a one-robot run).
    pub field: String,
    /// Absolute tolerance: passes when |actual − expected| ≤ abs + rel·|expected| (both default 0: exact).
    pub abs: Option<f64>,
    /// Relative tolerance, a fraction of |expected| (0.01 = 1 %).
    pub rel: Option<f64>,
}

fn default_size() -> String {
    "320x180".into()
}
fn default_fps() -> u32 {
    30
}
fn default_channel() -> u8 {
    2
}

/// The camera of a case, validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraChoice {
    /// Twice the first frame's view, about its centre, for the whole run.
    Fixed,
    Follow,
    View(Aabb),
}

/// What a case renders: its images' times (`None`: the last frame) and whether they form a filmstrip.
#[derive(Debug, Clone, PartialEq)]
pub enum Pictures {
    Stills(Vec<Option<f64>>),
    Filmstrip(Vec<f64>),
}

/// A case with its settings parsed and checked.
#[derive(Debug, Clone)]
pub struct CaseSettings {
    pub size: (u32, u32),
    pub layout: Option<GridLayout>,
    pub camera: CameraChoice,
    pub budget: Budget,
    pub pictures: Pictures,
}

impl Case {
    /// The images of this case and their baseline file names, in order.
    pub(crate) fn image_files(&self, pictures: &Pictures) -> Vec<String> {
        match pictures {
            Pictures::Stills(times) if times.len() > 1 => {
                times.iter().map(|t| format!("{}@{}s.png", self.name, crate::geom::compact(t.unwrap_or(0.0)))).collect()
            }
            _ => vec![format!("{}.png", self.name)],
        }
    }
}

fn bad(path: String, message: impl Into<String>) -> CheckError {
    CheckError::Manifest { path, message: message.into() }
}

fn check_time(path: String, t: f64) -> Result<(), CheckError> {
    if t.is_finite() && (0.0..=crate::scenario::MAX_DURATION).contains(&t) {
        Ok(())
    } else {
        Err(bad(path, format!("{t} is not a simulated time: give seconds in [0, 1e6]")))
    }
}

impl Manifest {
    /// Reads a manifest; every problem names its JSON path and the fix.
    pub fn from_json(text: &str) -> Result<(Manifest, Vec<CaseSettings>), CheckError> {
        let manifest: Manifest = crate::scenario::from_json_located(text, "the manifest object", SCHEMA_COMMAND)
            .map_err(|(path, message)| bad(path, message))?;
        let settings = manifest.validate()?;
        Ok((manifest, settings))
    }

    fn validate(&self) -> Result<Vec<CaseSettings>, CheckError> {
        if self.cases.is_empty() {
            return Err(bad("cases".into(), "the manifest has no case: add at least one to `cases`"));
        }
        let mut names = BTreeSet::new();
        self.cases.iter().enumerate().map(|(i, case)| case.validate(i, &mut names)).collect()
    }
}

impl Case {
    fn validate(&self, i: usize, names: &mut BTreeSet<String>) -> Result<CaseSettings, CheckError> {
        let at = |field: &str| format!("cases[{i}].{field}");
        let name_ok = !self.name.is_empty()
            && self.name.len() <= 100
            && !self.name.starts_with('.')
            && self.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
        if !name_ok {
            return Err(bad(
                at("name"),
                format!(
                    "{:?} cannot name baseline files: use 1 to 100 letters, digits, `_`, `-` or `.`, not starting \
                     with `.` (e.g. \"walker-2s\")",
                    self.name
                ),
            ));
        }
        if !names.insert(self.name.clone()) {
            return Err(bad(at("name"), format!("{:?} names two cases: give each case its own name", self.name)));
        }
        if self.scenarios.is_empty() && self.recordings.is_empty() {
            return Err(bad(at("scenarios"), "the case has nothing to render: give `scenarios` or `recordings`"));
        }
        if !self.fields.is_empty() && self.scenarios.is_empty() {
            return Err(bad(at("fields"), "recordings have no result to check: give `scenarios`, or remove `fields`"));
        }
        if let Some(d) = self.duration {
            check_time(at("duration"), d)?;
        }
        for (j, t) in self.at.iter().enumerate() {
            check_time(at(&format!("at[{j}]")), *t)?;
        }
        let pictures = match &self.filmstrip {
            Some(_) if !self.at.is_empty() => {
                return Err(bad(at("filmstrip"), "give either `at` (stills) or `filmstrip`, not both"))
            }
            Some(times) if times.is_empty() => {
                return Err(bad(at("filmstrip"), "a filmstrip needs at least one time, e.g. [0, 1, 2]"))
            }
            Some(times) => {
                for (j, t) in times.iter().enumerate() {
                    check_time(at(&format!("filmstrip[{j}]")), *t)?;
                }
                Pictures::Filmstrip(times.clone())
            }
            None if self.at.is_empty() => Pictures::Stills(vec![None]),
            None => {
                let files: BTreeSet<String> = self.at.iter().map(|t| crate::geom::compact(*t).to_string()).collect();
                if files.len() < self.at.len() {
                    return Err(bad(at("at"), "two times of `at` are the same: give each once"));
                }
                Pictures::Stills(self.at.iter().map(|t| Some(*t)).collect())
            }
        };
        let size = parse_size(&self.size).map_err(|m| bad(at("size"), m))?;
        if self.fps == 0 || self.fps > 1000 {
            return Err(bad(at("fps"), format!("{} frames per second is invalid: give 1 to 1000", self.fps)));
        }
        let layout = self
            .layout
            .as_deref()
            .map(|l| l.parse::<GridLayout>().map_err(|e| bad(at("layout"), format!("{e} (e.g. \"1x2\")"))))
            .transpose()?;
        let camera = parse_camera(self.camera.as_ref()).map_err(|m| bad(at("camera"), m))?;
        let budget = match &self.tolerance.pixels {
            None => Budget::Pixels(0),
            Some(serde_json::Value::String(s)) => s.parse().map_err(|m| bad(at("tolerance.pixels"), m))?,
            Some(serde_json::Value::Number(n)) => Budget::Pixels(
                n.as_u64().ok_or_else(|| bad(at("tolerance.pixels"), pixels_hint(&n.to_string())))? as usize,
            ),
            Some(other) => return Err(bad(at("tolerance.pixels"), pixels_hint(&other.to_string()))),
        };
        if let Some(rms) = self.tolerance.rms {
            if !(rms.is_finite() && (0.0..=255.0).contains(&rms)) {
                return Err(bad(at("tolerance.rms"), format!("{rms} is invalid: give a number in [0, 255]")));
            }
        }
        for (j, f) in self.fields.iter().enumerate() {
            let fat = |k: &str| at(&format!("fields[{j}].{k}"));
            if f.field.is_empty() {
                return Err(bad(
                    fat("field"),
                    "give a field name (`distance`) or a JSON pointer (`/robots/0/distance`)",
                ));
            }
            for (k, v) in [("abs", f.abs), ("rel", f.rel)] {
                if let Some(v) = v.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                    return Err(bad(fat(k), format!("{v} is invalid: a tolerance is a number ≥ 0")));
                }
            }
        }
        Ok(CaseSettings { size, layout, camera, budget, pictures })
    }
}

fn pixels_hint(got: &str) -> String {
    format!("{got} is not a pixel budget: give a count (12) or a percentage of the image (\"0.5%\")")
}

fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let err = || format!("{text:?} must look like WIDTHxHEIGHT with positive integers, e.g. \"320x180\"");
    let (w, h) = text.trim().split_once(['x', 'X', '×']).ok_or_else(err)?;
    let (w, h) = (w.trim().parse::<u32>().map_err(|_| err())?, h.trim().parse::<u32>().map_err(|_| err())?);
    let max = crate::limits::MAX_FRAME_SIDE;
    if w == 0 || h == 0 {
        return Err(err());
    }
    if w > max || h > max {
        return Err(format!("{text:?} is too large: at most {max} pixels each way"));
    }
    Ok((w, h))
}

fn parse_camera(value: Option<&serde_json::Value>) -> Result<CameraChoice, String> {
    let hint = "give \"fixed\", \"follow\" or a world rectangle [x0, y0, x1, y1] in metres";
    match value {
        None => Ok(CameraChoice::Fixed),
        Some(serde_json::Value::String(s)) if s == "fixed" => Ok(CameraChoice::Fixed),
        Some(serde_json::Value::String(s)) if s == "follow" => Ok(CameraChoice::Follow),
        Some(serde_json::Value::Array(a)) => {
            let v: Vec<f64> = a.iter().filter_map(serde_json::Value::as_f64).collect();
            match v[..] {
                [x0, y0, x1, y1] if v.iter().all(|c| c.is_finite()) && x1 > x0 && y1 > y0 => {
                    Ok(CameraChoice::View(Aabb { min: Vec2::new(x0, y0), max: Vec2::new(x1, y1) }))
                }
                _ => Err(format!(
                    "{} is not a world rectangle with x0 < x1 and y0 < y1: {hint}",
                    serde_json::Value::Array(a.clone())
                )),
            }
        }
        Some(other) => Err(format!("{other} is not a camera: {hint}")),
    }
}
