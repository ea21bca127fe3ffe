//! Connectors (magnets) without an engine (spec `cells.md` §4): the pair rule, the force law with its
//! near cap, the amplitude of a pair of types and the states. The engine only reads positions and
//! applies the forces computed here.

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

use crate::geom::Vec2;

/// Half-size of a connector's square collider, in body radii r_b (code).
pub(crate) const FIXTURE_HALF_SIZE: f64 = 1.1;

/// The paper's pole form in air: μ₀ = 4π·10⁻⁷ H/m.
pub(crate) const MU_0: f64 = 4.0e-7 * PI;

/// A connector's derived state (paper/code: ACTIVE, PASSIVE, INACTIVE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectorState {
    /// Switched off.
    Passive,
    /// On and in at least one pair.
    Active,
    /// On and in no pair.
    Inactive,
}

impl ConnectorState {
    pub fn of(on: bool, paired: bool) -> ConnectorState {
        match (on, paired) {
            (false, _) => ConnectorState::Passive,
            (true, true) => ConnectorState::Active,
            (true, false) => ConnectorState::Inactive,
        }
    }
}

/// A connector type, resolved (spec §7: r_int 2.0 m, A 500 N·m², L 9R/N, hidden mass 0 or 1 kg).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConnectorParams {
    /// A, N·m² (> 0).
    pub strength: f64,
    /// r_int, m.
    pub radius: f64,
    /// L: `None` for the code's rule 9R/N of the carrying cell, else a length in m.
    pub near_cap: Option<f64>,
    /// Extra mass on the carrying body, kg.
    pub hidden_mass: f64,
}

/// L = 9R/N (code: its "body length"; 0.45 m for N 100, R 5).
pub fn near_cap_rule(radius: f64, bodies: usize) -> f64 {
    9.0 * radius / bodies as f64
}

/// A_ab of two types without an explicit interaction: √(A_a·A_b) (ours).
pub(crate) fn default_strength(a: f64, b: f64) -> f64 {
    (a * b).sqrt()
}

/// A_ab of the pole form: the paper's F = μ·q₁q₂/(4πr²) is a repulsion for like poles (q₁q₂ > 0), and
/// A_ab > 0 attracts here, so A_ab = −μ·q₁q₂/(4π) (ours; q in A·m, μ in H/m).
pub(crate) fn pole_strength(q1: f64, q2: f64, mu: f64) -> f64 {
    -mu * q1 * q2 / (4.0 * PI)
}

/// The force on connector b of a pair, N: F = A_ab·d / max(|d|, L)³ with d = p_a − p_b; a receives −F.
/// A_ab > 0 pulls b towards a (attraction). Magnitude A_ab/|d|² beyond L, A_ab·|d|/L³ inside.
pub(crate) fn magnet_force(strength: f64, pa: Vec2, pb: Vec2, near_cap: f64) -> Vec2 {
    let d = pa - pb;
    let r = d.length().max(near_cap);
    if !(r > 0.0 && r.is_finite()) {
        return Vec2::ZERO;
    }
    d * (strength / (r * r * r))
}

/// One connector as the pair rule sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ConnectorAt {
    /// The carrying cell (pairs join different cells only).
    pub cell: usize,
    pub position: Vec2,
    /// r_int, m.
    pub radius: f64,
    pub on: bool,
}

/// Every pair (i, j), i < j, of connectors on different cells, both on, closer than r_i + r_j, sorted
/// (the slice is in (cell, connector) order, so index order is the spec's order). A sweep along x keeps
/// it near O(n log n) for separated cells.
pub(crate) fn find_pairs(connectors: &[ConnectorAt]) -> Vec<(usize, usize)> {
    let mut on: Vec<usize> = (0..connectors.len()).filter(|&i| connectors[i].on).collect();
    if on.len() < 2 {
        return Vec::new();
    }
    let max_r = on.iter().map(|&i| connectors[i].radius).fold(0.0f64, f64::max);
    // total_cmp and the index as tie-breaker: a total, deterministic order.
    on.sort_by(|&a, &b| connectors[a].position.x.total_cmp(&connectors[b].position.x).then(a.cmp(&b)));
    let mut pairs = Vec::new();
    for (k, &i) in on.iter().enumerate() {
        let a = &connectors[i];
        for &j in &on[k + 1..] {
            let b = &connectors[j];
            if b.position.x - a.position.x >= a.radius + max_r {
                break;
            }
            if a.cell != b.cell && (a.position - b.position).length() < a.radius + b.radius {
                pairs.push((i.min(j), i.max(j)));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cell: usize, x: f64, y: f64, on: bool) -> ConnectorAt {
        ConnectorAt { cell, position: Vec2::new(x, y), radius: 2.0, on }
    }

    #[test]
    fn a_pair_is_active_iff_closer_than_the_radii_sum_and_both_on_and_on_two_cells() {
        // r_a + r_b = 4 m.
        for (d, on_a, on_b, want) in [
            (3.9, true, true, true),
            (4.0, true, true, false),
            (4.1, true, true, false),
            (1.0, false, true, false),
            (1.0, true, false, false),
            (0.0, true, true, true),
        ] {
            let c = [at(0, 0.0, 0.0, on_a), at(1, d * 0.6, d * 0.8, on_b)];
            assert_eq!(find_pairs(&c).len() == 1, want, "d {d}, on {on_a} {on_b}");
        }
        // Same cell: never.
        assert!(find_pairs(&[at(0, 0.0, 0.0, true), at(0, 1.0, 0.0, true)]).is_empty());
        // Unequal radii: 1 + 3 = 4.
        let mut c = [at(0, 0.0, 0.0, true), at(1, 3.99, 0.0, true)];
        c[0].radius = 1.0;
        c[1].radius = 3.0;
        assert_eq!(find_pairs(&c), vec![(0, 1)]);
    }

    #[test]
    fn pairs_are_sorted_by_index_whatever_the_positions() {
        // Positions in reverse x order; every cross-cell pair within range.
        let c = [at(0, 3.0, 0.0, true), at(0, 2.0, 0.0, true), at(1, 1.0, 0.0, true), at(2, 0.0, 0.0, true)];
        assert_eq!(find_pairs(&c), vec![(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        // Brute force agrees on a scattered set.
        let c: Vec<ConnectorAt> = (0..40)
            .map(|i| {
                let f = i as f64;
                at(i % 5, (f * 1.7).sin() * 6.0, (f * 0.9).cos() * 6.0, i % 7 != 0)
            })
            .collect();
        let mut brute = Vec::new();
        for i in 0..c.len() {
            for j in i + 1..c.len() {
                if c[i].on && c[j].on && c[i].cell != c[j].cell && (c[i].position - c[j].position).length() < 4.0 {
                    brute.push((i, j));
                }
            }
        }
        assert!(!brute.is_empty());
        assert_eq!(find_pairs(&c), brute);
    }

    #[test]
    fn the_force_law_is_inverse_square_beyond_the_cap_and_linear_inside_equal_and_opposite() {
        let (a, l) = (500.0, 0.45);
        let pa = Vec2::new(1.0, 2.0);
        for r in [0.05, 0.2, 0.45, 0.5, 1.0, 3.0] {
            let pb = pa + Vec2::new(0.6 * r, -0.8 * r);
            let f = magnet_force(a, pa, pb, l);
            let want = if r >= l { a / (r * r) } else { a * r / (l * l * l) };
            assert!((f.length() - want).abs() < 1e-9 * want, "r {r}: {} vs {want}", f.length());
            // On b, towards a (attraction).
            assert!(f.dot(pa - pb) > 0.0);
            // What a receives is the opposite: the law is antisymmetric in (a, b).
            let back = magnet_force(a, pb, pa, l);
            assert!((back + f).length() < 1e-12);
        }
        // Continuous at the cap, zero at zero distance, repulsive for A < 0.
        let just_in = magnet_force(a, Vec2::ZERO, Vec2::new(l - 1e-9, 0.0), l).length();
        assert!((just_in - a / (l * l)).abs() < 1e-5);
        assert_eq!(magnet_force(a, pa, pa, l), Vec2::ZERO);
        assert!(magnet_force(-a, pa, pa + Vec2::new(1.0, 0.0), l).dot(Vec2::new(-1.0, 0.0)) < 0.0);
    }

    #[test]
    fn amplitudes_and_states() {
        assert_eq!(default_strength(500.0, 500.0), 500.0);
        assert!((default_strength(100.0, 400.0) - 200.0).abs() < 1e-12);
        // Like poles repel; in air A_ab = −10⁻⁷·q₁q₂.
        assert!((pole_strength(2.0, 3.0, MU_0) + 6e-7).abs() < 1e-18);
        assert!(pole_strength(2.0, -3.0, MU_0) > 0.0);
        assert!((near_cap_rule(5.0, 100) - 0.45).abs() < 1e-12);
        assert!((near_cap_rule(3.0, 30) - 0.9).abs() < 1e-12);
        assert_eq!(ConnectorState::of(false, true), ConnectorState::Passive);
        assert_eq!(ConnectorState::of(true, true), ConnectorState::Active);
        assert_eq!(ConnectorState::of(true, false), ConnectorState::Inactive);
    }
}
