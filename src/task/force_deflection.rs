//! The `force_deflection` task (spec `cells.md` §11): one cell on a fixed flat ground, its lowest body
//! (N/2) pinned to it, pressed by a horizontal bar 3·D wide. `load: displacement`: the bar is kinematic
//! and lowered level by level to δ = k·`max_deflection`·D/`levels` (it moves linearly during the first
//! `ramp` s of each level), held until `settle` s have passed, then the level is averaged over `average`
//! s; after the last level it is raised back level by level (unloading). The bar force is the contact
//! impulses on the bar over a step divided by dt.
//!
//! Geometry (ours): the ground's top is y = 0, the cell's centre starts at (0, R + r_b) with body 0 on
//! top, so body N/2 rests on the ground, where it is pinned by a revolute joint at its centre. h₀ = the
//! cell's height at t = 0 (highest body centre + r_b), the ground–bar gap at first contact of a rigid
//! approach; δ = h₀ − h with h the bar's bottom height. The bar starts 1 % of D above the cell. Plates
//! take the cell's own friction coefficient (combined as the geometric mean, so equal to it).

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;
use crate::model::cell::stadium::Stadium;
use crate::model::cell::CellParams;
use crate::sim::{FixtureError, PlateMotion, SimError, Stepping, World, WorldSettings};
use crate::snapshot::CellSnapshot;

/// How the cell is loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FdLoad {
    /// A kinematic bar lowered level by level (implemented).
    #[default]
    Displacement,
    /// The paper's: a dynamic bar sliding vertically (as on a prismatic joint), pushed by a force raised
    /// level by level, evenly up to `max_force`.
    Force,
}

/// `{"type": "force_deflection", …}`: one cell pinned at its lowest body (N/2) to a fixed flat ground,
/// pressed by a horizontal bar 3·D wide, level by level up to δ = `max_deflection`·D, then unloaded.
/// The task places the cell itself (centre above the ground, rotation 0): `cells[0].position` and
/// `rotation` are not used, nor is `world.terrain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ForceDeflectionSpec {
    /// `displacement` (default, kinematic bar) or `force` (a sliding bar of 1 kg, ours, pushed by a force).
    pub load: FdLoad,
    /// The largest force of `load: force`, N (default: the stadium model's F_bar at `max_deflection`·D,
    /// cells.md §14).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_force: Option<f64>,
    /// Loading levels, evenly spaced in δ up to `max_deflection`·D (default 10).
    pub levels: usize,
    /// Largest deflection as a fraction of D = 2R (default 0.5).
    pub max_deflection: f64,
    /// Time each level is held before averaging, s (default 2); the bar moves during its first `ramp` s.
    pub settle: f64,
    /// Averaging time after the settling, s (default 0.5).
    pub average: f64,
    /// Time the bar takes to move from one level to the next, s, within `settle` (default 0.5, ours).
    pub ramp: f64,
    /// Unload level by level back to δ = 0 after the last level (default true).
    pub unload: bool,
    /// Gravity during the task, m/s² (default [0, 0], the cell scenes' default, cells.md §1; this task
    /// does not use `world.gravity`, whose default is the voxel robots' [0, −9.8]).
    pub gravity: [f64; 2],
}

impl Default for ForceDeflectionSpec {
    fn default() -> Self {
        ForceDeflectionSpec {
            load: FdLoad::Displacement,
            max_force: None,
            levels: 10,
            max_deflection: 0.5,
            settle: 2.0,
            average: 0.5,
            ramp: 0.5,
            unload: true,
            gravity: [0.0, 0.0],
        }
    }
}

/// Loading or unloading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Load,
    Unload,
}

/// What one level measured (means over the averaging window unless said otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FdLevel {
    pub phase: Phase,
    /// The commanded deflection, m (for `load: force`, the stadium model's deflection at the level's
    /// force, 0 where the model has none).
    pub target_delta: f64,
    /// The applied force of `load: force`, N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_force: Option<f64>,
    /// F_bar: vertical contact force on the bar (upward positive), N.
    pub bar_force: f64,
    /// δ = h₀ − h at the end of the window (`load: force`: its mean over the window), m.
    pub delta: f64,
    pub delta_over_d: f64,
    /// A/A₀.
    pub area_ratio: f64,
    /// F = C·(A₀/A − 1), N per body.
    pub pressure_force: f64,
    /// Membrane bodies in contact with the bar (mean over the window).
    pub bodies_on_bar: f64,
    /// Largest perimeter error in the window.
    pub perimeter_error: f64,
    /// Horizontal contact force on the bar, N.
    pub tangential_force: f64,
    /// Turn of the direction centre → body 0 since t = 0, rad (counter-clockwise positive).
    pub rotation: f64,
    /// The stadium model's F_bar at `delta` (cells.md §14), N.
    pub model_force: Option<f64>,
}

/// The task's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FdResult {
    pub label: String,
    pub pressure: f64,
    pub bodies: usize,
    pub radius: f64,
    pub dt: f64,
    /// Solver substeps per engine step.
    pub substeps: usize,
    /// Engine steps per step.
    pub force_substeps: usize,
    /// h₀, m.
    pub h0: f64,
    pub levels: Vec<FdLevel>,
    /// Largest perimeter error over the whole run.
    pub max_perimeter_error: f64,
    pub steps: u64,
}

impl FdResult {
    /// The loading levels, in order.
    pub fn loading(&self) -> impl Iterator<Item = &FdLevel> {
        self.levels.iter().filter(|l| l.phase == Phase::Load)
    }

    /// F_bar at deflection `delta` m, interpolated linearly along the loading curve (with (0, 0) as its
    /// first point); `None` outside it.
    pub fn force_at(&self, delta: f64) -> Option<f64> {
        // The bar reaches its levels to within float rounding: a level counts as reached within 1 µm.
        let mut prev = (0.0, 0.0);
        for l in self.loading() {
            if delta <= l.delta + 1e-6 && delta >= prev.0 {
                let w = if l.delta > prev.0 { ((delta - prev.0) / (l.delta - prev.0)).min(1.0) } else { 1.0 };
                return Some(prev.1 + w * (l.bar_force - prev.1));
            }
            prev = (l.delta, l.bar_force);
        }
        None
    }
}

/// Why the task could not run.
#[derive(Debug, thiserror::Error)]
pub enum FdError {
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    Fixture(#[from] FixtureError),
}

/// Stepping of the characterization sweeps: the smallest solver substep count that passes cells.md §8's
/// criterion (perimeter error < 0.5 % and F–δ change < 1 % when the count doubles) at 4 engine steps per
/// step. The bar's contacts need the shorter engine steps (their collision detection and constraint
/// set-up are per engine step): at one engine step the report's probe (C 450, 10 levels to 0.5·D, the
/// pressure recomputed every substep, `tests::substep_probe`) gives n 8 and 16 unstable, n 32 / 64 / 128
/// perimeter error 1.63 % / 0.45 % / 0.12 % and F–δ change 32 → 64 10.2 %, 64 → 128 3.0 %. Measured at
/// 4 engine steps before the pressure moved into the substeps: n 16 / 32 / 64 / 128, perimeter error
/// 0.45 % / 0.12 % / 0.029 % / 0.0075 %; F–δ change 16 → 32 3.2 %, 32 → 64 1.26 %, 64 → 128 0.46 % (the
/// report re-measures it). Cell worlds elsewhere keep the cheaper [`Stepping::for_cells`].
pub const CONVERGED_STEPPING: Stepping = Stepping { force_substeps: 4, solver_iterations: 64 };

/// Mass of the force-loaded bar, kg (ours: light, so that it follows the cell within the settle time; its
/// weight does not act, the bar has no gravity).
pub(crate) const BAR_MASS: f64 = 1.0;

/// Runs the task for one cell type at time step `dt`, the step divided as `stepping` says.
pub fn run(
    label: &str,
    p: &CellParams,
    dt: f64,
    stepping: Stepping,
    spec: &ForceDeflectionSpec,
) -> Result<FdResult, FdError> {
    let mut world = World::new(WorldSettings {
        dt,
        gravity: Vec2::new(spec.gravity[0], spec.gravity[1]),
        solver_iterations: stepping.solver_iterations.max(1),
        force_substeps: stepping.force_substeps.max(1),
        ..WorldSettings::default()
    });
    let (r, rb) = (p.radius, p.body_radius());
    let d = 2.0 * r;
    // Ground: a slab 4·D wide whose top is y = 0.
    let ground = world.add_plate(Vec2::new(0.0, -0.5 * d), Vec2::new(2.0 * d, 0.5 * d), PlateMotion::Fixed, p.friction);
    let id = world.add_cell(label, "cell", *p, Vec2::new(0.0, r + rb), 0.0);
    world.pin_cell_body(id, p.bodies / 2, ground)?;
    let start = cell_state(&mut world)?;
    let h0 = start.bodies.iter().fold(f64::NEG_INFINITY, |m, b| m.max(b.y)) + rb;
    let body0_angle = |c: &CellSnapshot| {
        let u = c.bodies[0] - c.center;
        u.y.atan2(u.x)
    };
    let angle0 = body0_angle(&start);
    // The bar: 3·D wide, D/20 thick, its bottom at height h.
    let half_t = d / 40.0;
    let bar_centre = |h: f64| Vec2::new(0.0, h + half_t);
    let mut h = h0 + 0.01 * d;
    let by_force = spec.load == FdLoad::Force;
    let motion = if by_force { PlateMotion::Sliding { mass: BAR_MASS } } else { PlateMotion::Kinematic };
    let bar = world.add_plate(bar_centre(h), Vec2::new(1.5 * d, half_t), motion, p.friction);

    let model = Stadium::of(p);
    let max_delta = spec.max_deflection * d;
    // Each level's target: a deflection (displacement load) or a force (force load).
    let top = if by_force { spec.max_force.or(model.bar_force(max_delta)).unwrap_or(0.0) } else { max_delta };
    let n = spec.levels;
    let mut targets: Vec<(Phase, f64)> = (1..=n).map(|k| (Phase::Load, top * k as f64 / n as f64)).collect();
    if spec.unload {
        targets.extend((0..n).rev().map(|k| (Phase::Unload, top * k as f64 / n as f64)));
    }
    let steps_of = |t: f64| (t / dt).round() as u64;
    let (ramp, settle, average) = (steps_of(spec.ramp).max(1), steps_of(spec.settle), steps_of(spec.average).max(1));
    let mut levels = Vec::with_capacity(targets.len());
    let mut max_error = start.perimeter_error;
    let mut force = 0.0;
    for (phase, target) in targets {
        let (from, to) = if by_force { (force, target) } else { (h, h0 - target) };
        let mut sum = Sums::default();
        let mut delta_sum = 0.0;
        for k in 0..settle.max(ramp) + average {
            let x = if k < ramp { from + (to - from) * (k + 1) as f64 / ramp as f64 } else { to };
            if by_force {
                force = x;
                world.set_plate_force(bar, Vec2::new(0.0, -force))?;
            } else {
                h = x;
                world.move_plate(bar, bar_centre(h))?;
            }
            world.step(&mut [])?;
            let c = cell_state(&mut world)?;
            max_error = max_error.max(c.perimeter_error);
            if k >= settle.max(ramp) {
                let contact = world.plate_contact(bar);
                sum.add(&contact.force, contact.touching.len(), &c);
                delta_sum += h0 - (world.plate_centre(bar).y - half_t);
            }
        }
        let c = cell_state(&mut world)?;
        let delta = if by_force { delta_sum / sum.count as f64 } else { h0 - (world.plate_centre(bar).y - half_t) };
        let (target_delta, applied_force) =
            if by_force { (model.deflection_at(target).unwrap_or(0.0), Some(target)) } else { (target, None) };
        let m = sum.count as f64;
        let mut rotation = body0_angle(&c) - angle0;
        rotation = (rotation + PI).rem_euclid(2.0 * PI) - PI;
        levels.push(FdLevel {
            phase,
            target_delta,
            applied_force,
            bar_force: sum.force.y / m,
            delta,
            delta_over_d: delta / d,
            area_ratio: sum.area_ratio / m,
            pressure_force: sum.pressure_force / m,
            bodies_on_bar: sum.touching / m,
            perimeter_error: sum.max_error,
            tangential_force: sum.force.x / m,
            rotation,
            model_force: model.bar_force(delta.max(0.0)),
        });
    }
    Ok(FdResult {
        label: label.to_string(),
        pressure: p.pressure,
        bodies: p.bodies,
        radius: r,
        dt,
        substeps: stepping.solver_iterations.max(1),
        force_substeps: stepping.force_substeps.max(1),
        h0,
        levels,
        max_perimeter_error: max_error,
        steps: world.step_index(),
    })
}

fn cell_state(world: &mut World) -> Result<CellSnapshot, FdError> {
    // The world holds exactly the one cell built above.
    world.snapshot().cells().next().cloned().ok_or(FdError::Fixture(FixtureError::NotACell(crate::snapshot::BodyId(0))))
}

#[derive(Default)]
struct Sums {
    count: usize,
    force: Vec2,
    touching: f64,
    area_ratio: f64,
    pressure_force: f64,
    max_error: f64,
}

impl Sums {
    fn add(&mut self, force: &Vec2, touching: usize, c: &CellSnapshot) {
        self.count += 1;
        self.force = self.force + *force;
        self.touching += touching as f64;
        self.area_ratio += c.area_ratio;
        self.pressure_force += c.pressure_force;
        self.max_error = self.max_error.max(c.perimeter_error);
    }
}

#[cfg(test)]
mod tests;

/// One row of the substep convergence table (cells.md §8): substeps n against 2n.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SubstepRow {
    pub substeps: usize,
    pub doubled: usize,
    /// Largest perimeter error over the sweep with n substeps (infinite: the run became unstable).
    pub max_perimeter_error: f64,
    /// The same with 2n.
    pub max_perimeter_error_doubled: f64,
    /// Largest |F_2n − F_n| / F_2n over the loading levels with 0.1 ≤ δ/D ≤ 0.5.
    pub max_fd_change: f64,
    /// Both criteria met: perimeter error < 0.5 % and F–δ change < 1 %.
    pub passes: bool,
}

/// How long the tunability protocol holds each level, s. At C 4.5 the damping c_d = 50 N·s/m dominates
/// the weak pressure: F_bar is 2.3× the stadium model at 0.2·D after the spec's 2 s, 1.4× after 10 s and
/// 1.03× after 40 s (test `settle_probe`), so 2 s measures a transient there, not a stiffness (ours).
pub const TUNABILITY_SETTLE: f64 = 40.0;

/// The stiffness at 0.2·D of the tunability check (cells.md §16), measured on a relaxed cell: loading
/// only, 5 levels to 0.25·D, each held `settle` s; the secant over 0.15–0.25·D of the measured curve and
/// of the stadium model's forces at the same levels: (measured, model), N/m.
pub fn tunability_stiffness(
    p: &CellParams,
    dt: f64,
    stepping: Stepping,
    settle: f64,
) -> Result<(f64, Option<f64>), FdError> {
    let spec = ForceDeflectionSpec {
        levels: 5,
        max_deflection: 0.25,
        settle,
        unload: false,
        ..ForceDeflectionSpec::default()
    };
    let r = run("tunability", p, dt, stepping, &spec)?;
    let d = 2.0 * p.radius;
    let at = |x: f64| r.loading().find(|l| (l.target_delta - x * d).abs() < 1e-9);
    let (lo, hi) = (at(0.15).expect("a level at 0.15·D"), at(0.25).expect("a level at 0.25·D"));
    let model = match (lo.model_force, hi.model_force) {
        (Some(a), Some(b)) => Some((b - a) / (0.1 * d)),
        _ => None,
    };
    Ok(((hi.bar_force - lo.bar_force) / (0.1 * d), model))
}

/// Runs the force–deflection sweep (loading, `levels` levels to 0.5·D) for every substep count in
/// `counts` and compares each n with 2n when 2n is in `counts` too.
pub fn substep_probe_table(
    p: &CellParams,
    dt: f64,
    stepping: Stepping,
    counts: &[usize],
    levels: usize,
) -> Result<Vec<SubstepRow>, FdError> {
    let spec = ForceDeflectionSpec { levels, unload: false, ..ForceDeflectionSpec::default() };
    let mut runs = Vec::new();
    for &n in counts {
        // An unstable run (perimeter error > 5 %) fails the criterion; it is not an error of the probe.
        match run("probe", p, dt, stepping.with_solver_iterations(n), &spec) {
            Ok(r) => runs.push((n, Some(r))),
            Err(FdError::Sim(_)) => runs.push((n, None)),
            Err(e) => return Err(e),
        }
    }
    let mut rows = Vec::new();
    for (n, a) in &runs {
        let Some((_, b)) = runs.iter().find(|(m, _)| *m == 2 * n) else { continue };
        let (Some(a), Some(b)) = (a, b) else {
            let err = |r: &Option<FdResult>| r.as_ref().map_or(f64::INFINITY, |r| r.max_perimeter_error);
            rows.push(SubstepRow {
                substeps: *n,
                doubled: 2 * n,
                max_perimeter_error: err(a),
                max_perimeter_error_doubled: err(b),
                max_fd_change: f64::INFINITY,
                passes: false,
            });
            continue;
        };
        let change = a
            .loading()
            .zip(b.loading())
            .filter(|(x, _)| x.delta_over_d >= 0.1 - 1e-9 && x.delta_over_d <= 0.5 + 1e-9)
            .map(|(x, y)| (x.bar_force - y.bar_force).abs() / y.bar_force.abs())
            .fold(0.0, f64::max);
        rows.push(SubstepRow {
            substeps: *n,
            doubled: 2 * n,
            max_perimeter_error: a.max_perimeter_error,
            max_perimeter_error_doubled: b.max_perimeter_error,
            max_fd_change: change,
            passes: a.max_perimeter_error < 5e-3 && change < 0.01,
        });
    }
    Ok(rows)
}

/// The table as text.
pub fn format_substep_table(rows: &[SubstepRow]) -> String {
    let mut out = format!(
        "{:>4} {:>4} {:>16} {:>16} {:>16} {:>6}\n",
        "n", "2n", "perim. err. n", "perim. err. 2n", "max F–δ change", "pass"
    );
    for r in rows {
        out.push_str(&format!(
            "{:>4} {:>4} {:>15.3}% {:>15.3}% {:>15.3}% {:>6}\n",
            r.substeps,
            r.doubled,
            100.0 * r.max_perimeter_error,
            100.0 * r.max_perimeter_error_doubled,
            100.0 * r.max_fd_change,
            r.passes
        ));
    }
    out
}
