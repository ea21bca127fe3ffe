//! The one set of limits (src/limits.rs, docs/limits.md) at the newer front doors: soft-cell scenarios
//! (bodies, body steps, connector pairs), POM specs (lattice voxels, render frames × pixels, and the
//! bounds that keep 1e308 and 100 000-character ids out), refused with exit 2 naming the field before
//! any work and lifted by `--allow-large`; and strict input (one JSON object per file, per recording line),
//! with numbers printed compactly.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use vsr2d::limits::Limits;
use vsr2d::pom::spec::PomSpec;
use vsr2d::scenario::Scenario;

use crate::robustness::get_mut;

fn fixture(name: &str) -> PathBuf {
    Path::new(crate::ROOT).join("fixtures/scenarios").join(name)
}

/// Runs `vsr2d args`, killed after 60 s (a hang fails the test rather than the suite).
fn run(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("vsr2d {args:?} still runs after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn refused(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "must exit 2: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr must mention {n:?}: {stderr}");
    }
    assert!(stderr.len() < 600 && !stderr.contains("panicked"), "{stderr}");
    stderr
}

/// `n` cells of the scs-paper type (100 bodies each) in rows of 50, 12 m apart.
fn cells(n: usize, duration: f64) -> Value {
    let cells: Vec<Value> = (0..n)
        .map(|i| json!({"id": format!("c{i}"), "type": "c", "position": [30.0 + (i % 50) as f64 * 12.0, 6.0 + 12.0 * (i / 50) as f64]}))
        .collect();
    json!({"world": {"dt": 0.02, "duration": duration}, "cell_types": {"c": {"preset": "scs-paper"}},
           "cells": cells, "task": {"type": "free"}})
}

#[test]
fn soft_cell_scenarios_over_the_limits_are_refused_naming_the_field_and_allow_large_lifts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &Value| {
        let p = tmp.path().join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    // 1 001 cells × 100 bodies = 100 100 bodies, one over the limit of 100 000 (by hand).
    let many = cells(1001, 0.02);
    let s = Scenario::from_json(&many.to_string()).unwrap();
    assert_eq!(s.cost().cell_bodies, 100_100);
    let e = s.check_limits(&Limits::DEFAULT).unwrap_err();
    assert_eq!(e.path(), "cells");
    s.check_limits(&Limits::NONE).unwrap();
    let p = write("many.json", &many);
    refused(
        &run(&["simulate", p.to_str().unwrap()]),
        &["`cells`", "100100", "soft-cell membrane bodies", "--allow-large"],
    );

    // One cell for 10⁵ s at 1/50 s: 100 × 5·10⁶ = 5·10⁸ body steps, over 2·10⁸.
    let long = write("long.json", &cells(1, 1e5));
    refused(&run(&["simulate", long.to_str().unwrap()]), &["`world.duration`", "5e8", "body steps"]);
    let s = Scenario::from_json(&cells(1, 1e5).to_string()).unwrap();
    assert_eq!(s.cost().cell_body_steps, 500_000_000);

    // The fixture's two cells carry 3 connectors each: 6² = 36 pairs a step, at most.
    let connect = Scenario::from_json(&std::fs::read_to_string(fixture("cells-connect.json")).unwrap()).unwrap();
    let cost = connect.cost();
    assert_eq!(cost.connector_pair_steps, 36 * cost.steps);
    let tight = Limits { max_connector_pair_steps: 36 * cost.steps - 1, ..Limits::DEFAULT };
    let e = connect.check_limits(&tight).unwrap_err().to_string();
    assert!(e.contains("connector pair checks") && e.contains("`cells`"), "{e}");
    connect.check_limits(&Limits::DEFAULT).unwrap();
}

fn quadruped() -> Value {
    serde_json::from_str(&vsr2d::pom::example::quadruped().unwrap().to_json()).unwrap()
}

#[test]
fn pom_specs_with_huge_values_ids_lattices_or_renders_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report");
    let pom = |name: &str, spec: &Value, extra: &[&str]| {
        let p = tmp.path().join(name);
        std::fs::write(&p, spec.to_string()).unwrap();
        let mut args = vec!["pom", p.to_str().unwrap(), "-o", out.to_str().unwrap(), "--no-video"];
        args.retain(|a| !(extra.contains(&"video") && *a == "--no-video"));
        args.extend(extra.iter().filter(|a| **a != "video"));
        run(&args)
    };
    // A 100 000-character effector id panicked formatting the J table (width over 65 535).
    let mut s = quadruped();
    s["effectors"][4]["id"] = "e".repeat(100_000).into();
    refused(&pom("id.json", &s, &[]), &["`effectors[4].id`", "100000 characters", "at most 100"]);
    // 1e308 in the gait, a target or a forward keyframe spun for ever in the plots' ticks.
    let mut s = quadruped();
    s["gait"]["lift"] = 1e308.into();
    refused(&pom("lift.json", &s, &[]), &["`gait.lift`", "1e308"]);
    let mut s = quadruped();
    s["mode"] = "inverse".into();
    s["targets"] = json!({"keyframes": [{"t": 0, "m1": [0, 0, 0]}, {"t": 1, "m1": [1e308, 0, 0]}]});
    refused(&pom("target.json", &s, &[]), &["`targets.keyframes[1].m1[0]`", "1e308"]);
    let mut s = quadruped();
    s["controls"][0]["range"] = json!([-1e308, 1e308]);
    refused(&pom("range.json", &s, &[]), &["`controls[0].range`", "[-1e308, 1e308]"]);
    // 2·10⁶ lattice voxels: refused by the limit at once (built for minutes before).
    let mut s = quadruped();
    s["lattice"]["layers"] = (0..50).map(|k| (format!("z{k}"), json!(vec!["#".repeat(200); 200]))).collect();
    s["lattice"]["mass_voxels"] = json!([]);
    refused(&pom("lattice.json", &s, &[]), &["`lattice.layers`", "2000000 lattice voxels", "100000"]);
    // The quadruped's lattice has 8 voxels (its 2×2×2 core): a limit of 7 refuses it, 8 lets it through.
    let text = quadruped().to_string();
    let seven = Limits { max_lattice_voxels: 7, ..Limits::DEFAULT };
    assert!(PomSpec::from_json_within(&text, &seven).unwrap_err().to_string().contains("8 lattice voxels"));
    PomSpec::from_json_within(&text, &Limits { max_lattice_voxels: 8, ..Limits::DEFAULT }).unwrap();
    // A 16384² video of the 16 s gait: 3 841 frames × 2.7·10⁸ pixels, refused before drawing (with
    // --allow-large it would draw 1 TB of pixels).
    let mut s = quadruped();
    s["render"] = json!({"size": [16384, 16384], "fps": 240});
    refused(&pom("render.json", &s, &["video"]), &["16384×16384", "pixels × frames", "render.size"]);
}

#[test]
fn trailing_data_after_a_cell_scenario_or_on_a_recording_line_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("cell-single.json")).unwrap();
    let trailing = tmp.path().join("cell.json");
    std::fs::write(&trailing, format!("{text}\n{{\"world\": {{}}}}\n")).unwrap();
    refused(&run(&["simulate", trailing.to_str().unwrap()]), &["exactly one JSON object"]);

    let rec = tmp.path().join("rec.jsonl");
    let worm = fixture("worm.json");
    let ok = run(&["simulate", worm.to_str().unwrap(), "--duration", "0.1", "--record", rec.to_str().unwrap()]);
    assert!(ok.status.success());
    let lines: Vec<String> = std::fs::read_to_string(&rec).unwrap().lines().map(str::to_string).collect();
    for garbage in [" {\"t\": 1}", "x", " []"] {
        let mut bad = lines.clone();
        bad[2].push_str(garbage);
        std::fs::write(&rec, bad.join("\n") + "\n").unwrap();
        let png = tmp.path().join("x.png");
        let stderr = refused(
            &run(&["render", "--from", rec.to_str().unwrap(), "--png", png.to_str().unwrap(), "-q"]),
            &[":3:", "trailing characters"],
        );
        assert!(!stderr.contains("Snapshot") && !stderr.contains("Vec<"), "{stderr}");
        assert!(!png.exists());
    }
}

/// `n` 0.5 m boxes at x = 15 + `step`·i on flat ground (past its ramp), beside a robot far away (1 500 m).
fn boxes(n: usize, step: f64, duration: f64) -> Value {
    let objects: Vec<Value> =
        (0..n).map(|i| json!({"size": [0.5, 0.5], "position": [15.0 + step * i as f64, 0.5]})).collect();
    json!({"world": {"duration": duration}, "robots": [{"body": ["##"], "position": [1500, 0.5]}], "objects": objects})
}

#[test]
fn scenes_of_objects_over_the_limits_are_refused_naming_the_field_and_allow_large_lifts_them() {
    let tmp = tempfile::tempdir().unwrap();
    // 500 boxes piled onto one another: every pair overlaps, 500·499/2 = 124 750 pairs, plus one
    // ground segment each (flat ground is one segment): over the 10⁵ contact pairs.
    let piled = boxes(500, 0.001, 0.02);
    let s = Scenario::from_json(&piled.to_string()).unwrap();
    assert_eq!((s.cost().objects, s.cost().object_contact_pairs), (500, 124_750 + 500));
    let e = s.check_limits(&Limits::DEFAULT).unwrap_err();
    assert_eq!(e.path(), "objects");
    s.check_limits(&Limits::NONE).unwrap();
    let p = tmp.path().join("piled.json");
    std::fs::write(&p, piled.to_string()).unwrap();
    refused(&run(&["simulate", p.to_str().unwrap()]), &["`objects`", "contact pairs", "--allow-large"]);
    let out = run(&["simulate", p.to_str().unwrap(), "--allow-large"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // The same boxes side by side touch nothing: the ground segments under each (one, or two for a
    // box over a vertex of the ground's profile), no pair among them.
    let apart = Scenario::from_json(&boxes(500, 1.0, 0.02).to_string()).unwrap();
    assert!((500..1000).contains(&apart.cost().object_contact_pairs), "{}", apart.cost().object_contact_pairs);
    apart.check_limits(&Limits::DEFAULT).unwrap();
    // 100 boxes for 10⁵ s at 1/60 s: 6·10⁸ object steps, over 2·10⁸.
    let long = Scenario::from_json(&boxes(100, 1.0, 1e5).to_string()).unwrap();
    assert_eq!(long.cost().object_steps, 600_000_000);
    assert_eq!(long.check_limits(&Limits::DEFAULT).unwrap_err().path(), "world.duration");
}

/// Every number of every fixture set to ±1e308, 1e-320 or the string "1": each refusal prints numbers
/// compactly (no run of 25 digits, as `{}` prints 1e308) and names no Rust type (issue 52: the cell
/// types' `pressure`, the `fold` task's friction and the `force_deflection` task's times printed 309
/// digits; `near_cap` answered "untagged enum NearCapSpec").
#[test]
fn refusals_print_numbers_compactly_and_name_no_rust_type() {
    let (mut cases, mut refused) = (0, 0);
    let mut dir: Vec<_> = std::fs::read_dir(fixture("")).unwrap().map(|e| e.unwrap().path()).collect();
    dir.sort();
    for path in dir {
        let base: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut paths = vec![];
        crate::robustness::value_paths(&base, &mut vec![], &mut paths);
        paths.retain(|at| get_mut(&mut base.clone(), at).is_number());
        for at in paths {
            for new in [json!(1e308), json!(-1e308), json!(1e-320), json!("1")] {
                let mut v = base.clone();
                *get_mut(&mut v, &at) = new.clone();
                cases += 1;
                let Err(e) = Scenario::from_json(&v.to_string()).and_then(|s| s.build().map(|_| ())) else {
                    continue;
                };
                refused += 1;
                let message = e.to_string();
                let digits = message.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
                assert!(digits < 25, "{} {at:?} = {new}: {message}", path.display());
                for rust in ["untagged enum", "f64", "u64", "usize", "Spec`"] {
                    assert!(!message.contains(rust), "{} {at:?} = {new}: {message}", path.display());
                }
            }
        }
    }
    println!("{cases} cases, {refused} refused");
    assert!(refused > cases / 2, "most of these values are out of range: {refused} of {cases}");
}

/// Springs so slow that their single-precision stiffness is 0 were locked by the engine: a robot of
/// 1e-20 Hz stood as a rigid one (issue 52). The floor is refused at its field.
#[test]
fn springs_too_slow_for_the_engine_are_refused_at_their_field() {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(fixture("two-material.json")).unwrap()).unwrap();
    v["robots"][0]["materials"]["h"]["spring_hz"] = json!(1e-20);
    let e = Scenario::from_json(&v.to_string()).and_then(|s| s.build().map(|_| ())).err().expect("refused");
    assert!(e.to_string().contains("robots[0].materials.h") && e.to_string().contains("spring_hz"), "{e}");
    assert!(e.to_string().contains("[1e-6, 10000] Hz"), "{e}");
}
