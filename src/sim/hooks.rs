//! What the engine calls back during one step: the contact filter, and the cells' pressure at every
//! solver substep.

use rapier2d::prelude::*;

use super::cell::pressure::SubstepPressure;
use super::cell::Cell;
use super::contact::ContactFilter;
use super::kinds::BodyRuntime;

/// The hooks of one engine step, borrowing the world's parts.
pub(crate) struct StepHooks<'a> {
    filter: &'a ContactFilter,
    /// The cells in world order (the engine may call hooks from its workers: no controllers here).
    cells: Vec<&'a Cell>,
    pressure: &'a SubstepPressure,
}

impl<'a> StepHooks<'a> {
    pub fn new(filter: &'a ContactFilter, bodies: &'a [BodyRuntime], pressure: &'a SubstepPressure) -> Self {
        let cells = bodies
            .iter()
            .filter_map(|b| match b {
                BodyRuntime::Cell(c) => Some(c),
                _ => None,
            })
            .collect();
        StepHooks { filter, cells, pressure }
    }
}

impl PhysicsHooks for StepHooks<'_> {
    fn filter_contact_pair(&self, ctx: &PairFilterContext) -> Option<SolverFlags> {
        self.filter.filter_contact_pair(ctx)
    }

    fn has_substep_forces(&self) -> bool {
        !self.cells.is_empty()
    }

    fn substep_forces(&self, state: &mut SubstepState) {
        self.pressure.apply(self.cells.iter().copied(), state);
    }
}
