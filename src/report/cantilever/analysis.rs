//! Derived figures of the cantilever runs and the report's physical sanity checks (spec §13).
//!
//! Everything here is a pure function of [`CantileverData`]: no physics, no files. Bad data (empty
//! sweeps, NaN from a diverged run, a single f_s) never panics; it yields `None` figures or checks with
//! the verdict [`Verdict::NoData`].

use serde::{Deserialize, Serialize};

use super::data::{CantileverData, DynamicRun, StaticRun};
use crate::model::voxel::scaffolding::Scaffolding;

/// Settling band: |δ − δ_final| must stay within this fraction of the peak excursion.
pub const SETTLING_FRACTION: f64 = 0.05;
/// Hysteresis of the level-crossing detector, as a fraction of the peak excursion, so numerical noise
/// around the rest level does not count as oscillation.
pub const CROSSING_HYSTERESIS: f64 = 0.02;
/// Fraction of the record (at least one sample) whose mean is taken as the rest level δ_final.
pub const TAIL_FRACTION: f64 = 0.05;

/// Static sweep: allowed |slope − (−2)| of ln|δ| against ln f_s.
pub const SLOPE_TOLERANCE: f64 = 0.3;
/// Beam theory ratios: allowed relative deviation of measured from predicted.
pub const RATIO_TOLERANCE: f64 = 0.3;
/// Dynamic sweep: allowed coefficient of variation of period·f_s.
pub const PERIOD_FS_CV_TOLERANCE: f64 = 0.15;
/// Static sweep: the 1/f_s² law is a small-deflection law; runs whose |δ| exceeds this fraction of the
/// beam length L = w·l are left out of the slope fit.
pub const SMALL_DEFLECTION_FRACTION: f64 = 0.10;
/// Peak amplitudes one period apart that grow by more than this factor make an oscillation "growing";
/// shrinking by more than its inverse, "decaying"; in between, "sustained".
pub const GROWTH_RATIO: f64 = 1.01;

/// How a δ(t) record behaves after the impulse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Oscillation {
    /// Peak amplitudes shrink (or the record has come to rest after fewer than two same-sign peaks).
    Decaying,
    /// Later peak amplitudes are larger than earlier ones: a numerical instability.
    Growing,
    /// Peak amplitudes change by less than 1 % per period.
    Sustained,
    /// No period detected: the beam is overdamped (returns without oscillating) or the record is too
    /// short to hold a full cycle.
    NoPeriod,
    /// A period, but too few peaks to tell whether they shrink, and not at rest.
    Undetermined,
}

impl Oscillation {
    /// What the report says about a run with this behaviour.
    pub fn describe(self) -> &'static str {
        match self {
            Oscillation::Decaying => "decays",
            Oscillation::Growing => "oscillation grows (unstable)",
            Oscillation::Sustained => "oscillation neither decays nor grows (peaks change by less than 1 % per period)",
            Oscillation::NoPeriod => "no period detected: the beam is overdamped or the record is too short",
            Oscillation::Undetermined => "too few peaks to tell whether the oscillation decays",
        }
    }
}

/// Figures derived from one δ(t) series sampled at t_k = k·dt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesFigures {
    pub samples: usize,
    /// The last sample δ(t_end) (m).
    pub final_m: f64,
    /// Rest level (m): mean of the last [`TAIL_FRACTION`] of the record; crossings and settling are
    /// measured from it.
    pub level_m: f64,
    /// Largest |δ| (m) and the first time it occurs.
    pub peak_abs_m: f64,
    pub peak_t_s: f64,
    /// Mean spacing of successive same-direction crossings of the rest level; `None` when fewer than
    /// one full cycle is detectable.
    pub period_s: Option<f64>,
    /// First time after which |δ − level| stays within 5 % of the peak excursion; `None` when the record
    /// is still outside the band in its tail.
    pub settling_s: Option<f64>,
    /// Ratio of successive same-sign peak amplitudes, one period apart (geometric mean); < 1 decays.
    pub decay_ratio: Option<f64>,
    /// Damping ratio ζ from the logarithmic decrement Λ = −ln(decay_ratio): ζ = Λ/√(4π² + Λ²).
    pub damping_ratio: Option<f64>,
    /// Number of half-cycle peaks (alternating extremes about the rest level).
    pub half_cycle_peaks: usize,
    /// Whether the oscillation decays, grows, or has no detectable period.
    pub oscillation: Oscillation,
}

/// Derived figures of a δ(t) series; `None` when it is empty, dt is not positive, or any sample is
/// not finite (a diverged run has no meaningful period).
pub fn series_figures(dy: &[f64], dt: f64) -> Option<SeriesFigures> {
    if dy.is_empty() || !(dt.is_finite() && dt > 0.0) || dy.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = dy.len();
    let t = |k: usize| k as f64 * dt;
    let tail = ((n as f64 * TAIL_FRACTION).ceil() as usize).clamp(1, n);
    let range = dy.iter().fold(f64::NEG_INFINITY, |m, v| m.max(*v)) - dy.iter().fold(f64::INFINITY, |m, v| m.min(*v));
    let (extremes, pending) = zigzag_extremes(dy, 2.0 * CROSSING_HYSTERESIS * range);
    let level = rest_level(dy, &extremes, pending, tail);

    let (mut peak_k, mut peak_abs) = (0, 0.0f64);
    for (k, v) in dy.iter().enumerate() {
        if v.abs() > peak_abs {
            (peak_k, peak_abs) = (k, v.abs());
        }
    }
    let d: Vec<f64> = dy.iter().map(|v| v - level).collect();
    let excursion = max_abs(&d);

    let settling_s = if excursion == 0.0 {
        Some(0.0)
    } else {
        let band = SETTLING_FRACTION * excursion;
        match d.iter().rposition(|v| v.abs() > band) {
            None => Some(0.0),
            Some(last) if last + 1 > n - tail => None,
            Some(last) => Some(t(last + 1)),
        }
    };

    let hysteresis = CROSSING_HYSTERESIS * excursion;
    let crossings = level_crossings(&d, dt, hysteresis);
    // Half-cycle peak amplitudes about the level: successive extremes on the same side of it (a wiggle
    // of a higher mode) merge into the larger one, so the sequence alternates.
    let mut peaks: Vec<f64> = Vec::new();
    for a in extremes.iter().map(|e| e - level).filter(|a| a.abs() > CROSSING_HYSTERESIS * excursion) {
        match peaks.last_mut() {
            Some(last) if (*last > 0.0) == (a > 0.0) => {
                if a.abs() > last.abs() {
                    *last = a;
                }
            }
            _ => peaks.push(a),
        }
    }
    let peaks: Vec<f64> = peaks.into_iter().map(f64::abs).collect();
    // A strongly damped record that starts at rest may cross its level only twice, once each way
    // (three visible half-cycles, the third too small to come back across); a damped sine crosses its
    // level every half period, so the period is then twice the spacing of the two. A record that
    // starts away from its level would count its departure as a crossing, so it gets no such estimate.
    let period_s = mean_same_direction_spacing(&crossings).or_else(|| match crossings.as_slice() {
        [a, b] if d[0].abs() <= hysteresis && peaks.len() >= 2 && a.upward != b.upward && b.t > a.t => {
            Some(2.0 * (b.t - a.t))
        }
        _ => None,
    });
    let decay_ratio = decay_ratio(&peaks);
    let damping_ratio = decay_ratio.filter(|r| *r > 0.0 && *r < 1.0).map(|r| {
        let lambda = -r.ln();
        lambda / (4.0 * std::f64::consts::PI.powi(2) + lambda * lambda).sqrt()
    });
    let oscillation = classify(period_s, decay_ratio, &peaks, settling_s.is_some());

    Some(SeriesFigures {
        samples: n,
        final_m: dy[n - 1],
        level_m: level,
        peak_abs_m: peak_abs,
        peak_t_s: t(peak_k),
        period_s,
        settling_s,
        decay_ratio,
        damping_ratio,
        half_cycle_peaks: peaks.len(),
        oscillation,
    })
}

/// Growth is either a mean ratio of same-sign peaks above [`GROWTH_RATIO`], or a largest peak in the
/// later half of the half-cycle peaks that exceeds the earlier half's by that factor (an instability
/// that sets in late barely moves the mean ratio).
fn classify(period: Option<f64>, ratio: Option<f64>, peaks: &[f64], settled: bool) -> Oscillation {
    let grows_late = peaks.len() >= 3 && {
        let half = peaks.len() / 2;
        let early = peaks[..half].iter().fold(0.0f64, |m, p| m.max(*p));
        let late = peaks[half..].iter().fold(0.0f64, |m, p| m.max(*p));
        late > GROWTH_RATIO * early
    };
    if grows_late || ratio.is_some_and(|r| r >= GROWTH_RATIO) {
        return Oscillation::Growing;
    }
    match ratio {
        Some(r) if r <= 1.0 / GROWTH_RATIO => Oscillation::Decaying,
        Some(_) => Oscillation::Sustained,
        None if period.is_none() => Oscillation::NoPeriod,
        None if settled => Oscillation::Decaying,
        None => Oscillation::Undetermined,
    }
}

/// A crossing of the rest level: interpolated time and direction.
#[derive(Debug, Clone, Copy)]
struct Crossing {
    t: f64,
    upward: bool,
}

/// Schmitt-trigger crossings of zero: a crossing counts only once the signal has gone beyond ±hys on
/// the other side, and is timed at the last interpolated zero before that.
fn level_crossings(d: &[f64], dt: f64, hys: f64) -> Vec<Crossing> {
    let mut out = Vec::new();
    let mut state = 0i8;
    let mut last_zero: Option<f64> = None;
    for k in 0..d.len() {
        if k > 0 && (d[k - 1] >= 0.0) != (d[k] >= 0.0) {
            let frac = d[k - 1] / (d[k - 1] - d[k]);
            last_zero = Some((k - 1) as f64 * dt + frac * dt);
        }
        let side = if d[k] > hys {
            1
        } else if d[k] < -hys {
            -1
        } else {
            0
        };
        if side != 0 && side != state {
            if state != 0 {
                if let Some(tz) = last_zero {
                    out.push(Crossing { t: tz, upward: side > 0 });
                }
            }
            state = side;
        }
    }
    out
}

/// Period from crossings in the same direction, each direction weighted by its number of intervals.
fn mean_same_direction_spacing(crossings: &[Crossing]) -> Option<f64> {
    let (mut span, mut intervals) = (0.0, 0usize);
    for upward in [true, false] {
        let times: Vec<f64> = crossings.iter().filter(|c| c.upward == upward).map(|c| c.t).collect();
        if times.len() >= 2 {
            span += times[times.len() - 1] - times[0];
            intervals += times.len() - 1;
        }
    }
    (intervals > 0 && span > 0.0).then(|| span / intervals as f64)
}

fn max_abs(d: &[f64]) -> f64 {
    d.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// The rest level the record oscillates about. When the tail of the record is quiet (its spread, and
/// the last extreme's distance from it, within the settling band), that is the tail mean. A record that
/// ends still oscillating would bias the tail mean by up to an amplitude, so the level is extrapolated
/// from the last three extremes instead: for peaks c + A, c − A·q, c + A·q² of a geometric decay,
/// c = (p₁p₃ − p₂²)/(p₁ + p₃ − 2p₂), which is exact for a damped sine about an offset.
///
/// The last swing is measured from the last confirmed extreme, or from the pending one (the running
/// extreme after it, which the signal left by less than the zigzag threshold) when that lies before
/// the tail: a strongly damped record whose last small swing never comes back far enough to be
/// confirmed is still at rest in its tail.
fn rest_level(dy: &[f64], extremes: &[f64], pending: Option<(usize, f64)>, tail: usize) -> f64 {
    let n = dy.len();
    let tail_mean = dy[n - tail..].iter().sum::<f64>() / tail as f64;
    let (lo, hi) = dy[n - tail..].iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
    let excursion = dy.iter().fold(0.0f64, |m, v| m.max((v - tail_mean).abs()));
    // A tail can look quiet near a slow peak; it is at rest only if the last swing is small too.
    let band = SETTLING_FRACTION * excursion;
    let last = match pending {
        Some((k, v)) if k < n - tail => Some(v),
        _ => extremes.last().copied(),
    };
    let last_swing_small = last.is_none_or(|e| (e - tail_mean).abs() <= band);
    if excursion == 0.0 || (hi - lo <= 2.0 * band && last_swing_small) {
        return tail_mean;
    }
    match extremes {
        [.., p1, p2, p3] => {
            let denominator = p1 + p3 - 2.0 * p2;
            let c = (p1 * p3 - p2 * p2) / denominator;
            let (min, max) = (p1.min(*p2).min(*p3), p1.max(*p2).max(*p3));
            if denominator.abs() > 1e-12 * excursion && c.is_finite() && c > min && c < max {
                c
            } else {
                0.5 * (p2 + p3)
            }
        }
        [p1, p2] => 0.5 * (p1 + p2),
        _ => tail_mean,
    }
}

/// Alternating local maxima and minima of dy (values, refined by a parabola), found without a level:
/// an extreme is confirmed once the signal has moved back from it by more than `h`. The first and last
/// samples never count, since the record merely starts or stops there. Also returns the pending
/// extreme (sample index and value): the running extreme after the last confirmed one, not confirmed.
fn zigzag_extremes(dy: &[f64], h: f64) -> (Vec<f64>, Option<(usize, f64)>) {
    let n = dy.len();
    let mut out = Vec::new();
    let (mut imax, mut imin) = (0usize, 0usize);
    let mut dir = 0i8;
    let mut ext = 0usize;
    let push = |k: usize, out: &mut Vec<f64>| {
        if k > 0 && k + 1 < n {
            out.push(refine_extreme(dy, k));
        }
    };
    for k in 1..n {
        match dir {
            0 => {
                if dy[k] > dy[imax] {
                    imax = k;
                }
                if dy[k] < dy[imin] {
                    imin = k;
                }
                if dy[k] > dy[imin] + h {
                    push(imin, &mut out);
                    (dir, ext) = (1, k);
                } else if dy[k] < dy[imax] - h {
                    push(imax, &mut out);
                    (dir, ext) = (-1, k);
                }
            }
            1 => {
                if dy[k] >= dy[ext] {
                    ext = k;
                } else if dy[k] < dy[ext] - h {
                    push(ext, &mut out);
                    (dir, ext) = (-1, k);
                }
            }
            _ => {
                if dy[k] <= dy[ext] {
                    ext = k;
                } else if dy[k] > dy[ext] + h {
                    push(ext, &mut out);
                    (dir, ext) = (1, k);
                }
            }
        }
    }
    let pending = (dir != 0).then(|| (ext, dy[ext]));
    (out, pending)
}

/// The vertex of the parabola through samples k−1, k, k+1 (the sample itself at the ends).
fn refine_extreme(d: &[f64], k: usize) -> f64 {
    if k == 0 || k + 1 >= d.len() {
        return d[k];
    }
    let (y0, y1, y2) = (d[k - 1], d[k], d[k + 1]);
    let curvature = y0 - 2.0 * y1 + y2;
    if curvature == 0.0 {
        return y1;
    }
    y1 - (y0 - y2).powi(2) / (8.0 * curvature)
}

/// Geometric mean ratio of same-sign peaks one period apart (peaks alternate in sign).
fn decay_ratio(peaks: &[f64]) -> Option<f64> {
    let (mut log_sum, mut count) = (0.0, 0usize);
    for parity in 0..2 {
        let same: Vec<f64> = peaks.iter().skip(parity).step_by(2).copied().collect();
        if same.len() >= 2 && same[0] > 0.0 && same[same.len() - 1] > 0.0 {
            log_sum += (same[same.len() - 1] / same[0]).ln();
            count += same.len() - 1;
        }
    }
    (count > 0).then(|| (log_sum / count as f64).exp())
}

/// Least-squares slope and R² of ln y against ln x, over points with x > 0 and y ≠ 0 (|y| is used).
/// `None` with fewer than two distinct x.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite() && *x > 0.0 && *y != 0.0)
        .map(|(x, y)| (x.ln(), y.abs().ln()))
        .collect();
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= 1e-24 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy <= 1e-300 { 1.0 } else { (sxy * sxy) / (sxx * syy) };
    Some((slope, r2))
}

/// Outcome of one sanity check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Flag,
    NoData,
}

/// One line of the physical sanity section: measured next to predicted, with a verdict and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanityCheck {
    /// Stable key, e.g. `static_slope_10x2`, `l3_ratio_10x2_5x2`.
    pub id: String,
    pub name: String,
    /// The runs the check concerns (size, f_s, scaffolding), in words.
    pub runs: String,
    pub measured: String,
    pub predicted: String,
    pub tolerance: String,
    pub measured_value: Option<f64>,
    pub predicted_value: Option<f64>,
    pub verdict: Verdict,
    pub explanation: String,
}

impl SanityCheck {
    fn no_data(id: String, name: String, predicted: String, tolerance: String, why: &str) -> Self {
        SanityCheck {
            id,
            name,
            runs: "–".into(),
            measured: "no data".into(),
            predicted,
            tolerance,
            measured_value: None,
            predicted_value: None,
            verdict: Verdict::NoData,
            explanation: why.into(),
        }
    }
}

/// Derived figures of one dynamic run (`figures` is `None` for an empty or non-finite record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DynamicSummary {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    pub figures: Option<SeriesFigures>,
}

impl DynamicSummary {
    /// The run in words, e.g. "10×4, f_s 8 Hz, all groups".
    pub fn run_name(&self) -> String {
        run_name((self.w, self.h), self.fs_hz, self.scaffolding)
    }

    /// Its behaviour in words; a record with non-finite samples diverged.
    pub fn behaviour(&self) -> &'static str {
        match &self.figures {
            Some(f) => f.oscillation.describe(),
            None => "diverged (non-finite samples) or empty record",
        }
    }
}

/// Counts of verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SanitySummary {
    pub pass: usize,
    pub flag: usize,
    pub no_data: usize,
}

/// Everything the report derives from the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub dynamic: Vec<DynamicSummary>,
    pub sanity: Vec<SanityCheck>,
    pub summary: SanitySummary,
}

/// Derived figures of every dynamic run and all sanity checks.
pub fn analyse(data: &CantileverData) -> Analysis {
    let dynamic: Vec<DynamicSummary> = data
        .dynamic_runs
        .iter()
        .map(|r| DynamicSummary {
            w: r.w,
            h: r.h,
            fs_hz: r.fs_hz,
            scaffolding: r.scaffolding,
            figures: series_figures(&r.dy_m, r.dt),
        })
        .collect();
    let sanity = sanity_checks(data, &dynamic);
    let mut summary = SanitySummary::default();
    for c in &sanity {
        match c.verdict {
            Verdict::Pass => summary.pass += 1,
            Verdict::Flag => summary.flag += 1,
            Verdict::NoData => summary.no_data += 1,
        }
    }
    Analysis { dynamic, sanity, summary }
}

/// Equality of swept frequencies, which come from the same literal list but may pass through text.
pub fn same_fs(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Beam sizes present in the data, in (w, h) order (5×2, 10×2, 10×4).
pub fn sizes(data: &CantileverData) -> Vec<(u32, u32)> {
    let mut s: Vec<(u32, u32)> =
        data.static_runs.iter().map(|r| (r.w, r.h)).chain(data.dynamic_runs.iter().map(|r| (r.w, r.h))).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The f_s of the scaffolding sweep: the frequency with the most runs that do not use all groups
/// (ties: the lowest); `None` when every run uses all groups.
pub fn scaffolding_sweep_fs(fs_of_non_all: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for fs in fs_of_non_all {
        if !fs.is_finite() {
            continue;
        }
        match counts.iter_mut().find(|(f, _)| same_fs(*f, fs)) {
            Some(c) => c.1 += 1,
            None => counts.push((fs, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.total_cmp(&b.0)));
    counts.first().map(|c| c.0)
}

/// Static sweep over f_s with all groups for one size: (f_s, δ) sorted by f_s, first run per f_s.
pub fn static_fs_sweep(runs: &[StaticRun], size: (u32, u32)) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for r in runs.iter().filter(|r| (r.w, r.h) == size && r.scaffolding == Scaffolding::ALL) {
        if r.fs_hz.is_finite() && !pts.iter().any(|p| same_fs(p.0, r.fs_hz)) {
            pts.push((r.fs_hz, r.dy_final_m));
        }
    }
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    pts
}

/// Static δ of each paper scaffolding set at f_s for one size, in [`Scaffolding::PAPER_SETS`] order.
pub fn static_scaffolding_sweep(runs: &[StaticRun], size: (u32, u32), fs: f64) -> Vec<(Scaffolding, f64)> {
    Scaffolding::PAPER_SETS
        .iter()
        .filter_map(|s| {
            runs.iter()
                .find(|r| (r.w, r.h) == size && r.scaffolding == *s && same_fs(r.fs_hz, fs))
                .map(|r| (*s, r.dy_final_m))
        })
        .collect()
}

/// Dynamic runs with all groups for one size, sorted by f_s, first run per f_s.
pub fn dynamic_fs_sweep(runs: &[DynamicRun], size: (u32, u32)) -> Vec<&DynamicRun> {
    let mut out: Vec<&DynamicRun> = Vec::new();
    for r in runs.iter().filter(|r| (r.w, r.h) == size && r.scaffolding == Scaffolding::ALL) {
        if r.fs_hz.is_finite() && !out.iter().any(|o| same_fs(o.fs_hz, r.fs_hz)) {
            out.push(r);
        }
    }
    out.sort_by(|a, b| a.fs_hz.total_cmp(&b.fs_hz));
    out
}

/// Dynamic runs of each paper scaffolding set at f_s for one size, in [`Scaffolding::PAPER_SETS`] order.
pub fn dynamic_scaffolding_sweep(runs: &[DynamicRun], size: (u32, u32), fs: f64) -> Vec<&DynamicRun> {
    Scaffolding::PAPER_SETS
        .iter()
        .filter_map(|s| runs.iter().find(|r| (r.w, r.h) == size && r.scaffolding == *s && same_fs(r.fs_hz, fs)))
        .collect()
}

/// Short text for a number: 4 significant digits, scientific outside [1e-3, 1e5).
pub fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let digits = digits.max(1);
    let mag = x.abs().log10().floor() as i32;
    let text = if (-3..5).contains(&mag) {
        let decimals = (digits as i32 - 1 - mag).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.prec$e}", prec = digits - 1)
    };
    text.replace('-', "−")
}

/// An input value (f_s, a force, a duration) without trailing zeros: 8 → "8", 12.5 → "12.5".
pub fn short(x: f64) -> String {
    let s = sig(x, 4);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn size_name(s: (u32, u32)) -> String {
    format!("{}×{}", s.0, s.1)
}

fn size_id(s: (u32, u32)) -> String {
    format!("{}x{}", s.0, s.1)
}

fn scaffolding_name(s: Scaffolding) -> String {
    if s == Scaffolding::ALL {
        "all groups".into()
    } else {
        s.to_string()
    }
}

/// One run in words: "10×4, f_s 8 Hz, all groups".
pub fn run_name(size: (u32, u32), fs: f64, s: Scaffolding) -> String {
    format!("{}, f_s {} Hz, {}", size_name(size), short(fs), scaffolding_name(s))
}

/// A list of frequencies in words: "4, 8, 10 Hz".
fn fs_list(fs: &[f64]) -> String {
    format!("{} Hz", fs.iter().map(|f| short(*f)).collect::<Vec<_>>().join(", "))
}

/// (f_s, scaffolding) pairs in words, grouped by scaffolding: "all groups at 4, 8 Hz; E+C at 8 Hz".
fn variants_text(pairs: &[(f64, Scaffolding)]) -> String {
    let mut sets: Vec<Scaffolding> = Vec::new();
    for p in pairs {
        if !sets.contains(&p.1) {
            sets.push(p.1);
        }
    }
    sets.sort_by_key(|s| if *s == Scaffolding::ALL { 0 } else { 1 + s.springs_per_voxel() });
    sets.iter()
        .map(|s| {
            let mut fs: Vec<f64> = pairs.iter().filter(|p| p.1 == *s).map(|p| p.0).collect();
            fs.sort_by(f64::total_cmp);
            fs.dedup_by(|a, b| same_fs(*a, *b));
            format!("{} at {}", scaffolding_name(*s), fs_list(&fs))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// All sanity checks, in report order: static scaling, beam theory, static trends, dynamic trends.
pub fn sanity_checks(data: &CantileverData, dynamic: &[DynamicSummary]) -> Vec<SanityCheck> {
    let sizes = sizes(data);
    let mut checks = Vec::new();
    let static_sizes: Vec<(u32, u32)> = {
        let mut s: Vec<_> = data.static_runs.iter().map(|r| (r.w, r.h)).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    for &size in &static_sizes {
        checks.push(static_slope_check(data, size));
    }
    if static_sizes.is_empty() {
        checks.push(SanityCheck::no_data(
            "static_slope".into(),
            "static |δ| ∝ 1/f_s²".into(),
            "slope −2".into(),
            format!("±{SLOPE_TOLERANCE}"),
            "No static runs.",
        ));
    }
    checks.extend(beam_theory_checks(data));
    for &size in &static_sizes {
        checks.push(static_monotonic_check(data, size));
        checks.push(static_scaffolding_order_check(data, size));
    }
    let dynamic_sizes: Vec<(u32, u32)> =
        sizes.iter().copied().filter(|s| dynamic.iter().any(|d| (d.w, d.h) == *s)).collect();
    for &size in &dynamic_sizes {
        checks.extend(dynamic_fs_checks(dynamic, size));
        checks.push(dynamic_scaffolding_check(dynamic, size));
    }
    checks.push(decay_check(dynamic));
    checks
}

fn static_slope_check(data: &CantileverData, size: (u32, u32)) -> SanityCheck {
    let id = format!("static_slope_{}", size_id(size));
    let name = format!("static |δ| ∝ 1/f_s², {}, all groups", size_name(size));
    let predicted = "slope −2".to_string();
    let tolerance = format!("±{SLOPE_TOLERANCE}");
    let pts = static_fs_sweep(&data.static_runs, size);
    let fs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    let runs = format!("{} static runs of {}, all groups, f_s {}", pts.len(), size_name(size), fs_list(&fs));
    let length = size.0 as f64 * data.settings.voxel_side_m;
    let fraction = |d: f64| d.abs() / length;
    let usable: Vec<(f64, f64)> = pts.iter().copied().filter(|p| p.1.is_finite() && p.1 != 0.0).collect();
    let max_rel = usable.iter().fold(0.0f64, |m, p| m.max(fraction(p.1)));
    // Without a beam length every run counts as small.
    let is_small = |p: &&(f64, f64)| length <= 0.0 || fraction(p.1) <= SMALL_DEFLECTION_FRACTION;
    let small: Vec<(f64, f64)> = usable.iter().filter(is_small).copied().collect();
    let large: Vec<(f64, f64)> = usable.iter().filter(|p| !is_small(p)).copied().collect();
    let limit = sig(100.0 * SMALL_DEFLECTION_FRACTION, 2);
    let large_text = || {
        large
            .iter()
            .map(|p| format!("{} Hz: {} %", short(p.0), sig(100.0 * fraction(p.1), 2)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some((slope, r2)) = log_log_slope(&small) else {
        if large.len() >= 2 {
            // Every usable point is a large deflection: the law is not expected to hold.
            let (all_slope, all_r2) = log_log_slope(&usable).unwrap_or((f64::NAN, f64::NAN));
            return SanityCheck {
                id,
                name,
                runs,
                measured: format!(
                    "{} over all {} points (R² {}); not applicable",
                    sig(all_slope, 3),
                    usable.len(),
                    sig(all_r2, 3)
                ),
                predicted,
                tolerance,
                measured_value: None,
                predicted_value: Some(-2.0),
                verdict: Verdict::NoData,
                explanation: format!(
                    "Not applicable: the 1/f_s² law holds for small deflections only, and {} of {} runs deflect more \
                     than {limit} % of the beam length L = {} m ({}), so the slope is expected to deviate.",
                    large.len(),
                    usable.len(),
                    sig(length, 3),
                    large_text()
                ),
            };
        }
        return SanityCheck::no_data(
            id,
            name,
            predicted,
            tolerance,
            "Needs finite, non-zero δ at two or more f_s with all groups.",
        );
    };
    let pass = (slope + 2.0).abs() <= SLOPE_TOLERANCE;
    let regime = if large.is_empty() {
        format!("largest |δ| is {} % of the beam length L = {} m", sig(100.0 * max_rel, 2), sig(length, 3))
    } else {
        format!(
            "fitted over the {} runs with |δ| ≤ {limit} % of the beam length L = {} m; left out, because the 1/f_s² law \
             is not expected to hold at such large deflections: {}",
            small.len(),
            sig(length, 3),
            large_text()
        )
    };
    let explanation = if pass && large.is_empty() {
        format!("Consistent with spring stiffness m_eff·(2π f_s)² in the small-deflection regime ({regime}).")
    } else if pass {
        format!("Consistent with spring stiffness m_eff·(2π f_s)² where deflections are small ({regime}).")
    } else if slope > -2.0 {
        format!(
            "|δ| grows more slowly than 1/f_s² as f_s falls: the implicit springs may not be converged at {} solver \
             iterations, so their effective stiffness is not ∝ f_s², or the beam stiffens geometrically as it bends \
             ({regime}).",
            data.settings.solver_iterations
        )
    } else {
        format!(
            "|δ| grows faster than 1/f_s² as f_s falls: a softening mechanism at low f_s (rotating masses, voxels folding) \
             or a run that had not come to rest ({regime})."
        )
    };
    let used = if large.is_empty() {
        format!("{} points", small.len())
    } else {
        format!("{} of {} points, |δ| ≤ {limit} % of L", small.len(), usable.len())
    };
    SanityCheck {
        id,
        name,
        runs,
        measured: format!("{} (R² {}, {used})", sig(slope, 3), sig(r2, 3)),
        predicted,
        tolerance,
        measured_value: Some(slope),
        predicted_value: Some(-2.0),
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation,
    }
}

/// Size pairs to compare with L³/h³: the canonical two (10×2 vs 5×2, 10×2 vs 10×4) are always listed,
/// plus any other pair present that differs in only one dimension.
fn beam_theory_checks(data: &CantileverData) -> Vec<SanityCheck> {
    let mut present: Vec<(u32, u32)> = data.static_runs.iter().map(|r| (r.w, r.h)).collect();
    present.sort_unstable();
    present.dedup();
    // (softer, stiffer): the first bends more.
    let mut pairs: Vec<((u32, u32), (u32, u32))> = vec![((10, 2), (5, 2)), ((10, 2), (10, 4))];
    for &a in &present {
        for &b in &present {
            let differs_in_one = (a.1 == b.1 && a.0 > b.0) || (a.0 == b.0 && a.1 < b.1);
            if differs_in_one && !pairs.contains(&(a, b)) {
                pairs.push((a, b));
            }
        }
    }
    pairs.into_iter().map(|(a, b)| beam_ratio_check(data, a, b)).collect()
}

fn beam_ratio_check(data: &CantileverData, soft: (u32, u32), stiff: (u32, u32)) -> SanityCheck {
    let predicted_value = (soft.0 as f64 / stiff.0 as f64).powi(3) * (stiff.1 as f64 / soft.1 as f64).powi(3);
    let shear_limit = (soft.0 as f64 / stiff.0 as f64) * (stiff.1 as f64 / soft.1 as f64);
    let id = format!("l3_ratio_{}_{}", size_id(soft), size_id(stiff));
    let name = format!("beam theory |δ({})| / |δ({})|", size_name(soft), size_name(stiff));
    let predicted = format!("{} (L³/h³)", sig(predicted_value, 3));
    let tolerance = format!("±{} %", sig(100.0 * RATIO_TOLERANCE, 2));
    let mut ratios = Vec::new();
    let mut compared: Vec<(f64, Scaffolding)> = Vec::new();
    for r in data.static_runs.iter().filter(|r| (r.w, r.h) == soft) {
        let other = data
            .static_runs
            .iter()
            .find(|o| (o.w, o.h) == stiff && o.scaffolding == r.scaffolding && same_fs(o.fs_hz, r.fs_hz));
        if let Some(o) = other {
            let q = r.dy_final_m.abs() / o.dy_final_m.abs();
            if q.is_finite() && q > 0.0 {
                ratios.push(q);
                compared.push((r.fs_hz, r.scaffolding));
            }
        }
    }
    if ratios.is_empty() {
        let mut c = SanityCheck::no_data(
            id,
            name,
            predicted,
            tolerance,
            "Needs static runs of both sizes at the same f_s and scaffolding.",
        );
        c.predicted_value = Some(predicted_value);
        return c;
    }
    let runs = format!(
        "static runs of {} and {} in pairs at the same f_s and scaffolding: {}",
        size_name(soft),
        size_name(stiff),
        variants_text(&compared)
    );
    let mean = (ratios.iter().map(|q| q.ln()).sum::<f64>() / ratios.len() as f64).exp();
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(l, h), q| (l.min(*q), h.max(*q)));
    let deviation = mean / predicted_value - 1.0;
    let pass = deviation.abs() <= RATIO_TOLERANCE;
    // The stiffer beam of a pair is the shorter or the thicker one: the one with more shear.
    let thick = stiff;
    let aspect = thick.0 as f64 / thick.1 as f64;
    let explanation = if pass {
        format!(
            "Within {} % of slender-beam theory (deviation {} %).",
            sig(100.0 * RATIO_TOLERANCE, 2),
            sig(100.0 * deviation, 2)
        )
    } else if deviation < 0.0 {
        format!(
            "{} % below L³/h³: the {} beam is short and thick (L/h = {}), so shear deformation, which grows only as L/h, \
             adds a large share to its deflection; a pure-shear beam would give {}. Expected for such aspect ratios.",
            sig(-100.0 * deviation, 2),
            size_name(thick),
            sig(aspect, 2),
            sig(shear_limit, 2)
        )
    } else {
        format!(
            "{} % above L³/h³: the {} beam is softer than linear bending theory predicts; look for large deflections \
             (non-linear regime) or a softening mechanism in the longer/thinner beam.",
            sig(100.0 * deviation, 2),
            size_name(soft)
        )
    };
    SanityCheck {
        id,
        name,
        runs,
        measured: if ratios.len() == 1 || hi / lo < 1.0005 {
            format!("{} ({} pair{})", sig(mean, 3), ratios.len(), if ratios.len() == 1 { "" } else { "s" })
        } else {
            format!("{} (range {}–{}, {} pairs)", sig(mean, 3), sig(lo, 3), sig(hi, 3), ratios.len())
        },
        predicted,
        tolerance,
        measured_value: Some(mean),
        predicted_value: Some(predicted_value),
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation,
    }
}

/// A sequence along f_s, sorted by f_s: (f_s, value).
struct Trend<'a> {
    id: String,
    name: String,
    runs: String,
    predicted: &'a str,
    points: Vec<(f64, f64)>,
    decreasing: bool,
    pass_text: &'a str,
    flag_text: &'a str,
}

fn monotonic_check(t: Trend<'_>) -> SanityCheck {
    let steps = t.points.len().saturating_sub(1);
    if steps == 0 {
        let mut c =
            SanityCheck::no_data(t.id, t.name, t.predicted.into(), "every step".into(), "Needs two or more f_s.");
        c.runs = t.runs;
        return c;
    }
    let bad: Vec<String> = t
        .points
        .windows(2)
        .filter(|w| !(if t.decreasing { w[1].1 < w[0].1 } else { w[1].1 > w[0].1 }))
        .map(|w| format!("{} → {} Hz", short(w[0].0), short(w[1].0)))
        .collect();
    let ok = steps - bad.len();
    let pass = bad.is_empty();
    SanityCheck {
        id: t.id,
        name: t.name,
        runs: t.runs,
        measured: if pass {
            format!("{ok} of {steps} steps")
        } else {
            format!("{ok} of {steps} steps; not at {}", bad.join(", "))
        },
        predicted: t.predicted.into(),
        tolerance: "every step".into(),
        measured_value: Some(ok as f64 / steps as f64),
        predicted_value: Some(1.0),
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation: if pass {
            t.pass_text.into()
        } else {
            format!("Fails at the step{} {}. {}", if bad.len() == 1 { "" } else { "s" }, bad.join(", "), t.flag_text)
        },
    }
}

fn static_monotonic_check(data: &CantileverData, size: (u32, u32)) -> SanityCheck {
    let points: Vec<(f64, f64)> = static_fs_sweep(&data.static_runs, size).iter().map(|p| (p.0, p.1.abs())).collect();
    let fs: Vec<f64> = points.iter().map(|p| p.0).collect();
    monotonic_check(Trend {
        id: format!("static_trend_fs_{}", size_id(size)),
        name: format!("static |δ| falls as f_s rises, {}", size_name(size)),
        runs: format!("static runs of {}, all groups, f_s {}", size_name(size), fs_list(&fs)),
        predicted: "|δ| decreases at every step",
        points,
        decreasing: true,
        pass_text: "Stiffer springs bend the beam less.",
        flag_text: "|δ| does not decrease there: look for a run that diverged, did not settle, or deflected into a \
                    non-linear regime.",
    })
}

fn static_scaffolding_order_check(data: &CantileverData, size: (u32, u32)) -> SanityCheck {
    let id = format!("static_scaffolding_{}", size_id(size));
    let non_all =
        data.static_runs.iter().filter(|r| (r.w, r.h) == size && r.scaffolding != Scaffolding::ALL).map(|r| r.fs_hz);
    let fs = scaffolding_sweep_fs(non_all);
    let name = match fs {
        Some(f) => format!("static stiffness order of scaffoldings, {} at {} Hz", size_name(size), short(f)),
        None => format!("static stiffness order of scaffoldings, {}", size_name(size)),
    };
    let predicted = "E+C bends most, all least";
    let Some(fs) = fs else {
        return SanityCheck::no_data(
            id,
            name,
            predicted.into(),
            "strict order".into(),
            "No static runs with other scaffoldings than all.",
        );
    };
    let sweep: Vec<(Scaffolding, f64)> =
        static_scaffolding_sweep(&data.static_runs, size, fs).into_iter().filter(|p| p.1.is_finite()).collect();
    let has = |s: Scaffolding| sweep.iter().any(|p| p.0 == s);
    let runs = format!(
        "static runs of {} at f_s {} Hz: {}",
        size_name(size),
        short(fs),
        sweep.iter().map(|p| p.0.to_string()).collect::<Vec<_>>().join(", ")
    );
    if !has(Scaffolding::EC) || !has(Scaffolding::ALL) {
        let mut c = SanityCheck::no_data(
            id,
            name,
            predicted.into(),
            "strict order".into(),
            "Needs E+C and all at the same f_s.",
        );
        c.runs = runs;
        return c;
    }
    let mut order = sweep.clone();
    order.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let measured = order.iter().map(|p| p.0.to_string()).collect::<Vec<_>>().join(" > ");
    let pass = order[0].0 == Scaffolding::EC && order[order.len() - 1].0 == Scaffolding::ALL;
    SanityCheck {
        id,
        name,
        runs,
        measured: format!("|δ|: {measured}"),
        predicted: predicted.into(),
        tolerance: "strict order".into(),
        measured_value: None,
        predicted_value: None,
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation: if pass {
            "More spring groups per voxel make the beam stiffer.".into()
        } else {
            "The set with the most springs should be stiffest and E+C (6 springs) softest: check the group wiring and anchors.".into()
        },
    }
}

/// The all-groups dynamic runs of one size, sorted by f_s, first per f_s.
fn dynamic_all_groups(dynamic: &[DynamicSummary], size: (u32, u32)) -> Vec<&DynamicSummary> {
    let mut out: Vec<&DynamicSummary> = Vec::new();
    for d in dynamic.iter().filter(|d| (d.w, d.h) == size && d.scaffolding == Scaffolding::ALL) {
        if d.fs_hz.is_finite() && !out.iter().any(|o| same_fs(o.fs_hz, d.fs_hz)) {
            out.push(d);
        }
    }
    out.sort_by(|a, b| a.fs_hz.total_cmp(&b.fs_hz));
    out
}

/// "10×4, f_s 30 Hz, all groups: no period detected: …" for each run without a period.
fn without_period(runs: &[&DynamicSummary]) -> Vec<String> {
    runs.iter()
        .filter(|d| d.figures.as_ref().is_none_or(|f| f.period_s.is_none()))
        .map(|d| format!("{}: {}", d.run_name(), d.behaviour()))
        .collect()
}

fn dynamic_fs_checks(dynamic: &[DynamicSummary], size: (u32, u32)) -> Vec<SanityCheck> {
    let sweep = dynamic_all_groups(dynamic, size);
    let all_fs: Vec<f64> = sweep.iter().map(|d| d.fs_hz).collect();
    let runs = format!("dynamic runs of {}, all groups, f_s {}", size_name(size), fs_list(&all_fs));
    let peaks: Vec<(f64, f64)> =
        sweep.iter().filter_map(|d| d.figures.as_ref().map(|f| (d.fs_hz, f.peak_abs_m))).collect();
    let with_period: Vec<(f64, f64)> =
        sweep.iter().filter_map(|d| d.figures.as_ref().and_then(|f| f.period_s).map(|t| (d.fs_hz, t))).collect();
    let missing = without_period(&sweep);
    let missing_text = if missing.is_empty() {
        String::new()
    } else {
        format!(" Left out for want of a period: {}.", missing.join("; "))
    };
    let mut period_trend = monotonic_check(Trend {
        id: format!("dynamic_period_fs_{}", size_id(size)),
        name: format!("dynamic period grows as f_s falls, {}", size_name(size)),
        runs: runs.clone(),
        predicted: "period decreases at every step up in f_s",
        points: with_period.clone(),
        decreasing: true,
        pass_text: "Softer springs oscillate more slowly.",
        flag_text: "The period does not shorten there: the oscillation may be too damped to time, or aliased at dt.",
    });
    if !missing.is_empty() {
        period_trend.explanation.push_str(&missing_text);
    }
    let mut out = vec![
        monotonic_check(Trend {
            id: format!("dynamic_peak_fs_{}", size_id(size)),
            name: format!("dynamic peak |δ| falls as f_s rises, {}", size_name(size)),
            runs: runs.clone(),
            predicted: "peak decreases at every step",
            points: peaks,
            decreasing: true,
            pass_text: "The same impulse moves a stiffer beam less.",
            flag_text: "The peak does not fall there: check for diverged or clipped runs.",
        }),
        period_trend,
    ];
    let id = format!("dynamic_period_const_{}", size_id(size));
    let name = format!("dynamic period·f_s constant, {}", size_name(size));
    let tolerance = format!("CV ≤ {} %", sig(100.0 * PERIOD_FS_CV_TOLERANCE, 2));
    if with_period.len() < 2 {
        let why = format!("Needs a detectable period at two or more f_s.{missing_text}");
        let mut c = SanityCheck::no_data(id, name, "constant".into(), tolerance, &why);
        c.runs = runs;
        out.push(c);
        return out;
    }
    let products: Vec<f64> = with_period.iter().map(|(f, t)| f * t).collect();
    let n = products.len() as f64;
    let mean = products.iter().sum::<f64>() / n;
    let sd = (products.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / n).sqrt();
    let cv = sd / mean;
    let slope = log_log_slope(&with_period).map(|s| s.0);
    let pass = cv <= PERIOD_FS_CV_TOLERANCE;
    let worst = with_period
        .iter()
        .zip(&products)
        .max_by(|a, b| (a.1 - mean).abs().total_cmp(&(b.1 - mean).abs()))
        .map(|((f, _), p)| format!("{} Hz (T·f_s = {})", short(*f), sig(*p, 3)))
        .unwrap_or_default();
    out.push(SanityCheck {
        id,
        name,
        runs,
        measured: format!(
            "T·f_s = {} (CV {} %{})",
            sig(mean, 3),
            sig(100.0 * cv, 2),
            slope.map(|s| format!(", slope of ln T vs ln f_s {}", sig(s, 3))).unwrap_or_default()
        ),
        predicted: "constant (T ∝ 1/f_s)".into(),
        tolerance,
        measured_value: Some(cv),
        predicted_value: Some(0.0),
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation: if pass {
            format!("Every spring's ω scales with f_s, so the beam's natural frequency does too.{missing_text}")
        } else {
            format!(
                "The period does not scale as 1/f_s (furthest from the mean: {worst}): at high f_s the step dt may be \
                 too coarse for the implicit springs (numerical damping, fewer than ~10 samples per period), or damping \
                 changes the apparent period at low f_s.{missing_text}"
            )
        },
    });
    out
}

fn dynamic_scaffolding_check(dynamic: &[DynamicSummary], size: (u32, u32)) -> SanityCheck {
    let id = format!("dynamic_scaffolding_{}", size_id(size));
    let non_all = dynamic.iter().filter(|d| (d.w, d.h) == size && d.scaffolding != Scaffolding::ALL).map(|d| d.fs_hz);
    let fs = scaffolding_sweep_fs(non_all);
    let name = format!("dynamic all vs E+C, {}", size_name(size));
    let predicted = "all: smaller peak and shorter period";
    let tolerance = "both ratios < 1";
    let find = |s: Scaffolding| {
        fs.and_then(|fs| dynamic.iter().find(|d| (d.w, d.h) == size && d.scaffolding == s && same_fs(d.fs_hz, fs)))
    };
    let (Some(all_run), Some(ec_run)) = (find(Scaffolding::ALL), find(Scaffolding::EC)) else {
        return SanityCheck::no_data(
            id,
            name,
            predicted.into(),
            tolerance.into(),
            "Needs dynamic runs with all and E+C at the same f_s.",
        );
    };
    let runs = format!("dynamic runs {} and {}", all_run.run_name(), ec_run.run_name());
    let (Some(all), Some(ec)) = (all_run.figures.as_ref(), ec_run.figures.as_ref()) else {
        let missing = without_period(&[all_run, ec_run]);
        let mut c = SanityCheck::no_data(
            id,
            name,
            predicted.into(),
            tolerance.into(),
            &format!("No finite record: {}.", missing.join("; ")),
        );
        c.runs = runs;
        return c;
    };
    let peak_ratio = all.peak_abs_m / ec.peak_abs_m;
    let period_ratio = match (all.period_s, ec.period_s) {
        (Some(a), Some(e)) => Some(a / e),
        _ => None,
    };
    let pass = peak_ratio < 1.0 && period_ratio.is_some_and(|r| r < 1.0);
    SanityCheck {
        id,
        name: format!("{name} at {} Hz", short(fs.unwrap_or(f64::NAN))),
        runs,
        measured: format!(
            "peak ×{}, period ×{}",
            sig(peak_ratio, 3),
            period_ratio.map(|r| sig(r, 3)).unwrap_or_else(|| "n/a".into())
        ),
        predicted: predicted.into(),
        tolerance: tolerance.into(),
        measured_value: Some(peak_ratio),
        predicted_value: None,
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation: if pass {
            "18 springs per voxel make a stiffer beam than 6: it moves less and oscillates faster.".into()
        } else if period_ratio.is_none() {
            format!("A period could not be detected: {}.", without_period(&[all_run, ec_run]).join("; "))
        } else {
            "All groups should be stiffer than E+C: check the group wiring, or whether one run diverged.".into()
        },
    }
}

fn decay_check(dynamic: &[DynamicSummary]) -> SanityCheck {
    let id = "dynamic_decay".to_string();
    let name = "dynamic oscillations decay".to_string();
    if dynamic.is_empty() {
        return SanityCheck::no_data(id, name, "every run decays".into(), "every run".into(), "No dynamic runs.");
    }
    // A run decays when its peaks shrink, or when it comes to rest within the record without a period
    // (an overdamped return).
    let decays = |d: &DynamicSummary| {
        d.figures.as_ref().is_some_and(|f| {
            f.oscillation == Oscillation::Decaying || (f.oscillation == Oscillation::NoPeriod && f.settling_s.is_some())
        })
    };
    let decaying = dynamic.iter().filter(|d| decays(d)).count();
    let others: Vec<&DynamicSummary> = dynamic.iter().filter(|d| !decays(d)).collect();
    let pass = others.is_empty();
    let unstable =
        others.iter().filter(|d| d.figures.as_ref().is_none_or(|f| f.oscillation == Oscillation::Growing)).count();
    SanityCheck {
        id,
        name,
        runs: if pass {
            format!("all {} dynamic runs", dynamic.len())
        } else {
            others.iter().map(|d| d.run_name()).collect::<Vec<_>>().join("; ")
        },
        measured: format!(
            "{decaying} of {} runs decay{}",
            dynamic.len(),
            if unstable > 0 { format!("; {unstable} grow or diverge") } else { String::new() }
        ),
        predicted: "every run decays".into(),
        tolerance: "every run".into(),
        measured_value: Some(decaying as f64 / dynamic.len() as f64),
        predicted_value: Some(1.0),
        verdict: if pass { Verdict::Pass } else { Verdict::Flag },
        explanation: if pass {
            "Spring damping (and body damping) dissipate the impulse.".into()
        } else {
            let list = others.iter().map(|d| format!("{}: {}", d.run_name(), d.behaviour())).collect::<Vec<_>>();
            let cause = if unstable > 0 {
                " A growing or diverging oscillation means a numerical instability (try a smaller dt or more solver \
                 iterations)."
            } else {
                " None of them grows or diverges."
            };
            format!("Not every run is seen to decay: {}.{cause}", list.join("; "))
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::cantilever::data::ReportSettings;
    use std::f64::consts::PI;

    fn damped_sine(a: f64, zeta: f64, f: f64, dt: f64, duration: f64) -> Vec<f64> {
        let wn = 2.0 * PI * f;
        let wd = wn * (1.0 - zeta * zeta).sqrt();
        let n = (duration / dt).round() as usize + 1;
        (0..n)
            .map(|k| {
                let t = k as f64 * dt;
                -a * (-zeta * wn * t).exp() * (wd * t).sin()
            })
            .collect()
    }

    #[test]
    fn damped_sine_gives_its_period_decay_and_settling_time() {
        let (a, zeta, f, dt) = (0.5, 0.04, 1.3, 1.0 / 60.0);
        let dy = damped_sine(a, zeta, f, dt, 15.0);
        let fig = series_figures(&dy, dt).unwrap();
        let wn = 2.0 * PI * f;
        let td = 2.0 * PI / (wn * (1.0 - zeta * zeta).sqrt());
        let period = fig.period_s.unwrap();
        assert!((period / td - 1.0).abs() < 0.01, "period {period} vs {td}");
        let expected_ratio = (-zeta * wn * td).exp();
        let ratio = fig.decay_ratio.unwrap();
        assert!((ratio / expected_ratio - 1.0).abs() < 0.02, "decay {ratio} vs {expected_ratio}");
        assert!((fig.damping_ratio.unwrap() - zeta).abs() < 0.002);

        // Analytic settling: the last time |f(t)| exceeds 5 % of the peak, found on a 100× finer grid
        // and refined by bisection.
        let func = |t: f64| -a * (-zeta * wn * t).exp() * (wn * (1.0 - zeta * zeta).sqrt() * t).sin();
        let peak = fig.peak_abs_m;
        let band = SETTLING_FRACTION * (peak + fig.level_m.abs());
        let fine = dt / 100.0;
        let last = (0..1_500_000).rev().map(|i| i as f64 * fine).find(|t| func(*t).abs() > band).unwrap();
        let (mut lo, mut hi) = (last, last + fine);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if func(mid).abs() > band {
                lo = mid
            } else {
                hi = mid
            }
        }
        let settling = fig.settling_s.unwrap();
        assert!((settling - lo).abs() <= 2.0 * dt, "settling {settling} vs analytic {lo}");

        // First extremum of e^{−ζω_n t}·sin(ω_d t): tan(ω_d t) = ω_d/(ζ ω_n).
        let wd = wn * (1.0 - zeta * zeta).sqrt();
        let tp = (wd / (zeta * wn)).atan() / wd;
        assert!((fig.peak_t_s - tp).abs() <= dt, "peak time {} vs {tp}", fig.peak_t_s);
        assert!((fig.peak_abs_m / func(tp).abs() - 1.0).abs() < 1e-3, "peak {} vs {}", fig.peak_abs_m, func(tp).abs());
    }

    #[test]
    fn record_ending_mid_oscillation_is_measured_about_its_true_level() {
        // 2.4 periods of a slow, barely damped oscillation about −0.3 m: the tail mean would be far off.
        let (a, zeta, f, dt) = (1.0, 0.03, 0.16, 1.0 / 60.0);
        let dy: Vec<f64> = damped_sine(a, zeta, f, dt, 15.0).into_iter().map(|v| v - 0.3).collect();
        let fig = series_figures(&dy, dt).unwrap();
        assert!((fig.level_m + 0.3).abs() < 0.01, "level {}", fig.level_m);
        let wn = 2.0 * PI * f;
        let td = 2.0 * PI / (wn * (1.0 - zeta * zeta).sqrt());
        assert!((fig.period_s.unwrap() / td - 1.0).abs() < 0.01);
        let expected_ratio = (-zeta * wn * td).exp();
        assert!(
            (fig.decay_ratio.unwrap() / expected_ratio - 1.0).abs() < 0.02,
            "{:?} vs {expected_ratio}",
            fig.decay_ratio
        );
        assert_eq!(fig.settling_s, None, "still oscillating at the end of the record");
    }

    #[test]
    fn record_ending_near_a_slow_peak_is_not_taken_as_settled() {
        // The last 0.75 s sit on a broad crest: flat, but not at rest.
        let (zeta, f, dt) = (0.06, 0.32 / 1.6f64.sqrt(), 1.0 / 60.0);
        let fig = series_figures(&damped_sine(1.0, zeta, f, dt, 15.0), dt).unwrap();
        assert!(fig.level_m.abs() < 0.01, "level {}", fig.level_m);
        let wn = 2.0 * PI * f;
        let expected_ratio = (-zeta * wn * 2.0 * PI / (wn * (1.0 - zeta * zeta).sqrt())).exp();
        assert!((fig.decay_ratio.unwrap() / expected_ratio - 1.0).abs() < 0.02);
        assert_eq!(fig.settling_s, None);
    }

    #[test]
    fn strongly_damped_record_that_comes_to_rest_keeps_its_level_and_period() {
        // ζ = 0.456: each half-cycle peak is a fifth of the previous one, so only the first two are
        // confirmed extremes and the level is crossed only twice beyond the hysteresis.
        let (zeta, fd, dt): (f64, f64, f64) = (0.456, 1.0 / 6.2, 1.0 / 60.0);
        let f = fd / (1.0 - zeta * zeta).sqrt();
        let fig = series_figures(&damped_sine(8.0, zeta, f, dt, 15.0), dt).unwrap();
        assert!(fig.level_m.abs() < 0.01, "level {}", fig.level_m);
        let period = fig.period_s.expect("two crossings of a record that starts at rest give the period");
        assert!((period * fd - 1.0).abs() < 0.02, "period {period} vs {}", 1.0 / fd);
        assert_eq!(fig.oscillation, Oscillation::Decaying);
    }

    #[test]
    fn step_response_settles_at_its_final_value() {
        // Under a constant load: δ(t) = δ_f·(1 − e^{−ζωt}(cos ω_d t + …)), approximated here.
        let dt = 0.01;
        let dy: Vec<f64> = (0..3000)
            .map(|k| {
                let t = k as f64 * dt;
                -0.2 * (1.0 - (-0.8 * t).exp() * (2.0 * PI * 0.9 * t).cos())
            })
            .collect();
        let fig = series_figures(&dy, dt).unwrap();
        assert!((fig.level_m + 0.2).abs() < 1e-6);
        assert!((fig.period_s.unwrap() - 1.0 / 0.9).abs() < 0.01);
        let settling = fig.settling_s.unwrap();
        // |δ − δ_f| ≤ 0.05·0.2 once e^{−0.8 t} ≤ 0.05 at a cosine peak: t ≈ ln(20)/0.8 = 3.74 s.
        assert!(settling > 3.0 && settling < 3.8, "{settling}");
    }

    #[test]
    fn no_oscillation_and_bad_series_are_handled() {
        let dt = 0.01;
        let ramp: Vec<f64> = (0..500).map(|k| -(1.0 - (-(k as f64) * dt * 3.0).exp())).collect();
        let fig = series_figures(&ramp, dt).unwrap();
        assert_eq!(fig.period_s, None);
        assert_eq!(fig.decay_ratio, None);
        assert!(fig.settling_s.unwrap() > 0.9);

        let growing: Vec<f64> = (0..600).map(|k| (k as f64 * 0.05).exp() * (k as f64 * 0.3).sin()).collect();
        let fig = series_figures(&growing, dt).unwrap();
        assert_eq!(fig.settling_s, None, "a growing oscillation never settles");
        assert!(fig.decay_ratio.unwrap() > 1.0);

        assert!(series_figures(&[], dt).is_none());
        assert!(series_figures(&[0.0, f64::NAN], dt).is_none());
        assert!(series_figures(&[0.0, 1.0], 0.0).is_none());
        let flat = series_figures(&[0.0; 10], dt).unwrap();
        assert_eq!((flat.period_s, flat.settling_s, flat.peak_abs_m), (None, Some(0.0), 0.0));
    }

    #[test]
    fn slope_of_an_inverse_square_sweep_is_minus_two() {
        let pts: Vec<(f64, f64)> =
            [4.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0].iter().map(|f| (*f, -3.7 / (f * f))).collect();
        let (slope, r2) = log_log_slope(&pts).unwrap();
        assert!((slope + 2.0).abs() < 1e-12);
        assert!((r2 - 1.0).abs() < 1e-12);
        assert!(log_log_slope(&pts[..1]).is_none());
        assert!(log_log_slope(&[(8.0, 1.0), (8.0, 2.0)]).is_none());
    }

    #[test]
    fn sig_formats_four_significant_digits() {
        assert_eq!(sig(-12.3456, 4), "−12.35");
        assert_eq!(sig(0.00123456, 4), "0.001235");
        assert_eq!(sig(1234567.0, 4), "1.235e6");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(f64::NAN, 4), "NaN");
        assert_eq!(sig(8.0, 3), "8.00");
    }

    fn settings() -> ReportSettings {
        ReportSettings {
            version: "test".into(),
            solver_iterations: 4,
            convergence_note: String::new(),
            ..ReportSettings::default()
        }
    }

    fn sweep(exponent: f64, ratio_5: f64) -> CantileverData {
        let mut static_runs = Vec::new();
        for (w, h, c) in [(5u32, 2u32, 1.0 / ratio_5), (10, 2, 1.0), (10, 4, 1.0 / 8.0)] {
            for fs in [4.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0] {
                static_runs.push(StaticRun {
                    w,
                    h,
                    fs_hz: fs,
                    scaffolding: Scaffolding::ALL,
                    force_n: 30.0,
                    dy_final_m: -50.0 * c * fs.powf(-exponent),
                });
            }
            for (s, k) in [(Scaffolding::EC, 2.0), (Scaffolding::EIC, 1.5), (Scaffolding::EIX, 1.2)] {
                static_runs.push(StaticRun {
                    w,
                    h,
                    fs_hz: 8.0,
                    scaffolding: s,
                    force_n: 30.0,
                    dy_final_m: -50.0 * c * k * 8f64.powf(-exponent),
                });
            }
        }
        CantileverData { settings: settings(), static_runs, dynamic_runs: vec![], reference_runs: None }
    }

    fn verdict(checks: &[SanityCheck], id: &str) -> Verdict {
        checks.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no check {id}")).verdict
    }

    #[test]
    fn inverse_square_sweep_passes_and_wrong_slope_is_flagged() {
        let good = analyse(&sweep(2.0, 8.0));
        for id in
            ["static_slope_5x2", "static_slope_10x2", "static_slope_10x4", "l3_ratio_10x2_5x2", "l3_ratio_10x2_10x4"]
        {
            assert_eq!(verdict(&good.sanity, id), Verdict::Pass, "{id}");
        }
        assert_eq!(verdict(&good.sanity, "static_scaffolding_10x2"), Verdict::Pass);
        assert_eq!(verdict(&good.sanity, "static_trend_fs_10x4"), Verdict::Pass);
        assert_eq!(verdict(&good.sanity, "dynamic_decay"), Verdict::NoData);

        let bad = analyse(&sweep(1.0, 3.0));
        assert_eq!(verdict(&bad.sanity, "static_slope_10x2"), Verdict::Flag);
        let ratio = bad.sanity.iter().find(|c| c.id == "l3_ratio_10x2_5x2").unwrap();
        assert_eq!(ratio.verdict, Verdict::Flag);
        assert!((ratio.measured_value.unwrap() - 3.0).abs() < 1e-9);
        assert!(ratio.explanation.contains("shear"), "{}", ratio.explanation);
    }

    #[test]
    fn empty_data_gives_no_data_checks() {
        let a = analyse(&CantileverData {
            settings: settings(),
            static_runs: vec![],
            dynamic_runs: vec![],
            reference_runs: None,
        });
        assert!(a.sanity.iter().all(|c| c.verdict == Verdict::NoData));
        assert_eq!(a.summary.pass + a.summary.flag, 0);
        assert!(a.summary.no_data >= 3);
    }

    #[test]
    fn dynamic_checks_follow_the_period_scaling() {
        let dt = 1.0 / 60.0;
        let mut dynamic_runs = Vec::new();
        for fs in [4.0, 8.0, 15.0, 30.0] {
            // Beam frequency ∝ f_s, amplitude ∝ 1/f_s.
            dynamic_runs.push(DynamicRun {
                w: 10,
                h: 2,
                fs_hz: fs,
                scaffolding: Scaffolding::ALL,
                force_n: 800.0,
                impulse_steps: 6,
                dt,
                dy_m: damped_sine(4.0 / fs, 0.05, 0.05 * fs, dt, 15.0),
            });
        }
        dynamic_runs.push(DynamicRun {
            w: 10,
            h: 2,
            fs_hz: 8.0,
            scaffolding: Scaffolding::EC,
            force_n: 800.0,
            impulse_steps: 6,
            dt,
            dy_m: damped_sine(0.8, 0.05, 0.3, dt, 15.0),
        });
        let a =
            analyse(&CantileverData { settings: settings(), static_runs: vec![], dynamic_runs, reference_runs: None });
        for id in [
            "dynamic_peak_fs_10x2",
            "dynamic_period_fs_10x2",
            "dynamic_period_const_10x2",
            "dynamic_scaffolding_10x2",
            "dynamic_decay",
        ] {
            assert_eq!(verdict(&a.sanity, id), Verdict::Pass, "{id}: {:?}", a.sanity.iter().find(|c| c.id == id));
        }
    }
}
