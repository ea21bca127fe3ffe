//! The fitness curves of a study in the style of the paper's Figures 8, 10 and 11: per configuration, the
//! median over runs of the best fitness at each generation, with a ±σ band (σ the sample standard
//! deviation across runs); one panel per group of compared configurations, side by side in one PNG.

use image::RgbImage;
use plotters::prelude::*;

use super::ConfigSummary;
use vsr2d::chart::draw::{draw_legend, look_series};
use vsr2d::chart::look::{palette, sparse_markers, LineLook};
use vsr2d::chart::{label_style, title_style, PlotError, ReportMesh};
use vsr2d::format::{compact, tick};

/// Height of the chart, and width of one panel, in pixels.
pub const HEIGHT: u32 = 480;
pub const PANEL_WIDTH: u32 = 620;

/// The curves of `configs`, one panel per entry of `panels` (a configuration's `panel` picks its own);
/// `score` is the y axis's title ("best fitness (BL/s)").
pub fn curves(title: &str, score: &str, panels: &[String], configs: &[ConfigSummary]) -> Result<RgbImage, PlotError> {
    let n = panels.len().max(1);
    let width = if n == 1 { 900 } else { PANEL_WIDTH * n as u32 };
    vsr2d::chart::render("fitness curves", (width, HEIGHT + 40), |root| {
        let (top, body) = root.split_vertically(40);
        top.titled(title, title_style())?;
        for (p, area) in body.split_evenly((1, n)).iter().enumerate() {
            let members: Vec<(usize, &ConfigSummary)> =
                configs.iter().enumerate().filter(|(_, c)| c.panel == p && !c.curve_median.is_empty()).collect();
            let gens = members.iter().map(|(_, c)| c.curve_median.len()).max().unwrap_or(1).max(2);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for (_, c) in &members {
                for (m, s) in c.curve_median.iter().zip(&c.curve_sd) {
                    if m.is_finite() {
                        lo = lo.min(m - s);
                        hi = hi.max(m + s);
                    }
                }
            }
            if !(lo.is_finite() && hi.is_finite()) {
                (lo, hi) = (0.0, 1.0);
            }
            let span = (hi - lo).max(1e-6);
            let (y0, y1) = (lo - 0.08 * span, hi + 0.30 * span);
            let x1 = (gens - 1) as f64;
            let mut chart = ChartBuilder::on(area)
                .caption(panels.get(p).map_or("", String::as_str), label_style())
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(66)
                .build_cartesian_2d(0.0..x1, y0..y1)?;
            chart
                .configure_mesh()
                .report_look()
                .x_desc("generation")
                .y_desc(score)
                .x_labels(8)
                .y_labels(8)
                .x_label_formatter(&|v| compact(*v))
                .y_label_formatter(&|v| tick(if v.abs() < 1e-12 { 0.0 } else { *v }))
                .draw()?;
            for (i, c) in &members {
                let color = palette(*i);
                let mut band: Vec<(f64, f64)> = Vec::new();
                for (g, (m, s)) in c.curve_median.iter().zip(&c.curve_sd).enumerate() {
                    if m.is_finite() {
                        band.push((g as f64, m + s));
                    }
                }
                for (g, (m, s)) in c.curve_median.iter().zip(&c.curve_sd).enumerate().rev() {
                    if m.is_finite() {
                        band.push((g as f64, m - s));
                    }
                }
                if band.len() >= 3 {
                    chart.draw_series(std::iter::once(Polygon::new(band, color.mix(0.18).filled())))?;
                }
            }
            let k = members.len();
            for (j, (i, c)) in members.iter().enumerate() {
                let points: Vec<(f64, f64)> = c
                    .curve_median
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.is_finite())
                    .map(|(g, m)| (g as f64, *m))
                    .collect();
                if points.is_empty() {
                    continue;
                }
                let marks = sparse_markers(&points, j, k);
                let look = LineLook { width: 3, ..LineLook::nth(j, palette(*i)) };
                look_series!(chart, points, marks, look, format!("{} (median ± σ, n = {})", c.label, c.n));
            }
            draw_legend!(chart, SeriesLabelPosition::UpperLeft);
        }
        Ok(())
    })
}
