//! Golden-image harness shared by every image test (the comparison itself is the library's
//! `vsr2d::render::compare`, also behind `vsr2d compare`).
//!
//! References live in `tests/golden/<suite>/<name>.png`. A pixel differs when any channel differs by
//! more than `channel_tolerance`; a test fails when more than `max_differing_pixels` pixels differ.
//! On failure, `target/golden-diff/<suite>/<name>.{expected,actual,diff}.png` are written.
//! `UPDATE_GOLDEN=1` rewrites the reference (and still fails, so a second run must be green);
//! a missing reference fails, and under `CI` it can never be created.

use std::path::PathBuf;

use image::{Rgba, RgbaImage};
use vsr2d::render::compare::compare;

/// How strict a comparison is.
#[derive(Debug, Clone, Copy)]
pub struct GoldenOptions {
    pub channel_tolerance: u8,
    pub max_differing_pixels: usize,
}

impl Default for GoldenOptions {
    /// Renderer goldens from hand-built snapshots: same binary, same pixels, so allow almost nothing.
    fn default() -> Self {
        GoldenOptions { channel_tolerance: 2, max_differing_pixels: 0 }
    }
}

impl GoldenOptions {
    /// For images that go through physics or text layout: a small budget of pixels may move.
    pub fn tolerant(fraction_of_pixels: f64, image: &RgbaImage) -> Self {
        let total = (image.width() * image.height()) as f64;
        GoldenOptions { channel_tolerance: 8, max_differing_pixels: (total * fraction_of_pixels).ceil() as usize }
    }
}

fn root() -> PathBuf {
    PathBuf::from(crate::ROOT)
}

/// Compares `actual` (straight, not premultiplied, RGBA) against `tests/golden/<suite>/<name>.png`.
pub fn assert_golden(suite: &str, name: &str, actual: &RgbaImage, options: GoldenOptions) {
    let reference = root().join("tests/golden").join(suite).join(format!("{name}.png"));
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v != "0" && !v.is_empty());
    let in_ci = std::env::var_os("CI").is_some_and(|v| v != "0" && v != "false" && !v.is_empty());

    if update && !in_ci {
        std::fs::create_dir_all(reference.parent().unwrap()).unwrap();
        actual.save(&reference).unwrap();
        panic!(
            "golden {suite}/{name}: reference written to {}; look at it, then run again without UPDATE_GOLDEN",
            reference.display()
        );
    }
    let expected = match image::open(&reference) {
        Ok(img) => img.to_rgba8(),
        Err(e) => {
            let out = diff_dir(suite);
            actual.save(out.join(format!("{name}.actual.png"))).unwrap();
            panic!(
                "golden {suite}/{name}: no reference at {} ({e}); run with UPDATE_GOLDEN=1 outside CI to create it \
                 (actual image written to {})",
                reference.display(),
                out.display()
            );
        }
    };

    let c = compare(&expected, actual, options.channel_tolerance);
    if !c.within(options.max_differing_pixels) {
        let out = diff_dir(suite);
        expected.save(out.join(format!("{name}.expected.png"))).unwrap();
        actual.save(out.join(format!("{name}.actual.png"))).unwrap();
        c.diff.save(out.join(format!("{name}.diff.png"))).unwrap();
        panic!("golden {suite}/{name}: {}; images in {}", c.summary(options.max_differing_pixels), out.display());
    }
}

fn diff_dir(suite: &str) -> PathBuf {
    let dir = root().join("target/golden-diff").join(suite);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn harness_counts_differences_against_a_reference() {
    // Self-check of the comparator on an image that is committed as a golden.
    let mut img = RgbaImage::from_pixel(8, 8, Rgba([10, 20, 30, 255]));
    img.put_pixel(3, 4, Rgba([200, 0, 0, 255]));
    assert_golden("harness", "checker", &img, GoldenOptions::default());

    let mut changed = img.clone();
    changed.put_pixel(0, 0, Rgba([13, 20, 30, 255]));
    let result = std::panic::catch_unwind(|| assert_golden("harness", "checker", &changed, GoldenOptions::default()));
    assert!(result.is_err(), "a 3-level change must exceed the default tolerance of 2");
    let within_budget = GoldenOptions { channel_tolerance: 2, max_differing_pixels: 1 };
    assert_golden("harness", "checker", &changed, within_budget);
}
