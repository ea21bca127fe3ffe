//! `vsr2d check` on the sample user repository tests/user-repo (copied to a scratch directory first, so
//! the source tree is never written), bad manifests, and the e2e goldens run through the same code.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(crate::ROOT)
}

/// A copy of tests/user-repo in a scratch directory.
fn user_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    copy_dir(&root().join("tests/user-repo"), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `vsr2d check vsr2d-check.json --baseline baselines ARGS` run in `repo`.
fn check(repo: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["check", "vsr2d-check.json", "--baseline", "baselines"])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("stdout:\n{}\nstderr:\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.insert(path.clone(), fs::read(&path).unwrap());
        }
    }
    files
}

/// Sets every sine amplitude of the scenario to `amplitude` (the deliberate change).
fn set_amplitude(path: &Path, amplitude: f64) {
    let mut s: serde_json::Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    for cell in s["robots"][0]["controller"]["cells"].as_array_mut().unwrap() {
        cell["function"]["amplitude"] = amplitude.into();
    }
    fs::write(path, serde_json::to_string_pretty(&s).unwrap()).unwrap();
}

/// Box of the pixels that are part of a robot in `img`: the voxels' fill is the only saturated colour
/// below the overlay and legend band of the frame (sky, grid, ground and text are greys).
fn robot_box(img: &image::RgbaImage, top: u32) -> (u32, u32, u32, u32) {
    let mut b = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in img.enumerate_pixels().filter(|(_, y, _)| *y >= top) {
        let (mx, mn) = (p[0].max(p[1]).max(p[2]), p[0].min(p[1]).min(p[2]));
        if mx - mn > 60 {
            b = (b.0.min(x), b.1.min(y), b.2.max(x), b.3.max(y));
        }
    }
    assert!(b.0 <= b.2, "no robot pixels found");
    b
}

#[test]
fn the_user_repository_passes_fails_after_a_change_and_passes_after_update() {
    let repo = user_repo();
    let r = repo.path();
    let first = check(r, &["--jobs", "2"]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.contains("pass  biped") && stdout.contains("pass  worm"), "{stdout}");

    // The deliberate change: actuation amplitude 0.9 instead of 1.
    set_amplitude(&r.join("scenarios/biped.json"), 0.9);
    let baselines = snapshot(&r.join("baselines"));
    let failed = check(r, &["--out", "check-out", "--junit", "junit.xml", "--summary", "summary.md"]);
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed));
    assert_eq!(snapshot(&r.join("baselines")), baselines, "nothing is written under the baseline without --update");
    let out = r.join("check-out");
    for f in ["biped/expected.png", "biped/actual.png", "biped/diff.png", "biped-compare.png", "biped/numbers.md"] {
        assert!(out.join(f).is_file(), "{f} missing; {}", text(&failed));
    }
    assert!(!out.join("worm").exists(), "the passing case leaves no artefacts");

    // Fixed camera: the difference lies where the robot is in either picture, not at grid lines or ticks.
    let expected = image::open(out.join("biped/expected.png")).unwrap().to_rgba8();
    let actual = image::open(out.join("biped/actual.png")).unwrap().to_rgba8();
    let diff = image::open(out.join("biped/diff.png")).unwrap().to_rgba8();
    let red: Vec<(u32, u32)> =
        diff.enumerate_pixels().filter(|(_, _, p)| p[0] == 255).map(|(x, y, _)| (x, y)).collect();
    assert!(!red.is_empty());
    let top = 42; // below the overlay box and the colour key
    let (e, a) = (robot_box(&expected, top), robot_box(&actual, top));
    let robot = (e.0.min(a.0), e.1.min(a.1), e.2.max(a.2), e.3.max(a.3));
    let margin = 3; // anti-aliased outlines
    let outside: Vec<_> = red
        .iter()
        .filter(|(x, y)| {
            *x + margin < robot.0 || *x > robot.2 + margin || *y + margin < robot.1 || *y > robot.3 + margin
        })
        .collect();
    assert!(
        outside.is_empty(),
        "{} differing pixels outside the robot's box {robot:?}, e.g. {:?}",
        outside.len(),
        &outside[..outside.len().min(5)]
    );
    let area = |b: (u32, u32, u32, u32)| f64::from((b.2 - b.0 + 1) * (b.3 - b.1 + 1));
    assert!(area(robot) < 0.25 * f64::from(diff.width() * diff.height()), "the robot is a small part of the frame");
    // The composite: three panels side by side over the caption.
    let composite = image::open(out.join("biped-compare.png")).unwrap();
    assert!(composite.width() > 3 * expected.width() && composite.height() > expected.height());

    let junit = fs::read_to_string(r.join("junit.xml")).unwrap();
    assert!(junit.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), "{junit}");
    assert_eq!(junit.matches("<testcase ").count(), 2, "{junit}");
    assert_eq!(junit.matches("<failure ").count(), 1, "{junit}");
    assert!(junit.contains("failures=\"1\"") && junit.contains("pixels differ"), "{junit}");
    assert_eq!(junit.matches("<testcase").count(), junit.matches("</testcase>").count() + 1, "{junit}");
    let summary = fs::read_to_string(r.join("summary.md")).unwrap();
    assert!(summary.contains("| biped | ❌ fail |") && summary.contains("| worm | ✅ pass |"), "{summary}");
    assert!(summary.contains("x_distance"), "the number that moved is listed: {summary}");

    let updated = check(r, &["--update"]);
    assert_eq!(updated.status.code(), Some(0), "{}", text(&updated));
    assert!(String::from_utf8_lossy(&updated.stdout).contains("updated biped"), "{}", text(&updated));
    let after = snapshot(&r.join("baselines"));
    let worm: Vec<_> = after.keys().filter(|p| p.to_string_lossy().contains("worm")).collect();
    assert!(worm.iter().all(|p| after[*p] == baselines[*p]), "--update leaves passing baselines byte-identical");
    let again = check(r, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
}

#[test]
fn a_number_beyond_its_tolerance_fails_while_the_pixels_stay_within_budget() {
    let repo = user_repo();
    let r = repo.path();
    set_amplitude(&r.join("scenarios/worm.json"), 0.995);
    let manifest_path = r.join("vsr2d-check.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&fs::read_to_string(&manifest_path).unwrap()).unwrap();
    let worm = manifest["cases"].as_array_mut().unwrap().iter_mut().find(|c| c["name"] == "worm").unwrap();
    worm["tolerance"] = serde_json::json!({"channel": 8, "pixels": "100%"});
    worm["fields"] = serde_json::json!([{"field": "x_distance", "abs": 1e-9}]);
    manifest["cases"] = serde_json::json!([worm.clone()]);
    fs::write(&manifest_path, manifest.to_string()).unwrap();
    let tight = check(r, &["--summary", "summary.md"]);
    assert_eq!(tight.status.code(), Some(1), "{}", text(&tight));
    let stdout = String::from_utf8_lossy(&tight.stdout);
    assert!(stdout.contains("x_distance") && !stdout.contains("worm.png:"), "only the number fails: {stdout}");

    manifest["cases"][0]["fields"][0]["abs"] = 0.5.into();
    fs::write(&manifest_path, manifest.to_string()).unwrap();
    // A baseline made by another vsr2d is a note, not a failure.
    let record = r.join("baselines/worm.json");
    let mut baseline: serde_json::Value = serde_json::from_str(&fs::read_to_string(&record).unwrap()).unwrap();
    baseline["vsr2d_version"] = "0.0.1-old".into();
    fs::write(&record, baseline.to_string()).unwrap();
    let loose = check(r, &["--summary", "loose.md"]);
    assert_eq!(loose.status.code(), Some(0), "{}", text(&loose));
    let summary = fs::read_to_string(r.join("loose.md")).unwrap();
    assert!(summary.contains("all 1 cases pass") && summary.contains("baseline made by vsr2d 0.0.1-old"), "{summary}");
}

#[test]
fn a_missing_baseline_fails_with_exit_2_until_update_writes_it() {
    let repo = user_repo();
    let r = repo.path();
    fs::remove_file(r.join("baselines/worm.png")).unwrap();
    let before = snapshot(&r.join("baselines"));
    let missing = check(r, &["--out", "out"]);
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert!(text(&missing).contains("--update"), "{}", text(&missing));
    assert_eq!(snapshot(&r.join("baselines")), before);
    assert!(r.join("out/worm/actual.png").is_file(), "the new picture is in --out to look at");
    let update = check(r, &["--update"]);
    assert_eq!(update.status.code(), Some(0), "{}", text(&update));
    assert!(String::from_utf8_lossy(&update.stdout).contains("worm.png: created"), "{}", text(&update));
    assert_eq!(check(r, &[]).status.code(), Some(0));
    // No temporary file is left next to the baselines.
    let names: Vec<String> = fs::read_dir(r.join("baselines"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn bad_manifests_and_outputs_are_refused_with_the_path_and_the_fix() {
    let repo = user_repo();
    let r = repo.path();
    let before = snapshot(r);
    for (manifest, wants) in [
        (
            r#"{"cases": [{"name": "a", "scenarios": ["scenarios/worm.json"], "tolerance": {"pixel": 3}}]}"#,
            &["cases[0].tolerance", "unknown field", "vsr2d schema --manifest"][..],
        ),
        (
            r#"{"cases": [{"name": "a", "scenarios": ["scenarios/worm.json"], "camera": "moving"}]}"#,
            &["cases[0].camera", "\"fixed\", \"follow\""][..],
        ),
        (r#"{"cases": [{"name": "a/b", "scenarios": ["scenarios/worm.json"]}]}"#, &["cases[0].name", "letters"][..]),
        (
            r#"{"cases": [{"name": "a", "scenarios": ["scenarios/worm.json"], "size": "big"}]}"#,
            &["cases[0].size", "WIDTHxHEIGHT"][..],
        ),
        (
            r#"{"cases": [{"name": "a", "scenarios": ["scenarios/worm.json"], "tolerance": {"pixels": "lots"}}]}"#,
            &["cases[0].tolerance.pixels", "percentage"][..],
        ),
        (r#"{"cases": [{"name": "a", "scenarios": ["nope.json"]}]}"#, &["nope.json", "cannot read scenario"][..]),
        (r#"{"cases": [{"name": "a"}]}"#, &["cases[0].scenarios", "nothing to render"][..]),
        (
            r#"{"cases": [{"name": "a", "scenarios": ["scenarios/worm.json"], "fields": [{"field": "speed"}]}]}"#,
            &["field `speed`", "JSON pointer"][..],
        ),
    ] {
        fs::write(r.join("bad.json"), manifest).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
            .args(["check", "bad.json", "--baseline", "baselines", "--out", "out"])
            .current_dir(r)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{manifest}: {err}");
        assert!(wants.iter().all(|w| err.contains(w)), "{manifest}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    fs::remove_file(r.join("bad.json")).unwrap();
    for (args, wants) in [
        (&["--out", "baselines/out"][..], "inside the baseline directory"),
        (&["--junit", "baselines/junit.xml"][..], "inside the baseline directory"),
        (&["--summary", "vsr2d-check.json"][..], "the file MANIFEST reads"),
        (&["--junit", "scenarios/worm.json"][..], "replace that input"),
    ] {
        let o = check(r, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stderr).contains(wants), "{args:?}: {}", text(&o));
    }
    let after = snapshot(r);
    let new: Vec<_> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    assert!(new.is_empty(), "refused checks wrote {new:?}");
    assert_eq!(after, before);
}

/// The suite's scenario-based e2e golden (tests/golden/e2e/biped_2s_320x180.png, unchanged) through the
/// manifest tests/golden/vsr2d-check.json and the `check` code path, as a user's goldens are checked.
#[test]
fn the_e2e_goldens_pass_through_the_check_command() {
    let o = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["check", "tests/golden/vsr2d-check.json", "--baseline", "tests/golden/e2e"])
        .current_dir(root())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("pass  biped_2s_320x180"), "{}", text(&o));
}

#[test]
fn the_manifest_schema_is_printed() {
    let o = Command::new(env!("CARGO_BIN_EXE_vsr2d")).args(["schema", "--manifest"]).output().unwrap();
    assert!(o.status.success());
    let schema: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = schema.to_string();
    assert!(text.contains("tolerance") && text.contains("fields") && text.contains("filmstrip"), "{text}");
}

/// Several scenarios in one case: one grid cell each, and the result holds every run.
#[test]
fn a_grid_case_shows_every_scenario_and_checks_every_run() {
    let repo = user_repo();
    let r = repo.path();
    let manifest = r#"{"cases": [{"name": "pair", "scenarios": ["scenarios/worm.json", "scenarios/biped.json"],
        "duration": 0.5, "size": "160x60", "layout": "1x2",
        "fields": [{"field": "/runs/1/robots/0/x_distance", "rel": 1e-9}]}]}"#;
    fs::write(r.join("vsr2d-check.json"), manifest).unwrap();
    let update = check(r, &["--update"]);
    assert_eq!(update.status.code(), Some(0), "{}", text(&update));
    let png = image::open(r.join("baselines/pair.png")).unwrap();
    assert_eq!((png.width(), png.height()), (160, 60));
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(r.join("baselines/pair.json")).unwrap()).unwrap();
    let labels: Vec<&str> = record["result"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["robots"][0]["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["worm", "biped"]);
    let again = check(r, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
}
