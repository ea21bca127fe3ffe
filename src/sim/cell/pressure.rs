//! The cells' pressure inside the engine step: recomputed at every solver substep from the membrane
//! as the solver holds it there (spec `cells.md` §3, §9 step 2).
//!
//! A pressure set once per step and held over it goes unstable on fine membranes: its area feedback
//! acts on a breathing mode that the ring's Gauss–Seidel joints barely resist within one step (each of
//! N links sees ~π/N of a radial motion), and that mode's rate grows with N and C. Measured on a free
//! N 1000, C 200 cell at dt 1/50 s: held per step it needed 16 engine steps (each a whole collision and
//! constraint set-up); with F frozen at its rest value one was enough. Recomputed per substep, the
//! feedback is as fresh as the joints' corrections, at the cost of one pass over the membrane.

use std::sync::Mutex;

use rapier2d::prelude::*;

use super::Cell;
use crate::geom::Vec2;
use crate::model::cell;

/// One cell's state gathered from the solver, and its forces (kept to reuse the allocations).
#[derive(Default)]
struct Membrane {
    /// Solver slots of the bodies; empty when the cell is not in the substep group being solved.
    slots: Vec<usize>,
    pos: Vec<Vec2>,
    vel: Vec<Vec2>,
    up: Vec<Vec2>,
    forces: Vec<Vec2>,
}

/// The world's pressure hook: buffers per cell, in world order.
#[derive(Default)]
pub(crate) struct SubstepPressure {
    /// A mutex because the engine calls hooks through `&self`; one lock per substep, never contended.
    membranes: Mutex<Vec<Membrane>>,
}

impl SubstepPressure {
    /// Applies every cell's pressure forces for this substep as impulses f_i·dt.
    pub fn apply<'a>(&self, cells: impl Iterator<Item = &'a Cell>, state: &mut SubstepState) {
        let mut membranes = self.membranes.lock().unwrap_or_else(|e| e.into_inner());
        let dt = state.dt() as f64;
        for (k, cell) in cells.enumerate() {
            if membranes.len() <= k {
                membranes.push(Membrane::default());
            }
            let m = &mut membranes[k];
            // Slots are fixed within a step, not across steps.
            if state.substep() == 0 {
                m.slots.clear();
                for h in &cell.bodies {
                    match state.slot(*h) {
                        Some(slot) => m.slots.push(slot),
                        // A cell outside the group being solved gets its pressure in its own group's substeps.
                        None => {
                            m.slots.clear();
                            break;
                        }
                    }
                }
            }
            if m.slots.is_empty() {
                continue;
            }
            m.pos.clear();
            m.vel.clear();
            m.up.clear();
            for &slot in &m.slots {
                let (t, v) = (state.translation(slot), state.linvel(slot));
                m.pos.push(Vec2::new(t.x as f64, t.y as f64));
                m.vel.push(Vec2::new(v.x as f64, v.y as f64));
            }
            // The bodies' local +y, read by the `scs` normals only.
            if cell.params.normals == cell::Normals::Scs {
                m.up.extend(m.slots.iter().map(|&slot| super::local_up(state.rotation(slot))));
            }
            // The damping coefficients are those of the whole step (`Cell::step_dt`): a steady relative
            // motion is damped as when the pressure was held over the step.
            cell::pressure_forces(&cell.params, &m.pos, &m.vel, &m.up, cell.step_dt, &mut m.forces);
            for (&slot, f) in m.slots.iter().zip(&m.forces) {
                state.apply_impulse(slot, Vector::new((f.x * dt) as Real, (f.y * dt) as Real));
            }
        }
    }
}
