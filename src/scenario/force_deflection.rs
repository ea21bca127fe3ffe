//! The `force_deflection` task's JSON (spec `cells.md` §11) and its validation.

use serde::{Deserialize, Serialize};

use super::ScenarioError;

/// How the cell is loaded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FdLoad {
    /// A kinematic bar lowered level by level (implemented).
    #[default]
    Displacement,
    /// The paper's: a dynamic bar on a vertical prismatic joint under a stepwise force (not implemented
    /// yet: refused by the validation).
    Force,
}

/// `{"type": "force_deflection", …}`: one cell pinned at its lowest body (N/2) to a fixed flat ground,
/// pressed by a horizontal bar 3·D wide, level by level up to δ = `max_deflection`·D, then unloaded.
/// The task places the cell itself (centre above the ground, rotation 0): `cells[0].position` and
/// `rotation` are not used, nor is `world.terrain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ForceDeflectionSpec {
    /// `displacement` (default, kinematic bar) or `force` (not implemented yet).
    pub load: FdLoad,
    /// Loading levels, evenly spaced in δ up to `max_deflection`·D (default 10).
    pub levels: usize,
    /// Largest deflection as a fraction of D = 2R (default 0.5).
    pub max_deflection: f64,
    /// Time each level is held before averaging, s (default 2); the bar moves during its first `ramp` s.
    pub settle: f64,
    /// Averaging time after the settling, s (default 0.5).
    pub average: f64,
    /// Time the bar takes to move from one level to the next, s, within `settle` (default 0.5, ours).
    pub ramp: f64,
    /// Unload level by level back to δ = 0 after the last level (default true).
    pub unload: bool,
    /// Gravity during the task, m/s² (default [0, 0], the cell scenes' default, cells.md §1; this task
    /// does not use `world.gravity`, whose default is the voxel robots' [0, −9.8]).
    pub gravity: [f64; 2],
}

impl Default for ForceDeflectionSpec {
    fn default() -> Self {
        ForceDeflectionSpec {
            load: FdLoad::Displacement,
            levels: 10,
            max_deflection: 0.5,
            settle: 2.0,
            average: 0.5,
            ramp: 0.5,
            unload: true,
            gravity: [0.0, 0.0],
        }
    }
}

impl ForceDeflectionSpec {
    /// Checks the task against the time step `dt`; errors name `task.<field>` and the fix.
    pub fn validate(&self, dt: f64) -> Result<(), ScenarioError> {
        let err = |field: &str, message: String| ScenarioError::Json { path: format!("task.{field}"), message };
        if self.load == FdLoad::Force {
            return Err(err(
                "load",
                "`force` (the dynamic bar on a prismatic joint) is not implemented yet; use `displacement`".into(),
            ));
        }
        if !(1..=1000).contains(&self.levels) {
            return Err(err("levels", format!("{} levels: use between 1 and 1000", self.levels)));
        }
        let m = self.max_deflection;
        if !(m.is_finite() && m > 0.0 && m <= 0.9) {
            return Err(err(
                "max_deflection",
                format!("{m}: must be in (0, 0.9] (a fraction of D; 0.5 is the spec's)"),
            ));
        }
        for (field, value) in [("settle", self.settle), ("average", self.average), ("ramp", self.ramp)] {
            if !(value.is_finite() && (0.0..=1000.0).contains(&value)) {
                return Err(err(field, format!("{value}: must be a time in [0, 1000] s")));
            }
        }
        if self.average < dt {
            return Err(err("average", format!("{} s: must last at least one step (dt = {dt} s)", self.average)));
        }
        if self.ramp > self.settle {
            return Err(err(
                "ramp",
                format!("{} s: the bar moves within `settle` ({} s); use ramp ≤ settle", self.ramp, self.settle),
            ));
        }
        for (i, g) in self.gravity.iter().enumerate() {
            if !(g.is_finite() && g.abs() <= super::MAX_GRAVITY) {
                return Err(err(&format!("gravity[{i}]"), format!("{g}: must be in [-1000, 1000] m/s²")));
            }
        }
        Ok(())
    }
}
