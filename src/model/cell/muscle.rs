//! Muscles without an engine (spec `cells.md` §5, §8): the spring coefficients of a (frequency, damping
//! ratio) spring, the commanded rest length and the linear command ramp.

use std::f64::consts::PI;

use serde::{Deserialize, Serialize};

/// What joins the two bodies (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MuscleKind {
    /// A spring-damper whose rest length is commanded (code `LinearActuatorInternalConnection`).
    Spring,
    /// The same spring with a rest length that never changes (code `FixedInternalConnection`).
    Fixed,
    /// A maximum-distance rope whose maximum is commanded (code `RopeInternalConnection`).
    Rope,
}

/// Box2D's (f, ζ) spring as force-based coefficients (spec §8): k = m_red·(2πf)², c = 2·m_red·ζ·(2πf),
/// m_red = m_a·m_b/(m_a + m_b). Returns (k in N/m, c in N·s/m).
pub(crate) fn spring_coefficients(hz: f64, damping_ratio: f64, mass_a: f64, mass_b: f64) -> (f64, f64) {
    let m = mass_a * mass_b / (mass_a + mass_b);
    let w = 2.0 * PI * hz;
    (m * w * w, 2.0 * m * damping_ratio * w)
}

/// The rest length (or rope maximum) for command ℓ ∈ [0, 1]: L₀·(m + (1 − m)·ℓ), m = `min_length`.
pub(crate) fn commanded_length(l0: f64, min_length: f64, command: f64) -> f64 {
    let l = command.clamp(0.0, 1.0);
    l0 * (min_length + (1.0 - min_length) * l)
}

/// A linear change of the command from `from` at `t0` to `to` at `t0 + duration` (ours; duration 0
/// jumps).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ramp {
    pub from: f64,
    pub to: f64,
    pub t0: f64,
    pub duration: f64,
}

impl Ramp {
    pub fn hold(value: f64) -> Ramp {
        Ramp { from: value, to: value, t0: 0.0, duration: 0.0 }
    }

    pub fn value(&self, t: f64) -> f64 {
        if self.duration <= 0.0 || t >= self.t0 + self.duration {
            self.to
        } else if t <= self.t0 {
            self.from
        } else {
            self.from + (self.to - self.from) * (t - self.t0) / self.duration
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spring_coefficients_give_the_frequency_and_damping_ratio_of_the_two_body_oscillator() {
        // Two masses on a spring oscillate at ω = √(k/m_red); ζ = c/(2·√(k·m_red)).
        let (ma, mb) = (0.0775, 1.0775);
        let (k, c) = spring_coefficients(50.0, 1.0, ma, mb);
        let m = ma * mb / (ma + mb);
        assert!(((k / m).sqrt() / (2.0 * PI) - 50.0).abs() < 1e-9);
        assert!((c / (2.0 * (k * m).sqrt()) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn commanded_lengths_and_ramps() {
        assert_eq!(commanded_length(10.0, 0.2, 1.0), 10.0);
        assert!((commanded_length(10.0, 0.2, 0.0) - 2.0).abs() < 1e-12);
        assert!((commanded_length(10.0, 0.2, 0.5) - 6.0).abs() < 1e-12);
        assert!((commanded_length(10.0, 0.2, 7.0) - 10.0).abs() < 1e-12);
        let r = Ramp { from: 1.0, to: 0.4, t0: 2.0, duration: 1.0 };
        assert_eq!(r.value(1.0), 1.0);
        assert!((r.value(2.5) - 0.7).abs() < 1e-12);
        assert_eq!(r.value(3.0), 0.4);
        assert_eq!(Ramp { duration: 0.0, ..r }.value(2.0), 0.4);
        assert_eq!(Ramp::hold(0.3).value(100.0), 0.3);
    }
}
