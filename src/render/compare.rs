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
    for y in 0..h {
        for x in 0..w {
            let delta = match (expected.get_pixel_checked(x, y), actual.get_pixel_checked(x, y)) {
                (Some(e), Some(a)) => e.0.iter().zip(a.0.iter()).map(|(p, q)| p.abs_diff(*q)).max().unwrap_or(0),
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
        bbox,
        expected_size: expected.dimensions(),
        actual_size: actual.dimensions(),
        diff,
    }
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
