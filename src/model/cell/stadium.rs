//! The analytical force–deflection reference of a cell pressed between two parallel plates (spec
//! `cells.md` §14, the stadium model, ours). Engine-free: it is the independent reference the simulated
//! `force_deflection` task is checked against.
//!
//! Assumptions: inextensible membrane (centre perimeter P = N·s), smooth limit, quasi-static, no
//! damping, frictionless plates, uniform 2-D pressure p = F/s normal to the membrane. Between the plates
//! the free membrane has constant tension, hence constant curvature: a stadium of two flats of length
//! ℓ = πδ/2 joined by two semicircles of radius r = P/(2π) − δ/2, whose area is
//! A(δ) = P²/(4π) − πδ²/4. Cutting the upper half at mid-height gives F_bar = p·ℓ.

use std::f64::consts::PI;

use super::CellParams;

/// The stadium model of one cell type: N, R (through s and P), C and A₀.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stadium {
    /// C, N per body.
    pub pressure: f64,
    /// A₀, m².
    pub rest_area: f64,
    /// s, the centre distance of neighbouring bodies, m.
    pub spacing: f64,
    /// P = N·s, m.
    pub perimeter: f64,
}

impl Stadium {
    /// The model for a cell type (its N, R, C and A₀; damping, normals and the ring do not enter).
    pub fn of(params: &CellParams) -> Stadium {
        Stadium {
            pressure: params.pressure,
            rest_area: params.rest_area_value(),
            spacing: params.spacing(),
            perimeter: params.perimeter(),
        }
    }

    /// The centre height at first contact, P/π ≈ 2R: the model holds for 0 ≤ δ < P/π.
    pub fn max_deflection(&self) -> f64 {
        self.perimeter / PI
    }

    /// A(δ) = P²/(4π) − πδ²/4, m².
    pub fn area(&self, delta: f64) -> f64 {
        self.perimeter * self.perimeter / (4.0 * PI) - PI * delta * delta / 4.0
    }

    /// Length of each flat, ℓ = πδ/2, m.
    pub(crate) fn flat_length(&self, delta: f64) -> f64 {
        PI * delta / 2.0
    }

    /// F = C·(A₀/A(δ) − 1), the pressure force per body, N.
    pub(crate) fn body_force(&self, delta: f64) -> f64 {
        self.pressure * (self.rest_area / self.area(delta) - 1.0)
    }

    /// F_bar(δ) = C·(A₀/A(δ) − 1)·πδ/(2s), N; `None` outside 0 ≤ δ < P/π.
    pub fn bar_force(&self, delta: f64) -> Option<f64> {
        self.in_range(delta).then(|| self.body_force(delta) * self.flat_length(delta) / self.spacing)
    }

    /// Tangent stiffness k(δ) = dF_bar/dδ = (π/(2s))·[F(δ) + C·A₀·πδ²/(2·A(δ)²)], N/m.
    pub fn tangent_stiffness(&self, delta: f64) -> Option<f64> {
        self.in_range(delta).then(|| {
            let a = self.area(delta);
            PI / (2.0 * self.spacing)
                * (self.body_force(delta) + self.pressure * self.rest_area * PI * delta * delta / (2.0 * a * a))
        })
    }

    /// The deflection at which the bar carries `force` N (bisection; F_bar rises monotonically once the
    /// small initial pressurisation is passed). `None` for a negative force or one the model does not
    /// reach before δ = 0.999·P/π.
    pub(crate) fn deflection_at(&self, force: f64) -> Option<f64> {
        if !(force.is_finite() && force >= 0.0) {
            return None;
        }
        let top = 0.999 * self.max_deflection();
        if self.bar_force(top)? < force {
            return None;
        }
        let (mut lo, mut hi) = (0.0, top);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.bar_force(mid)? < force {
                lo = mid
            } else {
                hi = mid
            }
        }
        Some(0.5 * (lo + hi))
    }

    fn in_range(&self, delta: f64) -> bool {
        delta.is_finite() && delta >= 0.0 && delta < self.max_deflection()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cell::CellPreset;

    fn model(pressure: f64) -> Stadium {
        Stadium::of(&CellParams { pressure, ..CellPreset::ScsPaper.params() })
    }

    /// Relative difference.
    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn reproduces_the_spec_table() {
        // cells.md §14, N 100, R 5 (D = 10 m): (δ/D, F C 50, F C 200, F C 450, k C 450, F/δ C 450).
        let table = [
            (0.05, 0.355, 1.42, 3.19, 17.7, 6.4),
            (0.10, 2.61, 10.4, 23.5, 69.4, 23.5),
            (0.20, 21.0, 84.1, 189.0, 290.0, 94.6),
            (0.30, 74.5, 298.0, 670.0, 713.0, 223.0),
            (0.40, 191.0, 764.0, 1719.0, 1451.0, 430.0),
            (0.50, 417.0, 1670.0, 3757.0, 2754.0, 751.0),
        ];
        let (m50, m200, m450) = (model(50.0), model(200.0), model(450.0));
        for (x, f50, f200, f450, k450, secant) in table {
            let d = x * 10.0;
            // The table is printed to three significant figures.
            assert!(rel(m50.bar_force(d).unwrap(), f50) < 6e-3, "C 50 δ/D {x}: {:?}", m50.bar_force(d));
            assert!(rel(m200.bar_force(d).unwrap(), f200) < 6e-3, "C 200 δ/D {x}");
            assert!(rel(m450.bar_force(d).unwrap(), f450) < 6e-3, "C 450 δ/D {x}");
            assert!(rel(m450.tangent_stiffness(d).unwrap(), k450) < 6e-3, "k C 450 δ/D {x}");
            assert!(rel(m450.bar_force(d).unwrap() / d, secant) < 8e-3, "secant C 450 δ/D {x}");
        }
        // §14: at C 450 the tangent stiffness reaches 500 N/m at δ/D ≈ 0.257.
        assert!(m450.tangent_stiffness(2.52).unwrap() < 500.0 && m450.tangent_stiffness(2.62).unwrap() > 500.0);
    }

    #[test]
    fn tangent_is_the_derivative_of_the_force() {
        // A second way: central differences of F_bar.
        let m = model(450.0);
        for d in [0.3, 1.0, 2.0, 3.0, 4.0, 5.0, 8.0] {
            let h = 1e-5;
            let numeric = (m.bar_force(d + h).unwrap() - m.bar_force(d - h).unwrap()) / (2.0 * h);
            assert!(rel(m.tangent_stiffness(d).unwrap(), numeric) < 1e-6, "δ {d}");
        }
    }

    #[test]
    fn small_deflections_follow_the_cubic_asymptote() {
        // F_bar ≈ C·N·δ³/(16R³) + F₀'·πδ/(2s), F₀' = C·(A₀/(P²/4π) − 1) (spec §14).
        let p = CellParams { pressure: 450.0, ..CellPreset::ScsPaper.params() };
        let m = Stadium::of(&p);
        let (n, r) = (p.bodies as f64, p.radius);
        let f0 = p.pressure * (p.rest_area_value() / (m.perimeter * m.perimeter / (4.0 * PI)) - 1.0);
        assert!(rel(f0 / p.pressure, 3.3e-4) < 0.02, "F0'/C {}", f0 / p.pressure);
        for d in [0.05f64, 0.1, 0.2] {
            let asymptote = p.pressure * n * d.powi(3) / (16.0 * r.powi(3)) + f0 * PI * d / (2.0 * m.spacing);
            // The next term is O(δ⁵) relative to δ³: below 1 % at δ/D ≤ 0.02.
            assert!(
                rel(m.bar_force(d).unwrap(), asymptote) < 0.01,
                "δ {d}: {} vs {asymptote}",
                m.bar_force(d).unwrap()
            );
        }
    }

    #[test]
    fn force_is_proportional_to_c_and_progressive() {
        let (soft, stiff) = (model(4.5), model(450.0));
        for d in [1.0, 2.0, 3.0, 4.0] {
            assert!(rel(stiff.bar_force(d).unwrap() / soft.bar_force(d).unwrap(), 100.0) < 1e-9);
        }
        // Progressive spring: the model gives k(0.3D)/k(0.1D) = 10.3 (spec §16).
        let ratio = stiff.tangent_stiffness(3.0).unwrap() / stiff.tangent_stiffness(1.0).unwrap();
        assert!(rel(ratio, 10.3) < 0.01, "{ratio}");
    }

    #[test]
    fn deflection_at_inverts_the_force_and_range_is_checked() {
        let m = model(200.0);
        for d in [1.0, 2.5, 4.0] {
            let f = m.bar_force(d).unwrap();
            assert!((m.deflection_at(f).unwrap() - d).abs() < 1e-6);
        }
        assert_eq!(m.bar_force(-0.1), None);
        assert_eq!(m.bar_force(m.max_deflection()), None);
        assert_eq!(m.tangent_stiffness(f64::NAN), None);
        assert_eq!(m.deflection_at(-1.0), None);
        assert_eq!(m.deflection_at(1e12), None);
    }
}
