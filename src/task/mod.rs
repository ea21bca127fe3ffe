//! What a run is for, and what it measures: locomotion (spec §10) and the cantilever experiment.

pub mod cantilever;
pub mod locomotion;
