//! vsr2d: a simulator of 2-D voxel-based soft robots on rapier2d, with snapshots as the single
//! interface between the physics and everything downstream (metrics, recorders, renderers, reports).
//!
//! # The pipeline
//!
//! A [`Scenario`] (the JSON of `vsr2d simulate`) is resolved once into a [`Scene`]
//! ([`Scenario::resolve`]: bodies placed, cells planned, cost checked against [`Limits`]), which builds a
//! [`Simulation`] ([`Scene::build`]; [`Scenario::build`] does both): a world and its task. The
//! simulation runs whole ([`Simulation::run`], [`Simulation::evaluate`]) or is stepped as a [`Run`]
//! ([`Simulation::start_with`], [`Run::step`]). Every step the world emits an immutable [`Snapshot`]
//! to its [`SnapshotListener`]s: the task's metrics first, then yours (recorders, renderers, your own
//! measurements); a listener may stop the run ([`Flow::Stop`]). A run ends with one [`RunResult`]. A
//! [`RenderJob`] simulates scenarios (or reads recordings) and films them as mp4, GIF, PNG frames,
//! stills, filmstrips or the HTML viewer; [`run_experiment`] evolves robots for an [`Experiment`]
//! (`vsr2d evolve`); the reports (`vsr2d cantilever-report`, …, in the `vsr2d-report` package) are built
//! from the same pieces.
//!
//! ```
//! use std::sync::Arc;
//! use vsr2d::{Scenario, Snapshot};
//!
//! let json = serde_json::json!({"world": {"duration": 1}, "robots": [{"body": ["#  #", "####"]}]});
//! let scenario = Scenario::from_json(&json.to_string())?;
//! // A closure is a listener that only looks.
//! let mut heights = Vec::new();
//! let mut listener = |s: &Arc<Snapshot>| heights.push(s.voxel_robots().next().unwrap().center.y);
//! let result = scenario.build()?.run(&mut [&mut listener])?;
//! assert_eq!(heights.len(), 61); // t = 0, then 60 steps of 1/60 s
//! assert_eq!(result.robots[0].steps, 60);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `examples/quickstart.rs` does the whole round with a listener of its own and an mp4
//! (`cargo run --release --example quickstart`).
//!
//! # The supported API
//!
//! The re-exports below are the library's front door, the API a Rust user should rely on. The modules
//! are public too, because the reports (`vsr2d-report`), the command line (`vsr2d-cli`), the Python
//! package (`python/`) and the integration tests use their internals; anything reached only through a
//! module path may change without notice. What none of them uses is crate-private.
//!
//! # The layers
//!
//! The modules are layers, each using only those listed before it:
//! `geom`, `rng`, `tagged`, `limits`, `format` → `model` → `controller` → `snapshot` → `sim` → `task` →
//! `scenario` → `stepping` → `render` → `output` → `movie` → `view` → `batch` → `evolve` → `chart` →
//! `run_media` → `render_job`. `pom`, the kinematic lattice model, stands apart: it uses only `geom` and
//! `limits` (no engine). The reports and benchmarks (`vsr2d-report`) and the command line (`vsr2d-cli`)
//! are packages on top of this one, which uses neither.

#![forbid(unsafe_code)]

// The front door (see above): scenario → simulation → run → snapshots → listeners → result.
pub use scenario::{Scenario, ScenarioError, Scene};
pub use snapshot::{BodySnapshot, Flow, ListenerError, Snapshot, SnapshotListener, SnapshotRecorder};
pub use task::{Run, RunError, RunFlow, RunResult, Simulation};
// Rendering: one job, checked by `preflight` before anything is simulated, then run.
pub use limits::Limits;
pub use render_job::{
    Hooks, JobError, JobReport, OutputFile, Outputs, Plan, RenderJob, RenderSettings, RunInput, RunKind, Sources,
};
// Evolution (`vsr2d evolve`): an experiment, run (or resumed) in its run directory. Renamed here, where
// `Run*` names are a simulation's.
pub use evolve::run::run as run_experiment;
pub use evolve::{
    EvolveError, Experiment, GenerationDone, RunOptions as ExperimentOptions, RunSummary as ExperimentSummary,
};

pub mod batch;
pub mod chart;
pub mod check;
pub mod controller;
pub mod evolve;
pub mod format;
// The fuzz targets' bodies (cargo-fuzz and the stable harness of `cargo test`); no API.
#[doc(hidden)]
pub mod fuzzing;
pub mod geom;
pub mod limits;
pub mod model;
pub mod movie;
pub mod output;
pub mod pom;
pub mod render;
pub mod render_job;
pub mod rng;
pub mod run_media;
pub mod scenario;
pub mod sim;
pub mod snapshot;
pub mod stepping;
pub mod tagged;
pub mod task;
pub mod view;
