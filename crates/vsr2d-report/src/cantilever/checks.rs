//! The cantilever report's physical sanity checks (spec §13): static |δ| ∝ 1/f_s², beam theory L³/h³,
//! monotonic trends over f_s and scaffolding, period scaling of the dynamic runs, and decay.
//!
//! A pure function of [`CantileverData`] and the dynamic runs' figures: no physics, no files. Bad data
//! (empty sweeps, NaN from a diverged run, a single f_s) never panics; it yields checks with the verdict
//! [`Verdict::NoData`].

use super::data::CantileverData;
use super::names::{fs_list, size_id, size_name, variants_text};
use super::select::{same_fs, scaffolding_sweep_fs, sizes, static_fs_sweep, static_scaffolding_sweep};
use super::summary::DynamicSummary;
use crate::checks::{Check, Verdict};
use crate::fit::log_log_slope;
use crate::series::Oscillation;
use vsr2d::format::{short, sig};
use vsr2d::model::voxel::scaffolding::Scaffolding;

/// Static sweep: allowed |slope − (−2)| of ln|δ| against ln f_s.
pub const SLOPE_TOLERANCE: f64 = 0.3;
/// Beam theory ratios: allowed relative deviation of measured from predicted.
pub const RATIO_TOLERANCE: f64 = 0.3;
/// Dynamic sweep: allowed coefficient of variation of period·f_s.
pub const PERIOD_FS_CV_TOLERANCE: f64 = 0.15;
/// Static sweep: the 1/f_s² law is a small-deflection law; runs whose |δ| exceeds this fraction of the
/// beam length L = w·l are left out of the slope fit.
pub const SMALL_DEFLECTION_FRACTION: f64 = 0.10;

/// All sanity checks, in report order: static scaling, beam theory, static trends, dynamic trends.
pub fn sanity_checks(data: &CantileverData, dynamic: &[DynamicSummary]) -> Vec<Check> {
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
        checks.push(Check::no_data(
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

fn static_slope_check(data: &CantileverData, size: (u32, u32)) -> Check {
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
            return Check {
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
        return Check::no_data(
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
    Check {
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
fn beam_theory_checks(data: &CantileverData) -> Vec<Check> {
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

fn beam_ratio_check(data: &CantileverData, soft: (u32, u32), stiff: (u32, u32)) -> Check {
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
        let mut c = Check::no_data(
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
    Check {
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

fn monotonic_check(t: Trend<'_>) -> Check {
    let steps = t.points.len().saturating_sub(1);
    if steps == 0 {
        let mut c = Check::no_data(t.id, t.name, t.predicted.into(), "every step".into(), "Needs two or more f_s.");
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
    Check {
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

fn static_monotonic_check(data: &CantileverData, size: (u32, u32)) -> Check {
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

fn static_scaffolding_order_check(data: &CantileverData, size: (u32, u32)) -> Check {
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
        return Check::no_data(
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
        let mut c =
            Check::no_data(id, name, predicted.into(), "strict order".into(), "Needs E+C and all at the same f_s.");
        c.runs = runs;
        return c;
    }
    let mut order = sweep.clone();
    order.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let measured = order.iter().map(|p| p.0.to_string()).collect::<Vec<_>>().join(" > ");
    let pass = order[0].0 == Scaffolding::EC && order[order.len() - 1].0 == Scaffolding::ALL;
    Check {
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

fn dynamic_fs_checks(dynamic: &[DynamicSummary], size: (u32, u32)) -> Vec<Check> {
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
        let mut c = Check::no_data(id, name, "constant".into(), tolerance, &why);
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
    out.push(Check {
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

fn dynamic_scaffolding_check(dynamic: &[DynamicSummary], size: (u32, u32)) -> Check {
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
        return Check::no_data(
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
        let mut c = Check::no_data(
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
    // An overdamped beam returns without oscillating: there is no period to compare, which is no
    // failure of the physics (a growing or diverging run still is).
    let overdamped = period_ratio.is_none()
        && [all, ec].iter().all(|f| f.period_s.is_some() || f.oscillation == Oscillation::NoPeriod);
    Check {
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
        verdict: if pass {
            Verdict::Pass
        } else if overdamped {
            Verdict::NoData
        } else {
            Verdict::Flag
        },
        explanation: if pass {
            "18 springs per voxel make a stiffer beam than 6: it moves less and oscillates faster.".into()
        } else if overdamped {
            format!(
                "Not applicable: {} without oscillating (overdamped), so there is no period to compare.",
                without_period(&[all_run, ec_run]).join("; ")
            )
        } else if period_ratio.is_none() {
            format!("A period could not be detected: {}.", without_period(&[all_run, ec_run]).join("; "))
        } else {
            "All groups should be stiffer than E+C: check the group wiring, or whether one run diverged.".into()
        },
    }
}

fn decay_check(dynamic: &[DynamicSummary]) -> Check {
    let id = "dynamic_decay".to_string();
    let name = "dynamic oscillations decay".to_string();
    if dynamic.is_empty() {
        return Check::no_data(id, name, "every run decays".into(), "every run".into(), "No dynamic runs.");
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
    Check {
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
    use crate::cantilever::analysis::analyse;
    use crate::cantilever::data::{DynamicRun, ReportSettings, StaticRun};
    use crate::series::damped_sine;

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
        CantileverData {
            settings: settings(),
            static_runs,
            dynamic_runs: vec![],
            reference_runs: None,
            locomotion: None,
        }
    }

    fn verdict(checks: &[Check], id: &str) -> Verdict {
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
            locomotion: None,
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
        let a = analyse(&CantileverData {
            settings: settings(),
            static_runs: vec![],
            dynamic_runs,
            reference_runs: None,
            locomotion: None,
        });
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
