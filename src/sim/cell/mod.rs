//! An SCS soft cell in the world (spec `cells.md` §2, §3, §8): N circle bodies joined in a ring by
//! revolute impulse joints, pushed in every solver substep by the pressure law of [`crate::model::cell`].

use std::f64::consts::PI;

use rapier2d::prelude::*;

use super::body::SimBody;
use super::tag::ColliderTag;
use super::v;
use crate::geom::{Aabb, Vec2};
use crate::model::cell::{self, CellParams, Ring};
use crate::snapshot::{BodyId, BodySnapshot, CellSnapshot, SnapshotDetail};

/// Solver substeps for worlds with cells: the smallest of 4, 8, 16, 32, 64 for which the free ring of
/// `scs-paper` keeps its perimeter error < 0.5 % after a squeeze (spec §8; `tests::substep_probe`
/// measured 1.38 %, 0.86 %, 0.38 %, 0.12 %, 0.032 %; with the pressure held over the step it was 2.0 %,
/// 1.04 %, 0.43 %, 0.13 %, 0.035 %).
pub const CELL_SOLVER_ITERATIONS: usize = 16;

/// Most solver substeps per step the automatic choice ([`Stepping::for_cells`]) takes.
pub const MAX_SOLVER_SUBSTEPS: usize = 256;

/// How a step is divided: engine steps per step (each a collision detection and constraint set-up with
/// the user forces of that engine step), and solver substeps per engine step (the pressure is
/// recomputed in each, `pressure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Stepping {
    pub force_substeps: usize,
    pub solver_iterations: usize,
}

impl std::fmt::Display for Stepping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} engine steps × {} solver substeps per step", self.force_substeps, self.solver_iterations)
    }
}

impl Stepping {
    /// The project's default for worlds of `scs-paper` cells (N ≤ 1000 at C ≤ 450, N 100 at any C):
    /// one engine step of [`CELL_SOLVER_ITERATIONS`] substeps per step.
    pub const CELLS: Stepping = Stepping { force_substeps: 1, solver_iterations: CELL_SOLVER_ITERATIONS };

    /// The default for a world of these cell types: one engine step, with the solver substeps the
    /// finest, most pressurised membrane needs ([`stable_solver_substeps`]).
    pub fn for_cells<'a>(types: impl IntoIterator<Item = &'a CellParams>, dt: f64) -> Stepping {
        let solver_iterations = types.into_iter().map(|p| stable_solver_substeps(p, dt)).max().unwrap_or(1);
        Stepping { force_substeps: 1, solver_iterations: solver_iterations.max(CELL_SOLVER_ITERATIONS) }
    }

    /// `self` with another count of solver substeps (the convergence probe's n and 2n).
    pub fn with_solver_iterations(self, solver_iterations: usize) -> Stepping {
        Stepping { solver_iterations, ..self }
    }
}

/// Solver substeps per step a membrane needs to stay stable at the world step dt (ours, measured), at
/// least [`CELL_SOLVER_ITERATIONS`].
///
/// The pressure's area feedback acts on the membrane's breathing mode, whose rate grows with N and C
/// and which the ring's Gauss–Seidel joints barely resist within a substep; the substep must resolve
/// it. Measured on one free cell (`scs-paper`, dt 1/50 s, gravity 0, 500 steps,
/// `tests::resolution_probe`): 4 substeps stay stable up to N 700 at C 450 and N 1000 at C 200, not
/// N 1000 at C 450; 8 and 16 up to N 1000 at C 800 (perimeter error ≤ 5·10⁻⁶ at N 1000). With the
/// pressure held over the step, N 1000 C 200 needed 16 engine steps. The rule N·√C/2000·(dt/0.02),
/// rounded up to a power of two and at least 16, gives at least twice every measured need; linear in
/// dt because a substep must resolve a mode frequency.
pub fn stable_solver_substeps(params: &CellParams, dt: f64) -> usize {
    let need = params.bodies as f64 * params.pressure.abs().sqrt() / 2000.0 * (dt / 0.02);
    let mut n = CELL_SOLVER_ITERATIONS;
    while (n as f64) < need && n < MAX_SOLVER_SUBSTEPS {
        n *= 2;
    }
    n
}

/// A body's local +y in world frame, (−sin θ, cos θ): the `scs` normal.
pub(crate) fn local_up(rotation: Rotation) -> Vec2 {
    Vec2::new(-rotation.sin() as f64, rotation.cos() as f64)
}

/// Perimeter error above which a run is unstable (spec §9).
const MAX_PERIMETER_ERROR: f64 = 0.05;

/// One soft cell: its bodies and their state read back after every step.
pub(crate) struct Cell {
    id: BodyId,
    label: String,
    type_name: String,
    params: CellParams,
    bodies: Vec<RigidBodyHandle>,
    pos: Vec<Vec2>,
    vel: Vec<Vec2>,
    /// Each body's local +y in world frame (the `scs` normals).
    up: Vec<Vec2>,
    area: f64,
    force: f64,
    /// The world's step dt, s: the damping law's coefficients are those of a whole step, however many
    /// engine steps and substeps it is divided into (`model::cell::effective_damping`).
    step_dt: f64,
}

impl Cell {
    /// Builds the ring centred at `centre`, turned by `rotation` rad (counter-clockwise).
    pub fn build(
        physics: &mut PhysicsWorld,
        id: BodyId,
        label: String,
        type_name: String,
        params: CellParams,
        centre: Vec2,
        rotation: f64,
        step_dt: f64,
    ) -> Cell {
        let n = params.bodies;
        let pos = params.initial_positions(centre, rotation);
        let rb = params.body_radius();
        let mut bodies = Vec::with_capacity(n);
        for (i, p) in pos.iter().enumerate() {
            // Local +y points radially outward (code).
            let angle = -2.0 * PI * i as f64 / n as f64 + rotation;
            let handle = physics
                .bodies
                .insert(RigidBodyBuilder::dynamic().translation(v(*p)).rotation(angle as Real).can_sleep(false));
            let collider = ColliderBuilder::ball(rb as Real)
                .density(params.density as Real)
                .friction(params.friction as Real)
                .friction_combine_rule(CoefficientCombineRule::GeometricMean)
                .restitution(params.restitution as Real)
                .restitution_combine_rule(CoefficientCombineRule::Max)
                .user_data(ColliderTag { body: id, part: i, piece: 0 }.encode());
            physics.colliders.insert_with_parent(collider, handle, &mut physics.bodies);
            bodies.push(handle);
        }
        // Body k's local frame turns world vectors by +its build angle's opposite.
        let local = |k: usize, w: Vec2| {
            let a = 2.0 * PI * k as f64 / n as f64 - rotation;
            let (s, c) = a.sin_cos();
            Vec2::new(c * w.x - s * w.y, s * w.x + c * w.y)
        };
        for i in 0..n {
            let prev = (i + n - 1) % n;
            // Joint between prev and i at prev's centre (spec §2); `scs` anchors the closing joint at
            // body 0's centre instead.
            let at_zero = i == 0 && params.ring == Ring::Scs;
            let (a1, a2) = if at_zero {
                (local(prev, pos[0] - pos[prev]), Vec2::ZERO)
            } else {
                (Vec2::ZERO, local(i, pos[prev] - pos[i]))
            };
            // Consecutive bodies overlap slightly by construction: their contacts would make them jitter.
            let joint = RevoluteJointBuilder::new().local_anchor1(v(a1)).local_anchor2(v(a2)).contacts_enabled(false);
            physics.impulse_joints.insert(bodies[prev], bodies[i], joint, true);
        }
        let mut cell = Cell {
            id,
            label,
            type_name,
            params,
            bodies,
            pos,
            vel: vec![Vec2::ZERO; n],
            up: vec![Vec2::ZERO; n],
            area: 0.0,
            force: 0.0,
            step_dt,
        };
        cell.read_state(physics);
        cell
    }

    /// The engine handle of membrane body `i` (fixtures pin bodies to plates).
    pub fn body_handle(&self, i: usize) -> Option<RigidBodyHandle> {
        self.bodies.get(i).copied()
    }

    /// Σ m_i·v_i, kg·m/s.
    pub fn momentum(&self, physics: &PhysicsWorld) -> Vec2 {
        self.bodies.iter().fold(Vec2::ZERO, |s, h| {
            let rb = &physics.bodies[*h];
            let lv = rb.linvel();
            s + Vec2::new(lv.x as f64, lv.y as f64) * rb.mass() as f64
        })
    }

    fn perimeter_error(&self) -> f64 {
        let p0 = self.params.perimeter();
        (cell::membrane_perimeter(&self.pos) - p0).abs() / p0
    }

    fn mean(values: &[Vec2]) -> Vec2 {
        values.iter().fold(Vec2::ZERO, |s, p| s + *p) * (1.0 / values.len() as f64)
    }
}

impl SimBody for Cell {
    fn push(&self, physics: &mut PhysicsWorld, part: usize, _piece: usize, force: Vec2) {
        if let Some(rb) = self.bodies.get(part).and_then(|h| physics.bodies.get_mut(*h)) {
            rb.add_force(v(force), true);
        }
    }

    /// The pressure is applied inside the engine step, every solver substep ([`pressure`]).
    fn before_step(&mut self, _physics: &mut PhysicsWorld, _engine_dt: f64) {}

    fn reset_forces(&self, physics: &mut PhysicsWorld) {
        for h in &self.bodies {
            if let Some(rb) = physics.bodies.get_mut(*h) {
                rb.reset_forces(false);
            }
        }
    }

    fn read_state(&mut self, physics: &PhysicsWorld) {
        for (i, h) in self.bodies.iter().enumerate() {
            let rb = &physics.bodies[*h];
            let t = rb.position().translation;
            let lv = rb.linvel();
            let rot = rb.position().rotation;
            self.pos[i] = Vec2::new(t.x as f64, t.y as f64);
            self.vel[i] = Vec2::new(lv.x as f64, lv.y as f64);
            self.up[i] = local_up(rot);
        }
        self.area = cell::membrane_area(&self.pos);
        self.force = cell::pressure_force(&self.params, self.area);
    }

    fn instability(&self, speed_limit: f64) -> Option<String> {
        for (i, (p, u)) in self.pos.iter().zip(&self.vel).enumerate() {
            if !(p.is_finite() && u.is_finite()) {
                return Some(format!("cell {} body {i} has a non-finite state", self.id));
            }
            if u.length() >= speed_limit {
                return Some(format!("cell {} body {i} reached the engine's speed limit", self.id));
            }
        }
        let e = self.perimeter_error();
        (e > MAX_PERIMETER_ERROR).then(|| {
            format!(
                "cell {} membrane perimeter error {:.1} % (> {:.0} %)",
                self.id,
                100.0 * e,
                100.0 * MAX_PERIMETER_ERROR
            )
        })
    }

    fn clear_touching(&mut self) {}
    fn mark_touching(&mut self, _part: usize) {}
    fn touching_any(&self) -> bool {
        false
    }
    fn outline_points(&self) -> Vec<Vec2> {
        self.pos.clone()
    }

    fn snapshot(&self, _detail: SnapshotDetail) -> BodySnapshot {
        let a0 = self.params.rest_area_value();
        BodySnapshot::Cell(CellSnapshot {
            id: self.id,
            label: self.label.clone(),
            cell_type: self.type_name.clone(),
            center: Self::mean(&self.pos),
            bbox: self.bbox(),
            body_radius: self.params.body_radius(),
            bodies: self.pos.clone(),
            area: self.area,
            area_ratio: self.area / a0,
            pressure_force: self.force,
            perimeter_error: self.perimeter_error(),
            velocity: Self::mean(&self.vel),
            connectors: Vec::new(),
            pairs: Vec::new(),
            muscles: Vec::new(),
            links: Vec::new(),
        })
    }

    fn label(&self) -> &str {
        &self.label
    }
    fn centre(&self) -> Vec2 {
        Self::mean(&self.pos)
    }
    fn centre_and_bbox(&self) -> (Vec2, Aabb) {
        (Self::mean(&self.pos), self.bbox())
    }
    fn kinetic_energy(&self, physics: &PhysicsWorld) -> f64 {
        self.bodies
            .iter()
            .map(|h| {
                let rb = &physics.bodies[*h];
                let lv = rb.linvel();
                let (m, w) = (rb.mass() as f64, rb.angvel() as f64);
                let inertia = 0.5 * m * self.params.body_radius().powi(2);
                0.5 * m * (lv.x as f64).hypot(lv.y as f64).powi(2) + 0.5 * inertia * w * w
            })
            .sum()
    }
    fn set_velocity(&mut self, physics: &mut PhysicsWorld, velocity: Vec2) {
        for h in &self.bodies {
            if let Some(rb) = physics.bodies.get_mut(*h) {
                rb.set_linvel(v(velocity), true);
            }
        }
        self.read_state(physics);
    }
}

impl Cell {
    fn bbox(&self) -> Aabb {
        let r = self.params.body_radius();
        let b = Aabb::from_points(self.pos.iter().copied());
        Aabb::from_points([b.min - Vec2::new(r, r), b.max + Vec2::new(r, r)])
    }
}

pub(crate) mod pressure;
pub(crate) mod system;

#[cfg(test)]
mod tests;
