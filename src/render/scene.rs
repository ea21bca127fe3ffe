//! A frame as plain data: everything a frame shows (voxels, cells, objects, terrain, grid, ticks,
//! overlay, keys, signals, labels) described once as paths, fills, strokes, rectangles, text and
//! groups, in pixel coordinates (y down). The backends read the same scene: tiny-skia rasterises it
//! ([`super::raster`]), [`super::svg`] and [`super::pdf`] write it as vector files.
//!
//! Paint order is item order; a group is drawn in its own box (translated to it and clipped to it),
//! over its optional backdrop, then composited source-over.

use super::style::Rgba;

/// One drawing command of a [`Path`], in pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathCmd {
    Move(f32, f32),
    Line(f32, f32),
    Close,
    /// A whole circle (centre, radius) as its own closed sub-path.
    Circle(f32, f32, f32),
}

/// A path: sub-paths of straight segments and circles. Filled with the non-zero rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Path {
    pub cmds: Vec<PathCmd>,
}

impl Path {
    pub fn is_empty(&self) -> bool {
        self.cmds.is_empty()
    }
    pub(crate) fn move_to(&mut self, x: f32, y: f32) {
        self.cmds.push(PathCmd::Move(x, y));
    }
    pub(crate) fn line_to(&mut self, x: f32, y: f32) {
        self.cmds.push(PathCmd::Line(x, y));
    }
    pub fn close(&mut self) {
        self.cmds.push(PathCmd::Close);
    }
    pub fn circle(&mut self, x: f32, y: f32, r: f32) {
        self.cmds.push(PathCmd::Circle(x, y, r));
    }
}

/// How a line's ends look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cap {
    #[default]
    Butt,
    Round,
}

/// How a line's corners look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Join {
    /// Miter (limit 4, as in SVG and tiny-skia).
    #[default]
    Miter,
    Round,
}

/// A stroke: colour, width in pixels, caps, joins and an optional dash pattern (on, off, … in pixels).
#[derive(Debug, Clone, PartialEq)]
pub struct Stroke {
    pub color: Rgba,
    pub width: f32,
    pub cap: Cap,
    pub join: Join,
    pub dash: Option<Vec<f32>>,
}

impl Stroke {
    pub fn solid(color: Rgba, width: f32) -> Self {
        Stroke { color, width, cap: Cap::Butt, join: Join::Miter, dash: None }
    }
}

/// A group: its own box at (`x`, `y`) of its parent, `width` × `height` pixels, that clips its items
/// (whose coordinates are relative to the box), over an optional backdrop filling the box.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub backdrop: Option<Rgba>,
    pub items: Vec<Item>,
}

/// One thing a scene shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A path filled (non-zero rule) and/or stroked; the fill first.
    Path {
        path: Path,
        fill: Option<Rgba>,
        stroke: Option<Stroke>,
    },
    /// A filled rectangle (x, y, width, height); `crisp` ones have no anti-aliasing (grid lines).
    Rect {
        rect: [f32; 4],
        color: Rgba,
        crisp: bool,
    },
    /// One line of text in the embedded font (DejaVu Sans), its baseline starting at (`x`, `baseline`),
    /// `size` the em size in pixels.
    Text {
        text: String,
        x: f32,
        baseline: f32,
        size: f32,
        color: Rgba,
    },
    Group(Group),
}

/// A whole picture: `width` × `height` pixels of items. What is not covered stays transparent.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    pub width: u32,
    pub height: u32,
    pub items: Vec<Item>,
}

/// Gap between the frames of a filmstrip, in pixels (white).
pub const FILMSTRIP_GAP_PX: u32 = 8;

impl Scene {
    pub fn new(width: u32, height: u32) -> Self {
        Scene { width, height, items: Vec::new() }
    }

    /// The frames side by side in one row `width` pixels wide (at least the frames' widths with
    /// [`FILMSTRIP_GAP_PX`] between them; wider, the gaps share the rest), white between them: one
    /// scene, each frame a group. `None` without frames or when they do not fit.
    pub fn filmstrip(frames: &[Scene], width: u32) -> Option<Scene> {
        let first = frames.first()?;
        let (w, h) = (first.width, first.height);
        let n = frames.len() as u32;
        let least = n.checked_mul(w)?.checked_add((n - 1).checked_mul(FILMSTRIP_GAP_PX)?)?;
        if width < least {
            return None;
        }
        let mut strip = Scene::new(width, h);
        strip.items.push(Item::Rect {
            rect: [0.0, 0.0, width as f32, h as f32],
            color: Rgba::opaque(255, 255, 255),
            crisp: true,
        });
        for (i, f) in frames.iter().enumerate() {
            // Frame i's left edge: evenly from 0 to width − w.
            let x = if n > 1 { u64::from(width - w) * i as u64 / u64::from(n - 1) } else { 0 };
            strip.items.push(Item::Group(Group {
                x: x as i32,
                y: 0,
                width: f.width,
                height: f.height,
                backdrop: None,
                items: f.items.clone(),
            }));
        }
        Some(strip)
    }

    /// Every text item, depth first (tests, and the vector writers' font subset).
    pub fn texts(&self) -> Vec<&str> {
        fn walk<'a>(items: &'a [Item], out: &mut Vec<&'a str>) {
            for item in items {
                match item {
                    Item::Text { text, .. } => out.push(text),
                    Item::Group(g) => walk(&g.items, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.items, &mut out);
        out
    }
}
