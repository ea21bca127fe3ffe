//! The scenarios the registered Gymnasium environments start from (`vsr2d/Locomotion-v0`,
//! `vsr2d/Jumping-v0`, …): the repository's task fixtures, embedded so an installed wheel has them.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

const FIXTURES: [(&str, &str); 7] = [
    ("locomotion", include_str!("../../fixtures/scenarios/biped.json")),
    ("jumping", include_str!("../../fixtures/scenarios/jumping.json")),
    ("carrying", include_str!("../../fixtures/scenarios/carrying.json")),
    ("pushing", include_str!("../../fixtures/scenarios/pushing.json")),
    ("climbing", include_str!("../../fixtures/scenarios/climbing.json")),
    ("balancing", include_str!("../../fixtures/scenarios/balancing.json")),
    ("shape", include_str!("../../fixtures/scenarios/shape.json")),
];

/// The JSON text of the task's example scenario (`fixtures/scenarios/<task>.json`; `biped.json` for
/// locomotion).
#[pyfunction]
pub fn task_scenario(task: &str) -> PyResult<&'static str> {
    FIXTURES.iter().find(|(name, _)| *name == task).map(|(_, text)| *text).ok_or_else(|| {
        let names: Vec<&str> = FIXTURES.iter().map(|(n, _)| *n).collect();
        PyValueError::new_err(format!("no example scenario for task {task:?}; tasks: {}", names.join(", ")))
    })
}
