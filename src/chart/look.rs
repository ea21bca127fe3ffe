//! How series look, so they stay apart where they overlap and in grey scale: a qualitative palette, a
//! sequential ramp, dash patterns, marker shapes, line widths and marker placement.

use plotters::style::RGBColor;

/// A qualitative palette (one colour per category, e.g. per beam size), cycled.
const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xe6, 0x6a, 0x00),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Colour `i` of the palette (cycled).
pub fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// A sequential colour at t ∈ [0, 1]: viridis stops, cut before the pale yellow end so every line stays
/// visible on white.
pub fn ramp_color(t: f64) -> RGBColor {
    const STOPS: [(f64, [f64; 3]); 5] = [
        (0.00, [68.0, 1.0, 84.0]),
        (0.25, [59.0, 82.0, 139.0]),
        (0.50, [33.0, 145.0, 140.0]),
        (0.75, [94.0, 201.0, 98.0]),
        (1.00, [190.0, 200.0, 30.0]),
    ];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let i = STOPS.iter().rposition(|s| s.0 <= t).unwrap_or(0).min(STOPS.len() - 2);
    let (t0, c0) = STOPS[i];
    let (t1, c1) = STOPS[i + 1];
    let u = (t - t0) / (t1 - t0);
    let c = |k: usize| (c0[k] + u * (c1[k] - c0[k])).round() as u8;
    RGBColor(c(0), c(1), c(2))
}

/// How a line is drawn, so series stay apart where they overlap and in grey scale: colour, dash
/// pattern (on, off pixels; `None` solid), marker shape (circle, triangle, square) and whether the
/// markers are hollow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineLook {
    pub color: RGBColor,
    pub dash: Option<(u32, u32)>,
    pub marker: Option<usize>,
    pub hollow: bool,
    /// Line width in pixels.
    pub width: u32,
}

/// Dash patterns cycled over the lines of a chart: solid, long dashes, short dashes, dots.
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((14, 6)), Some((6, 5)), Some((2, 4))];

impl LineLook {
    /// The look of line `i` of a chart: dash pattern i mod 4, marker shape i mod 3, so the first twelve
    /// lines all differ in shape.
    pub fn nth(i: usize, color: RGBColor) -> LineLook {
        LineLook { color, dash: DASHES[i % DASHES.len()], marker: Some(marker_kind(i)), hollow: false, width: 2 }
    }
}

/// One line of a chart: legend label, look, (x, y) points.
pub struct Line {
    pub label: String,
    pub look: LineLook,
    pub points: Vec<(f64, f64)>,
}

/// Line width of series i of n drawn in order: the first drawn is the widest (4 px down to 2 px), so a
/// line that a later one covers still shows at its edges. Marker sizes fall the same way (circle, then
/// triangle, then a smaller square), so coinciding markers stay visible too.
pub fn series_width(i: usize, n: usize) -> u32 {
    (2 + n.saturating_sub(1 + i)).min(4) as u32
}

/// A marker shape per series index, so series differ in grey scale too.
pub fn marker_kind(i: usize) -> usize {
    i % 3
}

/// Markers per line of a line chart; line i of n places them at (j + (i + ½)/n)/MARKERS of the x
/// span, so the markers of different lines do not sit on top of each other.
const MARKERS_PER_LINE: usize = 8;

pub fn sparse_markers(points: &[(f64, f64)], i: usize, n: usize) -> Vec<(f64, f64)> {
    if points.len() < 2 {
        return points.to_vec();
    }
    let (t0, t1) = (points[0].0, points[points.len() - 1].0);
    let last = points.len() - 1;
    (0..MARKERS_PER_LINE)
        .map(|j| {
            let u = (j as f64 + (i as f64 + 0.5) / n.max(1) as f64) / MARKERS_PER_LINE as f64;
            let t = t0 + u * (t1 - t0);
            // Samples are uniform in t: the nearest one by index.
            let k = (((t - t0) / (t1 - t0)) * last as f64).round() as usize;
            points[k.min(last)]
        })
        .collect()
}
