//! Cantilever report: golden charts from FIXED synthetic data (so they never move with the physics),
//! and the report directory's consistency (links, CSV against JSON, sanity verdicts).

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

use image::{DynamicImage, Rgba, RgbaImage};
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d_report::cantilever::data::{CantileverData, DynamicRun, ReferenceRuns, ReportSettings, Setting, StaticRun};
use vsr2d_report::cantilever::reference::{DynamicReference, Reference, StaticReference};
use vsr2d_report::cantilever::{plots, reference_plots, report};
use vsr2d_report::series::{series_figures, Oscillation};

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
        locomotion: None,
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
    let data = CantileverData {
        settings: settings(),
        static_runs: vec![],
        dynamic_runs: vec![],
        reference_runs: None,
        locomotion: None,
    };
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

// ---------------------------------------------------------------------------------------------------
// The comparison with the original 2D-VSR-Sim 1.0.0, from FIXED synthetic legacy-1.0 runs set against
// the embedded measurements.

/// Static factors vsr2d/original cycled over the reference rows: two within ±10 %, two outside.
const FACTORS: [f64; 4] = [0.25, 0.95, 1.08, 1.3];

fn reference_runs(reference: &Reference) -> ReferenceRuns {
    let static_runs = reference
        .static_runs
        .iter()
        .enumerate()
        .map(|(i, r)| StaticRun {
            w: r.w,
            h: r.h,
            fs_hz: r.fs_hz,
            scaffolding: r.scaffolding,
            force_n: 30.0,
            dy_final_m: FACTORS[i % FACTORS.len()] * r.dy_center_right_column_m,
        })
        .collect();
    let dt = 1.0 / 60.0;
    // 8 Hz close to the original's first peak (−4.5 m) and period (6.2 s); 30 Hz far off.
    let dynamic_runs = [(8.0, damped(4.7, 1.0 / 6.1, 0.3, dt, 15.0)), (30.0, damped(0.5, 2.5, 0.05, dt, 15.0))]
        .into_iter()
        .map(|(fs_hz, dy_m)| DynamicRun {
            w: 10,
            h: 4,
            fs_hz,
            scaffolding: Scaffolding::ALL,
            force_n: 800.0,
            impulse_steps: 7,
            dt,
            dy_m,
        })
        .collect();
    ReferenceRuns {
        preset: "legacy-1.0".into(),
        reused_main_runs: false,
        dt,
        static_duration_s: 60.0,
        dynamic_duration_s: 15.0,
        solver_iterations: 4,
        static_runs,
        dynamic_runs,
    }
}

fn fixture_with_reference() -> CantileverData {
    let reference = Reference::embedded().unwrap();
    CantileverData { reference_runs: Some(reference_runs(&reference)), ..fixture() }
}

/// The text of every cell of the rows of the table with this id, tags stripped, "−" as "-".
fn html_table(html: &str, id: &str) -> Vec<Vec<String>> {
    let start = html.find(&format!("<table id=\"{id}\">")).unwrap_or_else(|| panic!("no table {id}"));
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    table
        .split("<tr")
        .skip(2) // before the first row, and the header row
        .map(|row| {
            row.split("<td")
                .skip(1)
                .map(|cell| {
                    let inner = &cell[cell.find('>').unwrap() + 1..cell.find("</td>").unwrap()];
                    let mut text = String::new();
                    let mut in_tag = false;
                    for c in inner.chars() {
                        match c {
                            '<' => in_tag = true,
                            '>' => in_tag = false,
                            _ if !in_tag => text.push(c),
                            _ => {}
                        }
                    }
                    text.replace('−', "-").replace("&#x2f;", "/")
                })
                .collect()
        })
        .collect()
}

/// A number shown with `digits` significant digits agrees with the full-precision value.
fn shown_as(shown: &str, value: Option<f64>, digits: i32) {
    match value {
        None => assert_eq!(shown, "–", "a missing value is shown as –"),
        Some(v) => {
            let s: f64 = shown.parse().unwrap_or_else(|e| panic!("{shown:?}: {e}"));
            let ulp = 10f64.powi(v.abs().log10().floor() as i32 - (digits - 1));
            assert!((s - v).abs() <= 0.5 * ulp * (1.0 + 1e-9), "shown {shown} for {v}");
        }
    }
}

fn opt_num(row: &BTreeMap<String, String>, key: &str) -> Option<f64> {
    (!row[key].is_empty()).then(|| num(row, key))
}

/// "… 7 of 30 static runs and 2 of 4 dynamic figures …" → ((7, 30), (2, 4)).
fn verdict_counts(line: &str) -> ((usize, usize), (usize, usize)) {
    let count = |what: &str| {
        let end = line.find(what).unwrap_or_else(|| panic!("{what:?} not in {line:?}"));
        let words: Vec<&str> = line[..end].split_whitespace().rev().take(3).collect();
        assert_eq!(words[1], "of", "{line}");
        (words[2].parse().unwrap(), words[0].parse().unwrap())
    };
    (count("static runs"), count("dynamic figures"))
}

#[test]
fn comparison_table_csv_json_and_verdict_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("report");
    let files = report::write_report(&dir, &fixture_with_reference(), Some(&beam_picture())).unwrap();
    let html = read(&files.index_html);

    // Links: every one is a file of the report; the comparison's charts and CSV are among them.
    let links = links(&html);
    for link in &links {
        assert!(dir.join(link).is_file(), "index.html links {link}, which does not exist");
    }
    for name in [
        "reference_comparison.csv",
        "reference_static_vs_fs.png",
        "reference_static_vs_scaffolding.png",
        "reference_dynamic_10x4_8hz.png",
        "reference_dynamic_10x4_30hz.png",
    ] {
        assert!(links.iter().any(|l| l == name), "index.html does not link {name}");
    }
    for path in files.all() {
        assert!(path.is_file(), "{}", path.display());
    }

    // The CSV's own columns: relative error and verdict recomputed from them.
    let csv = parse_csv(&read(&files.reference_csv.clone().unwrap()));
    assert_eq!(
        csv.len(),
        30 + 8 + 8,
        "30 static runs, and 4 figures of the 2 dynamic runs of the fixture against the original as released and converged"
    );
    for row in &csv {
        let (o, v) = (opt_num(row, "original"), opt_num(row, "vsr2d_legacy"));
        let e = opt_num(row, "relative_error_pct");
        match (o, v) {
            (Some(o), Some(v)) => {
                let expected = 100.0 * (v - o) / o;
                let e = e.expect("both figures: a relative error");
                assert!((e - expected).abs() <= 1e-9 * expected.abs().max(1.0), "{row:?}: {e} vs {expected}");
                assert_eq!(row["within_10_pct"], if e.abs() <= 10.0 { "yes" } else { "no" }, "{row:?}");
            }
            _ => {
                assert_eq!(e, None);
                assert_eq!(row["within_10_pct"], "no");
            }
        }
        let metres = row["quantity"].starts_with("static_dy") || row["quantity"].starts_with("first_peak_dy");
        assert_eq!(row["unit"], if metres { "m" } else { "s" });
    }
    let converged = |r: &BTreeMap<String, String>| r["quantity"].ends_with("_original_converged");
    let yes = |static_: bool| {
        csv.iter()
            .filter(|r| !converged(r) && (r["quantity"] == "static_dy") == static_ && r["within_10_pct"] == "yes")
            .count()
    };
    let converged_yes = csv.iter().filter(|r| converged(r) && r["within_10_pct"] == "yes").count();
    assert!(yes(true) > 0 && yes(true) < 30, "the fixture has static rows on both sides of ±10 %");

    // The HTML table shows the CSV's numbers, row for row.
    let table = html_table(&html, "reference-comparison");
    assert_eq!(table.len(), csv.len());
    for (cells, row) in table.iter().zip(&csv) {
        assert_eq!(cells.len(), 8, "{cells:?}");
        let (key, against) = match row["quantity"].strip_suffix("_original_converged") {
            Some(key) => (key, ", original converged"),
            None => (row["quantity"].as_str(), ""),
        };
        let quantity_ok = match key {
            "static_dy" => cells[0] == "static δ (m)",
            "first_peak_dy" => cells[0] == format!("dynamic first peak (min δ){against} (m)"),
            "first_peak_t" => cells[0] == format!("dynamic first peak time{against} (s)"),
            "first_overshoot_t" => cells[0] == format!("dynamic first overshoot time{against} (s)"),
            "period" => cells[0] == format!("dynamic period T{against} (s)"),
            other => panic!("unknown quantity {other}"),
        };
        assert!(quantity_ok, "{cells:?} vs {row:?}");
        assert_eq!(cells[1], format!("{}×{}", row["w"], row["h"]));
        assert_eq!(cells[2].parse::<f64>().unwrap(), num(row, "fs_hz"));
        assert_eq!(cells[3], row["scaffolding"]);
        shown_as(&cells[4], opt_num(row, "original"), 4);
        shown_as(&cells[5], opt_num(row, "vsr2d_legacy"), 4);
        shown_as(&cells[6], opt_num(row, "relative_error_pct"), 3);
        assert_eq!(cells[7], row["within_10_pct"]);
    }

    // The verdict at the top counts the CSV's "yes" rows.
    let start = html.find("id=\"comparison-verdict\">").unwrap();
    let line = &html[start..start + html[start..].find("</div>").unwrap()];
    assert!(start < html.find("<h2").unwrap(), "the verdict is at the top, before the first section");
    assert!(line.contains("Against the original 2D-VSR-Sim 1.0.0"), "{line}");
    assert!(line.contains("(legacy-1.0 preset)"), "{line}");
    let ((sw, st), (dw, dt)) = verdict_counts(line);
    assert_eq!((sw, st), (yes(true), 30));
    assert_eq!((dw, dt), (yes(false), 8));
    assert!(
        line.contains(&format!("run to convergence (200 velocity iterations), {converged_yes} of 8 of its figures")),
        "{line}"
    );
    let colour = if sw == st && dw == dt && converged_yes == 8 { "verdict pass" } else { "verdict flag" };
    assert!(html.contains(&format!("<div class=\"{colour}\" id=\"comparison-verdict\">")), "box colour");

    // results.json holds the same numbers exactly, and the runs.
    let json: serde_json::Value = serde_json::from_str(&read(&files.results_json)).unwrap();
    let rows = json["reference_comparison"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), csv.len());
    for (j, row) in rows.iter().zip(&csv) {
        assert_eq!(j["original"].as_f64(), opt_num(row, "original"));
        assert_eq!(j["vsr2d"].as_f64(), opt_num(row, "vsr2d_legacy"));
        assert_eq!(j["relative_error_pct"].as_f64(), opt_num(row, "relative_error_pct"));
        assert_eq!(j["within_tolerance"].as_bool().unwrap(), row["within_10_pct"] == "yes");
    }
    let summary = &json["reference_comparison"]["summary"];
    assert_eq!(summary["static_within"].as_u64(), Some(sw as u64));
    assert_eq!(summary["dynamic_within"].as_u64(), Some(dw as u64));
    assert_eq!(summary["converged_within"].as_u64(), Some(converged_yes as u64));
    let back: CantileverData = serde_json::from_str(&read(&files.results_json)).unwrap();
    assert_eq!(back, fixture_with_reference(), "results.json holds the legacy runs too");
}

#[test]
fn report_without_the_comparison_says_so_and_writes_no_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let files = report::write_report(tmp.path(), &fixture(), None).unwrap();
    assert!(files.reference_csv.is_none());
    assert!(!tmp.path().join("reference_comparison.csv").exists());
    let html = read(&files.index_html);
    assert!(html.contains("not compared (the report was made with --no-reference)"));
    assert!(html.contains("<div class=\"verdict neutral\" id=\"comparison-verdict\">"));
}

#[test]
fn top_verdict_counts_the_sanity_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let files = report::write_report(tmp.path(), &fixture(), None).unwrap();
    let html = read(&files.index_html);
    let json: serde_json::Value = serde_json::from_str(&read(&files.results_json)).unwrap();
    let count = |v: &str| json["sanity"].as_array().unwrap().iter().filter(|c| c["verdict"] == v).count();
    let total = json["sanity"].as_array().unwrap().len();
    let expected = format!(
        "Physical sanity checks: {} of {total} pass, {} flagged, {} without data or not applicable",
        count("pass"),
        count("flag"),
        count("no_data")
    );
    let start = html.find("id=\"sanity-verdict\">").expect("sanity verdict box");
    assert!(start < html.find("<h2").unwrap());
    assert!(html[start..].starts_with(&format!("id=\"sanity-verdict\">{expected}")), "{expected}");
}

/// A growing sinusoid: δ = −0.2·e^{0.15 t}·sin(2π·0.8 t).
fn growing(dt: f64, duration: f64) -> Vec<f64> {
    let n = (duration / dt).round() as usize + 1;
    (0..n).map(|k| k as f64 * dt).map(|t| -0.2 * (0.15 * t).exp() * (2.0 * PI * 0.8 * t).sin()).collect()
}

/// An overdamped impulse response: δ = −A·(e^{−t/τ₁} − e^{−t/τ₂}), returns without crossing rest.
fn overdamped(dt: f64, duration: f64) -> Vec<f64> {
    let n = (duration / dt).round() as usize + 1;
    (0..n).map(|k| k as f64 * dt).map(|t| -1.5 * ((-t / 2.0).exp() - (-t / 0.2).exp())).collect()
}

#[test]
fn growth_and_overdamping_are_told_apart() {
    let dt = 1.0 / 60.0;
    let grows = series_figures(&growing(dt, 15.0), dt).unwrap();
    assert_eq!(grows.oscillation, Oscillation::Growing, "{grows:?}");
    assert_eq!(grows.oscillation.describe(), "oscillation grows (unstable)");
    let slow = series_figures(&overdamped(dt, 15.0), dt).unwrap();
    assert_eq!(slow.period_s, None);
    assert_eq!(slow.oscillation, Oscillation::NoPeriod, "{slow:?}");
    assert_eq!(slow.oscillation.describe(), "no period detected: the beam is overdamped or the record is too short");
    // Too short: half a cycle of a slow, decaying oscillation.
    let short = series_figures(&damped(1.0, 0.1, 0.05, dt, 4.0), dt).unwrap();
    assert_eq!(short.oscillation, Oscillation::NoPeriod, "{short:?}");
    let decays = series_figures(&damped(1.0, 0.5, 0.05, dt, 15.0), dt).unwrap();
    assert_eq!(decays.oscillation, Oscillation::Decaying);

    // In the report: each named with its run and its behaviour; only the growing one is "unstable".
    let mut data = fixture();
    let run = |fs_hz: f64, dy_m: Vec<f64>| DynamicRun {
        w: 10,
        h: 4,
        fs_hz,
        scaffolding: Scaffolding::ALL,
        force_n: 800.0,
        impulse_steps: 6,
        dt,
        dy_m,
    };
    data.dynamic_runs = vec![run(4.0, growing(dt, 15.0)), run(30.0, overdamped(dt, 15.0))];
    let tmp = tempfile::tempdir().unwrap();
    let files = report::write_report(tmp.path(), &data, None).unwrap();
    let json: serde_json::Value = serde_json::from_str(&read(&files.results_json)).unwrap();
    let check = |id: &str| json["sanity"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap().clone();
    let decay = check("dynamic_decay");
    assert_eq!(decay["verdict"], "flag");
    assert_eq!(decay["runs"], "10×4, f_s 4 Hz, all groups");
    let text = decay["explanation"].as_str().unwrap();
    assert!(text.contains("10×4, f_s 4 Hz, all groups: oscillation grows (unstable)"), "{text}");
    assert!(text.contains("numerical instability"), "{text}");
    assert!(!text.contains("30 Hz"), "the overdamped run comes to rest: it decays, {text}");
    // The period checks say why the 30 Hz run has no period.
    let text = check("dynamic_period_const_10x4")["explanation"].as_str().unwrap().to_string();
    assert!(
        text.contains(
            "10×4, f_s 30 Hz, all groups: no period detected: the beam is overdamped or the record is too short"
        ),
        "{text}"
    );
    let html = read(&files.index_html);
    assert!(html.contains("oscillation grows (unstable)") && html.contains("overdamped or the record is too short"));
}

#[test]
fn flags_name_their_runs_and_large_deflections_are_not_called_small() {
    // Slope −1 and deflections up to 20/4 = 5 m on a 30 m beam (17 %): some runs beyond 10 % of L.
    let mut data = fixture();
    data.static_runs = static_runs(1.0);
    let tmp = tempfile::tempdir().unwrap();
    let files = report::write_report(tmp.path(), &data, None).unwrap();
    let json: serde_json::Value = serde_json::from_str(&read(&files.results_json)).unwrap();
    let checks = json["sanity"].as_array().unwrap();
    for c in checks.iter().filter(|c| c["verdict"] == "flag") {
        let runs = c["runs"].as_str().unwrap();
        assert!(runs.contains('×') && runs.contains("Hz"), "{}: runs {runs:?}", c["id"]);
    }
    let slope = checks.iter().find(|c| c["id"] == "static_slope_10x2").unwrap();
    let text = slope["explanation"].as_str().unwrap();
    assert!(!text.contains("small-deflection regime"), "{text}");
    assert!(text.contains("4 Hz: 17 %"), "the fraction of L is stated: {text}");
    assert!(slope["measured"].as_str().unwrap().contains("of 7 points"), "{}", slope["measured"]);

    // One length unit, and no references to a specification the reader does not have.
    let html = read(&files.index_html);
    assert!(!html.contains("(mm)") && !html.contains(" mm"), "lengths are in metres");
    assert!(!html.contains('§'), "no spec section references");
}

// Goldens of the comparison charts, from FIXED synthetic data (neither a simulation nor the embedded
// measurements).

fn synthetic_original() -> (Vec<StaticReference>, Vec<StaticRun>) {
    let mut original = Vec::new();
    let mut legacy = Vec::new();
    for size in SIZES {
        let mut push = |fs: f64, s: Scaffolding, dy: f64, factor: f64| {
            original.push(StaticReference {
                w: size.0,
                h: size.1,
                fs_hz: fs,
                scaffolding: s,
                force_n: 30.0,
                t_end_s: 60.0,
                steps: 3601,
                dy_center_right_column_m: dy,
            });
            legacy.push(StaticRun {
                w: size.0,
                h: size.1,
                fs_hz: fs,
                scaffolding: s,
                force_n: 30.0,
                dy_final_m: dy * factor,
            });
        };
        for fs in FS {
            push(fs, Scaffolding::ALL, -120.0 / fs.powf(2.0) / size_ratio(size), 0.3 + 0.01 * fs);
        }
        for (s, c) in SCAFFOLDING_COMPLIANCE.iter().filter(|(s, _)| *s != Scaffolding::ALL) {
            push(8.0, *s, -120.0 * c / 64.0 / size_ratio(size), 0.4);
        }
    }
    (original, legacy)
}

#[test]
fn golden_reference_static_vs_fs() {
    let (original, legacy) = synthetic_original();
    check_chart(
        "reference_static_vs_fs",
        reference_plots::reference_static_vs_fs(&legacy, &original, "legacy-1.0").unwrap(),
    );
}

#[test]
fn golden_reference_static_vs_scaffolding() {
    let (original, legacy) = synthetic_original();
    check_chart(
        "reference_static_vs_scaffolding",
        reference_plots::reference_static_vs_scaffolding(&legacy, &original, "legacy-1.0").unwrap(),
    );
}

#[test]
fn golden_reference_dynamic() {
    let dt = 1.0 / 60.0;
    let original_series = damped(4.5, 0.16, 0.25, dt, 15.0);
    let original = DynamicReference {
        w: 10,
        h: 4,
        fs_hz: 8.0,
        scaffolding: Scaffolding::ALL,
        force_n: 800.0,
        dt,
        t_s: (1..original_series.len()).map(|k| k as f64 * dt).collect(),
        dy_m: original_series[1..].to_vec(),
    };
    let legacy = DynamicRun {
        w: 10,
        h: 4,
        fs_hz: 8.0,
        scaffolding: Scaffolding::ALL,
        force_n: 800.0,
        impulse_steps: 7,
        dt,
        dy_m: damped(1.4, 0.31, 0.12, dt, 15.0),
    };
    check_chart(
        "reference_dynamic_10x4_8hz",
        reference_plots::reference_dynamic(&legacy, &original, None, "legacy-1.0").unwrap(),
    );
}
