//! The pictures of one `vsr2d evolve` run directory, written when the run finishes, all read through
//! [`crate::evolve::reader`]: `fitness.png` (what the algorithm improves at each generation: the
//! best, median and worst fitness for the GA and CMA-ES, the archive's coverage and QD score for
//! MAP-Elites, the front's hypervolume for NSGA-II), `archive.png` (MAP-Elites: the archive heatmap,
//! [`archive`]), `front.png` (NSGA-II: the objective space, [`front`]) and `best.mp4` (the run's best
//! individual, `best.json`, drawn as `vsr2d render` draws it).
//!
//! The grids of robots that `vsr2d render --top`, `--archive` and `--front` draw from run directories
//! are here too ([`top`], [`archive`], [`front`]), and the filmstrips, grid videos and viewer pages of
//! scenarios they and the reports draw with ([`media`]).

pub mod archive;
pub mod front;
pub mod media;
pub mod top;

use std::path::{Path, PathBuf};

use image::RgbImage;
use plotters::prelude::*;

use crate::chart::draw::{draw_legend, look_series};
use crate::chart::look::{palette, sparse_markers, LineLook};
use crate::chart::{title_style, PlotError, ReportMesh};
use crate::evolve::reader::{ReadError, RunDirectory};
use crate::evolve::{AlgorithmSpec, Objective};
use crate::format::{compact, tick};
pub use crate::run_media::media::RunCell;
use crate::run_media::media::{grid_video_camera, MediaError, VideoOutcome};
use crate::scenario::Scenario;

/// The plot's file name in the run directory.
pub(crate) const FITNESS_PNG: &str = "fitness.png";
/// The video's file name in the run directory.
pub(crate) const BEST_MP4: &str = "best.mp4";
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
    #[error(transparent)]
    Run(#[from] ReadError),
    #[error(transparent)]
    Picture(#[from] RunPictureError),
}

/// Why a picture of a run directory (`archive.png`, `front.png`, `render --archive`, `--front`,
/// `--top`) cannot be made; each message names the file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum RunPictureError {
    #[error("{} is not a run directory of `vsr2d evolve` ({source}); give the -o directory of a run", dir.display())]
    NotARun { dir: PathBuf, source: ReadError },
    #[error(
        "{} is a `{algorithm}` run, but {what} needs a `{needed}` run (an experiment with \"algorithm\": {{\"type\": \
         \"{needed}\", …}}); {hint}",
        dir.display()
    )]
    WrongAlgorithm {
        dir: PathBuf,
        algorithm: &'static str,
        needed: &'static str,
        what: &'static str,
        hint: &'static str,
    },
    #[error("{} is missing: {fix}", path.display())]
    Missing { path: PathBuf, fix: String },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error(
        "no final_population.jsonl under {dirs}: give K ≥ 1 and run directories of a finished `vsr2d evolve` (or \
         directories holding several, such as a study)"
    )]
    NoRuns { dirs: String },
    #[error(
        "no individual with a fitness in the runs under {dirs} (every one invalid, or an NSGA-II run, which ranks \
         by several objectives: draw its front with `vsr2d render --front RUN_DIR`)"
    )]
    NoneRanked { dirs: String },
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    #[error(transparent)]
    Board(#[from] crate::movie::board::BoardError),
}

impl RunPictureError {
    /// Whether the input (the directories given) is at fault, rather than drawing.
    pub fn is_input(&self) -> bool {
        !matches!(self, RunPictureError::Plot(_))
    }
}

/// Opens the run directory `dir`, or says it is none.
pub fn open_run(dir: &Path) -> Result<RunDirectory, RunPictureError> {
    RunDirectory::open(dir).map_err(|source| RunPictureError::NotARun { dir: dir.to_path_buf(), source })
}

/// Reads one of a run's files with `read`, naming `fix` when it is missing.
fn run_file<T>(
    run: &RunDirectory,
    name: &str,
    fix: &str,
    read: impl FnOnce(&RunDirectory) -> Result<T, ReadError>,
) -> Result<T, RunPictureError> {
    let path = run.dir.join(name);
    if !path.is_file() {
        return Err(RunPictureError::Missing { path, fix: fix.to_string() });
    }
    Ok(read(run)?)
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct RunMedia {
    /// `fitness.png`.
    pub plot: PathBuf,
    /// `archive.png` or `front.png`, for the algorithms that have one.
    pub pictures: Vec<PathBuf>,
    /// The video, or why there is none.
    pub video: Result<PathBuf, String>,
}

/// The generations as the plots read them: the typed lines of `log.jsonl`.
pub use crate::evolve::reader::Generation;

/// The plot of a GA or CMA-ES run: best, median and worst fitness per generation (of `of`: "the
/// population", "the samples"), and CMA-ES's best so far when the log has it; `metric` names the y axis.
pub(crate) fn fitness_plot(title: &str, metric: &str, of: &str, gens: &[Generation]) -> Result<RgbImage, PlotError> {
    let best_so_far = |g: &Generation| g.other.get("best_so_far").and_then(serde_json::Value::as_f64);
    let mut series: Vec<(String, Box<dyn Fn(&Generation) -> Option<f64>>)> = vec![
        (format!("best of {of}"), Box::new(|g: &Generation| g.best)),
        (format!("median of {of}"), Box::new(|g: &Generation| g.median)),
        (format!("worst of {of}"), Box::new(|g: &Generation| g.worst)),
    ];
    if gens.iter().any(|g| best_so_far(g).is_some()) {
        series.push(("best so far".into(), Box::new(best_so_far)));
    }
    let points: Vec<(String, Vec<(f64, f64)>)> =
        series.iter().map(|(name, pick)| (name.clone(), generation_points(gens, pick))).collect();
    let y = y_range(points.iter().flat_map(|(_, p)| p.iter().map(|&(_, y)| y)), 0.35);
    line_plot(title, &format!("fitness ({metric})"), last_generation(gens), y, &points)
}

/// (generation, value) of every generation where `pick` gives a finite value.
fn generation_points(gens: &[Generation], pick: impl Fn(&Generation) -> Option<f64>) -> Vec<(f64, f64)> {
    gens.iter().filter_map(|g| pick(g).filter(|v| v.is_finite()).map(|v| (f64::from(g.gen), v))).collect()
}

/// Lines over generations on one 900×520 chart, the first the widest, the legend upper left.
fn line_plot(
    title: &str,
    y_desc: &str,
    x1: f64,
    (y0, y1): (f64, f64),
    points: &[(String, Vec<(f64, f64)>)],
) -> Result<RgbImage, PlotError> {
    crate::chart::render("fitness over generations", (900, 520), |root| {
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
            .y_desc(y_desc)
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
            look_series!(chart, p, marks, look, name.clone());
        }
        draw_legend!(chart, SeriesLabelPosition::UpperLeft);
        Ok(())
    })
}

/// The y range of a chart of `values`: their span padded 8 % below and `headroom` above (room for a
/// legend), [0, 1] when there are none, widened around a constant.
fn y_range(values: impl Iterator<Item = f64>, headroom: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for y in values {
        lo = lo.min(y);
        hi = hi.max(y);
    }
    if !(lo.is_finite() && hi.is_finite()) {
        (lo, hi) = (0.0, 1.0);
    }
    let span = (hi - lo).max(1e-6);
    (lo - 0.08 * span, hi + headroom * span)
}

/// A y range from 0 to a little above the largest of `values` (≥ 0 quantities: coverage,
/// hypervolume), [0, 1] when none is positive.
fn from_zero(values: impl Iterator<Item = f64>, cap: f64) -> (f64, f64) {
    let hi = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
    if hi > 0.0 {
        (0.0, (1.25 * hi).min(cap))
    } else {
        (0.0, 1.0)
    }
}

/// A y range around `values` that stays readable when they hardly change: the span is at least 5 %
/// of their size.
fn around(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let size = values.clone().filter(|v| v.is_finite()).fold(0.0, |m: f64, v| m.max(v.abs()));
    let (y0, y1) = y_range(values, 0.12);
    let floor = 0.05 * size;
    if y1 - y0 >= floor {
        return (y0, y1);
    }
    let mid = 0.5 * (y0 + y1);
    (mid - floor / 2.0, mid + floor / 2.0)
}

/// The last generation logged (at least 1, so the x axis has a length).
fn last_generation(gens: &[Generation]) -> f64 {
    gens.iter().map(|g| f64::from(g.gen)).fold(1.0, f64::max)
}

/// The plot of a MAP-Elites run: the archive's coverage (above) and QD score (below) per generation.
pub(crate) fn archive_progress_plot(title: &str, qd_offset: f64, gens: &[Generation]) -> Result<RgbImage, PlotError> {
    let coverage = generation_points(gens, |g| g.coverage.map(|c| 100.0 * c));
    let qd = generation_points(gens, |g| g.qd_score);
    let x1 = last_generation(gens);
    let panels = [
        ("coverage (% of the bins holding an elite)", coverage, palette(0)),
        (
            if qd_offset == 0.0 { "QD score (Σ fitness of the elites)" } else { "QD score (Σ (fitness − offset))" },
            qd,
            palette(1),
        ),
    ];
    crate::chart::render("archive over generations", (900, 700), |root| {
        let (top, body) = root.split_vertically(40);
        top.titled(title, title_style())?;
        for (k, (area, (name, p, color))) in body.split_evenly((2, 1)).iter().zip(&panels).enumerate() {
            // Coverage is a share, from 0; the QD score moves around its own size.
            let (y0, y1) =
                if k == 0 { from_zero(p.iter().map(|&(_, y)| y), 100.0) } else { around(p.iter().map(|&(_, y)| y)) };
            let mut chart = ChartBuilder::on(area)
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(70)
                .build_cartesian_2d(0.0..x1, y0..y1)?;
            chart
                .configure_mesh()
                .report_look()
                .x_desc("generation")
                .y_desc(*name)
                .x_labels(10)
                .y_labels(6)
                .x_label_formatter(&|v| compact(*v))
                .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
                .draw()?;
            if p.is_empty() {
                continue;
            }
            let marks = sparse_markers(p, 0, 1);
            let look = LineLook { width: 3, ..LineLook::nth(0, *color) };
            look_series!(chart, p, marks, look, name.to_string());
        }
        Ok(())
    })
}

/// The plot of an NSGA-II run: the hypervolume of the first front per generation (over the reference
/// point of the log: each objective's worst value in generation 0). An objective that every member
/// shares (within rounding) leaves no volume to dominate: the plot says so.
pub(crate) fn hypervolume_plot(
    title: &str,
    objectives: &[Objective],
    gens: &[Generation],
) -> Result<RgbImage, PlotError> {
    let p = generation_points(gens, |g| g.hypervolume);
    let constant: Vec<&str> = objectives
        .iter()
        .enumerate()
        .filter(|(j, _)| {
            let values = gens.iter().flat_map(|g| g.objectives.iter().flatten().flatten().filter_map(|o| o.get(*j)));
            let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
            lo.is_finite() && hi - lo <= 1e-9 * lo.abs().max(hi.abs()).max(1.0)
        })
        .map(|(_, o)| o.metric.as_str())
        .collect();
    let (name, y) = if constant.is_empty() {
        ("hypervolume of the first front".to_string(), from_zero(p.iter().map(|&(_, v)| v), f64::INFINITY))
    } else {
        (
            format!(
                "hypervolume of the first front: about 0, as {} {} the same for every member (no volume to dominate)",
                constant.join(" and "),
                if constant.len() == 1 { "is" } else { "are" }
            ),
            (0.0, 1.0),
        )
    };
    line_plot(
        title,
        &format!("hypervolume ({})", front::objectives_text(objectives)),
        last_generation(gens),
        y,
        &[(name, p)],
    )
}

/// Writes the pictures of the finished run directory `dir`: `fitness.png` (what the algorithm
/// improves, per generation), `archive.png` (MAP-Elites) or `front.png` (NSGA-II), and when `video`,
/// `best.mp4` of its `best.json` (at most [`VIDEO_SECONDS`]).
pub fn write_run_media(dir: &Path, video: bool) -> Result<RunMedia, RunMediaError> {
    let run = RunDirectory::open(dir)?;
    let name = run.experiment.name.clone();
    let gens = &run.generations;
    let image = match run.algorithm() {
        AlgorithmSpec::Ga(_) => fitness_plot(
            &format!("{name}: fitness over generations"),
            &run.experiment.fitness.metric,
            "the population",
            gens,
        )?,
        AlgorithmSpec::CmaEs(_) => fitness_plot(
            &format!("{name}: fitness over generations (CMA-ES)"),
            &run.experiment.fitness.metric,
            "the samples",
            gens,
        )?,
        AlgorithmSpec::MapElites(p) => archive_progress_plot(
            &format!("{name}: the archive over generations (MAP-Elites, {} bins)", archive::bin_count(&p)),
            p.qd_offset,
            gens,
        )?,
        AlgorithmSpec::Nsga2(_) => hypervolume_plot(
            &format!("{name}: hypervolume over generations (NSGA-II)"),
            &run.experiment.fitness.objectives,
            gens,
        )?,
    };
    let plot = save(image, dir.join(FITNESS_PNG))?;
    let mut pictures = Vec::new();
    match run.algorithm() {
        AlgorithmSpec::MapElites(_) => {
            let view = archive::ArchiveView::of(&run)?;
            let (image, _) = archive::heatmap(&view)?;
            pictures.push(save(image, dir.join(archive::ARCHIVE_PNG))?);
        }
        AlgorithmSpec::Nsga2(_) => {
            let view = front::FrontView::of(&run)?;
            pictures.push(save(front::scatter(&view)?, dir.join(front::FRONT_PNG))?);
        }
        AlgorithmSpec::Ga(_) | AlgorithmSpec::CmaEs(_) => {}
    }
    let video = if video {
        let path = dir.join(BEST_MP4);
        let best = dir.join("best.json");
        let text =
            std::fs::read_to_string(&best).map_err(|source| RunMediaError::Read { path: best.clone(), source })?;
        let mut scenario = Scenario::from_json(&text)
            .map_err(|e| RunMediaError::Parse { path: best.clone(), message: e.to_string() })?;
        let label = match run.algorithm() {
            AlgorithmSpec::Nsga2(_) => format!("{name}: {}", front::best_label(&run)),
            _ => {
                let best_fitness = gens.last().and_then(|g| g.best).map_or("-".into(), |b| format!("{b:.4}"));
                format!("{name}: best, fitness {best_fitness}")
            }
        };
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
    Ok(RunMedia { plot, pictures, video })
}

fn save(image: RgbImage, path: PathBuf) -> Result<PathBuf, RunMediaError> {
    image.save(&path).map_err(|e| RunMediaError::Write { path: path.clone(), message: e.to_string() })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generations(lines: &str) -> Vec<Generation> {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        let header = r#"{"header": {"vsr2d": "0.1.0", "generator": "splitmix64", "experiment_hash": "0", "genome_size": 1, "experiment": {}}}"#;
        std::fs::write(&log, format!("{header}\n{lines}")).unwrap();
        crate::evolve::reader::read_log(&log).unwrap().1
    }

    const COUNTS: &str = r#""evaluations": 4, "simulations": 4, "cache_hits": 0, "invalid": 0"#;

    #[test]
    fn every_algorithms_plot_draws_from_the_typed_log() {
        let gens = generations(&format!(
            "{{\"gen\":0,{COUNTS},\"best\":1.5,\"median\":0.5,\"worst\":null}}\n\
             {{\"gen\":1,{COUNTS},\"best\":2.0,\"median\":1.0,\"worst\":-0.25}}\n"
        ));
        assert_eq!(gens.len(), 2);
        assert_eq!((gens[1].best, gens[0].worst), (Some(2.0), None));
        let image = fitness_plot("t", "x_distance", "the population", &gens).unwrap();
        assert_eq!(image.dimensions(), (900, 520));
        // Nothing logged of what a plot shows (every individual invalid, another algorithm's log):
        // the plots are drawn, empty.
        assert_eq!(archive_progress_plot("t", 0.0, &gens).unwrap().dimensions(), (900, 700));
        assert_eq!(hypervolume_plot("t", &[], &gens).unwrap().dimensions(), (900, 520));
        let qd = generations(&format!(
            "{{\"gen\":0,{COUNTS},\"coverage\":0.1,\"qd_score\":2.0}}\n{{\"gen\":1,{COUNTS},\"coverage\":0.2,\"qd_score\":3.5}}\n"
        ));
        archive_progress_plot("t", 0.0, &qd).unwrap();
        let hv = generations(&format!("{{\"gen\":0,{COUNTS},\"hypervolume\":0.0,\"best_so_far\":1}}\n"));
        let objectives = [
            Objective { metric: "a".into(), goal: crate::evolve::Goal::Max },
            Objective { metric: "b".into(), goal: crate::evolve::Goal::Min },
        ];
        hypervolume_plot("t", &objectives, &hv).unwrap();
        fitness_plot("t", "x", "the samples", &hv).unwrap();
    }
}
