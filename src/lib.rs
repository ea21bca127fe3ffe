//! vsr2d: a simulator of 2-D voxel-based soft robots on rapier2d, with snapshots as the single
//! interface between the physics and everything downstream (metrics, recorders, renderers, reports).

pub mod body;
pub mod cantilever;
pub mod controller;
pub mod frames;
pub mod material;
pub mod metrics;
pub mod record;
pub mod render;
pub mod robot;
pub mod scaffolding;
pub mod scenario;
pub mod sensors;
pub mod snapshot;
pub mod terrain;
#[cfg(feature = "video")]
pub mod video;
pub mod voxel;
pub mod world;
