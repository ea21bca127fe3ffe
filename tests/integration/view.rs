//! The HTML viewer's pages from the library and the command line: the size of the benchmark worm's
//! page, the downsampling rule, `render --html`. What the pages show is tested in Chromium
//! (python/tests/test_viewer.py).

use std::fs;
use std::path::Path;
use std::process::Command;

use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::movie::{MovieSettings, MovieSource};
use vsr2d::render::RenderOptions;
use vsr2d::scenario::Scenario;
use vsr2d::view::{build_page, ViewSettings};
use vsr2d_report::bench::worm_scenario;

fn settings(fps: u32) -> ViewSettings {
    ViewSettings { movie: MovieSettings { fps, ..MovieSettings::default() }, ..ViewSettings::default() }
}

fn source(scenario: &Scenario) -> MovieSource {
    MovieSource::scenario("run", scenario, &RenderOptions::default()).unwrap()
}

#[test]
fn the_benchmark_worm_at_60_fps_fits_in_a_megabyte() {
    // The paper's benchmark worm, 12 × 3 voxels, 60 s, stored at 60 frames per second.
    let worm = worm_scenario(12, Scaffolding::ALL, 1.0 / 60.0, 60.0);
    let page = build_page(vec![source(&worm)], &settings(60)).unwrap();
    assert_eq!((page.stats.frames, page.stats.keep_every), (3601, 1));
    eprintln!("benchmark worm page: {} bytes", page.stats.page_bytes);
    assert!(page.stats.page_bytes <= 1_000_000, "{} bytes", page.stats.page_bytes);
    assert_eq!(page.stats.page_bytes, page.html.len());
    // Self-contained: no reference to anything outside the page.
    for outside in ["http:", "https:", "src=\"", "href=\""] {
        assert!(!page.html.contains(outside), "the page refers to {outside}");
    }
}

#[test]
fn too_many_numbers_keep_every_nth_frame_and_say_so() {
    let mut biped =
        Scenario::from_json(&fs::read_to_string(Path::new(crate::ROOT).join("fixtures/scenarios/biped.json")).unwrap())
            .unwrap();
    biped.world.duration = 10.0;
    let full = build_page(vec![source(&biped)], &settings(30)).unwrap().stats;
    assert_eq!((full.movie_frames, full.frames, full.keep_every), (301, 301, 1));
    assert!(full.note().is_none());
    // A third of the numbers: n = ⌈values / max⌉ = 3, frames 0, 3, …, 300.
    let small = ViewSettings { max_values: full.values / 3, ..settings(30) };
    let cut = build_page(vec![source(&biped)], &small).unwrap();
    assert_eq!((cut.stats.keep_every, cut.stats.frames, cut.stats.fps), (4, 76, 7.5));
    assert!(cut.stats.values <= full.values / 3);
    let note = cut.stats.note().unwrap();
    assert!(note.contains("1 frame in 4 of 301 (7.5 fps)"), "{note}");
    assert!(cut.html.contains(&note), "the page states the rule");
}

#[test]
fn render_writes_the_page_beside_the_video() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let (png, html) = (dir.path().join("end.png"), dir.path().join("run.html"));
    let biped = Path::new(crate::ROOT).join("fixtures/scenarios/biped.json");
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["render", biped.to_str().unwrap(), "--duration", "2", "--png", png.to_str().unwrap(), "--html"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = fs::read_to_string(&html).unwrap();
    assert!(png.exists() && page.starts_with("<!DOCTYPE html>"));
    // 2 s at the default 30 fps: frames 0..=60.
    assert!(page.contains("\"frames\":61"), "{}", &page[..200]);
}

#[test]
fn a_multi_robot_run_fills_one_cell_per_robot_and_keeps_its_name() {
    let read = |name: &str| {
        let path = Path::new(crate::ROOT).join(format!("fixtures/scenarios/{name}.json"));
        let mut s = Scenario::from_json(&fs::read_to_string(path).unwrap()).unwrap();
        s.world.duration = 0.5;
        s
    };
    let mut two = read("biped");
    two.robots.push(read("worm").robots.remove(0));
    let sources = vec![
        MovieSource::scenario("two", &two, &RenderOptions::default()).unwrap(),
        MovieSource::scenario("tripod", &read("tripod"), &RenderOptions::default()).unwrap(),
    ];
    let page = build_page(sources, &settings(30)).unwrap();
    let start = page.html.find("id=\"vsr2d-data\">").unwrap() + "id=\"vsr2d-data\">".len();
    let end = start + page.html[start..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&page.html[start..end]).unwrap();
    let names: Vec<&str> = data["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["two", "tripod"]);
    let cells: Vec<(u64, &str)> = data["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["run"].as_u64().unwrap(), c["label"].as_str().unwrap()))
        .collect();
    assert_eq!(cells, [(0, "biped"), (0, "worm"), (1, "tripod")]);
    assert_eq!(data["runs"][0]["robots"].as_array().unwrap().len(), 2);
}
