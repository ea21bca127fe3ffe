//! Fits of power laws y = C·x^p: the log-log slope p and the constant C for a given p.

/// Least-squares slope and R² of ln y against ln x, over points with x > 0 and y ≠ 0 (|y| is used).
/// `None` with fewer than two distinct x.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| x.is_finite() && y.is_finite() && *x > 0.0 && *y != 0.0)
        .map(|(x, y)| (x.ln(), y.abs().ln()))
        .collect();
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = pts.iter().map(|p| (p.1 - my).powi(2)).sum();
    if sxx <= 1e-24 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy <= 1e-300 { 1.0 } else { (sxy * sxy) / (sxx * syy) };
    Some((slope, r2))
}

/// The constant C of y = C/x^p through the points (geometric mean of y·x^p); 0 without points.
pub fn power_law_constant(pts: &[(f64, f64)], p: f64) -> f64 {
    if pts.is_empty() {
        return 0.0;
    }
    (pts.iter().map(|(x, y)| y.ln() + p * x.ln()).sum::<f64>() / pts.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_an_inverse_square_sweep_is_minus_two() {
        let pts: Vec<(f64, f64)> =
            [4.0, 8.0, 10.0, 15.0, 20.0, 25.0, 30.0].iter().map(|f| (*f, -3.7 / (f * f))).collect();
        let (slope, r2) = log_log_slope(&pts).unwrap();
        assert!((slope + 2.0).abs() < 1e-12);
        assert!((r2 - 1.0).abs() < 1e-12);
        assert!(log_log_slope(&pts[..1]).is_none());
        assert!(log_log_slope(&[(8.0, 1.0), (8.0, 2.0)]).is_none());
    }
}
