//! Acceptance checks of spec §13 within the kinematic core (items 2–9), asserting facts stated by the
//! paper or the spec, never numbers read back from this code.

use std::collections::BTreeSet;

use super::error::PomError;
use super::example;
use super::gait::ground_height;
use super::geometry::{node_axis, Lattice, NodeKey, Voxel};
use super::kinematics::{reversed, Frame};
use super::model::{Control, Effector, Model, NodeRef, Push, Role};
use super::run::{run, solve, solve_keyframes};
use super::spec::PomSpec;
use super::stability::{convex_hull, static_margin};
use crate::geom::Vec2;

/// The crate's seeded generator, with the two draws these tests use.
struct Rng(crate::rng::SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.index(n)
    }
    /// Uniform in [−1, 1).
    fn signed(&mut self) -> f64 {
        self.0.range(-1.0, 1.0)
    }
}

/// A random face-connected lattice within nx × ny × nz, grown from one voxel.
fn random_lattice(rng: &mut Rng, max: usize) -> Lattice {
    let dims = [1 + rng.below(max), 1 + rng.below(max), 1 + rng.below(max)];
    let cells = dims[0] * dims[1] * dims[2];
    let goal = 1 + rng.below(cells);
    let mut voxels: Vec<Voxel> = vec![[0, 1, 2].map(|k| rng.below(dims[k]) as i32)];
    let mut set: BTreeSet<Voxel> = voxels.iter().copied().collect();
    for _ in 0..20 * cells {
        if set.len() >= goal {
            break;
        }
        let mut v = voxels[rng.below(voxels.len())];
        let axis = rng.below(3);
        v[axis] += if rng.below(2) == 0 { -1 } else { 1 };
        if v[axis] >= 0 && v[axis] < dims[axis] as i32 && set.insert(v) {
            voxels.push(v);
        }
    }
    Lattice::new(0.0762, voxels).unwrap()
}

/// Random controls, keeping only those the model accepts (one per plane).
fn random_controls(rng: &mut Rng, lattice: &Lattice, tries: usize) -> Vec<Control> {
    let voxels: Vec<Voxel> = lattice.voxels().collect();
    let mut controls = Vec::new();
    for k in 0..tries {
        let node = rng.below(6);
        let axis = (node_axis(node) + 1 + rng.below(2)) % 3;
        let candidate = Control {
            id: format!("c{k}"),
            at: NodeRef { voxel: voxels[rng.below(voxels.len())], node },
            push: Push { axis, sign: if rng.below(2) == 0 { -1 } else { 1 } },
            partner: None,
            range: [-0.005, 0.005],
        };
        let mut trial = controls.clone();
        trial.push(candidate.clone());
        match Model::new(lattice.clone(), trial, Vec::new(), Vec::new()) {
            Ok(_) => controls.push(candidate),
            Err(PomError::SharedPlane { .. }) => {}
            Err(e) => panic!("unexpected refusal: {e}"),
        }
    }
    controls
}

fn node_effector(id: String, voxel: Voxel, node: usize) -> Effector {
    Effector { id, at: NodeRef { voxel, node }, offset: [0.0; 3], extension: None, role: Role::Other, drive: false }
}

/// Every distinct node's displacement, computed through each voxel that contains it.
fn displacements(model: &Model, q: &[f64]) -> Vec<(NodeKey, Vec<[f64; 3]>)> {
    model
        .lattice()
        .nodes()
        .into_iter()
        .map(|(key, owners)| {
            (key, owners.iter().map(|&(voxel, node)| model.node_displacement(NodeRef { voxel, node }, q)).collect())
        })
        .collect()
}

/// Check 2 and check 5: on random lattices up to 6×6×6 with random controls, a node shared by two voxels
/// gets identical displacements from both, and each effector component is driven by at most one control.
#[test]
fn shared_nodes_agree_and_rows_have_one_driver_on_random_lattices() {
    let mut rng = Rng(crate::rng::SplitMix64::new(0x5EED_0001));
    let mut shared_moving = 0;
    for _ in 0..300 {
        let lattice = random_lattice(&mut rng, 6);
        let controls = random_controls(&mut rng, &lattice, 8);
        let effectors: Vec<Effector> = lattice
            .nodes()
            .into_values()
            .enumerate()
            .map(|(k, owners)| node_effector(format!("n{k}"), owners[0].0, owners[0].1))
            .collect();
        let model = Model::new(lattice, controls, effectors, Vec::new()).unwrap();
        let q: Vec<f64> = (0..model.cols()).map(|_| 0.005 * rng.signed()).collect();
        for (key, ds) in displacements(&model, &q) {
            assert!(ds.iter().all(|d| *d == ds[0]), "node {key:?}: {ds:?}");
            shared_moving += usize::from(ds.len() == 2 && ds[0] != [0.0; 3]);
        }
        for r in 0..model.rows() {
            let nonzero = (0..model.cols()).filter(|&i| model.j(r, i) != 0).count();
            assert!(nonzero <= 1, "row {} has {nonzero} drivers", model.row_name(r));
        }
    }
    assert!(shared_moving > 1000, "the check must see many moving shared nodes, saw {shared_moving}");
}

/// The paper's Fig. 1 actuator on a `w`×`h`×1 square: between the +x node of voxel (x0, y0, 0) and
/// the +x node of the voxel above it, pushing the lower one along −y (so q > 0 extends the actuator).
fn fig1_model(layers: Vec<Vec<String>>, at: Voxel) -> Model {
    let lattice = Lattice::from_layers(0.0762, &layers).unwrap();
    let control = Control {
        id: "act".into(),
        at: NodeRef { voxel: at, node: 3 },
        push: Push { axis: 1, sign: -1 },
        partner: Some(NodeRef { voxel: [at[0], at[1] + 1, at[2]], node: 3 }),
        range: [-0.005, 0.005],
    };
    Model::new(lattice, vec![control], Vec::new(), Vec::new()).unwrap()
}

/// In the actuated layer (node keys with z = 2·layer), every node moves by `q`, and the same node one
/// pitch further along x or y moves the opposite way; every other node is still.
fn assert_plane_pattern(model: &Model, q: f64, layer: i32) -> (usize, usize) {
    let (mut moving, mut still) = (0, 0);
    let moved: std::collections::BTreeMap<NodeKey, [f64; 3]> =
        displacements(model, &[q]).into_iter().map(|(k, d)| (k, d[0])).collect();
    for (key, d) in &moved {
        let in_plane = key[2] == 2 * layer;
        if in_plane {
            moving += 1;
            let moved_along: Vec<f64> = d.iter().copied().filter(|c| *c != 0.0).collect();
            assert_eq!(moved_along.len(), 1, "in-plane node {key:?} moves along one axis: {d:?}");
            assert_eq!(moved_along[0].abs(), q.abs(), "in-plane node {key:?} moves by |q|: {d:?}");
            assert_eq!(d[2], 0.0, "no out-of-plane translation");
            for axis in 0..2 {
                let mut next = *key;
                next[axis] += 2;
                if let Some(e) = moved.get(&next) {
                    assert_eq!(*e, d.map(|c| -c), "alternating sign from {key:?} to {next:?}");
                }
            }
        } else {
            still += 1;
            assert_eq!(*d, [0.0; 3], "node {key:?} outside the actuated plane does not translate");
        }
    }
    (moving, still)
}

/// Check 3: the Fig. 1 case. 2×2×1, +x node between the two columns, d = 2, actuator +10 mm.
#[test]
fn fig1_twelve_nodes_move_five_mm_with_alternating_signs() {
    let model = fig1_model(vec![vec!["##".into(), "##".into()]], [0, 0, 0]);
    assert_eq!(model.actuations()[0].d, 2, "pushing along y between nodes sharing x and z turns the z = const plane");
    let (moving, still) = assert_plane_pattern(&model, 0.005, 0);
    assert_eq!((moving, still), (12, 8));
    // The two control nodes separate by 10 mm.
    let c = model.controls()[0].clone();
    let partner = c.partner.unwrap();
    let pos = |at: NodeRef| {
        let p = model.lattice().node_position(at.voxel, at.node);
        let d = model.node_displacement(at, &[0.005]);
        [p[0] + d[0], p[1] + d[1], p[2] + d[2]]
    };
    let rest = model.lattice().node_position(partner.voxel, partner.node)[1]
        - model.lattice().node_position(c.at.voxel, c.at.node)[1];
    let sep = pos(partner)[1] - pos(c.at)[1];
    assert!((sep - rest - 0.010).abs() < 1e-15, "separation grows by {}", sep - rest);
}

/// Check 4, Fig. 2: 4×4×1, no decay with distance: all 40 in-plane nodes move equally, 32 ±z nodes stay.
#[test]
fn fig2_pattern_does_not_decay() {
    let layer: Vec<String> = vec!["####".into(); 4];
    let model = fig1_model(vec![layer], [1, 1, 0]);
    assert_eq!(assert_plane_pattern(&model, 0.005, 0), (40, 32));
}

/// Check 4, Fig. 3: with the actuator in one layer of a 2×2×2 or 2×2×3 lattice, no node outside that
/// layer's in-plane nodes translates.
#[test]
fn fig3_neighbouring_layers_do_not_translate() {
    for (layers, nodes) in [(2, 36), (3, 52)] {
        let square: Vec<String> = vec!["##".into(), "##".into()];
        let model = fig1_model(vec![square; layers], [0, 0, 1]);
        let (moving, still) = assert_plane_pattern(&model, -0.005, 1);
        assert_eq!((moving, moving + still), (12, nodes), "{layers} layers");
    }
}

/// Check 6: forward(inverse(x)) = x for feasible targets; an unreachable target is named and a
/// contradictory one leaves a residual.
#[test]
fn inverse_then_forward_reproduces_feasible_targets() {
    let mut rng = Rng(crate::rng::SplitMix64::new(0x5EED_0002));
    for _ in 0..200 {
        let lattice = random_lattice(&mut rng, 5);
        let controls = random_controls(&mut rng, &lattice, 6);
        let voxels: Vec<Voxel> = lattice.voxels().collect();
        let effectors: Vec<Effector> =
            (0..6).map(|k| node_effector(format!("e{k}"), voxels[rng.below(voxels.len())], rng.below(6))).collect();
        let model = Model::new(lattice, controls, effectors, Vec::new()).unwrap();
        let q0: Vec<f64> = (0..model.cols()).map(|_| 0.005 * rng.signed()).collect();
        let x = model.forward(&q0).unwrap();
        let targets: Vec<Option<f64>> = x.iter().map(|&v| (rng.below(3) > 0).then_some(v)).collect();
        let inv = model.inverse(&targets).unwrap();
        let back = model.forward(&inv.q).unwrap();
        for (r, t) in targets.iter().enumerate() {
            if let Some(t) = t {
                assert!((back[r] - t).abs() < 1e-12, "{}: {} vs {t}", model.row_name(r), back[r]);
            }
        }
        assert!(inv.unreachable.is_empty());
        assert!(inv.residuals.iter().all(|(_, r)| r.abs() < 1e-12));
        // A control with no specified row is undetermined and left at 0.
        for &i in &inv.undetermined {
            assert_eq!(inv.q[i], 0.0);
            assert!((0..model.rows()).all(|r| targets[r].is_none() || model.j(r, i) == 0));
        }
    }
}

#[test]
fn infeasible_targets_name_components_and_leave_residuals() {
    let spec = example::quadruped().unwrap();
    let model = spec.model().unwrap();
    let row = |id: &str, axis| model.row_of(id, axis).unwrap();
    let mut targets = vec![None; model.rows()];
    // No actuator moves a back foot vertically (the core's feet are on the axes of every plane through them).
    targets[row("foot_bl", 2)] = Some(0.001);
    // foot_bl.x and m1.x are both +red: asking them to differ cannot be met.
    targets[row("foot_bl", 0)] = Some(0.002);
    targets[row("m1", 0)] = Some(0.004);
    let inv = model.inverse(&targets).unwrap();
    let names: Vec<String> = inv.unreachable.iter().map(|&r| model.row_name(r)).collect();
    assert_eq!(names, vec!["foot_bl.z".to_string()]);
    let res = |r: usize| inv.residuals.iter().find(|(row, _)| *row == r).unwrap().1;
    assert!((res(row("foot_bl", 0)) + 0.001).abs() < 1e-15 && (res(row("m1", 0)) - 0.001).abs() < 1e-15);
    assert_eq!(res(row("foot_bl", 2)), 0.001);
}

fn spec_with(controls: &str) -> String {
    format!(
        r###"{{"lattice": {{"layers": {{"z0": ["##", "##"], "z1": ["##", "##"]}}}},
            "controls": {controls},
            "effectors": [{{"id": "e", "voxel": [0, 0, 0], "node": 3}}],
            "mode": "forward", "forward": {{"keyframes": [{{"t": 0}}]}}}}"###
    )
}

/// Check 7: two controls in one plane are refused, naming both and the plane.
#[test]
fn controls_sharing_a_plane_are_refused() {
    let text = spec_with(
        r#"[{"id": "red", "voxel": [0, 1, 1], "node": 0, "push": "+z"},
            {"id": "blue", "voxel": [1, 1, 0], "node": 3, "push": "-z"}]"#,
    );
    let err = PomSpec::from_json(&text).unwrap_err();
    assert!(matches!(err, PomError::SharedPlane { d: 1, layer: 1, .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("\"red\"") && msg.contains("\"blue\"") && msg.contains("d = 1, y-layer 1"), "{msg}");
    // The same plane index in another layer, or another dimension through the same voxel, is fine.
    let ok = spec_with(
        r#"[{"id": "red", "voxel": [0, 1, 1], "node": 0, "push": "+z"},
            {"id": "blue", "voxel": [0, 0, 1], "node": 0, "push": "+z"},
            {"id": "yellow", "voxel": [0, 1, 1], "node": 0, "push": "+y"}]"#,
    );
    PomSpec::from_json(&ok).unwrap();
}

#[test]
fn other_refusals_name_the_field_and_the_fix() {
    let cases = [
        (r#"[{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "-x"}]"#, "controls[0].push", "own axis"),
        (r#"[{"id": "a", "voxel": [5, 0, 0], "node": 3, "push": "+y"}]"#, "controls[0].voxel", "not in the lattice"),
        (r#"[{"id": "a", "voxel": [0, 0, 0], "node": 6, "push": "+y"}]"#, "controls[0].node", "does not exist"),
        (r#"[{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "+w"}]"#, "controls[0].push", "unknown variant"),
        (
            r#"[{"id": "a", "voxel": [0, 0, 1], "node": 0, "push": "+z", "partner": {"voxel": [0, 0, 0], "node": 3}}]"#,
            "controls[0].partner",
            "push line",
        ),
        (
            r#"[{"id": "a", "voxel": [0, 0, 0], "node": 0, "push": "+y", "partner": {"voxel": [0, 0, 1], "node": 0}}]"#,
            "controls[0].partner",
            "outside the plane",
        ),
        (
            r#"[{"id": "a", "voxel": [0, 0, 1], "node": 0, "push": "+z", "partner": {"voxel": [0, 1, 0], "node": 0}}]"#,
            "controls[0].partner",
            "outside the plane",
        ),
        (r#"[{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "+y", "rage": 1}]"#, "controls[0]", "unknown field"),
        (
            r#"[{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "+y", "range": [0.1, -0.1]}]"#,
            "controls[0].range",
            "low < high",
        ),
    ];
    for (controls, path, words) in cases {
        let msg = PomSpec::from_json(&spec_with(controls)).unwrap_err().to_string();
        assert!(msg.contains(&format!("`{path}")) && msg.contains(words), "{controls}: {msg}");
    }
    // A partner two voxels along the push axis moves the same way (parity), so the actuator would not
    // change length; the one a voxel away moves opposite and is accepted.
    let column = |partner_y: i32| {
        format!(
            r###"{{"lattice": {{"layers": {{"z0": ["#", "#", "#"]}}}},
                "controls": [{{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "+y",
                              "partner": {{"voxel": [0, {partner_y}, 0], "node": 3}}}}],
                "effectors": [], "mode": "forward", "forward": {{"keyframes": [{{"t": 0}}]}}}}"###
        )
    };
    let msg = PomSpec::from_json(&column(2)).unwrap_err().to_string();
    assert!(msg.contains("controls[0].partner") && msg.contains("moves the same way"), "{msg}");
    PomSpec::from_json(&column(1)).unwrap();
    // The same node named through the other voxel that shares it is the control node itself.
    let same =
        r#"[{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "+y", "partner": {"voxel": [1, 0, 0], "node": 0}}]"#;
    let msg = PomSpec::from_json(&spec_with(same)).unwrap_err().to_string();
    assert!(msg.contains("control node itself"), "{msg}");
    let loose = r##"{"lattice": {"layers": {"z0": ["#.#"]}}, "controls": [], "effectors": [], "mode": "forward"}"##;
    let msg = PomSpec::from_json(loose).unwrap_err().to_string();
    assert!(msg.contains("lattice.layers") && msg.contains("not face-connected"), "{msg}");
}

/// The spec's own §10 example parses, and a bad keyframe value is reported at its exact JSON path.
#[test]
fn spec_example_parses_and_errors_carry_json_paths() {
    let example = r###"{
      "lattice": { "pitch": 0.0762, "numbering": "pfea",
                   "layers": { "z0": ["##", "##"], "z1": ["##", "##"] },
                   "mass_voxels": [[2, 1, 0], [1, 2, 0]],
                   "extensions": [ { "id": "front_r", "attach": { "voxel": [1, 1, 0], "node": 3 },
                                     "offset": [0.0381, 0, -0.0381] } ] },
      "controls": [ { "id": "red", "voxel": [0, 1, 1], "node": 0, "push": "+z",
                      "partner": { "voxel": [0, 1, 0], "node": 0 }, "range": [-0.005, 0.005] } ],
      "effectors": [ { "id": "foot_bl", "voxel": [0, 1, 0], "node": 2, "role": "foot" },
                     { "id": "foot_fr", "extension": "front_r", "role": "foot" },
                     { "id": "m1", "voxel": [0, 1, 1], "node": 5, "role": "marker" } ],
      "mode": "inverse",
      "dt": 0.05,
      "targets": { "keyframes": [ { "t": 0, "foot_bl": [0, 0, null] },
                                  { "t": 1, "foot_bl": [0.004, 0.004, null] } ] },
      "gait": { "type": "tripod", "lift": 0.004, "stride": 0.004, "period": 8,
                "order": ["foot_fr", "foot_fl"], "cycles": 2, "ground_tol": 0.0001 },
      "align": { "rescale": "variance" },
      "render": { "views": ["top", "side", "iso"], "exaggerate": 5, "fps": 30, "size": [1280, 720] }
    }"###;
    let spec = PomSpec::from_json(example).unwrap();
    assert_eq!(PomSpec::from_json(&spec.to_json()).unwrap(), spec, "round trip");
    // Inverse run: foot_bl.y has no driver in this one-actuator robot, so it is named unreachable.
    let out = run(&spec, None).unwrap();
    assert_eq!(out.solution.unreachable, vec!["foot_bl.y".to_string()]);
    let bad = example.replace("[0.004, 0.004, null]", "[0.004, \"a\", null]");
    let msg = PomSpec::from_json(&bad).unwrap_err().to_string();
    assert!(msg.contains("`targets.keyframes[1].foot_bl[1]`"), "{msg}");
    let unknown = example.replace("\"foot_bl\": [0.004", "\"foot_xx\": [0.004");
    let msg = PomSpec::from_json(&unknown).unwrap_err().to_string();
    assert!(msg.contains("`targets.keyframes[1].foot_xx`") && msg.contains("`foot_bl`"), "{msg}");
    let schema = serde_json::to_string(&schemars::schema_for!(PomSpec)).unwrap();
    assert!(schema.contains("keyframes") && schema.contains("\"+z\""));
}

/// Check 9: the J of `pom-quadruped` equals spec §12's fixture.
#[test]
fn quadruped_j_matches_the_spec_fixture() {
    let model = example::quadruped().unwrap().model().unwrap();
    let fixture = super::acceptance::QUADRUPED_J;
    for r in 0..model.rows() {
        for (i, c) in model.controls().iter().enumerate() {
            let name = model.row_name(r);
            let want = fixture.iter().find(|(row, id, _)| *row == name && *id == c.id).map_or(0, |f| f.2);
            assert_eq!(model.j(r, i), want, "J[{name}, {}]", c.id);
        }
    }
    // Spec §12: red turns the y-layer 1 (d = 1), yellow the x-layer 0 (d = 0), blue y-layer 0, green x-layer 1.
    let planes: Vec<(usize, i32)> = model.actuations().iter().map(|a| (a.d, a.plane.layer)).collect();
    assert_eq!(planes, vec![(1, 1), (0, 0), (1, 0), (0, 1)]);
}

/// Check 8: the quadruped's tripod gait.
#[test]
fn quadruped_gait_is_tripod_stable_within_range_and_alternates_front_feet() {
    let spec = example::quadruped().unwrap();
    let out = run(&spec, None).unwrap();
    let model = &out.model;
    let s = &out.solution;
    let gait = out.gait.as_ref().unwrap();
    assert!(out.reconstruction.as_deref().unwrap().contains("RECONSTRUCTION"));
    // The paper's ±5 mm per node.
    assert!(s.violations.is_empty());
    assert!(s.q.iter().flatten().all(|q| q.abs() <= 0.005));
    // Every target is met: the planner leaves free what the lifts decide.
    assert!(s.residuals.is_empty() && s.unreachable.is_empty() && s.undetermined.is_empty());
    // Tripod: at least three feet down, none in the ground, centroid inside the support.
    assert!(gait.contact.iter().all(|c| c.on_ground.len() >= 3 && c.below.is_empty()));
    assert!(gait.margin.iter().all(|&m| m > 0.0));
    assert!(gait.problems(model, &s.times).is_empty());
    // Front feet lift alternately, right then left, each once per cycle.
    let (fr, fl) = (model.row_of("foot_fr", 2).unwrap(), model.row_of("foot_fl", 2).unwrap());
    let tol = 1e-4;
    let mut lifts = Vec::new();
    for (k, x) in s.x.iter().enumerate() {
        let up: Vec<&str> = [("fr", fr), ("fl", fl)].into_iter().filter(|(_, r)| x[*r] > tol).map(|(n, _)| n).collect();
        assert!(up.len() <= 1, "both front feet up at t = {}", s.times[k]);
        if let Some(&foot) = up.first() {
            if lifts.last() != Some(&foot) {
                lifts.push(foot);
            }
        }
    }
    assert_eq!(lifts, vec!["fr", "fl", "fr", "fl"]);
    assert!(s.x.iter().any(|x| (x[fr] - 0.004).abs() < 1e-4), "the lift reaches its height");
    // The back feet move identically to markers 1 and 4.
    for x in &s.x {
        for k in 0..3 {
            assert_eq!(x[model.row_of("foot_bl", k).unwrap()], x[model.row_of("m1", k).unwrap()]);
            assert_eq!(x[model.row_of("foot_br", k).unwrap()], x[model.row_of("m4", k).unwrap()]);
        }
    }
    // Per phase as well.
    assert_eq!(gait.phases.len(), 4);
    assert!(gait.phases.iter().all(|p| p.min_feet_on_ground >= 3 && p.min_margin > 0.0 && p.peak_lift > 0.0039));
}

/// Check 8: running the keyframes in reverse gives q(T − t).
#[test]
fn reversed_keyframes_reverse_the_actuator_sequence() {
    let spec = example::quadruped().unwrap();
    let model = spec.model().unwrap();
    let plan = spec.tripod(&model).unwrap();
    let frames = plan.frames(&model, spec.dt);
    let forward = solve_keyframes(&model, &frames, spec.dt, false, false).unwrap();
    let backward = solve_keyframes(&model, &reversed(&frames), spec.dt, false, false).unwrap();
    let n = forward.times.len();
    assert_eq!(backward.times.len(), n);
    for k in 0..n {
        for i in 0..model.cols() {
            assert!((backward.q[k][i] - forward.q[n - 1 - k][i]).abs() < 1e-12, "sample {k}, control {i}");
        }
    }
    // Sparse keyframes too: interpolation commutes with reversal.
    let sparse: Vec<Frame> = frames.iter().step_by(7).cloned().collect();
    let a = solve_keyframes(&model, &sparse, 0.1, false, false).unwrap();
    let b = solve_keyframes(&model, &reversed(&sparse), 0.1, false, false).unwrap();
    let m = a.times.len();
    for k in 0..m {
        for i in 0..model.cols() {
            assert!((b.q[k][i] - a.q[m - 1 - k][i]).abs() < 1e-12);
        }
    }
}

/// Spec §12: with the right front foot lifted, the triangle of the other feet holds the centroid
/// (0.7p, 0.7p) with a margin of about 0.28·p (21.6 mm).
#[test]
fn quadruped_support_triangle_margin_is_about_a_quarter_pitch() {
    let model = example::quadruped().unwrap().model().unwrap();
    let c = super::stability::centroid(&model);
    let p = model.lattice().pitch();
    assert!((c.x - 0.7 * p).abs() < 1e-12 && (c.y - 0.7 * p).abs() < 1e-12);
    for lifted in ["foot_fr", "foot_fl"] {
        let support: Vec<Vec2> = super::gait::feet(&model)
            .filter(|&j| model.effectors()[j].id != lifted)
            .map(|j| {
                let r = model.effector_rest(j);
                assert_eq!(r[2], ground_height(&model), "all feet rest on the ground");
                Vec2::new(r[0], r[1])
            })
            .collect();
        let m = static_margin(&convex_hull(&support), c);
        assert!((m - 0.0216).abs() < 1e-4, "{lifted} lifted: margin {m}");
    }
}

/// Lateral kinematics composes inverse and forward: driving the back-left foot predicts marker 1.
#[test]
fn lateral_predicts_watched_markers() {
    let mut spec = example::quadruped().unwrap();
    spec.effectors[0].drive = true;
    spec.mode = super::spec::Mode::Lateral;
    let model = spec.model().unwrap();
    assert_eq!(model.effectors()[0].id, "foot_bl");
    let mut targets = vec![None; model.rows()];
    targets[0] = Some(0.003);
    targets[1] = Some(-0.002);
    // A target on a watched effector is ignored in lateral mode.
    targets[model.row_of("m2", 0).unwrap()] = Some(0.001);
    let out = solve(&model, &[0.0], vec![targets], true, false).unwrap();
    let x = &out.x[0];
    let m1 = model.row_of("m1", 0).unwrap();
    assert_eq!((x[m1], x[m1 + 1]), (0.003, -0.002), "m1 moves as the back-left foot (paper)");
    assert_eq!(x[model.row_of("m2", 0).unwrap()], 0.0, "blue is undetermined, so m2.x stays");
}

/// Spec §6: a forward run from an actuator log reports samples outside the ±5 mm range with their
/// time and amount; `clip: true` clamps them (and still reports them).
#[test]
fn forward_logs_report_and_optionally_clip_range_violations() {
    let text = r###"{"lattice": {"layers": {"z0": ["##", "##"]}},
        "controls": [{"id": "a", "voxel": [0, 0, 0], "node": 3, "push": "-y",
                      "partner": {"voxel": [0, 1, 0], "node": 3}}],
        "effectors": [{"id": "far", "voxel": [1, 1, 0], "node": 4}],
        "mode": "forward", "forward": {"csv": "log.csv"}}"###;
    let log = "t,a\n0,0\n1,0.004\n2,-0.007\n";
    let mut spec = PomSpec::from_json(text).unwrap();
    let out = run(&spec, Some(log)).unwrap();
    assert_eq!(out.solution.times, vec![0.0, 1.0, 2.0]);
    assert_eq!(out.solution.violations.len(), 1);
    let v = &out.solution.violations[0];
    assert_eq!((v.t, v.q), (2.0, -0.007));
    assert!((v.excess - 0.002).abs() < 1e-15);
    // The far node moves by |q| in every in-plane node (no decay), here along x.
    assert_eq!(out.solution.x[1].iter().map(|c| c.abs()).sum::<f64>(), 0.004);
    spec.clip = true;
    let clipped = run(&spec, Some(log)).unwrap();
    assert_eq!(clipped.solution.q[2], vec![-0.005]);
    assert_eq!(clipped.solution.violations.len(), 1);
    // Bad logs are refused with the line and the fix.
    let msg = run(&spec, Some("t,b\n0,0\n")).unwrap_err().to_string();
    assert!(msg.contains("forward.csv line 1") && msg.contains("`a`"), "{msg}");
    let msg = run(&spec, Some("t,a\n0,0\n0,1\n")).unwrap_err().to_string();
    assert!(msg.contains("forward.csv line 3") && msg.contains("greater"), "{msg}");
}

/// The report's acceptance table measures checks 1–10 on the built-in example, and every one passes.
#[test]
fn acceptance_table_of_the_quadruped_passes() {
    let spec = example::quadruped().unwrap();
    let out = run(&spec, None).unwrap();
    let rows = super::acceptance::measure(&out, &spec);
    assert_eq!(rows.iter().map(|r| r.number).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
    for r in &rows {
        assert_eq!(r.pass, Some(true), "check {}: {}", r.number, r.measured);
    }
}
