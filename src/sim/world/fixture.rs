//! Rigid plates for experiments on cells (spec `cells.md` §11, `force_deflection`): a fixed or
//! kinematic box, a pin from a cell's membrane body to a plate, and the contact force the plate receives.
//! Plates are loads of the experiment, not bodies of the snapshots.

use rapier2d::prelude::*;

use super::World;
use crate::geom::Vec2 as V2;
use crate::sim::kinds::BodyRuntime;
use crate::sim::tag::ColliderTag;
use crate::sim::v;
use crate::snapshot::BodyId;

/// How a plate moves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlateMotion {
    /// Never moves (a ground).
    Fixed,
    /// Moved by [`World::move_plate`] (a displacement-controlled bar).
    Kinematic,
    /// A dynamic plate of `mass` kg that only slides vertically (as on a vertical prismatic joint to the
    /// ground), without gravity, pushed by [`World::set_plate_force`] (a force-controlled bar).
    Sliding { mass: f64 },
}

/// A rigid box added by [`World::add_plate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plate {
    body: RigidBodyHandle,
    collider: ColliderHandle,
}

/// What touched a plate during the last step.
#[derive(Debug, Clone, PartialEq)]
pub struct PlateContact {
    /// Mean force the contacts exerted on the plate over the step (impulses / dt), N.
    pub force: V2,
    /// Membrane bodies (or voxel parts) in active contact: (body id, part index), sorted.
    pub touching: Vec<(BodyId, usize)>,
}

/// Why a plate operation was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FixtureError {
    #[error("body {0} is not a soft cell")]
    NotACell(BodyId),
    #[error("cell {cell} has no membrane body {index}")]
    NoSuchMembraneBody { cell: BodyId, index: usize },
    #[error("the plate is not kinematic: it cannot be moved")]
    NotKinematic,
    #[error("the plate is not sliding: it cannot be pushed")]
    NotSliding,
}

/// The plates of a world: where the kinematic ones go during the step, and the contact impulse each
/// received, summed over the step's physics substeps.
#[derive(Debug, Default)]
pub(super) struct Plates {
    list: Vec<PlateRuntime>,
}

#[derive(Debug)]
struct PlateRuntime {
    plate: Plate,
    /// This step's move of a kinematic plate: from, to.
    moving: Option<(V2, V2)>,
    /// Contact impulse summed over this step's substeps so far, N·s.
    impulse: V2,
    /// The last complete step's contact.
    contact: PlateContact,
}

impl Plates {
    /// Sets each moving plate's position at the end of the next substep, `progress` (0 … 1] of its move.
    pub(super) fn place(&self, physics: &mut PhysicsWorld, progress: f64) {
        for p in &self.list {
            if let Some((from, to)) = p.moving {
                physics.bodies[p.plate.body].set_next_kinematic_translation(v(from + (to - from) * progress));
            }
        }
    }

    /// Adds the contact impulses of the substep just taken.
    pub(super) fn add_contacts(&mut self, physics: &PhysicsWorld) {
        for p in &mut self.list {
            let (impulse, touching) = contact_of(physics, p.plate.collider);
            p.impulse = p.impulse + impulse;
            p.contact.touching = touching;
        }
    }

    /// Closes the step of length `dt`: the summed impulse becomes the step's mean force.
    pub(super) fn finish_step(&mut self, dt: f64) {
        for p in &mut self.list {
            p.moving = None;
            p.contact.force = p.impulse * (1.0 / dt);
            p.impulse = V2::ZERO;
        }
    }

    fn get_mut(&mut self, plate: Plate) -> Option<&mut PlateRuntime> {
        self.list.iter_mut().find(|p| p.plate == plate)
    }
}

/// The impulse the contacts of one engine step exerted on `collider` and what touched it. Each contact's
/// impulses (normal and friction) are the solver's totals over the engine's substeps.
fn contact_of(physics: &PhysicsWorld, collider: ColliderHandle) -> (V2, Vec<(BodyId, usize)>) {
    let mut impulse = V2::ZERO;
    let mut touching = Vec::new();
    for pair in physics.contact_pairs_with(collider) {
        if !pair.has_any_active_contact() {
            continue;
        }
        // The solver pushes collider 1 along −n and collider 2 along +n; friction acts along the
        // tangent of −n turned by +90°.
        let sign = if pair.collider1 == collider { 1.0 } else { -1.0 };
        for m in pair.solver_manifolds() {
            let n = V2::new(m.data.normal.x as f64, m.data.normal.y as f64);
            let dir1 = -n;
            let tangent1 = V2::new(-dir1.y, dir1.x);
            for p in &m.points {
                let j = dir1 * p.data.impulse as f64 + tangent1 * p.data.tangent_impulse[0] as f64;
                impulse = impulse + j * sign;
            }
        }
        let other = if pair.collider1 == collider { pair.collider2 } else { pair.collider1 };
        if let Some(tag) = physics.colliders.get(other).and_then(|c| ColliderTag::decode(c.user_data)) {
            touching.push((tag.body, tag.part));
        }
    }
    touching.sort_unstable_by_key(|(b, p)| (b.index(), *p));
    touching.dedup();
    (impulse, touching)
}

impl World {
    /// Adds a box of half extents `half` centred at `centre`, with friction `friction` (combined as the
    /// bodies' geometric mean) and restitution 0.
    pub fn add_plate(&mut self, centre: V2, half: V2, motion: PlateMotion, friction: f64) -> Plate {
        let builder = match motion {
            PlateMotion::Fixed => RigidBodyBuilder::fixed(),
            PlateMotion::Kinematic => RigidBodyBuilder::kinematic_position_based(),
            PlateMotion::Sliding { .. } => RigidBodyBuilder::dynamic()
                .locked_axes(LockedAxes::TRANSLATION_LOCKED_X | LockedAxes::ROTATION_LOCKED)
                .gravity_scale(0.0)
                .can_sleep(false),
        };
        let body = self.physics.bodies.insert(builder.translation(v(centre)));
        let density = match motion {
            PlateMotion::Sliding { mass } => mass / (4.0 * half.x * half.y),
            _ => 1.0,
        };
        let collider = ColliderBuilder::cuboid(half.x as Real, half.y as Real)
            .density(density as Real)
            .friction(friction as Real)
            .friction_combine_rule(CoefficientCombineRule::GeometricMean)
            .restitution(0.0)
            .restitution_combine_rule(CoefficientCombineRule::Max);
        let collider = self.physics.colliders.insert_with_parent(collider, body, &mut self.physics.bodies);
        let plate = Plate { body, collider };
        let contact = PlateContact { force: V2::ZERO, touching: Vec::new() };
        self.plates.list.push(PlateRuntime { plate, moving: None, impulse: V2::ZERO, contact });
        plate
    }

    /// Pins membrane body `index` of cell `cell` to `plate` with a revolute joint at the body's centre
    /// (free to turn, not to move); contacts between the two are off.
    pub fn pin_cell_body(&mut self, cell: BodyId, index: usize, plate: Plate) -> Result<(), FixtureError> {
        let handle = match self.bodies.get(cell.index()) {
            Some(BodyRuntime::Cell(c)) => {
                c.body_handle(index).ok_or(FixtureError::NoSuchMembraneBody { cell, index })?
            }
            _ => return Err(FixtureError::NotACell(cell)),
        };
        let at = self.physics.bodies[handle].translation();
        let plate_pos = self.physics.bodies[plate.body].translation();
        let joint = RevoluteJointBuilder::new()
            .local_anchor1(at - plate_pos)
            .local_anchor2(Vector::new(0.0, 0.0))
            .contacts_enabled(false);
        self.physics.impulse_joints.insert(plate.body, handle, joint, true);
        Ok(())
    }

    /// Where a plate's centre is, m.
    pub fn plate_centre(&self, plate: Plate) -> V2 {
        let t = self.physics.bodies[plate.body].translation();
        V2::new(t.x as f64, t.y as f64)
    }

    /// Sets where a kinematic plate's centre will be at the end of the next step. It moves there at a
    /// constant speed over the step's physics substeps (the engine gives it the velocity).
    pub fn move_plate(&mut self, plate: Plate, centre: V2) -> Result<(), FixtureError> {
        if !self.physics.bodies[plate.body].is_kinematic() {
            return Err(FixtureError::NotKinematic);
        }
        let from = self.plate_centre(plate);
        if let Some(p) = self.plates.get_mut(plate) {
            p.moving = Some((from, centre));
        }
        Ok(())
    }

    /// Sets the force on a sliding plate, N; it acts until set again.
    pub fn set_plate_force(&mut self, plate: Plate, force: V2) -> Result<(), FixtureError> {
        let rb = &mut self.physics.bodies[plate.body];
        if !rb.is_dynamic() {
            return Err(FixtureError::NotSliding);
        }
        rb.reset_forces(false);
        rb.add_force(v(force), true);
        Ok(())
    }

    /// The contact force on `plate` during the last step (its impulses summed over the step's substeps,
    /// divided by dt: the step's mean force) and what touched it at the step's end.
    pub fn plate_contact(&self, plate: Plate) -> PlateContact {
        self.plates
            .list
            .iter()
            .find(|p| p.plate == plate)
            .map(|p| p.contact.clone())
            .unwrap_or(PlateContact { force: V2::ZERO, touching: Vec::new() })
    }
}

impl World {
    /// Engine solver knobs beyond the substep count, for convergence probes (cells.md §8): warm-start
    /// the impulse joints like contacts (rapier's default: off) and the PGS iterations per substep
    /// (default 1).
    pub fn set_solver_tuning(&mut self, warmstart_joints: bool, pgs_iterations: usize) {
        self.physics.integration_parameters.warmstart_joints = warmstart_joints;
        self.physics.integration_parameters.num_internal_pgs_iterations = pgs_iterations.max(1);
    }
}
