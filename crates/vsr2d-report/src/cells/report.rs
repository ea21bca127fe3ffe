//! Running the cells report's sections and writing its directory: `index.html`, `fd.csv`,
//! `timing.csv`, `results.json`, the chart PNGs, the demonstrations' filmstrips and mp4s. Written
//! through [`ReportDir`]: staged, then published with `index.html` last, so a failure leaves the previous
//! report intact.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::checks::acceptance;
use super::data::{CellsReportData, RunInfo, DEMOS_CSV, FD_CSV, FOLD_CSV, RESULTS_JSON, TIMING_CSV};
use super::demos::{self, DemoData, DemoError};
use super::fd::FdOptions;
use super::folding::{self, FoldingSection};
use super::page::{render_page, Media};
use super::plots::{demo_charts, fd_charts, fold_charts, timing_charts};
use super::timing::TimingData;
use super::Sections;
use crate::bench::cells::{CellBenchError, CellSeries};
use crate::csv::{f64_field, opt_f64_field, Csv};
use crate::dir::{DirError, ReportDir};
use crate::figure::Chart;
use vsr2d::chart::PlotError;
use vsr2d::model::cell::CellPreset;
use vsr2d::run_media::media::{filmstrip_camera, grid_video_camera, MediaError, VideoOutcome};
use vsr2d::task::force_deflection::FdError;

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellsReportOptions {
    pub quick: bool,
    pub preset: CellPreset,
    pub sections: Sections,
    /// Solver substeps of the force–deflection sweep (default: the project's [`vsr2d::sim::CELL_SOLVER_ITERATIONS`]).
    pub substeps: Option<usize>,
}

/// A report that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CellsReportError {
    #[error(transparent)]
    Dir(#[from] DirError),
    #[error("cannot render {} from templates/cells.html: {source}", path.display())]
    Template { path: PathBuf, source: minijinja::Error },
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error("force–deflection sweep: {0}")]
    Fd(#[from] FdError),
    #[error(transparent)]
    Bench(#[from] CellBenchError),
    #[error(transparent)]
    Demo(#[from] DemoError),
    #[error(transparent)]
    Media(#[from] MediaError),
}

/// Where and how this report is being made.
fn run_info(options: &CellsReportOptions, seconds: f64) -> RunInfo {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    RunInfo {
        version: env!("CARGO_PKG_VERSION").to_string(),
        profile: if cfg!(debug_assertions) { "debug" } else { "release" }.into(),
        cpu,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        quick: options.quick,
        sections: options.sections.names(),
        preset: super::fd::preset_name(options.preset).into(),
        seconds,
    }
}

/// Runs the selected sections (on rayon's current pool).
pub fn run(options: &CellsReportOptions, mut progress: impl FnMut(&str)) -> Result<CellsReportData, CellsReportError> {
    let start = Instant::now();
    let s = options.sections;
    let fd = if s.fd {
        progress("force–deflection sweep");
        let mut o = FdOptions::new(options.preset, options.quick);
        if let Some(n) = options.substeps {
            o.substeps = n;
            if options.quick {
                o.probe_counts = vec![n, 2 * n];
            }
        }
        Some(o.run()?)
    } else {
        None
    };
    let timing = if s.timing {
        progress("timing (cells benchmark)");
        Some(TimingData::measure(options.quick)?)
    } else {
        None
    };
    let demos = if s.demos {
        progress("demonstrations");
        Some(DemoData::run()?)
    } else {
        None
    };
    let folding = if s.folding {
        progress("self-folding");
        Some(FoldingSection::run(options.quick)?)
    } else {
        None
    };
    let checks = acceptance(fd.as_ref(), timing.as_ref(), demos.as_ref(), folding.as_ref());
    Ok(CellsReportData { run: run_info(options, start.elapsed().as_secs_f64()), fd, timing, demos, folding, checks })
}

fn timing_csv(t: &TimingData) -> String {
    let mut csv = Csv::new(&[
        "series",
        "cells",
        "bodies_per_cell",
        "substeps",
        "steps_per_run",
        "repeats",
        "ms_per_step",
        "ms_per_step_sd",
        "ms_per_cell_step",
        "max_perimeter_error",
    ]);
    for r in &t.report.rows {
        csv.row([
            match r.series {
                CellSeries::Cells => "cells".to_string(),
                CellSeries::Resolution => "resolution".to_string(),
            },
            r.cells.to_string(),
            r.bodies_per_cell.to_string(),
            r.substeps.to_string(),
            r.steps_per_run.to_string(),
            r.repeats.to_string(),
            f64_field(r.ms_per_step),
            f64_field(r.ms_per_step_sd),
            f64_field(r.ms_per_cell_step),
            f64_field(r.max_perimeter_error),
        ]);
    }
    csv.finish()
}

fn demos_csv(d: &DemoData) -> String {
    let mut csv = Csv::new(&["demo", "t_s", "quantity", "value"]);
    for b in &d.bounce {
        let name = format!("bounce_C{}", b.pressure);
        for (t, f) in b.t.iter().zip(&b.flattening) {
            csv.row([name.clone(), f64_field(*t), "flattening".into(), f64_field(*f)]);
        }
    }
    for (t, x) in d.connect.t.iter().zip(&d.connect.distance) {
        csv.row(["connect".to_string(), f64_field(*t), "centre_distance_m".into(), f64_field(*x)]);
    }
    for (t, x) in d.chain.t.iter().zip(&d.chain.angle_deg) {
        csv.row(["muscle_chain".to_string(), f64_field(*t), "end_to_end_angle_deg".into(), opt_f64_field(Some(*x))]);
    }
    csv.finish()
}

fn fold_csv(f: &FoldingSection) -> String {
    let mut csv = Csv::new(&["letter", "t_s", "rms_error_over_d"]);
    for r in &f.runs {
        for (t, e) in &r.series {
            csv.row([r.letter.clone(), f64_field(*t), f64_field(*e)]);
        }
    }
    csv.finish()
}

fn write_charts(dir: &ReportDir, charts: &[Chart]) -> Result<(), CellsReportError> {
    for c in charts {
        dir.write_png(&c.file_name, &image::DynamicImage::ImageRgb8(c.image.clone()))?;
    }
    Ok(())
}

/// Times of a filmstrip: five evenly over the run (0 … duration); when `peak` lies inside the run and
/// away from them, it replaces the nearest one.
fn strip_times(duration: f64, peak: Option<f64>) -> Vec<f64> {
    let mut v: Vec<f64> = (0..5).map(|i| duration * f64::from(i) / 4.0).collect();
    if let Some(p) = peak.filter(|p| *p > 0.0 && *p < 0.95 * duration) {
        let k = (1..4).min_by(|a, b| (v[*a] - p).abs().total_cmp(&(v[*b] - p).abs())).unwrap_or(1);
        v[k] = p;
        v.sort_by(f64::total_cmp);
    }
    v
}

fn write_strip(
    dir: &ReportDir,
    name: &str,
    label: &str,
    scenario: &vsr2d::scenario::Scenario,
    times: &[f64],
) -> Result<String, CellsReportError> {
    let pixmap = filmstrip_camera(label, scenario, times, true, false)?;
    let bytes = vsr2d::output::png::encode_pixmap(&pixmap)
        .map_err(|e| DirError::Io { path: dir.path().join(name), source: std::io::Error::other(e) })?;
    dir.write(name, &bytes)?;
    Ok(name.to_string())
}

fn write_video(
    dir: &ReportDir,
    name: &str,
    cells: &[(String, vsr2d::scenario::Scenario)],
) -> Result<(Option<String>, String), CellsReportError> {
    let path = dir.staged_path(name)?;
    // The whole run: the muscle chain bends for 90 s, the letters fold for 30 s.
    match grid_video_camera(&path, cells, true, f64::INFINITY)? {
        VideoOutcome::Written { frames, width, height, seconds } => Ok((
            Some(name.to_string()),
            format!("{frames} frames, {width}×{height}, {} s", vsr2d::format::short(seconds)),
        )),
        VideoOutcome::Skipped(why) => Ok((None, why)),
    }
}

/// The demonstrations' filmstrips and videos.
fn write_media(dir: &ReportDir, d: &DemoData) -> Result<Vec<Media>, CellsReportError> {
    let mut out = Vec::new();
    let mut bounce_cells = Vec::new();
    for b in &d.bounce {
        let s = demos::bounce_scenario(b.pressure)?;
        let label = format!("C {}", vsr2d::format::short(b.pressure));
        let name = format!("bounce_C{}_filmstrip.png", vsr2d::format::short(b.pressure));
        let times = strip_times(b.duration, Some(b.peak_t));
        let file = write_strip(dir, &name, &label, &s, &times)?;
        out.push(Media::strip("bounce", &format!("Bounce at {label}"), file, &times));
        bounce_cells.push((label, s));
    }
    let (video, note) = write_video(dir, "bounce.mp4", &bounce_cells)?;
    out.push(Media::video("bounce", "Bounce, C 50 (left) and C 450 (right)", video, note));

    let s = demos::connect_scenario()?;
    let times = strip_times(s.world.duration, None);
    let file = write_strip(dir, "connect_filmstrip.png", "connect", &s, &times)?;
    out.push(Media::strip("connect", "Connect and release", file, &times));
    let (video, note) = write_video(dir, "connect.mp4", &[("connect".into(), s)])?;
    out.push(Media::video("connect", "Connect and release", video, note));

    let s = demos::chain_scenario()?;
    let times = strip_times(s.world.duration, None);
    let file = write_strip(dir, "chain_filmstrip.png", "muscle chain", &s, &times)?;
    out.push(Media::strip("chain", "Muscle chain", file, &times));
    let (video, note) = write_video(dir, "chain.mp4", &[("muscle chain".into(), s)])?;
    out.push(Media::video("chain", "Muscle chain", video, note));
    Ok(out)
}

/// The letters' filmstrips and one video of all of them folding side by side.
fn write_fold_media(dir: &ReportDir, f: &FoldingSection) -> Result<Vec<Media>, CellsReportError> {
    let mut out = Vec::new();
    let mut cells = Vec::new();
    for r in &f.runs {
        let s = folding::scenario(&r.letter)?;
        let label = format!("{} (reconstruction)", r.letter);
        let times = strip_times(s.world.duration, None);
        let file = write_strip(dir, &format!("fold_{}_filmstrip.png", r.letter), &label, &s, &times)?;
        out.push(Media::strip("fold", &format!("Letter {}, {}", r.letter, f.caption), file, &times));
        cells.push((label, s));
    }
    let (video, note) = write_video(dir, "fold.mp4", &cells)?;
    out.push(Media::video("fold", &format!("The letters folding in parallel, {}", f.caption), video, note));
    Ok(out)
}

/// Writes the report directory and returns the path of `index.html`.
pub fn write_report(path: &Path, data: &CellsReportData) -> Result<PathBuf, CellsReportError> {
    let dir = ReportDir::create(path)?;
    let mut charts = Vec::new();
    if let Some(fd) = &data.fd {
        dir.write(FD_CSV, fd.csv().as_bytes())?;
        charts.extend(fd_charts(fd)?);
    }
    if let Some(t) = &data.timing {
        dir.write(TIMING_CSV, timing_csv(t).as_bytes())?;
        charts.extend(timing_charts(t)?);
    }
    let mut media = Vec::new();
    if let Some(d) = &data.demos {
        dir.write(DEMOS_CSV, demos_csv(d).as_bytes())?;
        charts.extend(demo_charts(d)?);
        media = write_media(&dir, d)?;
    }
    if let Some(f) = &data.folding {
        dir.write(FOLD_CSV, fold_csv(f).as_bytes())?;
        charts.extend(fold_charts(f)?);
        media.extend(write_fold_media(&dir, f)?);
    }
    write_charts(&dir, &charts)?;
    dir.write_json(RESULTS_JSON, data)?;
    let html = render_page(data, &charts, &media)
        .map_err(|source| CellsReportError::Template { path: path.join(crate::dir::INDEX_HTML), source })?;
    Ok(dir.finish(&html)?)
}
