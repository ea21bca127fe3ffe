//! Forward, inverse and lateral kinematics (spec §6) and the linear keyframe interpolation that turns
//! targets into time series.
//!
//! Least squares needs no matrix solver: every row of J has at most one non-zero (±1), so the normal
//! equations are diagonal and q_i is the mean of J_ri·x_r over the specified rows r that i drives.

use super::error::PomError;
use super::model::Model;

/// Targets at one instant: one entry per row of J, `None` = free.
pub type Targets = Vec<Option<f64>>;

/// The least-squares answer to one set of targets.
#[derive(Debug, Clone, PartialEq)]
pub struct Inverse {
    /// Control displacements, m.
    pub q: Vec<f64>,
    /// r = x_r − (J·q)_r for every specified row, as (row, r).
    pub residuals: Vec<(usize, f64)>,
    /// Specified rows no control drives while their target is non-zero.
    pub unreachable: Vec<usize>,
    /// Controls that drive no specified row (their q is 0).
    pub undetermined: Vec<usize>,
}

impl Model {
    /// x = J·q, flattened per effector as x, y, z.
    pub fn forward(&self, q: &[f64]) -> Result<Vec<f64>, PomError> {
        if q.len() != self.cols() {
            return Err(PomError::Length { what: "control displacements q", expected: self.cols(), got: q.len() });
        }
        Ok((0..self.rows()).map(|r| self.driver(r).map_or(0.0, |(i, s)| f64::from(s) * q[i])).collect())
    }

    /// q = argmin ‖J_S·q − x_S‖² over the specified rows S.
    pub fn inverse(&self, targets: &[Option<f64>]) -> Result<Inverse, PomError> {
        if targets.len() != self.rows() {
            return Err(PomError::Length { what: "targets", expected: self.rows(), got: targets.len() });
        }
        let mut sum = vec![0.0; self.cols()];
        let mut count = vec![0usize; self.cols()];
        let mut unreachable = Vec::new();
        for (r, x) in targets.iter().enumerate() {
            let Some(x) = *x else { continue };
            match self.driver(r) {
                Some((i, s)) => {
                    sum[i] += f64::from(s) * x;
                    count[i] += 1;
                }
                None if x != 0.0 => unreachable.push(r),
                None => {}
            }
        }
        let q: Vec<f64> = sum.iter().zip(&count).map(|(s, &n)| if n > 0 { s / n as f64 } else { 0.0 }).collect();
        let undetermined = (0..self.cols()).filter(|&i| count[i] == 0).collect();
        let fitted = self.forward(&q)?;
        let residuals = targets.iter().enumerate().filter_map(|(r, x)| x.map(|x| (r, x - fitted[r]))).collect();
        Ok(Inverse { q, residuals, unreachable, undetermined })
    }

    /// The paper's "lateral kinematics": q from the targets of the `drive` effectors only, then every
    /// effector's displacement from that q, in one pass.
    pub fn lateral(&self, targets: &[Option<f64>]) -> Result<(Inverse, Vec<f64>), PomError> {
        if targets.len() != self.rows() {
            return Err(PomError::Length { what: "targets", expected: self.rows(), got: targets.len() });
        }
        let drive: Targets =
            targets.iter().enumerate().map(|(r, x)| if self.effectors()[r / 3].drive { *x } else { None }).collect();
        let inv = self.inverse(&drive)?;
        let x = self.forward(&inv.q)?;
        Ok((inv, x))
    }
}

/// A keyframe of values for some channels (`None` = free), at time `t`.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub t: f64,
    pub values: Vec<Option<f64>>,
}

/// Sample times from the first to the last keyframe: the span split into the fewest equal steps of
/// at most `dt`, so both ends are samples and the grid is symmetric (reversal maps samples to samples).
pub(crate) fn sample_times(t0: f64, t1: f64, dt: f64) -> Vec<f64> {
    let span = t1 - t0;
    if span.is_nan() || span <= 0.0 || dt.is_nan() || dt <= 0.0 {
        return vec![t0];
    }
    let n = ((span / dt) - 1e-9).ceil().max(1.0) as usize;
    (0..=n).map(|k| if k == n { t1 } else { t0 + span * (k as f64 / n as f64) }).collect()
}

/// The channels at time t, linearly interpolated per channel: a channel is given at a keyframe that
/// gives it, and between two consecutive keyframes only if both give it (a `null` frees the intervals
/// on both sides of its keyframe). Frames must be sorted by strictly increasing t.
pub(crate) fn interpolate(frames: &[Frame], t: f64) -> Vec<Option<f64>> {
    let width = frames.first().map_or(0, |f| f.values.len());
    let Some(after) = frames.iter().position(|f| f.t >= t) else { return vec![None; width] };
    let b = &frames[after];
    if b.t == t {
        return b.values.clone();
    }
    if after == 0 {
        return vec![None; width];
    }
    let a = &frames[after - 1];
    let w = (t - a.t) / (b.t - a.t);
    a.values.iter().zip(&b.values).map(|(x, y)| Some(x.as_ref()? + w * (y.as_ref()? - x.as_ref()?))).collect()
}

/// Keyframes in reverse: frame times mirrored about the middle of the span (t ↦ t_first + t_last − t),
/// the "running the foot positions in reverse" of the paper.
pub fn reversed(frames: &[Frame]) -> Vec<Frame> {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else { return Vec::new() };
    let (t0, t1) = (first.t, last.t);
    frames.iter().rev().map(|f| Frame { t: t0 + t1 - f.t, values: f.values.clone() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_hits_both_ends_with_steps_at_most_dt() {
        let t = sample_times(0.0, 1.0, 0.3);
        assert_eq!(t.len(), 5);
        assert_eq!((t[0], t[4]), (0.0, 1.0));
        assert!(t.windows(2).all(|w| w[1] - w[0] <= 0.3));
        assert_eq!(sample_times(0.0, 16.0, 0.05).len(), 321);
    }

    #[test]
    fn null_frees_the_intervals_next_to_its_keyframe() {
        let frames = vec![
            Frame { t: 0.0, values: vec![Some(0.0), Some(1.0)] },
            Frame { t: 1.0, values: vec![Some(2.0), None] },
            Frame { t: 2.0, values: vec![Some(0.0), Some(3.0)] },
        ];
        assert_eq!(interpolate(&frames, 0.5), vec![Some(1.0), None]);
        assert_eq!(interpolate(&frames, 0.0), vec![Some(0.0), Some(1.0)]);
        assert_eq!(interpolate(&frames, 1.5), vec![Some(1.0), None]);
        assert_eq!(interpolate(&frames, 3.0), vec![None, None]);
    }
}
