//! What a run is for, and what it measures: locomotion (spec §10) and the cantilever experiment. A task
//! owns its metrics and runs its world, with snapshots for listeners or on the snapshot-free path.

pub mod cantilever;
pub mod fold;
pub mod force_deflection;
pub mod free;
pub mod locomotion;

use crate::sim::{SimError, World};
use crate::snapshot::SnapshotListener;
use locomotion::{LocomotionListener, LocomotionMetrics};

/// What a simulation measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Distance, height and control effort of every body; `control_interval` is c (the controller runs
    /// every c + 1 steps), `legacy` the released code's timing and effort.
    Locomotion { control_interval: u32, legacy: bool },
}

impl Task {
    /// The listener that accumulates this task's metrics.
    pub fn listener(self) -> LocomotionListener {
        match self {
            Task::Locomotion { control_interval, legacy } => LocomotionListener::new(control_interval, legacy),
        }
    }
}

/// A built scenario, ready to run.
pub struct Simulation {
    pub world: World,
    pub steps: u64,
    pub task: Task,
    /// Body labels, in creation order.
    pub labels: Vec<String>,
}

impl Simulation {
    /// Runs the whole task with extra listeners and returns the metrics of every robot.
    pub fn run(mut self, listeners: &mut [&mut dyn SnapshotListener]) -> Result<Vec<LocomotionMetrics>, SimError> {
        let mut metrics = self.task.listener();
        let mut all: Vec<&mut dyn SnapshotListener> = Vec::with_capacity(listeners.len() + 1);
        all.push(&mut metrics);
        for l in listeners.iter_mut() {
            all.push(&mut **l);
        }
        self.world.run(self.steps, &mut all)?;
        Ok(metrics.metrics())
    }

    /// Runs the whole task without building any snapshot and returns the same metrics as
    /// [`Simulation::run`] (bit-identical): the path for optimizers evaluating many robots.
    pub fn evaluate(self) -> Result<Vec<LocomotionMetrics>, SimError> {
        match self.evaluate_while(|_| true)? {
            Evaluation::Done(metrics) => Ok(metrics),
            Evaluation::Stopped { .. } => unreachable!("never asked to stop"),
        }
    }

    /// [`Simulation::evaluate`] that asks `keep_going(step)` every [`CHECK_EVERY`] steps and stops when
    /// it says no (a wall-clock budget, a cancel flag); the metrics of a run that is not stopped are the
    /// same bits.
    pub fn evaluate_while(mut self, mut keep_going: impl FnMut(u64) -> bool) -> Result<Evaluation, SimError> {
        let mut metrics = self.task.listener();
        metrics.begin(&self.world);
        for step in 0..self.steps {
            if step % CHECK_EVERY == 0 && !keep_going(step) {
                return Ok(Evaluation::Stopped { step, steps: self.steps });
            }
            self.world.step(&mut [])?;
            metrics.observe(&self.world);
        }
        Ok(Evaluation::Done(metrics.metrics()))
    }
}

/// How often [`Simulation::evaluate_while`] asks whether to go on, in steps.
pub const CHECK_EVERY: u64 = 64;

/// The end of [`Simulation::evaluate_while`].
#[derive(Debug, Clone, PartialEq)]
pub enum Evaluation {
    Done(Vec<LocomotionMetrics>),
    /// Stopped before `step` of `steps`.
    Stopped {
        step: u64,
        steps: u64,
    },
}
