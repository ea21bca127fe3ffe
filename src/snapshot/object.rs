//! A rigid object (box, wall, platform, pole) as plain data.

use serde::{Deserialize, Serialize};

use super::BodyId;
use crate::geom::{Aabb, Vec2};
use crate::model::object::ObjectMotion;

/// One rigid object, in world coordinates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectSnapshot {
    pub id: BodyId,
    pub label: String,
    pub motion: ObjectMotion,
    /// The corners, counter-clockwise.
    pub outline: Vec<Vec2>,
    pub center: Vec2,
    /// Rotation from the axis-aligned rectangle, rad.
    pub angle: f64,
    pub velocity: Vec2,
    pub bbox: Aabb,
    /// In contact with anything outside itself, and with the terrain or a wall in particular (what the
    /// last contact refresh saw: every snapshot, and every step of a task that reads contacts).
    pub touching: bool,
    pub touching_ground: bool,
    /// The other bodies it touches (robots, cells, moving objects), as of the same refresh. Not written
    /// when empty (and empty in recordings made before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub touching_bodies: Vec<BodyId>,
}
