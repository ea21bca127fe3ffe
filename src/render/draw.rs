//! Describes one cell as scene items (spec §12 paint order): background, world grid, terrain and
//! walls, voxels, optional layers, text. Everything is transformed to cell pixels here, so stroke
//! widths are in pixels.

use std::fmt::Write as _;

use tiny_skia::Rect;

use super::camera::ViewTransform;
use super::layout::nice_spacing;
use super::scene::{Cap, Group, Item, Join, Path, Stroke};
use super::style::{self, Rgba};
use super::text::TextRenderer;
use super::{CellFrame, RenderOptions};
use crate::geom::Vec2;
use crate::model::voxel::scaffolding::SpringGroup;
use crate::model::voxel::sensors::SensorKind;
use crate::snapshot::Snapshot;
use crate::snapshot::{BodySnapshot, VoxelRobotSnapshot, VoxelSnapshot};

/// Voxel side assumed when it cannot be inferred from a voxel (degenerate outline); the spec default.
const DEFAULT_VOXEL_SIDE: f64 = 3.0;
/// Margin of the overlay text from the cell's top-left corner, in pixels.
const TEXT_MARGIN_PX: f32 = 4.0;
/// Arrowhead: length cap in pixels, fraction of the arrow, half-angle.
const ARROW_HEAD_PX: f64 = 7.0;
const ARROW_HEAD_FRACTION: f64 = 0.35;
const ARROW_HEAD_ANGLE: f64 = 0.45;
/// Most grid lines drawn along one axis; more would be a degenerate view.
const MAX_GRID_LINES: i64 = 2000;

/// How far outside the cell (in pixels) geometry is kept. Farther parts are clipped away here, because
/// tiny-skia's fixed-point rasterizer is only reliable up to about 2²² px; the guard band keeps the clip
/// edges (and the strokes along them) well out of sight.
const GUARD_PX: f64 = 1024.0;

/// A polygon in cell pixels (f64, before clipping).
type PixelPolygon = Vec<(f64, f64)>;

/// Buffers reused from frame to frame.
pub(crate) struct Scratch {
    clip: (PixelPolygon, PixelPolygon),
    text: String,
    /// The colour key, made once: it depends only on the renderer's options, which never change.
    legend: Option<Option<Group>>,
}

/// The items of one cell (or key) being described, and its size in pixels.
pub(crate) struct Canvas<'a> {
    pub items: Vec<Item>,
    pub w: u32,
    pub h: u32,
    pub look: &'a style::Look,
}

/// One line of a material key: the hatch and the text beside it.
type KeyEntry = (style::Hatch, String);

impl Default for Scratch {
    fn default() -> Self {
        Scratch { clip: (Vec::with_capacity(16), Vec::with_capacity(16)), text: String::new(), legend: None }
    }
}

impl Scratch {
    /// A pen for one batched path in the cell `cv`, seen through `tf`.
    fn pen<'t>(&mut self, tf: &'t ViewTransform, cv: &Canvas) -> Pen<'t> {
        let guard = [-GUARD_PX, -GUARD_PX, f64::from(cv.w) + GUARD_PX, f64::from(cv.h) + GUARD_PX];
        Pen { pb: Path::default(), tf, guard, clip: std::mem::take(&mut self.clip) }
    }
}

/// A stroke of `width` pixels in `color`, butt caps and miter joins.
fn line(color: Rgba, width: f32) -> Stroke {
    Stroke::solid(color, width)
}

/// Builds a path in cell pixels from world geometry, clipped to the guard band.
struct Pen<'t> {
    pb: Path,
    tf: &'t ViewTransform,
    /// x0, y0, x1, y1 of the guard rectangle.
    guard: [f64; 4],
    clip: (PixelPolygon, PixelPolygon),
}

impl Pen<'_> {
    fn inside(&self, (x, y): (f64, f64)) -> bool {
        let g = &self.guard;
        x >= g[0] && x <= g[2] && y >= g[1] && y <= g[3]
    }

    /// Adds a closed polygon. One with a non-finite vertex is skipped so it cannot void the whole batch.
    fn polygon(&mut self, points: &[Vec2]) {
        if points.len() < 2 || !points.iter().all(|p| p.is_finite()) {
            return;
        }
        let (mut a, mut b) = std::mem::take(&mut self.clip);
        a.clear();
        a.extend(points.iter().map(|&p| self.tf.to_pixel(p)));
        if !a.iter().all(|p| p.0.is_finite() && p.1.is_finite()) {
            self.clip = (a, b);
            return;
        }
        if !a.iter().all(|&p| self.inside(p)) {
            // Sutherland–Hodgman against the four sides of the guard rectangle.
            for side in 0..4 {
                clip_polygon(&a, &mut b, side, self.guard[side]);
                std::mem::swap(&mut a, &mut b);
            }
        }
        if let Some((&(x, y), rest)) = a.split_first() {
            self.pb.move_to(x as f32, y as f32);
            for &(x, y) in rest {
                self.pb.line_to(x as f32, y as f32);
            }
            self.pb.close();
        }
        self.clip = (a, b);
    }

    /// Adds a segment between two world points.
    fn segment(&mut self, a: Vec2, b: Vec2) {
        if a.is_finite() && b.is_finite() {
            self.pixel_segment(self.tf.to_pixel(a), self.tf.to_pixel(b));
        }
    }

    /// Adds a segment between two cell-pixel points (Liang–Barsky clipped to the guard band).
    fn pixel_segment(&mut self, a: (f64, f64), b: (f64, f64)) {
        if !(a.0.is_finite() && a.1.is_finite() && b.0.is_finite() && b.1.is_finite()) {
            return;
        }
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let g = self.guard;
        for (p, q) in [(-dx, a.0 - g[0]), (dx, g[2] - a.0), (-dy, a.1 - g[1]), (dy, g[3] - a.1)] {
            if p == 0.0 {
                if q < 0.0 {
                    return;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if t0 > t1 {
            return;
        }
        let at = |t: f64| {
            if t == 0.0 {
                a
            } else if t == 1.0 {
                b
            } else {
                (a.0 + t * dx, a.1 + t * dy)
            }
        };
        let (p, q) = (at(t0), at(t1));
        self.pb.move_to(p.0 as f32, p.1 as f32);
        self.pb.line_to(q.0 as f32, q.1 as f32);
    }

    /// Adds a circle of `radius` pixels around a world point (skipped if outside the guard band).
    fn circle(&mut self, c: Vec2, radius: f32) {
        let p = self.tf.to_pixel(c);
        if c.is_finite() && self.inside(p) {
            self.pb.circle(p.0 as f32, p.1 as f32, radius);
        }
    }
}

/// One Sutherland–Hodgman step: keeps the part of `input` on the inner side of the guard side `side`
/// (0: x ≥ v, 1: y ≥ v, 2: x ≤ v, 3: y ≤ v).
fn clip_polygon(input: &[(f64, f64)], out: &mut Vec<(f64, f64)>, side: usize, v: f64) {
    out.clear();
    let coord = |p: (f64, f64)| match side {
        0 | 2 => p.0,
        _ => p.1,
    };
    let keep = |p: (f64, f64)| if side < 2 { coord(p) >= v } else { coord(p) <= v };
    let cross = |a: (f64, f64), b: (f64, f64)| {
        let t = (v - coord(a)) / (coord(b) - coord(a));
        (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))
    };
    let Some(&last) = input.last() else { return };
    let mut prev = last;
    for &cur in input {
        match (keep(prev), keep(cur)) {
            (true, true) => out.push(cur),
            (true, false) => out.push(cross(prev, cur)),
            (false, true) => {
                out.push(cross(prev, cur));
                out.push(cur);
            }
            (false, false) => {}
        }
        prev = cur;
    }
}

/// Finishes the pen's path as an item that fills and/or strokes it, and returns the buffers to the
/// scratch. An empty path (e.g. no touching voxel) is no item.
fn finish(cv: &mut Canvas, sc: &mut Scratch, pen: Pen<'_>, fill: Option<Rgba>, stroke: Option<Stroke>) {
    sc.clip = pen.clip;
    if !pen.pb.is_empty() {
        cv.items.push(Item::Path { path: pen.pb, fill, stroke });
    }
}

/// The reading that drives a voxel's fill (and its printed value).
pub(crate) fn reading(v: &VoxelSnapshot, kind: SensorKind) -> f64 {
    match kind {
        SensorKind::AreaRatio => v.area_ratio,
        SensorKind::Touching => f64::from(u8::from(v.touching)),
        k => v.sensors.get(k),
    }
}

/// l from the spec's own definition AR = |area(outline)| / l², so display domains that scale with l work
/// without the snapshot carrying the material.
fn inferred_side(v: &VoxelSnapshot) -> f64 {
    let o = &v.outline;
    let twice_area: f64 = (0..4).map(|i| o[i].cross(o[(i + 1) % 4])).sum();
    let l = (twice_area.abs() * 0.5 / v.area_ratio).sqrt();
    if l.is_finite() && l > 0.0 {
        l
    } else {
        DEFAULT_VOXEL_SIDE
    }
}

/// What a cell paints of its snapshot: a cell frames the bodies it follows but draws all it sees, and
/// only those (`visible`, indices into the snapshot's bodies in snapshot order).
pub(crate) struct Seen<'a> {
    pub snapshot: &'a Snapshot,
    pub visible: &'a [usize],
}

impl<'a> Seen<'a> {
    fn bodies(&self) -> impl Iterator<Item = &'a BodySnapshot> + 'a {
        let bodies = &self.snapshot.bodies;
        self.visible.iter().filter_map(move |&i| bodies.get(i))
    }
}

/// The voxel robots a cell sees.
fn robots<'a>(frame: &Seen<'a>) -> impl Iterator<Item = &'a VoxelRobotSnapshot> + 'a {
    frame.bodies().filter_map(BodySnapshot::as_voxel_robot)
}

/// One cell to paint: what it shows, through which transform, and the framed robots' progress
/// (distance since the cell's first frame, mean speed since then).
pub(crate) struct Cell<'a> {
    pub tf: &'a ViewTransform,
    pub frame: &'a CellFrame<'a>,
    pub progress: Option<(f64, Option<f64>)>,
    /// The bodies the camera sees (see [`Seen`]).
    pub visible: &'a [usize],
    /// A fixed camera's world rectangle: the cell shows exactly it, the rest of the cell left blank
    /// (letterboxed), never more of the world than asked for.
    pub letterbox: bool,
}

pub(crate) fn draw_cell(cv: &mut Canvas, cell: &Cell<'_>, opts: &RenderOptions, sc: &mut Scratch) {
    let tf = cell.tf;
    let frame = &Seen { snapshot: cell.frame.snapshot, visible: cell.visible };
    if opts.world_grid {
        draw_world_grid(cv, tf);
    }
    draw_statics(cv, tf, frame, sc);
    if opts.ground_ticks {
        draw_ground_ticks(cv, tf, frame, sc);
    }
    draw_objects(cv, tf, frame, sc);
    if opts.ground_ticks {
        draw_wall_ticks(cv, tf, frame, sc);
        if let Some(ground) = cell.frame.heights {
            draw_height_ruler(cv, tf, ground, sc);
        }
    }
    draw_voxels(cv, tf, frame, opts, sc);
    draw_soft_cells(cv, tf, frame, sc);
    draw_layers(cv, tf, frame, opts, sc);
    if cell.letterbox {
        draw_letterbox(cv, tf);
    }
    let overlay = if opts.text { draw_overlay(cv, cell, opts.progress, sc) } else { None };
    let legend = if opts.legend { draw_legend(cv, opts, overlay, sc) } else { None };
    if opts.materials {
        draw_material_key(cv, tf, frame, overlay, legend, sc);
    }
}

/// Blank bars over what the cell shows beyond the camera's rectangle (to whole pixels).
fn draw_letterbox(cv: &mut Canvas, tf: &ViewTransform) {
    let (x0, y0) = tf.to_pixel(Vec2::new(tf.view.min.x, tf.view.max.y));
    let (x1, y1) = tf.to_pixel(Vec2::new(tf.view.max.x, tf.view.min.y));
    let (w, h) = (f64::from(cv.w), f64::from(cv.h));
    let (x0, y0, x1, y1) = (x0.round().max(0.0), y0.round().max(0.0), x1.round().min(w), y1.round().min(h));
    for [x, y, bw, bh] in [[0.0, 0.0, x0, h], [x1, 0.0, w - x1, h], [0.0, 0.0, w, y0], [0.0, y1, w, h - y1]] {
        if bw >= 1.0 && bh >= 1.0 {
            let rect = [x as f32, y as f32, bw as f32, bh as f32];
            cv.items.push(Item::Rect { rect, color: style::BACKGROUND, crisp: true });
        }
    }
}

/// 1 px lines snapped to whole pixels (crisp, and cheaper than anti-aliased strokes).
fn draw_world_grid(cv: &mut Canvas, tf: &ViewTransform) {
    let Some(g) = nice_spacing(tf.view.width()) else { return };
    let vis = tf.visible_world();
    let (w, h) = (cv.w as f32, cv.h as f32);
    let color = style::WORLD_GRID;
    let (kx0, kx1) = ((vis.min.x / g).ceil() as i64, (vis.max.x / g).floor() as i64);
    let (ky0, ky1) = ((vis.min.y / g).ceil() as i64, (vis.max.y / g).floor() as i64);
    if kx1.saturating_sub(kx0) > MAX_GRID_LINES || ky1.saturating_sub(ky0) > MAX_GRID_LINES {
        return;
    }
    for k in kx0..=kx1 {
        let (x, _) = tf.to_pixel(Vec2::new(k as f64 * g, 0.0));
        cv.items.push(Item::Rect { rect: [x.floor() as f32, 0.0, style::GRID_LINE_PX, h], color, crisp: true });
    }
    for k in ky0..=ky1 {
        let (_, y) = tf.to_pixel(Vec2::new(0.0, k as f64 * g));
        cv.items.push(Item::Rect { rect: [0.0, y.floor() as f32, w, style::GRID_LINE_PX], color, crisp: true });
    }
}

fn draw_statics(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let look = cv.look;
    let snap = frame.snapshot;
    if snap.terrain.is_none() && snap.statics.is_empty() {
        return;
    }
    let ramps = snap.terrain.as_deref().map_or_else(Vec::new, |t| ramps_in_view(t, tf, cv));
    let mut pen = sc.pen(tf, cv);
    if let (Some(terrain), false) = (snap.terrain.as_deref(), ramps.is_empty()) {
        // The ground's fill stays level under a ramp in view: the ramp's top brought down to its foot.
        let mut level = terrain.to_vec();
        for r in &ramps {
            level[r.top].y = level[r.foot].y;
        }
        pen.polygon(&level);
    } else if let Some(terrain) = snap.terrain.as_deref() {
        pen.polygon(terrain);
    }
    for poly in &snap.statics {
        pen.polygon(poly);
    }
    finish(cv, sc, pen, Some(look.terrain_fill), Some(line(look.terrain_outline, look.terrain_outline_px)));
    if let Some(terrain) = snap.terrain.as_deref() {
        for r in &ramps {
            draw_world_edge(cv, tf, terrain[r.foot], terrain[r.top], sc);
        }
    }
}

/// One of the world's end ramps: indices of its foot and its top in the terrain's outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ramp {
    foot: usize,
    top: usize,
}

/// The end ramps of a terrain outline as `Terrain::outline` writes it (the two bottom corners, then the
/// profile from its right end to its left end, whose first and last edges are the ramps), rising from
/// their foot away from the ground; none for another polygon (a hand-built snapshot's).
fn end_ramps(outline: &[Vec2]) -> Option<[Ramp; 2]> {
    let n = outline.len();
    if n < 6 {
        return None;
    }
    let (bottom, last) = (outline[0].y, n - 1);
    let shaped = outline[1].y == bottom
        && outline[0].x == outline[last].x
        && outline[1].x == outline[2].x
        && outline[2..].iter().all(|p| p.y > bottom);
    let right = Ramp { foot: 3, top: 2 };
    let left = Ramp { foot: last - 1, top: last };
    let rises = |r: Ramp, outwards: f64| {
        let (foot, top) = (outline[r.foot], outline[r.top]);
        top.y > foot.y && (top.x - foot.x) * outwards > 0.0
    };
    (shaped && rises(right, 1.0) && rises(left, -1.0)).then_some([left, right])
}

/// How far (pixels) beyond the cell a ramp's face still changes what the cell shows: its hatch and stroke.
const RAMP_MARGIN_PX: f64 = style::RAMP_HATCH_PX + 2.0;

/// The end ramps whose side of the world the cell shows (beyond its foot, within the hatch's reach).
/// Only they are drawn as the world's edge, so a frame without one keeps its terrain item unchanged.
fn ramps_in_view(outline: &[Vec2], tf: &ViewTransform, cv: &Canvas) -> Vec<Ramp> {
    let Some(ramps) = end_ramps(outline) else { return Vec::new() };
    let (lo, hi) = (-RAMP_MARGIN_PX, f64::from(cv.w) + RAMP_MARGIN_PX);
    ramps
        .into_iter()
        .filter(|r| {
            let (foot, top) = (tf.to_pixel(outline[r.foot]).0, tf.to_pixel(outline[r.top]).0);
            foot.min(top) < hi && foot.max(top) > lo
        })
        .collect()
}

/// A ramp drawn as the world's edge, the way an engineering drawing shows a fixed support: the terrain's
/// outline continued up its face (twice as thick) and short parallel strokes on its solid side, over
/// the background instead of a slab of ground 100 m high beside the robots. `foot` and `top` in metres.
fn draw_world_edge(cv: &mut Canvas, tf: &ViewTransform, foot: Vec2, top: Vec2, sc: &mut Scratch) {
    let look = cv.look;
    let mut pen = sc.pen(tf, cv);
    pen.segment(foot, top);
    finish(cv, sc, pen, None, Some(line(look.terrain_outline, 2.0 * look.terrain_outline_px)));
    let (a, b) = (tf.to_pixel(foot), tf.to_pixel(top));
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length = dx.hypot(dy);
    if !(length.is_finite() && length > 0.0) {
        return;
    }
    // The part of the face within the cell (and the hatch's reach), as distances from the foot.
    let m = RAMP_MARGIN_PX;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a.0 + m), (dx, f64::from(cv.w) + m - a.0), (-dy, a.1 + m), (dy, f64::from(cv.h) + m - a.1)] {
        if p == 0.0 {
            if q < 0.0 {
                return;
            }
        } else if p < 0.0 {
            t0 = t0.max(q / p);
        } else {
            t1 = t1.min(q / p);
        }
    }
    if t0 > t1 {
        return;
    }
    // Strokes at 45° down into the ramp (away from the ground), every RAMP_HATCH_SPACING_PX from the foot.
    let outwards = if top.x < foot.x { -1.0 } else { 1.0 };
    let reach = style::RAMP_HATCH_PX * std::f64::consts::FRAC_1_SQRT_2;
    let spacing = style::RAMP_HATCH_SPACING_PX;
    let first = (t0 * length / spacing).ceil().max(1.0) as i64;
    let last = (t1 * length / spacing).floor() as i64;
    let mut pen = sc.pen(tf, cv);
    for k in first..=last {
        let t = k as f64 * spacing / length;
        let (x, y) = (a.0 + t * dx, a.1 + t * dy);
        pen.pixel_segment((x, y), (x + outwards * reach, y + reach));
    }
    finish(cv, sc, pen, None, Some(line(look.terrain_outline, look.terrain_outline_px)));
}

/// Rigid objects: fixed ones as terrain, moving ones in their own colour, all outlined like terrain.
fn draw_objects(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let look = cv.look;
    use crate::model::object::ObjectMotion;
    for fixed in [true, false] {
        let mut pen = sc.pen(tf, cv);
        for o in
            frame.bodies().filter_map(BodySnapshot::as_object).filter(|o| (o.motion == ObjectMotion::Fixed) == fixed)
        {
            pen.polygon(&o.outline);
        }
        let fill = if fixed { look.terrain_fill } else { look.object_fill };
        finish(cv, sc, pen, Some(fill), Some(line(look.terrain_outline, look.terrain_outline_px)));
    }
}

fn draw_voxels(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, opts: &RenderOptions, sc: &mut Scratch) {
    let look = cv.look;
    let kind = opts.color_by;
    let fixed_domain = match (kind, opts.voxel_side) {
        (SensorKind::AreaRatio | SensorKind::Angle | SensorKind::Touching, _) => {
            Some(style::display_domain(kind, DEFAULT_VOXEL_SIDE, opts.area_ratio_range))
        }
        (_, Some(l)) => Some(style::display_domain(kind, l, opts.area_ratio_range)),
        (_, None) => None,
    };
    // Fills first, then all outlines in one stroke, so a neighbour's translucent fill never dims an outline.
    for robot in robots(frame) {
        for v in &robot.voxels {
            let domain =
                fixed_domain.unwrap_or_else(|| style::display_domain(kind, inferred_side(v), opts.area_ratio_range));
            let mut pen = sc.pen(tf, cv);
            pen.polygon(&v.outline);
            finish(cv, sc, pen, Some(look.fill(reading(v, kind), domain)), None);
        }
    }
    // Always: the hatch is how a material looks, not part of its key (hiding the key keeps the voxels).
    draw_material_hatch(cv, tf, frame, sc);
    let mut pen = sc.pen(tf, cv);
    for robot in robots(frame) {
        for v in &robot.voxels {
            pen.polygon(&v.outline);
        }
    }
    finish(cv, sc, pen, None, Some(line(look.voxel_outline, look.voxel_outline_px)));
}

/// Soft cells (`cells.md` §13, first slice): the polygon through the body centres filled by A/A₀ on
/// [0.75, 1.25], stroked at the bodies' width with round joins, the bodies as thin circles and a line
/// from the centre to body 0 (the orientation tick).
fn draw_soft_cells(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let look = cv.look;
    for cell in frame.bodies().filter_map(BodySnapshot::as_cell) {
        if cell.bodies.len() < 3 {
            continue;
        }
        let mut pen = sc.pen(tf, cv);
        pen.polygon(&cell.bodies);
        finish(cv, sc, pen, Some(look.fill(cell.area_ratio, style::CELL_AREA_DOMAIN)), None);
        let mut pen = sc.pen(tf, cv);
        pen.polygon(&cell.bodies);
        let width = (2.0 * cell.body_radius * tf.scale).max(1.0) as f32;
        // Round joins: the membrane is a chain of discs, so its outline has no corners.
        finish(cv, sc, pen, None, Some(Stroke { join: Join::Round, ..line(style::CELL_MEMBRANE, width) }));
        let mut pen = sc.pen(tf, cv);
        let r_px = (cell.body_radius * tf.scale) as f32;
        if r_px >= 2.0 {
            for b in &cell.bodies {
                pen.circle(*b, r_px);
            }
        }
        pen.segment(cell.center, cell.bodies[0]);
        finish(cv, sc, pen, None, Some(line(style::CELL_BODY_OUTLINE, style::CELL_BODY_OUTLINE_PX)));
    }
    draw_cell_parts(cv, tf, frame, sc);
}

/// Connectors, active pairs, muscles and pins (`cells.md` §13 items 4–5), over every cell's membrane.
fn draw_cell_parts(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let look = cv.look;
    use crate::model::cell::connector::ConnectorState;
    for cell in frame.bodies().filter_map(BodySnapshot::as_cell) {
        let r_px = ((cell.body_radius * tf.scale) as f32).max(1.5);
        // Muscles: zig-zags between their bodies, coloured by current/rest length on the A/A₀ ramp.
        for m in &cell.muscles {
            let (a, b) = (m.from_position, m.to_position);
            let d = b - a;
            let len = d.length();
            if !(len > 0.0) || !(m.rest_length > 0.0) {
                continue;
            }
            let n = Vec2::new(-d.y, d.x) * (1.0 / len);
            let zigs = 12;
            let amp = cell.body_radius.max(len * 0.03);
            let mut pen = sc.pen(tf, cv);
            let mut prev = a;
            for k in 1..=zigs {
                let f = k as f64 / zigs as f64;
                let side = if k == zigs {
                    0.0
                } else if k % 2 == 0 {
                    -1.0
                } else {
                    1.0
                };
                let q = a + d * f + n * (amp * side);
                pen.segment(prev, q);
                prev = q;
            }
            let color = look.fill(m.length / m.rest_length, style::CELL_AREA_DOMAIN);
            finish(cv, sc, pen, None, Some(line(Rgba { a: 1.0, ..color }, 2.0)));
        }
        // Active pairs as red segments.
        let mut pen = sc.pen(tf, cv);
        for p in &cell.pairs {
            pen.segment(p.from, p.to);
        }
        finish(cv, sc, pen, None, Some(line(style::CELL_PAIR, 1.5)));
        // Connector discs by state.
        for c in &cell.connectors {
            let (fill, outline) = match c.state {
                ConnectorState::Active => (style::CONNECTOR_ACTIVE, None),
                ConnectorState::Passive => (style::CONNECTOR_PASSIVE, Some(line(style::CONNECTOR_OUTLINE, 1.0))),
                ConnectorState::Inactive => (style::CONNECTOR_TYPES[c.type_index % style::CONNECTOR_TYPES.len()], None),
            };
            let mut pen = sc.pen(tf, cv);
            pen.circle(c.position, r_px);
            finish(cv, sc, pen, Some(fill), outline);
        }
        // Pins (and merge joints) as red dots of radius r_b/2.
        let mut pen = sc.pen(tf, cv);
        for l in &cell.links {
            pen.circle((l.from + l.to) * 0.5, (r_px * 0.5).max(1.5));
        }
        finish(cv, sc, pen, Some(style::CELL_PIN), None);
    }
}

fn draw_layers(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, opts: &RenderOptions, sc: &mut Scratch) {
    let look = cv.look;
    if opts.masses {
        let mut pen = sc.pen(tf, cv);
        for v in robots(frame).flat_map(|r| &r.voxels) {
            for m in &v.masses {
                pen.polygon(m);
            }
        }
        finish(cv, sc, pen, Some(style::MASS_FILL), None);
    }
    if opts.springs {
        for group in SpringGroup::ALL {
            let mut pen = sc.pen(tf, cv);
            for s in robots(frame).filter_map(|r| r.springs.as_deref()).flatten().filter(|s| s.group == group) {
                pen.segment(s.a, s.b);
            }
            finish(cv, sc, pen, None, Some(line(style::spring_color(group), style::SPRING_PX)));
        }
    }
    if opts.ropes {
        let mut pen = sc.pen(tf, cv);
        for r in robots(frame).filter_map(|r| r.ropes.as_deref()).flatten() {
            pen.segment(r.a, r.b);
        }
        finish(
            cv,
            sc,
            pen,
            None,
            Some(Stroke { dash: Some(style::ROPE_DASH_PX.to_vec()), ..line(style::ROPE, style::ROPE_PX) }),
        );
    }
    if opts.welds {
        let radius = ((style::WELD_RADIUS_M * tf.scale) as f32).max(style::WELD_MIN_RADIUS_PX);
        let mut pen = sc.pen(tf, cv);
        for pair in robots(frame).filter_map(|r| r.welds.as_deref()).flatten() {
            for &p in pair {
                pen.circle(p, radius);
            }
        }
        finish(cv, sc, pen, Some(style::WELD), None);
    }
    // Over the structure layers (the ring would be hidden by mass squares), under arrows and text.
    if opts.touching_markers {
        let mut pen = sc.pen(tf, cv);
        for v in robots(frame).flat_map(|r| &r.voxels).filter(|v| v.touching) {
            pen.polygon(&v.outline);
        }
        finish(cv, sc, pen, None, Some(line(style::TOUCHING, style::TOUCHING_PX)));
    }
    if opts.velocity_arrows {
        let mut pen = sc.pen(tf, cv);
        for v in robots(frame).flat_map(|r| &r.voxels) {
            push_arrow(&mut pen, v.center, v.center + v.velocity * 0.5);
        }
        finish(cv, sc, pen, None, Some(Stroke { cap: Cap::Round, ..line(style::ARROW, style::ARROW_PX) }));
    }
    if opts.signals {
        draw_signals(cv, tf, frame, sc);
    }
    if opts.sensor_values {
        let digit_half = 0.5 * TextRenderer::digit_height(look.text_px);
        for v in robots(frame).flat_map(|r| &r.voxels) {
            let value = reading(v, opts.color_by);
            // Print 0.00, not -0.00, for tiny negative readings.
            let value = if value.abs() < 0.005 { 0.0 } else { value };
            sc.text.clear();
            let _ = write!(sc.text, "{value:.2}");
            let (cx, cy) = tf.px(v.center);
            // Cull labels of voxels far outside the cell.
            if !(cx > -100.0 && cy > -100.0 && cx < cv.w as f32 + 100.0 && cy < cv.h as f32 + 100.0) {
                continue;
            }
            let width = TextRenderer::measure(&sc.text, look.text_px);
            // Centre the digits (which stand on the baseline) on the voxel centre.
            let baseline = cy + digit_half;
            cv.items.push(text(&sc.text, cx - width * 0.5, baseline, look.text_px, style::TEXT));
        }
    }
}

/// The signals a distributed controller's voxels sent at their last call: on each side that has a
/// neighbour, an arrow across the shared edge towards it, half a side long at |value| = 1 and
/// proportional to |value| (the mean of the side's values), black when positive, white when
/// negative. The arrows keep to the right of the edge's middle, so the two directions across one
/// edge sit side by side.
fn draw_signals(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    for positive in [true, false] {
        let mut pen = sc.pen(tf, cv);
        for r in robots(frame) {
            let Some(signals) = r.controller.as_ref().and_then(|c| c.signals.as_ref()) else {
                continue;
            };
            if signals.per_side == 0 {
                continue;
            }
            // Voxels are in grid order (bottom row first, x fastest).
            let occupied = |x: i64, y: i64| match (u32::try_from(x), u32::try_from(y)) {
                (Ok(x), Ok(y)) => r.voxels.binary_search_by_key(&(y, x), |v| (v.cell[1], v.cell[0])).is_ok(),
                _ => false,
            };
            for (vi, v) in r.voxels.iter().enumerate() {
                let [x, y] = [i64::from(v.cell[0]), i64::from(v.cell[1])];
                // Outline corners SW, SE, NE, NW; sides N, E, S, W as corner pairs and neighbour cells.
                let o = &v.outline;
                let sides =
                    [(o[3], o[2], x, y + 1), (o[2], o[1], x + 1, y), (o[1], o[0], x, y - 1), (o[0], o[3], x - 1, y)];
                for (side, &(a, b, nx, ny)) in sides.iter().enumerate() {
                    let values = signals.side(vi, side);
                    let value = values.iter().sum::<f64>() / values.len().max(1) as f64;
                    if !value.is_finite() || (value > 0.0) != positive || value == 0.0 || !occupied(nx, ny) {
                        continue;
                    }
                    let mid = (a + b) * 0.5;
                    let along = b - a;
                    let length = along.length();
                    let out = mid - v.center;
                    let out_len = out.length();
                    if !(length > 0.0 && out_len > 0.0) {
                        continue;
                    }
                    let out = out * (1.0 / out_len);
                    // a → b runs clockwise around the voxel, so b's half of the edge is on the right of `out`.
                    let lane = mid + along * 0.2;
                    let half = out * (0.25 * length * value.abs().min(1.0));
                    push_arrow(&mut pen, lane - half, lane + half);
                }
            }
        }
        let color = if positive { style::SIGNAL_POSITIVE } else { style::SIGNAL_NEGATIVE };
        finish(cv, sc, pen, None, Some(Stroke { cap: Cap::Round, ..line(color, style::SIGNAL_PX) }));
    }
}

/// A shaft from `from` to `to` with a two-stroke head; nothing if shorter than half a pixel.
fn push_arrow(pen: &mut Pen<'_>, from: Vec2, to: Vec2) {
    let a = pen.tf.to_pixel(from);
    let b = pen.tf.to_pixel(to);
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    if !(len.is_finite() && len >= 0.5) {
        return;
    }
    pen.pixel_segment(a, b);
    let head = (len * ARROW_HEAD_FRACTION).min(ARROW_HEAD_PX);
    let (ux, uy) = (dx / len, dy / len);
    for side in [-1.0, 1.0] {
        let (s, c) = (ARROW_HEAD_ANGLE * side).sin_cos();
        // The backwards direction (−ux, −uy) rotated by ±angle.
        let (rx, ry) = (-ux * c + uy * s, -ux * s - uy * c);
        pen.pixel_segment(b, (b.0 + rx * head, b.1 + ry * head));
    }
}

/// A text item.
fn text(s: &str, x: f32, baseline: f32, size: f32, color: Rgba) -> Item {
    Item::Text { text: s.to_owned(), x, baseline, size, color }
}

/// The overlay lines on a translucent white box, so they read over anything: label, time, progress.
/// Returns the box.
fn draw_overlay(cv: &mut Canvas, cell: &Cell<'_>, progress: bool, sc: &mut Scratch) -> Option<Rect> {
    let look = cv.look;
    let m = TextRenderer::metrics(look.text_px);
    let margin = look.around_text(TEXT_MARGIN_PX);
    sc.text.clear();
    let _ = write!(sc.text, "t = {:.2} s", cell.frame.snapshot.t);
    let mut lines = vec![sc.text.clone()];
    lines.extend(cell.frame.label.iter().flat_map(|l| l.lines().map(str::to_owned)));
    if let Some((distance, speed)) = cell.progress.filter(|_| progress && cell.frame.progress) {
        // Print +0.0, not −0.0, for tiny values.
        let distance = if distance.abs() < 0.05 { 0.0 } else { distance };
        lines.push(match speed.map(|v| if v.abs() < 0.005 { 0.0 } else { v }) {
            Some(v) => format!("Δx = {distance:+.1} m, mean v = {v:+.2} m/s"),
            None => format!("Δx = {distance:+.1} m"),
        });
    }
    let width = lines.iter().map(|l| TextRenderer::measure(l, look.text_px)).fold(0.0f32, f32::max);
    let height = m.line_height * lines.len() as f32;
    let pad = margin * 0.5;
    let rect = Rect::from_xywh(margin - pad, margin - pad, width + 2.0 * pad, height + 2.0 * pad);
    if let Some(r) = rect {
        cv.items.push(Item::Rect {
            rect: [r.x(), r.y(), r.width(), r.height()],
            color: style::OVERLAY_BOX,
            crisp: false,
        });
    }
    let mut baseline = margin + m.ascent;
    for line in lines {
        cv.items.push(Item::Text { text: line, x: margin, baseline, size: look.text_px, color: style::TEXT });
        baseline += m.line_height;
    }
    rect
}

/// Height of the legend's colour bar, in pixels (its width follows the labels under it).
const LEGEND_BAR_H_PX: f32 = 8.0;

/// The fill's key: the sensor and its display domain, a colour bar that is the voxel fill itself, and
/// what its ends mean (for the area ratio: contracted, expanded). Top-right, beside the overlay; left out
/// when the cell is too narrow for both (it would cover the robots).
fn draw_legend(cv: &mut Canvas, opts: &RenderOptions, overlay: Option<Rect>, sc: &mut Scratch) -> Option<Rect> {
    let key = sc.legend.get_or_insert_with(|| legend_group(opts, cv.look)).as_ref()?;
    let (box_w, box_h) = (key.width as f32, key.height as f32);
    let margin = cv.look.around_text(TEXT_MARGIN_PX);
    let x0 = (cv.w as f32 - box_w - margin).floor();
    let y0 = margin;
    let beside_overlay = overlay.is_none_or(|r| r.right() + margin <= x0);
    if x0 < 0.0 || !beside_overlay || y0 + box_h > cv.h as f32 * 0.5 {
        return None; // no room: the robots matter more than their key
    }
    cv.items.push(Item::Group(Group { x: x0 as i32, y: y0 as i32, ..key.clone() }));
    Rect::from_xywh(x0, y0, box_w, box_h)
}

/// The key on its translucent box, as a group to place in each cell (at 0, 0 here).
fn legend_group(opts: &RenderOptions, look: &style::Look) -> Option<Group> {
    let kind = opts.color_by;
    let domain = style::display_domain(kind, opts.voxel_side.unwrap_or(DEFAULT_VOXEL_SIDE), opts.area_ratio_range);
    let size = look.small_text_px;
    let m = TextRenderer::metrics(size);
    let title = format!("{} {:.2} – {:.2}", kind.id().replace('_', " "), domain[0], domain[1]);
    let (lo, hi) = match kind {
        SensorKind::AreaRatio => ("contracted", "expanded"),
        _ => ("low", "high"),
    };
    let px = |length: f32| look.around_text(length);
    let pad = px(TEXT_MARGIN_PX) * 0.5;
    let bar_h = px(LEGEND_BAR_H_PX);
    let ends_w = TextRenderer::measure(lo, size) + TextRenderer::measure(hi, size) + px(8.0);
    let inner_w = ends_w.max(TextRenderer::measure(&title, size)).ceil();
    let (box_w, box_h) = (inner_w + 2.0 * pad, (2.0 * m.line_height + bar_h + 2.0 * pad + px(2.0)).ceil());
    let (width, height) = (box_w as u32, box_h as u32);
    if width == 0 || height == 0 {
        return None;
    }
    let mut items = Vec::new();
    let baseline = pad + m.ascent;
    items.push(text(&title, pad, baseline, size, style::TEXT));
    let bar_y = baseline + m.descent.abs() + px(2.0);
    for i in 0..inner_w as u32 {
        let value = domain[0] + (domain[1] - domain[0]) * (f64::from(i) + 0.5) / f64::from(inner_w);
        let color = look.fill(value, domain);
        items.push(Item::Rect { rect: [pad + i as f32, bar_y, 1.0, bar_h], color, crisp: false });
    }
    let baseline = bar_y + bar_h + m.ascent + px(1.0);
    items.push(text(lo, pad, baseline, size, style::TEXT));
    items.push(text(hi, pad + inner_w - TextRenderer::measure(hi, size), baseline, size, style::TEXT));
    Some(Group { x: 0, y: 0, width, height, backdrop: Some(style::OVERLAY_BOX), items })
}

/// Hatches the voxels of every material but a robot's first, in one batched path: lines in the voxel's
/// own bilinear coordinates, so the hatch deforms and turns with the voxel. The line count follows the
/// voxel's rest side on screen (not its breathing size, which would make lines come and go).
fn draw_material_hatch(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let mut pen = sc.pen(tf, cv);
    for v in robots(frame).flat_map(|r| &r.voxels).filter(|v| v.material != 0) {
        let lines = hatch_lines(inferred_side(v) * tf.scale);
        push_hatch(&mut pen, &v.outline, style::material_hatch(v.material), lines);
    }
    finish(cv, sc, pen, None, Some(line(style::MATERIAL_HATCH, style::MATERIAL_HATCH_PX)));
}

/// Most hatch lines per direction in one voxel (a large voxel keeps a coarse, readable hatch).
const MAX_HATCH_LINES: usize = 7;

/// Hatch lines per direction for a voxel `side_px` pixels wide: about [`style::HATCH_SPACING_PX`] apart
/// along its diagonal, at least one.
fn hatch_lines(side_px: f64) -> usize {
    let n = (side_px * std::f64::consts::SQRT_2 / style::HATCH_SPACING_PX).floor() - 1.0;
    if n.is_finite() {
        n.clamp(1.0, MAX_HATCH_LINES as f64) as usize
    } else {
        1
    }
}

/// Adds `lines` evenly spaced hatch segments per direction of `hatch` inside the quad `outline` (SW, SE,
/// NE, NW), mapped bilinearly from the unit square: `/` is u − v = c, `\` is u + v = c.
fn push_hatch(pen: &mut Pen<'_>, outline: &[Vec2; 4], hatch: style::Hatch, lines: usize) {
    let [sw, se, ne, nw] = *outline;
    let at = |u: f64, v: f64| sw * ((1.0 - u) * (1.0 - v)) + se * (u * (1.0 - v)) + ne * (u * v) + nw * ((1.0 - u) * v);
    for i in 0..lines {
        let f = (i + 1) as f64 / (lines + 1) as f64;
        if hatch.rising() {
            let c = 2.0 * f - 1.0;
            let (a, b) = if c >= 0.0 { ((c, 0.0), (1.0, 1.0 - c)) } else { ((0.0, -c), (1.0 + c, 1.0)) };
            pen.segment(at(a.0, a.1), at(b.0, b.1));
        }
        if hatch.falling() {
            let c = 2.0 * f;
            let (a, b) = if c <= 1.0 { ((0.0, c), (c, 0.0)) } else { ((c - 1.0, 1.0), (1.0, c - 1.0)) };
            pen.segment(at(a.0, a.1), at(b.0, b.1));
        }
    }
}

/// Swatch of a material key entry, in pixels.
const SWATCH_W_PX: f32 = 16.0;
const SWATCH_H_PX: f32 = 9.0;

/// The material key: for each robot in view with more than one material, a swatch (the resting fill with
/// the material's hatch) and the material's name, prefixed by the robot's label when several robots
/// contribute. Top-right: left of the colour key, else under it (in its place without one); left out
/// where it would meet the overlay or a robot's box, or reach below the top half of the cell.
fn draw_material_key(
    cv: &mut Canvas,
    tf: &ViewTransform,
    frame: &Seen<'_>,
    overlay: Option<Rect>,
    legend: Option<Rect>,
    sc: &mut Scratch,
) {
    let vis = tf.visible_world();
    let in_view = |b: crate::geom::Aabb| {
        b.min.x <= vis.max.x && b.max.x >= vis.min.x && b.min.y <= vis.max.y && b.max.y >= vis.min.y
    };
    let mixed: Vec<&VoxelRobotSnapshot> = robots(frame).filter(|r| r.materials.len() > 1 && in_view(r.bbox)).collect();
    if mixed.is_empty() {
        return;
    }
    let mut entries: Vec<KeyEntry> = Vec::new();
    for r in &mixed {
        for (i, name) in r.materials.iter().enumerate() {
            let line = if mixed.len() > 1 { format!("{}: {name}", r.label) } else { name.clone() };
            let entry = (style::material_hatch(u32::try_from(i).unwrap_or(u32::MAX)), line);
            if !entries.contains(&entry) {
                entries.push(entry);
            }
        }
    }
    let Some(key) = material_key_group(&entries, cv.look, sc) else { return };
    let (box_w, box_h) = (key.width as f32, key.height as f32);
    let m = cv.look.around_text(TEXT_MARGIN_PX);
    let right_aligned = (cv.w as f32 - box_w - m).floor();
    // Beside the colour key (its left), else under it; top-right without one.
    let candidates = match legend {
        Some(r) => vec![((r.left() - m - box_w).floor(), r.top()), (right_aligned, (r.bottom() + m).ceil())],
        None => vec![(right_aligned, m)],
    };
    let overlaps = |r: Rect, (x0, y0): (f32, f32)| {
        r.left() - m < x0 + box_w && r.right() + m > x0 && r.top() - m < y0 + box_h && r.bottom() + m > y0
    };
    // Clear of the robots too: in a small cell the camera's margin above them is narrower than the key.
    let robot_boxes: Vec<Rect> = robots(frame)
        .filter_map(|r| {
            let (left, top) = tf.px(Vec2::new(r.bbox.min.x, r.bbox.max.y));
            let (right, bottom) = tf.px(Vec2::new(r.bbox.max.x, r.bbox.min.y));
            Rect::from_ltrb(left, top, right, bottom)
        })
        .collect();
    let fits = |&&(x0, y0): &&(f32, f32)| {
        x0 >= 0.0
            && y0 + box_h <= cv.h as f32 * 0.5
            && overlay.is_none_or(|r| !overlaps(r, (x0, y0)))
            && robot_boxes.iter().all(|&r| !overlaps(r, (x0, y0)))
    };
    // No room: the robots matter more than their key.
    let Some(&(x0, y0)) = candidates.iter().find(fits) else { return };
    cv.items.push(Item::Group(Group { x: x0 as i32, y: y0 as i32, ..key }));
}

/// A material key on its translucent box, one line per entry (at 0, 0).
fn material_key_group(entries: &[KeyEntry], look: &style::Look, sc: &mut Scratch) -> Option<Group> {
    let size = look.small_text_px;
    let m = TextRenderer::metrics(size);
    let pad = look.around_text(TEXT_MARGIN_PX) * 0.5;
    let gap = look.around_text(4.0);
    let (swatch_w, swatch_h) = (look.around_text(SWATCH_W_PX), look.around_text(SWATCH_H_PX));
    let text_w = entries.iter().map(|(_, t)| TextRenderer::measure(t, size)).fold(0.0f32, f32::max);
    let box_w = (pad + swatch_w + gap + text_w + pad).ceil();
    let box_h = (2.0 * pad + m.line_height * entries.len() as f32).ceil();
    let (width, height) = (box_w as u32, box_h as u32);
    if width == 0 || height == 0 {
        return None;
    }
    let mut key = Canvas { items: Vec::new(), w: width, h: height, look };
    // The swatches are drawn as voxels 1 m wide seen at `swatch_w` pixels per metre.
    for (row, (hatch, line_text)) in entries.iter().enumerate() {
        let top = pad + m.line_height * row as f32;
        let baseline = top + m.ascent;
        let sy = (top + 0.5 * (m.line_height - swatch_h)).round();
        let (x0, y0, x1, y1) = (f64::from(pad), f64::from(sy), f64::from(pad + swatch_w), f64::from(sy + swatch_h));
        let corner = |x: f64, y: f64| Vec2::new(x, -y);
        let quad = [corner(x0, y1), corner(x1, y1), corner(x1, y0), corner(x0, y0)];
        let tf =
            ViewTransform { scale: 1.0, center: Vec2::ZERO, pixel_center: (0.0, 0.0), view: crate::geom::Aabb::EMPTY };
        let mut pen = sc.pen(&tf, &key);
        pen.polygon(&quad);
        finish(&mut key, sc, pen, Some(look.fill(1.0, [0.75, 1.25])), None);
        let mut pen = sc.pen(&tf, &key);
        push_hatch(&mut pen, &quad, *hatch, 2);
        finish(&mut key, sc, pen, None, Some(line(style::MATERIAL_HATCH, style::MATERIAL_HATCH_PX)));
        let mut pen = sc.pen(&tf, &key);
        pen.polygon(&quad);
        finish(&mut key, sc, pen, None, Some(line(look.voxel_outline, 1.0)));
        key.items.push(text(line_text, pad + swatch_w + gap, baseline, size, style::TEXT));
    }
    Some(Group { x: 0, y: 0, width, height, backdrop: Some(style::OVERLAY_BOX), items: key.items })
}

/// The terrain's surface height at `x`: the highest edge of its outline above x.
fn surface_at(outline: &[Vec2], x: f64) -> Option<f64> {
    let n = outline.len();
    (0..n)
        .filter_map(|i| {
            let (a, b) = (outline[i], outline[(i + 1) % n]);
            let (lo, hi) = if a.x <= b.x { (a, b) } else { (b, a) };
            (lo.x <= x && x <= hi.x && hi.x > lo.x).then(|| lo.y + (hi.y - lo.y) * (x - lo.x) / (hi.x - lo.x))
        })
        .fold(None, |m: Option<f64>, y| Some(m.map_or(y, |m| m.max(y))))
}

/// Pixels per metre below which metre ticks are left out (only the 10 m ones remain).
const MIN_TICK_SPACING_PX: f64 = 4.0;

/// Ticks down into the ground every metre (longer every 10 m, with the distance written under them),
/// from the foot of the left end ramp to the foot of the right one.
fn draw_ground_ticks(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    let look = cv.look;
    let Some(terrain) = frame.snapshot.terrain.as_deref() else { return };
    let vis = tf.visible_world();
    let step = if tf.scale >= MIN_TICK_SPACING_PX { 1.0 } else { 10.0 };
    // Along the ground only: the world's end ramps are no course, and ticks on their steep faces read as
    // marks on a wall.
    use crate::model::terrain::{GROUND_END, GROUND_START};
    let (lo, hi) = (vis.min.x.max(GROUND_START), vis.max.x.min(GROUND_END));
    let (k0, k1) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    if k1.saturating_sub(k0) > MAX_GRID_LINES {
        return;
    }
    let mut pen = sc.pen(tf, cv);
    let mut labels = Vec::new();
    for k in k0..=k1 {
        let x = k as f64 * step;
        let Some(y) = surface_at(terrain, x) else { continue };
        let major = (x / 10.0).round() * 10.0 == x;
        let (px, py) = tf.to_pixel(Vec2::new(x, y));
        let len = if major { style::MAJOR_TICK_PX } else { style::MINOR_TICK_PX };
        pen.pixel_segment((px, py), (px, py + len));
        if major {
            labels.push((px, py + len, x));
        }
    }
    finish(cv, sc, pen, None, Some(line(look.ground_tick, style::GRID_LINE_PX)));
    let m = TextRenderer::metrics(look.small_text_px);
    for (px, py, x) in labels {
        let label = format!("{x:.0} m");
        let w = TextRenderer::measure(&label, look.small_text_px);
        let (left, baseline) = (px as f32 - w * 0.5, py as f32 + m.ascent + 1.0);
        if look.whole_tick_labels && !fits_whole(cv, left, baseline, w, look.small_text_px) {
            continue;
        }
        cv.items.push(text(&label, left, baseline, look.small_text_px, look.ground_tick));
    }
}

/// Whether a line of text `width` pixels wide at (`left`, `baseline`) lies whole inside the cell.
fn fits_whole(cv: &Canvas, left: f32, baseline: f32, width: f32, size: f32) -> bool {
    let m = TextRenderer::metrics(size);
    left >= 0.0
        && left + width <= cv.w as f32
        && baseline - m.ascent >= 0.0
        && baseline + m.descent.abs() <= cv.h as f32
}

/// A fixed object at least this many times taller than wide is a wall (a climbing channel's): it gets
/// height ticks.
const WALL_ASPECT: f64 = 3.0;
/// Label steps tried for wall heights, m: the first whose labels are this many text lines apart.
const HEIGHT_LABEL_STEPS_M: [f64; 5] = [1.0, 2.0, 5.0, 10.0, 20.0];
const HEIGHT_LABEL_LINES: f64 = 2.5;

/// Height ticks up the cell's left edge, for a task that measures height (jumping): every metre above
/// the ground level `ground` (every 10 m when zoomed out), from the edge inwards, longer and labelled
/// where the walls' ticks would be, so a jump reads off the frame.
fn draw_height_ruler(cv: &mut Canvas, tf: &ViewTransform, ground: f64, sc: &mut Scratch) {
    let look = cv.look;
    let vis = tf.visible_world();
    let (step, label_step) = height_steps(tf, look);
    let (k0, k1) = (((vis.min.y - ground).max(0.0) / step).ceil() as i64, ((vis.max.y - ground) / step).floor() as i64);
    if k1.saturating_sub(k0) > MAX_GRID_LINES {
        return;
    }
    let edge = tf.to_pixel(Vec2::new(vis.min.x, ground)).0;
    let mut pen = sc.pen(tf, cv);
    let mut labels = Vec::new();
    for k in k0.max(1)..=k1 {
        let h = k as f64 * step;
        let labelled = label_step.is_some_and(|s| (h / s).round() * s == h);
        let py = tf.to_pixel(Vec2::new(vis.min.x, ground + h)).1;
        let len = if labelled { style::MAJOR_TICK_PX } else { style::MINOR_TICK_PX };
        pen.pixel_segment((edge, py), (edge + len, py));
        if labelled {
            labels.push((edge + len, py, h, 1.0));
        }
    }
    finish(cv, sc, pen, None, Some(line(look.ground_tick, style::GRID_LINE_PX)));
    draw_height_labels(cv, &labels);
}

/// The tick step up a height scale, m (every metre, every 10 m when zoomed out), and the step of its
/// labels: the first of [`HEIGHT_LABEL_STEPS_M`] whose labels stand apart, if any is a multiple of it.
fn height_steps(tf: &ViewTransform, look: &style::Look) -> (f64, Option<f64>) {
    let step = if tf.scale >= MIN_TICK_SPACING_PX { 1.0 } else { 10.0 };
    let label_step = HEIGHT_LABEL_STEPS_M
        .into_iter()
        .find(|s| s * tf.scale >= HEIGHT_LABEL_LINES * f64::from(look.small_text_px))
        .filter(|s| *s >= step);
    (step, label_step)
}

/// Height labels ("4 m"), each `(x, y, h, side)`: beside the pixel x at the tick's height y, on its
/// right (`side` > 0) or its left; left out in the paper style where they would not fit whole.
fn draw_height_labels(cv: &mut Canvas, labels: &[(f64, f64, f64, f64)]) {
    let look = cv.look;
    let gap = 3.0;
    for &(x, y, h, side) in labels {
        let label = format!("{h:.0} m");
        let w = TextRenderer::measure(&label, look.small_text_px);
        let x = if side < 0.0 { x as f32 - gap - w } else { x as f32 + gap };
        let baseline = y as f32 + 0.5 * TextRenderer::digit_height(look.small_text_px);
        if look.whole_tick_labels && !fits_whole(cv, x, baseline, w, look.small_text_px) {
            continue;
        }
        cv.items.push(text(&label, x, baseline, look.small_text_px, style::TEXT));
    }
}

/// Height ticks on walls, as the ground's distance ticks but upwards: every metre above the wall's foot
/// (every 10 m when zoomed out), from the face towards the robots into the wall, longer where a label
/// gives the height. The labels stand beside the first wall, on its side away from the robots; a wall
/// of a climbing channel so reads off how high the climber got.
fn draw_wall_ticks(cv: &mut Canvas, tf: &ViewTransform, frame: &Seen<'_>, sc: &mut Scratch) {
    use crate::model::object::ObjectMotion;
    let look = cv.look;
    let robots_x: Vec<f64> = robots(frame).map(|r| r.bbox.center().x).filter(|x| x.is_finite()).collect();
    if robots_x.is_empty() {
        return;
    }
    let robots_x = robots_x.iter().sum::<f64>() / robots_x.len() as f64;
    let vis = tf.visible_world();
    let mut walls: Vec<crate::geom::Aabb> = frame
        .bodies()
        .filter_map(BodySnapshot::as_object)
        .filter(|o| o.motion == ObjectMotion::Fixed && o.angle == 0.0)
        .map(|o| o.bbox)
        .filter(|b| b.height() >= WALL_ASPECT * b.width() && b.max.x >= vis.min.x && b.min.x <= vis.max.x)
        .collect();
    walls.sort_by(|a, b| a.min.x.total_cmp(&b.min.x));
    let (step, label_step) = height_steps(tf, look);
    let mut pen = sc.pen(tf, cv);
    let mut labels = Vec::new();
    for (i, wall) in walls.iter().enumerate() {
        // The face towards the robots, the ticks going into the wall from it.
        let (face, into) = if wall.center().x < robots_x { (wall.max.x, -1.0) } else { (wall.min.x, 1.0) };
        let top = wall.max.y.min(vis.max.y);
        let (k0, k1) =
            (((vis.min.y - wall.min.y).max(0.0) / step).ceil() as i64, ((top - wall.min.y) / step).floor() as i64);
        if k1.saturating_sub(k0) > MAX_GRID_LINES {
            continue;
        }
        for k in k0.max(1)..=k1 {
            let h = k as f64 * step;
            let labelled = label_step.is_some_and(|s| (h / s).round() * s == h);
            let (px, py) = tf.to_pixel(Vec2::new(face, wall.min.y + h));
            let len = if labelled { style::MAJOR_TICK_PX } else { style::MINOR_TICK_PX };
            pen.pixel_segment((px, py), (px + into * len, py));
            if labelled && i == 0 {
                // Beside the wall's other face, away from the robots.
                let outer = if into < 0.0 { wall.min.x } else { wall.max.x };
                labels.push((tf.to_pixel(Vec2::new(outer, 0.0)).0, py, h, into));
            }
        }
    }
    finish(cv, sc, pen, None, Some(line(look.ground_tick, style::GRID_LINE_PX)));
    draw_height_labels(cv, &labels);
}
