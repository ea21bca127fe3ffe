//! Evaluation without recording: [`evaluate`] for optimizers that embed vsr2d, and [`jobs`], the JSON
//! Lines batch behind `vsr2d eval`.

pub mod jobs;

use std::io;
use std::path::PathBuf;

use crate::scenario::{Scenario, ScenarioError};
use crate::sim::SimError;
use crate::task::locomotion::LocomotionMetrics;

pub use jobs::{parse_shard, run_batch, BatchOptions, BatchSummary, Job, JobId, JobMetrics, Record};

/// Why an evaluation or a batch failed as a whole (a bad job only yields an error record).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("shard {index}/{count} is invalid: give i/n with n ≥ 1 and 0 ≤ i < n, e.g. 0/4")]
    Shard { index: usize, count: usize },
    #[error("shard {text:?} is not of the form i/n (two integers, 0 ≤ i < n), e.g. 0/4")]
    ShardSyntax { text: String },
    #[error("cannot read the jobs file {}: {source}", path.display())]
    Input { path: PathBuf, source: io::Error },
    #[error("cannot write the results file {}: {source}", path.display())]
    Output { path: PathBuf, source: io::Error },
    #[error("the jobs file and the results file are the same file ({}): give another --output", path.display())]
    SameFile { path: PathBuf },
    #[error(
        "cannot resume into {}: {reason}; it was not written by this input and shard — \
         give a new --output, or delete the file to start over",
        path.display()
    )]
    Resume { path: PathBuf, reason: String },
    #[error("cannot start {jobs} worker threads: {source}")]
    ThreadPool { jobs: usize, source: rayon::ThreadPoolBuildError },
}

impl EvalError {
    /// Whether the caller's input is at fault (bad shard, unreadable jobs file, foreign results file,
    /// invalid scenario) rather than the run (I/O on the results, threads, an unstable simulation).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            EvalError::Scenario(_)
                | EvalError::Shard { .. }
                | EvalError::ShardSyntax { .. }
                | EvalError::Input { .. }
                | EvalError::SameFile { .. }
                | EvalError::Resume { .. }
        )
    }
}

/// Runs a scenario to the end and returns the metrics of every robot, in creation order.
///
/// This is the lightest path the simulator offers: no snapshot is built at all (the metrics read
/// the world directly, see [`crate::task::Simulation::evaluate`]), so optional snapshot content
/// the scenario asks for costs nothing.
pub fn evaluate(scenario: &Scenario) -> Result<Vec<LocomotionMetrics>, EvalError> {
    Ok(scenario.build()?.evaluate()?)
}
