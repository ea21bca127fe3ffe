//! Section 2 of the cells report (spec `cells.md` §15 item 2, the paper's Fig. 3b): the force–deflection
//! sweep over C with the stadium model (§14), the tangent-stiffness table, geometric against `scs`
//! normals, the stability sweep, and section 1's substep convergence table. Every run is the
//! `force_deflection` task of [`vsr2d::task::force_deflection`]; nothing here steps a world itself.

use rayon::prelude::*;
use serde::Serialize;

use crate::csv::{f64_field, opt_f64_field, Csv};
use vsr2d::model::cell::stadium::Stadium;
use vsr2d::model::cell::{CellParams, CellPreset, Normals};
use vsr2d::sim::Stepping;
use vsr2d::task::force_deflection::{
    run, substep_probe_table, tunability_stiffness, FdError, FdResult, ForceDeflectionSpec, Phase, SubstepRow,
    CONVERGED_STEPPING, TUNABILITY_SETTLE,
};

/// C of the full sweep, N per body (spec §15, ours).
pub const SWEEP_C: [f64; 7] = [4.5, 25.0, 50.0, 100.0, 200.0, 300.0, 450.0];
/// C of the quick sweep.
pub const QUICK_C: [f64; 2] = [50.0, 450.0];
/// C of the stability sweep.
pub const STABILITY_C: [f64; 6] = [450.0, 600.0, 800.0, 1000.0, 1500.0, 2000.0];
/// The tunability check's pair (§16): stiffness at 0.2·D of C 4.5 against C 450.
pub const TUNABILITY_C: [f64; 2] = [4.5, 450.0];
/// δ/D at which the tangent stiffness is tabulated.
pub const TANGENT_AT: [f64; 3] = [0.1, 0.2, 0.3];
/// The header of `fd.csv` (spec §15).
pub const FD_CSV_HEADER: [&str; 10] = [
    "preset",
    "C",
    "phase",
    "F_N",
    "delta_m",
    "delta_over_D",
    "area_ratio",
    "perimeter_error",
    "bodies_on_bar",
    "model_F_N",
];

/// What the section runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FdOptions {
    pub preset: CellPreset,
    pub pressures: Vec<f64>,
    /// Loading levels up to 0.5·D.
    pub levels: usize,
    /// Solver substeps of the sweep.
    pub substeps: usize,
    /// Engine steps per step of the sweep (the project default for cells).
    pub force_substeps: usize,
    /// Substep counts of the convergence probe (each n is compared with 2n).
    pub probe_counts: Vec<usize>,
    pub stability: Vec<f64>,
    /// Run the tunability pair with [`TUNABILITY_SETTLE`] (off in `--quick`).
    pub tunability: bool,
}

/// One force–deflection run (or why it failed).
#[derive(Debug, Clone, Serialize)]
pub struct FdRun {
    pub pressure: f64,
    pub normals: Normals,
    pub substeps: usize,
    pub result: Option<FdResult>,
    /// The failure (an unstable simulation), when `result` is missing.
    pub error: Option<String>,
}

impl FdRun {
    fn of(pressure: f64, normals: Normals, substeps: usize, r: Result<FdResult, FdError>) -> FdRun {
        match r {
            Ok(result) => FdRun { pressure, normals, substeps, result: Some(result), error: None },
            Err(e) => FdRun { pressure, normals, substeps, result: None, error: Some(e.to_string()) },
        }
    }
}

/// Measured and model tangent stiffness of one C at the δ/D of [`TANGENT_AT`].
#[derive(Debug, Clone, Serialize)]
pub struct TangentRow {
    pub pressure: f64,
    /// (δ/D, measured k N/m, model k N/m).
    pub points: Vec<(f64, Option<f64>, Option<f64>)>,
}

/// The convergence table's extra column: the C-450 (or sweep's stiffest) loading curve against the model.
#[derive(Debug, Clone, Serialize)]
pub struct ModelRatio {
    pub substeps: usize,
    /// Smallest and largest F_measured / F_model over 0.1 ≤ δ/D ≤ 0.4.
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// One cell of the tunability pair ([`tunability_stiffness`], each level held [`TUNABILITY_SETTLE`] s).
#[derive(Debug, Clone, Serialize)]
pub struct TunabilityRun {
    pub pressure: f64,
    pub settle: f64,
    pub k: Option<f64>,
    pub model_k: Option<f64>,
    pub error: Option<String>,
}

impl TunabilityRun {
    fn measure(pressure: f64, params: &CellParams, dt: f64, stepping: Stepping) -> TunabilityRun {
        let run = TunabilityRun { pressure, settle: TUNABILITY_SETTLE, k: None, model_k: None, error: None };
        match tunability_stiffness(params, dt, stepping, TUNABILITY_SETTLE) {
            Ok((k, model_k)) => TunabilityRun { k: Some(k), model_k, ..run },
            Err(e) => TunabilityRun { error: Some(e.to_string()), ..run },
        }
    }
}

/// One row of the stability sweep.
#[derive(Debug, Clone, Serialize)]
pub struct StabilityRow {
    pub pressure: f64,
    pub stable: bool,
    pub max_perimeter_error: Option<f64>,
    pub error: Option<String>,
}

/// Everything section 2 (and the convergence table of section 1) measured.
#[derive(Debug, Clone, Serialize)]
pub struct FdData {
    pub preset: String,
    pub params: CellParams,
    pub dt: f64,
    pub substeps: usize,
    pub force_substeps: usize,
    pub levels: usize,
    pub spec: FdSpecText,
    pub runs: Vec<FdRun>,
    pub tangents: Vec<TangentRow>,
    /// The C of the convergence probe and of the normals comparison.
    pub probe_pressure: f64,
    pub convergence: Vec<SubstepRow>,
    pub ratios: Vec<ModelRatio>,
    /// The same C with the other normals than the preset's.
    pub normals_runs: Vec<FdRun>,
    pub stability: Vec<StabilityRow>,
    pub first_unstable: Option<f64>,
    /// The tunability pair (empty in `--quick`).
    pub tunability: Vec<TunabilityRun>,
}

/// The task settings, for the settings table.
#[derive(Debug, Clone, Serialize)]
pub struct FdSpecText {
    pub max_deflection: f64,
    pub settle: f64,
    pub average: f64,
    pub ramp: f64,
}

pub fn preset_name(p: CellPreset) -> &'static str {
    match p {
        CellPreset::ScsPaper => "scs-paper",
        CellPreset::ScsCode => "scs-code",
    }
}

/// F_measured / F_model over the loading levels with 0.1 ≤ δ/D ≤ 0.4: (min, max).
pub fn model_ratio_range(r: &FdResult) -> (Option<f64>, Option<f64>) {
    let ratios: Vec<f64> = r
        .loading()
        .filter(|l| l.delta_over_d >= 0.1 - 1e-6 && l.delta_over_d <= 0.4 + 1e-6)
        .filter_map(|l| l.model_force.filter(|m| *m > 0.0).map(|m| l.bar_force / m))
        .collect();
    if ratios.is_empty() {
        return (None, None);
    }
    (Some(ratios.iter().copied().fold(f64::INFINITY, f64::min)), Some(ratios.iter().copied().fold(0.0, f64::max)))
}

/// Tangent stiffness of the loading curve at δ, a central difference over ±`h` on the interpolated curve.
pub fn measured_tangent(r: &FdResult, delta: f64, h: f64) -> Option<f64> {
    let lo = (delta - h).max(0.0);
    Some((r.force_at(delta + h)? - r.force_at(lo)?) / (delta + h - lo))
}

impl FdOptions {
    pub fn new(preset: CellPreset, quick: bool) -> FdOptions {
        let substeps = CONVERGED_STEPPING.solver_iterations;
        FdOptions {
            preset,
            pressures: if quick { QUICK_C.to_vec() } else { SWEEP_C.to_vec() },
            levels: if quick { 10 } else { 20 },
            substeps,
            force_substeps: CONVERGED_STEPPING.force_substeps,
            probe_counts: if quick { vec![substeps / 2, substeps] } else { vec![16, 32, 64, 128] },
            stability: STABILITY_C.to_vec(),
            tunability: !quick,
        }
    }

    fn stepping(&self, solver_iterations: usize) -> Stepping {
        Stepping { force_substeps: self.force_substeps, solver_iterations }
    }

    fn spec(&self) -> ForceDeflectionSpec {
        ForceDeflectionSpec { levels: self.levels, ..ForceDeflectionSpec::default() }
    }

    /// Runs every part of the section (in parallel on rayon's pool).
    pub fn run(&self) -> Result<FdData, FdError> {
        let base = self.preset.params();
        let dt = self.preset.dt();
        let spec = self.spec();
        let with = |c: f64, normals: Normals| CellParams { pressure: c, normals, ..base };
        let runs: Vec<FdRun> = self
            .pressures
            .par_iter()
            .map(|&c| {
                FdRun::of(
                    c,
                    base.normals,
                    self.substeps,
                    run("cell", &with(c, base.normals), dt, self.stepping(self.substeps), &spec),
                )
            })
            .collect();
        let d = 2.0 * base.radius;
        let h = 0.5 * d / self.levels as f64;
        let tangents = runs
            .iter()
            .map(|r| {
                let model = Stadium::of(&with(r.pressure, base.normals));
                TangentRow {
                    pressure: r.pressure,
                    points: TANGENT_AT
                        .iter()
                        .map(|&x| {
                            let m = r.result.as_ref().and_then(|res| measured_tangent(res, x * d, h));
                            (x, m, model.tangent_stiffness(x * d))
                        })
                        .collect(),
                }
            })
            .collect();
        let probe_pressure = self.pressures.iter().copied().fold(0.0, f64::max);
        let probe_params = with(probe_pressure, base.normals);
        let convergence =
            substep_probe_table(&probe_params, dt, self.stepping(self.substeps), &self.probe_counts, self.levels)?;
        let load_only = ForceDeflectionSpec { unload: false, ..spec.clone() };
        let ratios = self
            .probe_counts
            .par_iter()
            .map(|&n| {
                let r = run("probe", &probe_params, dt, self.stepping(n), &load_only).ok();
                let (min, max) = r.as_ref().map(model_ratio_range).unwrap_or((None, None));
                ModelRatio { substeps: n, min, max }
            })
            .collect();
        let other = match base.normals {
            Normals::Geometric => Normals::Scs,
            Normals::Scs => Normals::Geometric,
        };
        let normals_runs = vec![FdRun::of(
            probe_pressure,
            other,
            self.substeps,
            run("cell", &with(probe_pressure, other), dt, self.stepping(self.substeps), &spec),
        )];
        let stability: Vec<StabilityRow> = self
            .stability
            .par_iter()
            .map(|&c| match run("cell", &with(c, base.normals), dt, self.stepping(self.substeps), &spec) {
                Ok(r) => StabilityRow {
                    pressure: c,
                    stable: true,
                    max_perimeter_error: Some(r.max_perimeter_error),
                    error: None,
                },
                Err(e) => {
                    StabilityRow { pressure: c, stable: false, max_perimeter_error: None, error: Some(e.to_string()) }
                }
            })
            .collect();
        let first_unstable = stability.iter().find(|s| !s.stable).map(|s| s.pressure);
        let pair: &[f64] = if self.tunability { &TUNABILITY_C } else { &[] };
        let tunability = pair
            .par_iter()
            .map(|&c| TunabilityRun::measure(c, &with(c, base.normals), dt, self.stepping(self.substeps)))
            .collect();
        Ok(FdData {
            preset: preset_name(self.preset).to_string(),
            params: base,
            dt,
            substeps: self.substeps,
            force_substeps: self.force_substeps,
            levels: self.levels,
            spec: FdSpecText {
                max_deflection: spec.max_deflection,
                settle: spec.settle,
                average: spec.average,
                ramp: spec.ramp,
            },
            runs,
            tangents,
            probe_pressure,
            convergence,
            ratios,
            normals_runs,
            stability,
            first_unstable,
            tunability,
        })
    }
}

impl FdData {
    /// The sweep's run at C, if it succeeded.
    pub fn result_at(&self, c: f64) -> Option<&FdResult> {
        self.runs.iter().find(|r| r.pressure == c).and_then(|r| r.result.as_ref())
    }

    /// `fd.csv`: one row per level of every sweep run (spec §15's columns).
    pub fn csv(&self) -> String {
        let mut csv = Csv::new(&FD_CSV_HEADER);
        for r in &self.runs {
            let Some(res) = &r.result else { continue };
            for l in &res.levels {
                let phase = match l.phase {
                    Phase::Load => "load",
                    Phase::Unload => "unload",
                };
                csv.row([
                    self.preset.clone(),
                    f64_field(r.pressure),
                    phase.to_string(),
                    f64_field(l.bar_force),
                    f64_field(l.delta),
                    f64_field(l.delta_over_d),
                    f64_field(l.area_ratio),
                    f64_field(l.perimeter_error),
                    f64_field(l.bodies_on_bar),
                    opt_f64_field(l.model_force),
                ]);
            }
        }
        csv.finish()
    }

    /// Levels at which the pressure ordering fails: at a commanded δ, F_bar must rise strictly with C
    /// (equivalently, at a force, δ falls as C rises), over the loading levels where at least one of the two curves carries force. Returns (levels compared, violations).
    pub fn ordering(&self) -> (usize, Vec<String>) {
        let mut ok: Vec<&FdRun> = self.runs.iter().filter(|r| r.result.is_some()).collect();
        ok.sort_by(|a, b| a.pressure.total_cmp(&b.pressure));
        let mut compared = 0;
        let mut bad = Vec::new();
        for w in ok.windows(2) {
            let (a, b) = (w[0].result.as_ref().unwrap(), w[1].result.as_ref().unwrap());
            for (la, lb) in a.loading().zip(b.loading()) {
                // A level where neither curve carries force (the bar not yet touching) is not a force level.
                if la.bar_force <= 0.0 && lb.bar_force <= 0.0 {
                    continue;
                }
                compared += 1;
                if lb.bar_force <= la.bar_force {
                    bad.push(format!(
                        "{:?} δ/D {:.3}: C {} gives {:.4} N, C {} gives {:.4} N",
                        la.phase,
                        la.target_delta / (2.0 * a.radius),
                        w[0].pressure,
                        la.bar_force,
                        w[1].pressure,
                        lb.bar_force
                    ));
                }
            }
        }
        (compared, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vsr2d::task::force_deflection::FdLevel;

    fn level(phase: Phase, delta: f64, force: f64) -> FdLevel {
        FdLevel {
            phase,
            target_delta: delta,
            applied_force: None,
            bar_force: force,
            delta,
            delta_over_d: delta / 10.0,
            area_ratio: 1.0,
            pressure_force: 0.0,
            bodies_on_bar: 1.0,
            perimeter_error: 0.0,
            tangential_force: 0.0,
            rotation: 0.0,
            model_force: Some(force / 2.0),
        }
    }

    /// F = k·δ² on levels 1, 2, 3, 4 m (D = 10 m).
    fn result(k: f64) -> FdResult {
        let levels = (1..=4).map(|i| level(Phase::Load, i as f64, k * (i * i) as f64)).collect();
        FdResult {
            label: "x".into(),
            pressure: k,
            bodies: 100,
            radius: 5.0,
            dt: 0.02,
            substeps: 16,
            force_substeps: 1,
            h0: 10.0,
            levels,
            max_perimeter_error: 0.0,
            steps: 1,
        }
    }

    #[test]
    fn tangent_is_a_central_difference_and_the_ratio_spans_the_middle_levels() {
        let r = result(3.0);
        // (F(3) − F(1)) / 2 = (27 − 3) / 2 = 12 = dF/dδ of 3δ² at δ = 2.
        assert_eq!(measured_tangent(&r, 2.0, 1.0), Some(12.0));
        assert_eq!(measured_tangent(&r, 4.0, 1.0), None, "beyond the last level");
        assert_eq!(model_ratio_range(&r), (Some(2.0), Some(2.0)));
    }

    #[test]
    fn the_csv_has_the_spec_header_and_ordering_compares_neighbouring_c() {
        let run = |c: f64| FdRun::of(c, Normals::Geometric, 16, Ok(result(c)));
        let mut data = FdData {
            preset: "scs-paper".into(),
            params: CellPreset::ScsPaper.params(),
            dt: 0.02,
            substeps: 16,
            force_substeps: 1,
            levels: 4,
            spec: FdSpecText { max_deflection: 0.5, settle: 2.0, average: 0.5, ramp: 0.5 },
            runs: vec![run(50.0), run(450.0)],
            tangents: Vec::new(),
            probe_pressure: 450.0,
            convergence: Vec::new(),
            ratios: Vec::new(),
            normals_runs: Vec::new(),
            stability: Vec::new(),
            first_unstable: None,
            tunability: Vec::new(),
        };
        let csv = data.csv();
        assert_eq!(csv.lines().next().unwrap(), FD_CSV_HEADER.join(","));
        assert_eq!(csv.lines().count(), 1 + 8);
        assert_eq!(data.ordering(), (4, Vec::new()));
        data.runs[1] = run(10.0);
        data.runs[1].pressure = 450.0; // a stiffer C that gives less force: every level out of order
        assert_eq!(data.ordering().1.len(), 4);
    }
}
