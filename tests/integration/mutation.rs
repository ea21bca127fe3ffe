//! Seeded mutation of the newer input kinds, as `robustness.rs` does for scenarios and recordings:
//! experiments, POM specs, soft-cell scenarios and marker CSVs. Each mutated input is refused with a
//! message naming where the problem is, or accepted; never a panic (or an abort: the test process would
//! die). Refused experiments also go through the binary, which must exit 2.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;

use vsr2d::evolve::limits::check_limits;
use vsr2d::evolve::{Experiment, Mapper};
use vsr2d::pom::align::{parse_tracks_csv, Units};
use vsr2d::pom::spec::PomSpec;
use vsr2d::rng::SplitMix64;
use vsr2d::scenario::{Limits, Scenario};

use super::robustness::mutate;

/// Runs the binary on a mutated input: it must end within 60 s with exit 0, 1 or 2 (no panic: 101, no
/// abort: a signal); returns the code.
fn binary_exit(args: &[&str]) -> i32 {
    let (code, stderr) = run_with_hang_guard(args, 60);
    assert!(matches!(code, Some(0..=2)) && !stderr.contains("panicked"), "vsr2d {args:?}: {code:?}: {stderr}");
    code.unwrap_or(-1)
}

/// Runs the binary, killing it (and failing) if it has not exited after `limit_s`: its exit code and stderr.
fn run_with_hang_guard(args: &[&str], limit_s: u64) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(limit_s) {
            let _ = child.kill();
            panic!("vsr2d {args:?} hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn read(dir: &str, name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(name)).unwrap()
}

#[test]
fn mutated_experiments_are_refused_with_a_path_or_map_never_a_panic() {
    const CASES: u64 = 300;
    let fixtures: Vec<String> = [
        "worm-phases-quick.json",
        "body-5x5-quick.json",
        "sensing-worm.json",
        "distributed-homogeneous-worm.json",
        "carrying-quick.json",
    ]
    .iter()
    .map(|n| read("fixtures/experiments", n))
    .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0xE4E4);
    let (mut refused, mut accepted, mut binary) = (0, 0, 0);
    for case in 0..CASES {
        let (text, what) = mutate(&mut rng, &fixtures[(case % fixtures.len() as u64) as usize]);
        let verdict = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
            let e = Experiment::from_json(&text).map_err(|e| e.to_string())?;
            check_limits(&e, &Limits::DEFAULT).map_err(|e| e.to_string())?;
            Mapper::new(&e.representation, &e.name, e.scenario.as_ref()).map_err(|e| e.to_string())?;
            Ok(())
        }));
        let verdict = verdict.unwrap_or_else(|_| panic!("case {case} ({what}) panicked:\n{text}"));
        match verdict {
            Ok(()) => accepted += 1,
            Err(message) => {
                refused += 1;
                assert!(message.contains('`'), "case {case} ({what}): no JSON path in {message:?}");
                assert!(message.len() < 2000, "case {case}: a long message (numbers in full?): {message}");
                assert!(!message.contains("Vec<") && !message.contains("Option<"), "Rust type names: {message}");
                if refused % 10 == 0 {
                    let path = dir.path().join(format!("e{case}.json"));
                    std::fs::write(&path, &text).unwrap();
                    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
                        .args([
                            "evolve",
                            path.to_str().unwrap(),
                            "-o",
                            dir.path().join(format!("r{case}")).to_str().unwrap(),
                            "-q",
                        ])
                        .output()
                        .unwrap();
                    assert_eq!(
                        out.status.code(),
                        Some(2),
                        "case {case} ({what}): {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    binary += 1;
                }
            }
        }
    }
    eprintln!("experiments: {CASES} cases, {refused} refused, {accepted} accepted; {binary} refused ones exit 2 from `vsr2d evolve`");
    assert!(refused > 50 && accepted > 20, "{refused} refused, {accepted} accepted: the mutations must do both");
    assert!(binary >= 5);
}

#[test]
fn mutated_pom_specs_are_refused_with_a_path_never_a_panic() {
    const CASES: u64 = 300;
    let base = vsr2d::pom::example::quadruped().unwrap().to_json();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0x90E);
    let (mut refused, mut accepted) = (0, 0);
    let mut codes = std::collections::BTreeMap::new();
    for case in 0..CASES {
        let (text, what) = mutate(&mut rng, &base);
        if case % 10 == 0 {
            let path = dir.path().join(format!("p{case}.json"));
            std::fs::write(&path, &text).unwrap();
            let report = dir.path().join(format!("r{case}"));
            let code = binary_exit(&["pom", path.to_str().unwrap(), "-o", report.to_str().unwrap(), "--no-video"]);
            *codes.entry(code).or_insert(0) += 1;
        }
        let verdict =
            catch_unwind(AssertUnwindSafe(|| PomSpec::from_json(&text).map(|_| ()).map_err(|e| e.to_string())))
                .unwrap_or_else(|_| panic!("case {case} ({what}) panicked:\n{text}"));
        match verdict {
            Ok(()) => accepted += 1,
            Err(message) => {
                refused += 1;
                assert!(message.contains('`') || message.contains("controls "), "case {case} ({what}): {message}");
                assert!(message.len() < 2000, "case {case}: {message}");
            }
        }
    }
    eprintln!("POM specs: {CASES} cases, {refused} refused, {accepted} accepted; `vsr2d pom` exit codes {codes:?}");
    assert!(refused > 50 && accepted > 10, "{refused} refused, {accepted} accepted");
    assert!(codes.get(&2).is_some_and(|&n| n > 5) && codes.get(&0).is_some(), "{codes:?}");
}

#[test]
fn mutated_soft_cell_scenarios_are_refused_with_a_path_never_a_panic() {
    const CASES: u64 = 200;
    let fixtures: Vec<String> = ["cell-single.json", "cells-connect.json", "cells-muscle-chain.json"]
        .iter()
        .map(|n| read("fixtures/scenarios", n))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0xCE11);
    let (mut refused, mut ran) = (0, 0);
    let mut codes = std::collections::BTreeMap::new();
    for case in 0..CASES {
        let (text, what) = mutate(&mut rng, &fixtures[(case % fixtures.len() as u64) as usize]);
        if case % 8 == 0 {
            let path = dir.path().join(format!("c{case}.json"));
            std::fs::write(&path, &text).unwrap();
            let code = binary_exit(&["simulate", path.to_str().unwrap(), "--duration", "0.1"]);
            *codes.entry(code).or_insert(0) += 1;
        }
        let verdict = catch_unwind(AssertUnwindSafe(|| -> Result<(), String> {
            let s = Scenario::from_json(&text).map_err(|e| e.to_string())?;
            s.check_limits(&Limits::DEFAULT).map_err(|e| e.to_string())?;
            let mut short = s.clone();
            short.world.duration = short.world.duration.min(0.1);
            let _ = short.build().map_err(|e| e.to_string())?.evaluate();
            Ok(())
        }))
        .unwrap_or_else(|_| panic!("case {case} ({what}) panicked:\n{text}"));
        match verdict {
            Ok(()) => ran += 1,
            Err(message) => {
                refused += 1;
                assert!(message.len() < 2000, "case {case}: {message}");
            }
        }
    }
    eprintln!("cell scenarios: {CASES} cases, {refused} refused, {ran} ran; `vsr2d simulate` exit codes {codes:?}");
    assert!(refused > 30 && ran > 10, "{refused} refused, {ran} ran");
    assert!(codes.get(&2).is_some_and(|&n| n > 3) && codes.get(&0).is_some(), "{codes:?}");
}

/// Marker CSVs (`pom align`): a valid file with one cell, row or header changed at a time.
#[test]
fn mutated_marker_csvs_are_read_or_refused_with_the_line_never_a_panic() {
    const CASES: u64 = 300;
    let mut valid = String::from("t,m1_x,m1_y,m2_x,m2_y\n");
    for i in 0..20 {
        let t = i as f64 * 0.05;
        valid.push_str(&format!("{t},{},{},{},{}\n", 10.0 + t, 20.0, 30.0 - t, 40.0));
    }
    const CELLS: &[&str] = &["NaN", "inf", "-inf", "1e308", "-1e308", "", "x", "1,2", "\"1\"", "0x10", "1e-320", "−1"];
    let dir = tempfile::tempdir().unwrap();
    let mut codes = std::collections::BTreeMap::new();
    let mut rng = SplitMix64::new(0xC5F);
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n as u64) as usize;
    let (mut refused, mut read) = (0, 0);
    for case in 0..CASES {
        let mut lines: Vec<String> = valid.lines().map(str::to_string).collect();
        let what = match pick(&mut rng, 5) {
            0 | 1 => {
                let (r, c) = (pick(&mut rng, lines.len()), pick(&mut rng, 5));
                let mut cells: Vec<String> = lines[r].split(',').map(str::to_string).collect();
                let v = CELLS[pick(&mut rng, CELLS.len())];
                if c < cells.len() {
                    cells[c] = v.to_string();
                }
                lines[r] = cells.join(",");
                format!("line {} cell {c} = {v:?}", r + 1)
            }
            2 => {
                let (a, b) = (1 + pick(&mut rng, lines.len() - 1), 1 + pick(&mut rng, lines.len() - 1));
                lines.swap(a, b);
                format!("swapped {a} and {b}")
            }
            3 => {
                let r = pick(&mut rng, lines.len());
                lines.remove(r);
                format!("removed line {}", r + 1)
            }
            _ => {
                let r = pick(&mut rng, lines.len());
                let cut = pick(&mut rng, lines[r].len().max(1));
                lines[r].truncate(cut);
                format!("line {} cut at {cut}", r + 1)
            }
        };
        let text = lines.join("\n");
        if case % 10 == 0 {
            // The binary aligns against the built-in quadruped (markers m1–m4): these two-marker files
            // are refused there, exit 2, after the same reading.
            let path = dir.path().join(format!("m{case}.csv"));
            std::fs::write(&path, &text).unwrap();
            let report = dir.path().join(format!("a{case}"));
            let code =
                binary_exit(&["pom", "align", path.to_str().unwrap(), "-o", report.to_str().unwrap(), "--no-video"]);
            *codes.entry(code).or_insert(0) += 1;
        }
        let verdict = catch_unwind(AssertUnwindSafe(|| {
            parse_tracks_csv(&text, Units::Mm).map(|_| ()).map_err(|e| e.to_string())
        }))
        .unwrap_or_else(|_| panic!("case {case} ({what}) panicked:\n{text}"));
        match verdict {
            Ok(()) => read += 1,
            Err(message) => {
                refused += 1;
                assert!(
                    message.contains("line") || message.contains("header") || message.contains("CSV"),
                    "case {case} ({what}): {message}"
                );
                assert!(message.len() < 1000, "case {case}: {message}");
            }
        }
    }
    eprintln!("marker CSVs: {CASES} cases, {refused} refused, {read} read; `vsr2d pom align` exit codes {codes:?}");
    assert!(refused > 100 && read > 10, "{refused} refused, {read} read");
    assert_eq!(codes.values().sum::<u32>(), 30, "{codes:?}");
}

/// `render -o x.mp4/` and a recording whose last time is 1e308 are refused (exit 2) before anything is
/// rendered, not after a whole video (exit 1) or never (a still of frame 10³⁰⁸).
#[test]
fn render_refuses_a_directory_output_and_an_impossible_recording_time_before_rendering() {
    let tmp = tempfile::tempdir().unwrap();
    let worm = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios/worm.json");
    let bin = || Command::new(env!("CARGO_BIN_EXE_vsr2d"));
    let out = bin()
        .args(["render", worm.to_str().unwrap(), "--duration", "1", "-q", "-o"])
        .arg(format!("{}/x.mp4/", tmp.path().display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no file name"));

    let rec = tmp.path().join("rec.jsonl");
    let ok = bin()
        .args(["simulate", worm.to_str().unwrap(), "--duration", "0.1", "--record", rec.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(ok.status.success());
    let mut lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&rec).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let n = lines.len();
    lines[n - 1]["t"] = 1e308.into();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&rec, text).unwrap();
    let png = tmp.path().join("x.png");
    let (code, stderr) =
        run_with_hang_guard(&["render", "--from", rec.to_str().unwrap(), "--png", png.to_str().unwrap(), "-q"], 120);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&format!(":{n}: t = 1e308 s")), "{stderr}");
}
