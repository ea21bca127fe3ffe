//! The `fold` task's metrics (`cells.md` §11): for each chain with a folding program, how close its
//! cell centres come to the letter (RMS error after the best rigid motion, in units of the cell
//! diameter D), when the fold settles, and which connector pairs hold it.

use std::sync::Arc;

use serde::Serialize;

use crate::geom::{rigid_rms, Vec2};
use crate::model::cell::fold::parse_site_connector;
use crate::snapshot::{Flow, ListenerError, Snapshot, SnapshotListener};

/// What a programmed chain should become.
#[derive(Debug, Clone, PartialEq)]
pub struct FoldGoal {
    pub chain: String,
    /// The program's name (`E`, `P`, `F`, `L`).
    pub program: String,
    /// The chain's cell labels, in chain order.
    pub cells: Vec<String>,
    /// Target centres, m, paired with `cells`.
    pub targets: Vec<Vec2>,
    /// Target lattice points, paired with `cells`: which cells end up next to each other.
    pub lattice: Vec<[i32; 2]>,
    /// Cell diameter D, m: the error's unit.
    pub diameter: f64,
}

/// What `fold` reports for one chain.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FoldMetrics {
    pub chain: String,
    pub program: String,
    pub cells: usize,
    /// D, m.
    pub diameter: f64,
    /// RMS centre error after the best rigid motion (no scale, no reflection), m: at t = 0 (the
    /// straight chain), at the end, and its smallest value over the run.
    pub initial_rms: f64,
    pub final_rms: f64,
    pub min_rms: f64,
    /// `final_rms` / D: the acceptance figure (≤ 0.25).
    pub final_error: f64,
    /// t₉₅: the first time the error is within 5 % of its total change (initial − final) of its final
    /// value, s (spec, ours).
    pub settle_time: f64,
    /// Active pairs at the end between site connectors of two cells that are neighbours in the letter
    /// (lattice or diagonal, chain neighbours included: intended), and any other active pair touching
    /// the chain (unintended: it glues cells the letter keeps apart), with the most unintended pairs
    /// seen at once.
    pub intended_pairs: usize,
    pub unintended_pairs: usize,
    pub unintended_pairs_max: usize,
}

/// Accumulates [`FoldMetrics`] for every goal; keeps the error series for plots.
#[derive(Debug)]
pub struct FoldListener {
    goals: Vec<FoldGoal>,
    /// Per goal: (t, RMS error / D) at every snapshot.
    series: Vec<Vec<(f64, f64)>>,
    pairs: Vec<(usize, usize, usize)>,
}

impl FoldListener {
    pub fn new(goals: Vec<FoldGoal>) -> FoldListener {
        let n = goals.len();
        FoldListener { goals, series: vec![Vec::new(); n], pairs: vec![(0, 0, 0); n] }
    }

    /// Per goal, the error RMS/D at every snapshot, with its time.
    pub fn series(&self) -> &[Vec<(f64, f64)>] {
        &self.series
    }

    pub fn metrics(&self) -> Vec<FoldMetrics> {
        self.goals
            .iter()
            .zip(&self.series)
            .zip(&self.pairs)
            .map(|((g, series), &(intended, unintended, unintended_max))| {
                let d = g.diameter;
                let first = series.first().map_or(f64::NAN, |s| s.1);
                let last = series.last().map_or(f64::NAN, |s| s.1);
                let band = 0.05 * (first - last).abs();
                let settle = series.iter().position(|s| (s.1 - last).abs() <= band).unwrap_or(0);
                FoldMetrics {
                    chain: g.chain.clone(),
                    program: g.program.clone(),
                    cells: g.cells.len(),
                    diameter: d,
                    initial_rms: first * d,
                    final_rms: last * d,
                    min_rms: series.iter().map(|s| s.1).fold(f64::INFINITY, f64::min) * d,
                    final_error: last,
                    settle_time: series.get(settle).map_or(0.0, |s| s.0),
                    intended_pairs: intended,
                    unintended_pairs: unintended,
                    unintended_pairs_max: unintended_max,
                }
            })
            .collect()
    }
}

/// Where `label` sits in the chain, if it belongs to it.
fn chain_index(goal: &FoldGoal, label: &str) -> Option<usize> {
    goal.cells.iter().position(|c| c == label)
}

/// Whether chain cells a and b are lattice or diagonal neighbours in the letter.
fn neighbours(goal: &FoldGoal, a: usize, b: usize) -> bool {
    let (p, q) = (goal.lattice[a], goal.lattice[b]);
    a != b && (p[0] - q[0]).abs().max((p[1] - q[1]).abs()) == 1
}

impl SnapshotListener for FoldListener {
    fn on_snapshot(&mut self, snapshot: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
        for (k, goal) in self.goals.iter().enumerate() {
            let centres: Vec<Vec2> = goal
                .cells
                .iter()
                .filter_map(|label| snapshot.cells().find(|c| &c.label == label).map(|c| c.center))
                .collect();
            if centres.len() != goal.cells.len() {
                continue;
            }
            self.series[k].push((snapshot.t, rigid_rms(&centres, &goal.targets) / goal.diameter));
            let (mut intended, mut unintended) = (0, 0);
            for cell in snapshot.cells() {
                for p in &cell.pairs {
                    let (a, b) = (chain_index(goal, &cell.label), chain_index(goal, &p.other_cell));
                    if a.is_none() && b.is_none() {
                        continue;
                    }
                    let sites = parse_site_connector(&p.connector).is_some()
                        && parse_site_connector(&p.other_connector).is_some();
                    let meant = match (a, b) {
                        (Some(a), Some(b)) => sites && neighbours(goal, a, b),
                        _ => false,
                    };
                    if meant {
                        intended += 1;
                    } else {
                        unintended += 1;
                    }
                }
            }
            let max = self.pairs[k].2.max(unintended);
            self.pairs[k] = (intended, unintended, max);
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listener_after(errors: &[f64]) -> FoldMetrics {
        let goal = FoldGoal {
            chain: "c".into(),
            program: "L".into(),
            cells: vec![],
            targets: vec![],
            lattice: vec![],
            diameter: 2.0,
        };
        let mut l = FoldListener::new(vec![goal]);
        l.series[0] = errors.iter().enumerate().map(|(i, &e)| (i as f64, e)).collect();
        l.metrics().remove(0)
    }

    #[test]
    fn settle_time_is_when_the_error_first_enters_the_five_percent_band() {
        // 1.0 → 0.2: band 0.04 around 0.2; sample 3 (0.23) is the first inside.
        let m = listener_after(&[1.0, 0.6, 0.3, 0.23, 0.3, 0.22, 0.21, 0.2]);
        assert_eq!(m.settle_time, 3.0);
        assert_eq!(m.final_error, 0.2);
        assert_eq!(m.final_rms, 0.4);
        assert_eq!(m.initial_rms, 2.0);
        assert_eq!(m.min_rms, 0.4);
        // Never outside the band: settled from the start.
        assert_eq!(listener_after(&[0.5, 0.5]).settle_time, 0.0);
    }
}
