//! vsr2d's `legacy-1.0` runs against the measurements of the original 2D-VSR-Sim 1.0.0: one row per
//! compared figure (the final static δ of every static run; the first peak and the period of every
//! dynamic run, against the original as released and against it run to convergence), its relative
//! error and whether it is within ±[`TOLERANCE_PCT`] %.
//!
//! A pure function of the data and the embedded reference: no physics, no files.

use serde::{Deserialize, Serialize};

use super::data::ReferenceRuns;
use super::reference::{DynamicReference, Reference, CONVERGED_VELOCITY_ITERATIONS, ORIGINAL};
use super::select::run_order;
use crate::series::series_figures;
use vsr2d::format::short;
use vsr2d::model::voxel::scaffolding::Scaffolding;

/// A figure agrees with the original when its relative error is within ± this many percent.
pub const TOLERANCE_PCT: f64 = 10.0;

/// What a row compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// δ at the end of the static run (m).
    StaticDeflection,
    /// The first peak of a dynamic run: the smallest δ of the record (m).
    FirstPeak,
    /// When the first peak comes (s).
    FirstPeakTime,
    /// When the first overshoot comes (s): the first local maximum of δ after the first peak.
    FirstOvershootTime,
    /// The period of a dynamic run (s), from the level crossings of the record.
    Period,
}

impl Quantity {
    /// The name used in the report's table.
    pub fn label(self) -> &'static str {
        match self {
            Quantity::StaticDeflection => "static δ",
            Quantity::FirstPeak => "dynamic first peak (min δ)",
            Quantity::FirstPeakTime => "dynamic first peak time",
            Quantity::FirstOvershootTime => "dynamic first overshoot time",
            Quantity::Period => "dynamic period T",
        }
    }

    /// The name used in the CSV's `quantity` column.
    pub fn key(self) -> &'static str {
        match self {
            Quantity::StaticDeflection => "static_dy",
            Quantity::FirstPeak => "first_peak_dy",
            Quantity::FirstPeakTime => "first_peak_t",
            Quantity::FirstOvershootTime => "first_overshoot_t",
            Quantity::Period => "period",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Quantity::StaticDeflection | Quantity::FirstPeak => "m",
            _ => "s",
        }
    }

    pub fn is_static(self) -> bool {
        self == Quantity::StaticDeflection
    }
}

/// Which run of the original a row compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OriginalRun {
    /// The released code as it is (dyn4j's 10 velocity iterations).
    Released,
    /// The same code run to convergence ([`CONVERGED_VELOCITY_ITERATIONS`]).
    Converged,
}

/// One compared figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonRow {
    pub quantity: Quantity,
    pub original_run: OriginalRun,
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    /// The original's figure (m or s); `None` when it cannot be derived from its record.
    pub original: Option<f64>,
    /// vsr2d `legacy-1.0`'s figure; `None` when the run diverged or has no detectable period.
    pub vsr2d: Option<f64>,
    /// 100·(vsr2d − original)/original: negative for a smaller |δ| or a shorter period.
    pub relative_error_pct: Option<f64>,
    /// |relative error| ≤ [`TOLERANCE_PCT`]; false when either figure is missing.
    pub within_tolerance: bool,
}

impl ComparisonRow {
    /// The CSV's `quantity`: the quantity's key, with `_original_converged` against the converged run.
    pub fn key(&self) -> String {
        match self.original_run {
            OriginalRun::Released => self.quantity.key().to_string(),
            OriginalRun::Converged => format!("{}_original_converged", self.quantity.key()),
        }
    }

    /// The table's quantity column, with its unit.
    pub fn label(&self) -> String {
        let against = match self.original_run {
            OriginalRun::Released => "",
            OriginalRun::Converged => ", original converged",
        };
        format!("{}{against} ({})", self.quantity.label(), self.quantity.unit())
    }
}

/// Counts for the verdict line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ComparisonSummary {
    pub static_within: usize,
    pub static_total: usize,
    pub dynamic_within: usize,
    pub dynamic_total: usize,
    /// The dynamic figures against the original run to convergence.
    pub converged_within: usize,
    pub converged_total: usize,
}

/// Everything the report's comparison section states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Preset of the vsr2d runs (`legacy-1.0`).
    pub preset: String,
    pub tolerance_pct: f64,
    pub rows: Vec<ComparisonRow>,
    pub summary: ComparisonSummary,
}

/// The verdict's colour: all compared figures within the tolerance, some outside, or nothing compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComparisonStatus {
    AllWithin,
    SomeOutside,
    NotCompared,
}

impl Comparison {
    pub fn status(&self) -> ComparisonStatus {
        let s = self.summary;
        if self.rows.is_empty() {
            ComparisonStatus::NotCompared
        } else if s.static_within == s.static_total
            && s.dynamic_within == s.dynamic_total
            && s.converged_within == s.converged_total
        {
            ComparisonStatus::AllWithin
        } else {
            ComparisonStatus::SomeOutside
        }
    }

    /// One line for the top of the report, e.g. "Against the original 2D-VSR-Sim 1.0.0: 27 of 30
    /// static runs and 3 of 4 dynamic figures within ±10 % (legacy-1.0 preset)".
    pub fn verdict_line(&self) -> String {
        let s = self.summary;
        let tol = short(self.tolerance_pct);
        let mut parts = Vec::new();
        if s.static_total > 0 {
            parts.push(format!("{} of {} static runs", s.static_within, s.static_total));
        }
        if s.dynamic_total > 0 {
            parts.push(format!("{} of {} dynamic figures", s.dynamic_within, s.dynamic_total));
        }
        if parts.is_empty() {
            return format!(
                "Against the original {ORIGINAL}: no run of this sweep is among the runs the original was measured on \
                 (sizes 5×2, 10×2, 10×4; f_s 4–30 Hz with all groups, scaffolding sets at 8 Hz; dynamic 10×4 at 8–30 Hz)"
            );
        }
        let converged = if s.converged_total > 0 {
            format!(
                "; run to convergence ({CONVERGED_VELOCITY_ITERATIONS} velocity iterations), {} of {} of its figures",
                s.converged_within, s.converged_total
            )
        } else {
            String::new()
        };
        format!(
            "Against the original {ORIGINAL}: {} within ±{tol} %{converged} ({} preset)",
            parts.join(" and "),
            self.preset
        )
    }
}

/// The line shown when the comparison was skipped.
pub fn skipped_line() -> String {
    format!("Against the original {ORIGINAL}: not compared (the report was made with --no-reference)")
}

/// 100·(v − o)/o, `None` when either is missing or o is 0.
pub fn relative_error_pct(original: Option<f64>, vsr2d: Option<f64>) -> Option<f64> {
    match (original, vsr2d) {
        (Some(o), Some(v)) if o != 0.0 && o.is_finite() && v.is_finite() => Some(100.0 * (v - o) / o),
        _ => None,
    }
}

fn row(
    (quantity, original_run): (Quantity, OriginalRun),
    key: (u32, u32, f64, Scaffolding),
    original: Option<f64>,
    vsr2d: Option<f64>,
) -> ComparisonRow {
    let (w, h, fs_hz, scaffolding) = key;
    let relative_error_pct = relative_error_pct(original, vsr2d);
    ComparisonRow {
        quantity,
        original_run,
        w,
        h,
        fs_hz,
        scaffolding,
        original,
        vsr2d,
        relative_error_pct,
        within_tolerance: relative_error_pct.is_some_and(|e| e.abs() <= TOLERANCE_PCT),
    }
}

/// The first peak of an impulse response: its smallest δ; `None` for an empty or non-finite record.
pub fn first_peak(dy: &[f64]) -> Option<f64> {
    if dy.is_empty() || dy.iter().any(|v| !v.is_finite()) {
        return None;
    }
    Some(dy.iter().copied().fold(f64::INFINITY, f64::min))
}

/// The step of the first peak: the first sample of the smallest δ; `None` as for [`first_peak`].
pub fn first_peak_step(dy: &[f64]) -> Option<usize> {
    let peak = first_peak(dy)?;
    dy.iter().position(|&v| v == peak)
}

/// The step of the first overshoot: the first local maximum of δ after the first peak (a sample not
/// below its neighbours); `None` when the record ends first.
pub fn first_overshoot_step(dy: &[f64]) -> Option<usize> {
    let k = first_peak_step(dy)?;
    (k + 1..dy.len().saturating_sub(1)).find(|&i| dy[i] >= dy[i - 1] && dy[i] >= dy[i + 1])
}

/// Compares every `legacy-1.0` run the reference covers; runs it does not cover are left out.
pub fn compare(runs: &ReferenceRuns, reference: &Reference) -> Comparison {
    let mut rows = Vec::new();
    let mut statics: Vec<_> = runs.static_runs.iter().collect();
    statics.sort_by_key(|r| run_order(r.w, r.h, r.scaffolding, r.fs_hz));
    for r in statics {
        if let Some(o) = reference.static_run(r.w, r.h, r.fs_hz, r.scaffolding) {
            let v = r.dy_final_m.is_finite().then_some(r.dy_final_m);
            rows.push(row(
                (Quantity::StaticDeflection, OriginalRun::Released),
                (r.w, r.h, r.fs_hz, r.scaffolding),
                Some(o.dy_center_right_column_m),
                v,
            ));
        }
    }
    let mut dynamics: Vec<_> = runs.dynamic_runs.iter().collect();
    dynamics.sort_by_key(|r| run_order(r.w, r.h, r.scaffolding, r.fs_hz));
    let dynamic_rows = |o: &DynamicReference, r: &super::data::DynamicRun, against: OriginalRun| {
        let original = o.series_from_rest();
        let key = (r.w, r.h, r.fs_hz, r.scaffolding);
        let period_of = |dy: &[f64], dt: f64| series_figures(dy, dt).and_then(|f| f.period_s);
        let time_of = |k: Option<usize>, dt: f64| k.map(|k| k as f64 * dt);
        [
            row((Quantity::FirstPeak, against), key, first_peak(&original), first_peak(&r.dy_m)),
            row(
                (Quantity::FirstPeakTime, against),
                key,
                time_of(first_peak_step(&original), o.dt),
                time_of(first_peak_step(&r.dy_m), r.dt),
            ),
            row(
                (Quantity::FirstOvershootTime, against),
                key,
                time_of(first_overshoot_step(&original), o.dt),
                time_of(first_overshoot_step(&r.dy_m), r.dt),
            ),
            row((Quantity::Period, against), key, period_of(&original, o.dt), period_of(&r.dy_m, r.dt)),
        ]
    };
    for r in &dynamics {
        if let Some(o) = reference.dynamic_run(r.w, r.h, r.fs_hz, r.scaffolding) {
            rows.extend(dynamic_rows(o, r, OriginalRun::Released));
        }
    }
    for r in &dynamics {
        if let Some(o) = reference.converged_dynamic_run(r.w, r.h, r.fs_hz, r.scaffolding) {
            rows.extend(dynamic_rows(o, r, OriginalRun::Converged));
        }
    }
    let mut summary = ComparisonSummary::default();
    for r in &rows {
        if r.quantity.is_static() {
            summary.static_total += 1;
            summary.static_within += r.within_tolerance as usize;
        } else if r.original_run == OriginalRun::Converged {
            summary.converged_total += 1;
            summary.converged_within += r.within_tolerance as usize;
        } else {
            summary.dynamic_total += 1;
            summary.dynamic_within += r.within_tolerance as usize;
        }
    }
    Comparison { preset: runs.preset.clone(), tolerance_pct: TOLERANCE_PCT, rows, summary }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cantilever::data::{DynamicRun, StaticRun};

    fn runs(static_runs: Vec<StaticRun>, dynamic_runs: Vec<DynamicRun>) -> ReferenceRuns {
        ReferenceRuns {
            preset: "legacy-1.0".into(),
            reused_main_runs: false,
            dt: 1.0 / 60.0,
            static_duration_s: 60.0,
            dynamic_duration_s: 15.0,
            solver_iterations: 4,
            static_runs,
            dynamic_runs,
        }
    }

    fn st(w: u32, h: u32, fs_hz: f64, scaffolding: Scaffolding, dy: f64) -> StaticRun {
        StaticRun { w, h, fs_hz, scaffolding, force_n: 30.0, dy_final_m: dy }
    }

    #[test]
    fn the_original_compared_with_itself_is_within_and_scaled_copies_are_not() {
        let reference = Reference::embedded().unwrap();
        let copy = |scale: f64| {
            let statics = reference
                .static_runs
                .iter()
                .map(|s| st(s.w, s.h, s.fs_hz, s.scaffolding, scale * s.dy_center_right_column_m))
                .collect();
            let dynamics = reference
                .dynamic_runs
                .iter()
                .map(|d| DynamicRun {
                    w: d.w,
                    h: d.h,
                    fs_hz: d.fs_hz,
                    scaffolding: d.scaffolding,
                    force_n: d.force_n,
                    impulse_steps: 7,
                    dt: d.dt,
                    dy_m: d.series_from_rest().iter().map(|v| scale * v).collect(),
                })
                .collect();
            runs(statics, dynamics)
        };
        let same = compare(&copy(1.0), &reference);
        assert_eq!(same.rows.len(), 30 + 6 * 4 + 6 * 4);
        let released = |r: &&ComparisonRow| r.original_run == OriginalRun::Released;
        assert!(same.rows.iter().filter(released).all(|r| r.relative_error_pct == Some(0.0)));
        // The released original against itself run to convergence: at 30 Hz its 10 velocity iterations
        // leave the first peak more than 10 % deeper and later; every other figure agrees within 6 %.
        for r in same.rows.iter().filter(|r| r.original_run == OriginalRun::Converged) {
            let e = r.relative_error_pct.unwrap();
            let off = r.fs_hz == 30.0 && matches!(r.quantity, Quantity::FirstPeak | Quantity::FirstPeakTime);
            assert_eq!(e.abs() > 10.0, off, "{r:?}");
            assert!(e.abs() < 13.0, "{r:?}");
        }
        assert_eq!(
            same.summary,
            ComparisonSummary {
                static_within: 30,
                static_total: 30,
                dynamic_within: 24,
                dynamic_total: 24,
                converged_within: 22,
                converged_total: 24
            }
        );
        assert_eq!(same.status(), ComparisonStatus::SomeOutside);
        assert_eq!(
            same.verdict_line(),
            "Against the original 2D-VSR-Sim 1.0.0: 30 of 30 static runs and 24 of 24 dynamic figures within ±10 %; \
             run to convergence (200 velocity iterations), 22 of 24 of its figures (legacy-1.0 preset)"
        );

        // A 4× stiffer beam bends a quarter as much: −75 %; the period of a scaled record is unchanged.
        let stiff = compare(&copy(0.25), &reference);
        assert_eq!(stiff.summary.static_within, 0);
        assert_eq!(stiff.summary.dynamic_within, 18, "times and periods agree, peaks do not");
        assert_eq!(stiff.status(), ComparisonStatus::SomeOutside);
        let e = stiff.rows[0].relative_error_pct.unwrap();
        assert!((e + 75.0).abs() < 1e-9, "{e}");
        // Just inside ±10 % is within; just outside is not.
        let edge = compare(&runs(vec![st(10, 4, 8.0, Scaffolding::ALL, -2.394383 * 1.0999)], vec![]), &reference);
        assert!(edge.rows[0].within_tolerance, "{:?}", edge.rows[0]);
        let over = compare(&runs(vec![st(10, 4, 8.0, Scaffolding::ALL, -2.394383 * 1.1001)], vec![]), &reference);
        assert!(!over.rows[0].within_tolerance);
    }

    #[test]
    fn uncovered_and_missing_figures() {
        let reference = Reference::embedded().unwrap();
        let c = compare(
            &runs(
                vec![st(7, 3, 8.0, Scaffolding::ALL, -1.0), st(5, 2, 4.0, Scaffolding::ALL, f64::NAN)],
                vec![DynamicRun {
                    w: 10,
                    h: 4,
                    fs_hz: 30.0,
                    scaffolding: Scaffolding::ALL,
                    force_n: 800.0,
                    impulse_steps: 7,
                    dt: 1.0 / 60.0,
                    dy_m: vec![0.0, -0.1, -0.2, -0.3],
                }],
            ),
            &reference,
        );
        // 7×3 is not in the reference; the NaN run is compared and fails; the short record has a peak
        // (0.3 m at step 3) but neither an overshoot nor a period, against the original as released
        // (rows 1–4) and run to convergence (rows 5–8).
        assert_eq!(c.rows.len(), 9);
        assert_eq!((c.rows[0].vsr2d, c.rows[0].within_tolerance), (None, false));
        for (i, against) in [(1, OriginalRun::Released), (5, OriginalRun::Converged)] {
            let rows = &c.rows[i..i + 4];
            assert!(rows.iter().all(|r| r.original_run == against));
            assert_eq!(rows[0].quantity, Quantity::FirstPeak);
            assert_eq!(rows[0].vsr2d, Some(-0.3));
            assert_eq!(rows[1].quantity, Quantity::FirstPeakTime);
            assert_eq!(rows[1].vsr2d, Some(3.0 / 60.0));
            assert_eq!(rows[2].quantity, Quantity::FirstOvershootTime);
            assert_eq!(rows[3].quantity, Quantity::Period);
            for r in [&rows[2], &rows[3]] {
                assert!(r.original.is_some() && r.vsr2d.is_none() && !r.within_tolerance, "{r:?}");
            }
        }
        assert_eq!(
            c.summary,
            ComparisonSummary {
                static_within: 0,
                static_total: 1,
                dynamic_within: 0,
                dynamic_total: 4,
                converged_within: 0,
                converged_total: 4
            }
        );

        let none = compare(&runs(vec![st(7, 3, 8.0, Scaffolding::ALL, -1.0)], vec![]), &reference);
        assert_eq!(none.status(), ComparisonStatus::NotCompared);
        assert!(none.verdict_line().contains("no run of this sweep"), "{}", none.verdict_line());
    }

    #[test]
    fn reference_dynamic_figures_are_plausible() {
        let reference = Reference::embedded().unwrap();
        for d in reference.dynamic_runs.iter().chain(&reference.converged_dynamic_runs) {
            let series = d.series_from_rest();
            let peak = first_peak(&series).unwrap();
            let period = series_figures(&series, d.dt).unwrap().period_s;
            assert!(peak < 0.0, "{} Hz: {peak}", d.fs_hz);
            assert!(period.is_some_and(|t| t > 0.05 && t < 15.0), "{} Hz: {period:?}", d.fs_hz);
            // The beam swings back: the overshoot comes after the peak, within one period of it.
            let (k, m) = (first_peak_step(&series).unwrap(), first_overshoot_step(&series).unwrap());
            assert!(m > k && ((m - k) as f64 * d.dt) < period.unwrap(), "{} Hz: steps {k}, {m}", d.fs_hz);
            assert!(series[m] > 0.0, "{} Hz: the overshoot passes the rest level", d.fs_hz);
        }
    }
}
