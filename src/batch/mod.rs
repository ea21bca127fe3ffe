//! Evaluation without recording: [`evaluate`] for optimizers that embed vsr2d, and [`jobs`], the JSON
//! Lines batch behind `vsr2d eval`.

pub mod jobs;

use std::io;
use std::path::PathBuf;

use crate::scenario::{Scenario, ScenarioError};
use crate::task::{RunError, RunResult};

pub use jobs::{
    parse_shard, run_batch, run_batch_with, BatchOptions, BatchSummary, Job, JobId, JobLimits, Record,
    DEFAULT_JOB_TIMEOUT,
};

use std::time::{Duration, Instant};

use crate::scenario::Limits;
use crate::task::Evaluation;

/// Why an evaluation or a batch failed as a whole (a bad job only yields an error record).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("shard {index}/{count} is invalid: give i/n with n ≥ 1 and 0 ≤ i < n, e.g. 0/4")]
    Shard { index: usize, count: usize },
    #[error("shard {text:?} is not of the form i/n (two integers, 0 ≤ i < n), e.g. 0/4")]
    ShardSyntax { text: String },
    #[error("cannot read the jobs file {}: {source}", path.display())]
    Input { path: PathBuf, source: io::Error },
    #[error("cannot write the results file {}: {source}", path.display())]
    Output { path: PathBuf, source: io::Error },
    #[error(
        "the jobs file and the results file are the same file ({}, perhaps through a link): give another --output",
        path.display()
    )]
    SameFile { path: PathBuf },
    #[error(
        "the results file {} exists and is not a regular file; results are appended and resumed in place, \
         so give a regular file as --output",
        path.display()
    )]
    NotAFile { path: PathBuf },
    #[error(
        "cannot resume into {}: {reason}; it was not written by this input and shard — \
         give a new --output, or delete the file to start over",
        path.display()
    )]
    Resume { path: PathBuf, reason: String },
    #[error(
        "the metric `{}` is not a finite number (NaN or infinite): the run is no result; check the \
         controller (a division by zero?) and the physics settings", pointer.trim_start_matches('/').replace('/', ".")
    )]
    NonFinite { pointer: String },
    #[error(
        "the job ran out of its time budget of {} s at step {step} of {steps}; raise --job-timeout, or shorten \
         the scenario", budget.as_secs_f64()
    )]
    Timeout { budget: Duration, step: u64, steps: u64 },
    #[error("cannot start {jobs} worker threads: {source}")]
    ThreadPool { jobs: usize, source: rayon::ThreadPoolBuildError },
    #[error(transparent)]
    RunDir(#[from] crate::output::run_dir::RunDirError),
    #[error("the evaluation was cancelled at step {step} of {steps}")]
    Stopped { step: u64, steps: u64 },
}

impl EvalError {
    /// Whether the caller's input is at fault (bad shard, unreadable jobs file, foreign results file,
    /// invalid scenario) rather than the run (I/O on the results, threads, an unstable simulation).
    pub fn is_input(&self) -> bool {
        if let EvalError::RunDir(e) = self {
            return e.is_input();
        }
        matches!(
            self,
            EvalError::Scenario(_)
                | EvalError::Shard { .. }
                | EvalError::ShardSyntax { .. }
                | EvalError::Input { .. }
                | EvalError::SameFile { .. }
                | EvalError::NotAFile { .. }
                | EvalError::Resume { .. }
        )
    }
}

/// Runs `simulation`, built from `scenario`, to the end as `vsr2d simulate` does, with extra
/// `listeners` (a recorder): the run path every front door shares. Without listeners it takes the
/// snapshot-free path where the task allows.
pub fn simulate(
    simulation: crate::task::Simulation,
    listeners: &mut [&mut dyn crate::snapshot::SnapshotListener],
) -> Result<RunResult, RunError> {
    simulation.run(listeners)
}

/// Runs a scenario to the end and returns its result, refusing non-finite metrics: what `vsr2d eval`,
/// `evolve` and the Python package's `evaluate` return.
///
/// This is the lightest path the simulator offers: no snapshot is built unless the task reads soft
/// cells (see [`crate::task::Simulation::evaluate`]), so optional snapshot content the scenario asks for
/// costs nothing.
///
/// No resource limit applies here (see [`evaluate_within`]).
pub fn evaluate(scenario: &Scenario) -> Result<RunResult, EvalError> {
    finite(scenario.build()?.evaluate()?)
}

/// [`evaluate`] after checking the scenario's cost against `limits`, stopping with
/// [`EvalError::Timeout`] once `budget` of wall-clock time has passed (checked before every step and
/// between its engine steps: [`crate::task::Simulation::evaluate_while`]). What `vsr2d eval` runs for
/// each job.
pub fn evaluate_within(scenario: &Scenario, limits: &Limits, budget: Option<Duration>) -> Result<RunResult, EvalError> {
    let scene = scenario.resolve(limits)?;
    let Some(budget) = budget else { return finite(scene.build()?.evaluate()?) };
    let start = Instant::now();
    match scene.build()?.evaluate_while(|_| start.elapsed() < budget)? {
        Evaluation::Done(result) => finite(result),
        Evaluation::Stopped { step, steps } => Err(EvalError::Timeout { budget, step, steps }),
    }
}

/// The result, or [`EvalError::NonFinite`] naming its first non-finite metric.
pub fn finite(result: RunResult) -> Result<RunResult, EvalError> {
    match result.non_finite() {
        Some(pointer) => Err(EvalError::NonFinite { pointer }),
        None => Ok(result),
    }
}

/// [`evaluate`] as one self-contained JSON record: the result, or `{"error": message, "path": null}` when
/// the run fails (even by a panic, so one bad scenario never stops a batch). What Python's
/// `evaluate_many` returns per scenario and what an evolutionary run is told
/// ([`crate::evolve::Evolution::tell`]), so a run evaluated anywhere records the same bytes.
pub fn evaluate_record(scenario: &Scenario) -> serde_json::Value {
    evaluate_record_while(scenario, &|| true)
}

/// [`evaluate_record`] that asks `keep_going()` before every step and between its engine steps, and
/// gives up with an error record when it says no (a cancelled batch); a run that is not stopped
/// gives the same bits.
pub fn evaluate_record_while(scenario: &Scenario, keep_going: &(dyn Fn() -> bool + Sync)) -> serde_json::Value {
    evaluate_record_within(scenario, &Limits::NONE, keep_going)
}

/// [`evaluate_record_while`] of a scenario resolved with `limits`: one over them gives the record of an
/// invalid scenario, its message and the JSON path to change (what Python's `evaluate_many` returns for
/// a scenario it cannot use).
pub fn evaluate_record_within(
    scenario: &Scenario,
    limits: &Limits,
    keep_going: &(dyn Fn() -> bool + Sync),
) -> serde_json::Value {
    let run = || -> Result<RunResult, EvalError> {
        match scenario.resolve(limits)?.build()?.evaluate_while(|_| keep_going())? {
            Evaluation::Done(result) => finite(result),
            Evaluation::Stopped { step, steps } => Err(EvalError::Stopped { step, steps }),
        }
    };
    let message = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(result)) => match serde_json::to_value(&result) {
            Ok(value) => return value,
            Err(e) => format!("the result cannot be written as JSON ({e})"),
        },
        Ok(Err(EvalError::Scenario(e @ ScenarioError::TooLarge(_)))) => {
            return error_record(&e.to_string(), Some(&e.path()))
        }
        Ok(Err(e)) => e.to_string(),
        Err(_) => "internal error while simulating (please report it)".to_string(),
    };
    error_record(&message, None)
}

/// The record of a scenario that gave no result: its message and, for an invalid scenario, the JSON path.
pub fn error_record(message: &str, path: Option<&str>) -> serde_json::Value {
    serde_json::json!({ "error": message, "path": path })
}
