//! The `force_deflection` task's JSON (spec `cells.md` §11) and its validation.

pub use crate::task::force_deflection::{FdLoad, ForceDeflectionSpec};

use super::{Scenario, ScenarioError, TaskSpec};
use crate::geom::compact;
use crate::task::force_deflection::{run, FdError, FdResult};

/// Checks the task against the time step `dt`; errors name `task.<field>` and the fix.
pub fn validate(spec: &ForceDeflectionSpec, dt: f64) -> Result<(), ScenarioError> {
    let err = |field: &str, message: String| ScenarioError::Json { path: format!("task.{field}"), message };
    if let Some(f) = spec.max_force {
        if !(f.is_finite() && f > 0.0 && f <= 1e7) {
            return Err(err(
                "max_force",
                format!("{f} N: must be in (0, 1e7] N, or left out for the stadium model's force at max_deflection"),
            ));
        }
        if spec.load != FdLoad::Force {
            return Err(err(
                "max_force",
                "applies to `load: force` only: drop it, or set `\"load\": \"force\"`".into(),
            ));
        }
    }
    if !(1..=1000).contains(&spec.levels) {
        return Err(err("levels", format!("{} levels: use between 1 and 1000", spec.levels)));
    }
    let m = spec.max_deflection;
    if !(m.is_finite() && m > 0.0 && m <= 0.9) {
        return Err(err(
            "max_deflection",
            format!("{}: must be in (0, 0.9] (a fraction of D; 0.5 is the spec's)", compact(m)),
        ));
    }
    for (field, value) in [("settle", spec.settle), ("average", spec.average), ("ramp", spec.ramp)] {
        if !(value.is_finite() && (0.0..=1000.0).contains(&value)) {
            return Err(err(field, format!("{}: must be a time in [0, 1000] s", compact(value))));
        }
    }
    if spec.average < dt {
        return Err(err(
            "average",
            format!("{} s: must last at least one step (dt = {} s)", compact(spec.average), compact(dt)),
        ));
    }
    if spec.ramp > spec.settle {
        return Err(err(
            "ramp",
            format!(
                "{} s: the bar moves within `settle` ({} s); use ramp ≤ settle",
                compact(spec.ramp),
                compact(spec.settle)
            ),
        ));
    }
    for (i, g) in spec.gravity.iter().enumerate() {
        if !(g.is_finite() && g.abs() <= super::MAX_GRAVITY) {
            return Err(err(&format!("gravity[{i}]"), format!("{}: must be in [-1000, 1000] m/s²", compact(*g))));
        }
    }
    Ok(())
}

/// Why [`run_scenario`] could not run.
#[derive(Debug, thiserror::Error)]
pub enum FdRunError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("the scenario's task is not `force_deflection`")]
    NotForceDeflection,
    #[error(transparent)]
    Task(#[from] FdError),
}

/// Runs the task for the scenario (which must have `"task": {"type": "force_deflection"}`): its single
/// cell, `world.dt`, `world.force_substeps` and `world.solver_iterations` (default: [`Scenario::stepping`]).
pub fn run_scenario(scenario: &Scenario) -> Result<FdResult, FdRunError> {
    let TaskSpec::ForceDeflection(spec) = &scenario.task else {
        return Err(FdRunError::NotForceDeflection);
    };
    validate(spec, scenario.world.dt)?;
    let params = super::cells::validate(&scenario.cell_types, &scenario.cells)?;
    let (Some(p), Some(cell)) = (params.first(), scenario.cells.first()) else {
        return Err(ScenarioError::Json { path: "cells".into(), message: "add one cell".into() }.into());
    };
    Ok(run(&cell.id, p, scenario.world.dt, scenario.stepping(), spec)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_with_the_task_parses_validates_and_runs() {
        let text = std::fs::read_to_string("fixtures/scenarios/cells-force-deflection.json").unwrap();
        let s = Scenario::from_json(&text).unwrap();
        let TaskSpec::ForceDeflection(spec) = &s.task else { panic!("{:?}", s.task) };
        assert_eq!(spec.gravity, [0.0, 0.0]);
        // Bad input is refused with the JSON path and a fix.
        let with_task = |task: &str| format!("{}\"task\": {task}\n}}\n", &text[..text.find("\"task\"").unwrap()]);
        Scenario::from_json(&with_task(r#"{"type": "force_deflection"}"#)).unwrap();
        for (edit, path) in [
            (r#""levels": 0"#, "task.levels"),
            (r#""max_force": 100"#, "task.max_force"),
            (r#""load": "force", "max_force": -1"#, "task.max_force"),
            (r#""max_deflection": 2"#, "task.max_deflection"),
            (r#""ramp": 5"#, "task.ramp"),
            (r#""bar": 1"#, "task.bar"),
        ] {
            let e = Scenario::from_json(&with_task(&format!(r#"{{"type": "force_deflection", {edit}}}"#))).unwrap_err();
            assert_eq!(e.path(), path, "{e}");
        }
        let two =
            text.replacen(r#""cells": ["#, r#""cells": [{ "id": "b", "type": "stiff", "position": [100, 6] },"#, 1);
        let e = Scenario::from_json(&two).unwrap_err();
        assert_eq!(e.path(), "cells", "{e}");
        assert!(e.to_string().contains("exactly one cell"), "{e}");
    }
}
