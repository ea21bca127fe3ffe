//! Seeded random numbers: SplitMix64 (`model.md` §10), the one generator of the crate — uneven terrain,
//! evolution (its state is part of a run's checkpoint, so it is public), the lattice model's tests and
//! noise. Uses nothing; everything may use it.

use std::f64::consts::PI;

/// SplitMix64 (`model.md` §10) with its state exposed for checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64 {
    pub state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// u = (out >> 11)·2⁻⁵³ ∈ [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// U[a, b) = a + (b − a)·u.
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.uniform()
    }

    /// An index uniform in 0..n (n ≥ 1).
    pub fn index(&mut self, n: usize) -> usize {
        ((self.uniform() * n as f64) as usize).min(n - 1)
    }

    /// A standard normal by Box–Muller, √(−2 ln(1 − u₁))·cos(2π·u₂): one normal per two uniforms
    /// (1 − u₁ ∈ (0, 1], so the logarithm is finite).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform();
        let u2 = self.uniform();
        (-2.0 * (1.0 - u1).ln()).sqrt() * (2.0 * PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_spec_test_vector() {
        // model.md §10: seed 1 gives 0x910A2DEC89025CC1 then 0xBEEB8DA1658EEC67.
        let mut r = SplitMix64::new(1);
        assert_eq!(r.next_u64(), 0x910A_2DEC_8902_5CC1);
        assert_eq!(r.next_u64(), 0xBEEB_8DA1_658E_EC67);
        let mut r = SplitMix64::new(1);
        assert_eq!(r.uniform(), 0.5665615751722809);
        assert_eq!(r.uniform(), 0.7457817572627011);
    }

    #[test]
    fn a_million_normals_have_mean_0_and_unit_deviation() {
        // Spec §11 check 2 (scaled by σ = 0.15 it is mean 0 ± 0.001, sd 0.15 ± 0.001).
        let mut r = SplitMix64::new(7);
        let n = 1_000_000;
        let xs: Vec<f64> = (0..n).map(|_| 0.15 * r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(mean.abs() < 0.001, "mean {mean}");
        assert!((sd - 0.15).abs() < 0.001, "sd {sd}");
    }
}
