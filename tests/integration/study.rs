//! `vsr2d study`: a tiny sensing study (the quick preset's shape with a smaller population, fewer
//! generations and 3 s simulations, so it runs in seconds) writes the report with its curves, table,
//! comparisons, filmstrip and video; the median best fitness improves over generation 0 for every
//! configuration; the table does not depend on `--jobs`; reruns reuse finished runs; selected runs and
//! `--report-only` gather a sharded study; bad input exits 2 before anything runs.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// The tiny preset: 6 configurations × 2 runs × (8 + 4·8) evaluations of 3 s.
const TINY: &[&str] = &["study", "sensing", "--quick", "--pop", "8", "--generations", "4", "--duration", "3"];

fn vsr2d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().unwrap()
}

fn tiny(dir: &Path, extra: &[&str]) -> Output {
    let mut args = TINY.to_vec();
    args.extend_from_slice(&["-o", dir.to_str().unwrap(), "--quiet"]);
    args.extend_from_slice(extra);
    let out = vsr2d(&args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn refused(args: &[&str], needles: &[&str]) {
    let out = vsr2d(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} must exit 2: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{args:?}: stderr must mention {n:?}: {stderr}");
    }
}

fn read(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

const DATA: [&str; 6] = ["curves.csv", "curves_summary.csv", "final.csv", "table.csv", "comparisons.csv", "stats.json"];

#[test]
fn a_tiny_study_reports_curves_table_and_pictures_and_improves_every_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    tiny(&a, &["--jobs", "2"]);

    // The report's files, published (no staging directory left).
    for name in ["index.html", "curves.png", "filmstrip.png", "viewer.html"].iter().chain(&DATA) {
        assert!(a.join(name).is_file(), "{name} missing");
    }
    assert!(
        fs::read_dir(&a).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(".vsr2d-report")),
        "staging directory left behind"
    );
    // The viewer holds the video's cells: one per configuration, 3 s at 30 fps.
    let viewer = read(&a, "viewer.html");
    assert!(
        viewer.contains("\"frames\":91")
            && read(&a, "index.html").contains("<iframe class=\"viewer\" src=\"viewer.html\"")
    );
    let curves = image::open(a.join("curves.png")).unwrap();
    assert!(curves.width() >= 1500, "three panels side by side: {}", curves.width());
    let strip = image::open(a.join("filmstrip.png")).unwrap();
    // Five frames three a row (392×280 each, 8 px apart): as wide as a report page, text at its size.
    assert_eq!((strip.width(), strip.height()), (3 * 392 + 16, 2 * 280 + 8), "five frames three a row");
    #[cfg(feature = "video")]
    {
        let info = vsr2d::output::video::probe(a.join("study.mp4")).unwrap();
        // One cell per configuration, 3 s at 30 fps.
        assert_eq!((info.codec.as_str(), info.width, info.height), ("h264", 1280, 720));
        assert!((89..=91).contains(&info.frames), "{} frames", info.frames);
    }

    // Every configuration: two runs, and the median best improves over generation 0 (the issue's test).
    let stats: Value = serde_json::from_str(&read(&a, "stats.json")).unwrap();
    let configs = stats["configs"].as_array().unwrap();
    let names: Vec<&str> = configs.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["sensing-worm", "nonsensing-worm", "sensing-biped", "nonsensing-biped", "sensing-tripod", "nonsensing-tripod"]
    );
    for c in configs {
        let (g0, fin) = (c["gen0_median"].as_f64().unwrap(), c["final_median"].as_f64().unwrap());
        assert_eq!(c["n"], 2, "{}", c["name"]);
        assert!(fin > g0, "{}: median final best {fin} must exceed median gen-0 best {g0}", c["name"]);
        assert_eq!(c["improved"], true);
        assert_eq!(c["curve_median"].as_array().unwrap().len(), 5, "generations 0 … 4");
        let ratio = c["ratio_of_medians"].as_f64().unwrap();
        assert!((ratio - fin / g0).abs() < 1e-12);
    }
    let comparisons = stats["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), 3, "sensing vs non-sensing per shape");
    for row in comparisons {
        let t = &row["test"];
        let (u_a, a12, p) = (t["u_a"].as_f64().unwrap(), t["a12"].as_f64().unwrap(), t["p"].as_f64().unwrap());
        assert_eq!(a12, u_a / 4.0, "A12 = U_a / (2·2)");
        assert!((t["r"].as_f64().unwrap() - (2.0 * a12 - 1.0)).abs() < 1e-15);
        assert!(p > 0.0 && p <= 1.0);
    }

    // The CSVs agree with the JSON: one curve row per run and generation, one final row per run.
    assert_eq!(read(&a, "curves.csv").lines().count(), 1 + 6 * 2 * 5);
    let finals = read(&a, "final.csv");
    assert_eq!(finals.lines().next().unwrap(), "config,run,seed,gen0_best,final_best,ratio");
    assert_eq!(finals.lines().count(), 1 + 12);
    let worm_run1: Vec<&str> =
        finals.lines().find(|l| l.starts_with("sensing-worm,1,1,")).unwrap().split(',').collect();
    let log = read(&a, "sensing-worm/run-1/log.jsonl");
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(worm_run1[4].parse::<f64>().unwrap(), last["best"].as_f64().unwrap(), "final best = the run's log");

    // The page shows the figures, the table and the tests.
    let html = read(&a, "index.html");
    for needle in ["curves.png", "filmstrip.png", "non-sensing (tripod)", "A12", "Mann–Whitney", "final.csv"] {
        assert!(html.contains(needle), "index.html lacks {needle:?}");
    }

    // Runs are ordinary evolve run directories.
    for config in &names {
        for k in 0..2 {
            let run = a.join(config).join(format!("run-{k}"));
            for f in ["best.json", "best_gen0.json", "final_population.jsonl", "checkpoint.json"] {
                assert!(run.join(f).is_file(), "{}", run.join(f).display());
            }
        }
    }

    // A rerun reuses the finished runs (nothing changes); --jobs 1 elsewhere gives the same table.
    let before: Vec<String> = DATA.iter().map(|n| read(&a, n)).collect();
    let mut rerun = TINY.to_vec();
    rerun.extend_from_slice(&["-o", a.to_str().unwrap(), "--no-video"]);
    let out = vsr2d(&rerun);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("finished earlier"));
    assert!(!a.join("study.mp4").exists(), "a stale video is removed with --no-video");
    let b = tmp.path().join("b");
    tiny(&b, &["--jobs", "1", "--no-video"]);
    for (name, text) in DATA.iter().zip(&before) {
        assert_eq!(&read(&a, name), text, "{name} changed on a rerun");
        assert_eq!(&read(&b, name), text, "{name} differs between --jobs 2 and --jobs 1");
    }

    // The same directory with other settings is refused, naming the run directory.
    let dir = a.to_str().unwrap();
    refused(
        &[
            "study",
            "sensing",
            "--quick",
            "--pop",
            "8",
            "--generations",
            "5",
            "--duration",
            "3",
            "-o",
            dir,
            "--report-only",
        ],
        &["another study run", "other settings"],
    );
}

#[test]
fn selected_runs_then_report_only_gather_a_sharded_study() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("s");
    let out = tiny(&dir, &["--config", "nonsensing-worm", "--run", "1", "--jobs", "1"]);
    assert!(out.stdout.is_empty());
    assert!(dir.join("nonsensing-worm/run-1/final_population.jsonl").is_file());
    assert!(!dir.join("nonsensing-worm/run-0").exists() && !dir.join("sensing-worm").exists());
    assert!(!dir.join("index.html").exists(), "a partial selection writes no report");
    // --shard 0/12 of 12 runs is the first run only: sensing-worm run 0.
    tiny(&dir, &["--shard", "0/12", "--jobs", "1"]);
    assert!(dir.join("sensing-worm/run-0/final_population.jsonl").is_file());
    assert!(!dir.join("sensing-worm/run-1").exists());
    let out = tiny(&dir, &["--report-only", "--no-video"]);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["missing"].as_array().unwrap().len(), 10, "12 runs, 2 finished");
    let stats: Value = serde_json::from_str(&read(&dir, "stats.json")).unwrap();
    assert_eq!(stats["configs"][1]["seeds"], serde_json::json!([1]));
    assert!(stats["missing"].as_array().unwrap().contains(&Value::from("sensing-biped/run-0 (not started)")));
    // The page lists them too (minijinja escapes the `/`).
    assert!(read(&dir, "index.html").contains("sensing-biped&#x2f;run-0 (not started)"));
}

#[test]
fn bad_study_input_exits_2_before_running() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("x");
    let d = d.to_str().unwrap();
    refused(&["study", "swimming"], &["swimming", "body", "evodevo", "sensing"]);
    refused(&["study", "body", "--quick", "--config", "body-7x7", "-o", d], &["body-7x7", "body-5x5", "body-10x10"]);
    refused(&["study", "body", "--quick", "--run", "2", "-o", d], &["--run 2", "0 … 1"]);
    refused(&["study", "body", "--quick", "--shard", "3/3", "-o", d], &["--shard"]);
    refused(&["study", "body", "--quick", "--pop", "1", "-o", d], &["n_pop", "body-5x5"]);
    refused(&["study", "body", "--quick", "--duration=-1", "-o", d], &["--duration"]);
    refused(&["study", "body", "--quick", "--report-only", "-o", d], &["no finished run", "--quick"]);
    let file = tmp.path().join("file");
    fs::write(&file, "x").unwrap();
    refused(&["study", "body", "--quick", "-o", file.join("sub").to_str().unwrap()], &["file"]);
    assert!(!Path::new(d).join("body-5x5").exists(), "nothing ran");
}

/// The hypervolume of (maximised x, minimised y) points over (x_ref, y_ref), by summing the
/// rectangles of the points sorted by x (a second computation, independent of the library's sweep).
fn hypervolume_2d(points: &[(f64, f64)], (x_ref, y_ref): (f64, f64)) -> f64 {
    let mut p: Vec<(f64, f64)> = points.iter().copied().filter(|(x, y)| *x > x_ref && *y < y_ref).collect();
    p.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut area, mut lowest_y) = (0.0, y_ref);
    for (x, y) in p {
        if y < lowest_y {
            area += (x - x_ref) * (lowest_y - y);
            lowest_y = y;
        }
    }
    area
}

#[test]
fn the_qd_study_measures_the_final_bodies_of_both_algorithms_on_the_archive_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("qd");
    let out = vsr2d(&[
        "study",
        "qd",
        "--quick",
        "--pop",
        "8",
        "--generations",
        "2",
        "--duration",
        "3",
        "--no-video",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: Value = serde_json::from_str(&read(&dir, "stats.json")).unwrap();
    let qd = &stats["qd"];
    assert_eq!(qd["bins"], 80, "voxels 10 bins × elongation 8 bins");
    let runs = qd["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 4, "2 runs of each configuration");
    for run in runs {
        let (config, k) = (run["config"].as_str().unwrap(), run["k"].as_u64().unwrap());
        let run_dir = dir.join(config).join(format!("run-{k}"));
        let coverage = run["coverage"].as_f64().unwrap();
        let diversity = run["diversity"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&diversity), "{config} {k}: diversity {diversity}");
        if config == "qd-map-elites" {
            // The archive the run wrote (bins of the simulated result's morphology) has one line per
            // filled bin: the report, which recomputes the descriptors from each body, agrees.
            let lines = read(&run_dir, "archive.jsonl").lines().count();
            assert_eq!(coverage, lines as f64 / 80.0, "{config} {k}");
            assert_eq!(run["bodies"], lines);
        } else {
            // The GA ends with its population of 8: at most 8 bins, at least 1.
            assert_eq!(run["bodies"], 8);
            assert!((1.0 / 80.0..=8.0 / 80.0).contains(&coverage), "{coverage}");
        }
    }
    let measures: Vec<&str> =
        qd["comparisons"].as_array().unwrap().iter().map(|c| c["measure"].as_str().unwrap()).collect();
    assert_eq!(measures, ["coverage", "diversity"]);
    for name in ["qd_bodies.png", "qd_heatmaps.png", "qd.csv", "qd_comparisons.csv"] {
        assert!(dir.join(name).is_file(), "{name}");
    }
    let bodies = image::open(dir.join("qd_bodies.png")).unwrap();
    assert!(
        bodies.width() >= 2 * 960 && bodies.height() == 720,
        "two boards side by side: {}×{}",
        bodies.width(),
        bodies.height()
    );
    let page = read(&dir, "index.html");
    assert!(page.contains("id=\"qd\"") && page.contains("qd_bodies.png"));
}

#[test]
fn the_energy_study_scores_runs_by_the_hypervolume_of_their_fronts_over_a_fixed_reference() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("energy");
    let out = vsr2d(&[
        "study",
        "energy",
        "--quick",
        "--pop",
        "8",
        "--generations",
        "2",
        "--duration",
        "3",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: Value = serde_json::from_str(&read(&dir, "stats.json")).unwrap();
    assert_eq!(stats["score"], "hypervolume");
    let energy = &stats["energy"];
    assert_eq!(energy["reference"], serde_json::json!([0.0, 1.0]));
    for run in energy["runs"].as_array().unwrap() {
        let k = run["k"].as_u64().unwrap();
        // The run's own front.jsonl, read here: its hypervolume over (0 m/s, effort 1) is the score the
        // report took from the log's last generation.
        let front: Vec<(f64, f64)> = read(&dir.join(format!("energy-nsga2/run-{k}")), "front.jsonl")
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (v["objectives"][0].as_f64().unwrap(), v["objectives"][1].as_f64().unwrap())
            })
            .collect();
        let hv = run["hypervolume"].as_f64().unwrap();
        assert!((hv - hypervolume_2d(&front, (0.0, 1.0))).abs() < 1e-12, "run {k}: {hv} vs {front:?}");
        assert!(hv > 0.0, "some member moves forward");
        // The front's fastest member is the fastest of front.jsonl.
        let fastest = front.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(run["first_best"][0].as_f64().unwrap(), fastest);
    }
    for name in ["energy_fronts.png", "energy_fronts.csv"] {
        assert!(dir.join(name).is_file(), "{name}");
    }
    #[cfg(feature = "video")]
    {
        let info = vsr2d::output::video::probe(dir.join("energy_front.mp4")).unwrap();
        assert_eq!((info.width, info.height), (1280, 720));
        assert!((89..=91).contains(&info.frames), "3 s at 30 fps: {} frames", info.frames);
    }
    assert!(read(&dir, "index.html").contains("id=\"fronts\""));
}
