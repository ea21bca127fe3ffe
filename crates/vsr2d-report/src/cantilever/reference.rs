//! Measurements of the original 2D-VSR-Sim 1.0.0 cantilever (`fixtures/reference/`, provenance in its
//! README), embedded in the binary so `vsr2d cantilever` needs no files at run time.
//!
//! - `static_cantilever.csv`: one row per static run (30 N for 60 s), sizes 5×2, 10×2, 10×4, f_s sweep
//!   with all groups and scaffolding sweep at 8 Hz; the compared quantity is
//!   `dy_center_right_column_m`.
//! - `dynamic_10x4_fs{8,10,15,20,25,30}_all.csv`: δ(t) of the 10×4 beam with all groups after the
//!   800 N impulse, one row per step from t = dt (the original records no sample at t = 0).
//! - `dynamic_10x4_fs{…}_all_converged.csv`: the same runs of the original with 200 velocity
//!   iterations instead of dyn4j's default 10: its solver's converged answer.

use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::task::cantilever::{CantileverSettings, PAPER};

/// The two files of one dynamic run at f_s = `$fs` Hz: as released and run to convergence.
macro_rules! dynamic_files {
    ($fs:literal) => {
        [
            (
                concat!("dynamic_10x4_fs", $fs, "_all.csv"),
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../fixtures/reference/dynamic_10x4_fs",
                    $fs,
                    "_all.csv"
                )),
            ),
            (
                concat!("dynamic_10x4_fs", $fs, "_all_converged.csv"),
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/../../fixtures/reference/dynamic_10x4_fs",
                    $fs,
                    "_all_converged.csv"
                )),
            ),
        ]
    };
}

/// The provenance of the measurements.
pub const README_MD: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/reference/README.md"));
pub const STATIC_CSV: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/reference/static_cantilever.csv"));
/// The dynamic runs of the 10×4 beam with all groups: f_s (Hz), the file as released and run to
/// convergence, each (name, text).
pub const DYNAMIC_FILES: [(f64, [(&str, &str); 2]); 6] = [
    (8.0, dynamic_files!("8")),
    (10.0, dynamic_files!("10")),
    (15.0, dynamic_files!("15")),
    (20.0, dynamic_files!("20")),
    (25.0, dynamic_files!("25")),
    (30.0, dynamic_files!("30")),
];

/// The velocity iterations of the original's converged dynamic runs (dyn4j's default is 10).
pub const CONVERGED_VELOCITY_ITERATIONS: u32 = 200;

/// Name of the original code, as the report writes it.
pub const ORIGINAL: &str = "2D-VSR-Sim 1.0.0";

/// The conditions the original was measured in (the README; checked against the files in the tests):
/// the paper's. Static: 30 N on every step for 60 s (the original's loop makes that 3601 steps, vsr2d's
/// 3600; both are at rest long before). Dynamic: 800 N while t ≤ 0.1 s (7 steps), recorded for 15 s.
pub const CONDITIONS: CantileverSettings = PAPER;

/// One static run of the original code.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticReference {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    /// Total load |F| (N).
    pub force_n: f64,
    /// End of the run (s); the original steps while t < 60 s, so it ends at 60.0167 s (3601 steps).
    pub t_end_s: f64,
    pub steps: u64,
    /// δ at the end of the run (m): mean centre height of the rightmost column relative to rest.
    pub dy_center_right_column_m: f64,
}

/// One dynamic run of the original code: δ(t_k) at t_k = (k + 1)·dt.
#[derive(Debug, Clone, PartialEq)]
pub struct DynamicReference {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    /// Load |F| (N) of the impulse.
    pub force_n: f64,
    /// Time step (s), from the file's time column.
    pub dt: f64,
    pub t_s: Vec<f64>,
    pub dy_m: Vec<f64>,
}

impl DynamicReference {
    /// δ from rest: 0 at t = 0 followed by the recorded samples, so sample k is at t = k·dt like a vsr2d
    /// record.
    pub fn series_from_rest(&self) -> Vec<f64> {
        std::iter::once(0.0).chain(self.dy_m.iter().copied()).collect()
    }
}

/// Every embedded measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub static_runs: Vec<StaticReference>,
    pub dynamic_runs: Vec<DynamicReference>,
    /// The same dynamic runs with [`CONVERGED_VELOCITY_ITERATIONS`]: what the original's model gives
    /// once its solver has converged (at 30 Hz its 10 iterations leave the first peak 10.4 % deeper).
    pub converged_dynamic_runs: Vec<DynamicReference>,
}

impl Reference {
    /// Parses the files embedded in the binary.
    pub fn embedded() -> Result<Reference, ReferenceError> {
        let static_runs = parse_static("static_cantilever.csv", STATIC_CSV)?;
        let dynamic = |file: &'static str, text: &str, fs_hz: f64| {
            let key =
                DynamicKey { w: 10, h: 4, fs_hz, scaffolding: Scaffolding::ALL, force_n: CONDITIONS.dynamic_force_n };
            parse_dynamic(file, text, key)
        };
        let mut dynamic_runs = Vec::new();
        let mut converged_dynamic_runs = Vec::new();
        for (fs_hz, [(file, text), (converged_file, converged_text)]) in DYNAMIC_FILES {
            dynamic_runs.push(dynamic(file, text, fs_hz)?);
            converged_dynamic_runs.push(dynamic(converged_file, converged_text, fs_hz)?);
        }
        Ok(Reference { static_runs, dynamic_runs, converged_dynamic_runs })
    }

    /// The static measurement of a run, if the original was measured there.
    pub fn static_run(&self, w: u32, h: u32, fs_hz: f64, scaffolding: Scaffolding) -> Option<&StaticReference> {
        self.static_runs
            .iter()
            .find(|r| (r.w, r.h) == (w, h) && r.scaffolding == scaffolding && same_hz(r.fs_hz, fs_hz))
    }

    /// The dynamic measurement of a run, if the original was measured there.
    pub fn dynamic_run(&self, w: u32, h: u32, fs_hz: f64, scaffolding: Scaffolding) -> Option<&DynamicReference> {
        find_dynamic(&self.dynamic_runs, w, h, fs_hz, scaffolding)
    }

    /// The converged dynamic measurement of a run ([`CONVERGED_VELOCITY_ITERATIONS`]), if there is one.
    pub fn converged_dynamic_run(
        &self,
        w: u32,
        h: u32,
        fs_hz: f64,
        scaffolding: Scaffolding,
    ) -> Option<&DynamicReference> {
        find_dynamic(&self.converged_dynamic_runs, w, h, fs_hz, scaffolding)
    }
}

fn find_dynamic(
    runs: &[DynamicReference],
    w: u32,
    h: u32,
    fs_hz: f64,
    scaffolding: Scaffolding,
) -> Option<&DynamicReference> {
    runs.iter().find(|r| (r.w, r.h) == (w, h) && r.scaffolding == scaffolding && same_hz(r.fs_hz, fs_hz))
}

fn same_hz(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// What a dynamic file measured (its file name says it; the file holds only `t,dy`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicKey {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    pub force_n: f64,
}

/// A reference file that does not parse; every variant names the file and, where it applies, the line
/// (1-based, the header is line 1).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    #[error("reference {file}: empty file")]
    Empty { file: String },
    #[error("reference {file}: the header lacks the column {column:?}")]
    MissingColumn { file: String, column: &'static str },
    #[error("reference {file}, line {line}: {found} fields, the header has {expected}")]
    FieldCount { file: String, line: usize, expected: usize, found: usize },
    #[error("reference {file}, line {line}: column {column} is {value:?}, not a finite number")]
    Number { file: String, line: usize, column: &'static str, value: String },
    #[error(
        "reference {file}, line {line}: unknown scaffolding {value:?} (expected all, se_cc, se_si_cc or se_si_sc)"
    )]
    Scaffolding { file: String, line: usize, value: String },
    #[error("reference {file}: no data rows")]
    NoRows { file: String },
    #[error("reference {file}, line {line}: t = {t} s is not (k + 1)·dt with dt = {dt} s")]
    Uneven { file: String, line: usize, t: f64, dt: f64 },
}

/// The original's scaffolding names: `all`, `se_cc` (E+C), `se_si_cc` (E+I+C), `se_si_sc` (E+I+X).
pub fn original_scaffolding(name: &str) -> Option<Scaffolding> {
    match name.trim() {
        "all" => Some(Scaffolding::ALL),
        "se_cc" => Some(Scaffolding::EC),
        "se_si_cc" => Some(Scaffolding::EIC),
        "se_si_sc" => Some(Scaffolding::EIX),
        _ => None,
    }
}

/// A CSV with a header row; fields split at commas (the reference files quote nothing).
struct Table<'a> {
    file: &'a str,
    header: Vec<&'a str>,
    rows: Vec<(usize, Vec<&'a str>)>,
}

impl<'a> Table<'a> {
    fn parse(file: &'a str, text: &'a str) -> Result<Table<'a>, ReferenceError> {
        let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let (_, head) = lines.next().ok_or_else(|| ReferenceError::Empty { file: file.into() })?;
        let header: Vec<&str> = head.split(',').map(str::trim).collect();
        let mut rows = Vec::new();
        for (i, line) in lines {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != header.len() {
                return Err(ReferenceError::FieldCount {
                    file: file.into(),
                    line: i + 1,
                    expected: header.len(),
                    found: fields.len(),
                });
            }
            rows.push((i + 1, fields));
        }
        if rows.is_empty() {
            return Err(ReferenceError::NoRows { file: file.into() });
        }
        Ok(Table { file, header, rows })
    }

    fn column(&self, name: &'static str) -> Result<usize, ReferenceError> {
        self.header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| ReferenceError::MissingColumn { file: self.file.into(), column: name })
    }

    fn number(&self, line: usize, fields: &[&str], column: &'static str, index: usize) -> Result<f64, ReferenceError> {
        let value = fields[index];
        value.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| ReferenceError::Number {
            file: self.file.into(),
            line,
            column,
            value: value.into(),
        })
    }

    /// A non-negative integer column (sizes, step counts).
    fn count(&self, line: usize, fields: &[&str], column: &'static str, index: usize) -> Result<u64, ReferenceError> {
        let value = fields[index];
        value.parse::<u64>().map_err(|_| ReferenceError::Number {
            file: self.file.into(),
            line,
            column,
            value: value.into(),
        })
    }
}

/// Parses `static_cantilever.csv`.
pub fn parse_static(file: &str, text: &str) -> Result<Vec<StaticReference>, ReferenceError> {
    let table = Table::parse(file, text)?;
    let c = |name| table.column(name);
    let (cw, ch, cfs, cs, cf, ct, cn, cdy) = (
        c("w")?,
        c("h")?,
        c("fs_hz")?,
        c("scaffolding")?,
        c("force_total_n")?,
        c("t_end_s")?,
        c("steps")?,
        c("dy_center_right_column_m")?,
    );
    let mut out = Vec::with_capacity(table.rows.len());
    for (line, fields) in &table.rows {
        let line = *line;
        let size = |column, index| -> Result<u32, ReferenceError> {
            let n = table.count(line, fields, column, index)?;
            u32::try_from(n).ok().filter(|n| *n > 0).ok_or_else(|| ReferenceError::Number {
                file: file.into(),
                line,
                column,
                value: fields[index].into(),
            })
        };
        let name = fields[cs];
        let scaffolding = original_scaffolding(name).ok_or_else(|| ReferenceError::Scaffolding {
            file: file.into(),
            line,
            value: name.into(),
        })?;
        out.push(StaticReference {
            w: size("w", cw)?,
            h: size("h", ch)?,
            fs_hz: table.number(line, fields, "fs_hz", cfs)?,
            scaffolding,
            force_n: table.number(line, fields, "force_total_n", cf)?,
            t_end_s: table.number(line, fields, "t_end_s", ct)?,
            steps: table.count(line, fields, "steps", cn)?,
            dy_center_right_column_m: table.number(line, fields, "dy_center_right_column_m", cdy)?,
        });
    }
    Ok(out)
}

/// Parses a `t,dy` file; dt is the first time, and every later time must be (k + 1)·dt to within
/// the file's 6 decimals.
pub fn parse_dynamic(file: &str, text: &str, key: DynamicKey) -> Result<DynamicReference, ReferenceError> {
    let table = Table::parse(file, text)?;
    let (ct, cdy) = (table.column("t")?, table.column("dy")?);
    let mut t_s = Vec::with_capacity(table.rows.len());
    let mut dy_m = Vec::with_capacity(table.rows.len());
    for (line, fields) in &table.rows {
        t_s.push(table.number(*line, fields, "t", ct)?);
        dy_m.push(table.number(*line, fields, "dy", cdy)?);
    }
    // The mean step over the whole record is more precise than the first, rounded, time.
    let dt = t_s[t_s.len() - 1] / t_s.len() as f64;
    for (k, ((line, _), t)) in table.rows.iter().zip(&t_s).enumerate() {
        if dt.is_nan() || dt <= 0.0 || (t - (k + 1) as f64 * dt).abs() > 2e-6 {
            return Err(ReferenceError::Uneven { file: file.into(), line: *line, t: *t, dt });
        }
    }
    Ok(DynamicReference {
        w: key.w,
        h: key.h,
        fs_hz: key.fs_hz,
        scaffolding: key.scaffolding,
        force_n: key.force_n,
        dt,
        t_s,
        dy_m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_parse_with_every_row() {
        let r = Reference::embedded().unwrap();
        assert_eq!(r.static_runs.len(), 30);
        assert_eq!(r.dynamic_runs.len(), 6);
        assert_eq!(r.converged_dynamic_runs.len(), 6);
        for d in r.dynamic_runs.iter().chain(&r.converged_dynamic_runs) {
            assert_eq!((d.t_s.len(), d.dy_m.len()), (900, 900), "{} Hz", d.fs_hz);
            assert!((d.dt - CONDITIONS.dt).abs() < 1e-9, "dt {}", d.dt);
            assert!((d.t_s[899] - CONDITIONS.dynamic_duration_s).abs() < 1e-9);
            assert_eq!(d.series_from_rest().len(), 901);
            assert_eq!(d.series_from_rest()[0], 0.0);
        }
        for s in &r.static_runs {
            assert_eq!(s.force_n, CONDITIONS.static_force_n);
            assert!((s.t_end_s - CONDITIONS.static_duration_s - CONDITIONS.dt).abs() < 1e-5, "{}", s.t_end_s);
        }
        // Spot checks against the file.
        let s = r.static_run(10, 4, 8.0, Scaffolding::ALL).unwrap();
        assert_eq!(s.dy_center_right_column_m, -2.394383);
        assert_eq!((s.force_n, s.steps), (30.0, 3601));
        assert_eq!(r.static_run(10, 2, 8.0, Scaffolding::EIX).unwrap().dy_center_right_column_m, -16.779907);
        assert_eq!(r.static_run(5, 2, 8.0, Scaffolding::EC).unwrap().dy_center_right_column_m, -6.120911);
        assert_eq!(r.static_run(5, 2, 8.0, Scaffolding::EIC).unwrap().dy_center_right_column_m, -3.087449);
        assert!(r.static_run(10, 4, 9.0, Scaffolding::ALL).is_none());
        let d = r.dynamic_run(10, 4, 8.0, Scaffolding::ALL).unwrap();
        assert_eq!(d.dy_m[0], -0.060758547);
        assert!(r.dynamic_run(10, 4, 30.0, Scaffolding::ALL).is_some());
        assert!(r.dynamic_run(10, 2, 8.0, Scaffolding::ALL).is_none());
        // Every size × (7 f_s with all groups + 3 other sets at 8 Hz).
        for size in [(5, 2), (10, 2), (10, 4)] {
            assert_eq!(r.static_runs.iter().filter(|s| (s.w, s.h) == size).count(), 10);
        }
        assert!(README_MD.contains("2D-VSR-Sim release 1.0.0"));
    }

    #[test]
    fn bad_files_are_errors_that_name_the_line() {
        let key = DynamicKey { w: 10, h: 4, fs_hz: 8.0, scaffolding: Scaffolding::ALL, force_n: 800.0 };
        assert!(matches!(parse_dynamic("x.csv", "", key), Err(ReferenceError::Empty { .. })));
        assert!(matches!(parse_dynamic("x.csv", "t,dy\n", key), Err(ReferenceError::NoRows { .. })));
        assert!(matches!(parse_dynamic("x.csv", "t,y\n0.1,2\n", key), Err(ReferenceError::MissingColumn { .. })));
        let err = parse_dynamic("x.csv", "t,dy\n0.5,1\n1.0,abc\n", key).unwrap_err();
        assert_eq!(err, ReferenceError::Number { file: "x.csv".into(), line: 3, column: "dy", value: "abc".into() });
        assert!(err.to_string().contains("line 3"), "{err}");
        assert!(matches!(parse_dynamic("x.csv", "t,dy\n0.5,1\n1.7,2\n", key), Err(ReferenceError::Uneven { .. })));
        assert!(matches!(parse_dynamic("x.csv", "t,dy\n0.5,1,3\n", key), Err(ReferenceError::FieldCount { .. })));
        // CRLF line ends (as in the static file) parse like LF.
        let ok = parse_dynamic("x.csv", "t,dy\r\n0.5,1\r\n1.0,2\r\n", key).unwrap();
        assert_eq!((ok.dt, ok.dy_m.clone()), (0.5, vec![1.0, 2.0]));

        let head = STATIC_CSV.lines().next().unwrap();
        let row = STATIC_CSV.lines().nth(1).unwrap();
        let bad = format!("{head}\n{}", row.replace(",all,", ",diagonal,"));
        let err = parse_static("s.csv", &bad).unwrap_err();
        assert!(matches!(err, ReferenceError::Scaffolding { line: 2, .. }), "{err:?}");
        let bad = format!("{head}\n{}", row.replacen("5,", "0,", 1));
        assert!(matches!(parse_static("s.csv", &bad), Err(ReferenceError::Number { column: "w", .. })));
    }

    #[test]
    fn original_names_map_to_paper_sets() {
        assert_eq!(original_scaffolding("se_cc"), Some(Scaffolding::EC));
        assert_eq!(original_scaffolding("se_si_cc"), Some(Scaffolding::EIC));
        assert_eq!(original_scaffolding("se_si_sc"), Some(Scaffolding::EIX));
        assert_eq!(original_scaffolding("all"), Some(Scaffolding::ALL));
        assert_eq!(original_scaffolding("E+C"), None);
    }
}
