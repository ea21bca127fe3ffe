//! What is simulated, described without an engine: voxel robots (material, scaffolding, voxel
//! geometry, body grid, sensors), rigid objects and terrain. Uses only `geom`.

pub mod cell;
pub mod object;
pub mod terrain;
pub mod voxel;
