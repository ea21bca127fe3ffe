//! Run directories are owned (docs/evolution.md, "Run directory"): `evolve` and `study` refuse, exit 2
//! and untouched, a directory holding anything else or another experiment's run; a second process on a
//! held run directory or `eval --output` is refused while the first lives, and the lock goes with the
//! process (also after `kill -9`); a killed run resumed any number of times ends with the bytes of an
//! uninterrupted one. Every case asserts an exit code, a message or the bytes of a file.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use vsr2d::rng::SplitMix64;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_vsr2d"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Every file under `dir` (relative path → bytes).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).unwrap().to_path_buf(), fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// A short worm run: 3 s simulations, 6 individuals, `n_gen` generations.
fn experiment(dir: &Path, name: &str, seed: u64, n_gen: u32) -> PathBuf {
    let path = dir.join(name);
    fs::write(
        &path,
        format!(
            r#"{{"name": "own", "seed": {seed}, "ea": {{"n_pop": 6, "n_gen": {n_gen}, "tournament": 3}},
                "representation": {{"type": "phases", "body": "worm"}},
                "scenario": {{"world": {{"dt": 0.03333333333333333, "duration": 3}}}}}}"#
        ),
    )
    .unwrap();
    path
}

fn refused(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "must exit 2: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "stderr must mention {n:?}: {stderr}");
    }
}

#[test]
fn evolve_refuses_a_users_directory_and_another_experiments_run_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let exp_a = experiment(tmp.path(), "a.json", 0, 1);
    let exp_b = experiment(tmp.path(), "b.json", 1, 1);

    // A user's files, named like a run's.
    let user = tmp.path().join("user");
    fs::create_dir_all(user.join("generations")).unwrap();
    fs::write(user.join("log.jsonl"), "my notes\n").unwrap();
    fs::write(user.join("best.json"), "{\"mine\": true}").unwrap();
    fs::write(user.join("generations/gen-0000.json"), "keep").unwrap();
    let before = snapshot(&user);
    let out = run(&["evolve", exp_a.to_str().unwrap(), "-o", user.to_str().unwrap(), "-q"]);
    refused(&out, &["not a vsr2d evolve run", "best.json", "untouched"]);
    assert_eq!(snapshot(&user), before, "nothing created, changed or deleted");

    // A finished run of experiment a; then experiment b on it.
    let done = tmp.path().join("done");
    let out = run(&["evolve", exp_a.to_str().unwrap(), "-o", done.to_str().unwrap(), "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let before = snapshot(&done);
    assert!(before.contains_key(Path::new("final_population.jsonl")));
    let out = run(&["evolve", exp_b.to_str().unwrap(), "-o", done.to_str().unwrap(), "-q"]);
    refused(&out, &["another evolve run"]);
    assert_eq!(snapshot(&done), before);
    // Without its checkpoint (the case that used to start over in it) as well.
    fs::remove_file(done.join("checkpoint.json")).unwrap();
    let before = snapshot(&done);
    let out = run(&["evolve", exp_b.to_str().unwrap(), "-o", done.to_str().unwrap(), "-q"]);
    refused(&out, &["another evolve run"]);
    assert_eq!(snapshot(&done), before);
    // A study run directory is not an evolve one's to take.
    let out = run(&["study", "body", "--quick", "-o", done.to_str().unwrap(), "--report-only"]);
    refused(&out, &["a vsr2d evolve run, not a study run"]);
}

/// Starts `args` and waits until `ready` holds (the first process holds its lock), failing on a hang.
fn start_and_wait(args: &[&str], ready: &dyn Fn() -> bool) -> Child {
    let mut child = bin().args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("{args:?} ended ({status}) before it was ready");
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{args:?} never got ready");
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

#[test]
fn a_second_evolve_on_a_held_run_directory_is_refused_and_a_killed_ones_lock_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = experiment(tmp.path(), "e.json", 0, 400);
    let dir = tmp.path().join("run");
    let d = dir.to_str().unwrap();
    let log = dir.join("log.jsonl");
    let mut first = start_and_wait(&["evolve", exp.to_str().unwrap(), "-o", d, "-q", "--jobs", "1"], &|| {
        fs::read_to_string(&log).is_ok_and(|t| t.lines().count() >= 2)
    });
    let out = run(&["evolve", exp.to_str().unwrap(), "-o", d, "-q"]);
    refused(&out, &["in use by another vsr2d process"]);
    first.kill().unwrap(); // SIGKILL: no cleanup runs
    first.wait().unwrap();
    // The lock died with the process: a resume takes the directory (stopped early: 400 generations).
    let mut resumed = start_and_wait(&["evolve", exp.to_str().unwrap(), "-o", d, "-q", "--jobs", "1"], &|| {
        fs::read_to_string(&log).is_ok_and(|t| t.lines().count() >= 3)
    });
    resumed.kill().unwrap();
    resumed.wait().unwrap();
}

#[test]
fn a_second_eval_on_a_held_results_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let jobs = tmp.path().join("jobs.jsonl");
    let scenario = fs::read_to_string(Path::new(crate::ROOT).join("fixtures/scenarios/worm.json")).unwrap();
    let mut scenario: serde_json::Value = serde_json::from_str(&scenario).unwrap();
    scenario["world"]["duration"] = 2.into();
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&serde_json::json!({"id": i, "scenario": scenario}).to_string());
        text.push('\n');
    }
    fs::write(&jobs, text).unwrap();
    let results = tmp.path().join("results.jsonl");
    let args = ["eval", "--input", jobs.to_str().unwrap(), "--output", results.to_str().unwrap(), "-q", "--jobs", "1"];
    let mut first = start_and_wait(&args, &|| fs::metadata(&results).is_ok_and(|m| m.len() > 0));
    let out = run(&args);
    refused(&out, &["in use by another vsr2d process", "results.jsonl"]);
    first.kill().unwrap();
    first.wait().unwrap();
    let before = fs::read(&results).unwrap();
    assert!(!before.is_empty());
    // The lock died with the process: the same command resumes the file and finishes it.
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = fs::read_to_string(&results).unwrap();
    assert_eq!(after.lines().count(), 400);
}

/// Kill-and-resume series: `kill -9` at seeded random moments, resumed each time with another
/// `--jobs`, ends with the same bytes as an uninterrupted run (all but `timing.jsonl`).
#[test]
fn evolve_killed_at_random_moments_and_resumed_ends_with_the_uninterrupted_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = experiment(tmp.path(), "e.json", 5, 4);
    let e = exp.to_str().unwrap();
    let reference = tmp.path().join("reference");
    let start = Instant::now();
    assert!(run(&["evolve", e, "-o", reference.to_str().unwrap(), "-q", "--jobs", "2"]).status.success());
    // As in the study series: kills in the first half of the uninterrupted run's time.
    let span_ms = (start.elapsed().as_millis() as u64).max(20);
    let strip = |mut m: BTreeMap<PathBuf, Vec<u8>>| {
        m.remove(Path::new("timing.jsonl"));
        m
    };
    let want = strip(snapshot(&reference));
    let mut rng = SplitMix64::new(0xC0FFEE);
    let (mut kills, mut series) = (0, 0);
    for s in 0..3 {
        let dir = tmp.path().join(format!("killed-{s}"));
        let d = dir.to_str().unwrap();
        series += 1;
        for attempt in 0..20 {
            let jobs = ["1", "2"][attempt % 2];
            let mut child =
                bin().args(["evolve", e, "-o", d, "-q", "--jobs", jobs]).stdout(Stdio::null()).spawn().unwrap();
            let wait_ms = span_ms / 10 + rng.next_u64() % (span_ms * 4 / 10);
            std::thread::sleep(Duration::from_millis(wait_ms));
            if child.try_wait().unwrap().is_some_and(|s| s.success()) {
                break;
            }
            child.kill().unwrap();
            child.wait().unwrap();
            kills += 1;
        }
        let out = run(&["evolve", e, "-o", d, "-q"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(strip(snapshot(&dir)), want, "series {s}");
    }
    assert!(kills >= 3, "{kills} kills in {series} series: the series must interrupt runs");
}

#[test]
fn a_study_directory_is_owned_and_its_stale_staging_directories_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("s");
    let tiny = [
        "study",
        "body",
        "--quick",
        "--pop",
        "4",
        "--generations",
        "1",
        "--duration",
        "1",
        "--runs",
        "1",
        "--no-video",
        "-q",
    ];
    let mut args = tiny.to_vec();
    args.extend_from_slice(&["-o", root.to_str().unwrap()]);
    assert!(run(&args).status.success());
    // A killed report writer's staging directory (a pid no process has).
    let stale = root.join(".vsr2d-report-~4294967295~AbCdEf");
    fs::create_dir(&stale).unwrap();
    fs::write(stale.join("curves.png"), "x").unwrap();
    let out = run(&[&args[..], &["--report-only"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!stale.exists(), "removed by the next report");
    // Other settings on the same directory: refused, untouched.
    let before = snapshot(&root);
    let mut other = args.clone();
    other[6] = "2"; // --generations 2
    refused(&run(&other), &["another study run"]);
    assert_eq!(snapshot(&root), before);
    // A report that cannot be published keeps the previous index.html.
    let index = fs::read(root.join("index.html")).unwrap();
    fs::remove_file(root.join("curves.png")).unwrap();
    fs::create_dir(root.join("curves.png")).unwrap();
    let out = run(&[&args[..], &["--report-only"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(fs::read(root.join("index.html")).unwrap(), index);
}

#[test]
fn an_init_box_that_gives_non_finite_genes_is_refused_before_running() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("e.json");
    fs::write(
        &exp,
        r#"{"ea": {"n_pop": 4, "n_gen": 1, "tournament": 2}, "representation": {"type": "phases", "body": "worm", "init": [-1e308, 1e308]},
            "scenario": {"world": {"duration": 1}}}"#,
    )
    .unwrap();
    let dir = tmp.path().join("run");
    let out = run(&["evolve", exp.to_str().unwrap(), "-o", dir.to_str().unwrap(), "-q"]);
    refused(&out, &["representation.init", "1e308"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.len() < 400, "compact numbers: {stderr}");
    assert!(!dir.join("log.jsonl").exists());
}

#[test]
fn a_fitness_robot_that_the_template_does_not_have_is_refused_at_load() {
    let tmp = tempfile::tempdir().unwrap();
    let template = fs::read_to_string(Path::new(crate::ROOT).join("fixtures/scenarios/worm.json")).unwrap();
    let exp = tmp.path().join("e.json");
    fs::write(
        &exp,
        format!(
            r#"{{"ea": {{"n_pop": 4, "n_gen": 1, "tournament": 2}}, "fitness": {{"robot": 3}},
                "representation": {{"type": "slots", "init": [0, 1], "template": {template},
                "slots": [{{"pointer": "/world/gravity/1", "gene": 0}}]}}}}"#
        ),
    )
    .unwrap();
    let out = run(&["evolve", exp.to_str().unwrap(), "-o", tmp.path().join("run").to_str().unwrap(), "-q"]);
    refused(&out, &["fitness.robot", "one robot"]);
}

/// Kill-and-resume series for `study`: `kill -9` at seeded random moments (while runs evolve, while the
/// report is written), resumed each time, ends with the bytes of an uninterrupted study (all but the
/// wall-clock files) and without staging directories.
#[test]
fn study_killed_at_random_moments_and_resumed_ends_with_the_uninterrupted_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let tiny = |dir: &Path| -> Vec<String> {
        ["study", "body", "--quick", "--pop", "4", "--generations", "2", "--duration", "1", "--runs", "2"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--no-video".into(), "-q".into(), "-o".into(), dir.to_str().unwrap().into()])
            .collect()
    };
    let args = |dir: &Path| tiny(dir);
    let reference = tmp.path().join("reference");
    let start = Instant::now();
    let out = bin().args(args(&reference)).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Kills land in the first half of the uninterrupted run's time (at least a tenth in), so the first
    // try of each series, which starts from nothing, is interrupted even when a run happens to go faster
    // than the reference did; resumed tries have less to do and may finish.
    let span_ms = (start.elapsed().as_millis() as u64).max(20);
    // Wall-clock times: each run's timing.jsonl and the report's "written in" figures.
    let strip = |m: BTreeMap<PathBuf, Vec<u8>>| -> BTreeMap<PathBuf, Vec<u8>> {
        m.into_iter().filter(|(p, _)| !WALL_CLOCK.iter().any(|w| p.ends_with(w))).collect()
    };
    let want = strip(snapshot(&reference));
    let mut rng = SplitMix64::new(0x57D1);
    let mut kills = 0;
    for s in 0..2 {
        let dir = tmp.path().join(format!("killed-{s}"));
        for _ in 0..20 {
            let mut child = bin().args(args(&dir)).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
            std::thread::sleep(Duration::from_millis(span_ms / 10 + rng.next_u64() % (span_ms * 4 / 10)));
            if child.try_wait().unwrap().is_some_and(|s| s.success()) {
                break;
            }
            child.kill().unwrap();
            child.wait().unwrap();
            kills += 1;
        }
        let out = bin().args(args(&dir)).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // The report names its directory: compare with that name replaced.
        let renamed = |m: BTreeMap<PathBuf, Vec<u8>>, from: &Path| -> BTreeMap<PathBuf, Vec<u8>> {
            let raw = from.to_str().unwrap().to_string();
            let escaped = raw.replace('/', "&#x2f;");
            m.into_iter()
                .map(|(p, b)| match String::from_utf8(b) {
                    Ok(t) => (p, t.replace(&escaped, "DIR").replace(&raw, "DIR").into_bytes()),
                    Err(e) => (p, e.into_bytes()),
                })
                .collect()
        };
        let want = renamed(want.clone(), &reference);
        let got = renamed(strip(snapshot(&dir)), &dir);
        let names = |m: &BTreeMap<PathBuf, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&got), names(&want), "series {s}: the same files");
        for (p, bytes) in &want {
            assert!(got[p] == *bytes, "series {s}: {} differs", p.display());
        }
        assert!(
            fs::read_dir(&dir).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(".vsr2d-report")),
            "a staging directory is left"
        );
    }
    eprintln!("study kill-and-resume: {kills} kill -9 in 2 series, both byte-identical");
    assert!(kills >= 2, "{kills} kills: the series must interrupt studies");
}

/// Files whose bytes hold wall-clock times.
const WALL_CLOCK: &[&str] = &["timing.jsonl"];
