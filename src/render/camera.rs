//! Per-cell cameras (spec §12): a follow camera that frames the robots of the last 3 s smoothly, or a fixed
//! view; and the world → pixel transform of a cell.

use std::collections::VecDeque;

use crate::geom::{Aabb, Vec2};

/// Seconds of simulated time whose robot boxes the follow camera keeps in view.
pub const FOLLOW_WINDOW_S: f64 = 3.0;
/// The union box is enlarged by this factor about its centre, in each dimension.
pub const FOLLOW_MARGIN: f64 = 1.5;
/// Time constant of the exponential smoothing, in seconds of simulated time.
pub const FOLLOW_TIME_CONSTANT_S: f64 = 0.5;
/// Smallest camera extent in metres, so a degenerate box (a point) still gives a finite scale.
const MIN_EXTENT_M: f64 = 1e-3;
/// View used when a follow camera has never seen a robot box (an empty cell, or a filter matching nothing).
const DEFAULT_VIEW: Aabb = Aabb { min: Vec2::new(-5.0, -5.0), max: Vec2::new(5.0, 5.0) };

#[derive(Debug, Clone, Copy, PartialEq)]
struct ViewState {
    center: Vec2,
    size: Vec2,
}

/// A camera that decides which world rectangle a cell shows.
#[derive(Debug, Clone)]
pub struct Camera {
    fixed: Option<Aabb>,
    /// (t, robots' box) of the snapshots seen within the window, oldest first.
    history: VecDeque<(f64, Aabb)>,
    state: Option<ViewState>,
    last_t: f64,
}

impl Default for Camera {
    fn default() -> Self {
        Camera::follow()
    }
}

impl Camera {
    /// A camera that follows the robots of its cell.
    pub fn follow() -> Self {
        Camera { fixed: None, history: VecDeque::with_capacity(256), state: None, last_t: f64::NEG_INFINITY }
    }

    /// A camera that always shows `view`: centred in the cell with a uniform scale, the rest of the cell
    /// left blank (letterboxed), so a picture shows the rectangle asked for and no more.
    pub fn fixed(view: Aabb) -> Self {
        Camera { fixed: Some(view), history: VecDeque::new(), state: None, last_t: f64::NEG_INFINITY }
    }

    pub(crate) fn is_fixed(&self) -> bool {
        self.fixed.is_some()
    }

    /// Forgets the history: the next frame is framed exactly again (e.g. when a new run starts in the cell).
    pub fn reset(&mut self) {
        self.history.clear();
        self.state = None;
        self.last_t = f64::NEG_INFINITY;
    }

    /// Records the robots' box at time `t` without computing a view. Callers that see more snapshots than
    /// they render (every physics step) may feed them here so the 3 s window misses nothing; the renderer
    /// records the rendered snapshots itself. Non-finite or empty boxes are ignored.
    pub fn observe(&mut self, t: f64, bbox: Aabb) {
        if self.fixed.is_some() || !t.is_finite() {
            return;
        }
        if t < self.last_t {
            // Time went backwards: a new run. Start over rather than mix two runs.
            self.reset();
        }
        if let Some(&(last, _)) = self.history.back() {
            if last == t {
                self.history.pop_back();
            }
        }
        if !bbox.is_empty() && bbox.min.is_finite() && bbox.max.is_finite() {
            self.history.push_back((t, bbox));
        }
        let oldest = t - FOLLOW_WINDOW_S - 1e-9;
        while self.history.front().is_some_and(|&(s, _)| s < oldest) {
            self.history.pop_front();
        }
    }

    /// The exact (unsmoothed) target view for a cell of aspect `aspect` (width / height): the union of the
    /// boxes in the window, enlarged 1.5×, its shorter side extended to the aspect (a longer height upwards
    /// only, so a cell shows mostly sky and robot). `None` with no box.
    pub fn target(&self, aspect: f64) -> Option<Aabb> {
        self.target_state(aspect).map(|s| rect(s.center, s.size))
    }

    fn target_state(&self, aspect: f64) -> Option<ViewState> {
        let union = self.history.iter().fold(Aabb::EMPTY, |b, &(_, r)| b.union(r));
        if union.is_empty() {
            return None;
        }
        let (w, h) = (union.width() * FOLLOW_MARGIN, union.height() * FOLLOW_MARGIN);
        let size = fit_aspect(Vec2::new(w.max(MIN_EXTENT_M), h.max(MIN_EXTENT_M)), aspect);
        // The height the aspect adds goes above the robots (sky), not half below them into the ground:
        // the margin under the box stays what the 1.5× enlargement gives.
        let bottom = union.min.y - (h.max(MIN_EXTENT_M).min(size.y) - union.height()) * 0.5;
        let center = Vec2::new(union.center().x, bottom + size.y * 0.5);
        Some(ViewState { center, size })
    }

    /// Records the robots' box at `t` and returns the view to draw, for a cell of aspect `aspect`.
    pub fn update(&mut self, t: f64, bbox: Aabb, aspect: f64) -> Aabb {
        if let Some(view) = self.fixed {
            return view;
        }
        self.observe(t, bbox);
        let target = self.target_state(aspect);
        let next = match (self.state, target) {
            (None, Some(target)) => target,
            (Some(state), Some(target)) => {
                let dt = if t.is_finite() && self.last_t.is_finite() { (t - self.last_t).max(0.0) } else { 0.0 };
                let alpha = 1.0 - (-dt / FOLLOW_TIME_CONSTANT_S).exp();
                let size = state.size + (target.size - state.size) * alpha;
                ViewState { center: state.center + (target.center - state.center) * alpha, size }
            }
            (Some(state), None) => state,
            (None, None) => {
                let size = fit_aspect(Vec2::new(DEFAULT_VIEW.width(), DEFAULT_VIEW.height()), aspect);
                return rect(DEFAULT_VIEW.center(), size);
            }
        };
        if t.is_finite() {
            self.last_t = t;
        }
        self.state = Some(next);
        rect(next.center, next.size)
    }

    /// The view of the last [`Camera::update`] (the fixed view for a fixed camera).
    pub fn view(&self) -> Option<Aabb> {
        self.fixed.or(self.state.map(|s| rect(s.center, s.size)))
    }
}

fn rect(center: Vec2, size: Vec2) -> Aabb {
    let half = size * 0.5;
    Aabb { min: center - half, max: center + half }
}

/// Extends the shorter side of `size` so that width / height = `aspect`.
fn fit_aspect(size: Vec2, aspect: f64) -> Vec2 {
    if !(aspect.is_finite() && aspect > 0.0) {
        return size;
    }
    if size.x / size.y < aspect {
        Vec2::new(size.y * aspect, size.y)
    } else {
        Vec2::new(size.x, size.x / aspect)
    }
}

/// Maps world coordinates (metres, y up) to pixel coordinates of a cell (y down): uniform scale
/// s = min(cell_w / view_w, cell_h / view_h), the view centred in the cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewTransform {
    /// Pixels per metre.
    pub scale: f64,
    /// World point at the centre of the cell.
    pub center: Vec2,
    /// Cell-local pixel position of that centre (half the cell size).
    pub pixel_center: (f64, f64),
    /// The world rectangle the camera asked for.
    pub view: Aabb,
}

impl ViewTransform {
    /// The transform of a `width` × `height` pixel cell showing `view`.
    pub fn new(view: Aabb, width: u32, height: u32) -> Self {
        let (w, h) = (f64::from(width), f64::from(height));
        let vw = view.width().max(MIN_EXTENT_M);
        let vh = view.height().max(MIN_EXTENT_M);
        let scale = (w / vw).min(h / vh);
        ViewTransform { scale, center: view.center(), pixel_center: (w * 0.5, h * 0.5), view }
    }

    /// Cell-local pixel coordinates of a world point.
    pub fn to_pixel(&self, p: Vec2) -> (f64, f64) {
        (
            self.pixel_center.0 + (p.x - self.center.x) * self.scale,
            self.pixel_center.1 - (p.y - self.center.y) * self.scale,
        )
    }

    pub(crate) fn px(&self, p: Vec2) -> (f32, f32) {
        let (x, y) = self.to_pixel(p);
        (x as f32, y as f32)
    }

    /// The world rectangle that the whole cell shows (at least the view; more along the looser axis).
    pub(crate) fn visible_world(&self) -> Aabb {
        let half = Vec2::new(self.pixel_center.0 / self.scale, self.pixel_center.1 / self.scale);
        Aabb { min: self.center - half, max: self.center + half }
    }
}
