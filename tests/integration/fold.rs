//! The `fold` task (`cells.md` §11): validation with path and fix, a reduced L and E that really fold
//! (the error to the letter falls, no cells the letter keeps apart get glued), bit-identical reruns,
//! and the shipped fixtures.

use vsr2d::scenario::Scenario;

use super::cells::{refused, vsr2d};

/// The L fixture with `edit` applied to its JSON value.
fn l_fixture(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let text = std::fs::read_to_string(std::path::Path::new(crate::ROOT).join("fixtures/scenarios/cells-fold-L.json"))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    v.to_string()
}

/// Turns the L fixture's chain into a plain 7-cell chain: no program, no turn type, no stops.
fn drop_program(v: &mut serde_json::Value) -> &mut serde_json::Map<String, serde_json::Value> {
    let chain = v["chains"][0].as_object_mut().unwrap();
    chain.remove("program");
    chain.remove("turn_type");
    chain.remove("joints");
    chain.insert("cells".into(), serde_json::json!(7));
    chain
}

#[test]
fn fold_scenarios_are_refused_with_path_and_fix() {
    refused(&l_fixture(|v| v["world"]["gravity"] = serde_json::json!([0, -9.8])), "world.gravity", &["[0, 0]"]);
    refused(
        &l_fixture(|v| v["cell_types"]["fold"]["friction"] = serde_json::json!(0.1)),
        "cell_types.fold.friction",
        &["frictionless", "set it to 0"],
    );
    refused(
        &l_fixture(|v| {
            drop_program(v);
        }),
        "task",
        &["`program`", "builtin:L"],
    );
    refused(
        &l_fixture(|v| v["chains"][0]["program"] = serde_json::json!("builtin:Q")),
        "chains[0].program",
        &["builtin:E", "builtin:L"],
    );
    refused(&l_fixture(|v| v["chains"][0]["cells"] = serde_json::json!(5)), "chains[0].cells", &["letter L has 7"]);
    // The site angles listed in the JSON (`sites`): degrees within ±180, as many as `site_connectors`,
    // only on a chain with a program.
    refused(
        &l_fixture(|v| v["chains"][0]["sites"] = serde_json::json!({ "bend": [60, 270, 80] })),
        "chains[0].sites.bend[1]",
        &["270", "±180"],
    );
    refused(
        &l_fixture(|v| {
            v["chains"][0]["site_connectors"] = serde_json::json!(3);
            v["chains"][0]["sites"] = serde_json::json!({ "lattice": [-5, 5] });
        }),
        "chains[0].sites.lattice",
        &["2 angles", "`site_connectors` is 3"],
    );
    refused(
        &l_fixture(|v| {
            drop_program(v).insert("sites".into(), serde_json::json!({ "bend": [70] }));
            v["task"] = serde_json::json!({ "type": "free" });
        }),
        "chains[0].sites",
        &["remove it"],
    );
    refused(
        &l_fixture(|v| {
            drop_program(v).insert("joints".into(), serde_json::json!("stops"));
            v["task"] = serde_json::json!({ "type": "free" });
        }),
        "chains[0].joints",
        &["`program`"],
    );
    // On the command line: exit 2, the path named.
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, l_fixture(|v| v["chains"][0]["program"] = serde_json::json!("builtin:Q"))).unwrap();
    let out = vsr2d(&["simulate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("chains[0].program"));
}

/// `simulate` on the L fixture cut to `seconds`: the fold metrics.
fn fold_l(seconds: f64) -> serde_json::Value {
    fold(&l_fixture(|v| v["world"]["duration"] = serde_json::json!(seconds)))
}

/// `simulate` on a scenario: the fold metrics of its chain.
fn fold(scenario: &str) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("fold.json");
    std::fs::write(&path, scenario).unwrap();
    let out = vsr2d(&["simulate", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["fold"][0].clone()
}

/// The RMS distance of a straight row of points `spacing` apart to `targets` after the best rotation and
/// translation, by brute force over rotations in steps of 0.01° (the centroids aligned): a second,
/// slower way to the fold task's error.
fn straight_row_error(spacing: f64, targets: &[[f64; 2]]) -> f64 {
    let n = targets.len() as f64;
    let centroid = |p: &[[f64; 2]]| {
        let s = p.iter().fold([0.0, 0.0], |a, q| [a[0] + q[0], a[1] + q[1]]);
        [s[0] / n, s[1] / n]
    };
    let row: Vec<[f64; 2]> = (0..targets.len()).map(|k| [k as f64 * spacing, 0.0]).collect();
    let (cr, ct) = (centroid(&row), centroid(targets));
    (0..36_000)
        .map(|step| {
            let a = (step as f64 * 0.01).to_radians();
            let sq: f64 = row
                .iter()
                .zip(targets)
                .map(|(p, t)| {
                    let (x, y) = (p[0] - cr[0], p[1] - cr[1]);
                    let (rx, ry) = (x * a.cos() - y * a.sin(), x * a.sin() + y * a.cos());
                    (rx - (t[0] - ct[0])).powi(2) + (ry - (t[1] - ct[1])).powi(2)
                })
                .sum();
            (sq / n).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn a_reduced_l_folds_into_its_letter_and_reruns_bit_identically() {
    let m = fold_l(20.0);
    assert_eq!(m["program"], "L");
    assert_eq!(m["cells"], 7);
    let d = m["diameter"].as_f64().unwrap();
    let (initial, last) = (m["initial_rms"].as_f64().unwrap(), m["final_rms"].as_f64().unwrap());
    // The L's stop chain is laid out straight with every joint open, neighbours √2 pitches apart (pitch
    // d_c = 2(R + r_b) = 10.314 m for the scs-paper cell): its error to the L by brute force.
    let pitch = 10.314;
    let l: Vec<[f64; 2]> = [(0, 4), (0, 3), (0, 2), (0, 1), (0, 0), (1, 0), (2, 0)]
        .iter()
        .map(|&(x, y)| [x as f64 * pitch, y as f64 * pitch])
        .collect();
    let expected = straight_row_error(std::f64::consts::SQRT_2 * pitch, &l);
    assert!((initial / expected - 1.0).abs() < 1e-3, "open chain error {initial} m, by brute force {expected} m");
    // In 20 s the joints close on their stops: within the letters' bound of 0.25·D (0.063·D measured),
    // and only cells next to each other in the L ever hold on.
    assert!(last / d < 0.25, "error {initial} m → {last} m");
    assert!(m["intended_pairs"].as_u64().unwrap() > 0);
    assert_eq!(m["unintended_pairs_max"], 0);
    let t95 = m["settle_time"].as_f64().unwrap();
    assert!(t95 > 0.0 && t95 <= 20.0, "t95 {t95}");
    assert_eq!(fold_l(20.0), m, "a rerun differs");
}

#[test]
fn without_its_bend_sites_the_l_stays_straight() {
    // `"sites": { "bend": [] }` removes the bend connectors; L has no lattice site, so nothing pulls.
    let m = fold(&l_fixture(|v| {
        v["world"]["duration"] = serde_json::json!(2.0);
        v["chains"][0]["sites"] = serde_json::json!({ "bend": [] });
    }));
    assert_eq!(m["intended_pairs"], 0);
    let (initial, last) = (m["initial_rms"].as_f64().unwrap(), m["final_rms"].as_f64().unwrap());
    assert!((last - initial).abs() < 0.01 * initial, "error {initial} m → {last} m");
}

#[test]
fn a_reduced_e_folds_with_its_quarter_turn_cells() {
    // E in 30 s: 1.95·D (open, with its quarter-turn cells) → 0.19·D measured; the bound leaves a
    // margin. No pair glues cells the letter keeps apart at any time.
    let text = std::fs::read_to_string(std::path::Path::new(crate::ROOT).join("fixtures/scenarios/cells-fold-E.json"))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["world"]["duration"] = serde_json::json!(30.0);
    let m = fold(&v.to_string());
    let (d, initial, last) =
        (m["diameter"].as_f64().unwrap(), m["initial_rms"].as_f64().unwrap(), m["final_rms"].as_f64().unwrap());
    assert!(initial / d > 1.5, "open chain error {} D", initial / d);
    assert!(last / d < 0.3, "error after 30 s {} D", last / d);
    assert_eq!(m["unintended_pairs_max"], 0);
}

#[test]
fn every_fold_fixture_has_its_letter_and_runs_frictionless_without_gravity() {
    for letter in ["E", "P", "F", "L"] {
        let text =
            std::fs::read_to_string(format!("{}/fixtures/scenarios/cells-fold-{letter}.json", crate::ROOT)).unwrap();
        let s = Scenario::from_json(&text).unwrap_or_else(|e| panic!("{letter}: {e}"));
        let goals = s.fold_goals().unwrap();
        assert_eq!(goals.len(), 1);
        assert_eq!(goals[0].program, letter);
        assert_eq!(s.world.gravity, [0.0, 0.0]);
    }
}
