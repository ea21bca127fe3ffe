//! A table of checks, each measured next to predicted with a verdict (pass, flag, no data) and the
//! reason, and the counts a report's top verdict line states.

use serde::{Deserialize, Serialize};

/// Outcome of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Flag,
    NoData,
}

/// One row of a checks table: measured next to predicted, with a verdict and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// Stable key, e.g. `static_slope_10x2`, `l3_ratio_10x2_5x2`.
    pub id: String,
    pub name: String,
    /// What the check concerns (for the cantilever: size, f_s, scaffolding), in words.
    pub runs: String,
    pub measured: String,
    pub predicted: String,
    pub tolerance: String,
    pub measured_value: Option<f64>,
    pub predicted_value: Option<f64>,
    pub verdict: Verdict,
    pub explanation: String,
}

impl Check {
    /// A check that could not be made, and why.
    pub fn no_data(id: String, name: String, predicted: String, tolerance: String, why: &str) -> Self {
        Check {
            id,
            name,
            runs: "–".into(),
            measured: "no data".into(),
            predicted,
            tolerance,
            measured_value: None,
            predicted_value: None,
            verdict: Verdict::NoData,
            explanation: why.into(),
        }
    }
}

/// Counts of verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub pass: usize,
    pub flag: usize,
    pub no_data: usize,
}

impl Summary {
    /// The counts of a table.
    pub fn of(checks: &[Check]) -> Summary {
        let mut summary = Summary::default();
        for c in checks {
            match c.verdict {
                Verdict::Pass => summary.pass += 1,
                Verdict::Flag => summary.flag += 1,
                Verdict::NoData => summary.no_data += 1,
            }
        }
        summary
    }

    /// "{what}: 12 of 15 pass, 1 flagged, 2 without data or not applicable".
    pub fn line(self, what: &str) -> String {
        let total = self.pass + self.flag + self.no_data;
        format!(
            "{what}: {} of {total} pass, {} flagged, {} without data or not applicable",
            self.pass, self.flag, self.no_data
        )
    }

    /// The CSS class of the verdict box: `flag` if any check is flagged, else `pass` if any passed,
    /// else `neutral`.
    pub fn status(self) -> &'static str {
        if self.flag > 0 {
            "flag"
        } else if self.pass > 0 {
            "pass"
        } else {
            "neutral"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_verdicts_and_picks_the_status() {
        let mut c = Check::no_data("a".into(), "a".into(), "p".into(), "t".into(), "why");
        let mut checks = vec![c.clone()];
        assert_eq!(Summary::of(&checks).status(), "neutral");
        c.verdict = Verdict::Pass;
        checks.push(c.clone());
        assert_eq!(Summary::of(&checks).status(), "pass");
        c.verdict = Verdict::Flag;
        checks.push(c);
        let s = Summary::of(&checks);
        assert_eq!((s.pass, s.flag, s.no_data, s.status()), (1, 1, 1, "flag"));
        assert_eq!(s.line("Checks"), "Checks: 1 of 3 pass, 1 flagged, 1 without data or not applicable");
    }
}
