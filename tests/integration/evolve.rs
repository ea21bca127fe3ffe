//! `vsr2d evolve`: determinism across thread counts, interruption and resume, the cache, replay of the
//! best scenario, and the stability of the paper's Δt = 1/30 s with 25 Hz hard voxels (issue item 5).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use vsr2d::evolve::{run, Evolution, Experiment, RunOptions};
use vsr2d::geom::Vec2;
use vsr2d::model::terrain::Terrain;
use vsr2d::model::voxel::grid::BodyGrid;
use vsr2d::model::voxel::material::Material;
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::scenario::Scenario;
use vsr2d::sim::voxel_robot::RobotOptions;
use vsr2d::sim::world::{World, WorldSettings};
use vsr2d::task::cantilever::{self, BeamSetup};

/// A tiny worm run: 2 s simulations, 6 individuals, 3 generations.
fn tiny(seed: u64, representation: &str) -> String {
    format!(
        r#"{{"name": "tiny", "seed": {seed}, "ea": {{"n_pop": 6, "n_gen": 3, "tournament": 3}},
            "representation": {representation},
            "scenario": {{"world": {{"dt": 0.03333333333333333, "duration": 2}}}}}}"#
    )
}

const WORM: &str = r#"{"type": "phases", "body": "worm"}"#;

fn evolve(text: &str, dir: &Path, jobs: usize, stop_after: Option<u32>) -> vsr2d::evolve::RunSummary {
    let experiment = Experiment::from_json(text).unwrap();
    let options = RunOptions { dir: dir.to_path_buf(), jobs, stop_after };
    run(&experiment, text, &options, &mut |_| {}).unwrap()
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The deterministic outputs of a run directory (everything but `timing.jsonl`).
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut names = vec!["log.jsonl", "best.json", "best_gen0.json", "checkpoint.json", "final_population.jsonl"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    let mut gens: Vec<String> = fs::read_dir(dir.join("generations"))
        .unwrap()
        .map(|e| format!("generations/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    gens.sort();
    names.extend(gens);
    names.into_iter().map(|n| (n.clone(), read(dir, &n))).collect()
}

/// Asserts byte-identical deterministic outputs, naming the first file that differs.
pub(crate) fn same_outputs(a: &Path, b: &Path, what: &str) {
    let (oa, ob) = (outputs(a), outputs(b));
    let names = |o: &[(String, Vec<u8>)]| o.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&oa), names(&ob), "{what}");
    for ((name, x), (_, y)) in oa.iter().zip(&ob) {
        assert!(x == y, "{name} differs {what}");
    }
}

fn log_lines(dir: &Path) -> Vec<serde_json::Value> {
    String::from_utf8(read(dir, "log.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn the_same_seed_gives_identical_outputs_for_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (tmp.path().join("a"), tmp.path().join("b"), tmp.path().join("c"));
    evolve(&tiny(5, WORM), &a, 1, None);
    evolve(&tiny(5, WORM), &b, 2, None);
    assert_eq!(outputs(&a).len(), 5 + 4, "gen-0000 … gen-0003");
    same_outputs(&a, &b, "between --jobs 1 and --jobs 2");
    evolve(&tiny(6, WORM), &c, 2, None);
    assert_ne!(read(&a, "log.jsonl"), read(&c, "log.jsonl"), "another seed, another run");
    // Elitist survival: the best fitness never falls; the log has a header and n_gen + 1 lines.
    let log = log_lines(&a);
    assert_eq!(log.len(), 1 + 4);
    assert_eq!(log[0]["header"]["generator"], "splitmix64");
    let best: Vec<f64> = log[1..].iter().map(|l| l["best"].as_f64().unwrap()).collect();
    assert!(best.windows(2).all(|w| w[1] >= w[0]), "{best:?}");
    assert!(log[1..].iter().all(|l| l["evaluations"] == 6));
    assert!(log.iter().all(|l| l.get("wall_s").is_none()), "wall time lives in timing.jsonl");
    assert_eq!(String::from_utf8(read(&a, "timing.jsonl")).unwrap().lines().count(), 4);
}

#[test]
fn an_interrupted_run_resumes_to_the_uninterrupted_result() {
    let tmp = tempfile::tempdir().unwrap();
    let (whole, cut) = (tmp.path().join("whole"), tmp.path().join("cut"));
    let text = tiny(1, WORM);
    evolve(&text, &whole, 2, None);
    // Stop after generation 1, as a kill right after its checkpoint would.
    let first = evolve(&text, &cut, 1, Some(1));
    assert!(!first.finished && first.generation == 1 && first.resumed_from.is_none());
    // A kill during generation 2 leaves a partial log line and timing line after the checkpoint.
    for name in ["log.jsonl", "timing.jsonl"] {
        let mut bytes = read(&cut, name);
        bytes.extend_from_slice(b"{\"gen\":2,\"evaluat");
        fs::write(cut.join(name), bytes).unwrap();
    }
    let second = evolve(&text, &cut, 2, None);
    assert_eq!(second.resumed_from, Some(1));
    assert!(second.finished && second.generation == 3);
    same_outputs(&whole, &cut, "after the interruption");
    // Rerunning a finished run changes nothing.
    evolve(&text, &cut, 2, None);
    same_outputs(&whole, &cut, "after rerunning a finished run");
    // The directory belongs to this experiment: another one is refused as bad input.
    let other = Experiment::from_json(&tiny(2, WORM)).unwrap();
    let err = run(&other, "", &RunOptions { dir: cut.clone(), jobs: 1, stop_after: None }, &mut |_| {}).unwrap_err();
    assert!(err.is_input() && err.to_string().contains("another evolve run"), "{err}");
}

#[test]
fn ask_tell_with_records_made_from_json_elsewhere_writes_the_same_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (local, remote) = (tmp.path().join("local"), tmp.path().join("remote"));
    let text = tiny(4, WORM);
    evolve(&text, &local, 2, None);
    // What another process does: parse the asked JSON, evaluate it, send the record back as JSON
    // text; here in reverse order, one at a time.
    let mut evolution = Evolution::open(Experiment::from_json(&text).unwrap(), &text, &remote).unwrap();
    let mut asked_total = 0;
    while !evolution.finished() {
        let asked: Vec<String> = evolution.ask().unwrap().iter().map(|a| a.json.clone()).collect();
        asked_total += asked.len();
        let mut records: Vec<serde_json::Value> = asked
            .iter()
            .rev()
            .map(|json| {
                let record = vsr2d::batch::evaluate_record(&Scenario::from_json(json).unwrap());
                serde_json::from_str(&record.to_string()).unwrap()
            })
            .collect();
        records.reverse();
        evolution.tell(records).unwrap();
    }
    same_outputs(&local, &remote, "between the local run and ask/tell through JSON");
    // Only what the cache misses is asked: 6 + 3 × 6 evaluations, fewer simulations.
    let log = log_lines(&local);
    let simulations: u64 = log[1..].iter().map(|l| l["simulations"].as_u64().unwrap()).sum();
    assert_eq!(asked_total as u64, simulations);
    assert!(evolution.ask().unwrap_err().to_string().contains("finished"));
    // A wrong number of records is refused and the generation stays asked.
    let fresh = tmp.path().join("fresh");
    let mut evolution = Evolution::open(Experiment::from_json(&text).unwrap(), &text, &fresh).unwrap();
    let n = evolution.ask().unwrap().len();
    assert!(evolution.tell(Vec::new()).unwrap_err().to_string().contains(&format!("0 records for {n}")));
    assert_eq!(evolution.ask().unwrap().len(), n);
}

#[test]
fn the_best_scenario_replays_to_the_logged_fitness() {
    let tmp = tempfile::tempdir().unwrap();
    evolve(&tiny(3, WORM), tmp.path(), 2, None);
    let log = log_lines(tmp.path());
    let logged = log.last().unwrap()["best"].as_f64().unwrap();
    let best = Scenario::from_json(&String::from_utf8(read(tmp.path(), "best.json")).unwrap()).unwrap();
    let replayed = vsr2d::batch::evaluate(&best).unwrap().robots[0].relative_x_velocity;
    assert_eq!(replayed.to_bits(), logged.to_bits());
    // final_population.jsonl: best first, ranks 1…n, each with its genome and scenario.
    let lines: Vec<serde_json::Value> = String::from_utf8(read(tmp.path(), "final_population.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["fitness"].as_f64().unwrap().to_bits(), logged.to_bits());
    let fitness: Vec<f64> = lines.iter().map(|l| l["fitness"].as_f64().unwrap()).collect();
    assert!(fitness.windows(2).all(|w| w[0] >= w[1]), "{fitness:?}");
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["rank"], i + 1);
        assert_eq!(l["genome"].as_array().unwrap().len(), 4);
        let s: Scenario = serde_json::from_value(l["scenario"].clone()).unwrap();
        assert_eq!(s.robots[0].body, vec!["####"]);
    }
    let first_line = String::from_utf8(read(tmp.path(), "final_population.jsonl")).unwrap();
    assert!(first_line.starts_with("{\"rank\":1,\"fitness\":"), "field order of the lead's reader");
}

#[test]
fn repeated_bodies_are_served_by_the_cache() {
    // On a 1×1 grid a body is one of four materials, so at most four distinct scenarios exist
    // (pigeonhole): every other valid evaluation must be a cache hit.
    let tmp = tempfile::tempdir().unwrap();
    let text = tiny(0, r#"{"type": "gmm_body", "w": 1, "h": 1}"#);
    evolve(&text, tmp.path(), 2, None);
    let log = log_lines(tmp.path());
    let sum = |k: &str| log[1..].iter().map(|l| l[k].as_u64().unwrap()).sum::<u64>();
    assert!(sum("simulations") <= 4, "{} simulations", sum("simulations"));
    for l in &log[1..] {
        let n = |k: &str| l[k].as_u64().unwrap();
        assert_eq!(n("simulations") + n("cache_hits") + n("invalid"), n("evaluations"), "{l}");
    }
    assert_eq!(sum("evaluations"), 6 * 4);
}

#[test]
fn the_cli_runs_resumes_and_refuses_bad_experiments() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = tmp.path().join("e.json");
    fs::write(&exp, tiny(4, WORM)).unwrap();
    let vsr2d = || Command::new(env!("CARGO_BIN_EXE_vsr2d"));
    let dir = tmp.path().join("run");
    let out = vsr2d()
        .args(["evolve", exp.to_str().unwrap(), "-o", dir.to_str().unwrap(), "--jobs", "2", "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["finished"], true);
    // kill -9 at some point of a second run of the same experiment, then the same command again.
    let killed = tmp.path().join("killed");
    let mut child = vsr2d()
        .args(["evolve", exp.to_str().unwrap(), "-o", killed.to_str().unwrap(), "-q"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while !killed.join("checkpoint.json").exists() && child.try_wait().unwrap().is_none() {
        std::thread::yield_now();
    }
    child.kill().unwrap_or(()); // SIGKILL; the run may already be over, which must give the same files
    child.wait().unwrap();
    let again = vsr2d().args(["evolve", exp.to_str().unwrap(), "-o", killed.to_str().unwrap(), "-q"]).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    same_outputs(&dir, &killed, "after kill -9 and a rerun");
    // The best scenario is a scenario file `vsr2d simulate` reads.
    let sim = vsr2d().args(["simulate", dir.join("best.json").to_str().unwrap()]).output().unwrap();
    assert!(sim.status.success(), "{}", String::from_utf8_lossy(&sim.stderr));
    // Bad input: exit 2 with the JSON path and a fix.
    fs::write(&exp, r#"{"representation": {"type": "phases", "body": "worm"}, "ea": {"n_pop": 1}}"#).unwrap();
    let bad =
        vsr2d().args(["evolve", exp.to_str().unwrap(), "-o", tmp.path().join("x").to_str().unwrap()]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("ea.n_pop") && err.contains("at least 2"), "{err}");
}

/// Issue item 5 (spec §11 check 6): the paper's Δt = 1/30 s with the body study's 25 Hz hard material
/// (all groups). The 10×4 hard cantilever under 30 N is compared with an independent reference, Δt =
/// 1/120 s with 8 substeps. At Δt = 1/30 s the default 4 substeps leave it about 5 % too soft (a
/// substep of 1/120 s is too coarse for 25 Hz), so the evolution experiments run Δt = 1/30 s with
/// `solver_iterations: 8` (the same substep as the project's validated 1/60 s × 4); that is checked here.
#[test]
fn hard_material_at_one_thirtieth_second_is_converged() {
    let hard = Material { spring_hz: 25.0, scaffolding: Scaffolding::ALL, ..Material::default() };
    let tip = |dt: f64, substeps: usize| {
        let setup = BeamSetup { solver_iterations: substeps, ..BeamSetup::static_case(10, 4, hard, 30.0, 20.0, dt) };
        let series = cantilever::run(&setup).unwrap();
        assert!(series.iter().all(|d| d.is_finite()), "dt {dt}, {substeps} substeps: non-finite deflection");
        *series.last().unwrap()
    };
    let coarse = tip(1.0 / 30.0, 8);
    let reference = tip(1.0 / 120.0, 8);
    let rel = (coarse - reference).abs() / reference.abs();
    assert!(
        rel < 0.05,
        "δ(1/30 s, 8 substeps) = {coarse}, δ(1/120 s, 8 substeps) = {reference}: {:.2} % apart",
        rel * 100.0
    );
}

/// … and resting 5×5 blocks on flat ground for 60 s at Δt = 1/30 s (8 substeps) stay finite. The hard
/// block keeps every voxel within 5 % of its rest area. The soft one (5 Hz, E+C) sags under its own
/// weight at any Δt (its bottom row is about 10–15 % compressed at 1/120 s too), so it is compared with
/// the Δt = 1/120 s run instead: its mean area ratio agrees within 2 %.
#[test]
fn hard_and_soft_bodies_rest_stably_at_one_thirtieth_second() {
    let soft = Material { spring_hz: 5.0, scaffolding: Scaffolding::EC, ..Material::default() };
    let hard = Material { spring_hz: 25.0, scaffolding: Scaffolding::ALL, ..Material::default() };
    // Runs 60 s and returns the worst |area ratio − 1| after the landing (2 s) and the final mean.
    let rest = |material: Material, dt: f64| {
        let settings = WorldSettings { dt, solver_iterations: 8, ..WorldSettings::default() };
        let mut world = World::new(settings);
        world.add_terrain(&Terrain::flat());
        let body = BodyGrid::filled(5, 5, material).unwrap();
        world.add_robot("block", &body, Vec2::new(11.0, 1.0), RobotOptions::default(), None);
        let per_second = (1.0 / dt).round() as u64;
        let (mut worst, mut mean): (f64, f64) = (0.0, 0.0);
        for second in 1..=60 {
            world.run(per_second, &mut []).unwrap();
            let snap = world.snapshot();
            let voxels = &snap.voxel_robots().next().unwrap().voxels;
            assert!(voxels.iter().all(|v| v.outline.iter().all(|p| p.is_finite())), "non-finite at {second} s");
            if second > 2 {
                worst = voxels.iter().fold(worst, |w, v| w.max((v.area_ratio - 1.0).abs()));
            }
            mean = voxels.iter().map(|v| v.area_ratio).sum::<f64>() / voxels.len() as f64;
        }
        (worst, mean)
    };
    let (hard_worst, _) = rest(hard, 1.0 / 30.0);
    assert!(hard_worst < 0.05, "hard: an area ratio strayed {hard_worst} from 1");
    let (_, soft_mean) = rest(soft, 1.0 / 30.0);
    let (_, soft_reference) = rest(soft, 1.0 / 120.0);
    assert!(
        (soft_mean - soft_reference).abs() < 0.02,
        "soft: mean area ratio {soft_mean} at 1/30 s vs {soft_reference} at 1/120 s"
    );
}

#[test]
fn every_fixture_experiment_parses_and_maps() {
    for entry in fs::read_dir(Path::new(crate::ROOT).join("fixtures/experiments")).unwrap() {
        let path = entry.unwrap().path();
        let text = fs::read_to_string(&path).unwrap();
        let e = Experiment::from_json(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        vsr2d::evolve::Mapper::new(&e.representation, &e.name, e.scenario.as_ref())
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    }
}

#[test]
fn evolve_caps_its_worker_threads_like_eval_and_refuses_trailing_data() {
    let dir = tempfile::tempdir().unwrap();
    let exp = std::path::Path::new(crate::ROOT).join("fixtures/experiments/worm-phases-quick.json");
    let exp = exp.to_str().unwrap();
    let out_dir = dir.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["evolve", exp, "-o", out_dir.to_str().unwrap(), "--jobs", "100000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out_dir.exists(), "nothing written for refused arguments");
    let bad = dir.path().join("bad.json");
    fs::write(&bad, format!("{}\n{{}}\n", fs::read_to_string(exp).unwrap())).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["evolve", bad.to_str().unwrap(), "-o", out_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exactly one JSON object"));
    assert!(!out_dir.exists());
}
