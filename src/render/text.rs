//! Text from the embedded DejaVu Sans (never system fonts): the font is parsed once per process, glyph
//! coverage bitmaps are cached per (glyph, size, quarter-pixel offset), so a frame only blends bytes.

use std::collections::HashMap;
use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont};
use tiny_skia::Pixmap;

use super::style::Rgba;

static FONT_BYTES: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fonts/DejaVuSans.ttf"));

/// The embedded font, parsed on first use. `None` only if the embedded file were corrupt (then text is skipped).
pub(crate) fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_BYTES).ok()).as_ref()
}

/// ab_glyph's `PxScale` is the ascent−descent height; sizes here are em sizes, as in CSS ("12 px font").
fn px_scale(font: &FontRef<'static>, size: f32) -> PxScale {
    let upem = font.units_per_em().unwrap_or(2048.0);
    PxScale::from(size * font.height_unscaled() / upem)
}

/// Subpixel steps per pixel for glyph origins: enough for even spacing, few enough to keep the cache small.
const SUBPIXEL_STEPS: f32 = 4.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct GlyphKey {
    id: u16,
    size_bits: u32,
    subpixel: u8,
}

/// Coverage of one glyph, placed relative to its (integer) pen position on the baseline.
#[derive(Debug, Clone, Default)]
struct GlyphBitmap {
    left: i32,
    top: i32,
    width: usize,
    height: usize,
    coverage: Vec<u8>,
}

/// Lays out and blends single lines of text into a pixmap.
#[derive(Debug, Default)]
pub struct TextRenderer {
    cache: HashMap<GlyphKey, GlyphBitmap>,
}

/// One character of a laid-out line: its start from the line's start in pixels, its glyph in the
/// embedded font, its bytes in the text, and its advance in ems (kerning with the next included).
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedChar {
    pub x: f32,
    pub glyph: u16,
    pub range: std::ops::Range<usize>,
    pub advance_em: f32,
}

/// Vertical metrics of the font at an em size, in pixels (ascent > 0, descent < 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineMetrics {
    pub ascent: f32,
    pub descent: f32,
    pub line_height: f32,
}

impl TextRenderer {
    pub fn new() -> Self {
        TextRenderer::default()
    }

    /// The embedded DejaVu Sans file, so report charts draw with the very same font (one copy in the binary).
    pub(crate) fn font_bytes() -> &'static [u8] {
        FONT_BYTES
    }

    pub fn metrics(size: f32) -> LineMetrics {
        match font() {
            Some(f) => {
                let s = f.as_scaled(px_scale(f, size));
                LineMetrics { ascent: s.ascent(), descent: s.descent(), line_height: s.height() + s.line_gap() }
            }
            None => LineMetrics { ascent: size * 0.8, descent: -size * 0.2, line_height: size * 1.2 },
        }
    }

    /// Pixel height of the digits (the ink of '0'), to centre numbers vertically.
    pub(crate) fn digit_height(size: f32) -> f32 {
        let Some(f) = font() else { return size * 0.6 };
        let glyph = f.glyph_id('0').with_scale(px_scale(f, size));
        f.outline_glyph(glyph).map_or(size * 0.6, |g| {
            let b = g.px_bounds();
            b.height()
        })
    }

    /// Advance width of `text` at an em size of `size` pixels (kerning included).
    pub fn measure(text: &str, size: f32) -> f32 {
        let Some(f) = font() else { return 0.0 };
        let s = f.as_scaled(px_scale(f, size));
        let mut pen = 0.0;
        let mut prev: Option<GlyphId> = None;
        for c in text.chars() {
            let id = s.glyph_id(c);
            if let Some(p) = prev {
                pen += s.kern(p, id);
            }
            pen += s.h_advance(id);
            prev = Some(id);
        }
        pen
    }

    /// Where each character of `text` starts, at an em size of `size` pixels, from 0 (kerning
    /// included, as [`TextRenderer::draw`] places them): for the vector writers, which place every
    /// character as drawn here. Also each character's glyph id and advance (to the next character's
    /// start) in ems.
    pub fn layout(text: &str, size: f32) -> Vec<PlacedChar> {
        let Some(f) = font() else { return Vec::new() };
        let s = f.as_scaled(px_scale(f, size));
        let upem = f.units_per_em().unwrap_or(2048.0);
        let mut out: Vec<PlacedChar> = Vec::with_capacity(text.len());
        let mut pen = 0.0;
        let mut prev: Option<GlyphId> = None;
        for (i, c) in text.char_indices() {
            let id = s.glyph_id(c);
            if let Some(p) = prev {
                let kern = s.kern(p, id);
                pen += kern;
                if let Some(last) = out.last_mut() {
                    last.advance_em += f.kern_unscaled(p, id) / upem;
                }
            }
            out.push(PlacedChar {
                x: pen,
                glyph: id.0,
                range: i..i + c.len_utf8(),
                advance_em: f.h_advance_unscaled(id) / upem,
            });
            pen += s.h_advance(id);
            prev = Some(id);
        }
        out
    }

    /// Draws `text` with its baseline starting at (`x`, `baseline`) in pixel coordinates of `pixmap`.
    pub fn draw(&mut self, pixmap: &mut Pixmap, text: &str, x: f32, baseline: f32, size: f32, color: Rgba) {
        let Some(f) = font() else { return };
        // Far-off positions are off the pixmap anyway; the bound keeps pixel arithmetic in i32.
        const FAR: f32 = 1e7;
        if !(x.abs() < FAR && baseline.abs() < FAR && size > 0.0 && size < 1e4) {
            return;
        }
        let scale = px_scale(f, size);
        let s = f.as_scaled(scale);
        let base_y = baseline.round() as i32;
        let mut pen = x;
        let mut prev: Option<GlyphId> = None;
        let right = pixmap.width() as f32 + size;
        for c in text.chars() {
            if pen > right {
                break;
            }
            let id = s.glyph_id(c);
            if let Some(p) = prev {
                pen += s.kern(p, id);
            }
            prev = Some(id);
            let mut ix = pen.floor();
            let mut sub = ((pen - ix) * SUBPIXEL_STEPS).round();
            if sub >= SUBPIXEL_STEPS {
                ix += 1.0;
                sub = 0.0;
            }
            let key = GlyphKey { id: id.0, size_bits: size.to_bits(), subpixel: sub as u8 };
            let bitmap = self.cache.entry(key).or_insert_with(|| rasterize(f, id, scale, sub / SUBPIXEL_STEPS));
            blit(pixmap, bitmap, ix as i32, base_y, color);
            pen += s.h_advance(id);
        }
    }
}

fn rasterize(font: &FontRef<'static>, id: GlyphId, scale: PxScale, dx: f32) -> GlyphBitmap {
    let glyph = id.with_scale_and_position(scale, ab_glyph::point(dx, 0.0));
    let Some(outlined) = font.outline_glyph(glyph) else { return GlyphBitmap::default() };
    let bounds = outlined.px_bounds();
    let (width, height) = (bounds.width().max(0.0) as usize, bounds.height().max(0.0) as usize);
    let mut coverage = vec![0u8; width * height];
    outlined.draw(|x, y, c| {
        let (x, y) = (x as usize, y as usize);
        if x < width && y < height {
            coverage[y * width + x] = (c.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    });
    GlyphBitmap { left: bounds.min.x as i32, top: bounds.min.y as i32, width, height, coverage }
}

/// Source-over blend of a coverage mask in `color` onto premultiplied RGBA bytes.
fn blit(pixmap: &mut Pixmap, g: &GlyphBitmap, ox: i32, oy: i32, color: Rgba) {
    let (pw, ph) = (pixmap.width() as i32, pixmap.height() as i32);
    let ca = (color.a.clamp(0.0, 1.0) * 255.0).round() as u32;
    let src = [u32::from(color.r), u32::from(color.g), u32::from(color.b)];
    let data = pixmap.data_mut();
    for gy in 0..g.height {
        let py = oy + g.top + gy as i32;
        if py < 0 || py >= ph {
            continue;
        }
        for gx in 0..g.width {
            let px = ox + g.left + gx as i32;
            if px < 0 || px >= pw {
                continue;
            }
            let cov = u32::from(g.coverage[gy * g.width + gx]);
            if cov == 0 {
                continue;
            }
            // Effective source alpha a = cov·ca, in 0..=255².
            let a = cov * ca;
            let inv = 255 * 255 - a;
            let i = (py as usize * pw as usize + px as usize) * 4;
            for (k, s) in src.iter().enumerate() {
                let d = u32::from(data[i + k]);
                data[i + k] = ((s * a + d * inv + 32512) / 65025) as u8;
            }
            let d = u32::from(data[i + 3]);
            data[i + 3] = ((255 * a + d * inv + 32512) / 65025) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_font_parses_and_measures() {
        assert!(font().is_some());
        let w = TextRenderer::measure("t = 12.34 s", 12.0);
        assert!(w > 40.0 && w < 90.0, "width {w}");
        let m = TextRenderer::metrics(12.0);
        assert!(m.ascent > 8.0 && m.descent < 0.0 && m.line_height >= 12.0);
    }
}
