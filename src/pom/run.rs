//! Running a spec: the chosen mode over time (spec §6 table), with residuals, unreachable components,
//! undetermined controls, range violations and, for `gait`, ground contact and static stability per
//! sample and per phase (spec §8).

use std::collections::BTreeMap;

use crate::geom::Vec2;

use super::checks::{self, Violation};
use super::error::PomError;
use super::gait::{contact, Contact, Phase, TripodGait};
use super::kinematics::{interpolate, sample_times, Frame, Targets};
use super::model::Model;
use super::spec::{Mode, PomSpec};
use super::stability::{centroid, convex_hull, static_margin};

/// Residuals below this are rounding, m (the kinematics' accuracy target).
pub const RESIDUAL_TOL: f64 = 1e-12;

/// One residual r = target − J·q of a specified row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Residual {
    pub t: f64,
    pub row: usize,
    pub r: f64,
}

/// Time series of q and x for a set of targets, and what did not fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    pub times: Vec<f64>,
    /// q(t): per sample, one value per control, m.
    pub q: Vec<Vec<f64>>,
    /// x(t): per sample, x, y, z per effector, m.
    pub x: Vec<Vec<f64>>,
    /// Targets per sample (empty for forward runs).
    pub targets: Vec<Targets>,
    /// Residuals larger than [`RESIDUAL_TOL`].
    pub residuals: Vec<Residual>,
    /// RMS over every specified row of every sample, m.
    pub residual_rms: f64,
    /// Row names of components with non-zero targets that no control drives.
    pub unreachable: Vec<String>,
    /// Control ids with no specified row, and at how many samples.
    pub undetermined: Vec<(String, usize)>,
    /// Controls outside their ranges (before clipping).
    pub violations: Vec<Violation>,
}

impl Solution {
    /// The largest residual in magnitude, if any.
    pub(crate) fn max_residual(&self) -> Option<Residual> {
        self.residuals.iter().copied().max_by(|a, b| a.r.abs().total_cmp(&b.r.abs()))
    }
}

/// Inverse (or lateral) kinematics at each time; with `clip`, q is clamped into range before x.
pub fn solve(
    model: &Model,
    times: &[f64],
    targets: Vec<Targets>,
    lateral: bool,
    clip: bool,
) -> Result<Solution, PomError> {
    let mut s = Solution {
        times: times.to_vec(),
        q: Vec::new(),
        x: Vec::new(),
        targets: Vec::new(),
        residuals: Vec::new(),
        residual_rms: 0.0,
        unreachable: Vec::new(),
        undetermined: Vec::new(),
        violations: Vec::new(),
    };
    let mut unreachable = BTreeMap::new();
    let mut undetermined: BTreeMap<usize, usize> = BTreeMap::new();
    let (mut sum2, mut count) = (0.0, 0usize);
    for (&t, target) in times.iter().zip(&targets) {
        let (inv, _) = if lateral { model.lateral(target)? } else { (model.inverse(target)?, Vec::new()) };
        let mut q = inv.q;
        s.violations.extend(checks::range_violations(model, &[t], std::slice::from_ref(&q)));
        if clip {
            checks::clip(model, &mut q);
        }
        let x = model.forward(&q)?;
        for r in inv.unreachable {
            unreachable.entry(r).or_insert_with(|| model.row_name(r));
        }
        for i in inv.undetermined {
            *undetermined.entry(i).or_default() += 1;
        }
        let driven = |r: usize| !lateral || model.effectors()[r / 3].drive;
        for (r, goal) in target.iter().enumerate().filter(|(r, _)| driven(*r)) {
            if let Some(goal) = goal {
                let res = goal - x[r];
                sum2 += res * res;
                count += 1;
                if res.abs() > RESIDUAL_TOL {
                    s.residuals.push(Residual { t, row: r, r: res });
                }
            }
        }
        s.q.push(q);
        s.x.push(x);
    }
    s.targets = targets;
    s.residual_rms = if count > 0 { (sum2 / count as f64).sqrt() } else { 0.0 };
    s.unreachable = unreachable.into_values().collect();
    s.undetermined = undetermined.into_iter().map(|(i, n)| (model.controls()[i].id.clone(), n)).collect();
    Ok(s)
}

/// Keyframed targets sampled at `dt` and solved (inverse or lateral).
pub(crate) fn solve_keyframes(
    model: &Model,
    frames: &[Frame],
    dt: f64,
    lateral: bool,
    clip: bool,
) -> Result<Solution, PomError> {
    let (Some(first), Some(last)) = (frames.first(), frames.last()) else {
        return Err(PomError::invalid("targets.keyframes", "give at least one keyframe"));
    };
    let times = sample_times(first.t, last.t, dt);
    let targets = times.iter().map(|&t| interpolate(frames, t)).collect();
    solve(model, &times, targets, lateral, clip)
}

/// Forward kinematics of control frames; a free (`null`) control counts as 0 and is listed undetermined.
pub(crate) fn forward_series(
    model: &Model,
    times: &[f64],
    q: Vec<Vec<Option<f64>>>,
    clip: bool,
) -> Result<Solution, PomError> {
    let mut undetermined: BTreeMap<usize, usize> = BTreeMap::new();
    let mut qs = Vec::new();
    for row in q {
        for (i, v) in row.iter().enumerate() {
            if v.is_none() {
                *undetermined.entry(i).or_default() += 1;
            }
        }
        qs.push(row.into_iter().map(|v| v.unwrap_or(0.0)).collect::<Vec<f64>>());
    }
    let violations = checks::range_violations(model, times, &qs);
    if clip {
        qs.iter_mut().for_each(|q| checks::clip(model, q));
    }
    let x = qs.iter().map(|q| model.forward(q)).collect::<Result<Vec<_>, _>>()?;
    Ok(Solution {
        times: times.to_vec(),
        q: qs,
        x,
        targets: Vec::new(),
        residuals: Vec::new(),
        residual_rms: 0.0,
        unreachable: Vec::new(),
        undetermined: undetermined.into_iter().map(|(i, n)| (model.controls()[i].id.clone(), n)).collect(),
        violations,
    })
}

/// Ground contact and stability of a gait solution.
#[derive(Debug, Clone, PartialEq)]
pub struct GaitRun {
    pub plan: TripodGait,
    /// Projected centroid of the voxels, m (fixed in POM).
    pub centroid: Vec2,
    /// Per sample.
    pub contact: Vec<Contact>,
    /// Static margin per sample, m (positive inside the support polygon).
    pub margin: Vec<f64>,
    pub phases: Vec<PhaseSummary>,
}

/// The worst of each check within one phase.
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseSummary {
    pub phase: Phase,
    pub min_feet_on_ground: usize,
    pub min_margin: f64,
    /// Highest height of the swinging foot above its rest, m.
    pub peak_lift: f64,
}

impl GaitRun {
    /// Contact and margin at every sample of `solution`, summarised per phase.
    pub fn evaluate(model: &Model, plan: TripodGait, solution: &Solution) -> GaitRun {
        let c = centroid(model);
        let mut contacts = Vec::new();
        let mut margins = Vec::new();
        for x in &solution.x {
            let k = contact(model, x, plan.ground_tol);
            let support: Vec<Vec2> = k
                .on_ground
                .iter()
                .map(|&j| {
                    let p = model.effector_rest(j);
                    Vec2::new(p[0] + x[3 * j], p[1] + x[3 * j + 1])
                })
                .collect();
            margins.push(static_margin(&convex_hull(&support), c));
            contacts.push(k);
        }
        let phases = plan
            .phases()
            .into_iter()
            .map(|phase| {
                let inside: Vec<usize> = (0..solution.times.len())
                    .filter(|&s| solution.times[s] >= phase.start - 1e-9 && solution.times[s] <= phase.end + 1e-9)
                    .collect();
                PhaseSummary {
                    min_feet_on_ground: inside.iter().map(|&s| contacts[s].on_ground.len()).min().unwrap_or(0),
                    min_margin: inside.iter().map(|&s| margins[s]).fold(f64::INFINITY, f64::min),
                    peak_lift: phase
                        .swing
                        .map_or(0.0, |f| inside.iter().map(|&s| solution.x[s][3 * f + 2]).fold(0.0, f64::max)),
                    phase,
                }
            })
            .collect();
        GaitRun { plan, centroid: c, contact: contacts, margin: margins, phases }
    }

    /// Failed gait checks in words (empty when the gait is tripod-stable throughout).
    pub(crate) fn problems(&self, model: &Model, times: &[f64]) -> Vec<String> {
        let mut out = Vec::new();
        let name = |j: usize| model.effectors()[j].id.clone();
        for (s, (c, &m)) in self.contact.iter().zip(&self.margin).enumerate() {
            let t = times.get(s).copied().unwrap_or(f64::NAN);
            if c.on_ground.len() < 3 {
                out.push(format!("t = {t:.3} s: only {} feet on the ground (tripod needs 3)", c.on_ground.len()));
            }
            for &(j, h) in &c.below {
                out.push(format!("t = {t:.3} s: {} is {:.3} mm inside the ground", name(j), -h * 1e3));
            }
            if m <= 0.0 {
                out.push(format!(
                    "t = {t:.3} s: static margin {:.3} mm (the centroid is not inside the support)",
                    m * 1e3
                ));
            }
        }
        out
    }
}

/// A spec's run: the model, the solution and, in `gait` mode, the gait checks.
#[derive(Debug, Clone, PartialEq)]
pub struct PomRun {
    pub mode: Mode,
    /// The spec's reconstruction note, repeated by every output.
    pub reconstruction: Option<String>,
    pub model: Model,
    pub solution: Solution,
    pub gait: Option<GaitRun>,
    /// Whether q was clamped into range (`clip: true`); violations are those before clamping.
    pub clipped: bool,
}

/// Runs a spec in its mode. `forward_csv` is the text of the file `forward.csv` names, if it names one.
pub fn run(spec: &PomSpec, forward_csv: Option<&str>) -> Result<PomRun, PomError> {
    spec.validate()?;
    let model = spec.model()?;
    let mut gait = None;
    let solution = match spec.mode {
        Mode::Forward => {
            let from_csv = spec.forward.as_ref().is_some_and(|f| f.csv.is_some());
            if from_csv && forward_csv.is_none() {
                return Err(PomError::invalid(
                    "forward.csv",
                    "the CSV file's text was not supplied: read the file first",
                ));
            }
            let frames = spec.forward_frames(&model, forward_csv)?;
            let (times, q): (Vec<f64>, Vec<_>) = if from_csv {
                frames.into_iter().map(|f| (f.t, f.values)).unzip()
            } else {
                let times = sample_times(frames[0].t, frames[frames.len() - 1].t, spec.dt);
                let q = times.iter().map(|&t| interpolate(&frames, t)).collect();
                (times, q)
            };
            forward_series(&model, &times, q, spec.clip)?
        }
        Mode::Inverse | Mode::Lateral => {
            solve_keyframes(&model, &spec.target_frames(&model)?, spec.dt, spec.mode == Mode::Lateral, spec.clip)?
        }
        Mode::Gait => {
            let plan = spec.tripod(&model)?;
            let frames = plan.frames(&model, spec.dt);
            let times: Vec<f64> = frames.iter().map(|f| f.t).collect();
            let solution = solve(&model, &times, frames.into_iter().map(|f| f.values).collect(), false, spec.clip)?;
            gait = Some(GaitRun::evaluate(&model, plan, &solution));
            solution
        }
    };
    Ok(PomRun {
        mode: spec.mode,
        reconstruction: spec.reconstruction.clone(),
        model,
        solution,
        gait,
        clipped: spec.clip,
    })
}
