//! Plain data of a cantilever characterization (spec §13): what the experiment measured and with which
//! settings. Everything downstream (analysis, plots, report) reads only these types, so reports can be
//! built from fixed data in tests or re-rendered from a saved `results.json`.

use serde::{Deserialize, Deserializer, Serialize};

use vsr2d::model::voxel::scaffolding::Scaffolding;
use vsr2d::task::cantilever::PAPER;

/// One static run: constant load for the whole run, final tip displacement recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StaticRun {
    /// Beam width (voxels along x, the beam length).
    pub w: u32,
    /// Beam height (voxels along y, the beam thickness).
    pub h: u32,
    /// Spring frequency f_s of every scaffolding spring (Hz).
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    /// Total load |F| (N), pointing in −y.
    pub force_n: f64,
    /// δ at the end of the run (m); negative when the beam bends down. A diverged run may be NaN
    /// (written as `null` in JSON and an empty CSV field).
    #[serde(deserialize_with = "f64_or_nan")]
    #[schemars(with = "Option<f64>")]
    pub dy_final_m: f64,
}

/// One dynamic run: a short impulse of load, then free oscillation; δ recorded at every step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DynamicRun {
    pub w: u32,
    pub h: u32,
    pub fs_hz: f64,
    pub scaffolding: Scaffolding,
    /// Load |F| (N) during the impulse, pointing in −y.
    pub force_n: f64,
    /// The load acts on steps k < impulse_steps.
    pub impulse_steps: u32,
    /// Time step (s); sample k is at t = k·dt (never accumulated).
    pub dt: f64,
    /// δ(t_k) (m) for k = 0, 1, …; non-finite samples are written as `null`.
    #[serde(deserialize_with = "vec_f64_or_nan")]
    #[schemars(with = "Vec<Option<f64>>")]
    pub dy_m: Vec<f64>,
}

impl DynamicRun {
    /// The time of sample k.
    pub fn time(&self, k: usize) -> f64 {
        k as f64 * self.dt
    }
}

/// One extra row of the settings table, for anything the experiment wants to state that has no field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Setting {
    pub name: String,
    pub value: String,
}

/// The settings a reader needs to reproduce or judge the numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReportSettings {
    /// vsr2d version that produced the data.
    pub version: String,
    /// Material/parameter preset name (e.g. `default`, `legacy-1.0`).
    pub preset: String,
    /// Simulation time step (s).
    pub dt: f64,
    pub static_duration_s: f64,
    pub dynamic_duration_s: f64,
    pub static_force_n: f64,
    pub dynamic_force_n: f64,
    /// Duration of the dynamic impulse (s); the load acts on round(impulse_s/dt) steps.
    #[serde(default)]
    pub impulse_s: f64,
    /// Voxel side l (m): the beam length is w·l, which the report uses to judge "small deflection".
    #[serde(default = "default_voxel_side")]
    pub voxel_side_m: f64,
    pub solver_iterations: usize,
    /// How converged the implicit springs are at this iteration count (free text, shown verbatim).
    pub convergence_note: String,
    /// Anything else worth stating, shown after the fixed rows of the settings table.
    #[serde(default)]
    pub extra: Vec<Setting>,
}

fn default_voxel_side() -> f64 {
    3.0
}

impl Default for ReportSettings {
    /// The paper's experiment ([`PAPER`]) with this build's version and solver default.
    fn default() -> Self {
        ReportSettings {
            version: env!("CARGO_PKG_VERSION").to_string(),
            preset: "default".into(),
            dt: PAPER.dt,
            static_duration_s: PAPER.static_duration_s,
            dynamic_duration_s: PAPER.dynamic_duration_s,
            static_force_n: PAPER.static_force_n,
            dynamic_force_n: PAPER.dynamic_force_n,
            impulse_s: PAPER.impulse_s,
            voxel_side_m: default_voxel_side(),
            solver_iterations: vsr2d::sim::world::DEFAULT_SOLVER_ITERATIONS,
            convergence_note: "not measured".into(),
            extra: vec![],
        }
    }
}

/// Everything one `vsr2d cantilever` run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CantileverData {
    pub settings: ReportSettings,
    #[serde(default)]
    pub static_runs: Vec<StaticRun>,
    #[serde(default)]
    pub dynamic_runs: Vec<DynamicRun>,
    /// The runs repeated with the `legacy-1.0` preset for the comparison with the original 2D-VSR-Sim
    /// 1.0.0; `None` when the comparison was not run (`--no-reference`).
    #[serde(default)]
    pub reference_runs: Option<ReferenceRuns>,
    /// The worm gait set run with `legacy-1.0` against the original's velocities; `None` when the
    /// comparison was not run.
    #[serde(default)]
    pub locomotion: Option<super::locomotion::LocomotionComparison>,
}

/// The `legacy-1.0` runs that the original's measurements cover: the same experiments as the main
/// sweep, under the original's conditions (30 N for 60 s; 800 N impulse, 15 s record; dt = 1/60 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReferenceRuns {
    /// Material preset of these runs (`legacy-1.0`).
    pub preset: String,
    /// True when the main sweep already used `legacy-1.0` under these conditions, so its runs were
    /// reused instead of run twice.
    pub reused_main_runs: bool,
    pub dt: f64,
    pub static_duration_s: f64,
    pub dynamic_duration_s: f64,
    pub solver_iterations: usize,
    #[serde(default)]
    pub static_runs: Vec<StaticRun>,
    #[serde(default)]
    pub dynamic_runs: Vec<DynamicRun>,
}

/// serde_json writes NaN and infinities as `null`; read them back as NaN so a report of a diverged run
/// can still be re-read.
fn f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

fn vec_f64_or_nan<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    Ok(Vec::<Option<f64>>::deserialize(d)?.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_round_trip_through_json_with_non_finite_values() {
        let run = DynamicRun {
            w: 10,
            h: 2,
            fs_hz: 8.0,
            scaffolding: Scaffolding::EIX,
            force_n: 800.0,
            impulse_steps: 6,
            dt: 1.0 / 60.0,
            dy_m: vec![0.0, -0.1234567890123, f64::NAN],
        };
        let text = serde_json::to_string(&run).unwrap();
        assert!(text.contains("\"scaffolding\":\"E+I+X\""), "{text}");
        assert!(text.contains("null"), "{text}");
        let back: DynamicRun = serde_json::from_str(&text).unwrap();
        assert_eq!(back.dy_m[1], run.dy_m[1]);
        assert!(back.dy_m[2].is_nan());
        assert_eq!(back.time(3), 3.0 / 60.0);
    }
}
