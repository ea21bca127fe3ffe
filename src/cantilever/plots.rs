//! Charts of the cantilever report, in the spirit of the paper's Figures 5 and 6: static deflection
//! against f_s and against scaffolding, and δ(t) after the impulse per f_s and per scaffolding.
//!
//! Headless: plotters draws into an RGB buffer with the embedded DejaVu Sans (no system fonts), so the
//! same data gives the same pixels on every machine. Each chart function returns `Ok(None)` when it has
//! nothing to draw.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use image::RgbImage;
use plotters::coord::ranged1d::{IntoSegmentedCoord, SegmentValue};
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use super::analysis::{
    dynamic_fs_sweep, dynamic_scaffolding_sweep, same_fs, scaffolding_sweep_fs, sig, static_fs_sweep,
    static_scaffolding_sweep,
};
use super::data::{CantileverData, DynamicRun, StaticRun};
use crate::scaffolding::Scaffolding;

/// Chart size in pixels.
pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 500;

const FONT: &str = "sans-serif";
static FONT_BYTES: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fonts/DejaVuSans.ttf"));
static FONT_ONCE: Once = Once::new();
static FONT_OK: AtomicBool = AtomicBool::new(false);

/// Why a chart could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("the embedded chart font could not be loaded")]
    Font,
    #[error("drawing the chart {chart:?} failed: {message}")]
    Draw { chart: String, message: String },
}

/// Registers the embedded font with plotters once per process.
fn ensure_font() -> Result<(), PlotError> {
    FONT_ONCE.call_once(|| {
        FONT_OK.store(register_font(FONT, FontStyle::Normal, FONT_BYTES).is_ok(), Ordering::SeqCst);
    });
    if FONT_OK.load(Ordering::SeqCst) {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Which figure of the report a chart belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    StaticVsFs,
    StaticVsScaffolding,
    DynamicVsFs { w: u32, h: u32 },
    DynamicVsScaffolding { w: u32, h: u32 },
}

/// A drawn chart and the file name the report gives it.
#[derive(Debug, Clone)]
pub struct Chart {
    pub kind: ChartKind,
    pub file_name: String,
    pub title: String,
    pub image: RgbImage,
}

/// Every chart the data allows, in report order.
pub fn charts(data: &CantileverData) -> Result<Vec<Chart>, PlotError> {
    let mut out = Vec::new();
    if let Some(image) = static_vs_fs(&data.static_runs)? {
        out.push(Chart {
            kind: ChartKind::StaticVsFs,
            file_name: "static_vs_fs.png".into(),
            title: static_fs_title(),
            image,
        });
    }
    if let Some(image) = static_vs_scaffolding(&data.static_runs)? {
        out.push(Chart {
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
            out.push(Chart {
                kind: ChartKind::DynamicVsFs { w, h },
                file_name: format!("dynamic_vs_fs_{w}x{h}.png"),
                title: dynamic_fs_title((w, h)),
                image,
            });
        }
    }
    for &(w, h) in &sizes {
        if let Some(image) = dynamic_vs_scaffolding(&data.dynamic_runs, (w, h))? {
            out.push(Chart {
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
        Some(fs) => format!("Static deflection vs scaffolding (f_s = {} Hz)", fmt_num(fs)),
        None => "Static deflection vs scaffolding".into(),
    }
}

fn dynamic_fs_title(size: (u32, u32)) -> String {
    format!("Tip displacement after the impulse, {}×{} beam, all groups", size.0, size.1)
}

fn dynamic_scaffolding_title(runs: &[DynamicRun], size: (u32, u32)) -> String {
    let fs = size_sweep_fs(runs.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz)));
    match fs {
        Some(fs) => format!("Tip displacement after the impulse, {}×{} beam, f_s = {} Hz", size.0, size.1, fmt_num(fs)),
        None => format!("Tip displacement after the impulse, {}×{} beam", size.0, size.1),
    }
}

fn size_sweep_fs(runs: impl Iterator<Item = (Scaffolding, f64)>) -> Option<f64> {
    scaffolding_sweep_fs(runs.filter(|(s, _)| *s != Scaffolding::ALL).map(|(_, f)| f))
}

// ---------------------------------------------------------------------------------------------------
// Colours: one fixed colour per size and per scaffolding set, and a sequential ramp over f_s, so the
// same series has the same colour in every chart.

const SIZE_COLORS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xe6, 0x6a, 0x00),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

fn size_color(sizes: &[(u32, u32)], size: (u32, u32)) -> RGBColor {
    let i = sizes.iter().position(|s| *s == size).unwrap_or(0);
    SIZE_COLORS[i % SIZE_COLORS.len()]
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

/// Viridis stops, cut before the pale yellow end so every line stays visible on white.
fn ramp_color(t: f64) -> RGBColor {
    const STOPS: [(f64, [f64; 3]); 5] = [
        (0.00, [68.0, 1.0, 84.0]),
        (0.25, [59.0, 82.0, 139.0]),
        (0.50, [33.0, 145.0, 140.0]),
        (0.75, [94.0, 201.0, 98.0]),
        (1.00, [190.0, 200.0, 30.0]),
    ];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let i = STOPS.iter().rposition(|s| s.0 <= t).unwrap_or(0).min(STOPS.len() - 2);
    let (t0, c0) = STOPS[i];
    let (t1, c1) = STOPS[i + 1];
    let u = (t - t0) / (t1 - t0);
    let c = |k: usize| (c0[k] + u * (c1[k] - c0[k])).round() as u8;
    RGBColor(c(0), c(1), c(2))
}

fn fs_color(all_fs: &[f64], fs: f64) -> RGBColor {
    let i = all_fs.iter().position(|f| same_fs(*f, fs)).unwrap_or(0);
    let n = all_fs.len().max(2) - 1;
    ramp_color(i as f64 / n as f64)
}

// ---------------------------------------------------------------------------------------------------
// Number and tick formatting.

/// A short, exact-looking label: integers without decimals, others with up to 3 significant digits.
fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e6 {
        format!("{}", v as i64)
    } else {
        sig(v, 3).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Axis tick label for metres (short; scientific outside [1e-3, 1e4)).
fn fmt_tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    if (-3..4).contains(&mag) {
        let decimals = (1 - mag).max(0) as usize;
        let s = format!("{v:.decimals$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
        s.replace('-', "−")
    } else {
        let m = v / 10f64.powi(mag);
        format!("{}e{}", fmt_num((m * 10.0).round() / 10.0), mag).replace('-', "−")
    }
}

/// Ticks at 1, 2, 5 × 10^k inside [lo, hi] (all nine multiples when that gives fewer than three).
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let pick = |mults: &[f64]| {
        let mut v = Vec::new();
        let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        for k in k0..=k1 {
            for m in mults {
                // Divide by an exact power of ten so 5e-3 is the same double as the literal 0.005.
                let x = if k < 0 { m / 10f64.powi(-k) } else { m * 10f64.powi(k) };
                if x >= lo * (1.0 - 1e-9) && x <= hi * (1.0 + 1e-9) {
                    v.push(x);
                }
            }
        }
        v
    };
    let coarse = pick(&[1.0, 2.0, 5.0]);
    if coarse.len() >= 3 {
        // Too many decades: keep the powers of ten only.
        if coarse.len() > 10 {
            return pick(&[1.0]);
        }
        return coarse;
    }
    pick(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// A log range around positive values, padded by `pad` (a factor) on each side.
fn log_range(values: impl Iterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
    let (lo, hi) =
        values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    if !(lo.is_finite() && hi > 0.0) {
        return None;
    }
    let (lo, hi) = if hi / lo < 1.5 { (lo / 1.5, hi * 1.5) } else { (lo, hi) };
    Some((lo / pad, hi * pad))
}

// ---------------------------------------------------------------------------------------------------
// Drawing helpers.

/// One size's points of a static chart.
type SizeSeries<X> = ((u32, u32), Vec<(X, f64)>);
/// One line of a δ(t) chart: legend label, colour, (t, δ) points.
type Line = (String, RGBColor, Vec<(f64, f64)>);
type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws into a white RGB buffer of the chart size.
fn render(chart: &str, draw: impl FnOnce(&Area<'_>) -> DrawResult) -> Result<RgbImage, PlotError> {
    ensure_font()?;
    let err = |e: Box<dyn std::error::Error>| PlotError::Draw { chart: chart.to_string(), message: e.to_string() };
    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.into()))?;
        draw(&root).map_err(err)?;
        root.present().map_err(|e| err(e.into()))?;
    }
    RgbImage::from_raw(WIDTH, HEIGHT, buf)
        .ok_or_else(|| PlotError::Draw { chart: chart.to_string(), message: "buffer size mismatch".into() })
}

fn title_style() -> TextStyle<'static> {
    (FONT, 21).into_font().color(&BLACK)
}

fn label_style() -> TextStyle<'static> {
    (FONT, 16).into_font().color(&BLACK)
}

fn tick_style() -> TextStyle<'static> {
    (FONT, 14).into_font().color(&RGBColor(40, 40, 40))
}

fn legend_style() -> TextStyle<'static> {
    (FONT, 15).into_font().color(&BLACK)
}

/// A marker shape per series index, so series differ in grey scale too.
fn marker_kind(i: usize) -> usize {
    i % 3
}

/// Draws one series as a line with markers of shape `kind` (circle, triangle, square) and its legend
/// entry. A macro, because each marker shape is a different element type.
/// The legend box every chart uses (a macro: plotters' chart types are deeply generic).
macro_rules! draw_legend {
    ($chart:expr, $position:expr) => {
        $chart
            .configure_series_labels()
            .position($position)
            .label_font(legend_style())
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(160, 160, 160))
            .draw()?
    };
}

macro_rules! marker_series {
    ($chart:expr, $points:expr, $kind:expr, $color:expr, $label:expr) => {{
        let color: RGBColor = $color;
        let style = color.filled();
        let line = LineSeries::new($points.iter().cloned(), color.stroke_width(2));
        let stroke = color.stroke_width(2);
        let path = move |x: i32, y: i32| EmptyElement::at((x, y)) + PathElement::new(vec![(0, 0), (24, 0)], stroke);
        match $kind {
            0 => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + Circle::new((12, 0), 5, style));
                $chart.draw_series($points.iter().map(|p| Circle::new(p.clone(), 5, style)))?;
            }
            1 => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + TriangleMarker::new((12, 0), 7, style));
                $chart.draw_series($points.iter().map(|p| TriangleMarker::new(p.clone(), 7, style)))?;
            }
            _ => {
                $chart
                    .draw_series(line)?
                    .label($label)
                    .legend(move |(x, y)| path(x, y) + Rectangle::new([(7, -5), (17, 5)], style));
                $chart.draw_series(
                    $points.iter().map(|p| EmptyElement::at(p.clone()) + Rectangle::new([(-5, -5), (5, 5)], style)),
                )?;
            }
        }
    }};
}

fn legend_line(color: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(3))
}

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
        .max_by(|a, b| geo_mean(&a.1, 2.0).total_cmp(&geo_mean(&b.1, 2.0)))
        .map(|s| geo_mean(&s.1, 2.0) * 2.0)
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
        let mut chart = ChartBuilder::on(root)
            .caption(static_fs_title(), title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(
                (x0..x1).log_scale().with_key_points(x_ticks.clone()),
                (y0..y1).log_scale().with_key_points(y_ticks.clone()),
            )?;
        chart
            .configure_mesh()
            .x_desc("spring frequency f_s (Hz, log scale)")
            .y_desc("|δ| at the end of the static load (m, log scale)")
            .axis_desc_style(label_style())
            .label_style(tick_style())
            .x_label_formatter(&|v| fmt_num(*v))
            .y_label_formatter(&|v| fmt_tick(*v))
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(WHITE)
            .draw()?;
        if !guide.is_empty() {
            chart
                .draw_series(DashedLineSeries::new(guide.clone(), 8, 6, RGBColor(120, 120, 120).stroke_width(2)))?
                .label("∝ 1/f_s² (guide)")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], RGBColor(120, 120, 120).stroke_width(2)));
        }
        for (i, (size, pts)) in series.iter().enumerate() {
            let color = size_color(&sizes, *size);
            marker_series!(chart, pts, marker_kind(i), color, format!("{}×{}", size.0, size.1));
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
            .x_desc("scaffolding (spring groups per voxel: 6, 10, 16, 18)")
            .y_desc("|δ| at the end of the static load (m, log scale)")
            .axis_desc_style(label_style())
            .label_style(tick_style())
            .x_labels(4)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => {
                    Scaffolding::PAPER_SETS.get(*i as usize).map(|s| s.to_string()).unwrap_or_default()
                }
                _ => String::new(),
            })
            .y_label_formatter(&|v| fmt_tick(*v))
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(WHITE)
            .disable_x_mesh()
            .draw()?;
        for (i, (size, pts)) in series.iter().enumerate() {
            let color = size_color(&sizes, *size);
            marker_series!(chart, pts, marker_kind(i), color, format!("{}×{}", size.0, size.1));
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
        .map(|r| (format!("{} Hz", fmt_num(r.fs_hz)), fs_color(&all_fs, r.fs_hz), time_series(r)))
        .filter(|l| !l.2.is_empty())
        .collect();
    draw_time_chart(&format!("dynamic_vs_fs_{}x{}", size.0, size.1), &dynamic_fs_title(size), "f_s", lines)
}

/// δ(t) of the four paper sets for one size at the scaffolding-sweep f_s.
pub fn dynamic_vs_scaffolding(runs: &[DynamicRun], size: (u32, u32)) -> Result<Option<RgbImage>, PlotError> {
    let Some(fs) = size_sweep_fs(runs.iter().filter(|r| (r.w, r.h) == size).map(|r| (r.scaffolding, r.fs_hz))) else {
        return Ok(None);
    };
    let lines: Vec<Line> = dynamic_scaffolding_sweep(runs, size, fs)
        .into_iter()
        .map(|r| (r.scaffolding.to_string(), scaffolding_color(r.scaffolding), time_series(r)))
        .filter(|l| !l.2.is_empty())
        .collect();
    draw_time_chart(
        &format!("dynamic_vs_scaffolding_{}x{}", size.0, size.1),
        &dynamic_scaffolding_title(runs, size),
        "scaffolding",
        lines,
    )
}

/// (t, δ) of a run, up to the first non-finite sample (a diverged run is drawn until it diverged).
fn time_series(r: &DynamicRun) -> Vec<(f64, f64)> {
    if !(r.dt.is_finite() && r.dt > 0.0) {
        return Vec::new();
    }
    r.dy_m.iter().enumerate().map_while(|(k, d)| d.is_finite().then(|| (r.time(k), *d))).collect()
}

fn draw_time_chart(
    name: &str,
    title: &str,
    legend_title: &str,
    lines: Vec<Line>,
) -> Result<Option<RgbImage>, PlotError> {
    if lines.is_empty() {
        return Ok(None);
    }
    let t1 = lines.iter().flat_map(|l| l.2.last().map(|p| p.0)).fold(0.0f64, f64::max);
    let t1 = if t1 > 0.0 { t1 } else { 1.0 };
    let (lo, hi) =
        lines.iter().flat_map(|l| l.2.iter().map(|p| p.1)).fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let span = if hi - lo > 0.0 { hi - lo } else { 1e-3 };
    let (y0, y1) = (lo - 0.06 * span, hi + 0.06 * span);
    let legend_title = legend_title.to_string();

    render(name, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, title_style())
            .margin(14)
            .x_label_area_size(52)
            .y_label_area_size(78)
            .build_cartesian_2d(0.0..t1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc("time t (s)")
            .y_desc("tip displacement δ (m)")
            .axis_desc_style(label_style())
            .label_style(tick_style())
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|v| fmt_num(*v))
            // Ticks computed as multiples of the step land at ±1e−17 instead of 0: snap them.
            .y_label_formatter(&|v| fmt_tick(if v.abs() < 1e-9 * span { 0.0 } else { *v }))
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(WHITE)
            .draw()?;
        chart.draw_series(LineSeries::new(vec![(0.0, 0.0), (t1, 0.0)], RGBColor(150, 150, 150).stroke_width(1)))?;
        for (label, color, pts) in &lines {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(format!("{legend_title} {label}"))
                .legend(legend_line(*color));
        }
        draw_legend!(chart, SeriesLabelPosition::LowerRight);
        Ok(())
    })
    .map(Some)
}

fn sizes_of(sizes: impl Iterator<Item = (u32, u32)>) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = sizes.collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Geometric mean of y·x^p over the points (the constant C of y = C/x^p for the guide line).
fn geo_mean(pts: &[(f64, f64)], p: f64) -> f64 {
    if pts.is_empty() {
        return 0.0;
    }
    (pts.iter().map(|(x, y)| y.ln() + p * x.ln()).sum::<f64>() / pts.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_labels_are_short() {
        assert_eq!(log_ticks(0.003, 0.4), vec![0.005, 0.01, 0.02, 0.05, 0.1, 0.2]);
        assert_eq!(log_ticks(2.0, 3.5), vec![2.0, 3.0]);
        assert_eq!(fmt_tick(0.05), "0.05");
        assert_eq!(fmt_tick(-0.25), "−0.25");
        assert_eq!(fmt_tick(2e-5), "2e−5");
        assert_eq!(fmt_num(8.0), "8");
        assert_eq!(fmt_num(12.5), "12.5");
    }

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
