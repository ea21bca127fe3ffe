//! What `vsr2d study energy` adds to the study report: every run's final Pareto front of speed
//! against control effort (`energy_fronts.png`, over the random generation-0 members), per run the
//! front's size, its hypervolume over the study's fixed reference point, its fastest member and its
//! most frugal one (`energy_fronts.csv` lists every front member), and a video of the members of the
//! best run's front (`energy_front.mp4`).

use image::RgbImage;
use plotters::prelude::*;
use serde::Serialize;

use vsr2d::chart::draw::draw_legend;
use vsr2d::chart::look::palette;
use vsr2d::chart::{title_style, PlotError, ReportMesh};
use vsr2d::evolve::study::{RunResult, Score, Study};
use vsr2d::evolve::Objective;
use vsr2d::format::{sig, tick};
use vsr2d::run_media::front::{axis_range, goal_name, FrontView};
use vsr2d::run_media::{open_run, RunPictureError};

pub const FRONTS_PNG: &str = "energy_fronts.png";
pub const FRONTS_CSV: &str = "energy_fronts.csv";
pub const FRONT_MP4: &str = "energy_front.mp4";
/// At most this many front members in the video, evenly spaced along the front.
pub const VIDEO_MEMBERS: usize = 12;

/// One run's final front.
#[derive(Debug, Clone, Serialize)]
pub struct EnergyRun {
    pub config: String,
    pub k: u32,
    pub front_size: usize,
    /// The study's score at the last generation.
    pub hypervolume: f64,
    /// The objective values of the front member best in the first objective, and of the one best in
    /// the last.
    pub first_best: Vec<f64>,
    pub last_best: Vec<f64>,
}

/// Everything the report's front section states.
#[derive(Debug, Clone, Serialize)]
pub struct EnergyStats {
    pub objectives: Vec<Objective>,
    /// The hypervolume's reference point, in the objectives' units and order.
    pub reference: Vec<f64>,
    pub runs: Vec<EnergyRun>,
    /// The run whose front has the largest hypervolume: configuration and run.
    pub best_run: Option<(String, u32)>,
}

/// One run's front, for the pictures.
pub struct RunFront {
    pub k: u32,
    pub view: FrontView,
}

/// Reads every finished run's front; `None` unless the study scores by hypervolume.
pub fn measure(study: &Study, results: &[RunResult]) -> Result<Option<(EnergyStats, Vec<RunFront>)>, RunPictureError> {
    let Score::Hypervolume { reference } = &study.score else { return Ok(None) };
    let mut runs = Vec::new();
    let mut fronts = Vec::new();
    let mut objectives = Vec::new();
    for r in results {
        let view = FrontView::of(&open_run(&r.dir)?)?;
        objectives.clone_from(&view.objectives);
        let valid: Vec<&Vec<f64>> = view
            .front
            .iter()
            .map(|m| &m.objectives)
            .filter(|o| o.len() == view.objectives.len() && o.iter().all(|v| v.is_finite()))
            .collect();
        let best_in = |j: usize| -> Vec<f64> {
            let sign = if view.objectives[j].goal == vsr2d::evolve::Goal::Min { -1.0 } else { 1.0 };
            valid.iter().max_by(|a, b| (sign * a[j]).total_cmp(&(sign * b[j]))).map_or(vec![], |o| o.to_vec())
        };
        let m = view.objectives.len();
        runs.push(EnergyRun {
            config: study.configs[r.config].name.clone(),
            k: r.k,
            front_size: valid.len(),
            hypervolume: r.last(),
            first_best: if m > 0 { best_in(0) } else { vec![] },
            last_best: if m > 0 { best_in(m - 1) } else { vec![] },
        });
        fronts.push(RunFront { k: r.k, view });
    }
    let best_run = runs
        .iter()
        .filter(|r| r.hypervolume.is_finite())
        .fold(None::<&EnergyRun>, |b, r| if b.is_none_or(|b| r.hypervolume > b.hypervolume) { Some(r) } else { b })
        .map(|r| (r.config.clone(), r.k));
    Ok(Some((EnergyStats { objectives, reference: reference.clone(), runs, best_run }, fronts)))
}

/// The objectives' values as "x_velocity 0.123 · control_effort 0.456".
pub fn values_text(objectives: &[Objective], values: &[f64]) -> String {
    objectives.iter().zip(values).map(|(o, v)| format!("{} {}", o.metric, sig(*v, 4))).collect::<Vec<_>>().join(" · ")
}

/// `energy_fronts.png`: every run's generation-0 members (grey) and final front (one colour per run,
/// connected along the front, with its hypervolume over the reference point the title names).
pub fn fronts_plot(title: &str, stats: &EnergyStats, fronts: &[RunFront]) -> Result<RgbImage, PlotError> {
    let pair = |v: &[f64]| (v.first().copied().unwrap_or(f64::NAN), v.get(1).copied().unwrap_or(f64::NAN));
    let finite = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite();
    let gen0: Vec<(f64, f64)> = fronts
        .iter()
        .flat_map(|f| f.view.generations.iter().filter(|(g, _)| *g == 0).flat_map(|(_, m)| m.iter().map(|o| pair(o))))
        .filter(finite)
        .collect();
    let lines: Vec<(u32, Vec<(f64, f64)>)> = fronts
        .iter()
        .map(|f| (f.k, f.view.front.iter().map(|m| pair(&m.objectives)).filter(finite).collect()))
        .collect();
    // The reference point (effort 1) lies far above every robot: the axes frame the robots, the title
    // names the point.
    let all = || gen0.iter().chain(lines.iter().flat_map(|(_, l)| l));
    let ((x0, x1), _) = axis_range(all().map(|p| p.0));
    let ((y0, y1), _) = axis_range(all().map(|p| p.1));
    let axis = |k: usize| {
        stats
            .objectives
            .get(k)
            .map_or_else(|| format!("objective {}", k + 1), |o| format!("{} (goal: {})", o.metric, goal_name(o.goal)))
    };
    vsr2d::chart::render("energy fronts", (900, 640), |root| {
        let (top, body) = root.split_vertically(40);
        top.titled(title, title_style())?;
        let mut chart = ChartBuilder::on(&body)
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc(axis(0))
            .y_desc(axis(1))
            .x_labels(8)
            .y_labels(8)
            .x_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
            .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
            .draw()?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(gen0.iter().map(|p| Circle::new(*p, 3, grey.mix(0.6).filled())))?
            .label("generation 0 (random), every run")
            .legend(move |(x, y)| Circle::new((x + 12, y), 3, grey.filled()));
        for (i, (k, line)) in lines.iter().enumerate() {
            let color = palette(i);
            chart.draw_series(LineSeries::new(line.iter().copied(), color.stroke_width(2)))?;
            let hv = stats.runs.get(i).map_or(f64::NAN, |r| r.hypervolume);
            chart
                .draw_series(line.iter().map(|p| {
                    EmptyElement::at(*p)
                        + Circle::new((0, 0), 5, WHITE.filled())
                        + Circle::new((0, 0), 5, color.stroke_width(2))
                }))?
                .label(format!("run {k}: final front, {} members, hypervolume {}", line.len(), sig(hv, 4)))
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new(vec![(0, 0), (24, 0)], color.stroke_width(2))
                        + Circle::new((12, 0), 5, color.stroke_width(2))
                });
        }
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
}

/// `energy_fronts.csv`'s rows: every run's front members along the front.
pub fn front_rows(stats: &EnergyStats, fronts: &[RunFront]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (run, f) in stats.runs.iter().zip(fronts) {
        for (i, m) in f.view.front.iter().enumerate() {
            let mut row = vec![run.config.clone(), run.k.to_string(), (i + 1).to_string()];
            row.extend(m.objectives.iter().map(|v| crate::csv::f64_field(*v)));
            rows.push(row);
        }
    }
    rows
}

/// Up to `n` indices of `0..len` evenly spaced, both ends included.
pub fn spaced(len: usize, n: usize) -> Vec<usize> {
    if len <= n {
        return (0..len).collect();
    }
    let mut picked: Vec<usize> = (0..n).map(|i| (i * (len - 1) + (n - 1) / 2) / (n - 1)).collect();
    picked.dedup();
    picked
}

/// Writes the section's data, the fronts' picture and (when `video`) the video of the best run's
/// front into `out`; `None` unless the study scores by hypervolume.
pub fn write_section(
    out: &crate::dir::ReportDir,
    study: &Study,
    results: &[RunResult],
    video: bool,
    files: &mut Vec<String>,
) -> Result<Option<(EnergyStats, vsr2d::run_media::media::VideoOutcome)>, super::StudyReportError> {
    use vsr2d::run_media::media::VideoOutcome;
    let Some((stats, fronts)) = measure(study, results)? else { return Ok(None) };
    let mut header = vec!["config".to_string(), "run".to_string(), "place".to_string()];
    header.extend(stats.objectives.iter().map(|o| o.metric.clone()));
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut csv = crate::csv::Csv::new(&header);
    for row in front_rows(&stats, &fronts) {
        csv.row(row);
    }
    out.write(FRONTS_CSV, csv.finish().as_bytes())?;
    files.push(FRONTS_CSV.to_string());
    let title = format!(
        "{}: final fronts; hypervolume over {}",
        study.configs[0].name,
        values_text(&stats.objectives, &stats.reference)
    );
    out.write_png(FRONTS_PNG, &image::DynamicImage::ImageRgb8(fronts_plot(&title, &stats, &fronts)?))?;
    files.push(FRONTS_PNG.to_string());
    let outcome = match (&stats.best_run, video) {
        (_, false) => VideoOutcome::Skipped(format!("{FRONT_MP4} not written (--no-video)")),
        (None, true) => VideoOutcome::Skipped("no run has a valid front".into()),
        (Some((config, k)), true) => {
            let dir = results
                .iter()
                .find(|r| study.configs[r.config].name == *config && r.k == *k)
                .map(|r| r.dir.clone())
                .expect("the best run is one of the results");
            let run = open_run(&dir)?;
            let cells = vsr2d::run_media::front::front_row(&run)?;
            let keep = spaced(cells.len(), VIDEO_MEMBERS);
            let cells: Vec<_> =
                cells.into_iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, c)| c).collect();
            let path = out.staged_path(FRONT_MP4)?;
            let outcome = vsr2d::run_media::media::run_cells_video(&path, cells)?;
            if matches!(outcome, VideoOutcome::Written { .. }) {
                files.push(FRONT_MP4.to_string());
            }
            outcome
        }
    };
    Ok(Some((stats, outcome)))
}

#[cfg(test)]
mod tests {
    use super::spaced;

    #[test]
    fn spaced_keeps_both_ends_and_at_most_n() {
        assert_eq!(spaced(5, 12), [0, 1, 2, 3, 4]);
        let s = spaced(40, 12);
        assert_eq!((s.len(), s[0], s[11]), (12, 0, 39));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
