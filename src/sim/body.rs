//! The per-step contract every kind of body fulfils (the kinds themselves are listed in [`super::kinds`]).

use rapier2d::prelude::PhysicsWorld;

use super::SimError;
use crate::geom::{Aabb, Vec2};
use crate::model::voxel::sensors::SensorReadings;
use crate::snapshot::{BodyId, BodySnapshot, ObjectState, SnapshotDetail};

/// What the world asks of a body, in the order of a step (spec §7): control, forces, step, read-back.
pub(crate) trait SimBody {
    // The defaults are a passive body's: no sensors, no controller, no actuators (cells, objects).

    /// Whether this step's control call needs the body's sensor readings (and so the contact state).
    fn needs_sensors(&self) -> bool {
        false
    }
    /// Every part's sensor readings now (the contact state refreshed by the caller).
    fn sensor_readings(&self) -> Vec<SensorReadings> {
        Vec::new()
    }
    /// Runs the controller and sets the actuators (a control step only).
    fn control(&mut self, _physics: &mut PhysicsWorld, _t: f64) -> Result<(), SimError> {
        Ok(())
    }
    /// Applies the actuators' forces for one step; returns whether any force was applied.
    fn apply_actuation_forces(&self, _physics: &mut PhysicsWorld) -> bool {
        false
    }
    /// Adds an external force at piece `piece` of part `part` (kept until forces are reset).
    fn push(&self, physics: &mut PhysicsWorld, part: usize, piece: usize, force: Vec2);
    /// Switches whatever must be switched before the solve (ropes).
    fn before_step(&mut self, physics: &mut PhysicsWorld, dt: f64);
    /// Clears the forces rapier would otherwise keep for the next step.
    fn reset_forces(&self, physics: &mut PhysicsWorld);
    /// Reads the engine's state back after the solve.
    fn read_state(&mut self, physics: &PhysicsWorld);
    /// What has gone wrong with the state, if anything (`speed_limit`: the engine's, m/s).
    fn instability(&self, speed_limit: f64) -> Option<String>;
    /// Forgets last step's contacts; then [`SimBody::mark_touching`] is called for each part in contact.
    fn clear_touching(&mut self);
    fn mark_touching(&mut self, part: usize);
    /// Called besides [`SimBody::mark_touching`] when the other side is the terrain or a wall.
    fn mark_touching_ground(&mut self) {}
    /// Called besides [`SimBody::mark_touching`] when the other side is a part of body `other`; only
    /// objects keep it (a task asks whether its box rests on the robot).
    fn mark_touching_body(&mut self, _other: BodyId) {}
    /// Whether it touches body `other` (as of the last refresh); objects only, `false` for the rest.
    fn touches_body(&self, _other: BodyId) -> bool {
        false
    }
    /// Whether any part touches something outside the body (as of the last refresh).
    fn touching_any(&self) -> bool;
    /// Whether any part touches the terrain, a wall or a fixed object (as of the last refresh).
    fn touching_ground(&self) -> bool {
        false
    }
    /// A rigid object's rotation and ground contact; `None` for other kinds.
    fn object_state(&self) -> Option<ObjectState> {
        None
    }
    /// The points of the body's outline (see [`crate::snapshot::Progress::outline_points`]).
    fn outline_points(&self) -> Vec<Vec2>;
    /// The state as plain data.
    fn snapshot(&self, detail: SnapshotDetail) -> BodySnapshot;

    fn label(&self) -> &str;
    /// The point whose motion tasks measure.
    fn centre(&self) -> Vec2;
    fn centre_and_bbox(&self) -> (Vec2, Aabb);
    /// Actuators (one per voxel) and the cells of the body's grid.
    fn actuators(&self) -> usize {
        0
    }
    fn grid_cells(&self) -> usize {
        0
    }
    /// Clipped and raw values of the actuators, in order.
    fn controls(&self) -> (&[f64], &[f64]) {
        (&[], &[])
    }
    fn kinetic_energy(&self, physics: &PhysicsWorld) -> f64;
    fn set_velocity(&mut self, physics: &mut PhysicsWorld, velocity: Vec2);
}
