//! Tiling of the output image into cells (spec §12), grid layouts ("RxC" strings, automatic choice) and the
//! world grid's "nice" spacing.

use std::fmt;
use std::str::FromStr;

/// A grid of `cols` × `rows` cells. Written and parsed as `ROWSxCOLS` ("2x3" = 2 rows of 3 cells).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GridLayout {
    pub cols: u32,
    pub rows: u32,
}

impl GridLayout {
    pub fn new(cols: u32, rows: u32) -> Self {
        GridLayout { cols, rows }
    }
    pub fn cells(&self) -> usize {
        self.cols as usize * self.rows as usize
    }
}

impl fmt::Display for GridLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}

/// Why a layout string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutParseError {
    #[error("grid layout {0:?} must look like ROWSxCOLS, e.g. \"2x2\" or \"1x3\"")]
    Format(String),
    #[error("grid layout {input:?}: {what} {value:?} is not a positive integer")]
    Number { input: String, what: &'static str, value: String },
    #[error("grid layout {0:?}: rows and columns must both be at least 1")]
    Zero(String),
}

impl FromStr for GridLayout {
    type Err = LayoutParseError;

    /// Parses `ROWSxCOLS` (also `X` or `×`, spaces allowed around the numbers).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut parts = s.split(['x', 'X', '×']);
        let (Some(r), Some(c), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(LayoutParseError::Format(s.to_string()));
        };
        let num = |v: &str, what: &'static str| {
            v.trim().parse::<u32>().map_err(|_| LayoutParseError::Number {
                input: s.to_string(),
                what,
                value: v.trim().to_string(),
            })
        };
        let (rows, cols) = (num(r, "rows")?, num(c, "columns")?);
        if rows == 0 || cols == 0 {
            return Err(LayoutParseError::Zero(s.to_string()));
        }
        Ok(GridLayout { cols, rows })
    }
}

/// A near-square layout for `n` cells, never taller than wide (suits 16:9 output):
/// cols = ⌈√n⌉, rows = ⌈n / cols⌉. `n = 0` gives 1 × 1.
pub fn auto_layout(n: usize) -> GridLayout {
    let n = n.max(1) as u64;
    let mut cols = (n as f64).sqrt().ceil() as u64;
    // Correct the float estimate so cols is exactly the smallest c with c² ≥ n.
    while cols > 1 && (cols - 1) * (cols - 1) >= n {
        cols -= 1;
    }
    while cols * cols < n {
        cols += 1;
    }
    let rows = n.div_ceil(cols);
    GridLayout { cols: cols.min(u64::from(u32::MAX)) as u32, rows: rows.min(u64::from(u32::MAX)) as u32 }
}

/// A cell's pixel rectangle in the output image: [x, x + width) × [y, y + height).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRect {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl CellRect {
    /// Whether the pixel (px, py) of the output image is inside this cell.
    pub fn contains(&self, px: u32, py: u32) -> bool {
        px >= self.x && py >= self.y && px - self.x < self.width && py - self.y < self.height
    }
}

/// Cell (i, j) (column i, row j, j = 0 on top) of a `width` × `height` image tiled `cols` × `rows`:
/// [⌊i·W/cols⌋, ⌊(i+1)·W/cols⌋) × [⌊j·H/rows⌋, ⌊(j+1)·H/rows⌋). Callers ensure cols, rows ≥ 1.
pub fn cell_rect(width: u32, height: u32, cols: u32, rows: u32, i: u32, j: u32) -> CellRect {
    let edge = |k: u32, total: u32, n: u32| (u64::from(k) * u64::from(total) / u64::from(n.max(1))) as u32;
    let (x0, x1) = (edge(i, width, cols), edge(i + 1, width, cols));
    let (y0, y1) = (edge(j, height, rows), edge(j + 1, height, rows));
    CellRect { x: x0, y: y0, width: x1 - x0, height: y1 - y0 }
}

/// The world grid spacing for a camera `cam_w` metres wide: the value in {1, 2, 5, 10}·10^e closest to
/// g₀ = cam_w/10, with e = ⌊log₁₀ g₀⌋ (ties go to the smaller). `None` if cam_w is not positive and finite.
pub fn nice_spacing(cam_w: f64) -> Option<f64> {
    let g0 = cam_w / 10.0;
    if !(g0.is_finite() && g0 > 0.0) {
        return None;
    }
    let e = g0.log10().floor();
    let base = 10f64.powf(e);
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * base).fold(None, |best: Option<f64>, g| match best {
        Some(b) if (b - g0).abs() <= (g - g0).abs() => Some(b),
        _ => Some(g),
    })
}
