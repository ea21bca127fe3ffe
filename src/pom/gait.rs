//! The tripod gait planner (spec §8 steps 1–3): front feet lift in turn along a raised-cosine bump while
//! the back feet shift along the ground, then per-sample ground contact of every foot.
//!
//! After the paper's gait: front feet "take turns lifting while the back feet shift between the heel and
//! toe", right front foot first, three feet on the ground at any time.

use std::collections::BTreeSet;
use std::f64::consts::PI;

use super::kinematics::{sample_times, Frame};
use super::model::{Model, Role};

/// Parameters of a tripod gait, with front feet as effector indices.
#[derive(Debug, Clone, PartialEq)]
pub struct TripodGait {
    /// Height of a front foot's bump, m.
    pub lift: f64,
    /// Peak-to-peak back-foot shift along the ground, m.
    pub stride: f64,
    /// Cycle length T, s.
    pub period: f64,
    /// Front feet in swing order.
    pub order: Vec<usize>,
    pub cycles: u32,
    /// A foot is on the ground when its height is at most this, m; below −ground_tol it is in the ground.
    pub ground_tol: f64,
}

/// A time window of the gait: one front foot's swing, or the stance after all swings of a cycle.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub cycle: u32,
    /// The swinging front foot (effector index), `None` for a stance window.
    pub swing: Option<usize>,
    pub start: f64,
    pub end: f64,
}

impl TripodGait {
    /// Swing window length: T/2 for the paper's two front feet (spec §8), T/n for n > 2 feet so the
    /// windows do not overlap.
    pub fn window(&self) -> f64 {
        self.period / self.order.len().max(2) as f64
    }

    /// Total duration, s.
    pub fn duration(&self) -> f64 {
        self.period * f64::from(self.cycles)
    }

    /// The feet that are not in `order`: they stay planted and shift.
    pub(crate) fn back_feet(&self, model: &Model) -> Vec<usize> {
        (0..model.effectors().len())
            .filter(|j| model.effectors()[*j].role == Role::Foot && !self.order.contains(j))
            .collect()
    }

    /// Target z of a front foot at time t: a raised-cosine bump of height `lift` in its window.
    pub(crate) fn front_z(&self, slot: usize, t: f64) -> f64 {
        let w = self.window();
        let s = t - (t / self.period).floor() * self.period;
        let tau = s - slot as f64 * w;
        if (0.0..=w).contains(&tau) {
            0.5 * self.lift * (1.0 - (2.0 * PI * tau / w).cos())
        } else {
            0.0
        }
    }

    /// Foot targets at every sample (one frame per sample, so no interpolation is involved).
    ///
    /// Front feet: z follows its bump, x and y are free. Back feet: each component driven by a control
    /// that also drives some front foot is left free (it is decided by the lift); otherwise the ground
    /// components follow (stride/2)·sin(2πt/T) and z is held at 0. Components no control drives are
    /// left free. Everything else is free.
    pub fn frames(&self, model: &Model, dt: f64) -> Vec<Frame> {
        let front_controls: BTreeSet<usize> = self
            .order
            .iter()
            .flat_map(|&f| (0..3).filter_map(move |k| model.driver(3 * f + k)))
            .map(|(i, _)| i)
            .collect();
        let back = self.back_feet(model);
        sample_times(0.0, self.duration(), dt)
            .into_iter()
            .map(|t| {
                let mut values = vec![None; model.rows()];
                for (slot, &f) in self.order.iter().enumerate() {
                    values[3 * f + 2] = Some(self.front_z(slot, t));
                }
                let shift = 0.5 * self.stride * (2.0 * PI * t / self.period).sin();
                for &b in &back {
                    for k in 0..3 {
                        let row = 3 * b + k;
                        if let Some((i, _)) = model.driver(row) {
                            if !front_controls.contains(&i) {
                                values[row] = Some(if k < 2 { shift } else { 0.0 });
                            }
                        }
                    }
                }
                Frame { t, values }
            })
            .collect()
    }

    /// The swing windows (and stance remainders) of every cycle, in time order.
    pub fn phases(&self) -> Vec<Phase> {
        let w = self.window();
        let mut out = Vec::new();
        for cycle in 0..self.cycles {
            let t0 = f64::from(cycle) * self.period;
            for (slot, &f) in self.order.iter().enumerate() {
                let start = t0 + slot as f64 * w;
                out.push(Phase { cycle, swing: Some(f), start, end: start + w });
            }
            let swung = t0 + self.order.len() as f64 * w;
            if swung < t0 + self.period - 1e-12 {
                out.push(Phase { cycle, swing: None, start: swung, end: t0 + self.period });
            }
        }
        out
    }
}

/// Ground contact of the feet at one sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Foot effector indices with height ≤ ground_tol.
    pub on_ground: Vec<usize>,
    /// Foot effector indices with height < −ground_tol (inside the ground), with the height, m.
    pub below: Vec<(usize, f64)>,
}

/// Ground height: the lowest rest height of any foot (feet are meant to rest on the ground).
pub(crate) fn ground_height(model: &Model) -> f64 {
    feet(model).map(|j| model.effector_rest(j)[2]).fold(f64::INFINITY, f64::min)
}

/// Effector indices of the feet.
pub fn feet(model: &Model) -> impl Iterator<Item = usize> + '_ {
    (0..model.effectors().len()).filter(|&j| model.effectors()[j].role == Role::Foot)
}

/// Which feet touch the ground for effector displacements `x` (flattened, from `Model::forward`).
pub fn contact(model: &Model, x: &[f64], ground_tol: f64) -> Contact {
    let ground = ground_height(model);
    let mut c = Contact { on_ground: Vec::new(), below: Vec::new() };
    for j in feet(model) {
        let h = model.effector_rest(j)[2] + x.get(3 * j + 2).copied().unwrap_or(0.0) - ground;
        if h <= ground_tol {
            c.on_ground.push(j);
        }
        if h < -ground_tol {
            c.below.push((j, h));
        }
    }
    c
}
