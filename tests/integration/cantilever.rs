//! Cantilever physics as physical facts (spec §13), the beam figure golden, and the CLI report.

use vsr2d::model::voxel::material::Preset;
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::task::cantilever::{run, BeamSetup};
use vsr2d_report::cantilever::comparison::{first_overshoot_step, first_peak, first_peak_step};
use vsr2d_report::cantilever::reference::Reference;
use vsr2d_report::cantilever::sweep::SweepOptions;
use vsr2d_report::series::series_figures;

use crate::golden::{assert_golden, GoldenOptions};

const DT: f64 = 1.0 / 60.0;

/// Final static deflection after 10 s at 30 N (the beam is settled well before: see README).
fn static_dy(w: u32, h: u32, fs: f64, scaffolding: Scaffolding) -> f64 {
    let material = BeamSetup::material(Preset::Default, fs, scaffolding);
    *run(&BeamSetup::static_case(w, h, material, 30.0, 10.0, DT)).unwrap().last().unwrap()
}

/// δ(t) after an impulse of 200 N for 0.1 s. The paper's 800 N swings the soft 5×2 beams by 40–60 % of
/// their length (peak 9 m at 4 Hz), far outside the linear regime: there the root voxel can be crushed
/// into a second equilibrium and stay there, so the linear facts below are checked at a quarter of it.
fn dynamic_series(w: u32, h: u32, fs: f64) -> Vec<f64> {
    let material = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
    run(&BeamSetup::dynamic_case(w, h, material, 200.0, 12.0, DT)).unwrap()
}

#[test]
fn static_deflection_falls_strictly_with_spring_frequency() {
    for (w, h) in [(5, 2), (10, 2)] {
        let dys: Vec<f64> = [8.0, 15.0, 30.0].iter().map(|&f| static_dy(w, h, f, Scaffolding::ALL)).collect();
        assert!(dys.iter().all(|d| *d < 0.0), "{w}x{h}: the beam must bend down: {dys:?}");
        assert!(dys[0].abs() > dys[1].abs() && dys[1].abs() > dys[2].abs(), "{w}x{h}: {dys:?}");
        // Stiffness ∝ f_s²: 15 → 30 Hz divides a small deflection by about 4. (At 4 and 8 Hz the 10×2 beam
        // bends by 70 % and 40 % of its length, where the ratio falls to ≈ 1.8, as in the original.)
        let ratio = dys[1] / dys[2];
        assert!((3.0..5.0).contains(&ratio), "{w}x{h}: δ(15 Hz)/δ(30 Hz) = {ratio}");
    }
}

#[test]
fn longer_beams_bend_more_and_all_groups_are_stiffest() {
    let short = static_dy(5, 2, 8.0, Scaffolding::ALL);
    let long = static_dy(10, 2, 8.0, Scaffolding::ALL);
    // Beam theory predicts L³: 8× for twice the length (shear makes short beams deviate a little).
    assert!((5.0..12.0).contains(&(long / short)), "10×2 / 5×2 = {}", long / short);
    let by_set: Vec<f64> = Scaffolding::PAPER_SETS.iter().map(|s| static_dy(5, 2, 8.0, *s).abs()).collect();
    let all = by_set[3];
    assert!(by_set[..3].iter().all(|d| *d > all), "all groups must bend least: {by_set:?}");
    assert!(by_set[0] >= by_set.iter().cloned().fold(0.0, f64::max), "E+C must bend most: {by_set:?}");
}

#[test]
fn dynamic_oscillation_is_slower_when_softer_and_decays() {
    // (At 4 Hz the 5×2 beam's period is about 5.5 s: too few cycles in a short record.)
    let soft = series_figures(&dynamic_series(5, 2, 8.0), DT).unwrap();
    let stiff = series_figures(&dynamic_series(5, 2, 30.0), DT).unwrap();
    let (ps, pt) = (soft.period_s.expect("8 Hz beam oscillates"), stiff.period_s.expect("30 Hz beam oscillates"));
    assert!(ps > pt, "period at 8 Hz {ps} s must exceed period at 30 Hz {pt} s");
    // Stiffness ∝ f_s² and the masses unchanged: the period scales as 1/f_s, 30/8 = 3.75.
    assert!((3.0..4.5).contains(&(ps / pt)), "T(8 Hz)/T(30 Hz) = {} s / {} s", ps, pt);
    assert!(soft.peak_abs_m > stiff.peak_abs_m, "softer beam must swing further");
    for series in [dynamic_series(5, 2, 8.0), dynamic_series(10, 4, 15.0)] {
        // Several periods fit in 12 s; the last 2 s must swing far less than the first swing.
        let peak = series.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let late = series[series.len() - 120..].iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(late < 0.2 * peak, "oscillation must decay: peak {peak}, last 2 s {late}");
    }
}

#[test]
fn beam_figure_end_to_end() {
    let options = SweepOptions { static_duration_s: 5.0, ..SweepOptions::default() };
    let figure = options.beam_figure(10, 4, 480, 270).unwrap();
    assert_golden("e2e", "cantilever_beam_10x4", &figure, GoldenOptions::tolerant(0.01, &figure));
}

#[test]
fn cli_writes_a_consistent_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["cantilever", "--sizes", "5x2", "--fs", "4,8", "--scaffolds", "all,E+C", "--duration", "3"])
        .args(["--dynamic-duration", "2", "--no-convergence", "--no-reference", "--quiet", "-o"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let csv = std::fs::read_to_string(out.join("static.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().starts_with("w,h,fs_hz,scaffolding,dy_final_m"));
    // 4 Hz and 8 Hz with all groups, plus E+C at 8 Hz.
    assert_eq!(lines.count(), 3);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("beam.png") && out.join("beam.png").exists());
    // The loaded beam in the viewer, embedded in the report.
    assert!(html.contains("<iframe class=\"viewer\" src=\"beam.html\"") && out.join("beam.html").exists());
    assert!(std::fs::read_to_string(out.join("beam.html")).unwrap().contains("vsr2dViewer"));
    assert!(out.join("dynamic.csv").exists() && out.join("results.json").exists());

    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["cantilever", "--sizes", "0x2"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("0x2"));
}

/// Runs `vsr2d cantilever` with these arguments into `out` and returns stderr; panics on failure.
fn cantilever_cli(args: &[&str], out: &std::path::Path) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .arg("cantilever")
        .args(args)
        .args(["--no-convergence", "--quiet", "-o"])
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path).unwrap().lines().skip(1).map(|l| l.split(',').map(String::from).collect()).collect()
}

#[test]
fn cli_compares_with_the_original_and_reuses_legacy_runs() {
    // One static run: 5×2 at 8 Hz with all groups. The main run (default preset, 3 s) is not the
    // original's experiment, so the 60 s legacy-1.0 run is added to the batch.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("default"), dir.path().join("legacy"));
    let selection = ["--sizes", "5x2", "--fs", "8", "--scaffolds", "all", "--only", "static"];
    let stderr = cantilever_cli(&[&selection[..], &["--duration", "3"]].concat(), &a);
    assert!(stderr.contains("1 legacy-1.0 runs for the comparison"), "{stderr}");
    let rows = csv_rows(&a.join("reference_comparison.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0][..6], ["static_dy", "m", "5", "2", "8", "all"]);
    assert_eq!(rows[0][6], "-2.014962", "the original's measurement");
    let legacy_dy: f64 = rows[0][7].parse().unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["reference_runs"]["preset"], "legacy-1.0");
    assert_eq!(json["reference_runs"]["reused_main_runs"], false);
    assert_eq!(json["reference_runs"]["static_duration_s"], 60.0);
    let html = std::fs::read_to_string(a.join("index.html")).unwrap();
    let within = if rows[0][9] == "yes" { 1 } else { 0 };
    assert!(
        html.contains(&format!(
            "Against the original 2D-VSR-Sim 1.0.0: {within} of 1 static runs within ±10 % (legacy-1.0 preset)"
        )),
        "verdict line"
    );

    // With --preset legacy-1.0 and the original's conditions (the defaults), the main run is the
    // comparison's run: reused, not run twice, and the same number through the same code path.
    let stderr = cantilever_cli(&[&selection[..], &["--preset", "legacy-1.0"]].concat(), &b);
    assert!(stderr.contains("reuses them"), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(b.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["reference_runs"]["reused_main_runs"], true);
    let rows = csv_rows(&b.join("reference_comparison.csv"));
    let main = csv_rows(&b.join("static.csv"));
    assert_eq!(rows[0][7], main[0][4], "the comparison shows the main run's δ");
    assert_eq!(rows[0][7].parse::<f64>().unwrap(), legacy_dy, "same set-up, same result");

    // --no-reference: no comparison runs and no CSV.
    let c = dir.path().join("none");
    cantilever_cli(&[&selection[..], &["--duration", "3", "--no-reference"]].concat(), &c);
    assert!(!c.join("reference_comparison.csv").exists());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(c.join("results.json")).unwrap()).unwrap();
    assert!(json["reference_runs"].is_null());
}

/// An elastic beam comes back to rest after the paper's 800 N impulse: no permanent set. (A rope lower
/// bound that could pull once held the crushed root voxel of the soft 5×2 beams at area 0.76 for good,
/// leaving δ ≈ −3.4 m at 15 s.)
#[test]
fn soft_beams_return_to_rest_after_the_papers_impulse() {
    for fs in [4.0, 8.0, 10.0] {
        let material = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
        let series = run(&BeamSetup::dynamic_case(5, 2, material, 800.0, 15.0, DT)).unwrap();
        let peak = series.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let last = series[series.len() - 1];
        assert!(peak > 4.0, "{fs} Hz: the impulse must swing the beam far: peak {peak} m");
        assert!(last.abs() < 0.02 * peak, "{fs} Hz: δ(15 s) = {last} m after a peak of {peak} m");
    }
}

/// `legacy-1.0`'s 10×4 beam after the paper's impulse against the original 2D-VSR-Sim 1.0.0 run to
/// convergence (200 velocity iterations, `fixtures/reference/dynamic_10x4_fs*_all_converged.csv`):
/// the first peak, its time, the first overshoot's time and the period within ±5 % at every measured
/// f_s, 8–30 Hz. (The original as released, with 10 iterations, has not converged on the stiff beam: at
/// 30 Hz its first peak is 10.4 % deeper and 0.05 s later; the report shows both.)
#[test]
fn legacy_beam_swings_as_the_converged_original() {
    let reference = Reference::embedded().unwrap();
    assert_eq!(reference.converged_dynamic_runs.len(), 6);
    for original in &reference.converged_dynamic_runs {
        let fs = original.fs_hz;
        let material = BeamSetup::material(Preset::Legacy10, fs, Scaffolding::ALL);
        let dy = run(&BeamSetup::dynamic_case(10, 4, material, 800.0, 15.0, DT)).unwrap();
        let o = original.series_from_rest();
        let period = |s: &[f64]| series_figures(s, DT).and_then(|f| f.period_s).unwrap();
        let time = |k: Option<usize>| k.unwrap() as f64 * DT;
        let figures = |s: &[f64]| {
            [
                ("first peak", first_peak(s).unwrap()),
                ("first peak time", time(first_peak_step(s))),
                ("first overshoot time", time(first_overshoot_step(s))),
                ("period", period(s)),
            ]
        };
        for ((what, v), (_, o)) in figures(&dy).into_iter().zip(figures(&o)) {
            let error = 100.0 * (v - o) / o;
            assert!(error.abs() <= 5.0, "{fs} Hz, {what}: vsr2d {v}, original converged {o} ({error:+.2} %)");
        }
    }
}

/// `legacy-1.0` springs take their stiffness from the effective mass of their corner masses in the
/// current pose, as dyn4j's distance joints did every step. It matters most with few spring groups,
/// where the masses turn: the 10×2 E+C beam at 8 Hz, 30 N, sags 21.58 m after 30 s in the original
/// 2D-VSR-Sim 1.0.0 (fixtures/reference/static_cantilever.csv, `se_cc`). With the rest pose's
/// effective mass it sagged 3.5 % more; now within 1 %.
#[test]
fn legacy_e_c_beam_sags_as_the_original_with_per_pose_spring_laws() {
    let original = -21.582490;
    let material = BeamSetup::material(Preset::Legacy10, 8.0, Scaffolding::EC);
    let dy = *run(&BeamSetup::static_case(10, 2, material, 30.0, 30.0, DT)).unwrap().last().unwrap();
    let error = (dy - original) / original.abs();
    assert!(error.abs() < 0.01, "10×2 E+C legacy sag {dy:.4} m, original {original} m: {:+.2} %", 100.0 * error);
}

/// `--material` with the default material's values runs the default sweep: the same numbers, bit for bit.
#[test]
fn cantilever_material_with_the_default_values_gives_the_default_numbers() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let material = dir.path().join("material.json");
    std::fs::write(
        &material,
        r#"{"preset": "default", "side": 3, "mass": 1, "spring_hz": 8, "damping_ratio": 0.3,
            "max_area_change": 0.2, "scaffolding": "all"}"#,
    )
    .unwrap();
    let sweep = ["--sizes", "5x2", "--fs", "4,8", "--scaffolds", "all,E+C", "--duration", "2"];
    let sweep = [&sweep[..], &["--dynamic-duration", "2", "--no-reference"]].concat();
    let (plain, own) = (dir.path().join("plain"), dir.path().join("own"));
    cantilever_cli(&sweep, &plain);
    cantilever_cli(&[&sweep[..], &["--material", material.to_str().unwrap()]].concat(), &own);
    for file in ["static.csv", "dynamic.csv", "results.json"] {
        let (a, b) = (std::fs::read(plain.join(file)).unwrap(), std::fs::read(own.join(file)).unwrap());
        assert!(!a.is_empty() && a == b, "{file} differs");
    }
    // A different material gives different numbers (the file is read).
    std::fs::write(&material, r#"{"mass": 2}"#).unwrap();
    let heavy = dir.path().join("heavy");
    cantilever_cli(&[&sweep[..], &["--material", material.to_str().unwrap()]].concat(), &heavy);
    assert_ne!(std::fs::read(plain.join("static.csv")).unwrap(), std::fs::read(heavy.join("static.csv")).unwrap());
}

/// `--check` on an overdamped beam: the check that needs a period is "not applicable", not a failure.
#[test]
fn cantilever_check_calls_an_overdamped_beam_not_applicable() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let material = dir.path().join("overdamped.json");
    std::fs::write(&material, r#"{"damping_ratio": 1, "linear_damping": 100}"#).unwrap();
    let run = |material: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
            .args(["cantilever", "--check", "--material"])
            .arg(material)
            .args(["--sizes", "5x2", "--fs", "8", "--scaffolds", "all,E+C", "--duration", "2"])
            .args(["--dynamic-duration", "3", "--no-convergence", "--quiet", "-o"])
            .arg(dir.path().join("report"))
            .output()
            .unwrap()
    };
    let o = run(&material);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
    let line = stdout.lines().find(|l| l.contains("dynamic all vs E+C")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("n/a") && line.contains("overdamped"), "{line}");
    assert!(!stdout.contains("FLAG"), "{stdout}");

    // A material file with a wrong field is refused with its JSON path.
    std::fs::write(&material, r#"{"damping_ratio": "high"}"#).unwrap();
    let bad = run(&material);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(err.contains("damping_ratio") && err.contains("expected a number"), "{err}");
}
