//! Three-view drawing of a POM lattice (spec `pom.md` §11): top (x–y seen from +z), side (x–z seen from
//! −y) and isometric panels side by side, each at a fixed uniform scale that fits the rest bounding box
//! × 1.2, drawn at rest + `exaggerate` × displacement. Beams are 1 px gray lines, nodes dots coloured by
//! |x| (white → blue over [0, range]), actuators thick segments in their control's colour, planes of
//! motion translucent bands (alpha 0.15) of the same colour, feet black dotted circles, markers purple.
//!
//! The state is a displacement field ([`LatticeState`]), so goldens can be drawn from hand-built fields
//! as well as from POM's `x = J·q`.

use std::collections::BTreeMap;

use tiny_skia::{FillRule, LineCap, Paint, PathBuilder, Pixmap, PixmapPaint, Stroke, StrokeDash, Transform};

use super::style::{Rgba, BACKGROUND, TEXT};
use super::text::TextRenderer;
use super::RenderError;
use crate::pom::gait::ground_height;
use crate::pom::geometry::{node_key, NodeKey, AXIS_NAMES};
use crate::pom::model::{Model, NodeRef, Role};
use crate::pom::spec::View;

/// Beam colour and width (spec: 1 px gray lines).
const BEAM: Rgba = Rgba::opaque(140, 140, 140);
const BEAM_PX: f32 = 1.0;
/// Actuator segment width.
const ACTUATOR_PX: f32 = 6.0;
/// Opacity of a plane-of-motion band (spec: alpha 0.15).
const BAND_ALPHA: f32 = 0.15;
/// Half-thickness of a band across its plane, in pitches: thin enough to read as the paper's lines.
const BAND_HALF: f64 = 1.0 / 6.0;
const NODE_RADIUS_PX: f32 = 4.0;
const NODE_OUTLINE: Rgba = Rgba::opaque(60, 60, 60);
/// The blue end of the node ramp.
const NODE_FULL: Rgba = Rgba::opaque(20, 60, 220);
const FOOT: Rgba = Rgba::opaque(0, 0, 0);
const FOOT_RADIUS_PX: f32 = 10.0;
/// Marker purple (the paper's Fig. 5).
const MARKER: Rgba = Rgba::opaque(128, 0, 170);
const MARKER_RADIUS_PX: f32 = 5.0;
const GROUND: Rgba = Rgba::opaque(170, 120, 60);
const EXTENSION: Rgba = Rgba::opaque(110, 110, 110);
const TITLE_PX: f32 = 15.0;
const LABEL_PX: f32 = 13.0;
/// Header (title, time, q) and footer (legend) heights in pixels.
const HEADER_PX: u32 = 48;
const FOOTER_PX: u32 = 24;

/// Colours for controls whose id is not a colour name, cycled.
const PALETTE: [Rgba; 6] = [
    Rgba::opaque(0x1f, 0x77, 0xb4),
    Rgba::opaque(0xe6, 0x6a, 0x00),
    Rgba::opaque(0x2c, 0xa0, 0x2c),
    Rgba::opaque(0xd6, 0x27, 0x28),
    Rgba::opaque(0x94, 0x67, 0xbd),
    Rgba::opaque(0x8c, 0x56, 0x4b),
];

/// A control's colour: its id if it names one (the paper's red, yellow, … actuators), else the palette.
pub fn control_color(id: &str, index: usize) -> Rgba {
    match id.to_ascii_lowercase().as_str() {
        "red" => Rgba::opaque(220, 30, 30),
        // Pure yellow vanishes on white; a dark gold reads as yellow and stays visible.
        "yellow" => Rgba::opaque(225, 175, 0),
        "blue" => Rgba::opaque(30, 90, 230),
        "green" => Rgba::opaque(20, 160, 60),
        "orange" => Rgba::opaque(240, 130, 0),
        "purple" => Rgba::opaque(140, 50, 190),
        _ => PALETTE[index % PALETTE.len()],
    }
}

/// One drawn state: a displacement per node and per effector (m), with the time and q for the text.
#[derive(Debug, Clone, PartialEq)]
pub struct LatticeState {
    pub t: f64,
    /// Control displacements, m (printed; the field below is what is drawn).
    pub q: Vec<f64>,
    /// Displacement per node key; missing nodes are at rest.
    pub nodes: BTreeMap<NodeKey, [f64; 3]>,
    /// Displacement per effector (same order as the model's), m.
    pub effectors: Vec<[f64; 3]>,
}

impl LatticeState {
    /// Every node and effector at rest.
    pub fn rest(model: &Model) -> LatticeState {
        LatticeState {
            t: 0.0,
            q: vec![0.0; model.cols()],
            nodes: BTreeMap::new(),
            effectors: vec![[0.0; 3]; model.effectors().len()],
        }
    }

    /// POM's field for control displacements `q` (equation (1) at every node).
    pub fn from_q(model: &Model, t: f64, q: &[f64]) -> LatticeState {
        let nodes = model
            .lattice()
            .nodes()
            .into_iter()
            .map(|(k, owners)| (k, model.node_displacement(NodeRef { voxel: owners[0].0, node: owners[0].1 }, q)))
            .collect();
        let effectors = model.effectors().iter().map(|e| model.node_displacement(e.at, q)).collect();
        LatticeState { t, q: q.to_vec(), nodes, effectors }
    }
}

/// How to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct LatticeOptions {
    pub views: Vec<View>,
    /// Drawn displacement = exaggerate × displacement.
    pub exaggerate: f64,
    /// |x| at which a node is fully blue, m (the controls' largest range by default).
    pub color_range: Option<f64>,
    /// First header line, e.g. the example's name and its reconstruction flag.
    pub title: String,
}

impl Default for LatticeOptions {
    fn default() -> Self {
        LatticeOptions {
            views: vec![View::Top, View::Side, View::Iso],
            exaggerate: 5.0,
            color_range: None,
            title: String::new(),
        }
    }
}

/// A panel: where it sits and how world points map into it.
#[derive(Debug, Clone, Copy)]
struct Panel {
    view: View,
    x0: f64,
    y0: f64,
    w: f64,
    h: f64,
    scale: f64,
    /// Centre of the fitted box in view coordinates.
    cu: f64,
    cv: f64,
}

impl Panel {
    fn to_px(self, p: [f64; 3]) -> (f32, f32) {
        let (u, v) = project(self.view, p);
        (
            (self.x0 + self.w / 2.0 + self.scale * (u - self.cu)) as f32,
            (self.y0 + self.h / 2.0 - self.scale * (v - self.cv)) as f32,
        )
    }
}

/// View coordinates (u right, v up) of a world point.
pub fn project(view: View, p: [f64; 3]) -> (f64, f64) {
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    match view {
        View::Top => (p[0], p[1]),
        View::Side => (p[0], p[2]),
        View::Iso => ((p[0] - p[1]) * c, p[2] + (p[0] + p[1]) * s),
    }
}

fn view_name(view: View) -> &'static str {
    match view {
        View::Top => "top (x–y, from +z)",
        View::Side => "side (x–z, from −y)",
        View::Iso => "isometric",
    }
}

/// Draws three-view frames of one model into a reusable pixmap.
pub struct LatticeRenderer {
    options: LatticeOptions,
    panels: Vec<Panel>,
    pixmap: Pixmap,
    /// Scratch layer for the bands: drawn opaque, composited at [`BAND_ALPHA`], so overlapping voxels of
    /// one plane do not darken.
    layer: Pixmap,
    text: TextRenderer,
    color_range: f64,
}

impl LatticeRenderer {
    /// Fits each panel to the model's rest bounding box × 1.2.
    pub fn new(model: &Model, width: u32, height: u32, options: LatticeOptions) -> Result<Self, RenderError> {
        let views =
            if options.views.is_empty() { vec![View::Top, View::Side, View::Iso] } else { options.views.clone() };
        let n = views.len() as u32;
        if width < 8 * n || height < HEADER_PX + FOOTER_PX + 8 {
            return Err(RenderError::CellTooSmall { width, height, cols: n, rows: 1 });
        }
        let pixmap = Pixmap::new(width, height).ok_or(RenderError::TooLarge { width, height })?;
        let layer = pixmap.clone();
        let mut points: Vec<[f64; 3]> =
            model.lattice().nodes().keys().map(|&k| model.lattice().key_position(k)).collect();
        points.extend((0..model.effectors().len()).map(|j| model.effector_rest(j)));
        // The bands' corners too, so no band spills into the next panel.
        for a in model.actuations() {
            for &v in &a.plane.voxels {
                points.extend(band_corners(model.lattice().centre(v), model.lattice().pitch(), a.d));
            }
        }
        let pw = f64::from(width) / f64::from(n);
        let ph = f64::from(height - HEADER_PX - FOOTER_PX);
        let panels = views
            .iter()
            .enumerate()
            .map(|(i, &view)| {
                let (mut lo, mut hi) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
                for &p in &points {
                    let (u, v) = project(view, p);
                    lo = (lo.0.min(u), lo.1.min(v));
                    hi = (hi.0.max(u), hi.1.max(v));
                }
                let (du, dv) = (((hi.0 - lo.0) * 1.2).max(1e-9), ((hi.1 - lo.1) * 1.2).max(1e-9));
                // Room for the panel's name above the drawing.
                let usable_h = (ph - 2.0 * f64::from(LABEL_PX)).max(1.0);
                Panel {
                    view,
                    x0: pw * i as f64,
                    y0: f64::from(HEADER_PX) + 2.0 * f64::from(LABEL_PX),
                    w: pw,
                    h: usable_h,
                    scale: (pw / du).min(usable_h / dv),
                    cu: (lo.0 + hi.0) / 2.0,
                    cv: (lo.1 + hi.1) / 2.0,
                }
            })
            .collect();
        let color_range = options.color_range.unwrap_or_else(|| {
            model.controls().iter().map(|c| c.range[0].abs().max(c.range[1].abs())).fold(0.0, f64::max)
        });
        let color_range = if color_range > 0.0 { color_range } else { 0.005 };
        Ok(LatticeRenderer {
            options: LatticeOptions { views, ..options },
            panels,
            pixmap,
            layer,
            text: TextRenderer::new(),
            color_range,
        })
    }

    pub fn pixmap(&self) -> &Pixmap {
        &self.pixmap
    }

    /// Exchanges the last frame drawn with `frame` (a buffer of the same size, as the drawing/encoding
    /// pipeline hands it over), copying it instead if the sizes differ. The next [`Self::render`] repaints
    /// the whole pixmap, so what comes back in is never seen.
    pub fn swap_frame(&mut self, frame: &mut Pixmap) {
        if (frame.width(), frame.height()) == (self.pixmap.width(), self.pixmap.height()) {
            std::mem::swap(frame, &mut self.pixmap);
        } else {
            frame.clone_from(&self.pixmap);
        }
    }

    /// Draws one state and returns the frame.
    pub fn render(&mut self, model: &Model, state: &LatticeState) -> &Pixmap {
        self.pixmap.fill(BACKGROUND.to_skia());
        let k = self.options.exaggerate;
        let lattice = model.lattice();
        let disp = |key: &NodeKey| state.nodes.get(key).copied().unwrap_or([0.0; 3]);
        let at = |key: NodeKey| {
            let p = lattice.key_position(key);
            let d = disp(&key);
            [p[0] + k * d[0], p[1] + k * d[1], p[2] + k * d[2]]
        };
        let eff_at = |j: usize| {
            let p = model.effector_rest(j);
            let d = state.effectors.get(j).copied().unwrap_or([0.0; 3]);
            [p[0] + k * d[0], p[1] + k * d[1], p[2] + k * d[2]]
        };
        let pitch = lattice.pitch();
        let colors: Vec<Rgba> = model.controls().iter().enumerate().map(|(i, c)| control_color(&c.id, i)).collect();
        // Planes of motion: one opaque layer per control over every panel, composited translucent once.
        for (i, a) in model.actuations().iter().enumerate() {
            self.layer.fill(tiny_skia::Color::TRANSPARENT);
            let mut pb = PathBuilder::new();
            for panel in &self.panels {
                for &v in &a.plane.voxels {
                    let corners: Vec<(f32, f32)> =
                        band_corners(lattice.centre(v), pitch, a.d).iter().map(|&p| panel.to_px(p)).collect();
                    push_polygon(&mut pb, &hull(&corners));
                }
            }
            if let Some(path) = pb.finish() {
                self.layer.fill_path(&path, &paint(colors[i]), FillRule::Winding, Transform::identity(), None);
            }
            let pp = PixmapPaint { opacity: BAND_ALPHA, ..PixmapPaint::default() };
            self.pixmap.draw_pixmap(0, 0, self.layer.as_ref(), &pp, Transform::identity(), None);
        }
        for panel in self.panels.clone() {
            // Ground line in the side view: where the feet rest.
            if panel.view == View::Side && model.effectors().iter().any(|e| e.role == Role::Foot) {
                let z = ground_height(model);
                let y = panel.to_px([0.0, 0.0, z]).1;
                let (x0, x1) = (panel.x0 as f32 + 8.0, (panel.x0 + panel.w) as f32 - 8.0);
                stroke(&mut self.pixmap, &[(x0, y), (x1, y)], GROUND, 1.0, None);
            }
            // Beams: the 12 edges of each voxel, node to non-opposite node.
            let mut pb = PathBuilder::new();
            for v in lattice.voxels() {
                for a in 0..6 {
                    for b in a + 1..6 {
                        if b != a + 3 {
                            let (p, q) = (panel.to_px(at(node_key(v, a))), panel.to_px(at(node_key(v, b))));
                            pb.move_to(p.0, p.1);
                            pb.line_to(q.0, q.1);
                        }
                    }
                }
            }
            if let Some(path) = pb.finish() {
                let s = Stroke { width: BEAM_PX, ..Stroke::default() };
                self.pixmap.stroke_path(&path, &paint(BEAM), &s, Transform::identity(), None);
            }
            // Extensions: a dashed link from the attach node to the point.
            for (j, e) in model.effectors().iter().enumerate() {
                if e.extension.is_some() {
                    let a = panel.to_px(at(node_key(e.at.voxel, e.at.node)));
                    stroke(&mut self.pixmap, &[a, panel.to_px(eff_at(j))], EXTENSION, 1.0, Some([4.0, 3.0]));
                }
            }
            // Actuators: control node to partner (or a quarter pitch along the push without one).
            for (i, c) in model.controls().iter().enumerate() {
                let a = at(node_key(c.at.voxel, c.at.node));
                let b = match c.partner {
                    Some(p) => at(node_key(p.voxel, p.node)),
                    None => {
                        let mut b = a;
                        b[c.push.axis] += f64::from(c.push.sign) * pitch / 4.0;
                        b
                    }
                };
                let (pa, pb2) = (panel.to_px(a), panel.to_px(b));
                stroke(&mut self.pixmap, &[pa, pb2], colors[i], ACTUATOR_PX, None);
                circle(&mut self.pixmap, pa, ACTUATOR_PX * 0.9, Some(colors[i]), None);
            }
            // Nodes, coloured by |x|.
            for key in lattice.nodes().keys() {
                let d = disp(key);
                let m = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                let fill = ramp(m / self.color_range);
                circle(&mut self.pixmap, panel.to_px(at(*key)), NODE_RADIUS_PX, Some(fill), Some((NODE_OUTLINE, 1.0)));
            }
            // Feet and markers.
            for (j, e) in model.effectors().iter().enumerate() {
                let p = panel.to_px(eff_at(j));
                match e.role {
                    Role::Foot => dotted_circle(&mut self.pixmap, p, FOOT_RADIUS_PX, FOOT),
                    Role::Marker => {
                        circle(&mut self.pixmap, p, MARKER_RADIUS_PX, Some(MARKER), None);
                        let r = MARKER_RADIUS_PX + 3.0;
                        stroke(&mut self.pixmap, &[(p.0 - r, p.1), (p.0 + r, p.1)], MARKER, 1.5, None);
                        stroke(&mut self.pixmap, &[(p.0, p.1 - r), (p.0, p.1 + r)], MARKER, 1.5, None);
                    }
                    Role::Other => circle(&mut self.pixmap, p, 3.0, Some(TEXT), None),
                }
                if panel.view == View::Top && e.role != Role::Other {
                    // Feet label above, markers below: a back foot and its marker share (x, y).
                    let (dy, color) = if e.role == Role::Marker { (18.0, MARKER) } else { (-8.0, TEXT) };
                    self.text.draw(&mut self.pixmap, &e.id, p.0 + 10.0, p.1 + dy, 11.0, color);
                }
            }
            let name = view_name(panel.view);
            let w = TextRenderer::measure(name, LABEL_PX);
            let x = (panel.x0 + panel.w / 2.0) as f32 - w / 2.0;
            self.text.draw(
                &mut self.pixmap,
                name,
                x,
                (f64::from(HEADER_PX) + 1.3 * f64::from(LABEL_PX)) as f32,
                LABEL_PX,
                TEXT,
            );
        }
        self.draw_text(model, state);
        &self.pixmap
    }

    fn draw_text(&mut self, model: &Model, state: &LatticeState) {
        let title = self.options.title.clone();
        self.text.draw(&mut self.pixmap, &title, 8.0, 18.0, TITLE_PX, TEXT);
        let line = format!("t = {:.2} s    displacements drawn ×{}    ", state.t, self.options.exaggerate);
        let mut x = 8.0;
        self.text.draw(&mut self.pixmap, &line, x, 40.0, LABEL_PX, TEXT);
        x += TextRenderer::measure(&line, LABEL_PX);
        for (i, c) in model.controls().iter().enumerate() {
            let q = state.q.get(i).copied().unwrap_or(0.0);
            let s = format!("q_{} = {:+.2} mm   ", c.id, q * 1e3).replace('-', "−");
            self.text.draw(&mut self.pixmap, &s, x, 40.0, LABEL_PX, control_color(&c.id, i));
            x += TextRenderer::measure(&s, LABEL_PX);
        }
        // Legend.
        let y = self.pixmap.height() as f32 - 8.0;
        let mut x = 8.0;
        for (i, (c, a)) in model.controls().iter().zip(model.actuations()).enumerate() {
            let color = control_color(&c.id, i);
            stroke(&mut self.pixmap, &[(x, y - 4.0), (x + 18.0, y - 4.0)], color, ACTUATOR_PX, None);
            let s = format!("{} (d = {}, {}-layer {})", c.id, a.d, AXIS_NAMES[a.d], a.plane.layer);
            self.text.draw(&mut self.pixmap, &s, x + 24.0, y, 12.0, TEXT);
            x += 24.0 + TextRenderer::measure(&s, 12.0) + 16.0;
        }
        dotted_circle(&mut self.pixmap, (x + 8.0, y - 4.0), 7.0, FOOT);
        self.text.draw(&mut self.pixmap, "foot", x + 20.0, y, 12.0, TEXT);
        x += 20.0 + TextRenderer::measure("foot", 12.0) + 16.0;
        circle(&mut self.pixmap, (x + 6.0, y - 4.0), MARKER_RADIUS_PX, Some(MARKER), None);
        self.text.draw(&mut self.pixmap, "marker", x + 16.0, y, 12.0, TEXT);
        x += 16.0 + TextRenderer::measure("marker", 12.0) + 16.0;
        for (k, f) in [0.0, 0.5, 1.0].iter().enumerate() {
            circle(
                &mut self.pixmap,
                (x + 6.0 + 12.0 * k as f32, y - 4.0),
                NODE_RADIUS_PX,
                Some(ramp(*f)),
                Some((NODE_OUTLINE, 1.0)),
            );
        }
        let s = format!("node |x|: 0 → {} mm", self.color_range * 1e3);
        self.text.draw(&mut self.pixmap, &s, x + 40.0, y, 12.0, TEXT);
    }
}

/// The 8 corners of a voxel's band: the cell, thinned to ±[`BAND_HALF`] pitch across the plane (axis d).
fn band_corners(c: [f64; 3], pitch: f64, d: usize) -> [[f64; 3]; 8] {
    let mut half = [pitch / 2.0; 3];
    half[d % 3] = pitch * BAND_HALF;
    std::array::from_fn(|s| {
        let sign = |b: usize| if s >> b & 1 == 1 { 1.0 } else { -1.0 };
        [c[0] + sign(0) * half[0], c[1] + sign(1) * half[1], c[2] + sign(2) * half[2]]
    })
}

/// White → blue over [0, 1].
fn ramp(u: f64) -> Rgba {
    let u = if u.is_finite() { u.clamp(0.0, 1.0) } else { 0.0 };
    let mix = |a: u8, b: u8| (f64::from(a) + u * (f64::from(b) - f64::from(a))).round() as u8;
    Rgba::opaque(mix(255, NODE_FULL.r), mix(255, NODE_FULL.g), mix(255, NODE_FULL.b))
}

fn paint(color: Rgba) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(color.to_skia());
    p.anti_alias = true;
    p
}

fn stroke(pm: &mut Pixmap, points: &[(f32, f32)], color: Rgba, width: f32, dash: Option<[f32; 2]>) {
    let mut pb = PathBuilder::new();
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            pb.move_to(p.0, p.1);
        } else {
            pb.line_to(p.0, p.1);
        }
    }
    let Some(path) = pb.finish() else { return };
    let s = Stroke {
        width,
        line_cap: LineCap::Round,
        dash: dash.and_then(|d| StrokeDash::new(d.to_vec(), 0.0)),
        ..Stroke::default()
    };
    pm.stroke_path(&path, &paint(color), &s, Transform::identity(), None);
}

fn circle(pm: &mut Pixmap, c: (f32, f32), r: f32, fill: Option<Rgba>, outline: Option<(Rgba, f32)>) {
    let Some(path) = PathBuilder::from_circle(c.0, c.1, r) else { return };
    if let Some(f) = fill {
        pm.fill_path(&path, &paint(f), FillRule::Winding, Transform::identity(), None);
    }
    if let Some((color, width)) = outline {
        let s = Stroke { width, ..Stroke::default() };
        pm.stroke_path(&path, &paint(color), &s, Transform::identity(), None);
    }
}

fn dotted_circle(pm: &mut Pixmap, c: (f32, f32), r: f32, color: Rgba) {
    let Some(path) = PathBuilder::from_circle(c.0, c.1, r) else { return };
    let s = Stroke {
        width: 1.8,
        line_cap: LineCap::Round,
        dash: StrokeDash::new(vec![0.1, 4.0], 0.0),
        ..Stroke::default()
    };
    pm.stroke_path(&path, &paint(color), &s, Transform::identity(), None);
}

fn push_polygon(pb: &mut PathBuilder, points: &[(f32, f32)]) {
    for (i, p) in points.iter().enumerate() {
        if i == 0 {
            pb.move_to(p.0, p.1);
        } else {
            pb.line_to(p.0, p.1);
        }
    }
    if points.len() > 2 {
        pb.close();
    }
}

/// Convex hull of a few pixel points (monotone chain), for the outline of a projected box.
fn hull(points: &[(f32, f32)]) -> Vec<(f32, f32)> {
    let mut p: Vec<(f32, f32)> = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let cross = |o: (f32, f32), a: (f32, f32), b: (f32, f32)| (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0);
    let mut lower: Vec<(f32, f32)> = Vec::new();
    for &q in &p {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], q) <= 0.0 {
            lower.pop();
        }
        lower.push(q);
    }
    let mut upper: Vec<(f32, f32)> = Vec::new();
    for &q in p.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], q) <= 0.0 {
            upper.pop();
        }
        upper.push(q);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_project_as_the_spec_says() {
        let p = [1.0, 2.0, 3.0];
        assert_eq!(project(View::Top, p), (1.0, 2.0));
        assert_eq!(project(View::Side, p), (1.0, 3.0));
        let (u, v) = project(View::Iso, p);
        assert!((u + 30f64.to_radians().cos()).abs() < 1e-15, "x − y = −1");
        assert!((v - (3.0 + 3.0 * 0.5)).abs() < 1e-12);
        assert_eq!(ramp(0.0), Rgba::opaque(255, 255, 255));
        assert_eq!(ramp(1.0), NODE_FULL);
    }
}
