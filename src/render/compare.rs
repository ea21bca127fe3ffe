//! Image comparison with a per-channel tolerance and a pixel budget: the golden-image check of the test
//! suite and of `vsr2d compare`, one implementation for both.

use image::{Rgba, RgbaImage};

/// How many pixels may differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    Pixels(usize),
    /// A percentage of the expected image's pixels (rounded up).
    Percent(f64),
}

impl Budget {
    pub fn pixels(self, image: &RgbaImage) -> usize {
        match self {
            Budget::Pixels(n) => n,
            Budget::Percent(p) => ((image.width() as f64 * image.height() as f64) * p / 100.0).ceil() as usize,
        }
    }
}

impl std::str::FromStr for Budget {
    type Err = String;
    /// `12` (pixels) or `0.5%` (of the image).
    fn from_str(text: &str) -> Result<Budget, String> {
        let err = || format!("budget {text:?} must be a pixel count (e.g. 12) or a percentage (e.g. 0.5%)");
        match text.trim().strip_suffix('%') {
            Some(p) => {
                let p: f64 = p.trim().parse().map_err(|_| err())?;
                if (0.0..=100.0).contains(&p) {
                    Ok(Budget::Percent(p))
                } else {
                    Err(err())
                }
            }
            None => text.trim().parse().map(Budget::Pixels).map_err(|_| err()),
        }
    }
}

/// What a comparison found.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Pixels where some channel differs by more than the tolerance (every pixel outside the overlap
    /// of two images of different sizes counts).
    pub differing: usize,
    pub max_channel_delta: u8,
    /// Root mean square of the channel differences over the overlap (all four channels), 0–255: how
    /// much the images differ as a whole, whatever the per-pixel tolerance.
    pub rms: f64,
    /// Box of the differing pixels, (x0, y0, x1, y1) inclusive.
    pub bbox: Option<(u32, u32, u32, u32)>,
    pub expected_size: (u32, u32),
    pub actual_size: (u32, u32),
    /// Black where the images agree, red where they differ.
    pub diff: RgbaImage,
}

impl Comparison {
    pub fn within(&self, budget: usize) -> bool {
        self.differing <= budget
    }

    /// One line for people: counts, the worst channel delta, where, and the sizes if they differ.
    pub fn summary(&self, budget: usize) -> String {
        let verdict = if self.within(budget) { "match" } else { "DIFFER" };
        let mut s = format!(
            "{verdict}: {} pixels differ (budget {budget}), max channel delta {}",
            self.differing, self.max_channel_delta
        );
        if let Some((x0, y0, x1, y1)) = self.bbox {
            s.push_str(&format!(", within x {x0}..={x1}, y {y0}..={y1}"));
        }
        if self.expected_size != self.actual_size {
            let ((ew, eh), (aw, ah)) = (self.expected_size, self.actual_size);
            s.push_str(&format!("; sizes differ: expected {ew}x{eh}, actual {aw}x{ah}"));
        }
        s
    }
}

/// Compares straight (not premultiplied) RGBA images pixel by pixel.
pub fn compare(expected: &RgbaImage, actual: &RgbaImage, channel_tolerance: u8) -> Comparison {
    let (w, h) = (expected.width().max(actual.width()), expected.height().max(actual.height()));
    let mut diff = RgbaImage::from_pixel(w, h, Rgba([0, 0, 0, 255]));
    let (mut differing, mut max_channel_delta, mut bbox) = (0usize, 0u8, None::<(u32, u32, u32, u32)>);
    let (mut squares, mut channels) = (0u64, 0u64);
    for y in 0..h {
        for x in 0..w {
            let delta = match (expected.get_pixel_checked(x, y), actual.get_pixel_checked(x, y)) {
                (Some(e), Some(a)) => {
                    squares += e.0.iter().zip(a.0.iter()).map(|(p, q)| u64::from(p.abs_diff(*q)).pow(2)).sum::<u64>();
                    channels += 4;
                    e.0.iter().zip(a.0.iter()).map(|(p, q)| p.abs_diff(*q)).max().unwrap_or(0)
                }
                _ => 255,
            };
            if delta > channel_tolerance {
                differing += 1;
                max_channel_delta = max_channel_delta.max(delta);
                diff.put_pixel(x, y, Rgba([255, 0, 0, 255]));
                bbox = Some(match bbox {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
            }
        }
    }
    Comparison {
        differing,
        max_channel_delta,
        rms: if channels == 0 { 0.0 } else { (squares as f64 / channels as f64).sqrt() },
        bbox,
        expected_size: expected.dimensions(),
        actual_size: actual.dimensions(),
        diff,
    }
}

/// Reads an image file (PNG) as straight RGBA.
pub fn read_image(path: &std::path::Path) -> Result<RgbaImage, image::ImageError> {
    image::open(path).map(|i| i.to_rgba8())
}

/// Gap between the panels of a composite, and its margin, in pixels.
const COMPOSITE_GAP: u32 = 8;
/// Em size of the composite's captions, in pixels.
const COMPOSITE_TEXT: f32 = 13.0;

/// One picture of a failed comparison, for people: `expected | actual | difference` side by side with a
/// caption over each, the difference being a faded copy of the actual image (so the robot and the
/// ground stay recognisable) with the differing pixels in solid magenta and their bounding box drawn
/// around them, and `lines` (the counts) written underneath.
pub fn composite(expected: &RgbaImage, actual: &RgbaImage, c: &Comparison, lines: &[String]) -> RgbaImage {
    use crate::render::style::Rgba as Colour;
    use crate::render::text::TextRenderer;
    let (w, h) = (expected.width().max(actual.width()).max(1), expected.height().max(actual.height()).max(1));
    let line = TextRenderer::metrics(COMPOSITE_TEXT).line_height.ceil() as u32;
    let top = COMPOSITE_GAP + line;
    // Wide enough for the counts even under small images.
    let text_width = lines.iter().map(|l| TextRenderer::measure(l, COMPOSITE_TEXT).ceil() as u32).max().unwrap_or(0);
    let width = (3 * w + 4 * COMPOSITE_GAP).max(text_width + 2 * COMPOSITE_GAP);
    let height = top + h + COMPOSITE_GAP + lines.len() as u32 * line + COMPOSITE_GAP;
    let mut out = RgbaImage::from_pixel(width, height, Rgba([255, 255, 255, 255]));
    let x0 = |panel: u32| COMPOSITE_GAP + panel * (w + COMPOSITE_GAP);
    image::imageops::overlay(&mut out, expected, i64::from(x0(0)), i64::from(top));
    image::imageops::overlay(&mut out, actual, i64::from(x0(1)), i64::from(top));
    // The difference panel: the actual image faded three quarters of the way to white, differing
    // pixels (the mask `compare` drew) on top.
    for y in 0..h {
        for x in 0..w {
            let base = actual.get_pixel_checked(x, y).map_or([255, 255, 255], |p| {
                let fade = |v: u8| 255 - (255 - u16::from(v)) as u8 / 4;
                [fade(p[0]), fade(p[1]), fade(p[2])]
            });
            let differs = c.diff.get_pixel_checked(x, y).is_some_and(|p| p[0] == 255 && p[1] == 0);
            let px = if differs { [230, 0, 160, 255] } else { [base[0], base[1], base[2], 255] };
            out.put_pixel(x0(2) + x, top + y, Rgba(px));
        }
    }
    if let Some((bx0, by0, bx1, by1)) = c.bbox {
        // A 1-pixel frame one pixel outside the box, so it does not hide the differing pixels.
        let (l, t) = ((x0(2) + bx0).saturating_sub(1), (top + by0).saturating_sub(1));
        let (r, b) = ((x0(2) + bx1 + 1).min(width - 1), (top + by1 + 1).min(height - 1));
        let frame = Rgba([0, 90, 255, 255]);
        for x in l..=r {
            out.put_pixel(x, t, frame);
            out.put_pixel(x, b, frame);
        }
        for y in t..=b {
            out.put_pixel(l, y, frame);
            out.put_pixel(r, y, frame);
        }
    }
    let mut pixmap = rgba_to_pixmap(&out);
    let mut text = TextRenderer::new();
    let ink = Colour::opaque(20, 20, 20);
    let baseline = COMPOSITE_GAP as f32 + TextRenderer::metrics(COMPOSITE_TEXT).ascent;
    for (panel, caption) in ["expected", "actual", "difference"].iter().enumerate() {
        text.draw(&mut pixmap, caption, x0(panel as u32) as f32, baseline, COMPOSITE_TEXT, ink);
    }
    for (i, l) in lines.iter().enumerate() {
        let y = (top + h + COMPOSITE_GAP + i as u32 * line) as f32 + TextRenderer::metrics(COMPOSITE_TEXT).ascent;
        text.draw(&mut pixmap, l, COMPOSITE_GAP as f32, y, COMPOSITE_TEXT, ink);
    }
    crate::render::pixmap_to_rgba_image(&pixmap)
}

/// An opaque straight-RGBA image as a pixmap (the text renderer draws on pixmaps).
fn rgba_to_pixmap(image: &RgbaImage) -> tiny_skia::Pixmap {
    let mut pixmap = tiny_skia::Pixmap::new(image.width(), image.height()).expect("a non-empty image");
    for (dst, src) in pixmap.pixels_mut().iter_mut().zip(image.pixels()) {
        *dst = tiny_skia::ColorU8::from_rgba(src[0], src[1], src[2], src[3]).premultiply();
    }
    pixmap
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_pixels_beyond_the_tolerance_and_sizes_that_differ() {
        let a = RgbaImage::from_pixel(4, 3, Rgba([10, 20, 30, 255]));
        let mut b = a.clone();
        b.put_pixel(1, 2, Rgba([13, 20, 30, 255]));
        b.put_pixel(3, 0, Rgba([12, 20, 30, 255]));
        let c = compare(&a, &b, 2);
        assert_eq!((c.differing, c.max_channel_delta, c.bbox), (1, 3, Some((1, 2, 1, 2))));
        assert_eq!(c.diff.get_pixel(1, 2).0, [255, 0, 0, 255]);
        // Two channels of 12 differ by 3 and 2: sqrt((9 + 4) / 48).
        assert!((c.rms - (13.0f64 / 48.0).sqrt()).abs() < 1e-12, "{}", c.rms);
        assert_eq!(compare(&a, &b, 3).differing, 0);
        let wider = RgbaImage::from_pixel(5, 3, Rgba([10, 20, 30, 255]));
        assert_eq!(compare(&a, &wider, 0).differing, 3, "the extra column counts");
    }

    #[test]
    fn budgets_parse_as_pixels_or_percent() {
        let img = RgbaImage::new(100, 10);
        assert_eq!("12".parse::<Budget>().unwrap().pixels(&img), 12);
        assert_eq!("0.5%".parse::<Budget>().unwrap().pixels(&img), 5);
        assert!("abc".parse::<Budget>().is_err() && "150%".parse::<Budget>().is_err());
    }
}

#[cfg(test)]
mod composite_tests {
    use super::*;

    #[test]
    fn the_composite_shows_three_panels_and_marks_the_differing_pixels() {
        let a = RgbaImage::from_pixel(40, 30, Rgba([0, 0, 0, 255]));
        let mut b = a.clone();
        b.put_pixel(20, 10, Rgba([255, 255, 255, 255]));
        let c = compare(&a, &b, 2);
        let img = composite(&a, &b, &c, &["1 pixel differs".to_string()]);
        assert_eq!(img.width(), 3 * 40 + 4 * COMPOSITE_GAP);
        let top = COMPOSITE_GAP + TextRenderer_line();
        // The differing pixel is magenta in the third panel; its neighbours are the faded black (191).
        let x2 = COMPOSITE_GAP + 2 * (40 + COMPOSITE_GAP);
        assert_eq!(img.get_pixel(x2 + 20, top + 10).0, [230, 0, 160, 255]);
        assert_eq!(img.get_pixel(x2 + 5, top + 5).0, [192, 192, 192, 255]);
        // The box frame surrounds it.
        assert_eq!(img.get_pixel(x2 + 19, top + 9).0, [0, 90, 255, 255]);
    }

    #[allow(non_snake_case)]
    fn TextRenderer_line() -> u32 {
        crate::render::text::TextRenderer::metrics(COMPOSITE_TEXT).line_height.ceil() as u32
    }
}
