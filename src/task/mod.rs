//! What a run is for, and what it measures: locomotion (spec §10) and the cantilever experiment. A task
//! owns its metrics and runs its world, with snapshots for listeners or on the snapshot-free path.

pub mod cantilever;
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
    pub fn evaluate(mut self) -> Result<Vec<LocomotionMetrics>, SimError> {
        let mut metrics = self.task.listener();
        metrics.begin(&self.world);
        for _ in 0..self.steps {
            self.world.step(&mut [])?;
            metrics.observe(&self.world);
        }
        Ok(metrics.metrics())
    }
}
