//! Scenario JSON: world, robots (materials, body, controller) and task; parsing with JSON-path errors,
//! validation, and building a ready-to-run [`Simulation`].

mod build;

use std::collections::BTreeMap;

pub use build::steps_for;

use serde::{Deserialize, Serialize};

use crate::controller::{ControllerError, ControllerSpec};
use crate::model::terrain::{TerrainError, TerrainSpec};
use crate::model::voxel::grid::BodyGridError;
use crate::model::voxel::material::{MaterialError, MaterialSpec, Preset};
use crate::sim::Welds;
use crate::snapshot::SnapshotDetail;

/// A whole experiment: one world, one or more robots, one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Terrain, physics and timing.
    #[serde(default)]
    pub world: WorldSpec,
    /// The robots, in creation order.
    pub robots: Vec<RobotSpec>,
    /// What is measured (only `locomotion` for now).
    #[serde(default)]
    pub task: TaskSpec,
}

/// World settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WorldSpec {
    /// `{"type": "flat"}` (default), `{"type": "uneven", "height": 5, "spacing": 40, "seed": 1}` or `{"type": "none"}`.
    pub terrain: TerrainSpec,
    /// Gravity in m/s² (default [0, −9.8]).
    pub gravity: [f64; 2],
    /// Time step in s (default 1/60).
    pub dt: f64,
    /// Control step interval c: the controllers run every c + 1 steps (default 1).
    pub control_interval: u32,
    /// Simulated time in s (default 60).
    pub duration: f64,
    /// Solver substeps per step (default: the project's measured default).
    pub solver_iterations: Option<usize>,
    /// `default`, or `legacy-1.0` for the released 2D-VSR-Sim's timing, terrain and default materials.
    pub compat: Preset,
    /// Optional snapshot content (springs, ropes, welds, controller I/O) for recording and rendering.
    pub snapshot: SnapshotDetail,
    /// `merged` (default: one rigid body per cluster of welded masses) or `joints` (one body per mass,
    /// welds as fixed joints; slower, for cross-checking the merged clusters).
    pub welds: Welds,
}

impl Default for WorldSpec {
    fn default() -> Self {
        WorldSpec {
            terrain: TerrainSpec::Flat,
            gravity: [0.0, -9.8],
            dt: 1.0 / 60.0,
            control_interval: 1,
            duration: 60.0,
            solver_iterations: None,
            compat: Preset::Default,
            snapshot: SnapshotDetail::default(),
            welds: Welds::Merged,
        }
    }
}

/// One robot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RobotSpec {
    /// Name shown in metrics and videos (default `robot<i>`).
    #[serde(default)]
    pub label: Option<String>,
    /// Materials keyed by the one character used for them in `body` (default: `#` = default material).
    #[serde(default)]
    pub materials: Option<BTreeMap<String, MaterialSpec>>,
    /// The body grid as text rows, **first row on top** (y = H − 1); `.` or space is an empty cell.
    pub body: Vec<String>,
    /// The controller (default: none, the robot is passive).
    #[serde(default)]
    pub controller: Option<ControllerSpec>,
    /// Non-welded masses of different voxels of this robot collide (default true).
    #[serde(default = "yes")]
    pub self_collisions: bool,
    /// Bottom-left corner of the body's bounding box at placement, m (default: the task's placement rule).
    #[serde(default)]
    pub position: Option<[f64; 2]>,
}

fn yes() -> bool {
    true
}

/// What to measure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaskSpec {
    /// Distance travelled, average height and control effort (spec §10).
    #[default]
    Locomotion,
}

/// Why a scenario cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("invalid scenario JSON at `{path}`: {message}")]
    Json { path: String, message: String },
    #[error("`world.{field}` = {value} is invalid: it must be {requirement}")]
    World { field: &'static str, value: f64, requirement: &'static str },
    #[error("the scenario has no robot: add at least one entry to `robots`")]
    NoRobots,
    #[error("`robots[{robot}].materials.{key}`: {reason}")]
    Material { robot: usize, key: String, reason: MaterialError },
    #[error("`robots[{robot}].materials`: key {key:?} must be exactly one character, the one used in `body`")]
    MaterialKey { robot: usize, key: String },
    #[error("`robots[{robot}].body[{row}]`: {message}")]
    BodyRow { robot: usize, row: usize, message: String },
    #[error("`robots[{robot}].body`: {reason}")]
    BodyGrid { robot: usize, reason: BodyGridError },
    #[error("`robots[{robot}].controller`: {reason}")]
    Controller { robot: usize, reason: ControllerError },
    #[error("`world.terrain`: {0}")]
    Terrain(TerrainError),
}

/// serde names the Rust type it expected ("expected internally tagged enum TerrainSpec"); say what the
/// JSON must look like instead.
fn without_rust_type_names(message: &str) -> String {
    const TAGGED: &str = "internally tagged enum ";
    match message.find(TAGGED) {
        Some(start) => {
            let rest = &message[start + TAGGED.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            format!("{}an object with a \"type\" field{}", &message[..start], &rest[end..])
        }
        None => message.to_string(),
    }
}

impl Scenario {
    /// Parses JSON; errors name the JSON path of the problem and how to fix it.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let mut message = without_rust_type_names(&inner.to_string());
            if message.contains("unknown field") {
                message.push_str(" (remove it or fix its spelling; `vsr2d schema` prints every accepted field)");
            } else if inner.is_syntax() || inner.is_eof() {
                message.push_str(" (the file is not valid JSON)");
            }
            ScenarioError::Json { path, message }
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Number of steps: round(T/dt), or the released code's `t += dt while t < T` under `legacy-1.0`.
    pub fn steps(&self) -> u64 {
        steps_for(self.world.duration, self.world.dt, self.world.compat.is_legacy())
    }

    fn validate(&self) -> Result<(), ScenarioError> {
        let w = &self.world;
        let check = |field, value: f64, ok: bool, requirement| {
            if value.is_finite() && ok {
                Ok(())
            } else {
                Err(ScenarioError::World { field, value, requirement })
            }
        };
        check("dt", w.dt, w.dt > 0.0 && w.dt <= 0.1, "in (0, 0.1] s")?;
        check("duration", w.duration, w.duration >= 0.0, "≥ 0 s")?;
        check("gravity[0]", w.gravity[0], true, "finite")?;
        check("gravity[1]", w.gravity[1], true, "finite")?;
        if let Some(n) = w.solver_iterations {
            check("solver_iterations", n as f64, (1..=100).contains(&n), "between 1 and 100")?;
        }
        if self.robots.is_empty() {
            return Err(ScenarioError::NoRobots);
        }
        for i in 0..self.robots.len() {
            self.body(i)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_the_json_must_look_like_not_the_rust_type() {
        let err = Scenario::from_json(r#"{"world": {"terrain": "flat"}, "robots": []}"#).unwrap_err().to_string();
        assert!(err.contains("world.terrain") && err.contains(r#"an object with a "type" field"#), "{err}");
        assert!(!err.contains("TerrainSpec") && !err.contains("enum"), "{err}");
    }
}
