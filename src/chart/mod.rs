//! Charts for reports: plotters drawing into an RGB buffer with the embedded DejaVu Sans (the font the
//! frame renderer uses; no system fonts), so the same data gives the same pixels on every machine.
//!
//! This module owns the canvas, the font and the text styles; [`axes`] the axis ranges and ticks,
//! [`look`] colours, dashes and markers, [`draw`] the series and legend macros.

pub mod axes;
pub mod draw;
pub mod look;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use image::RgbImage;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::render::TextRenderer;

/// The family name the embedded font is registered under.
const FONT: &str = "sans-serif";
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
        let ok = register_font(FONT, FontStyle::Normal, TextRenderer::font_bytes()).is_ok();
        FONT_OK.store(ok, Ordering::SeqCst);
    });
    if FONT_OK.load(Ordering::SeqCst) {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// The drawing area a chart draws on.
pub type Area<'a> = DrawingArea<BitMapBackend<'a>, plotters::coord::Shift>;
/// What a chart's drawing closure returns: plotters' errors are boxed, then named by [`render`].
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Draws into a white RGB buffer of `width` × `height`; `chart` names the chart in errors.
pub fn render(
    chart: &str,
    (width, height): (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> DrawResult,
) -> Result<RgbImage, PlotError> {
    ensure_font()?;
    let err = |e: Box<dyn std::error::Error>| PlotError::Draw { chart: chart.to_string(), message: e.to_string() };
    let mut buf = vec![255u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.into()))?;
        draw(&root).map_err(err)?;
        root.present().map_err(|e| err(e.into()))?;
    }
    RgbImage::from_raw(width, height, buf)
        .ok_or_else(|| PlotError::Draw { chart: chart.to_string(), message: "buffer size mismatch".into() })
}

/// Chart title.
pub fn title_style() -> TextStyle<'static> {
    (FONT, 21).into_font().color(&BLACK)
}

/// Axis descriptions.
pub fn label_style() -> TextStyle<'static> {
    (FONT, 16).into_font().color(&BLACK)
}

/// Tick labels.
pub fn tick_style() -> TextStyle<'static> {
    (FONT, 14).into_font().color(&RGBColor(40, 40, 40))
}

/// Legend entries.
pub fn legend_style() -> TextStyle<'static> {
    (FONT, 15).into_font().color(&BLACK)
}

/// The mesh every report chart draws: the report's text styles, light grey major lines, no minor ones.
/// Each chart adds its own descriptions, label counts and formatters.
pub trait ReportMesh {
    fn report_look(&mut self) -> &mut Self;
}

impl<X: Ranged, Y: Ranged, DB: DrawingBackend> ReportMesh for plotters::chart::MeshStyle<'_, '_, X, Y, DB> {
    fn report_look(&mut self) -> &mut Self {
        self.axis_desc_style(label_style())
            .label_style(tick_style())
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(WHITE)
    }
}
