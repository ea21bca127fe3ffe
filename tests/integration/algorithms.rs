//! The optimizers beside the GA (CMA-ES, NSGA-II, MAP-Elites) through the one run shell: the same run
//! directory for any thread count, after an interruption and through ask/tell with JSON records; the
//! best scenario replays to its logged fitness; bad specs are refused with the JSON path and the fix.

use std::fs;
use std::path::Path;

use vsr2d::evolve::reader::RunDirectory;
use vsr2d::evolve::{run, Evolution, Experiment, RunOptions};
use vsr2d::scenario::Scenario;

const WORLD: &str = r#""scenario": {"world": {"dt": 0.03333333333333333, "duration": 2}}"#;

fn cma_es(seed: u64) -> String {
    format!(
        r#"{{"name": "tiny", "seed": {seed}, "algorithm": {{"type": "cma_es", "generations": 3, "population": 6}},
            "representation": {{"type": "phases", "body": "worm"}}, {WORLD}}}"#
    )
}

fn nsga2(seed: u64) -> String {
    format!(
        r#"{{"name": "tiny", "seed": {seed}, "algorithm": {{"type": "nsga2", "generations": 3, "population": 6}},
            "representation": {{"type": "phases", "body": "worm"}},
            "fitness": {{"objectives": [{{"metric": "x_velocity", "goal": "max"}},
                                        {{"metric": "center_avg_y", "goal": "min"}}]}}, {WORLD}}}"#
    )
}

fn map_elites(seed: u64) -> String {
    format!(
        r#"{{"name": "tiny", "seed": {seed},
            "algorithm": {{"type": "map_elites", "generations": 3, "initial": 8, "batch": 6,
                           "descriptors": [{{"metric": "x_distance", "min": -0.3, "max": 0.3, "bins": 4}},
                                           {{"metric": "center_avg_y", "min": 0.3, "max": 0.7, "bins": 3}}]}},
            "representation": {{"type": "phases", "body": "worm"}}, {WORLD}}}"#
    )
}

fn all() -> [(&'static str, fn(u64) -> String); 3] {
    [("cma_es", cma_es), ("nsga2", nsga2), ("map_elites", map_elites)]
}

fn evolve(text: &str, dir: &Path, jobs: usize, stop_after: Option<u32>) -> vsr2d::evolve::RunSummary {
    let experiment = Experiment::from_json(text).unwrap();
    run(&experiment, text, &RunOptions { dir: dir.to_path_buf(), jobs, stop_after }, &mut |_| {}).unwrap()
}

/// Every file of a run directory but `timing.jsonl` (wall-clock) and the ownership marker and lock.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["", "generations"] {
        let mut names: Vec<String> = fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "timing.jsonl" && !n.starts_with(".vsr2d-run"))
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| {
            let path = dir.join(sub).join(&n);
            (format!("{sub}/{n}"), fs::read(path).unwrap())
        }));
    }
    out
}

fn same_outputs(a: &Path, b: &Path, what: &str) {
    let (oa, ob) = (outputs(a), outputs(b));
    let names = |o: &[(String, Vec<u8>)]| o.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&oa), names(&ob), "{what}");
    for ((name, x), (_, y)) in oa.iter().zip(&ob) {
        assert!(x == y, "{name} differs {what}");
    }
}

#[test]
fn every_algorithm_gives_one_run_directory_for_any_thread_count_interruption_or_evaluator() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, experiment) in all() {
        let text = experiment(2);
        let (a, b, cut, remote) = (
            tmp.path().join(format!("{name}-a")),
            tmp.path().join(format!("{name}-b")),
            tmp.path().join(format!("{name}-cut")),
            tmp.path().join(format!("{name}-remote")),
        );
        let whole = evolve(&text, &a, 1, None);
        assert!(whole.finished && whole.generation == 3, "{name}");
        evolve(&text, &b, 2, None);
        same_outputs(&a, &b, &format!("{name}: between --jobs 1 and --jobs 2"));
        // Stopped after generation 1 with a half-written line after the checkpoint, as a kill leaves it.
        evolve(&text, &cut, 1, Some(1));
        let mut log = fs::read(cut.join("log.jsonl")).unwrap();
        log.extend_from_slice(b"{\"gen\":2,\"evalu");
        fs::write(cut.join("log.jsonl"), log).unwrap();
        assert_eq!(evolve(&text, &cut, 2, None).resumed_from, Some(1), "{name}");
        same_outputs(&a, &cut, &format!("{name}: after an interruption"));
        // Ask/tell with records that went through JSON text, told in the asked order.
        let mut evolution = Evolution::open(Experiment::from_json(&text).unwrap(), &text, &remote).unwrap();
        while !evolution.finished() {
            let asked: Vec<String> = evolution.ask().unwrap().iter().map(|a| a.json.clone()).collect();
            let records = asked
                .iter()
                .map(|json| {
                    let record = vsr2d::batch::evaluate_record(&Scenario::from_json(json).unwrap());
                    serde_json::from_str(&record.to_string()).unwrap()
                })
                .collect();
            evolution.tell(records).unwrap();
        }
        drop(evolution);
        same_outputs(&a, &remote, &format!("{name}: through ask/tell"));
        // The typed reader reads what was written.
        let run = RunDirectory::open(&a).unwrap();
        assert!(run.finished(), "{name}");
        assert_eq!(run.generations.len(), 4, "{name}");
        assert!(!run.final_population().unwrap().is_empty(), "{name}");
    }
}

#[test]
fn the_best_scenario_replays_to_its_logged_fitness_and_the_algorithms_own_files_are_consistent() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, experiment) in all() {
        let dir = tmp.path().join(name);
        let summary = evolve(&experiment(7), &dir, 2, None);
        let best = Scenario::from_json(&fs::read_to_string(dir.join("best.json")).unwrap()).unwrap();
        let record = vsr2d::batch::evaluate_record(&best);
        let replayed = match name {
            "nsga2" => record.pointer("/robots/0/x_velocity"),
            _ => record.pointer("/robots/0/relative_x_velocity"),
        };
        assert_eq!(replayed.and_then(|v| v.as_f64()), summary.best, "{name}: best.json replays to its fitness");
        let run = RunDirectory::open(&dir).unwrap();
        match name {
            "nsga2" => {
                // No front member dominates another; every one is a member of the final population.
                let front = run.front().unwrap();
                assert!(!front.is_empty());
                let dominates = |a: &[f64], b: &[f64]| {
                    // x_velocity maximised, center_avg_y minimised
                    a[0] >= b[0] && a[1] <= b[1] && (a[0] > b[0] || a[1] < b[1])
                };
                for p in &front {
                    assert!(front.iter().all(|q| !dominates(&q.objectives, &p.objectives)), "{name}: {p:?}");
                }
                assert!(front.windows(2).all(|w| w[0].objectives[0] <= w[1].objectives[0]), "ordered along x");
                let population = run.final_population().unwrap();
                for p in &front {
                    assert!(population.iter().any(|m| m.genome == p.genome));
                }
                assert!(run.generations.iter().all(|g| g.hypervolume.is_some_and(|h| h >= 0.0)));
            }
            "map_elites" => {
                // One elite per bin, each in the bin its descriptors fall in; coverage as logged.
                let archive = run.archive().unwrap();
                let mut bins: Vec<&Vec<usize>> = archive.iter().map(|e| &e.bin).collect();
                bins.sort();
                bins.dedup();
                assert_eq!(bins.len(), archive.len());
                let axes = [(-0.3, 0.3, 4usize), (0.3, 0.7, 3usize)];
                for e in &archive {
                    for (k, &(lo, hi, n)) in axes.iter().enumerate() {
                        let expected =
                            (((e.descriptors[k] - lo) / (hi - lo) * n as f64).floor().max(0.0) as usize).min(n - 1);
                        assert_eq!(e.bin[k], expected, "{e:?}");
                    }
                }
                let last = run.generations.last().unwrap();
                assert_eq!(last.coverage, Some(archive.len() as f64 / 12.0));
                // QD-score never falls: an elite is only ever replaced by a better one.
                let qd: Vec<f64> = run.generations.iter().map(|g| g.qd_score.unwrap()).collect();
                assert!(qd.windows(2).all(|w| w[1] >= w[0] - 1e-12), "{qd:?}");
            }
            _ => {
                // CMA-ES logs the best so far, which never falls.
                let best: Vec<f64> = run.generations.iter().map(|g| g.other["best_so_far"].as_f64().unwrap()).collect();
                assert!(best.windows(2).all(|w| w[1] >= w[0]), "{best:?}");
            }
        }
    }
}

fn refused(text: &str) -> String {
    match Experiment::from_json(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_algorithm_specs_are_refused_with_the_json_path_and_the_fix() {
    let base = |algorithm: &str, fitness: &str| {
        format!(
            r#"{{"algorithm": {algorithm}, "representation": {{"type": "phases", "body": "worm"}},
                "fitness": {fitness}, "scenario": {{"task": {{"type": "jumping"}}}}}}"#
        )
    };
    let objectives2 = r#"{"objectives": [{"metric": "x_velocity"}, {"metric": "control_effort", "goal": "min"}]}"#;
    let e = refused(&base(r#"{"type": "nsga2"}"#, r#"{"objectives": [{"metric": "x_velocity"}]}"#));
    assert!(e.contains("fitness.objectives") && e.contains("at least 2"), "{e}");
    let e = refused(&base(r#"{"type": "cma_es"}"#, objectives2));
    assert!(e.contains("fitness.objectives") && e.contains("nsga2"), "{e}");
    let e = refused(&base(r#"{"type": "nsga2", "population": 5}"#, objectives2));
    assert!(e.contains("algorithm.population") && e.contains("even"), "{e}");
    let e = refused(&base(
        r#"{"type": "nsga2"}"#,
        r#"{"objectives": [{"metric": "x_velocity"}, {"metric": "/jumping/airtme"}]}"#,
    ));
    assert!(e.contains("fitness.objectives[1].metric") && e.contains("airtime"), "{e}");
    let d = |axis: &str| base(&format!(r#"{{"type": "map_elites", "descriptors": [{axis}]}}"#), "{}");
    let e = refused(&d(r#"{"metric": "x_distance", "min": 1, "max": 1, "bins": 4}"#));
    assert!(e.contains("algorithm.descriptors[0]") && e.contains("max"), "{e}");
    let e = refused(&d(r#"{"metric": "x_distance", "min": 0, "max": 1, "bins": 0}"#));
    assert!(e.contains("algorithm.descriptors[0].bins"), "{e}");
    let e = refused(&base(
        r#"{"type": "map_elites", "descriptors": [{"metric": "x_distance", "min": 0, "max": 1, "bins": 2000},
                                                                 {"metric": "center_avg_y", "min": 0, "max": 1, "bins": 2000}]}"#,
        "{}",
    ));
    assert!(e.contains("algorithm.descriptors") && e.contains("1000000"), "{e}");
    let e = refused(&d(r#"{"metric": "speed", "min": 0, "max": 1, "bins": 4}"#));
    assert!(e.contains("algorithm.descriptors[0].metric") && e.contains("relative_x_velocity"), "{e}");
    let e = refused(&base(r#"{"type": "map_elites"}"#, "{}"));
    assert!(e.contains("algorithm.descriptors") && e.contains("empty"), "{e}");
    let e = refused(&base(r#"{"type": "cma_es", "sigma": -1}"#, "{}"));
    assert!(e.contains("algorithm.sigma"), "{e}");
    let e = refused(&base(r#"{"type": "annealing"}"#, "{}"));
    assert!(e.contains("algorithm") && e.contains("cma_es"), "{e}");
    let e = refused(&format!(
        r#"{{"ea": {{"n_pop": 4}}, "algorithm": {{"type": "cma_es"}}, "representation": {{"type": "phases", "body": "worm"}}}}"#
    ));
    assert!(e.contains("ea") && e.contains("remove `ea`"), "{e}");
    // A misspelled pointer, another task's metric, a trailing slash, a leading zero, a nullable metric.
    for (metric, says) in [
        ("/jumping/airtme", "airtime"),
        ("/carrying/carried_distance", "`carrying` task"),
        ("/robots/0/x_velocity/", "no \"\""),
        ("/robots/00/x_velocity", "leading"),
        ("/robots/0/label", "not a number"),
    ] {
        let e = refused(&base(r#"{"type": "cma_es"}"#, &format!(r#"{{"metric": "{metric}"}}"#)));
        assert!(e.contains("fitness.metric") && e.contains(says), "{metric}: {e}");
    }
    // The GA written as an algorithm is the same experiment as the `ea` block (same hash, same run).
    let a = Experiment::from_json(
        r#"{"algorithm": {"type": "ga", "n_pop": 10}, "representation": {"type": "phases", "body": "worm"}}"#,
    )
    .unwrap();
    let b = Experiment::from_json(r#"{"ea": {"n_pop": 10}, "representation": {"type": "phases", "body": "worm"}}"#)
        .unwrap();
    assert_eq!(a.resolved_json(), b.resolved_json());
}
