//! The tiny-skia backend of a [`Scene`]: paths, rectangles and groups through tiny-skia, text through
//! the embedded font's cached glyph bitmaps ([`TextRenderer`]). Groups are drawn in a pixmap of their
//! own and composited; an opaque backdrop makes a group opaque, so it is copied in. Translucent groups
//! (the keys) are kept once drawn and reused while they are the same.

use std::collections::HashMap;

use tiny_skia::{FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, PixmapPaint, Rect, StrokeDash, Transform};

use super::scene::{Cap, Group, Item, Join, Path, PathCmd, Scene, Stroke};
use super::style::Rgba;
use super::text::TextRenderer;

/// Most translucent groups kept drawn (more distinct ones start the cache over).
const MAX_KEPT_GROUPS: usize = 16;

/// Rasterises scenes; keeps buffers, glyphs and drawn keys from one frame to the next.
#[derive(Default)]
pub struct Rasterizer {
    text: TextRenderer,
    /// Spare pixmaps for groups, by size.
    pool: HashMap<(u32, u32), Vec<Pixmap>>,
    /// Translucent groups (at position 0, 0) and their pixels.
    kept: Vec<(Group, Pixmap)>,
}

impl Rasterizer {
    pub fn new() -> Self {
        Rasterizer::default()
    }

    /// Draws `scene` into a new pixmap of its size; `None` if it is empty or too large to allocate.
    pub fn render(&mut self, scene: &Scene) -> Option<Pixmap> {
        let mut pm = Pixmap::new(scene.width, scene.height)?;
        self.paint_items(&mut pm, &scene.items);
        Some(pm)
    }

    /// Draws `scene` into `pm` (of the scene's size), over transparent.
    pub(crate) fn render_into(&mut self, pm: &mut Pixmap, scene: &Scene) {
        pm.fill(tiny_skia::Color::TRANSPARENT);
        self.paint_items(pm, &scene.items);
    }

    fn paint_items(&mut self, pm: &mut Pixmap, items: &[Item]) {
        for item in items {
            match item {
                Item::Path { path, fill, stroke } => paint_path(pm, path, *fill, stroke.as_ref()),
                Item::Rect { rect: [x, y, w, h], color, crisp } => {
                    if let Some(r) = Rect::from_xywh(*x, *y, *w, *h) {
                        let mut p = paint(*color);
                        p.anti_alias = !crisp;
                        pm.fill_rect(r, &p, Transform::identity(), None);
                    }
                }
                Item::Text { text, x, baseline, size, color } => self.text.draw(pm, text, *x, *baseline, *size, *color),
                Item::Group(group) => self.paint_group(pm, group),
            }
        }
    }

    fn paint_group(&mut self, pm: &mut Pixmap, group: &Group) {
        let opaque = group.backdrop.is_some_and(|c| c.to_skia().is_opaque());
        if !opaque {
            let key = Group { x: 0, y: 0, ..group.clone() };
            if let Some((_, kept)) = self.kept.iter().find(|(g, _)| *g == key) {
                pm.draw_pixmap(group.x, group.y, kept.as_ref(), &PixmapPaint::default(), Transform::identity(), None);
                return;
            }
            let Some(layer) = self.draw_group(group) else { return };
            pm.draw_pixmap(group.x, group.y, layer.as_ref(), &PixmapPaint::default(), Transform::identity(), None);
            if self.kept.len() >= MAX_KEPT_GROUPS {
                self.kept.clear();
            }
            self.kept.push((key, layer));
            return;
        }
        let Some(layer) = self.draw_group(group) else { return };
        copy_into(pm, &layer, group.x, group.y);
        self.pool.entry((layer.width(), layer.height())).or_default().push(layer);
    }

    /// The group drawn in a pixmap of its own size; `None` for an empty box.
    fn draw_group(&mut self, group: &Group) -> Option<Pixmap> {
        let size = (group.width, group.height);
        let mut layer = match self.pool.get_mut(&size).and_then(Vec::pop) {
            Some(p) => p,
            None => Pixmap::new(group.width, group.height)?,
        };
        match group.backdrop {
            Some(c) => layer.fill(c.to_skia()),
            None => layer.fill(tiny_skia::Color::TRANSPARENT),
        }
        self.paint_items(&mut layer, &group.items);
        Some(layer)
    }
}

fn paint(color: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(color.to_skia());
    p.anti_alias = true;
    p
}

/// The scene path as a tiny-skia path; `None` if it draws nothing.
pub(crate) fn skia_path(path: &Path) -> Option<tiny_skia::Path> {
    if path.is_empty() {
        return None;
    }
    let mut pb = PathBuilder::with_capacity(path.cmds.len(), path.cmds.len());
    for cmd in &path.cmds {
        match *cmd {
            PathCmd::Move(x, y) => pb.move_to(x, y),
            PathCmd::Line(x, y) => pb.line_to(x, y),
            PathCmd::Close => pb.close(),
            PathCmd::Circle(x, y, r) => pb.push_circle(x, y, r),
        }
    }
    pb.finish()
}

fn skia_stroke(s: &Stroke) -> tiny_skia::Stroke {
    tiny_skia::Stroke {
        width: s.width,
        line_cap: match s.cap {
            Cap::Butt => LineCap::Butt,
            Cap::Round => LineCap::Round,
        },
        line_join: match s.join {
            Join::Miter => LineJoin::Miter,
            Join::Round => LineJoin::Round,
        },
        dash: s.dash.as_ref().and_then(|d| StrokeDash::new(d.clone(), 0.0)),
        ..tiny_skia::Stroke::default()
    }
}

fn paint_path(pm: &mut Pixmap, path: &Path, fill: Option<Rgba>, stroke: Option<&Stroke>) {
    let Some(p) = skia_path(path) else { return };
    if let Some(color) = fill {
        pm.fill_path(&p, &paint(color), FillRule::Winding, Transform::identity(), None);
    }
    if let Some(s) = stroke {
        pm.stroke_path(&p, &paint(s.color), &skia_stroke(s), Transform::identity(), None);
    }
}

/// Copies an opaque layer into its place in `output`, row by row (the part inside `output`).
fn copy_into(output: &mut Pixmap, layer: &Pixmap, x: i32, y: i32) {
    let (ow, oh) = (i64::from(output.width()), i64::from(output.height()));
    let (lw, lh) = (i64::from(layer.width()), i64::from(layer.height()));
    let (x, y) = (i64::from(x), i64::from(y));
    let (x0, x1) = (x.max(0), (x + lw).min(ow));
    if x0 >= x1 {
        return;
    }
    let out_stride = ow as usize * 4;
    let src = layer.data();
    let dst = output.data_mut();
    for row in y.max(0)..(y + lh).min(oh) {
        let s = ((row - y) * lw + (x0 - x)) as usize * 4;
        let d = row as usize * out_stride + x0 as usize * 4;
        let n = (x1 - x0) as usize * 4;
        dst[d..d + n].copy_from_slice(&src[s..s + n]);
    }
}
