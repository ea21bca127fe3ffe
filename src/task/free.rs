//! The `free` task's cell metrics (`cells.md` §11): per cell, from the snapshots, how far its centre
//! moved, how its area ratio A/A₀ and perimeter error evolved, and its active connector pairs.

use std::sync::Arc;

use serde::Serialize;

use crate::geom::Vec2;
use crate::snapshot::{Flow, ListenerError, Snapshot, SnapshotListener};

/// What `free` reports for one cell.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CellMetrics {
    pub label: String,
    pub steps: u64,
    /// Simulated time, s.
    pub duration: f64,
    /// Centre (mean of body centres) at t = 0 and at the end, m.
    pub start: [f64; 2],
    pub end: [f64; 2],
    /// |end − start|, m.
    pub displacement: f64,
    /// A/A₀ at the end, its mean over all snapshots and its minimum.
    pub area_ratio: f64,
    pub area_ratio_mean: f64,
    pub area_ratio_min: f64,
    /// F = C·(A₀/A − 1) at the end, N per body.
    pub pressure_force: f64,
    /// Largest |P − N·s| / (N·s) over the run.
    pub max_perimeter_error: f64,
    /// Active connector pairs involving this cell at the end, and their largest count over the run.
    pub active_pairs: usize,
    pub active_pairs_max: usize,
}

/// Active pairs involving the cell labelled `label`: those listed on it and those naming it as the other
/// end.
fn pairs_of(snapshot: &Snapshot, label: &str, own: usize) -> usize {
    own + snapshot.cells().flat_map(|c| &c.pairs).filter(|p| p.other_cell == label).count()
}

/// Accumulates [`CellMetrics`] from every snapshot.
#[derive(Debug, Default)]
pub(crate) struct CellMetricsListener {
    cells: Vec<CellMetrics>,
    snapshots: u64,
}

impl CellMetricsListener {
    pub fn metrics(&self) -> Vec<CellMetrics> {
        self.cells.clone()
    }
}

impl SnapshotListener for CellMetricsListener {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        let first = self.snapshots == 0;
        self.snapshots += 1;
        let n = self.snapshots as f64;
        for (i, c) in snapshot.cells().enumerate() {
            let p: [f64; 2] = [c.center.x, c.center.y];
            let pairs = pairs_of(snapshot, &c.label, c.pairs.len());
            if first {
                self.cells.push(CellMetrics {
                    label: c.label.clone(),
                    steps: 0,
                    duration: 0.0,
                    start: p,
                    end: p,
                    displacement: 0.0,
                    area_ratio: c.area_ratio,
                    area_ratio_mean: c.area_ratio,
                    area_ratio_min: c.area_ratio,
                    pressure_force: c.pressure_force,
                    max_perimeter_error: c.perimeter_error,
                    active_pairs: pairs,
                    active_pairs_max: pairs,
                });
                continue;
            }
            let Some(m) = self.cells.get_mut(i) else { continue };
            m.steps = snapshot.step;
            m.duration = snapshot.t;
            m.end = p;
            m.displacement = (c.center - Vec2::new(m.start[0], m.start[1])).length();
            m.area_ratio = c.area_ratio;
            // Running mean over the snapshots seen, t = 0 included.
            m.area_ratio_mean += (c.area_ratio - m.area_ratio_mean) / n;
            m.area_ratio_min = m.area_ratio_min.min(c.area_ratio);
            m.pressure_force = c.pressure_force;
            m.max_perimeter_error = m.max_perimeter_error.max(c.perimeter_error);
            m.active_pairs = pairs;
            m.active_pairs_max = m.active_pairs_max.max(pairs);
        }
        Ok(Flow::Continue)
    }
}
