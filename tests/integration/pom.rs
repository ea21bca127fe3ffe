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

/// The quadruped, shortened so the report's video is small: one cycle of 2 s at 10 fps, 320 × 180.
fn short_quadruped() -> vsr2d::pom::PomSpec {
    let mut spec = example::quadruped().unwrap();
    let gait = spec.gait.as_mut().unwrap();
    gait.cycles = 1;
    gait.period = 2.0;
    spec.render = Some(vsr2d::pom::spec::RenderSpec { fps: 10, size: [320, 180], ..Default::default() });
    spec
}

/// The report directory: index.html with every acceptance check passing and the reconstruction flag,
/// the CSVs and plots it links, and (with the `video` feature) an H.264 pom.mp4 at the spec's 10 fps.
#[test]
fn report_has_the_acceptance_table_plots_and_video() {
    use vsr2d_report::checks::Verdict;
    use vsr2d_report::pom::{write, ReportInput};
    let spec = short_quadruped();
    let out = run(&spec, None).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pom-report");
    let input = ReportInput { source: "pom-quadruped", spec: &spec, run: &out, mocap: None, video: true };
    let report = write(&dir, &input).unwrap();
    assert_eq!(report.checks.len(), 11, "spec §13 has 11 checks");
    for c in &report.checks[..10] {
        assert_eq!(c.verdict, Verdict::Pass, "check {}: {}", c.runs, c.measured);
    }
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(
        html.contains("RECONSTRUCTION, not the paper&#x27;s robot")
            || html.contains("RECONSTRUCTION, not the paper's robot")
    );
    for file in [
        "J.csv",
        "q.csv",
        "x.csv",
        "support.csv",
        "fig5_desired_feet.png",
        "fig6_actuators.png",
        "fig6_markers.png",
        "views_0.png",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
        assert!(html.contains(&format!("\"{file}\"")), "index.html does not link {file}");
    }
    #[cfg(feature = "video")]
    {
        assert_eq!(report.checks[10].verdict, Verdict::Pass, "{}", report.checks[10].measured);
        let info = vsr2d::output::video::probe(dir.join("pom.mp4")).unwrap();
        assert_eq!((info.codec.as_str(), info.fps, info.width, info.height), ("h264", 10.0, 320, 180));
        assert_eq!(info.frames, 21, "2 s at 10 fps, both ends included");
        let frames = vsr2d::output::video::decode_frames(dir.join("pom.mp4")).unwrap();
        // The front-right foot is lifted at t = 0.5 s and down at t = 0: the frames differ.
        let differ = frames[0].pixels().zip(frames[5].pixels()).filter(|(a, b)| a.0 != b.0).count();
        assert!(differ > 100, "{differ} pixels differ between t = 0 and t = 0.5 s");
    }
    #[cfg(not(feature = "video"))]
    assert_eq!(report.checks[10].verdict, Verdict::NoData);
}

/// `vsr2d pom align`: marker tracks generated from the model's own prediction, moved rigidly in the lab
/// and written in mm, align onto the model with ~0 RMS; the report carries the Fig. 7 overlay.
#[test]
fn cli_align_of_model_generated_mocap_has_zero_rms() {
    use vsr2d::pom::{acceptance, align};
    let spec = example::quadruped().unwrap();
    let out = run(&spec, None).unwrap();
    let tmpl = align::template(&out.model, &out.solution);
    let data = acceptance::rigidly_moved(&tmpl, &out.solution.times);
    let mut csv = String::from("t,m1_x,m1_y,m2_x,m2_y,m3_x,m3_y,m4_x,m4_y\n");
    for (t, f) in out.solution.times.iter().zip(&data).step_by(2) {
        csv.push_str(&t.to_string());
        for p in f {
            csv.push_str(&format!(",{},{}", p[0] * 1e3, p[1] * 1e3));
        }
        csv.push('\n');
    }
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("mocap.csv");
    std::fs::write(&file, csv).unwrap();
    let dir = tmp.path().join("report");
    let cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["pom", "align", file.to_str().unwrap(), "--rescale", "none", "--no-video", "-o", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&cmd.stdout);
    assert!(cmd.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&cmd.stderr));
    assert!(stdout.contains("RMS difference to POM's markers: 0.000 mm"), "{stdout}");
    assert!(stdout.contains("RECONSTRUCTION"));
    assert!(dir.join("fig7_mocap.png").is_file() && dir.join("aligned.csv").is_file());
    // A file with the wrong number of markers is refused (exit 2) naming both lists.
    std::fs::write(&file, "t,a_x,a_y,b_x,b_y\n0,0,0,1,1\n1,0,0,1,1\n").unwrap();
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["pom", "align", file.to_str().unwrap(), "--no-video", "-o", dir.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("2 markers in the data") && stderr.contains("m1, m2, m3, m4"), "{stderr}");
}

/// An output directory that cannot be created is bad input, refused before anything runs.
#[test]
fn an_unwritable_report_directory_is_refused_up_front() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vsr2d"))
        .args(["pom", "--no-video", "-o", "/proc/no-such-dir/report"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "nothing is computed or printed first");
}
