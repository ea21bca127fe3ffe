//! Soft cells end to end (`cells.md` §10): scenario validation with JSON path and fix, `simulate` on a
//! cell scenario, the schema, and voxel scenarios still requiring a body.

use std::process::{Command, Output};

use vsr2d::scenario::Scenario;

pub(crate) fn vsr2d(args: &[&str]) -> Output {
    // From the repository's root, as the fixture paths the tests give are.
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).current_dir(crate::ROOT).output().unwrap()
}

/// Scenario JSON from a compact form where `'` stands for `"`.
fn json(compact: &str) -> String {
    compact.replace('\'', "\"")
}

fn cells(types: &str, cells: &str) -> String {
    json(&format!("{{'world': {{'duration': 1, 'gravity': [0, 0], 'terrain': {{'type': 'none'}}}}, 'cell_types': {types}, 'cells': {cells}, 'task': {{'type': 'free'}}}}"))
}

pub(crate) fn refused(text: &str, path: &str, needles: &[&str]) {
    let err = Scenario::from_json(text).unwrap_err();
    assert_eq!(err.path(), path, "{err}");
    let message = err.to_string();
    for n in needles {
        assert!(message.contains(n), "{message:?} must mention {n:?}");
    }
}

#[test]
fn cells_scenarios_validate_with_path_and_fix() {
    let ok = cells("{'soft': {'preset': 'scs-code'}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]");
    let s = Scenario::from_json(&ok).unwrap();
    assert!(s.robots.is_empty());
    refused(
        &cells("{'soft': {'bodies': 7}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]"),
        "cell_types.soft.bodies",
        &["even number ≥ 8", "use e.g. 8"],
    );
    refused(
        &cells("{'soft': {'bodies': 31}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]"),
        "cell_types.soft.bodies",
        &["31 bodies", "use e.g. 32"],
    );
    refused(
        &cells(
            "{'soft': {}}",
            "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}, {'id': 'b', 'type': 'soft', 'position': [10, 0]}]",
        ),
        "cells[1].position",
        &["overlaps", "cells[0]", "10.314", "move it"],
    );
    // Touching at R + r_b each is allowed.
    Scenario::from_json(&cells(
        "{'soft': {}}",
        "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}, {'id': 'b', 'type': 'soft', 'position': [10.32, 0]}]",
    ))
    .unwrap();
    refused(&cells("{'soft': {}}", "[{'id': 'a', 'type': 'hard', 'position': [0, 0]}]"), "cells[0].type", &["soft"]);
    refused(
        &cells("{'soft': {'like': 'x'}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]"),
        "cell_types.soft.like",
        &["not a cell type"],
    );
    refused(
        &cells("{'soft': {'pressure': -1}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]"),
        "cell_types.soft.pressure",
        &["≥ 0"],
    );
    refused(
        &cells(
            "{'soft': {}}",
            "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}, {'id': 'a', 'type': 'soft', 'position': [50, 0]}]",
        ),
        "cells[1].id",
        &["unique"],
    );
    // `like` copies, then overrides.
    let s = Scenario::from_json(&cells(
        "{'soft': {'preset': 'scs-code', 'pressure': 20}, 'stiff': {'like': 'soft', 'pressure': 450}}",
        "[{'id': 'a', 'type': 'stiff', 'position': [0, 0]}]",
    ))
    .unwrap();
    let p = vsr2d::scenario::cells::resolve_type(&s.cell_types, "stiff").unwrap();
    assert_eq!((p.bodies, p.radius, p.pressure), (30, 3.0, 450.0));
}

#[test]
fn cells_scenario_without_robots_or_cells_is_refused_and_voxels_still_need_a_body() {
    refused(&json("{'robots': []}"), "robots", &["robots", "cells"]);
    refused(&json("{'robots': [{'body': []}]}"), "robots[0].body", &[]);
}

#[test]
fn cells_simulate_prints_cell_metrics_and_the_schema_lists_cells() {
    let out = vsr2d(&["simulate", "fixtures/scenarios/cell-single.json", "--duration", "4"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["cells"][0];
    assert_eq!(c["label"], "a");
    assert_eq!(c["steps"], 200);
    // Dropped 6 − (R + r_b) ≈ 0.84 m onto the ground, then flattened a little under gravity.
    let ratio = c["area_ratio"].as_f64().unwrap();
    assert!(ratio > 0.9 && ratio < 1.0, "{ratio}");
    assert!(c["max_perimeter_error"].as_f64().unwrap() < 0.005);
    assert!(v["robots"].as_array().unwrap().is_empty());
    let bad = tempfile::tempdir().unwrap();
    let path = bad.path().join("s.json");
    std::fs::write(&path, cells("{'soft': {'bodies': 4}}", "[{'id': 'a', 'type': 'soft', 'position': [0, 0]}]"))
        .unwrap();
    let out = vsr2d(&["simulate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cell_types.soft.bodies") && !stderr.contains("panicked"), "{stderr}");
    let schema = String::from_utf8(vsr2d(&["schema"]).stdout).unwrap();
    for key in ["cell_types", "cells", "scs-paper", "N per membrane body", "\"free\""] {
        assert!(schema.contains(key), "schema lacks {key}");
    }
}

#[test]
fn cells_recordings_round_trip_and_reruns_are_bit_identical() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let path = dir.path().join(name);
        let out = vsr2d(&[
            "simulate",
            "fixtures/scenarios/cell-single.json",
            "--duration",
            "1",
            "--record",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (out.stdout, std::fs::read(path).unwrap())
    };
    let (a, b) = (run("a.jsonl"), run("b.jsonl"));
    assert_eq!(a, b);
    let first = std::str::from_utf8(&a.1).unwrap().lines().last().unwrap().to_string();
    let snap: vsr2d::snapshot::Snapshot = serde_json::from_str(&first).unwrap();
    assert_eq!(snap.cells().next().unwrap().bodies.len(), 100);
}

/// Centre distance of the first two cells in each line of a recording, with the time and active pairs.
fn distances(recording: &[u8]) -> Vec<(f64, f64, usize)> {
    std::str::from_utf8(recording)
        .unwrap()
        .lines()
        .map(|l| {
            let s: vsr2d::snapshot::Snapshot = serde_json::from_str(l).unwrap();
            let c: Vec<_> = s.cells().collect();
            (s.t, (c[0].center - c[1].center).length(), c[0].pairs.len())
        })
        .collect()
}

#[test]
fn cells_connect_then_separate_after_switch_off_and_push_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str| {
        let path = dir.path().join(name);
        let out = vsr2d(&["simulate", "fixtures/scenarios/cells-connect.json", "--record", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (out.stdout, std::fs::read(path).unwrap())
    };
    let (a, b) = (run("a.jsonl"), run("b.jsonl"));
    assert_eq!(a, b, "reruns differ");
    let d = distances(&a.1);
    let at = |t: f64| d.iter().find(|x| x.0 >= t - 1e-9).copied().unwrap();
    // Connectors 3 m apart at t = 0 (< r_a + r_b = 4 m): paired at once, 3 × 3 pairs.
    assert_eq!(at(0.02).2, 9);
    // Connected: the centres come from 13 m to about the touching distance 2(R + r_b) = 10.31 m.
    let connected = at(3.9).1;
    assert!(connected < 10.5, "centre distance while connected {connected}");
    // b switched off at t = 4 and pushed at 1 m/s: no pair, and the distance grows.
    assert_eq!(at(4.5).2, 0);
    let end = d.last().unwrap().1;
    assert!(end > connected + 3.0, "after release {end} vs {connected}");
    let v: serde_json::Value = serde_json::from_slice(&a.0).unwrap();
    assert_eq!(v["cells"][0]["active_pairs_max"], 9);
    assert_eq!(v["cells"][1]["active_pairs"], 0);
}

#[test]
fn an_idle_muscle_changes_the_area_ratio_by_less_than_one_percent() {
    // A cell dropped on the ground under gravity (squeezed by its weight), with and without an idle
    // muscle ℓ = 1 across it.
    let scenario = |muscles: &str| {
        json(&format!(
            "{{'world': {{'dt': 0.02, 'duration': 6, 'gravity': [0, -9.8], 'terrain': {{'type': 'flat'}}}}, \
             'cell_types': {{'soft': {{'preset': 'scs-paper'}}}}, \
             'cells': [{{'id': 'a', 'type': 'soft', 'position': [30, 6], 'muscles': [{muscles}]}}], 'task': {{'type': 'free'}}}}"
        ))
    };
    let ratios = |text: String| {
        let s = Scenario::from_json(&text).unwrap();
        let out = vsr2d::batch::evaluate(&s).unwrap();
        let c = &out.cells.unwrap()[0];
        (c.area_ratio, c.area_ratio_min)
    };
    let bare = ratios(scenario(""));
    let idle = ratios(scenario("{'id': 'm', 'kind': 'spring', 'from': 0, 'to': 50}"));
    for (x, y) in [(bare.0, idle.0), (bare.1, idle.1)] {
        assert!((x / y - 1.0).abs() < 0.01, "A/A0 {x} without, {y} with an idle muscle");
    }
    // A contracted muscle (ℓ = 0.3 from the start) does deform the cell.
    let s = scenario("{'id': 'm', 'kind': 'spring', 'from': 0, 'to': 50, 'length': 0.6}");
    let contracted = ratios(s);
    assert!(contracted.0 < bare.0 - 0.02, "{contracted:?} vs {bare:?}");
}

/// The acceptance row "muscle chain" (`cells.md` §16) with the scs-paper cells (C 200, c_d 50, dt 1/50 s):
/// pin pairs 20↔80 and 30↔70 (besides the centre pin 25↔75) make each junction carry a moment; the four
/// middle cells are trusses whose top muscle and diagonals contract to a 10° trapezoid each (bottom and
/// sides fixed), the end cells are braced by fixed struts. c_d also damps each cell's rotation, so the
/// bend creeps: ≈ 35° at 90 s (30° at ≈ 67 s), perimeter error ≤ 0.43 % (see docs/muscle-chain.md).
#[test]
fn muscle_chain_contracts_and_its_pins_hold() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let out = vsr2d(&[
        "simulate",
        "fixtures/scenarios/cells-muscle-chain.json",
        "--record",
        path.to_str().unwrap(),
        "--every",
        "250",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Stable at dt = 1/50 s: the perimeter error stays below 0.5 % at every step, the area near A₀.
    let metrics: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for c in metrics["cells"].as_array().unwrap() {
        let (e, a) = (c["max_perimeter_error"].as_f64().unwrap(), c["area_ratio_min"].as_f64().unwrap());
        assert!(e < 0.005, "{}: perimeter error {e}", c["label"]);
        assert!(a > 0.97, "{}: A/A0 down to {a}", c["label"]);
    }
    let text = std::fs::read_to_string(path).unwrap();
    let snap = |line: &str| -> vsr2d::snapshot::Snapshot { serde_json::from_str(line).unwrap() };
    let (first, last) = (snap(text.lines().next().unwrap()), snap(text.lines().last().unwrap()));
    let (first, last): (Vec<_>, Vec<_>) = (first.cells().collect(), last.cells().collect());
    assert_eq!(last.len(), 8);
    assert_eq!(last[0].label, "ch.0");
    // End-to-end angle: first link (centre 0 → 1) against the last (centre 6 → 7), counter-clockwise.
    let angle = |c: &[&vsr2d::snapshot::CellSnapshot]| {
        let (a, b) = (c[1].center - c[0].center, c[7].center - c[6].center);
        (a.x * b.y - a.y * b.x).atan2(a.x * b.x + a.y * b.y).to_degrees()
    };
    let bend = angle(&last) - angle(&first);
    assert!(bend >= 30.0, "end-to-end angle changed by {bend:.1}°");
    // Only the middle four contract: their top muscle is ≥ 5 % shorter, every other part near its build length.
    for (j, c) in last.iter().enumerate() {
        for (m, m0) in c.muscles.iter().zip(&first[j].muscles) {
            let r = m.length / m0.length;
            if (2..6).contains(&j) && m.id == "top" {
                assert!(r < 0.95, "cell {j}: top muscle at {r} of its length");
            } else if !(2..6).contains(&j) {
                assert!((r - 1.0).abs() < 0.01, "cell {j}: {} at {r} of its length", m.id);
            }
        }
    }
    // Pins hold: each pin's two body centres stay within their build distance (each is a fixed lever
    // arm from the shared anchor), three pins per junction.
    for (c, c0) in last[..7].iter().zip(&first) {
        assert_eq!(c.links.len(), 3, "{}", c.label);
        for (l, l0) in c.links.iter().zip(&c0.links) {
            let (d, d0) = ((l.from - l.to).length(), (l0.from - l0.to).length());
            assert!(d < d0 * 1.02, "{} pin {}↔{}: {d} m, built {d0} m", c.label, l.body, l.other_body);
        }
    }
}

#[test]
fn malformed_cell_parts_name_their_path() {
    let base = |extra: &str, cell_extra: &str| {
        json(&format!(
            "{{'world': {{'duration': 1, 'gravity': [0, 0], 'terrain': {{'type': 'none'}}}}, \
             'cell_types': {{'soft': {{}}}}, 'connector_types': {{'m': {{}}}}, \
             'cells': [{{'id': 'a', 'type': 'soft', 'position': [0, 0]}}, \
                       {{'id': 'b', 'type': 'soft', 'position': [20, 0]{cell_extra}}}]{extra}}}"
        ))
    };
    Scenario::from_json(&base("", ", 'connectors': [{'type': 'm', 'bodies': [0, 25]}]")).unwrap();
    refused(
        &base("", ", 'connectors': [{'type': 'm', 'bodies': [0, 25, 100]}]"),
        "cells[1].connectors[0].bodies[2]",
        &["out of range", "0 … 99"],
    );
    refused(
        &base("", ", 'connectors': [{'type': 'x', 'bodies': [0]}]"),
        "cells[1].connectors[0].type",
        &["connector_types"],
    );
    refused(
        &base("", ", 'muscles': [{'id': 'm', 'kind': 'spring', 'from': 3, 'to': 3}]"),
        "cells[1].muscles[0].to",
        &["different bodies"],
    );
    refused(&base(", 'interactions': [{'a': 'm', 'b': 'q', 'strength': 1}]", ""), "interactions[0].b", &["not a key"]);
    refused(&base(", 'links': [{'kind': 'pin', 'a': 'a:25', 'b': 'a:75'}]", ""), "links[0].b", &["different cells"]);
    refused(&base(", 'links': [{'kind': 'pin', 'a': 'a:25', 'b': 'z:75'}]", ""), "links[0].b", &["not a cell id"]);
    refused(
        &base(", 'schedule': [{'t': 1, 'connectors': 'b:c9', 'switch': 'off'}]", ""),
        "schedule[0].connectors",
        &["selects no connector"],
    );
    refused(
        &base(", 'schedule': [{'t': 1, 'muscle': 'a/m', 'length': 0.5}]", ""),
        "schedule[0].muscle",
        &["no muscle"],
    );
    refused(
        &base(", 'chains': [{'id': 'E', 'type': 'soft', 'cells': 3, 'start': [0, 40], 'program': 'builtin:E'}]", ""),
        "chains[0].cells",
        &["letter E has 11", "leave it out"],
    );
    refused(
        &base(", 'chains': [{'id': 'E', 'type': 'soft', 'cells': 3, 'start': [0, 5]}]", ""),
        "chains[0].start",
        &["overlaps"],
    );
    // Through the CLI: exit code 2 and the path on stderr.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, base("", ", 'connectors': [{'type': 'm', 'bodies': [0, 25, 100]}]")).unwrap();
    let out = vsr2d(&["simulate", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cells[1].connectors[0].bodies[2]") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_thousand_body_membrane_runs_ten_seconds_stably() {
    // Membrane resolution (cells.md §16): N = 1000 runs 10 s stably, perimeter error < 0.5 %. With the
    // pressure held over whole steps this ring went unstable at step 4 and needed 16 engine steps per
    // step; recomputed at every solver substep, one engine step of 16 substeps holds it.
    let text = json(
        "{'world': {'dt': 0.02, 'duration': 10, 'gravity': [0, 0], 'terrain': {'type': 'none'}}, \
         'cell_types': {'fine': {'preset': 'scs-paper', 'bodies': 1000}}, \
         'cells': [{'id': 'a', 'type': 'fine', 'position': [0, 0]}], 'task': {'type': 'free'}}",
    );
    let s = Scenario::from_json(&text).unwrap();
    assert_eq!((s.stepping().force_substeps, s.stepping().solver_iterations), (1, 16));
    let out = vsr2d::batch::evaluate(&s).unwrap();
    let c = &out.cells.unwrap()[0];
    assert_eq!(c.steps, 500);
    assert!(c.max_perimeter_error < 5e-3, "{}", c.max_perimeter_error);
    // Independent figures: with A₀ = πR² the ring at rest is the regular N-gon, A/A₀ = N·sin(2π/N)/(2π)
    // = 0.9999934 for N 1000, the largest area for its perimeter. A ring that zig-zags or buckles has less;
    // one stretched by e has at most (1 + e)² times it.
    let n = 1000.0;
    let tau = 2.0 * std::f64::consts::PI;
    let regular = n * (tau / n).sin() / tau;
    let most = regular * (1.0 + c.max_perimeter_error).powi(2);
    for a in [c.area_ratio, c.area_ratio_min] {
        assert!(a > regular - 1e-6 && a < most + 1e-7, "{a} vs {regular} … {most}");
    }
}

#[test]
fn simulate_runs_the_force_deflection_sweep_against_the_stadium_model() {
    let out = vsr2d(&["simulate", "fixtures/scenarios/cells-force-deflection.json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["force_deflection"];
    assert_eq!((r["force_substeps"].as_u64(), r["substeps"].as_u64()), (Some(4), Some(32)));
    let levels = r["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 10, "5 loading and 5 unloading levels");
    assert!(r["max_perimeter_error"].as_f64().unwrap() < 5e-3);
    for l in levels.iter().filter(|l| l["phase"] == "load") {
        let (x, f, model) =
            (l["delta_over_d"].as_f64().unwrap(), l["bar_force"].as_f64().unwrap(), l["model_force"].as_f64().unwrap());
        if (0.099..=0.401).contains(&x) {
            // cells.md §16: F_bar within ±25 % of the stadium model (§14) for 0.1 ≤ δ/D ≤ 0.4.
            assert!((f / model - 1.0).abs() < 0.25, "δ/D {x}: {f} N vs {model} N");
        }
    }
    let rec = vsr2d(&["simulate", "fixtures/scenarios/cells-force-deflection.json", "--record", "/tmp/vsr2d-fd.jsonl"]);
    assert_eq!(rec.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&rec.stderr).contains("not recorded"));
}
