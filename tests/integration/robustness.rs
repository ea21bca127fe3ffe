//! Robustness: malformed scenarios (a seeded generator of mutated fixtures), hostile output paths,
//! closed pipes, signals and runaway batch jobs. Every case asserts a fact (an exit code, a message, the
//! bytes of a file left alone), never a duration.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use vsr2d::rng::SplitMix64;
use vsr2d::scenario::{Limits, Scenario};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vsr2d"))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(crate::ROOT).join("fixtures/scenarios").join(name)).unwrap()
}

const FIXTURES: [&str; 6] =
    ["worm.json", "biped.json", "tripod.json", "two-material.json", "sensing-biped.json", "worm-10x3-uneven.json"];

/// Waits for a child, killing it (and failing) if it has not ended after `cap`: a hang is a failure,
/// not a slow pass. The cap is generous; no test asserts anything about how long a run takes.
fn wait_or_fail(mut child: Child, cap: Duration, what: &str) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > cap {
            let _ = child.kill();
            panic!("{what} hangs (killed after {cap:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ------------------------------------------------------------------------------------------------
// The mutation generator.

/// Values that break ranges, types and the engine's f32 world.
const HOSTILE: &[&str] = &[
    "null",
    "true",
    "\"x\"",
    "[]",
    "{}",
    "[1, 2, 3]",
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-300",
    "1e38",
    "-1e38",
    "1e300",
    "1e-50",
    "1e9",
    "18446744073709551616",
    "-0.0",
    "0.5",
    "2",
    "1000000",
    "\"\"",
    "[[]]",
    "{\"type\": 1}",
    "\"legacy-1.0\"",
    "{\"type\": \"uneven\", \"spacing\": 1e-9}",
    "{\"type\": \"uneven\", \"height\": 1e308}",
];

/// Paths of every value in a JSON tree (object keys and array indices).
pub(crate) fn value_paths(v: &Value, at: &mut Vec<PathSeg>, out: &mut Vec<Vec<PathSeg>>) {
    out.push(at.clone());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                at.push(PathSeg::Key(k.clone()));
                value_paths(child, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                at.push(PathSeg::Index(i));
                value_paths(child, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
pub(crate) enum PathSeg {
    Key(String),
    Index(usize),
}

pub(crate) fn get_mut<'a>(v: &'a mut Value, path: &[PathSeg]) -> &'a mut Value {
    path.iter().fold(v, |v, seg| match seg {
        PathSeg::Key(k) => &mut v[k.as_str()],
        PathSeg::Index(i) => &mut v[*i],
    })
}

/// One mutated scenario text and a description of what was done.
pub(crate) fn mutate(rng: &mut SplitMix64, text: &str) -> (String, String) {
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n as u64) as usize;
    let mut value: Value = serde_json::from_str(text).unwrap();
    let mut done = Vec::new();
    for _ in 0..1 + pick(rng, 3) {
        let mut paths = Vec::new();
        value_paths(&value, &mut Vec::new(), &mut paths);
        let path = paths[pick(rng, paths.len())].clone();
        let target = get_mut(&mut value, &path);
        match pick(rng, 5) {
            0..=2 => {
                let h = HOSTILE[pick(rng, HOSTILE.len())];
                *target = serde_json::from_str(h).unwrap();
                done.push(format!("{path:?} = {h}"));
            }
            3 => {
                if let Value::Object(map) = target {
                    map.insert("zz_unknown".into(), Value::from(1));
                    done.push(format!("{path:?} += zz_unknown"));
                } else if let Value::Array(items) = target {
                    items.push(Value::Null);
                    done.push(format!("{path:?} += null"));
                }
            }
            _ => {
                if let Value::Object(map) = target {
                    if let Some(k) = map.keys().nth(pick(rng, map.len().max(1))).cloned() {
                        map.remove(&k);
                        done.push(format!("{path:?} -= {k}"));
                    }
                }
            }
        }
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap();
    match pick(rng, 10) {
        0 => {
            let mut cut = pick(rng, text.len());
            // On a character boundary (the same cut for ASCII texts such as the scenario fixtures).
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            done.push(format!("cut at {cut}"));
        }
        1 => {
            text.push_str(" {}");
            done.push("trailing data".into());
        }
        _ => {}
    }
    (text, done.join("; "))
}

/// What a scenario text does in the library, with the checks the command line applies.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Refused by parsing, validation or building (the command line exits 2 whatever `--duration`).
    Refused(String),
    /// Over the resource limits at the scenario's own duration.
    OverLimit(String),
    Ran,
    Failed(String),
}

fn judge(text: &str) -> Verdict {
    let scenario = match Scenario::from_json(text) {
        Ok(s) => s,
        Err(e) => return Verdict::Refused(e.to_string()),
    };
    if let Err(e) = scenario.check_limits(&Limits::DEFAULT) {
        return Verdict::OverLimit(e.to_string());
    }
    let mut short = scenario.clone();
    short.world.duration = short.world.duration.min(0.25);
    match short.build() {
        Err(e) => Verdict::Refused(e.to_string()),
        Ok(sim) => match sim.evaluate() {
            Ok(_) => Verdict::Ran,
            Err(e) => Verdict::Failed(e.to_string()),
        },
    }
}

/// 400 mutated fixtures through the library (no panic, every refusal names a JSON path), and every
/// tenth through the binary (exit 0, 1 or 2 — never a panic's 101, an abort's 134 or a hang).
#[test]
fn mutated_scenarios_are_refused_with_a_path_never_a_panic_abort_or_hang() {
    const CASES: u64 = 400;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0x5EED);
    let (mut refused, mut ran, mut failed, mut through_binary) = (0, 0, 0, 0);
    let mut codes = std::collections::BTreeMap::new();
    for case in 0..CASES {
        let base = fixture(FIXTURES[(case % FIXTURES.len() as u64) as usize]);
        let (text, what) = mutate(&mut rng, &base);
        let verdict = catch_unwind(AssertUnwindSafe(|| judge(&text)))
            .unwrap_or_else(|_| panic!("case {case} panicked ({what}):\n{text}"));
        match &verdict {
            Verdict::Refused(msg) | Verdict::OverLimit(msg) => {
                refused += 1;
                assert!(
                    msg.contains('`') || msg.starts_with("the scenario"),
                    "case {case} ({what}): the message names no JSON path: {msg}"
                );
            }
            Verdict::Ran => ran += 1,
            Verdict::Failed(_) => failed += 1,
        }
        if case % 10 == 0 {
            through_binary += 1;
            let path = dir.path().join(format!("case{case}.json"));
            std::fs::write(&path, &text).unwrap();
            let child = bin()
                .args(["simulate", path.to_str().unwrap(), "--duration", "0.25"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let out = wait_or_fail(child, Duration::from_secs(120), &format!("case {case} ({what})"));
            let code = out.status.code();
            *codes.entry(code).or_insert(0) += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(matches!(code, Some(0..=2)), "case {case} ({what}): exit {code:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "case {case}: {stderr}");
            if matches!(verdict, Verdict::Refused(_)) {
                assert_eq!(code, Some(2), "case {case} ({what}): {stderr}");
            }
        }
    }
    eprintln!(
        "{CASES} mutated scenarios: {refused} refused with a path, {ran} ran, {failed} failed while running; \
         {through_binary} through the binary, exit codes {codes:?}"
    );
    assert!(refused > CASES / 2, "the generator must mostly break things: {refused} refused");
}

// ------------------------------------------------------------------------------------------------
// The newer surfaces: tasks, objects, terrains, distributed controllers.

/// `judge` on a thread of its own, failing on a panic and on a case that is still running after `cap`
/// (a hang is a failure, not a slow pass; the thread of a hung case is left behind, the test fails).
fn judge_within(text: &str, cap: Duration, what: &str) -> Verdict {
    let (tx, rx) = std::sync::mpsc::channel();
    let text = text.to_string();
    std::thread::spawn(move || {
        let _ = tx.send(catch_unwind(AssertUnwindSafe(|| judge(&text))));
    });
    match rx.recv_timeout(cap) {
        Ok(Ok(verdict)) => verdict,
        Ok(Err(_)) => panic!("{what} panicked"),
        Err(_) => panic!("{what} hangs (still running after {cap:?})"),
    }
}

/// The base scenarios of the newer surfaces, 0.5 s each, by group: every task (locomotion with a
/// transient), rigid objects of every motion, every terrain (flat with a ceiling) and distributed
/// controllers (homogeneous and heterogeneous).
fn surface_fixtures() -> Vec<(&'static str, String, Value)> {
    use serde_json::json;
    let parse = |text: &str| -> Value { serde_json::from_str(text).unwrap() };
    let mut out: Vec<(&'static str, String, Value)> = Vec::new();
    for task in ["jumping", "carrying", "pushing", "climbing", "balancing", "shape"] {
        out.push(("tasks", format!("{task}.json"), parse(&fixture(&format!("{task}.json")))));
    }
    let mut worm = parse(&fixture("worm.json"));
    worm["task"] = json!({"type": "locomotion", "transient": 0.1});
    out.push(("tasks", "worm.json, transient 0.1".into(), worm));
    let mut objects = parse(&fixture("biped.json"));
    objects["objects"] = json!([
        {"label": "crate", "size": [2, 1.5], "position": [30, 5], "velocity": [-1, 0], "mass": 2},
        {"label": "wall", "size": [1, 4], "position": [60, 2], "motion": "fixed", "friction": 0.5},
        {"label": "board", "size": [6, 0.5], "position": [45, 3], "angle": 0.1, "motion": "hinged",
         "hinge_stiffness": 10, "hinge_damping": 1}
    ]);
    out.push(("objects", "biped.json + a crate, a wall and a hinged board".into(), objects));
    let mut stack = parse(&fixture("worm.json"));
    stack["objects"] = json!([
        {"size": [1, 1], "position": [30, 0.5]},
        {"size": [1, 1], "position": [30, 1.6], "angle": 0.3, "friction": 0.2},
        {"label": "shelf", "size": [4, 0.3], "position": [36, 4], "motion": "fixed"}
    ]);
    out.push(("objects", "worm.json + two stacked boxes and a shelf".into(), stack));
    for terrain in [
        json!({"type": "flat", "ceiling": 9}),
        json!({"type": "uneven", "height": 0.5, "spacing": 2, "seed": 3}),
        json!({"type": "hilly", "height": 1, "width": 15, "seed": 1, "start": 12}),
        json!({"type": "steppy", "height": 0.75, "width": 6, "seed": 1, "start": 12}),
        json!({"type": "slope", "direction": "up", "degrees": 10, "start": 12}),
        json!({"type": "stairs", "direction": "down", "step_height": 0.5, "step_width": 6, "steps": 5, "start": 12}),
        json!({"type": "gaps", "width": 4, "spacing": 15, "depth": 20, "start": 12}),
        json!({"type": "hurdles", "height": 1, "spacing": 15, "thickness": 0.3, "start": 12}),
        json!({"type": "none"}),
    ] {
        let mut biped = parse(&fixture("biped.json"));
        let name = format!("biped.json on {terrain}");
        biped["world"]["terrain"] = terrain;
        out.push(("terrains", name, biped));
    }
    let homogeneous =
        parse(&std::fs::read_to_string(Path::new(crate::ROOT).join("docs/examples/distributed-worm.json")).unwrap());
    let mut heterogeneous = homogeneous.clone();
    let controller = &mut heterogeneous["robots"][0]["controller"];
    let weights = controller.as_object_mut().unwrap().remove("weights").unwrap();
    controller["cells"] = (0..6).map(|x| json!({"cell": [x, 0], "weights": weights.clone()})).collect();
    out.push(("distributed", "distributed-worm.json".into(), homogeneous));
    out.push(("distributed", "distributed-worm.json, heterogeneous".into(), heterogeneous));
    for (_, _, v) in &mut out {
        v["world"]["duration"] = Value::from(0.5);
    }
    out
}

#[derive(Default, Debug)]
struct Tally {
    cases: u32,
    refused: u32,
    ran: u32,
    failed: u32,
    binary: u32,
    codes: std::collections::BTreeMap<i32, u32>,
}

/// 30 mutated scenarios per base of `surface_fixtures` through the library (each refused with a message
/// naming its JSON path, or run, in at most 60 s; never a panic), every tenth through the binary (exit
/// 0, 1 or 2; 2 for a refused one, 0 for one that ran).
#[test]
fn mutated_tasks_objects_terrains_and_distributed_controllers_are_refused_with_a_path_or_run() {
    const PER_BASE: u32 = 30;
    let bases = surface_fixtures();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = SplitMix64::new(0x5C0FF);
    let mut tallies: std::collections::BTreeMap<&str, Tally> = Default::default();
    let mut case = 0;
    for (group, name, base) in &bases {
        let base_text = serde_json::to_string_pretty(base).unwrap();
        assert_eq!(judge_within(&base_text, Duration::from_secs(60), name), Verdict::Ran, "the base {name} runs");
        for _ in 0..PER_BASE {
            case += 1;
            let (text, what) = mutate(&mut rng, &base_text);
            let what = format!("case {case} ({name}: {what})");
            let verdict = judge_within(&text, Duration::from_secs(60), &what);
            let tally = tallies.entry(group).or_default();
            tally.cases += 1;
            match &verdict {
                Verdict::Refused(msg) | Verdict::OverLimit(msg) => {
                    tally.refused += 1;
                    assert!(
                        msg.contains('`') || msg.starts_with("the scenario"),
                        "{what}: the message names no JSON path: {msg}"
                    );
                    assert!(msg.len() < 2000, "{what}: a long message: {msg}");
                }
                Verdict::Ran => tally.ran += 1,
                Verdict::Failed(_) => tally.failed += 1,
            }
            if case % 10 == 0 {
                tally.binary += 1;
                let path = dir.path().join(format!("case{case}.json"));
                std::fs::write(&path, &text).unwrap();
                let child = bin()
                    .args(["simulate", path.to_str().unwrap(), "--duration", "0.25"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                let out = wait_or_fail(child, Duration::from_secs(60), &what);
                let stderr = String::from_utf8_lossy(&out.stderr);
                let code = out.status.code();
                assert!(matches!(code, Some(0..=2)), "{what}: exit {code:?}: {stderr}");
                assert!(!stderr.contains("panicked"), "{what}: {stderr}");
                *tally.codes.entry(code.unwrap()).or_insert(0) += 1;
                match verdict {
                    Verdict::Refused(_) => assert_eq!(code, Some(2), "{what}: {stderr}"),
                    Verdict::Ran => assert_eq!(code, Some(0), "{what}: {stderr}"),
                    _ => {}
                }
            }
        }
    }
    for (group, t) in &tallies {
        eprintln!(
            "{group}: {} mutated scenarios, {} refused with a path, {} ran, {} failed while running; {} through \
             the binary, exit codes {:?}",
            t.cases, t.refused, t.ran, t.failed, t.binary, t.codes
        );
        assert!(t.refused > 0 && t.ran > 0, "{group}: the mutations must both break and keep scenarios: {t:?}");
        assert!(t.codes.contains_key(&2), "{group}: a refused case reaches the binary: {t:?}");
    }
    assert_eq!(tallies.len(), 4);
    let total: u32 = tallies.values().map(|t| t.cases).sum();
    assert_eq!(total, PER_BASE * bases.len() as u32);
}

// ------------------------------------------------------------------------------------------------
// Output destinations.

#[cfg(unix)]
#[test]
fn a_device_node_is_written_directly_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let worm = dir.path().join("worm.json");
    std::fs::write(&worm, fixture("worm.json")).unwrap();
    let out = bin()
        .args(["simulate", worm.to_str().unwrap(), "--duration", "0.5", "--record", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let out = bin()
        .args(["render", worm.to_str().unwrap(), "--duration", "0.2", "--size", "64x36", "--png", "/dev/null", "-q"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata("/dev/null").unwrap().file_type().is_char_device());
    // A directory as a recording is refused at once, before simulating.
    let out =
        bin().args(["simulate", worm.to_str().unwrap(), "--record", dir.path().to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn jobs_file(dir: &Path) -> PathBuf {
    let path = dir.join("jobs.jsonl");
    let scenario = r###"{"world": {"duration": 0.5}, "robots": [{"body": ["##"]}]}"###;
    std::fs::write(
        &path,
        format!("{{\"id\": 1, \"scenario\": {scenario}}}\n{{\"id\": 2, \"scenario\": {scenario}}}\n"),
    )
    .unwrap();
    path
}

fn eval(input: &Path, output: &Path, extra: &[&str]) -> Output {
    bin()
        .args(["eval", "--input", input.to_str().unwrap(), "--output", output.to_str().unwrap(), "--quiet"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn eval_refuses_a_foreign_output_file_and_leaves_it_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = jobs_file(dir.path());
    for foreign in [
        "my notes".to_string(),                      // one line, no final newline
        "my notes\n".to_string(),                    // one complete line
        fixture("worm.json").trim_end().to_string(), // a scenario without a final newline
        "{\"id\":1,\"line\":0,\"metrics\":{\"robots\":[]}}\nhalf".to_string(), // ours, then foreign
    ] {
        let out_path = dir.path().join("results.jsonl");
        std::fs::write(&out_path, &foreign).unwrap();
        let out = eval(&jobs, &out_path, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{foreign:?}: {stderr}");
        assert!(stderr.contains("cannot resume"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&out_path).unwrap(), foreign, "the file must be untouched");
    }
    // A device is no results file either.
    let out = eval(&jobs, Path::new("/dev/null"), &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn eval_refuses_an_output_that_is_a_hard_link_to_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = jobs_file(dir.path());
    let before = std::fs::read(&jobs).unwrap();
    let link = dir.path().join("results.jsonl");
    std::fs::hard_link(&jobs, &link).unwrap();
    let out = eval(&jobs, &link, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("same file"), "{stderr}");
    assert_eq!(std::fs::read(&jobs).unwrap(), before, "the input must be untouched");
}

// ------------------------------------------------------------------------------------------------
// Pipes and signals.

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_quietly_and_a_full_disk_is_an_error() {
    // `true` exits at once, so the schema is written into a pipe nobody reads.
    let out = Command::new("sh")
        .arg("-c")
        .arg("{ sleep 1; \"$0\" schema; echo \"exit=$?\" >&2; } | true")
        .arg(env!("CARGO_BIN_EXE_vsr2d"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exit=0"), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("error"), "{stderr}");

    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let out = bin().arg("schema").stdout(full).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write to stdout") && !stderr.contains("panicked"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn sigterm_and_sigint_delete_the_temporary_files() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let worm = dir.path().join("worm.json");
    std::fs::write(&worm, fixture("worm.json")).unwrap();
    let record = dir.path().join("run.jsonl");
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        let child = bin()
            .args(["simulate", worm.to_str().unwrap(), "--duration", "5000", "--record", record.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until the recording's temporary file exists (the run is then well under way).
        let temporaries = || -> Vec<String> {
            std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(".run.jsonl."))
                .collect()
        };
        let start = Instant::now();
        while temporaries().is_empty() {
            assert!(start.elapsed() < Duration::from_secs(60), "no temporary file appeared");
            std::thread::sleep(Duration::from_millis(20));
        }
        let kill = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(kill.success());
        let out = wait_or_fail(child, Duration::from_secs(60), "the signalled run");
        assert_eq!(out.status.signal(), Some(number), "dies of the signal: {:?}", out.status);
        assert!(temporaries().is_empty(), "left behind: {:?}", temporaries());
        assert!(!record.exists(), "no partial recording is published");
    }
}

// ------------------------------------------------------------------------------------------------
// Runaway and absurd batch jobs.

#[test]
fn runaway_and_absurd_jobs_become_error_records_and_the_batch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs.jsonl");
    let lines = [
        // Runs for days of simulated time: stopped by --job-timeout.
        r###"{"id": "runaway", "scenario": {"world": {"duration": 100000}, "robots": [{"body": ["##"]}]}}"###,
        // Would allocate terabytes (defect 2): refused by the validation range.
        r###"{"id": "spacing", "scenario": {"world": {"terrain": {"type": "uneven", "spacing": 1e-9}}, "robots": [{"body": ["#"]}]}}"###,
        // Over the voxel limit.
        &format!(
            r###"{{"id": "huge", "scenario": {{"robots": [{{"body": {}}}]}}}}"###,
            serde_json::json!(vec!["#".repeat(200); 200])
        ),
        // A metric that is not finite.
        r###"{"id": "inf", "scenario": {"world": {"duration": 1, "compat": "legacy-1.0"}, "robots": [{"body": ["##"], "controller": {"type": "time_functions", "default": {"type": "expr", "expr": "1/0"}}}]}}"###,
        r###"{"id": "fine", "scenario": {"world": {"duration": 0.5}, "robots": [{"body": ["##"]}]}}"###,
    ];
    std::fs::write(&jobs, lines.join("\n") + "\n").unwrap();
    let results = dir.path().join("results.jsonl");
    let child = bin()
        .args(["eval", "--input", jobs.to_str().unwrap(), "--output", results.to_str().unwrap(), "--quiet"])
        .args(["--job-timeout", "0.5", "--jobs", "2"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_or_fail(child, Duration::from_secs(300), "the batch");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&results).unwrap();
    let records: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let error = |i: usize| records[i]["error"].as_str().unwrap_or_default().to_string();
    assert_eq!(records.len(), 5);
    assert!(error(0).contains("time budget") && error(0).contains("--job-timeout"), "{}", error(0));
    assert!(error(1).contains("world.terrain") && error(1).contains("spacing"), "{}", error(1));
    assert!(error(2).contains("voxels") && error(2).contains("--allow-large"), "{}", error(2));
    assert!(error(3).contains("control_effort") && error(3).contains("not a finite number"), "{}", error(3));
    assert!(records[4]["metrics"].is_object());
    // The file stays resumable: a rerun finds every record its own.
    let again = eval(&jobs, &results, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(std::fs::read_to_string(&results).unwrap(), text);
}

#[test]
fn absurd_command_line_bounds_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let worm = dir.path().join("worm.json");
    std::fs::write(&worm, fixture("worm.json")).unwrap();
    let w = worm.to_str().unwrap();
    for args in [
        vec!["simulate", w, "--duration", "1e308"],
        vec!["render", w, "--duration", "1e308", "--png", "x.png"],
        vec!["render", w, "--size", "100000x100000", "--png", "x.png"],
        vec!["render", w, "--duration", "3000", "--size", "4000x4000", "--frames", "frames"],
        vec!["cantilever", "--dt", "1e-300"],
        vec!["cantilever", "--duration", "1e308"],
        vec!["cantilever", "--solver-iterations", "0"],
    ] {
        let child =
            bin().args(&args).current_dir(dir.path()).stderr(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
        let out = wait_or_fail(child, Duration::from_secs(60), &format!("{args:?}"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.len() < 400, "compact message: {stderr}");
    }
    // A still far after the end shows the last frame (no endless frame search).
    let child = bin()
        .args(["render", w, "--duration", "0.2", "--size", "64x36", "--png", "s.png", "--at", "1e308", "-q"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    assert_eq!(wait_or_fail(child, Duration::from_secs(60), "--at 1e308").status.code(), Some(0));
}

// ------------------------------------------------------------------------------------------------
// Error paths: the innermost field, inside tagged enums too.

/// The JSON path of `path` as serde_path_to_error spells it (`robots[0].controller.cells[2].cell[0]`).
fn json_path(path: &[PathSeg]) -> String {
    path.iter().fold(String::new(), |s, seg| match seg {
        PathSeg::Key(k) if s.is_empty() => k.clone(),
        PathSeg::Key(k) => format!("{s}.{k}"),
        PathSeg::Index(i) => format!("{s}[{i}]"),
    })
}

/// Every leaf of every fixture given a value of the wrong type is refused at exactly that leaf's path,
/// also inside controllers, time functions and terrains (internally tagged enums, whose content serde
/// buffers), e.g. `robots[0].controller.cells[3].function.phase`.
#[test]
fn a_wrong_type_anywhere_in_a_fixture_is_reported_at_that_field() {
    let mut checked = 0;
    let mut deepest = String::new();
    for name in FIXTURES {
        let base: Value = serde_json::from_str(&fixture(name)).unwrap();
        let mut paths = Vec::new();
        value_paths(&base, &mut Vec::new(), &mut paths);
        for path in paths {
            let wrong = match get_mut(&mut base.clone(), &path) {
                Value::Number(_) | Value::Bool(_) => Value::from("x"),
                Value::String(_) => Value::from(1),
                _ => continue,
            };
            let mut value = base.clone();
            *get_mut(&mut value, &path) = wrong;
            let want = json_path(&path);
            match Scenario::from_json(&value.to_string()) {
                Err(vsr2d::scenario::ScenarioError::Json { path: got, message }) => {
                    assert_eq!(got, want, "{name}: {message}");
                }
                other => panic!("{name}: {want} of the wrong type gave {other:?}"),
            }
            if want.len() > deepest.len() {
                deepest = want;
            }
            checked += 1;
        }
    }
    eprintln!("{checked} wrong-typed fields, each reported at its own path (deepest: {deepest})");
    assert!(checked > 400 && deepest.contains("controller."), "{checked}: {deepest}");
}

// ------------------------------------------------------------------------------------------------
// Recordings (`render --from`): the seeded generator over mutated lines.

/// A short recording of each of two fixtures, with every optional content.
pub(crate) fn recordings(dir: &Path) -> Vec<String> {
    ["worm.json", "sensing-biped.json"]
        .iter()
        .map(|name| {
            let mut scenario = Scenario::from_json(&fixture(name)).unwrap();
            scenario.world.duration = 0.1;
            scenario.world.snapshot = vsr2d::snapshot::SnapshotDetail::ALL;
            let path = dir.join(format!("{name}.jsonl"));
            let mut recorder = vsr2d::output::record::JsonlRecorder::create(&path, 2).unwrap();
            scenario.build().unwrap().run(&mut [&mut recorder as &mut dyn vsr2d::snapshot::SnapshotListener]).unwrap();
            recorder.finish().unwrap();
            std::fs::read_to_string(&path).unwrap()
        })
        .collect()
}

/// Raw JSON put into a recording: wrong types, NaN and infinity as strings, numbers beyond f64.
const HOSTILE_RECORDED: &[&str] = &[
    "null",
    "\"NaN\"",
    "\"inf\"",
    "\"-Infinity\"",
    "\"x\"",
    "[]",
    "{}",
    "[1, 2, 3]",
    "-1",
    "0",
    "1e308",
    "-1e308",
    "1e400",
    "-1e400",
    "1e-320",
    "18446744073709551616",
    "true",
    "{\"kind\": \"wall\"}",
    "{\"kind\": 1}",
];

/// One mutated recording (bytes) and what was done.
fn mutate_recording(rng: &mut SplitMix64, text: &str) -> (Vec<u8>, String) {
    let pick = |rng: &mut SplitMix64, n: usize| (rng.next_u64() % n.max(1) as u64) as usize;
    let mut lines: Vec<Vec<u8>> = text.lines().map(|l| l.as_bytes().to_vec()).collect();
    let mut done = Vec::new();
    for _ in 0..1 + pick(rng, 2) {
        if lines.is_empty() {
            lines.push(Vec::new());
        }
        let i = pick(rng, lines.len());
        match pick(rng, 8) {
            0..=3 => {
                // A value anywhere in the line replaced by raw hostile JSON.
                let Ok(mut value) = serde_json::from_slice::<Value>(&lines[i]) else { continue };
                let mut paths = Vec::new();
                value_paths(&value, &mut Vec::new(), &mut paths);
                let path = paths[pick(rng, paths.len())].clone();
                *get_mut(&mut value, &path) = Value::from("\u{1}HOSTILE\u{1}");
                let h = HOSTILE_RECORDED[pick(rng, HOSTILE_RECORDED.len())];
                lines[i] = value.to_string().replace("\"\\u0001HOSTILE\\u0001\"", h).into_bytes();
                done.push(format!("line {i}: {path:?} = {h}"));
            }
            4 => {
                let cut = pick(rng, lines[i].len());
                lines[i].truncate(cut);
                done.push(format!("line {i} cut at {cut}"));
            }
            5 => {
                let j = pick(rng, lines.len());
                lines.swap(i, j);
                done.push(format!("lines {i} and {j} swapped"));
            }
            6 => {
                let at = pick(rng, lines[i].len());
                lines[i].insert(at, 0xff);
                done.push(format!("line {i}: invalid UTF-8 at {at}"));
            }
            _ => {
                if pick(rng, 2) == 0 {
                    lines.truncate(i);
                    done.push(format!("only the first {i} lines"));
                } else {
                    lines.insert(i, b"{\"step\": 0}".to_vec());
                    done.push(format!("line {i}: a partial snapshot inserted"));
                }
            }
        }
    }
    (lines.join(&b'\n'), done.join("; "))
}

/// 300 mutated recordings through the recording reader (`render --from` reads every line first): an
/// error naming the file and line, or a recording; never a panic. Every tenth is rendered by the binary:
/// exit 0, 1 or 2, never a panic's 101, an abort's 134 or a hang.
#[test]
fn mutated_recordings_are_errors_never_panics() {
    const CASES: u64 = 300;
    let dir = tempfile::tempdir().unwrap();
    let bases = recordings(dir.path());
    let mut rng = SplitMix64::new(0xF00D);
    let (mut refused, mut read) = (0, 0);
    let mut codes = std::collections::BTreeMap::new();
    for case in 0..CASES {
        let (bytes, what) = mutate_recording(&mut rng, &bases[(case % 2) as usize]);
        let path = dir.path().join(format!("case{case}.jsonl"));
        std::fs::write(&path, &bytes).unwrap();
        // The reader alone, from memory (what the fuzz target runs), then as `render --from` opens it.
        let from_memory = catch_unwind(AssertUnwindSafe(|| {
            let reader = vsr2d::output::record::JsonlReader::from_reader(&path, std::io::Cursor::new(bytes.clone()));
            reader.map(|s| s.map(|_| ())).collect::<Result<Vec<()>, _>>().map(|_| ())
        }))
        .unwrap_or_else(|_| panic!("case {case} panicked in the reader ({what})"));
        let opened = catch_unwind(AssertUnwindSafe(|| vsr2d::movie::MovieSource::recording(&path, None).map(|_| ())))
            .unwrap_or_else(|_| panic!("case {case} panicked opening the recording ({what})"));
        match (&from_memory, &opened) {
            (Err(e), Err(_)) => {
                refused += 1;
                let e = e.to_string();
                assert!(e.contains(&format!("case{case}.jsonl")), "case {case} ({what}): {e}");
            }
            (Ok(()), _) => read += 1,
            (Err(e), Ok(())) => panic!("case {case} ({what}): the reader refused ({e}) what render accepted"),
        }
        if case % 10 == 0 {
            let child = bin()
                .args(["render", "--from", path.to_str().unwrap(), "--size", "64x36", "-q", "--png"])
                .arg(dir.path().join(format!("case{case}.png")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let out = wait_or_fail(child, Duration::from_secs(120), &format!("case {case} ({what})"));
            let code = out.status.code();
            *codes.entry(code).or_insert(0) += 1;
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(matches!(code, Some(0..=2)), "case {case} ({what}): exit {code:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "case {case}: {stderr}");
            if from_memory.is_err() {
                assert_eq!(code, Some(2), "case {case} ({what}): {stderr}");
            }
        }
    }
    eprintln!("{CASES} mutated recordings: {refused} refused, {read} read; rendered: exit codes {codes:?}");
    assert!(refused > CASES / 2, "the generator must mostly break things: {refused} refused");
}

// ------------------------------------------------------------------------------------------------
// A recording into a pipe closed mid-run.

/// `simulate --record /dev/stdout | head -c 100`: the run stops at the next snapshot after the reader
/// has gone and ends quietly with exit 0, like every closed pipe. The scenario would take hours to run
/// (10⁵ s simulated): only a prompt stop ends it before the test's cap.
#[cfg(unix)]
#[test]
fn a_recording_into_a_pipe_closed_mid_run_stops_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let worm = dir.path().join("worm.json");
    std::fs::write(&worm, fixture("worm.json")).unwrap();
    let child = Command::new("sh")
        .arg("-c")
        .arg("{ \"$0\" simulate \"$1\" --duration 100000 --record /dev/stdout; echo \"exit=$?\" >&2; } | head -c 100 > \"$2\"")
        .arg(env!("CARGO_BIN_EXE_vsr2d"))
        .arg(&worm)
        .arg(dir.path().join("head.txt"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_or_fail(child, Duration::from_secs(120), "simulate --record into a closed pipe");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exit=0"), "{stderr}");
    assert!(!stderr.contains("error") && !stderr.contains("panicked"), "{stderr}");
    let head = std::fs::read_to_string(dir.path().join("head.txt")).unwrap();
    assert!(head.len() == 100 && head.starts_with("{\"step\":0,"), "{head}");
}
