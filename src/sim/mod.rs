//! The simulation: the only module that knows rapier. A world of terrain, walls and bodies (a closed set
//! of kinds, `kinds`), stepped as spec §7 orders it, emitting snapshots to listeners.

mod body;
mod cell;
mod contact;
mod contact_projection;
mod hooks;
mod kinds;
mod object;
mod polygon_contacts;
mod tag;
pub mod voxel_robot;
pub mod world;

pub use cell::system::{CellAction, CellEvent, ConnectorType, LinkKind, MuscleSpec};
pub use cell::{stable_solver_substeps, Stepping, CELL_SOLVER_ITERATIONS};
pub use voxel_robot::{spring_joint, RobotOptions, Welds};
pub use world::{
    legacy_step_count, PointLoad, SimError, World, WorldSettings, DEFAULT_SOLVER_ITERATIONS, LEGACY_SOLVER_ITERATIONS,
    LEGACY_VELOCITY_ITERATIONS,
};
pub use world::{FixtureError, Plate, PlateContact, PlateMotion};

/// A model-layer vector as the engine's (f32) vector.
fn v(p: crate::geom::Vec2) -> rapier2d::prelude::Vector {
    rapier2d::prelude::Vector::new(p.x as rapier2d::prelude::Real, p.y as rapier2d::prelude::Real)
}
