//! CSV text as the reports write it: a header row, fields joined by commas (report fields never hold
//! commas or quotes), `\n` line ends; floats in Rust's shortest round-trip form (the same value the
//! JSON holds) and an empty field when missing or not finite.

use std::fmt::Write as _;

/// A float field; empty when not finite.
pub fn f64_field(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        String::new()
    }
}

/// An optional float field; empty when missing or not finite.
pub fn opt_f64_field(v: Option<f64>) -> String {
    v.map(f64_field).unwrap_or_default()
}

/// A CSV table being built, header first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csv {
    text: String,
}

impl Csv {
    pub fn new(header: &[&str]) -> Csv {
        let mut csv = Csv { text: String::new() };
        csv.row(header);
        csv
    }

    /// Appends one row.
    pub fn row<T: std::fmt::Display>(&mut self, fields: impl IntoIterator<Item = T>) {
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            let _ = write!(self.text, "{field}");
        }
        self.text.push('\n');
    }

    /// The text of the table.
    pub fn finish(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_numbers_round_trip_and_missing_values_are_empty() {
        assert_eq!(f64_field(0.1), "0.1");
        assert_eq!(f64_field(f64::NAN), "");
        let v = -0.012345678901234567;
        assert_eq!(f64_field(v).parse::<f64>().unwrap(), v);
        assert_eq!(opt_f64_field(None), "");
    }

    #[test]
    fn rows_are_joined_by_commas() {
        let mut csv = Csv::new(&["a", "b"]);
        csv.row([f64_field(1.5), String::new()]);
        csv.row([1, 2]);
        assert_eq!(csv.finish(), "a,b\n1.5,\n1,2\n");
    }
}
