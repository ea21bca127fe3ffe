//! Charts of the POM report in the style of the paper's Figures 5–7: desired foot displacements
//! (Fig. 5), required actuator displacements with their ±range band and expected marker displacements
//! (Fig. 6), and markers predicted by POM with aligned motion capture laid over them (Fig. 7).
//!
//! Drawn with the shared helpers of [`vsr2d::chart`]; actuators keep the colours the three-view
//! drawing gives them. Each function returns `Ok(None)` when the run has nothing to plot.

use image::RgbImage;
use plotters::prelude::*;

use crate::figure::Chart;
use vsr2d::chart::draw::{draw_legend, look_series};
use vsr2d::chart::look::{palette, sparse_markers, Line, LineLook};
use vsr2d::chart::{label_style, title_style, Area, DrawResult, PlotError, ReportMesh};
use vsr2d::format::{compact, tick};
use vsr2d::pom::align::Comparison;
use vsr2d::pom::geometry::AXIS_NAMES;
use vsr2d::pom::model::Role;
use vsr2d::pom::PomRun;
use vsr2d::render::lattice::control_color;

/// Chart size in pixels.
pub const WIDTH: u32 = 900;
pub const HEIGHT: u32 = 460;

fn mm(v: f64) -> f64 {
    v * 1e3
}

/// Every chart of a run, in report order.
pub fn charts(run: &PomRun) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    let mut push = |file: &str, title: &str, caption: &str, image: Option<RgbImage>| {
        if let Some(image) = image {
            out.push(Chart { file_name: file.into(), title: title.into(), caption: caption.into(), image });
        }
    };
    let t = "Desired foot displacements (cf. paper Fig. 5)";
    push(
        "fig5_desired_feet.png",
        t,
        "The targets given to the inverse kinematics: back feet along the ground (x, y), front feet vertically (z). \
         Components left free are not drawn.",
        desired_feet(run, t)?,
    );
    let t = "Required actuator displacements q(t) (cf. paper Fig. 6)";
    push(
        "fig6_actuators.png",
        t,
        "q > 0 moves a control node along +push (its actuator extends). The gray band is the controls' range \
         (the prototype's ±5 mm per node).",
        actuators(run, t)?,
    );
    let t = "Expected marker displacements (cf. paper Fig. 6)";
    push(
        "fig6_markers.png",
        t,
        "The markers' x and y displacements in the body frame, predicted by POM from the actuator sequence.",
        markers(run, t)?,
    );
    Ok(out)
}

/// Time and min/max of a set of lines, padded.
fn ranges(lines: &[Line], floor: f64) -> (f64, f64, f64, f64) {
    let t0 = lines.iter().flat_map(|l| l.points.first().map(|p| p.0)).fold(f64::INFINITY, f64::min);
    let t1 = lines.iter().flat_map(|l| l.points.last().map(|p| p.0)).fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = (lo.min(-floor), hi.max(floor));
    let span = hi - lo;
    let (t0, t1) = if t0.is_finite() && t1 > t0 { (t0, t1) } else { (0.0, 1.0) };
    (t0, t1, lo - 0.08 * span, hi + 0.25 * span)
}

/// A time chart of lines in mm, with an optional gray band [lo, hi] (mm).
fn time_chart(
    name: &str,
    title: &str,
    y_desc: &str,
    lines: Vec<Line>,
    band: Option<(f64, f64)>,
) -> Result<Option<RgbImage>, PlotError> {
    if lines.iter().all(|l| l.points.is_empty()) {
        return Ok(None);
    }
    let lines: Vec<Line> = lines.into_iter().filter(|l| !l.points.is_empty()).collect();
    let floor = band.map_or(0.5, |(lo, hi)| lo.abs().max(hi.abs()));
    let (t0, t1, y0, y1) = ranges(&lines, floor);
    // Values the spec's bounds keep out (±1e3 m, ±1e6 s), as a net: an axis of 10³⁰⁸ never ends its ticks.
    if ![t0, t1, y0, y1, y1 - y0, t1 - t0].iter().all(|v| v.is_finite() && v.abs() < 1e12) {
        return Ok(None);
    }
    let n = lines.len();
    vsr2d::chart::render(name, (WIDTH, HEIGHT), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, title_style())
            .margin(14)
            .x_label_area_size(48)
            .y_label_area_size(70)
            .build_cartesian_2d(t0..t1, y0..y1)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("time t (s)")
            .y_desc(y_desc)
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|v| compact(*v))
            .y_label_formatter(&|v| tick(if v.abs() < 1e-9 { 0.0 } else { *v }))
            .draw()?;
        if let Some((lo, hi)) = band {
            chart
                .draw_series(std::iter::once(Rectangle::new([(t0, lo), (t1, hi)], RGBColor(232, 232, 232).filled())))?;
        }
        chart.draw_series(LineSeries::new(vec![(t0, 0.0), (t1, 0.0)], RGBColor(150, 150, 150).stroke_width(1)))?;
        for (i, line) in lines.iter().enumerate() {
            let marks = sparse_markers(&line.points, i, n);
            look_series!(chart, line.points, marks, line.look, line.label.clone());
        }
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
    .map(Some)
}

fn rgb(c: vsr2d::render::Rgba) -> RGBColor {
    RGBColor(c.r, c.g, c.b)
}

/// Fig. 5: every specified target component of a foot (or of any effector when no foot has one).
pub fn desired_feet(run: &PomRun, title: &str) -> Result<Option<RgbImage>, PlotError> {
    let s = &run.solution;
    if s.targets.is_empty() {
        return Ok(None);
    }
    let m = &run.model;
    let rows: Vec<usize> =
        (0..m.rows()).filter(|&r| s.targets.iter().any(|t| t.get(r).is_some_and(Option::is_some))).collect();
    let feet: Vec<usize> = rows.iter().copied().filter(|&r| m.effectors()[r / 3].role == Role::Foot).collect();
    let rows = if feet.is_empty() { rows } else { feet };
    let lines = rows
        .iter()
        .enumerate()
        .map(|(i, &r)| Line {
            label: m.row_name(r),
            look: LineLook::nth(i, palette(i)),
            points: s
                .times
                .iter()
                .zip(&s.targets)
                .filter_map(|(t, x)| x.get(r).copied().flatten().map(|v| (*t, mm(v))))
                .collect(),
        })
        .collect();
    time_chart("fig5_desired_feet", title, "desired displacement (mm)", lines, None)
}

/// Fig. 6 left: q_i(t) in the controls' colours over the range band.
pub fn actuators(run: &PomRun, title: &str) -> Result<Option<RgbImage>, PlotError> {
    let m = &run.model;
    let s = &run.solution;
    let lines = m
        .controls()
        .iter()
        .enumerate()
        .map(|(i, c)| Line {
            label: format!("q {}", c.id),
            look: LineLook::nth(i, rgb(control_color(&c.id, i))),
            points: s.times.iter().zip(&s.q).map(|(t, q)| (*t, mm(q[i]))).collect(),
        })
        .collect();
    let lo = m.controls().iter().map(|c| c.range[0]).fold(f64::INFINITY, f64::min);
    let hi = m.controls().iter().map(|c| c.range[1]).fold(f64::NEG_INFINITY, f64::max);
    let band = (lo.is_finite() && hi.is_finite()).then(|| (mm(lo), mm(hi)));
    time_chart("fig6_actuators", title, "control displacement q (mm)", lines, band)
}

/// Fig. 6 right: the markers' x and y displacements.
pub fn markers(run: &PomRun, title: &str) -> Result<Option<RgbImage>, PlotError> {
    let m = &run.model;
    let s = &run.solution;
    let mut lines = Vec::new();
    for (j, e) in m.effectors().iter().enumerate().filter(|(_, e)| e.role == Role::Marker) {
        for k in 0..2 {
            let i = lines.len();
            lines.push(Line {
                label: format!("{}.{}", e.id, AXIS_NAMES[k]),
                look: LineLook::nth(i, palette(i)),
                points: s.times.iter().zip(&s.x).map(|(t, x)| (*t, mm(x[3 * j + k]))).collect(),
            });
        }
    }
    time_chart("fig6_markers", title, "marker displacement (mm)", lines, None)
}

/// Fig. 7: per marker, POM's aligned prediction (solid) and the aligned mocap (dashed), x and y, about
/// their time means.
pub fn mocap_overlay(names: &[String], cmp: &Comparison) -> Result<Option<RgbImage>, PlotError> {
    if cmp.times.len() < 2 || names.is_empty() {
        return Ok(None);
    }
    let k = names.len();
    let cols = if k > 1 { 2 } else { 1 };
    let rows = k.div_ceil(cols);
    let (lo, hi) = cmp
        .data
        .iter()
        .chain(&cmp.model)
        .flatten()
        .flat_map(|p| [p[0], p[1]])
        .fold((0.0f64, 0.0f64), |(l, h), v| (l.min(mm(v)), h.max(mm(v))));
    let span = (hi - lo).max(0.1);
    let (y0, y1) = (lo - 0.08 * span, hi + 0.3 * span);
    let (t0, t1) = (cmp.times[0], cmp.times[cmp.times.len() - 1]);
    let height = 360 * rows as u32 + 40;
    let draw = |root: &Area<'_>| -> DrawResult {
        let root = root.titled(
            &format!(
                "Markers: POM prediction (solid) and aligned motion capture (dashed), RMS {:.3} mm (cf. paper Fig. 7)",
                mm(cmp.rms)
            ),
            title_style(),
        )?;
        for (i, area) in root.split_evenly((rows, cols)).iter().enumerate().take(k) {
            let mut chart = ChartBuilder::on(area)
                .caption(&names[i], label_style())
                .margin(10)
                .x_label_area_size(40)
                .y_label_area_size(64)
                .build_cartesian_2d(t0..t1, y0..y1)?;
            chart
                .configure_mesh()
                .report_look()
                .x_desc("time t (s)")
                .y_desc("displacement (mm)")
                .x_labels(8)
                .y_labels(6)
                .x_label_formatter(&|v| compact(*v))
                .y_label_formatter(&|v| tick(if v.abs() < 1e-9 { 0.0 } else { *v }))
                .draw()?;
            for axis in 0..2 {
                let color = palette(axis);
                let model: Vec<(f64, f64)> =
                    cmp.times.iter().zip(&cmp.model).map(|(t, f)| (*t, mm(f[i][axis]))).collect();
                let data: Vec<(f64, f64)> =
                    cmp.times.iter().zip(&cmp.data).map(|(t, f)| (*t, mm(f[i][axis]))).collect();
                let solid = LineLook { color, dash: None, marker: None, hollow: false, width: 3 };
                let dashed = LineLook { color, dash: Some((8, 5)), marker: None, hollow: false, width: 2 };
                let none: Vec<(f64, f64)> = Vec::new();
                look_series!(chart, model, none, solid, format!("{} POM", AXIS_NAMES[axis]));
                look_series!(chart, data, none, dashed, format!("{} mocap", AXIS_NAMES[axis]));
            }
            draw_legend!(chart, SeriesLabelPosition::UpperRight);
        }
        Ok(())
    };
    vsr2d::chart::render("fig7_mocap", (WIDTH + 200, height), draw).map(Some)
}
