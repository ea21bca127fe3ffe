//! The cells report's charts, drawn with [`vsr2d::chart`] (embedded font, same pixels on every
//! machine): force–deflection (linear and log–log, model dashed in the same colour), timing (log–log with
//! the linear fit and the 20 ms line), the demonstrations' time series and the folding error.

use image::RgbImage;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::demos::DemoData;
use super::fd::FdData;
use super::folding::{FoldingSection, MAX_ERROR_D};
use super::timing::TimingData;
use crate::bench::cells::CellSeries;
use crate::figure::Chart;
use vsr2d::chart::axes::{log_range, log_ticks};
use vsr2d::chart::draw::draw_legend;
use vsr2d::chart::look::{palette, ramp_color};
use vsr2d::chart::{title_style, PlotError, ReportMesh};
use vsr2d::format::{compact, tick};
use vsr2d::task::force_deflection::Phase;

pub const WIDTH: u32 = 900;
pub const HEIGHT: u32 = 560;

/// One series: a line (solid or dashed), optional circle markers, optional legend entry.
#[derive(Debug, Clone)]
pub struct Series {
    pub label: Option<String>,
    pub color: RGBColor,
    pub dash: bool,
    pub width: u32,
    pub markers: bool,
    pub points: Vec<(f64, f64)>,
}

/// A horizontal reference line with its legend label.
#[derive(Debug, Clone)]
pub struct HLine {
    pub y: f64,
    pub label: String,
    pub color: RGBColor,
}

struct Spec<'a> {
    name: &'a str,
    title: &'a str,
    x_desc: &'a str,
    y_desc: &'a str,
    log: bool,
    series: Vec<Series>,
    hlines: Vec<HLine>,
}

macro_rules! draw_all {
    ($chart:ident, $spec:expr, $x0:expr, $x1:expr) => {{
        for s in &$spec.series {
            if s.points.is_empty() {
                continue;
            }
            let style = s.color.stroke_width(s.width);
            let drawn = if s.dash {
                $chart.draw_series(DashedLineSeries::new(s.points.iter().copied(), 10, 6, style))?
            } else {
                $chart.draw_series(LineSeries::new(s.points.iter().copied(), style))?
            };
            if let Some(label) = &s.label {
                let (dash, markers, color) = (s.dash, s.markers, s.color);
                drawn.label(label.clone()).legend(move |(x, y)| {
                    let (on, off) = if dash { (8, 4) } else { (100, 0) };
                    EmptyElement::at((x, y))
                        + DashedPathElement::new(vec![(0, 0), (24, 0)], on, off, color.stroke_width(2))
                        + Circle::new((12, 0), if markers { 4 } else { 0 }, color.filled())
                });
            }
            if s.markers {
                $chart.draw_series(s.points.iter().map(|p| Circle::new(*p, 4, s.color.filled())))?;
            }
        }
        for h in &$spec.hlines {
            let c = h.color;
            $chart
                .draw_series(DashedLineSeries::new(vec![($x0, h.y), ($x1, h.y)], 6, 6, c.stroke_width(2)))?
                .label(h.label.clone())
                .legend(move |(x, y)| DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 6, c.stroke_width(2)));
        }
        // Log–log data rises to the upper right: the legend goes to the lower right there.
        draw_legend!($chart, if $spec.log { SeriesLabelPosition::LowerRight } else { SeriesLabelPosition::UpperLeft });
    }};
}

fn draw(spec: Spec<'_>) -> Result<Option<RgbImage>, PlotError> {
    let pts: Vec<(f64, f64)> = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    if pts.is_empty() {
        return Ok(None);
    }
    let hl = spec.hlines.iter().map(|h| h.y);
    if spec.log {
        let Some((x0, x1)) = log_range(pts.iter().map(|p| p.0), 1.3) else { return Ok(None) };
        let Some((y0, y1)) = log_range(pts.iter().map(|p| p.1).chain(hl), 1.5) else { return Ok(None) };
        let (xt, yt) = (log_ticks(x0, x1), log_ticks(y0, y1));
        vsr2d::chart::render(spec.name, (WIDTH, HEIGHT), |root| {
            let mut chart = ChartBuilder::on(root)
                .caption(spec.title, title_style())
                .margin(14)
                .x_label_area_size(52)
                .y_label_area_size(78)
                .build_cartesian_2d(
                    (x0..x1).log_scale().with_key_points(xt.clone()),
                    (y0..y1).log_scale().with_key_points(yt.clone()),
                )?;
            chart
                .configure_mesh()
                .report_look()
                .x_desc(spec.x_desc)
                .y_desc(spec.y_desc)
                .x_label_formatter(&|v| tick(*v))
                .y_label_formatter(&|v| tick(*v))
                .draw()?;
            draw_all!(chart, spec, x0, x1);
            Ok(())
        })
        .map(Some)
    } else {
        let fold = |it: &mut dyn Iterator<Item = f64>| {
            it.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)))
        };
        let (x0, x1) = fold(&mut pts.iter().map(|p| p.0));
        let (y0, y1) = fold(&mut pts.iter().map(|p| p.1).chain(hl));
        let (x0, x1) = if x1 > x0 { (x0, x1) } else { (x0 - 1.0, x0 + 1.0) };
        let (y0, y1) = if y1 > y0 { (y0, y1) } else { (y0 - 1.0, y0 + 1.0) };
        let span = y1 - y0;
        let (y0, y1) = (y0 - 0.05 * span, y1 + 0.3 * span);
        vsr2d::chart::render(spec.name, (WIDTH, HEIGHT), |root| {
            let mut chart = ChartBuilder::on(root)
                .caption(spec.title, title_style())
                .margin(14)
                .x_label_area_size(52)
                .y_label_area_size(78)
                .build_cartesian_2d(x0..x1, y0..y1)?;
            chart
                .configure_mesh()
                .report_look()
                .x_desc(spec.x_desc)
                .y_desc(spec.y_desc)
                .x_labels(10)
                .y_labels(8)
                .x_label_formatter(&|v| compact(*v))
                .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
                .draw()?;
            draw_all!(chart, spec, x0, x1);
            Ok(())
        })
        .map(Some)
    }
}

/// `c` mixed half-way with white.
fn pale(c: RGBColor) -> RGBColor {
    let m = |v: u8| (f64::from(v) + 0.5 * (255.0 - f64::from(v))).round() as u8;
    RGBColor(m(c.0), m(c.1), m(c.2))
}

fn push(out: &mut Vec<Chart>, file: &str, title: &str, caption: String, image: Option<RgbImage>) {
    if let Some(image) = image {
        out.push(Chart { file_name: file.into(), title: title.into(), caption, image });
    }
}

/// The force–deflection charts.
pub fn fd_charts(fd: &FdData) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    for log in [false, true] {
        let mut series = Vec::new();
        let mut runs: Vec<_> = fd.runs.iter().filter_map(|r| r.result.as_ref().map(|res| (r.pressure, res))).collect();
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = runs.len();
        for (i, (c, r)) in runs.iter().enumerate() {
            // A sequential ramp: C is ordered, and seven curves outnumber the qualitative palette.
            let color = ramp_color(if n > 1 { i as f64 / (n - 1) as f64 } else { 0.0 });
            let ok = |p: &(f64, f64)| !log || (p.0 > 0.0 && p.1 > 0.0);
            let load: Vec<(f64, f64)> =
                std::iter::once((0.0, 0.0)).chain(r.loading().map(|l| (l.delta, l.bar_force))).filter(ok).collect();
            series.push(Series {
                label: Some(format!("C {}", compact(*c))),
                color,
                dash: false,
                width: 2,
                markers: true,
                points: load,
            });
            if !log {
                let mut unload: Vec<(f64, f64)> =
                    r.levels.iter().filter(|l| l.phase == Phase::Unload).map(|l| (l.delta, l.bar_force)).collect();
                if let Some(last) = r.loading().last() {
                    unload.insert(0, (last.delta, last.bar_force));
                }
                series.push(Series {
                    label: None,
                    color: pale(color),
                    dash: false,
                    width: 1,
                    markers: false,
                    points: unload,
                });
            }
            let d = 2.0 * r.radius;
            let model =
                vsr2d::model::cell::stadium::Stadium::of(&vsr2d::model::cell::CellParams { pressure: *c, ..fd.params });
            let top = r.loading().map(|l| l.delta).fold(0.0, f64::max).max(0.5 * d);
            // On log axes the model starts at half the first level, where the measured curve starts.
            let first = if log { 0.5 * r.loading().next().map_or(0.0, |l| l.delta) } else { 0.0 };
            let m: Vec<(f64, f64)> = (1..=100)
                .map(|k| top * k as f64 / 100.0)
                .filter(|x| *x >= first)
                .filter_map(|x| model.bar_force(x).map(|f| (x, f)))
                .filter(ok)
                .collect();
            series.push(Series { label: None, color, dash: true, width: 2, markers: false, points: m });
        }
        if let Some(last) = series.last() {
            // One legend entry for every dashed model line.
            series.push(Series {
                label: Some("stadium model §14 (dashed, same colour)".into()),
                color: RGBColor(90, 90, 90),
                dash: true,
                width: 2,
                markers: false,
                points: vec![*last.points.first().unwrap_or(&(1.0, 1.0))],
            });
        }
        let (file, title) = if log {
            ("fd_loglog.png", "Force–deflection, log–log (loading)")
        } else {
            ("fd_linear.png", "Force–deflection: loading and unloading")
        };
        let image = draw(Spec {
            name: file,
            title,
            x_desc: if log { "deflection δ (m, log scale)" } else { "deflection δ (m)" },
            y_desc: if log { "bar force F_bar (N, log scale)" } else { "bar force F_bar (N)" },
            log,
            series,
            hlines: Vec::new(),
        })?;
        let caption = format!(
            "cf. the paper's Fig. 3b. Solid with dots: measured loading levels ({} levels to 0.5·D, {} solver substeps){}; dashed, same colour: the stadium model (§14).",
            fd.levels,
            fd.substeps,
            if log { "" } else { "; thin pale line: unloading" }
        );
        push(&mut out, file, title, caption, image);
    }
    Ok(out)
}

/// The timing charts.
pub fn timing_charts(t: &TimingData) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    let real = HLine { y: 20.0, label: "20 ms: real time at dt = 1/50 s".into(), color: RGBColor(200, 30, 30) };
    let cells: Vec<(f64, f64)> = t.rows(CellSeries::Cells).map(|r| (r.cells as f64, r.ms_per_step)).collect();
    let mut series = vec![Series {
        label: Some("measured (mean of repeats)".into()),
        color: palette(0),
        dash: false,
        width: 2,
        markers: true,
        points: cells.clone(),
    }];
    if let Some(f) = t.report.fit {
        let fit: Vec<(f64, f64)> = (0..=40)
            .map(|k| 10f64.powf(k as f64 / 10.0))
            .filter(|x| *x >= 10.0 && *x <= cells.last().map_or(1.0, |p| p.0))
            .map(|x| (x, f.intercept_ms + f.slope_ms_per_cell * x))
            .filter(|p| p.1 > 0.0)
            .collect();
        series.push(Series {
            label: Some(format!(
                "linear fit (≥ 10 cells): {} ms + {} ms·cells, R² {}",
                tick(f.intercept_ms),
                tick(f.slope_ms_per_cell),
                compact((f.r2 * 1e4).round() / 1e4)
            )),
            color: palette(1),
            dash: true,
            width: 2,
            markers: false,
            points: fit,
        });
    }
    let title = "Cost per step against the number of cells (N 100)";
    let image = draw(Spec {
        name: "timing_cells.png",
        title,
        x_desc: "cells (log scale)",
        y_desc: "wall time per step (ms, log scale)",
        log: true,
        series,
        hlines: vec![real.clone()],
    })?;
    push(&mut out, "timing_cells.png", title, "cf. the paper's Fig. 4: a square grid of separated scs-paper cells (N 100, dt 1/50 s) moving at random; mean over repeats after warm-up steps. Dashed red: 20 ms, the real-time limit at 50 Hz.".into(), image);
    let res: Vec<(f64, f64)> =
        t.rows(CellSeries::Resolution).map(|r| (r.bodies_per_cell as f64, r.ms_per_step)).collect();
    let title = "Cost per step of one cell against its resolution N";
    let image = draw(Spec {
        name: "timing_resolution.png",
        title,
        x_desc: "bodies per cell N (log scale)",
        y_desc: "wall time per step (ms, log scale)",
        log: true,
        series: vec![Series {
            label: Some("one cell".into()),
            color: palette(2),
            dash: false,
            width: 2,
            markers: true,
            points: res,
        }],
        hlines: Vec::new(),
    })?;
    push(
        &mut out,
        "timing_resolution.png",
        title,
        "One scs-paper cell of N bodies (R 5), mean over repeats, each at the stepping a scenario of that cell gets (column k × n of the table: engine steps × solver substeps per step; one engine step of 16 substeps up to N 1000 at C 450, the pressure recomputed in every substep).".into(),
        image,
    );
    Ok(out)
}

/// The demonstrations' time series.
pub fn demo_charts(d: &DemoData) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    let series = d
        .bounce
        .iter()
        .enumerate()
        .map(|(i, b)| Series {
            label: Some(format!(
                "C {} (peak {} at t = {} s)",
                compact(b.pressure),
                compact((b.peak_flattening * 1e3).round() / 1e3),
                compact((b.peak_t * 100.0).round() / 100.0)
            )),
            color: palette(i),
            dash: i > 0,
            width: 2,
            markers: false,
            points: b.t.iter().copied().zip(b.flattening.iter().copied()).collect(),
        })
        .collect();
    let title = "Bounce: flattening 1 − H/W against time";
    let image = draw(Spec {
        name: "bounce_flattening.png",
        title,
        x_desc: "time t (s)",
        y_desc: "flattening 1 − H/W",
        log: false,
        series,
        hlines: Vec::new(),
    })?;
    push(&mut out, "bounce_flattening.png", title, "A scs-paper cell dropped on flat ground under gravity (0, −9.8) (cell-single.json) at C 50 and C 450; H and W are the height and width of the cell's bounding box. The peak is the largest value over the run (here the cell lands without rebounding and sags to its static shape).".into(), image);

    let c = &d.connect;
    let mut hl = Vec::new();
    let series = vec![Series {
        label: Some("centre distance".into()),
        color: palette(0),
        dash: false,
        width: 2,
        markers: false,
        points: c.t.iter().copied().zip(c.distance.iter().copied()).collect(),
    }];
    if let Some(at) = c.distance_at_release {
        hl.push(HLine {
            y: at,
            label: format!("distance at the release (t = {} s)", compact(c.release_t.unwrap_or(0.0))),
            color: RGBColor(120, 120, 120),
        });
    }
    let title = "Connect and release: centre distance against time";
    let image = draw(Spec {
        name: "connect_distance.png",
        title,
        x_desc: "time t (s)",
        y_desc: "centre distance (m)",
        log: false,
        series,
        hlines: hl,
    })?;
    push(&mut out, "connect_distance.png", title, "Two scs-paper cells with one connector each (cells-connect.json): they attract and bind, then one connector is switched off and a push applied.".into(), image);

    let ch = &d.chain;
    let series = vec![Series {
        label: Some("end-to-end angle".into()),
        color: palette(3),
        dash: false,
        width: 2,
        markers: false,
        points: ch.t.iter().copied().zip(ch.angle_deg.iter().copied()).collect(),
    }];
    let title = "Muscle chain: end-to-end angle against time";
    let image = draw(Spec {
        name: "chain_angle.png",
        title,
        x_desc: "time t (s)",
        y_desc: "end-to-end angle (degrees)",
        log: false,
        series,
        hlines: Vec::new(),
    })?;
    push(&mut out, "chain_angle.png", title, format!("The {}-cell chain of cells-muscle-chain.json; angle between the first link (centre 0 → 1) and the last (centre {} → {}); muscles commanded from t = {} s.", ch.cells, ch.cells.saturating_sub(2), ch.cells.saturating_sub(1), ch.muscle_t.map_or("–".into(), compact)), image);
    Ok(out)
}

pub fn fold_charts(f: &FoldingSection) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    let series = f
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| Series {
            label: Some(format!("{} (final {})", r.letter, compact((r.metrics.final_error * 1e3).round() / 1e3))),
            color: palette(i),
            dash: false,
            width: 2,
            markers: false,
            points: r.series.clone(),
        })
        .collect();
    let hlines = vec![HLine {
        y: MAX_ERROR_D,
        label: format!("acceptance {}·D", compact(MAX_ERROR_D)),
        color: RGBColor(120, 120, 120),
    }];
    let title = "Self-folding: RMS centre error to the letter against time";
    let image = draw(Spec {
        name: "fold_error.png",
        title,
        x_desc: "time t (s)",
        y_desc: "RMS centre error / D",
        log: false,
        series,
        hlines,
    })?;
    push(&mut out, "fold_error.png", title, format!("Cell centres against the letter's lattice points after the best rotation and translation (no scale, no reflection), in units of the cell diameter D; frictionless, gravity-free stop chains laid out with their joints open (cells-fold-<letter>.json), every site connector on from t = 0. The programs are a {}.", f.caption), image);
    Ok(out)
}
