//! Scenario JSON: world, robots (materials, body, controller) and task; parsing with JSON-path errors,
//! validation, and building a ready-to-run [`Simulation`](crate::task::Simulation).

mod build;
pub mod cell_parts;
pub mod cell_plan;
pub mod cells;
pub mod force_deflection;
mod placement;
mod scene;

use std::collections::BTreeMap;

pub use build::steps_for;
pub use placement::{PlacedRobot, Placements};
pub use scene::{Scene, SceneRobot};

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
    /// The voxel robots, in creation order (may be empty when there are `cells`).
    #[serde(default)]
    pub robots: Vec<RobotSpec>,
    /// Soft-cell types by name (SCS cells, `cells.md` §10).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cell_types: BTreeMap<String, cells::CellTypeSpec>,
    /// Soft cells, built after the robots, in file order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<cells::CellSpec>,
    /// Connector (magnet) types by name (`cells.md` §4); their key order is the colour order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub connector_types: BTreeMap<String, cell_parts::ConnectorTypeSpec>,
    /// Amplitudes A_ab of pairs of connector types (default √(A_a·A_b)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interactions: Vec<cell_parts::InteractionSpec>,
    /// Permanent joints between cells: `pin` or `merge` (`cells.md` §6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<cell_parts::LinkSpec>,
    /// Chains of cells in a line, neighbours pinned (`cells.md` §6), built after `cells`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<cell_parts::ChainSpec>,
    /// Timed changes: connector switches, muscle commands, pressure, rest area, pushes (`cells.md` §9).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<cell_parts::EventSpec>,
    /// Rigid objects and fixed structures (boxes, walls, platforms, poles), built after the robots and
    /// cells and before the task's own objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<crate::model::object::ObjectSpec>,
    /// What is measured: `locomotion` (default), `jumping`, `carrying`, `pushing`, `climbing`,
    /// `balancing`, `shape`, and for soft cells `free`, `fold`, `force_deflection`.
    #[serde(default)]
    pub task: TaskSpec,
}

/// World settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WorldSpec {
    /// `{"type": "flat"}` (default), `uneven`, the courses `hilly`, `steppy`, `slope`, `stairs`, `gaps`,
    /// `hurdles` (each with an optional `ceiling`), or `{"type": "none"}`; see docs/terrains.md.
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
    /// Engine steps of dt / k per step, each with its own collision detection and magnet forces
    /// (default 1). The solver substeps apply to each of them; the cells' pressure is recomputed in every
    /// solver substep.
    pub force_substeps: Option<usize>,
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
            terrain: TerrainSpec::default(),
            gravity: [0.0, -9.8],
            dt: 1.0 / 60.0,
            control_interval: 1,
            duration: 60.0,
            solver_iterations: None,
            force_substeps: None,
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(from = "TaskWire")]
pub enum TaskSpec {
    /// Distance travelled, average height and control effort (spec §10), optionally from a time t0.
    Locomotion(crate::task::locomotion::LocomotionSpec),
    /// The scene as given: the voxel robots' locomotion metrics plus, per cell, its centre displacement
    /// and area ratio (`cells.md` §11, first slice).
    Free,
    /// One cell pressed by a bar, level by level: the force–deflection curve (`cells.md` §11).
    ForceDeflection(force_deflection::ForceDeflectionSpec),
    /// Chains with a folding program fold for the world's duration (frictionless, gravity-free): the
    /// `free` metrics plus each chain's error to its letter and its pairs (`cells.md` §11).
    Fold,
    /// On flat ground, robot 0 starts a gap above it: how high and how long it gets off the ground.
    Jumping(crate::task::jumping::JumpingSpec),
    /// A box on top of robot 0: how far it carries it before the box touches the ground.
    Carrying(crate::task::carrying::CarryingSpec),
    /// A box on the ground in front of robot 0: how far it pushes it.
    Pushing(crate::task::pushing::PushingSpec),
    /// Robot 0 at the bottom of a vertical channel between two walls: how high it climbs.
    Climbing(crate::task::climbing::ClimbingSpec),
    /// Robot 0 on a platform hinged at its centre (a see-saw): how level it keeps it, how long it stays.
    Balancing(crate::task::balancing::BalancingSpec),
    /// How far robot 0 changes its extent and covered area.
    Shape(crate::task::shape::ShapeSpec),
}

/// What [`TaskSpec`] is read from: struct variants, so that unknown fields are refused (serde's
/// `deny_unknown_fields` does not reach unit variants of an internally tagged enum); externally tagged
/// for serde (see [`crate::tagged`]), internally tagged in the schema as in the JSON.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
#[schemars(tag = "type")]
enum TaskWire {
    /// Distance travelled, average height and control effort (spec §10), optionally from a time t0.
    Locomotion(crate::task::locomotion::LocomotionSpec),
    /// The scene as given (soft cells).
    Free {},
    /// One cell pressed by a bar, level by level (soft cells).
    ForceDeflection(force_deflection::ForceDeflectionSpec),
    /// Programmed chains fold for the world's duration (soft cells).
    Fold {},
    /// On flat ground, robot 0 starts a gap above it: how high and how long it gets off the ground.
    Jumping(crate::task::jumping::JumpingSpec),
    /// A box on top of robot 0: how far it carries it before the box touches the ground.
    Carrying(crate::task::carrying::CarryingSpec),
    /// A box on the ground in front of robot 0: how far it pushes it.
    Pushing(crate::task::pushing::PushingSpec),
    /// Robot 0 at the bottom of a vertical channel between two walls: how high it climbs.
    Climbing(crate::task::climbing::ClimbingSpec),
    /// Robot 0 on a platform hinged at its centre (a see-saw): how level it keeps it, how long it stays.
    Balancing(crate::task::balancing::BalancingSpec),
    /// How far robot 0 changes its extent and covered area.
    Shape(crate::task::shape::ShapeSpec),
}

impl Default for TaskSpec {
    fn default() -> Self {
        TaskSpec::Locomotion(Default::default())
    }
}

impl TaskSpec {
    /// The task's name, as in JSON.
    pub fn name(&self) -> &'static str {
        match self {
            TaskSpec::Locomotion(_) => "locomotion",
            TaskSpec::Free => "free",
            TaskSpec::ForceDeflection(_) => "force_deflection",
            TaskSpec::Fold => "fold",
            TaskSpec::Jumping(_) => "jumping",
            TaskSpec::Carrying(_) => "carrying",
            TaskSpec::Pushing(_) => "pushing",
            TaskSpec::Climbing(_) => "climbing",
            TaskSpec::Balancing(_) => "balancing",
            TaskSpec::Shape(_) => "shape",
        }
    }

    /// The field that sizes the objects the task places (what to shrink when one is in a robot's way).
    pub(crate) fn object_size_field(&self) -> &'static str {
        match self {
            TaskSpec::Balancing(_) => "platform_size",
            TaskSpec::Climbing(_) => "width",
            _ => "box_size",
        }
    }

    /// The field that sets the mass of the task's moving object.
    pub(crate) fn object_mass_field(&self) -> &'static str {
        match self {
            TaskSpec::Balancing(_) => "platform_mass",
            _ => "box_mass",
        }
    }

    /// The key of the task's own metrics in a run's result and the names of those metrics that are one
    /// number each (what a fitness may name); no key for tasks without metrics of their own.
    pub(crate) fn metric_names(&self) -> (Option<&'static str>, Vec<String>) {
        use crate::task::TaskMetrics as M;
        let example = match self {
            TaskSpec::Locomotion(_) | TaskSpec::Free | TaskSpec::ForceDeflection(_) | TaskSpec::Fold => {
                return (None, vec![])
            }
            TaskSpec::Jumping(_) => M::Jumping(Default::default()),
            TaskSpec::Carrying(_) => M::Carrying(Default::default()),
            TaskSpec::Pushing(_) => M::Pushing(Default::default()),
            TaskSpec::Climbing(_) => M::Climbing(Default::default()),
            TaskSpec::Balancing(_) => M::Balancing(Default::default()),
            TaskSpec::Shape(_) => M::Shape(Default::default()),
        };
        let value = serde_json::to_value(example).expect("metrics serialise");
        let names =
            value.get(self.name()).and_then(|m| m.as_object()).map(|m| m.keys().cloned().collect()).unwrap_or_default();
        (Some(self.name()), names)
    }
}

impl<'de> Deserialize<'de> for TaskSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::tagged::deserialize::<D, TaskWire>(d, "type", None).map(TaskSpec::from)
    }
}

impl From<TaskWire> for TaskSpec {
    fn from(wire: TaskWire) -> Self {
        match wire {
            TaskWire::Locomotion(spec) => TaskSpec::Locomotion(spec),
            TaskWire::Free {} => TaskSpec::Free,
            TaskWire::ForceDeflection(spec) => TaskSpec::ForceDeflection(spec),
            TaskWire::Fold {} => TaskSpec::Fold,
            TaskWire::Jumping(spec) => TaskSpec::Jumping(spec),
            TaskWire::Carrying(spec) => TaskSpec::Carrying(spec),
            TaskWire::Pushing(spec) => TaskSpec::Pushing(spec),
            TaskWire::Climbing(spec) => TaskSpec::Climbing(spec),
            TaskWire::Balancing(spec) => TaskSpec::Balancing(spec),
            TaskWire::Shape(spec) => TaskSpec::Shape(spec),
        }
    }
}

/// Why a scenario cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{}: {message}", if path.is_empty() || path == "." { "the scenario".to_string() } else { format!("`{path}`") })]
    Json { path: String, message: String },
    #[error("`world.{field}` = {} is invalid: it must be {requirement}", crate::geom::compact(*.value))]
    World { field: &'static str, value: f64, requirement: &'static str },
    #[error("`robots[{robot}].position` = [{}, {}] is invalid: {requirement}", crate::geom::compact(.position[0]), crate::geom::compact(.position[1]))]
    Position { robot: usize, position: [f64; 2], requirement: String },
    #[error(transparent)]
    TooLarge(#[from] crate::limits::TooLarge),
    #[error("the scenario has no robot: add at least one entry to `robots` (or to `cells`)")]
    NoRobots,
    #[error("`cell_types.{key}.{field}`: {message}")]
    CellType { key: String, field: String, message: String },
    #[error("`cells[{index}].{field}`: {message}")]
    Cell { index: usize, field: String, message: String },
    /// Any other cell part (connectors, muscles, links, chains, schedule), with its JSON path.
    #[error("`{path}`: {message}")]
    At { path: String, message: String },
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
    #[error("`world.terrain.{}`: {}", .0.field(), .0.reason())]
    Terrain(TerrainError),
    #[error(transparent)]
    Task(#[from] crate::task::TaskSpecError),
}

pub use crate::limits::{Limits, MAX_FRAME_SIDE};

/// What a scenario costs to run, estimated before it is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub voxels: u64,
    pub steps: u64,
    pub voxel_steps: u64,
    pub terrain_vertices: u64,
    /// Soft-cell membrane bodies over all cells, chains included.
    pub cell_bodies: u64,
    pub cell_body_steps: u64,
    /// Connectors² × steps: the pair search's worst case.
    pub connector_pair_steps: u64,
    /// Rigid objects: the scenario's and the task's.
    pub objects: u64,
    pub object_steps: u64,
    /// Contact pairs among the scenario's objects at t = 0 ([`crate::model::object::contact_pairs`]).
    pub object_contact_pairs: u64,
}

/// The largest simulated time accepted, s (11.6 days); anything longer is a typo.
pub const MAX_DURATION: f64 = 1e6;
/// The smallest time step accepted, s.
pub const MIN_DT: f64 = 1e-5;
/// The largest gravity component accepted, m/s² (about 100 g).
pub(crate) const MAX_GRAVITY: f64 = 1000.0;
/// The largest coordinate of an explicit robot position, m.
pub(crate) const MAX_POSITION: f64 = 1e5;
/// The largest body grid (width × height, empty cells included).
pub(crate) const MAX_GRID_CELLS: usize = 1_000_000;

/// The largest scenario (or manifest) file read, 16 MiB: more is not one (or is `/dev/zero`).
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Reads at most [`MAX_INPUT_BYTES`] of text from `reader`; more is an `InvalidData` error asking
/// whether it is a `what` file at all.
pub fn read_bounded(reader: impl std::io::Read, what: &str) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    reader.take(MAX_INPUT_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_INPUT_BYTES {
        let message = format!("larger than {} MiB; is it a {what} file?", MAX_INPUT_BYTES >> 20);
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, message));
    }
    Ok(text)
}

/// serde names the Rust type it expected ("expected internally tagged enum TerrainSpec"); say what the
/// JSON must look like instead.
pub(crate) fn without_rust_type_names(message: &str) -> String {
    const TAGGED: &str = "internally tagged enum ";
    let message = match message.find(TAGGED) {
        Some(start) => {
            let rest = &message[start + TAGGED.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            format!("{}an object with a \"type\" field{}", &message[..start], &rest[end..])
        }
        None => message.to_string(),
    };
    // An untagged enum's name means nothing to the user: say which forms the value may take.
    const UNTAGGED: &str = "data did not match any variant of untagged enum ";
    let message = match message.find(UNTAGGED) {
        Some(start) => {
            let rest = &message[start + UNTAGGED.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            let forms = match &rest[..end] {
                "NearCapSpec" => "a length in m (a number) or \"9R/N\"",
                "BodySpec" => "a body name (\"worm\", \"biped\", \"tripod\", \"WxH\") or a list of text rows",
                "FeatureSet" => "a feature-set name or a list of features",
                "JobId" => "a string or a number",
                _ => "one of the forms `vsr2d schema` gives",
            };
            format!("{}wrong form: expected {forms}{}", &message[..start], &rest[end..])
        }
        None => message,
    };
    // "expected struct CellSpec" names a Rust type: an object is what the JSON must hold there.
    const STRUCT: &str = "expected struct ";
    let message = match message.find(STRUCT) {
        Some(start) => {
            let rest = &message[start + STRUCT.len()..];
            let end = rest.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(rest.len());
            format!("{}expected an object{}", &message[..start], &rest[end..])
        }
        None => message,
    };
    // "expected f64" names a Rust type: say the JSON's.
    let mut message = message;
    for (rust, json) in [
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected u64", "expected a whole number ≥ 0"),
        ("expected u32", "expected a whole number ≥ 0"),
        ("expected u16", "expected a whole number ≥ 0"),
        ("expected u8", "expected a whole number ≥ 0"),
        ("expected usize", "expected a whole number ≥ 0"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected an object"),
    ] {
        // Whole words only: "expected u32" must not match inside "expected u320".
        if let Some(i) = message.find(rust) {
            let after = message[i + rust.len()..].chars().next();
            if !after.is_some_and(|c| c.is_alphanumeric()) {
                message.replace_range(i..i + rust.len(), json);
            }
        }
    }
    message
}

/// Rewords what serde_json reports as a syntax error for text that is valid JSON of the wrong shape.
fn valid_json_type_error(message: &str, schema_command: &str) -> String {
    let at = message.find(" at line ").map_or("", |i| &message[i..]);
    if message.starts_with("expected value") {
        format!("wrong type{at}: expected a string naming one of the documented choices ({schema_command} lists them)")
    } else if message.starts_with("trailing characters") {
        format!("too many elements{at}: this array has a fixed length (e.g. [x, y])")
    } else {
        format!("{message} (the JSON is valid but does not have the expected shape; {schema_command} prints it)")
    }
}

/// Deserializes one JSON document as `T`; an error is (JSON path, message saying how to fix it), the
/// message pointing at `schema_command` for the accepted shape. `what` names the document
/// ("the scenario object") for text after it. Shared by every JSON input with paths in its errors
/// (scenarios, `vsr2d check` manifests).
pub fn from_json_located<T: serde::de::DeserializeOwned>(
    text: &str,
    what: &str,
    schema_command: &str,
) -> Result<T, (String, String)> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        // An error inside a tagged enum (controller, time function, terrain, task) carries the
        // path inside it in its message (see crate::tagged): splice it onto the outer one.
        let (path, message) = crate::tagged::locate(&e.path().to_string(), &e.inner().to_string());
        let inner = e.into_inner();
        let mut message = without_rust_type_names(&message);
        if message.contains("unknown field") {
            message
                .push_str(&format!(" (remove it or fix its spelling; {schema_command} prints every accepted field)"));
        } else if message.starts_with("invalid type") || message.starts_with("invalid value") {
            message.push_str(&format!(
                " (write a value of the expected type here; {schema_command} prints every field's type)"
            ));
        } else if message.starts_with("missing field") {
            message.push_str(&format!(" (add it; {schema_command} prints which fields are required)"));
        } else if inner.is_syntax() || inner.is_eof() {
            // serde_json reports some type errors of valid JSON as syntax errors: a number where a
            // name is expected ("expected value"), an array longer than a fixed-size one ("trailing
            // characters"). Only text that does not parse as JSON is called invalid JSON.
            if serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok() {
                message = valid_json_type_error(&message, schema_command);
            } else {
                message.push_str(" (the file is not valid JSON)");
            }
        }
        (path, message)
    })?;
    de.end().map_err(|e| (String::new(), format!("{e} after {what} (the file must hold exactly one JSON object)")))?;
    Ok(value)
}

impl Scenario {
    /// Parses JSON; errors name the JSON path of the problem and how to fix it.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario: Scenario = from_json_located(text, "the scenario object", "`vsr2d schema`")
            .map_err(|(path, message)| ScenarioError::Json { path, message })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// The cells, their connectors, muscles, links and schedule, checked and resolved.
    pub fn cell_plan(&self) -> Result<cell_plan::CellPlan, ScenarioError> {
        cell_plan::plan(&cell_plan::CellInput {
            cell_types: &self.cell_types,
            cells: &self.cells,
            connector_types: &self.connector_types,
            interactions: &self.interactions,
            links: &self.links,
            chains: &self.chains,
            schedule: &self.schedule,
        })
    }

    /// Whether the scenario has soft cells (its own or in chains).
    pub(crate) fn has_cells(&self) -> bool {
        !self.cells.is_empty() || !self.chains.is_empty()
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
        check("dt", w.dt, (MIN_DT..=0.1).contains(&w.dt), "in [0.00001, 0.1] s")?;
        check("duration", w.duration, (0.0..=MAX_DURATION).contains(&w.duration), "in [0, 1e6] s")?;
        check("gravity[0]", w.gravity[0], w.gravity[0].abs() <= MAX_GRAVITY, "in [-1000, 1000] m/s²")?;
        check("gravity[1]", w.gravity[1], w.gravity[1].abs() <= MAX_GRAVITY, "in [-1000, 1000] m/s²")?;
        w.terrain.validate(w.compat.is_legacy()).map_err(ScenarioError::Terrain)?;
        if let Some(n) = w.solver_iterations {
            check("solver_iterations", n as f64, (1..=256).contains(&n), "between 1 and 256")?;
        }
        if let Some(n) = w.force_substeps {
            check("force_substeps", n as f64, (1..=64).contains(&n), "between 1 and 64")?;
        }
        if self.robots.is_empty() && self.cells.is_empty() && self.chains.is_empty() {
            return Err(ScenarioError::NoRobots);
        }
        let plan = self.cell_plan()?;
        if self.task == TaskSpec::Fold {
            self.validate_fold(&plan)?;
        }
        if let TaskSpec::ForceDeflection(spec) = &self.task {
            force_deflection::validate(spec, w.dt)?;
            if self.cells.len() != 1 {
                return Err(ScenarioError::Json {
                    path: "cells".into(),
                    message: format!(
                        "the `force_deflection` task presses exactly one cell, the scenario has {}; keep one entry",
                        self.cells.len()
                    ),
                });
            }
            if !self.robots.is_empty() {
                return Err(ScenarioError::Json {
                    path: "robots".into(),
                    message: "the `force_deflection` task has no voxel robots; remove them".into(),
                });
            }
        }
        self.validate_task()?;
        for (i, o) in self.objects.iter().enumerate() {
            if let Some((field, message)) = o.invalid() {
                return Err(ScenarioError::Json { path: format!("objects[{i}].{field}"), message });
            }
        }
        for (i, robot) in self.robots.iter().enumerate() {
            if let Some(p) = robot.position {
                if !p.iter().all(|c| c.is_finite() && c.abs() <= MAX_POSITION) {
                    let requirement = "both coordinates must be finite and within ±1e5 m".to_string();
                    return Err(ScenarioError::Position { robot: i, position: p, requirement });
                }
            }
            self.body(i)?;
        }
        Ok(())
    }

    /// The robot tasks' own fields, and what they need of the scene: one voxel robot (robot 0 is "the
    /// robot"), and flat ground where the task is defined on it.
    fn validate_task(&self) -> Result<(), ScenarioError> {
        let (name, flat_ground) = match &self.task {
            TaskSpec::Locomotion(spec) => {
                return Ok(spec.validate(self.world.duration)?);
            }
            TaskSpec::Free | TaskSpec::ForceDeflection(_) | TaskSpec::Fold => return Ok(()),
            TaskSpec::Jumping(spec) => (spec.validate().map(|_| "jumping")?, true),
            TaskSpec::Carrying(spec) => (spec.validate().map(|_| "carrying")?, false),
            TaskSpec::Pushing(spec) => (spec.validate().map(|_| "pushing")?, false),
            TaskSpec::Climbing(spec) => (spec.validate().map(|_| "climbing")?, true),
            TaskSpec::Balancing(spec) => (spec.validate().map(|_| "balancing")?, true),
            TaskSpec::Shape(_) => ("shape", false),
        };
        let json = |path: &str, message: String| ScenarioError::Json { path: path.into(), message };
        if self.robots.is_empty() {
            return Err(json("robots", format!("the `{name}` task measures robot 0: add a voxel robot")));
        }
        if flat_ground && !matches!(self.world.terrain, TerrainSpec::Flat { ceiling: None }) {
            return Err(json(
                "world.terrain",
                format!("the `{name}` task is defined on flat ground: use `{{\"type\": \"flat\"}}` (the default)"),
            ));
        }
        if matches!(self.world.terrain, TerrainSpec::None) {
            return Err(json(
                "world.terrain",
                format!("the `{name}` task needs ground: use a terrain other than `none`"),
            ));
        }
        Ok(())
    }

    /// The `fold` task's conditions (`cells.md` §11: "totally frictionless, gravity free"): a programmed
    /// chain, no gravity, friction 0 on its cells.
    fn validate_fold(&self, plan: &cell_plan::CellPlan) -> Result<(), ScenarioError> {
        let json = |path: &str, message: String| ScenarioError::Json { path: path.into(), message };
        if plan.folds.is_empty() {
            return Err(json(
                "task",
                "the `fold` task needs a chain with a `program` (e.g. \"program\": \"builtin:L\"); add one or use `free`"
                    .into(),
            ));
        }
        if self.world.gravity != [0.0, 0.0] {
            return Err(json(
                "world.gravity",
                format!("the `fold` task runs gravity-free; set it to [0, 0] (it is {:?})", self.world.gravity),
            ));
        }
        for fold in &plan.folds {
            let k = self.chains.iter().position(|c| c.id == fold.chain).unwrap_or(0);
            for cell in &plan.cells[fold.first..fold.first + fold.program.cells()] {
                if cell.params.friction != 0.0 {
                    return Err(json(
                        &format!("cell_types.{}.friction", cell.type_name),
                        format!(
                            "the `fold` task is frictionless and chain `{}` (chains[{k}]) uses this type; set it to 0 (it is {})",
                            fold.chain,
                            crate::geom::compact(cell.params.friction)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// What the `fold` task measures: one goal per chain with a folding program.
    pub fn fold_goals(&self) -> Result<Vec<crate::task::fold::FoldGoal>, ScenarioError> {
        Ok(Self::fold_goals_of(&self.cell_plan()?))
    }

    /// What the `fold` task measures of a planned scene: one goal per chain with a folding program.
    pub(crate) fn fold_goals_of(plan: &cell_plan::CellPlan) -> Vec<crate::task::fold::FoldGoal> {
        plan.folds
            .iter()
            .map(|f| crate::task::fold::FoldGoal {
                chain: f.chain.clone(),
                program: f.program.name.clone(),
                cells: plan.cells[f.first..f.first + f.program.cells()].iter().map(|c| c.id.clone()).collect(),
                targets: f.program.targets(f.pitch),
                lattice: f.program.path.clone(),
                diameter: f.diameter,
            })
            .collect()
    }

    /// The cost of running this scenario (voxels, steps, terrain points, soft-cell bodies and connectors,
    /// rigid objects and their contact pairs); cheap, nothing is built but the terrain's profile when
    /// there are objects.
    pub fn cost(&self) -> Cost {
        // A scenario whose cells do not plan is refused by validation, and costs no cells here.
        let plan = if self.has_cells() { self.cell_plan().ok() } else { None };
        // The ground under the objects (built only for them; its size was bounded by validation).
        let ground = if self.objects.is_empty() {
            None
        } else {
            self.world.terrain.build(self.world.compat.is_legacy()).ok().flatten()
        };
        self.cost_of(plan.as_ref(), ground.as_ref())
    }

    /// The cost given the planned cells (`None`: no cells) and the ground (`None`: none, or no objects).
    fn cost_of(&self, plan: Option<&cell_plan::CellPlan>, ground: Option<&crate::model::terrain::Terrain>) -> Cost {
        let voxels: u64 = self
            .robots
            .iter()
            .map(|r| r.body.iter().map(|row| row.chars().filter(|&c| c != '.' && c != ' ').count() as u64).sum::<u64>())
            .sum();
        let steps = self.steps();
        // The resolved cells (chains and folding programs expanded).
        let (cell_bodies, connectors) = plan.map_or((0, 0), |plan| {
            (plan.cells.iter().map(|c| c.params.bodies as u64).sum::<u64>(), plan.connectors.len() as u64)
        });
        let objects = self.objects.len() as u64 + self.task_objects();
        let ground_x: Vec<f64> = match ground {
            Some(t) if !self.objects.is_empty() => t.profile.iter().map(|p| p.x).collect(),
            _ => Vec::new(),
        };
        let object_contact_pairs = crate::model::object::contact_pairs(&self.objects, &ground_x, u64::MAX / 2);
        Cost {
            objects,
            object_steps: objects.saturating_mul(steps),
            object_contact_pairs,
            voxels,
            steps,
            voxel_steps: voxels.saturating_mul(steps),
            terrain_vertices: self.world.terrain.vertices(self.world.compat.is_legacy()),
            cell_bodies,
            cell_body_steps: cell_bodies.saturating_mul(steps),
            connector_pair_steps: connectors.saturating_mul(connectors).saturating_mul(steps),
        }
    }

    /// Checks the [`cost`](Scenario::cost) against `limits`.
    pub fn check_limits(&self, limits: &Limits) -> Result<Cost, ScenarioError> {
        let cost = self.cost();
        self.check_cost(&cost, limits)?;
        Ok(cost)
    }

    /// Refuses `cost` (this scenario's) where it exceeds `limits`, naming the field to change.
    fn check_cost(&self, cost: &Cost, limits: &Limits) -> Result<(), ScenarioError> {
        use crate::limits::check;
        check("robots", "voxels", cost.voxels, limits.max_voxels, "use smaller bodies")?;
        check(
            "world.duration",
            "voxel steps (voxels × duration / dt)",
            cost.voxel_steps,
            limits.max_voxel_steps,
            "shorten the duration, raise dt or use smaller bodies",
        )?;
        if cost.terrain_vertices > limits.max_terrain_vertices {
            let (path, hint) = self.world.terrain.vertex_knob();
            check(path, "terrain points", cost.terrain_vertices, limits.max_terrain_vertices, hint)?;
        }
        check(
            "cells",
            "soft-cell membrane bodies (cells and chains × their types' bodies)",
            cost.cell_bodies,
            limits.max_cell_bodies,
            "use fewer cells or fewer bodies per cell type",
        )?;
        check(
            "world.duration",
            "soft-cell body steps (membrane bodies × duration / dt)",
            cost.cell_body_steps,
            limits.max_cell_body_steps,
            "shorten the duration, raise dt, or use fewer cells or bodies per cell",
        )?;
        check(
            "cells",
            "connector pair checks (connectors² × steps, the worst case)",
            cost.connector_pair_steps,
            limits.max_connector_pair_steps,
            "use fewer connectors or shorten the duration",
        )?;
        check(
            "objects",
            "rigid objects (`objects` and the task's)",
            cost.objects,
            limits.max_objects,
            "use fewer objects",
        )?;
        check(
            "world.duration",
            "object steps (rigid objects × duration / dt)",
            cost.object_steps,
            limits.max_object_steps,
            "shorten the duration, raise dt or use fewer objects",
        )?;
        check(
            "objects",
            "contact pairs at t = 0 (objects overlapping one another, and the ground segments under moving ones)",
            cost.object_contact_pairs,
            limits.max_object_contact_pairs,
            "move the objects apart so that they do not overlap, use fewer or smaller objects, or a coarser terrain",
        )?;
        Ok(())
    }

    /// How many objects the task places (its boxes, walls, platform).
    fn task_objects(&self) -> u64 {
        match self.task {
            TaskSpec::Carrying(_) | TaskSpec::Pushing(_) | TaskSpec::Balancing(_) => 1,
            TaskSpec::Climbing(_) => 2,
            _ => 0,
        }
    }
}

impl ScenarioError {
    /// The JSON path of the problem (`robots[0].controller`, `world.dt`); empty for the whole scenario.
    /// For callers that report it apart from the message (the Python exception).
    pub fn path(&self) -> String {
        match self {
            ScenarioError::Json { path, .. } => {
                if path == "." {
                    String::new()
                } else {
                    path.clone()
                }
            }
            ScenarioError::World { field, .. } => format!("world.{field}"),
            ScenarioError::Position { robot, .. } => format!("robots[{robot}].position"),
            ScenarioError::TooLarge(e) => e.path.to_string(),
            ScenarioError::NoRobots => "robots".into(),
            ScenarioError::CellType { key, field, .. } => format!("cell_types.{key}.{field}"),
            ScenarioError::Cell { index, field, .. } => format!("cells[{index}].{field}"),
            ScenarioError::At { path, .. } => path.clone(),
            ScenarioError::Material { robot, key, .. } => format!("robots[{robot}].materials.{key}"),
            ScenarioError::MaterialKey { robot, .. } => format!("robots[{robot}].materials"),
            ScenarioError::BodyRow { robot, row, .. } => format!("robots[{robot}].body[{row}]"),
            ScenarioError::BodyGrid { robot, .. } => format!("robots[{robot}].body"),
            ScenarioError::Controller { robot, .. } => format!("robots[{robot}].controller"),
            ScenarioError::Terrain(e) => format!("world.terrain.{}", e.field()),
            ScenarioError::Task(e) => format!("task.{}", e.field),
        }
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

    /// Every object the schema describes refuses unknown fields (`deny_unknown_fields` everywhere,
    /// including the tagged enums' variants).
    #[test]
    fn the_schema_refuses_unknown_fields_everywhere() {
        fn walk(v: &serde_json::Value, at: &str, objects: &mut usize) {
            match v {
                serde_json::Value::Object(map) => {
                    if map.contains_key("properties") {
                        *objects += 1;
                        assert_eq!(
                            map.get("additionalProperties"),
                            Some(&serde_json::Value::Bool(false)),
                            "{at} accepts unknown fields: {v}"
                        );
                    }
                    for (k, child) in map {
                        walk(child, &format!("{at}/{k}"), objects);
                    }
                }
                serde_json::Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        walk(child, &format!("{at}/{i}"), objects);
                    }
                }
                _ => {}
            }
        }
        let schema = serde_json::to_value(schemars::schema_for!(Scenario)).unwrap();
        let mut objects = 0;
        walk(&schema, "#", &mut objects);
        assert!(objects >= 15, "only {objects} object schemas");
    }

    /// Errors inside tagged enums (controllers, time functions, terrain, task) name the innermost path,
    /// not the enum: serde buffers their content, and crate::tagged reads it again with path tracking.
    #[test]
    fn errors_inside_tagged_enums_name_the_innermost_path() {
        let robot = |controller: &str| {
            format!(
                r###"{{"world": {{"duration": 1}}, "robots": [{{"body": ["##"]}}, {{"body": ["##"], "controller": {controller}}}]}}"###
            )
        };
        let err = |text: &str| match Scenario::from_json(text) {
            Err(ScenarioError::Json { path, message }) => (path, message),
            other => panic!("{other:?}"),
        };
        for (text, path, says) in [
            (
                robot(r#"{"type": "time_functions", "default": {"type": "sin", "amplitude": null}}"#),
                "robots[1].controller.default.amplitude",
                "invalid type: null, expected a number",
            ),
            (
                robot(
                    r#"{"type": "time_functions", "cells": [{"cell": [0, 0], "function": {"type": "sin"}},
                       {"cell": [1, 0], "function": {"type": "constant", "value": "0.5"}}]}"#,
                ),
                "robots[1].controller.cells[1].function.value",
                "invalid type: string \"0.5\", expected a number",
            ),
            (
                robot(
                    r#"{"type": "time_functions", "cells": [{"cell": [0, 0], "function": {"type": "expr", "expr": 1}}]}"#,
                ),
                "robots[1].controller.cells[0].function.expr",
                "expected a string",
            ),
            (
                robot(
                    r#"{"type": "mlp", "weights": [], "sensors": {"cells": [{"cell": [0, 0],
                       "features": [{"sensor": "touching"}, {"sensor": "pressure"}]}]}}"#,
                ),
                "robots[1].controller.sensors.cells[0].features[1].sensor",
                "unknown variant `pressure`",
            ),
            (
                robot(r#"{"type": "mlp", "weights": [0.5, "x"]}"#),
                "robots[1].controller.weights[1]",
                "expected a number",
            ),
            (
                robot(r#"{"type": "mlp", "weights": [], "driver": {"type": "sin", "frequency": [1]}}"#),
                "robots[1].controller.driver.frequency",
                "expected a number",
            ),
            // The tag itself: an unknown value lists the valid ones.
            (
                robot(r#"{"type": "pid"}"#),
                "robots[1].controller.type",
                "unknown variant `pid`, expected one of `time_functions`, `mlp`, `distributed`",
            ),
            (
                robot(r#"{"type": "time_functions", "default": {"type": 3}}"#),
                "robots[1].controller.default.type",
                "unknown variant `3`, expected one of `sin`, `constant`, `expr`",
            ),
            (
                robot(r#"{"type": "time_functions", "default": {"amplitude": 1}}"#),
                "robots[1].controller.default",
                "missing field `type` (expected one of `sin`, `constant`, `expr`)",
            ),
            (
                robot(r#"{"type": "time_functions", "default": {"type": "constant"}}"#),
                "robots[1].controller.default",
                "missing field `value`",
            ),
            (
                robot(r#"{"type": "time_functions", "default": {"type": "sin", "amp": 1}}"#),
                "robots[1].controller.default.amp",
                "unknown field `amp`",
            ),
            (
                r##"{"world": {"terrain": {"type": "uneven", "seed": -1}}, "robots": [{"body": ["#"]}]}"##.to_string(),
                "world.terrain.seed",
                "invalid value: integer `-1`, expected a whole number ≥ 0",
            ),
            (
                r##"{"world": {"terrain": {"type": "hills"}}, "robots": [{"body": ["#"]}]}"##.to_string(),
                "world.terrain.type",
                "expected one of `flat`, `uneven`, `hilly`, `steppy`, `slope`, `stairs`, `gaps`, `hurdles`, `none`",
            ),
            (
                r##"{"task": {"type": "race"}, "robots": [{"body": ["#"]}]}"##.to_string(),
                "task.type",
                "expected one of `locomotion`, `free`, `force_deflection`",
            ),
        ] {
            let (at, message) = err(&text);
            assert_eq!(at, path, "{message}\n{text}");
            assert!(message.contains(says), "{at}: {message}");
            assert!(!message.starts_with("at `"), "{message}");
        }
        // The whole message names the path once, and says how to fix an unknown field.
        let e =
            Scenario::from_json(&robot(r#"{"type": "time_functions", "default": {"type": "sin", "amplitude": null}}"#))
                .unwrap_err()
                .to_string();
        assert!(
            e.starts_with("`robots[1].controller.default.amplitude`: invalid type: null, expected a number")
                && e.contains("expected type here"),
            "{e}"
        );
        let e = Scenario::from_json(&robot(r#"{"type": "time_functions", "default": {"type": "sin", "amp": 1}}"#))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("`robots[1].controller.default.amp`: unknown field `amp`") && e.contains("vsr2d schema"),
            "{e}"
        );
    }

    /// A number where an object belongs is named in JSON's words, not by the Rust struct's name.
    #[test]
    fn a_value_where_an_object_belongs_is_named_in_json_words() {
        for (text, at) in [
            (r#"{"cells": [99999]}"#, "`cells[0]`"),
            (r##"{"cell_types": {"soft": "x"}, "robots": [{"body": ["#"]}]}"##, "`cell_types.soft`"),
            (r##"{"robots": [{"body": ["#"], "materials": {"#": 3}}]}"##, "`robots[0].materials.#`"),
        ] {
            let e = Scenario::from_json(text).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{at}: invalid type")) && e.contains("expected an object"), "{e}");
            assert!(!e.contains("struct") && !e.contains("Spec"), "{e}");
        }
    }

    #[test]
    fn trailing_data_unknown_fields_and_valid_json_type_errors_are_refused_clearly() {
        let ok = r##"{"world": {"duration": 1}, "robots": [{"body": ["#"]}]}"##;
        Scenario::from_json(ok).unwrap();
        let err = |text: &str| Scenario::from_json(text).unwrap_err().to_string();
        let e = err(&format!("{ok} {{}}"));
        assert!(e.contains("trailing") && e.contains("exactly one JSON object"), "{e}");
        for (text, path) in [
            (r##"{"world": {"terrain": {"type": "flat", "x": 1}}, "robots": [{"body": ["#"]}]}"##, "world.terrain.x"),
            (r##"{"world": {"terrain": {"type": "none", "x": 1}}, "robots": [{"body": ["#"]}]}"##, "world.terrain.x"),
            (r##"{"task": {"type": "locomotion", "x": 1}, "robots": [{"body": ["#"]}]}"##, "task.x"),
        ] {
            let e = err(text);
            assert!(e.contains("unknown field") && e.contains(&format!("`{path}`")), "{e}");
        }
        for (text, path) in [
            (r##"{"world": {"compat": 1}, "robots": [{"body": ["#"]}]}"##, "world.compat"),
            (r##"{"world": {"gravity": [0, 0, 0]}, "robots": [{"body": ["#"]}]}"##, "world.gravity"),
        ] {
            let e = err(text);
            assert!(e.contains(&format!("`{path}`")) && !e.contains("not valid JSON"), "{e}");
        }
        assert!(err(r##"{"robots": [{"body": ["#"]}"##).contains("not valid JSON"));
        // Numbers in messages are compact.
        let e = err(r##"{"world": {"duration": 1e308}, "robots": [{"body": ["#"]}]}"##);
        assert!(e.contains("1e308") && e.len() < 200, "{e}");
    }
}
