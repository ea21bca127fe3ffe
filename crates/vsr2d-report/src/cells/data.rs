//! What the soft cells' report holds, as data: the run's settings and each section's figures, and the
//! names of the files it writes beside the page. The report's writer and its page both read it.

use serde::Serialize;

use super::demos::DemoData;
use super::fd::FdData;
use super::folding::FoldingSection;
use super::timing::TimingData;
use crate::checks::Check;

pub const FD_CSV: &str = "fd.csv";
pub const TIMING_CSV: &str = "timing.csv";
pub const DEMOS_CSV: &str = "demos.csv";
pub const FOLD_CSV: &str = "fold.csv";
pub const RESULTS_JSON: &str = "results.json";

/// Where and how the report was made (section 1).
#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub version: String,
    pub profile: String,
    pub cpu: String,
    pub cores: usize,
    pub os: String,
    pub quick: bool,
    pub sections: String,
    pub preset: String,
    pub seconds: f64,
}

/// Everything the report shows.
#[derive(Debug, Clone, Serialize)]
pub struct CellsReportData {
    pub run: RunInfo,
    pub fd: Option<FdData>,
    pub timing: Option<TimingData>,
    pub demos: Option<DemoData>,
    pub folding: Option<FoldingSection>,
    pub checks: Vec<Check>,
}
