//! Range checks (spec §6): which actuator displacements exceed the prototype's travel. The refusals
//! of spec §7 (what makes a set of controls unusable) are made where a [`Model`] is built.

use super::model::Model;

/// Slack on range limits, m, so that a target exactly at a limit is not reported for rounding.
const RANGE_SLACK: f64 = 1e-12;

/// One actuator displacement outside its control's range.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub t: f64,
    pub control: usize,
    pub q: f64,
    /// How far outside the range, m (positive).
    pub excess: f64,
}

/// Every sample where a control leaves its range (with 1e−12 m slack for rounding).
pub(crate) fn range_violations(model: &Model, times: &[f64], q: &[Vec<f64>]) -> Vec<Violation> {
    let mut out = Vec::new();
    for (&t, qs) in times.iter().zip(q) {
        for (i, (c, &v)) in model.controls().iter().zip(qs).enumerate() {
            let excess = (c.range[0] - v).max(v - c.range[1]);
            if excess > RANGE_SLACK {
                out.push(Violation { t, control: i, q: v, excess });
            }
        }
    }
    out
}

/// Clamps every control displacement into its range (`clip: true`).
pub fn clip(model: &Model, q: &mut [f64]) {
    for (c, v) in model.controls().iter().zip(q.iter_mut()) {
        *v = v.clamp(c.range[0], c.range[1]);
    }
}
