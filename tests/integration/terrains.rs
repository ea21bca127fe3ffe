//! The locomotion courses (hilly, steppy, slope, stairs, gaps, hurdles) and the ceiling: each surface
//! where its definition puts it, computed here by hand from the spec's numbers and checked against what
//! the engine's colliders present (a ray cast, a body dropped onto them) as well as against
//! `Terrain::height_at`; what falls into a gap stays there; a ceiling stops a body thrown up; bad specs
//! are refused with their JSON path.

use vsr2d::geom::Vec2;
use vsr2d::model::terrain::{Terrain, TerrainSpec};
use vsr2d::rng::SplitMix64;
use vsr2d::scenario::{Limits, Scenario};
use vsr2d::sim::world::{World, WorldSettings};
use vsr2d::snapshot::{BodyId, Progress};

/// A body of one voxel (`robots[].body`).
const BODY: &str = r##""#""##;

/// The terrain of `{"type": ..., ...}` as a scenario would build it.
fn terrain(json: &str) -> Terrain {
    let scenario =
        Scenario::from_json(&format!(r##"{{"world": {{"terrain": {json}}}, "robots": [{{"body": ["#"]}}]}}"##))
            .unwrap_or_else(|e| panic!("{json}: {e}"));
    scenario.world.terrain.build(false).unwrap().unwrap()
}

/// A world holding only `terrain`, stepped once so that the engine has indexed its colliders.
fn engine(terrain: &Terrain) -> World {
    let mut world = World::new(WorldSettings::default());
    world.add_terrain(terrain);
    world.step(&mut []).unwrap();
    world
}

/// The ground's height at x as the engine sees it: a ray cast down from `from_y` (below any ceiling).
fn ground_ray(world: &World, x: f64, from_y: f64) -> f64 {
    from_y - world.static_ray(Vec2::new(x, from_y), Vec2::new(0.0, -1.0), 2000.0).expect("the ray meets the ground")
}

/// The ceiling's underside at x as the engine sees it: a ray cast up from `from_y`.
fn ceiling_ray(world: &World, x: f64, from_y: f64) -> f64 {
    from_y + world.static_ray(Vec2::new(x, from_y), Vec2::new(0.0, 1.0), 2000.0).expect("the ray meets the ceiling")
}

/// Checks the ground at each (x, expected height) in the model and in the engine (colliders are f32, and
/// parry's ray cast on the slope's 2 km long quadrilateral is good to a few mm).
fn assert_ground(name: &str, t: &Terrain, points: &[(f64, f64)]) {
    let world = engine(t);
    for &(x, expected) in points {
        let model = t.height_at(x).unwrap();
        assert!((model - expected).abs() < 1e-9, "{name} at x = {x}: height_at {model}, defined {expected}");
        let seen = ground_ray(&world, x, expected + 5.0);
        assert!(
            (seen - expected).abs() < 5e-3,
            "{name} at x = {x}: the engine's ground is at {seen}, defined {expected}"
        );
    }
}

#[test]
fn stairs_rise_and_fall_one_riser_per_tread() {
    // Risers of 0.5 m at 30 + 6k m: tread k (from 30 + 6k to 36 + 6k) is at ±0.5·(k + 1).
    for (direction, sign) in [("up", 1.0), ("down", -1.0)] {
        let t = terrain(&format!(
            r#"{{"type": "stairs", "direction": "{direction}", "step_height": 0.5, "step_width": 6}}"#
        ));
        let mut points = vec![(12.0, 0.0), (29.99, 0.0)];
        for k in [0.0, 1.0, 5.0, 100.0] {
            let tread = sign * 0.5 * (k + 1.0);
            points.extend([(30.01 + 6.0 * k, tread), (33.0 + 6.0 * k, tread), (35.99 + 6.0 * k, tread)]);
        }
        // A riser's x: the top of its edge (up: the new tread, down: the old one).
        points.push((36.0, if sign > 0.0 { 1.0 } else { -0.5 }));
        assert_ground(&format!("stairs {direction}"), &t, &points);
    }
    // A fixed number of steps, flat after: 3 steps end at 1.5 m from x = 42 m on.
    let t = terrain(r#"{"type": "stairs", "step_height": 0.5, "step_width": 6, "steps": 3, "start": 40}"#);
    assert_ground("3 stairs", &t, &[(39.9, 0.0), (41.0, 0.5), (47.0, 1.0), (53.0, 1.5), (500.0, 1.5), (1989.0, 1.5)]);
}

#[test]
fn slopes_have_their_angle() {
    for (direction, sign) in [("up", 1.0), ("down", -1.0)] {
        let t = terrain(&format!(r#"{{"type": "slope", "direction": "{direction}", "degrees": 10, "start": 30}}"#));
        let tan = 10f64.to_radians().tan();
        let points: Vec<(f64, f64)> =
            [12.0f64, 29.0, 30.0, 31.0, 50.0, 130.0].iter().map(|&x| (x, sign * (x - 30.0).max(0.0) * tan)).collect();
        assert_ground(&format!("slope {direction}"), &t, &points);
        // The angle the engine's surface makes, from two rays 100 m apart.
        let world = engine(&t);
        let (y0, y1) = (ground_ray(&world, 40.0, 50.0), ground_ray(&world, 140.0, 50.0));
        let angle = ((y1 - y0) / 100.0).atan().to_degrees();
        assert!((angle - sign * 10.0).abs() < 0.005, "slope {direction}: the engine's angle is {angle}°");
    }
    // With a length: 20 m at 30° rise 20·tan 30° and stay there.
    let t = terrain(r#"{"type": "slope", "degrees": 30, "length": 20, "start": 40}"#);
    let top = 20.0 * 30f64.to_radians().tan();
    assert_ground("slope 30° for 20 m", &t, &[(39.0, 0.0), (50.0, top / 2.0), (60.0, top), (1000.0, top)]);
}

#[test]
fn gaps_are_holes_of_their_width_and_depth_at_their_spacing() {
    // Holes 4 m wide and 20 m deep, 15 m of ground between: [30, 34], [49, 53], [68, 72], …
    let t = terrain(r#"{"type": "gaps", "width": 4, "spacing": 15, "depth": 20, "start": 30}"#);
    let mut points = vec![(12.0, 0.0), (29.99, 0.0), (40.0, 0.0)];
    for k in [0.0, 1.0, 2.0, 50.0] {
        let a = 30.0 + 19.0 * k;
        points.extend([(a - 0.01, 0.0), (a + 0.01, -20.0), (a + 2.0, -20.0), (a + 3.99, -20.0), (a + 4.01, 0.0)]);
    }
    assert_ground("gaps", &t, &points);
}

#[test]
fn hurdles_are_bars_of_their_height_at_their_spacing() {
    // Bars 1 m high and 0.3 m wide, 15 m of ground between: [30, 30.3], [45.3, 45.6], …
    let t = terrain(r#"{"type": "hurdles", "height": 1, "spacing": 15, "thickness": 0.3, "start": 30}"#);
    let mut points = vec![(12.0, 0.0), (29.99, 0.0)];
    for k in [0.0, 1.0, 2.0, 50.0] {
        let a = 30.0 + 15.3 * k;
        points.extend([
            (a - 0.01, 0.0),
            (a + 0.01, 1.0),
            (a + 0.15, 1.0),
            (a + 0.29, 1.0),
            (a + 0.31, 0.0),
            (a + 7.0, 0.0),
        ]);
    }
    assert_ground("hurdles", &t, &points);
}

#[test]
fn steppy_steps_are_flat_at_their_drawn_levels() {
    // Step k spans [30 + 6k, 36 + 6k) at 0.75·u_k, u_k the k-th uniform of SplitMix64(7).
    let t = terrain(r#"{"type": "steppy", "height": 0.75, "width": 6, "seed": 7}"#);
    let mut rng = SplitMix64::new(7);
    let levels: Vec<f64> = (0..60).map(|_| 0.75 * rng.uniform()).collect();
    let mut points = vec![(12.0, 0.0), (29.99, 0.0)];
    for k in [0, 1, 2, 3, 59] {
        let a = 30.0 + 6.0 * k as f64;
        points.extend([(a + 0.01, levels[k]), (a + 3.0, levels[k]), (a + 5.99, levels[k])]);
    }
    assert_ground("steppy", &t, &points);
    assert!(levels.iter().all(|&l| (0.0..0.75).contains(&l)));
    // Another seed, other steps; the same seed, the same terrain.
    assert_ne!(t, terrain(r#"{"type": "steppy", "height": 0.75, "width": 6, "seed": 8}"#));
    assert_eq!(t, terrain(r#"{"type": "steppy", "height": 0.75, "width": 6, "seed": 7}"#));
}

#[test]
fn hilly_hills_are_smooth_raised_cosines() {
    // Hill 0 begins at start = 30 m; its width w₀ = 15·(0.5 + u₁) and height h₀ = 1.5·(0.5 + 0.5·u₂), u
    // the uniforms of SplitMix64(3): its crest is h₀ at 30 + w₀/2, its ends touch y = 0.
    let t = terrain(r#"{"type": "hilly", "height": 1.5, "width": 15, "seed": 3}"#);
    let mut rng = SplitMix64::new(3);
    let w0 = 15.0 * (0.5 + rng.uniform());
    let h0 = 1.5 * (0.5 + 0.5 * rng.uniform());
    let world = engine(&t);
    let crest = ground_ray(&world, 30.0 + w0 / 2.0, 10.0);
    // Samples every 15/32 m: the nearest is at most 15/64 m from the crest, where the cosine (of width
    // 7.5 m at least) has fallen by (1 − cos(π·(15/32)/7.5))/2 < 1 % of h₀.
    assert!(crest <= h0 + 1e-3 && crest >= h0 * 0.99 - 1e-3, "crest {crest} m, defined {h0} m");
    let quarter = ground_ray(&world, 30.0 + w0 / 4.0, 10.0);
    assert!((quarter - h0 / 2.0).abs() < 0.01 * h0, "quarter of hill 0: {quarter} m, defined {}", h0 / 2.0);
    assert_ground("hilly run-up", &t, &[(12.0, 0.0), (29.99, 0.0), (30.0, 0.0)]);
    // Every hill between 0.75 and 1.5 m high; about 1960 / 15 of them.
    let ground = &t.profile[2..t.profile.len() - 1];
    assert!(ground.iter().all(|p| (0.0..=1.5).contains(&p.y)));
    let crests = ground.windows(3).filter(|w| w[1].y > w[0].y && w[1].y >= w[2].y).count();
    assert!((110..=150).contains(&crests), "{crests} hills over 1960 m, expected about 131");
    // Smooth: two neighbouring chords' slopes are slopes of the curve at most 2·dx apart, so they differ
    // by at most 2·dx·max|y''| = 2·dx·1.5·(2π/7.5)²/2 (the highest, narrowest hill), no kinks.
    let dx = 1960.0 / (1960.0f64 / (15.0 / 32.0)).round();
    let bound = 2.0 * dx * 1.5 * (2.0 * std::f64::consts::PI / 7.5).powi(2) / 2.0;
    for w in ground.windows(3) {
        let turn = (w[2].y - w[1].y) / (w[2].x - w[1].x) - (w[1].y - w[0].y) / (w[1].x - w[0].x);
        assert!(turn.abs() <= bound, "the slope turns by {turn} at x = {}, more than {bound}", w[1].x);
    }
}

#[test]
fn a_ceiling_follows_the_ground_but_not_into_gaps_or_over_hurdles() {
    let world = engine(&terrain(r#"{"type": "flat", "ceiling": 9}"#));
    assert!((ceiling_ray(&world, 500.0, 1.0) - 9.0).abs() < 1e-3);
    // Over stairs the roof steps up with the treads.
    let t = terrain(r#"{"type": "stairs", "step_height": 0.5, "step_width": 6, "ceiling": 8}"#);
    let world = engine(&t);
    for k in [0.0, 3.0] {
        let x = 33.0 + 6.0 * k;
        let roof = ceiling_ray(&world, x, 0.5 * (k + 1.0) + 1.0);
        assert!((roof - (0.5 * (k + 1.0) + 8.0)).abs() < 1e-3, "stairs' roof at {x}: {roof}");
        assert_eq!(t.ceiling_at(x), Some(0.5 * (k + 1.0) + 8.0));
    }
    // Over a hole and over a bar it stays 7 m above the ground's level.
    for json in [r#"{"type": "gaps", "ceiling": 7}"#, r#"{"type": "hurdles", "ceiling": 7}"#] {
        let world = engine(&terrain(json));
        for x in [12.0, 30.1, 32.0, 100.0] {
            assert!((ceiling_ray(&world, x, 1.5) - 7.0).abs() < 1e-3, "{json} at {x}");
        }
    }
}

/// A scenario of one passive voxel of side `side` at `position` over `terrain` (JSON), built.
fn dropped_voxel(terrain: &str, side: f64, position: [f64; 2], body: &str) -> World {
    let json = format!(
        r##"{{"world": {{"terrain": {terrain}, "duration": 10}},
              "robots": [{{"materials": {{"#": {{"side": {side}}}}}, "body": [{body}], "position": [{}, {}]}}]}}"##,
        position[0], position[1]
    );
    Scenario::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}")).build().unwrap().into_world()
}

#[test]
fn a_body_dropped_on_a_stair_or_a_step_rests_on_its_tread() {
    // A 1 m voxel dropped onto tread 2 of the stairs (at 1.5 m) and onto step 1 of steppy.
    let mut rng = SplitMix64::new(1);
    let steppy_1 = {
        rng.uniform();
        0.75 * rng.uniform()
    };
    for (terrain, x, tread) in [
        (r#"{"type": "stairs", "step_height": 0.5, "step_width": 6}"#, 43.0, 1.5),
        (r#"{"type": "stairs", "direction": "down", "step_height": 0.5, "step_width": 6}"#, 43.0, -1.5),
        (r#"{"type": "steppy", "height": 0.75, "width": 6, "seed": 1}"#, 38.5, steppy_1),
    ] {
        let mut sim = dropped_voxel(terrain, 1.0, [x, tread + 0.5], BODY);
        sim.run(180, &mut []).unwrap();
        let (_, bbox) = sim.centre_and_bbox(0);
        assert!((bbox.min.y - tread).abs() < 0.02, "{terrain}: resting at {} m, the tread is at {tread} m", bbox.min.y);
    }
}

#[test]
fn what_falls_into_a_gap_stays_there() {
    let gaps = r#"{"type": "gaps", "width": 4, "spacing": 15, "depth": 20, "start": 30}"#;
    // A passive 1 m voxel dropped over the middle of the first hole ends on its bottom, 20 m down.
    let mut sim = dropped_voxel(gaps, 1.0, [31.5, 1.0], BODY);
    sim.run(300, &mut []).unwrap();
    let (_, bbox) = sim.centre_and_bbox(0);
    assert!((bbox.min.y + 20.0).abs() < 0.02, "the voxel rests at {} m, the hole's bottom is at -20 m", bbox.min.y);
    // An active worm of two 1.5 m voxels (narrower than the hole) wriggling at the bottom for 30 s never
    // gets its top above the bottom's 20 m walls.
    let json = format!(
        r###"{{"world": {{"terrain": {gaps}, "duration": 30}},
              "robots": [{{"materials": {{"#": {{"side": 1.5}}}}, "body": ["##"], "position": [30.4, -19.9],
                           "controller": {{"type": "time_functions",
                                           "default": {{"type": "expr", "expr": "sin(-2*pi*t + pi*x/w)"}}}}}}]}}"###
    );
    let mut sim = Scenario::from_json(&json).unwrap().build().unwrap().into_world();
    let mut highest = f64::NEG_INFINITY;
    for _ in 0..1800 {
        sim.step(&mut []).unwrap();
        highest = highest.max(sim.centre_and_bbox(0).1.max.y);
    }
    assert!(highest < -20.0 + 3.5, "the worm's top reached {highest} m: it climbs the hole's walls");
    assert!(sim.centre(0).x > 30.0 && sim.centre(0).x < 34.0, "the worm left the hole");
}

#[test]
fn a_ceiling_stops_a_body_thrown_up() {
    // A 1 m voxel on flat ground under a 6 m ceiling, thrown up at 20 m/s (free, it would rise about
    // 9 m: the voxels' linear damping is 1/s).
    let mut sim = dropped_voxel(r#"{"type": "flat", "ceiling": 6}"#, 1.0, [20.0, 0.1], BODY);
    sim.set_body_velocity(BodyId(0), Vec2::new(0.0, 20.0));
    let mut highest = f64::NEG_INFINITY;
    for _ in 0..120 {
        sim.step(&mut []).unwrap();
        highest = highest.max(sim.centre_and_bbox(0).1.max.y);
    }
    assert!(highest > 5.5, "the voxel should reach the ceiling: its top got to {highest} m");
    assert!(highest < 6.0 + 0.05, "the voxel's top went to {highest} m, through the 6 m ceiling");
    // Without the ceiling it flies far higher.
    let mut sim = dropped_voxel(r#"{"type": "flat"}"#, 1.0, [20.0, 0.1], BODY);
    sim.set_body_velocity(BodyId(0), Vec2::new(0.0, 20.0));
    sim.run(60, &mut []).unwrap();
    assert!(sim.centre_and_bbox(0).1.max.y > 9.0);
}

/// The JSON path and message of the error a scenario with `terrain` gives (parsing, then building).
fn refused(terrain: &str, body: &str) -> (String, String) {
    let json = format!(r##"{{"world": {{"terrain": {terrain}}}, "robots": [{{"body": [{body}]}}]}}"##);
    let error = match Scenario::from_json(&json) {
        Err(e) => e,
        Ok(s) => match s.build() {
            Err(e) => e,
            Ok(_) => panic!("{terrain} was accepted"),
        },
    };
    (error.path(), error.to_string())
}

#[test]
fn bad_terrains_are_refused_with_their_path_and_the_fix() {
    for (terrain, path, fix) in [
        (r#"{"type": "gaps", "width": -1}"#, "world.terrain.width", "at least 0.01 m"),
        (r#"{"type": "gaps", "width": 1960}"#, "world.terrain.width", "narrower than the 1960 m of ground"),
        (r#"{"type": "gaps", "width": 100, "start": 1900}"#, "world.terrain.width", "narrower than the 90 m"),
        (r#"{"type": "gaps", "depth": 0}"#, "world.terrain.depth", "in [0.01, 1000] m"),
        (r#"{"type": "gaps", "spacing": -3}"#, "world.terrain.spacing", "in [0.01, 1980] m"),
        (r#"{"type": "hurdles", "height": -1}"#, "world.terrain.height", "in [0.01, 1000] m"),
        (r#"{"type": "hurdles", "thickness": 0}"#, "world.terrain.thickness", "at least 0.01 m"),
        (r#"{"type": "hurdles", "height": 2, "ceiling": 2}"#, "world.terrain.ceiling", "higher than the hurdles"),
        (r#"{"type": "hilly", "width": 0.1}"#, "world.terrain.width", "in [0.32, 1960] m"),
        (r#"{"type": "hilly", "height": 1e308}"#, "world.terrain.height", "in [0, 1000] m"),
        (r#"{"type": "steppy", "width": 3000}"#, "world.terrain.width", "in [0.01, 1960] m"),
        (r#"{"type": "slope", "degrees": 90}"#, "world.terrain.degrees", "in [0, 80]"),
        (r#"{"type": "slope", "degrees": 45}"#, "world.terrain.degrees", "set `length` (at most 1000 m"),
        (r#"{"type": "slope", "degrees": 45, "length": 1500}"#, "world.terrain.length", "at most 1000 m at 45°"),
        (
            r#"{"type": "stairs", "step_height": 5, "step_width": 1}"#,
            "world.terrain.step_height",
            "set `steps` (at most 200)",
        ),
        (r#"{"type": "stairs", "steps": 0}"#, "world.terrain.steps", "between 1 and 327"),
        (r#"{"type": "stairs", "steps": 400}"#, "world.terrain.steps", "between 1 and 327"),
        (r#"{"type": "stairs", "direction": "sideways"}"#, "world.terrain.direction", "unknown variant"),
        (r#"{"type": "stairs", "start": 5}"#, "world.terrain.start", "in [10, 1980] m"),
        (r#"{"type": "flat", "ceiling": -2}"#, "world.terrain.ceiling", "in [0.01, 1000] m"),
        (r#"{"type": "gaps", "holes": 3}"#, "world.terrain.holes", "unknown field"),
    ] {
        let (got_path, message) = refused(terrain, BODY);
        assert_eq!(got_path, path, "{terrain}: {message}");
        assert!(message.contains(path) && message.contains(fix), "{terrain}: {message}");
    }
    // A robot taller than the cave: its default place (1 m above the ground) leaves its 3 m voxel's top
    // at 4 m, over a 3.5 m ceiling.
    let (path, message) = refused(r#"{"type": "flat", "ceiling": 3.5}"#, BODY);
    assert_eq!(path, "world.terrain.ceiling", "{message}");
    assert!(message.contains("raise it by 0.51 m or more"), "{message}");
    // Non-finite numbers (from Rust or Python; JSON has none).
    for spec in [
        TerrainSpec::Gaps { width: f64::NAN, spacing: 15.0, depth: 20.0, start: 30.0, ceiling: None },
        TerrainSpec::Hilly { height: f64::INFINITY, width: 15.0, seed: 1, start: 30.0, ceiling: None },
        TerrainSpec::Flat { ceiling: Some(f64::NAN) },
    ] {
        assert!(spec.validate(false).is_err() && spec.build(false).is_err(), "{spec:?} accepted");
    }
}

#[test]
fn the_cost_limit_counts_every_terrain_point() {
    for json in [
        r#"{"type": "hilly"}"#,
        r#"{"type": "steppy", "width": 0.5}"#,
        r#"{"type": "slope", "length": 100}"#,
        r#"{"type": "stairs", "direction": "down"}"#,
        r#"{"type": "stairs", "steps": 4}"#,
        r#"{"type": "gaps"}"#,
        r#"{"type": "hurdles", "ceiling": 5}"#,
        r#"{"type": "stairs", "ceiling": 5}"#,
        r#"{"type": "uneven", "ceiling": 12}"#,
        r#"{"type": "flat", "ceiling": 12}"#,
    ] {
        let t = terrain(json);
        let built = t.profile.len() + t.ceiling.as_ref().map_or(0, |c| c.len());
        let spec: TerrainSpec = serde_json::from_str(json).unwrap();
        assert_eq!(spec.vertices(false), built as u64, "{json}");
    }
    // Too many points: the error names the field that sets how many.
    let json = r##"{"world": {"terrain": {"type": "hilly", "width": 0.4}}, "robots": [{"body": ["#"]}]}"##;
    let error = Scenario::from_json(json).unwrap().check_limits(&Limits::DEFAULT).unwrap_err();
    assert_eq!(error.path(), "world.terrain.width", "{error}");
}

#[test]
fn the_old_terrains_serialise_as_before() {
    // Records and evolved scenarios carry the terrain: a terrain without a ceiling writes no `ceiling`.
    let flat: TerrainSpec = serde_json::from_str(r#"{"type": "flat"}"#).unwrap();
    assert_eq!(serde_json::to_string(&flat).unwrap(), r#"{"type":"flat"}"#);
    let uneven: TerrainSpec = serde_json::from_str(r#"{"type": "uneven"}"#).unwrap();
    assert_eq!(serde_json::to_string(&uneven).unwrap(), r#"{"type":"uneven","height":5.0,"spacing":40.0,"seed":1}"#);
}

fn root() -> &'static std::path::Path {
    std::path::Path::new(crate::ROOT)
}

#[test]
fn docs_terrains_examples_parse() {
    let text = std::fs::read_to_string(root().join("docs/terrains.md")).unwrap();
    let blocks: Vec<&str> = text.split("```json\n").skip(1).map(|b| b.split("```").next().unwrap()).collect();
    assert!(blocks.len() >= 8, "one example per terrain");
    for block in blocks {
        let spec: TerrainSpec = serde_json::from_str(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
        spec.build(false).unwrap_or_else(|e| panic!("{e}\n{block}"));
    }
    for name in ["hilly", "steppy", "slope", "stairs", "gaps", "hurdles", "ceiling"] {
        let path = root().join(format!("docs/terrains/{name}.json"));
        let scenario = Scenario::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        scenario.build().unwrap();
        assert!(
            root().join(format!("docs/terrains/{name}.png")).exists(),
            "{name}.png: run scripts/terrain-pictures.sh"
        );
        assert!(text.contains(&format!("(terrains/{name}.png)")), "docs/terrains.md shows {name}.png");
    }
}

#[test]
fn the_terrain_page_quotes_what_simulate_gives() {
    let text = std::fs::read_to_string(root().join("docs/terrains.md")).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.starts_with("| `") && l.ends_with(" m/s |"))
        .map(|l| l.trim_matches('|').split(" | ").collect())
        .collect();
    assert_eq!(rows.len(), 7, "one row per course and the ceiling");
    for row in rows {
        let name = row[0].trim().trim_matches('`');
        let mut scenario =
            Scenario::from_json(&std::fs::read_to_string(root().join(format!("docs/terrains/{name}.json"))).unwrap())
                .unwrap();
        scenario.world.duration = 60.0;
        let simulated = scenario.build().unwrap().evaluate().unwrap().robots[0].x_velocity;
        let quoted = row[row.len() - 1].trim().trim_end_matches("m/s").trim();
        let decimals = quoted.split_once('.').map_or(0, |(_, d)| d.len());
        assert_eq!(
            format!("{simulated:.decimals$}"),
            quoted,
            "{name}: docs/terrains.md says {quoted} m/s, simulate gives {simulated}"
        );
    }
}
