//! The figures of one dynamic run, as the analysis, the checks and the page read them.

use serde::{Deserialize, Serialize};

use super::names::run_name;
use crate::series::SeriesFigures;
use vsr2d::model::voxel::scaffolding::Scaffolding;

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
