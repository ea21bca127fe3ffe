//! Built-in evolutionary optimisation (`vsr2d evolve`, spec `evolution.md`): the paper's μ + λ genetic
//! algorithm over genome → scenario representations, evaluated in parallel through the snapshot-free
//! [`crate::batch::evaluate`], deterministic for any thread count, checkpointed every generation.
//!
//! A run directory holds `experiment.json` (the experiment as given), `log.jsonl` (a header line, then
//! one deterministic line per generation), `timing.jsonl` (wall-clock seconds per generation, the only
//! non-deterministic output), `checkpoint.json`, `best.json` (the best scenario so far),
//! `best_gen0.json`, `generations/gen-NNNN.json` (the best scenario of each generation) and, at the end,
//! `final_population.jsonl` (best first: `{"rank", "fitness", "genome", "scenario"}`).

pub mod algorithm;
pub mod cache;
pub mod experiment;
pub mod limits;
pub mod owner;
pub mod reader;
pub mod represent;
pub mod rng;
pub mod run;
pub mod study;

use std::io;
use std::path::PathBuf;

pub use algorithm::{AlgorithmSpec, Individual, Optimizer};
pub use experiment::{EaParams, Experiment, FitnessSpec, Goal, Objective};
pub use represent::{MapError, Mapper, RepresentationSpec};
pub use run::{run, Asked, Evolution, GenerationDone, RunOptions, RunSummary};

/// Why an evolutionary run cannot start or continue.
#[derive(Debug, thiserror::Error)]
pub enum EvolveError {
    #[error("invalid experiment JSON at `{path}`: {message}")]
    Json { path: String, message: String },
    #[error("`{path}`: {message}")]
    Invalid { path: String, message: String },
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error(
        "cannot resume the run in {}: {reason}; give another -o DIR, or delete the directory to start over",
        dir.display()
    )]
    Resume { dir: PathBuf, reason: String },
    #[error("the run in {} is finished (generation {n_gen} is recorded): nothing more to ask", dir.display())]
    Finished { dir: PathBuf, n_gen: u32 },
    #[error("cannot tell the run: {reason}")]
    Tell { reason: String },
    #[error("cannot start {jobs} worker threads: {source}")]
    ThreadPool { jobs: usize, source: rayon::ThreadPoolBuildError },
    #[error(transparent)]
    RunDir(#[from] crate::output::run_dir::RunDirError),
}

impl EvolveError {
    /// Whether the user's input (experiment, directory) is at fault rather than the run.
    pub fn is_input(&self) -> bool {
        if let EvolveError::RunDir(e) = self {
            return e.is_input();
        }
        matches!(
            self,
            EvolveError::Json { .. }
                | EvolveError::Invalid { .. }
                | EvolveError::Read { .. }
                | EvolveError::Resume { .. }
        )
    }
}
