//! Control values set from outside the simulation, between steps: a Python policy, a reinforcement-
//! learning agent, a script. The world calls the controller as usual; it outputs the values last set
//! through its [`ActionHandle`].

use std::sync::{Arc, Mutex, PoisonError};

use super::{Controller, ControllerIo};
use crate::model::voxel::sensors::SensorReadings;

/// A controller that outputs the values last written through its handle (0 until then).
pub struct ExternalController {
    actions: Arc<Mutex<Vec<f64>>>,
    last: Vec<f64>,
}

/// The writing end of an [`ExternalController`].
#[derive(Clone)]
pub struct ActionHandle {
    actions: Arc<Mutex<Vec<f64>>>,
}

impl ExternalController {
    /// A controller of `voxels` values and the handle that sets them.
    pub fn new(voxels: usize) -> (ExternalController, ActionHandle) {
        let actions = Arc::new(Mutex::new(vec![0.0; voxels]));
        (ExternalController { actions: actions.clone(), last: vec![0.0; voxels] }, ActionHandle { actions })
    }
}

impl ActionHandle {
    /// How many values the controller outputs (one per voxel, grid order).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sets the values the next control steps output; `values` must hold [`ActionHandle::len`] of
    /// them (the caller checks, so the message can name its own argument).
    pub fn set(&self, values: &[f64]) {
        let mut actions = self.lock();
        let n = actions.len().min(values.len());
        actions[..n].copy_from_slice(&values[..n]);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<f64>> {
        // Only plain numbers live behind the lock: a panic elsewhere cannot leave them inconsistent.
        self.actions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Controller for ExternalController {
    fn control(&mut self, _t: f64, _readings: &[SensorReadings], outputs: &mut [f64]) {
        let actions = self.actions.lock().unwrap_or_else(PoisonError::into_inner);
        for ((out, a), last) in outputs.iter_mut().zip(actions.iter()).zip(&mut self.last) {
            *out = *a;
            *last = *a;
        }
    }

    fn io(&self) -> Option<ControllerIo> {
        Some(ControllerIo { inputs: Vec::new(), outputs: self.last.clone(), signals: None })
    }

    fn needs_sensors(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_what_the_handle_set_last() {
        let (mut c, handle) = ExternalController::new(3);
        let mut out = [9.0; 3];
        c.control(0.0, &[], &mut out);
        assert_eq!(out, [0.0; 3], "0 before anything is set");
        handle.set(&[0.5, -1.0, 0.25]);
        c.control(0.1, &[], &mut out);
        assert_eq!(out, [0.5, -1.0, 0.25]);
        assert_eq!(c.io().map(|io| io.outputs), Some(vec![0.5, -1.0, 0.25]));
        assert_eq!(handle.len(), 3);
    }
}
