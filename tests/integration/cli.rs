//! The command line: bad input is refused with exit code 2 and a message naming the problem,
//! never a panic; good input works end to end.

use std::process::{Command, Output};

fn vsr2d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().unwrap()
}

/// Writes `json` to a temp file and runs `simulate` on it.
fn simulate_json(json: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.json");
    std::fs::write(&path, json).unwrap();
    let mut args = vec!["simulate", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    vsr2d(&args)
}

fn assert_refused(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected exit code 2, stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "must not panic: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr must mention {n:?}: {stderr}");
    }
}

const WORM: &str = "{\"world\": {\"duration\": 1}, \"robots\": [{\"body\": [\"####\"]}]}";

/// Scenario JSON from a compact form where `'` stands for `"` (keeps the cases readable).
fn json(compact: &str) -> String {
    compact.replace('\'', "\"")
}

#[test]
fn malformed_scenarios_exit_2_with_a_reason() {
    let case = |compact: &str, needles: &[&str]| assert_refused(&simulate_json(&json(compact), &[]), needles);
    case("{ not json", &["not valid JSON"]);
    case("{'robots': [{'body': ['#'], 'colour': 1}]}", &["robots[0]", "colour"]);
    case("{'robots': [{'body': ['...']}]}", &["no voxel"]);
    case("{'robots': [{'body': ['#.', '.#']}]}", &["not connected"]);
    case("{'robots': [{'materials': {'#': {'spring_hz': -3}}, 'body': ['#']}]}", &["spring_hz", "-3"]);
    case("{'robots': [{'materials': {'#': {'mass': NaN}}, 'body': ['#']}]}", &["robots[0].materials"]);
    case("{'world': {'dt': -1}, 'robots': [{'body': ['#']}]}", &["world.dt"]);
    case("{'robots': [{'body': ['#x']}]}", &["'x'", "not a material"]);
    case("{'robots': []}", &["no robot"]);
    case(
        "{'robots': [{'body': ['##'], 'controller': {'type': 'mlp', \
         'sensors': {'default': [{'sensor': 'area_ratio'}]}, 'hidden': [], 'weights': [1, 2]}}]}",
        &["expected 6 weights"],
    );
    assert_refused(&vsr2d(&["simulate", "/nonexistent/scenario.json"]), &["cannot read scenario"]);
}

#[test]
fn simulate_prints_metrics_and_records_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("run.jsonl");
    let out = simulate_json(WORM, &["--record", record.to_str().unwrap(), "--every", "6"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metrics: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(metrics["robots"][0]["steps"], 60);
    // Steps 0, 6, …, 60: 11 snapshots.
    let lines: Vec<String> = std::fs::read_to_string(&record).unwrap().lines().map(String::from).collect();
    assert_eq!(lines.len(), 11);
    let last: vsr2d::snapshot::Snapshot = serde_json::from_str(&lines[10]).unwrap();
    assert_eq!(last.step, 60);
    assert_eq!(last.voxel_robots().next().unwrap().voxels.len(), 4);
}

#[test]
fn an_unwritable_recording_fails_before_simulating() {
    let out = simulate_json(WORM, &["--record", "/nonexistent-dir/run.jsonl"]);
    assert_eq!(out.status.code(), Some(2), "an output that cannot be written is bad input");
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-dir/run.jsonl"));
    assert!(out.stdout.is_empty(), "no metrics: nothing was simulated");
}

#[test]
fn schema_describes_scenarios() {
    let out = vsr2d(&["schema"]);
    assert!(out.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["properties"]["robots"].is_object(), "{schema}");
    assert!(schema.to_string().contains("spring_hz"));
}

#[test]
fn every_fixture_scenario_parses_and_builds() {
    let dir = std::path::Path::new(crate::ROOT).join("fixtures/scenarios");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let scenario =
            vsr2d::scenario::Scenario::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        scenario.build().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        count += 1;
    }
    assert!(count >= 6, "expected the six fixture scenarios, found {count}");
}

#[test]
fn an_exploding_simulation_stops_with_the_step_and_time() {
    use vsr2d::controller::FnController;
    use vsr2d::model::voxel::grid::BodyGrid;
    use vsr2d::model::voxel::material::{ActuationMode, Material};
    use vsr2d::sim::world::{SimError, World, WorldSettings};
    let material = Material { actuation: ActuationMode::Force, max_force: 1e9, ..Material::default() };
    let mut world = World::new(WorldSettings::default());
    let body = BodyGrid::filled(2, 1, material).unwrap();
    let controller = FnController(|t: f64, _r: &[_], out: &mut [f64]| {
        out.iter_mut()
            .enumerate()
            .for_each(|(i, o)| *o = if (i as f64 + t * 30.0) as u64 % 2 == 0 { 1.0 } else { -1.0 })
    });
    world.add_robot("bomb", &body, vsr2d::geom::Vec2::ZERO, Default::default(), Some(Box::new(controller)));
    match world.run(600, &mut []) {
        Err(e @ SimError::Unstable { .. }) => {
            let text = e.to_string();
            assert!(text.contains("step") && text.contains("t = "), "{text}");
        }
        other => panic!("a 1e9 N push must blow the simulation up, got {other:?}"),
    }
}

/// `vsr2d compare`: exit 0 within the budget, 1 beyond it (with a diff image), 2 for unreadable input.
#[test]
fn compare_exits_by_verdict_and_writes_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, diff) = (dir.path().join("a.png"), dir.path().join("b.png"), dir.path().join("diff.png"));
    let img = image::RgbaImage::from_pixel(10, 10, image::Rgba([40, 80, 120, 255]));
    img.save(&a).unwrap();
    let mut changed = img.clone();
    changed.put_pixel(2, 3, image::Rgba([40, 90, 120, 255]));
    changed.save(&b).unwrap();
    let [a, b, d] = [&a, &b, &diff].map(|p| p.to_str().unwrap().to_string());

    let same = vsr2d(&["compare", &a, &a]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).starts_with("match: 0 pixels differ"));
    let differ = vsr2d(&["compare", &a, &b, "--diff", &d]);
    assert_eq!(differ.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&differ.stdout).contains("DIFFER: 1 pixels differ"));
    let diff_img = image::open(&diff).unwrap().to_rgba8();
    assert_eq!(diff_img.get_pixel(2, 3).0, [255, 0, 0, 255]);
    assert_eq!(diff_img.get_pixel(0, 0).0, [0, 0, 0, 255]);
    assert_eq!(vsr2d(&["compare", &a, &b, "--budget", "1%"]).status.code(), Some(0), "1 % of 100 pixels is 1");
    assert_eq!(vsr2d(&["compare", &a, &b, "--tolerance", "10"]).status.code(), Some(0));
    assert_eq!(vsr2d(&["compare", &a, "missing.png"]).status.code(), Some(2));

    // --composite: nothing for a match; for a difference, the picture `vsr2d check` writes for a case.
    let composite = dir.path().join("compare.png");
    let c = composite.to_str().unwrap();
    assert_eq!(vsr2d(&["compare", &a, &a, "--composite", c]).status.code(), Some(0));
    assert!(!composite.exists(), "a match writes no composite");
    let differ = vsr2d(&["compare", &a, &b, "--composite", c]);
    assert_eq!(differ.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&differ.stderr).contains("composite in"), "{differ:?}");
    let written = image::open(&composite).unwrap().to_rgba8();
    let comparison = vsr2d::render::compare::compare(&img, &changed, 2);
    let expected = vsr2d::render::compare::composite(&img, &changed, &comparison, &[comparison.summary(0)]);
    assert!(written.width() > 3 * 10 && written == expected, "three panels, the check's composite");
}

/// `--allow-large` lifts simulation and render limits; `compare` and `schema` run neither, so their
/// help does not list it and giving it to them is refused.
#[test]
fn allow_large_is_not_offered_where_it_means_nothing() {
    for command in ["compare", "schema"] {
        let help = String::from_utf8_lossy(&vsr2d(&[command, "--help"]).stdout).to_string();
        assert!(!help.contains("allow-large"), "{command} --help: {help}");
    }
    assert!(String::from_utf8_lossy(&vsr2d(&["simulate", "--help"]).stdout).contains("--allow-large"));
    let schema = vsr2d(&["schema", "--allow-large"]);
    assert_eq!(schema.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&schema.stderr).contains("leave it out"), "{schema:?}");
    let compare = vsr2d(&["compare", "a.png", "b.png", "--allow-large"]);
    assert_eq!(compare.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&compare.stderr).contains("compare runs neither"), "{compare:?}");
}

#[test]
fn bench_throughput_gives_a_row_per_thread_count() {
    let out = vsr2d(&[
        "bench",
        "--json",
        "--throughput",
        "--widths",
        "3",
        "--no-sweep",
        "--repeats",
        "1",
        "--duration",
        "0.1",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "bench --throughput failed: {stderr}");
    assert!(stderr.contains("eval throughput") && stderr.contains("speed-up"), "the table goes to stderr: {stderr}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["svsps"].as_array().unwrap().len(), 1);
    let rows = json["throughput"].as_array().unwrap();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads: Vec<u64> = rows.iter().map(|r| r["threads"].as_u64().unwrap()).collect();
    let expected: Vec<u64> =
        vsr2d_report::bench::throughput::default_thread_counts(cpus).into_iter().map(|t| t as u64).collect();
    assert_eq!(threads, expected);
    for r in rows {
        assert_eq!(r["jobs"].as_u64(), Some(4 * cpus as u64));
        assert_eq!(r["voxels"].as_u64(), Some(36));
        for key in ["seconds", "sims_per_second", "svsps", "speedup", "efficiency"] {
            assert!(r[key].as_f64().is_some_and(f64::is_finite), "{key} in {r}");
        }
    }
}

#[test]
fn a_render_of_many_bodies_over_the_cost_limit_is_refused_before_any_work() {
    // 300 one-voxel robots side by side (no terrain: 2 km of ground holds about 220), 20 s at 30 fps and 3840×2160: 601 × 8.3·10⁶ pixels × 300 bodies = 1.5·10¹²
    // pixels × frames × bodies, over the limit of 10¹² (the pixels × frames alone, 5·10⁹, are fine).
    let dir = tempfile::tempdir().unwrap();
    let robots: Vec<String> = (0..300).map(|i| format!("{{\"label\": \"r{i}\", \"body\": [\"#\"]}}")).collect();
    let path = dir.path().join("crowd.json");
    std::fs::write(
        &path,
        format!(
            "{{\"world\": {{\"terrain\": {{\"type\": \"none\"}}, \"duration\": 20}}, \"robots\": [{}]}}",
            robots.join(",")
        ),
    )
    .unwrap();
    let out_mp4 = dir.path().join("crowd.mp4");
    let args = ["render", path.to_str().unwrap(), "--size", "3840x2160", "-o", out_mp4.to_str().unwrap()];
    let out = vsr2d(&args);
    assert_refused(&out, &["300 bodies", "pixels × frames × bodies", "--allow-large"]);
    assert!(!out_mp4.exists(), "nothing was written");
    // 100 of them are within the limit: the check passes (a single still is drawn).
    let png = dir.path().join("still.png");
    let few: Vec<String> = robots[..100].to_vec();
    std::fs::write(&path, format!("{{\"world\": {{\"duration\": 1}}, \"robots\": [{}]}}", few.join(","))).unwrap();
    let out = vsr2d(&["render", path.to_str().unwrap(), "--size", "640x360", "--png", png.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// No output may replace an input or another output, however it is spelled (relative parts, a link):
/// each command refuses before writing anything, and the input keeps its bytes.
#[test]
fn an_output_that_names_an_input_or_another_output_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("worm.json");
    std::fs::write(&scenario, WORM).unwrap();
    let s = scenario.to_str().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let roundabout = format!("{}/../worm.json", sub.display());
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&scenario, &link).unwrap();
    let l = link.to_str().unwrap();
    let recording = dir.path().join("rec.jsonl");
    let out = vsr2d(&["simulate", s, "--record", recording.to_str().unwrap()]);
    assert!(out.status.success());
    let r = recording.to_str().unwrap();
    let recorded = std::fs::read(&recording).unwrap();
    let same = dir.path().join("same.mp4");
    let m = same.to_str().unwrap();
    for (args, needles) in [
        (vec!["view", s, "-o", s], vec!["-o", "INPUT", "replace that input"]),
        (vec!["view", r, "-o", r], vec!["-o", "INPUT"]),
        (vec!["view", s, "-o", l], vec!["resolved"]),
        (vec!["render", s, "--html", &roundabout], vec!["--html", "SCENARIO"]),
        (vec!["render", "--from", r, "--png", r], vec!["--png", "--from"]),
        (vec!["render", s, "-o", m, "--html", m], vec!["-o", "--html", "both name"]),
        (vec!["simulate", s, "--record", l], vec!["--record", "SCENARIO"]),
        (vec!["eval", r, "-o", r], vec!["-o", "INPUT"]),
        (vec!["compare", s, s, "--diff", s], vec!["--diff", "EXPECTED"]),
    ] {
        let out = vsr2d(&args);
        assert_refused(&out, &needles);
        assert_eq!(std::fs::read_to_string(&scenario).unwrap(), WORM, "{args:?} changed the scenario");
        assert_eq!(std::fs::read(&recording).unwrap(), recorded, "{args:?} changed the recording");
        assert!(!same.exists(), "{args:?}");
    }
    // A page is HTML: `view -o x.mp4` would be a page named like a video.
    let out = vsr2d(&["view", s, "-o", m]);
    assert_refused(&out, &[".html", "vsr2d render"]);
    // /dev/null may take several outputs.
    let out = vsr2d(&["render", s, "--duration", "0.1", "--png", "/dev/null", "--html", "/dev/null", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// On a terminal `simulate` shows its progress in steps, and its metrics are the same bits as in a
/// pipe (where no progress listener runs).
#[test]
fn simulate_shows_progress_on_a_terminal_and_gives_the_same_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("worm.json");
    std::fs::write(&scenario, WORM.replace("\"duration\": 1", "\"duration\": 30")).unwrap();
    let piped = vsr2d(&["simulate", scenario.to_str().unwrap()]);
    assert!(piped.status.success());
    // `script` runs the command on a pseudo-terminal (stdout and stderr both on it).
    let command = format!("{} simulate {}", env!("CARGO_BIN_EXE_vsr2d"), scenario.display());
    let Ok(out) = Command::new("script").args(["-qec", &command, "/dev/null"]).output() else {
        panic!("`script` (Debian's essential bsdutils) is needed");
    };
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(text.contains("/1800 steps"), "no progress drawn: {text}");
    let metrics = &text[text.find("{\n").expect("the metrics")..];
    let metrics: serde_json::Value = serde_json::from_str(metrics.trim_end()).unwrap();
    let expected: serde_json::Value = serde_json::from_slice(&piped.stdout).unwrap();
    assert_eq!(metrics, expected);
}

/// A value of the wrong JSON type is named in JSON's words, not Rust's (`expected f64`).
#[test]
fn a_wrong_type_is_named_in_jsons_words() {
    let out = simulate_json(r##"{"world": {"duration": "1"}, "robots": [{"body": ["#"]}]}"##, &[]);
    assert_refused(&out, &["`world.duration`", r##"string "1", expected a number"##]);
    let out = simulate_json(r##"{"world": {"solver_iterations": 2.5}, "robots": [{"body": ["#"]}]}"##, &[]);
    assert_refused(&out, &["`world.solver_iterations`", "expected a whole number ≥ 0"]);
    let out = simulate_json(r##"{"robots": {"body": ["#"]}}"##, &[]);
    assert_refused(&out, &["`robots`", "expected a list"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("f64") && !stderr.contains("sequence"), "{stderr}");
}
