//! Cantilever report: golden charts from FIXED synthetic data (so they never move with the physics),
//! and the report directory's consistency (links, CSV against JSON, sanity verdicts).

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

use image::{DynamicImage, Rgba, RgbaImage};
use vsr2d::cantilever::data::{CantileverData, DynamicRun, ReportSettings, Setting, StaticRun};
use vsr2d::cantilever::{plots, report};
use vsr2d::scaffolding::Scaffolding;

use crate::golden::{assert_golden, GoldenOptions};

const SIZES: [(u32, u32); 3] = [(5, 2), (10, 2), (10, 4)];
const FS: [f64; 7] = [4.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0];
/// Relative compliance of each paper set (E+C softest, all stiffest).
const SCAFFOLDING_COMPLIANCE: [(Scaffolding, f64); 4] =
    [(Scaffolding::EC, 2.4), (Scaffolding::EIC, 1.6), (Scaffolding::EIX, 1.25), (Scaffolding::ALL, 1.0)];

fn settings() -> ReportSettings {
    ReportSettings {
        version: "0.1.0-test".into(),
        solver_iterations: 4,
        convergence_note: "synthetic data, no solver".into(),
        extra: vec![Setting { name: "data".into(), value: "fixed synthetic fixture".into() }],
        ..ReportSettings::default()
    }
}

/// |δ(10×2)| / |δ(size)| of the fixture: 5×2 close to L³ (6.5 vs 8), 10×4 far off (4.8 vs 8, as shear
/// would make it), so the report shows both a pass and a flag.
fn size_ratio(size: (u32, u32)) -> f64 {
    match size {
        (5, 2) => 6.5,
        (10, 4) => 4.8,
        _ => 1.0,
    }
}

/// δ = −20 m·Hz² / f_s^exponent for 10×2 with all groups, scaled per size and scaffolding.
fn static_runs(exponent: f64) -> Vec<StaticRun> {
    let mut runs = Vec::new();
    for size in SIZES {
        for fs in FS {
            runs.push(StaticRun {
                w: size.0,
                h: size.1,
                fs_hz: fs,
                scaffolding: Scaffolding::ALL,
                force_n: 30.0,
                dy_final_m: -20.0 / fs.powf(exponent) / size_ratio(size),
            });
        }
        for (s, c) in SCAFFOLDING_COMPLIANCE.iter().filter(|(s, _)| *s != Scaffolding::ALL) {
            runs.push(StaticRun {
                w: size.0,
                h: size.1,
                fs_hz: 8.0,
                scaffolding: *s,
                force_n: 30.0,
                dy_final_m: -20.0 * c / 8f64.powf(exponent) / size_ratio(size),
            });
        }
    }
    runs
}

/// An impulse response: δ = −A·e^{−ζω t}·sin(ω_d t), beam frequency ∝ f_s, amplitude ∝ 1/f_s.
fn damped(amplitude: f64, freq: f64, zeta: f64, dt: f64, duration: f64) -> Vec<f64> {
    let w = 2.0 * PI * freq;
    let wd = w * (1.0 - zeta * zeta).sqrt();
    let n = (duration / dt).round() as usize + 1;
    (0..n).map(|k| k as f64 * dt).map(|t| -amplitude * (-zeta * w * t).exp() * (wd * t).sin()).collect()
}

fn dynamic_runs() -> Vec<DynamicRun> {
    let dt = 1.0 / 60.0;
    let mut runs = Vec::new();
    for size in SIZES {
        let (kappa, a0) = match size {
            (5, 2) => (0.12, 2.0),
            (10, 4) => (0.08, 2.5),
            _ => (0.04, 8.0),
        };
        let mut push = |fs: f64, s: Scaffolding, c: f64| {
            runs.push(DynamicRun {
                w: size.0,
                h: size.1,
                fs_hz: fs,
                scaffolding: s,
                force_n: 800.0,
                impulse_steps: 6,
                dt,
                dy_m: damped(a0 / fs * c.sqrt(), kappa * fs / c.sqrt(), 0.06, dt, 15.0),
            })
        };
        for fs in FS {
            push(fs, Scaffolding::ALL, 1.0);
        }
        for (s, c) in SCAFFOLDING_COMPLIANCE.iter().filter(|(s, _)| *s != Scaffolding::ALL) {
            push(8.0, *s, *c);
        }
    }
    runs
}

pub(crate) fn fixture() -> CantileverData {
    CantileverData {
        settings: settings(),
        static_runs: static_runs(2.0),
        dynamic_runs: dynamic_runs(),
        reference_runs: None,
    }
}

fn rgba(img: image::RgbImage) -> RgbaImage {
    DynamicImage::ImageRgb8(img).to_rgba8()
}

fn check_chart(name: &str, img: Option<image::RgbImage>) {
    let img = rgba(img.unwrap_or_else(|| panic!("{name}: the fixture must give a chart")));
    assert_eq!((img.width(), img.height()), (plots::WIDTH, plots::HEIGHT));
    let options = GoldenOptions::tolerant(0.001, &img);
    assert_golden("cantilever", name, &img, options);
}

#[test]
fn golden_static_vs_fs() {
    check_chart("static_vs_fs", plots::static_vs_fs(&fixture().static_runs).unwrap());
}

#[test]
fn golden_static_vs_scaffolding() {
    check_chart("static_vs_scaffolding", plots::static_vs_scaffolding(&fixture().static_runs).unwrap());
}

#[test]
fn golden_dynamic_vs_fs() {
    check_chart("dynamic_vs_fs_10x2", plots::dynamic_vs_fs(&fixture().dynamic_runs, (10, 2)).unwrap());
}

#[test]
fn golden_dynamic_vs_scaffolding() {
    check_chart(
        "dynamic_vs_scaffolding_10x2",
        plots::dynamic_vs_scaffolding(&fixture().dynamic_runs, (10, 2)).unwrap(),
    );
}

#[test]
fn charts_are_deterministic() {
    let data = fixture();
    let a = plots::static_vs_fs(&data.static_runs).unwrap().unwrap();
    let b = plots::static_vs_fs(&data.static_runs).unwrap().unwrap();
    assert!(a == b, "the same data must give the same pixels");
}

/// A stand-in for the renderer's picture of the loaded beam.
pub(crate) fn beam_picture() -> RgbaImage {
    let mut img = RgbaImage::from_pixel(64, 32, Rgba([255, 255, 255, 255]));
    for x in 8..56 {
        for y in 12..20 {
            img.put_pixel(x, y, Rgba([90, 140, 200, 255]));
        }
    }
    img
}

/// Every `src="…"` and `href="…"` value in the page.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        let mut rest = html;
        while let Some(i) = rest.find(attr) {
            rest = &rest[i + attr.len()..];
            let end = rest.find('"').expect("unterminated attribute");
            out.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn report_links_only_files_that_exist() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nested/report");
    let files = report::write_report(&dir, &fixture(), Some(&beam_picture())).unwrap();
    let html = read(&files.index_html);
    let links = links(&html);
    assert!(links.len() >= 2 + 2 * SIZES.len() + 1 + 3, "expected charts, beam and data links, got {links:?}");
    for link in &links {
        assert!(
            !link.starts_with('/') && !link.contains("://") && !link.contains(".."),
            "not a relative local link: {link}"
        );
        assert!(dir.join(link).is_file(), "index.html links {link}, which does not exist");
    }
    for name in [
        "beam.png",
        "static_vs_fs.png",
        "static_vs_scaffolding.png",
        "dynamic_vs_fs_10x4.png",
        "static.csv",
        "dynamic.csv",
        "results.json",
    ] {
        assert!(links.iter().any(|l| l == name), "index.html does not link {name}");
    }
    for path in files.all() {
        assert!(path.is_file(), "{} was reported but not written", path.display());
    }
    // Every written PNG decodes, and no temporary file is left behind.
    for path in &files.plots {
        let img = image::open(path).unwrap();
        assert_eq!((img.width(), img.height()), (plots::WIDTH, plots::HEIGHT));
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The settings the issue asks for (minijinja escapes '/' in text).
    let html = html.replace("&#x2f;", "/");
    for text in [
        "0.1.0-test",
        "default",
        "1/60 s",
        "30 N",
        "800 N",
        "60 s",
        "15 s",
        "solver iterations",
        "synthetic data, no solver",
    ] {
        assert!(html.contains(text), "index.html does not state {text:?}");
    }
}

/// Parses a CSV written by the report into maps from header name to field.
fn parse_csv(text: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    lines
        .map(|l| {
            let fields: Vec<&str> = l.split(',').collect();
            assert_eq!(fields.len(), header.len(), "row {l:?}");
            header.iter().zip(fields).map(|(h, f)| (h.to_string(), f.to_string())).collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, key: &str) -> f64 {
    row[key].parse().unwrap_or_else(|e| panic!("{key}={:?}: {e}", row[key]))
}

#[test]
fn csv_and_json_parse_and_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let data = fixture();
    let files = report::write_report(tmp.path(), &data, None).unwrap();
    assert!(files.beam_png.is_none());

    let json_text = read(&files.results_json);
    let json: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    let back: CantileverData = serde_json::from_str(&json_text).unwrap();
    assert_eq!(back, data, "results.json must hold the data exactly");
    assert_eq!(json["settings"]["preset"], "default");
    assert!(json["sanity"].as_array().is_some_and(|a| !a.is_empty()));
    assert_eq!(json["dynamic_figures"].as_array().map(Vec::len), Some(data.dynamic_runs.len()));

    let rows = parse_csv(&read(&files.static_csv));
    assert_eq!(rows.len(), back.static_runs.len());
    for (row, run) in rows.iter().zip(&back.static_runs) {
        assert_eq!(num(row, "w") as u32, run.w);
        assert_eq!(num(row, "h") as u32, run.h);
        assert_eq!(num(row, "fs_hz"), run.fs_hz);
        assert_eq!(row["scaffolding"].parse::<Scaffolding>().unwrap(), run.scaffolding);
        assert_eq!(num(row, "dy_final_m"), run.dy_final_m, "bit-exact δ");
    }
    let scaffoldings: Vec<&str> = rows.iter().map(|r| r["scaffolding"].as_str()).collect();
    for s in ["all", "E+C", "E+I+C", "E+I+X"] {
        assert!(scaffoldings.contains(&s), "static.csv lacks {s}");
    }

    let rows = parse_csv(&read(&files.dynamic_csv));
    assert_eq!(rows.len(), back.dynamic_runs.iter().map(|r| r.dy_m.len()).sum::<usize>());
    let mut it = rows.iter();
    for run in &back.dynamic_runs {
        for (k, dy) in run.dy_m.iter().enumerate() {
            let row = it.next().unwrap();
            assert_eq!((num(row, "w") as u32, num(row, "h") as u32), (run.w, run.h));
            assert_eq!(num(row, "fs_hz"), run.fs_hz);
            assert_eq!(row["scaffolding"].parse::<Scaffolding>().unwrap(), run.scaffolding);
            assert_eq!(num(row, "t_s"), k as f64 * run.dt);
            assert_eq!(num(row, "dy_m"), *dy);
        }
    }
}

fn verdicts(dir: &Path) -> BTreeMap<String, String> {
    let json: serde_json::Value = serde_json::from_str(&read(&dir.join("results.json"))).unwrap();
    json["sanity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), c["verdict"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn sanity_section_passes_inverse_square_and_flags_wrong_data() {
    let tmp = tempfile::tempdir().unwrap();
    let good_dir = tmp.path().join("good");
    report::write_report(&good_dir, &fixture(), None).unwrap();
    let good = verdicts(&good_dir);
    for id in [
        "static_slope_5x2",
        "static_slope_10x2",
        "static_slope_10x4",
        "l3_ratio_10x2_5x2",
        "dynamic_period_const_10x2",
        "dynamic_decay",
    ] {
        assert_eq!(good[id], "pass", "{id}");
    }
    // The fixture's 10×4 is 4.8× stiffer, not 8×: flagged, with shear named as the reason.
    assert_eq!(good["l3_ratio_10x2_10x4"], "flag");
    let html = read(&good_dir.join("index.html"));
    assert!(html.contains("⚠") && html.contains("shear"));

    let mut wrong = fixture();
    wrong.static_runs = static_runs(1.0);
    let bad_dir = tmp.path().join("bad");
    report::write_report(&bad_dir, &wrong, None).unwrap();
    let bad = verdicts(&bad_dir);
    for size in ["5x2", "10x2", "10x4"] {
        assert_eq!(bad[&format!("static_slope_{size}")], "flag", "slope −1 must be flagged for {size}");
    }
}

#[test]
fn empty_data_gives_a_report_that_says_no_data() {
    let tmp = tempfile::tempdir().unwrap();
    let data = CantileverData { settings: settings(), static_runs: vec![], dynamic_runs: vec![], reference_runs: None };
    let files = report::write_report(tmp.path(), &data, None).unwrap();
    assert!(files.plots.is_empty());
    let html = read(&files.index_html);
    assert!(html.contains("No data"));
    for link in links(&html) {
        assert!(tmp.path().join(&link).is_file(), "{link}");
    }
    assert_eq!(read(&files.static_csv).lines().count(), 1);
}

#[test]
fn errors_name_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("not-a-dir");
    std::fs::write(&blocker, "x").unwrap();
    let err = report::write_report(&blocker.join("report"), &fixture(), None).unwrap_err();
    assert!(err.to_string().contains("not-a-dir"), "{err}");
}
