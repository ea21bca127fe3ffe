//! The `vsr2d study` report: the fitness curves (paper Figs. 8, 10, 11 style), the table of the final
//! best fitness per configuration against the generation-0 best (the "random" reference), Mann–Whitney
//! tests with effect sizes between the compared configurations, a filmstrip of the overall best robot
//! (Fig. 9 style), an mp4 grid of each configuration's best, and the data as CSV and JSON. Written
//! through [`ReportDir`]: `index.html` appears last, and a failed report leaves the previous one intact.
//!
//! - `plots`: the curves;
//! - `media`: the filmstrip and the video;
//! - `qd`: the quality-diversity study's coverage, body diversity and bodies on the descriptor grid;
//! - `energy`: the energy study's Pareto fronts and the video of a front.

pub mod energy;
pub mod plots;
pub mod qd;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::csv::{f64_field, Csv};
use crate::dir::{DirError, ReportDir};
use crate::stats::{mann_whitney, median, sample_sd, MannWhitney, PMethod};
use vsr2d::chart::PlotError;
use vsr2d::evolve::study::{RunResult, Study};
use vsr2d::format::{short, sig};
use vsr2d::render::pixmap_to_rgba_image;
use vsr2d::run_media::media::{self, MediaError, VideoOutcome};
use vsr2d::scenario::Scenario;

const TEMPLATE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../templates/study.html"));

/// File names in the report directory.
pub const CURVES_PNG: &str = "curves.png";
pub const FILMSTRIP_PNG: &str = "filmstrip.png";
pub const VIDEO_MP4: &str = "study.mp4";
/// The same cells as the video in the interactive viewer (docs/viewer.md).
pub const VIEWER_HTML: &str = "viewer.html";
pub const CURVES_CSV: &str = "curves.csv";
pub const CURVES_SUMMARY_CSV: &str = "curves_summary.csv";
pub const FINAL_CSV: &str = "final.csv";
pub const TABLE_CSV: &str = "table.csv";
pub const COMPARISONS_CSV: &str = "comparisons.csv";
pub const STATS_JSON: &str = "stats.json";

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum StudyReportError {
    #[error(transparent)]
    Dir(#[from] DirError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error(transparent)]
    Media(#[from] MediaError),
    #[error("cannot read the best scenario {}: {message}", path.display())]
    Scenario { path: PathBuf, message: String },
    #[error("cannot render the report page templates/study.html: {0}")]
    Template(#[from] minijinja::Error),
    #[error("no finished run to report on")]
    Empty,
    #[error(transparent)]
    Runs(#[from] vsr2d::run_media::RunPictureError),
}

/// One configuration's results over its finished runs.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigSummary {
    pub name: String,
    pub label: String,
    pub panel: usize,
    /// Finished runs.
    pub n: usize,
    pub seeds: Vec<u64>,
    /// Best fitness at generation 0 (the "random" reference) and at the last generation, per run.
    pub gen0: Vec<f64>,
    pub last: Vec<f64>,
    pub gen0_median: Option<f64>,
    pub gen0_sd: Option<f64>,
    pub final_median: Option<f64>,
    pub final_sd: Option<f64>,
    /// median(final) / median(gen 0), when the gen-0 median is positive.
    pub ratio_of_medians: Option<f64>,
    /// median(final) > median(gen 0): the study's improvement check (spec §11 check 7).
    pub improved: bool,
    /// The run's final best against its generation-0 best, over runs (a = final, b = gen 0).
    pub final_vs_gen0: Option<MannWhitney>,
    /// Median and sample σ over runs of the best fitness at each generation.
    pub curve_median: Vec<f64>,
    pub curve_sd: Vec<f64>,
}

/// One comparison of two configurations' final score (or, with a `measure`, of another per-run
/// measure).
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonRow {
    /// What is compared when it is not the study's score (`coverage`, `diversity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measure: Option<String>,
    pub a: String,
    pub b: String,
    pub test: Option<MannWhitney>,
}

/// Everything the report states, as `stats.json` holds it (no wall-clock value: it is deterministic).
#[derive(Debug, Clone, Serialize)]
pub struct StudyStats {
    pub study: String,
    pub preset: String,
    /// What the runs are compared by, per generation: "best fitness" or "hypervolume".
    pub score: &'static str,
    pub runs_per_config: u32,
    pub configs: Vec<ConfigSummary>,
    pub comparisons: Vec<ComparisonRow>,
    /// The overall best individual: configuration, run, fitness.
    pub best: Option<(String, u32, f64)>,
    pub missing: Vec<String>,
    pub effect_size: &'static str,
    pub p_value: &'static str,
    /// The quality-diversity study's measures of the final bodies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qd: Option<qd::QdStats>,
    /// The energy study's fronts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<energy::EnergyStats>,
}

/// What to report on.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    pub study: &'a Study,
    /// Finished runs, in study order.
    pub results: &'a [RunResult],
    /// Runs not (yet) finished, named `config/run-k (why)`.
    pub missing: Vec<String>,
    /// Write the mp4 grid (when the `video` feature is on).
    pub video: bool,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct StudyReport {
    pub index: PathBuf,
    pub stats: StudyStats,
    pub video: VideoOutcome,
    pub files: Vec<String>,
}

const EFFECT: &str = "Vargha–Delaney A12 = U_a/(n_a·n_b), the probability that a run of the first configuration ends \
                      better than one of the second (ties ½; 0.5 = no effect), and the rank-biserial r = 2·A12 − 1";
const P_VALUE: &str =
    "two-sided Mann–Whitney U; exact null distribution without ties when both samples have ≤ 20 runs, \
                       else the normal approximation with tie and continuity corrections";

fn finite(v: &[f64]) -> Vec<f64> {
    v.iter().copied().filter(|x| x.is_finite()).collect()
}

/// The summaries, comparisons and overall best of a study's finished runs.
pub fn summarise(input: &ReportInput<'_>) -> StudyStats {
    let study = input.study;
    let mut configs = Vec::new();
    for (c, config) in study.configs.iter().enumerate() {
        let runs: Vec<&RunResult> = input.results.iter().filter(|r| r.config == c).collect();
        let gen0: Vec<f64> = runs.iter().map(|r| r.gen0()).collect();
        let last: Vec<f64> = runs.iter().map(|r| r.last()).collect();
        let gens = runs.iter().map(|r| r.best.len()).max().unwrap_or(0);
        let mut curve_median = Vec::with_capacity(gens);
        let mut curve_sd = Vec::with_capacity(gens);
        for g in 0..gens {
            let at: Vec<f64> = runs.iter().filter_map(|r| r.best.get(g).copied()).collect();
            curve_median.push(median(&at).unwrap_or(f64::NAN));
            curve_sd.push(sample_sd(&at).unwrap_or(f64::NAN));
        }
        let (gen0_median, final_median) = (median(&gen0), median(&last));
        configs.push(ConfigSummary {
            name: config.name.clone(),
            label: config.label.clone(),
            panel: config.panel,
            n: runs.len(),
            seeds: runs.iter().map(|r| r.seed).collect(),
            gen0_median,
            gen0_sd: sample_sd(&gen0),
            final_median,
            final_sd: sample_sd(&last),
            ratio_of_medians: match (final_median, gen0_median) {
                (Some(f), Some(g)) if g > 0.0 => Some(f / g),
                _ => None,
            },
            improved: matches!((final_median, gen0_median), (Some(f), Some(g)) if f > g),
            final_vs_gen0: mann_whitney(&finite(&last), &finite(&gen0)),
            gen0,
            last,
            curve_median,
            curve_sd,
        });
    }
    let comparisons = study
        .comparisons
        .iter()
        .map(|&(a, b)| ComparisonRow {
            measure: None,
            a: configs[a].name.clone(),
            b: configs[b].name.clone(),
            test: mann_whitney(&finite(&configs[a].last), &finite(&configs[b].last)),
        })
        .collect();
    let best = overall_best(input.results).map(|r| (study.configs[r.config].name.clone(), r.k, r.last()));
    StudyStats {
        study: study.kind.name().into(),
        preset: preset_text(study),
        score: study.score.name(),
        runs_per_config: study.runs,
        configs,
        comparisons,
        best,
        missing: input.missing.clone(),
        effect_size: EFFECT,
        p_value: P_VALUE,
        qd: None,
        energy: None,
    }
}

/// The run whose final best is highest (ties: the first in study order).
fn overall_best<'a>(results: impl IntoIterator<Item = &'a RunResult>) -> Option<&'a RunResult> {
    let mut best: Option<&RunResult> = None;
    for r in results.into_iter().filter(|r| r.last().is_finite()) {
        if best.is_none_or(|b| r.last() > b.last()) {
            best = Some(r);
        }
    }
    best
}

/// The best run of each configuration that has one.
fn best_per_config<'a>(study: &Study, results: &'a [RunResult]) -> Vec<&'a RunResult> {
    (0..study.configs.len()).filter_map(|c| overall_best(results.iter().filter(|r| r.config == c))).collect()
}

fn preset_text(study: &Study) -> String {
    let e = &study.configs[0].experiment;
    let d = e.scenario.as_ref().map_or(60.0, |s| s.world.duration);
    let kind = if study.preset.quick { "quick preset (spec §10)" } else { "the paper's settings" };
    let over = study.preset.n_pop.is_some() || study.preset.n_gen.is_some() || study.preset.duration.is_some();
    format!(
        "{kind}{}: n_pop {}, {} generations, {} s simulations, {} runs per configuration (seeds 0–{})",
        if over { " with overrides" } else { "" },
        e.algorithm().batch_size(0),
        e.algorithm().generations(),
        vsr2d::format::short(d),
        study.runs,
        study.runs.saturating_sub(1)
    )
}

fn load_scenario(path: &Path) -> Result<Scenario, StudyReportError> {
    let err = |message: String| StudyReportError::Scenario { path: path.to_path_buf(), message };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    Scenario::from_json(&text).map_err(|e| err(e.to_string()))
}

fn opt(v: Option<f64>) -> String {
    v.map(f64_field).unwrap_or_default()
}

fn num(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| sig(x, 4))
}

fn p_text(t: &MannWhitney) -> String {
    let p = if t.p < 1e-4 { format!("{:.1e}", t.p) } else { format!("{:.4}", t.p) };
    format!("{p} ({})", if t.method == PMethod::Exact { "exact" } else { "normal approx." })
}

/// Writes the report into `dir` (the study's root directory); `index.html` comes last.
pub fn write(dir: &Path, input: &ReportInput<'_>) -> Result<StudyReport, StudyReportError> {
    if input.results.is_empty() {
        return Err(StudyReportError::Empty);
    }
    let study = input.study;
    let stats = summarise(input);
    let out = ReportDir::create(dir)?;
    let mut files = Vec::new();

    // Data.
    let mut curves = Csv::new(&["config", "run", "seed", "gen", "best"]);
    for r in input.results {
        for (g, b) in r.best.iter().enumerate() {
            curves.row([
                study.configs[r.config].name.clone(),
                r.k.to_string(),
                r.seed.to_string(),
                g.to_string(),
                f64_field(*b),
            ]);
        }
    }
    let mut summary = Csv::new(&["config", "gen", "n", "median_best", "sd_best"]);
    for c in &stats.configs {
        for (g, (m, s)) in c.curve_median.iter().zip(&c.curve_sd).enumerate() {
            summary.row([c.name.clone(), g.to_string(), c.n.to_string(), f64_field(*m), f64_field(*s)]);
        }
    }
    let mut finals = Csv::new(&["config", "run", "seed", "gen0_best", "final_best", "ratio"]);
    for r in input.results {
        let ratio = if r.gen0() > 0.0 { Some(r.last() / r.gen0()) } else { None };
        finals.row([
            study.configs[r.config].name.clone(),
            r.k.to_string(),
            r.seed.to_string(),
            f64_field(r.gen0()),
            f64_field(r.last()),
            opt(ratio),
        ]);
    }
    let mut table = Csv::new(&[
        "config",
        "n",
        "gen0_median",
        "gen0_sd",
        "final_median",
        "final_sd",
        "ratio_of_medians",
        "improved",
        "final_vs_gen0_U",
        "final_vs_gen0_p",
        "final_vs_gen0_A12",
    ]);
    for c in &stats.configs {
        let t = c.final_vs_gen0.as_ref();
        table.row([
            c.name.clone(),
            c.n.to_string(),
            opt(c.gen0_median),
            opt(c.gen0_sd),
            opt(c.final_median),
            opt(c.final_sd),
            opt(c.ratio_of_medians),
            c.improved.to_string(),
            opt(t.map(|t| t.u)),
            opt(t.map(|t| t.p)),
            opt(t.map(|t| t.a12)),
        ]);
    }
    let mut comparisons = Csv::new(&["a", "b", "n_a", "n_b", "U", "U_a", "z", "p", "p_method", "A12", "r"]);
    for row in &stats.comparisons {
        let t = row.test.as_ref();
        comparisons.row([
            row.a.clone(),
            row.b.clone(),
            t.map_or(String::new(), |t| t.n_a.to_string()),
            t.map_or(String::new(), |t| t.n_b.to_string()),
            opt(t.map(|t| t.u)),
            opt(t.map(|t| t.u_a)),
            opt(t.map(|t| t.z)),
            opt(t.map(|t| t.p)),
            t.map_or(String::new(), |t| if t.method == PMethod::Exact { "exact".into() } else { "normal".into() }),
            opt(t.map(|t| t.a12)),
            opt(t.map(|t| t.r)),
        ]);
    }
    for (name, csv) in [
        (CURVES_CSV, curves),
        (CURVES_SUMMARY_CSV, summary),
        (FINAL_CSV, finals),
        (TABLE_CSV, table),
        (COMPARISONS_CSV, comparisons),
    ] {
        out.write(name, csv.finish().as_bytes())?;
        files.push(name.to_string());
    }

    // Pictures.
    let score_axis = match study.score.unit() {
        "" => study.score.name().to_string(),
        unit => format!("{} ({unit})", study.score.name()),
    };
    let chart = plots::curves(&study.title, &score_axis, &study.panels, &stats.configs)?;
    out.write_png(CURVES_PNG, &image::DynamicImage::ImageRgb8(chart))?;
    files.push(CURVES_PNG.to_string());
    let best = overall_best(input.results).ok_or(StudyReportError::Empty)?;
    let best_scenario = load_scenario(&best.best_scenario())?;
    let times = media::filmstrip_times(best_scenario.world.duration);
    let best_label = format!("{} run {} · {}", study.configs[best.config].label, best.k, study.score.text(best.last()));
    let strip = media::filmstrip(&best_label, &best_scenario, &times)?;
    out.write_png(FILMSTRIP_PNG, &image::DynamicImage::ImageRgba8(pixmap_to_rgba_image(&strip)))?;
    files.push(FILMSTRIP_PNG.to_string());
    let per_config = best_per_config(study, input.results);
    let mut cells = Vec::new();
    for r in &per_config {
        let label = format!("{} · run {} · {}", study.configs[r.config].label, r.k, study.score.text(r.last()));
        cells.push((label, load_scenario(&r.best_scenario())?));
    }
    let viewer = media::grid_viewer(&format!("{}: the best robot of each configuration", study.title), &cells)?;
    out.write(VIEWER_HTML, viewer.html.as_bytes())?;
    files.push(VIEWER_HTML.to_string());
    let video = if input.video {
        let path = out.staged_path(VIDEO_MP4)?;
        let outcome = media::grid_video(&path, &cells)?;
        if matches!(outcome, VideoOutcome::Written { .. }) {
            files.push(VIDEO_MP4.to_string());
        }
        outcome
    } else {
        VideoOutcome::Skipped(format!("{VIDEO_MP4} not written (--no-video)"))
    };

    let mut stats = stats;
    stats.qd = qd::write_section(&out, study, input.results, &per_config, &mut files)?;
    let front_video = match energy::write_section(&out, study, input.results, input.video, &mut files)? {
        Some((energy, outcome)) => {
            stats.energy = Some(energy);
            Some(outcome)
        }
        None => None,
    };
    out.write_json(STATS_JSON, &stats)?;
    files.push(STATS_JSON.to_string());

    let html = page(input, &stats, &times, &best_label, &per_config, &video, front_video.as_ref(), &files, dir)?;
    let index = out.finish(&html)?;
    if !matches!(video, VideoOutcome::Written { .. }) {
        // A video of an earlier report would not match this one.
        let _ = std::fs::remove_file(dir.join(VIDEO_MP4));
    }
    if !matches!(front_video, Some(VideoOutcome::Written { .. })) {
        let _ = std::fs::remove_file(dir.join(energy::FRONT_MP4));
    }
    Ok(StudyReport { index, stats, video, files })
}

#[allow(clippy::too_many_arguments)]
fn page(
    input: &ReportInput<'_>,
    stats: &StudyStats,
    times: &[f64],
    best_label: &str,
    per_config: &[&RunResult],
    video: &VideoOutcome,
    front_video: Option<&VideoOutcome>,
    files: &[String],
    dir: &Path,
) -> Result<String, minijinja::Error> {
    let study = input.study;
    let rows: Vec<Vec<String>> = stats
        .configs
        .iter()
        .map(|c| {
            let t = c.final_vs_gen0.as_ref();
            vec![
                c.label.clone(),
                c.n.to_string(),
                format!("{} ± {}", num(c.gen0_median), num(c.gen0_sd)),
                format!("{} ± {}", num(c.final_median), num(c.final_sd)),
                c.ratio_of_medians.map_or("–".into(), |r| format!("×{r:.2}")),
                t.map_or("–".into(), |t| format!("U = {}, p = {}, A12 = {:.2}", short(t.u), p_text(t), t.a12)),
                if c.improved { "yes".into() } else { "NO".into() },
            ]
        })
        .collect();
    let label_of =
        |name: &str| study.configs.iter().find(|c| c.name == name).map_or(name.to_string(), |c| c.label.clone());
    let comparisons: Vec<Vec<String>> = stats
        .comparisons
        .iter()
        .map(|row| match &row.test {
            Some(t) => vec![
                format!("{} vs {}", label_of(&row.a), label_of(&row.b)),
                format!("{} / {}", t.n_a, t.n_b),
                short(t.u),
                short(t.u_a),
                p_text(t),
                format!("{:.3}", t.a12),
                format!("{:+.3}", t.r),
            ],
            None => vec![format!("{} vs {}", label_of(&row.a), label_of(&row.b)), "no runs".into()],
        })
        .collect();
    let all_improved = stats.configs.iter().all(|c| c.improved && c.n > 0);
    let score = study.score.name();
    let verdict = if all_improved {
        format!("median {score} at the last generation > median at generation 0 for every configuration")
    } else {
        let not: Vec<String> = stats.configs.iter().filter(|c| !c.improved).map(|c| c.label.clone()).collect();
        format!("no improvement of the median {score} over generation 0 for: {}", not.join(", "))
    };
    let video_ctx = match video {
        VideoOutcome::Written { frames, width, height, seconds } => minijinja::context! {
            file => VIDEO_MP4,
            text => format!("H.264, {width}×{height}, {} fps, {frames} frames ({} s)", media::FPS, vsr2d::format::short(*seconds)),
        },
        VideoOutcome::Skipped(why) => minijinja::context! { file => (), text => why },
    };
    let video_cells: Vec<String> =
        per_config.iter().map(|r| format!("{} run {}", study.configs[r.config].name, r.k)).collect();
    let root = dir.display().to_string();
    let test_row = |measure: &str, row: &ComparisonRow| -> Vec<String> {
        let mut cells = vec![measure.to_string(), format!("{} vs {}", label_of(&row.a), label_of(&row.b))];
        match &row.test {
            Some(t) => cells.extend([
                format!("{} / {}", t.n_a, t.n_b),
                short(t.u),
                short(t.u_a),
                p_text(t),
                format!("{:.3}", t.a12),
                format!("{:+.3}", t.r),
            ]),
            None => cells.push("no runs".into()),
        }
        cells
    };
    let qd_ctx = stats.qd.as_ref().map(|q| {
        let label = |name: &str| label_of(name);
        minijinja::context! {
            grid => q.grid,
            bins => q.bins,
            distance => q.distance,
            configs => q.configs.iter().map(|c| vec![label(&c.name), num(c.coverage_median), num(c.diversity_median)]).collect::<Vec<_>>(),
            runs => q.runs.iter().map(|r| vec![label(&r.config), r.k.to_string(), r.bodies.to_string(), sig(r.coverage, 3), sig(r.diversity, 3)]).collect::<Vec<_>>(),
            comparisons => q.comparisons.iter().map(|row| test_row(row.measure.as_deref().unwrap_or(""), row)).collect::<Vec<_>>(),
            shown => per_config.iter().map(|r| format!("{} run {}", study.configs[r.config].label, r.k)).collect::<Vec<_>>().join(" | "),
            at => short(qd::bodies_time(study)),
            bodies => files.iter().any(|f| f == qd::BODIES_PNG).then_some(qd::BODIES_PNG),
            heatmaps => files.iter().any(|f| f == qd::HEATMAPS_PNG).then_some(qd::HEATMAPS_PNG),
        }
    });
    let energy_ctx = stats.energy.as_ref().map(|e| {
        let values = |v: &[f64]| if v.is_empty() { "–".to_string() } else { energy::values_text(&e.objectives, v) };
        let video = match front_video {
            Some(VideoOutcome::Written { frames, width, height, seconds }) => minijinja::context! {
                file => energy::FRONT_MP4,
                text => format!("H.264, {width}×{height}, {} fps, {frames} frames ({} s)", media::FPS, short(*seconds)),
            },
            Some(VideoOutcome::Skipped(why)) => minijinja::context! { file => (), text => why },
            None => minijinja::context! { file => (), text => "" },
        };
        minijinja::context! {
            objectives => vsr2d::run_media::front::objectives_text(&e.objectives),
            reference => values(&e.reference),
            runs => e.runs.iter().map(|r| vec![r.k.to_string(), r.front_size.to_string(), sig(r.hypervolume, 4), values(&r.first_best), values(&r.last_best)]).collect::<Vec<_>>(),
            fronts => energy::FRONTS_PNG,
            best_dir => e.best_run.as_ref().map(|(c, k)| format!("{root}/{c}/run-{k}")),
            max_members => energy::VIDEO_MEMBERS,
            video => video,
        }
    });
    let fitness_text = match &study.score {
        vsr2d::evolve::study::Score::BestFitness => format!(
            "Fitness: relative x-velocity (body lengths per second, BL/s), maximised; algorithms: {}.",
            algorithms_text(study)
        ),
        vsr2d::evolve::study::Score::Hypervolume { .. } => format!(
            "Objectives: {}; algorithm: {}. Runs are compared by the hypervolume of each generation's objective \
             vectors over one fixed reference point, the same for every run and generation.",
            vsr2d::run_media::front::objectives_text(&study.configs[0].experiment.fitness.objectives),
            algorithms_text(study)
        ),
    };
    vsr2d::output::template::render(
        "study.html",
        TEMPLATE,
        minijinja::context! {
            study => study.kind.name(),
            title => study.title,
            score => study.score.name(),
            unit => match study.score.unit() { "" => String::new(), u => format!(" ({u})") },
            fitness_text => fitness_text,
            qd => qd_ctx,
            energy => energy_ctx,
            test_header => ["measure", "comparison", "runs", "U = min(U_a, U_b)", "U_a", "p (two-sided)", "A12", "r"],
            claim => study.claim,
            preset => stats.preset,
            quick => study.preset.quick,
            verdict => verdict,
            status => if all_improved { "pass" } else { "flag" },
            rows => rows,
            comparisons => comparisons,
            effect => EFFECT,
            p_value => P_VALUE,
            curves => CURVES_PNG,
            filmstrip => FILMSTRIP_PNG,
            times => times.iter().map(|t| vsr2d::format::short(*t)).collect::<Vec<_>>().join(", "),
            best_label => best_label,
            best_dir => stats.best.as_ref().map(|(c, k, _)| format!("{root}/{c}/run-{k}")),
            video => video_ctx,
            viewer => VIEWER_HTML,
            video_cells => video_cells.join(", "),
            missing => input.missing,
            files => files,
            configs => study.configs.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
            root => root,
            runs => study.runs,
            version => env!("CARGO_PKG_VERSION"),
        },
    )
}

/// The configurations' algorithms with their references, once each.
fn algorithms_text(study: &Study) -> String {
    let mut names: Vec<&str> = Vec::new();
    for c in &study.configs {
        let name = match c.experiment.algorithm() {
            vsr2d::evolve::AlgorithmSpec::Ga(_) => "the paper's μ + λ genetic algorithm (spec evolution.md)",
            vsr2d::evolve::AlgorithmSpec::CmaEs(_) => "CMA-ES (Hansen 2016)",
            vsr2d::evolve::AlgorithmSpec::Nsga2(_) => "NSGA-II (Deb et al. 2002)",
            vsr2d::evolve::AlgorithmSpec::MapElites(_) => "MAP-Elites (Mouret and Clune 2015)",
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use vsr2d::evolve::study::{Preset, StudyKind};

    fn run(config: usize, k: u32, best: &[f64]) -> RunResult {
        RunResult { config, k, seed: u64::from(k), best: best.to_vec(), dir: PathBuf::from("unused") }
    }

    #[test]
    fn summaries_compare_final_with_generation_0_and_configurations_with_each_other() {
        let study = Study::new(StudyKind::Body, &Preset { quick: true, ..Preset::default() }, 2).unwrap();
        let results = [
            run(0, 0, &[0.1, 0.2, 0.3]),
            run(0, 1, &[0.2, 0.2, 0.5]),
            run(1, 0, &[0.1, 0.1, 0.1]),
            run(1, 1, &[0.3, 0.3, 0.3]),
        ];
        let stats = summarise(&ReportInput { study: &study, results: &results, missing: vec![], video: false });
        let (a, b) = (&stats.configs[0], &stats.configs[1]);
        assert_eq!((a.n, a.gen0_median, a.final_median), (2, Some(0.15000000000000002), Some(0.4)));
        assert_eq!(a.curve_median, [0.15000000000000002, 0.2, 0.4]);
        assert!((a.curve_sd[2] - (0.02f64).sqrt()).abs() < 1e-15, "{:?}", a.curve_sd);
        assert!(a.improved && !b.improved, "b's median stays at 0.2");
        assert!((a.ratio_of_medians.unwrap() - 0.4 / 0.15).abs() < 1e-12);
        // Final {0.3, 0.5} vs gen 0 {0.1, 0.2}: separated, U_a = 4, exact p = 1/3.
        let t = a.final_vs_gen0.unwrap();
        assert_eq!((t.u_a, t.a12), (4.0, 1.0));
        assert!((t.p - 1.0 / 3.0).abs() < 1e-15);
        // 5×5 finals {0.3, 0.5} vs 10×10 finals {0.1, 0.3}: one tie → normal approximation.
        let c = stats.comparisons[0].test.unwrap();
        assert_eq!((c.u_a, c.method), (3.5, PMethod::Normal));
        assert_eq!(stats.best, Some(("body-5x5".into(), 1, 0.5)));
        assert_eq!(
            best_per_config(&study, &results).iter().map(|r| (r.config, r.k)).collect::<Vec<_>>(),
            [(0, 1), (1, 1)]
        );
    }

    #[test]
    fn filmstrip_times_fall_inside_the_run() {
        assert_eq!(media::filmstrip_times(20.0), [10.0, 11.0, 12.0, 13.0, 14.0]);
        assert_eq!(media::filmstrip_times(6.0), [1.0, 2.0, 3.0, 4.0, 5.0]);
    }
}
