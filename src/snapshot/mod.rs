//! Immutable, engine-free snapshots of a simulation, and the listener trait that receives them.
//!
//! A snapshot is plain data (f64, vectors, strings): everything downstream of the physics (metrics,
//! recorders, renderers, reports) sees only this module, so it can be recorded to JSON Lines, rendered
//! later, or built by hand in tests without touching the engine.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::controller::ControllerIo;
use crate::geom::{Aabb, Polygon, Vec2};
use crate::model::voxel::{SensorReadings, SpringGroup};

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
