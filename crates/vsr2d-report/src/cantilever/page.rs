//! The cantilever report's `index.html`: the view of the data, its analysis and the charts that
//! `templates/cantilever.html` places. Every number is formatted here, so the template only places
//! strings.

use std::fmt::Write as _;

use serde::Serialize;

use super::analysis::Analysis;
use super::checks::SMALL_DEFLECTION_FRACTION;
use super::comparison::{skipped_line, Comparison, ComparisonStatus};
use super::data::{CantileverData, ReferenceRuns, ReportSettings, StaticRun};
use super::files::{BEAM_PNG, DYNAMIC_CSV, REFERENCE_CSV, RESULTS_JSON, STATIC_CSV};
use super::locomotion::{gait_name, GaitRow, LocomotionComparison, LOCOMOTION_CSV, LOCOMOTION_PNG};
use super::plots::{CantileverChart, ChartKind};
use super::reference::{CONDITIONS, CONVERGED_VELOCITY_ITERATIONS};
use super::select::{run_order, scaffolding_sweep_fs};
use super::summary::DynamicSummary;
use crate::checks::{Check, Summary};
use crate::series::{Oscillation, SETTLING_FRACTION, TAIL_FRACTION};
use vsr2d::format::{dt_text, quantity, short, sig, sig_or_dash};
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::output::template;

const TEMPLATE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates/cantilever.html"));
/// What the page shows besides the data and its analysis.
pub struct Page<'a> {
    pub charts: &'a [CantileverChart],
    /// `None` when the comparison was not run.
    pub comparison: Option<&'a Comparison>,
    pub comparison_charts: &'a [CantileverChart],
    pub has_beam: bool,
    pub has_beam_viewer: bool,
}

#[derive(Serialize)]
struct Row {
    name: String,
    value: String,
}

#[derive(Serialize)]
struct ChartView {
    file: String,
    title: String,
    caption: String,
}

#[derive(Serialize)]
struct StaticRow {
    size: String,
    fs: String,
    scaffolding: String,
    force: String,
    dy_m: String,
    rel: String,
}

#[derive(Serialize)]
struct DynamicRow {
    size: String,
    fs: String,
    scaffolding: String,
    peak_m: String,
    peak_t: String,
    period: String,
    period_fs: String,
    settling: String,
    decay: String,
    zeta: String,
    final_m: String,
    behaviour: String,
    /// Whether the behaviour is worth a reader's attention (anything but a decay).
    notable: bool,
}

#[derive(Serialize)]
struct FileView {
    file: &'static str,
    description: &'static str,
}

/// A one-line verdict in a coloured box; `status` is the CSS class (`pass`, `flag`, `neutral`).
#[derive(Serialize)]
struct VerdictView {
    text: String,
    status: &'static str,
}

#[derive(Serialize)]
struct ComparisonRowView {
    quantity_key: String,
    quantity: String,
    size: String,
    fs: String,
    scaffolding: String,
    original: String,
    vsr2d: String,
    rel: String,
    within: &'static str,
}

#[derive(Serialize)]
struct ComparisonView {
    preset: String,
    tolerance: String,
    conditions: Vec<String>,
    charts: Vec<ChartView>,
    rows: Vec<ComparisonRowView>,
    csv: &'static str,
}

#[derive(Serialize)]
struct View<'a> {
    settings: &'a ReportSettings,
    comparison_verdict: VerdictView,
    sanity_verdict: VerdictView,
    settings_rows: Vec<Row>,
    static_force: String,
    dynamic_force: String,
    static_duration: String,
    dynamic_duration: String,
    impulse: String,
    sweep_text: String,
    beam: Option<&'static str>,
    beam_viewer: Option<&'static str>,
    static_charts: Vec<ChartView>,
    dynamic_charts: Vec<ChartView>,
    static_rows: Vec<StaticRow>,
    dynamic_rows: Vec<DynamicRow>,
    tail_percent: String,
    settling_percent: String,
    small_percent: String,
    summary: Summary,
    sanity: &'a [Check],
    /// `None`: the comparison was not run.
    comparison: Option<ComparisonView>,
    /// `None`: the gait set was not run.
    locomotion: Option<LocomotionView>,
    locomotion_verdict: Option<VerdictView>,
    files: Vec<FileView>,
}

#[derive(Serialize)]
struct GaitRowView {
    gait: String,
    original: String,
    vsr2d: String,
    rel: String,
    within: &'static str,
}

#[derive(Serialize)]
struct LocomotionView {
    png: &'static str,
    csv: &'static str,
    duration: String,
    spearman: String,
    sum_original: String,
    sum_vsr2d: String,
    sum_bias: String,
    mean_bias: String,
    fast: String,
    signs: String,
    worst: Vec<GaitRowView>,
    rows: Vec<GaitRowView>,
    /// The original against its own Δt-perturbed runs (the noise floor), one row per perturbation.
    noise: Vec<NoiseRowView>,
}

#[derive(Serialize)]
struct NoiseRowView {
    dt_perturbation: String,
    spearman: String,
    sum_bias: String,
    fast: String,
    signs: String,
}

fn gait_row_view(r: &GaitRow) -> GaitRowView {
    GaitRowView {
        gait: gait_name(&r.gait),
        original: format!("{:.3}", r.gait.original_vx),
        vsr2d: format!("{:.3}", r.vsr2d_vx),
        rel: format!("{:+.1}", r.relative_error_pct),
        within: match (r.within, r.same_sign) {
            (Some(true), _) => "yes",
            (Some(false), _) => "no",
            (None, Some(false)) => "wrong direction",
            (None, _) => "slow gait",
        },
    }
}

fn locomotion_view(l: &LocomotionComparison) -> LocomotionView {
    LocomotionView {
        png: LOCOMOTION_PNG,
        csv: LOCOMOTION_CSV,
        duration: quantity(l.duration_s, "s"),
        spearman: format!("{:.3}", l.spearman),
        sum_original: format!("{:.3}", l.sum_original),
        sum_vsr2d: format!("{:.3}", l.sum_vsr2d),
        sum_bias: format!("{:+.1}", l.sum_bias_pct),
        mean_bias: format!("{:+.1}", l.mean_relative_bias_pct),
        fast: format!("{} of {}", l.fast_within, l.fast_total),
        signs: format!("{} of {}", l.same_sign, l.moving_total),
        worst: l.worst(5).into_iter().map(gait_row_view).collect(),
        rows: l.rows.iter().map(gait_row_view).collect(),
        // The fixture is embedded and checked by the tests; a malformed one shows as an empty table.
        noise: super::locomotion::self_comparisons()
            .unwrap_or_default()
            .iter()
            .map(|n| NoiseRowView {
                dt_perturbation: format!("{:+e}", n.dt_perturbation),
                spearman: format!("{:.3}", n.comparison.spearman),
                sum_bias: format!("{:+.1}", n.comparison.sum_bias_pct),
                fast: format!("{} of {}", n.comparison.fast_within, n.comparison.fast_total),
                signs: format!("{} of {}", n.comparison.same_sign, n.comparison.moving_total),
            })
            .collect(),
    }
}
/// Renders `index.html` for data already analysed and charts already drawn.
pub fn render_page(data: &CantileverData, analysis: &Analysis, page: &Page<'_>) -> Result<String, minijinja::Error> {
    template::render("cantilever.html", TEMPLATE, view(data, analysis, page))
}

/// The overall sanity verdict: how many checks pass, are flagged, have no data.
pub fn sanity_verdict_line(summary: Summary) -> String {
    summary.line("Physical sanity checks")
}

fn view<'a>(data: &'a CantileverData, analysis: &'a Analysis, page: &Page<'_>) -> View<'a> {
    let s = &data.settings;
    let is_static = |c: &CantileverChart| matches!(c.kind, ChartKind::StaticVsFs | ChartKind::StaticVsScaffolding);
    let (mut static_charts, mut dynamic_charts) = (Vec::new(), Vec::new());
    for (c, caption) in page.charts.iter().zip(captions(page.charts)) {
        let v = ChartView { file: c.file_name.clone(), title: c.title.clone(), caption };
        if is_static(c) {
            static_charts.push(v);
        } else {
            dynamic_charts.push(v);
        }
    }
    let comparison_verdict = match page.comparison {
        Some(c) => VerdictView {
            text: c.verdict_line(),
            status: match c.status() {
                ComparisonStatus::AllWithin => "pass",
                ComparisonStatus::SomeOutside => "flag",
                ComparisonStatus::NotCompared => "neutral",
            },
        },
        None => VerdictView { text: skipped_line(), status: "neutral" },
    };
    let summary = analysis.summary;
    let sanity_verdict = VerdictView {
        text: sanity_verdict_line(summary),
        status: if summary.flag > 0 {
            "flag"
        } else if summary.pass > 0 {
            "pass"
        } else {
            "neutral"
        },
    };
    let mut files = vec![
        FileView {
            file: STATIC_CSV,
            description: "one row per static run (w, h, fs_hz, scaffolding, dy_final_m, force_n)",
        },
        FileView {
            file: DYNAMIC_CSV,
            description:
                "one row per recorded step of every dynamic run (w, h, fs_hz, scaffolding, t_s, dy_m, step, load_n)",
        },
        FileView {
            file: RESULTS_JSON,
            description: "settings, all runs, derived figures, sanity checks and the comparison with the original",
        },
    ];
    if data.locomotion.is_some() {
        files.push(FileView {
            file: LOCOMOTION_CSV,
            description: "the worm gait set against the original, each velocity a gait's mean over six Δt runs (w, h, \
                          freq, phase_scale, original_vx, vsr2d_legacy_vx, relative_error_pct, fast_within_25_pct, \
                          same_sign)",
        });
    }
    if page.comparison.is_some() {
        files.push(FileView {
            file: REFERENCE_CSV,
            description: "the comparison table with the original 2D-VSR-Sim 1.0.0 (quantity, unit, w, h, fs_hz, \
                          scaffolding, original, vsr2d_legacy, relative_error_pct, within_10_pct)",
        });
    }
    View {
        settings: s,
        comparison_verdict,
        sanity_verdict,
        settings_rows: settings_rows(data),
        static_force: quantity(s.static_force_n, "N"),
        dynamic_force: quantity(s.dynamic_force_n, "N"),
        static_duration: quantity(s.static_duration_s, "s"),
        dynamic_duration: quantity(s.dynamic_duration_s, "s"),
        impulse: impulse_text(data),
        sweep_text: sweep_text(data),
        beam: page.has_beam.then_some(BEAM_PNG),
        beam_viewer: page.has_beam_viewer.then_some(super::files::BEAM_VIEWER_HTML),
        static_charts,
        dynamic_charts,
        static_rows: static_rows(data),
        dynamic_rows: dynamic_rows(&analysis.dynamic),
        tail_percent: short(100.0 * TAIL_FRACTION),
        settling_percent: short(100.0 * SETTLING_FRACTION),
        small_percent: short(100.0 * SMALL_DEFLECTION_FRACTION),
        summary,
        sanity: &analysis.sanity,
        comparison: match (page.comparison, &data.reference_runs) {
            (Some(c), Some(runs)) => Some(comparison_view(c, runs, page.comparison_charts)),
            _ => None,
        },
        locomotion: data.locomotion.as_ref().map(locomotion_view),
        locomotion_verdict: data
            .locomotion
            .as_ref()
            .map(|l| VerdictView { text: l.verdict_line(), status: if l.all_met() { "pass" } else { "flag" } }),
        files,
    }
}

fn comparison_view(c: &Comparison, runs: &ReferenceRuns, charts: &[CantileverChart]) -> ComparisonView {
    let num = |v: Option<f64>| v.map(|x| sig(x, 4)).unwrap_or_else(|| "–".into());
    let rows = c
        .rows
        .iter()
        .map(|r| ComparisonRowView {
            quantity_key: r.key(),
            quantity: r.label(),
            size: format!("{}×{}", r.w, r.h),
            fs: short(r.fs_hz),
            scaffolding: r.scaffolding.to_string(),
            original: num(r.original),
            vsr2d: num(r.vsr2d),
            rel: r.relative_error_pct.map(|e| sig(e, 3)).unwrap_or_else(|| "–".into()),
            within: if r.within_tolerance { "yes" } else { "no" },
        })
        .collect();
    let mut conditions = vec![
        format!(
            "vsr2d runs: preset {}, dt = {}, {} solver iterations; {}.",
            runs.preset,
            dt_text(runs.dt),
            runs.solver_iterations,
            if runs.reused_main_runs {
                "these are the main sweep's own runs (it already used this preset under these conditions)"
            } else {
                "run in addition to the main sweep, under the original's conditions below"
            }
        ),
        format!(
            "Static: {} for {} (the original's loop makes that 3601 steps, vsr2d's 3600; both beams are at rest long before the end); the compared figure is δ at the end of the run.",
            quantity(CONDITIONS.static_force_n, "N"),
            quantity(runs.static_duration_s, "s")
        ),
        format!(
            "Dynamic: {} while t ≤ {} (7 steps), recorded for {}; compared are the first peak (the smallest δ of the record), its time, the time of the first overshoot (the first local maximum after it) and the period (mean spacing of same-direction crossings of the rest level), all computed the same way from vsr2d's record and from the original's.",
            quantity(CONDITIONS.dynamic_force_n, "N"),
            quantity(CONDITIONS.impulse_s, "s"),
            quantity(runs.dynamic_duration_s, "s")
        ),
    ];
    conditions.push(
        "The original records no sample at t = 0; its record is taken to start at rest (δ = 0). After about 12–13.5 s \
         the original's physics engine puts the resting beam to sleep and δ freezes at a residual of 0.01–0.03 m; \
         vsr2d keeps decaying."
            .into(),
    );
    conditions.push(format!(
        "The dynamic runs are also compared with the original run to convergence: the same code with \
         {CONVERGED_VELOCITY_ITERATIONS} velocity iterations instead of its engine's 10 (rows \
         \"original converged\", grey dashes in the plots). Its 10 iterations have not converged on the stiff \
         beam: at 30 Hz its first peak is 10.4 % deeper than its own converged answer, which is what vsr2d's \
         rigid welds give."
    ));
    conditions.push(
        "Differences the legacy-1.0 preset cannot switch back: the original welds the beam to the wall at one mass \
         centre with a slightly compliant, iteratively solved joint (vsr2d: rigid clusters), and its engine puts resting \
         bodies to sleep, damps velocities before the constraint solve and corrects its rope joints in its position \
         pass, which vsr2d does not."
            .into(),
    );
    let chart_views = charts
        .iter()
        .map(|ch| {
            let caption = match ch.kind {
                ChartKind::ReferenceStaticVsFs => format!(
                    "final |δ| against f_s on log-log axes, all groups, one colour and marker shape per size: \
                     vsr2d {} solid with filled markers, the original dashed with hollow markers.",
                    runs.preset
                ),
                ChartKind::ReferenceStaticVsScaffolding => format!(
                    "final |δ| for the four scaffolding sets, one colour and marker shape per size: vsr2d {} solid \
                     with filled markers (left of each set), the original dashed with hollow markers (right).",
                    runs.preset
                ),
                ChartKind::ReferenceDynamic { w, h, fs_hz } => format!(
                    "δ(t) of the {w}×{h} beam at f_s = {} Hz with all groups: vsr2d {} solid, the original dashed (black: as \
                     released, 10 velocity iterations; grey: run to convergence, {CONVERGED_VELOCITY_ITERATIONS}).",
                    short(fs_hz),
                    runs.preset
                ),
                _ => String::new(),
            };
            ChartView { file: ch.file_name.clone(), title: ch.title.clone(), caption }
        })
        .collect();
    ComparisonView {
        preset: runs.preset.clone(),
        tolerance: short(c.tolerance_pct),
        conditions,
        charts: chart_views,
        rows,
        csv: REFERENCE_CSV,
    }
}

/// Figure captions numbered after the paper's figures (4: beam, 5: static, 6: dynamic).
fn captions(charts: &[CantileverChart]) -> Vec<String> {
    let mut letters = [b'a'; 2];
    charts
        .iter()
        .map(|c| {
            let (figure, slot) = match c.kind {
                ChartKind::StaticVsFs | ChartKind::StaticVsScaffolding => (5, 0),
                _ => (6, 1),
            };
            let label = format!("Figure {figure}{}", letters[slot] as char);
            letters[slot] = letters[slot].saturating_add(1);
            let text = match c.kind {
                ChartKind::StaticVsFs => {
                    "final |δ| against f_s on log-log axes, all groups, one series per size; the dashed guide has \
                     slope −2 (|δ| ∝ 1/f_s²)."
                        .to_string()
                }
                ChartKind::StaticVsScaffolding => {
                    "final |δ| for the four scaffolding sets, from E+C (6 springs per voxel) \
                     to all groups (18), one series per size."
                        .to_string()
                }
                ChartKind::DynamicVsFs { w, h } => format!(
                    "δ(t) of the {w}×{h} beam during and after the impulse, all groups, one line per f_s, each with \
                     its own dash pattern and marker shape."
                ),
                ChartKind::DynamicVsScaffolding { w, h } => format!(
                    "δ(t) of the {w}×{h} beam during and after the impulse, one line per scaffolding set, each with \
                     its own dash pattern and marker shape."
                ),
                _ => String::new(),
            };
            format!("{label} (cf. the paper's Figure {figure}): {text}")
        })
        .collect()
}

fn impulse_text(data: &CantileverData) -> String {
    let s = &data.settings;
    let mut steps: Vec<u32> = data.dynamic_runs.iter().map(|r| r.impulse_steps).collect();
    steps.sort_unstable();
    steps.dedup();
    let steps_text = match steps.as_slice() {
        [] if s.dt > 0.0 && s.impulse_s > 0.0 => format!("{} steps", (s.impulse_s / s.dt).round()),
        [] => "no steps given".into(),
        [one] => format!("{one} steps"),
        many => format!("{}–{} steps", many[0], many[many.len() - 1]),
    };
    if s.impulse_s > 0.0 && s.impulse_s.is_finite() {
        format!("{} ({steps_text})", quantity(s.impulse_s, "s"))
    } else {
        steps_text
    }
}

fn list<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::new();
    for i in items {
        if !v.contains(&i) {
            v.push(i);
        }
    }
    v
}

fn sweep_text(data: &CantileverData) -> String {
    let runs = || {
        data.static_runs
            .iter()
            .map(|r| ((r.w, r.h), r.fs_hz, r.scaffolding))
            .chain(data.dynamic_runs.iter().map(|r| ((r.w, r.h), r.fs_hz, r.scaffolding)))
    };
    let mut sizes = list(runs().map(|r| r.0));
    sizes.sort_unstable();
    if sizes.is_empty() {
        return "no data: no runs.".into();
    }
    let mut fs = list(runs().filter(|r| r.2 == Scaffolding::ALL).map(|r| r.1).filter(|f| f.is_finite()));
    fs.sort_by(f64::total_cmp);
    let sets = list(Scaffolding::PAPER_SETS.iter().copied().filter(|s| runs().any(|r| r.2 == *s)));
    let sizes_text = sizes.iter().map(|s| format!("{}×{}", s.0, s.1)).collect::<Vec<_>>().join(", ");
    let fs_text = fs.iter().map(|f| short(*f)).collect::<Vec<_>>().join(", ");
    let mut text = format!("sizes {sizes_text}; f_s ∈ {{{fs_text}}} Hz with all groups");
    if let Some(f) = scaffolding_sweep_fs(runs().filter(|r| r.2 != Scaffolding::ALL).map(|r| r.1)) {
        let sets_text = sets.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
        let _ = write!(text, "; scaffolding ∈ {{{sets_text}}} at f_s = {} Hz", short(f));
    }
    text.push('.');
    text
}

fn settings_rows(data: &CantileverData) -> Vec<Row> {
    let s = &data.settings;
    let row = |name: &str, value: String| Row { name: name.into(), value };
    let mut rows = vec![
        row("vsr2d version", s.version.clone()),
        row("material preset", s.preset.clone()),
        row("time step dt", dt_text(s.dt)),
        row(
            "static load |F| and duration",
            format!("{} for {}", quantity(s.static_force_n, "N"), quantity(s.static_duration_s, "s")),
        ),
        row(
            "dynamic load |F|, impulse and record",
            format!(
                "{} for {}, recorded for {}",
                quantity(s.dynamic_force_n, "N"),
                impulse_text(data),
                quantity(s.dynamic_duration_s, "s")
            ),
        ),
        row("voxel side l", quantity(s.voxel_side_m, "m")),
        row("gravity", "off".into()),
        row("solver iterations", s.solver_iterations.to_string()),
        row(
            "convergence",
            if s.convergence_note.trim().is_empty() { "not stated".into() } else { s.convergence_note.clone() },
        ),
        row("runs", format!("{} static, {} dynamic", data.static_runs.len(), data.dynamic_runs.len())),
    ];
    rows.extend(s.extra.iter().map(|e| Row { name: e.name.clone(), value: e.value.clone() }));
    rows
}

/// A length in metres, 4 significant digits.
fn metres(v: f64) -> String {
    sig(v, 4)
}

fn static_rows(data: &CantileverData) -> Vec<StaticRow> {
    let mut runs: Vec<&StaticRun> = data.static_runs.iter().collect();
    runs.sort_by_key(|r| run_order(r.w, r.h, r.scaffolding, r.fs_hz));
    let side = data.settings.voxel_side_m;
    runs.into_iter()
        .map(|r| {
            let length = r.w as f64 * side;
            StaticRow {
                size: format!("{}×{}", r.w, r.h),
                fs: short(r.fs_hz),
                scaffolding: r.scaffolding.to_string(),
                force: short(r.force_n),
                dy_m: metres(r.dy_final_m),
                rel: if length > 0.0 && r.dy_final_m.is_finite() {
                    sig(100.0 * r.dy_final_m.abs() / length, 3)
                } else {
                    "–".into()
                },
            }
        })
        .collect()
}

fn dynamic_rows(dynamic: &[DynamicSummary]) -> Vec<DynamicRow> {
    let mut runs: Vec<&DynamicSummary> = dynamic.iter().collect();
    runs.sort_by_key(|r| run_order(r.w, r.h, r.scaffolding, r.fs_hz));
    runs.into_iter()
        .map(|r| {
            let base = |rest: [String; 8]| {
                let [peak_m, peak_t, period, period_fs, settling, decay, zeta, final_m] = rest;
                DynamicRow {
                    size: format!("{}×{}", r.w, r.h),
                    fs: short(r.fs_hz),
                    scaffolding: r.scaffolding.to_string(),
                    peak_m,
                    peak_t,
                    period,
                    period_fs,
                    settling,
                    decay,
                    zeta,
                    final_m,
                    behaviour: r.behaviour().to_string(),
                    notable: r.figures.as_ref().is_none_or(|f| f.oscillation != Oscillation::Decaying),
                }
            };
            match &r.figures {
                Some(f) => base([
                    metres(f.peak_abs_m),
                    sig(f.peak_t_s, 3),
                    sig_or_dash(f.period_s, 4),
                    sig_or_dash(f.period_s.map(|t| t * r.fs_hz), 3),
                    sig_or_dash(f.settling_s, 3),
                    sig_or_dash(f.decay_ratio, 3),
                    sig_or_dash(f.damping_ratio, 2),
                    metres(f.final_m),
                ]),
                None => {
                    let mut cells: [String; 8] = std::array::from_fn(|_| "–".to_string());
                    cells[0] = "no finite data".into();
                    base(cells)
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cantilever::analysis::analyse;

    #[test]
    fn empty_data_renders_a_page_that_says_no_data() {
        let data = CantileverData {
            settings: ReportSettings {
                version: "0.1.0".into(),
                solver_iterations: 4,
                convergence_note: "<b>escaped</b>".into(),
                ..ReportSettings::default()
            },
            static_runs: vec![],
            dynamic_runs: vec![],
            reference_runs: None,
            locomotion: None,
        };
        let page =
            Page { charts: &[], comparison: None, comparison_charts: &[], has_beam: false, has_beam_viewer: false };
        let html = render_page(&data, &analyse(&data), &page).unwrap();
        assert!(html.contains("No data: no static runs."));
        assert!(html.contains("No data: no dynamic runs."));
        assert!(
            html.contains("&lt;b&gt;escaped") && !html.contains("<b>escaped"),
            "settings text must be HTML-escaped"
        );
        assert!(!html.contains("<img"));
        assert!(html.contains("not compared (the report was made with --no-reference)"));
        assert!(html.contains("Physical sanity checks: 0 of"), "top verdict");
    }
}
