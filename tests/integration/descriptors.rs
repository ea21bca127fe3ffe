//! Every robot's morphology and behaviour descriptors (issue 47 §3), against facts computed another
//! way: counted from the scenario's body rows, from free fall, and from the jumping task's own airtime.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use vsr2d::scenario::Scenario;
use vsr2d::task::locomotion::{robot_metric_pointer, LocomotionMetrics, BEHAVIOUR_METRICS, MORPHOLOGY_DESCRIPTORS};
use vsr2d::task::{RunResult, TaskMetrics};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(crate::ROOT).join(format!("fixtures/scenarios/{name}.json"))).unwrap()
}

fn run(text: &str) -> RunResult {
    vsr2d::batch::evaluate(&Scenario::from_json(text).unwrap_or_else(|e| panic!("{e}\n{text}"))).unwrap()
}

/// A fixture cut to `duration` s.
fn short(name: &str, duration: f64) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&fixture(name)).unwrap();
    v["world"]["duration"] = duration.into();
    v.to_string()
}

/// One robot of `body` rows (materials by character, `#` the default), run for `duration` s.
fn robot(body: &[&str], materials: &str, duration: f64) -> LocomotionMetrics {
    let rows = serde_json::to_string(body).unwrap();
    run(&format!(r#"{{"world": {{"duration": {duration}}}, "robots": [{{"body": {rows}{materials}}}]}}"#)).robots[0]
        .clone()
}

/// What the rows say, counted directly: voxels, occupied bounding box, empty cells in it, voxels whose
/// left–right mirror in the box is a voxel, and voxels per character.
struct Counted {
    voxels: u32,
    width: u32,
    height: u32,
    empty: u32,
    mirrored: u32,
    per_char: BTreeMap<String, u32>,
}

fn count(rows: &[String]) -> Counted {
    let at = |x: usize, y: usize| rows[y].chars().nth(x).filter(|c| *c != '.' && *c != ' ');
    let cells: Vec<(usize, usize, char)> = (0..rows.len())
        .flat_map(|y| (0..rows[y].chars().count()).filter_map(move |x| at(x, y).map(|c| (x, y, c))))
        .collect();
    let (x0, x1) = (cells.iter().map(|c| c.0).min().unwrap(), cells.iter().map(|c| c.0).max().unwrap());
    let (y0, y1) = (cells.iter().map(|c| c.1).min().unwrap(), cells.iter().map(|c| c.1).max().unwrap());
    let (width, height) = ((x1 - x0 + 1) as u32, (y1 - y0 + 1) as u32);
    let mut per_char = BTreeMap::new();
    for c in &cells {
        *per_char.entry(c.2.to_string()).or_insert(0) += 1;
    }
    Counted {
        voxels: cells.len() as u32,
        width,
        height,
        empty: width * height - cells.len() as u32,
        mirrored: cells.iter().filter(|c| at(x0 + x1 - c.0, c.1).is_some()).count() as u32,
        per_char,
    }
}

#[test]
fn the_morphology_of_every_fixture_is_what_its_body_rows_count() {
    let mut seen = 0;
    for name in ["worm", "biped", "tripod", "two-material", "jumping", "climbing", "worm-10x3-uneven"] {
        let text = short(name, 0.1);
        let scenario = Scenario::from_json(&text).unwrap();
        let result = run(&text);
        for (spec, metrics) in scenario.robots.iter().zip(&result.robots) {
            let m = &metrics.morphology;
            let c = count(&spec.body);
            assert_eq!((m.voxels, m.width, m.height), (c.voxels, c.width, c.height), "{name}");
            assert_eq!(m.emptiness, f64::from(c.empty) / f64::from(c.width * c.height), "{name}");
            assert_eq!(m.symmetry, f64::from(c.mirrored) / f64::from(c.voxels), "{name}");
            let fractions: BTreeMap<String, f64> =
                c.per_char.iter().map(|(k, n)| (k.clone(), f64::from(*n) / f64::from(c.voxels))).collect();
            assert_eq!(m.materials, fractions, "{name}");
            assert!((m.materials.values().sum::<f64>() - 1.0).abs() < 1e-12, "{name}");
            assert!((0.0..1.0).contains(&m.elongation) && m.compactness > 0.0 && m.compactness <= 1.0, "{name}");
            seen += 1;
        }
    }
    assert_eq!(seen, 7);
}

#[test]
fn hand_computed_morphologies() {
    // The worm: a full 4 × 1 bar. Elongation: 1 − 1/4 along x (its diagonal boxes are square).
    let worm = robot(&["####"], "", 0.1).morphology;
    assert_eq!((worm.voxels, worm.width, worm.height), (4, 4, 1));
    assert_eq!((worm.emptiness, worm.symmetry, worm.compactness), (0.0, 1.0, 1.0));
    assert!((worm.elongation - 0.75).abs() < 1e-12, "{}", worm.elongation);
    assert_eq!(worm.materials, BTreeMap::from([("#".to_string(), 1.0)]));
    // The biped: 2 of its 8 cells are the gap between the legs; mirror symmetric.
    let biped = robot(&["####", "#..#"], "", 0.1).morphology;
    assert_eq!((biped.emptiness, biped.symmetry), (0.25, 1.0));
    // An L: the top voxel's mirror is empty.
    let l = robot(&["#.", "##"], "", 0.1).morphology;
    assert!(l.symmetry < 1.0 && (l.symmetry - 2.0 / 3.0).abs() < 1e-15, "{}", l.symmetry);
    // A ring: its hole is filled by the hull rule (8 voxels of 9 hull cells).
    let ring = robot(&["###", "#.#", "###"], "", 0.1).morphology;
    assert_eq!(ring.compactness, 8.0 / 9.0);
    // Materials by their scenario keys; three of eight voxels soft.
    let two =
        robot(&["hssh", "hhhh"], r#", "materials": {"h": {"spring_hz": 25}, "s": {"spring_hz": 5}}"#, 0.1).morphology;
    assert_eq!(two.materials, BTreeMap::from([("h".to_string(), 0.75), ("s".to_string(), 0.25)]));
    // Empty margins of the grid are not part of the body.
    assert_eq!(robot(&["....", ".##.", "...."], "", 0.1).morphology, robot(&["##"], "", 0.1).morphology);
}

#[test]
fn ground_contact_is_one_at_rest_and_the_jumpers_is_what_its_airtime_leaves() {
    // A passive worm lying on flat ground, measured after it has settled.
    let rest = run(r#####"{"world": {"duration": 3, "terrain": {"type": "flat"}},
                       "robots": [{"body": ["####"], "position": [20, 0]}],
                       "task": {"type": "locomotion", "transient": 1}}"#####);
    assert_eq!(rest.robots[0].ground_contact, 1.0);
    assert!(rest.robots[0].y_distance.abs() < 1e-3, "{}", rest.robots[0].y_distance);
    // The jumping fixture leaves the ground; on flat ground with nothing else to touch, the steps in
    // contact with the ground are exactly those the task does not count as airtime.
    let jump = run(&short("jumping", 4.0));
    let Some(TaskMetrics::Jumping(j)) = &jump.task else { panic!("{jump:?}") };
    let g = jump.robots[0].ground_contact;
    assert!(g < 0.9 && j.airtime > 0.1, "{g} {}", j.airtime);
    assert!((g + j.airtime - 1.0).abs() < 1e-12, "{g} + {} ≠ 1", j.airtime);
}

#[test]
fn a_robot_dropped_from_a_height_falls_by_it() {
    // A passive 2 × 2 block (voxel side 3 m) released with its bottom 5 m above the flat ground: its
    // centre starts 5 m above where it rests.
    let text = r###"{"world": {"duration": 4, "terrain": {"type": "flat"}},
                   "robots": [{"body": ["##", "##"], "position": [20, 5]}]}"###;
    let r = &run(text).robots[0];
    assert!(r.y_distance < 0.0);
    assert!((r.y_distance + 5.0).abs() < 0.05, "{}", r.y_distance);
    // It cannot touch the ground before it has fallen 5 m: t = √(2·5/g).
    let fall = (2.0 * 5.0 / 9.81_f64).sqrt();
    assert!(r.ground_contact > 0.0 && r.ground_contact <= 1.0 - fall / 4.0 + 1.0 / 240.0, "{}", r.ground_contact);
}

#[test]
fn y_distance_is_measured_from_the_transient_like_x_distance() {
    let with = |duration: f64, transient: Option<f64>| {
        let mut v: serde_json::Value = serde_json::from_str(&fixture("biped")).unwrap();
        v["world"]["duration"] = duration.into();
        if let Some(t0) = transient {
            v["task"] = serde_json::json!({"type": "locomotion", "transient": t0});
        }
        run(&v.to_string()).robots[0].clone()
    };
    let (whole, prefix, measured) = (with(4.0, None), with(1.5, None), with(4.0, Some(1.5)));
    let dy = whole.y_distance - prefix.y_distance;
    assert!((measured.y_distance - dy).abs() < 1e-9, "{} vs {dy}", measured.y_distance);
    // The morphology does not depend on what is measured.
    assert_eq!(measured.morphology, whole.morphology);
}

#[test]
fn every_descriptor_has_a_pointer_into_the_result_and_a_definition_in_its_schema() {
    let result = run(&short("biped", 0.5));
    for name in BEHAVIOUR_METRICS.iter().chain(&MORPHOLOGY_DESCRIPTORS) {
        let pointer = robot_metric_pointer(name, 0).unwrap();
        assert!(result.number(&pointer).is_some(), "{name} at {pointer}");
    }
    assert_eq!(robot_metric_pointer("voxels", 1).as_deref(), Some("/robots/1/morphology/voxels"));
    assert_eq!(robot_metric_pointer("ground_contact", 0).as_deref(), Some("/robots/0/ground_contact"));
    assert_eq!(robot_metric_pointer("max_height", 0), None);
    assert_eq!(result.number("/robots/0/morphology/materials/#"), Some(1.0));

    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(["schema", "--result"]).output().unwrap();
    assert!(out.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let defs = &schema["$defs"];
    let described =
        |def: &str, field: &str| defs[def]["properties"][field]["description"].as_str().is_some_and(|d| d.len() > 20);
    for name in BEHAVIOUR_METRICS.iter().chain(&["morphology"]) {
        assert!(described("LocomotionMetrics", name), "{name} has no definition in {}", defs["LocomotionMetrics"]);
    }
    for name in MORPHOLOGY_DESCRIPTORS.iter().chain(&["materials"]) {
        assert!(described("Morphology", name), "{name} has no definition in {}", defs["Morphology"]);
    }
    let text = schema.to_string();
    assert!(text.contains("shapeElongation") && text.contains("shapeCompactness"), "the sources are cited");
}
