//! The pictures of one `vsr2d evolve` run directory, written when the run finishes: `fitness.png`
//! (the best, median and worst fitness of the population at each generation, from `log.jsonl`) and
//! `best.mp4` (the run's best individual, `best.json`, drawn as `vsr2d render` draws it).

use std::path::{Path, PathBuf};

use image::RgbImage;
use plotters::prelude::*;

use crate::report::chart::draw::{draw_legend, look_series};
use crate::report::chart::look::{palette, sparse_markers, LineLook};
use crate::report::chart::{title_style, PlotError, ReportMesh};
use crate::report::format::{compact, tick};
use crate::report::study::media::{grid_video_camera, MediaError, VideoOutcome};
use crate::scenario::Scenario;

/// The plot's file name in the run directory.
pub const FITNESS_PNG: &str = "fitness.png";
/// The video's file name in the run directory.
pub const BEST_MP4: &str = "best.mp4";
/// The video shows at most this many simulated seconds of the best individual.
pub const VIDEO_SECONDS: f64 = 20.0;

/// Why a run's pictures could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RunMediaError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error("cannot write {}: {message}", path.display())]
    Write { path: PathBuf, message: String },
    #[error(transparent)]
    Media(#[from] MediaError),
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct RunMedia {
    pub plot: PathBuf,
    /// The video, or why there is none.
    pub video: Result<PathBuf, String>,
}

/// One generation's fitness figures from `log.jsonl` (None: every individual invalid).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GenerationFitness {
    pub gen: u32,
    pub best: Option<f64>,
    pub median: Option<f64>,
    pub worst: Option<f64>,
}

/// The generations of a run's `log.jsonl` (its header line skipped).
pub fn read_log(path: &Path) -> Result<Vec<GenerationFitness>, RunMediaError> {
    let text = std::fs::read_to_string(path).map_err(|source| RunMediaError::Read { path: path.into(), source })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| RunMediaError::Parse { path: path.into(), message: format!("line {}: {e}", i + 1) })?;
        let Some(gen) = v.get("gen").and_then(|g| g.as_u64()) else { continue };
        out.push(GenerationFitness {
            gen: gen as u32,
            best: v["best"].as_f64(),
            median: v["median"].as_f64(),
            worst: v["worst"].as_f64(),
        });
    }
    Ok(out)
}

/// The plot: best, median and worst fitness per generation; `metric` names the y axis.
pub fn fitness_plot(title: &str, metric: &str, gens: &[GenerationFitness]) -> Result<RgbImage, PlotError> {
    let series: [(&str, fn(&GenerationFitness) -> Option<f64>); 3] =
        [("best", |g| g.best), ("median", |g| g.median), ("worst", |g| g.worst)];
    let points: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(name, pick)| {
            let p =
                gens.iter().filter_map(|g| pick(g).filter(|v| v.is_finite()).map(|v| (f64::from(g.gen), v))).collect();
            (*name, p)
        })
        .collect();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (_, p) in &points {
        for &(_, y) in p {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (0.0, 1.0);
    }
    let span = (hi - lo).max(1e-6);
    let (y0, y1) = (lo - 0.08 * span, hi + 0.35 * span);
    let x1 = gens.iter().map(|g| f64::from(g.gen)).fold(1.0, f64::max);
    crate::report::chart::render("fitness over generations", (900, 520), |root| {
        let (top, body) = root.split_vertically(40);
        top.titled(title, title_style())?;
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("generation")
            .y_desc(format!("fitness ({metric})"))
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|v| compact(*v))
            .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
            .draw()?;
        let n = points.len();
        for (j, (name, p)) in points.iter().enumerate() {
            if p.is_empty() {
                continue;
            }
            let marks = sparse_markers(p, j, n);
            let look = LineLook { width: if j == 0 { 3 } else { 2 }, ..LineLook::nth(j, palette(j)) };
            look_series!(chart, p, marks, look, format!("{name} of the population"));
        }
        draw_legend!(chart, SeriesLabelPosition::UpperLeft);
        Ok(())
    })
}

/// Writes `fitness.png` into the finished run directory `dir` and, when `video`, `best.mp4` of its
/// `best.json` (at most [`VIDEO_SECONDS`]).
pub fn write_run_media(dir: &Path, video: bool) -> Result<RunMedia, RunMediaError> {
    let experiment: serde_json::Value = std::fs::read_to_string(dir.join("experiment.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let name = experiment["name"].as_str().unwrap_or("evolution").to_string();
    let metric = experiment.pointer("/fitness/metric").and_then(|m| m.as_str()).unwrap_or("relative_x_velocity");
    let gens = read_log(&dir.join("log.jsonl"))?;
    let image = fitness_plot(&format!("{name}: fitness over generations"), metric, &gens)?;
    let plot = dir.join(FITNESS_PNG);
    image.save(&plot).map_err(|e| RunMediaError::Write { path: plot.clone(), message: e.to_string() })?;
    let video = if video {
        let path = dir.join(BEST_MP4);
        let best = dir.join("best.json");
        let text =
            std::fs::read_to_string(&best).map_err(|source| RunMediaError::Read { path: best.clone(), source })?;
        let mut scenario = Scenario::from_json(&text)
            .map_err(|e| RunMediaError::Parse { path: best.clone(), message: e.to_string() })?;
        let best_fitness = gens.last().and_then(|g| g.best).map_or("-".into(), |b| format!("{b:.4}"));
        let label = format!("{name}: best, fitness {best_fitness}");
        // The cell shows its robot's label: the run's best says what it is.
        if let Some(robot) = scenario.robots.first_mut() {
            robot.label = Some(label.clone());
        }
        match grid_video_camera(&path, &[(label, scenario)], false, VIDEO_SECONDS)? {
            VideoOutcome::Written { .. } => Ok(path),
            VideoOutcome::Skipped(why) => Err(why),
        }
    } else {
        Err("--no-media".into())
    };
    Ok(RunMedia { plot, video })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_gives_one_point_per_generation_and_skips_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        std::fs::write(
            &log,
            "{\"header\": {\"vsr2d\": \"0.1.0\"}}\n{\"gen\":0,\"best\":1.5,\"median\":0.5,\"worst\":null}\n\
             {\"gen\":1,\"best\":2.0,\"median\":1.0,\"worst\":-0.25}\n",
        )
        .unwrap();
        let gens = read_log(&log).unwrap();
        assert_eq!(
            gens,
            [
                GenerationFitness { gen: 0, best: Some(1.5), median: Some(0.5), worst: None },
                GenerationFitness { gen: 1, best: Some(2.0), median: Some(1.0), worst: Some(-0.25) },
            ]
        );
        let image = fitness_plot("t", "x_distance", &gens).unwrap();
        assert_eq!(image.dimensions(), (900, 520));
    }
}
