//! Immutable, engine-free snapshots of a simulation, and the listener trait that receives them.
//!
//! A snapshot is plain data (f64, vectors, strings): everything downstream of the physics (metrics,
//! recorders, renderers, reports) sees only this module, so it can be recorded to JSON Lines, rendered
//! later, or built by hand in tests without touching the engine.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A 2-D point or vector in world coordinates (metres; y up). Serialised as `[x, y]`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(from = "[f64; 2]", into = "[f64; 2]")]
pub struct Vec2 {
    pub x: f64,
    pub y: f64,
}

impl Vec2 {
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }
    pub fn dot(self, o: Vec2) -> f64 {
        self.x * o.x + self.y * o.y
    }
    /// z component of the 3-D cross product.
    pub fn cross(self, o: Vec2) -> f64 {
        self.x * o.y - self.y * o.x
    }
    pub fn length(self) -> f64 {
        self.x.hypot(self.y)
    }
    /// The unit vector in this direction, or zero for a zero vector.
    pub fn normalized(self) -> Vec2 {
        let l = self.length();
        if l > 0.0 {
            self * (1.0 / l)
        } else {
            Vec2::ZERO
        }
    }
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl From<[f64; 2]> for Vec2 {
    fn from(a: [f64; 2]) -> Self {
        Vec2::new(a[0], a[1])
    }
}
impl From<Vec2> for [f64; 2] {
    fn from(v: Vec2) -> Self {
        [v.x, v.y]
    }
}
impl std::ops::Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}
impl std::ops::Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}
impl std::ops::Mul<f64> for Vec2 {
    type Output = Vec2;
    fn mul(self, s: f64) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}
impl std::ops::Neg for Vec2 {
    type Output = Vec2;
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

/// An axis-aligned rectangle in world coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    pub min: Vec2,
    pub max: Vec2,
}

impl Aabb {
    /// The empty box: the identity of [`Aabb::union`].
    pub const EMPTY: Aabb =
        Aabb { min: Vec2::new(f64::INFINITY, f64::INFINITY), max: Vec2::new(f64::NEG_INFINITY, f64::NEG_INFINITY) };

    pub fn from_points(points: impl IntoIterator<Item = Vec2>) -> Aabb {
        points.into_iter().fold(Aabb::EMPTY, |b, p| b.including(p))
    }
    pub fn including(self, p: Vec2) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x.min(p.x), self.min.y.min(p.y)),
            max: Vec2::new(self.max.x.max(p.x), self.max.y.max(p.y)),
        }
    }
    pub fn union(self, o: Aabb) -> Aabb {
        Aabb {
            min: Vec2::new(self.min.x.min(o.min.x), self.min.y.min(o.min.y)),
            max: Vec2::new(self.max.x.max(o.max.x), self.max.y.max(o.max.y)),
        }
    }
    pub fn is_empty(&self) -> bool {
        !(self.min.x <= self.max.x && self.min.y <= self.max.y)
    }
    pub fn width(&self) -> f64 {
        self.max.x - self.min.x
    }
    pub fn height(&self) -> f64 {
        self.max.y - self.min.y
    }
    pub fn center(&self) -> Vec2 {
        (self.min + self.max) * 0.5
    }
}

/// A closed polygon, vertices counter-clockwise (the last vertex joins the first).
pub type Polygon = Vec<Vec2>;

/// The scaffolding group a spring belongs to (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SpringGroup {
    /// Side external: outer gap corners of two adjacent masses.
    #[serde(rename = "E")]
    SideExternal,
    /// Side internal: inner gap corners of two adjacent masses.
    #[serde(rename = "I")]
    SideInternal,
    /// Side cross: the two diagonals of the gap between adjacent masses.
    #[serde(rename = "X")]
    SideCross,
    /// Central cross: mass centres, SW–NE and SE–NW.
    #[serde(rename = "C")]
    CentralCross,
}

impl SpringGroup {
    pub const ALL: [SpringGroup; 4] =
        [SpringGroup::SideExternal, SpringGroup::SideInternal, SpringGroup::SideCross, SpringGroup::CentralCross];
    /// The one-letter code of the spec (E, I, X, C).
    pub fn code(self) -> char {
        match self {
            SpringGroup::SideExternal => 'E',
            SpringGroup::SideInternal => 'I',
            SpringGroup::SideCross => 'X',
            SpringGroup::CentralCross => 'C',
        }
    }
}

/// The eight required per-voxel sensors (spec §8), in their canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SensorKind {
    AreaRatio,
    VelocityMagnitude,
    XVelocity,
    YVelocity,
    Angle,
    XRotVelocity,
    YRotVelocity,
    Touching,
}

impl SensorKind {
    pub const ALL: [SensorKind; 8] = [
        SensorKind::AreaRatio,
        SensorKind::VelocityMagnitude,
        SensorKind::XVelocity,
        SensorKind::YVelocity,
        SensorKind::Angle,
        SensorKind::XRotVelocity,
        SensorKind::YRotVelocity,
        SensorKind::Touching,
    ];
    /// The id used in JSON and on the command line.
    pub fn id(self) -> &'static str {
        match self {
            SensorKind::AreaRatio => "area_ratio",
            SensorKind::VelocityMagnitude => "velocity_magnitude",
            SensorKind::XVelocity => "x_velocity",
            SensorKind::YVelocity => "y_velocity",
            SensorKind::Angle => "angle",
            SensorKind::XRotVelocity => "x_rot_velocity",
            SensorKind::YRotVelocity => "y_rot_velocity",
            SensorKind::Touching => "touching",
        }
    }
    pub fn from_id(id: &str) -> Option<SensorKind> {
        SensorKind::ALL.into_iter().find(|k| k.id() == id)
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The instantaneous readings of one voxel's eight sensors.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct SensorReadings {
    pub area_ratio: f64,
    pub velocity_magnitude: f64,
    pub x_velocity: f64,
    pub y_velocity: f64,
    pub angle: f64,
    pub x_rot_velocity: f64,
    pub y_rot_velocity: f64,
    pub touching: f64,
}

impl SensorReadings {
    pub fn get(&self, kind: SensorKind) -> f64 {
        match kind {
            SensorKind::AreaRatio => self.area_ratio,
            SensorKind::VelocityMagnitude => self.velocity_magnitude,
            SensorKind::XVelocity => self.x_velocity,
            SensorKind::YVelocity => self.y_velocity,
            SensorKind::Angle => self.angle,
            SensorKind::XRotVelocity => self.x_rot_velocity,
            SensorKind::YRotVelocity => self.y_rot_velocity,
            SensorKind::Touching => self.touching,
        }
    }
}

/// One voxel of a robot, in world coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoxelSnapshot {
    /// Grid cell `[x, y]` (y = 0 is the bottom row).
    pub cell: [u32; 2],
    /// The four mass squares in the order SW, SE, NE, NW; each with 4 vertices, counter-clockwise.
    pub masses: [[Vec2; 4]; 4],
    /// The outer corners of SW, SE, NE, NW: the voxel's outline, counter-clockwise.
    pub outline: [Vec2; 4],
    /// Mean of the four mass centres.
    pub center: Vec2,
    /// Mean of the four mass velocities.
    pub velocity: Vec2,
    pub area_ratio: f64,
    /// The clipped control value last applied (0 before the first control step).
    pub control: f64,
    /// The controller's raw output behind `control`, before NaN handling and clipping.
    #[serde(default)]
    pub raw_control: f64,
    pub sensors: SensorReadings,
    pub touching: bool,
}

/// A spring drawn as the segment between its two world anchors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpringSegment {
    pub a: Vec2,
    pub b: Vec2,
    pub group: SpringGroup,
}

/// A rope between two mass centres; `active` when one of its bounds is being enforced.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RopeSegment {
    pub a: Vec2,
    pub b: Vec2,
    pub active: bool,
}

/// The controller's last inputs and outputs (optional snapshot content).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ControllerIo {
    pub inputs: Vec<f64>,
    pub outputs: Vec<f64>,
}

/// One robot, voxels in grid order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RobotSnapshot {
    /// Index of the robot in its world, in creation order.
    pub id: usize,
    pub label: String,
    /// Size `[W, H]` of the body grid (cells, including empty ones).
    #[serde(default)]
    pub grid: [u32; 2],
    /// Unweighted mean of the voxel centres.
    pub center: Vec2,
    /// Bounding box of all mass corners.
    pub bbox: Aabb,
    pub voxels: Vec<VoxelSnapshot>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub springs: Option<Vec<SpringSegment>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ropes: Option<Vec<RopeSegment>>,
    /// Pairs of welded mass centres.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub welds: Option<Vec<[Vec2; 2]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<ControllerIo>,
}

/// The state of a world after `step` steps, at `t = step·dt`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub step: u64,
    pub t: f64,
    pub robots: Vec<RobotSnapshot>,
    /// Terrain outline (closed downwards), if the world has a terrain. Shared, not copied, between the
    /// snapshots of a run: it never changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terrain: Option<Arc<Polygon>>,
    /// Other static bodies (walls), one polygon each (shared like the terrain).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statics: Vec<Arc<Polygon>>,
}

impl Snapshot {
    /// Union of the bounding boxes of the given robots (all robots when `robots` is `None`).
    pub fn robots_bbox(&self, robots: Option<&[usize]>) -> Aabb {
        self.robots
            .iter()
            .filter(|r| robots.is_none_or(|ids| ids.contains(&r.id)))
            .fold(Aabb::EMPTY, |b, r| b.union(r.bbox))
    }
}

/// Which optional content snapshots carry (all off by default: batch runs pay nothing for it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SnapshotDetail {
    pub springs: bool,
    pub ropes: bool,
    pub welds: bool,
    pub controller: bool,
}

impl SnapshotDetail {
    pub const ALL: SnapshotDetail = SnapshotDetail { springs: true, ropes: true, welds: true, controller: true };
}

/// What a listener asks of the run after a snapshot (after ripgrep's `Sink`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// End the run after this snapshot (e.g. an evaluator that has seen enough).
    Stop,
}

/// A listener's failure: the run stops with it.
pub type ListenerError = Box<dyn std::error::Error + Send + Sync>;

/// Receives every snapshot of a simulation: one at t = 0, then one after every step.
pub trait SnapshotListener {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError>;
}

/// Keeps every snapshot in memory (tests, short runs, rendering).
#[derive(Debug, Default)]
pub struct SnapshotRecorder {
    pub snapshots: Vec<Arc<Snapshot>>,
}

impl SnapshotListener for SnapshotRecorder {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self.snapshots.push(Arc::clone(snapshot));
        Ok(Flow::Continue)
    }
}

/// A closure that only looks: it never fails nor stops the run.
impl<F: FnMut(&Arc<Snapshot>)> SnapshotListener for F {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self(snapshot);
        Ok(Flow::Continue)
    }
}
