//! Headless renderer (spec §12): describes snapshots as a [`Scene`] (plain data: paths, fills,
//! strokes, text, groups), one simulation per cell of a grid, each cell with its own camera, and draws
//! the scene with tiny-skia ([`raster`]) or writes it as SVG ([`svg`]) or PDF ([`pdf`]). Depends only on
//! [`crate::snapshot`], so it can render recorded or hand-built snapshots as well as live runs.
//!
//! ```ignore
//! let mut r = GridRenderer::new(1280, 720, 2, 2, RenderOptions::default())?;
//! let frame = r.render(&[CellFrame::new(&snapshot).label("run 1")])?;
//! let image = pixmap_to_rgba_image(frame);
//! ```

mod camera;
pub mod compare;
mod draw;
pub mod lattice;
mod layout;
pub mod pdf;
pub mod raster;
pub mod scene;
mod style;
pub mod svg;
mod text;
mod timing;
mod viewer_style;
mod visible;

use serde::{Deserialize, Serialize};
use tiny_skia::Pixmap;

pub use camera::{Camera, ViewTransform, FOLLOW_MARGIN, FOLLOW_TIME_CONSTANT_S, FOLLOW_WINDOW_S};
pub use layout::{auto_layout, cell_rect, nice_spacing, CellRect, GridLayout, LayoutParseError};
pub use raster::Rasterizer;
pub use scene::Scene;
pub use style::{
    display_domain, diverging, material_hatch, spring_color, viridis, voxel_fill, Hatch, Look, Rgba, Style,
};
pub use text::{LineMetrics, TextRenderer};
pub use timing::{frame_count, frame_count_of, frame_time, pick_index, FrameCursor, FRAME_TIME_EPS};
pub use viewer_style::style_json;

use crate::model::voxel::sensors::SensorKind;
use crate::snapshot::{BodyId, Snapshot};

/// The colours of the look, for callers and tests that need to name them.
pub mod colors {
    pub use super::style::{
        ARROW, BACKGROUND, MASS_FILL, MATERIAL_HATCH, ROPE, TERRAIN_FILL, TERRAIN_OUTLINE, TEXT, TOUCHING,
        VOXEL_FILL_ALPHA, VOXEL_OUTLINE, WELD, WORLD_GRID,
    };
}

/// What to draw. Optional layers are off by default (spec §12); the world grid and the text are on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderOptions {
    /// The four mass squares of each voxel, gray at alpha 0.6.
    pub masses: bool,
    /// Spring segments coloured by group (needs snapshots recorded with spring detail).
    pub springs: bool,
    /// Rope segments, dashed black (needs rope detail).
    pub ropes: bool,
    /// Red dots at welded mass centres (needs weld detail).
    pub welds: bool,
    /// The `color_by` reading printed at each voxel centre, 2 decimals.
    pub sensor_values: bool,
    /// Arrows from each voxel centre to centre + v·0.5 s.
    pub velocity_arrows: bool,
    /// A magenta ring around voxels that touch something outside their robot.
    pub touching_markers: bool,
    /// A distributed controller's signals: an arrow across each inner edge, towards the neighbour the
    /// value was sent to, its length ∝ |value| (black positive, white negative); needs snapshots with
    /// controller detail.
    pub signals: bool,
    /// The reading that drives the voxel fill.
    pub color_by: SensorKind,
    /// Display domain [lo, hi] of the area ratio (other sensors use the spec's fixed domains).
    pub area_ratio_range: [f64; 2],
    /// Voxel side l for the velocity domains (±1.5·l); `None` infers it per voxel from its outline and
    /// area ratio (AR = area / l²).
    pub voxel_side: Option<f64>,
    /// Light-gray world grid at a "nice" spacing.
    pub world_grid: bool,
    /// The overlay, top-left on a translucent box: the cell label and `t = …`.
    pub text: bool,
    /// In the overlay: the distance the framed robots' centre has travelled since the cell's first frame
    /// and its mean speed since then.
    pub progress: bool,
    /// A colour key of the fill (its sensor, the ends of the display domain), top-right.
    pub legend: bool,
    /// Distance ticks on the terrain surface, every metre (every 10 m labelled), so that a follow camera
    /// shows the ground moving.
    pub ground_ticks: bool,
    /// The material key (swatch and name of each material) beside or under the colour key when a robot
    /// in view has more than one material. The materials themselves are always told apart (a robot's
    /// first plain, the others hatched `/`, `\`, crossed): hiding the key does not change the voxels.
    pub materials: bool,
    /// The look: `screen` (the default) or `paper` ([`RenderOptions::paper`]).
    pub style: Style,
    /// Every text size a frame draws (overlay, keys, tick and height labels, sensor readings), and the
    /// boxes around the text, times this (figures: small frames are legible at 2, busy ones clearer at 0.75).
    pub font_scale: f32,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            masses: false,
            springs: false,
            ropes: false,
            welds: false,
            sensor_values: false,
            velocity_arrows: false,
            touching_markers: false,
            signals: false,
            color_by: SensorKind::AreaRatio,
            area_ratio_range: [0.75, 1.25],
            voxel_side: None,
            world_grid: true,
            text: true,
            progress: true,
            legend: true,
            ground_ticks: true,
            materials: true,
            style: Style::Screen,
            font_scale: 1.0,
        }
    }
}

impl RenderOptions {
    /// Figures for papers: the paper look (white, thin dark lines, the print-safe viridis ramp, text
    /// legible at a column's width), no overlay and no world grid; the colour key, the material key
    /// and the ground's distance ticks stay.
    pub fn paper() -> Self {
        RenderOptions { style: Style::Paper, text: false, world_grid: false, ..RenderOptions::default() }
    }

    /// Every optional layer on (debug views, tests).
    pub fn all_layers() -> Self {
        RenderOptions {
            masses: true,
            springs: true,
            ropes: true,
            welds: true,
            sensor_values: true,
            velocity_arrows: true,
            touching_markers: true,
            signals: true,
            ..RenderOptions::default()
        }
    }
}

/// Why a renderer could not be built or could not render.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("the output image must be at least 1×1 pixels, got {width}×{height}")]
    EmptyImage { width: u32, height: u32 },
    #[error("the grid must have at least 1 column and 1 row, got {cols} columns × {rows} rows")]
    EmptyGrid { cols: u32, rows: u32 },
    #[error("a {width}×{height} image is too small for {cols} columns × {rows} rows: every cell needs a pixel")]
    CellTooSmall { width: u32, height: u32, cols: u32, rows: u32 },
    #[error("a {width}×{height} image is too large to allocate")]
    TooLarge { width: u32, height: u32 },
    #[error("{given} cells given for a grid of {capacity}")]
    TooManyCells { given: usize, capacity: usize },
}

/// What one cell shows in a frame.
#[derive(Debug, Clone, Copy)]
pub struct CellFrame<'a> {
    pub snapshot: &'a Snapshot,
    /// Bodies to show (and to frame); `None` shows all bodies of the snapshot.
    pub bodies: Option<&'a [BodyId]>,
    /// Text under the time line (may have several lines).
    pub label: Option<&'a str>,
    /// The overlay's distance and speed line (when [`RenderOptions::progress`]); off for a scene
    /// whose task measures something else (a fold's error, shown in the label instead).
    pub progress: bool,
    /// The ground level, m, when the cell's task measures height (jumping): a height ruler up the
    /// cell's left edge (with [`RenderOptions::ground_ticks`]).
    pub heights: Option<f64>,
}

impl<'a> CellFrame<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        CellFrame { snapshot, bodies: None, label: None, progress: true, heights: None }
    }
    pub(crate) fn without_progress(self) -> Self {
        CellFrame { progress: false, ..self }
    }
    pub fn bodies(self, ids: &'a [BodyId]) -> Self {
        CellFrame { bodies: Some(ids), ..self }
    }
    pub fn label(self, label: &'a str) -> Self {
        CellFrame { label: Some(label), ..self }
    }
}

/// What a cell shows of a frame besides the bodies: the camera's world rectangle, the framed bodies'
/// centre, and the overlay's (Δx, mean speed since the first frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellView {
    pub view: crate::geom::Aabb,
    pub centre: crate::geom::Vec2,
    pub progress: Option<(f64, Option<f64>)>,
}

struct CellState {
    rect: CellRect,
    camera: Camera,
    transform: Option<ViewTransform>,
    progress: Progress,
}

/// Where and when the framed robots' centre was at the cell's first frame: the overlay's Δx and mean
/// speed (Δx over the time since, the figure a locomotion result reports; a speed over a short window
/// swings with the gait and reads like a different result). The HTML viewer stores the same figures
/// per frame.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    start: Option<(f64, f64)>,
    last_t: f64,
}

impl Progress {
    /// Records the centre `x` at time `t` and returns (distance since the first frame, mean speed
    /// since then once time has passed), or `None` without a finite centre. A time going backwards
    /// starts over.
    pub fn update(&mut self, t: f64, x: f64) -> Option<(f64, Option<f64>)> {
        if !(t.is_finite() && x.is_finite()) {
            return None;
        }
        if self.start.is_some() && t < self.last_t {
            *self = Progress::default();
        }
        self.last_t = t;
        let (t0, x0) = *self.start.get_or_insert((t, x));
        let speed = (t > t0).then(|| (x - x0) / (t - t0));
        Some((x - x0, speed))
    }
}

/// Renders frames of a `cols` × `rows` grid of cells into one reusable pixmap. Cells are filled row by
/// row (cell index = row·cols + column); each keeps its camera across frames.
pub struct GridRenderer {
    layout: GridLayout,
    options: RenderOptions,
    /// The options' style at their font scale: what every cell is drawn with.
    look: style::Look,
    cells: Vec<CellState>,
    output: Pixmap,
    /// The scene of the last rendered frame.
    last: Scene,
    raster: Rasterizer,
    scratch: draw::Scratch,
    /// The body index of each distinct snapshot of the frame being rendered (cells of one multi-robot
    /// world share theirs), reused from frame to frame.
    indexes: Vec<visible::BodyIndex>,
    /// The bodies the cell being drawn sees.
    visible: Vec<usize>,
    /// How many bodies each cell drew in the last frame.
    drawn: Vec<usize>,
}

impl GridRenderer {
    /// A renderer for a `width` × `height` image split into `cols` × `rows` cells, all follow cameras.
    pub fn new(width: u32, height: u32, cols: u32, rows: u32, options: RenderOptions) -> Result<Self, RenderError> {
        if width == 0 || height == 0 {
            return Err(RenderError::EmptyImage { width, height });
        }
        if cols == 0 || rows == 0 {
            return Err(RenderError::EmptyGrid { cols, rows });
        }
        if cols > width || rows > height {
            return Err(RenderError::CellTooSmall { width, height, cols, rows });
        }
        let output = Pixmap::new(width, height).ok_or(RenderError::TooLarge { width, height })?;
        let mut cells = Vec::with_capacity(cols as usize * rows as usize);
        for j in 0..rows {
            for i in 0..cols {
                let rect = cell_rect(width, height, cols, rows, i, j);
                cells.push(CellState {
                    rect,
                    camera: Camera::follow(),
                    transform: None,
                    progress: Progress::default(),
                });
            }
        }
        Ok(GridRenderer {
            layout: GridLayout { cols, rows },
            look: options.style.look().with_font_scale(options.font_scale),
            options,
            cells,
            output,
            last: Scene::new(width, height),
            raster: Rasterizer::new(),
            scratch: draw::Scratch::default(),
            indexes: Vec::new(),
            visible: Vec::new(),
            drawn: vec![0; cols as usize * rows as usize],
        })
    }

    pub(crate) fn with_layout(
        width: u32,
        height: u32,
        layout: GridLayout,
        options: RenderOptions,
    ) -> Result<Self, RenderError> {
        Self::new(width, height, layout.cols, layout.rows, options)
    }

    pub fn layout(&self) -> GridLayout {
        self.layout
    }
    pub fn width(&self) -> u32 {
        self.output.width()
    }
    pub fn height(&self) -> u32 {
        self.output.height()
    }
    pub fn options(&self) -> &RenderOptions {
        &self.options
    }
    /// The pixel rectangle of cell `index` (row-major).
    pub fn cell_rect(&self, index: usize) -> Option<CellRect> {
        self.cells.get(index).map(|c| c.rect)
    }
    pub fn camera(&self, index: usize) -> Option<&Camera> {
        self.cells.get(index).map(|c| &c.camera)
    }
    /// E.g. to feed [`Camera::observe`] with snapshots that are not rendered, or to reset it.
    pub(crate) fn camera_mut(&mut self, index: usize) -> Option<&mut Camera> {
        self.cells.get_mut(index).map(|c| &mut c.camera)
    }
    /// Replaces a cell's camera (e.g. with [`Camera::fixed`]); returns false if there is no such cell.
    pub fn set_camera(&mut self, index: usize, camera: Camera) -> bool {
        self.cells.get_mut(index).map(|c| c.camera = camera).is_some()
    }
    /// The world → cell-pixel transform used for cell `index` in the last frame (`None` if it was empty).
    pub fn transform(&self, index: usize) -> Option<ViewTransform> {
        self.cells.get(index).and_then(|c| c.transform)
    }
    /// The last rendered frame (premultiplied RGBA).
    pub fn pixmap(&self) -> &Pixmap {
        &self.output
    }

    /// Hands the last rendered frame over in `frame`, without copying it when `frame` has the same size:
    /// the two are exchanged, and the next [`GridRenderer::render`] overwrites every pixel of what the
    /// renderer got back (the cells tile the image).
    pub fn swap_frame(&mut self, frame: &mut Pixmap) {
        if (frame.width(), frame.height()) == (self.output.width(), self.output.height()) {
            std::mem::swap(frame, &mut self.output);
        } else {
            frame.clone_from(&self.output);
        }
    }

    /// What [`GridRenderer::render`] does to cell `index`'s camera and progress for `frame`, without
    /// drawing: for frames that are skipped (a still picks one frame of many), and for the HTML viewer,
    /// which draws the returned view itself. `None` if there is no such cell.
    pub fn observe(&mut self, index: usize, frame: &CellFrame<'_>) -> Option<CellView> {
        let cell = self.cells.get_mut(index)?;
        let aspect = f64::from(cell.rect.width) / f64::from(cell.rect.height);
        let view = cell.camera.update(frame.snapshot.t, frame.snapshot.bodies_bbox(frame.bodies), aspect);
        let centre = framed_centre(frame);
        let progress = cell.progress.update(frame.snapshot.t, centre.x);
        Some(CellView { view, centre, progress })
    }

    /// Renders one frame: `cells[k]` goes to cell k (row-major); cells beyond `cells.len()` stay white.
    /// Each cell draws only the bodies its camera sees (with a margin for strokes and labels), found
    /// through an index of each snapshot's bodies built once per frame, so a frame costs time linear in
    /// the number of cells and bodies.
    pub fn render(&mut self, cells: &[CellFrame<'_>]) -> Result<&Pixmap, RenderError> {
        self.last = self.scene(cells)?;
        self.raster.render_into(&mut self.output, &self.last);
        Ok(&self.output)
    }

    /// The scene of the last [`GridRenderer::render`]: what the last frame's pixels show.
    pub(crate) fn last_scene(&self) -> &Scene {
        &self.last
    }

    /// What [`GridRenderer::render`] draws, as a scene (each cell a group with its own white backdrop),
    /// moving the cameras exactly as rendering does: for the vector writers, which draw the same frame.
    pub fn scene(&mut self, cells: &[CellFrame<'_>]) -> Result<Scene, RenderError> {
        if cells.len() > self.cells.len() {
            return Err(RenderError::TooManyCells { given: cells.len(), capacity: self.cells.len() });
        }
        // Slot of each cell's snapshot in `indexes`, by the snapshot's address.
        let mut slots: std::collections::HashMap<*const Snapshot, usize> = std::collections::HashMap::new();
        let mut slot_of = Vec::with_capacity(cells.len());
        for frame in cells {
            let next = slots.len();
            let slot = *slots.entry(std::ptr::from_ref(frame.snapshot)).or_insert(next);
            if slot == next {
                if self.indexes.len() <= slot {
                    self.indexes.push(visible::BodyIndex::default());
                }
                self.indexes[slot].build(frame.snapshot, self.options.velocity_arrows);
            }
            slot_of.push(slot);
        }
        let mut scene = Scene::new(self.output.width(), self.output.height());
        for (index, cell) in self.cells.iter_mut().enumerate() {
            let look = &self.look;
            let mut canvas = draw::Canvas { items: Vec::new(), w: cell.rect.width, h: cell.rect.height, look };
            match cells.get(index) {
                Some(frame) => {
                    let (w, h) = (cell.rect.width, cell.rect.height);
                    let bbox = frame.snapshot.bodies_bbox(frame.bodies);
                    let view = cell.camera.update(frame.snapshot.t, bbox, f64::from(w) / f64::from(h));
                    let tf = ViewTransform::new(view, w, h);
                    let centre = framed_centre(frame);
                    let progress = cell.progress.update(frame.snapshot.t, centre.x);
                    self.indexes[slot_of[index]].query(
                        tf.visible_world(),
                        visible::DRAW_MARGIN_PX / tf.scale,
                        &mut self.visible,
                    );
                    self.drawn[index] = self.visible.len();
                    let letterbox = cell.camera.is_fixed();
                    let cell_frame = draw::Cell { tf: &tf, frame, progress, visible: &self.visible, letterbox };
                    draw::draw_cell(&mut canvas, &cell_frame, &self.options, &mut self.scratch);
                    cell.transform = Some(tf);
                }
                None => {
                    cell.transform = None;
                    self.drawn[index] = 0;
                }
            }
            scene.items.push(scene::Item::Group(scene::Group {
                x: cell.rect.x as i32,
                y: cell.rect.y as i32,
                width: cell.rect.width,
                height: cell.rect.height,
                backdrop: Some(style::BACKGROUND),
                items: canvas.items,
            }));
        }
        Ok(scene)
    }

    /// How many bodies (robots, cells, objects) cell `index` drew in the last frame: those its camera
    /// saw, not every body of its world.
    pub fn bodies_drawn(&self, index: usize) -> Option<usize> {
        self.drawn.get(index).copied()
    }
}

/// Mean centre of the bodies a cell frames (all bodies without a filter).
fn framed_centre(frame: &CellFrame<'_>) -> crate::geom::Vec2 {
    // Objects are scenery (see `Snapshot::bodies_bbox`): the overlay's Δx is the robots'.
    let framed = frame.snapshot.framed(frame.bodies);
    let (sum, n) = framed.fold((crate::geom::Vec2::ZERO, 0usize), |(s, n), b| (s + b.center(), n + 1));
    if n == 0 {
        crate::geom::Vec2::new(f64::NAN, f64::NAN)
    } else {
        sum * (1.0 / n as f64)
    }
}

/// Renders a single snapshot into a `width` × `height` image (one cell, camera framing it exactly).
pub fn render_snapshot(
    snapshot: &Snapshot,
    width: u32,
    height: u32,
    options: RenderOptions,
) -> Result<Pixmap, RenderError> {
    let mut r = GridRenderer::new(width, height, 1, 1, options)?;
    r.render(&[CellFrame::new(snapshot)])?;
    Ok(r.output)
}

/// Straight (demultiplied) RGBA, as PNG encoders and the golden harness expect.
pub fn pixmap_to_rgba_image(pixmap: &Pixmap) -> image::RgbaImage {
    let mut data = Vec::with_capacity(pixmap.data().len());
    for p in pixmap.pixels() {
        let c = p.demultiply();
        data.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    // The buffer length is exactly width·height·4, so this cannot fail.
    image::RgbaImage::from_raw(pixmap.width(), pixmap.height(), data)
        .unwrap_or_else(|| image::RgbaImage::new(pixmap.width(), pixmap.height()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// The overlay's speed is the mean since the first frame (Δx / Δt), not the last second's: a
    /// robot that ran 2 m in 2 s and then stood still for 2 s reads 0.5 m/s.
    #[test]
    fn progress_speed_is_the_mean_since_the_first_frame() {
        let mut p = Progress::default();
        assert_eq!(p.update(1.0, 5.0), Some((0.0, None)));
        assert_eq!(p.update(3.0, 7.0), Some((2.0, Some(1.0))));
        assert_eq!(p.update(5.0, 7.0), Some((2.0, Some(0.5))));
        assert_eq!(p.update(f64::NAN, 7.0), None);
        // Time going backwards (a new run in the same cell) starts over.
        assert_eq!(p.update(0.0, 1.0), Some((0.0, None)));
    }

    /// A snapshot of `n` one-voxel robots standing `spacing` metres apart on flat ground.
    fn row_of_robots(n: usize, spacing: f64) -> Snapshot {
        let robots: Vec<String> = (0..n)
            .map(|i| {
                format!(r##"{{"label": "r{i}", "body": ["#"], "position": [{}, 0.5]}}"##, 10.0 + spacing * i as f64)
            })
            .collect();
        let json = format!(
            r#"{{"world": {{"terrain": {{"type": "flat"}}, "duration": 1}}, "robots": [{}]}}"#,
            robots.join(",")
        );
        Scenario::from_json(&json).unwrap().build().unwrap().into_world().snapshot()
    }

    #[test]
    fn each_cell_draws_only_the_bodies_its_camera_sees() {
        let n = 30;
        let snapshot = row_of_robots(n, 25.0);
        let ids: Vec<[BodyId; 1]> = (0..n).map(|i| [BodyId(i)]).collect();
        let frames: Vec<CellFrame<'_>> = ids.iter().map(|id| CellFrame::new(&snapshot).bodies(id)).collect();
        let mut r = GridRenderer::new(600, 250, 6, 5, RenderOptions::all_layers()).unwrap();
        r.render(&frames).unwrap();
        // Each camera frames its robot (1.5× its box, 1 m) with a 64 px margin (≈ 6 m at this scale):
        // the neighbours 25 m away are out of sight, so 30 bodies are drawn, not 30 × 30.
        let drawn: Vec<usize> = (0..n).map(|i| r.bodies_drawn(i).unwrap()).collect();
        assert_eq!(drawn, vec![1; n]);

        // Robots 4 m apart (3 m voxels): a cell sees its neighbours too, but not the far end of the row.
        let crowded = row_of_robots(n, 4.0);
        let frames: Vec<CellFrame<'_>> = ids.iter().map(|id| CellFrame::new(&crowded).bodies(id)).collect();
        let mut r = GridRenderer::new(600, 250, 6, 5, RenderOptions::default()).unwrap();
        r.render(&frames).unwrap();
        for i in 0..n {
            let d = r.bodies_drawn(i).unwrap();
            assert!((2..n).contains(&d), "cell {i} drew {d} of {n} bodies");
        }

        // One camera framing them all draws them all.
        let mut r = GridRenderer::new(600, 250, 1, 1, RenderOptions::default()).unwrap();
        r.render(&[CellFrame::new(&snapshot)]).unwrap();
        assert_eq!(r.bodies_drawn(0), Some(n));
    }
}
