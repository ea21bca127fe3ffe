//! Charts of the cantilever report, in the spirit of the paper's Figures 5 and 6: static deflection
//! against f_s and against scaffolding, and δ(t) after the impulse per f_s and per scaffolding (the
//! comparison with the original has its own charts in [`super::reference_plots`]).
//!
//! Drawn with [`vsr2d::chart`] (headless, embedded font, same pixels on every machine). Each
//! chart function returns `Ok(None)` when it has nothing to draw.

use image::RgbImage;
use plotters::coord::ranged1d::{IntoSegmentedCoord, SegmentValue};
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::data::{CantileverData, DynamicRun, StaticRun};
use super::locomotion::LocomotionComparison;
use super::select::{
    dynamic_fs_sweep, dynamic_scaffolding_sweep, same_fs, scaffolding_sweep_fs, size_sweep_fs, sizes_of,
    static_fs_sweep, static_scaffolding_sweep,
};
use crate::fit::power_law_constant;
use vsr2d::chart::axes::{log_range, log_ticks};
use vsr2d::chart::draw::{draw_legend, look_series, marker_series};
use vsr2d::chart::look::{marker_kind, palette, ramp_color, series_width, sparse_markers, Line, LineLook};
use vsr2d::chart::{tick_style, title_style, Area, DrawResult, ReportMesh};
use vsr2d::format::{compact, tick};
use vsr2d::model::voxel::scaffolding::Scaffolding;

pub use vsr2d::chart::PlotError;

/// Chart size in pixels.
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 500;

/// Draws into a white RGB buffer of the chart size.
pub(super) fn render(chart: &str, draw: impl FnOnce(&Area<'_>) -> DrawResult) -> Result<RgbImage, PlotError> {
    vsr2d::chart::render(chart, (WIDTH, HEIGHT), draw)
}

/// Which figure of the report a chart belongs to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChartKind {
    StaticVsFs,
    StaticVsScaffolding,
    DynamicVsFs {
        w: u32,
        h: u32,
    },
    DynamicVsScaffolding {
        w: u32,
        h: u32,
    },
    /// vsr2d `legacy-1.0` against the original 2D-VSR-Sim 1.0.0.
    ReferenceStaticVsFs,
    ReferenceStaticVsScaffolding,
    ReferenceDynamic {
        w: u32,
        h: u32,
        fs_hz: f64,
    },
}

/// A drawn chart of one [`ChartKind`] and the file name the report gives it. Not a
/// [`crate::figure::Chart`]: it has no caption of its own, since the page numbers captions by kind and
/// place (Figure 5a, 6b, …) once every chart is known.
#[derive(Debug, Clone)]
pub struct CantileverChart {
    pub kind: ChartKind,
    pub file_name: String,
    pub title: String,
    pub image: RgbImage,
}

/// Every chart the data allows, in report order.
pub fn charts(data: &CantileverData) -> Result<Vec<CantileverChart>, PlotError> {
    let mut out = Vec::new();
    if let Some(image) = static_vs_fs(&data.static_runs)? {
        out.push(CantileverChart {
            kind: ChartKind::StaticVsFs,
            file_name: "static_vs_fs.png".into(),
            title: static_fs_title(),
            image,
        });
    }
    if let Some(image) = static_vs_scaffolding(&data.static_runs)? {
        out.push(CantileverChart {
            kind: ChartKind::StaticVsScaffolding,
            file_name: "static_vs_scaffolding.png".into(),
            title: static_scaffolding_title(&data.static_runs),
            image,
        });
    }
    let mut sizes: Vec<(u32, u32)> = data.dynamic_runs.iter().map(|r| (r.w, r.h)).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for &(w, h) in &sizes {
        if let Some(image) = dynamic_vs_fs(&data.dynamic_runs, (w, h))? {
            out.push(CantileverChart {
                kind: ChartKind::DynamicVsFs { w, h },
                file_name: format!("dynamic_vs_fs_{w}x{h}.png"),
                title: dynamic_fs_title((w, h)),
                image,
            });
        }
    }
    for &(w, h) in &sizes {
        if let Some(image) = dynamic_vs_scaffolding(&data.dynamic_runs, (w, h))? {
            out.push(CantileverChart {
                kind: ChartKind::DynamicVsScaffolding { w, h },
                file_name: format!("dynamic_vs_scaffolding_{w}x{h}.png"),
                title: dynamic_scaffolding_title(&data.dynamic_runs, (w, h)),
                image,
            });
        }
    }
    Ok(out)
}

fn static_fs_title() -> String {
    "Static deflection vs spring frequency (all groups)".into()
}

fn static_scaffolding_title(runs: &[StaticRun]) -> String {
    match scaffolding_sweep_fs(runs.iter().filter(|r| r.scaffolding != Scaffolding::ALL).map(|r| r.fs_hz)) {
        Some(fs) => format!("Static deflection vs scaffolding (f_s = {} Hz)", compact(fs)),
        None => "Static deflection vs scaffolding".into(),
    }
}

fn dynamic_fs_title(size: (u32, u32)) -> String {
    format!("Tip displacement after the impulse, {}×{} beam, all groups", size.0, size.1)
}

fn dynamic_scaffolding_title(runs: &[DynamicRun], size: (u32, u32)) -> String {
    let fs = size_sweep_fs(runs.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz)));
    match fs {
        Some(fs) => format!("Tip displacement after the impulse, {}×{} beam, f_s = {} Hz", size.0, size.1, compact(fs)),
        None => format!("Tip displacement after the impulse, {}×{} beam", size.0, size.1),
    }
}

// ---------------------------------------------------------------------------------------------------
// Colours: one fixed colour per size and per scaffolding set, and a sequential ramp over f_s, so the
// same series has the same colour in every chart.

pub(super) fn size_color(sizes: &[(u32, u32)], size: (u32, u32)) -> RGBColor {
    palette(sizes.iter().position(|s| *s == size).unwrap_or(0))
}

fn scaffolding_color(s: Scaffolding) -> RGBColor {
    match s {
        Scaffolding::EC => RGBColor(0xd6, 0x27, 0x28),
        Scaffolding::EIC => RGBColor(0xe6, 0x9f, 0x00),
        Scaffolding::EIX => RGBColor(0x2c, 0xa0, 0x2c),
        Scaffolding::ALL => RGBColor(0x1f, 0x77, 0xb4),
        _ => RGBColor(0x70, 0x70, 0x70),
    }
}
fn fs_color(all_fs: &[f64], fs: f64) -> RGBColor {
    let i = all_fs.iter().position(|f| same_fs(*f, fs)).unwrap_or(0);
    let n = all_fs.len().max(2) - 1;
    ramp_color(i as f64 / n as f64)
}

/// One size's points of a static chart.
type SizeSeries<X> = ((u32, u32), Vec<(X, f64)>);
/// The log-log axes of a static |δ| vs f_s chart, mesh drawn (the main chart and the comparison chart).
macro_rules! static_fs_chart {
    ($root:expr, $title:expr, ($x0:expr, $x1:expr, $x_ticks:expr), ($y0:expr, $y1:expr, $y_ticks:expr)) => {{
        let mut chart = ChartBuilder::on($root)
            .caption($title, title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(
                ($x0..$x1).log_scale().with_key_points($x_ticks.clone()),
                ($y0..$y1).log_scale().with_key_points($y_ticks.clone()),
            )?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("spring frequency f_s (Hz, log scale)")
            .y_desc("|δ| at the end of the static load (m, log scale)")
            .x_label_formatter(&|v| compact(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()?;
        chart
    }};
}
pub(super) use static_fs_chart;

// ---------------------------------------------------------------------------------------------------
// The four chart kinds.

/// Static |δ| against f_s on log-log axes, one series per size (all groups), with a 1/f_s² guide.
pub fn static_vs_fs(runs: &[StaticRun]) -> Result<Option<RgbImage>, PlotError> {
    let sizes = sizes_of(runs.iter().map(|r| (r.w, r.h)));
    let series: Vec<SizeSeries<f64>> = sizes
        .iter()
        .map(|&s| {
            let pts = static_fs_sweep(runs, s)
                .into_iter()
                .map(|(f, d)| (f, d.abs()))
                .filter(|(f, d)| *f > 0.0 && d.is_finite() && *d > 0.0)
                .collect::<Vec<_>>();
            (s, pts)
        })
        .filter(|(_, p)| !p.is_empty())
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    // Guide ∝ 1/f_s² through the geometric mean of the softest series, shifted up ×2 to stay clear.
    let top = series
        .iter()
        .max_by(|a, b| power_law_constant(&a.1, 2.0).total_cmp(&power_law_constant(&b.1, 2.0)))
        .map(|s| power_law_constant(&s.1, 2.0) * 2.0)
        .unwrap_or(1.0);
    let all_fs: Vec<f64> = {
        let mut v: Vec<f64> = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).collect();
        v.sort_by(f64::total_cmp);
        v.dedup_by(|a, b| same_fs(*a, *b));
        v
    };
    let (fs_lo, fs_hi) = (all_fs[0], all_fs[all_fs.len() - 1]);
    let guide: Vec<(f64, f64)> = if all_fs.len() >= 2 {
        (0..=40).map(|i| fs_lo * (fs_hi / fs_lo).powf(i as f64 / 40.0)).map(|f| (f, top / (f * f))).collect()
    } else {
        Vec::new()
    };
    let (x0, x1) = log_range(all_fs.iter().copied(), 1.12).unwrap_or((1.0, 10.0));
    let Some((y0, y1)) =
        log_range(series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).chain(guide.iter().map(|p| p.1)), 1.4)
    else {
        return Ok(None);
    };
    let x_ticks: Vec<f64> = if all_fs.len() <= 12 { all_fs.clone() } else { log_ticks(x0, x1) };
    let y_ticks = log_ticks(y0, y1);

    render("static_vs_fs", |root| {
        let mut chart = static_fs_chart!(root, static_fs_title(), (x0, x1, &x_ticks), (y0, y1, &y_ticks));
        if !guide.is_empty() {
            chart
                .draw_series(DashedLineSeries::new(guide.clone(), 8, 6, RGBColor(120, 120, 120).stroke_width(2)))?
                .label("∝ 1/f_s² (guide)")
                .legend(|(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 24, y)], 8, 6, RGBColor(120, 120, 120).stroke_width(2))
                });
        }
        for (i, (size, pts)) in series.iter().enumerate() {
            let color = size_color(&sizes, *size);
            marker_series!(
                chart,
                pts,
                marker_kind(i),
                color,
                series_width(i, series.len()),
                format!("{}×{}", size.0, size.1)
            );
        }
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
    .map(Some)
}

/// Static |δ| of the four paper sets (E+C, E+I+C, E+I+X, all) at the scaffolding-sweep f_s, one
/// series per size, log y axis so the sizes (8× apart) share one chart.
pub fn static_vs_scaffolding(runs: &[StaticRun]) -> Result<Option<RgbImage>, PlotError> {
    let sizes = sizes_of(runs.iter().map(|r| (r.w, r.h)));
    let mut series: Vec<SizeSeries<SegmentValue<i32>>> = Vec::new();
    for &size in &sizes {
        let fs = size_sweep_fs(runs.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz)));
        let Some(fs) = fs else { continue };
        let pts: Vec<(SegmentValue<i32>, f64)> = static_scaffolding_sweep(runs, size, fs)
            .into_iter()
            .filter(|(_, d)| d.is_finite() && *d != 0.0)
            .filter_map(|(s, d)| {
                let i = Scaffolding::PAPER_SETS.iter().position(|p| *p == s)? as i32;
                Some((SegmentValue::CenterOf(i), d.abs()))
            })
            .collect();
        if !pts.is_empty() {
            series.push((size, pts));
        }
    }
    if series.is_empty() {
        return Ok(None);
    }
    let Some((y0, y1)) = log_range(series.iter().flat_map(|s| s.1.iter().map(|p| p.1)), 1.4) else {
        return Ok(None);
    };
    let y_ticks = log_ticks(y0, y1);
    let title = static_scaffolding_title(runs);

    render("static_vs_scaffolding", |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d((0..3).into_segmented(), (y0..y1).log_scale().with_key_points(y_ticks.clone()))?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("scaffolding (spring groups per voxel: 6, 10, 16, 18)")
            .y_desc("|δ| at the end of the static load (m, log scale)")
            .x_labels(4)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => {
                    Scaffolding::PAPER_SETS.get(*i as usize).map(|s| s.to_string()).unwrap_or_default()
                }
                _ => String::new(),
            })
            .y_label_formatter(&|v| tick(*v))
            .disable_x_mesh()
            .draw()?;
        for (i, (size, pts)) in series.iter().enumerate() {
            let color = size_color(&sizes, *size);
            marker_series!(
                chart,
                pts,
                marker_kind(i),
                color,
                series_width(i, series.len()),
                format!("{}×{}", size.0, size.1)
            );
        }
        draw_legend!(chart, SeriesLabelPosition::UpperRight);
        Ok(())
    })
    .map(Some)
}

/// δ(t) of the all-groups runs of one size, one line per f_s (colour ramp shared by every size).
pub fn dynamic_vs_fs(runs: &[DynamicRun], size: (u32, u32)) -> Result<Option<RgbImage>, PlotError> {
    let mut all_fs: Vec<f64> = runs.iter().filter(|r| r.scaffolding == Scaffolding::ALL).map(|r| r.fs_hz).collect();
    all_fs.sort_by(f64::total_cmp);
    all_fs.dedup_by(|a, b| same_fs(*a, *b));
    let lines: Vec<Line> = dynamic_fs_sweep(runs, size)
        .into_iter()
        .enumerate()
        .map(|(i, r)| Line {
            label: format!("f_s {} Hz", compact(r.fs_hz)),
            look: LineLook::nth(i, fs_color(&all_fs, r.fs_hz)),
            points: time_series(r),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    draw_time_chart(&format!("dynamic_vs_fs_{}x{}", size.0, size.1), &dynamic_fs_title(size), lines)
}

/// δ(t) of the four paper sets for one size at the scaffolding-sweep f_s.
pub fn dynamic_vs_scaffolding(runs: &[DynamicRun], size: (u32, u32)) -> Result<Option<RgbImage>, PlotError> {
    let Some(fs) = size_sweep_fs(runs.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz))) else {
        return Ok(None);
    };
    let lines: Vec<Line> = dynamic_scaffolding_sweep(runs, size, fs)
        .into_iter()
        .map(|r| {
            let i = Scaffolding::PAPER_SETS.iter().position(|s| *s == r.scaffolding).unwrap_or(0);
            Line {
                label: format!("scaffolding {}", r.scaffolding),
                look: LineLook::nth(i, scaffolding_color(r.scaffolding)),
                points: time_series(r),
            }
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    draw_time_chart(
        &format!("dynamic_vs_scaffolding_{}x{}", size.0, size.1),
        &dynamic_scaffolding_title(runs, size),
        lines,
    )
}

/// (t, δ) of a run, up to the first non-finite sample (a diverged run is drawn until it diverged).
pub(super) fn time_series(r: &DynamicRun) -> Vec<(f64, f64)> {
    if !(r.dt.is_finite() && r.dt > 0.0) {
        return Vec::new();
    }
    r.dy_m.iter().enumerate().map_while(|(k, d)| d.is_finite().then(|| (r.time(k), *d))).collect()
}

pub(super) fn draw_time_chart(name: &str, title: &str, lines: Vec<Line>) -> Result<Option<RgbImage>, PlotError> {
    if lines.is_empty() {
        return Ok(None);
    }
    let t1 = lines.iter().flat_map(|l| l.points.last().map(|p| p.0)).fold(0.0f64, f64::max);
    let t1 = if t1 > 0.0 { t1 } else { 1.0 };
    let (lo, hi) = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let span = if hi - lo > 0.0 { hi - lo } else { 1e-3 };
    let (y0, y1) = (lo - 0.06 * span, hi + 0.06 * span);
    let n = lines.len();

    render(name, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(0.0..t1, y0..y1)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("time t (s)")
            .y_desc("tip displacement δ (m)")
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|v| compact(*v))
            // Ticks computed as multiples of the step land at ±1e−17 instead of 0: snap them.
            .y_label_formatter(&|v| tick(if v.abs() < 1e-9 * span { 0.0 } else { *v }))
            .draw()?;
        chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (t1, 0.0)], RGBColor(150, 150, 150).stroke_width(1)))?;
        for (i, line) in lines.iter().enumerate() {
            let marks = sparse_markers(&line.points, i, n);
            look_series!(chart, line.points, marks, line.look, line.label.clone());
        }
        draw_legend!(chart, SeriesLabelPosition::LowerRight);
        Ok(())
    })
    .map(Some)
}

/// Original against vsr2d velocity, one point per gait (colour per width), with the identity line and
/// the ±25 % band.
pub fn scatter(c: &LocomotionComparison) -> Result<image::RgbImage, PlotError> {
    use plotters::prelude::*;
    let all = c.rows.iter().flat_map(|r| [r.gait.original_vx, r.vsr2d_vx]);
    let (lo, hi) = all.fold((0.0f64, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let pad = 0.05 * (hi - lo).max(0.1);
    let (lo, hi) = (lo - pad, hi + pad);
    let mut widths: Vec<u32> = c.rows.iter().map(|r| r.gait.w).collect();
    widths.sort_unstable();
    widths.dedup();
    render("locomotion_scatter", |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Worm x velocity: original 2D-VSR-Sim 1.0.0 vs vsr2d legacy-1.0", title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(lo..hi, lo..hi)?;
        chart
            .configure_mesh()
            .report_look()
            .x_desc("original x velocity (m/s), mean over Δt runs")
            .y_desc("vsr2d legacy-1.0 x velocity (m/s), mean over Δt runs")
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.stroke_width(1)))?
            .label("identity")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.stroke_width(1)));
        for k in [0.75, 1.25] {
            // Ended inside the plot: plotters drops a segment that leaves it.
            let end = if k > 1.0 { (hi / k, hi) } else { (hi, k * hi) };
            let band = chart.draw_series(LineSeries::new([(0.0, 0.0), end], grey.stroke_width(1)))?;
            if k > 1.0 {
                band.label("±25 %").legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], grey.stroke_width(1)));
            }
        }
        for (i, w) in widths.iter().enumerate() {
            let color = vsr2d::chart::look::palette(i);
            let points: Vec<(f64, f64)> =
                c.rows.iter().filter(|r| r.gait.w == *w).map(|r| (r.gait.original_vx, r.vsr2d_vx)).collect();
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 5, color.filled())))?
                .label(format!("{w}×3 worms"))
                .legend(move |(x, y)| Circle::new((x + 10, y), 5, color.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(tick_style())
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(180, 180, 180))
            .draw()?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_data_draws_without_panicking() {
        use crate::cantilever::data::ReportSettings;
        let st = |fs: f64, s: Scaffolding, dy: f64| StaticRun {
            w: 3,
            h: 1,
            fs_hz: fs,
            scaffolding: s,
            force_n: 1.0,
            dy_final_m: dy,
        };
        let dy_run = |dt: f64, dy_m: Vec<f64>| DynamicRun {
            w: 3,
            h: 1,
            fs_hz: 8.0,
            scaffolding: Scaffolding::EC,
            force_n: 1.0,
            impulse_steps: 1,
            dt,
            dy_m,
        };
        let data = CantileverData {
            settings: ReportSettings {
                version: String::new(),
                preset: String::new(),
                dt: f64::NAN,
                static_duration_s: 0.0,
                dynamic_duration_s: 0.0,
                static_force_n: 0.0,
                dynamic_force_n: 0.0,
                impulse_s: 0.0,
                voxel_side_m: 0.0,
                solver_iterations: 0,
                convergence_note: String::new(),
                extra: vec![],
            },
            static_runs: vec![
                st(8.0, Scaffolding::ALL, -0.1),
                st(f64::NAN, Scaffolding::ALL, -0.2),
                st(8.0, Scaffolding::EC, 0.0),
                st(8.0, Scaffolding::EIC, f64::INFINITY),
            ],
            dynamic_runs: vec![
                dy_run(0.0, vec![0.0, 1.0]),
                dy_run(0.1, vec![0.0, f64::NAN]),
                dy_run(0.1, vec![0.0; 3]),
            ],
            reference_runs: None,
            locomotion: None,
        };
        let charts = charts(&data).unwrap();
        assert!(charts.iter().any(|c| c.kind == ChartKind::StaticVsFs), "one finite point is still a chart");
        let analysis = crate::cantilever::analysis::analyse(&data);
        assert!(!analysis.sanity.is_empty());
    }

    #[test]
    fn empty_data_draws_nothing() {
        assert!(static_vs_fs(&[]).unwrap().is_none());
        assert!(static_vs_scaffolding(&[]).unwrap().is_none());
        assert!(dynamic_vs_fs(&[], (10, 2)).unwrap().is_none());
        assert!(dynamic_vs_scaffolding(&[], (10, 2)).unwrap().is_none());
    }
}
