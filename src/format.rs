//! Numbers as a report's reader sees them: significant digits, input values without trailing zeros,
//! quantities with units, time steps as 1/n s, chart labels and axis ticks.

/// Short text for a number: 4 significant digits, scientific outside [1e-3, 1e5).
pub fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "∞".into()
        } else {
            "−∞".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let digits = digits.max(1);
    let mag = x.abs().log10().floor() as i32;
    let text = if (-3..5).contains(&mag) {
        let decimals = (digits as i32 - 1 - mag).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        format!("{x:.prec$e}", prec = digits - 1)
    };
    text.replace('-', "−")
}

/// An input value (f_s, a force, a duration) without trailing zeros: 8 → "8", 12.5 → "12.5".
pub fn short(x: f64) -> String {
    let s = sig(x, 4);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// `sig(v, digits)`, or "–" for a missing value (table cells).
pub fn sig_or_dash(v: Option<f64>, digits: usize) -> String {
    v.map(|x| sig(x, digits)).unwrap_or_else(|| "–".into())
}

/// A quantity with its unit; "not given" for a missing (non-finite) value.
pub fn quantity(v: f64, unit: &str) -> String {
    if v.is_finite() {
        format!("{} {unit}", short(v))
    } else {
        "not given".into()
    }
}

/// A time step, as 1/n s when it is one: "1/60 s (0.01667 s)"; "not given" when not positive.
pub fn dt_text(dt: f64) -> String {
    if !(dt.is_finite() && dt > 0.0) {
        return "not given".into();
    }
    let per = 1.0 / dt;
    if (per - per.round()).abs() < 1e-6 * per {
        format!("1/{} s ({} s)", per.round() as i64, sig(dt, 4))
    } else {
        format!("{} s", sig(dt, 4))
    }
}

/// A short, exact-looking chart label: integers without decimals, others with up to 3 significant digits.
pub fn compact(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e6 {
        format!("{}", v as i64)
    } else {
        sig(v, 3).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Axis tick label for metres (short; scientific outside [1e-3, 1e4)).
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    if (-3..4).contains(&mag) {
        let decimals = (1 - mag).max(0) as usize;
        let s = format!("{v:.decimals$}");
        let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
        s.replace('-', "−")
    } else {
        let m = v / 10f64.powi(mag);
        format!("{}e{}", compact((m * 10.0).round() / 10.0), mag).replace('-', "−")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig_formats_four_significant_digits() {
        assert_eq!(sig(-12.3456, 4), "−12.35");
        assert_eq!(sig(0.00123456, 4), "0.001235");
        assert_eq!(sig(1234567.0, 4), "1.235e6");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(f64::NAN, 4), "NaN");
        assert_eq!(sig(8.0, 3), "8.00");
    }
    #[test]
    fn inputs_time_steps_and_chart_labels_are_short() {
        assert_eq!(dt_text(1.0 / 60.0), "1/60 s (0.01667 s)");
        assert_eq!(short(8.0), "8");
        assert_eq!(tick(0.05), "0.05");
        assert_eq!(tick(-0.25), "−0.25");
        assert_eq!(tick(2e-5), "2e−5");
        assert_eq!(compact(8.0), "8");
        assert_eq!(compact(12.5), "12.5");
    }
}
