//! Who receives snapshots, and how a receiver stops or fails a run.

use std::sync::Arc;

use super::Snapshot;

/// What a listener asks of the run after a snapshot (after ripgrep's `Sink`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// End the run after this snapshot (e.g. an evaluator that has seen enough).
    Stop,
}

/// A listener's failure: the run stops with it.
pub type ListenerError = Box<dyn std::error::Error + Send + Sync>;

/// Receives every snapshot of a simulation: one at t = 0, then one after every step.
pub trait SnapshotListener {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError>;
}

/// Keeps every snapshot in memory (tests, short runs, rendering).
#[derive(Debug, Default)]
pub struct SnapshotRecorder {
    pub snapshots: Vec<Arc<Snapshot>>,
}

impl SnapshotListener for SnapshotRecorder {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self.snapshots.push(Arc::clone(snapshot));
        Ok(Flow::Continue)
    }
}

/// A closure that only looks: it never fails nor stops the run.
impl<F: FnMut(&Arc<Snapshot>)> SnapshotListener for F {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        self(snapshot);
        Ok(Flow::Continue)
    }
}
