//! The soft cells' report `vsr2d cells-report` (spec `cells.md` §15): settings and the substep
//! convergence table, the force–deflection sweep against the stadium model, the timing figures from the
//! cells benchmark, the demonstrations with filmstrips and videos, the self-folding section and the §16
//! acceptance table with a verdict at the top. Built on the shared report framework: [`ReportDir`]
//! (atomic publication), minijinja (`templates/cells.html`), plotters charts, CSV and JSON.
//!
//! [`ReportDir`]: crate::dir::ReportDir

pub mod checks;
pub mod data;
pub mod demos;
pub mod fd;
pub mod folding;
pub mod page;
pub mod plots;
pub mod report;
pub mod timing;

use std::str::FromStr;

/// The report's sections that `--only` selects (settings and the acceptance table are always there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sections {
    pub fd: bool,
    pub timing: bool,
    pub demos: bool,
    pub folding: bool,
}

impl Sections {
    pub const ALL: Sections = Sections { fd: true, timing: true, demos: true, folding: true };
    pub const NONE: Sections = Sections { fd: false, timing: false, demos: false, folding: false };

    /// The names, comma-separated.
    pub fn names(&self) -> String {
        let mut v = Vec::new();
        for (on, name) in [(self.fd, "fd"), (self.timing, "timing"), (self.demos, "demos"), (self.folding, "folding")] {
            if on {
                v.push(name);
            }
        }
        v.join(",")
    }
}

/// A section name `--only` does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown section {0:?}: use fd, timing, demos or folding (comma-separated)")]
pub struct UnknownSection(pub String);

impl FromStr for Sections {
    type Err = UnknownSection;
    /// `fd,timing,demos,folding`, any subset, comma-separated.
    fn from_str(s: &str) -> Result<Sections, UnknownSection> {
        let mut out = Sections::NONE;
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "fd" => out.fd = true,
                "timing" => out.timing = true,
                "demos" => out.demos = true,
                "folding" => out.folding = true,
                other => return Err(UnknownSection(other.to_string())),
            }
        }
        if out == Sections::NONE {
            return Err(UnknownSection(s.to_string()));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_parse_and_unknown_names_are_refused() {
        let s: Sections = "fd, demos".parse().unwrap();
        assert_eq!(s, Sections { fd: true, timing: false, demos: true, folding: false });
        assert_eq!(s.names(), "fd,demos");
        assert!("fd,speed".parse::<Sections>().unwrap_err().to_string().contains("\"speed\""));
        assert!("".parse::<Sections>().is_err());
    }

    #[test]
    fn quick_folds_l_only_and_the_full_report_all_four_letters() {
        assert_eq!(folding::letters(true), ["L"]);
        assert_eq!(folding::letters(false), ["E", "P", "F", "L"]);
        for letter in folding::letters(false) {
            let s = folding::scenario(letter).unwrap();
            assert_eq!(s.fold_goals().unwrap()[0].program, letter);
        }
    }
}
