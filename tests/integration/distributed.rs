//! Distributed controllers end to end: evolution of both representations (byte-identical for any
//! thread count, the best replaying to its logged fitness bit for bit), scenario errors located at
//! their JSON path, recordings that carry the signals, and a tiny `vsr2d study distributed`.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::evolve::same_outputs;
use vsr2d::evolve::{run, Experiment, RunOptions};
use vsr2d::scenario::Scenario;

/// A tiny run of `representation` on the biped: 2 s simulations, 6 individuals, 2 generations.
fn tiny(representation: &str) -> String {
    format!(
        r#"{{"name": "tiny", "seed": 4, "ea": {{"n_pop": 6, "n_gen": 2, "tournament": 3}},
            "representation": {{"type": "{representation}", "body": "biped", "hidden": [2]}},
            "scenario": {{"world": {{"dt": 0.03333333333333333, "duration": 2}}}}}}"#
    )
}

fn evolve(text: &str, dir: &Path, jobs: usize) {
    let experiment = Experiment::from_json(text).unwrap();
    run(&experiment, text, &RunOptions { dir: dir.to_path_buf(), jobs, stop_after: None }, &mut |_| {}).unwrap();
}

#[test]
fn both_representations_evolve_identically_on_one_or_two_threads_and_replay_bit_for_bit() {
    let tmp = tempfile::tempdir().unwrap();
    // Biped: 6 voxels; paper6 features + 4 signals + bias = 11 inputs, 2 hidden, 1 + 4 outputs.
    for (representation, genes) in [("distributed_homogeneous", 11 * 2 + 2 * 5), ("distributed_heterogeneous", 6 * 32)]
    {
        let (a, b) = (tmp.path().join(format!("{representation}-1")), tmp.path().join(format!("{representation}-2")));
        let text = tiny(representation);
        evolve(&text, &a, 1);
        evolve(&text, &b, 2);
        same_outputs(&a, &b, &format!("{representation}: between --jobs 1 and --jobs 2"));
        let log: Vec<serde_json::Value> = fs::read_to_string(a.join("log.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let last = log.last().unwrap();
        assert_eq!(last["best_genome"].as_array().unwrap().len(), genes, "{representation}");
        let logged = last["best"].as_f64().unwrap();
        let best = Scenario::from_json(&fs::read_to_string(a.join("best.json")).unwrap()).unwrap();
        let replayed = vsr2d::batch::evaluate(&best).unwrap().robots[0].relative_x_velocity;
        assert_eq!(replayed.to_bits(), logged.to_bits(), "{representation}: {replayed} vs {logged}");
        let controller = serde_json::to_value(&best.robots[0].controller).unwrap();
        assert_eq!(controller["type"], "distributed");
        assert_eq!(controller.get("weights").is_some(), representation == "distributed_homogeneous");
    }
}

fn scenario_error(controller: &str) -> (String, String) {
    let text =
        format!(r###"{{"world": {{"duration": 1}}, "robots": [{{"body": ["##"], "controller": {controller}}}]}}"###);
    // Parsing checks the fields; building the robot checks the controller against its body.
    let e = Scenario::from_json(&text).and_then(|s| s.build().map(|_| ())).err().expect(controller);
    (e.path(), e.to_string())
}

#[test]
fn bad_distributed_specs_are_refused_at_their_json_path_with_the_fix() {
    let (path, msg) = scenario_error(r#"{"type": "distributed", "signals": -1, "weights": []}"#);
    assert_eq!(path, "robots[0].controller.signals", "{msg}");
    assert!(msg.contains("whole number from 0"), "{msg}");
    // Two voxels, no features, 1 signal: [5, 5] = 25 weights.
    let (path, msg) = scenario_error(r#"{"type": "distributed", "weights": [0, 0, 0]}"#);
    assert_eq!(path, "robots[0].controller", "{msg}");
    assert!(msg.contains("weights: expected 25 weights for layer sizes [5, 5], got 3"), "{msg}");
    let w = format!("{:?}", vec![0.0; 25]);
    let (_, msg) = scenario_error(&format!(
        r#"{{"type": "distributed", "cells": [{{"cell": [0, 0], "weights": {w}}}, {{"cell": [1, 0], "weights": {w}}},
            {{"cell": [2, 0], "weights": {w}}}]}}"#
    ));
    assert!(msg.contains("cells[2]: cell [2, 0] holds no voxel"), "{msg}");
    // And through the command line: exit 2, no panic.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.json");
    fs::write(
        &file,
        r###"{"world": {"duration": 1}, "robots": [{"body": ["##"], "controller": {"type": "distributed", "weights": [1]}}]}"###,
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(["simulate", file.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("robots[0].controller") && stderr.contains("expected 25 weights"), "{stderr}");
}

#[test]
fn recordings_carry_the_signals_and_the_renderer_draws_them() {
    let tmp = tempfile::tempdir().unwrap();
    let scenario = Path::new(crate::ROOT).join("docs/examples/distributed-worm.json");
    let record = tmp.path().join("run.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["simulate", scenario.to_str().unwrap(), "--duration", "1", "--record"])
        .arg(&record)
        .args(["--detail", "controller"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last = fs::read_to_string(&record).unwrap().lines().last().unwrap().to_string();
    let snapshot: serde_json::Value = serde_json::from_str(&last).unwrap();
    let robot = &snapshot["bodies"][0];
    let voxels = robot["voxels"].as_array().unwrap().len();
    let signals = &robot["controller"]["signals"];
    assert_eq!(signals["per_side"], 1);
    assert_eq!(signals["sent"].as_array().unwrap().len(), 4 * voxels);
    assert!(signals["sent"].as_array().unwrap().iter().any(|v| v.as_f64().unwrap().abs() > 0.05), "{signals}");
    // The same frame with and without the signal layer differ; without controller detail it warns.
    let png = |name: &str, extra: &[&str]| {
        let path = tmp.path().join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
            .args(["render", "--from", record.to_str().unwrap(), "--size", "320x180", "--png"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (image::open(&path).unwrap().to_rgb8(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (plain, _) = png("plain.png", &[]);
    let (drawn, _) = png("signals.png", &["--signals"]);
    let differing = plain.pixels().zip(drawn.pixels()).filter(|(a, b)| a != b).count();
    assert!(differing > 50, "the signal arrows change {differing} pixels");
}

#[test]
fn a_tiny_distributed_study_writes_its_report() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("study");
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["study", "distributed", "--quick", "--pop", "4", "--generations", "1", "--duration", "1", "--runs", "2"])
        .args(["--no-video", "--quiet", "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> =
        summary["configs"].as_array().unwrap().iter().map(|c| c["config"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "central-worm",
            "homogeneous-worm",
            "heterogeneous-worm",
            "central-biped",
            "homogeneous-biped",
            "heterogeneous-biped"
        ]
    );
    let comparisons = fs::read_to_string(dir.join("comparisons.csv")).unwrap();
    assert_eq!(comparisons.lines().count(), 1 + 6, "{comparisons}");
    assert!(dir.join("index.html").is_file() && dir.join("curves.png").is_file());
}
