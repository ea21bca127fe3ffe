//! The Planes of Motion (POM) kinematic model of 3-D voxel lattices (`docs`: spec `pom.md`, after the
//! paper "Planes of Motion"): pushing a control node turns one square of its cuboctahedral voxel, the
//! turn propagates through its plane with alternating sign, and a linear ±1 map J links control
//! displacements q to end-effector displacements x = J·q.
//!
//! Pure kinematics in f64: no physics, no simulator, no video. Files, one concern each:
//! - `geometry`: voxels, the PFEA node numbering, node identity by position, text layers;
//! - `actuation`: the paper's matrices A_0–A_2, actuation dimension, planes of motion, parity;
//! - `model`: controls, effectors (nodes and extensions) and the J matrix;
//! - `checks`: the refusals (shared planes, pushes along a node's axis, bad partners) and range checks;
//! - `kinematics`: forward, inverse (least squares) and lateral kinematics, keyframe interpolation;
//! - `gait`: the tripod planner and foot–ground contact;
//! - `stability`: projected centroid, support polygon, static margin;
//! - `run`: a spec's mode over time, with residuals, violations and the gait checks;
//! - `spec`: the JSON format (serde + schemars) and its path-naming errors;
//! - `tables`: a run as the CSV files and text tables of spec §11;
//! - `example`: the built-in `pom-quadruped`, a reconstruction of the paper's robot;
//! - `align`: the paper's four mocap preprocessing steps and the comparison with POM's markers;
//! - `acceptance`: the checks of spec §13 measured at run time, for reports;
//! - `error`: [`PomError`].

pub mod acceptance;
pub mod actuation;
pub mod align;
pub mod checks;
pub mod error;
pub mod example;
pub mod gait;
pub mod geometry;
pub mod kinematics;
pub mod limits;
pub mod model;
pub mod run;
pub mod spec;
pub mod stability;
pub mod tables;

#[cfg(test)]
mod tests;

pub use error::PomError;
pub use model::Model;
pub use run::{run, PomRun};
pub use spec::PomSpec;
