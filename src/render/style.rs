//! The colours and the diverging colormap of spec §12, in one place so the tests can name them.

use tiny_skia::Color;

use crate::model::voxel::scaffolding::SpringGroup;
use crate::model::voxel::sensors::SensorKind;

/// An opaque or translucent RGBA colour, components in 0–255 (alpha as f32 in 0–1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rgba {
    pub r: u8,
    pub g: u8,
    pub b: u8,
    pub a: f32,
}

impl Rgba {
    pub const fn opaque(r: u8, g: u8, b: u8) -> Self {
        Rgba { r, g, b, a: 1.0 }
    }
    pub(crate) const fn with_alpha(self, a: f32) -> Self {
        Rgba { a, ..self }
    }
    pub(crate) fn to_skia(self) -> Color {
        Color::from_rgba8(self.r, self.g, self.b, (self.a.clamp(0.0, 1.0) * 255.0).round() as u8)
    }
}

/// Soft cells (`cells.md` §13): the A/A₀ domain of the fill ramp, the membrane's dark gray, the thin
/// outline of each membrane body.
pub(crate) const CELL_AREA_DOMAIN: [f64; 2] = [0.75, 1.25];
pub(crate) const CELL_MEMBRANE: Rgba = Rgba::opaque(60, 60, 60);
pub(crate) const CELL_BODY_OUTLINE: Rgba = Rgba::opaque(160, 160, 160);
pub(crate) const CELL_BODY_OUTLINE_PX: f32 = 1.0;
/// Connectors (`cells.md` §13 item 4): active red, passive white with a black outline, inactive in the
/// type's colour (type order: yellow, blue, orange, magenta, green, the code's palette).
pub(crate) const CONNECTOR_ACTIVE: Rgba = Rgba::opaque(220, 0, 0);
pub(crate) const CONNECTOR_PASSIVE: Rgba = Rgba::opaque(255, 255, 255);
pub(crate) const CONNECTOR_OUTLINE: Rgba = Rgba::opaque(0, 0, 0);
pub(crate) const CONNECTOR_TYPES: [Rgba; 5] = [
    Rgba::opaque(240, 200, 0),
    Rgba::opaque(0, 90, 220),
    Rgba::opaque(255, 140, 0),
    Rgba::opaque(220, 0, 220),
    Rgba::opaque(0, 170, 0),
];
/// Active pairs as red segments, pins as red dots.
pub(crate) const CELL_PAIR: Rgba = Rgba::opaque(220, 0, 0);
pub(crate) const CELL_PIN: Rgba = Rgba::opaque(220, 0, 0);
pub const BACKGROUND: Rgba = Rgba::opaque(255, 255, 255);
pub const WORLD_GRID: Rgba = Rgba::opaque(220, 220, 220);
pub const TERRAIN_FILL: Rgba = Rgba::opaque(128, 128, 128);
pub const TERRAIN_OUTLINE: Rgba = Rgba::opaque(0, 0, 0);
/// Rigid objects that move (boxes, a see-saw's platform): steel blue, a hue the voxels' red–green–yellow
/// ramp never takes (the wood brown it replaced read as a contracted voxel), apart from the terrain's
/// grey; fixed structures (walls, poles) are drawn as terrain.
pub(crate) const OBJECT_FILL: Rgba = Rgba::opaque(70, 130, 180);
pub const VOXEL_OUTLINE: Rgba = Rgba::opaque(0, 0, 255);
/// Alpha of the voxel fill; the world grid shows through a little.
pub const VOXEL_FILL_ALPHA: f32 = 0.75;
pub const MASS_FILL: Rgba = Rgba::opaque(90, 90, 90).with_alpha(0.6);
pub const ROPE: Rgba = Rgba::opaque(0, 0, 0);
pub const WELD: Rgba = Rgba::opaque(255, 0, 0);
pub const ARROW: Rgba = Rgba::opaque(0, 0, 0);
/// Touching marker (not in the spec, which leaves the look open): a magenta ring over the blue outline,
/// a colour the fill map never produces.
pub const TOUCHING: Rgba = Rgba::opaque(220, 0, 220);
pub const TEXT: Rgba = Rgba::opaque(0, 0, 0);
/// Behind the overlay and the legend: text stays readable over terrain and robots.
pub(crate) const OVERLAY_BOX: Rgba = Rgba::opaque(255, 255, 255).with_alpha(0.8);
/// Distance ticks and their labels, on the gray ground.
pub(crate) const GROUND_TICK: Rgba = Rgba::opaque(255, 255, 255);
pub(crate) const MINOR_TICK_PX: f64 = 4.0;
/// The hatch of materials after a robot's first (which stays plain), over the fill and under the outline.
pub const MATERIAL_HATCH: Rgba = Rgba::opaque(0, 0, 90).with_alpha(0.6);
pub(crate) const MATERIAL_HATCH_PX: f32 = 1.0;
/// Hatch line spacing aimed at, in pixels (the line count per voxel follows its rest size on screen).
pub(crate) const HATCH_SPACING_PX: f64 = 7.0;
pub(crate) const MAJOR_TICK_PX: f64 = 9.0;

/// The world's end ramps drawn as its edge (`draw_world_edge`): the length of the support hatch's
/// strokes and their spacing along the ramp's face, in pixels.
pub(crate) const RAMP_HATCH_PX: f64 = 8.0;
pub(crate) const RAMP_HATCH_SPACING_PX: f64 = 6.0;

/// Pixel widths (spec §12).
pub(crate) const GRID_LINE_PX: f32 = 1.0;
pub(crate) const TERRAIN_OUTLINE_PX: f32 = 1.0;
pub(crate) const VOXEL_OUTLINE_PX: f32 = 1.5;
pub(crate) const SPRING_PX: f32 = 1.0;
pub(crate) const ROPE_PX: f32 = 1.0;
/// Dash pattern of ropes, in pixels (on, off).
pub(crate) const ROPE_DASH_PX: [f32; 2] = [4.0, 3.0];
pub(crate) const ARROW_PX: f32 = 1.5;
/// Distributed controllers' signal arrows: positive values black, negative white.
pub(crate) const SIGNAL_POSITIVE: Rgba = Rgba::opaque(0, 0, 0);
pub(crate) const SIGNAL_NEGATIVE: Rgba = Rgba::opaque(255, 255, 255);
pub(crate) const SIGNAL_PX: f32 = 2.0;
pub(crate) const TOUCHING_PX: f32 = 3.0;
/// Weld dot radius in metres; never drawn smaller than [`WELD_MIN_RADIUS_PX`] so it stays visible when zoomed out.
pub(crate) const WELD_RADIUS_M: f64 = 0.1;
pub(crate) const WELD_MIN_RADIUS_PX: f32 = 1.0;
/// Font size of the overlay and of the sensor readings, in pixels.
pub(crate) const TEXT_PX: f32 = 12.0;
/// Legend and tick labels.
pub(crate) const SMALL_TEXT_PX: f32 = 10.0;

/// A look: the screen's (the default: the colours and widths above) or the paper's (white, thin dark
/// lines, the print-safe viridis ramp that stays ordered in grey, larger text; no overlay or grid by
/// default, see `RenderOptions::paper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Style {
    #[default]
    Screen,
    Paper,
}

impl Style {
    pub fn look(self) -> &'static Look {
        match self {
            Style::Screen => &SCREEN,
            Style::Paper => &PAPER,
        }
    }
}

/// What differs between the looks.
#[derive(Debug, Clone)]
pub struct Look {
    pub terrain_fill: Rgba,
    pub terrain_outline: Rgba,
    pub terrain_outline_px: f32,
    pub object_fill: Rgba,
    pub voxel_outline: Rgba,
    pub voxel_outline_px: f32,
    /// The fill ramp, u in [0, 1] to RGB in [0, 1].
    pub ramp: fn(f64) -> [f64; 3],
    pub fill_alpha: f32,
    pub ground_tick: Rgba,
    pub text_px: f32,
    pub small_text_px: f32,
    /// The factor on the text sizes above, applied once by [`Look::with_font_scale`]: the boxes, bars,
    /// swatches and margins around the text grow with it ([`Look::around_text`]).
    pub font_scale: f32,
    /// Tick labels only where they fit whole in the frame. On screen the labels scroll in and out with
    /// the camera, and one cut by the edge is the ground moving by; in a still figure it reads as a
    /// mistake.
    pub whole_tick_labels: bool,
}

impl Look {
    /// This look with every text size `font_scale` times larger (1: unchanged, to the bit).
    pub fn with_font_scale(&self, font_scale: f32) -> Look {
        Look {
            text_px: self.text_px * font_scale,
            small_text_px: self.small_text_px * font_scale,
            font_scale: self.font_scale * font_scale,
            ..self.clone()
        }
    }

    /// A length `px` that belongs to the text (a margin, a padding, a key's bar or swatch), at this look's
    /// font scale.
    pub fn around_text(&self, px: f32) -> f32 {
        px * self.font_scale
    }

    /// The fill of a reading `value` on the display domain `[lo, hi]`.
    pub fn fill(&self, value: f64, [lo, hi]: [f64; 2]) -> Rgba {
        let u = if hi > lo { (value - lo) / (hi - lo) } else { 0.5 };
        let [r, g, b] = (self.ramp)(u);
        let to8 = |c: f64| (c * 255.0).round() as u8;
        Rgba { r: to8(r), g: to8(g), b: to8(b), a: self.fill_alpha }
    }
}

pub(crate) const SCREEN: Look = Look {
    terrain_fill: TERRAIN_FILL,
    terrain_outline: TERRAIN_OUTLINE,
    terrain_outline_px: TERRAIN_OUTLINE_PX,
    object_fill: OBJECT_FILL,
    voxel_outline: VOXEL_OUTLINE,
    voxel_outline_px: VOXEL_OUTLINE_PX,
    ramp: diverging,
    fill_alpha: VOXEL_FILL_ALPHA,
    ground_tick: GROUND_TICK,
    text_px: TEXT_PX,
    small_text_px: SMALL_TEXT_PX,
    font_scale: 1.0,
    whole_tick_labels: false,
};

pub const PAPER: Look = Look {
    terrain_fill: Rgba::opaque(215, 215, 215),
    terrain_outline: Rgba::opaque(60, 60, 60),
    terrain_outline_px: 0.75,
    // Brick red: no viridis colour is near it, in colour or in grey.
    object_fill: Rgba::opaque(196, 78, 62),
    voxel_outline: Rgba::opaque(20, 20, 20),
    voxel_outline_px: 0.75,
    ramp: viridis,
    fill_alpha: 1.0,
    ground_tick: Rgba::opaque(40, 40, 40),
    text_px: 16.0,
    small_text_px: 14.0,
    font_scale: 1.0,
    whole_tick_labels: true,
};

/// Viridis (matplotlib's), piecewise linear through nine of its colours: perceptually ordered, safe
/// for colour-blind readers and monotonic in grey. `u` is clamped; NaN maps to the middle.
pub fn viridis(u: f64) -> [f64; 3] {
    const STOPS: [[f64; 3]; 9] = [
        [68.0, 1.0, 84.0],
        [71.0, 45.0, 123.0],
        [59.0, 82.0, 139.0],
        [44.0, 114.0, 142.0],
        [33.0, 145.0, 140.0],
        [40.0, 174.0, 128.0],
        [94.0, 201.0, 98.0],
        [173.0, 220.0, 48.0],
        [253.0, 231.0, 37.0],
    ];
    let u = if u.is_nan() { 0.5 } else { u.clamp(0.0, 1.0) };
    let x = u * 8.0;
    let i = (x.floor() as usize).min(7);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    [0, 1, 2].map(|k| (a[k] + (b[k] - a[k]) * f) / 255.0)
}

/// How a voxel's material shows over its fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hatch {
    /// The robot's first material (and every voxel of a one-material robot): the fill alone.
    Plain,
    /// Lines rising to the right, `/`.
    Rising,
    /// Lines falling to the right, `\`.
    Falling,
    /// Both.
    Cross,
}

impl Hatch {
    pub fn rising(self) -> bool {
        matches!(self, Hatch::Rising | Hatch::Cross)
    }
    pub(crate) fn falling(self) -> bool {
        matches!(self, Hatch::Falling | Hatch::Cross)
    }
}

/// The hatch of material `index` of a robot: the first plain, then `/`, `\`, crossed, repeating.
pub fn material_hatch(index: u32) -> Hatch {
    match index {
        0 => Hatch::Plain,
        i => [Hatch::Rising, Hatch::Falling, Hatch::Cross][((i - 1) % 3) as usize],
    }
}

/// The paper's Figure 1 colours of the scaffolding groups.
pub fn spring_color(group: SpringGroup) -> Rgba {
    match group {
        SpringGroup::SideExternal => Rgba::opaque(0, 0, 255),
        SpringGroup::SideInternal => Rgba::opaque(255, 0, 0),
        SpringGroup::SideCross => Rgba::opaque(0, 160, 0),
        SpringGroup::CentralCross => Rgba::opaque(255, 140, 0),
    }
}

/// The diverging map red (u = 0) → green (u = ½) → yellow (u = 1), as RGB in [0, 1]. `u` is clamped;
/// NaN maps to the middle (green) so a broken reading does not look like a real extreme.
pub fn diverging(u: f64) -> [f64; 3] {
    let u = if u.is_nan() { 0.5 } else { u.clamp(0.0, 1.0) };
    if u <= 0.5 {
        [1.0 - 2.0 * u, 2.0 * u, 0.0]
    } else {
        [2.0 * u - 1.0, 1.0, 0.0]
    }
}

/// The fill colour of a voxel whose reading is `value` on the display domain `[lo, hi]`, at alpha 0.75.
pub fn voxel_fill(value: f64, [lo, hi]: [f64; 2]) -> Rgba {
    let u = if hi > lo { (value - lo) / (hi - lo) } else { 0.5 };
    let [r, g, b] = diverging(u);
    let to8 = |c: f64| (c * 255.0).round() as u8;
    Rgba { r: to8(r), g: to8(g), b: to8(b), a: VOXEL_FILL_ALPHA }
}

/// The display domain of a sensor (spec §12). `voxel_side` is l; `area_ratio` is the configured range.
pub fn display_domain(kind: SensorKind, voxel_side: f64, area_ratio: [f64; 2]) -> [f64; 2] {
    let v = 1.5 * voxel_side;
    match kind {
        SensorKind::AreaRatio => area_ratio,
        SensorKind::XVelocity | SensorKind::YVelocity | SensorKind::XRotVelocity | SensorKind::YRotVelocity => [-v, v],
        SensorKind::VelocityMagnitude => [0.0, v * std::f64::consts::SQRT_2],
        SensorKind::Angle => [-std::f64::consts::PI, std::f64::consts::PI],
        SensorKind::Touching => [0.0, 1.0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colormap_ends_and_middle() {
        assert_eq!(diverging(0.0), [1.0, 0.0, 0.0]);
        assert_eq!(diverging(0.5), [0.0, 1.0, 0.0]);
        assert_eq!(diverging(1.0), [1.0, 1.0, 0.0]);
        assert_eq!(diverging(-3.0), [1.0, 0.0, 0.0]);
        assert_eq!(diverging(f64::NAN), [0.0, 1.0, 0.0]);
        let c = voxel_fill(1.0, [0.75, 1.25]);
        assert_eq!((c.r, c.g, c.b, c.a), (0, 255, 0, 0.75));
    }

    /// A moving object is never mistaken for a voxel: in each look its fill is far (in RGB, as seen on
    /// the white background) from every colour of the voxel ramp.
    #[test]
    fn objects_are_coloured_apart_from_the_voxel_ramp() {
        let on_white = |c: Rgba| [c.r, c.g, c.b].map(|v| f64::from(v) * f64::from(c.a) + 255.0 * f64::from(1.0 - c.a));
        for look in [&SCREEN, &PAPER] {
            let object = on_white(look.object_fill);
            let nearest = (0..=200)
                .map(|i| {
                    let voxel = on_white(look.fill(f64::from(i) / 200.0, [0.0, 1.0]));
                    (0..3).map(|k| (voxel[k] - object[k]).powi(2)).sum::<f64>().sqrt()
                })
                .fold(f64::INFINITY, f64::min);
            assert!(nearest > 100.0, "object fill {:?} is {nearest:.0} from the ramp", look.object_fill);
        }
    }
}
