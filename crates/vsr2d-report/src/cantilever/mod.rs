//! The cantilever characterization report (spec §13): sweeps, their data, analysis and sanity checks,
//! the comparison with the original 2D-VSR-Sim 1.0.0, charts and the report directory.

pub mod analysis;
pub mod checks;
pub mod comparison;
pub mod data;
pub mod files;
pub mod locomotion;
pub mod names;
pub mod page;
pub mod plots;
pub mod reference;
pub mod reference_plots;
pub mod report;
pub mod select;
pub mod summary;
pub mod sweep;
