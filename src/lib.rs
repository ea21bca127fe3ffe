//! vsr2d: a simulator of 2-D voxel-based soft robots on rapier2d, with snapshots as the single
//! interface between the physics and everything downstream (metrics, recorders, renderers, reports).

#![forbid(unsafe_code)]

pub mod atomic;
pub mod bench;
pub mod body;
pub mod cantilever;
pub mod controller;
pub mod eval;
pub mod frames;
pub mod material;
pub mod metrics;
pub mod movie;
pub mod record;
pub mod render;
pub mod robot;
pub mod scaffolding;
pub mod scenario;
pub mod sensors;
pub mod showcase;
pub mod snapshot;
pub mod terrain;
#[cfg(feature = "video")]
pub mod video;
pub mod voxel;
pub mod world;
