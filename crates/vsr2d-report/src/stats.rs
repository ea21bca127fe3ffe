//! Two-sample statistics of the study reports (spec `evolution.md` §9): the two-sided Mann–Whitney U
//! test, the Vargha–Delaney A₁₂ effect size and the rank-biserial correlation r = 2·A₁₂ − 1, and the
//! median and sample standard deviation of a sample.
//!
//! The p-value is exact (the null distribution of U counted over all orderings) when both samples have
//! at most [`EXACT_MAX`] values and there are no ties; otherwise it is the normal approximation with the
//! tie correction of the variance and a continuity correction of ½. The normal tail is `libm::erfc`.

use serde::Serialize;

/// Largest sample size for which the exact null distribution is used (without ties).
pub const EXACT_MAX: usize = 20;

/// How the p-value was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PMethod {
    /// The exact null distribution of U (no ties, both samples ≤ [`EXACT_MAX`]).
    Exact,
    /// The normal approximation with tie and continuity corrections.
    Normal,
}

/// The Mann–Whitney U test of sample `a` against sample `b`, and its effect sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MannWhitney {
    pub n_a: usize,
    pub n_b: usize,
    /// U of `a`: the number of pairs (x ∈ a, y ∈ b) with x > y, ties counting ½ (= R_a − n_a(n_a + 1)/2).
    pub u_a: f64,
    /// U of `b` = n_a·n_b − u_a.
    pub u_b: f64,
    /// min(u_a, u_b), the statistic tables list.
    pub u: f64,
    /// z of the normal approximation (signed like u_a − n_a·n_b/2, continuity-corrected toward 0);
    /// reported even when the p-value is exact. 0 when every value is tied.
    pub z: f64,
    /// Two-sided p-value.
    pub p: f64,
    pub method: PMethod,
    /// Vargha–Delaney A₁₂ = u_a / (n_a·n_b): the probability that a value of `a` exceeds one of `b`
    /// (ties ½). 0.5: no effect.
    pub a12: f64,
    /// Rank-biserial correlation r = 2·A₁₂ − 1 ∈ [−1, 1].
    pub r: f64,
}

/// Ranks of `values` (1-based), ties sharing their mean rank; also Σ(t³ − t) over tie groups.
fn midranks(values: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut ties = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Positions start..end (0-based) share the rank of their mean position, 1-based.
        let rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = rank;
        }
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    (ranks, ties)
}

/// The number of orderings of m values of one sample and n of the other giving each U = 0 … m·n
/// (U counting the pairs in which the first sample's value is larger). Sums to C(m + n, m).
pub fn u_distribution(m: usize, n: usize) -> Vec<f64> {
    // f[i][j][u]: orderings of i values of sample 1 and j of sample 2 with statistic u. The largest
    // value belongs to sample 1 (it beats all j values of sample 2) or to sample 2.
    let max = m * n;
    let mut prev: Vec<Vec<f64>> = vec![vec![0.0; max + 1]; n + 1];
    for row in prev.iter_mut() {
        row[0] = 1.0; // i = 0: one ordering, U = 0
    }
    for i in 1..=m {
        let mut cur: Vec<Vec<f64>> = vec![vec![0.0; max + 1]; n + 1];
        cur[0][0] = 1.0;
        for j in 1..=n {
            for u in 0..=i * j {
                let from_a = if u >= j { prev[j][u - j] } else { 0.0 };
                cur[j][u] = from_a + cur[j - 1][u];
            }
        }
        prev = cur;
    }
    prev.swap_remove(n)
}

/// The two-sided Mann–Whitney U test of `a` against `b`. Non-finite values are not allowed (the caller
/// filters them); `None` when a sample is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n_a, n_b) = (a.len(), b.len());
    if n_a == 0 || n_b == 0 {
        return None;
    }
    let all: Vec<f64> = a.iter().chain(b).copied().collect();
    let (ranks, ties) = midranks(&all);
    let r_a: f64 = ranks[..n_a].iter().sum();
    let u_a = r_a - (n_a * (n_a + 1)) as f64 / 2.0;
    let nn = (n_a * n_b) as f64;
    let u_b = nn - u_a;
    let n = (n_a + n_b) as f64;
    let mean = nn / 2.0;
    let var = nn / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    let dev = u_a - mean;
    let z = if var > 0.0 { dev.signum() * (dev.abs() - 0.5).max(0.0) / var.sqrt() } else { 0.0 };
    let (p, method) = if ties == 0.0 && n_a <= EXACT_MAX && n_b <= EXACT_MAX {
        let counts = u_distribution(n_a, n_b);
        let total: f64 = counts.iter().sum();
        // u_a is an integer without ties.
        let k = u_a.round() as usize;
        let below: f64 = counts[..=k].iter().sum();
        let above: f64 = counts[k..].iter().sum();
        ((2.0 * below.min(above) / total).min(1.0), PMethod::Exact)
    } else if var > 0.0 {
        ((libm::erfc(z.abs() / std::f64::consts::SQRT_2)).min(1.0), PMethod::Normal)
    } else {
        (1.0, PMethod::Normal)
    };
    let a12 = u_a / nn;
    Some(MannWhitney { n_a, n_b, u_a, u_b, u: u_a.min(u_b), z, p, method, a12, r: 2.0 * a12 - 1.0 })
}

/// The median of the finite values (`None` if there are none).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) })
}

/// The sample standard deviation (n − 1 in the denominator) of the finite values; 0 for one value,
/// `None` for none.
pub fn sample_sd(values: &[f64]) -> Option<f64> {
    let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    match v.len() {
        0 => None,
        1 => Some(0.0),
        n => {
            let mean = v.iter().sum::<f64>() / n as f64;
            Some((v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn the_exact_null_distribution_matches_the_tables() {
        // m = n = 3: 20 orderings, frequencies of U = 0 … 9 (e.g. Siegel & Castellan's table).
        assert_eq!(u_distribution(3, 3), vec![1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0]);
        // m = 2, n = 3: C(5, 2) = 10 orderings, U = 0 … 6.
        assert_eq!(u_distribution(2, 3), vec![1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0]);
        // Totals are binomial coefficients: C(40, 20) = 137 846 528 820.
        assert_eq!(u_distribution(20, 20).iter().sum::<f64>(), 137_846_528_820.0);
        assert_eq!(u_distribution(1, 4), vec![1.0; 5]);
    }

    #[test]
    fn separated_samples_give_the_smallest_exact_p() {
        // Every b above every a: U_a = 0, U_b = 9; P(U ≤ 0) = 1/20, two-sided 0.1.
        let t = mann_whitney(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!((t.u_a, t.u_b, t.u), (0.0, 9.0, 0.0));
        assert_eq!(t.method, PMethod::Exact);
        assert!(close(t.p, 0.1, 1e-15), "{}", t.p);
        assert_eq!((t.a12, t.r), (0.0, -1.0));
        // Swapped: the same p, the effect mirrored.
        let s = mann_whitney(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((s.u_a, s.a12, s.r), (9.0, 1.0, 1.0));
        assert!(close(s.p, 0.1, 1e-15));
        // Two values each, separated: P = 1/C(4, 2) = 1/6, two-sided 1/3 (the quick studies' case).
        let q = mann_whitney(&[0.2, 0.3], &[0.1, 0.15]).unwrap();
        assert_eq!(q.u_a, 4.0);
        assert!(close(q.p, 1.0 / 3.0, 1e-15), "{}", q.p);
    }

    #[test]
    fn an_interleaved_exact_case_by_hand() {
        // a = {1, 4, 5}, b = {2, 3, 6}: pairs a > b: 4>2, 4>3, 5>2, 5>3 → U_a = 4 (ranks 1+4+5 − 6).
        // P(U ≤ 4) = (1+1+2+3+3)/20 = 0.5, P(U ≥ 4) = 13/20: p = min(1, 2·0.5) = 1.
        let t = mann_whitney(&[1.0, 4.0, 5.0], &[2.0, 3.0, 6.0]).unwrap();
        assert_eq!(t.u_a, 4.0);
        assert!(close(t.p, 1.0, 1e-15));
        // a = {1, 2, 4}, b = {3, 5, 6}: U_a = 1 (4 > 3); P(U ≤ 1) = 2/20; p = 0.2.
        let t = mann_whitney(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]).unwrap();
        assert_eq!(t.u_a, 1.0);
        assert!(close(t.p, 0.2, 1e-15), "{}", t.p);
        assert!(close(t.a12, 1.0 / 9.0, 1e-15));
    }

    #[test]
    fn ties_use_midranks_and_the_corrected_normal_approximation() {
        // a = {1, 2, 2, 3}, b = {2, 3, 4, 5}. Pooled ranks: 1 → 1; the three 2s → 3; the two 3s → 5.5;
        // 4 → 7; 5 → 8. R_a = 1 + 3 + 3 + 5.5 = 12.5, U_a = 12.5 − 10 = 2.5, U_b = 13.5.
        // Var = 16/12 · (9 − (24 + 6)/56) = 11.285714…; z = −(5.5 − 0.5)/√Var = −1.488351…;
        // p = erfc(1.488351/√2) = 0.13666… (Φ(1.48835) = 0.93167 from the normal table).
        let t = mann_whitney(&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 4.0, 5.0]).unwrap();
        assert_eq!((t.u_a, t.u_b, t.u), (2.5, 13.5, 2.5));
        assert_eq!(t.method, PMethod::Normal);
        let var: f64 = 16.0 / 12.0 * (9.0 - 30.0 / 56.0);
        assert!(close(t.z, -5.0 / var.sqrt(), 1e-12), "{}", t.z);
        assert!(close(t.z, -1.488351, 1e-6), "{}", t.z);
        assert!(close(t.p, 0.13666, 2e-4), "{}", t.p);
        assert!(close(t.a12, 2.5 / 16.0, 1e-15) && close(t.r, -0.6875, 1e-15));
    }

    #[test]
    fn large_samples_use_the_normal_approximation() {
        // 25 vs 25 separated: U_a = 0, mean 312.5, Var = 625/12 · 51 = 2656.25, z = −312/51.5388 = −6.0537,
        // p = erfc(6.0537/√2) ≈ 1.42e-9.
        let a: Vec<f64> = (0..25).map(f64::from).collect();
        let b: Vec<f64> = (25..50).map(f64::from).collect();
        let t = mann_whitney(&a, &b).unwrap();
        assert_eq!(t.method, PMethod::Normal);
        assert!(close(t.z, -312.0 / 2656.25f64.sqrt(), 1e-12));
        assert!(t.p > 1.3e-9 && t.p < 1.5e-9, "{}", t.p);
    }

    #[test]
    fn identical_samples_show_no_effect() {
        let t = mann_whitney(&[1.0, 1.0], &[1.0, 1.0, 1.0]).unwrap();
        assert_eq!((t.u_a, t.p, t.a12, t.r, t.z), (3.0, 1.0, 0.5, 0.0, 0.0));
        assert!(mann_whitney(&[], &[1.0]).is_none());
    }

    #[test]
    fn median_and_sample_sd() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN]), None);
        // {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, Σ(x − 5)² = 32, sample variance 32/7.
        let sd = sample_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert!(close(sd, (32.0f64 / 7.0).sqrt(), 1e-15));
        assert_eq!(sample_sd(&[1.5]), Some(0.0));
    }
}
