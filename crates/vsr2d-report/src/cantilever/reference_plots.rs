//! The charts of the comparison with the original 2D-VSR-Sim 1.0.0: vsr2d `legacy-1.0` solid with
//! filled markers, the original dashed with hollow markers, one colour (and marker shape) per size.

use image::RgbImage;
use plotters::prelude::*;

use super::data::{DynamicRun, ReferenceRuns, StaticRun};
use super::plots::{
    draw_time_chart, render, size_color, static_fs_chart, time_series, CantileverChart, ChartKind, PlotError,
};
use super::reference::{DynamicReference, Reference, StaticReference, CONVERGED_VELOCITY_ITERATIONS};
use super::select::{
    same_fs, scaffolding_sweep_fs, size_sweep_fs, sizes_of, static_fs_sweep, static_scaffolding_sweep,
};
use vsr2d::chart::axes::{legend_headroom, log_range, log_ticks};
use vsr2d::chart::draw::{draw_legend, look_series};
use vsr2d::chart::look::{marker_kind, palette, series_width, Line, LineLook};
use vsr2d::chart::{title_style, ReportMesh};
use vsr2d::format::{compact, tick};
use vsr2d::model::voxel::scaffolding::Scaffolding;

/// Draws each size's vsr2d points (filled, solid) and the original's (hollow, dashed) in the size's
/// colour and marker shape, with legend entries.
macro_rules! paired_series {
    ($chart:expr, $series:expr, $sizes:expr, $legacy_name:expr) => {
        for (i, (size, v, o)) in $series.iter().enumerate() {
            let color = size_color(&$sizes, *size);
            let name = format!("{}×{}", size.0, size.1);
            if !v.is_empty() {
                let look = vsr2d_look(color, Some(marker_kind(i)), series_width(i, $series.len()));
                look_series!($chart, v, v, look, format!("{name} {}", $legacy_name));
            }
            if !o.is_empty() {
                let look = original_look(color, Some(marker_kind(i)), series_width(i, $series.len()));
                look_series!($chart, o, o, look, format!("{name} original"));
            }
        }
    };
}

/// One size's points of a comparison chart: (size, vsr2d's points, the original's points).
type PairedSeries = ((u32, u32), Vec<(f64, f64)>, Vec<(f64, f64)>);

/// Legend name of the original's series.
pub const ORIGINAL_LABEL: &str = "original 2D-VSR-Sim 1.0.0";
const ORIGINAL_DASH: (u32, u32) = (9, 6);
const ORIGINAL_COLOR: RGBColor = RGBColor(25, 25, 25);
/// The original run to convergence: the same dashes, in grey.
const CONVERGED_COLOR: RGBColor = RGBColor(140, 140, 140);

fn vsr2d_label(preset: &str) -> String {
    format!("vsr2d {preset}")
}

fn vsr2d_look(color: RGBColor, marker: Option<usize>, width: u32) -> LineLook {
    LineLook { color, dash: None, marker, hollow: false, width }
}

fn original_look(color: RGBColor, marker: Option<usize>, width: u32) -> LineLook {
    LineLook { color, dash: Some(ORIGINAL_DASH), marker, hollow: true, width }
}

/// The comparison charts the runs allow, in report order.
pub fn reference_charts(runs: &ReferenceRuns, reference: &Reference) -> Result<Vec<CantileverChart>, PlotError> {
    let mut out = Vec::new();
    if let Some(image) = reference_static_vs_fs(&runs.static_runs, &reference.static_runs, &runs.preset)? {
        out.push(CantileverChart {
            kind: ChartKind::ReferenceStaticVsFs,
            file_name: "reference_static_vs_fs.png".into(),
            title: reference_static_fs_title(&runs.preset),
            image,
        });
    }
    if let Some(image) = reference_static_vs_scaffolding(&runs.static_runs, &reference.static_runs, &runs.preset)? {
        out.push(CantileverChart {
            kind: ChartKind::ReferenceStaticVsScaffolding,
            file_name: "reference_static_vs_scaffolding.png".into(),
            title: reference_static_scaffolding_title(&runs.static_runs, &runs.preset),
            image,
        });
    }
    let mut dynamic: Vec<&DynamicRun> = runs.dynamic_runs.iter().collect();
    dynamic.sort_by(|a, b| (a.w, a.h).cmp(&(b.w, b.h)).then(a.fs_hz.total_cmp(&b.fs_hz)));
    for r in dynamic {
        let Some(original) = reference.dynamic_run(r.w, r.h, r.fs_hz, r.scaffolding) else { continue };
        let converged = reference.converged_dynamic_run(r.w, r.h, r.fs_hz, r.scaffolding);
        if let Some(image) = reference_dynamic(r, original, converged, &runs.preset)? {
            out.push(CantileverChart {
                kind: ChartKind::ReferenceDynamic { w: r.w, h: r.h, fs_hz: r.fs_hz },
                file_name: format!("reference_dynamic_{}x{}_{}hz.png", r.w, r.h, compact(r.fs_hz)),
                title: reference_dynamic_title(r, &runs.preset),
                image,
            });
        }
    }
    Ok(out)
}

fn reference_static_fs_title(preset: &str) -> String {
    format!("Static |δ| vs f_s (all groups): vsr2d {preset} and the original")
}

fn reference_static_scaffolding_title(runs: &[StaticRun], preset: &str) -> String {
    match scaffolding_sweep_fs(runs.iter().filter(|r| r.scaffolding != Scaffolding::ALL).map(|r| r.fs_hz)) {
        Some(fs) => format!("Static |δ| vs scaffolding at {} Hz: vsr2d {preset} and the original", compact(fs)),
        None => format!("Static |δ| vs scaffolding: vsr2d {preset} and the original"),
    }
}

fn reference_dynamic_title(run: &DynamicRun, preset: &str) -> String {
    let groups =
        if run.scaffolding == Scaffolding::ALL { "all groups".to_string() } else { run.scaffolding.to_string() };
    format!("δ(t) of {}×{}, f_s {} Hz, {groups}: vsr2d {preset} and the original", run.w, run.h, compact(run.fs_hz))
}

/// |δ| against f_s on log-log axes: per size, vsr2d's runs and the original's at the same f_s.
pub fn reference_static_vs_fs(
    legacy: &[StaticRun],
    original: &[StaticReference],
    preset: &str,
) -> Result<Option<RgbImage>, PlotError> {
    let positive = |(f, d): (f64, f64)| (f > 0.0 && d.is_finite() && d != 0.0).then_some((f, d.abs()));
    let sizes = sizes_of(legacy.iter().filter(|r| r.scaffolding == Scaffolding::ALL).map(|r| (r.w, r.h)));
    let mut series: Vec<PairedSeries> = Vec::new();
    for &size in &sizes {
        let sweep = static_fs_sweep(legacy, size);
        let v: Vec<(f64, f64)> = sweep.iter().copied().filter_map(positive).collect();
        let o: Vec<(f64, f64)> = sweep
            .iter()
            .filter_map(|(f, _)| {
                original
                    .iter()
                    .find(|r| (r.w, r.h) == size && r.scaffolding == Scaffolding::ALL && same_fs(r.fs_hz, *f))
                    .map(|r| (*f, r.dy_center_right_column_m))
            })
            .filter_map(positive)
            .collect();
        if !v.is_empty() || !o.is_empty() {
            series.push((size, v, o));
        }
    }
    if series.is_empty() {
        return Ok(None);
    }
    let mut all_fs: Vec<f64> = series.iter().flat_map(|s| s.1.iter().chain(&s.2).map(|p| p.0)).collect();
    all_fs.sort_by(f64::total_cmp);
    all_fs.dedup_by(|a, b| same_fs(*a, *b));
    let (x0, x1) = log_range(all_fs.iter().copied(), 1.12).unwrap_or((1.0, 10.0));
    let Some((y0, y1)) = log_range(series.iter().flat_map(|s| s.1.iter().chain(&s.2).map(|p| p.1)), 1.5) else {
        return Ok(None);
    };
    let y1 = legend_headroom(y0, y1, series.len());
    let x_ticks: Vec<f64> = if all_fs.len() <= 12 { all_fs.clone() } else { log_ticks(x0, x1) };
    let y_ticks = log_ticks(y0, y1);
    let title = reference_static_fs_title(preset);
    let legacy_name = vsr2d_label(preset);

    render("reference_static_vs_fs", |root| {
        let mut chart = static_fs_chart!(root, title, (x0, x1, &x_ticks), (y0, y1, &y_ticks));
        paired_series!(chart, series, sizes, legacy_name);
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
    .map(Some)
}

/// |δ| of the four paper sets at the scaffolding-sweep f_s, log y: per size (colour, marker shape),
/// vsr2d filled and solid just left of each set, the original hollow and dashed just right of it.
pub fn reference_static_vs_scaffolding(
    legacy: &[StaticRun],
    original: &[StaticReference],
    preset: &str,
) -> Result<Option<RgbImage>, PlotError> {
    let sizes = sizes_of(legacy.iter().map(|r| (r.w, r.h)));
    let mut series: Vec<PairedSeries> = Vec::new();
    let n = sizes.len().max(1) as f64;
    for (k, &size) in sizes.iter().enumerate() {
        let Some(fs) = size_sweep_fs(legacy.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz)))
        else {
            continue;
        };
        let offset = (k as f64 - (n - 1.0) / 2.0) * 0.24;
        let (mut v, mut o) = (Vec::new(), Vec::new());
        for (s, dy) in static_scaffolding_sweep(legacy, size, fs) {
            let Some(i) = Scaffolding::PAPER_SETS.iter().position(|p| *p == s) else { continue };
            let x = i as f64 + offset;
            if dy.is_finite() && dy != 0.0 {
                v.push((x - 0.05, dy.abs()));
            }
            let reference = original.iter().find(|r| (r.w, r.h) == size && r.scaffolding == s && same_fs(r.fs_hz, fs));
            if let Some(r) = reference.filter(|r| r.dy_center_right_column_m != 0.0) {
                o.push((x + 0.05, r.dy_center_right_column_m.abs()));
            }
        }
        if !v.is_empty() || !o.is_empty() {
            series.push((size, v, o));
        }
    }
    if series.is_empty() {
        return Ok(None);
    }
    let Some((y0, y1)) = log_range(series.iter().flat_map(|s| s.1.iter().chain(&s.2).map(|p| p.1)), 1.5) else {
        return Ok(None);
    };
    let y1 = legend_headroom(y0, y1, series.len());
    let y_ticks = log_ticks(y0, y1);
    let title = reference_static_scaffolding_title(legacy, preset);
    let legacy_name = vsr2d_label(preset);

    render("reference_static_vs_scaffolding", |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(-0.5f64..3.5f64, (y0..y1).log_scale().with_key_points(y_ticks.clone()))?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("scaffolding (spring groups per voxel: 6, 10, 16, 18)")
            .y_desc("|δ| at the end of the static load (m, log scale)")
            // At most 5 labels on [−0.5, 3.5]: the integers, one per set.
            .x_labels(5)
            .x_label_formatter(&|v| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && (0.0..4.0).contains(&i) {
                    Scaffolding::PAPER_SETS[i as usize].to_string()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|v| tick(*v))
            .disable_x_mesh()
            .draw()?;
        paired_series!(chart, series, sizes, legacy_name);
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
    .map(Some)
}

/// δ(t) of one dynamic run: vsr2d solid, the original dashed on top (its record starts at rest,
/// δ(0) = 0, like vsr2d's), and, when given, the original run to convergence dashed in grey.
pub fn reference_dynamic(
    legacy: &DynamicRun,
    original: &DynamicReference,
    converged: Option<&DynamicReference>,
    preset: &str,
) -> Result<Option<RgbImage>, PlotError> {
    let points = |run: &DynamicReference| -> Vec<(f64, f64)> {
        run.series_from_rest()
            .iter()
            .enumerate()
            .map_while(|(k, d)| d.is_finite().then_some((k as f64 * run.dt, *d)))
            .collect()
    };
    let mut lines = Vec::new();
    let v = time_series(legacy);
    if !v.is_empty() {
        lines.push(Line { label: vsr2d_label(preset), look: vsr2d_look(palette(0), None, 2), points: v });
    }
    let original_points = points(original);
    if !original_points.is_empty() {
        lines.push(Line {
            label: ORIGINAL_LABEL.into(),
            look: original_look(ORIGINAL_COLOR, None, 2),
            points: original_points,
        });
    }
    if let Some(converged) = converged.map(points).filter(|p| !p.is_empty()) {
        lines.push(Line {
            label: format!("{ORIGINAL_LABEL}, {CONVERGED_VELOCITY_ITERATIONS} velocity iterations"),
            look: original_look(CONVERGED_COLOR, None, 2),
            points: converged,
        });
    }
    let name = format!("reference_dynamic_{}x{}_{}hz", legacy.w, legacy.h, compact(legacy.fs_hz));
    draw_time_chart(&name, &reference_dynamic_title(legacy, preset), lines)
}
