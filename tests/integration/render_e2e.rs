//! End to end: fixture scenarios simulated and rendered through the movie pipeline (goldens of suite `e2e`,
//! tolerant because they go through physics), the showcase video, and the `vsr2d render` command line.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vsr2d::movie::{Movie, MovieSettings, MovieSource};
use vsr2d::output::sinks::StillPng;
use vsr2d::output::FrameSink;
use vsr2d::render::{pixmap_to_rgba_image, GridLayout, RenderOptions};
use vsr2d::scenario::Scenario;

use crate::golden::{assert_golden, GoldenOptions};

const SUITE: &str = "e2e";

fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir under CARGO_TARGET_TMPDIR")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(crate::ROOT).join("fixtures/scenarios").join(format!("{name}.json"))
}

fn scenario(name: &str, seconds: f64) -> Scenario {
    let mut s = Scenario::from_json(&fs::read_to_string(fixture(name)).unwrap()).unwrap();
    s.world.duration = seconds;
    s
}

fn settings(width: u32, height: u32) -> MovieSettings {
    MovieSettings { width, height, ..MovieSettings::default() }
}

/// Runs `vsr2d` in an empty working directory and checks that it left nothing there: every output of
/// these tests is named, so a default `render.mp4` or `showcase.mp4` would be a bug.
fn vsr2d(args: &[&str]) -> Output {
    let cwd = scratch_dir();
    let output =
        Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).current_dir(cwd.path()).output().expect("vsr2d runs");
    assert!(
        entries(cwd.path()).is_empty(),
        "vsr2d {args:?} wrote {:?} into its working directory",
        entries(cwd.path())
    );
    output
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

// The biped's e2e golden (biped_2s_320x180.png) is a case of tests/golden/vsr2d-check.json, checked
// through `vsr2d check` as users check theirs: check::the_e2e_goldens_pass_through_the_check_command.

#[test]
fn showcase_grid_frame_golden() {
    let mut movie = Movie::showcase(&settings(640, 360), Some(3.0)).unwrap();
    assert_eq!(movie.layout(), GridLayout { cols: 2, rows: 2 });
    let image = pixmap_to_rgba_image(movie.still(u64::MAX).unwrap());
    assert_golden(SUITE, "showcase_3s_640x360", &image, GoldenOptions::tolerant(0.02, &image));
}

#[test]
fn a_multi_robot_scenario_gets_one_cell_per_robot() {
    let mut two = scenario("biped", 0.5);
    two.robots.push(scenario("worm", 0.5).robots.remove(0));
    let source = MovieSource::scenario("two", &two, &RenderOptions::default()).unwrap();
    assert_eq!(source.cell_count(), 2);
    let mut movie = Movie::new(vec![source], &settings(200, 100)).unwrap();
    assert_eq!(movie.layout(), GridLayout { cols: 2, rows: 1 });
    let mut sink = StillPng::new(scratch_dir().path().join("unused.png"), Some(u64::MAX));
    assert_eq!(movie.run(&mut sink, &mut |_| {}).unwrap(), 16);
    assert_eq!(sink.frame_count(), 16);
    let metrics = movie.finish_runs().unwrap();
    assert_eq!(metrics.len(), 1);
    let labels: Vec<&str> = metrics[0].result.robots.iter().map(|m| m.label.as_str()).collect();
    assert_eq!(labels, ["biped", "worm"]);
}

/// With a shared camera a two-robot world fits a 1×1 layout, and its one cell shows both robots (blue
/// voxel outlines on both sides of the gap between them); without it the layout is refused with a hint.
#[test]
fn a_shared_camera_shows_a_multi_robot_world_in_one_cell() {
    let mut two = scenario("biped", 0.5);
    two.robots.push(scenario("worm", 0.5).robots.remove(0));
    let layout = Some(GridLayout { cols: 1, rows: 1 });
    let refused = Movie::new(
        vec![MovieSource::scenario("two", &two, &RenderOptions::default()).unwrap()],
        &MovieSettings { layout, ..settings(320, 180) },
    );
    assert!(refused.err().unwrap().to_string().contains("--shared-camera"));
    let source = MovieSource::scenario("two", &two, &RenderOptions::default()).unwrap();
    let mut movie =
        Movie::new(vec![source], &MovieSettings { layout, shared_camera: true, ..settings(320, 180) }).unwrap();
    let img = vsr2d::render::pixmap_to_rgba_image(movie.still(0).unwrap());
    // The biped stands at x = 11…23 m, the worm 2 voxel sides further right: the cell frames both, so
    // blue outlines appear in its left and its right third.
    let blue_in = |x0: u32, x1: u32| {
        img.enumerate_pixels().filter(|(x, _, p)| (x0..x1).contains(x) && p[2] > 200 && p[0] < 60 && p[1] < 60).count()
    };
    assert!(blue_in(0, 107) > 20 && blue_in(213, 320) > 20, "left {} right {}", blue_in(0, 107), blue_in(213, 320));
}

#[test]
fn metrics_after_rendering_match_a_plain_run() {
    let s = scenario("tripod", 1.5);
    let plain = s.build().unwrap().run(&mut []).unwrap();
    let mut movie =
        Movie::new(vec![MovieSource::scenario("tripod", &s, &RenderOptions::all_layers()).unwrap()], &settings(64, 36))
            .unwrap();
    while movie.next_frame().unwrap().is_some() {}
    let rendered = movie.finish_runs().unwrap();
    assert_eq!(rendered[0].result, plain, "rendering (with every layer's detail on) must not change the run");
}

#[cfg(feature = "video")]
#[test]
fn showcase_video_has_the_frames_the_spec_rule_gives() {
    use vsr2d::movie::{default_video_settings, showcase_sources};
    use vsr2d::output::video::{probe, Mp4Encoder};
    use vsr2d::render::frame_count;

    let dir = scratch_dir();
    let path = dir.path().join("showcase.mp4");
    let mut movie =
        Movie::new(showcase_sources(&RenderOptions::default(), Some(1.0)).unwrap(), &settings(320, 180)).unwrap();
    // Every run ends at t = 60 · (1/60) s = 1 s, so frames k = 0..=30 reach a snapshot.
    let expected = frame_count([1.0], 30.0);
    assert_eq!(expected, 31);
    assert_eq!(movie.frame_count(), expected);
    let mut encoder: Box<dyn FrameSink + Send> =
        Box::new(Mp4Encoder::new(&path, default_video_settings(320, 180)).unwrap());
    assert_eq!(movie.run(&mut *encoder, &mut |_| {}).unwrap(), expected);
    encoder.finish().unwrap();
    assert_eq!(entries(dir.path()), ["showcase.mp4"]);

    let info = probe(&path).unwrap();
    assert_eq!((info.width, info.height), (320, 180));
    assert_eq!(info.frame_rate, (30, 1));
    assert_eq!(info.frames, expected);
    assert_eq!(info.codec, "h264");
}

/// A sink that fails after a given number of frames, standing in for a full disk or a broken encoder.
#[cfg(feature = "video")]
struct FailAt(u64, u64);

#[cfg(feature = "video")]
impl FrameSink for FailAt {
    fn push(&mut self, _frame: &tiny_skia::Pixmap) -> Result<(), vsr2d::output::FrameError> {
        self.1 += 1;
        if self.1 > self.0 {
            return Err(vsr2d::output::FrameError::Aborted { path: "fail-at".into() });
        }
        Ok(())
    }
    fn frame_count(&self) -> u64 {
        self.1
    }
    fn finish(self: Box<Self>) -> Result<(), vsr2d::output::FrameError> {
        Ok(())
    }
}

#[cfg(feature = "video")]
#[test]
fn a_failure_during_the_run_leaves_no_video_behind() {
    use vsr2d::movie::default_video_settings;
    use vsr2d::output::sinks::Tee;
    use vsr2d::output::video::Mp4Encoder;

    let dir = scratch_dir();
    let path = dir.path().join("broken.mp4");
    let mut movie = Movie::showcase(&settings(160, 90), Some(1.0)).unwrap();
    let encoder = Mp4Encoder::new(&path, default_video_settings(160, 90)).unwrap();
    let mut tee = Tee::new(vec![Box::new(encoder), Box::new(FailAt(5, 0))]);
    let result = movie.run(&mut tee, &mut |_| {});
    assert!(result.is_err(), "the sink's failure must end the run");
    drop(tee);
    assert!(entries(dir.path()).is_empty(), "left behind: {:?}", entries(dir.path()));
}

#[cfg(feature = "video")]
#[test]
fn cli_renders_the_showcase_to_mp4() {
    let dir = scratch_dir();
    let out = dir.path().join("x.mp4");
    let result = vsr2d(&["render", "--duration", "1", "--size", "320x180", "-o", out.to_str().unwrap()]);
    assert!(result.status.success(), "stderr: {}", String::from_utf8_lossy(&result.stderr));
    assert_eq!(entries(dir.path()), ["x.mp4"]);
    assert_eq!(vsr2d::output::video::probe(&out).unwrap().frames, 31);
    let metrics: serde_json::Value = serde_json::from_slice(&result.stdout).expect("metrics JSON on stdout");
    let names: Vec<&str> = metrics["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["worm", "biped", "tripod", "two-material"]);
    assert_eq!(metrics["runs"][1]["robots"][0]["steps"], 60);
}

#[test]
fn cli_refuses_an_odd_video_size_with_exit_2_and_writes_nothing() {
    let dir = scratch_dir();
    let out = dir.path().join("odd.mp4");
    let result = vsr2d(&["render", "--duration", "1", "--size", "321x180", "-o", out.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("321×180") && stderr.contains("even"), "stderr: {stderr}");
    assert!(entries(dir.path()).is_empty(), "left behind: {:?}", entries(dir.path()));
    assert!(result.stdout.is_empty(), "nothing was simulated, so no metrics");
}

/// A missing output directory is bad input (exit 2), found before any simulation: no metrics are printed,
/// and metrics are printed only after simulating.
#[test]
fn cli_refuses_a_missing_output_directory_before_simulating() {
    let result = vsr2d(&["render", "--size", "320x180", "-o", "/nonexistent/dir/x.mp4"]);
    assert_eq!(result.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("/nonexistent/dir") && stderr.contains("does not exist"), "stderr: {stderr}");
    assert!(result.stdout.is_empty());
    assert!(!Path::new("/nonexistent/dir/x.mp4").exists());
}

#[test]
fn cli_refuses_bad_size_strings_and_unreadable_scenarios_with_exit_2() {
    let dir = scratch_dir();
    let png = dir.path().join("never.png");
    for size in ["1280", "0x720", "axb"] {
        let result = vsr2d(&["render", "--size", size, "--png", png.to_str().unwrap()]);
        assert_eq!(result.status.code(), Some(2), "--size {size}");
    }
    let result = vsr2d(&["render", "/nonexistent/scenario.json", "--png", png.to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("cannot read scenario"));
    assert!(entries(dir.path()).is_empty());
}

/// `--png --at` draws one frame alone; it must equal that frame of the full sequence.
#[test]
fn cli_still_equals_the_same_frame_of_the_sequence() {
    let dir = scratch_dir();
    let frames = dir.path().join("frames");
    let still = dir.path().join("still.png");
    let biped = fixture("biped");
    let common = ["render", biped.to_str().unwrap(), "--duration", "1", "--size", "160x90"];
    let seq = vsr2d(&[&common[..], &["--frames", frames.to_str().unwrap()]].concat());
    assert!(seq.status.success(), "stderr: {}", String::from_utf8_lossy(&seq.stderr));
    assert_eq!(entries(&frames).len(), 31, "no mp4 unless -o is given; 31 frames");
    let one = vsr2d(&[&common[..], &["--png", still.to_str().unwrap(), "--at", "0.5"]].concat());
    assert!(one.status.success(), "stderr: {}", String::from_utf8_lossy(&one.stderr));
    let a = image::open(&still).unwrap().to_rgba8();
    let b = image::open(frames.join("frame_000015.png")).unwrap().to_rgba8();
    assert_eq!((a.width(), a.height()), (160, 90));
    assert!(a == b, "the still at 0.5 s differs from frame 15");
}

/// A run recorded once renders exactly like the live run (snapshots round-trip bit-exactly), materials
/// included: the two-material robot's recording names its materials and its replay is hatched the same.
#[test]
fn cli_renders_a_recording_like_the_live_run() {
    for (name, size) in [("biped", "160x90"), ("two-material", "320x180")] {
        let dir = scratch_dir();
        let record = dir.path().join(format!("{name}.jsonl"));
        let path = fixture(name);
        let sim = vsr2d(&["simulate", path.to_str().unwrap(), "--duration", "1", "--record", record.to_str().unwrap()]);
        assert!(sim.status.success(), "stderr: {}", String::from_utf8_lossy(&sim.stderr));
        let first = fs::read_to_string(&record).unwrap().lines().next().unwrap().to_owned();
        if name == "two-material" {
            assert!(first.contains(r#""materials":["h: 25 Hz, all","s: 5 Hz, E+C"]"#), "{first}");
            assert_eq!(first.matches(r#""material":1"#).count(), 4, "the top row is material 1");
        } else {
            assert!(first.contains(r##""materials":["#"]"##) && !first.contains(r#""material":"#), "{first}");
        }

        let (live, recorded) = (dir.path().join("live"), dir.path().join("recorded"));
        let size = ["--size", size];
        let live_args = ["render", path.to_str().unwrap(), "--duration", "1", "--frames", live.to_str().unwrap()];
        let a = vsr2d(&[&live_args[..], &size].concat());
        let b = vsr2d(
            &[&["render", "--from", record.to_str().unwrap(), "--frames", recorded.to_str().unwrap()][..], &size]
                .concat(),
        );
        assert!(a.status.success() && b.status.success(), "stderr: {}", String::from_utf8_lossy(&b.stderr));
        let names = entries(&live);
        assert_eq!(names.len(), 31);
        assert_eq!(entries(&recorded), names);
        for frame in &names {
            assert!(
                fs::read(live.join(frame)).unwrap() == fs::read(recorded.join(frame)).unwrap(),
                "{name}: {frame} differs"
            );
        }
    }
}

/// `-o x.gif` writes an animated GIF with every frame of the run; an extension that names no format is
/// refused before anything is simulated.
#[test]
fn cli_writes_gif_by_extension_and_refuses_unknown_formats() {
    let dir = scratch_dir();
    let (gif_path, frames) = (dir.path().join("biped.gif"), dir.path().join("frames"));
    let biped = fixture("biped");
    let args = ["render", biped.to_str().unwrap(), "--duration", "1", "--size", "160x90", "--fps", "10"];
    let out = vsr2d(&[&args[..], &["-o", gif_path.to_str().unwrap(), "--frames", frames.to_str().unwrap()]].concat());
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(fs::File::open(&gif_path).unwrap()).unwrap();
    assert_eq!((decoder.width(), decoder.height()), (160, 90));
    let first_png = image::open(frames.join("frame_000000.png")).unwrap().to_rgba8();
    let mut count = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 10, "10 fps is a 10 cs delay");
        if count == 0 {
            // A 256-colour palette per frame: close to the PNG frame, not equal.
            let diff: u64 = frame.buffer.iter().zip(first_png.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
            assert!(diff as f64 / (160.0 * 90.0 * 4.0) < 4.0, "mean channel difference {}", diff / (160 * 90 * 4));
        }
        count += 1;
    }
    assert_eq!(count, entries(&frames).len(), "one GIF frame per rendered frame");
    assert_eq!(count, 11);

    let avi = dir.path().join("biped.avi");
    let refused = vsr2d(&[&args[..], &["-o", avi.to_str().unwrap()]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains(".mp4") && stderr.contains(".gif"), "{stderr}");
    assert!(!avi.exists());
}

/// `--filmstrip` puts the frames shown at `--times` side by side, each exactly the frame of the sequence.
#[test]
fn cli_filmstrip_holds_the_frames_at_the_given_times() {
    let dir = scratch_dir();
    let (strip, frames) = (dir.path().join("strip.png"), dir.path().join("frames"));
    let biped = fixture("biped");
    let out = vsr2d(&[
        "render",
        biped.to_str().unwrap(),
        "--duration",
        "1",
        "--size",
        "160x90",
        "--frames",
        frames.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    // --size is the whole filmstrip: three 160 px frames 8 px apart.
    let out = vsr2d(&[
        "render",
        biped.to_str().unwrap(),
        "--duration",
        "1",
        "--size",
        "496x90",
        "--filmstrip",
        strip.to_str().unwrap(),
        "--times",
        "0,0.5,1",
    ]);
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let strip = image::open(&strip).unwrap().to_rgba8();
    assert_eq!((strip.width(), strip.height()), (3 * 160 + 2 * 8, 90));
    for (i, k) in [0, 15, 30].into_iter().enumerate() {
        let frame = image::open(frames.join(format!("frame_{k:06}.png"))).unwrap().to_rgba8();
        let x0 = i as u32 * 168;
        assert!((0..90).all(|y| (0..160).all(|x| strip.get_pixel(x0 + x, y) == frame.get_pixel(x, y))), "frame {k}");
    }
}

/// `-` reads the scenario from stdin: the same metrics as from the file.
#[test]
fn a_scenario_from_stdin_runs_like_the_file() {
    use std::io::Write as _;
    let path = fixture("biped");
    let from_file = vsr2d(&["simulate", path.to_str().unwrap(), "--duration", "1"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["simulate", "-", "--duration", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&fs::read(&path).unwrap()).unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    assert!(from_file.status.success() && from_stdin.status.success());
    assert_eq!(from_stdin.stdout, from_file.stdout);
}

/// A layer the recording cannot draw is a warning naming the option that records it; recorded with
/// `--detail`, the layer is there and the warning is not.
#[test]
fn missing_recorded_layers_are_a_warning_naming_the_fix() {
    let dir = scratch_dir();
    let (plain, detailed, png) =
        (dir.path().join("plain.jsonl"), dir.path().join("detailed.jsonl"), dir.path().join("s.png"));
    let biped = fixture("biped");
    let b = biped.to_str().unwrap();
    assert!(vsr2d(&["simulate", b, "--duration", "0.5", "--record", plain.to_str().unwrap()]).status.success());
    let rec = ["simulate", b, "--duration", "0.5", "--record", detailed.to_str().unwrap(), "--detail", "springs,ropes"];
    assert!(vsr2d(&rec).status.success());
    let first = fs::read_to_string(&detailed).unwrap();
    assert!(first.lines().next().unwrap().contains("\"springs\":["), "springs are recorded");

    let render = |rec: &Path| {
        vsr2d(&[
            "render",
            "--from",
            rec.to_str().unwrap(),
            "--springs",
            "--size",
            "160x90",
            "--png",
            png.to_str().unwrap(),
        ])
    };
    let warned = render(&plain);
    assert!(warned.status.success());
    let stderr = String::from_utf8_lossy(&warned.stderr);
    assert!(
        stderr.contains("warning:") && stderr.contains("no springs") && stderr.contains("--detail springs"),
        "{stderr}"
    );
    let quiet = render(&detailed);
    assert!(quiet.status.success());
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("warning:"));
}

/// `render --top K DIRS`: the K best individuals over evolution runs, ranked by fitness in each run's
/// direction (invalid individuals skipped), one cell each, labelled with rank and fitness.
#[test]
fn cli_renders_the_top_individuals_of_evolution_runs() {
    let dir = scratch_dir();
    let worm: serde_json::Value = serde_json::from_str(&fs::read_to_string(fixture("worm")).unwrap()).unwrap();
    let write_run = |name: &str, goal: &str, lines: &[(Option<f64>, &str)]| {
        let run = dir.path().join("study").join(name);
        fs::create_dir_all(&run).unwrap();
        // A run directory as `vsr2d evolve` leaves it (the parts `--top` reads): the experiment, the
        // log's header and the final population.
        let experiment =
            format!(r#"{{"representation": {{"type": "phases", "body": "worm"}}, "fitness": {{"goal": "{goal}"}}}}"#);
        fs::write(run.join("experiment.json"), &experiment).unwrap();
        let header = serde_json::json!({"header": {"vsr2d": "0.1.0", "generator": "splitmix64", "experiment_hash": "0",
            "genome_size": 0, "experiment": serde_json::from_str::<serde_json::Value>(&experiment).unwrap()}});
        fs::write(run.join("log.jsonl"), format!("{header}\n")).unwrap();
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, (fitness, label))| {
                let mut s = worm.clone();
                s["robots"][0]["label"] = serde_json::json!(label);
                let scenario = if fitness.is_some() { s } else { serde_json::Value::Null };
                format!(
                    "{}\n",
                    serde_json::json!({"rank": i + 1, "fitness": fitness, "genome": [], "scenario": scenario})
                )
            })
            .collect();
        fs::write(run.join("final_population.jsonl"), text).unwrap();
        run
    };
    write_run("a", "max", &[(Some(0.5), "a1"), (Some(0.2), "a2")]);
    write_run("b", "max", &[(Some(0.9), "b1"), (None, "broken")]);
    let png = dir.path().join("top.png");
    let study = dir.path().join("study");
    let args = ["--duration", "0.2", "--size", "160x90", "--png", png.to_str().unwrap(), "-q"];
    let out = vsr2d(&[&["render", "--top", "2", study.to_str().unwrap()][..], &args].concat());
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells: Vec<(String, String)> = runs["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r["robots"][0]["label"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(cells.len(), 2);
    assert!(cells[0].0.starts_with("#1 fitness 0.9000") && cells[0].1 == "b1", "{cells:?}");
    assert!(cells[1].0.starts_with("#2 fitness 0.5000") && cells[1].1 == "a1", "{cells:?}");

    // A minimising run ranks its lowest fitness first.
    let min_run = write_run("c", "min", &[(Some(0.1), "c1"), (Some(0.7), "c2")]);
    let out = vsr2d(&[&["render", "--top", "1", min_run.to_str().unwrap()][..], &args].concat());
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(runs["runs"][0]["robots"][0]["label"], "c1");
    assert!(runs["runs"][0]["name"].as_str().unwrap().starts_with("#1 fitness 0.1000"));

    let empty = dir.path().join("nothing");
    fs::create_dir_all(&empty).unwrap();
    let refused = vsr2d(&[&["render", "--top", "1", empty.to_str().unwrap()][..], &args].concat());
    assert_eq!(refused.status.code(), Some(2));
}

/// `render --html` fills its page from the run it renders: the page is byte for byte the one `vsr2d view`
/// writes of the same file (same title and detail), the metrics are the run's, and a scenario read once
/// from stdin (which a second run could not read again) gets its page too.
#[test]
fn render_html_reuses_its_run_and_equals_the_view_page() {
    use std::io::Write as _;
    let dir = scratch_dir();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (png, rendered_page, viewed, piped) = (at("end.png"), at("run.html"), at("view.html"), at("stdin.html"));
    let biped = fixture("biped");
    let biped = biped.to_str().unwrap();
    let size = ["--duration", "1", "--size", "320x180", "-q"];
    let rendered = vsr2d(&[&["render", biped, "--png", &png, "--html", &rendered_page][..], &size].concat());
    assert!(rendered.status.success(), "{}", String::from_utf8_lossy(&rendered.stderr));
    let view = vsr2d(&[&["view", biped, "-o", &viewed, "--detail", "none", "--title", "run"][..], &size].concat());
    assert!(view.status.success(), "{}", String::from_utf8_lossy(&view.stderr));
    assert!(fs::read(&rendered_page).unwrap() == fs::read(&viewed).unwrap(), "render --html differs from view");
    let plain = vsr2d(&["simulate", biped, "--duration", "1"]);
    let runs: serde_json::Value = serde_json::from_slice(&rendered.stdout).unwrap();
    let simulated: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!(runs["runs"][0]["robots"], simulated["robots"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args([&["render", "-", "--html", &piped][..], &size].concat())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&fs::read(biped).unwrap()).unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    assert!(from_stdin.status.success(), "{}", String::from_utf8_lossy(&from_stdin.stderr));
    assert!(fs::read_to_string(&piped).unwrap().contains("\"frames\":31"));
}

/// The render job's preflight refuses bad values, bad combinations and renders over the cost limit with
/// exit 2 and a message naming the fix, before anything is simulated: nothing is written.
#[test]
fn the_preflight_refuses_before_simulating_and_writes_nothing() {
    let dir = scratch_dir();
    let at = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let worm = fixture("worm");
    let worm = worm.to_str().unwrap();
    let (mp4, png, svg, html) = (at("x.mp4"), at("x.png"), at("x.svg"), at("x.html"));
    let (avi, gif_page) = (at("x.avi"), at("page.gif"));
    let biped = fixture("biped");
    let biped = biped.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["render", worm, "--png", &svg, "--label", "(a) worm", "--no-overlay"], "which --no-overlay leaves out"),
        (vec!["render", worm, biped, "--png", &png, "--label", "(a) worm"], "1 --label given for 2 cells"),
        (vec!["render", worm, "--png", &png, "--label", "a", "--label", "b"], "2 --label given for 1 cell:"),
        (
            vec!["render", worm, "--png", &png, "--font-scale", "5"],
            "--font-scale 5 is invalid: give a factor from 0.5 to 4",
        ),
        (vec!["render", worm, "--png", &svg, "--font-scale", "0.1"], "--font-scale 0.1 is invalid"),
        // 10⁵ s at 30 fps of 1280×720: far over the pixels × frames limit.
        (vec!["render", worm, "--duration", "100000", "-o", &mp4, "--png", &png, "--html", &html], "pixels × frames"),
        (vec!["render", worm, "--duration", "1e7", "-o", &mp4], "--duration 1e7 is invalid"),
        (vec!["render", worm, "--fps", "0", "-o", &mp4], "--fps 0 is invalid"),
        (vec!["render", worm, "--png", &svg, "--fps", "60"], "--fps is a video's frame rate"),
        (vec!["render", worm, "--png", &png, "--html", &mp4], "would be an HTML page named .mp4"),
        (vec!["render", worm, "-o", &mp4, "--html", &mp4], "both name"),
        (vec!["render", worm, "-o", &avi], "unknown video format"),
        (vec!["render", worm, "--png", worm], "would replace that input"),
        (vec!["view", worm, "-o", &gif_page], "would be an HTML page named .gif"),
        (vec!["view", worm, "-o", &html, "--fps", "0"], "--fps 0 is invalid"),
    ];
    for (args, needle) in cases {
        let out = vsr2d(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: no metrics, nothing was simulated");
        assert!(entries(dir.path()).is_empty(), "{args:?} wrote {:?}", entries(dir.path()));
    }
}

/// The height of the first overlay box (the translucent white rectangle) of an SVG frame.
fn overlay_box_height(svg: &str) -> f64 {
    let rect = svg.split("<rect ").find(|r| r.contains(r#"fill-opacity="0.8""#)).expect("an overlay box");
    let height = rect.split(r#"height=""#).nth(1).and_then(|h| h.split('"').next()).expect("a height");
    height.parse().unwrap()
}

/// `--label` replaces the run's name in the overlay (the paper style shows the overlay for it), and
/// `--font-scale 2` makes the overlay's box twice as tall.
#[test]
fn a_label_replaces_the_run_name_and_the_font_scale_grows_the_overlay() {
    let dir = scratch_dir();
    let worm = fixture("worm");
    let svg = |name: &str, extra: &[&str]| {
        let path = dir.path().join(name);
        let path_text = path.to_str().unwrap();
        let mut args = vec!["render", worm.to_str().unwrap(), "--png", path_text, "--duration", "0.5"];
        args.extend(["--size", "400x260", "-q"]);
        args.extend(extra);
        let out = vsr2d(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        fs::read_to_string(path).unwrap()
    };
    let named = svg("named.svg", &[]);
    let labelled = svg("labelled.svg", &["--label", "(a) worm"]);
    let large = svg("large.svg", &["--label", "(a) worm", "--font-scale", "2"]);
    let paper = svg("paper.svg", &["--label", "(a) worm", "--style", "paper"]);
    assert!(named.contains(">worm</text>"), "the run's name is shown without --label");
    for frame in [&labelled, &large, &paper] {
        assert!(frame.contains(">(a) worm</text>"));
        assert!(!frame.contains(">worm</text>"), "the label replaces the run's name");
        assert!(frame.contains(">t = 0.50 s</text>"), "the time line stays");
    }
    let ratio = overlay_box_height(&large) / overlay_box_height(&labelled);
    assert!((1.9..=2.1).contains(&ratio), "overlay box {ratio}× as tall at --font-scale 2");
    assert!(large.contains(r#"font-size="24""#) && labelled.contains(r#"font-size="12""#));
}

/// Every bad combination a Python caller can make but clap already stops on the command line is
/// refused by the job itself, with a message naming the options.
#[test]
fn the_job_refuses_combinations_without_the_command_line() {
    use vsr2d::render_job::{OutputFile, Outputs, RenderJob, RenderSettings, RunInput, RunKind, Sources};
    let dir = scratch_dir();
    let file = |name: &str, flag: &str| Some(OutputFile::new(dir.path().join(name), flag));
    let job = |settings: RenderSettings, outputs: Outputs| RenderJob {
        sources: Sources::Runs(vec![RunInput {
            given_as: "scenarios[0]".into(),
            kind: RunKind::Scenario { name: "worm".into(), scenario: Box::new(scenario("worm", 1.0)), file: None },
        }]),
        settings,
        outputs,
        limits: vsr2d::limits::Limits::DEFAULT,
    };
    let refused = |job: RenderJob| match job.preflight() {
        Ok(_) => panic!("preflight accepted a bad job"),
        Err(e) => {
            assert!(e.is_input(), "{e}");
            e.to_string()
        }
    };
    let strip = Outputs { filmstrip: file("s.png", "filmstrip"), ..Outputs::default() };
    let cases: Vec<(RenderJob, &str)> = vec![
        (job(RenderSettings::default(), Outputs::default()), "nothing to write"),
        (
            job(RenderSettings { at: Some(1.0), ..RenderSettings::default() }, strip.clone()),
            "--at is the time of the still",
        ),
        (
            job(
                RenderSettings { times: vec![0.5], ..RenderSettings::default() },
                Outputs { still: file("x.png", "out"), ..Outputs::default() },
            ),
            "--times are the times of the filmstrip",
        ),
        (
            job(RenderSettings::default(), Outputs { video: file("x.gif", "out"), ..strip.clone() }),
            "a filmstrip is written by a command of its own",
        ),
        (
            job(
                RenderSettings { size: (0, 10), ..RenderSettings::default() },
                Outputs { still: file("x.png", "out"), ..Outputs::default() },
            ),
            "--size 0x10 is invalid",
        ),
    ];
    for (job, needle) in cases {
        let message = refused(job);
        assert!(message.contains(needle), "{message}");
    }
    assert!(entries(dir.path()).is_empty());
}

/// A task that measures height (jumping) gets a height ruler up its cell's left edge, labelled in metres
/// above the ground; a walk on flat ground does not, and `--no-ticks` takes the ruler away too.
#[test]
fn a_jumping_frame_has_a_height_ruler_and_a_walk_does_not() {
    let dir = scratch_dir();
    let left_edge_heights = |scenario: &str, extra: &[&str]| -> Vec<String> {
        let svg = dir.path().join(format!("{scenario}.svg"));
        let mut args = vec!["render", "", "--png", svg.to_str().unwrap(), "--at", "3.2", "--size", "640x360", "-q"];
        let path = fixture(scenario);
        args[1] = path.to_str().unwrap();
        args.extend_from_slice(extra);
        let out = vsr2d(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&svg).unwrap();
        // Labels of the ruler: "N m" texts whose first glyph sits within 20 px of the left edge.
        text.split("<text x=\"")
            .skip(1)
            .filter_map(|t| {
                let x: f64 = t.split([' ', '"']).next()?.parse().ok()?;
                let label = t.split('>').nth(1)?.split('<').next()?;
                (x < 20.0 && label.ends_with(" m")).then(|| label.to_string())
            })
            .collect()
    };
    let jump = left_edge_heights("jumping", &[]);
    assert!(jump.len() >= 3 && jump.contains(&"2 m".to_string()), "jumping ruler labels: {jump:?}");
    assert!(left_edge_heights("biped", &[]).is_empty(), "a walk has no height ruler");
    assert!(left_edge_heights("jumping", &["--no-ticks"]).is_empty(), "--no-ticks hides the ruler");
}
