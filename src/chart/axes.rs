//! Axis ranges and ticks: log ranges around data, 1-2-5 log ticks, room for a legend.

/// Ticks at 1, 2, 5 × 10^k inside [lo, hi] (all nine multiples when that gives fewer than three).
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let pick = |mults: &[f64]| {
        let mut v = Vec::new();
        let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        for k in k0..=k1 {
            for m in mults {
                // Divide by an exact power of ten so 5e-3 is the same double as the literal 0.005.
                let x = if k < 0 { m / 10f64.powi(-k) } else { m * 10f64.powi(k) };
                if x >= lo * (1.0 - 1e-9) && x <= hi * (1.0 + 1e-9) {
                    v.push(x);
                }
            }
        }
        v
    };
    let coarse = pick(&[1.0, 2.0, 5.0]);
    if coarse.len() >= 3 {
        // Too many decades: keep the powers of ten only.
        if coarse.len() > 10 {
            return pick(&[1.0]);
        }
        return coarse;
    }
    pick(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// Raises the top of a log axis so that a legend of two entries per series, in the upper right, stays
/// clear of the data: the data then fills the lower part of the plot.
pub fn legend_headroom(y0: f64, y1: f64, series: usize) -> f64 {
    // Each legend entry takes about 5 % of the plot's height.
    let data_share = (1.0 - 0.05 * (2 * series + 1) as f64).clamp(0.4, 1.0);
    (y0.ln() + (y1.ln() - y0.ln()) / data_share).exp()
}

/// A log range around positive values, padded by `pad` (a factor) on each side.
pub fn log_range(values: impl Iterator<Item = f64>, pad: f64) -> Option<(f64, f64)> {
    let (lo, hi) =
        values.filter(|v| v.is_finite() && *v > 0.0).fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    if !(lo.is_finite() && hi > 0.0) {
        return None;
    }
    let (lo, hi) = if hi / lo < 1.5 { (lo / 1.5, hi * 1.5) } else { (lo, hi) };
    Some((lo / pad, hi * pad))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_few_and_round() {
        assert_eq!(log_ticks(0.003, 0.4), vec![0.005, 0.01, 0.02, 0.05, 0.1, 0.2]);
        assert_eq!(log_ticks(2.0, 3.5), vec![2.0, 3.0]);
    }
}
