//! The one result of a run: what `vsr2d simulate` prints, and what `eval`, `render`, `evolve` and the
//! Python package return for the same scenario, bit for bit.

use serde::{Deserialize, Serialize};

use super::balancing::BalancingMetrics;
use super::carrying::CarryingMetrics;
use super::climbing::ClimbingMetrics;
use super::fold::FoldMetrics;
use super::force_deflection::FdResult;
use super::free::CellMetrics;
use super::jumping::JumpingMetrics;
use super::locomotion::LocomotionMetrics;
use super::pushing::PushingMetrics;
use super::shape::ShapeMetrics;

/// `{"robots": [...], "cells": [...], "<task>": {...}}`: every voxel robot's locomotion metrics, every
/// soft cell's metrics (in a scene with cells), and the task's own metrics under the task's name.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunResult {
    pub robots: Vec<LocomotionMetrics>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<CellMetrics>>,
    #[serde(flatten)]
    pub task: Option<TaskMetrics>,
}

/// A task's own metrics, keyed by the task's name in the result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskMetrics {
    Fold(Vec<FoldMetrics>),
    ForceDeflection(FdResult),
    Jumping(JumpingMetrics),
    Carrying(CarryingMetrics),
    Pushing(PushingMetrics),
    Climbing(ClimbingMetrics),
    Balancing(BalancingMetrics),
    Shape(ShapeMetrics),
}

impl TaskMetrics {
    /// The task's figures so far as overlay text: its numbers rounded to 2 decimals, three to a line
    /// (`max_height 1.68, max_centre_rise 1.12, airtime 0.70`), times not reached yet as `-`; a fold, each
    /// chain's error to its letter now. The force–deflection sweep is not rendered.
    pub fn figures(&self) -> String {
        let value = match self {
            TaskMetrics::Fold(chains) => {
                let lines: Vec<String> =
                    chains.iter().map(|c| format!("{}: error {:.3} D", c.program, c.final_error)).collect();
                return lines.join("\n");
            }
            TaskMetrics::ForceDeflection(_) => return String::new(),
            other => serde_json::to_value(other).unwrap_or_default(),
        };
        let Some(fields) = value.as_object().and_then(|m| m.values().next()).and_then(|v| v.as_object()) else {
            return String::new();
        };
        let items: Vec<String> = fields
            .iter()
            .map(|(k, v)| match v.as_f64() {
                Some(x) => format!("{k} {x:.2}"),
                None => format!("{k} -"),
            })
            .collect();
        items.chunks(3).map(|c| c.join(", ")).collect::<Vec<_>>().join("\n")
    }
}

impl RunResult {
    /// A result with only the task's metrics (the force–deflection sweep has no robot).
    pub(crate) fn of_task(task: TaskMetrics) -> RunResult {
        RunResult { robots: Vec::new(), cells: None, task: Some(task) }
    }

    /// The first metric that is NaN or infinite, as its JSON pointer (`/robots/0/x_velocity`): such a
    /// value is no result and cannot be written as JSON.
    pub fn non_finite(&self) -> Option<String> {
        fn walk(v: &serde_json::Value, at: String) -> Option<String> {
            match v {
                serde_json::Value::Null => Some(at),
                serde_json::Value::Array(items) => {
                    items.iter().enumerate().find_map(|(i, item)| walk(item, format!("{at}/{i}")))
                }
                serde_json::Value::Object(map) => map.iter().find_map(|(k, item)| walk(item, format!("{at}/{k}"))),
                _ => None,
            }
        }
        // serde_json writes non-finite floats as null; the results' optional times (`dropped_at`) are
        // the only nulls a finite result has.
        let mut value = serde_json::to_value(self).ok()?;
        strip_optional_nulls(&mut value);
        walk(&value, String::new())
    }

    /// The number at `pointer` (`/jumping/max_height`, `/robots/0/x_velocity`), if there is one.
    pub fn number(&self, pointer: &str) -> Option<f64> {
        serde_json::to_value(self).ok()?.pointer(pointer)?.as_f64()
    }
}

/// Removes the fields whose null means "never happened" (`dropped_at`, `fell_at`).
fn strip_optional_nulls(v: &mut serde_json::Value) {
    if let serde_json::Value::Object(map) = v {
        map.retain(|k, item| !(item.is_null() && OPTIONAL_TIMES.contains(&k.as_str())));
        map.values_mut().for_each(strip_optional_nulls);
    } else if let serde_json::Value::Array(items) = v {
        items.iter_mut().for_each(strip_optional_nulls);
    }
}

/// The result fields that are a time or null.
const OPTIONAL_TIMES: [&str; 2] = ["dropped_at", "fell_at"];

impl<'de> Deserialize<'de> for RunResult {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[derive(Deserialize)]
        struct Wire {
            robots: Vec<LocomotionMetrics>,
            #[serde(default)]
            cells: Option<Vec<CellMetrics>>,
            #[serde(flatten)]
            task: serde_json::Map<String, serde_json::Value>,
        }
        let wire = Wire::deserialize(d)?;
        let task = match wire.task.len() {
            0 => None,
            1 => Some(TaskMetrics::deserialize(serde_json::Value::Object(wire.task)).map_err(D::Error::custom)?),
            _ => {
                let keys: Vec<&String> = wire.task.keys().collect();
                return Err(D::Error::custom(format!("a result has one task's metrics, not {keys:?}")));
            }
        };
        Ok(RunResult { robots: wire.robots, cells: wire.cells, task })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_round_trips_with_its_task_under_the_tasks_name() {
        let r = RunResult::of_task(TaskMetrics::Jumping(JumpingMetrics {
            max_height: 1.5,
            max_centre_rise: 0.25,
            airtime: 0.5,
        }));
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(text, r#"{"robots":[],"jumping":{"max_height":1.5,"max_centre_rise":0.25,"airtime":0.5}}"#);
        assert_eq!(serde_json::from_str::<RunResult>(&text).unwrap(), r);
        assert_eq!(r.number("/jumping/airtime"), Some(0.5));
        assert_eq!(r.non_finite(), None);
        let bad = RunResult::of_task(TaskMetrics::Jumping(JumpingMetrics {
            max_height: f64::NAN,
            max_centre_rise: 0.0,
            airtime: 0.0,
        }));
        assert_eq!(bad.non_finite().as_deref(), Some("/jumping/max_height"));
        let carried = RunResult::of_task(TaskMetrics::Carrying(CarryingMetrics {
            box_distance: 0.0,
            robot_distance: 0.0,
            carried_distance: 0.0,
            dropped_at: None,
        }));
        assert_eq!(carried.non_finite(), None, "a box never dropped is no failure");
    }
}
