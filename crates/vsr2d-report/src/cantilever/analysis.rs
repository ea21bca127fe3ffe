//! What the cantilever report derives from its data: the figures of every dynamic run (through
//! [`crate::series`]) and the sanity checks (through [`super::checks`]), with their counts.

use serde::{Deserialize, Serialize};

use super::checks::sanity_checks;
use super::data::CantileverData;
use super::summary::DynamicSummary;
use crate::checks::{Check, Summary};
use crate::series::series_figures;

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
