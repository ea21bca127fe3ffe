//! A voxel robot as plain data: its voxels' geometry and read-outs, optional springs, ropes and welds.

use serde::{Deserialize, Serialize};

use super::BodyId;
use crate::controller::ControllerIo;
use crate::geom::{Aabb, Vec2};
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
    /// The voxel's material: an index into its robot's [`VoxelRobotSnapshot::materials`] (0, the first
    /// material, in recordings made before materials were recorded; not written when 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub material: u32,
}

fn is_zero(index: &u32) -> bool {
    *index == 0
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

/// One voxel robot, voxels in grid order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VoxelRobotSnapshot {
    pub id: BodyId,
    pub label: String,
    /// Size `[W, H]` of the body grid (cells, including empty ones).
    #[serde(default)]
    pub grid: [u32; 2],
    /// Unweighted mean of the voxel centres.
    pub center: Vec2,
    /// Bounding box of all mass corners.
    pub bbox: Aabb,
    pub voxels: Vec<VoxelSnapshot>,
    /// Whether any voxel touches the ground: the terrain, a wall or a fixed object (false in recordings
    /// made before it was recorded).
    #[serde(default)]
    pub touching_ground: bool,
    /// The names of the robot's distinct materials, in the order they first appear in grid order (so the
    /// bottom-left voxel's material is first); [`VoxelSnapshot::material`] indexes this list. Empty in
    /// recordings made before materials were recorded (every voxel then counts as one material).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<String>,
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
