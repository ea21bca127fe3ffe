//! Evaluation without recording: [`evaluate`] for optimizers that embed vsr2d, and [`jobs`], the JSON
//! Lines batch behind `vsr2d eval`.

pub mod jobs;

use std::io;
use std::path::PathBuf;

use crate::scenario::{Scenario, ScenarioError};
use crate::sim::SimError;
use crate::task::locomotion::LocomotionMetrics;

pub use jobs::{
    parse_shard, run_batch, run_batch_with, BatchOptions, BatchSummary, Job, JobId, JobLimits, JobMetrics, Record,
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
    Sim(#[from] SimError),
    #[error(transparent)]
    ForceDeflection(#[from] crate::scenario::force_deflection::FdRunError),
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
        "robot {robot}'s metric `{metric}` is not a finite number (NaN or infinite): the run is no result; \
         check the controller (a division by zero?) and the physics settings"
    )]
    NonFinite { robot: usize, metric: &'static str },
    #[error(
        "the job ran out of its time budget of {} s at step {step} of {steps}; raise --job-timeout, or shorten \
         the scenario", budget.as_secs_f64()
    )]
    Timeout { budget: Duration, step: u64, steps: u64 },
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
                | EvalError::ForceDeflection(crate::scenario::force_deflection::FdRunError::Scenario(_))
                | EvalError::Shard { .. }
                | EvalError::ShardSyntax { .. }
                | EvalError::Input { .. }
                | EvalError::SameFile { .. }
                | EvalError::NotAFile { .. }
                | EvalError::Resume { .. }
        )
    }
}

/// What `vsr2d simulate` reports: every robot's metrics and, in a scenario with cells, every cell's.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SimulateOutput {
    pub robots: Vec<LocomotionMetrics>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<crate::task::free::CellMetrics>>,
    /// The `fold` task's chains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fold: Option<Vec<crate::task::fold::FoldMetrics>>,
    /// The `force_deflection` task's sweep (a task of its own: no free run, no cell metrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub force_deflection: Option<crate::task::force_deflection::FdResult>,
}

/// Runs `simulation`, built from `scenario`, to the end as `vsr2d simulate` does, with extra
/// `listeners` (a recorder). Voxel-only runs without listeners take the snapshot-free path; cell
/// metrics are read from snapshots.
pub fn simulate(
    scenario: &Scenario,
    simulation: crate::task::Simulation,
    listeners: &mut [&mut dyn crate::snapshot::SnapshotListener],
) -> Result<SimulateOutput, SimError> {
    let mut cell_metrics = scenario.has_cells().then(crate::task::free::CellMetricsListener::default);
    let mut fold = match scenario.task {
        // The scenario was planned to build `simulation`, so planning it again succeeds.
        crate::scenario::TaskSpec::Fold => {
            Some(crate::task::fold::FoldListener::new(scenario.fold_goals().unwrap_or_default()))
        }
        _ => None,
    };
    let mut all: Vec<&mut dyn crate::snapshot::SnapshotListener> = Vec::with_capacity(listeners.len() + 2);
    for l in listeners.iter_mut() {
        all.push(&mut **l);
    }
    if let Some(c) = cell_metrics.as_mut() {
        all.push(c);
    }
    if let Some(f) = fold.as_mut() {
        all.push(f);
    }
    let mut robots = if all.is_empty() { simulation.evaluate()? } else { simulation.run(&mut all)? };
    drop(all);
    // The locomotion listener sees every body; cells are reported by their own metrics.
    robots.truncate(scenario.robots.len());
    Ok(SimulateOutput {
        robots,
        cells: cell_metrics.map(|c| c.metrics()),
        fold: fold.map(|f| f.metrics()),
        force_deflection: None,
    })
}

/// [`simulate`] without listeners, refusing non-finite robot metrics: what the Python package's
/// `evaluate` returns.
pub fn simulate_scenario(scenario: &Scenario) -> Result<SimulateOutput, EvalError> {
    if matches!(scenario.task, crate::scenario::TaskSpec::ForceDeflection(_)) {
        let sweep = crate::scenario::force_deflection::run_scenario(scenario)?;
        return Ok(SimulateOutput { robots: Vec::new(), cells: None, fold: None, force_deflection: Some(sweep) });
    }
    let mut out = simulate(scenario, scenario.build()?, &mut [])?;
    out.robots = finite(out.robots)?;
    Ok(out)
}

/// Runs a scenario to the end and returns the metrics of every robot, in creation order.
///
/// This is the lightest path the simulator offers: no snapshot is built at all (the metrics read
/// the world directly, see [`crate::task::Simulation::evaluate`]), so optional snapshot content
/// the scenario asks for costs nothing.
///
/// No resource limit applies here (see [`evaluate_within`]); a metric that is not finite is an error.
pub fn evaluate(scenario: &Scenario) -> Result<Vec<LocomotionMetrics>, EvalError> {
    finite(scenario.build()?.evaluate()?)
}

/// [`evaluate`] after checking the scenario's cost against `limits`, stopping with
/// [`EvalError::Timeout`] once `budget` of wall-clock time has passed (checked every
/// [`crate::task::CHECK_EVERY`] steps). What `vsr2d eval` runs for each job.
pub fn evaluate_within(
    scenario: &Scenario,
    limits: &Limits,
    budget: Option<Duration>,
) -> Result<Vec<LocomotionMetrics>, EvalError> {
    scenario.check_limits(limits)?;
    let Some(budget) = budget else { return evaluate(scenario) };
    let start = Instant::now();
    match scenario.build()?.evaluate_while(|_| start.elapsed() < budget)? {
        Evaluation::Done(metrics) => finite(metrics),
        Evaluation::Stopped { step, steps } => Err(EvalError::Timeout { budget, step, steps }),
    }
}

fn finite(metrics: Vec<LocomotionMetrics>) -> Result<Vec<LocomotionMetrics>, EvalError> {
    match metrics.iter().enumerate().find_map(|(i, m)| m.non_finite().map(|name| (i, name))) {
        Some((robot, metric)) => Err(EvalError::NonFinite { robot, metric }),
        None => Ok(metrics),
    }
}
