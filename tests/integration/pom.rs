//! `vsr2d pom` beyond the kinematic core: goldens of the three-view drawing (suite `pom`) from fixed
//! lattice states, and the command's report, plots and video.

use std::collections::BTreeMap;

use vsr2d::pom::geometry::Lattice;
use vsr2d::pom::model::{Control, Effector, Model, NodeRef, Push, Role};
use vsr2d::pom::spec::View;
use vsr2d::pom::{example, run};
use vsr2d::render::lattice::{LatticeOptions, LatticeRenderer, LatticeState};
use vsr2d::render::pixmap_to_rgba_image;

use crate::golden::{assert_golden, GoldenOptions};

const SUITE: &str = "pom";

/// The quadruped at a fixed q (not a gait sample: a state chosen to move every control).
#[test]
fn golden_quadruped_three_views() {
    let model = example::quadruped().unwrap().model().unwrap();
    let q = [-0.004, 0.003, 0.002, -0.0045];
    let state = LatticeState::from_q(&model, 2.5, &q);
    let options = LatticeOptions { title: "pom-quadruped (golden state)".into(), ..LatticeOptions::default() };
    let mut r = LatticeRenderer::new(&model, 1280, 720, options).unwrap();
    let img = pixmap_to_rgba_image(r.render(&model, &state));
    assert_golden(SUITE, "quadruped_three_views", &img, GoldenOptions::default());
}

/// A hand-built field, not POM's: every node of a 2×2×1 square moves 3 mm radially away from the
/// lattice centre (nodes on the centre axis stay), drawn ×3 with one actuator, a foot and a marker.
#[test]
fn golden_hand_built_field() {
    let lattice = Lattice::from_layers(0.0762, &[vec!["##".into(), "##".into()]]).unwrap();
    let control = Control {
        id: "red".into(),
        at: NodeRef { voxel: [0, 0, 0], node: 3 },
        push: Push { axis: 1, sign: -1 },
        partner: Some(NodeRef { voxel: [0, 1, 0], node: 3 }),
        range: [-0.005, 0.005],
    };
    let effector = |id: &str, voxel, node, role| Effector {
        id: id.into(),
        at: NodeRef { voxel, node },
        offset: [0.0; 3],
        extension: None,
        role,
        drive: false,
    };
    let effectors = vec![effector("foot", [0, 0, 0], 2, Role::Foot), effector("m", [1, 1, 0], 5, Role::Marker)];
    let model = Model::new(lattice, vec![control], effectors, Vec::new()).unwrap();
    let centre = [0.0381, 0.0381, 0.0];
    let mut nodes = BTreeMap::new();
    for key in model.lattice().nodes().keys() {
        let p = model.lattice().key_position(*key);
        let r = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
        let n = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let d = if n > 1e-9 { r.map(|c| 0.003 * c / n) } else { [0.0; 3] };
        nodes.insert(*key, d);
    }
    let eff = |voxel, node| nodes[&vsr2d::pom::geometry::node_key(voxel, node)];
    let effectors = vec![eff([0, 0, 0], 2), eff([1, 1, 0], 5)];
    let state = LatticeState { t: 1.0, q: vec![0.003], nodes, effectors };
    let options = LatticeOptions {
        views: vec![View::Top, View::Side, View::Iso],
        exaggerate: 3.0,
        color_range: Some(0.003),
        title: "hand-built radial field, 3 mm".into(),
    };
    let mut r = LatticeRenderer::new(&model, 960, 400, options).unwrap();
    let img = pixmap_to_rgba_image(r.render(&model, &state));
    assert_golden(SUITE, "hand_built_field", &img, GoldenOptions::default());
}

/// The pixel facts the goldens rest on: at rest no node is blue; moving one control paints nodes blue.
#[test]
fn rest_state_has_white_nodes_and_motion_colours_them() {
    let model = example::quadruped().unwrap().model().unwrap();
    let mut r = LatticeRenderer::new(&model, 1280, 720, LatticeOptions::default()).unwrap();
    let strong_blue = |img: &image::RgbaImage| img.pixels().filter(|p| p[0] < 60 && p[1] < 100 && p[2] > 200).count();
    let rest = pixmap_to_rgba_image(r.render(&model, &LatticeState::rest(&model)));
    let out = run(&example::quadruped().unwrap(), None).unwrap();
    assert!(out.model.cols() == 4);
    let moved = pixmap_to_rgba_image(r.render(&model, &LatticeState::from_q(&model, 0.0, &[0.005, 0.0, 0.0, 0.0])));
    // Blue actuator pixels exist in both; fully blue nodes only when something moves 5 mm.
    assert!(strong_blue(&moved) > strong_blue(&rest) + 50, "{} vs {}", strong_blue(&moved), strong_blue(&rest));
}
