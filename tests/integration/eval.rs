//! Batch evaluation (issue 5): order, determinism across --jobs and shards, restart after an
//! interrupted write, error records for bad jobs, and the `vsr2d eval` command's exit codes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use vsr2d::batch::{evaluate, run_batch, BatchOptions, EvalError, JobId, Record};
use vsr2d::scenario::Scenario;
use vsr2d::snapshot::SnapshotDetail;

/// A fixture scenario shortened to 1 s (60 steps), as JSON.
fn fixture(name: &str) -> Value {
    let path = Path::new(crate::ROOT).join("fixtures/scenarios").join(name);
    let mut scenario: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    scenario["world"]["duration"] = json!(1.0);
    scenario
}

fn job(id: Value, scenario: Value) -> String {
    json!({ "id": id, "scenario": scenario }).to_string()
}

/// Input line index → what the line is. Line 4 is blank and yields no record.
const GOOD: [u64; 6] = [0, 1, 5, 7, 8, 9];
const MALFORMED: u64 = 2;
const INVALID: u64 = 3;
const DUPLICATE: u64 = 6;
const UNSTABLE: u64 = 10;

/// Force actuation of 10⁹ N on 1 g voxels at dt = 0.1 s: the state explodes within a few steps.
fn unstable() -> Value {
    json!({
        "world": { "terrain": { "type": "flat" }, "duration": 2, "dt": 0.1, "solver_iterations": 1 },
        "robots": [{
            "body": ["##"],
            "materials": { "#": { "actuation": "force", "max_force": 1e9, "mass": 0.001 } },
            "controller": { "type": "time_functions", "default": { "type": "sin", "frequency": 3 } }
        }]
    })
}

fn write_jobs(dir: &Path) -> PathBuf {
    let lines = [
        job(json!("worm"), fixture("worm.json")),
        job(json!(1), fixture("tripod.json")),
        r#"{"id": "broken", "scenario": {"robots": [{"body": "#.to_string(),
        job(json!("no robots"), json!({ "robots": [] })),
        "   ".to_string(),
        job(json!("biped"), fixture("biped.json")),
        job(json!("worm"), fixture("tripod.json")),
        job(json!("uneven"), fixture("worm-10x3-uneven.json")),
        job(json!(2.5), fixture("two-material.json")),
        job(json!("sensing"), fixture("sensing-biped.json")),
        job(json!("unstable"), unstable()),
    ];
    let path = dir.join("jobs.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

fn options(input: &Path, output: &Path, jobs: usize, shard: Option<(usize, usize)>) -> BatchOptions {
    BatchOptions { input: input.to_path_buf(), output: output.to_path_buf(), jobs, shard, progress: false }
}

fn records(path: &Path) -> Vec<Record> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The unsharded, two-thread run every other run is compared with.
fn reference(dir: &Path, input: &Path) -> (PathBuf, String) {
    let out = dir.join("reference.jsonl");
    run_batch(options(input, &out, 2, None)).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    (out, text)
}

#[test]
fn every_job_gets_one_record_in_input_order_and_bad_jobs_only_get_error_records() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("results.jsonl");
    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!(summary.input_lines, 11);
    assert_eq!((summary.shard_jobs, summary.written, summary.errors, summary.already_done), (10, 10, 4, 0));

    let recs = records(&out);
    let lines: Vec<u64> = recs.iter().map(|r| r.line).collect();
    assert_eq!(lines, [0, 1, 2, 3, 5, 6, 7, 8, 9, 10]);
    for r in &recs {
        assert!(r.metrics.is_some() != r.error.is_some(), "record {r:?} must have exactly one outcome");
        if GOOD.contains(&r.line) {
            let m = r.metrics.as_ref().unwrap_or_else(|| panic!("line {} failed: {:?}", r.line, r.error));
            assert_eq!(m.robots.len(), 1);
            assert_eq!(m.robots[0].steps, 60);
        }
    }
    let by_line = |l: u64| recs.iter().find(|r| r.line == l).unwrap();
    assert_eq!(by_line(0).id, Some(JobId::from("worm")));
    assert_eq!(by_line(1).id, Some(JobId::from(1)));
    assert_eq!(by_line(8).id, Some(JobId::Number(serde_json::Number::from_f64(2.5).unwrap())));

    let malformed = by_line(MALFORMED);
    assert_eq!(malformed.id, None, "an unparsable line has no id");
    assert!(malformed.error.as_ref().unwrap().contains("malformed job line"), "{malformed:?}");
    let invalid = by_line(INVALID);
    assert_eq!(invalid.id, Some(JobId::from("no robots")));
    assert!(invalid.error.as_ref().unwrap().contains("no robot"), "{invalid:?}");
    let duplicate = by_line(DUPLICATE);
    assert_eq!(duplicate.id, Some(JobId::from("worm")));
    assert!(duplicate.error.as_ref().unwrap().contains("duplicate id \"worm\": line 0"), "{duplicate:?}");
    let unstable = by_line(UNSTABLE);
    assert!(unstable.error.as_ref().unwrap().contains("became unstable"), "{unstable:?}");
}

#[test]
fn batch_metrics_equal_the_library_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (out, _) = reference(dir.path(), &input);
    let uneven = records(&out).into_iter().find(|r| r.line == 7).unwrap();
    let scenario = Scenario::from_json(&fixture("worm-10x3-uneven.json").to_string()).unwrap();
    let direct = evaluate(&scenario).unwrap();
    assert_eq!(uneven.metrics.unwrap(), direct);
    // Snapshot detail is for recording only: evaluation switches it off without changing the metrics.
    let mut detailed = scenario.clone();
    detailed.world.snapshot = SnapshotDetail::ALL;
    assert_eq!(evaluate(&detailed).unwrap(), direct);
    assert_eq!(scenario.build().unwrap().run(&mut []).unwrap(), direct);
}

#[test]
fn one_thread_writes_the_same_bytes_as_two() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (_, two) = reference(dir.path(), &input);
    let out = dir.path().join("one.jsonl");
    run_batch(options(&input, &out, 1, None)).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), two);
}

#[test]
fn shards_merged_by_line_index_equal_the_unsharded_run() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (_, whole) = reference(dir.path(), &input);
    let mut merged: Vec<(u64, String)> = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("shard{i}.jsonl"));
        let summary = run_batch(options(&input, &out, 2, Some((i, 3)))).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(summary.written as usize, text.lines().count());
        for line in text.lines() {
            let r: Record = serde_json::from_str(line).unwrap();
            assert_eq!(r.line % 3, i as u64, "shard {i}/3 holds input line {}", r.line);
            merged.push((r.line, line.to_string()));
        }
    }
    merged.sort_by_key(|(l, _)| *l);
    let merged: Vec<&str> = merged.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(merged, whole.lines().collect::<Vec<_>>());
}

#[test]
fn a_restart_after_a_truncated_write_completes_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (_, whole) = reference(dir.path(), &input);
    // An interrupted run: three complete records and half of the fourth.
    let keep: usize = whole.lines().take(3).map(|l| l.len() + 1).sum();
    let fourth = whole.lines().nth(3).unwrap();
    let out = dir.path().join("interrupted.jsonl");
    std::fs::write(&out, format!("{}{}", &whole[..keep], &fourth[..fourth.len() / 2])).unwrap();

    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert!(summary.dropped_partial_line);
    assert_eq!((summary.already_done, summary.written), (3, 7));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);

    // A complete results file: nothing to do, nothing changes.
    let again = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!((again.already_done, again.written, again.dropped_partial_line), (10, 0, false));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
}

#[test]
fn a_restart_also_completes_when_the_cut_falls_on_a_line_end() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (_, whole) = reference(dir.path(), &input);
    let keep: usize = whole.lines().take(5).map(|l| l.len() + 1).sum();
    let out = dir.path().join("interrupted.jsonl");
    // A complete record whose newline was not written yet counts as partial and is redone.
    std::fs::write(&out, &whole[..keep - 1]).unwrap();
    let summary = run_batch(options(&input, &out, 1, None)).unwrap();
    assert!(summary.dropped_partial_line);
    assert_eq!((summary.already_done, summary.written), (4, 6));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
}

#[test]
fn a_results_file_of_another_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("shard0.jsonl");
    run_batch(options(&input, &out, 1, Some((0, 3)))).unwrap();
    let before = std::fs::read_to_string(&out).unwrap();
    let err = run_batch(options(&input, &out, 1, Some((1, 3)))).unwrap_err();
    assert!(matches!(err, EvalError::Resume { .. }), "{err}");
    assert!(err.is_input());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), before, "a refused resume must not touch the file");
}

#[test]
fn invalid_shards_and_missing_inputs_are_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("out.jsonl");
    for shard in [(3, 3), (0, 0)] {
        let err = run_batch(options(&input, &out, 1, Some(shard))).unwrap_err();
        assert!(matches!(err, EvalError::Shard { .. }), "{err}");
    }
    let err = run_batch(options(&dir.path().join("missing.jsonl"), &out, 1, None)).unwrap_err();
    assert!(matches!(err, EvalError::Input { .. }) && err.is_input(), "{err}");
    let err = run_batch(options(&input, &input, 1, None)).unwrap_err();
    assert!(matches!(err, EvalError::SameFile { .. }), "{err}");
    assert!(!out.exists(), "no results file is created for a refused batch");
}

#[test]
fn the_eval_command_writes_the_results_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let (_, whole) = reference(dir.path(), &input);
    let out = dir.path().join("cli.jsonl");
    let status = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["eval", "--quiet", "--jobs", "2", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&out)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
}

#[test]
fn the_eval_command_exits_2_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("cli.jsonl");
    let run = |extra: &[&str], input: &Path| {
        Command::new(env!("CARGO_BIN_EXE_vsr2d"))
            .arg("eval")
            .args(extra)
            .arg("--input")
            .arg(input)
            .arg("--output")
            .arg(&out)
            .output()
            .unwrap()
    };
    let bad_shard = run(&["--shard", "3/3"], &input);
    assert_eq!(bad_shard.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_shard.stderr).contains("0 ≤ i < n"));
    assert_eq!(run(&[], &dir.path().join("missing.jsonl")).status.code(), Some(2));
    assert!(!out.exists());
}

/// Replaces input line `index` of a jobs file.
fn replace_line(input: &Path, index: usize, text: &str) {
    let old = std::fs::read_to_string(input).unwrap();
    let mut lines: Vec<&str> = old.lines().collect();
    lines[index] = text;
    std::fs::write(input, lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_changed_scenario_under_the_same_id_and_line_is_evaluated_again() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("results.jsonl");
    run_batch(options(&input, &out, 2, None)).unwrap();
    let before = records(&out);
    assert!(before.iter().all(|r| r.scenario_hash.as_ref().is_some_and(|h| h.len() == 16)));

    // Line 1 (id 1, an early record) gets another scenario under the same id.
    let mut changed = fixture("tripod.json");
    changed["world"]["duration"] = json!(0.5);
    replace_line(&input, 1, &job(json!(1), changed));
    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!((summary.stale, summary.written, summary.already_done), (1, 1, 9), "{summary:?}");
    let after = records(&out);
    assert_ne!(after[1].metrics, before[1].metrics, "the stale record was replaced");
    assert_ne!(after[1].scenario_hash, before[1].scenario_hash);
    // The other records are the same, still in input order: the file is what a fresh run writes.
    let fresh = dir.path().join("fresh.jsonl");
    run_batch(options(&input, &fresh, 1, None)).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), std::fs::read_to_string(&fresh).unwrap());

    // An error record is re-evaluated too once its job changes: line 3 (no robots) gets one.
    replace_line(&input, 3, &job(json!("no robots"), fixture("worm.json")));
    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!((summary.stale, summary.written, summary.errors), (1, 1, 0), "{summary:?}");
    assert!(records(&out)[3].metrics.is_some());
}

#[test]
fn an_unchanged_scenario_is_not_evaluated_again_even_reformatted() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("results.jsonl");
    run_batch(options(&input, &out, 2, None)).unwrap();
    let whole = std::fs::read_to_string(&out).unwrap();
    // The same job with its keys in another order and other whitespace: the same canonical scenario.
    let scenario = fixture("worm.json");
    let pretty = serde_json::to_string_pretty(&scenario).unwrap().replace('\n', " ");
    replace_line(&input, 0, &format!(r#"{{ "scenario" : {pretty} ,  "id": "worm" }}"#));
    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!((summary.stale, summary.written, summary.already_done), (0, 0, 10), "{summary:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
}

#[test]
fn records_without_a_scenario_hash_are_evaluated_again() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("results.jsonl");
    run_batch(options(&input, &out, 2, None)).unwrap();
    let whole = std::fs::read_to_string(&out).unwrap();
    // A file written before records carried the hash.
    let old: Vec<String> = records(&out)
        .into_iter()
        .map(|mut r| {
            r.scenario_hash = None;
            r.to_line() + "\n"
        })
        .collect();
    std::fs::write(&out, old.concat()).unwrap();
    let summary = run_batch(options(&input, &out, 2, None)).unwrap();
    assert_eq!((summary.stale, summary.written, summary.already_done), (10, 10, 0), "{summary:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), whole);
}

#[test]
fn the_eval_command_says_once_how_many_records_were_stale() {
    let dir = tempfile::tempdir().unwrap();
    let input = write_jobs(dir.path());
    let out = dir.path().join("cli.jsonl");
    let eval = || {
        Command::new(env!("CARGO_BIN_EXE_vsr2d"))
            .args(["eval", "--quiet", "--jobs", "2", "--input"])
            .arg(&input)
            .arg("--output")
            .arg(&out)
            .output()
            .unwrap()
    };
    assert_eq!(eval().status.code(), Some(0));
    let mut changed = fixture("biped.json");
    changed["world"]["duration"] = json!(0.5);
    replace_line(&input, 5, &job(json!("biped"), changed.clone()));
    let mut changed = fixture("sensing-biped.json");
    changed["world"]["gravity"] = json!([0.0, -9.0]);
    replace_line(&input, 9, &job(json!("sensing"), changed));
    let run = eval();
    assert_eq!(run.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(stderr.matches("did not match their job's scenario").count(), 1, "{stderr}");
    assert!(stderr.contains("note: 2 record(s)"), "{stderr}");
    // Nothing stale any more: nothing said.
    let run = eval();
    assert!(run.stderr.is_empty(), "{}", String::from_utf8_lossy(&run.stderr));
}
