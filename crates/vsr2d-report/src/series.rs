//! Generic analysis of a sampled time series δ(t_k), t_k = k·dt: rest level, peak, settling time,
//! level crossings and period, peak decay and damping ratio, and whether an oscillation decays.
//!
//! Pure functions of the samples: no physics, no files, no knowledge of what was simulated. Bad data
//! (empty, NaN from a diverged run, dt ≤ 0) never panics; it yields `None`.

use serde::{Deserialize, Serialize};

/// Settling band: |δ − δ_final| must stay within this fraction of the peak excursion.
pub const SETTLING_FRACTION: f64 = 0.05;
/// Hysteresis of the level-crossing detector, as a fraction of the peak excursion, so numerical noise
/// around the rest level does not count as oscillation.
pub const CROSSING_HYSTERESIS: f64 = 0.02;
/// Fraction of the record (at least one sample) whose mean is taken as the rest level δ_final.
pub const TAIL_FRACTION: f64 = 0.05;
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

/// A damped sine −a·e^{−ζω_n t}·sin(ω_d t) sampled at dt, for the tests of this and other modules.
#[cfg(test)]
pub(crate) fn damped_sine(a: f64, zeta: f64, f: f64, dt: f64, duration: f64) -> Vec<f64> {
    use std::f64::consts::PI;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

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
}
