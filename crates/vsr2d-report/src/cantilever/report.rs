//! The cantilever report directory: `index.html` (see [`super::page`]), `static.csv`, `dynamic.csv`,
//! `results.json`, the chart PNGs, when given `beam.png`, and, when the data holds `legacy-1.0` runs for
//! the comparison with the original 2D-VSR-Sim 1.0.0, `reference_comparison.csv` and the comparison
//! charts.
//!
//! Written through [`ReportDir`]: the files are staged and moved into place only when all are written,
//! `index.html` last, so a failure leaves the previous report intact.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::analysis::{analyse, Analysis};
use super::comparison::{compare, Comparison};
use super::data::{CantileverData, DynamicRun, ReferenceRuns, ReportSettings, StaticRun};
pub use super::files::{BEAM_PNG, BEAM_VIEWER_HTML, DYNAMIC_CSV, REFERENCE_CSV, RESULTS_JSON, STATIC_CSV};
use super::locomotion::{comparison_csv, LocomotionComparison, LOCOMOTION_CSV, LOCOMOTION_PNG};
use super::page::{render_page, Page};
use super::plots::scatter;
use super::plots::{charts, PlotError};
use super::reference::{Reference, ReferenceError};
use super::reference_plots::reference_charts;
use super::summary::DynamicSummary;
use crate::checks::{Check, Summary};
use crate::csv::{f64_field, opt_f64_field, Csv};
use crate::dir::{DirError, ReportDir};

pub use crate::dir::INDEX_HTML;
/// A report that could not be written; every variant names the file concerned.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Dir(#[from] DirError),
    #[error("cannot render {} from templates/cantilever.html: {source}", path.display())]
    Template { path: PathBuf, source: minijinja::Error },
    #[error("cannot draw the charts for {}: {source}", path.display())]
    Plot { path: PathBuf, source: PlotError },
    #[error("cannot compare {} with the original 2D-VSR-Sim 1.0.0: {source}", path.display())]
    Reference { path: PathBuf, source: ReferenceError },
}

/// The files a report consists of.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportFiles {
    pub dir: PathBuf,
    pub index_html: PathBuf,
    pub static_csv: PathBuf,
    pub dynamic_csv: PathBuf,
    pub results_json: PathBuf,
    pub plots: Vec<PathBuf>,
    pub beam_png: Option<PathBuf>,
    /// The loaded beam in the interactive viewer.
    pub beam_viewer: Option<PathBuf>,
    /// `reference_comparison.csv`, when the data holds the comparison runs.
    pub reference_csv: Option<PathBuf>,
    /// `locomotion_comparison.csv` and its scatter plot, when the data holds the gait runs.
    pub locomotion_csv: Option<PathBuf>,
    pub locomotion_png: Option<PathBuf>,
}

impl ReportFiles {
    /// Every file written, `index.html` first.
    pub fn all(&self) -> Vec<&Path> {
        let mut v: Vec<&Path> = vec![&self.index_html, &self.static_csv, &self.dynamic_csv, &self.results_json];
        v.extend(self.plots.iter().map(PathBuf::as_path));
        v.extend(self.beam_png.as_deref());
        v.extend(self.beam_viewer.as_deref());
        v.extend(self.reference_csv.as_deref());
        v.extend(self.locomotion_csv.as_deref());
        v.extend(self.locomotion_png.as_deref());
        v
    }
}
/// Writes the whole report into `dir` (created if missing).
pub fn write_report(
    dir: &Path,
    data: &CantileverData,
    beam_figure: Option<&image::RgbaImage>,
) -> Result<ReportFiles, ReportError> {
    write_report_with_viewer(dir, data, beam_figure, None)
}

/// [`write_report`], with the loaded beam's interactive viewer page (`beam_viewer`, the page's HTML)
/// written as [`BEAM_VIEWER_HTML`] and shown in the report.
pub fn write_report_with_viewer(
    dir: &Path,
    data: &CantileverData,
    beam_figure: Option<&image::RgbaImage>,
    beam_viewer: Option<&str>,
) -> Result<ReportFiles, ReportError> {
    let out = ReportDir::create(dir)?;
    let analysis = analyse(data);
    let reference = match &data.reference_runs {
        Some(runs) => {
            let r =
                Reference::embedded().map_err(|source| ReportError::Reference { path: dir.to_path_buf(), source })?;
            Some((runs, compare(runs, &r), r))
        }
        None => None,
    };
    let comparison = reference.as_ref().map(|(_, c, _)| c);

    let static_csv = out.write(STATIC_CSV, static_csv(data).as_bytes())?;
    let dynamic_csv = out.write(DYNAMIC_CSV, dynamic_csv(data).as_bytes())?;
    let reference_csv = match comparison {
        Some(c) => Some(out.write(REFERENCE_CSV, reference_csv(c).as_bytes())?),
        None => None,
    };
    let (locomotion_csv, locomotion_png) = match &data.locomotion {
        Some(l) => {
            let png = scatter(l).map_err(|source| ReportError::Plot { path: dir.to_path_buf(), source })?;
            (
                Some(out.write(LOCOMOTION_CSV, comparison_csv(l).as_bytes())?),
                Some(out.write_png(LOCOMOTION_PNG, &image::DynamicImage::ImageRgb8(png))?),
            )
        }
        None => (None, None),
    };
    let results_json = out.write_json(RESULTS_JSON, &results(data, &analysis, comparison))?;

    let plot_error = |source| ReportError::Plot { path: dir.to_path_buf(), source };
    let charts = charts(data).map_err(plot_error)?;
    let comparison_charts = match &reference {
        Some((runs, _, r)) => reference_charts(runs, r).map_err(plot_error)?,
        None => Vec::new(),
    };
    let mut plots = Vec::new();
    for chart in charts.iter().chain(&comparison_charts) {
        plots.push(out.write_png(&chart.file_name, &image::DynamicImage::ImageRgb8(chart.image.clone()))?);
    }
    let beam_png = match beam_figure {
        Some(img) => Some(out.write_png(BEAM_PNG, &image::DynamicImage::ImageRgba8(img.clone()))?),
        None => None,
    };

    let beam_viewer = match beam_viewer {
        Some(html) => Some(out.write(BEAM_VIEWER_HTML, html.as_bytes())?),
        None => None,
    };

    let index_path = dir.join(INDEX_HTML);
    let page = Page {
        charts: &charts,
        comparison,
        comparison_charts: &comparison_charts,
        has_beam: beam_png.is_some(),
        has_beam_viewer: beam_viewer.is_some(),
    };
    let html =
        render_page(data, &analysis, &page).map_err(|source| ReportError::Template { path: index_path, source })?;
    let index_html = out.finish(&html)?;

    Ok(ReportFiles {
        dir: dir.to_path_buf(),
        index_html,
        static_csv,
        dynamic_csv,
        results_json,
        plots,
        beam_png,
        beam_viewer,
        reference_csv,
        locomotion_csv,
        locomotion_png,
    })
}

/// `static.csv`: one row per static run, in data order.
pub fn static_csv(data: &CantileverData) -> String {
    let mut csv = Csv::new(&["w", "h", "fs_hz", "scaffolding", "dy_final_m", "force_n"]);
    for r in &data.static_runs {
        csv.row([
            r.w.to_string(),
            r.h.to_string(),
            f64_field(r.fs_hz),
            r.scaffolding.to_string(),
            f64_field(r.dy_final_m),
            f64_field(r.force_n),
        ]);
    }
    csv.finish()
}

/// `dynamic.csv`: one row per sample of every dynamic run, t_s = step·dt; `load_n` is the load
/// magnitude acting on that step.
pub fn dynamic_csv(data: &CantileverData) -> String {
    let mut csv = Csv::new(&["w", "h", "fs_hz", "scaffolding", "t_s", "dy_m", "step", "load_n"]);
    for r in &data.dynamic_runs {
        let head = format!("{},{},{},{}", r.w, r.h, f64_field(r.fs_hz), r.scaffolding);
        for (k, dy) in r.dy_m.iter().enumerate() {
            let load = if k < r.impulse_steps as usize { r.force_n } else { 0.0 };
            csv.row([head.clone(), f64_field(r.time(k)), f64_field(*dy), k.to_string(), f64_field(load)]);
        }
    }
    csv.finish()
}

/// `reference_comparison.csv`: one row per compared figure, the numbers of the report's comparison
/// table at full precision; `relative_error_pct` = 100·(vsr2d_legacy − original)/original, empty when a
/// figure is missing; `within_10_pct` is `yes` or `no`.
pub fn reference_csv(comparison: &Comparison) -> String {
    let mut csv = Csv::new(&[
        "quantity",
        "unit",
        "w",
        "h",
        "fs_hz",
        "scaffolding",
        "original",
        "vsr2d_legacy",
        "relative_error_pct",
        "within_10_pct",
    ]);
    for r in &comparison.rows {
        csv.row([
            r.key(),
            r.quantity.unit().to_string(),
            r.w.to_string(),
            r.h.to_string(),
            f64_field(r.fs_hz),
            r.scaffolding.to_string(),
            opt_f64_field(r.original),
            opt_f64_field(r.vsr2d),
            opt_f64_field(r.relative_error_pct),
            if r.within_tolerance { "yes" } else { "no" }.to_string(),
        ]);
    }
    csv.finish()
}

/// `results.json`: the input data (so `CantileverData` deserialises from it), the derived figures of
/// every dynamic run, the sanity checks and, when run, the comparison with the original.
#[derive(Serialize)]
struct Results<'a> {
    format: &'static str,
    format_version: u32,
    settings: &'a ReportSettings,
    static_runs: &'a [StaticRun],
    dynamic_runs: &'a [DynamicRun],
    dynamic_figures: &'a [DynamicSummary],
    sanity_summary: Summary,
    sanity: &'a [Check],
    /// The `legacy-1.0` runs of the comparison (`null`: not run).
    reference_runs: Option<&'a ReferenceRuns>,
    /// The comparison table and its counts (`null`: not run).
    reference_comparison: Option<&'a Comparison>,
    /// The worm gait set against the original (`null`: not run).
    locomotion_comparison: Option<&'a LocomotionComparison>,
}

fn results<'a>(data: &'a CantileverData, analysis: &'a Analysis, comparison: Option<&'a Comparison>) -> Results<'a> {
    Results {
        format: "vsr2d-cantilever-results",
        format_version: 2,
        settings: &data.settings,
        static_runs: &data.static_runs,
        dynamic_runs: &data.dynamic_runs,
        dynamic_figures: &analysis.dynamic,
        sanity_summary: analysis.summary,
        sanity: &analysis.sanity,
        reference_runs: data.reference_runs.as_ref(),
        reference_comparison: comparison,
        locomotion_comparison: data.locomotion.as_ref(),
    }
}

/// The text of `results.json`.
pub fn results_json(
    data: &CantileverData,
    analysis: &Analysis,
    comparison: Option<&Comparison>,
) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&results(data, analysis, comparison))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_data_gives_a_header_only_csv() {
        let data = CantileverData {
            settings: ReportSettings::default(),
            static_runs: vec![],
            dynamic_runs: vec![],
            reference_runs: None,
            locomotion: None,
        };
        assert_eq!(static_csv(&data), "w,h,fs_hz,scaffolding,dy_final_m,force_n\n");
    }
}
