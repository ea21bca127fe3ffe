//! SCS soft cells without an engine (spec `cells.md` §2, §3, §7): the parameters of a cell type, the
//! presets `scs-paper` and `scs-code`, the membrane's geometry and the per-body pressure law. The engine
//! (`sim::cell`) only moves the bodies; every force it applies is computed here, so the law can be
//! tested on plain positions.

pub mod stadium;

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;

pub mod connector;
pub mod fold;
pub mod muscle;

/// Smallest membrane resolution (spec §2, validation).
pub(crate) const MIN_BODIES: usize = 8;

/// The reference the rest area A₀ is taken from (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RestArea {
    /// πR² (code): a new cell starts slightly pressurised.
    Circle,
    /// The rest N-gon through the body centres (ours): no force at build.
    Polygon,
}

/// Which direction the pressure pushes each body (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Normals {
    /// Outward perpendicular of p_{i+1} − p_{i−1} (ours).
    Geometric,
    /// The body's own local +y (code quirk: depends on the ring topology).
    Scs,
}

/// Where the ring's joints are anchored (spec §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ring {
    /// Every body is one link from its predecessor's centre to its own (ours).
    Closed,
    /// SCS's anchors: body 0 free to turn, the corner at N−1 locked (code).
    Scs,
}

/// A named parameter set (spec §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum CellPreset {
    /// The paper's numbers with the clean model.
    #[serde(rename = "scs-paper")]
    ScsPaper,
    /// The SCS code's defaults and quirks.
    #[serde(rename = "scs-code")]
    ScsCode,
}

/// Everything that defines one cell type (spec §7's table; units in the field docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CellParams {
    /// N, membrane bodies (paper 100 / code 30).
    pub bodies: usize,
    /// R, m (code comment 5 / code 3).
    pub radius: f64,
    /// C, N per body (code comment 200 / code 10; the paper's "m⁻²" is a slip: C·ratio is a force).
    pub pressure: f64,
    /// c_d, N·s/m, on velocities relative to the cell's mean (code comment 50 / code 1).
    pub damping: f64,
    /// γ, N·s/m, on the mean velocity (ours, 0).
    pub drag: f64,
    /// kg/m² (code 1).
    pub density: f64,
    /// – (code 0.1).
    pub friction: f64,
    /// – (code 0).
    pub restitution: f64,
    pub rest_area: RestArea,
    pub normals: Normals,
    pub ring: Ring,
    /// Factor on A₀ set by the schedule (SCS keys scale it by 1.05/0.95, code); 1 at build (ours).
    #[serde(default = "one")]
    pub rest_area_scale: f64,
}

fn one() -> f64 {
    1.0
}

impl CellPreset {
    pub fn params(self) -> CellParams {
        match self {
            CellPreset::ScsPaper => CellParams {
                bodies: 100,
                radius: 5.0,
                pressure: 200.0,
                damping: 50.0,
                drag: 0.0,
                density: 1.0,
                friction: 0.1,
                restitution: 0.0,
                rest_area: RestArea::Circle,
                normals: Normals::Geometric,
                ring: Ring::Closed,
                rest_area_scale: 1.0,
            },
            CellPreset::ScsCode => CellParams {
                bodies: 30,
                radius: 3.0,
                pressure: 10.0,
                damping: 1.0,
                drag: 0.0,
                density: 1.0,
                friction: 0.1,
                restitution: 0.0,
                rest_area: RestArea::Circle,
                normals: Normals::Scs,
                ring: Ring::Scs,
                rest_area_scale: 1.0,
            },
        }
    }

    /// The preset's time step, s (paper 1/50, code 1/60).
    pub fn dt(self) -> f64 {
        match self {
            CellPreset::ScsPaper => 1.0 / 50.0,
            CellPreset::ScsCode => 1.0 / 60.0,
        }
    }
}

/// A cell type that cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CellParamError {
    #[error("bodies = {0}: a membrane needs at least {MIN_BODIES} bodies")]
    TooFewBodies(usize),
    #[error("radius = {}: must be a finite length > 0 m", crate::geom::compact(*.0))]
    Radius(f64),
    #[error("{field} = {}: must be finite and ≥ 0", crate::geom::compact(*.value))]
    Negative { field: &'static str, value: f64 },
    #[error("density = {}: must be finite and > 0 kg/m²", crate::geom::compact(*.0))]
    Density(f64),
}

impl CellParams {
    pub fn validate(&self) -> Result<(), CellParamError> {
        if self.bodies < MIN_BODIES {
            return Err(CellParamError::TooFewBodies(self.bodies));
        }
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(CellParamError::Radius(self.radius));
        }
        if !(self.density.is_finite() && self.density > 0.0) {
            return Err(CellParamError::Density(self.density));
        }
        for (field, value) in [
            ("pressure", self.pressure),
            ("damping", self.damping),
            ("drag", self.drag),
            ("friction", self.friction),
            ("restitution", self.restitution),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(CellParamError::Negative { field, value });
            }
        }
        Ok(())
    }

    /// r_b = πR/N: half the arc between neighbours, so neighbours just touch.
    pub fn body_radius(&self) -> f64 {
        PI * self.radius / self.bodies as f64
    }

    /// s = 2R·sin(π/N): the centre distance of neighbours.
    pub fn spacing(&self) -> f64 {
        2.0 * self.radius * (PI / self.bodies as f64).sin()
    }

    /// P = N·s, the perimeter of the centre polygon (constant: the chain is inextensible).
    pub fn perimeter(&self) -> f64 {
        self.bodies as f64 * self.spacing()
    }

    /// Mass of one body, kg (ρ·π·r_b²).
    pub(crate) fn body_mass(&self) -> f64 {
        self.density * PI * self.body_radius().powi(2)
    }

    /// Area of the rest N-gon, m².
    pub(crate) fn polygon_area(&self) -> f64 {
        let n = self.bodies as f64;
        0.5 * n * self.radius.powi(2) * (2.0 * PI / n).sin()
    }

    /// A₀, m² (times the schedule's `rest_area_scale`).
    pub(crate) fn rest_area_value(&self) -> f64 {
        let a0 = match self.rest_area {
            RestArea::Circle => PI * self.radius.powi(2),
            RestArea::Polygon => self.polygon_area(),
        };
        a0 * self.rest_area_scale
    }

    /// Body centres at build: body 0 on top, indices increasing clockwise, the whole ring turned
    /// counter-clockwise by `rotation` (rad) about `centre`.
    pub(crate) fn initial_positions(&self, centre: Vec2, rotation: f64) -> Vec<Vec2> {
        (0..self.bodies)
            .map(|i| {
                let a = 2.0 * PI * i as f64 / self.bodies as f64 - rotation;
                centre + Vec2::new(a.sin(), a.cos()) * self.radius
            })
            .collect()
    }
}

/// Shoelace area of the membrane polygon, positive for the rest (clockwise) ring.
pub(crate) fn membrane_area(p: &[Vec2]) -> f64 {
    // Clockwise order gives a negative signed area: the sum is negated. Neighbours by `cycle`, not `%`:
    // the pressure evaluates this every solver substep.
    -0.5 * p.iter().zip(p.iter().cycle().skip(1)).map(|(a, b)| a.cross(*b)).sum::<f64>()
}

/// Σ|p_i − p_{i−1}|: the centre polygon's perimeter now.
pub(crate) fn membrane_perimeter(p: &[Vec2]) -> f64 {
    let n = p.len();
    (0..n).map(|i| (p[i] - p[(i + n - 1) % n]).length()).sum()
}

/// F = C·(A₀/A − 1), N per body; 0 for a turned-inside-out membrane (code).
pub fn pressure_force(params: &CellParams, area: f64) -> f64 {
    if area > 0.0 {
        params.pressure * (params.rest_area_value() / area - 1.0)
    } else {
        0.0
    }
}

/// The outward unit normal at body i from its neighbours: the chord p_{i+1} − p_{i−1} turned by +90°
/// (outward because the ring runs clockwise).
pub fn geometric_normal(p: &[Vec2], i: usize) -> Vec2 {
    let n = p.len();
    chord_normal(p[(i + n - 1) % n], p[(i + 1) % n])
}

/// The chord next − prev turned by +90°, normalised (by `sqrt`, not `hypot`: neighbours on a ring
/// are never 1e154 apart, and libm's `hypot` was a third of the per-substep pressure's time).
fn chord_normal(prev: Vec2, next: Vec2) -> Vec2 {
    let d = next - prev;
    Vec2::new(-d.y, d.x) * (1.0 / (d.x * d.x + d.y * d.y).sqrt())
}

/// The pressure law's scalars at one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pressure {
    pub area: f64,
    /// F, N.
    pub force: f64,
}

/// The damping coefficient the engine applies for c_d over a step dt: (m/dt)·(1 − e^{−c_d·dt/m}), the
/// exact exponential decay of the relative velocity over one step. An explicit force −c_d·Δv is unstable
/// once c_d·dt/m > 2, and `scs-paper`'s 50 N·s/m on 0.0775 kg bodies at 1/50 s gives 12.9 (ours; equal
/// to c_d when c_d·dt/m is small: 0.3 % less for `scs-code`).
pub(crate) fn effective_damping(c: f64, mass: f64, dt: f64) -> f64 {
    if c <= 0.0 || dt <= 0.0 {
        return c.max(0.0);
    }
    mass / dt * (1.0 - (-c * dt / mass).exp())
}

/// f_i = F·n_i − c_d·(v_i − v̄) − γ·v̄ − f_corr (spec §3), written to `forces` (one per body), c_d and γ
/// as [`effective_damping`] for an interval `dt`. `up` is each body's local +y in world frame, used by
/// `normals: scs` only.
pub(crate) fn pressure_forces(
    params: &CellParams,
    p: &[Vec2],
    vel: &[Vec2],
    up: &[Vec2],
    dt: f64,
    forces: &mut Vec<Vec2>,
) -> Pressure {
    let n = p.len();
    let area = membrane_area(p);
    let force = pressure_force(params, area);
    let nf = n as f64;
    let mean_v = vel.iter().fold(Vec2::ZERO, |s, v| s + *v) * (1.0 / nf);
    // The normals first, then each turned into its force in place (no allocation per call).
    forces.clear();
    match params.normals {
        // `geometric_normal` for every i, with the neighbours walked instead of found by `%`.
        Normals::Geometric => forces.extend(
            p.iter().cycle().skip(n - 1).zip(p.iter().cycle().skip(1)).take(n).map(|(a, b)| chord_normal(*a, *b)),
        ),
        Normals::Scs => forces.extend_from_slice(up),
    }
    let sum_n = forces.iter().fold(Vec2::ZERO, |s, v| s + *v);
    // The correction removes the net pressure force, so the cell cannot propel itself.
    let corr = match params.normals {
        Normals::Geometric => sum_n * (force / nf),
        // The code's quirk subtracts the friction coefficient from F (dimensionally meaningless).
        Normals::Scs => sum_n * ((force - params.friction) / nf),
    };
    let m = params.body_mass();
    let (damping, drag) = (effective_damping(params.damping, m, dt), effective_damping(params.drag, m, dt));
    for (f, v) in forces.iter_mut().zip(vel) {
        *f = *f * force - (*v - mean_v) * damping - mean_v * drag - corr;
    }
    Pressure { area, force }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_spec_table() {
        let p = CellPreset::ScsPaper.params();
        assert!((p.body_radius() - 0.15708).abs() < 1e-5);
        assert!((p.body_mass() - 0.0775).abs() < 1e-4);
        assert!((p.spacing() - 0.314108).abs() < 1e-6);
        // F₀ = C·(πR²/A_Ngon − 1) = 6.6·10⁻⁴·C for N 100 (spec §3).
        let f0 = pressure_force(&p, p.polygon_area()) / p.pressure;
        assert!((f0 - 6.6e-4).abs() < 0.05e-4, "{f0}");
        let c = CellPreset::ScsCode.params();
        let f0 = pressure_force(&c, c.polygon_area()) / c.pressure;
        assert!((f0 - 7.3e-3).abs() < 0.05e-3, "{f0}");
        assert!(p.validate().is_ok() && c.validate().is_ok());
    }

    #[test]
    fn indexing_area_and_normals_of_the_rest_ring() {
        let p = CellParams { bodies: 12, ..CellPreset::ScsPaper.params() };
        let pos = p.initial_positions(Vec2::new(1.0, 2.0), 0.0);
        // Body 0 on top, N/4 rightmost, N/2 lowest, 3N/4 leftmost.
        assert!((pos[0] - Vec2::new(1.0, 7.0)).length() < 1e-12);
        assert!((pos[3] - Vec2::new(6.0, 2.0)).length() < 1e-12);
        assert!((pos[6] - Vec2::new(1.0, -3.0)).length() < 1e-12);
        assert!((pos[9] - Vec2::new(-4.0, 2.0)).length() < 1e-12);
        assert!((membrane_area(&pos) - p.polygon_area()).abs() < 1e-9);
        assert!((membrane_perimeter(&pos) - p.perimeter()).abs() < 1e-9);
        for (i, q) in pos.iter().enumerate() {
            let radial = (*q - Vec2::new(1.0, 2.0)).normalized();
            assert!((geometric_normal(&pos, i) - radial).length() < 1e-12, "body {i}");
        }
    }

    #[test]
    fn odd_resolution_area_is_the_full_shoelace_sum() {
        // SCS's loop is right only for even N; a regular 9-gon checks the full sum.
        let p = CellParams { bodies: 9, ..CellPreset::ScsPaper.params() };
        let pos = p.initial_positions(Vec2::ZERO, 0.3);
        assert!((membrane_area(&pos) - p.polygon_area()).abs() < 1e-9);
    }

    #[test]
    fn pressure_forces_have_no_net_force_for_any_shape_and_velocities() {
        let p = CellParams { bodies: 16, drag: 0.0, ..CellPreset::ScsPaper.params() };
        let mut pos = p.initial_positions(Vec2::ZERO, 0.0);
        // An irregular, squashed shape with arbitrary velocities.
        for (i, q) in pos.iter_mut().enumerate() {
            q.y *= 0.6 + 0.01 * i as f64;
        }
        let vel: Vec<Vec2> = (0..16).map(|i| Vec2::new((i as f64).sin(), (i as f64 * 0.7).cos())).collect();
        let up = vec![Vec2::new(0.0, 1.0); 16];
        let mut forces = Vec::new();
        let f = pressure_forces(&p, &pos, &vel, &up, 0.02, &mut forces);
        assert!(f.force > 0.0, "a squashed cell is over-pressured");
        assert_eq!(forces.len(), 16);
        let net = forces.iter().fold(Vec2::ZERO, |s, v| s + *v);
        // Each force is F·n_i less one common correction (the velocities add their own terms, so
        // a second call at rest checks the walked normals against `geometric_normal`).
        let rest = vec![Vec2::ZERO; 16];
        let mut at_rest = Vec::new();
        pressure_forces(&p, &pos, &rest, &up, 0.02, &mut at_rest);
        for i in 1..16 {
            let expected = (geometric_normal(&pos, i) - geometric_normal(&pos, 0)) * f.force;
            assert!((at_rest[i] - at_rest[0] - expected).length() < 1e-12, "body {i}");
        }
        assert!(net.length() < 1e-9 * f.force.abs().max(1.0), "{net:?}");
    }

    #[test]
    fn effective_damping_is_the_exact_decay_and_c_when_small() {
        let m = 0.0775;
        let c = effective_damping(50.0, m, 0.02);
        // Removes at most the whole relative velocity in one step.
        assert!(c * 0.02 / m < 1.0);
        assert!((effective_damping(1e-3, m, 0.02) - 1e-3).abs() < 1e-6);
        assert_eq!(effective_damping(0.0, m, 0.02), 0.0);
    }
}
