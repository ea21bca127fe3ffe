//! A board: the cells of a movie placed on a grid of bins with axes around it (`render --archive`: a
//! MAP-Elites archive, one cell per filled bin on the descriptor grid, empty bins left empty).
//!
//! The movie itself stays an ordinary dense grid (the cells in source order, [`Board::movie_layout`]
//! at [`Board::movie_size`]); the board copies each of its cells into its bin on a canvas whose
//! title, axis labels and empty bins are drawn once ([`Board::compose`], or [`BoardSink`] around any
//! frame sink). So every output of a movie (video, GIF, frames, a still, a filmstrip) gets the board.

use tiny_skia::{Pixmap, Rect, Transform};

use crate::output::{FrameError, FrameSink};
use crate::render::{cell_rect, colors, CellRect, GridLayout, RenderOptions, Rgba, TextRenderer};

/// An empty bin's fill: a light grey, uniform (a filled bin always shows ground, a robot and text).
pub const EMPTY_BIN: Rgba = Rgba::opaque(238, 238, 238);
/// The lines between the bins.
pub(crate) const BIN_LINE: Rgba = Rgba::opaque(200, 200, 200);
/// The canvas around the grid.
pub(crate) const BOARD_BACKGROUND: Rgba = Rgba::opaque(255, 255, 255);
/// Pixels between neighbouring bins (the bin lines show there).
pub(crate) const BIN_GAP_PX: u32 = 2;
const TITLE_PX: f32 = 16.0;
const AXIS_PX: f32 = 14.0;
const TICK_PX: f32 = 12.0;
const PAD_PX: f32 = 6.0;

/// One axis of a board: its title and the labels of its bin edges (one more than the bins), first
/// edge first (left to right, bottom to top).
#[derive(Debug, Clone, PartialEq)]
pub struct BoardAxis {
    pub title: String,
    pub edges: Vec<String>,
}

/// What a board shows: a `cols` × `rows` grid of bins on a `width` × `height` canvas, the bin of each
/// movie cell (in the movie's cell order: `(column, row)`, row 0 at the bottom as on a plot), a title
/// and the two axes (`None`: no labels on that side).
#[derive(Debug, Clone, PartialEq)]
pub struct BoardSpec {
    pub width: u32,
    pub height: u32,
    pub cols: u32,
    pub rows: u32,
    pub title: Option<String>,
    pub x_axis: Option<BoardAxis>,
    pub y_axis: Option<BoardAxis>,
    pub bins: Vec<(u32, u32)>,
}

/// Why a board cannot be laid out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BoardError {
    #[error("the board has no bins ({cols} columns × {rows} rows)")]
    NoBins { cols: u32, rows: u32 },
    #[error("cell {index} is placed in bin ({col}, {row}), outside the {cols} × {rows} grid")]
    Outside { index: usize, col: u32, row: u32, cols: u32, rows: u32 },
    #[error("cells {first} and {second} are both placed in bin ({col}, {row})")]
    Twice { first: usize, second: usize, col: u32, row: u32 },
    #[error("an axis of {bins} bins needs {} edge labels, got {got}", bins + 1)]
    Edges { bins: u32, got: usize },
    #[error(
        "a {width}×{height} frame is too small for a grid of {cols} × {rows} bins with its axes (each bin needs \
         at least {min}×{min} pixels); give a larger --size"
    )]
    TooSmall { width: u32, height: u32, cols: u32, rows: u32, min: u32 },
}

/// Cells at least this wide keep the colour key and the distance line.
pub(crate) const WIDE_CELL_PX: u32 = 360;

/// The smallest bin drawn, in pixels each way (a cell smaller than this shows nothing legible).
pub(crate) const MIN_BIN_PX: u32 = 24;

/// A laid-out board: where each bin is on the canvas, and the canvas with everything but the cells.
#[derive(Debug, Clone)]
pub struct Board {
    spec: BoardSpec,
    /// The grid's top-left corner on the canvas, and one bin's size (gap included).
    x0: u32,
    y0: u32,
    bin_w: u32,
    bin_h: u32,
    dense: GridLayout,
    backdrop: Pixmap,
}

impl Board {
    pub fn new(spec: BoardSpec) -> Result<Board, BoardError> {
        let (cols, rows) = (spec.cols, spec.rows);
        if cols == 0 || rows == 0 {
            return Err(BoardError::NoBins { cols, rows });
        }
        let mut seen = std::collections::HashMap::new();
        for (index, &(col, row)) in spec.bins.iter().enumerate() {
            if col >= cols || row >= rows {
                return Err(BoardError::Outside { index, col, row, cols, rows });
            }
            if let Some(first) = seen.insert((col, row), index) {
                return Err(BoardError::Twice { first, second: index, col, row });
            }
        }
        for (axis, bins) in [(&spec.x_axis, cols), (&spec.y_axis, rows)] {
            if let Some(a) = axis.as_ref().filter(|a| a.edges.len() != bins as usize + 1) {
                return Err(BoardError::Edges { bins, got: a.edges.len() });
            }
        }
        let m = |size| TextRenderer::metrics(size).line_height;
        let top = if spec.title.is_some() { m(TITLE_PX) + 2.0 * PAD_PX } else { PAD_PX };
        let bottom = match &spec.x_axis {
            Some(_) => PAD_PX + m(TICK_PX) + PAD_PX + m(AXIS_PX) + PAD_PX,
            None => PAD_PX,
        };
        let left = match &spec.y_axis {
            Some(a) => {
                let widest = a.edges.iter().map(|e| TextRenderer::measure(e, TICK_PX)).fold(0.0, f32::max);
                PAD_PX + m(AXIS_PX) + PAD_PX + widest + PAD_PX
            }
            None => PAD_PX,
        };
        // Room for half the last x edge label past the grid's right end.
        let right = match &spec.x_axis {
            Some(a) => a.edges.last().map_or(0.0, |e| TextRenderer::measure(e, TICK_PX) / 2.0) + PAD_PX,
            None => PAD_PX,
        };
        let room_w = (spec.width as f32 - left - right).max(0.0) as u32;
        let room_h = (spec.height as f32 - top - bottom).max(0.0) as u32;
        let (bin_w, bin_h) = (room_w / cols, room_h / rows);
        if bin_w < MIN_BIN_PX || bin_h < MIN_BIN_PX {
            return Err(BoardError::TooSmall { width: spec.width, height: spec.height, cols, rows, min: MIN_BIN_PX });
        }
        // The grid centred in the room left by the labels.
        let x0 = left as u32 + (room_w - bin_w * cols) / 2;
        let y0 = top as u32 + (room_h - bin_h * rows) / 2;
        let n = spec.bins.len().max(1) as u32;
        let dense = GridLayout::new(cols.min(n), n.div_ceil(cols.min(n)));
        let backdrop = Pixmap::new(spec.width, spec.height).ok_or(BoardError::TooSmall {
            width: spec.width,
            height: spec.height,
            cols,
            rows,
            min: MIN_BIN_PX,
        })?;
        let mut board = Board { spec, x0, y0, bin_w, bin_h, dense, backdrop };
        board.draw_backdrop();
        Ok(board)
    }

    pub fn spec(&self) -> &BoardSpec {
        &self.spec
    }

    /// The size of the movie whose cells the board places: its cells are exactly the bins' insides.
    pub fn movie_size(&self) -> (u32, u32) {
        let (w, h) = self.cell_size();
        (w * self.dense.cols, h * self.dense.rows)
    }

    /// The movie's layout: the cells in order, as many columns as the board has (or as cells).
    pub fn movie_layout(&self) -> GridLayout {
        self.dense
    }

    /// What the cells draw: `options`, without the colour key and the distance line when the cells are
    /// too narrow to show them beside the robot (they would cover it).
    pub(crate) fn cell_options(&self, options: &RenderOptions) -> RenderOptions {
        let (w, _) = self.cell_size();
        RenderOptions {
            legend: options.legend && w >= WIDE_CELL_PX,
            progress: options.progress && w >= WIDE_CELL_PX,
            ..options.clone()
        }
    }

    /// The canvas size.
    pub fn size(&self) -> (u32, u32) {
        (self.spec.width, self.spec.height)
    }

    fn cell_size(&self) -> (u32, u32) {
        (self.bin_w - BIN_GAP_PX, self.bin_h - BIN_GAP_PX)
    }

    /// The canvas rectangle of bin (`col`, `row`), row 0 at the bottom, gap included.
    pub(crate) fn bin_rect(&self, col: u32, row: u32) -> CellRect {
        let top_row = self.spec.rows - 1 - row.min(self.spec.rows - 1);
        CellRect {
            x: self.x0 + col * self.bin_w,
            y: self.y0 + top_row * self.bin_h,
            width: self.bin_w,
            height: self.bin_h,
        }
    }

    /// Where a bin's content goes: its rectangle inside the gap (what a movie cell fills, or the
    /// empty fill).
    pub fn bin_inside(&self, col: u32, row: u32) -> CellRect {
        let r = self.bin_rect(col, row);
        let (w, h) = self.cell_size();
        CellRect { x: r.x + BIN_GAP_PX / 2, y: r.y + BIN_GAP_PX / 2, width: w, height: h }
    }

    /// Copies the cells of `movie_frame` (a frame of the movie: [`Board::movie_size`]) into their bins
    /// on the canvas `out` (resized to the board's size if it is not).
    pub fn compose(&self, movie_frame: &Pixmap, out: &mut Pixmap) {
        if (out.width(), out.height()) != self.size() {
            *out = self.backdrop.clone();
        } else {
            out.data_mut().copy_from_slice(self.backdrop.data());
        }
        let (w, h) = self.movie_size();
        if (movie_frame.width(), movie_frame.height()) != (w, h) {
            return;
        }
        let layout = self.dense;
        for (k, &(col, row)) in self.spec.bins.iter().enumerate() {
            let k = k as u32;
            let from = cell_rect(w, h, layout.cols, layout.rows, k % layout.cols, k / layout.cols);
            let to = self.bin_inside(col, row);
            copy_rect(movie_frame, from, out, to.x, to.y);
        }
    }

    /// The canvas of one movie frame.
    pub(crate) fn composed(&self, movie_frame: &Pixmap) -> Pixmap {
        let mut out = self.backdrop.clone();
        self.compose(movie_frame, &mut out);
        out
    }

    /// A sink that puts each frame on the board before handing it to `inner`.
    pub fn sink(self, inner: Box<dyn FrameSink + Send>) -> BoardSink {
        let canvas = self.backdrop.clone();
        BoardSink { board: self, canvas, inner }
    }

    /// Title, axes, the bin lines and every bin empty.
    fn draw_backdrop(&mut self) {
        let mut text = TextRenderer::new();
        let pm = &mut self.backdrop;
        pm.fill(skia(BOARD_BACKGROUND));
        let (cols, rows) = (self.spec.cols, self.spec.rows);
        let grid =
            Rect::from_xywh(self.x0 as f32, self.y0 as f32, (self.bin_w * cols) as f32, (self.bin_h * rows) as f32);
        if let Some(r) = grid {
            pm.fill_rect(r, &paint(BIN_LINE), Transform::identity(), None);
        }
        let (w, h) = (self.bin_w - BIN_GAP_PX, self.bin_h - BIN_GAP_PX);
        for row in 0..rows {
            for col in 0..cols {
                let top_row = rows - 1 - row;
                let x = self.x0 + col * self.bin_w + BIN_GAP_PX / 2;
                let y = self.y0 + top_row * self.bin_h + BIN_GAP_PX / 2;
                if let Some(r) = Rect::from_xywh(x as f32, y as f32, w as f32, h as f32) {
                    pm.fill_rect(r, &paint(EMPTY_BIN), Transform::identity(), None);
                }
            }
        }
        let ink = colors::TEXT;
        if let Some(title) = &self.spec.title {
            let m = TextRenderer::metrics(TITLE_PX);
            let tw = TextRenderer::measure(title, TITLE_PX);
            let x = ((self.spec.width as f32 - tw) / 2.0).max(PAD_PX);
            text.draw(pm, title, x, PAD_PX + m.ascent, TITLE_PX, ink);
        }
        let grid_bottom = (self.y0 + self.bin_h * rows) as f32;
        let grid_right = (self.x0 + self.bin_w * cols) as f32;
        if let Some(axis) = &self.spec.x_axis {
            let m = TextRenderer::metrics(TICK_PX);
            let baseline = grid_bottom + PAD_PX + m.ascent;
            let widest = axis.edges.iter().map(|e| TextRenderer::measure(e, TICK_PX)).fold(0.0, f32::max);
            let step = label_step(widest + 8.0, self.bin_w as f32);
            for (k, label) in axis.edges.iter().enumerate().filter(|(k, _)| k % step == 0) {
                let x = (self.x0 + k as u32 * self.bin_w) as f32;
                tick(pm, x, grid_bottom, x, grid_bottom + PAD_PX - 2.0);
                let lw = TextRenderer::measure(label, TICK_PX);
                text.draw(pm, label, x - lw / 2.0, baseline, TICK_PX, ink);
            }
            let ma = TextRenderer::metrics(AXIS_PX);
            let tw = TextRenderer::measure(&axis.title, AXIS_PX);
            let x = (self.x0 as f32 + (grid_right - self.x0 as f32 - tw) / 2.0).max(PAD_PX);
            text.draw(pm, &axis.title, x, baseline - m.descent + PAD_PX + ma.ascent, AXIS_PX, ink);
        }
        if let Some(axis) = &self.spec.y_axis {
            let m = TextRenderer::metrics(TICK_PX);
            let digits = TextRenderer::digit_height(TICK_PX);
            let step = label_step(m.line_height + 4.0, self.bin_h as f32);
            for (k, label) in axis.edges.iter().enumerate().filter(|(k, _)| k % step == 0) {
                let y = grid_bottom - (k as u32 * self.bin_h) as f32;
                let x = self.x0 as f32;
                tick(pm, x - PAD_PX + 2.0, y, x, y);
                let lw = TextRenderer::measure(label, TICK_PX);
                text.draw(pm, label, x - PAD_PX - lw, y + digits / 2.0, TICK_PX, ink);
            }
            // The title reads bottom to top, centred on the grid's height, at the left edge.
            let ma = TextRenderer::metrics(AXIS_PX);
            let tw = TextRenderer::measure(&axis.title, AXIS_PX).ceil() as u32 + 2;
            let th = ma.line_height.ceil() as u32;
            if let Some(mut strip) = Pixmap::new(tw, th) {
                text.draw(&mut strip, &axis.title, 1.0, ma.ascent, AXIS_PX, ink);
                let centre = self.y0 as f32 + (grid_bottom - self.y0 as f32) / 2.0;
                let top = (centre - tw as f32 / 2.0).max(0.0) as u32;
                blend_rotated_ccw(&strip, pm, PAD_PX as u32, top);
            }
        }
    }
}

/// Every `step`-th label, so that labels `size` pixels long fit between edges `spacing` apart.
fn label_step(size: f32, spacing: f32) -> usize {
    if spacing <= 0.0 {
        return 1;
    }
    ((size / spacing).ceil() as usize).max(1)
}

fn tick(pm: &mut Pixmap, x0: f32, y0: f32, x1: f32, y1: f32) {
    let (x, y) = (x0.min(x1), y0.min(y1));
    let (w, h) = ((x1 - x0).abs().max(1.0), (y1 - y0).abs().max(1.0));
    if let Some(r) = Rect::from_xywh(x, y, w, h) {
        pm.fill_rect(r, &paint(colors::TEXT), Transform::identity(), None);
    }
}

fn skia(c: Rgba) -> tiny_skia::Color {
    tiny_skia::Color::from_rgba8(c.r, c.g, c.b, (c.a.clamp(0.0, 1.0) * 255.0).round() as u8)
}

fn paint(c: Rgba) -> tiny_skia::Paint<'static> {
    let mut p = tiny_skia::Paint::default();
    p.set_color(skia(c));
    p.anti_alias = false;
    p
}

/// Copies `from` of `src` to (`x`, `y`) of `dst`, clipped to both.
fn copy_rect(src: &Pixmap, from: CellRect, dst: &mut Pixmap, x: u32, y: u32) {
    let w = from.width.min(src.width().saturating_sub(from.x)).min(dst.width().saturating_sub(x)) as usize;
    let h = from.height.min(src.height().saturating_sub(from.y)).min(dst.height().saturating_sub(y)) as usize;
    let (ss, ds) = (src.width() as usize * 4, dst.width() as usize * 4);
    let s = src.data();
    let d = dst.data_mut();
    for row in 0..h {
        let a = (from.y as usize + row) * ss + from.x as usize * 4;
        let b = (y as usize + row) * ds + x as usize * 4;
        d[b..b + w * 4].copy_from_slice(&s[a..a + w * 4]);
    }
}

/// Draws `src` turned a quarter anticlockwise (its top row becomes the left column, read bottom to
/// top) with its top-left corner at (`x`, `y`) of `dst`, source over.
fn blend_rotated_ccw(src: &Pixmap, dst: &mut Pixmap, x: u32, y: u32) {
    let (sw, sh) = (src.width(), src.height());
    let (dw, dh) = (dst.width(), dst.height());
    let s = src.data();
    let d = dst.data_mut();
    for sy in 0..sh {
        for sx in 0..sw {
            // (sx, sy) → (sy, sw − 1 − sx)
            let (px, py) = (x + sy, y + (sw - 1 - sx));
            if px >= dw || py >= dh {
                continue;
            }
            let i = ((sy * sw + sx) * 4) as usize;
            let a = u32::from(s[i + 3]);
            if a == 0 {
                continue;
            }
            let j = ((py * dw + px) * 4) as usize;
            for k in 0..4 {
                // Premultiplied source over: d = s + d·(1 − a).
                d[j + k] = (u32::from(s[i + k]) + (u32::from(d[j + k]) * (255 - a) + 127) / 255).min(255) as u8;
            }
        }
    }
}

/// A frame sink that puts each frame of a board's movie on the board, then hands it on.
pub struct BoardSink {
    board: Board,
    canvas: Pixmap,
    inner: Box<dyn FrameSink + Send>,
}

impl FrameSink for BoardSink {
    fn push(&mut self, frame: &Pixmap) -> Result<(), FrameError> {
        self.board.compose(frame, &mut self.canvas);
        self.inner.push(&self.canvas)
    }
    fn frame_count(&self) -> u64 {
        self.inner.frame_count()
    }
    fn finish(self: Box<Self>) -> Result<(), FrameError> {
        self.inner.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(bins: Vec<(u32, u32)>) -> BoardSpec {
        let axis = |n: u32, name: &str| BoardAxis {
            title: name.into(),
            edges: (0..=n).map(|k| format!("{}", f64::from(k) * 0.5)).collect(),
        };
        BoardSpec {
            width: 640,
            height: 360,
            cols: 4,
            rows: 3,
            title: Some("archive".into()),
            x_axis: Some(axis(4, "x_distance")),
            y_axis: Some(axis(3, "center_avg_y")),
            bins,
        }
    }

    /// Each movie cell lands in its bin (row 0 at the bottom); the other bins stay the empty fill.
    #[test]
    fn cells_land_in_their_bins_and_the_rest_stay_empty() {
        let board = Board::new(spec(vec![(0, 0), (3, 2), (1, 1)])).unwrap();
        assert_eq!(board.movie_layout(), GridLayout::new(3, 1));
        let (w, h) = board.movie_size();
        let mut movie = Pixmap::new(w, h).unwrap();
        // Cell k of the movie painted in a colour of its own.
        let colours = [Rgba::opaque(255, 0, 0), Rgba::opaque(0, 255, 0), Rgba::opaque(0, 0, 255)];
        for (k, c) in colours.iter().enumerate() {
            let r = cell_rect(w, h, 3, 1, k as u32, 0);
            let rect = Rect::from_xywh(r.x as f32, r.y as f32, r.width as f32, r.height as f32).unwrap();
            movie.fill_rect(rect, &paint(*c), Transform::identity(), None);
        }
        let out = board.composed(&movie);
        let at = |r: CellRect| {
            let p = out.pixel(r.x + r.width / 2, r.y + r.height / 2).unwrap();
            (p.red(), p.green(), p.blue())
        };
        assert_eq!(at(board.bin_inside(0, 0)), (255, 0, 0));
        assert_eq!(at(board.bin_inside(3, 2)), (0, 255, 0));
        assert_eq!(at(board.bin_inside(1, 1)), (0, 0, 255));
        assert_eq!(at(board.bin_inside(2, 1)), (EMPTY_BIN.r, EMPTY_BIN.g, EMPTY_BIN.b));
        // Row 0 is the bottom row.
        assert!(board.bin_rect(0, 0).y > board.bin_rect(0, 2).y);
    }

    #[test]
    fn bad_placements_and_tiny_frames_are_refused() {
        assert!(matches!(Board::new(spec(vec![(4, 0)])), Err(BoardError::Outside { .. })));
        assert!(matches!(Board::new(spec(vec![(1, 1), (1, 1)])), Err(BoardError::Twice { .. })));
        let tiny = BoardSpec { width: 80, height: 60, ..spec(vec![(0, 0)]) };
        assert!(matches!(Board::new(tiny), Err(BoardError::TooSmall { .. })));
    }
}
