//! The PDF writer of a [`Scene`], through krilla: one page the scene's size (a pixel is 0.75 pt, the
//! CSS pixel, so the page has the SVG's size), paths and rectangles as PDF paths, a group as a
//! translated, clipped block. Text stays text: each character placed where the PNG has it, in the
//! embedded DejaVu Sans, whose subset krilla embeds.

use std::sync::Arc;

use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Transform};
use krilla::num::NormalizedF32;
use krilla::page::PageSettings;
use krilla::paint::{Fill, FillRule, LineCap, LineJoin, Stroke as PdfStroke, StrokeDash};
use krilla::surface::Surface;
use krilla::text::{Font, GlyphId, KrillaGlyph};
use krilla::Document;

use super::scene::{Cap, Group, Item, Join, Path, PathCmd, Scene, Stroke};
use super::style::Rgba;
use super::svg::alpha;
use super::text::TextRenderer;

/// Points per scene pixel (a CSS pixel is 1/96 in, a point 1/72 in).
pub(crate) const PT_PER_PX: f32 = 0.75;

/// Why a scene could not be written as PDF.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PdfError {
    #[error("a {width}×{height} scene cannot be a PDF page")]
    PageSize { width: u32, height: u32 },
    #[error("the embedded font could not be read for the PDF")]
    Font,
    #[error("could not write the PDF: {0}")]
    Write(String),
}

/// The scene as a one-page PDF document.
pub(crate) fn to_pdf(scene: &Scene) -> Result<Vec<u8>, PdfError> {
    let size_err = PdfError::PageSize { width: scene.width, height: scene.height };
    let settings =
        PageSettings::from_wh(scene.width as f32 * PT_PER_PX, scene.height as f32 * PT_PER_PX).ok_or(size_err)?;
    let data: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(TextRenderer::font_bytes());
    let font = Font::new(data.into(), 0).ok_or(PdfError::Font)?;
    let mut doc = Document::new();
    {
        let mut page = doc.start_page_with(settings);
        let mut surface = page.surface();
        surface.push_transform(&Transform::from_scale(PT_PER_PX, PT_PER_PX));
        draw_items(&mut surface, &scene.items, &font);
        surface.pop();
        surface.finish();
        page.finish();
    }
    doc.finish().map_err(|e| PdfError::Write(format!("{e:?}")))
}

fn color(c: Rgba) -> (krilla::paint::Paint, NormalizedF32) {
    (rgb::Color::new(c.r, c.g, c.b).into(), NormalizedF32::new(alpha(c)).unwrap_or(NormalizedF32::ONE))
}

fn fill(c: Rgba) -> Fill {
    let (paint, opacity) = color(c);
    Fill { paint, opacity, rule: FillRule::NonZero }
}

fn pdf_stroke(s: &Stroke) -> PdfStroke {
    let (paint, opacity) = color(s.color);
    PdfStroke {
        paint,
        width: s.width,
        miter_limit: 4.0,
        line_cap: match s.cap {
            Cap::Butt => LineCap::Butt,
            Cap::Round => LineCap::Round,
        },
        line_join: match s.join {
            Join::Miter => LineJoin::Miter,
            Join::Round => LineJoin::Round,
        },
        opacity,
        dash: s.dash.as_ref().map(|d| StrokeDash { array: d.clone(), offset: 0.0 }),
    }
}

/// Circles as four cubic Béziers (the usual 0.5523 handle).
fn pdf_path(path: &Path) -> Option<krilla::geom::Path> {
    const K: f32 = 0.552_284_8;
    let mut pb = PathBuilder::new();
    for cmd in &path.cmds {
        match *cmd {
            PathCmd::Move(x, y) => pb.move_to(x, y),
            PathCmd::Line(x, y) => pb.line_to(x, y),
            PathCmd::Close => pb.close(),
            PathCmd::Circle(x, y, r) => {
                let k = r * K;
                pb.move_to(x + r, y);
                pb.cubic_to(x + r, y + k, x + k, y + r, x, y + r);
                pb.cubic_to(x - k, y + r, x - r, y + k, x - r, y);
                pb.cubic_to(x - r, y - k, x - k, y - r, x, y - r);
                pb.cubic_to(x + k, y - r, x + r, y - k, x + r, y);
                pb.close();
            }
        }
    }
    pb.finish()
}

fn rect_path(x: f32, y: f32, w: f32, h: f32) -> Option<krilla::geom::Path> {
    let mut p = Path::default();
    p.move_to(x, y);
    p.line_to(x + w, y);
    p.line_to(x + w, y + h);
    p.line_to(x, y + h);
    p.close();
    pdf_path(&p)
}

fn draw_items(s: &mut Surface<'_>, items: &[Item], font: &Font) {
    for item in items {
        match item {
            Item::Path { path, fill: f, stroke } => {
                let Some(p) = pdf_path(path) else { continue };
                if let Some(c) = f {
                    s.set_fill(Some(fill(*c)));
                    s.set_stroke(None);
                    s.draw_path(&p);
                }
                if let Some(st) = stroke {
                    s.set_fill(None);
                    s.set_stroke(Some(pdf_stroke(st)));
                    s.draw_path(&p);
                }
            }
            Item::Rect { rect: [x, y, w, h], color, .. } => {
                if let Some(p) = rect_path(*x, *y, *w, *h).filter(|_| *w > 0.0 && *h > 0.0) {
                    s.set_fill(Some(fill(*color)));
                    s.set_stroke(None);
                    s.draw_path(&p);
                }
            }
            Item::Text { text, x, baseline, size, color } => {
                let placed = TextRenderer::layout(text, *size);
                if placed.is_empty() {
                    continue;
                }
                let glyphs: Vec<KrillaGlyph> = placed
                    .iter()
                    .map(|c| {
                        KrillaGlyph::new(
                            GlyphId::new(u32::from(c.glyph)),
                            c.advance_em,
                            0.0,
                            0.0,
                            0.0,
                            c.range.clone(),
                            None,
                        )
                    })
                    .collect();
                s.set_fill(Some(fill(*color)));
                s.set_stroke(None);
                s.draw_glyphs(Point::from_xy(*x, *baseline), &glyphs, font.clone(), text, *size, false);
            }
            Item::Group(g) => draw_group(s, g, font),
        }
    }
}

fn draw_group(s: &mut Surface<'_>, g: &Group, font: &Font) {
    let Some(clip) = rect_path(0.0, 0.0, g.width as f32, g.height as f32) else { return };
    s.push_transform(&Transform::from_translate(g.x as f32, g.y as f32));
    s.push_clip_path(&clip, &FillRule::NonZero);
    if let Some(c) = g.backdrop {
        s.set_fill(Some(fill(c)));
        s.set_stroke(None);
        s.draw_path(&clip);
    }
    draw_items(s, &g.items, font);
    s.pop();
    s.pop();
}
