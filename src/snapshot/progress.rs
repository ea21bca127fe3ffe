//! What a task reads of a run after each step. A snapshot answers it, and so does the world itself
//! (the snapshot-free evaluation path), from the same body read-outs: the numbers are bit-identical
//! whichever way a task is fed.

use super::{BodySnapshot, Snapshot};
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
            BodySnapshot::Cell(_) => 0,
        }
    }
    fn grid_cells(&self, body: usize) -> usize {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => (r.grid[0] * r.grid[1]) as usize,
            BodySnapshot::Cell(_) => 0,
        }
    }
    fn controls(&self, body: usize) -> (Vec<f64>, Vec<f64>) {
        match &self.bodies[body] {
            BodySnapshot::VoxelRobot(r) => {
                (r.voxels.iter().map(|v| v.control).collect(), r.voxels.iter().map(|v| v.raw_control).collect())
            }
            BodySnapshot::Cell(_) => (Vec::new(), Vec::new()),
        }
    }
}
