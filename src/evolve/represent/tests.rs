//! Mapper facts: the paper's genome sizes and hand-computed genome → body cases (spec §11 checks 1, 3).

use super::*;
use crate::controller::CompiledFunction;
use crate::evolve::Experiment;

fn rep(json: &str) -> RepresentationSpec {
    Experiment::from_json(&format!(r#"{{"representation": {json}}}"#)).unwrap().representation
}

fn mapper(json: &str) -> Mapper {
    Mapper::new(&rep(json), "t", None).unwrap()
}

#[test]
fn genome_sizes_are_the_papers() {
    // Spec §11 check 1 (paper: 5 Gaussians × 4 materials × 4 values; one phase per voxel; (6n + 2)·n).
    for grid in [r#""w": 5, "h": 5"#, r#""w": 10, "h": 10"#] {
        assert_eq!(rep(&format!(r#"{{"type": "gmm_body", {grid}}}"#)).genome_size(), 80);
    }
    assert_eq!(rep(r#"{"type": "phases", "body": "11x4"}"#).genome_size(), 44);
    assert_eq!(rep(r#"{"type": "phases_devo", "body": "11x4"}"#).genome_size(), 132);
    for (body, n, mlp) in [("worm", 4, 104), ("biped", 6, 228), ("tripod", 8, 400)] {
        assert_eq!(rep(&format!(r#"{{"type": "phases", "body": "{body}"}}"#)).genome_size(), n);
        assert_eq!(rep(&format!(r#"{{"type": "mlp_weights", "body": "{body}"}}"#)).genome_size(), mlp);
        assert_eq!(rep(&format!(r#"{{"type": "mlp_sensing", "body": "{body}"}}"#)).genome_size(), mlp);
    }
    let m = mapper(r#"{"type": "phases", "body": "worm"}"#);
    assert_eq!(m.map(&[0.0; 5]).unwrap_err(), MapError::GenomeSize { expected: 4, got: 5 });
}

/// A `gmm_body` genome of `materials` × 5 Gaussians where every Gaussian is (0, 0, σ = 1, q = 0), i.e.
/// contributes nothing, except the listed (material, gaussian, [x̂, ŷ, σ, q]).
fn gmm_genome(materials: usize, set: &[(usize, usize, [f64; 4])]) -> Vec<f64> {
    let mut g: Vec<f64> = (0..materials * 5).flat_map(|_| [0.0, 0.0, 1.0, 0.0]).collect();
    for (j, i, t) in set {
        g[20 * j + 4 * i..20 * j + 4 * i + 4].copy_from_slice(t);
    }
    g
}

fn body_of(m: &Mapper, genome: &[f64]) -> Vec<String> {
    m.map(genome).unwrap().0.robots[0].body.clone()
}

#[test]
fn hand_computed_gmm_body_under_the_code_formula() {
    let m = mapper(r#"{"type": "gmm_body", "w": 3, "h": 2}"#);
    // Cells sit at (x/3, y/2). Hard: one Gaussian at (0, 0), σ = 0.2, q = 1: 1/(0.2·√(2π)) = 1.995 at
    // cell (0, 0), 0.497 at its neighbour (1, 0) (d² = 1/9). Active: q = 3, σ = 0.5 at (2/3, 1/2), peak
    // 3/(0.5·√(2π)) = 2.394 at (2, 1); e^(−d²/(2σ²)) gives 1.917 at (1, 1) (d² = 1/9), 1.452 at (2, 0)
    // (d² = 1/4), 1.163 at (1, 0) (d² = 13/36), 0.984 at (0, 1) (d² = 4/9, below g₀ = 1) and 0.597 at
    // (0, 0), where hard wins.
    let genome = gmm_genome(4, &[(0, 0, [0.0, 0.0, 0.2, 1.0]), (2, 3, [2.0 / 3.0, 0.5, 0.5, 3.0])]);
    let (scenario, _) = m.map(&genome).unwrap();
    let robot = &scenario.robots[0];
    assert_eq!(robot.body, vec![".aa", "haa"]);
    let materials = robot.materials.as_ref().unwrap();
    assert_eq!(materials.keys().collect::<Vec<_>>(), vec!["a", "h"]);
    assert_eq!(materials["h"].spring_hz, Some(25.0));
    // The active cells follow sin(2πt); the hard one has no function (0).
    let Some(ControllerSpec::TimeFunctions(tf)) = &robot.controller else { panic!("time functions") };
    let cells: Vec<[u32; 2]> = tf.cells.iter().map(|c| c.cell).collect();
    assert_eq!(cells, vec![[1, 0], [2, 0], [1, 1], [2, 1]]);
    assert!(tf
        .cells
        .iter()
        .all(|c| c.function == TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase: 0.0, offset: 0.0 }));

    // σ ≤ 0 under `code`: one Gaussian of the active material with σ = −1 makes its sum NaN on every
    // cell, so the active material appears nowhere and only the hard cell is left.
    let mut no_active = genome.clone();
    no_active[40 + 2] = -1.0;
    assert_eq!(body_of(&m, &no_active), vec!["h"]);

    // Nothing reaches the threshold: an empty body, an invalid individual.
    assert_eq!(m.map(&gmm_genome(4, &[])).unwrap_err(), MapError::EmptyBody);
}

#[test]
fn the_largest_component_is_kept_and_cropped() {
    let m = mapper(r#"{"type": "gmm_body", "w": 4, "h": 1}"#);
    // Cells at x/4 = 0, 0.25, 0.5, 0.75. Hard at 0, σ = 0.1: 3.99 at cell 0, 0.17 at cell 1. Active at
    // 0.625, σ = 0.1: e^(−0.015625/0.02)/(0.1·√(2π)) = 1.83 at cells 2 and 3, 0.0035 at cell 1.
    // Components {0} (hard) and {2, 3} (active): the larger one is kept and cropped to 2×1.
    let genome = gmm_genome(4, &[(0, 0, [0.0, 0.0, 0.1, 1.0]), (2, 0, [0.625, 0.0, 0.1, 1.0])]);
    assert_eq!(body_of(&m, &genome), vec!["aa"]);
    // Two components of equal size: the one holding the first cell in grid order wins.
    let m = mapper(r#"{"type": "gmm_body", "w": 3, "h": 2}"#);
    let genome = gmm_genome(4, &[(0, 0, [0.0, 0.0, 0.2, 1.0]), (2, 0, [2.0 / 3.0, 0.5, 0.2, 1.0])]);
    assert_eq!(body_of(&m, &genome), vec!["h"]);
    let genome = gmm_genome(4, &[(0, 0, [2.0 / 3.0, 0.5, 0.2, 1.0]), (2, 0, [0.0, 0.0, 0.2, 1.0])]);
    assert_eq!(body_of(&m, &genome), vec!["a"]);
}

#[test]
fn hand_computed_gmm_body_under_the_printed_formula() {
    // Paper: cells (x, y) ∈ {1, 2} × {1}, g = q/(σ√(2π))·e^(−d²/σ²), σ = 0 contributes 0. Soft at (1, 1),
    // σ = 0.3, q = 1: 1.33 at (1, 1), 1.33·e^(−1/0.09) ≈ 2e−5 at (2, 1). Counter at (2, 1), σ = −0.3,
    // q = −1 (a negative σ used as printed: the term is +1.33 at (2, 1)).
    let m = mapper(r#"{"type": "gmm_body", "w": 2, "h": 1, "formula": "paper"}"#);
    let mut genome = vec![0.0; 80]; // every σ = 0: no contribution
    genome[20..24].copy_from_slice(&[1.0, 1.0, 0.3, 1.0]);
    genome[60..64].copy_from_slice(&[2.0, 1.0, -0.3, -1.0]);
    assert_eq!(body_of(&m, &genome), vec!["sc"]);
    let (s, _) = m.map(&genome).unwrap();
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    assert_eq!(tf.cells.len(), 1);
    assert_eq!(tf.cells[0].cell, [1, 0]);
    assert_eq!(tf.cells[0].function, TimeFunction::Sin { amplitude: 1.0, frequency: -1.0, phase: 0.0, offset: 0.0 });
    // The same genome under `code` (cells at 0 and 1/2) reaches nothing: σ = 0 everywhere makes NaN.
    let code = mapper(r#"{"type": "gmm_body", "w": 2, "h": 1}"#);
    assert_eq!(code.map(&genome).unwrap_err(), MapError::EmptyBody);
}

#[test]
fn phases_land_on_the_voxels_in_grid_order() {
    // Biped rows ["####", "#..#"]: grid order (y = 0 first) is (0,0), (3,0), (0,1), (1,1), (2,1), (3,1).
    let m = mapper(r#"{"type": "phases", "body": "biped"}"#);
    let genome = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    let (s, _) = m.map(&genome).unwrap();
    assert_eq!(s.robots[0].body, vec!["####", "#..#"]);
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    let got: Vec<([u32; 2], f64)> = tf
        .cells
        .iter()
        .map(|c| match c.function {
            TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase, offset: 0.0 } => (c.cell, phase),
            ref f => panic!("{f:?}"),
        })
        .collect();
    assert_eq!(got, vec![([0, 0], 0.1), ([3, 0], 0.2), ([0, 1], 0.3), ([1, 1], 0.4), ([2, 1], 0.5), ([3, 1], 0.6)]);
}

#[test]
fn evolved_amplitudes_follow_each_phase_and_map_the_init_box_onto_0_1() {
    let plain = r#"{"type": "phases", "body": "biped"}"#;
    let amp = r#"{"type": "phases", "body": "biped", "evolve_amplitude": true}"#;
    assert_eq!((rep(plain).genome_size(), rep(amp).genome_size()), (6, 12));
    // (φ_j, g_j) per voxel in grid order; amplitude (g + π)/(2π), clamped to [0, 1].
    let genome = [0.1, -PI, 0.2, 0.0, 0.3, PI, 0.4, PI / 2.0, 0.5, -7.0, 0.6, 9.0];
    let (s, _) = mapper(amp).map(&genome).unwrap();
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    let got: Vec<([u32; 2], f64, f64)> = tf
        .cells
        .iter()
        .map(|c| match c.function {
            TimeFunction::Sin { amplitude, frequency: 1.0, phase, offset: 0.0 } => (c.cell, phase, amplitude),
            ref f => panic!("{f:?}"),
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ([0, 0], 0.1, 0.0),
            ([3, 0], 0.2, 0.5),
            ([0, 1], 0.3, 1.0),
            ([1, 1], 0.4, 0.75),
            ([2, 1], 0.5, 0.0),
            ([3, 1], 0.6, 1.0)
        ]
    );
    // Another init box is another range of amplitudes: [0, 2] maps 0.5 to 0.25.
    let m = mapper(r#"{"type": "phases", "body": "worm", "evolve_amplitude": true, "init": [0, 2]}"#);
    let (s, _) = m.map(&[0.0, 0.5, 0.0, 1.0, 0.0, 1.5, 0.0, 2.0]).unwrap();
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    let amplitudes: Vec<f64> = tf
        .cells
        .iter()
        .map(|c| match c.function {
            TimeFunction::Sin { amplitude, .. } => amplitude,
            ref f => panic!("{f:?}"),
        })
        .collect();
    assert_eq!(amplitudes, [0.25, 0.5, 0.75, 1.0]);
    // A box of zero width maps nothing: refused at load.
    let e = Experiment::from_json(
        r#"{"representation": {"type": "phases", "body": "worm", "evolve_amplitude": true, "init": [1, 1]}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("representation.init") && e.contains("lo < hi"), "{e}");
}

#[test]
fn without_evolve_amplitude_phases_map_as_before() {
    // `false` is the default and is not written back: the spec, the genome and the scenario text are
    // those of the plain representation.
    let plain = rep(r#"{"type": "phases", "body": "worm"}"#);
    let off = rep(r#"{"type": "phases", "body": "worm", "evolve_amplitude": false}"#);
    assert_eq!(plain, off);
    assert_eq!(serde_json::to_string(&off).unwrap(), r#"{"type":"phases","body":"worm","frequency":1.0}"#);
    let genome = [0.5, -1.0, 2.0, 3.0];
    let (_, text) = Mapper::new(&plain, "t", None).unwrap().map(&genome).unwrap();
    let sin = |cell: &str, phase: &str| {
        format!(
            r#"{{"cell":{cell},"function":{{"type":"sin","amplitude":1.0,"frequency":1.0,"phase":{phase},"offset":0.0}}}}"#
        )
    };
    let cells = [sin("[0,0]", "0.5"), sin("[1,0]", "-1.0"), sin("[2,0]", "2.0"), sin("[3,0]", "3.0")].join(",");
    assert!(text.contains(&format!(r#""controller":{{"type":"time_functions","cells":[{cells}]}}"#)), "{text}");
}

/// Why `control_effort` was 1/2 for every `phases` individual: it is the mean over control calls and
/// voxels of f², and f = sin(2πνt + φ) sampled evenly over whole periods has mean square exactly 1/2
/// whatever φ (Σ cos(2θ_k) over a whole period of samples is 0). An amplitude A gives A²/2.
#[test]
fn control_effort_follows_the_evolved_amplitudes() {
    let experiment = |json: &str| {
        Experiment::from_json(&format!(
            r#"{{"representation": {json}, "scenario": {{"world": {{"dt": 0.03333333333333333, "duration": 4,
                "terrain": {{"type": "flat"}}}}, "task": {{"type": "locomotion", "transient": 1}}}}}}"#
        ))
        .unwrap()
    };
    let effort = |e: &Experiment, genome: &[f64]| {
        let m = Mapper::new(&e.representation, "t", e.scenario.as_ref()).unwrap();
        crate::batch::evaluate(&m.map(genome).unwrap().0).unwrap().robots[0].control_effort
    };
    let plain = experiment(r#"{"type": "phases", "body": "worm"}"#);
    for phases in [[0.0, 1.0, 2.0, 3.0], [-3.0, 0.3, 0.7, -1.9]] {
        assert!((effort(&plain, &phases) - 0.5).abs() < 1e-12);
    }
    let amp = experiment(r#"{"type": "phases", "body": "worm", "evolve_amplitude": true}"#);
    let with =
        |a: f64| -> Vec<f64> { [0.0, 1.0, 2.0, 3.0].iter().flat_map(|phi| [*phi, -PI + a * 2.0 * PI]).collect() };
    let (full, half) = (effort(&amp, &with(1.0)), effort(&amp, &with(0.5)));
    assert!((full - 0.5).abs() < 1e-12, "amplitude 1 is the plain representation's: {full}");
    assert!((half - 0.125).abs() < 1e-12, "A²/2 = 0.125 at amplitude 0.5: {half}");
}

#[test]
fn phases_devo_values_follow_the_papers_function() {
    let m = mapper(r#"{"type": "phases_devo", "body": "worm"}"#);
    let genome: Vec<f64> = (0..12).map(|i| (i as f64 * 0.7331).sin() * 3.0 - 0.4).collect();
    let (s, _) = m.map(&genome).unwrap();
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    for (j, c) in tf.cells.iter().enumerate() {
        assert_eq!(c.cell, [j as u32, 0]);
        let f: CompiledFunction = c.function.compile().unwrap();
        let (phi, a, b) = (genome[3 * j], genome[3 * j + 1], genome[3 * j + 2]);
        for t in [0.0, 0.37, 12.5, 30.0, 60.0] {
            let expected = (2.0 * PI * t + phi).sin() + a + t / 60.0 * (b - a);
            let got = f.eval(t, c.cell, [4, 1]);
            assert!((got - expected).abs() < 1e-12, "voxel {j} t {t}: {got} vs {expected}");
        }
    }
}

#[test]
fn mlp_weights_use_the_papers_input_layout() {
    // model.md §9 example 2: per voxel mean(5), diff(5) of area_ratio, x_rot_velocity, y_rot_velocity;
    // then the driver sin(2πt); then the bias; no hidden layer.
    let m = mapper(r#"{"type": "mlp_weights", "body": "biped"}"#);
    let genome: Vec<f64> = (0..228).map(|i| i as f64 / 228.0 - 0.5).collect();
    let (s, _) = m.map(&genome).unwrap();
    let Some(ControllerSpec::Mlp(mlp)) = &s.robots[0].controller else { panic!() };
    let names: Vec<String> =
        mlp.sensors.default.iter().map(|f| format!("{:?}/{:?}/{}", f.sensor, f.aggregate, f.n)).collect();
    assert_eq!(
        names,
        vec![
            "AreaRatio/Mean/5",
            "AreaRatio/Diff/5",
            "XRotVelocity/Mean/5",
            "XRotVelocity/Diff/5",
            "YRotVelocity/Mean/5",
            "YRotVelocity/Diff/5"
        ]
    );
    assert!(mlp.sensors.cells.is_empty() && mlp.hidden.is_empty());
    assert_eq!(mlp.driver, Some(TimeFunction::Sin { amplitude: 1.0, frequency: 1.0, phase: 0.0, offset: 0.0 }));
    assert_eq!(mlp.weights, genome);
    // The controller layer agrees on the count: the scenario builds.
    s.build().unwrap();
}

#[test]
fn slots_write_clipped_genes_into_the_template() {
    let template = r#####"{"robots": [{"body": ["####"], "controller": {"type": "time_functions",
        "default": {"type": "sin", "frequency": 1, "phase": 0}}}]}"#####;
    let json = format!(
        r##"{{"type": "slots", "template": {template}, "init": [-1, 1], "slots": [
            {{"pointer": "/robots/0/controller/default/phase", "gene": 0, "scale": 2, "offset": 1}},
            {{"pointer": "/robots/0/controller/default/frequency", "gene": 1, "clip": [0.5, 2]}}]}}"##
    );
    let m = mapper(&json);
    assert_eq!(m.genome_size(), 2);
    let (s, _) = m.map(&[0.25, 7.0]).unwrap();
    let Some(ControllerSpec::TimeFunctions(tf)) = &s.robots[0].controller else { panic!() };
    assert_eq!(tf.default, Some(TimeFunction::Sin { amplitude: 1.0, frequency: 2.0, phase: 1.5, offset: 0.0 }));
    // A pointer into nothing is refused at load with its JSON path and the fix.
    let bad = json.replace("/robots/0/controller/default/frequency", "/robots/0/controller/default/freq");
    let e = Experiment::from_json(&format!(r#"{{"representation": {bad}}}"#)).unwrap_err().to_string();
    assert!(e.contains("representation.slots[1].pointer") && e.contains("placeholder"), "{e}");
}

#[test]
fn mapped_scenarios_are_self_contained_scenario_files() {
    for json in [
        r#"{"type": "gmm_body", "w": 5, "h": 5}"#,
        r#"{"type": "phases_devo", "body": "11x4"}"#,
        r#"{"type": "mlp_weights", "body": "tripod", "material": {"spring_hz": 10}}"#,
    ] {
        let m = mapper(json);
        let genome: Vec<f64> = (0..m.genome_size()).map(|i| ((i * 7919) % 101) as f64 / 101.0).collect();
        let (s, text) = m.map(&genome).unwrap();
        let pretty = serde_json::to_string_pretty(&s).unwrap();
        assert_eq!(Scenario::from_json(&pretty).unwrap(), s, "{json}");
        assert_eq!(serde_json::to_string(&Scenario::from_json(&text).unwrap()).unwrap(), text);
    }
}
