//! Figures for papers: stills and filmstrips as PNG, SVG and PDF from the one scene of a frame. The SVG
//! must parse as XML and, rasterised by an independent renderer (resvg), match the PNG of the same
//! frame; the PDF must open in a real reader (poppler's `pdftoppm`) and its page image match too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use image::RgbaImage;
use vsr2d::render::compare::compare;

fn fixture(name: &str) -> String {
    PathBuf::from(crate::ROOT).join(format!("fixtures/scenarios/{name}.json")).to_string_lossy().into_owned()
}

fn vsr2d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().expect("vsr2d runs")
}

fn ok(args: &[&str]) {
    let out = vsr2d(args);
    assert!(out.status.success(), "vsr2d {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The SVG at `path` rasterised by resvg with the embedded font: fails unless it parses.
fn resvg_image(path: &Path) -> RgbaImage {
    let text = std::fs::read_to_string(path).unwrap();
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut()
        .load_font_data(std::fs::read(std::path::Path::new(crate::ROOT).join("assets/fonts/DejaVuSans.ttf")).unwrap());
    let tree = resvg::usvg::Tree::from_str(&text, &opt).expect("the SVG parses");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(&tree, resvg::tiny_skia::Transform::identity(), &mut pixmap.as_mut());
    let data: Vec<u8> = pixmap
        .pixels()
        .iter()
        .flat_map(|p| {
            let c = p.demultiply();
            [c.red(), c.green(), c.blue(), c.alpha()]
        })
        .collect();
    RgbaImage::from_raw(size.width(), size.height(), data).unwrap()
}

/// The PDF at `path` as poppler draws its page at 96 dpi (one CSS pixel per pixel), or `None` without
/// `pdftoppm` outside CI (scripts/install-system-deps.sh installs it; CI must have it).
fn poppler_image(path: &Path) -> Option<RgbaImage> {
    let prefix = path.with_extension("");
    let run = Command::new("pdftoppm").args(["-png", "-r", "96", "-singlefile"]).arg(path).arg(&prefix).output();
    let in_ci = std::env::var_os("CI").is_some_and(|v| v != "0" && v != "false" && !v.is_empty());
    match run {
        Ok(out) => {
            assert!(out.status.success(), "pdftoppm: {}", String::from_utf8_lossy(&out.stderr));
            Some(image::open(prefix.with_extension("png")).unwrap().to_rgba8())
        }
        Err(e) if !in_ci => {
            eprintln!("skipping the PDF check: pdftoppm is not installed ({e}); run scripts/install-system-deps.sh");
            None
        }
        Err(e) => panic!("pdftoppm is needed in CI: {e}"),
    }
}

/// Channel difference below which two renderers' pixels agree: anti-aliased edges and glyphs are drawn
/// a little differently by each.
const TOLERANCE: u8 = 64;
/// Share of the pixels that may differ by more (edges, glyph shapes and where a shape's edge falls).
const BUDGET_PERCENT: f64 = 2.0;

fn assert_close(what: &str, expected: &RgbaImage, actual: &RgbaImage) {
    let c = compare(expected, actual, TOLERANCE);
    let budget = (f64::from(expected.width() * expected.height()) * BUDGET_PERCENT / 100.0) as usize;
    eprintln!("{what}: {}, rms {:.2}", c.summary(budget), c.rms);
    if !c.within(budget) {
        let dir = PathBuf::from(crate::ROOT).join("target/figures-diff");
        std::fs::create_dir_all(&dir).unwrap();
        let name = what.replace([' ', '/'], "_");
        expected.save(dir.join(format!("{name}.expected.png"))).unwrap();
        actual.save(dir.join(format!("{name}.actual.png"))).unwrap();
        c.diff.save(dir.join(format!("{name}.diff.png"))).unwrap();
        panic!("{what}: {}; images in {}", c.summary(budget), dir.display());
    }
}

/// One frame (every layer, objects, overlay, both keys) as PNG, SVG and PDF: the three agree.
#[test]
fn a_still_as_svg_and_pdf_matches_its_png() {
    let dir = tempfile::tempdir().unwrap();
    let carrying = fixture("carrying");
    for ext in ["png", "svg", "pdf"] {
        let out = dir.path().join(format!("still.{ext}"));
        ok(&[
            "render",
            &carrying,
            "--png",
            out.to_str().unwrap(),
            "--at",
            "2",
            "--size",
            "480x270",
            "--all-layers",
            "-q",
        ]);
    }
    let png = image::open(dir.path().join("still.png")).unwrap().to_rgba8();
    assert_eq!(png.dimensions(), (480, 270));
    let svg = std::fs::read_to_string(dir.path().join("still.svg")).unwrap();
    assert!(svg.contains("<text") && svg.contains("t = 2.00 s"), "text stays text in the SVG");
    assert_close("still svg", &png, &resvg_image(&dir.path().join("still.svg")));
    let pdf = std::fs::read(dir.path().join("still.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "a PDF");
    assert!(pdf.windows(8).any(|w| w == b"FontFile"), "the font is embedded in the PDF");
    if let Some(page) = poppler_image(&dir.path().join("still.pdf")) {
        assert_close("still pdf", &png, &page);
    }
}

/// A climbing filmstrip: `--size` is the whole picture, in each format.
#[test]
fn a_filmstrip_has_the_size_asked_for_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let climbing = fixture("climbing");
    for ext in ["png", "svg", "pdf"] {
        let out = dir.path().join(format!("strip.{ext}"));
        ok(&[
            "render",
            &climbing,
            "--filmstrip",
            out.to_str().unwrap(),
            "--times",
            "0,1,2,3",
            "--size",
            "1600x300",
            "-q",
        ]);
    }
    let png = image::open(dir.path().join("strip.png")).unwrap().to_rgba8();
    assert_eq!(png.dimensions(), (1600, 300));
    assert_close("filmstrip svg", &png, &resvg_image(&dir.path().join("strip.svg")));
    if let Some(page) = poppler_image(&dir.path().join("strip.pdf")) {
        assert_eq!(page.dimensions(), (1600, 300));
        assert_close("filmstrip pdf", &png, &page);
    }
}

/// Bad combinations are refused before anything is simulated, exit 2, naming the fix.
#[test]
fn bad_figure_combinations_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let worm = fixture("worm");
    let svg = dir.path().join("w.svg");
    let svg = svg.to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["render", &worm, "--png", svg, "--fps", "60"], "--fps"),
        (&["render", &worm, "--png", &svg.replace(".svg", ".eps")], "unknown picture format"),
        (&["render", &worm, "--filmstrip", svg, "-o", &svg.replace(".svg", ".mp4")], "--filmstrip"),
        (&["render", &worm, "--filmstrip", svg, "--times", "0,1,2,3,4,5,6,7", "--size", "60x40"], "too narrow"),
    ];
    for (args, needle) in cases {
        let out = vsr2d(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
}
