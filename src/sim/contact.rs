//! Which collider pairs may touch (spec §6, collisions table): static pairs never, bodies of different
//! owners always, two pieces of one body as that body's kind decides.

use rapier2d::prelude::*;

use super::tag::ColliderTag;
use super::voxel_robot::VoxelSelfContact;

/// What the filter knows of one body: its own rule for contacts between its pieces.
pub(crate) enum SelfContact {
    VoxelRobot(VoxelSelfContact),
    /// Every pair of a cell's bodies may touch: the ring joints switch off neighbour contacts.
    Cell,
    /// A rigid object is one piece.
    Object,
}

impl SelfContact {
    fn allows(&self, a: ColliderTag, b: ColliderTag) -> bool {
        match self {
            SelfContact::VoxelRobot(rules) => rules.allows(a, b),
            SelfContact::Cell | SelfContact::Object => true,
        }
    }
}

/// The physics hook: one [`SelfContact`] per body, indexed by body id.
#[derive(Default)]
pub(crate) struct ContactFilter {
    pub bodies: Vec<SelfContact>,
}

impl PhysicsHooks for ContactFilter {
    fn filter_contact_pair(&self, ctx: &PairFilterContext) -> Option<SolverFlags> {
        let fixed = |h: Option<RigidBodyHandle>| h.is_none_or(|h| !ctx.bodies[h].is_dynamic());
        if fixed(ctx.rigid_body1) && fixed(ctx.rigid_body2) {
            return None;
        }
        let a = ColliderTag::decode(ctx.colliders[ctx.collider1].user_data);
        let b = ColliderTag::decode(ctx.colliders[ctx.collider2].user_data);
        if let (Some(a), Some(b)) = (a, b) {
            if a.body == b.body && !self.bodies[a.body.index()].allows(a, b) {
                return None;
            }
        }
        Some(SolverFlags::COMPUTE_RIGID_IMPULSES)
    }
}
