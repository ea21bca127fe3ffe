//! Checks made before Python input reaches Rust code that could not survive it: nesting (a
//! self-referential dict, a very deep list would overflow the stack while converting), the size of a
//! structure, thread counts, and the resource limits `allow_large=True` lifts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use vsr2d::batch::EvalError;
use vsr2d::scenario::{Limits, ScenarioError, Scene};
use vsr2d::task::{Evaluation, RunResult};

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
    walk(obj, 0, &mut values, "")
}

/// Walks `obj` (at `path`, e.g. `robots[0].body`), refusing values beyond the limits and anything JSON
/// has no value for, with its path and the fix.
fn walk(obj: &Bound<'_, PyAny>, depth: usize, values: &mut usize, path: &str) -> PyResult<()> {
    *values += 1;
    if *values > MAX_VALUES {
        return Err(PyValueError::new_err(format!(
            "the input holds more than {MAX_VALUES} values (a list or dict repeated inside itself?)"
        )));
    }
    let nested = obj.is_instance_of::<PyDict>() || obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>();
    if !nested {
        return leaf(obj, path);
    }
    if depth >= MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "the input is nested deeper than {MAX_DEPTH} levels (a dict or list that contains itself?)"
        )));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        for (k, v) in d.iter() {
            let key = k.str().map(|s| s.to_string()).unwrap_or_default();
            let at = if path.is_empty() { key } else { format!("{path}.{key}") };
            walk(&v, depth + 1, values, &at)?;
        }
    } else {
        for (i, item) in obj.try_iter()?.enumerate() {
            walk(&item?, depth + 1, values, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

/// Refuses a numpy array where JSON has a list, naming where it is and the fix: the habit of EvoGym
/// users, whose bodies are integer arrays. Other values are left to the conversion to JSON.
fn leaf(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<()> {
    let ty = obj.get_type();
    let is_array = ty.name().is_ok_and(|n| n == "ndarray") && ty.module().is_ok_and(|m| m == "numpy");
    if !is_array {
        return Ok(());
    }
    let at = if path.is_empty() { "the input".to_string() } else { format!("`{path}`") };
    let body = if path.ends_with("body") {
        "; a body is a list of strings, rows top first, one character per cell (`#` a voxel, `.` empty, or a key \
         of the robot's `materials`), e.g. [\"###\", \"#.#\"]"
    } else {
        ""
    };
    Err(PyValueError::new_err(format!(
        "{at} is a numpy array, which JSON has no value for: give a list (`.tolist()`){body}"
    )))
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

/// Locks a `Simulation`'s state without deadlocking: while another thread holds it (stepping with the
/// GIL released), this one waits with the GIL released too, so the holder can take the GIL back and
/// finish. Calls on one `Simulation` from several threads are thereby serialised.
pub fn lock<'a, T>(mutex: &'a Mutex<T>) -> MutexGuard<'a, T> {
    loop {
        match mutex.try_lock() {
            Ok(guard) => return guard,
            Err(TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                Python::attach(|py| py.detach(|| std::thread::sleep(Duration::from_micros(200))));
            }
        }
    }
}

/// How often a long call looks for a signal (Ctrl-C) while Rust works.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released, checking for signals every 50 ms: on Ctrl-C it
/// sets the `cancel` flag `work` polls, waits for it to stop (within one engine step for a simulation)
/// and raises `KeyboardInterrupt`.
pub fn interruptible<T: Send>(py: Python<'_>, work: impl FnOnce(&AtomicBool) -> T + Send) -> PyResult<T> {
    let cancel = AtomicBool::new(false);
    std::thread::scope(|s| {
        let handle = s.spawn(|| work(&cancel));
        loop {
            py.detach(|| {
                let start = std::time::Instant::now();
                while !handle.is_finished() && start.elapsed() < SIGNAL_POLL {
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
            if handle.is_finished() {
                return Ok(handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
            }
            if let Err(interrupt) = py.check_signals() {
                cancel.store(true, Ordering::Relaxed);
                let _ = py.detach(|| handle.join());
                return Err(interrupt);
            }
        }
    })
}

/// The largest frame side a Python call renders (the command line's `--size` limit, 16384²·4 bytes =
/// 1 GiB a frame).
pub fn check_frame(width: u32, height: u32) -> PyResult<()> {
    let max = vsr2d::scenario::MAX_FRAME_SIDE;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(PyValueError::new_err(format!(
            "width × height = {width} × {height}: give 1 … {max} pixels each way"
        )));
    }
    Ok(())
}

/// [`vsr2d::batch::evaluate`] of a scenario the caller resolved (its limits checked) that stops (with an
/// error nobody sees: [`interruptible`] raises `KeyboardInterrupt` instead) once `cancel` is set.
pub fn evaluate(scene: Result<Scene, ScenarioError>, cancel: &AtomicBool) -> Result<RunResult, EvalError> {
    match scene?.build()?.evaluate_while(|_| !cancel.load(Ordering::Relaxed))? {
        Evaluation::Done(result) => vsr2d::batch::finite(result),
        Evaluation::Stopped { step, steps } => Err(EvalError::Timeout { budget: Duration::ZERO, step, steps }),
    }
}

/// A frame sink that fails once `cancel` is set, so a video render stops at the next frame after Ctrl-C
/// ([`interruptible`] raises `KeyboardInterrupt`; the unfinished file is deleted when the sink drops).
pub struct Cancellable<'a> {
    pub inner: Box<dyn vsr2d::output::FrameSink + Send>,
    pub cancel: &'a AtomicBool,
}

impl vsr2d::output::FrameSink for Cancellable<'_> {
    fn push(&mut self, frame: &tiny_skia::Pixmap) -> Result<(), vsr2d::output::FrameError> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(vsr2d::output::FrameError::Io {
                path: "(interrupted)".into(),
                source: std::io::Error::new(std::io::ErrorKind::Interrupted, "interrupted by a signal"),
            });
        }
        self.inner.push(frame)
    }

    fn frame_count(&self) -> u64 {
        self.inner.frame_count()
    }

    fn finish(self: Box<Self>) -> Result<(), vsr2d::output::FrameError> {
        self.inner.finish()
    }
}
