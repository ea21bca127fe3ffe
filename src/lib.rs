//! vsr2d: a simulator of 2-D voxel-based soft robots on rapier2d, with snapshots as the single
//! interface between the physics and everything downstream (metrics, recorders, renderers, reports).
//!
//! The modules are layers, each using only those listed before it:
//! `geom`, `rng`, `tagged`, `limits` → `model` → `controller` → `snapshot` → `sim` → `task` → `scenario` → `stepping` → `render`
//! → `output` → `movie` → `view` → `batch` → `evolve` → `report` → `render_job` → `bench` (and the binary's `cli` on
//! top). `pom`, the kinematic
//! lattice model, stands apart: it uses only `geom` and `limits` (no engine).

#![forbid(unsafe_code)]

pub mod batch;
pub mod bench;
pub mod check;
pub mod controller;
pub mod evolve;
// The fuzz targets' bodies (cargo-fuzz and the stable harness of `cargo test`); no API.
#[doc(hidden)]
pub mod fuzzing;
pub mod geom;
pub mod limits;
pub mod model;
pub mod movie;
pub mod output;
pub mod pom;
pub mod render;
pub mod render_job;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod stepping;
pub mod tagged;
pub mod task;
pub mod view;
