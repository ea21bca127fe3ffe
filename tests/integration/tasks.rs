//! The tasks (issue 33): one result through every front door, and each task's physical facts against
//! expectations that do not come from the task's own code (the placement rule, rigid-body statics,
//! symmetry).

use std::path::Path;
use std::process::Command;

use vsr2d::geom::Vec2;
use vsr2d::scenario::Scenario;
use vsr2d::snapshot::{BodyId, Snapshot, SnapshotRecorder};
use vsr2d::task::{RunResult, TaskMetrics};

const TASK_FIXTURES: [&str; 6] = ["jumping", "carrying", "pushing", "climbing", "balancing", "shape"];

fn fixture_path(name: &str) -> std::path::PathBuf {
    Path::new(crate::ROOT).join(format!("fixtures/scenarios/{name}.json"))
}

fn scenario(text: &str) -> Scenario {
    Scenario::from_json(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn run(text: &str) -> RunResult {
    vsr2d::batch::evaluate(&scenario(text)).unwrap()
}

fn vsr2d(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().unwrap()
}

/// A short version of a fixture, as JSON text.
fn shortened(name: &str, duration: f64) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixture_path(name)).unwrap()).unwrap();
    v["world"]["duration"] = duration.into();
    v.to_string()
}

/// Every fixture under fixtures/scenarios (voxel robots, tasks and soft cells), by name.
fn all_fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(Path::new(crate::ROOT).join("fixtures/scenarios"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
        .collect();
    names.sort();
    names
}

#[test]
fn every_front_door_gives_the_same_result_for_every_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = String::new();
    let mut expected = Vec::new();
    let names = all_fixtures();
    assert!(names.len() >= 20 && TASK_FIXTURES.iter().all(|t| names.iter().any(|n| n == t)), "{names:?}");
    for (i, name) in names.iter().enumerate() {
        // One second of each (the force–deflection sweep has its own timing and runs whole).
        let text = shortened(name, 1.0);
        let path = dir.path().join(format!("{name}.json"));
        std::fs::write(&path, &text).unwrap();
        // The library (what Python's `evaluate` wraps; python/tests compares it with `simulate` too).
        let evaluated = run(&text);
        let sweep = matches!(evaluated.task, Some(TaskMetrics::ForceDeflection(_)));
        if !sweep {
            let with_snapshots = scenario(&text).build().unwrap().run(&mut []).unwrap();
            assert_eq!(evaluated, with_snapshots, "{name}: the snapshot path and the snapshot-free path differ");
        }
        if TASK_FIXTURES.contains(&name.as_str()) {
            assert!(evaluated.task.is_some(), "{name}: the result has the task's own metrics");
        }
        // `vsr2d simulate` prints the same JSON.
        let out = vsr2d(&["simulate", path.to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(printed, serde_json::to_value(&evaluated).unwrap(), "{name}: simulate");
        // `vsr2d render` prints it for its run, with the run's name; a sweep is not one run to render.
        let png = dir.path().join(format!("{name}.png"));
        let out = vsr2d(&["render", path.to_str().unwrap(), "--png", png.to_str().unwrap(), "--size", "160x90", "-q"]);
        if sweep {
            assert_eq!(out.status.code(), Some(2), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            assert!(String::from_utf8_lossy(&out.stderr).contains("not rendered"));
        } else {
            assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
            let mut rendered: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let mut run0 = rendered["runs"][0].take();
            run0.as_object_mut().unwrap().remove("name");
            assert_eq!(run0, printed, "{name}: render");
        }
        jobs.push_str(&format!("{{\"id\": {i}, \"scenario\": {text}}}\n"));
        expected.push(printed);
    }
    // `vsr2d eval` records carry it as their metrics.
    let input = dir.path().join("jobs.jsonl");
    let output = dir.path().join("out.jsonl");
    std::fs::write(&input, jobs).unwrap();
    let out = vsr2d(&["eval", "--input", input.to_str().unwrap(), "--output", output.to_str().unwrap(), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut records: Vec<serde_json::Value> =
        std::fs::read_to_string(&output).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    records.sort_by_key(|r| r["id"].as_u64());
    assert_eq!(records.len(), expected.len());
    for (record, printed) in records.iter().zip(&expected) {
        assert_eq!(&record["metrics"], printed, "eval of {}", names[record["id"].as_u64().unwrap() as usize]);
    }
}

#[test]
fn a_passive_robot_never_rises_above_its_drop_height() {
    // Placement rule: the lowest point starts `gap` above the flat ground (y = 0). Without actuation
    // nothing can lift it higher than where it was released.
    let r = run(r#####"{"world": {"duration": 5}, "robots": [{"body": ["###", "#.#"]}],
                     "task": {"type": "jumping", "gap": 0.5}}"#####);
    let Some(TaskMetrics::Jumping(j)) = r.task else { panic!("{r:?}") };
    // The engine keeps positions in f32: 1e-6 m of rounding on a 0.5 m height.
    assert!((j.max_height - 0.5).abs() < 1e-5, "starts at the gap and never exceeds it: {}", j.max_height);
    assert!(j.max_centre_rise < 1e-5, "{}", j.max_centre_rise);
    // It falls and stays down: most steps end in contact.
    assert!(j.airtime < 0.1, "{}", j.airtime);
}

#[test]
fn a_box_resting_on_a_passive_robot_stays_and_one_nothing_touches_does_not_move() {
    let r = run(
        r#####"{"world": {"duration": 8}, "robots": [{"body": ["####", "#..#"]}], "task": {"type": "carrying"}}"#####,
    );
    let Some(TaskMetrics::Carrying(c)) = r.task else { panic!("{r:?}") };
    assert_eq!(c.dropped_at, None, "the box never reaches the ground");
    assert!(c.box_distance.abs() < 0.05 && c.carried_distance == c.box_distance, "{c:?}");
    // A box 3 m in front of a passive robot: static friction holds it exactly where it was put.
    let r = run(
        r#####"{"world": {"duration": 8}, "robots": [{"body": ["##"]}], "task": {"type": "pushing", "gap": 3}}"#####,
    );
    let Some(TaskMetrics::Pushing(p)) = r.task else { panic!("{r:?}") };
    assert!(p.box_distance.abs() < 1e-6, "{p:?}");
}

#[test]
fn a_passive_robot_does_not_climb_and_a_centred_symmetric_one_keeps_the_board_level() {
    let r = run(
        r#####"{"world": {"duration": 8}, "robots": [{"body": ["##", "##", "##"]}], "task": {"type": "climbing"}}"#####,
    );
    let Some(TaskMetrics::Climbing(c)) = r.task else { panic!("{r:?}") };
    // Placed a millimetre above the ground, it settles under gravity.
    assert!(c.climb_height <= 0.0 && c.max_height <= 0.001 + 1e-5, "{c:?}");
    // Left-right symmetric body centred on the hinge: no net torque, the level board is a stable balance.
    let r = run(
        r#####"{"world": {"duration": 15}, "robots": [{"body": ["###", "###"]}], "task": {"type": "balancing"}}"#####,
    );
    let Some(TaskMetrics::Balancing(b)) = r.task else { panic!("{r:?}") };
    assert!(b.max_abs_angle < 0.01, "{b:?}");
    assert_eq!(b.fell_at, None);
    assert_eq!(b.time_on_platform, 15.0);
}

#[test]
fn a_passive_robot_keeps_its_shape_and_the_rest_shape_is_the_body_grid() {
    let r =
        run(r#####"{"world": {"duration": 3}, "robots": [{"body": ["#..", "###"]}], "task": {"type": "shape"}}"#####);
    let Some(TaskMetrics::Shape(s)) = r.task else { panic!("{r:?}") };
    // An L of 4 voxels of side 3 standing on its long side: bounding box 9 × 6 m at rest; its hull adds
    // the triangle between the top voxel's right side and the bottom row's right end (½·6·3 m²).
    let rest_area = 4.0 * 9.0 + 0.5 * 6.0 * 3.0;
    assert!((s.max_width / s.max_width_ratio - 9.0).abs() < 1e-4, "{s:?}");
    assert!((s.max_height / s.max_height_ratio - 6.0).abs() < 1e-4, "{s:?}");
    assert!((s.max_area / s.max_area_ratio - rest_area).abs() < 1e-3, "{s:?}");
    // Dropped from 1 m (the default placement) it squashes on impact and springs back: passive, no axis
    // grows by more than 2 % (measured: 0.8 % and 1.1 %).
    assert!(s.max_width_ratio < 1.02 && s.max_height_ratio < 1.02 && s.max_area_ratio < 1.02, "{s:?}");
}

#[test]
fn a_dropped_box_comes_to_rest_on_the_ground_at_half_its_height() {
    let r = vsr2d::batch::evaluate(&scenario(
        r#####"{"world": {"duration": 3}, "robots": [{"body": ["#"]}],
              "objects": [{"label": "crate", "size": [2, 1.5], "position": [30, 5]}]}"#####,
    ))
    .unwrap();
    assert_eq!(r.robots.len(), 1, "objects are not robots");
    let s = scenario(
        r#####"{"world": {"duration": 3}, "robots": [{"body": ["#"]}],
              "objects": [{"label": "crate", "size": [2, 1.5], "position": [30, 5]}]}"#####,
    )
    .build()
    .unwrap();
    let steps = s.steps();
    let mut world = s.into_world();
    world.run(steps, &mut []).unwrap();
    let snap = world.snapshot();
    let crate_ = snap.objects().next().expect("the object is in the snapshot");
    assert_eq!(crate_.label, "crate");
    assert!((crate_.center.y - 0.75).abs() < 0.01 && (crate_.center.x - 30.0).abs() < 1e-3, "{:?}", crate_.center);
    assert!(crate_.touching_ground);
    // It round-trips through a recording line.
    let line = serde_json::to_string(&snap).unwrap();
    assert_eq!(serde_json::from_str::<vsr2d::snapshot::Snapshot>(&line).unwrap(), snap);
}

/// Where a small box that lands tilted and sliding comes to rest, and its angle.
fn tilted_landing(mass: f64) -> (f64, f64, f64) {
    let text = format!(
        r#####"{{"world": {{"duration": 2}}, "robots": [{{"body": ["#"]}}],
              "objects": [{{"size": [0.01, 0.02], "position": [40, 1], "angle": 0.3, "velocity": [1, 0],
                           "mass": {mass:e}}}]}}"#####
    );
    let s = scenario(&text).build().unwrap();
    let steps = s.steps();
    let mut world = s.into_world();
    world.run(steps, &mut []).unwrap();
    let snap = world.snapshot();
    let b = snap.objects().next().unwrap();
    (b.center.x, b.center.y, b.angle)
}

/// Mass drops out of a lone rigid body's motion under gravity and contact (Galileo): the lightest box
/// vsr2d accepts lands, slides and tips over like a 1 kg one. Lighter ones, which the engine's single
/// precision cannot invert, fell through the ground before they were refused (issue 52).
#[test]
fn the_lightest_accepted_box_moves_like_a_heavy_one_and_lighter_ones_are_refused() {
    let lightest = vsr2d::model::object::MIN_OBJECT_INERTIA / vsr2d::model::object::box_inertia(1.0, [0.01, 0.02]);
    let (x1, y1, a1) = tilted_landing(1.0);
    let (x2, y2, a2) = tilted_landing(lightest * 1.001);
    // On its long side: centre half the short side up, a quarter turn.
    for (y, a) in [(y1, a1), (y2, a2)] {
        assert!((y - 0.005).abs() < 5e-4 && (a.abs() - std::f64::consts::FRAC_PI_2).abs() < 0.01, "{y} {a}");
    }
    assert!((x1 - x2).abs() < 0.02, "slid to {x1} (1 kg) and {x2} ({lightest} kg)");
    for (text, path) in [
        (
            r#####"{"robots": [{"body": ["#"]}], "objects": [{"size": [0.01, 0.02], "position": [40, 1], "mass": 1e-29}]}"#####,
            "objects[0].mass",
        ),
        (
            r#####"{"robots": [{"body": ["#"]}], "objects": [{"size": [1, 1], "position": [40, 1], "mass": 1e-45}]}"#####,
            "objects[0].mass",
        ),
        (r#####"{"robots": [{"body": ["#"]}], "task": {"type": "carrying", "box_mass": 1e-40}}"#####, "task.box_mass"),
        (
            r#####"{"robots": [{"body": ["#"]}], "task": {"type": "pushing", "box_mass": 1e-30, "box_size": [0.1, 0.1]}}"#####,
            "task.box_mass",
        ),
        (
            r#####"{"robots": [{"body": ["#"]}], "task": {"type": "balancing", "platform_mass": 1e-31}}"#####,
            "task.platform_mass",
        ),
    ] {
        let e = Scenario::from_json(text).and_then(|s| s.build().map(|_| ())).err().unwrap_or_else(|| panic!("{text}"));
        assert_eq!(e.path(), path, "{e}");
        assert!(e.to_string().contains("single"), "{e}");
    }
}

#[test]
fn bad_task_specs_are_refused_with_their_path() {
    let cases = [
        (
            r#####"{"robots": [{"body": ["#"]}], "task": {"type": "carrying", "box_size": [-1, 1]}}"#####,
            "task.box_size[0]",
        ),
        (r#####"{"robots": [{"body": ["##"]}], "task": {"type": "climbing", "width": 2}}"#####, "task.width"),
        (r#####"{"robots": [{"body": ["#"]}], "task": {"type": "jumping", "gap": -1}}"#####, "task.gap"),
        (
            r#####"{"world": {"terrain": {"type": "uneven"}}, "robots": [{"body": ["#"]}], "task": {"type": "jumping"}}"#####,
            "world.terrain",
        ),
        (r#####"{"cells": [], "robots": [], "task": {"type": "shape"}}"#####, "robots"),
        (
            r#####"{"robots": [{"body": ["#"], "position": [20, 0]}], "objects": [{"size": [2, 2], "position": [21, 1]}]}"#####,
            "objects[0].position",
        ),
        (
            r#####"{"robots": [{"body": ["#"]}], "objects": [{"size": [0, 2], "position": [21, 1]}]}"#####,
            "objects[0].size[0]",
        ),
        (
            r#####"{"robots": [{"body": ["#"]}], "task": {"type": "balancing", "pivot_height": 0.5}}"#####,
            "task.pivot_height",
        ),
    ];
    for (text, path) in cases {
        let e = Scenario::from_json(text)
            .and_then(|s| s.build().map(|_| ()))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"));
        assert_eq!(e.path(), path, "{e}");
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn a_recorded_run_replays_its_objects_and_the_result_schema_names_every_task() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("carrying.json");
    std::fs::write(&scenario, shortened("carrying", 1.0)).unwrap();
    let record = dir.path().join("run.jsonl");
    let out = vsr2d(&["simulate", scenario.to_str().unwrap(), "--record", record.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&record).unwrap().lines().next().unwrap()).unwrap();
    let kinds: Vec<&str> = first["bodies"].as_array().unwrap().iter().map(|b| b["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["voxel_robot", "object"], "the box is a body of the recording");
    let png = dir.path().join("replay.png");
    let out =
        vsr2d(&["render", "--from", record.to_str().unwrap(), "--png", png.to_str().unwrap(), "--size", "640x360"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // One grid cell: the box is drawn in the robot's cell, it has none of its own; it is steel blue.
    let img = image::open(&png).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (640, 360));
    assert!(img.pixels().any(|p| p.0 == [70, 130, 180]), "the box's fill colour is in the frame");
    let out = vsr2d(&["schema", "--result"]);
    let schema = String::from_utf8(out.stdout).unwrap();
    for name in TASK_FIXTURES {
        assert!(schema.contains(&format!("\"{name}\"")), "{name} missing from the result schema");
    }
    assert!(schema.contains("carried_distance") && schema.contains("airtime"));
}

#[test]
fn evolving_for_a_task_metric_improves_it_and_the_best_replays_to_its_logged_fitness() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(Path::new(crate::ROOT).join("fixtures/experiments/carrying-quick.json")).unwrap();
    let mut experiment: serde_json::Value = serde_json::from_str(&text).unwrap();
    experiment["ea"] = serde_json::json!({"n_pop": 6, "n_gen": 2, "tournament": 3});
    experiment["scenario"]["world"]["duration"] = 3.into();
    let path = dir.path().join("exp.json");
    std::fs::write(&path, experiment.to_string()).unwrap();
    let run_dir = dir.path().join("run");
    let out = vsr2d(&["evolve", path.to_str().unwrap(), "-o", run_dir.to_str().unwrap(), "--jobs", "2", "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log: Vec<serde_json::Value> = std::fs::read_to_string(run_dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let (first, last) = (log[0]["best"].as_f64().unwrap(), log.last().unwrap()["best"].as_f64().unwrap());
    assert!(last >= first, "elitism keeps the best: {first} → {last}");
    let out = vsr2d(&["simulate", run_dir.join("best.json").to_str().unwrap()]);
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["carrying"]["carried_distance"].as_f64(), Some(last), "best.json replays to its fitness");
    // A metric the task does not have is refused when the experiment is read, with the names it has.
    experiment["fitness"]["metric"] = "max_height".into();
    std::fs::write(&path, experiment.to_string()).unwrap();
    let out = vsr2d(&["evolve", path.to_str().unwrap(), "-o", dir.path().join("bad").to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("fitness.metric") && e.contains("carried_distance"), "{e}");
}

#[test]
fn the_viewer_page_carries_the_moving_objects_and_draws_fixed_ones_as_terrain() {
    let dir = tempfile::tempdir().unwrap();
    for (name, moving) in [("carrying", r#""objects":[{"label":"box","#), ("climbing", r#""objects":[]"#)] {
        let scenario = dir.path().join(format!("{name}.json"));
        std::fs::write(&scenario, shortened(name, 1.0)).unwrap();
        let page = dir.path().join(format!("{name}.html"));
        let out = vsr2d(&["view", scenario.to_str().unwrap(), "-o", page.to_str().unwrap(), "-q"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let html = std::fs::read_to_string(&page).unwrap();
        assert!(html.contains(moving), "{name}: {moving} not in the page");
    }
    // The climbing walls are fixed: two static outlines beside the terrain's.
    let html = std::fs::read_to_string(dir.path().join("climbing.html")).unwrap();
    let statics = html.split(r#""statics":["#).nth(1).unwrap().split(']').next().unwrap();
    assert_eq!(statics.split(',').count(), 2, "{statics}");
}

/// `locomotion`'s `transient`: the metrics of a run measured from t0 are those of the same trajectory
/// between t0 and T (the run to t0 is a prefix of the run to T), and a transient that leaves nothing
/// to measure is refused with its path.
#[test]
fn locomotion_transient_measures_from_t0() {
    let with = |duration: f64, transient: Option<f64>| {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture_path("biped")).unwrap()).unwrap();
        v["world"]["duration"] = duration.into();
        if let Some(t0) = transient {
            v["task"] = serde_json::json!({"type": "locomotion", "transient": t0});
        }
        v.to_string()
    };
    let whole = run(&with(4.0, None)).robots[0].clone();
    let prefix = run(&with(1.5, None)).robots[0].clone();
    let measured = run(&with(4.0, Some(1.5))).robots[0].clone();
    let dx = whole.x_distance - prefix.x_distance;
    assert!((measured.x_distance - dx).abs() < 1e-9, "{} vs {dx}", measured.x_distance);
    assert!((measured.duration - 2.5).abs() < 1e-9 && measured.steps == whole.steps - prefix.steps);
    assert!((measured.x_velocity - dx / 2.5).abs() < 1e-9);
    let per_length = |m: &vsr2d::task::locomotion::LocomotionMetrics| m.relative_x_velocity / m.x_velocity;
    assert!((per_length(&measured) / per_length(&whole) - 1.0).abs() < 1e-12, "the body length at placement");
    // The transient is part of the scenario (what best.json of an experiment carries); 0 is left out.
    let parsed = scenario(&with(4.0, Some(1.5)));
    assert!(serde_json::to_string(&parsed).unwrap().contains(r#""task":{"type":"locomotion","transient":1.5}"#));
    assert!(serde_json::to_string(&scenario(&with(4.0, Some(0.0))))
        .unwrap()
        .contains(r#""task":{"type":"locomotion"}"#));
    let e = Scenario::from_json(&with(4.0, Some(4.0))).unwrap_err().to_string();
    assert!(e.contains("task.transient") && e.contains("[0, world.duration = 4 s)"), "{e}");
}

// ---------------------------------------------------------------------------------------------------
// Task metrics measure what their names say (issue 50): a thrown or kicked box, a body that rises on the
// ground, a flight up the channel and a jump off the board earn nothing of the metric they would game.
// The pushes are the test's own hand: a velocity set on a body between two steps.

/// Runs `text` to its end, setting body `body`'s velocity to `velocity` before step `at`; returns the
/// result and every snapshot (t = 0 first).
fn run_pushed(text: &str, at: u64, body: usize, velocity: [f64; 2]) -> (RunResult, Vec<std::sync::Arc<Snapshot>>) {
    let mut frames = SnapshotRecorder::default();
    let mut run = scenario(text).build().unwrap().start_with(&mut [&mut frames]).unwrap();
    while !run.finished() {
        if run.world().step_index() == at {
            run.world_mut().set_body_velocity(BodyId(body), Vec2::new(velocity[0], velocity[1]));
        }
        run.step(&mut [&mut frames]).unwrap();
    }
    (run.result(), frames.snapshots)
}

#[test]
fn a_thrown_box_earns_no_carried_distance_and_one_carried_by_a_walker_counts_in_full() {
    // A passive biped (12 m long) with the box on top; after 1 s the box is thrown forward and up at
    // (12, 4) m/s: it lands about 10 m beyond the robot's front.
    let text =
        r#####"{"world": {"duration": 4}, "robots": [{"body": ["####", "#..#"]}], "task": {"type": "carrying"}}"#####;
    let (r, frames) = run_pushed(text, 60, 1, [12.0, 4.0]);
    let Some(TaskMetrics::Carrying(c)) = r.task else { panic!("{r:?}") };
    let box_x = |s: &Snapshot| s.bodies[1].center().x;
    // The box settled on the robot before the throw (within 5 cm of where it was put).
    let at_throw = box_x(&frames[60]) - box_x(&frames[0]);
    assert!(at_throw.abs() < 0.05, "{at_throw}");
    // Flying 12 m/s, it is clear of the robot within one or two steps of 1/60 s: 0.4 m at most.
    assert!(c.dropped_at.is_some() && c.box_distance > 3.0, "the box flew and landed: {c:?}");
    assert!((c.carried_distance - at_throw).abs() < 0.4, "the flight earns nothing: {c:?}");

    // The fixture's biped walking with the box on its back for 6 s (it first drops it at 9.75 s): every
    // metre the box travelled is carried.
    let (r, frames) = run_pushed(&shortened("carrying", 6.0), u64::MAX, 0, [0.0, 0.0]);
    let Some(TaskMetrics::Carrying(c)) = r.task else { panic!("{r:?}") };
    assert_eq!(c.dropped_at, None);
    let on_robot = |s: &Snapshot| s.bodies[1].as_object().unwrap().touching_bodies.contains(&BodyId(0));
    let last = frames.iter().rev().find(|s| on_robot(s)).unwrap();
    eprintln!("carried {} of box travel {} (last on the robot at {} s)", c.carried_distance, c.box_distance, last.t);
    assert!(c.box_distance > 1.0, "{c:?}");
    assert_eq!(c.carried_distance, box_x(last) - box_x(&frames[0]));
    assert!((c.carried_distance - c.box_distance).abs() < 0.05, "{c:?}");
}

#[test]
fn a_kicked_box_earns_no_pushed_distance_after_the_last_touch() {
    // The fixture's biped pushes its box for 3 s; then the box is kicked forward at 10 m/s.
    let text = shortened("pushing", 6.0);
    let (r, frames) = run_pushed(&text, 180, 1, [10.0, 2.0]);
    let Some(TaskMetrics::Pushing(p)) = r.task else { panic!("{r:?}") };
    let box_x = |s: &Snapshot| s.bodies[1].center().x;
    let at_kick = box_x(&frames[180]) - box_x(&frames[0]);
    eprintln!(
        "pushed {} m by the kick at 3 s, box {} m, pushed_distance {} m",
        at_kick, p.box_distance, p.pushed_distance
    );
    assert!(at_kick > 0.5, "the biped pushed before the kick: {at_kick}");
    // Thrown 10 m/s ahead of a robot walking under 2 m/s, the box is never touched again: what it
    // travelled up to the robot's last touch before the kick counts (measured: 0.68 m of the 2.12 m,
    // the rest is the slide after that touch), none of the flight.
    assert!(p.box_distance > at_kick + 3.0, "{p:?}");
    assert!(p.pushed_distance > 0.0 && p.pushed_distance <= at_kick + 0.2, "{p:?} vs {at_kick}");
    // Without the kick, the box that stays against the robot is pushed the whole way.
    let r = run(&text);
    let Some(TaskMetrics::Pushing(p)) = r.task else { panic!("{r:?}") };
    assert!(p.pushed_distance > 0.5 * p.box_distance && p.pushed_distance <= p.box_distance + 1e-9, "{p:?}");
}

#[test]
fn a_body_rising_on_the_ground_earns_no_jump_and_a_flight_up_the_channel_no_climb() {
    // A 3×2 block resting on the ground ("gap": 0) actuated by a slow sine (0.25 Hz, one period):
    // expanding, its centre rises a few centimetres without ever leaving the ground.
    let text = r#####"{"world": {"duration": 4}, "robots": [{"body": ["###", "###"],
        "controller": {"type": "time_functions", "default": {"type": "sin", "amplitude": 1, "frequency": 0.25, "phase": 0}}}],
        "task": {"type": "jumping", "gap": 0}}"#####;
    let (r, frames) = run_pushed(text, u64::MAX, 0, [0.0, 0.0]);
    let Some(TaskMetrics::Jumping(j)) = r.task else { panic!("{r:?}") };
    let centre_y = |s: &Snapshot| s.bodies[0].center().y;
    let rise = frames.iter().map(|s| centre_y(s) - centre_y(&frames[0])).fold(f64::MIN, f64::max);
    eprintln!("centre rise {rise} m, airtime {}, max_centre_rise {}", j.airtime, j.max_centre_rise);
    // Measured: 0.48 m; its one short hop (0.2 s at 2.7 s, airtime 0.05) stays below its height at t = 0.
    assert!(rise > 0.2, "the expansion raises the centre: {rise}");
    assert!(j.airtime < 0.1, "{j:?}");
    assert_eq!(j.max_centre_rise, 0.0, "{j:?}");

    // A passive 2×2 block in a channel 2 voxels wider than it, thrown straight up at v = 15 m/s: it flies
    // without touching a wall and falls back. Its masses' linear damping c = 1/s (the default material)
    // bounds the climb to v/c − (g/c²)·ln(1 + c·v/g) = 5.90 m (11.5 m undamped).
    let text = r#####"{"world": {"duration": 4}, "robots": [{"body": ["##", "##"]}], "task": {"type": "climbing", "width": 12}}"#####;
    let (r, frames) = run_pushed(text, 30, 0, [0.0, 15.0]);
    let Some(TaskMetrics::Climbing(c)) = r.task else { panic!("{r:?}") };
    let top = frames.iter().map(|s| s.bodies[0].bbox().min.y).fold(f64::MIN, f64::max);
    let (v, g) = (15.0_f64, 9.81);
    let damped = v - g * (1.0 + v / g).ln();
    eprintln!("flight top {top} m (damped ballistics {damped} m), max_height {}", c.max_height);
    assert!((top - damped).abs() < 0.03 * damped, "{top} vs {damped}");
    // The step that leaves the ground still reports the contact it started with (0.25 m at 15 m/s);
    // the top of the flight counts nothing.
    assert!(c.max_height < 0.3 && c.climb_height < 0.01, "{c:?}");
}

#[test]
fn a_board_resting_on_its_end_is_at_full_tilt_and_a_robot_that_jumps_off_scores_it() {
    // A free board (no hinge spring) under an L-shaped robot (its weight left of the hinge) tips until
    // one end rests on the ground: its angle then is the full tilt the metrics charge after a fall, from the geometry alone.
    let text = r#####"{"world": {"duration": 6}, "robots": [{"body": ["#..", "###"]}],
        "task": {"type": "balancing", "platform_size": [30, 1], "pivot_height": 4, "hinge_stiffness": 0}}"#####;
    let r = run(text);
    let Some(TaskMetrics::Balancing(b)) = r.task else { panic!("{r:?}") };
    let full = vsr2d::task::balancing::full_tilt([30.0, 1.0], 4.0);
    // By hand: half length 15, half thickness 0.5: 15·sin θ + 0.5·cos θ = 4 → θ = 0.2365 rad.
    assert!((full - 0.2365).abs() < 1e-3, "{full}");
    eprintln!("board at rest {} rad, full tilt {full} rad, fell {:?}", b.max_abs_angle, b.fell_at);
    assert_eq!(b.fell_at, None, "the robot stays on the tilted board");
    assert!((b.max_abs_angle - full).abs() < 0.01 * full, "{b:?} vs {full}");

    // The default board under a centred 3×2 robot, which jumps off sideways 0.5 s in: every step from its
    // fall counts as full tilt, so it scores worse than the passive robot that stays (0.01 rad at most).
    let text =
        r#####"{"world": {"duration": 6}, "robots": [{"body": ["###", "###"]}], "task": {"type": "balancing"}}"#####;
    let (r, _) = run_pushed(text, 30, 0, [25.0, 8.0]);
    let Some(TaskMetrics::Balancing(b)) = r.task else { panic!("{r:?}") };
    let fell = b.fell_at.expect("it lands on the ground");
    // The default board: 3W = 27 m long, l/2 = 1.5 m thick, hinged H = 6 m up.
    let full = vsr2d::task::balancing::full_tilt([27.0, 1.5], 6.0);
    let after = (6.0 - fell) / 6.0;
    eprintln!("fell at {fell} s: mean {} max {} (full tilt {full})", b.mean_abs_angle, b.max_abs_angle);
    assert_eq!(b.max_abs_angle, full);
    assert!(b.mean_abs_angle >= after * full - 1e-9 && b.mean_abs_angle > 0.05, "{b:?}");
}
