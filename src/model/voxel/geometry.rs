//! Geometry of one voxel at rest: mass placement, spring anchors and lengths (spec §2–§5).
//!
//! Everything here is in voxel-centred coordinates of an unrotated voxel, so the physics layer can
//! place it anywhere and store anchors in its bodies' frames.

use crate::geom::Vec2;
use crate::model::voxel::material::Material;
use crate::model::voxel::scaffolding::SpringGroup;

/// Corner masses in the spec's order (counter-clockwise from the bottom left).
pub const SW: usize = 0;
pub const SE: usize = 1;
pub const NE: usize = 2;
pub const NW: usize = 3;

/// Signs (σx, σy) of each mass's corner direction, in mass order.
pub(crate) const CORNER_SIGNS: [(f64, f64); 4] = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];

/// The four sides as (A, B) pairs of adjacent masses: bottom, right, top, left.
pub(crate) const SIDES: [(usize, usize); 4] = [(SW, SE), (SE, NE), (NE, NW), (NW, SW)];

/// Centre of mass `i` relative to the voxel centre: σ·(l − m)/2.
pub(crate) fn mass_offset(material: &Material, i: usize) -> Vec2 {
    let h = (material.side - material.mass_side()) / 2.0;
    let (sx, sy) = CORNER_SIGNS[i];
    Vec2::new(sx * h, sy * h)
}

/// One spring of a voxel: two masses, the anchors on them (relative to each mass centre), and its
/// absolute stiffness and damping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringDef {
    pub group: SpringGroup,
    pub mass_a: usize,
    pub mass_b: usize,
    pub anchor_a: Vec2,
    pub anchor_b: Vec2,
    /// k = m_eff·ω², N/m.
    pub stiffness: f64,
    /// c = m_eff·2ζω, N·s/m.
    pub damping: f64,
}

/// Effective mass of a spring between two corner masses **as free bodies** (spec §3):
/// 1 / Σ (1/m_i + (r_i × n)²/I_i), with I_i = m_i·m²/6 (a square of side m) and r_i the anchor
/// relative to the centre of that corner mass. It is a property of the material: it does not depend
/// on which rigid body the corner mass is welded into.
pub(crate) fn effective_mass(
    material: &Material,
    anchor_a: Vec2,
    anchor_b: Vec2,
    centre_a: Vec2,
    centre_b: Vec2,
) -> f64 {
    let n = ((centre_b + anchor_b) - (centre_a + anchor_a)).normalized();
    CornerInertia::of(material).effective_mass_along(anchor_a, anchor_b, n)
}

/// A material's corner mass as a free body (1/m and I), worked out once for the springs' per-pose laws,
/// which need it for every spring before every step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CornerInertia {
    inv_mass: f64,
    inertia: f64,
}

impl CornerInertia {
    pub(crate) fn of(material: &Material) -> CornerInertia {
        let mass = material.corner_mass();
        CornerInertia { inv_mass: 1.0 / mass, inertia: mass * material.mass_side().powi(2) / 6.0 }
    }

    /// The same effective mass for any pose: `r_a`, `r_b` are the anchors relative to their corner
    /// masses' centres and `n` the unit direction of the spring, all in one frame (`legacy-1.0`
    /// recomputes it every step from the current pose, as dyn4j's distance joints did).
    pub(crate) fn effective_mass_along(&self, r_a: Vec2, r_b: Vec2, n: Vec2) -> f64 {
        let term = |r: Vec2| self.inv_mass + (r.x * n.y - r.y * n.x).powi(2) / self.inertia;
        1.0 / (term(r_a) + term(r_b))
    }
}

/// Rotates by `quarter_turns` × 90° counter-clockwise.
fn rotate_quarter(p: Vec2, quarter_turns: usize) -> Vec2 {
    (0..quarter_turns % 4).fold(p, |q, _| Vec2::new(-q.y, q.x))
}

/// The springs of a voxel with the material's scaffolding, in a fixed order: for each group present
/// (E, I, X, C), its springs side by side (bottom, right, top, left).
pub fn springs(material: &Material) -> Vec<SpringDef> {
    let a = material.side / 2.0;
    let m = material.mass_side();
    // Bottom side (SW → SE) in voxel-centred coordinates; the other sides are quarter turns of it.
    let outer_a = Vec2::new(-a + m, -a);
    let inner_a = Vec2::new(-a + m, -a + m);
    let outer_b = Vec2::new(a - m, -a);
    let inner_b = Vec2::new(a - m, -a + m);
    let (omega_sq, two_zeta_omega) = material.spring_rates();
    let spring = |group: SpringGroup, mass_a: usize, mass_b: usize, anchor_a: Vec2, anchor_b: Vec2| {
        let (ca, cb) = (mass_offset(material, mass_a), mass_offset(material, mass_b));
        let m_eff = effective_mass(material, anchor_a, anchor_b, ca, cb);
        SpringDef {
            group,
            mass_a,
            mass_b,
            anchor_a,
            anchor_b,
            stiffness: m_eff * omega_sq,
            damping: m_eff * two_zeta_omega,
        }
    };
    let mut out = Vec::with_capacity(material.scaffolding.springs_per_voxel());
    let mut side_springs = |group: SpringGroup, pairs: &[(Vec2, Vec2)]| {
        for (k, &(ma, mb)) in SIDES.iter().enumerate() {
            for &(pa, pb) in pairs {
                let anchor_a = rotate_quarter(pa, k) - mass_offset(material, ma);
                let anchor_b = rotate_quarter(pb, k) - mass_offset(material, mb);
                out.push(spring(group, ma, mb, anchor_a, anchor_b));
            }
        }
    };
    if material.scaffolding.contains(SpringGroup::SideExternal) {
        side_springs(SpringGroup::SideExternal, &[(outer_a, outer_b)]);
    }
    if material.scaffolding.contains(SpringGroup::SideInternal) {
        side_springs(SpringGroup::SideInternal, &[(inner_a, inner_b)]);
    }
    if material.scaffolding.contains(SpringGroup::SideCross) {
        side_springs(SpringGroup::SideCross, &[(outer_a, inner_b), (inner_a, outer_b)]);
    }
    if material.scaffolding.contains(SpringGroup::CentralCross) {
        for (ma, mb) in [(SW, NE), (SE, NW)] {
            out.push(spring(SpringGroup::CentralCross, ma, mb, Vec2::ZERO, Vec2::ZERO));
        }
    }
    out
}

/// Length of a group's springs in a square voxel of outer side `s` with unrotated masses (spec §3).
pub(crate) fn group_length(group: SpringGroup, s: f64, m: f64) -> f64 {
    match group {
        SpringGroup::SideExternal | SpringGroup::SideInternal => s - 2.0 * m,
        SpringGroup::SideCross => (m * m + (s - 2.0 * m).powi(2)).sqrt(),
        SpringGroup::CentralCross => (s - m) * std::f64::consts::SQRT_2,
    }
}

/// Outer side of a voxel whose area ratio is 1 − f·ρ_A: s(f) = √(l²·(1 − f·ρ_A)).
pub(crate) fn target_side(material: &Material, f: f64) -> f64 {
    (material.side * material.side * (1.0 - f * material.max_area_change)).sqrt()
}

/// Target length of a group's springs for control value `f` (already clipped to [−1, 1]).
///
/// vsr2d uses g(s(f)); `legacy-1.0` interpolates linearly between rest and min (f > 0) or max (f < 0).
pub(crate) fn target_length(material: &Material, group: SpringGroup, f: f64) -> f64 {
    let m = material.mass_side();
    if material.preset.is_legacy() {
        let rest = group_length(group, material.side, m);
        let end = group_length(group, target_side(material, f.signum()), m);
        rest + (end - rest) * f.abs()
    } else {
        group_length(group, target_side(material, f), m)
    }
}

/// Rope bounds on the distance between adjacent mass centres: [m, s_max − m] (spec §4).
pub(crate) fn rope_bounds(material: &Material) -> (f64, f64) {
    let m = material.mass_side();
    (m, target_side(material, -1.0) - m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::voxel::scaffolding::Scaffolding;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn rest_anchor_distances_equal_rest_lengths() {
        let mat = Material::default();
        let defs = springs(&mat);
        assert_eq!(defs.len(), 18);
        for d in &defs {
            let pa = mass_offset(&mat, d.mass_a) + d.anchor_a;
            let pb = mass_offset(&mat, d.mass_b) + d.anchor_b;
            let rest = group_length(d.group, mat.side, mat.mass_side());
            assert!(close((pa - pb).length(), rest), "{:?}: {} vs {rest}", d.group, (pa - pb).length());
        }
        let expected =
            [(SpringGroup::SideExternal, 1.2), (SpringGroup::SideCross, 1.5), (SpringGroup::CentralCross, 2.969848)];
        for (g, len) in expected {
            assert!((group_length(g, 3.0, 0.9) - len).abs() < 1e-6);
        }
    }

    #[test]
    fn side_anchors_sit_on_mass_corners() {
        let mat = Material::default();
        let h = mat.mass_side() / 2.0;
        for d in springs(&mat).iter().filter(|d| d.group != SpringGroup::CentralCross) {
            for p in [d.anchor_a, d.anchor_b] {
                assert!(close(p.x.abs(), h) && close(p.y.abs(), h), "anchor {p:?} is not a corner");
            }
        }
    }

    #[test]
    fn actuation_table_of_the_spec() {
        let mat = Material::default();
        let rows = [
            (1.0, 2.683282, 0.883282, 1.261026, 2.521941),
            (0.5, 2.846050, 1.046050, 1.379935, 2.752130),
            (0.0, 3.0, 1.2, 1.5, 2.969848),
            (-0.5, 3.146427, 1.346427, 1.619526, 3.176927),
            (-1.0, 3.286335, 1.486335, 1.737582, 3.374788),
        ];
        for (f, s, e, x, c) in rows {
            assert!(close(target_side(&mat, f), s));
            assert!(close(target_length(&mat, SpringGroup::SideExternal, f), e));
            assert!(close(target_length(&mat, SpringGroup::SideCross, f), x));
            assert!(close(target_length(&mat, SpringGroup::CentralCross, f), c));
        }
        let (lo, hi) = rope_bounds(&mat);
        assert!(close(lo, 0.9) && close(hi, 2.386335));
    }

    /// The effective masses worked out by hand for the default voxel (corner mass 0.25 kg, m = 0.9 m,
    /// I = 0.25·0.81/6 = 0.03375 kg·m²): C joins centres, so 1/m_eff = 2/0.25; E and I pull at a corner
    /// m/2 off the line, (r × n)² = 0.2025, so 1/m_eff = 2·(4 + 0.2025/0.03375) = 20; X pulls along
    /// (0.8, 0.6) from corner (0.45, −0.45), r × n = 0.63, so 1/m_eff = 2·(4 + 0.3969/0.03375).
    #[test]
    fn effective_masses_by_hand() {
        let mat = Material::default();
        let omega_sq = (2.0 * std::f64::consts::PI * 8.0f64).powi(2);
        let expected = [
            (SpringGroup::CentralCross, 0.125),
            (SpringGroup::SideExternal, 0.05),
            (SpringGroup::SideInternal, 0.05),
            (SpringGroup::SideCross, 1.0 / (2.0 * (4.0 + 0.3969 / 0.03375))),
        ];
        for d in springs(&mat) {
            let m_eff = expected.iter().find(|(g, _)| *g == d.group).unwrap().1;
            assert!((d.stiffness - m_eff * omega_sq).abs() < 1e-9 * d.stiffness, "{:?}: k = {}", d.group, d.stiffness);
            assert!((d.damping - m_eff * 2.0 * 0.3 * 50.26548245743669).abs() < 1e-9, "{:?}", d.group);
        }
        // The spec's example: a central-cross spring between two 0.25 kg masses, k ≈ 315.8 N/m, c ≈ 3.77 N·s/m.
        let c = springs(&mat).into_iter().find(|d| d.group == SpringGroup::CentralCross).unwrap();
        assert!((c.stiffness - 315.83).abs() < 0.01 && (c.damping - 3.770).abs() < 0.001);
    }

    #[test]
    fn spring_counts_per_scaffolding() {
        for (set, n) in [(Scaffolding::EC, 6), (Scaffolding::EIC, 10), (Scaffolding::EIX, 16)] {
            let mat = Material { scaffolding: set, ..Material::default() };
            assert_eq!(springs(&mat).len(), n);
        }
    }
}
