//! The pictures of what each algorithm finds (issue 47 §4): `fitness.png` of every algorithm,
//! `archive.png` (MAP-Elites) and `front.png` (NSGA-II) in the run directory, and `vsr2d render
//! --archive` / `--front` of the quick experiments' runs; bad input is refused with exit 2.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use vsr2d::evolve::reader::RunDirectory;
use vsr2d::movie::board::{Board, EMPTY_BIN};
use vsr2d::run_media::archive::{archive_grid, heatmap, ArchiveView, EMPTY_RGB};

use super::golden::{assert_golden, GoldenOptions};

fn vsr2d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().expect("vsr2d runs")
}

/// The quick experiments' run directories, each evolved once per test binary (`--no-media`: the
/// pictures but no video).
fn quick_run(name: &'static str) -> &'static Path {
    static ROOT: OnceLock<tempfile::TempDir> = OnceLock::new();
    static RUNS: [OnceLock<PathBuf>; 4] = [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let names = ["jumping", "cma-es", "nsga2", "map-elites"];
    let k = names.iter().position(|n| *n == name).expect("a quick experiment");
    let root = ROOT.get_or_init(|| tempfile::tempdir().unwrap());
    RUNS[k].get_or_init(|| {
        let experiment = Path::new(crate::ROOT).join(format!("fixtures/experiments/{name}-quick.json"));
        let dir = root.path().join(name);
        let out = vsr2d(&[
            "evolve",
            experiment.to_str().unwrap(),
            "-o",
            dir.to_str().unwrap(),
            "--jobs",
            "2",
            "--no-media",
            "-q",
        ]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        dir
    })
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

#[test]
fn every_algorithm_writes_its_fitness_plot_and_its_own_picture() {
    for (name, own) in
        [("jumping", None), ("cma-es", None), ("nsga2", Some("front.png")), ("map-elites", Some("archive.png"))]
    {
        let dir = quick_run(name);
        let plot = image::open(dir.join("fitness.png")).unwrap_or_else(|e| panic!("{name}: fitness.png: {e}"));
        assert!(plot.width() >= 900, "{name}");
        for other in ["archive.png", "front.png"] {
            assert_eq!(dir.join(other).is_file(), own == Some(other), "{name}: {other}");
        }
    }
    // The GA's plot is the one it always was: the reference was written by the binary before the
    // algorithms came (commit 8dc3f41), byte for byte.
    let ga = image::open(quick_run("jumping").join("fitness.png")).unwrap().to_rgba8();
    assert_golden(
        "run_media",
        "jumping_quick_fitness",
        &ga,
        GoldenOptions { channel_tolerance: 0, max_differing_pixels: 0 },
    );
}

/// `archive.png`: one coloured bin per line of `archive.jsonl` (the colour of its fitness), every
/// other bin the empty grey; checked at the bins' centres from the heatmap's layout.
#[test]
fn the_archive_heatmap_colours_one_bin_per_elite() {
    let dir = quick_run("map-elites");
    let run = RunDirectory::open(dir).unwrap();
    let elites = run.archive().unwrap();
    assert!(!elites.is_empty());
    let view = ArchiveView::of(&run).unwrap();
    let (drawn, layout) = heatmap(&view).unwrap();
    let written = image::open(dir.join("archive.png")).unwrap().to_rgb8();
    assert!(written == drawn, "archive.png is the heatmap of the run's archive");
    let filled: HashSet<(u32, u32)> = elites.iter().map(|e| (e.bin[0] as u32, e.bin[1] as u32)).collect();
    assert_eq!(filled.len(), elites.len(), "two descriptors: one bin per line");
    let mut coloured = 0;
    for row in 0..layout.rows {
        for col in 0..layout.cols {
            let (x, y) = layout.centre(col, row);
            let pixel = written.get_pixel(x, y).0;
            match elites.iter().find(|e| (e.bin[0] as u32, e.bin[1] as u32) == (col, row)) {
                Some(e) => {
                    assert_eq!(pixel, view.color(e.fitness), "bin ({col}, {row})");
                    assert_ne!(pixel, EMPTY_RGB);
                    coloured += 1;
                }
                None => assert_eq!(pixel, EMPTY_RGB, "bin ({col}, {row}) is empty"),
            }
        }
    }
    assert_eq!(coloured, lines(&dir.join("archive.jsonl")));
}

/// `render --archive --png`: the bins holding an elite show a robot, the others stay the empty fill;
/// as many drawn cells as the archive has elites, in their bins.
#[test]
fn render_archive_draws_one_cell_per_elite_on_the_descriptor_grid() {
    let dir = quick_run("map-elites");
    let out_dir = tempfile::tempdir().unwrap();
    let png = out_dir.path().join("archive.png");
    let out = vsr2d(&[
        "render",
        "--archive",
        dir.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--at",
        "1",
        "--size",
        "1280x720",
        "-q",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let frame = image::open(&png).unwrap().to_rgba8();
    assert_eq!(frame.dimensions(), (1280, 720));
    let run = RunDirectory::open(dir).unwrap();
    let grid = archive_grid(&run, 1280, 720).unwrap();
    let (cols, rows) = (grid.board.cols, grid.board.rows);
    let board = Board::new(grid.board).unwrap();
    let empty = [EMPTY_BIN.r, EMPTY_BIN.g, EMPTY_BIN.b, 255];
    let mut drawn = HashSet::new();
    for row in 0..rows {
        for col in 0..cols {
            let r = board.bin_inside(col, row);
            let uniform = (r.y..r.y + r.height).all(|y| (r.x..r.x + r.width).all(|x| frame.get_pixel(x, y).0 == empty));
            if !uniform {
                drawn.insert((col, row));
            }
        }
    }
    let bins: HashSet<(u32, u32)> = run.archive().unwrap().iter().map(|e| (e.bin[0] as u32, e.bin[1] as u32)).collect();
    assert_eq!(drawn.len(), lines(&dir.join("archive.jsonl")));
    assert_eq!(drawn, bins, "each elite in its own bin");
    // The metrics printed: one run per elite.
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["runs"].as_array().unwrap().len(), bins.len());
}

#[test]
fn render_front_draws_the_front_members_in_order() {
    let dir = quick_run("nsga2");
    let out_dir = tempfile::tempdir().unwrap();
    let png = out_dir.path().join("front.png");
    let out = vsr2d(&[
        "render",
        "--front",
        dir.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--at",
        "1",
        "--size",
        "640x360",
        "-q",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(image::open(&png).unwrap().to_rgb8().dimensions(), (640, 360));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = printed["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), lines(&dir.join("front.jsonl")));
    for (i, name) in names.iter().enumerate() {
        assert!(name.starts_with(&format!("front #{}: x_velocity ", i + 1)), "{name}");
    }
}

/// Not a MAP-Elites (NSGA-II) run, no archive.jsonl, an empty archive: exit 2 and a message naming
/// the file and the fix, never a panic.
#[test]
fn render_archive_and_front_refuse_bad_run_directories() {
    let refused = |args: &[&str], wanted: &[&str]| {
        let out = vsr2d(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        for w in wanted {
            assert!(err.contains(w), "{args:?}: {err:?} does not say {w:?}");
        }
    };
    let ga = quick_run("jumping").to_str().unwrap();
    refused(&["render", "--archive", ga, "--png", "x.png"], &["`ga` run", "map_elites", "--top"]);
    refused(&["render", "--front", ga, "--png", "x.png"], &["`ga` run", "nsga2"]);
    refused(
        &["render", "--archive", "/nonexistent/run", "--png", "x.png"],
        &["not a run directory", "experiment.json"],
    );

    // A copy of the MAP-Elites run without its archive, then with an empty one.
    let copy = tempfile::tempdir().unwrap();
    let source = quick_run("map-elites");
    for file in ["experiment.json", "log.jsonl"] {
        std::fs::copy(source.join(file), copy.path().join(file)).unwrap();
    }
    let dir = copy.path().to_str().unwrap();
    refused(&["render", "--archive", dir, "--png", "x.png"], &["archive.jsonl is missing", "vsr2d evolve"]);
    std::fs::write(copy.path().join("archive.jsonl"), "").unwrap();
    refused(&["render", "--archive", dir, "--png", "x.png"], &["archive.jsonl", "has no elites"]);
}
