//! The simulation: the only module that knows rapier. A world of terrain, walls and bodies, stepped as
//! spec §7 orders it, emitting snapshots.

pub mod voxel_robot;
pub mod world;

pub use voxel_robot::{RobotOptions, Welds};
pub use world::{PointLoad, SimError, World, WorldSettings, DEFAULT_SOLVER_ITERATIONS};
