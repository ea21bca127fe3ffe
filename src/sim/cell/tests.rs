//! Physics checks of the soft cell against references independent of the engine (spec `cells.md` §2,
//! §3, §14): the regular N-gon as the area maximiser of an inextensible ring, momentum conservation,
//! and the stadium estimate of a cell resting under gravity.

use std::f64::consts::PI;

use super::{stable_solver_substeps, Stepping};
use crate::geom::Vec2;
use crate::model::cell::{self, CellParams, CellPreset};
use crate::model::terrain::Terrain;
use crate::sim::{PointLoad, World, WorldSettings};
use crate::snapshot::{BodyId, CellSnapshot, Snapshot};

fn world(gravity: Vec2, dt: f64) -> World {
    World::new(WorldSettings { dt, gravity, solver_iterations: CELL_SUBSTEPS, ..WorldSettings::default() })
}

/// Substeps for cell worlds (see the probe below).
const CELL_SUBSTEPS: usize = super::CELL_SOLVER_ITERATIONS;

#[test]
#[ignore = "probe: prints the perimeter error and recovery per substep count"]
fn substep_probe() {
    for it in [4, 8, 16, 32, 64] {
        let p = CellPreset::ScsPaper.params();
        let mut w = World::new(WorldSettings {
            dt: CellPreset::ScsPaper.dt(),
            gravity: Vec2::ZERO,
            solver_iterations: it,
            ..WorldSettings::default()
        });
        let id = w.add_cell("c", "soft", p, Vec2::ZERO, 0.0);
        squeeze(&mut w, id, p.bodies, 5.0, 50);
        let mut worst = 0.0f64;
        let mut min_ratio = f64::INFINITY;
        for step in 0..500 {
            w.run(1, &mut []).unwrap();
            let c = cell_of(&mut w);
            min_ratio = min_ratio.min(c.area_ratio);
            if step >= 50 {
                worst = worst.max(c.perimeter_error);
            }
        }
        let c = cell_of(&mut w);
        eprintln!(
            "substeps {it}: min A/A0 {min_ratio:.4}, end A/A_Ngon {:.5}, max perimeter error {worst:.2e}",
            c.area / p.polygon_area()
        );
    }
}

fn cell_of(world: &mut World) -> CellSnapshot {
    world.snapshot().cells().next().cloned().expect("one cell")
}

/// Squeezes the cell between the top (pushed down) and the bottom (pushed up) for `steps` steps: a
/// force `force` on each of the 2·⌊N/10⌋ + 1 bodies around body 0 and around body N/2.
fn squeeze(world: &mut World, id: BodyId, n: usize, force: f64, steps: u64) {
    let k = n / 10;
    for (centre, dir) in [(0, -1.0), (n / 2, 1.0)] {
        for off in 0..=2 * k {
            world.add_load(PointLoad {
                body: id,
                voxel: (centre + n + off - k) % n,
                mass: 0,
                force: Vec2::new(0.0, dir * force),
                from_step: 0,
                until_step: steps,
            });
        }
    }
}

#[test]
fn cell_returns_to_the_regular_polygon_after_a_squeeze_and_keeps_its_perimeter() {
    // Reference: among polygons with N equal, fixed sides the regular one has the largest area, so a
    // pressurised inextensible ring with nothing pressing on it must return to A = A_Ngon.
    let p = CellPreset::ScsPaper.params();
    let mut w = world(Vec2::ZERO, CellPreset::ScsPaper.dt());
    let id = w.add_cell("c", "soft", p, Vec2::new(0.0, 0.0), 0.0);
    squeeze(&mut w, id, p.bodies, 5.0, 50);
    let (mut min_ratio, mut max_perimeter_error) = (f64::INFINITY, 0.0f64);
    for step in 0..500 {
        w.run(1, &mut []).unwrap();
        let c = cell_of(&mut w);
        min_ratio = min_ratio.min(c.area / p.polygon_area());
        // Free motion after the release: the spec's criterion is for the ring's own dynamics.
        if step >= 50 {
            max_perimeter_error = max_perimeter_error.max(c.perimeter_error);
        }
    }
    let c = cell_of(&mut w);
    // The joints are solved in f32 with a soft constraint: compare with the regular polygon of the
    // perimeter the ring has now (area ∝ P²).
    let stretch = cell::membrane_perimeter(&c.bodies) / p.perimeter();
    let end = c.area / (p.polygon_area() * stretch * stretch);
    eprintln!(
        "squeeze: min A/A_Ngon {min_ratio:.4}, after 10 s A/A_Ngon(P) {end:.6} (P/P0 {stretch:.6}), \
         max perimeter error {max_perimeter_error:.2e}"
    );
    assert!(min_ratio < 0.985, "the squeeze deformed the cell: {min_ratio}");
    // Near the maximum the area's restoring force is second order in the shape error and c_d = 50
    // N·s/m is heavy, so the return is slow: within 0.3 % after 10 s (measured 0.24 %, from 2.4 %).
    assert!((end - 1.0).abs() < 3e-3, "A/A_Ngon after release {end}");
    // Inextensible ring (spec §8's criterion): perimeter error < 0.5 %.
    assert!(max_perimeter_error < 5e-3, "{max_perimeter_error}");
}

#[test]
fn pressure_forces_conserve_the_momentum_of_a_free_cell() {
    // Zero gravity, no drag: pressure (with its net-force correction), damping on relative velocity and
    // the joints are all internal, so Σ m·v stays at its initial value while the cell deforms.
    for preset in [CellPreset::ScsPaper, CellPreset::ScsCode] {
        // `normals: scs` subtracts (F − μ)·Σn/N, which leaves μ·Σn/N: the code's quirk is not
        // momentum-conserving, so both presets are checked with the geometric normals.
        let p = CellParams { normals: cell::Normals::Geometric, ..preset.params() };
        let mut w = world(Vec2::ZERO, preset.dt());
        let id = w.add_cell("c", "soft", p, Vec2::ZERO, 0.3);
        w.set_body_velocity(id, Vec2::new(1.0, -0.5));
        // A balanced squeeze (equal and opposite loads) deforms without adding momentum.
        squeeze(&mut w, id, p.bodies, 2.0, 25);
        let p0 = w.cell_momentum(id).unwrap();
        let mut worst = 0.0f64;
        for _ in 0..300 {
            w.run(1, &mut []).unwrap();
            worst = worst.max((w.cell_momentum(id).unwrap() - p0).length() / p0.length());
        }
        let c = cell_of(&mut w);
        eprintln!("{preset:?}: worst relative momentum drift {worst:.2e}, area ratio {:.4}", c.area_ratio);
        // f32 engine state: a relative drift of 1e-4 is float noise, a missing correction is O(1).
        assert!(worst < 1e-4, "{preset:?}: {worst}");
    }
}

/// Height deficit δ of a cell resting on the ground, and the stadium estimate for it.
fn resting(gravity: f64, pressure: f64) -> (f64, f64) {
    let p = CellParams { pressure, ..CellPreset::ScsPaper.params() };
    let mut w = world(Vec2::new(0.0, -gravity), CellPreset::ScsPaper.dt());
    w.add_terrain(&Terrain::flat());
    w.add_cell("c", "soft", p, Vec2::new(100.0, p.radius + p.body_radius() + 0.01), 0.0);
    w.run(750, &mut []).unwrap();
    let c = cell_of(&mut w);
    let (lo, hi) = c.bodies.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), q| (a.min(q.y), b.max(q.y)));
    let delta = p.perimeter() / PI - (hi - lo);
    (delta, stadium_estimate(&p, gravity))
}

/// Stadium estimate (spec §14's shape, ours for gravity): flats of length ℓ = πδ/2 on the ground, area
/// A(δ) = P²/(4π) − πδ²/4; each body on the flat carries F + m·g, so ℓ/s·(F(A) + m·g) = N·m·g.
fn stadium_estimate(p: &CellParams, g: f64) -> f64 {
    let (s, m, n) = (p.spacing(), p.body_mass(), p.bodies as f64);
    let perimeter = p.perimeter();
    let residual = |d: f64| {
        let area = perimeter * perimeter / (4.0 * PI) - PI * d * d / 4.0;
        (PI * d / 2.0) / s * (cell::pressure_force(p, area) + m * g) - n * m * g
    };
    let (mut lo, mut hi) = (0.0, perimeter / PI * 0.99);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if residual(mid) > 0.0 {
            hi = mid
        } else {
            lo = mid
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn a_resting_cell_flattens_more_with_gravity_and_less_with_pressure_as_the_stadium_estimate() {
    let cases = [(9.8, 200.0), (9.8, 50.0), (19.6, 200.0)];
    let results: Vec<(f64, f64)> = cases.iter().map(|&(g, c)| resting(g, c)).collect();
    for ((g, c), (d, est)) in cases.iter().zip(&results) {
        eprintln!("g {g}, C {c}: δ {d:.3} m (δ/D {:.3}), stadium estimate {est:.3} m, ratio {:.2}", d / 10.0, d / est);
    }
    let (base, soft, heavy) = (results[0].0, results[1].0, results[2].0);
    assert!(soft > base * 1.1 && heavy > base * 1.1, "{results:?}");
    for (d, est) in &results {
        assert!((d / est - 1.0).abs() < 0.35, "δ {d} vs estimate {est}");
    }
}

#[test]
fn cell_reruns_are_bit_identical() {
    let run = || {
        let p = CellPreset::ScsCode.params();
        let mut w = world(Vec2::new(0.0, -9.8), CellPreset::ScsCode.dt());
        w.add_terrain(&Terrain::flat());
        w.add_cell("a", "soft", p, Vec2::new(100.0, 4.0), 0.0);
        w.add_cell("b", "soft", p, Vec2::new(101.0, 11.0), 0.2);
        w.run(200, &mut []).unwrap();
        let s: Snapshot = w.snapshot();
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn the_stepping_rule_keeps_one_engine_step_and_covers_every_measured_need() {
    let p = |bodies: usize, pressure: f64| CellParams { bodies, pressure, ..CellPreset::ScsPaper.params() };
    let dt = CellPreset::ScsPaper.dt();
    // The presets and every fixture (N 100, C ≤ 800) keep one engine step of 16 substeps.
    for c in [4.5, 50.0, 200.0, 450.0, 800.0] {
        assert_eq!(Stepping::for_cells([&p(100, c)], dt), Stepping::CELLS);
    }
    assert_eq!(Stepping::for_cells([&CellPreset::ScsCode.params()], CellPreset::ScsCode.dt()), Stepping::CELLS);
    // The fewest stable substeps measured (see `stable_solver_substeps`), and N 1000 at C 450 at 16.
    for (n, c, measured) in [(700, 450.0, 8), (1000, 800.0, 16)] {
        assert!(stable_solver_substeps(&p(n, c), dt) >= measured, "N {n} C {c}");
    }
    assert_eq!(Stepping::for_cells([&p(1000, 450.0)], dt), Stepping::CELLS);
    // The finest type decides; a longer step needs proportionally more substeps.
    let s = Stepping::for_cells([&p(100, 200.0), &p(3000, 800.0)], dt);
    assert_eq!((s.force_substeps, s.solver_iterations), (1, 64));
    assert_eq!(stable_solver_substeps(&p(1000, 800.0), 4.0 * dt), 64);
}

#[test]
#[ignore = "probe: stability of a free fine membrane per substep count, at one engine step per step"]
fn resolution_probe() {
    let dt = CellPreset::ScsPaper.dt();
    for it in [4usize, 8, 16] {
        for (n, c) in [
            (100, 450.0),
            (200, 450.0),
            (300, 450.0),
            (500, 200.0),
            (500, 450.0),
            (700, 450.0),
            (1000, 200.0),
            (1000, 450.0),
            (1000, 800.0),
        ] {
            let p = CellParams { bodies: n, pressure: c, ..CellPreset::ScsPaper.params() };
            let mut w = World::new(WorldSettings {
                dt,
                gravity: Vec2::ZERO,
                solver_iterations: it,
                ..WorldSettings::default()
            });
            w.add_cell("c", "soft", p, Vec2::ZERO, 0.0);
            let mut worst = 0.0f64;
            let mut failed = None;
            for step in 0..500 {
                if let Err(e) = w.run(1, &mut []) {
                    failed = Some(format!("step {step}: {e}"));
                    break;
                }
                worst = worst.max(cell_of(&mut w).perimeter_error);
            }
            let c2 = cell_of(&mut w);
            eprintln!(
                "it {it} N {n} C {c}: {} max perimeter error {worst:.2e}, A/A_Ngon {:.5}",
                failed.unwrap_or("stable".into()),
                c2.area / p.polygon_area()
            );
        }
    }
}
