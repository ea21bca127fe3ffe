//! The voxel-based soft robot of 2D-VSR-Sim: four rigid masses per voxel joined by spring-dampers.

pub mod geometry;
pub mod grid;
pub mod material;
pub mod morphology;
pub mod scaffolding;
pub mod sensors;

pub use grid::{BodyGrid, BodyGridError};
pub use material::{ActuationMode, Material, MaterialError, MaterialSpec, Preset};
pub use morphology::Morphology;
pub use scaffolding::{Scaffolding, SpringGroup};
pub use sensors::{SensorKind, SensorReadings};
