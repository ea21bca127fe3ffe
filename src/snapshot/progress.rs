//! What a task reads of a run after each step. A snapshot answers it, and so does the world itself
//! (the snapshot-free evaluation path), from the same body read-outs: the numbers are bit-identical
//! whichever way a task is fed.

use super::{BodyId, BodySnapshot, Snapshot};
use crate::geom::{Aabb, Vec2};

/// A run's state as tasks see it: bodies by index, in creation order.
pub trait Progress {
    /// Steps done; the state is at t = step·dt.
    fn step_index(&self) -> u64;
    fn time(&self) -> f64;
    fn body_count(&self) -> usize;
    fn label(&self, body: usize) -> &str;
    /// The point whose motion a task measures (a voxel robot's mean voxel centre).
    fn centre(&self, body: usize) -> Vec2;
    fn centre_and_bbox(&self, body: usize) -> (Vec2, Aabb);
    /// Actuators of the body (a voxel robot's voxels).
    fn actuators(&self, body: usize) -> usize;
    /// Cells of the body's grid, empty ones included (the released code's effort normalisation).
    fn grid_cells(&self, body: usize) -> usize;
    /// Clipped and raw actuator values, in actuator order.
    fn controls(&self, body: usize) -> (Vec<f64>, Vec<f64>);
    /// Whether any part of the body touches something outside it (as of the last contact refresh).
    fn touching(&self, body: usize) -> bool;
    /// Whether any part of the body touches the ground: the terrain, a wall or a fixed object (as of the
    /// last contact refresh; never for a soft cell).
    fn touching_ground(&self, body: usize) -> bool;
    /// A rigid object's rotation (rad) and whether it touches the terrain or a wall; `None` for other kinds.
    fn object_state(&self, body: usize) -> Option<ObjectState>;
    /// Whether rigid object `object` touches a part of body `other` (as of the last contact refresh);
    /// `false` when `object` is no rigid object.
    fn object_touches(&self, object: usize, other: usize) -> bool;
    /// The points of the body's outline (a voxel robot's outer mass corners, a cell's bodies, an object's
    /// corners): what its convex hull is taken of.
    fn outline_points(&self, body: usize) -> Vec<Vec2>;
}

/// What [`Progress::object_state`] tells of a rigid object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObjectState {
    pub angle: f64,
    pub touching_ground: bool,
}

impl Progress for Snapshot {
    fn step_index(&self) -> u64 {
        self.step
    }
    fn time(&self) -> f64 {
        self.t
    }
    fn body_count(&self) -> usize {
        self.bodies.len()
    }
    fn label(&self, body: usize) -> &str {
        self.bodies[body].label()
    }
    fn centre(&self, body: usize) -> Vec2 {
        self.bodies[body].center()
    }
    fn centre_and_bbox(&self, body: usize) -> (Vec2, Aabb) {
        (self.bodies[body].center(), self.bodies[body].bbox())
    }
    fn actuators(&self, body: usize) -> usize {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => r.voxels.len(),
            BodySnapshot::Cell(_) | BodySnapshot::Object(_) => 0,
        }
    }
    fn grid_cells(&self, body: usize) -> usize {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => (r.grid[0] * r.grid[1]) as usize,
            BodySnapshot::Cell(_) | BodySnapshot::Object(_) => 0,
        }
    }
    fn controls(&self, body: usize) -> (Vec<f64>, Vec<f64>) {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => {
                (r.voxels.iter().map(|v| v.control).collect(), r.voxels.iter().map(|v| v.raw_control).collect())
            }
            BodySnapshot::Cell(_) | BodySnapshot::Object(_) => (Vec::new(), Vec::new()),
        }
    }
    fn touching(&self, body: usize) -> bool {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => r.voxels.iter().any(|v| v.touching),
            BodySnapshot::Cell(_) => false,
            BodySnapshot::Object(o) => o.touching,
        }
    }
    fn touching_ground(&self, body: usize) -> bool {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => r.touching_ground,
            BodySnapshot::Cell(_) => false,
            BodySnapshot::Object(o) => o.touching_ground,
        }
    }
    fn object_touches(&self, object: usize, other: usize) -> bool {
        self.bodies[object].as_object().is_some_and(|o| o.touching_bodies.contains(&BodyId(other)))
    }
    fn object_state(&self, body: usize) -> Option<ObjectState> {
        self.bodies[body].as_object().map(|o| ObjectState { angle: o.angle, touching_ground: o.touching_ground })
    }
    fn outline_points(&self, body: usize) -> Vec<Vec2> {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => r.voxels.iter().flat_map(|v| v.outline).collect(),
            BodySnapshot::Cell(c) => c.bodies.clone(),
            BodySnapshot::Object(o) => o.outline.clone(),
        }
    }
}
