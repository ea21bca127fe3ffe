//! Soft cells end to end (`cells.md` §10): scenario validation with JSON path and fix, `simulate` on a
//! cell scenario, the schema, and voxel scenarios still requiring a body.

use std::process::{Command, Output};

use vsr2d::scenario::Scenario;

fn vsr2d(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(args).output().unwrap()
}

/// Scenario JSON from a compact form where `'` stands for `"`.
fn json(compact: &str) -> String {
    compact.replace('\'', "\"")
}

fn cells(types: &str, cells: &str) -> String {
    json(&format!("{{'world': {{'duration': 1, 'gravity': [0, 0], 'terrain': {{'type': 'none'}}}}, 'cell_types': {types}, 'cells': {cells}, 'task': {{'type': 'free'}}}}"))
}

fn refused(text: &str, path: &str, needles: &[&str]) {
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
