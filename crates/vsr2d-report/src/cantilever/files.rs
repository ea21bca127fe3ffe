//! The files of a cantilever report directory (besides `index.html`), named once for the writer and the
//! page that links them.

pub const STATIC_CSV: &str = "static.csv";
pub const DYNAMIC_CSV: &str = "dynamic.csv";
pub const RESULTS_JSON: &str = "results.json";
pub const BEAM_PNG: &str = "beam.png";
/// The loaded beam in the interactive viewer (docs/viewer.md).
pub const BEAM_VIEWER_HTML: &str = "beam.html";
pub const REFERENCE_CSV: &str = "reference_comparison.csv";
