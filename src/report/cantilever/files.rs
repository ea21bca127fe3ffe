//! The files of a cantilever report directory (besides `index.html`), named once for the writer and the
//! page that links them.

pub const STATIC_CSV: &str = "static.csv";
pub const DYNAMIC_CSV: &str = "dynamic.csv";
pub const RESULTS_JSON: &str = "results.json";
pub const BEAM_PNG: &str = "beam.png";
pub const REFERENCE_CSV: &str = "reference_comparison.csv";
