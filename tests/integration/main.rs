//! The single integration-test binary (one link step for all suites). It belongs to the command line's
//! package (crates/vsr2d-cli), the only one that builds the `vsr2d` binary the tests run.

/// The repository's root, where the fixtures, docs and goldens are.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

mod algorithms;
mod cantilever;
mod cantilever_report;
mod cells;
mod cells_report;
mod check;
mod cli;
mod descriptors;
mod distributed;
mod eval;
mod evolve;
mod examples;
mod figures;
mod fold;
mod fuzz;
mod golden;
mod limits;
mod locomotion_reference;
mod mutation;
mod ownership;
mod physics;
mod pom;
mod readme;
mod render_e2e;
mod render_golden;
mod robustness;
mod run_pictures;
mod study;
mod tasks;
mod terrains;
mod vendor_patches;
#[cfg(feature = "video")]
mod video;
mod view;
