//! Checks made before Python input reaches Rust code that could not survive it: nesting (a
//! self-referential dict, a very deep list would overflow the stack while converting), the size of a
//! structure, thread counts, and the resource limits `allow_large=True` lifts.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use vsr2d::scenario::Limits;

/// Deeper nesting than any scenario or experiment has (serde_json's own limit for JSON text is 128).
pub const MAX_DEPTH: usize = 128;
/// More values than any scenario or experiment holds (a shared sub-list can make a small object huge).
pub const MAX_VALUES: usize = 10_000_000;
/// The `jobs` cap of every front door (`eval`, `evolve`, `study`).
pub const MAX_JOBS: usize = 1024;

/// Refuses input nested deeper than [`MAX_DEPTH`] (or self-referential) or with more than
/// [`MAX_VALUES`] values, with a `ValueError`, before it is converted.
pub fn check_nesting(obj: &Bound<'_, PyAny>) -> PyResult<()> {
    let mut values = 0usize;
    walk(obj, 0, &mut values)
}

fn walk(obj: &Bound<'_, PyAny>, depth: usize, values: &mut usize) -> PyResult<()> {
    *values += 1;
    if *values > MAX_VALUES {
        return Err(PyValueError::new_err(format!(
            "the input holds more than {MAX_VALUES} values (a list or dict repeated inside itself?)"
        )));
    }
    let nested = obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if !nested {
        return Ok(());
    }
    if depth >= MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "the input is nested deeper than {MAX_DEPTH} levels (a dict or list that contains itself?)"
        )));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        for (_, v) in d.iter() {
            walk(&v, depth + 1, values)?;
        }
    } else {
        for item in obj.try_iter()? {
            walk(&item?, depth + 1, values)?;
        }
    }
    Ok(())
}

/// Refuses `jobs` above [`MAX_JOBS`] or 0 given explicitly.
pub fn check_jobs(jobs: Option<usize>) -> PyResult<usize> {
    match jobs {
        None => Ok(0),
        Some(j) if (1..=MAX_JOBS).contains(&j) => Ok(j),
        Some(j) => Err(PyValueError::new_err(format!("jobs = {j}: give 1 … {MAX_JOBS} worker threads"))),
    }
}

/// The resource limits: the documented defaults, none with `allow_large=True`.
pub fn limits(allow_large: bool) -> Limits {
    if allow_large {
        Limits::NONE
    } else {
        Limits::DEFAULT
    }
}
