//! What the cantilever report derives from its data: the figures of every dynamic run (through
//! [`crate::report::series`]) and the sanity checks (through [`super::checks`]), with their counts.

use serde::{Deserialize, Serialize};

use super::checks::sanity_checks;
use super::data::CantileverData;
use super::names::run_name;
use crate::model::voxel::scaffolding::Scaffolding;
use crate::report::checks::{Check, Summary};
use crate::report::series::{series_figures, SeriesFigures};

/// Derived figures of one dynamic run (`figures` is `None` for an empty or non-finite record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DynamicSummary {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    pub figures: Option<SeriesFigures>,
}

impl DynamicSummary {
    /// The run in words, e.g. "10×4, f_s 8 Hz, all groups".
    pub fn run_name(&self) -> String {
        run_name((self.w, self.h), self.fs_hz, self.scaffolding)
    }

    /// Its behaviour in words; a record with non-finite samples diverged.
    pub fn behaviour(&self) -> &'static str {
        match &self.figures {
            Some(f) => f.oscillation.describe(),
            None => "diverged (non-finite samples) or empty record",
        }
    }
}

/// Everything the report derives from the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub dynamic: Vec<DynamicSummary>,
    pub sanity: Vec<Check>,
    pub summary: Summary,
}

/// Derived figures of every dynamic run and all sanity checks.
pub fn analyse(data: &CantileverData) -> Analysis {
    let dynamic: Vec<DynamicSummary> = data
        .dynamic_runs
        .iter()
        .map(|r| DynamicSummary {
            w: r.w,
            h: r.h,
            fs_hz: r.fs_hz,
            scaffolding: r.scaffolding,
            figures: series_figures(&r.dy_m, r.dt),
        })
        .collect();
    let sanity = sanity_checks(data, &dynamic);
    let summary = Summary::of(&sanity);
    Analysis { dynamic, sanity, summary }
}
