//! (Patch) The state a [`crate::pipeline::PhysicsHooks::substep_forces`] hook reads and pushes
//! within a step: the awake island's solver bodies at the start of a solver substep.

use super::solver_body::SolverBodies;
use crate::dynamics::{RigidBodyHandle, RigidBodySet};
use crate::math::{Real, Rotation, Vector};
use core::ops::Range;

/// The awake bodies at the start of one solver substep, as the solver holds them: poses already
/// integrated over the previous substeps, velocities after this substep's constant increments
/// (gravity and the bodies' user forces). Impulses applied here act over this substep only.
pub struct SubstepState<'a> {
    pub(crate) dt: Real,
    pub(crate) substep: usize,
    pub(crate) bodies: &'a RigidBodySet,
    pub(crate) island_bodies: &'a [RigidBodyHandle],
    /// The solver slots this call may touch (the substep group's).
    pub(crate) slots: Range<usize>,
    pub(crate) solver_bodies: &'a mut SolverBodies,
}

impl SubstepState<'_> {
    /// The substep's length, s.
    pub fn dt(&self) -> Real {
        self.dt
    }

    /// The substep's index within the step (0 first).
    pub fn substep(&self) -> usize {
        self.substep
    }

    /// The solver slot of an awake dynamic body of this call's group; `None` for any other body.
    /// Slots stay the same through the substeps of a step, not from one step to the next.
    pub fn slot(&self, handle: RigidBodyHandle) -> Option<usize> {
        let slot = self.bodies.get(handle)?.ids.active_set_id as usize;
        (self.slots.contains(&slot) && self.island_bodies.get(slot) == Some(&handle)).then_some(slot)
    }

    /// The world position of the body's centre of mass now.
    pub fn translation(&self, slot: usize) -> Vector {
        self.solver_bodies.poses[slot].translation
    }

    /// The body's orientation now.
    pub fn rotation(&self, slot: usize) -> Rotation {
        self.solver_bodies.poses[slot].rotation
    }

    /// The body's linear velocity now.
    pub fn linvel(&self, slot: usize) -> Vector {
        self.solver_bodies.vels[slot].linear
    }

    /// Changes the body's linear velocity by `impulse` over its mass (a force times [`Self::dt`]);
    /// locked translation axes stay still.
    pub fn apply_impulse(&mut self, slot: usize, impulse: Vector) {
        let im = self.solver_bodies.poses[slot].im;
        self.solver_bodies.vels[slot].linear += impulse * im;
    }
}
