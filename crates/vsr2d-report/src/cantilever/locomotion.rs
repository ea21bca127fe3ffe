//! Locomotion against the original 2D-VSR-Sim 1.0.0 (issue 38): the worm gait set of
//! `fixtures/reference/locomotion_gaits.csv` (provenance in its README), each gait run with the
//! `legacy-1.0` preset on the original's uneven5 terrain and compared by its x velocity.
//!
//! A gait is a w×h worm driven by f_{x,y}(t) = sin(−2π·F·t + P·π·x/w). Chaotic contact makes single
//! gaits noisy (the original itself, with dt changed by one part in 10⁶ … 10⁹, keeps 13 to 14 of its 16
//! fast gaits within ±25 %; `locomotion_noise.csv`), so each side's figure of a gait is its mean over the
//! same six runs (Δt × (1 + ε), ε = 0 and the perturbations the original was run with), and the verdict
//! is on the set: rank correlation, summed velocity, the share of fast gaits within ±25 % and the sign of
//! every moving gait.

use std::f64::consts::PI;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::reference::ORIGINAL;
use vsr2d::format::tick;
use vsr2d::scenario::{Scenario, ScenarioError};
use vsr2d::task::RunError;

/// The original's measurements, embedded so `vsr2d cantilever` needs no files at run time.
pub const GAITS_CSV: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/reference/locomotion_gaits.csv"));
/// The original's velocities with Δt perturbed by one part in 10⁶ … 10⁹ (`locomotion_noise.csv`): how
/// far the original moves from itself, the noise floor of a single-run comparison.
pub const NOISE_CSV: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/reference/locomotion_noise.csv"));
/// The comparison file of the report.
pub const LOCOMOTION_CSV: &str = "locomotion_comparison.csv";
/// The scatter plot of the report.
pub const LOCOMOTION_PNG: &str = "locomotion_scatter.png";

/// Targets of issue 38 for the whole set.
pub const MIN_SPEARMAN: f64 = 0.95;
pub const SUM_TOLERANCE_PCT: f64 = 10.0;
/// A gait is "fast" above this |v| (m/s); fast gaits are compared within [`GAIT_TOLERANCE_PCT`].
pub const FAST_GAIT_M_S: f64 = 0.2;
pub const GAIT_TOLERANCE_PCT: f64 = 25.0;
/// The share of fast gaits that must be within the tolerance.
pub const MIN_FAST_WITHIN: f64 = 0.8;
/// Gaits faster than this (|v|, m/s) must move in the original's direction.
pub const MOVING_GAIT_M_S: f64 = 0.05;

/// One gait and the original's travel velocity.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Gait {
    pub w: u32,
    pub h: u32,
    /// F (Hz).
    pub freq: f64,
    /// P: the phase runs over P·π along the body.
    pub phase_scale: f64,
    /// The original's TRAVEL_X_VELOCITY (m/s): of one run, or the mean of its runs ([`mean_gaits`]).
    pub original_vx: f64,
}

/// A malformed gaits file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("locomotion_gaits.csv line {line}: {reason}")]
pub struct GaitsError {
    pub line: usize,
    pub reason: String,
}

/// Reads `w,h,freq,phase_scale,java_vx` rows.
pub fn parse_gaits(text: &str) -> Result<Vec<Gait>, GaitsError> {
    let mut gaits = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
        let err = |reason: &str| GaitsError { line: i + 1, reason: reason.to_string() };
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 5 {
            return Err(err("expected 5 columns: w,h,freq,phase_scale,java_vx"));
        }
        let num = |s: &str| s.parse::<f64>().map_err(|_| err(&format!("{s:?} is not a number")));
        let int = |s: &str| s.parse::<u32>().map_err(|_| err(&format!("{s:?} is not a size")));
        gaits.push(Gait {
            w: int(f[0])?,
            h: int(f[1])?,
            freq: num(f[2])?,
            phase_scale: num(f[3])?,
            original_vx: num(f[4])?,
        });
    }
    Ok(gaits)
}

/// The embedded gait set.
pub fn reference_gaits() -> Result<Vec<Gait>, GaitsError> {
    parse_gaits(GAITS_CSV)
}

/// The original against itself: one perturbed run of the whole set, compared with the reference run.
#[derive(Debug, Clone, PartialEq)]
pub struct SelfComparison {
    /// Δt × (1 + `dt_perturbation`).
    pub dt_perturbation: f64,
    pub comparison: LocomotionComparison,
}

/// Reads `w,h,freq,phase_scale,dt_perturbation,java_vx` rows and compares each perturbation's run of
/// `gaits` with the reference run (every gait must be there).
pub fn parse_self_comparisons(text: &str, gaits: &[Gait], duration_s: f64) -> Result<Vec<SelfComparison>, GaitsError> {
    Ok(parse_perturbed_runs(text, gaits)?
        .into_iter()
        .map(|(eps, v)| SelfComparison { dt_perturbation: eps, comparison: compare(gaits, &v, duration_s) })
        .collect())
}

/// Reads `w,h,freq,phase_scale,dt_perturbation,java_vx` rows: each perturbation ε, in the file's order,
/// with the velocity of every gait of `gaits` (in their order; every gait must be there).
pub fn parse_perturbed_runs(text: &str, gaits: &[Gait]) -> Result<Vec<(f64, Vec<f64>)>, GaitsError> {
    let mut runs: Vec<(f64, Vec<Option<f64>>)> = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
        let err = |reason: &str| GaitsError { line: i + 1, reason: reason.to_string() };
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 6 {
            return Err(err("expected 6 columns: w,h,freq,phase_scale,dt_perturbation,java_vx"));
        }
        let num = |s: &str| s.parse::<f64>().map_err(|_| err(&format!("{s:?} is not a number")));
        let (w, h) = (num(f[0])?, num(f[1])?);
        let (freq, phase_scale, eps, v) = (num(f[2])?, num(f[3])?, num(f[4])?, num(f[5])?);
        let k = gaits
            .iter()
            .position(|g| (g.w as f64, g.h as f64, g.freq, g.phase_scale) == (w, h, freq, phase_scale))
            .ok_or_else(|| err("not a gait of the reference set"))?;
        let at = match runs.iter().position(|(e, _)| *e == eps) {
            Some(at) => at,
            None => {
                runs.push((eps, vec![None; gaits.len()]));
                runs.len() - 1
            }
        };
        runs[at].1[k] = Some(v);
    }
    runs.into_iter()
        .map(|(eps, v)| {
            let v: Option<Vec<f64>> = v.into_iter().collect();
            let v = v.ok_or_else(|| GaitsError { line: 0, reason: format!("perturbation {eps:e} misses gaits") })?;
            Ok((eps, v))
        })
        .collect()
}

/// The embedded perturbed runs of the original against its reference run.
pub fn self_comparisons() -> Result<Vec<SelfComparison>, GaitsError> {
    parse_self_comparisons(NOISE_CSV, &reference_gaits()?, 60.0)
}

/// The gait set with each gait's `original_vx` the mean of the original's runs (the reference run and the
/// perturbed ones), and the Δt perturbations of those runs (0 first): vsr2d is run with the same ones.
pub fn mean_gaits() -> Result<(Vec<Gait>, Vec<f64>), GaitsError> {
    let gaits = reference_gaits()?;
    let perturbed = parse_perturbed_runs(NOISE_CSV, &gaits)?;
    let runs = 1.0 + perturbed.len() as f64;
    let means = gaits
        .iter()
        .enumerate()
        .map(|(i, g)| Gait {
            original_vx: (g.original_vx + perturbed.iter().map(|(_, v)| v[i]).sum::<f64>()) / runs,
            ..*g
        })
        .collect();
    Ok((means, std::iter::once(0.0).chain(perturbed.iter().map(|(eps, _)| *eps)).collect()))
}

/// The vsr2d scenario equivalent to the original's run of `gait` (the README of the reference): uneven
/// terrain h 5, seed 1, dt 1/60 s, control interval 1, `legacy-1.0`, for `duration_s`.
pub fn gait_scenario(gait: &Gait, duration_s: f64) -> Result<Scenario, ScenarioError> {
    let row = format!("\"{}\"", "#".repeat(gait.w as usize));
    let body = vec![row; gait.h as usize].join(", ");
    let mut cells = Vec::new();
    for y in 0..gait.h {
        for x in 0..gait.w {
            let phase = gait.phase_scale * PI * x as f64 / gait.w as f64;
            cells.push(format!(
                r#"{{"cell": [{x}, {y}], "function": {{"type": "sin", "amplitude": 1, "frequency": {:e}, "phase": {phase:e}, "offset": 0}}}}"#,
                -gait.freq
            ));
        }
    }
    Scenario::from_json(&format!(
        r#"{{"world": {{"terrain": {{"type": "uneven", "height": 5, "spacing": 40, "seed": 1}}, "dt": {:e},
              "duration": {duration_s:e}, "control_interval": 1, "compat": "legacy-1.0"}},
            "robots": [{{"label": "worm", "body": [{body}], "controller": {{"type": "time_functions", "cells": [{}]}}}}],
            "task": {{"type": "locomotion"}}}}"#,
        1.0 / 60.0,
        cells.join(", ")
    ))
}

/// Why a gait could not be run.
#[derive(Debug, thiserror::Error)]
pub enum GaitRunError {
    #[error("gait {0}: {1}")]
    Scenario(String, ScenarioError),
    #[error("gait {0}: {1}")]
    Run(String, RunError),
}

/// The x velocity (m/s) of every gait with `legacy-1.0` for `duration_s`, its mean over runs with
/// Δt × (1 + ε) for each ε of `dt_perturbations`; every run in parallel (rayon).
pub fn run_gaits(gaits: &[Gait], duration_s: f64, dt_perturbations: &[f64]) -> Result<Vec<f64>, GaitRunError> {
    let runs: Vec<(usize, f64)> =
        (0..gaits.len()).flat_map(|i| dt_perturbations.iter().map(move |&eps| (i, eps))).collect();
    let velocities = runs
        .par_iter()
        .map(|&(i, eps)| {
            let name = gait_name(&gaits[i]);
            let sim = gait_scenario(&gaits[i], duration_s)
                .and_then(|mut s| {
                    s.world.dt *= 1.0 + eps;
                    s.build()
                })
                .map_err(|e| GaitRunError::Scenario(name.clone(), e))?;
            let result = sim.evaluate().map_err(|e| GaitRunError::Run(name, e))?;
            Ok(result.robots[0].x_velocity)
        })
        .collect::<Result<Vec<f64>, GaitRunError>>()?;
    // Summed in the order of `dt_perturbations`, whatever order the threads finished in.
    Ok(velocities.chunks(dt_perturbations.len()).map(|v| v.iter().sum::<f64>() / v.len() as f64).collect())
}

/// "6×3 F 2 P 1".
pub fn gait_name(g: &Gait) -> String {
    format!("{}×{} F {} P {}", g.w, g.h, tick(g.freq), tick(g.phase_scale))
}

/// One gait of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GaitRow {
    pub gait: Gait,
    pub vsr2d_vx: f64,
    /// (vsr2d − original)/|original|, %.
    pub relative_error_pct: f64,
    /// A fast gait (|original| > 0.2 m/s): whether it is within ±25 %; `None` otherwise.
    pub within: Option<bool>,
    /// A moving gait (|original| > 0.05 m/s): whether vsr2d moves the same way; `None` otherwise.
    pub same_sign: Option<bool>,
}

/// Everything the report's locomotion section states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LocomotionComparison {
    pub duration_s: f64,
    pub rows: Vec<GaitRow>,
    /// Spearman's rank correlation of the velocities (average ranks for ties).
    pub spearman: f64,
    pub sum_original: f64,
    pub sum_vsr2d: f64,
    /// (Σ vsr2d − Σ original)/|Σ original|, %.
    pub sum_bias_pct: f64,
    /// Mean of the fast gaits' relative errors, %.
    pub mean_relative_bias_pct: f64,
    pub fast_within: usize,
    pub fast_total: usize,
    pub same_sign: usize,
    pub moving_total: usize,
}

/// Compares the original's velocities with vsr2d's (same order).
pub fn compare(gaits: &[Gait], vsr2d: &[f64], duration_s: f64) -> LocomotionComparison {
    let rows: Vec<GaitRow> = gaits
        .iter()
        .zip(vsr2d)
        .map(|(g, &v)| {
            let o = g.original_vx;
            let rel = 100.0 * (v - o) / o.abs();
            GaitRow {
                gait: *g,
                vsr2d_vx: v,
                relative_error_pct: rel,
                within: (o.abs() > FAST_GAIT_M_S).then_some(rel.abs() <= GAIT_TOLERANCE_PCT),
                same_sign: (o.abs() > MOVING_GAIT_M_S).then_some(v.signum() == o.signum()),
            }
        })
        .collect();
    let originals: Vec<f64> = rows.iter().map(|r| r.gait.original_vx).collect();
    let ours: Vec<f64> = rows.iter().map(|r| r.vsr2d_vx).collect();
    let (sum_original, sum_vsr2d) = (originals.iter().sum::<f64>(), ours.iter().sum::<f64>());
    let fast: Vec<&GaitRow> = rows.iter().filter(|r| r.within.is_some()).collect();
    let mean_relative_bias_pct =
        if fast.is_empty() { 0.0 } else { fast.iter().map(|r| r.relative_error_pct).sum::<f64>() / fast.len() as f64 };
    LocomotionComparison {
        duration_s,
        spearman: spearman(&originals, &ours),
        sum_original,
        sum_vsr2d,
        sum_bias_pct: 100.0 * (sum_vsr2d - sum_original) / sum_original.abs(),
        mean_relative_bias_pct,
        fast_within: fast.iter().filter(|r| r.within == Some(true)).count(),
        fast_total: fast.len(),
        same_sign: rows.iter().filter(|r| r.same_sign == Some(true)).count(),
        moving_total: rows.iter().filter(|r| r.same_sign.is_some()).count(),
        rows,
    }
}

/// Ranks from 1, ties sharing their average rank.
fn ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut r = vec![0.0; x.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && x[order[j + 1]] == x[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            r[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    r
}

/// Spearman's ρ: Pearson's correlation of the ranks.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

impl LocomotionComparison {
    /// Which of the four targets the set meets: (rank, sum, fast gaits, signs).
    pub fn targets(&self) -> [bool; 4] {
        [
            self.spearman >= MIN_SPEARMAN,
            self.sum_bias_pct.abs() <= SUM_TOLERANCE_PCT,
            self.fast_within as f64 >= MIN_FAST_WITHIN * self.fast_total as f64,
            self.same_sign == self.moving_total,
        ]
    }

    pub fn all_met(&self) -> bool {
        self.targets().iter().all(|t| *t)
    }

    /// One line for the top of the report.
    pub fn verdict_line(&self) -> String {
        let met = self.targets().iter().filter(|t| **t).count();
        format!(
            "Locomotion against the original {ORIGINAL}: {met} of 4 targets met over {} worm gaits (legacy-1.0): \
             Spearman ρ {:.3} (≥ {MIN_SPEARMAN}), summed velocity {:+.1} % (±{SUM_TOLERANCE_PCT} %), {} of {} fast gaits \
             within ±{GAIT_TOLERANCE_PCT} % (≥ 80 %), {} of {} moving gaits in the same direction",
            self.rows.len(),
            self.spearman,
            self.sum_bias_pct,
            self.fast_within,
            self.fast_total,
            self.same_sign,
            self.moving_total
        )
    }

    /// The gaits with the largest |relative error| among the fast ones, worst first.
    pub fn worst(&self, n: usize) -> Vec<&GaitRow> {
        let mut fast: Vec<&GaitRow> = self.rows.iter().filter(|r| r.within.is_some()).collect();
        fast.sort_by(|a, b| b.relative_error_pct.abs().total_cmp(&a.relative_error_pct.abs()));
        fast.truncate(n);
        fast
    }
}

/// `locomotion_comparison.csv`: one row per gait.
pub fn comparison_csv(c: &LocomotionComparison) -> String {
    let mut out = String::from(
        "w,h,freq,phase_scale,original_vx,vsr2d_legacy_vx,relative_error_pct,fast_within_25_pct,same_sign\n",
    );
    let flag = |b: Option<bool>| match b {
        Some(true) => "yes",
        Some(false) => "no",
        None => "",
    };
    for r in &c.rows {
        let g = &r.gait;
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{}\n",
            g.w,
            g.h,
            g.freq,
            g.phase_scale,
            g.original_vx,
            r.vsr2d_vx,
            r.relative_error_pct,
            flag(r.within),
            flag(r.same_sign)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spearman_of_hand_computed_ranks() {
        // Same order: 1; reversed: −1; one swap of 4: 1 − 6·2/(4·15) = 0.8.
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 20.0, 30.0, 40.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[4.0, 3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[2.0, 1.0, 3.0, 4.0]) - 0.8).abs() < 1e-12);
        assert_eq!(ranks(&[5.0, 1.0, 5.0]), vec![2.5, 1.0, 2.5]);
    }

    #[test]
    fn the_embedded_set_is_the_24_gaits_with_the_papers_worm() {
        let gaits = reference_gaits().unwrap();
        assert_eq!(gaits.len(), 24);
        let paper = gaits.iter().find(|g| (g.w, g.freq, g.phase_scale) == (3, 1.0, 1.0)).unwrap();
        assert_eq!(paper.original_vx, 0.427992);
    }

    #[test]
    fn the_originals_perturbed_runs_cover_the_set_and_stay_close_to_it() {
        let runs = self_comparisons().unwrap();
        assert!(runs.len() >= 3, "{} perturbed runs", runs.len());
        for r in &runs {
            assert!(r.dt_perturbation != 0.0 && r.dt_perturbation.abs() <= 1e-6);
            assert_eq!(r.comparison.rows.len(), 24);
            // The original against itself: the ordering holds and no moving gait turns round.
            assert!(r.comparison.spearman > 0.9, "{}", r.comparison.spearman);
            assert_eq!(r.comparison.same_sign, r.comparison.moving_total);
        }
    }

    /// The compared figure of the paper's worm is the mean of the original's six runs of it, as read from
    /// the two files by hand: the reference run and the five perturbed ones.
    #[test]
    fn the_mean_gaits_average_the_originals_six_runs() {
        let (gaits, eps) = mean_gaits().unwrap();
        assert_eq!(eps, [0.0, 1e-9, 1e-7, -1e-7, 1e-6, -1e-6]);
        assert_eq!(gaits.len(), 24);
        let paper = gaits.iter().find(|g| (g.w, g.freq, g.phase_scale) == (3, 1.0, 1.0)).unwrap();
        let six: Vec<f64> = std::iter::once("3,3,1.0,1.0,0.427992")
            .chain(NOISE_CSV.lines().filter(|l| l.starts_with("3,3,1,1,")))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(six.len(), 6);
        assert!((paper.original_vx - six.iter().sum::<f64>() / 6.0).abs() < 1e-12, "{} vs {six:?}", paper.original_vx);
    }

    #[test]
    fn a_perturbed_run_missing_a_gait_is_an_error() {
        let gaits = reference_gaits().unwrap();
        let text = "w,h,freq,phase_scale,dt_perturbation,java_vx\n3,3,0.5,1,1e-9,0.4\n";
        let e = parse_self_comparisons(text, &gaits, 60.0).unwrap_err();
        assert!(e.reason.contains("misses gaits"), "{e}");
        let e = parse_self_comparisons("h\n5,3,0.5,1,1e-9,0.4\n", &gaits, 60.0).unwrap_err();
        assert_eq!(e.line, 2);
    }
}
