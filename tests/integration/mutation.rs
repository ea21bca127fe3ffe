//! Seeded mutation of the newer input kinds, as `robustness.rs` does for scenarios and recordings:
//! experiments, POM specs, soft-cell scenarios and marker CSVs. Each mutated input is refused with a
//! message naming where the problem is, or accepted; never a panic (or an abort: the test process would
//! die). Refused experiments also go through the binary, which must exit 2.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
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
    std::fs::read_to_string(Path::new(crate::ROOT).join(dir).join(name)).unwrap()
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
    let worm = Path::new(crate::ROOT).join("fixtures/scenarios/worm.json");
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

// ------------------------------------------------------------------------------------------------
// Fitness, objectives and descriptors as JSON pointers.

/// One pointer mutation: what it does to a valid pointer, and whether the result is still valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum PointerKind {
    AsIs,
    BareName,
    LeadingZero,
    TrailingSlash,
    NegativeIndex,
    PlusIndex,
    RobotOutOfRange,
    IndexBeyondU64,
    ToAString,
    ToAnObject,
    ToAnArray,
    Root,
    Nullable,
    OtherTask,
    NoLeadingSlash,
    Empty,
    Escaped,
    PastANumber,
    UpperCase,
    Long,
}

const POINTER_KINDS: [PointerKind; 20] = {
    use PointerKind::*;
    [
        AsIs,
        BareName,
        LeadingZero,
        TrailingSlash,
        NegativeIndex,
        PlusIndex,
        RobotOutOfRange,
        IndexBeyondU64,
        ToAString,
        ToAnObject,
        ToAnArray,
        Root,
        Nullable,
        OtherTask,
        NoLeadingSlash,
        Empty,
        Escaped,
        PastANumber,
        UpperCase,
        Long,
    ]
};

/// `pointer` (valid for `task`, whose own metric is `bare`) changed as `kind` says.
fn pointer_variant(kind: PointerKind, pointer: &str, bare: &str, task: &str) -> String {
    use PointerKind::*;
    let robot = |i: &str| format!("/robots/{i}/x_velocity");
    match kind {
        AsIs => pointer.to_string(),
        BareName => bare.to_string(),
        LeadingZero => robot("00"),
        TrailingSlash => format!("{pointer}/"),
        NegativeIndex => robot("-1"),
        PlusIndex => robot("+0"),
        RobotOutOfRange => robot("7"),
        IndexBeyondU64 => robot("18446744073709551616"),
        ToAString => "/robots/0/label".into(),
        ToAnObject => "/robots/0/morphology".into(),
        ToAnArray => "/robots".into(),
        Root => "/".into(),
        // `dropped_at` is null when the box never drops, `fell_at` when the robot never falls: never a
        // fitness, whatever the task (another task's block is refused first).
        Nullable => if task == "balancing" { "/balancing/fell_at" } else { "/carrying/dropped_at" }.into(),
        OtherTask => if task == "jumping" { "/climbing/climb_height" } else { "/jumping/max_height" }.into(),
        NoLeadingSlash => pointer.trim_start_matches('/').to_string(),
        Empty => String::new(),
        // `~1` reads as a '/' inside a key: "/~1robots/…" names a key "/robots", which no result has.
        Escaped => pointer.replacen('/', "/~1", 1),
        PastANumber => format!("{pointer}/0"),
        UpperCase => pointer.to_uppercase(),
        Long => format!("/robots/0{}", "/x".repeat(5000)),
    }
}

/// The base experiments: one per task with its own metric as a pointer, a distributed controller's
/// locomotion, NSGA-II objectives and MAP-Elites descriptors as pointers. Small enough to evolve in a
/// second (4 individuals, 1 generation, 0.5 s each).
fn pointer_experiments() -> Vec<(&'static str, &'static str, Value)> {
    let world = json!({"dt": 0.03333333333333333, "duration": 0.5, "solver_iterations": 8});
    let ga = |task: Value, pointer: &str, body: Value| {
        json!({"name": "pointers", "seed": 0, "ea": {"n_pop": 4, "n_gen": 1, "tournament": 2},
               "representation": {"type": "phases", "body": body},
               "fitness": {"metric": pointer, "goal": "max"},
               "scenario": {"world": world, "task": task}})
    };
    let mut out = vec![
        ("jumping", "max_height", ga(json!({"type": "jumping"}), "/jumping/max_height", json!("biped"))),
        ("carrying", "carried_distance", ga(json!({"type": "carrying"}), "/carrying/carried_distance", json!("biped"))),
        ("pushing", "box_distance", ga(json!({"type": "pushing"}), "/pushing/box_distance", json!("biped"))),
        (
            "climbing",
            "climb_height",
            ga(json!({"type": "climbing", "width": 6}), "/climbing/climb_height", json!(["##", "##", "##"])),
        ),
        ("balancing", "mean_abs_angle", ga(json!({"type": "balancing"}), "/balancing/mean_abs_angle", json!("biped"))),
        ("shape", "max_area_ratio", ga(json!({"type": "shape"}), "/shape/max_area_ratio", json!("biped"))),
    ];
    let mut distributed = ga(json!({"type": "locomotion", "transient": 0.1}), "/robots/0/x_velocity", json!("worm"));
    distributed["representation"] = json!({"type": "distributed_homogeneous", "body": "worm", "features": "paper6",
                                           "signals": 1, "directional": true, "hidden": []});
    out.push(("locomotion", "x_velocity", distributed));
    out.push((
        "locomotion",
        "x_velocity",
        json!({"name": "pointers-nsga2", "seed": 0,
               "algorithm": {"type": "nsga2", "generations": 1, "population": 4},
               "representation": {"type": "phases", "body": "biped", "evolve_amplitude": true},
               "fitness": {"objectives": [{"metric": "/robots/0/x_velocity", "goal": "max"},
                                          {"metric": "/robots/0/control_effort", "goal": "min"}]},
               "scenario": {"world": world}}),
    ));
    out.push((
        "locomotion",
        "relative_x_velocity",
        json!({"name": "pointers-map-elites", "seed": 0,
               "algorithm": {"type": "map_elites", "generations": 1, "initial": 4, "batch": 4,
                             "descriptors": [{"metric": "/robots/0/morphology/voxels", "min": 0.5, "max": 25.5, "bins": 10},
                                             {"metric": "/robots/0/morphology/elongation", "min": 0, "max": 1, "bins": 10}]},
               "representation": {"type": "gmm_body", "w": 5, "h": 5, "gaussians": 5, "threshold": 1,
                                  "formula": "code", "init": [0, 1], "materials": ["hard", "soft", "active", "counter"]},
               "fitness": {"metric": "/robots/0/relative_x_velocity", "goal": "max"},
               "scenario": {"world": world}}),
    ));
    out
}

/// The JSON paths of the pointers an experiment holds (fitness, objectives, descriptors).
fn pointer_slots(e: &Value) -> Vec<(String, Vec<&'static str>, usize)> {
    let mut slots = Vec::new();
    if let Some(objectives) = e["fitness"]["objectives"].as_array() {
        for i in 0..objectives.len() {
            slots.push((format!("fitness.objectives[{i}].metric"), vec!["fitness", "objectives"], i));
        }
    } else {
        slots.push(("fitness.metric".into(), vec!["fitness"], usize::MAX));
    }
    if let Some(descriptors) = e["algorithm"]["descriptors"].as_array() {
        for i in 0..descriptors.len() {
            slots.push((format!("algorithm.descriptors[{i}].metric"), vec!["algorithm", "descriptors"], i));
        }
    }
    slots
}

fn slot_mut<'a>(e: &'a mut Value, at: &[&str], i: usize) -> &'a mut Value {
    let v = at.iter().fold(e, |v, k| &mut v[*k]);
    if i == usize::MAX {
        &mut v["metric"]
    } else {
        &mut v[i]["metric"]
    }
}

/// 300 experiments whose fitness, objective or descriptor pointer is mutated (leading zeros, a trailing
/// slash, a negative or out-of-range index, a string, an object, a nullable metric, another task's
/// metric, …): every mutation that breaks it is refused with the slot's JSON path, the valid ones are
/// accepted and their pointers name a number in the result of a mapped individual; every fifth case
/// goes through `vsr2d evolve` (exit 2 refused, 0 accepted).
#[test]
fn mutated_fitness_pointers_are_refused_at_their_json_path_or_name_a_number() {
    const CASES: u64 = 300;
    let bases = pointer_experiments();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0x901E7E5);
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n as u64) as usize;
    let (mut refused, mut accepted, mut evaluated) = (0, 0, 0);
    let mut kinds = std::collections::BTreeMap::<PointerKind, (u32, u32)>::new();
    let mut codes = std::collections::BTreeMap::new();
    for case in 0..CASES {
        let (task, bare, base) = &bases[(case % bases.len() as u64) as usize];
        let mut e = base.clone();
        let slots = pointer_slots(&e);
        let (path, at, i) = &slots[pick(&mut rng, slots.len())];
        let kind = POINTER_KINDS[pick(&mut rng, POINTER_KINDS.len())];
        let target = slot_mut(&mut e, at, *i);
        let valid = target.as_str().unwrap().to_string();
        // Descriptors and objectives are per-robot metrics here: their bare name is the last step.
        let bare = if path == "fitness.metric" { bare.to_string() } else { valid.rsplit('/').next().unwrap().into() };
        *target = Value::from(pointer_variant(kind, &valid, &bare, task));
        let text = serde_json::to_string_pretty(&e).unwrap();
        let what = format!("case {case} ({task}, {path} = {kind:?}: {:?})", slot_mut(&mut e, at, *i));
        let verdict = catch_unwind(AssertUnwindSafe(|| -> Result<Experiment, String> {
            let e = Experiment::from_json(&text).map_err(|e| e.to_string())?;
            check_limits(&e, &Limits::DEFAULT).map_err(|e| e.to_string())?;
            Mapper::new(&e.representation, &e.name, e.scenario.as_ref()).map_err(|e| e.to_string())?;
            Ok(e)
        }))
        .unwrap_or_else(|_| panic!("{what} panicked"));
        let tally = kinds.entry(kind).or_default();
        match &verdict {
            Err(message) => {
                refused += 1;
                tally.1 += 1;
                assert!(message.contains(&format!("`{path}`")), "{what}: the message names no {path}: {message}");
                assert!(message.len() < 2000, "{what}: a long message: {message}");
            }
            Ok(experiment) => {
                accepted += 1;
                tally.0 += 1;
                // The pointers name a number in a real result: a mapped individual, evaluated.
                let mapper =
                    Mapper::new(&experiment.representation, &experiment.name, experiment.scenario.as_ref()).unwrap();
                let genome: Vec<f64> =
                    (0..mapper.genome_size()).map(|_| (rng.next_u64() % 1000) as f64 / 500.0 - 1.0).collect();
                if let Ok((scenario, _)) = mapper.map(&genome) {
                    let result = vsr2d::batch::evaluate(&scenario).map_err(|e| format!("{what}: {e}")).unwrap();
                    let result = serde_json::to_value(&result).unwrap();
                    for (_, at, i) in pointer_slots(&e) {
                        let metric = slot_mut(&mut e, &at, i).as_str().unwrap().to_string();
                        let pointer = vsr2d::evolve::experiment::metric_pointer(
                            &metric,
                            experiment.fitness.robot,
                            &scenario.task,
                        )
                        .unwrap();
                        assert!(
                            result.pointer(&pointer).is_some_and(Value::is_number),
                            "{what}: {pointer} in {result}"
                        );
                    }
                    evaluated += 1;
                }
            }
        }
        if case % 5 == 0 {
            let file = dir.path().join(format!("p{case}.json"));
            std::fs::write(&file, &text).unwrap();
            let out = dir.path().join(format!("run{case}"));
            let code = binary_exit(&[
                "evolve",
                file.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-q",
                "--no-media",
                "--jobs",
                "1",
            ]);
            assert_eq!(code, if verdict.is_ok() { 0 } else { 2 }, "{what}");
            *codes.entry(code).or_insert(0) += 1;
        }
    }
    eprintln!(
        "fitness pointers: {CASES} cases, {refused} refused with the slot's path, {accepted} accepted ({evaluated} \
         evaluated, every pointer a number); `vsr2d evolve` exit codes {codes:?}; by mutation (accepted, refused): \
         {kinds:?}"
    );
    use PointerKind::*;
    for (kind, (ok, bad)) in &kinds {
        match kind {
            AsIs | BareName => assert_eq!(*bad, 0, "{kind:?} must be accepted: {kinds:?}"),
            _ => assert_eq!(*ok, 0, "{kind:?} must be refused: {kinds:?}"),
        }
    }
    assert_eq!(kinds.len(), POINTER_KINDS.len(), "every mutation is drawn: {kinds:?}");
    assert!(codes.contains_key(&0) && codes.get(&2).is_some_and(|&n| n > 10), "{codes:?}");
}
