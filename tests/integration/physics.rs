//! Physical facts the simulator must reproduce (spec §2–§8, issue "core" test list).

use vsr2d::controller::ControllerSpec;
use vsr2d::controller::FnController;
use vsr2d::geom::Vec2;
use vsr2d::model::terrain::Terrain;
use vsr2d::model::voxel::grid::BodyGrid;
use vsr2d::model::voxel::material::{Material, Preset};
use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::model::voxel::scaffolding::SpringGroup;
use vsr2d::model::voxel::SensorReadings;
use vsr2d::scenario::Scenario;
use vsr2d::sim::voxel_robot::RobotOptions;
use vsr2d::sim::world::{World, WorldSettings};
use vsr2d::snapshot::{Progress, Snapshot, SnapshotRecorder, VoxelRobotSnapshot};

fn no_gravity() -> WorldSettings {
    WorldSettings { gravity: Vec2::ZERO, ..WorldSettings::default() }
}

/// One free voxel held at control value `f` from t = 0.
fn held_voxel(settings: WorldSettings, material: Material, f: f64) -> World {
    let mut world = World::new(settings);
    let body = BodyGrid::filled(1, 1, material).unwrap();
    let controller = FnController(move |_t: f64, _r: &[_], out: &mut [f64]| out.fill(f));
    world.add_robot("voxel", &body, Vec2::new(0.0, 5.0), RobotOptions::default(), Some(Box::new(controller)));
    world
}

/// The first voxel robot of a snapshot.
fn robot(snapshot: &Snapshot) -> &VoxelRobotSnapshot {
    snapshot.voxel_robots().next().expect("the world has a voxel robot")
}

/// Sensor readings of voxel `vi` of the first robot, now.
fn readings(world: &mut World, vi: usize) -> SensorReadings {
    robot(&world.snapshot()).voxels[vi].sensors
}

fn area_ratio(world: &mut World) -> f64 {
    readings(world, 0).area_ratio
}

#[test]
fn passive_voxel_on_flat_ground_keeps_its_area() {
    let mut world = World::new(WorldSettings::default());
    world.add_terrain(&Terrain::flat());
    let body = BodyGrid::filled(1, 1, Material::default()).unwrap();
    world.add_robot("voxel", &body, Vec2::new(11.0, 1.0), RobotOptions::default(), None);
    world.run(600, &mut []).unwrap();
    let r = readings(&mut world, 0);
    assert!((r.area_ratio - 1.0).abs() < 0.05, "area ratio after 10 s: {}", r.area_ratio);
    assert_eq!(r.touching, 1.0, "the voxel must rest on the ground");
    let centre = world.centre(0);
    assert!(centre.y > 1.0 && centre.y < 1.6, "resting centre height {}", centre.y);
}

#[test]
fn held_voxel_reaches_the_documented_area_ratio() {
    for f in [1.0, 0.5, 0.0, -0.5, -1.0] {
        let mut world = held_voxel(no_gravity(), Material::default(), f);
        world.run(300, &mut []).unwrap();
        let ar = area_ratio(&mut world);
        let expected = 1.0 - 0.2 * f;
        assert!((ar - expected).abs() < 0.005, "f = {f}: area ratio {ar}, expected {expected}");
    }
}

#[test]
fn zero_command_restores_the_rest_area() {
    let mut world = World::new(no_gravity());
    let body = BodyGrid::filled(1, 1, Material::default()).unwrap();
    let controller = FnController(|t: f64, _r: &[_], out: &mut [f64]| out.fill(if t < 3.0 { 1.0 } else { 0.0 }));
    world.add_robot("voxel", &body, Vec2::ZERO, RobotOptions::default(), Some(Box::new(controller)));
    world.run(180, &mut []).unwrap();
    assert!((area_ratio(&mut world) - 0.8).abs() < 0.01);
    world.run(300, &mut []).unwrap();
    assert!((area_ratio(&mut world) - 1.0).abs() < 0.005);
}

#[test]
fn stiff_voxel_stays_finite_and_square_for_a_minute() {
    let material = Material { spring_hz: 30.0, ..Material::default() };
    let mut world = World::new(WorldSettings::default());
    world.add_terrain(&Terrain::flat());
    let body = BodyGrid::filled(1, 1, material).unwrap();
    let controller = FnController(|t: f64, _r: &[_], out: &mut [f64]| out.fill((2.0 * std::f64::consts::PI * t).sin()));
    world.add_robot("voxel", &body, Vec2::new(11.0, 1.0), RobotOptions::default(), Some(Box::new(controller)));
    let mut worst_angle_error: f64 = 0.0;
    for _ in 0..60 {
        world.run(60, &mut []).unwrap();
        let snap = world.snapshot();
        let o = &robot(&snap).voxels[0].outline;
        // Squareness: the corner angles stay close to 90°.
        for i in 0..4 {
            let (a, b, c) = (o[(i + 3) % 4], o[i], o[(i + 1) % 4]);
            let cos = (a - b).normalized().dot((c - b).normalized());
            worst_angle_error = worst_angle_error.max(cos.abs());
        }
        assert!(robot(&snap).voxels[0].outline.iter().all(|p| p.is_finite()));
    }
    assert!(worst_angle_error < 0.2, "a corner deviated from 90° by cos = {worst_angle_error}");
}

/// Tip deflection of a cantilever-like beam under gravity: a 4×1 beam whose left face is pinned.
fn beam_tip_drop(material: Material) -> f64 {
    let mut world = World::new(WorldSettings::default());
    let body = BodyGrid::filled(4, 1, material).unwrap();
    world.add_robot("beam", &body, Vec2::ZERO, RobotOptions { pin_left_face: true, ..RobotOptions::default() }, None);
    let before = robot(&world.snapshot()).voxels[3].center.y;
    world.run(600, &mut []).unwrap();
    before - robot(&world.snapshot()).voxels[3].center.y
}

#[test]
fn softer_material_and_fewer_groups_bend_more() {
    let soft = beam_tip_drop(Material { spring_hz: 4.0, ..Material::default() });
    let stiff = beam_tip_drop(Material { spring_hz: 15.0, ..Material::default() });
    assert!(soft > stiff && stiff > 0.0, "4 Hz drop {soft} must exceed 15 Hz drop {stiff}");
    let mut drops = Vec::new();
    for set in Scaffolding::PAPER_SETS {
        drops.push(beam_tip_drop(Material { scaffolding: set, ..Material::default() }));
    }
    // E+C bends most, all groups least.
    assert!(drops[0] > drops[3], "E+C {} vs all {}", drops[0], drops[3]);
    assert!(drops.iter().all(|d| *d >= drops[3]), "all groups must be stiffest: {drops:?}");
}

/// Kinetic energy of a free 2×2 block, every step for 2 s after a 0.1 s kick of full contraction.
fn ring_down(damping_ratio: f64) -> Vec<f64> {
    let material = Material { damping_ratio, linear_damping: 0.0, angular_damping: 0.0, ..Material::default() };
    let mut world = World::new(no_gravity());
    let body = BodyGrid::filled(2, 2, material).unwrap();
    let controller = FnController(|t: f64, _r: &[_], out: &mut [f64]| out.fill(if t < 0.1 { 1.0 } else { 0.0 }));
    world.add_robot("block", &body, Vec2::ZERO, RobotOptions::default(), Some(Box::new(controller)));
    (0..126)
        .map(|_| {
            world.run(1, &mut []).unwrap();
            world.kinetic_energy()
        })
        .collect()
}

#[test]
fn vibration_energy_decays_with_damping() {
    let runs = [ring_down(0.0), ring_down(0.05), ring_down(0.3)];
    for e in &runs {
        let peak = e.iter().cloned().fold(0.0, f64::max);
        assert!(peak > 1.0, "the kick must put energy in: peak {peak} J");
    }
    // With the default damping ratio the ringing is gone within a second.
    let peak = runs[2].iter().cloned().fold(0.0, f64::max);
    assert!(runs[2][60] < 1e-3 * peak, "ζ = 0.3: energy at 1 s {} vs peak {peak}", runs[2][60]);
    // More damping, faster decay.
    assert!(
        runs[0][24] > runs[1][24] && runs[1][24] > runs[2][24],
        "energies at 0.4 s: {} {} {}",
        runs[0][24],
        runs[1][24],
        runs[2][24]
    );
}

#[test]
fn single_spring_oscillates_at_its_frequency() {
    use rapier2d::prelude::*;
    // Two free 0.25 kg bodies joined at their centres by one spring, no gravity, no damping, ζ = 0,
    // separation perturbed by 1 cm (spec §3 check).
    let material = Material { damping_ratio: 0.0, ..Material::default() };
    let dt = 1.0 / 600.0;
    let mut w = PhysicsWorld::new();
    w.gravity = Vector::ZERO;
    w.integration_parameters.dt = dt as Real;
    let mut body = |x: f32| {
        let h = w.bodies.insert(RigidBodyBuilder::dynamic().translation(Vector::new(x, 0.0)));
        w.colliders.insert_with_parent(ColliderBuilder::cuboid(0.45, 0.45).mass(0.25), h, &mut w.bodies);
        h
    };
    let (a, b) = (body(0.0), body(2.11));
    let zero = vsr2d::geom::Vec2::ZERO;
    // k = m_eff·ω² with m_eff = 0.25·0.25/(0.25 + 0.25) = 0.125 kg, worked out by hand.
    let k = 0.125 * (2.0 * std::f64::consts::PI * material.spring_hz).powi(2);
    let joint = vsr2d::sim::voxel_robot::spring_joint(zero, zero, 2.1, k, 0.0);
    w.impulse_joints.insert(a, b, joint, true);
    let mut sep = Vec::new();
    for _ in 0..1200 {
        w.step();
        sep.push((w.bodies[b].translation().x - w.bodies[a].translation().x) as f64 - 2.1);
    }
    let ups: Vec<f64> = (1..sep.len()).filter(|&i| sep[i - 1] < 0.0 && sep[i] >= 0.0).map(|i| i as f64 * dt).collect();
    assert!(ups.len() >= 10, "the spring must oscillate: {} upward crossings", ups.len());
    let f = (ups.len() - 1) as f64 / (ups[ups.len() - 1] - ups[0]);
    assert!((f - 8.0).abs() < 0.02 * 8.0, "spring frequency {f} Hz, expected 8 Hz ± 2 %");
}

#[test]
fn ropes_stop_a_crushed_voxel_from_folding() {
    let run = |ropes: bool| {
        let material = Material { scaffolding: Scaffolding::EC, spring_hz: 1.0, ropes, ..Material::default() };
        let mut world = World::new(WorldSettings::default());
        world.add_terrain(&Terrain::flat());
        let voxel = BodyGrid::filled(1, 1, material).unwrap();
        world.add_robot("voxel", &voxel, Vec2::new(11.0, 0.0), RobotOptions::default(), None);
        // A 20 kg rigid 4 m × 1 m box resting on top of the voxel.
        world.add_rigid_box(Vec2::new(12.5, 3.55), Vec2::new(2.0, 0.5), 20.0);
        let mut min_distance = f64::INFINITY;
        for _ in 0..300 {
            world.run(1, &mut []).unwrap();
            // Mass centres as the means of their squares' corners (rounding aside, the engine's centres).
            let snapshot = world.snapshot();
            for v in &robot(&snapshot).voxels {
                let c = v.masses.map(|sq| sq.iter().fold(Vec2::ZERO, |s, p| s + *p) * 0.25);
                for (a, b) in [(0, 1), (1, 2), (2, 3), (3, 0)] {
                    min_distance = min_distance.min((c[b] - c[a]).length());
                }
            }
        }
        min_distance
    };
    let with = run(true);
    let without = run(false);
    assert!(without < 0.9, "without ropes the masses must sink into each other: min distance {without}");
    assert!(with > 0.9 - 0.1, "with ropes no adjacent centre distance may end a step more than 0.1 below m: {with}");
}

#[test]
fn two_runs_are_bit_identical() {
    let text =
        std::fs::read_to_string(std::path::Path::new(crate::ROOT).join("fixtures/scenarios/biped.json")).unwrap();
    let run = || {
        let mut scenario = Scenario::from_json(&text).unwrap();
        scenario.world.duration = 3.0;
        let mut rec = SnapshotRecorder::default();
        let metrics = scenario.build().unwrap().run(&mut [&mut rec]).unwrap();
        (serde_json::to_string(&rec.snapshots).unwrap(), metrics)
    };
    let (a, ma) = run();
    let (b, mb) = run();
    assert_eq!(ma, mb);
    assert!(a == b, "snapshots differ between two runs");
}

#[test]
fn paper_biped_walks_forward_on_flat_ground() {
    let text =
        std::fs::read_to_string(std::path::Path::new(crate::ROOT).join("fixtures/scenarios/biped.json")).unwrap();
    let mut scenario = Scenario::from_json(&text).unwrap();
    scenario.world.duration = 30.0;
    let metrics = scenario.build().unwrap().run(&mut []).unwrap();
    assert!(metrics.robots[0].x_velocity > 0.1, "biped x velocity over 30 s: {} m/s", metrics.robots[0].x_velocity);
}

#[test]
fn damping_per_step_matches_the_engine_and_the_released_code() {
    // A free voxel with v0 = 1 m/s (spec §2 check; 1e−6 because the engine is f32): rapier scales
    // velocities by 1/(1 + d·dt) per step, and legacy-1.0's d' = d/(1 − d·dt) turns that into 1 − d·dt.
    let speed_after_one_step = |preset: Preset| {
        let mut world = World::new(no_gravity());
        let body = BodyGrid::filled(1, 1, Material::with_preset(preset)).unwrap();
        let id = world.add_robot("voxel", &body, Vec2::ZERO, RobotOptions::default(), None);
        world.set_body_velocity(id, Vec2::new(1.0, 0.0));
        world.run(1, &mut []).unwrap();
        readings(&mut world, 0).x_velocity
    };
    let dt = 1.0 / 60.0;
    let v = speed_after_one_step(Preset::Default);
    assert!((v - 1.0 / (1.0 + dt)).abs() < 1e-6, "default speed after one step: {v}");
    let v = speed_after_one_step(Preset::Legacy10);
    assert!((v - (1.0 - dt)).abs() < 1e-6, "legacy speed after one step: {v}");
}

#[test]
fn mlp_controller_spec_builds_for_the_paper_example() {
    let spec: ControllerSpec = serde_json::from_value(serde_json::json!({
        "type": "mlp",
        "sensors": {"default": [
            {"sensor": "area_ratio", "aggregate": "mean", "n": 5},
            {"sensor": "x_rot_velocity", "aggregate": "mean", "n": 5},
            {"sensor": "y_rot_velocity", "aggregate": "mean", "n": 5}]},
        "driver": {"type": "sin"},
        "hidden": [10],
        "weights": vec![0.01; 280]
    }))
    .unwrap();
    // 3 × 2 body without touching features: 18 + 1 + 1 inputs.
    let cells: Vec<[u32; 2]> = (0..6).map(|i| [i % 3, i / 3]).collect();
    assert_eq!(spec.expected_weight_count(&cells, [3, 2]).unwrap(), Some(20 * 10 + 10 * 6));
}

#[test]
fn control_effort_default_and_legacy() {
    // A 2×2 grid with one empty cell (3 voxels, 4 cells) commanded with a raw value of 2 (clipped to 1).
    let text = |compat: &str| {
        format!(
            r####"{{"world": {{"duration": 1, "terrain": {{"type": "none"}}, "gravity": [0, 0], "compat": "{compat}"}},
               "robots": [{{"body": ["#.", "##"],
                 "controller": {{"type": "time_functions", "default": {{"type": "constant", "value": 2}}}}}}]}}"####
        )
    };
    let run = |compat: &str| {
        let scenario = Scenario::from_json(&text(compat)).unwrap();
        let steps = scenario.steps();
        (steps, scenario.build().unwrap().run(&mut []).unwrap().robots[0].control_effort)
    };
    let (_, effort) = run("default");
    assert!((effort - 1.0).abs() < 1e-12, "clipped values of 1 give effort 1, got {effort}");
    // legacy-1.0 counts steps with `t += dt while t < T` (3601 for 60 s); control calls come at
    // k = 2, 4, … (not at t = 0); each adds 3 voxels × 2² × dt, and the sum is averaged over the 4 cells.
    assert_eq!(vsr2d::scenario::steps_for(60.0, 1.0 / 60.0, true), 3601);
    assert_eq!(vsr2d::scenario::steps_for(60.0, 1.0 / 60.0, false), 3600);
    let (steps, legacy) = run("legacy-1.0");
    let calls = ((steps - 1) / 2) as f64;
    let expected = calls * 3.0 * 4.0 * (1.0 / 60.0) / 4.0;
    assert!((legacy - expected).abs() < 1e-9, "legacy effort {legacy}, expected {expected}");
}

#[test]
fn snapshot_free_evaluation_gives_bit_identical_metrics() {
    for name in ["sensing-biped", "worm-10x3-uneven", "two-material"] {
        let path = format!("{}/fixtures/scenarios/{name}.json", crate::ROOT);
        let mut scenario = Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        scenario.world.duration = 4.0;
        let with_snapshots = scenario.build().unwrap().run(&mut []).unwrap();
        let without = scenario.build().unwrap().evaluate().unwrap();
        assert_eq!(with_snapshots, without, "{name}");
        assert!(without.robots[0].x_distance != 0.0 && without.robots[0].control_effort > 0.0);
    }
}

#[test]
fn force_actuation_pushes_masses_towards_or_away_from_the_centre() {
    use vsr2d::model::voxel::material::ActuationMode;
    let material = Material { actuation: ActuationMode::Force, max_force: 200.0, ..Material::default() };
    let area_after = |f: f64| {
        let mut world = held_voxel(no_gravity(), material, f);
        world.run(10, &mut []).unwrap();
        area_ratio(&mut world)
    };
    let (shrunk, rest, grown) = (area_after(1.0), area_after(0.0), area_after(-1.0));
    assert!((rest - 1.0).abs() < 1e-6, "no force, no change: {rest}");
    assert!(shrunk < 0.99, "+1 pulls the masses in: area ratio {shrunk}");
    assert!(grown > 1.01, "−1 pushes them out: area ratio {grown}");
    // The spring targets stay at rest: once the pushing stops, the voxel springs back.
    let mut world = World::new(no_gravity());
    let body = BodyGrid::filled(1, 1, material).unwrap();
    let pulse = FnController(|t: f64, _r: &[_], out: &mut [f64]| out.fill(if t < 0.1 { 1.0 } else { 0.0 }));
    world.add_robot("voxel", &body, Vec2::ZERO, RobotOptions::default(), Some(Box::new(pulse)));
    world.run(300, &mut []).unwrap();
    assert!((area_ratio(&mut world) - 1.0).abs() < 0.005);
}

/// A lone voxel, gravity and ropes off, its left masses pinned to a wall, loaded on its right masses
/// for 20 s. Returns how far the voxel centre moved.
fn pinned_voxel_displacement(scaffolding: Scaffolding, loads: &[(usize, Vec2)]) -> Vec2 {
    let material = Material { scaffolding, ropes: false, ..Material::default() };
    let mut world = World::new(no_gravity());
    let body = BodyGrid::filled(1, 1, material).unwrap();
    let options = RobotOptions { pin_left_face: true, ..RobotOptions::default() };
    let id = world.add_robot("voxel", &body, Vec2::ZERO, options, None);
    for &(mass, force) in loads {
        world.add_load(vsr2d::sim::world::PointLoad {
            body: id,
            voxel: 0,
            mass,
            force,
            from_step: 0,
            until_step: u64::MAX,
        });
    }
    let before = world.voxel_centre(id, 0).unwrap();
    world.run(1200, &mut []).unwrap();
    world.voxel_centre(id, 0).unwrap() - before
}

/// The spring law against stiffnesses worked out by hand (spec §3: k = m_eff·ω², m_eff from the spring's
/// own two corner masses as free bodies, whatever they are welded or pinned to). Default voxel: corner
/// mass 0.25 kg, side m = 0.9 m, I = 0.25·0.9²/6 = 0.03375 kg·m², ω = 2π·8 s⁻¹.
#[test]
fn lone_voxel_stretches_by_load_over_hand_computed_stiffness() {
    let omega_sq = (2.0 * std::f64::consts::PI * 8.0).powi(2);
    let f = 10.0;
    // The loads pull (tension). Pushed, the voxel pinned on one face buckles: a compressed spring has a
    // negative transverse stiffness, and E+I alone leave the right masses a shear mode. Measured under
    // compression: δ settles at F/(4·k_E) by t = 1 s, then a vertical offset grows from round-off
    // (4e-4 m at 1.2 s, 0.5 m at 3.2 s) and the voxel folds over; only an exactly symmetric solve
    // order kept it up for 20 s.

    // E+I: each right mass is held by the E spring (outer gap corner) and the I spring (inner gap corner)
    // of its side, m/2 below and above its centre, so an equal stretch leaves it unrotated. Each
    // spring: r × n = ±0.45 m, 1/m_eff = 2·(1/0.25 + 0.45²/0.03375) = 20 kg⁻¹, k_E = 0.05·ω².
    // F/2 on each right mass against 2·k_E: δ = F/(4·k_E); the voxel centre moves δ/2.
    let k_e = 0.05 * omega_sq;
    let ei = Scaffolding::from_groups([SpringGroup::SideExternal, SpringGroup::SideInternal]).unwrap();
    let moved = pinned_voxel_displacement(ei, &[(1, Vec2::new(f / 2.0, 0.0)), (2, Vec2::new(f / 2.0, 0.0))]);
    let expected = f / (4.0 * k_e);
    eprintln!("lone E+I voxel: δ = {:.6} m, F/(4·k_E) = {expected:.6} m", 2.0 * moved.x);
    assert!((2.0 * moved.x - expected).abs() < 0.02 * expected, "E+I: δ = {} m, F/k = {expected} m", 2.0 * moved.x);
    assert!(moved.y.abs() < 1e-3 * expected, "E+I: the symmetric load must not move the centre vertically: {moved:?}");

    // C alone: the NE mass is held only by the central-cross spring to the pinned SW mass, anchored at
    // both centres: 1/m_eff = 2/0.25, k_C = 0.125·ω² ≈ 315.8 N/m. F along SW → NE: δ = F/k_C; the centre
    // moves δ/4.
    let k_c = 0.125 * omega_sq;
    let c = Scaffolding::from_groups([SpringGroup::CentralCross]).unwrap();
    let d = f / std::f64::consts::SQRT_2;
    let moved = pinned_voxel_displacement(c, &[(2, Vec2::new(d, d))]);
    let expected = f / k_c;
    eprintln!("lone C voxel: δ = {:.6} m, F/k_C = {expected:.6} m", 4.0 * moved.length());
    assert!(
        (4.0 * moved.length() - expected).abs() < 0.02 * expected,
        "C: δ = {} m, F/k = {expected} m",
        4.0 * moved.length()
    );
    assert!(moved.x > 0.0 && moved.y > 0.0, "the pulled mass moves away from the pinned one: {moved:?}");
}

/// Merged weld clusters against the slower second way of simulating the same welds: one body per
/// corner mass and rapier fixed joints. The material must not depend on how the robot is welded.
/// Iterated fixed joints are slightly compliant and need more substeps than the springs to converge
/// (`examples/weld_check`: the jointed 10×4 beam at 30 Hz is 18.8 % / 2.1 % / 0.75 % softer than the
/// merged one at 10 / 40 / 80 substeps), so the jointed runs use 40.
#[test]
fn merged_and_jointed_welds_bend_the_same() {
    use vsr2d::sim::voxel_robot::Welds;
    use vsr2d::task::cantilever::{run, BeamSetup};
    for (w, h) in [(5, 2), (10, 4)] {
        for fs in [8.0, 30.0] {
            let material = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
            let merged = BeamSetup::static_case(w, h, material, 30.0, 10.0, 1.0 / 60.0);
            let jointed = BeamSetup { welds: Welds::Joints, solver_iterations: 40, ..merged };
            let (a, b) = (*run(&merged).unwrap().last().unwrap(), *run(&jointed).unwrap().last().unwrap());
            eprintln!("{w}x{h} at {fs} Hz: merged δ = {a:.6} m, jointed δ = {b:.6} m");
            assert!(a < 0.0 && b < 0.0, "{w}x{h} at {fs} Hz: the beam must bend down: {a} / {b}");
            assert!((a - b).abs() < 0.03 * b.abs(), "{w}x{h} at {fs} Hz: merged δ = {a} m, jointed δ = {b} m");
        }
    }
}

/// Coincident springs (the side-external springs of a side shared by two welded voxels: same bodies,
/// same anchors) solved as one joint of summed stiffness and damping at the stiffness-weighted mean
/// target, against the slower way, one joint per spring. The force law is the same, so the static
/// shapes must be too: a loaded cantilever, and a bar of two materials (the shared sides' springs
/// then differ in stiffness) whose voxels are held at opposite controls (and so differ in target).
#[test]
fn coincident_springs_as_one_joint_or_two_give_the_same_shape() {
    use vsr2d::task::cantilever::{run, BeamSetup};
    for fs in [8.0, 30.0] {
        let material = BeamSetup::material(Preset::Default, fs, Scaffolding::ALL);
        let one = BeamSetup::static_case(10, 4, material, 30.0, 10.0, 1.0 / 60.0);
        let two = BeamSetup { merge_coincident_springs: false, ..one };
        let (a, b) = (*run(&one).unwrap().last().unwrap(), *run(&two).unwrap().last().unwrap());
        eprintln!("10x4 at {fs} Hz: δ one joint {a:.6} m, two joints {b:.6} m");
        assert!(a < 0.0 && (a - b).abs() < 0.005 * b.abs(), "10x4 at {fs} Hz: one joint δ = {a} m, two δ = {b} m");
    }
    let soft = Material { spring_hz: 4.0, ..Material::default() };
    let stiff = Material { spring_hz: 16.0, ..Material::default() };
    let bar = BodyGrid::new(3, 1, vec![Some(soft), Some(stiff), Some(soft)]).unwrap();
    let areas = |merge: bool| {
        let mut world = World::new(no_gravity());
        let controller = FnController(|_t: f64, _r: &[_], out: &mut [f64]| out.copy_from_slice(&[1.0, -1.0, 1.0]));
        let options = RobotOptions { merge_coincident_springs: merge, ..RobotOptions::default() };
        world.add_robot("bar", &bar, Vec2::new(0.0, 5.0), options, Some(Box::new(controller)));
        world.run(600, &mut []).unwrap();
        let snapshot = world.snapshot();
        robot(&snapshot).voxels.iter().map(|v| v.sensors.area_ratio).collect::<Vec<f64>>()
    };
    let (one, two) = (areas(true), areas(false));
    eprintln!("held two-material bar: area ratios one joint {one:?}, two joints {two:?}");
    // The stiff middle voxel wins the shared sides: the soft ones cannot shrink to their 1 − ρ_A.
    assert!(one[1] > 1.0 && one[0] < 1.0 && one[2] < 1.0, "{one:?}");
    for (a, b) in one.iter().zip(&two) {
        assert!((a - b).abs() < 1e-3, "area ratios one joint {one:?}, two joints {two:?}");
    }
}

/// Listeners steer the run (after ripgrep's `Sink`): one that fails stops it with its error at that
/// step; one that asks to stop ends it early.
#[test]
fn listeners_can_fail_or_stop_a_run() {
    use std::sync::Arc;
    use vsr2d::snapshot::{Flow, ListenerError, Snapshot, SnapshotListener};
    struct At(u64, bool);
    impl SnapshotListener for At {
        fn on_snapshot(&mut self, s: &Arc<Snapshot>) -> Result<Flow, ListenerError> {
            match (s.step == self.0, self.1) {
                (true, true) => Err("disk full".into()),
                (true, false) => Ok(Flow::Stop),
                _ => Ok(Flow::Continue),
            }
        }
    }
    let world = || {
        let mut world = World::new(WorldSettings::default());
        world.add_terrain(&Terrain::flat());
        world.add_robot(
            "voxel",
            &BodyGrid::filled(1, 1, Material::default()).unwrap(),
            Vec2::new(11.0, 1.0),
            RobotOptions::default(),
            None,
        );
        world
    };
    let mut w = world();
    let err = w.run(100, &mut [&mut At(5, true)]).unwrap_err();
    assert_eq!(err, vsr2d::sim::world::SimError::Listener { step: 5, message: "disk full".into() });
    assert!(err.to_string().contains("step 5") && err.to_string().contains("disk full"), "{err}");
    assert_eq!(w.step_index(), 5);

    let mut w = world();
    assert_eq!(w.run(100, &mut [&mut At(3, false)]).unwrap(), Flow::Stop);
    assert_eq!(w.step_index(), 3);
    let mut w = world();
    assert_eq!(w.run(10, &mut [&mut At(1000, false)]).unwrap(), Flow::Continue);
    assert_eq!(w.step_index(), 10);
}

/// The snapshots of a scenario given as JSON text, one per step from t = 0.
fn recorded(json: &str) -> Vec<std::sync::Arc<Snapshot>> {
    let mut recorder = SnapshotRecorder::default();
    Scenario::from_json(json).unwrap().build().unwrap().run(&mut [&mut recorder]).unwrap();
    recorder.snapshots
}

/// The object labelled `label` in a snapshot: its centre and velocity.
fn object(snapshot: &Snapshot, label: &str) -> (Vec2, Vec2) {
    let o = snapshot.objects().find(|o| o.label == label).expect("the object is in the snapshot");
    (o.center, o.velocity)
}

/// A box thrown sideways in the air: no drag, so x grows as v·t and vy = −g·t; the drop is ½·g·t² up
/// to the integrator's first-order term, at most ½·g·Δt·t (semi-implicit Euler with one step per Δt;
/// less with substeps).
#[test]
fn a_thrown_box_flies_a_parabola() {
    let (g, vx, dt) = (9.8, 3.0, 1.0 / 60.0);
    let snapshots = recorded(
        r##"{"world": {"duration": 2}, "robots": [{"label": "idle", "body": ["#"]}],
            "objects": [{"label": "box", "size": [1, 1], "position": [100, 60], "velocity": [3, 0]}]}"##,
    );
    assert_eq!(snapshots.len(), 121);
    for s in snapshots.iter().skip(1) {
        let t = s.t;
        let (c, v) = object(s, "box");
        assert!((c.x - (100.0 + vx * t)).abs() < 2e-3, "t = {t}: x = {}, expected {}", c.x, 100.0 + vx * t);
        assert!((v.x - vx).abs() < 1e-4, "t = {t}: vx = {}", v.x);
        assert!((v.y + g * t).abs() < 1e-3 * g * t, "t = {t}: vy = {}, expected {}", v.y, -g * t);
        let (drop, free_fall) = (60.0 - c.y, 0.5 * g * t * t);
        assert!(
            drop >= free_fall - 1e-3 && drop <= free_fall + 0.5 * g * dt * t + 1e-3,
            "t = {t}: dropped {drop} m, ½gt² = {free_fall} m, the integrator adds at most {}",
            0.5 * g * dt * t
        );
    }
}

/// Coulomb friction: a box sliding on flat ground decelerates at μ·g whatever its mass, so it stops
/// after v₀²/(2μg). Friction coefficients combine as the geometric mean of the two surfaces'
/// (the ground's is 0.2): a box of friction 1.25 slides with μ = √(0.2 · 1.25) = 0.5.
#[test]
fn a_sliding_box_stops_after_v0_squared_over_2_mu_g() {
    let (g, v0, mu) = (9.8, 5.0, (0.2f64 * 1.25).sqrt());
    let stop = v0 * v0 / (2.0 * mu * g);
    for mass in [1.0, 10.0] {
        let snapshots = recorded(&format!(
            r##"{{"world": {{"duration": 2}}, "robots": [{{"label": "idle", "body": ["#"]}}],
                "objects": [{{"label": "box", "size": [2, 1], "position": [200, 0.5], "velocity": [{v0}, 0],
                              "friction": 1.25, "mass": {mass}}}]}}"##
        ));
        // While it slides: v(t) = v0 − μ·g·t.
        for s in snapshots.iter().filter(|s| s.t > 0.1 && s.t < 0.9 * v0 / (mu * g)) {
            let (_, v) = object(s, "box");
            let expected = v0 - mu * g * s.t;
            assert!((v.x - expected).abs() < 0.02 * v0, "mass {mass}, t = {}: v = {}, expected {expected}", s.t, v.x);
        }
        let (end, v_end) = object(snapshots.last().unwrap(), "box");
        assert!(v_end.length() < 1e-3, "mass {mass}: still moving at {}", v_end.x);
        let slid = end.x - 200.0;
        assert!((slid - stop).abs() < 0.01 * stop, "mass {mass}: slid {slid} m, v₀²/(2μg) = {stop} m");
    }
}

/// Rebound speed of a ball (restitution 0.5, no gravity) hitting fixed ground at `v0`, with the engine's
/// restitution threshold set or not. A ball touches at one point: a box landing flat touches at two,
/// which the engine's single restitution pass solves one after the other, leaving the rebound 12 % short.
fn rebound_speed(v0: f64, threshold: Option<f64>) -> f64 {
    use rapier2d::prelude::*;
    let mut w = PhysicsWorld::new();
    w.gravity = Vector::ZERO;
    w.integration_parameters.restitution_velocity_threshold = threshold.map(|v| v as Real);
    // Small steps: the box moves at most 5 mm per step, inside the engine's 2 cm contact margin, so
    // the contact is found before the impact and nothing but restitution sets the rebound.
    w.integration_parameters.dt = 1.0 / 600.0;
    let ground = w.bodies.insert(RigidBodyBuilder::fixed());
    w.colliders.insert_with_parent(ColliderBuilder::cuboid(10.0, 0.5).restitution(0.5), ground, &mut w.bodies);
    let b = w
        .bodies
        .insert(RigidBodyBuilder::dynamic().translation(Vector::new(0.0, 1.5)).linvel(Vector::new(0.0, -v0 as Real)));
    w.colliders.insert_with_parent(ColliderBuilder::ball(0.45).restitution(0.5), b, &mut w.bodies);
    for _ in 0..1200 {
        w.step();
    }
    assert!(w.bodies[b].translation().y > 0.9, "the ball must not sink into the ground");
    w.bodies[b].linvel().y as f64
}

/// Newton's law of restitution, v_out = e·v_in, with the threshold rule of dyn4j and Box2D that
/// `legacy-1.0` sets (1 m/s, dyn4j's `Settings.restitutionVelocity`): an impact faster than the threshold
/// bounces, a slower one is inelastic. Without a threshold, rapier bounces every new contact.
#[test]
fn restitution_applies_above_the_velocity_threshold_only() {
    let fast = rebound_speed(3.0, Some(1.0));
    assert!((fast - 1.5).abs() < 0.1 * 1.5, "3 m/s impact, e = 0.5: rebound {fast} m/s, expected 1.5");
    let slow = rebound_speed(0.5, Some(1.0));
    assert!(slow.abs() < 0.02, "0.5 m/s impact under the 1 m/s threshold: rebound {slow} m/s, expected 0");
    let slow_rapier = rebound_speed(0.5, None);
    assert!((slow_rapier - 0.25).abs() < 0.1 * 0.25, "rapier's rule bounces it: {slow_rapier} m/s, expected 0.25");
}

/// dyn4j 3.3.0 (the engine of 2D-VSR-Sim 1.0.0, run locally, unmodified): a 1 m × 1 m box of mass 1
/// pressed 0.1 m into fixed ground, no gravity, Δt = 1/60 s. Its penetration, m, after the given steps.
/// Its velocity stays exactly zero: dyn4j's position pass moves bodies without touching velocities.
const DYN4J_PRESSED_BOX: [(usize, f64); 8] = [
    (1, 0.020770567),
    (2, 0.012717045),
    (3, 0.011455038),
    (5, 0.009516789),
    (10, 0.006850472),
    (20, 0.005310725),
    (30, 0.005052180),
    (60, 0.005043653),
];

/// `legacy-1.0` keeps bodies out of the ground as dyn4j did: rigid contacts in the velocity pass, then
/// a position pass of Baumgarte 0.2 that leaves 5 mm of penetration alone. A box pressed into the
/// ground comes out step by step as in dyn4j and rests 5 mm deep, without any velocity. rapier's soft
/// contacts, which the default preset keeps, take it out along another path, to the surface.
#[test]
fn a_pressed_box_comes_out_of_the_ground_as_in_dyn4j() {
    let run = |preset: Preset| {
        let settings =
            WorldSettings { gravity: Vec2::new(0.0, 0.0), ..WorldSettings::default() }.with_engine_of(preset);
        let mut world = World::new(settings);
        world.add_terrain(&Terrain::flat());
        let spec = serde_json::from_str(r#"{"size": [1, 1], "position": [50, 0.4]}"#).unwrap();
        world.add_object("box", &spec);
        (1..=60)
            .map(|_| {
                world.step(&mut []).unwrap();
                let (centre, velocity) = object(&world.snapshot(), "box");
                (0.5 - centre.y, velocity)
            })
            .collect::<Vec<_>>()
    };
    let legacy = run(Preset::Legacy10);
    for (step, expected) in DYN4J_PRESSED_BOX {
        let (depth, velocity) = legacy[step - 1];
        assert!((depth - expected).abs() < 1e-4, "step {step}: {depth} m deep, dyn4j {expected} m");
        assert_eq!(velocity, Vec2::new(0.0, 0.0), "step {step}: the position pass gave it a velocity");
    }
    let soft = run(Preset::Default);
    let (after_5, rest) = (soft[4].0, soft[59].0);
    assert!(after_5 > 0.02 && rest < 1e-3, "soft contacts: {after_5} m deep after 5 steps, {rest} m after 60");
}

/// A box that never comes near any robot leaves every robot's result alone, in every fixture and both
/// engine presets (issue 52). rapier renumbers its contact pairs when one ends (swap-remove), so a far
/// box's pairs used to reorder the robot's among themselves, and two orders mattered: the tie-break of
/// the contact colouring and the legacy position pass's gather. Both now follow the colliders' handles.
#[test]
fn a_box_far_away_leaves_every_fixture_alone() {
    let dir = format!("{}/fixtures/scenarios", crate::ROOT);
    let mut changed = Vec::new();
    let mut compared = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        // Force–deflection is not one run; its plates are not robots' neighbours either.
        if text.contains("force_deflection") {
            continue;
        }
        let duration = v["world"]["duration"].as_f64().unwrap_or(30.0).min(8.0);
        v["world"]["duration"] = duration.into();
        for preset in ["default", "legacy-1.0"] {
            v["world"]["compat"] = preset.into();
            // Cells have no legacy model: a preset the scenario refuses is not compared.
            let Ok(scenario) = Scenario::from_json(&v.to_string()) else { continue };
            let alone = vsr2d::batch::evaluate(&scenario).unwrap();
            let mut far = v.clone();
            let objects = far["objects"].as_array().cloned().unwrap_or_default();
            // One box resting on the ground and one landing on it mid-run, over the terrain at x = 1 000 m.
            let terrain = scenario.world.terrain.build(preset == "legacy-1.0").unwrap();
            let ground = terrain.map_or(0.0, |t| t.max_height(999.0, 1001.0));
            far["objects"] = objects
                .into_iter()
                .chain([
                    serde_json::json!({"size": [1, 1], "position": [1000, ground + 0.5]}),
                    serde_json::json!({"size": [1, 1], "position": [1000, ground + 20.0]}),
                ])
                .collect();
            let with_box = vsr2d::batch::evaluate(&Scenario::from_json(&far.to_string()).unwrap());
            compared += 1;
            let robots = |r: &vsr2d::RunResult| serde_json::to_value(&r.robots).unwrap();
            if with_box.as_ref().map_or(true, |with_box| robots(with_box) != robots(&alone)) {
                changed.push(format!("{} ({preset})", path.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(compared >= 40, "only {compared} runs compared");
    assert!(changed.is_empty(), "a box 1 000 m away changed the robots of {changed:?}");
}

/// dyn4j runs its position pass island by island, each stopping when its own contacts are shallow
/// (issue 52): in `legacy-1.0` a box landing hard 1 000 m away used to give the robot's contacts extra
/// position iterations and moved its result (here by 0.023 m/s).
#[test]
fn a_box_landing_far_away_leaves_a_legacy_robot_alone() {
    let path = std::path::Path::new(crate::ROOT).join("fixtures/scenarios/worm-10x3-uneven.json");
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["world"]["duration"] = 10.into();
    v["world"]["compat"] = "legacy-1.0".into();
    let alone = vsr2d::batch::evaluate(&Scenario::from_json(&v.to_string()).unwrap()).unwrap();
    v["objects"] = serde_json::json!([{"size": [1, 1], "position": [1000, 5]}]);
    let with_box = vsr2d::batch::evaluate(&Scenario::from_json(&v.to_string()).unwrap()).unwrap();
    assert_eq!(
        serde_json::to_value(&alone.robots[0]).unwrap(),
        serde_json::to_value(&with_box.robots[0]).unwrap(),
        "the far box changed the robot"
    );
}
